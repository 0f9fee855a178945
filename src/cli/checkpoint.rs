//! `majordomus checkpoint`.

use std::path::Path;

use clap::Args;

use super::Output;
use crate::authored::CheckpointRequest;
use crate::{Ctx, Error};

/// Record where the work stands.
///
/// Like a decision, it cites the files given with --file and each path its text names
/// that is a file at HEAD; recall finds it by them.
///
/// Examples:
///   majordomus checkpoint "parser passes the fixture suite; error messages next"
///   majordomus checkpoint "tokenizer done" --file src/lex.rs --file tests/lex.rs
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CheckpointArgs {
    /// Where the work stands.
    pub text: String,
    /// A file the checkpoint cites (repeatable), relative to the current directory; it must
    /// exist in the work tree or at HEAD. A path the text names that is a file at HEAD
    /// is cited without --file.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &CheckpointArgs, dir: &Path) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "checkpoint.record",
        CheckpointRequest {
            text: args.text.clone(),
            files: args.files.clone(),
            base: Some(dir.to_path_buf()),
        },
    )
}
