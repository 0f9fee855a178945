//! `majordomus knowledge derive|promote|reject|reverify|supersede|retire|verified|check|
//! candidates|status|show|edges`.

mod candidates;
mod check;
mod derive;
mod edges;
mod promote;
mod reject;
mod retire;
mod reverify;
mod show;
mod status;
mod supersede;
mod verified;

use std::path::Path;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

pub use candidates::CandidatesArgs;
pub use check::CheckArgs;
pub use derive::DeriveArgs;
pub use edges::EdgesArgs;
pub use promote::PromoteArgs;
pub use reject::RejectArgs;
pub use retire::RetireArgs;
pub use reverify::ReverifyArgs;
pub use show::ShowArgs;
pub use status::StatusArgs;
pub use supersede::SupersedeArgs;
pub use verified::VerifiedArgs;

/// Derive, review, check and read the knowledge base (.ai/repo/knowledge/).
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum KnowledgeCommand {
    Derive(DeriveArgs),
    Promote(PromoteArgs),
    Reject(RejectArgs),
    Reverify(ReverifyArgs),
    Supersede(SupersedeArgs),
    Retire(RetireArgs),
    Verified(VerifiedArgs),
    Check(CheckArgs),
    Candidates(CandidatesArgs),
    Status(StatusArgs),
    Show(ShowArgs),
    Edges(EdgesArgs),
}

pub fn run(ctx: &Ctx, command: &KnowledgeCommand, dir: &Path) -> Result<Output, Error> {
    match command {
        KnowledgeCommand::Derive(args) => derive::run(ctx, args),
        KnowledgeCommand::Promote(args) => promote::run(ctx, args, dir),
        KnowledgeCommand::Reject(args) => reject::run(ctx, args),
        KnowledgeCommand::Reverify(args) => reverify::run(ctx, args),
        KnowledgeCommand::Supersede(args) => supersede::run(ctx, args),
        KnowledgeCommand::Retire(args) => retire::run(ctx, args),
        KnowledgeCommand::Verified(args) => verified::run(ctx, args),
        KnowledgeCommand::Check(args) => check::run(ctx, args),
        KnowledgeCommand::Candidates(args) => candidates::run(ctx, args),
        KnowledgeCommand::Status(args) => status::run(ctx, args),
        KnowledgeCommand::Show(args) => show::run(ctx, args),
        KnowledgeCommand::Edges(args) => edges::run(ctx, args),
    }
}
