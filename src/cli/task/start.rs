//! `majordomus task start`.

use clap::Args;

use crate::cli::Output;
use crate::task::TaskStartRequest;
use crate::{Ctx, Error};

/// Start a task in the open episode.
///
/// The task is bound to what it serves: its issue, its intent, or a declared exemption
/// with a reason. `intent.binding` in the policy says how strictly: `off` asks nothing
/// unless a flag is given (a flag given is a question asked, and a refusal stops the
/// start); `advisory` asks every start and reports a refusal; `required` stops on one.
///
/// Examples:
///   majordomus task start "Port the parser to nom" --issue parser-nom
///   majordomus task start "Fix the README typo" --exempt docs --because "documentation only"
///   majordomus task start "Spike the cache" --scope src/cache/
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StartArgs {
    /// What the task is, one line.
    pub description: String,
    /// Paths the task touches (default: its issue's paths).
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub scope: Vec<String>,
    /// The issue it serves (an issue of .ai/repo/intents/*.yaml).
    #[arg(long, value_name = "ID")]
    pub issue: Option<String>,
    /// The intent it serves.
    #[arg(long, value_name = "ID")]
    pub intent: Option<String>,
    /// A declared exemption class (policy intent.exemptions); needs --because.
    #[arg(long, value_name = "CLASS")]
    pub exempt: Option<String>,
    /// Why the exemption applies.
    #[arg(long, value_name = "REASON")]
    pub because: Option<String>,
}

pub fn run(ctx: &Ctx, args: &StartArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "task.start",
        TaskStartRequest {
            description: args.description.clone(),
            scope: args.scope.clone(),
            issue: args.issue.clone(),
            intent: args.intent.clone(),
            exempt: args.exempt.clone(),
            because: args.because.clone(),
        },
    )
}
