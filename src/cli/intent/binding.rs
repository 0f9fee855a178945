//! `majordomus intent binding`.

use clap::Args;

use crate::cli::Output;
use crate::intent::BindingAsk;
use crate::{Ctx, Error};

/// What a task would serve, derived now from the plan.
///
/// Read-only: nothing about the intent is stored. The answer is `bound`, `maintenance`,
/// `exempt` or `refused` with its causes (exit 3), and the two pins `plan_revision` and
/// `evidence_standing` a handover is later resolved against.
///
/// Examples:
///   majordomus intent binding --issue parser-nom
///   majordomus intent binding --scope src/parser/ --format json
///   majordomus intent binding --exempt docs --because "documentation only"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct BindingArgs {
    /// The issue the work serves.
    #[arg(long, value_name = "ID")]
    pub issue: Option<String>,
    /// The intent the work serves.
    #[arg(long, value_name = "ID")]
    pub intent: Option<String>,
    /// Paths the work touches.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub scope: Vec<String>,
    /// A declared exemption class.
    #[arg(long, value_name = "CLASS")]
    pub exempt: Option<String>,
    /// Why the exemption applies.
    #[arg(long, value_name = "REASON")]
    pub because: Option<String>,
}

pub fn run(ctx: &Ctx, args: &BindingArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "intent.binding",
        BindingAsk {
            issue: args.issue.clone(),
            intent: args.intent.clone(),
            scope: args.scope.clone(),
            exempt: args.exempt.clone(),
            because: args.because.clone(),
        },
    )
}
