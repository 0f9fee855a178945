//! `majordomus history`.

use clap::Args;

use super::Output;
use crate::history::HistoryRequest;
use crate::{Ctx, Error};

/// Read the ledger, oldest first, filtered by event, episode or time.
///
/// Examples:
///   majordomus history
///   majordomus history --event decision.recorded
///   majordomus history --session 20261130T101500Z-1a2b3c --since 2026-11-30
///   majordomus history --event decision.recorded --all-worktrees
///   majordomus history --event session.closed --event knowledge.derived
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct HistoryArgs {
    /// Only lines of this event (e.g. decision.recorded); repeat it for lines of any of
    /// several events (--event session.closed --event knowledge.derived).
    #[arg(long, value_name = "EVENT")]
    pub event: Vec<String>,
    /// Only lines stamped with this episode id.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only lines at or after this time (RFC 3339, or YYYY-MM-DD).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Also the other worktrees' ledgers of this clone, each under its path.
    #[arg(long)]
    pub all_worktrees: bool,
}

pub fn run(ctx: &Ctx, args: &HistoryArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "history",
        HistoryRequest {
            event: args.event.clone(),
            session: args.session.clone(),
            since: args.since.clone(),
            all_worktrees: args.all_worktrees,
        },
    )
}
