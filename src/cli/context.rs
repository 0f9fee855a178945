//! `majordomus context`.

use clap::Args;

use super::Output;
use crate::context::ContextRequest;
use crate::{Ctx, Error};

/// The briefing, then reasoning, knowledge, outbox and intent.
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
