//! `majordomus reasoning record`.

use std::path::PathBuf;

use clap::Args;

use crate::cli::Output;
use crate::reasoning::RecordRequest;
use crate::{Ctx, Error, UsageError};

/// Record an assessment, disagreement, resolution, conclusion, validation or attempt.
///
/// The record is a JSON object, from --file or stdin, with `kind` (assessment,
/// disagreement, resolution, conclusion, validation, attempt) and the kind's fields
/// (docs/REASONING.md). The writer validates it, computes what is computed (id, task,
/// episode, recorded_at, reviewed_by and independent_review_count of a conclusion), redacts
/// secret shapes and control characters from every string, and stores one JSON file. Plans
/// are the writer's own (`reasoning plan --assessment`), and consultations `reasoning
/// consult`'s, from what the advisors answered: a consultation given here is refused.
///
/// Examples:
///   majordomus reasoning record --file assessment.json
///   majordomus reasoning record --task t-20261130-1a2b < conclusion.json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RecordArgs {
    /// Read the record from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The task the record belongs to (default: the active task, else the episode).
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

pub fn run(ctx: &Ctx, args: &RecordArgs) -> Result<Output, Error> {
    let text = match &args.file {
        Some(path) => {
            let limit = crate::model::input::INPUT_LIMIT;
            if let Ok(meta) = std::fs::metadata(path)
                && meta.len() > limit as u64
            {
                return Err(crate::model::input::TooLarge {
                    what: format!("--file {}", path.display()),
                    bytes: usize::try_from(meta.len()).unwrap_or(usize::MAX),
                    limit,
                }
                .into());
            }
            std::fs::read_to_string(path)
                .map_err(|e| UsageError::Arguments(format!("--file {}: {e}", path.display())))?
        }
        None => crate::cli::read_stdin()?,
    };
    let record: serde_json::Value = serde_json::from_str(text.trim()).map_err(|e| {
        UsageError::Arguments(format!(
            "reasoning record: the record is not JSON ({e}); give one object with `kind`"
        ))
    })?;
    crate::cli::call(
        ctx,
        "reasoning.record",
        RecordRequest {
            record,
            task: args.task.clone(),
        },
    )
}
