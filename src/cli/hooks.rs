//! `majordomus hooks install|uninstall` and `majordomus hook <name>`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};

use super::error::code;
use super::{CliError, Output};
use crate::Ctx;
use crate::hooks::{self, GitHookOutcome, ProviderHook, ProviderOutcome};

/// Install or remove the git hooks (post-commit, pre-push, post-checkout, post-merge).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HooksCommand {
    /// Install the hooks into the directory git uses (respects core.hooksPath). An
    /// existing hook is kept as <name>.pre-majordomus and run first. Idempotent.
    ///
    /// Example:
    ///   majordomus hooks install
    #[command(verbatim_doc_comment)]
    Install,
    /// Remove the hooks and restore any hook they chained.
    ///
    /// Example:
    ///   majordomus hooks uninstall
    #[command(verbatim_doc_comment)]
    Uninstall,
}

/// Run one hook (called by the installed scripts and by agent clients).
///
/// Git hooks: post-commit, pre-push, post-checkout, post-merge. Provider hooks (JSON from
/// the agent client on stdin, never block: always exit 0): session-start, session-end,
/// compact. Every hook steps aside in an uninitialised repository and during a rebase,
/// merge, cherry-pick, revert, am or bisect.
///
/// Examples:
///   majordomus hook post-commit
///   majordomus hook session-start --provider claude-code < payload.json
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HookCommand {
    /// Record the new commit for the open episode.
    PostCommit,
    /// Run `knowledge check`; a blocking finding refuses the push.
    PrePush(GitArgs),
    /// After a branch switch off the trunk, drain the outbox.
    PostCheckout(GitArgs),
    /// After a merge off the trunk, drain the outbox.
    PostMerge(GitArgs),
    /// An agent client started a session: open an episode, print the briefing.
    SessionStart(ProviderArgs),
    /// An agent client ended a session: close the episode (its record is composed).
    SessionEnd(ProviderArgs),
    /// An agent client is compacting its conversation: derive knowledge.
    Compact(ProviderArgs),
}

/// Arguments git passes to the hook (ignored except post-checkout's branch flag).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct GitArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ProviderArgs {
    /// The agent client (e.g. claude-code, gemini-cli).
    #[arg(long, default_value = "agent", value_name = "NAME")]
    pub provider: String,
}

pub fn run_hooks(ctx: &Ctx, command: &HooksCommand) -> Result<Output, CliError> {
    let report = match command {
        HooksCommand::Install => hooks::install(ctx)?,
        HooksCommand::Uninstall => hooks::uninstall(ctx)?,
    };
    let mut human = format!("hooks directory: {}\n", report.dir);
    for h in &report.hooks {
        let _ = writeln!(human, "  {:<14} {}", h.hook, h.action);
    }
    Ok(Output::ok(human, report))
}

pub fn run_hook(ctx: &Ctx, command: &HookCommand) -> Result<Output, CliError> {
    let git = |outcome: GitHookOutcome| -> Output {
        let (human, code) = match &outcome {
            // Silent: stepping aside and recording a commit must not change what git
            // prints (the JSON form still says what happened).
            GitHookOutcome::SteppedAside(_) | GitHookOutcome::CommitRecorded { .. } => {
                (String::new(), 0)
            }
            GitHookOutcome::NoOpenEpisode => (String::new(), 0),
            GitHookOutcome::Checked(report) => {
                if report.blocking() > 0 {
                    (
                        format!(
                            "{}majordomus: push refused: fix the blocking findings above, then push again\n",
                            super::knowledge::render_check(report)
                        ),
                        code::REFUSED,
                    )
                } else if report.findings.is_empty() {
                    (String::new(), 0)
                } else {
                    (super::knowledge::render_check(report), 0)
                }
            }
            GitHookOutcome::Drained(moved) => (
                format!(
                    "majordomus: moved {} session record(s) and {} candidate(s) from the outbox into .ai/repo/\n",
                    moved.sessions.len(),
                    moved.candidates.len()
                ),
                0,
            ),
            GitHookOutcome::NothingToDrain { .. } => (String::new(), 0),
        };
        let mut out = Output::ok(String::new(), &outcome);
        // Hook chatter goes to stderr so git's own output stays as it was.
        out.note = (!human.is_empty()).then(|| human.trim_end().to_owned());
        out.code = code;
        out
    };
    match command {
        HookCommand::PostCommit => Ok(git(hooks::post_commit(ctx)?)),
        HookCommand::PrePush(_) => Ok(git(hooks::pre_push(ctx)?)),
        HookCommand::PostCheckout(args) => {
            // The third argument is 1 for a branch checkout, 0 for a file checkout.
            if args.args.get(2).is_some_and(|flag| flag != "1") {
                return Ok(Output::ok(
                    String::new(),
                    serde_json::json!({"did": "file-checkout"}),
                ));
            }
            Ok(git(hooks::drain(ctx)?))
        }
        HookCommand::PostMerge(_) => Ok(git(hooks::drain(ctx)?)),
        HookCommand::SessionStart(a) => Ok(provider(ctx, ProviderHook::SessionStart, a)),
        HookCommand::SessionEnd(a) => Ok(provider(ctx, ProviderHook::SessionEnd, a)),
        HookCommand::Compact(a) => Ok(provider(ctx, ProviderHook::Compact, a)),
    }
}

fn provider(ctx: &Ctx, hook: ProviderHook, args: &ProviderArgs) -> Output {
    let input = super::read_stdin();
    let outcome = hooks::provider(ctx, hook, &args.provider, &input);
    let (human, note) = match &outcome {
        // The agent client adds stdout of a session-start hook to the agent's context.
        ProviderOutcome::Started {
            episode, briefing, ..
        } => (format!("majordomus episode {episode}\n\n{briefing}"), None),
        ProviderOutcome::Failed { error } => (
            String::new(),
            Some(format!(
                "majordomus: {} hook failed (recorded as provider.event.failed): {error}",
                hook.name()
            )),
        ),
        ProviderOutcome::Closed { episode, record } => (
            String::new(),
            Some(format!("majordomus: closed episode {episode} -> {record}")),
        ),
        _ => (String::new(), None),
    };
    // A provider hook never blocks its provider: always exit 0.
    Output::ok(human, &outcome).with_note(note)
}
