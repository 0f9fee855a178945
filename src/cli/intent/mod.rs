//! `majordomus intent binding|validate`.

mod binding;
mod validate;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

/// Ask the intent binding, or validate the plan (.ai/repo/intents/).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum IntentCommand {
    Binding(binding::BindingArgs),
    Validate(validate::ValidateArgs),
}

pub fn run(ctx: &Ctx, command: &IntentCommand) -> Result<Output, Error> {
    match command {
        IntentCommand::Binding(args) => binding::run(ctx, args),
        IntentCommand::Validate(args) => validate::run(ctx, args),
    }
}
