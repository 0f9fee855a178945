//! `majordomus question resolve`.

use std::path::Path;

use clap::Args;

use crate::authored::ResolveRequest;
use crate::cli::Output;
use crate::{Ctx, Error};

/// Answer an open question.
///
/// The answer cites the files its question cited, those given with --file and each
/// path its text names that is a file at HEAD.
///
/// Examples:
///   majordomus question resolve q-1a2b3c4d5e "No: CI clones are throwaway"
///   majordomus question resolve q-1a2b3c4d5e "Per file" --file src/store/ledger.rs
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ResolveArgs {
    /// The question id `majordomus question` printed.
    pub id: String,
    /// The answer.
    pub answer: String,
    /// A file the answer cites (repeatable), relative to the current directory; it must
    /// exist in the work tree or at HEAD. A path the text names that is a file at HEAD
    /// is cited without --file.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &ResolveArgs, dir: &Path) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "question.resolve",
        ResolveRequest {
            id: args.id.clone(),
            answer: args.answer.clone(),
            files: args.files.clone(),
            base: Some(dir.to_path_buf()),
        },
    )
}
