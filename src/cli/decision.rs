//! `majordomus decision`.

use std::path::Path;

use clap::Args;

use super::Output;
use crate::authored::DecisionRequest;
use crate::{Ctx, Error};

/// Record a decision, with the files it concerns.
///
/// Decisions show in the episode's working context and closed record, and become
/// knowledge candidates when the episode closes. A decision cites the files given with
/// --file and each path its text names that is a file at HEAD (`src/git/mod.rs`): its
/// candidate carries them as `file:` references, recall finds it by them, and a verified
/// record goes stale when one of them changes.
///
/// Examples:
///   majordomus decision "All git access goes through gix; no git subprocess"
///   majordomus decision "Parse YAML with yaml_serde" --task t-20261130-1a2b
///   majordomus decision "Retries back off exponentially" --file src/net/retry.rs
///   majordomus decision "Keep src/store/ledger.rs append-only"    # cites the file named
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DecisionArgs {
    /// The decision, one statement.
    pub text: String,
    /// The task the decision belongs to.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// A file the decision cites (repeatable), relative to the current directory; it must
    /// exist in the work tree or at HEAD. A path the text names that is a file at HEAD
    /// is cited without --file.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &DecisionArgs, dir: &Path) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "decision.record",
        DecisionRequest {
            text: args.text.clone(),
            task: args.task.clone(),
            files: args.files.clone(),
            base: Some(dir.to_path_buf()),
        },
    )
}
