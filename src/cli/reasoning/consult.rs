//! `majordomus reasoning consult`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::ConsultRequest;
use crate::{Ctx, Error};

/// Plan an assessment and consult the selected advisors (child processes, mesh peers) under a deadline.
///
/// The advisors run concurrently, each as a child process (its executable, the question on
/// stdin, one JSON answer on stdout); one that outlives the deadline is killed with its
/// process group and recorded as `timeout`. Outcomes are recorded in plan order; when
/// completed stances diverge, the disagreement is recorded and a conclusion is refused
/// until a resolution with evidence settles it.
///
/// Examples:
///   majordomus reasoning consult --assessment assessment-0123456789ab
///   majordomus reasoning consult --assessment assessment-0123456789ab --timeout 30
///   majordomus reasoning consult --assessment assessment-0123456789ab --task t-20261130-1a2b
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ConsultArgs {
    /// The assessment.
    #[arg(long, value_name = "ID")]
    pub assessment: String,
    /// What to ask beyond the assessment.
    #[arg(long, value_name = "Q")]
    pub question: Option<String>,
    /// Seconds all advisors have together.
    #[arg(long, default_value_t = 90, value_name = "S")]
    pub timeout: u64,
    /// A prior answer to show, marked as an opinion.
    #[arg(long, value_name = "O")]
    pub prior_opinion: Option<String>,
    /// The task whose assessment it is (default: the active task, else the episode).
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

pub fn run(ctx: &Ctx, args: &ConsultArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "reasoning.consult",
        ConsultRequest {
            assessment: args.assessment.clone(),
            question: args.question.clone(),
            timeout: Some(args.timeout),
            prior_opinion: args.prior_opinion.clone(),
            task: args.task.clone(),
        },
    )
}
