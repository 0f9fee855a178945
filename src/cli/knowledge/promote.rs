//! `majordomus knowledge promote`.

use std::path::Path;

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::knowledge::PromoteRequest;
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
/// after it was verified.
///
/// Examples:
///   echo "tests/cli/ledger.rs::concurrent_appends shows it" | majordomus knowledge promote <id>
///   majordomus knowledge promote <id> --class constraint < evidence.txt
///   echo "the lock test passes" | majordomus knowledge promote <id> --file tests/cli/ledger.rs
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PromoteArgs {
    /// The candidate id.
    pub id: String,
    /// Change the class the deriver wrote.
    #[arg(long, value_enum)]
    pub class: Option<ClassArg>,
    /// A file the evidence names (repeatable), relative to the current directory: added
    /// as a `file:` reference. It must exist in the work tree or at HEAD.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &PromoteArgs, dir: &Path) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.promote",
        PromoteRequest {
            id: args.id.clone(),
            class: args.class.map(Class::from),
            evidence: crate::cli::read_stdin()?,
            files: args.files.clone(),
            base: Some(dir.to_path_buf()),
        },
    )
}
