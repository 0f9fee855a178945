//! `majordomus reasoning explain`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::ExplainRequest;
use crate::{Ctx, Error};

/// The provenance chain of one conclusion.
///
/// Example:
///   majordomus reasoning explain conclusion-0123456789ab
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ExplainArgs {
    /// The conclusion id.
    pub conclusion: String,
}

pub fn run(ctx: &Ctx, args: &ExplainArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "reasoning.explain",
        ExplainRequest {
            conclusion: args.conclusion.clone(),
        },
    )
}
