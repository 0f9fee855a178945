//! `majordomus reasoning check`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::CheckRequest;
use crate::{Ctx, Error};

/// No provider-independent source names an advisor; no CI a model credential.
///
/// Advisors are optional: no provider-independent source names one, no CI names a model credential
/// (in a repository declaring project.advisors-are-optional; exit 3 on a finding). For adopters the
/// checks do not run, and it says so.
///
/// Example:
///   majordomus reasoning check
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckArgs {}

pub fn run(ctx: &Ctx, _args: &CheckArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "reasoning.check", CheckRequest {})
}
