//! `majordomus init`.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;
use crate::store::WriteOutcome;

/// Set up majordomus in this repository (idempotent; never overwrites a file).
///
/// Creates `.ai/repo/` (policy, knowledge sources, the candidates contract, the sessions
/// folder) and `.ai/local/`, and adds `.ai/local/` to `.gitignore`.
///
/// Example:
///   majordomus init && git add .ai .gitignore && git commit -m "majordomus: init"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct InitArgs {}

pub fn run(ctx: &Ctx, _args: &InitArgs) -> Result<Output, CliError> {
    let report = crate::init::init(ctx)?;
    let mut human = format!("initialised {}\n", ctx.layout.root().display());
    for path in &report.created {
        let _ = writeln!(human, "  created  {path}");
    }
    for path in &report.existing {
        let _ = writeln!(human, "  kept     {path}");
    }
    human.push_str(match report.gitignore {
        WriteOutcome::Written => "  .gitignore: added .ai/local/\n",
        _ => "  .gitignore: already ignores .ai/local/\n",
    });
    human.push_str("next: majordomus session start\n");
    Ok(Output::ok(human, report))
}
