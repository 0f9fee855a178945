//! `majordomus context`.

use clap::Args;

use super::Output;
use crate::context::ContextRequest;
use crate::{Ctx, Error};

/// The repository's context: the briefing, then REASONING, KNOWLEDGE, OUTBOX and INTENT.
///
/// Derived at every read. `session context` is the open episode's context instead.
///
/// Examples:
///   majordomus context
///   majordomus context --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ContextArgs {}

pub fn run(ctx: &Ctx, _args: &ContextArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "context", ContextRequest {})
}
