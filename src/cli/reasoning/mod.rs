//! `majordomus reasoning record|advisors|plan|consult|status|explain|check`.

mod advisors;
mod check;
mod consult;
mod explain;
mod plan;
mod record;
mod status;

use clap::Subcommand;

use super::Output;
use crate::{Ctx, Error};

/// Typed reasoning records, a computed plan, optional advisors, disagreement settled by
/// experiment.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum ReasoningCommand {
    Record(record::RecordArgs),
    Advisors(advisors::AdvisorsArgs),
    Plan(plan::PlanArgs),
    Consult(consult::ConsultArgs),
    Status(status::StatusArgs),
    Explain(explain::ExplainArgs),
    Check(check::CheckArgs),
}

pub fn run(ctx: &Ctx, command: &ReasoningCommand) -> Result<Output, Error> {
    match command {
        ReasoningCommand::Record(args) => record::run(ctx, args),
        ReasoningCommand::Advisors(args) => advisors::run(ctx, args),
        ReasoningCommand::Plan(args) => plan::run(ctx, args),
        ReasoningCommand::Consult(args) => consult::run(ctx, args),
        ReasoningCommand::Status(args) => status::run(ctx, args),
        ReasoningCommand::Explain(args) => explain::run(ctx, args),
        ReasoningCommand::Check(args) => check::run(ctx, args),
    }
}
