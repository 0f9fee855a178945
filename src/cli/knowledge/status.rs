//! `majordomus knowledge status`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::StatusRequest;
use crate::{Ctx, Error};

/// Freshness (last episode closed vs last derived), queue length and ages, outbox.
///
/// Example:
///   majordomus knowledge status
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatusArgs {}

pub fn run(ctx: &Ctx, _args: &StatusArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::knowledge::status(
        ctx,
        StatusRequest {},
    )?))
}
