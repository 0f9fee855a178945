//! `majordomus session start|context|list|close|recompose`.

mod close;
mod context;
mod list;
mod recompose;
mod start;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

pub use close::CloseArgs;
pub use context::ContextArgs;
pub use list::ListArgs;
pub use recompose::RecomposeArgs;
pub use start::StartArgs;

/// Open, read and close working episodes; compose a closed one's record again.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum SessionCommand {
    Start(StartArgs),
    Context(ContextArgs),
    List(ListArgs),
    Close(CloseArgs),
    Recompose(RecomposeArgs),
}

pub fn run(ctx: &Ctx, command: &SessionCommand) -> Result<Output, Error> {
    match command {
        SessionCommand::Start(args) => start::run(ctx, args),
        SessionCommand::Context(args) => context::run(ctx, args),
        SessionCommand::List(args) => list::run(ctx, args),
        SessionCommand::Close(args) => close::run(ctx, args),
        SessionCommand::Recompose(args) => recompose::run(ctx, args),
    }
}
