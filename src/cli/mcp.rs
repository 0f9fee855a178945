//! `majordomus mcp`: a driver that serves the registry as an MCP server on stdio.

use std::path::PathBuf;

use clap::Args;

use super::Output;
use crate::Error;
use crate::model::Verdict;
use crate::ops::Registry;

/// Serve this repository's memory to an agent client over MCP (stdio).
///
/// A tool for every operation but the human acts (promote, reject) and the hooks:
/// majordomus_context, majordomus_decision_record, majordomus_question_ask, ... (names:
/// `majordomus schema`; `majordomus_` + the name with dots as underscores). Writes are
/// stamped with the open episode, as on the command line. Resources: majordomus://context,
/// majordomus://knowledge/candidates, majordomus://reasoning. stdout carries the protocol
/// only; logs go to stderr; closing stdin stops the server. Register it with `majordomus setup <client>`
/// (docs/MCP.md).
///
/// Example:
///   majordomus mcp
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct McpArgs {}

pub fn run(dir: PathBuf, _args: &McpArgs) -> Result<Output, Error> {
    crate::mcp::run(Registry::standard(), dir)?;
    Ok(Output {
        human: String::new(),
        json: serde_json::Value::Null,
        note: None,
        verdict: Verdict::Pass,
        watching: false,
    })
}
