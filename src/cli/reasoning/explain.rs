//! `majordomus reasoning explain`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::ExplainRequest;
use crate::{Ctx, Error};

/// The whole provenance chain of one conclusion: assessment, plans, consultations,
/// disagreements, resolutions, attempts, the conclusion, its validations.
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
    Ok(Output::report(&crate::reasoning::explain(
        ctx,
        ExplainRequest {
            conclusion: args.conclusion.clone(),
        },
    )?))
}
