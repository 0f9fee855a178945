//! The reasoning report of a task, derived from its records (`reasoning status`, the
//! REASONING section of `context`, a derived handover), and the provenance chain of one
//! conclusion (`reasoning explain`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::plan::latest_validation;
use super::record::{
    ConsultationStatus, Favours, Materiality, Outcome, Record, RecordKind, Stance, StoredRecord,
    Usage, is_record_id,
};
use super::validate::unresolved_disagreements;

/// Where an assessment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssessmentState {
    /// No plan yet.
    Open,
    /// Planned (perhaps consulted), no conclusion yet.
    Planned,
    /// A disagreement on it is unresolved.
    Disputed,
    /// Concluded; no conclusion of it has passed validation yet.
    Concluded,
    /// A standing conclusion's latest validation passed.
    Validated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AssessmentStatus {
    pub id: String,
    pub subject: String,
    pub materiality: Materiality,
    pub state: AssessmentState,
    pub plans: Vec<String>,
    /// The standing conclusion the newest plan reuses, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuses: Option<String>,
    pub conclusions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConsultationSummary {
    pub id: String,
    pub plan: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assessment: Option<String>,
    pub advisor: String,
    pub status: ConsultationStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<Stance>,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResolutionSummary {
    pub id: String,
    pub favours: Favours,
    pub result: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DisagreementStatus {
    pub id: String,
    pub assessment: String,
    pub question: String,
    /// Holders of the positions (`executor` or advisor ids).
    pub holders: Vec<String>,
    pub resolved: bool,
    pub resolutions: Vec<ResolutionSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ValidationSummary {
    pub id: String,
    pub check: String,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConclusionStatus {
    pub id: String,
    pub assessment: String,
    pub decision: String,
    pub reviewed_by: Vec<String>,
    pub independent_review_count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The newest validation's outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Outcome>,
    pub validations: Vec<ValidationSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TimelineEntry {
    pub recorded_at: String,
    pub id: String,
    pub kind: RecordKind,
    pub summary: String,
}

/// A task's reasoning, derived from its records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReasoningStatus {
    pub assessments: Vec<AssessmentStatus>,
    pub consultations: Vec<ConsultationSummary>,
    pub disagreements: Vec<DisagreementStatus>,
    pub conclusions: Vec<ConclusionStatus>,
    /// Every record, by `recorded_at`, then the order the work goes in, then id.
    pub timeline: Vec<TimelineEntry>,
    /// Tokens the adapters reported, summed over the consultations.
    pub tokens: Usage,
}

/// The records in timeline order: `recorded_at`, then (within one second) the order the
/// work goes in (assessment, plan, consultations by advisor, disagreement, ...), then id.
fn in_order(records: &[StoredRecord]) -> Vec<&StoredRecord> {
    fn key(r: &StoredRecord) -> (Option<time::OffsetDateTime>, RecordKind, &str, &str) {
        let advisor = match &r.record {
            Record::Consultation(c) => c.advisor.as_str(),
            _ => "",
        };
        (r.recorded_time(), r.kind(), advisor, r.id.as_str())
    }
    let mut sorted: Vec<&StoredRecord> = records.iter().collect();
    sorted.sort_by(|a, b| key(a).cmp(&key(b)));
    sorted
}

fn plan_assessment<'r>(records: &'r [StoredRecord], plan: &str) -> Option<&'r str> {
    records.iter().find_map(|r| match &r.record {
        Record::Plan(p) if r.id == plan => Some(p.assessment.as_str()),
        _ => None,
    })
}

fn disagreement_assessment<'r>(records: &'r [StoredRecord], id: &str) -> Option<&'r str> {
    records.iter().find_map(|r| match &r.record {
        Record::Disagreement(d) if r.id == id => Some(d.assessment.as_str()),
        _ => None,
    })
}

/// Derives the report from all records of a task.
pub fn status(records: &[StoredRecord]) -> ReasoningStatus {
    let ordered = in_order(records);
    let mut report = ReasoningStatus {
        assessments: Vec::new(),
        consultations: Vec::new(),
        disagreements: Vec::new(),
        conclusions: Vec::new(),
        timeline: Vec::new(),
        tokens: Usage::default(),
    };
    for r in &ordered {
        report.timeline.push(TimelineEntry {
            recorded_at: r.recorded_at.clone(),
            id: r.id.clone(),
            kind: r.kind(),
            summary: summary(r),
        });
        match &r.record {
            Record::Consultation(c) => {
                if let Some(u) = c.usage {
                    report.tokens += u;
                }
                report.consultations.push(ConsultationSummary {
                    id: r.id.clone(),
                    plan: c.plan.clone(),
                    assessment: plan_assessment(records, &c.plan).map(str::to_owned),
                    advisor: c.advisor.clone(),
                    status: c.status,
                    stance: c.stance,
                    duration_ms: c.duration_ms,
                    usage: c.usage,
                });
            }
            Record::Disagreement(d) => {
                let resolutions: Vec<ResolutionSummary> = ordered
                    .iter()
                    .filter_map(|x| match &x.record {
                        Record::Resolution(s) if s.disagreement == r.id => {
                            Some(ResolutionSummary {
                                id: x.id.clone(),
                                favours: s.favours.clone(),
                                result: s.result.clone(),
                            })
                        }
                        _ => None,
                    })
                    .collect();
                report.disagreements.push(DisagreementStatus {
                    id: r.id.clone(),
                    assessment: d.assessment.clone(),
                    question: d.question.clone(),
                    holders: d.positions.iter().map(|p| p.holder.to_string()).collect(),
                    resolved: !resolutions.is_empty(),
                    resolutions,
                });
            }
            Record::Conclusion(c) => {
                let validations: Vec<ValidationSummary> = ordered
                    .iter()
                    .filter_map(|x| match &x.record {
                        Record::Validation(v) if v.conclusion == r.id => Some(ValidationSummary {
                            id: x.id.clone(),
                            check: v.check.clone(),
                            outcome: v.outcome,
                        }),
                        _ => None,
                    })
                    .collect();
                report.conclusions.push(ConclusionStatus {
                    id: r.id.clone(),
                    assessment: c.assessment.clone(),
                    decision: c.decision.clone(),
                    reviewed_by: c.reviewed_by.clone(),
                    independent_review_count: c.independent_review_count,
                    supersedes: c.supersedes.clone(),
                    superseded_by: superseded_by(&r.id, &ordered),
                    validation: validations.last().map(|v| v.outcome),
                    validations,
                });
            }
            _ => {}
        }
    }
    for r in &ordered {
        let Record::Assessment(a) = &r.record else {
            continue;
        };
        let plans: Vec<&StoredRecord> = ordered
            .iter()
            .copied()
            .filter(|p| matches!(&p.record, Record::Plan(x) if x.assessment == r.id))
            .collect();
        let conclusions: Vec<&StoredRecord> = ordered
            .iter()
            .copied()
            .filter(|c| matches!(&c.record, Record::Conclusion(x) if x.assessment == r.id))
            .collect();
        let standing = conclusions
            .iter()
            .filter(|c| superseded_by(&c.id, &ordered).is_none())
            .collect::<Vec<_>>();
        let state = if !unresolved_disagreements(&r.id, records).is_empty() {
            AssessmentState::Disputed
        } else if standing
            .iter()
            .any(|c| latest_validation(&c.id, records) == Some(Outcome::Pass))
        {
            AssessmentState::Validated
        } else if !conclusions.is_empty() {
            AssessmentState::Concluded
        } else if !plans.is_empty() {
            AssessmentState::Planned
        } else {
            AssessmentState::Open
        };
        report.assessments.push(AssessmentStatus {
            id: r.id.clone(),
            subject: a.subject.clone(),
            materiality: a.materiality,
            state,
            reuses: plans.last().and_then(|p| match &p.record {
                Record::Plan(x) => x.reuses.clone(),
                _ => None,
            }),
            plans: plans.iter().map(|p| p.id.clone()).collect(),
            conclusions: conclusions.iter().map(|c| c.id.clone()).collect(),
        });
    }
    report
}

fn superseded_by(conclusion: &str, ordered: &[&StoredRecord]) -> Option<String> {
    ordered.iter().find_map(|r| match &r.record {
        Record::Conclusion(c) if c.supersedes.as_deref() == Some(conclusion) => Some(r.id.clone()),
        _ => None,
    })
}

fn summary(r: &StoredRecord) -> String {
    match &r.record {
        Record::Assessment(a) => format!("{}: {}", a.materiality.name(), a.subject),
        Record::Plan(p) => {
            let what = if let Some(reused) = &p.reuses {
                format!("reuses {reused}")
            } else if !p.selected.is_empty() {
                format!("selects {}", p.selected.join(", "))
            } else if p.local_review.is_some() {
                "selects nobody: local review".to_owned()
            } else {
                "selects nobody: decide locally".to_owned()
            };
            format!(
                "plan for {} ({}, budget {}): {what}",
                p.assessment,
                super::plan::mode_name(p.mode),
                p.budget
            )
        }
        Record::Consultation(c) => match c.stance {
            Some(stance) => format!("{}: {} ({})", c.advisor, c.status.name(), stance.name()),
            None => format!("{}: {}", c.advisor, c.status.name()),
        },
        Record::Disagreement(d) => format!(
            "{} positions on {}: {}",
            d.positions.len(),
            d.assessment,
            d.question
        ),
        Record::Resolution(x) => format!("settles {} in favour of {}", x.disagreement, x.favours),
        Record::Conclusion(c) => format!(
            "{} (independent reviews: {})",
            c.decision, c.independent_review_count
        ),
        Record::Validation(v) => {
            let outcome = match v.outcome {
                Outcome::Pass => "pass",
                Outcome::Fail => "fail",
            };
            format!("{}: {outcome}", v.check)
        }
        Record::Attempt(a) => format!("tried {}: {}", a.tried, a.failure),
    }
}

/// The provenance chain of one conclusion, each link in timeline order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ConclusionProvenance")]
pub struct Provenance {
    /// The assessment the conclusion answers (`None` if its record is gone).
    pub assessment: Option<StoredRecord>,
    pub plans: Vec<StoredRecord>,
    pub consultations: Vec<StoredRecord>,
    pub disagreements: Vec<StoredRecord>,
    pub resolutions: Vec<StoredRecord>,
    pub attempts: Vec<StoredRecord>,
    pub conclusion: StoredRecord,
    pub validations: Vec<StoredRecord>,
}

/// Why `explain` has nothing to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("{} is not a conclusion id", crate::model::ids::shown(id))]
    IdShape { id: String },
    #[error("conclusion {id}: no such conclusion in this task")]
    UnknownConclusion { id: String },
}

