//! `majordomus session recompose`.

use clap::Args;

use crate::cli::Output;
use crate::session::RecomposeRequest;
use crate::{Ctx, Error};

/// Compose a closed episode's record again with its own commits.
///
/// A record lists the episode's own commits: those its hooks recorded, followed through
/// amends and rebases to what they became, and the first-parent commits since its HEAD at
/// open that the trunk and the branch's upstream do not hold (docs/SESSIONS.md, "Which
/// commits a record lists, and why"). A record written before that rule may list what a
/// rebase onto the trunk or a merge of it brought in; this writes its `commits`,
/// `changed_files`, Commits, Files and Outcome again from this clone's ledger and git (the
/// record's `head` as HEAD, the trunk and upstream as their reflogs say they stood when it
/// closed) and leaves every other section as it is. `doctor` names such a record with this
/// command. Unchanged when the record already lists them.
///
/// Examples:
///   majordomus session recompose 20261130T100000Z-3f9a1c
///   majordomus --format json session recompose 20261130T100000Z-3f9a1c
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RecomposeArgs {
    /// The closed episode (`majordomus session list` names them).
    #[arg(value_name = "EPISODE")]
    pub episode: String,
}

pub fn run(ctx: &Ctx, args: &RecomposeArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "session.recompose",
        RecomposeRequest {
            episode: args.episode.clone(),
        },
    )
}
