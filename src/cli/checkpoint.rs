//! `majordomus checkpoint`.

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;
use crate::authored;

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

pub fn run(ctx: &Ctx, args: &CheckpointArgs) -> Result<Output, CliError> {
    let recorded = authored::record_checkpoint(ctx, &args.text)?;
    Ok(super::decision::recorded_output("checkpoint", recorded))
}