impl ExplainError {
    pub fn rule(&self) -> &'static str {
        match self {
            ExplainError::IdShape { .. } => "id.shape",
            ExplainError::UnknownConclusion { .. } => "reasoning.known-record",
        }
    }

    pub fn fix(&self) -> String {
        "majordomus reasoning status".to_owned()
    }
}

/// Assessment → plans → consultations → disagreements → resolutions → conclusion →
/// validations (with the assessment's attempts).
pub fn explain(conclusion_id: &str, records: &[StoredRecord]) -> Result<Provenance, ExplainError> {
    if !is_record_id(conclusion_id, Some(RecordKind::Conclusion)) {
        return Err(ExplainError::IdShape {
            id: conclusion_id.to_owned(),
        });
    }
    let ordered = in_order(records);
    let (conclusion, assessment_id) = ordered
        .iter()
        .find_map(|r| match &r.record {
            Record::Conclusion(c) if r.id == conclusion_id => Some((*r, c.assessment.as_str())),
            _ => None,
        })
        .ok_or_else(|| ExplainError::UnknownConclusion {
            id: conclusion_id.to_owned(),
        })?;
    let pick = |keep: &dyn Fn(&StoredRecord) -> bool| -> Vec<StoredRecord> {
        ordered
            .iter()
            .filter(|r| keep(r))
            .map(|r| (*r).clone())
            .collect()
    };
    Ok(Provenance {
        assessment: ordered
            .iter()
            .find(|r| r.id == assessment_id && r.kind() == RecordKind::Assessment)
            .map(|r| (*r).clone()),
        plans: pick(&|r| matches!(&r.record, Record::Plan(p) if p.assessment == assessment_id)),
        consultations: pick(
            &|r| matches!(&r.record, Record::Consultation(c) if plan_assessment(records, &c.plan) == Some(assessment_id)),
        ),
        disagreements: pick(
            &|r| matches!(&r.record, Record::Disagreement(d) if d.assessment == assessment_id),
        ),
        resolutions: pick(
            &|r| matches!(&r.record, Record::Resolution(x) if disagreement_assessment(records, &x.disagreement) == Some(assessment_id)),
        ),
        attempts: pick(
            &|r| matches!(&r.record, Record::Attempt(a) if a.assessment.as_deref() == Some(assessment_id)),
        ),
        conclusion: conclusion.clone(),
        validations: pick(
            &|r| matches!(&r.record, Record::Validation(v) if v.conclusion == conclusion_id),
        ),
    })
}

