//! `majordomus setup <client>`.

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::setup::{Client, SetupRequest};
use crate::{Ctx, Error};

/// Wire an agent client: its session hooks and the MCP server, merged into its files.
///
/// Edits the client's project files in place, keeping every other byte (and comment) as
/// it was: claude-code writes .claude/settings.json (SessionStart, SessionEnd and
/// PreCompact hooks, UserPromptSubmit and PreToolUse for recall at the prompt and the
/// edit; permissions.allow) and .mcp.json; gemini-cli writes
/// .gemini/settings.json (hooks and mcpServers, with the server's trust and includeTools);
/// codex writes .codex/config.toml ([mcp_servers.majordomus]) and .codex/hooks.json;
/// cursor writes .cursor/mcp.json and .cursor/hooks.json. The tools that only read, or
/// only add to the memory, become callable without a prompt (never the human acts or the
/// wiring; --no-permissions skips it). Then it says what still needs you (approving the
/// server, trusting the folder or the hooks), with the click and, where one does the same,
/// the command; then the commit that shares the wiring. A second run changes nothing;
/// --remove takes out exactly what setup added; an entry you wrote yourself under the same
/// name is left alone. See docs/MCP.md.
///
/// Examples:
///   majordomus setup claude-code --dry-run
///   majordomus setup claude-code
///   majordomus setup codex --remove
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct SetupArgs {
    /// The agent client to wire (claude and gemini name claude-code and gemini-cli).
    #[arg(value_enum)]
    pub client: ClientArg,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Take out what setup added.
    #[arg(long)]
    pub remove: bool,
    /// Write no tool permissions: every majordomus tool call then asks first.
    #[arg(long)]
    pub no_permissions: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClientArg {
    #[value(alias = "claude")]
    ClaudeCode,
    #[value(alias = "gemini")]
    GeminiCli,
    Codex,
    Cursor,
}

pub fn run(ctx: &Ctx, args: &SetupArgs) -> Result<Output, Error> {
    let client = match args.client {
        ClientArg::ClaudeCode => Client::ClaudeCode,
        ClientArg::GeminiCli => Client::GeminiCli,
        ClientArg::Codex => Client::Codex,
        ClientArg::Cursor => Client::Cursor,
    };
    crate::cli::call(
        ctx,
        "setup",
        SetupRequest {
            client,
            dry_run: args.dry_run,
            remove: args.remove,
            no_permissions: args.no_permissions,
            unasked: Vec::new(),
        },
    )
}
