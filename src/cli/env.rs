//! `majordomus env`.

use clap::Args;

use super::Output;
use crate::env::EnvRequest;
use crate::{Ctx, Error};

/// Versions, repository, HEAD, trunk, open episode and ledger, as majordomus sees them.
///
/// Examples:
///   majordomus env
///   majordomus env --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct EnvArgs {}

pub fn run(ctx: &Ctx, _args: &EnvArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "env", EnvRequest {})
}
