//! `majordomus session close`.

use clap::Args;

use crate::cli::Output;
use crate::session::CloseRequest;
use crate::{Ctx, Error};

/// Close the open episode: its record, then candidates.
///
/// A summary may be piped on stdin; without one the record is still composed from the
/// episode's decisions, questions, checkpoints, commits, files and tasks. Closing never
/// refuses for missing prose.
///
/// Examples:
///   majordomus session close
///   echo "Parser rewritten; benchmarks in docs/PERFORMANCE.md" | majordomus session close
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CloseArgs {}

pub fn run(ctx: &Ctx, _args: &CloseArgs) -> Result<Output, Error> {
    // Refuse before waiting on stdin when there is nothing to close: the registry's
    // precondition, then the episode.
    crate::ops::Registry::shared()
        .entry("session.close")
        .precondition(ctx)?;
    ctx.require_episode()?;
    // A terminal, `/dev/null` or an empty pipe means no summary.
    let summary = Some(crate::cli::read_stdin()?.trim().to_owned()).filter(|s| !s.is_empty());
    crate::cli::call(ctx, "session.close", CloseRequest { summary })
}
