//! What the writer refuses: every refusal with its rule and message (SPEC §7).

use super::*;

/// Why the writer refused a record. [`RecordRefusal::rule`] names the rule,
/// [`RecordRefusal::fix`] what would satisfy it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordRefusal {
    #[error("a reasoning record is a JSON object with a `kind`")]
    NotAnObject,
    #[error("`kind` \"{kind}\" is not a kind of record the caller writes")]
    UnknownKind { kind: String },
    #[error("plans are computed by the writer, never supplied")]
    PlanSupplied,
    #[error(
        "consultations are written by `reasoning consult` from an advisor's answer, never supplied: a review the caller can write is a review the caller can invent"
    )]
    ConsultationSupplied {
        /// The assessment the consultation's plan was made for, when the task has it.
        assessment: Option<String>,
        /// The task the record was for (`None`: the open episode's records).
        task: Option<String>,
    },
    #[error("{kind}: `{field}` is computed by the writer and cannot be supplied")]
    ComputedField { kind: RecordKind, field: String },
    #[error("{kind}: unknown field `{field}`")]
    UnknownField { kind: RecordKind, field: String },
    #[error("{kind}: `{field}` {problem}")]
    InvalidField {
        kind: RecordKind,
        field: String,
        problem: String,
    },
    #[error("{kind}: `{field}` \"{reference}\" is not an evidence reference: {problem}")]
    EvidenceShape {
        kind: RecordKind,
        field: String,
        reference: String,
        problem: EvidenceProblem,
    },
    #[error(
        "{kind}: `{field}` {} is not the id of a {expected}",
        crate::model::ids::shown(id)
    )]
    IdShape {
        kind: RecordKind,
        field: String,
        id: String,
        expected: RecordKind,
    },
    #[error("{kind}: `{field}` names {id}, and this task has no such {expected}")]
    UnknownRecord {
        kind: RecordKind,
        field: String,
        id: String,
        expected: RecordKind,
    },
    #[error(
        "assessment: a {materiality} uncertainty cites evidence gathered before anyone is asked, and `evidence` is empty"
    )]
    AssessmentEvidence { materiality: Materiality },
    #[error("consultation: plan {plan} did not select advisor {advisor}")]
    AdvisorNotSelected {
        plan: String,
        advisor: String,
        selected: Vec<String>,
    },
    #[error("consultation: advisor {advisor} was already consulted under plan {plan} ({existing})")]
    AlreadyConsulted {
        plan: String,
        advisor: String,
        assessment: String,
        existing: String,
    },
    #[error("consultation: completed, but `conclusion` is missing")]
    CompletedWithoutConclusion,
    #[error("consultation: a {} consultation carries no answer, but `{field}` is set", status.name())]
    FailedWithAnswer {
        status: ConsultationStatus,
        field: &'static str,
    },
    #[error(
        "consultation: `retry_after_seconds` belongs to a rate_limited consultation, not a {} one", status.name()
    )]
    RetryAfterWithoutRateLimit { status: ConsultationStatus },
    #[error("disagreement: {count} position(s); a disagreement has at least two")]
    TooFewPositions { count: usize },
    #[error("disagreement: {holder} holds more than one position")]
    DuplicateHolder { holder: String },
    #[error(
        "disagreement: position {index} cites consultation {consultation}, which did not complete ({})", status.name()
    )]
    PositionNotCompleted {
        index: usize,
        consultation: String,
        status: ConsultationStatus,
    },
    #[error("disagreement: position {index} ({holder}): {problem}")]
    PositionSource {
        index: usize,
        holder: String,
        problem: String,
    },
    #[error("resolution: `evidence` is empty; a resolution cites what its experiment showed")]
    ResolutionEvidence,
    #[error("resolution: favours {favours}, who holds no position in {disagreement}")]
    ResolutionFavours {
        favours: String,
        disagreement: String,
        holders: Vec<String>,
    },
    #[error(
        "conclusion: disagreement {disagreement} on {assessment} is unresolved (a majority never settles it)"
    )]
    UnresolvedDisagreement {
        disagreement: String,
        assessment: String,
    },
    #[error(
        "conclusion: consultation {consultation} ({advisor}) completed on {assessment} and is not weighed"
    )]
    NotWeighed {
        consultation: String,
        advisor: String,
        assessment: String,
    },
    #[error("conclusion: consultation {consultation} answered another assessment ({other})")]
    ForeignConsultation { consultation: String, other: String },
    #[error("conclusion: `supersedes` names {id}, and this checkout has no such conclusion")]
    UnknownSuperseded { id: String },
    #[error(
        "conclusion: {assessment} declares new_evidence over the standing conclusion {standing} on the same subject, and {}",
        match named {
            Some(other) => format!("`supersedes` names {other}, which does not stand on that subject"),
            None => "`supersedes` is missing".to_owned(),
        }
    )]
    SupersedesMissing {
        assessment: String,
        /// The newest conclusion standing on the subject.
        standing: String,
        named: Option<String>,
    },
    #[error("conclusion: {assessment} is {materiality}, and its conclusion has no {missing}")]
    ConclusionEvidence {
        assessment: String,
        materiality: Materiality,
        missing: &'static str,
    },
}

