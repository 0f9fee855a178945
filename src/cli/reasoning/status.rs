//! `majordomus reasoning status`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::StatusRequest;
use crate::{Ctx, Error};

/// The work's reasoning: assessments, consultations, conclusions.
///
/// Examples:
///   majordomus reasoning status
///   majordomus reasoning status --task t-20261130-1a2b --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatusArgs {
    /// The task (default: the active task, else the open episode).
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

pub fn run(ctx: &Ctx, args: &StatusArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "reasoning.status",
        StatusRequest {
            task: args.task.clone(),
        },
    )
}