impl AssessmentState {
    pub fn name(self) -> &'static str {
        match self {
            AssessmentState::Open => "open",
            AssessmentState::Planned => "planned",
            AssessmentState::Disputed => "disputed",
            AssessmentState::Concluded => "concluded",
            AssessmentState::Validated => "validated",
        }
    }
}

impl ReasoningStatus {
    /// The report as a person reads it (the REASONING section of `context`, the Reasoning
    /// section of a handover, `reasoning status`).
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        if self.assessments.is_empty() && self.timeline.is_empty() {
            out.push_str("- no reasoning records for this work\n");
            return out;
        }
        for a in &self.assessments {
            let _ = writeln!(
                out,
                "- {} [{}] {} ({})",
                a.id,
                a.state.name(),
                a.subject,
                a.materiality.name()
            );
            if let Some(reused) = &a.reuses {
                let _ = writeln!(out, "  reuses the standing conclusion {reused}");
            }
        }
        for c in &self.consultations {
            let stance = c
                .stance
                .map(|s| format!(", {}", s.name()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- consultation {}: {} {}{stance} ({} ms)",
                c.id,
                c.advisor,
                c.status.name(),
                c.duration_ms
            );
        }
        for d in &self.disagreements {
            let _ = writeln!(
                out,
                "- disagreement {} ({}): {} [{}]",
                d.id,
                d.holders.join(" vs "),
                d.question,
                if d.resolved {
                    "resolved"
                } else {
                    "UNRESOLVED: a resolution with evidence settles it"
                }
            );
        }
        for c in &self.conclusions {
            let reviewed = if c.reviewed_by.is_empty() {
                "no independent review".to_owned()
            } else {
                format!(
                    "reviewed by {} ({} independent)",
                    c.reviewed_by.join(", "),
                    c.independent_review_count
                )
            };
            let validation = match c.validation {
                Some(Outcome::Pass) => ", validated",
                Some(Outcome::Fail) => ", validation FAILED",
                None => "",
            };
            let _ = writeln!(
                out,
                "- conclusion {}: {} ({reviewed}{validation})",
                c.id, c.decision
            );
        }
        if self.tokens.total() > 0 {
            let _ = writeln!(
                out,
                "- tokens: {} in, {} out",
                self.tokens.input_tokens, self.tokens.output_tokens
            );
        }
        out
    }
}
