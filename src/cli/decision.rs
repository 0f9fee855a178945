//! `majordomus decision`.

use clap::Args;

use super::Output;
use crate::authored::DecisionRequest;
use crate::{Ctx, Error};

/// Record a decision in the ledger, stamped with the open episode.
///
/// Decisions show in the episode's working context and closed record, and become
/// knowledge candidates when the episode closes.
///
/// Examples:
///   majordomus decision "All git access goes through gix; no git subprocess"
///   majordomus decision "Parse YAML with yaml_serde" --task t-20261130-1a2b
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DecisionArgs {
    /// The decision, one statement.
    pub text: String,
    /// The task the decision belongs to.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

pub fn run(ctx: &Ctx, args: &DecisionArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "decision.record",
        DecisionRequest {
            text: args.text.clone(),
            task: args.task.clone(),
        },
    )
}
