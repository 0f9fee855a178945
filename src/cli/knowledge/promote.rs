//! `majordomus knowledge promote`.

use std::path::Path;

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::knowledge::{Act, CandidatesRequest, PromoteRequest, ReviewRequest};
use crate::model::knowledge::Class;
use crate::{Ctx, Error};

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

/// Promote a candidate to curated knowledge, with evidence (a human act).
///
/// Moves the record to curated/ as `verified`, appends the evidence on stdin under
/// `# Evidence`. Refuses empty evidence and evidence that quotes a conversation; with nothing
/// on stdin, a candidate that already claims `status: verified` under its own `# Evidence`
/// keeps that as its evidence. --file adds a `file:` reference for each file the evidence
/// names: recall finds the record by it, and the record goes stale when the file changes
/// after it was verified. An id decides its whole review item: the near duplicates folded
/// with it are rejected as its duplicates in the same act.
///
/// Many at once: several ids, or --all-listed (what `knowledge candidates` lists with the
/// same filters), take one evidence text for all; each record still gets its own ledger
/// act and its own `# Evidence`, and every id is checked before anything is written.
/// --commit writes one commit of exactly the reviewed records (through gix: no git hook
/// runs). With ids, --class changes the class; with --all-listed it selects by class.
///
/// --supersedes <old> decides both in one act: the candidate is promoted and each verified
/// record it names is superseded by it (`status: superseded`, `superseded_by`, a
/// `# Superseded` section); every record is checked before anything is written.
///
/// Examples:
///   echo "tests/cli/ledger.rs::concurrent_appends shows it" | majordomus knowledge promote <id>
///   majordomus knowledge promote <id> --class constraint < evidence.txt
///   echo "the lock test passes" | majordomus knowledge promote <id> --file tests/cli/ledger.rs
///   echo "tests/cli/ledger.rs covers both" | majordomus knowledge promote <id> <id> --commit
///   majordomus knowledge promote --all-listed --episode <episode> --class fact < evidence.txt
///   echo "src/pricing.rs spawns it" | majordomus knowledge promote <new> --supersedes <old>
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PromoteArgs {
    /// The candidate ids.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Change the class the deriver wrote (with --all-listed: only candidates of this
    /// class).
    #[arg(long, value_enum)]
    pub class: Option<ClassArg>,
    /// A file the evidence names (repeatable), relative to the current directory: added
    /// as a `file:` reference. It must exist in the work tree or at HEAD. One id only.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// Review many candidates in one act: promote or reject them by ids or by the listed
    /// selection, optionally in one commit (a human act).
    ///
    /// This flag selects every candidate `knowledge candidates` lists with the same filters.
    #[arg(long)]
    pub all_listed: bool,
    /// With --all-listed: the candidates in this local branch's tree.
    #[arg(long, value_name = "B")]
    pub branch: Option<String>,
    /// With --all-listed: only the candidates of this episode.
    #[arg(long, value_name = "E")]
    pub episode: Option<String>,
    /// With --all-listed: only those waiting longer than this (30m, 12h, 7d, 2w).
    #[arg(long, value_name = "D")]
    pub older_than: Option<String>,
    /// Write one commit on the current branch holding only the reviewed records.
    #[arg(long)]
    pub commit: bool,
    /// A verified record the promoted one replaces (repeatable): superseded by it in the
    /// same act. One candidate id only.
    #[arg(long, value_name = "OLD")]
    pub supersedes: Vec<String>,
}

impl PromoteArgs {
    /// One id and nothing else: the single act `knowledge.promote`.
    fn single(&self) -> bool {
        self.ids.len() == 1
            && !self.all_listed
            && !self.commit
            && self.branch.is_none()
            && self.episode.is_none()
            && self.older_than.is_none()
    }
}

pub fn run(ctx: &Ctx, args: &PromoteArgs, dir: &Path) -> Result<Output, Error> {
    if args.single() || !args.files.is_empty() {
        if args.ids.len() != 1 || !args.single() {
            // One id: the same promotion without the selection and `--commit` (its `next:`
            // line is the commit); else each id promoted alone.
            let fix = match args.ids.as_slice() {
                [id] => crate::knowledge::review::promote_command(
                    id,
                    args.class.map(Class::from),
                    &args.files,
                    &args.supersedes,
                    false,
                    &crate::cli::read_stdin().unwrap_or_default(),
                ),
                _ => "by hand: promote each candidate alone with its --file: `majordomus knowledge promote <id> --file <path>`".into(),
            };
            return Err(crate::error::UsageError::PromoteFileAlone { fix }.into());
        }
        return crate::cli::call(
            ctx,
            "knowledge.promote",
            PromoteRequest {
                id: args.ids[0].clone(),
                class: args.class.map(Class::from),
                evidence: crate::cli::read_stdin()?,
                files: args.files.clone(),
                supersedes: args.supersedes.clone(),
                base: Some(dir.to_path_buf()),
            },
        );
    }
    let listed = args.all_listed;
    crate::cli::call(
        ctx,
        "knowledge.review",
        ReviewRequest {
            act: Act::Promote,
            ids: args.ids.clone(),
            all_listed: listed,
            filters: CandidatesRequest {
                branch: args.branch.clone(),
                episode: args.episode.clone(),
                class: if listed {
                    args.class.map(Class::from)
                } else {
                    None
                },
                older_than: args.older_than.clone(),
            },
            evidence: crate::cli::read_stdin()?,
            class: if listed {
                None
            } else {
                args.class.map(Class::from)
            },
            reason: None,
            by: None,
            duplicate_of: None,
            commit: args.commit,
            supersedes: args.supersedes.clone(),
        },
    )
}
