//! `majordomus knowledge show`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::ShowRequest;
use crate::{Ctx, Error};

/// One knowledge record, whole.
///
/// Example:
///   majordomus knowledge show 20261130T101500Z-1a2b3c-0123456789ab
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ShowArgs {
    /// The knowledge id (see `majordomus knowledge candidates`).
    pub id: String,
}

pub fn run(ctx: &Ctx, args: &ShowArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.show",
        ShowRequest {
            id: args.id.clone(),
        },
    )
}
