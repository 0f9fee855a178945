//! `majordomus knowledge check`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::CheckRequest;
use crate::{Ctx, Error};

/// Check every knowledge record and its references.
///
/// Check the integrity of every knowledge record (exit 3 on a blocking finding).
///
/// Schema, ids, provenance, every reference resolving (sessions, tasks, decisions,
/// commits, files, knowledge ids), superseded records, transcript markers.
///
/// Example:
///   majordomus knowledge check
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckArgs {}

pub fn run(ctx: &Ctx, _args: &CheckArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "knowledge.check", CheckRequest {})
}
