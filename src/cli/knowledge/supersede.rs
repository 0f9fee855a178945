//! `majordomus knowledge supersede`.

use clap::Args;

use super::verified::VerifiedFilterArgs;
use crate::cli::Output;
use crate::knowledge::SupersedeRequest;
use crate::{Ctx, Error};

/// Replace verified records by another verified record, the reason on stdin (a human act).
///
/// Each record leaves what is claimed: `status: superseded`, `superseded_by: <new>`, and a
/// `# Superseded` section saying who, when and why; one `knowledge.superseded` line each.
/// It is never put before a model again; `recall --all` lists it below its replacement.
/// Many at once: several ids, or --all-listed (what `knowledge verified` lists with the
/// same filters); every record is checked before anything is written. --commit writes one
/// commit of exactly their files (through gix: no git hook runs). A candidate that does not
/// hold is rejected instead; a candidate that replaces a verified record is promoted with
/// `knowledge promote <new> --supersedes <old>`.
///
/// Examples:
///   echo "Refresh is async now" | majordomus knowledge supersede <old> --by <new>
///   echo "Restated" | majordomus knowledge supersede <a> <b> --by <new> --commit
///   echo "Rewritten" | majordomus knowledge supersede --all-listed --stale --by <new>
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct SupersedeArgs {
    /// The verified records it replaces.
    #[arg(value_name = "OLD")]
    pub ids: Vec<String>,
    /// The verified record that replaces them.
    #[arg(long, value_name = "NEW")]
    pub by: String,
    /// Every record `knowledge verified` lists with the same filters.
    #[arg(long)]
    pub all_listed: bool,
    #[command(flatten)]
    pub filters: VerifiedFilterArgs,
    /// Write one commit on the current branch holding only these records.
    #[arg(long)]
    pub commit: bool,
}

pub fn run(ctx: &Ctx, args: &SupersedeArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.supersede",
        SupersedeRequest {
            ids: args.ids.clone(),
            all_listed: args.all_listed,
            filters: args.filters.request(),
            by: args.by.clone(),
            reason: crate::cli::read_stdin()?,
            commit: args.commit,
        },
    )
}
