//! `majordomus recall` and `majordomus show`.

use std::path::Path;

use clap::{Args, ValueEnum};

use super::Output;
use crate::model::recall::HitStatus;
use crate::recall::{RecallKind, RecallRequest, ShowRequest};
use crate::{Ctx, Error};

/// Before deciding or changing an area: what earlier episodes decided and verified there.
///
/// It searches curated knowledge and candidates, decisions, answered questions,
/// checkpoints, session records, handovers and reasoning conclusions.
///
/// Ranking: the words (BM25 over code-aware terms: `LedgerIndex`, `ledger_index` and
/// `src/ledger/index.rs` share `ledger` and `index`), the paths (a record reaches a file
/// through its `file:`/`test:` references, its episode's changed files and its task's
/// scope; an exact path beats a directory, and a directory or a file beside the path
/// weighs less the more files that directory holds), the same task, issue or intent, then
/// status (verified above candidate; stale below fresh; superseded only with --all, below
/// what replaced it) and recency (newest first, then the greater id). The query is words,
/// never syntax. With nothing given, the most recently verified knowledge, newest first.
/// Each hit says why it ranked and how to read it whole.
///
/// Examples:
///   majordomus recall "ledger lock"
///   majordomus recall ledger lock                # several words need no quotes
///   majordomus recall --path src/store/ledger.rs
///   majordomus recall parser --kind decision --kind knowledge --limit 20
///   majordomus recall --task t-20261130-1a2b
///   majordomus recall --at-hand                  # what the briefing ranks by
///   majordomus recall --kind decision --branch feature-x
///   majordomus recall --shown                    # what the memory told this episode's agent
///   majordomus recall --shown --session 20261130T101500Z-1a2b3c
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RecallArgs {
    /// Words to search for (terms, never syntax: quotes, AND, *, field: are words);
    /// several words need no quotes.
    #[arg(value_name = "QUERY", num_args = 0..)]
    pub query: Vec<String>,
    /// A file or directory the work touches (repeatable); relative to the current
    /// directory, inside the repository.
    #[arg(long = "path", value_name = "PATH")]
    pub paths: Vec<String>,
    /// A task of this checkout: rank by its scope, issue and intent.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// An issue of the plan: rank what serves it first.
    #[arg(long, value_name = "ID")]
    pub issue: Option<String>,
    /// Only hits of this kind (repeatable).
    #[arg(long = "kind", value_enum, value_name = "KIND")]
    pub kinds: Vec<KindArg>,
    /// Only hits with this status (repeatable).
    #[arg(long = "status", value_enum, value_name = "STATUS")]
    pub statuses: Vec<StatusArg>,
    /// Only hits of episodes that ran on this branch.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Only hits dated at or after this time (RFC 3339, or YYYY-MM-DD).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// How many hits to show (default 10, at most 1000).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Superseded records too, each below the record that replaced it.
    #[arg(long)]
    pub all: bool,
    /// Rank by the work at hand, as the briefing does, strongest first: the uncommitted
    /// changes, the branch's own commits (newest first), the rest of the branch against
    /// the trunk, the active or last task, the last handover's files.
    #[arg(long)]
    pub at_hand: bool,
    /// What the memory put before the model in an episode.
    ///
    /// Instead of a search; read from the episode's context.shown events. The open
    /// episode, else the newest.
    #[arg(long, conflicts_with_all = ["query", "paths", "task", "issue", "kinds", "statuses", "branch", "since", "limit", "all", "at_hand"])]
    pub shown: bool,
    /// With --shown: the episode (`majordomus session list` lists them).
    #[arg(long, value_name = "ID", requires = "shown")]
    pub session: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    Knowledge,
    Decision,
    Question,
    Checkpoint,
    Session,
    Handover,
    Conclusion,
}

impl From<KindArg> for RecallKind {
    fn from(k: KindArg) -> RecallKind {
        match k {
            KindArg::Knowledge => RecallKind::Knowledge,
            KindArg::Decision => RecallKind::Decision,
            KindArg::Question => RecallKind::Question,
            KindArg::Checkpoint => RecallKind::Checkpoint,
            KindArg::Session => RecallKind::Session,
            KindArg::Handover => RecallKind::Handover,
            KindArg::Conclusion => RecallKind::Conclusion,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatusArg {
    Verified,
    Candidate,
    Stale,
    Superseded,
}

impl From<StatusArg> for HitStatus {
    fn from(s: StatusArg) -> HitStatus {
        match s {
            StatusArg::Verified => HitStatus::Verified,
            StatusArg::Candidate => HitStatus::Candidate,
            StatusArg::Stale => HitStatus::Stale,
            StatusArg::Superseded => HitStatus::Superseded,
        }
    }
}

pub fn run(ctx: &Ctx, args: &RecallArgs, dir: &Path) -> Result<Output, Error> {
    if args.shown {
        return crate::cli::call(
            ctx,
            "recall.shown",
            crate::moment::ShownRequest {
                session: args.session.clone(),
            },
        );
    }
    crate::cli::call(
        ctx,
        "recall",
        RecallRequest {
            query: (!args.query.is_empty()).then(|| args.query.join(" ")),
            path: args
                .paths
                .iter()
                .map(|p| crate::recall::from_directory(ctx, dir, p))
                .collect(),
            task: args.task.clone(),
            issue: args.issue.clone(),
            kind: args.kinds.iter().map(|k| (*k).into()).collect(),
            status: args.statuses.iter().map(|s| (*s).into()).collect(),
            branch: args.branch.clone(),
            since: args.since.clone(),
            limit: args.limit,
            all: args.all,
            at_hand: args.at_hand,
            ..RecallRequest::default()
        },
    )
}

/// Read one recall hit whole (<kind>:<id>).
///
/// Examples:
///   majordomus show knowledge:20261130T101500Z-1a2b3c-0123456789ab
///   majordomus show decision:20261130T101500Z-1a2b3c-fedcba987654
///   majordomus show session:20261130T101500Z-1a2b3c
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ShowArgs {
    /// `<kind>:<id>` (kinds: knowledge, decision, question, checkpoint, session,
    /// handover, conclusion).
    pub reference: String,
}

pub fn run_show(ctx: &Ctx, args: &ShowArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "recall.show",
        ShowRequest {
            reference: args.reference.clone(),
        },
    )
}
