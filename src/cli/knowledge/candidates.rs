//! `majordomus knowledge candidates`.

use clap::Args;

use super::promote::ClassArg;
use crate::cli::Output;
use crate::knowledge::CandidatesRequest;
use crate::model::knowledge::Class;
use crate::{Ctx, Error};

/// Candidates awaiting review.
///
/// Oldest first, each marked tracked, untracked or outbox. Candidates whose claims are
/// near duplicates of each other are one review item, shown under the newest
/// ("[+N folded]"); one restating a verified record says so. The filters are the
/// selection `knowledge promote|reject --all-listed` acts on.
///
/// Examples:
///   majordomus knowledge candidates
///   majordomus knowledge candidates --branch main
///   majordomus knowledge candidates --episode 20261130T101500Z-1a2b3c --class fact
///   majordomus knowledge candidates --older-than 7d
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CandidatesArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// The queue's filters, shared by `candidates`, `promote` and `reject`.
#[derive(Debug, Clone, Args)]
pub struct FilterArgs {
    /// List the candidates in this local branch's tree instead of the work tree.
    #[arg(long, value_name = "B")]
    pub branch: Option<String>,
    /// Only the candidates of this episode.
    #[arg(long, value_name = "E")]
    pub episode: Option<String>,
    /// Only the candidates of this class.
    #[arg(long = "class", value_enum, value_name = "C", id = "filter_class")]
    pub class: Option<ClassArg>,
    /// Only those waiting longer than this: 30m, 12h, 7d, 2w.
    #[arg(long, value_name = "D")]
    pub older_than: Option<String>,
}

impl FilterArgs {
    pub fn request(&self) -> CandidatesRequest {
        CandidatesRequest {
            branch: self.branch.clone(),
            episode: self.episode.clone(),
            class: self.class.map(Class::from),
            older_than: self.older_than.clone(),
        }
    }
}

pub fn run(ctx: &Ctx, args: &CandidatesArgs) -> Result<Output, Error> {
    crate::cli::call(ctx, "knowledge.candidates", args.filters.request())
}
