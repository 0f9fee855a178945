//! `majordomus context`.

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;

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

pub fn run(ctx: &Ctx, _args: &ContextArgs) -> Result<Output, CliError> {
    let composed = crate::context::context(ctx)?;
    Ok(Output::ok(composed.text.clone(), composed))
}
