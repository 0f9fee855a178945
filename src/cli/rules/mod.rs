//! `majordomus rules vendor update`.

mod vendor_update;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

pub use vendor_update::VendorUpdateArgs;

/// The rules doctor runs: the vendored package and project rules (.ai/repo/rules/).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum RulesCommand {
    #[command(subcommand)]
    Vendor(VendorCommand),
}

/// The vendored copy of the standard rule package.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum VendorCommand {
    Update(VendorUpdateArgs),
}

pub fn run(ctx: &Ctx, command: &RulesCommand) -> Result<Output, Error> {
    match command {
        RulesCommand::Vendor(VendorCommand::Update(args)) => vendor_update::run(ctx, args),
    }
}
