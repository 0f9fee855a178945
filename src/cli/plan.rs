//! `majordomus plan start`.

use clap::{Args, Subcommand};

use super::Output;
use crate::intent::PlanStartRequest;
use crate::{Ctx, Error};

/// Act on the plan (.ai/repo/intents/).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum PlanCommand {
    Start(StartArgs),
}

/// Set an issue active, after the binding check.
///
/// Only that value is edited: comments and formatting of the rest of the file stay byte
/// for byte. The check is the one `task start` makes; naming the issue is a question
/// asked, so a refusal (an uncritiqued intent, a blocking finding, a done issue) stops it.
///
/// Example:
///   majordomus plan start parser-nom
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StartArgs {
    /// The issue id.
    pub issue: String,
}

pub fn run(ctx: &Ctx, command: &PlanCommand) -> Result<Output, Error> {
    match command {
        PlanCommand::Start(args) => crate::cli::call(
            ctx,
            "plan.start",
            PlanStartRequest {
                issue: args.issue.clone(),
            },
        ),
    }
}
