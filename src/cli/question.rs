//! `majordomus question` and `majordomus question resolve`.

use clap::{Args, Subcommand};

use super::{CliError, Output};
use crate::Ctx;
use crate::authored;

/// Ask an open question (prints its id), or resolve one.
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
    Resolve(ResolveArgs),
}

/// Resolve an open question with its answer.
///
/// Example:
///   majordomus question resolve q-1a2b3c4d5e "No: CI clones are throwaway"
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ResolveArgs {
    /// The question id `majordomus question` printed.
    pub id: String,
    /// The answer.
    pub answer: String,
}

pub fn run(ctx: &Ctx, args: &QuestionArgs) -> Result<Output, CliError> {
    match (&args.command, &args.text) {
        (Some(QuestionCommand::Resolve(r)), _) => {
            let recorded = authored::resolve_question(ctx, &r.id, &r.answer)?;
            Ok(super::decision::recorded_output("answer", recorded))
        }
        (None, Some(text)) => {
            let recorded = authored::ask_question(ctx, text)?;
            let id = recorded.id.clone().unwrap_or_default();
            let mut out = super::decision::recorded_output("question", recorded);
            // stdout is the id alone so `qid=$(majordomus question "...")` works.
            let where_ = out.human.trim_end().to_owned();
            out.human = format!("{id}\n");
            out.note = Some(match out.note {
                Some(n) => format!("{where_}\n{n}"),
                None => where_,
            });
            Ok(out)
        }
        (None, None) => Err(CliError::Usage(
            "question: give the question text, or `question resolve <id> <answer>`".into(),
        )),
    }
}
