//! `majordomus session start`.

use clap::Args;

use crate::cli::Output;
use crate::session::StartRequest;
use crate::{Ctx, Error};

/// Open an episode where no client hook opened one.
///
/// Starting while an episode is open prints it and opens nothing (provider hooks may
/// fire twice); `--replace` closes it first.
///
/// Examples:
///   majordomus session start
///   majordomus session start --provider example-agent
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StartArgs {
    /// Who works in this episode (an agent client's name, or a person's tool).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Close the open episode (without a summary) and open a new one.
    #[arg(long)]
    pub replace: bool,
}

pub fn run(ctx: &Ctx, args: &StartArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "session.start",
        StartRequest {
            provider: args.provider.clone(),
            replace: args.replace,
            conversation: None,
        },
    )
}