impl RecordRefusal {
    /// The rule that refused, as shown in `error.rule`.
    pub fn rule(&self) -> &'static str {
        use RecordRefusal::*;
        match self {
            NotAnObject | UnknownKind { .. } => "reasoning.record-shape",
            PlanSupplied => "reasoning.plan-computed",
            ConsultationSupplied { .. } => "reasoning.consultation-by-consult",
            ComputedField { .. } => "reasoning.computed-field",
            UnknownField { .. } => "reasoning.unknown-field",
            InvalidField { .. } => "reasoning.field",
            EvidenceShape { .. } => "reasoning.evidence-ref",
            IdShape { .. } => "id.shape",
            UnknownRecord { .. } => "reasoning.known-record",
            AssessmentEvidence { .. } => "reasoning.assessment-evidence",
            AdvisorNotSelected { .. } => "reasoning.consultation-selected",
            AlreadyConsulted { .. } => "reasoning.consultation-once",
            CompletedWithoutConclusion => "reasoning.consultation-completed",
            FailedWithAnswer { .. } | RetryAfterWithoutRateLimit { .. } => {
                "reasoning.consultation-failed"
            }
            TooFewPositions { .. } | DuplicateHolder { .. } => "reasoning.disagreement-positions",
            PositionNotCompleted { .. } => "reasoning.position-completed",
            PositionSource { .. } => "reasoning.position-source",
            ResolutionEvidence => "reasoning.resolution-evidence",
            ResolutionFavours { .. } => "reasoning.resolution-favours",
            UnresolvedDisagreement { .. } => "reasoning.conclusion-disputed",
            NotWeighed { .. } => "reasoning.conclusion-weighed",
            ForeignConsultation { .. } => "reasoning.conclusion-consultations",
            ConclusionEvidence { .. } => "reasoning.conclusion-evidence",
            UnknownSuperseded { .. } => "reasoning.known-record",
            SupersedesMissing { .. } => "reasoning.conclusion-supersedes",
        }
    }

    /// One line: the change or command that would satisfy the rule.
    pub fn fix(&self) -> String {
        use RecordRefusal::*;
        match self {
            NotAnObject => {
                "give one JSON object such as {\"kind\":\"assessment\",\"subject\":\"…\",…} (docs/REASONING.md)".into()
            }
            UnknownKind { .. } => format!("set `kind` to one of {}", caller_kinds().join(", ")),
            PlanSupplied => "majordomus reasoning plan --assessment <assessment-id>".into(),
            ConsultationSupplied { assessment: Some(a), task } => format!(
                "majordomus reasoning consult --assessment {a}{}",
                task.as_deref().map(|t| format!(" --task {t}")).unwrap_or_default()
            ),
            ConsultationSupplied { assessment: None, task } => format!(
                "record the assessment, then run `majordomus reasoning consult --assessment <its id>{}` (it runs the advisors its plan selects and records what they answer)",
                task.as_deref().map(|t| format!(" --task {t}")).unwrap_or_default()
            ),
            ComputedField { field, .. } => format!("remove `{field}`: the writer computes it"),
            UnknownField { kind, field } => format!(
                "remove `{field}` (fields of {kind}: {})",
                input_shape(*kind).fields.join(", ")
            ),
            InvalidField { kind, field, .. } => {
                format!("give `{field}` the value docs/REASONING.md describes for a {kind}")
            }
            EvidenceShape { .. } => "write `<kind>:<target>`, kind one of file (file:<path>[:<line>]), test, adr, rule, commit, command (command:<cmd> => <what it showed>), observation".into(),
            IdShape { expected, .. } => format!(
                "use a {expected} id as the writer printed it ({expected}-<12 hex>; majordomus reasoning status lists them)"
            ),
            UnknownRecord { expected, .. } => format!(
                "majordomus reasoning status lists this task's records; record the {expected} first or cite one of them"
            ),
            AssessmentEvidence { .. } => "add references to `evidence`, e.g. \"file:src/lib.rs:42\", \"command:cargo test => 2 failed\", \"observation:<what was seen>\"".into(),
            AdvisorNotSelected { selected, .. } if selected.is_empty() => {
                "the plan selected nobody: follow its local review, or plan again when an advisor is available".into()
            }
            AdvisorNotSelected { selected, .. } => {
                format!("consult only the advisors the plan selected: {}", selected.join(", "))
            }
            AlreadyConsulted { assessment, .. } => format!(
                "majordomus reasoning plan --assessment {assessment}"
            ),
            CompletedWithoutConclusion => {
                "set `conclusion` to the advisor's answer, or `status` to the typed failure".into()
            }
            FailedWithAnswer { field, .. } => {
                format!("remove `{field}`, or set `status` to completed")
            }
            RetryAfterWithoutRateLimit { .. } => {
                "remove `retry_after_seconds`, or set `status` to rate_limited".into()
            }
            TooFewPositions { .. } => {
                "give the executor's position and each diverging advisor's (from its completed consultation)".into()
            }
            DuplicateHolder { holder } => format!("give {holder} one position"),
            PositionNotCompleted { .. } => {
                "leave that position out: only completed consultations hold positions".into()
            }
            PositionSource { .. } => "an advisor's position cites its completed consultation on the same assessment, with the stance it recorded; the executor's cites none".into(),
            ResolutionEvidence => {
                "add the references that show the experiment's result to `evidence`".into()
            }
            ResolutionFavours { holders, .. } => format!(
                "set `favours` to none or to a holder of a position: {}",
                holders.join(", ")
            ),
            UnresolvedDisagreement { disagreement, .. } => format!(
                "run the experiment its question asks for and record a resolution of {disagreement} with evidence"
            ),
            NotWeighed { consultation, .. } => {
                format!("add {consultation} to `consultations` and weigh it in `rationale`")
            }
            ForeignConsultation { consultation, .. } => {
                format!("remove {consultation}: cite only consultations of this assessment's plans")
            }
            ConclusionEvidence { missing, .. } if *missing == "evidence" => {
                "add references to `evidence` (file:, test:, command:… => …)".into()
            }
            ConclusionEvidence { .. } => {
                "add `validation_plan`: the check that will show the decision holds".into()
            }
            UnknownSuperseded { .. } => "cite a stored conclusion's id as the writer printed it (`majordomus reasoning status --task <task>` lists a task's conclusions)".into(),
            SupersedesMissing { standing, .. } => format!(
                "add \"supersedes\": \"{standing}\" (majordomus reasoning explain {standing} shows what it decided)"
            ),
        }
    }
}
