//! `majordomus knowledge reject`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::RejectRequest;
use crate::{Ctx, Error};

/// Reject a candidate with a reason; it stays, marked superseded (a human act).
///
/// Examples:
///   majordomus knowledge reject <id> --reason "Only true for the old parser"
///   majordomus knowledge reject <id> --reason "Restated more precisely" --by <other-id>
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RejectArgs {
    /// The candidate id.
    pub id: String,
    /// Why it is rejected.
    #[arg(long)]
    pub reason: String,
    /// The knowledge id that replaces it.
    #[arg(long, value_name = "ID")]
    pub by: Option<String>,
}

pub fn run(ctx: &Ctx, args: &RejectArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.reject",
        RejectRequest {
            id: args.id.clone(),
            reason: args.reason.clone(),
            by: args.by.clone(),
        },
    )
}
