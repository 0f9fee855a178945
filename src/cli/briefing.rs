//! `majordomus briefing`.

use clap::Args;

use super::Output;
use crate::briefing::BriefingRequest;
use crate::{Ctx, Error};

/// The opening briefing: open questions, candidates awaiting review, the last handover.
///
/// It is also the body of each episode's opening snapshot. Bounded by
/// `session.briefing_budget_lines`.
///
/// Example:
///   majordomus briefing
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct BriefingArgs {}

pub fn run(ctx: &Ctx, _args: &BriefingArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::briefing::briefing(
        ctx,
        BriefingRequest {},
    )?))
}
