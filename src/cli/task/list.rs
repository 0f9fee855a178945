//! `majordomus task list`.

use clap::Args;

use crate::cli::Output;
use crate::task::TaskListRequest;
use crate::{Ctx, Error};

/// List the tasks of this checkout, oldest first; `*` marks the active one.
///
/// Example:
///   majordomus task list
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ListArgs {}

pub fn run(ctx: &Ctx, _args: &ListArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::task::list(ctx, TaskListRequest {})?))
}
