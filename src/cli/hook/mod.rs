//! `majordomus hook <name>`: the entry points git and agent clients call.

mod git;
mod provider;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

pub use git::{GitArgs, PostRewriteArgs};
pub use provider::ProviderArgs;

/// Run one hook (called by the installed scripts and by agent clients).
///
/// Git hooks: post-commit, pre-push, post-rewrite. Provider hooks (JSON from
/// the agent client on stdin, never block: always exit 0): session-start, session-end,
/// compact. Every hook steps aside in an uninitialised repository, and every hook but
/// post-rewrite (which records what a rebase rewrote) during a rebase, merge, cherry-pick,
/// revert, am or bisect, except that post-commit records each commit a cherry-pick or a
/// revert makes. pre-push scans every file under .ai/repo/ that the pushed commits add or
/// change for secrets, not only the tip's.
///
/// Examples:
///   majordomus hook post-commit
///   echo "<old sha> <new sha>" | majordomus hook post-rewrite amend
///   majordomus hook session-start --provider claude-code < payload.json
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HookCommand {
    /// Record the new commit for the open episode.
    PostCommit,
    /// Judge the records in each pushed commit's tree (git's ref lines on stdin); a
    /// blocking finding refuses the push, a branch deletion passes.
    PrePush(GitArgs),
    /// Record git's <old> <new> pairs (stdin) after an amend or a rebase as commit.rewritten.
    PostRewrite(PostRewriteArgs),
    /// An agent client started a session: open an episode, print the briefing.
    ///
    /// The client adds what it prints to the model's context before the first prompt
    /// (docs/HOOKS.md says how each client reads it). The payload is the client's JSON,
    /// e.g. {"session_id":"s1","cwd":"/path/to/repo","hook_event_name":"SessionStart"}.
    ///
    /// Example:
    ///   majordomus hook session-start --provider claude-code < payload.json
    #[command(verbatim_doc_comment)]
    SessionStart(ProviderArgs),
    /// An agent client ended a session: a checkpoint, then close the episode (its record,
    /// its knowledge candidates) and derive its handover.
    SessionEnd(ProviderArgs),
    /// An agent client is compacting its conversation: a checkpoint and the episode's
    /// knowledge derived so far (session.checkpoint_on_compact, knowledge_on_compact).
    Compact(ProviderArgs),
}

/// A provider hook run outside any repository (`-C` or the current directory) still works
/// in the repository its payload's `cwd` names.
pub fn open_from_payload(command: &HookCommand) -> Option<Ctx> {
    let (HookCommand::SessionStart(args)
    | HookCommand::SessionEnd(args)
    | HookCommand::Compact(args)) = command
    else {
        return None;
    };
    let dir = crate::hooks::payload_cwd(args.payload())?;
    let clock = crate::Clock::from_env().ok()?;
    Ctx::open(&dir, clock).ok()
}

pub fn run(ctx: &Ctx, command: &HookCommand) -> Result<Output, Error> {
    let _timing = crate::timing::Phase::start_with(|| timing_name(command));
    match command {
        HookCommand::PostCommit => git::post_commit(ctx),
        HookCommand::PrePush(args) => git::pre_push(ctx, args),
        HookCommand::PostRewrite(args) => git::post_rewrite(ctx, args),
        HookCommand::SessionStart(args) => Ok(provider::session_start(ctx, args)),
        HookCommand::SessionEnd(args) => Ok(provider::session_end(ctx, args)),
        HookCommand::Compact(args) => Ok(provider::compact(ctx, args)),
    }
}

/// `hook.<name>` for `MAJORDOMUS_TIMING`: the variant's name in kebab case
/// (`PostCommit` -> `hook.post-commit`), so a new hook needs no entry here.
fn timing_name(command: &HookCommand) -> String {
    let variant = format!("{command:?}");
    let mut name = String::from("hook.");
    for (i, c) in variant
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .enumerate()
    {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}
