//! `majordomus rules vendor update`.

use clap::Args;

use crate::cli::Output;
use crate::rules::VendorUpdateRequest;
use crate::{Ctx, Error};

/// Refresh the vendored rule package from the one built into majordomus, saying which rules changed.
///
/// Says which rules that adds, removes and changes (by id), or `unchanged` when the copy
/// already is this version's. Commit the file: every clone checks against the vendored
/// rules.
///
/// Example:
///   majordomus rules vendor update && git add .ai/repo/rules && git commit -m "Vendor the rules"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VendorUpdateArgs {}

pub fn run(ctx: &Ctx, _args: &VendorUpdateArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "rules.vendor-update", VendorUpdateRequest {})
}
