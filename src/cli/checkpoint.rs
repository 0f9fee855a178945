//! `majordomus checkpoint`.

use clap::Args;

use super::Output;
use crate::authored::CheckpointRequest;
use crate::{Ctx, Error};

/// Record a checkpoint: where the work stands, in one line.
///
/// Examples:
///   majordomus checkpoint "parser passes the fixture suite; error messages next"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckpointArgs {
    /// Where the work stands.
    pub text: String,
}

pub fn run(ctx: &Ctx, args: &CheckpointArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "checkpoint.record",
        CheckpointRequest {
            text: args.text.clone(),
        },
    )
}
