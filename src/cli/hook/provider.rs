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
    pub stdin: std::sync::OnceLock<(String, bool)>,
}

impl ProviderArgs {
    /// The payload the client wrote on stdin, read once, and whether its bytes were not
    /// all UTF-8 (those that were not are U+FFFD in the text).
    pub fn payload(&self) -> (&str, bool) {
        let (text, not_utf8) = self.stdin.get_or_init(crate::cli::read_stdin_lossy);
        (text, *not_utf8)
    }

    fn request(&self) -> ProviderRequest {
        let (payload, not_utf8) = self.payload();
        ProviderRequest {
            provider: self.provider.clone(),
            payload: payload.to_owned(),
            not_utf8,
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
