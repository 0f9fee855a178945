//! `majordomus knowledge retire`.

use clap::Args;

use super::verified::VerifiedFilterArgs;
use crate::cli::Output;
use crate::knowledge::RetireRequest;
use crate::{Ctx, Error};

/// Take verified records that no longer hold out of what is claimed, with a reason (a human act).
///
/// Each record stays in curated/ as `status: superseded`, nothing replacing it, with a
/// `# Superseded` section saying who, when and why; one `knowledge.retired` line each. It is
/// never put before a model again. Many at once: several ids, or --all-listed (what
/// `knowledge verified` lists with the same filters); every record is checked before
/// anything is written. --commit writes one commit of exactly their files (through gix: no
/// git hook runs). When another record replaces it, `knowledge supersede` says so.
///
/// Examples:
///   majordomus knowledge retire <id> --reason "The synchronous refresh was removed"
///   majordomus knowledge retire <a> <b> --reason "The v1 API is gone" --commit
///   majordomus knowledge retire --all-listed --stale --episode <episode> --reason "Dropped"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RetireArgs {
    /// The verified records that no longer hold.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Why they no longer hold (one reason for all).
    #[arg(long)]
    pub reason: Option<String>,
    /// Every record `knowledge verified` lists with the same filters.
    #[arg(long)]
    pub all_listed: bool,
    #[command(flatten)]
    pub filters: VerifiedFilterArgs,
    /// Write one commit on the current branch holding only these records.
    #[arg(long)]
    pub commit: bool,
}

pub fn run(ctx: &Ctx, args: &RetireArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.retire",
        RetireRequest {
            ids: args.ids.clone(),
            all_listed: args.all_listed,
            filters: args.filters.request(),
            reason: args.reason.clone().unwrap_or_default(),
            commit: args.commit,
        },
    )
}
