//! `majordomus knowledge candidates`.

use clap::Args;

use crate::cli::Output;
use crate::knowledge::CandidatesRequest;
use crate::{Ctx, Error};

/// List the candidates awaiting review, each marked tracked, untracked or outbox.
///
/// Examples:
///   majordomus knowledge candidates
///   majordomus knowledge candidates --branch main
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CandidatesArgs {
    /// List the candidates in this local branch's tree instead of the work tree.
    #[arg(long, value_name = "B")]
    pub branch: Option<String>,
}

pub fn run(ctx: &Ctx, args: &CandidatesArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.candidates",
        CandidatesRequest {
            branch: args.branch.clone(),
        },
    )
}
