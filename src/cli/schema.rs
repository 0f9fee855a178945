//! `majordomus schema`: a driver that prints the operation registry, the machine-readable
//! contract agents and tools build against.

use std::fmt::Write as _;

use clap::Args;

use super::Output;
use crate::error::{Error, UsageError};
use crate::model::Verdict;
use crate::ops::Registry;

/// Print the operation registry: every operation with its flags and JSON Schemas.
///
/// Every command that reads or writes the memory is one operation; MCP tools and HTTP
/// routes are generated from the same list. `--format json` prints
/// `{"operations": [{"name", "summary", "writes", "human_act", "request", "result", ...}]}`.
///
/// Examples:
///   majordomus schema
///   majordomus schema --operation decision.record --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct SchemaArgs {
    /// Only this operation (a dotted name such as `knowledge.check`).
    #[arg(long, value_name = "NAME")]
    pub operation: Option<String>,
}

pub fn run(args: &SchemaArgs) -> Result<Output, Error> {
    let registry = Registry::standard();
    let operations: Vec<_> = match &args.operation {
        Some(name) => vec![
            registry
                .get(name)
                .ok_or_else(|| UsageError::UnknownOperation { name: name.clone() })?,
        ],
        None => registry.iter().collect(),
    };
    let mut human = String::new();
    for op in &operations {
        let mut flags = Vec::new();
        if op.human_act {
            flags.push("human act");
        } else if op.writes {
            flags.push("writes");
        } else {
            flags.push("reads");
        }
        if op.entry_point {
            flags.push("hook");
        }
        let _ = writeln!(
            human,
            "{:<22} {:<16} majordomus {}\n    {}",
            op.name,
            flags.join(", "),
            op.cli,
            op.summary
        );
        if args.operation.is_some() {
            let pretty =
                |v: &serde_json::Value| serde_json::to_string_pretty(v).expect("schemas serialise");
            let _ = writeln!(
                human,
                "request schema:\n{}\nresult schema:\n{}",
                pretty(&op.request_schema()),
                pretty(&op.result_schema())
            );
        }
    }
    let json = serde_json::json!({
        "operations": operations.iter().map(|o| o.describe()).collect::<Vec<_>>(),
    });
    Ok(Output {
        human,
        json,
        note: None,
        verdict: Verdict::Pass,
        watching: false,
    })
}
