//! `majordomus task start|finish|list`.

mod finish;
mod list;
mod start;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

/// Start, finish and list tasks: what an episode works on, bound to the intent it serves.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum TaskCommand {
    Start(start::StartArgs),
    Finish(finish::FinishArgs),
    List(list::ListArgs),
}

pub fn run(ctx: &Ctx, command: &TaskCommand) -> Result<Output, Error> {
    match command {
        TaskCommand::Start(args) => start::run(ctx, args),
        TaskCommand::Finish(args) => finish::run(ctx, args),
        TaskCommand::List(args) => list::run(ctx, args),
    }
}
