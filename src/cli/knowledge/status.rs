//! `majordomus knowledge status`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::StatusRequest;
use crate::{Ctx, Error};

/// Freshness, review queue length and ages, and the outbox.
///
/// Example:
///   majordomus knowledge status
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatusArgs {}

pub fn run(ctx: &Ctx, _args: &StatusArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "knowledge.status", StatusRequest {})
}
