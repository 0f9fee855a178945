//! `majordomus task list`.

use clap::Args;

use crate::cli::Output;
use crate::task::TaskListRequest;
use crate::{Ctx, Error};

/// Every task of this checkout.
///
/// Example:
///   majordomus task list
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ListArgs {}

pub fn run(ctx: &Ctx, _args: &ListArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "task.list", TaskListRequest {})
}
