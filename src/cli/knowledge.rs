//! `majordomus knowledge derive|promote|reject|check|candidates|status`.

use std::fmt::Write as _;

use clap::{Args, Subcommand, ValueEnum};

use super::{CliError, Output};
use crate::Ctx;
use crate::knowledge::{self, CheckReport, DeriveOptions, DeriveReport, Severity};
use crate::model::knowledge::Class;

/// Derive, review and check the knowledge base (.ai/repo/knowledge/).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum KnowledgeCommand {
    Derive(DeriveArgs),
    Promote(PromoteArgs),
    Reject(RejectArgs),
    Check(CheckArgs),
    Candidates(CandidatesArgs),
    Status(StatusArgs),
}

/// Derive knowledge candidates from an episode's ledger lines and commits.
///
/// Deterministic, no model, no network: each decision becomes a convention, each resolved
/// question a fact, each finished task a fact (completed) or a lesson (blocked). A rerun
/// over the same evidence writes nothing ("nothing to write"). Runs on its own at
/// `session close` and on the provider's compact hook.
///
/// Examples:
///   majordomus knowledge derive
///   majordomus knowledge derive --episode 20261130T101500Z-1a2b3c --dry-run
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DeriveArgs {
    /// The episode (default: the open one, else the last closed one).
    #[arg(long, value_name = "ID")]
    pub episode: Option<String>,
    /// Say what would be written; write nothing, append nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ClassArg {
    Fact,
    Convention,
    Constraint,
    Memory,
    Lesson,
}

impl From<ClassArg> for Class {
    fn from(c: ClassArg) -> Class {
        match c {
            ClassArg::Fact => Class::Fact,
            ClassArg::Convention => Class::Convention,
            ClassArg::Constraint => Class::Constraint,
            ClassArg::Memory => Class::Memory,
            ClassArg::Lesson => Class::Lesson,
        }
    }
}

/// Promote a candidate to curated knowledge (a human act), with evidence on stdin.
///
/// Moves the record to curated/ as `verified`, appends the evidence under `# Evidence`.
/// Refuses empty evidence and evidence that quotes a conversation.
///
/// Examples:
///   echo "tests/cli/ledger.rs::concurrent_appends shows it" | majordomus knowledge promote <id>
///   majordomus knowledge promote <id> --class constraint < evidence.txt
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PromoteArgs {
    /// The candidate id.
    pub id: String,
    /// Change the class the deriver wrote.
    #[arg(long, value_enum)]
    pub class: Option<ClassArg>,
}

/// Reject a candidate (a human act): it stays, marked `superseded`, with the reason.
///
/// Examples:
///   majordomus knowledge reject <id> --reason "Only true for the old parser"
///   majordomus knowledge reject <id> --reason "Restated more precisely" --by <other-id>
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RejectArgs {
    /// The candidate id.
    pub id: String,
    /// Why it is rejected.
    #[arg(long)]
    pub reason: String,
    /// The knowledge id that replaces it.
    #[arg(long, value_name = "ID")]
    pub by: Option<String>,
}

/// Check the integrity of every knowledge record (exit 3 on a blocking finding).
///
/// Schema, ids, provenance, every reference resolving (sessions, tasks, decisions,
/// commits, files, knowledge ids), superseded records, transcript markers.
///
/// Example:
///   majordomus knowledge check
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckArgs {}

/// List candidates awaiting review, each marked tracked, untracked or outbox.
///
/// Examples:
///   majordomus knowledge candidates
///   majordomus knowledge candidates --branch main
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CandidatesArgs {
    /// List the candidates in this local branch's tree instead of the work tree.
    #[arg(long, value_name = "B")]
    pub branch: Option<String>,
}

/// Freshness (last episode closed vs last derived), queue length and ages, outbox.
///
/// Example:
///   majordomus knowledge status
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct StatusArgs {}

