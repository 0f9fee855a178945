//! `majordomus env`.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;

/// Versions, repository, HEAD, trunk, open episode and ledger, as majordomus sees them.
///
/// Examples:
///   majordomus env
///   majordomus env --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct EnvArgs {}

pub fn run(ctx: &Ctx, _args: &EnvArgs) -> Result<Output, CliError> {
    let report = crate::env::env(ctx)?;
    let v = &report.versions;
    let mut human = format!(
        "majordomus {} (gix {}, ledger {}, {})\n",
        v.majordomus, v.gix, v.ledger_format, v.session_schema
    );
    let _ = writeln!(human, "root: {}", report.root);
    let _ = writeln!(
        human,
        "initialised: {}",
        if report.initialised {
            "yes"
        } else {
            "no (run `majordomus init`)"
        }
    );
    let head = &report.head;
    let _ = writeln!(
        human,
        "branch: {}",
        head.branch.as_deref().unwrap_or("(detached HEAD)")
    );
    let _ = writeln!(
        human,
        "HEAD: {}",
        head.id.as_deref().unwrap_or("(unborn: no commit yet)")
    );
    match &report.trunk {
        Some(t) => {
            let from = match &t.remote {
                Some(r) => format!("refs/remotes/{r}/HEAD"),
                None => "git config majordomus.trunk".to_owned(),
            };
            let _ = writeln!(
                human,
                "trunk: {} (from {from}){}",
                t.branch,
                if report.on_trunk { ", checked out" } else { "" }
            );
        }
        None => {
            let _ = writeln!(
                human,
                "trunk: none (no remote HEAD; `git remote set-head origin -a` or `git config majordomus.trunk <branch>`)"
            );
        }
    }
    match &report.episode {
        Some(ep) => {
            let _ = writeln!(human, "episode: {} (opened {})", ep.id, ep.opened);
        }
        None => human.push_str("episode: none open\n"),
    }
    let _ = writeln!(
        human,
        "ledger: {} ({} bytes)",
        report.ledger.path, report.ledger.bytes
    );
    if report.clock_pinned {
        human.push_str("clock: pinned by MAJORDOMUS_NOW\n");
    }
    Ok(Output::ok(human, report))
}
