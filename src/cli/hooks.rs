//! `majordomus hooks install|uninstall`.

use clap::Subcommand;

use super::Output;
use crate::hooks::HooksRequest;
use crate::{Ctx, Error};

/// Install or remove the git hooks (post-commit, pre-push, post-checkout, post-merge).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HooksCommand {
    /// Install the hooks into the directory git uses (respects core.hooksPath). An
    /// existing hook is kept as <name>.pre-majordomus and run first. Idempotent.
    ///
    /// Example:
    ///   majordomus hooks install
    #[command(verbatim_doc_comment)]
    Install,
    /// Remove the hooks and restore any hook they chained.
    ///
    /// Example:
    ///   majordomus hooks uninstall
    #[command(verbatim_doc_comment)]
    Uninstall,
}

pub fn run(ctx: &Ctx, command: &HooksCommand) -> Result<Output, Error> {
    let report = match command {
        HooksCommand::Install => crate::hooks::install(ctx, HooksRequest {})?,
        HooksCommand::Uninstall => crate::hooks::uninstall(ctx, HooksRequest {})?,
    };
    Ok(Output::report(&report))
}
