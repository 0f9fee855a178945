//! `majordomus doctor`.

use clap::Args;

use super::Output;
use crate::doctor::DoctorRequest;
use crate::{Ctx, Error};

/// Run every rule of the effective set (the vendored package and project rules), grouped; blocking findings fail.
///
/// Exit 10 on a blocking finding. The effective set is the vendored package
/// (.ai/repo/rules/vendor/majordomus.yaml, or the one built in when nothing is vendored)
/// plus project rules (.ai/repo/rules/project/*.yaml). Standard rules: policy valid,
/// knowledge observed (freshness), knowledge integrity, candidates reviewed, ledger health,
/// outbox empty, provider events, knowledge stale, intent validated. A rule majordomus has
/// no check for is a blocking finding naming it.
///
/// Example:
///   majordomus doctor
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DoctorArgs {}

pub fn run(ctx: &Ctx, _args: &DoctorArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "doctor", DoctorRequest::default())
}
