//! `majordomus mcp`: a driver that serves the registry as an MCP server on stdio.

use std::path::PathBuf;

use clap::Args;

use super::Output;
use crate::Error;
use crate::mcp::Structured;
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
/// (docs/MCP.md). A result is its text, which is what the model reads; its JSON travels as
/// structuredContent only where it is smaller or the verdict failed, unless asked for.
///
/// Examples:
///   majordomus mcp
///   majordomus mcp --structured-content
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct McpArgs {
    /// Put every result's JSON (and every error's) in structuredContent too, for a program
    /// that reads the results; an agent's client would hand the model the JSON instead of
    /// the text.
    #[arg(long)]
    pub structured_content: bool,
}

pub fn run(dir: PathBuf, args: &McpArgs) -> Result<Output, Error> {
    let structured = if args.structured_content {
        Structured::Always
    } else {
        Structured::WhereNeeded
    };
    crate::mcp::run(Registry::standard(), dir, structured)?;
    Ok(Output {
        human: String::new(),
        json: serde_json::Value::Null,
        note: None,
        verdict: Verdict::Pass,
        watching: false,
    })
}
