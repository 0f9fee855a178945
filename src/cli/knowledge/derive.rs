//! `majordomus knowledge derive`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::DeriveRequest;
use crate::{Ctx, Error};

/// Derive an episode's knowledge candidates.
///
/// Deterministic, no model, no network: each decision becomes a convention, each resolved
/// question a fact, each finished task a fact (completed) or a lesson (blocked). A rerun
/// over the same evidence writes nothing ("nothing to write"). Runs on its own at
/// `session close` and on the provider's compact hook.
///
/// Examples:
///   majordomus knowledge derive
///   majordomus knowledge derive --episode 20261130T101500Z-1a2b3c --dry-run
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DeriveArgs {
    /// The episode (default: the open one, else the last closed one).
    #[arg(long, value_name = "ID")]
    pub episode: Option<String>,
    /// Say what would be written; write nothing, append nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Ctx, args: &DeriveArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.derive",
        DeriveRequest {
            episode: args.episode.clone(),
            dry_run: args.dry_run,
        },
    )
}
