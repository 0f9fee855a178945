//! `majordomus knowledge reject`.

use clap::Args;

use super::candidates::FilterArgs;
use crate::cli::Output;
use crate::knowledge::{Act, RejectRequest, ReviewRequest};
use crate::{Ctx, Error};

/// Reject a candidate with a reason; it stays, marked superseded (a human act).
///
/// An id decides its whole review item: the near duplicates folded with it are rejected
/// with it, for the same reason.
///
/// Many at once: several ids, or --all-listed (what `knowledge candidates` lists with the
/// same filters), take one reason for all; each record still gets its own ledger act and
/// its own `# Rejected`, and every id is checked before anything is written.
/// --duplicate-of supersedes them by another record and says so (no --reason needed).
/// --commit writes one commit of exactly the reviewed records (through gix: no git hook
/// runs).
///
/// Examples:
///   majordomus knowledge reject <id> --reason "Only true for the old parser"
///   majordomus knowledge reject <id> --reason "Restated more precisely" --by <other-id>
///   majordomus knowledge reject <id> --duplicate-of <other-id> --commit
///   majordomus knowledge reject --all-listed --older-than 30d --reason "Stale session notes"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RejectArgs {
    /// The candidate ids.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Why they are rejected (one reason for all).
    #[arg(long)]
    pub reason: Option<String>,
    /// The knowledge id that replaces them.
    #[arg(long, value_name = "ID")]
    pub by: Option<String>,
    /// They restate this record: superseded by it, the reason says so.
    #[arg(long, value_name = "ID", conflicts_with = "by")]
    pub duplicate_of: Option<String>,
    /// Every candidate `knowledge candidates` lists with the same filters.
    #[arg(long)]
    pub all_listed: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Write one commit on the current branch holding only the reviewed records.
    #[arg(long)]
    pub commit: bool,
}

pub fn run(ctx: &Ctx, args: &RejectArgs) -> Result<Output, Error> {
    let filters = args.filters.request();
    let single = args.ids.len() == 1
        && !args.all_listed
        && !args.commit
        && args.duplicate_of.is_none()
        && !filters.narrows();
    if single {
        return crate::cli::call(
            ctx,
            "knowledge.reject",
            RejectRequest {
                id: args.ids[0].clone(),
                reason: args.reason.clone().unwrap_or_default(),
                by: args.by.clone(),
            },
        );
    }
    crate::cli::call(
        ctx,
        "knowledge.review",
        ReviewRequest {
            act: Act::Reject,
            ids: args.ids.clone(),
            all_listed: args.all_listed,
            filters,
            evidence: String::new(),
            class: None,
            reason: args.reason.clone(),
            by: args.by.clone(),
            duplicate_of: args.duplicate_of.clone(),
            commit: args.commit,
            supersedes: Vec::new(),
        },
    )
}
