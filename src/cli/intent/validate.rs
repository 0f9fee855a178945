//! `majordomus intent validate`.

use clap::Args;

use crate::cli::Output;
use crate::intent::ValidateRequest;
use crate::{Ctx, Error};

/// Intents whose work began without a critique, or with blocking findings still open.
///
/// Check the plan: intents whose work began without a critique, blocking findings still open, files
/// that do not parse (exit 3 on a blocking finding).
///
/// Example:
///   majordomus intent validate
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ValidateArgs {}

pub fn run(ctx: &Ctx, _args: &ValidateArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "intent.validate", ValidateRequest {})
}
