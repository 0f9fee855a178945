//! `majordomus session list`.

use clap::Args;

use crate::cli::Output;
use crate::session::ListRequest;
use crate::{Ctx, Error};

/// Every episode, newest first, with its session record.
///
/// An episode is listed from its `session.opened` and `session.closed` lines; its record is
/// found by its id under .ai/repo/sessions/ or, on the trunk, in the outbox (a record
/// closed in another clone is not in this work tree until it is committed and pulled).
/// `--format json` includes each record's front matter and body.
///
/// Examples:
///   majordomus session list
///   majordomus session list --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ListArgs {}

pub fn run(ctx: &Ctx, _args: &ListArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "session.list", ListRequest {})
}
