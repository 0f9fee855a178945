//! `majordomus session start|context|close`.

use clap::{Args, Subcommand};

use super::{CliError, Output};
use crate::Ctx;
use crate::session::{self, StartOptions};

/// Open, read and close working episodes.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum SessionCommand {
    Start(StartArgs),
    Context(ContextArgs),
    Close(CloseArgs),
}

/// Open an episode: record HEAD, branch and time, write the opening snapshot.
///
/// Starting while an episode is open prints it and opens nothing (provider hooks may
/// fire twice); `--replace` closes it first.
///
/// Examples:
///   majordomus session start
///   majordomus session start --provider claude-code
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

/// Compose the open episode's working context now, from its record, git and its ledger window.
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
    /// Print the path of the opening snapshot instead of composing the context.
    #[arg(long)]
    pub path: bool,
}

/// Close the open episode and write its session record under .ai/repo/sessions/.
///
/// A summary may be piped on stdin; without one the record is still composed from the
/// episode's decisions, questions, checkpoints, commits, files and tasks. Closing never
/// refuses for missing prose.
///
/// Examples:
///   majordomus session close
///   echo "Parser rewritten; benchmarks in docs/PERFORMANCE.md" | majordomus session close
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CloseArgs {}

pub fn run(ctx: &Ctx, command: &SessionCommand) -> Result<Output, CliError> {
    match command {
        SessionCommand::Start(args) => start(ctx, args),
        SessionCommand::Context(args) => context(ctx, args),
        SessionCommand::Close(_) => close(ctx),
    }
}

fn short(id: Option<&str>) -> &str {
    id.map(|i| &i[..i.len().min(12)]).unwrap_or("unborn")
}

fn start(ctx: &Ctx, args: &StartArgs) -> Result<Output, CliError> {
    let started = session::start(
        ctx,
        &StartOptions {
            provider: args.provider.clone(),
            replace: args.replace,
        },
    )?;
    let ep = &started.episode;
    let mut human = String::new();
    if let Some(old) = &started.replaced {
        human.push_str(&format!("closed episode {} -> {}\n", old.episode, old.path));
    }
    if started.already_open {
        human.push_str(&format!(
            "episode {} is already open (opened {}); nothing new was opened\n\
             (use --replace to close it and open another)\n",
            ep.id, ep.opened
        ));
    } else {
        human.push_str(&format!(
            "opened episode {} (provider {}, branch {}, HEAD {})\nsnapshot: {}\n",
            ep.id,
            ep.provider,
            ep.branch.as_deref().unwrap_or("(detached)"),
            short(ep.head_at_open.as_deref()),
            started.snapshot
        ));
    }
    Ok(Output::ok(human, started))
}

fn skipped_note(count: usize) -> Option<String> {
    (count > 0)
        .then(|| format!("note: {count} unreadable ledger line(s) skipped (torn or malformed)"))
}

fn context(ctx: &Ctx, args: &ContextArgs) -> Result<Output, CliError> {
    if args.path {
        let path = session::snapshot_path(ctx)?;
        return Ok(Output::ok(
            format!("{path}\n"),
            serde_json::json!({ "path": path }),
        ));
    }
    let composed = session::context(ctx)?;
    let note = skipped_note(composed.skipped.len());
    Ok(Output::ok(composed.text.clone(), composed).with_note(note))
}

/// The summary on stdin: none when stdin is a terminal, empty or unreadable (`/dev/null`,
/// closed).
fn read_summary() -> Option<String> {
    let text = super::read_stdin();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn close(ctx: &Ctx) -> Result<Output, CliError> {
    // Refuse before waiting on stdin when there is nothing to close.
    ctx.require_initialised()?;
    session::require_open_episode(ctx)?;
    let summary = read_summary();
    let closed = session::close(ctx, summary.as_deref())?;
    let human = render_closed(&closed);
    let note = skipped_note(closed.skipped.len());
    Ok(Output::ok(human, closed).with_note(note))
}

/// What a close did, as a person reads it: the record, then what was derived and moved.
pub(super) fn render_closed(closed: &session::Closed) -> String {
    let mut out = format!(
        "closed episode {} ({})\nrecord: {} ({})\n",
        closed.episode,
        closed.record.outcome,
        closed.path,
        serde_json::to_value(closed.write)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
    );
    if closed.outboxed {
        out.push_str(
            "on the trunk: the record and candidates wait in .ai/local/state/outbox/ \
             until the next episode boundary on another branch\n",
        );
    }
    if let Some(moved) = &closed.drained {
        out.push_str(&format!(
            "moved {} session record(s) and {} candidate(s) from the outbox into .ai/repo/\n",
            moved.sessions.len(),
            moved.candidates.len()
        ));
    }
    out.push('\n');
    out.push_str(&closed.text);
    out.push('\n');
    match &closed.derived {
        Some(report) => out.push_str(&super::knowledge::render_derive(report)),
        None => out.push_str("knowledge not derived (session.knowledge_on_end: false)\n"),
    }
    out
}
