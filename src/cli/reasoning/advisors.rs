//! `majordomus reasoning advisors`.

use clap::Args;

use crate::cli::Output;
use crate::reasoning::AdvisorsRequest;
use crate::{Ctx, Error};

/// The advisor catalogue and each advisor's availability now.
///
/// The advisor catalogue, in preference order, with each advisor's availability now.
///
/// Availability is state, derived from presence (executable on PATH, credential variable
/// set — its value is never read), the mode, MAJORDOMUS_ADVISORS_DISABLE and the recorded
/// consultations (the circuit): available, unavailable, not_configured, disabled,
/// temporarily_failed, rate_limited, recovering.
///
/// Example:
///   majordomus reasoning advisors
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct AdvisorsArgs {}

pub fn run(ctx: &Ctx, _args: &AdvisorsArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "reasoning.advisors", AdvisorsRequest {})
}
