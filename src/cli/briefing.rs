//! `majordomus briefing`.

use clap::Args;

use super::Output;
use crate::briefing::BriefingRequest;
use crate::{Ctx, Error};

/// The session-start briefing: how to work here, and what is known.
///
/// It is also the body of each episode's opening snapshot and what `hook session-start`
/// gives an agent client to inject. "What the repository knows" ranks curated knowledge
/// by the work at hand (the active task, or this branch's last; the files this branch
/// changed against the trunk; the last handover's episode), then the decisions of earlier
/// episodes on this branch. Bounded by `session.briefing_budget_lines`: a list that is
/// cut says how many it left out and the command that lists them (docs/RECALL.md).
///
/// Examples:
///   majordomus briefing
///   majordomus briefing --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct BriefingArgs {}

pub fn run(ctx: &Ctx, _args: &BriefingArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "briefing", BriefingRequest::default())
}
