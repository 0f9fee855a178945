//! `majordomus reasoning plan`.

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::model::reasoning::record::{Confidence, Materiality};
use crate::reasoning::{PlanAssessmentRequest, PlanRequest};
use crate::{Ctx, Error};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MaterialityArg {
    Trivial,
    Low,
    Material,
    High,
    Critical,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ConfidenceArg {
    Low,
    Medium,
    High,
}

/// Dry run of a plan: which advisors it would ask, and why.
///
/// The plan for an assessment (stored), or a dry run for a materiality.
///
/// The budget comes from the mode × materiality table (high confidence lowers it by one);
/// selection is greedy and explained (capabilities not yet covered, then a different
/// adapter, then catalogue order); every advisor left out says why.
///
/// Examples:
///   majordomus reasoning plan --materiality high --capabilities independent_reasoning,code_review
///   majordomus reasoning plan --assessment assessment-0123456789ab
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PlanArgs {
    /// Plan a recorded assessment: whom consult would ask, and why.
    #[arg(long, value_name = "ID", conflicts_with_all = ["materiality", "capabilities", "confidence"])]
    pub assessment: Option<String>,
    /// Dry run: the materiality.
    #[arg(long, value_enum, required_unless_present = "assessment")]
    pub materiality: Option<MaterialityArg>,
    /// Dry run: capabilities asked, comma separated.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub capabilities: Vec<String>,
    /// Dry run: the executor's confidence.
    #[arg(long, value_enum)]
    pub confidence: Option<ConfidenceArg>,
}

pub fn run(ctx: &Ctx, args: &PlanArgs) -> Result<Output, Error> {
    match (&args.assessment, args.materiality) {
        (Some(assessment), _) => crate::cli::call(
            ctx,
            "reasoning.plan-assessment",
            PlanAssessmentRequest {
                assessment: assessment.clone(),
                task: None,
            },
        ),
        (None, Some(materiality)) => crate::cli::call(
            ctx,
            "reasoning.plan",
            PlanRequest {
                materiality: match materiality {
                    MaterialityArg::Trivial => Materiality::Trivial,
                    MaterialityArg::Low => Materiality::Low,
                    MaterialityArg::Material => Materiality::Material,
                    MaterialityArg::High => Materiality::High,
                    MaterialityArg::Critical => Materiality::Critical,
                },
                capabilities: args.capabilities.clone(),
                confidence: args.confidence.map(|c| match c {
                    ConfidenceArg::Low => Confidence::Low,
                    ConfidenceArg::Medium => Confidence::Medium,
                    ConfidenceArg::High => Confidence::High,
                }),
            },
        ),
        (None, None) => Err(crate::UsageError::Arguments(
            "reasoning plan: give --assessment <id>, or --materiality for a dry run".into(),
        )
        .into()),
    }
}
