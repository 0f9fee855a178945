//! `majordomus init`.

use clap::Args;

use super::Output;
use crate::init::InitRequest;
use crate::{Ctx, Error};

/// Set up the .ai/ skeleton in this repository (idempotent; never overwrites a file).
///
/// Creates `.ai/repo/` (policy, knowledge sources, the candidates contract, the sessions
/// folder) and `.ai/local/`, and adds `.ai/local/` to `.gitignore`.
///
/// Example:
///   majordomus init && git add .ai .gitignore && git commit -m "majordomus: init"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct InitArgs {}

pub fn run(ctx: &Ctx, _args: &InitArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "init", InitRequest {})
}
