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
/// compact, prompt, edit. Every hook steps aside in an uninitialised repository, and
/// every hook but post-rewrite (which records what a rebase rewrote) during a rebase,
/// merge, cherry-pick, revert, am or bisect, except that post-commit records each commit
/// a cherry-pick or a revert makes. pre-push scans every file under .ai/repo/ that the
/// pushed commits add or change for secrets, not only the tip's.
///
/// Examples:
///   majordomus hook post-commit
///   echo "<old sha> <new sha>" | majordomus hook post-rewrite amend
///   majordomus hook session-start --provider claude-code < payload.json
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HookCommand {
    /// Git post-commit: record the new commit for the open episode.
    PostCommit,
    /// Git pre-push: check the knowledge records being pushed; blocking findings refuse the push.
    PrePush(GitArgs),
    /// Git post-rewrite: record git's <old> <new> pairs (amend, rebase) as commit.rewritten.
    PostRewrite(PostRewriteArgs),
    /// Agent client session start: open an episode and print the briefing.
    ///
    /// The client adds what it prints to the model's context before the first prompt
    /// (docs/HOOKS.md says how each client reads it). The payload is the client's JSON,
    /// e.g. {"session_id":"s1","cwd":"/path/to/repo","hook_event_name":"SessionStart"}.
    ///
    /// Example:
    ///   majordomus hook session-start --provider claude-code < payload.json
    #[command(verbatim_doc_comment)]
    SessionStart(ProviderArgs),
    /// Agent client session end: a checkpoint, then close the episode and derive its handover.
    SessionEnd(ProviderArgs),
    /// Agent client compaction: a checkpoint and the open episode's knowledge derived so far.
    Compact(ProviderArgs),
    /// Agent client prompt submitted: the records its words and the work at hand rank above the floor, for the model.
    ///
    /// The records the prompt's words and the work at hand rank above the relevance floor
    /// (docs/RECALL.md), at most five lines, none already shown this session, printed in the
    /// client's context field (claude-code, codex: UserPromptSubmit; gemini-cli:
    /// BeforeAgent); nothing when none clears it. The prompt is a query: it is never
    /// stored, logged or written anywhere. What was shown is logged as context.shown.
    /// The payload is the client's JSON, e.g. {"cwd":"/repo","prompt":"why so strict?"}.
    ///
    /// Example:
    ///   majordomus hook prompt --provider claude-code < payload.json
    #[command(verbatim_doc_comment)]
    Prompt(ProviderArgs),
    /// Agent client file edit: the files recorded as touched, and what is verified or decided about them, for the model.
    ///
    /// Reads the editing tool's call (claude-code: PreToolUse on Edit, Write, MultiEdit,
    /// NotebookEdit; codex: PreToolUse on apply_patch; gemini-cli: AfterTool on write_file,
    /// replace; cursor: afterFileEdit), records the files the episode had not touched yet
    /// as agent.touched (paths only), and prints what is verified or decided about them,
    /// once a file a session (stale records marked). The payload is the client's JSON,
    /// e.g. {"tool_name":"Edit","tool_input":{"file_path":"src/a.rs"}}.
    ///
    /// Example:
    ///   majordomus hook edit --provider claude-code < payload.json
    #[command(verbatim_doc_comment)]
    Edit(ProviderArgs),
}

/// A provider hook run outside any repository (`-C` or the current directory) still works
/// in the repository its payload's `cwd` names.
pub fn open_from_payload(command: &HookCommand) -> Option<Ctx> {
    let (HookCommand::SessionStart(args)
    | HookCommand::SessionEnd(args)
    | HookCommand::Compact(args)
    | HookCommand::Prompt(args)
    | HookCommand::Edit(args)) = command
    else {
        return None;
    };
    let (payload, not_utf8) = args.payload();
    let dir = crate::hooks::payload_cwd(payload, not_utf8)?;
    let clock = crate::Clock::from_env().ok()?;
    Ctx::open(&dir, clock).ok()
}

pub fn run(ctx: &Ctx, command: &HookCommand) -> Result<Output, Error> {
    match command {
        HookCommand::PostCommit => git::post_commit(ctx),
        HookCommand::PrePush(args) => git::pre_push(ctx, args),
        HookCommand::PostRewrite(args) => git::post_rewrite(ctx, args),
        HookCommand::SessionStart(args) => provider::session_start(ctx, args),
        HookCommand::SessionEnd(args) => provider::session_end(ctx, args),
        HookCommand::Compact(args) => provider::compact(ctx, args),
        HookCommand::Prompt(args) => provider::prompt(ctx, args),
        HookCommand::Edit(args) => provider::edit(ctx, args),
    }
}
