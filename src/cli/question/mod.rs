//! `majordomus question` (ask) and `majordomus question resolve`.

mod resolve;

use std::path::Path;

use clap::{Args, Subcommand};

use super::Output;
use crate::authored::QuestionRequest;
use crate::{Ctx, Error, UsageError};

/// Ask an open question; returns its id.
///
/// A question cites the files given with --file and each path its text names that is a
/// file at HEAD; its answer cites them too, so the candidate derived from the answer
/// carries them as `file:` references.
///
/// Examples:
///   majordomus question "Does the ledger need retention on CI runners?"
///   majordomus question "Is the lock per file?" --file src/store/ledger.rs
///   majordomus question resolve q-1a2b3c4d5e "No: CI clones are throwaway"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct QuestionArgs {
    /// The question.
    #[arg(required = true)]
    pub text: Option<String>,
    /// A file the question cites (repeatable), relative to the current directory; it must
    /// exist in the work tree or at HEAD. A path the text names that is a file at HEAD
    /// is cited without --file.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    #[command(subcommand)]
    pub command: Option<QuestionCommand>,
}

#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum QuestionCommand {
    Resolve(resolve::ResolveArgs),
}

pub fn run(ctx: &Ctx, args: &QuestionArgs, dir: &Path) -> Result<Output, Error> {
    match (&args.command, &args.text) {
        (Some(QuestionCommand::Resolve(r)), _) => resolve::run(ctx, r, dir),
        (None, Some(text)) => ask(ctx, text, &args.files, dir),
        (None, None) => Err(UsageError::Arguments(
            "question: give the question text, or `question resolve <id> <answer>`".into(),
        )
        .into()),
    }
}

fn ask(ctx: &Ctx, text: &str, files: &[String], dir: &Path) -> Result<Output, Error> {
    let mut out = crate::cli::call(
        ctx,
        "question.ask",
        QuestionRequest {
            text: text.to_owned(),
            files: files.to_vec(),
            base: Some(dir.to_path_buf()),
        },
    )?;
    let id = out.json["id"].as_str().unwrap_or_default().to_owned();
    // stdout is the id alone so `qid=$(majordomus question "...")` works; where it was
    // recorded goes to stderr.
    let where_ = out.human.trim_end().to_owned();
    out.human = format!("{id}\n");
    out.note = Some(match out.note {
        Some(n) => format!("{where_}\n{n}"),
        None => where_,
    });
    Ok(out)
}
