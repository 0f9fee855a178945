//! `majordomus task finish`.

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::model::event::TaskStatus;
use crate::task::TaskFinishRequest;
use crate::{Ctx, Error};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StatusArg {
    Completed,
    Blocked,
}

/// Finish the active task: completed, or blocked.
///
/// Writes .ai/local/state/completed/<task>.md and `task.finished`; at the episode's close
/// the finish is derived into a knowledge candidate (a fact, or a lesson when blocked).
/// Files the task's commits changed outside its scope are said, never refused.
///
/// Examples:
///   majordomus task finish
///   majordomus task finish --status blocked --reason "the upstream API is not released yet"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct FinishArgs {
    /// How it ended.
    #[arg(long, value_enum, default_value_t = StatusArg::Completed)]
    pub status: StatusArg,
    /// Why it is blocked (required with --status blocked).
    #[arg(long, value_name = "WHY")]
    pub reason: Option<String>,
}

pub fn run(ctx: &Ctx, args: &FinishArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "task.finish",
        TaskFinishRequest {
            status: Some(match args.status {
                StatusArg::Completed => TaskStatus::Completed,
                StatusArg::Blocked => TaskStatus::Blocked,
            }),
            reason: args.reason.clone(),
        },
    )
}
