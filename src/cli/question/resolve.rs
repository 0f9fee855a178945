//! `majordomus question resolve`.

use clap::Args;

use crate::authored::ResolveRequest;
use crate::cli::Output;
use crate::{Ctx, Error};

/// Resolve an open question with its answer.
///
/// Example:
///   majordomus question resolve q-1a2b3c4d5e "No: CI clones are throwaway"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ResolveArgs {
    /// The question id `majordomus question` printed.
    pub id: String,
    /// The answer.
    pub answer: String,
}

pub fn run(ctx: &Ctx, args: &ResolveArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "question.resolve",
        ResolveRequest {
            id: args.id.clone(),
            answer: args.answer.clone(),
        },
    )
}
