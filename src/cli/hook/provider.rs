//! `majordomus hook session-start|session-end|compact|prompt|edit`: agent-client hooks, which never
//! block their client: the registry declares them provider hooks, and the CLI's one
//! exit-code mapping (`cli::exit::for_failure`) exits 0 on their failures.

use clap::Args;

use crate::cli::Output;
use crate::hooks::ProviderRequest;
use crate::{Ctx, Error};

#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ProviderArgs {
    /// The agent client (e.g. claude-code, gemini-cli).
    #[arg(long, default_value = "agent", value_name = "NAME")]
    pub provider: String,
    #[arg(skip)]
    pub stdin: std::sync::OnceLock<String>,
}

impl ProviderArgs {
    /// The payload the client wrote on stdin, read once.
    pub fn payload(&self) -> &str {
        self.stdin.get_or_init(crate::cli::read_stdin_lossy)
    }

    fn request(&self) -> ProviderRequest {
        ProviderRequest {
            provider: self.provider.clone(),
            payload: self.payload().to_owned(),
        }
    }
}

pub fn session_start(ctx: &Ctx, args: &ProviderArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.session-start", args.request())
}

pub fn session_end(ctx: &Ctx, args: &ProviderArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.session-end", args.request())
}

pub fn compact(ctx: &Ctx, args: &ProviderArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.compact", args.request())
}

pub fn prompt(ctx: &Ctx, args: &ProviderArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.prompt", args.request())
}

pub fn edit(ctx: &Ctx, args: &ProviderArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.edit", args.request())
}
