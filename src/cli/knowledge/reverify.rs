//! `majordomus knowledge reverify`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::ReverifyRequest;
use crate::{Ctx, Error};

/// Record that a verified record still holds at HEAD: the verifying commit and the evidence (a human act).
///
/// For a stale record (its cited files changed since it was verified: `majordomus doctor`
/// names it), after checking its claim against the files as they are now. Appends
/// "Re-verified at commit <HEAD>" with what had changed and the evidence on stdin, if
/// any, under `# Evidence`; `knowledge.reverified` in the ledger. Committing the record
/// makes that commit the one that verified it: it is no longer stale. A claim that no
/// longer holds is superseded instead (docs/KNOWLEDGE.md).
///
/// Examples:
///   majordomus knowledge reverify <id>
///   echo "tests/test_lexer.py still covers the cache key" | majordomus knowledge reverify <id>
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ReverifyArgs {
    /// The verified record's id.
    pub id: String,
}

pub fn run(ctx: &Ctx, args: &ReverifyArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.reverify",
        ReverifyRequest {
            id: args.id.clone(),
            evidence: crate::cli::read_stdin()?,
        },
    )
}
