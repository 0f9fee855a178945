//! `majordomus question` (ask) and `majordomus question resolve`.

mod resolve;

use clap::{Args, Subcommand};

use super::Output;
use crate::authored::QuestionRequest;
use crate::{Ctx, Error, UsageError};

/// Ask an open question; returns its id.
///
/// Examples:
///   majordomus question "Does the ledger need retention on CI runners?"
///   majordomus question resolve q-1a2b3c4d5e "No: CI clones are throwaway"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct QuestionArgs {
    /// The question.
    #[arg(required = true)]
    pub text: Option<String>,
    #[command(subcommand)]
    pub command: Option<QuestionCommand>,
}

#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum QuestionCommand {
    Resolve(resolve::ResolveArgs),
}

pub fn run(ctx: &Ctx, args: &QuestionArgs) -> Result<Output, Error> {
    match (&args.command, &args.text) {
        (Some(QuestionCommand::Resolve(r)), _) => resolve::run(ctx, r),
        (None, Some(text)) => ask(ctx, text),
        (None, None) => Err(UsageError::Arguments(
            "question: give the question text, or `question resolve <id> <answer>`".into(),
        )
        .into()),
    }
}

fn ask(ctx: &Ctx, text: &str) -> Result<Output, Error> {
    let mut out = crate::cli::call(
        ctx,
        "question.ask",
        QuestionRequest {
            text: text.to_owned(),
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
