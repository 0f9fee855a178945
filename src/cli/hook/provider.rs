//! `majordomus hook session-start|session-end|compact`: agent-client hooks, which never
//! block their client (always exit 0).

use clap::Args;

use crate::Ctx;
use crate::cli::Output;
use crate::hooks::ProviderRequest;

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

/// A provider hook's result: the library never fails one (failures are recorded and
/// reported as an outcome), so this cannot error.
fn output(outcome: Result<crate::hooks::ProviderOutcome, crate::Error>) -> Output {
    match outcome {
        Ok(outcome) => Output::report(&outcome),
        Err(e) => Output::failed_quietly(&e),
    }
}

pub fn session_start(ctx: &Ctx, args: &ProviderArgs) -> Output {
    output(crate::hooks::session_start(ctx, args.request()))
}

pub fn session_end(ctx: &Ctx, args: &ProviderArgs) -> Output {
    output(crate::hooks::session_end(ctx, args.request()))
}

pub fn compact(ctx: &Ctx, args: &ProviderArgs) -> Output {
    output(crate::hooks::compact(ctx, args.request()))
}
