//! `majordomus worktrees`.

use clap::Args;

use super::Output;
use crate::worktrees::WorktreesRequest;
use crate::{Ctx, Error};

/// What the other worktrees of this clone are doing now.
///
/// Read live from each worktree's own .ai/local/ (nothing is copied or written); a
/// worktree that is gone, locked or unreadable is named, never an error.
///
/// Examples:
///   majordomus worktrees
///   majordomus worktrees --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct WorktreesArgs {}

pub fn run(ctx: &Ctx, _args: &WorktreesArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "worktrees", WorktreesRequest {})
}