pub fn run(ctx: &Ctx, command: &KnowledgeCommand) -> Result<Output, CliError> {
    match command {
        KnowledgeCommand::Derive(args) => {
            let report = knowledge::derive(
                ctx,
                &DeriveOptions {
                    episode: args.episode.clone(),
                    dry_run: args.dry_run,
                },
            )?;
            Ok(Output::ok(render_derive(&report), report))
        }
        KnowledgeCommand::Promote(args) => {
            let evidence = super::read_stdin();
            let promoted =
                knowledge::promote(ctx, &args.id, args.class.map(Class::from), &evidence)?;
            Ok(Output::ok(
                format!(
                    "promoted {} -> {} (verified)\nnext: git add -A .ai/repo/knowledge && git commit\n",
                    promoted.id, promoted.path
                ),
                promoted,
            ))
        }
        KnowledgeCommand::Reject(args) => {
            let rejected = knowledge::reject(ctx, &args.id, &args.reason, args.by.as_deref())?;
            let by = rejected
                .superseded_by
                .as_deref()
                .map(|b| format!(", superseded by {b}"))
                .unwrap_or_default();
            Ok(Output::ok(
                format!("rejected {} ({}){by}\n", rejected.id, rejected.path),
                rejected,
            ))
        }
        KnowledgeCommand::Check(_) => {
            let report = knowledge::check(ctx)?;
            let mut out = Output::ok(render_check(&report), &report);
            if report.blocking() > 0 {
                out.code = super::error::code::REFUSED;
            }
            Ok(out)
        }
        KnowledgeCommand::Candidates(args) => {
            let listing = knowledge::candidates(ctx, args.branch.as_deref())?;
            let mut human = format!(
                "{} candidate(s) awaiting review\n",
                listing.candidates.len()
            );
            for c in &listing.candidates {
                let _ = writeln!(
                    human,
                    "- {} [{}] {}: {} ({})",
                    c.id,
                    c.state,
                    c.class.name(),
                    c.title,
                    c.date
                );
            }
            for u in &listing.unreadable {
                let _ = writeln!(
                    human,
                    "- unreadable: {u} (see `majordomus knowledge check`)"
                );
            }
            Ok(Output::ok(human, listing))
        }
        KnowledgeCommand::Status(_) => {
            let s = knowledge::status(ctx)?;
            let moment = |m: &Option<knowledge::queue::Moment>| match m {
                Some(m) => format!("{} at {}", m.episode.as_deref().unwrap_or("-"), m.ts),
                None => "never".to_owned(),
            };
            let mut human = String::new();
            let _ = writeln!(human, "last closed: {}", moment(&s.last_closed));
            let _ = writeln!(human, "last derived: {}", moment(&s.last_derived));
            let _ = writeln!(
                human,
                "freshness: {}",
                if s.fresh {
                    "fresh (the last closed episode has been derived)"
                } else {
                    "stale (the last closed episode has not been derived)"
                }
            );
            let _ = writeln!(
                human,
                "queue: {} pending ({} untracked), {} curated",
                s.pending, s.untracked, s.curated
            );
            if let (Some(date), Some(days)) = (&s.oldest_date, s.oldest_age_days) {
                let _ = writeln!(human, "oldest candidate: {date} ({days} day(s))");
            }
            let _ = writeln!(
                human,
                "outbox: {}",
                if s.outbox.is_empty() {
                    "empty".to_owned()
                } else {
                    format!(
                        "{} session record(s), {} candidate(s) waiting to leave the trunk",
                        s.outbox.sessions.len(),
                        s.outbox.candidates.len()
                    )
                }
            );
            Ok(Output::ok(human, s))
        }
    }
}

pub(super) fn render_derive(r: &DeriveReport) -> String {
    let mut out = String::new();
    let verb = if r.dry_run { "would derive" } else { "derived" };
    let _ = writeln!(
        out,
        "{verb} episode {} into {}: {} written, {} unchanged, {} skipped, {} already reviewed",
        r.episode,
        r.target,
        r.written.len(),
        r.unchanged.len(),
        r.skipped.len(),
        r.reviewed.len()
    );
    if r.nothing_to_write {
        out.push_str("nothing to write\n");
    }
    if r.planted_readme {
        out.push_str(if r.dry_run {
            "would plant .ai/repo/knowledge/candidates/README.md\n"
        } else {
            "planted .ai/repo/knowledge/candidates/README.md\n"
        });
    }
    for p in &r.written {
        let _ = writeln!(out, "  wrote {p}");
    }
    for s in &r.skipped {
        let _ = writeln!(
            out,
            "  skipped ledger line #{} ({}): {}",
            s.seq, s.event, s.reason
        );
    }
    for rv in &r.reviewed {
        let _ = writeln!(out, "  left alone {} ({})", rv.id, rv.state);
    }
    out
}

pub(super) fn render_check(r: &CheckReport) -> String {
    let mut out = String::new();
    if r.findings.is_empty() {
        let _ = writeln!(out, "knowledge check: {} record(s), no findings", r.records);
        return out;
    }
    let blocking = r.blocking();
    let _ = writeln!(
        out,
        "knowledge check: {} record(s), {blocking} blocking, {} advisory finding(s)",
        r.records,
        r.findings.len() - blocking
    );
    for f in &r.findings {
        let sev = match f.severity {
            Severity::Blocking => "BLOCK",
            Severity::Advisory => "WARN",
        };
        let _ = writeln!(
            out,
            "{sev} {} [{}] {}\n  fix: {}",
            f.file, f.rule, f.message, f.fix
        );
    }
    out
}
