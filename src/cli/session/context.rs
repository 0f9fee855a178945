//! `majordomus session context`.

use clap::Args;

use crate::cli::Output;
use crate::session::EpisodeRequest;
use crate::{Ctx, Error};

/// The open episode's working context, composed now.
///
/// Nothing is cached: every read composes again. Each empty kind names the command that
/// fills it.
///
/// Examples:
///   majordomus session context
///   majordomus session context --path     # the frozen opening snapshot instead
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ContextArgs {
    /// The path of the open episode's opening snapshot.
    ///
    /// Printed instead of composing the context.
    #[arg(long)]
    pub path: bool,
}

pub fn run(ctx: &Ctx, args: &ContextArgs) -> Result<Output, Error> {
    if args.path {
        return crate::cli::call(ctx, "session.snapshot", EpisodeRequest {});
    }
    crate::cli::call(ctx, "session.context", EpisodeRequest {})
}
