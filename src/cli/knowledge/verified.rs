//! `majordomus knowledge verified`.

use clap::Args;

use super::promote::ClassArg;
use crate::cli::Output;
use crate::knowledge::VerifiedRequest;
use crate::model::knowledge::Class;
use crate::{Ctx, Error};

/// Verified records still claimed, oldest verified first; stale ones marked.
///
/// What `knowledge supersede` and `knowledge retire` take by id, or with --all-listed and
/// the same filters. A stale record (a file it cites changed since it was verified) says
/// which files moved. Superseded and retired records are counted, not listed.
///
/// Examples:
///   majordomus knowledge verified
///   majordomus knowledge verified --stale
///   majordomus knowledge verified --episode 20261130T101500Z-1a2b3c --class convention
///   majordomus knowledge verified --older-than 26w
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VerifiedArgs {
    #[command(flatten)]
    pub filters: VerifiedFilterArgs,
}

/// The filters of `knowledge verified`, shared by `supersede` and `retire`.
#[derive(Debug, Clone, Args)]
pub struct VerifiedFilterArgs {
    /// Only the records of this episode.
    #[arg(long, value_name = "E")]
    pub episode: Option<String>,
    /// Only the records of this class.
    #[arg(long = "class", value_enum, value_name = "C", id = "verified_class")]
    pub class: Option<ClassArg>,
    /// Only those verified longer ago than this: 30m, 12h, 7d, 2w.
    #[arg(long, value_name = "D")]
    pub older_than: Option<String>,
    /// Only the stale ones: a file they cite changed since they were verified.
    #[arg(long)]
    pub stale: bool,
}

impl VerifiedFilterArgs {
    pub fn request(&self) -> VerifiedRequest {
        VerifiedRequest {
            episode: self.episode.clone(),
            class: self.class.map(Class::from),
            older_than: self.older_than.clone(),
            stale: self.stale,
        }
    }
}

pub fn run(ctx: &Ctx, args: &VerifiedArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "knowledge.verified", args.filters.request())
}
