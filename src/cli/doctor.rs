//! `majordomus doctor`.

use clap::Args;

use super::Output;
use crate::doctor::DoctorRequest;
use crate::{Ctx, Error};

/// Run every rule of the standard package, grouped (exit 10 on a blocking finding).
///
/// Rules: knowledge observed (freshness), knowledge integrity, candidates reviewed,
/// ledger health, outbox empty, provider events.
///
/// Example:
///   majordomus doctor
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DoctorArgs {}

pub fn run(ctx: &Ctx, _args: &DoctorArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::doctor::doctor(
        ctx,
        DoctorRequest::default(),
    )?))
}
