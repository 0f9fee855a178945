//! The writer's validation: a caller's JSON and the task's records in, the record to store
//! or a typed refusal (rule + one-line fix) out.
//!
//! Order: shape (object, kind, computed and unknown fields, field types, evidence and id
//! shapes), redaction of every string, the kind's own rules, references to records that
//! must exist, the computed fields and id, and then the rules that read other records. A
//! record whose id is already stored comes back `unchanged`.

use std::cell::Cell;
use std::collections::BTreeSet;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::catalogue::is_capability;
use super::record::{
    Assessment, Attempt, COMPUTED_FIELDS, Conclusion, ConclusionInput, Consultation,
    ConsultationStatus, Disagreement, EvidenceProblem, EvidenceRef, Favours, Holder, Materiality,
    Plan, Record, RecordKind, Resolution, StoredRecord, Validation, is_record_id,
};
use crate::model::time::rfc3339;

/// A string with secret shapes and terminal control characters removed, and the names of
/// the shapes removed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Redaction {
    pub text: String,
    pub shapes: Vec<String>,
}

/// Leaves text as it is (for callers with nothing to redact, and tests).
pub fn no_redaction(text: &str) -> Redaction {
    Redaction {
        text: text.to_owned(),
        shapes: Vec::new(),
    }
}

/// Everything the writer needs besides the caller's JSON.
#[derive(Clone, Copy)]
pub struct WriteContext<'a> {
    pub task: &'a str,
    pub episode: Option<&'a str>,
    pub now: OffsetDateTime,
    /// The task's stored records.
    pub records: &'a [StoredRecord],
    /// Applied to every string of the record before anything else reads it.
    pub redact: &'a dyn Fn(&str) -> Redaction,
}

impl std::fmt::Debug for WriteContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteContext")
            .field("task", &self.task)
            .field("episode", &self.episode)
            .field("now", &self.now)
            .field("records", &self.records.len())
            .finish_non_exhaustive()
    }
}

/// A record the writer accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub record: StoredRecord,
    /// A record with this id is already stored (the same content): nothing to write.
    pub unchanged: bool,
}

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
            PlanSupplied => "majordomus reasoning plan --assessment <assessment-id> (the writer computes and records the plan)".into(),
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
                "majordomus reasoning plan --assessment {assessment} (a new plan may consult it again)"
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
        }
    }
}

fn caller_kinds() -> Vec<&'static str> {
    RecordKind::ALL
        .into_iter()
        .filter(|k| *k != RecordKind::Plan)
        .map(RecordKind::name)
        .collect()
}

/// The fields a kind's input may carry and those it must, read from its JSON schema (the
/// same schema the API publishes).
struct InputShape {
    fields: Vec<String>,
    required: Vec<String>,
}

fn input_shape(kind: RecordKind) -> InputShape {
    fn of<T: schemars::JsonSchema>() -> InputShape {
        let schema = schemars::schema_for!(T);
        let names = |key: &str| -> Vec<String> {
            match schema.get(key) {
                Some(Value::Object(map)) => map.keys().cloned().collect(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            }
        };
        InputShape {
            fields: names("properties"),
            required: names("required"),
        }
    }
    match kind {
        RecordKind::Assessment => of::<Assessment>(),
        RecordKind::Plan => of::<Plan>(),
        RecordKind::Consultation => of::<Consultation>(),
        RecordKind::Disagreement => of::<Disagreement>(),
        RecordKind::Resolution => of::<Resolution>(),
        RecordKind::Conclusion => of::<ConclusionInput>(),
        RecordKind::Validation => of::<Validation>(),
        RecordKind::Attempt => of::<Attempt>(),
    }
}

/// Validates the caller's JSON against the kind's rules and the task's records; returns
/// the record to store, or why not.
pub fn validate(input: &Value, ctx: &WriteContext<'_>) -> Result<Accepted, RecordRefusal> {
    let object = input.as_object().ok_or(RecordRefusal::NotAnObject)?;
    let kind = match object.get("kind") {
        Some(Value::String(name)) => RecordKind::from_name(name)
            .ok_or_else(|| RecordRefusal::UnknownKind { kind: name.clone() })?,
        Some(other) => {
            return Err(RecordRefusal::UnknownKind {
                kind: other.to_string(),
            });
        }
        None => return Err(RecordRefusal::NotAnObject),
    };
    if kind == RecordKind::Plan {
        return Err(RecordRefusal::PlanSupplied);
    }
    // Computed fields first: `reviewed_by` on a conclusion is a forged review, not a typo.
    if let Some(field) = COMPUTED_FIELDS
        .into_iter()
        .find(|f| object.contains_key(*f))
    {
        return Err(RecordRefusal::ComputedField {
            kind,
            field: field.to_owned(),
        });
    }
    let shape = input_shape(kind);
    if let Some(field) = object
        .keys()
        .find(|k| *k != "kind" && !shape.fields.contains(k))
    {
        return Err(RecordRefusal::UnknownField {
            kind,
            field: field.clone(),
        });
    }
    if let Some(field) = shape.required.iter().find(|f| !object.contains_key(*f)) {
        return Err(RecordRefusal::InvalidField {
            kind,
            field: field.clone(),
            problem: "is required".to_owned(),
        });
    }

    let mut shapes = BTreeSet::new();
    let mut fields = object.clone();
    fields.remove("kind");
    for value in fields.values_mut() {
        redact_strings(value, ctx.redact, &mut shapes);
    }

    let record = match kind {
        RecordKind::Assessment => Record::Assessment(assessment(parse(kind, &fields)?)?),
        RecordKind::Consultation => {
            Record::Consultation(consultation(parse(kind, &fields)?, ctx.records)?)
        }
        RecordKind::Disagreement => {
            Record::Disagreement(disagreement(parse(kind, &fields)?, ctx.records)?)
        }
        RecordKind::Resolution => {
            Record::Resolution(resolution(parse(kind, &fields)?, ctx.records)?)
        }
        RecordKind::Conclusion => {
            Record::Conclusion(conclusion(parse(kind, &fields)?, ctx.records)?)
        }
        RecordKind::Validation => {
            Record::Validation(validation(parse(kind, &fields)?, ctx.records)?)
        }
        RecordKind::Attempt => Record::Attempt(attempt(parse(kind, &fields)?, ctx.records)?),
        RecordKind::Plan => unreachable!("refused above"),
    };

    let stored = StoredRecord::new(
        record,
        ctx.task,
        ctx.episode,
        rfc3339(ctx.now),
        shapes.into_iter().collect(),
    );
    if let Some(existing) = ctx.records.iter().find(|r| r.id == stored.id) {
        return Ok(Accepted {
            record: existing.clone(),
            unchanged: true,
        });
    }
    against_records(&stored, ctx.records)?;
    Ok(Accepted {
        record: stored,
        unchanged: false,
    })
}

/// Stores a record the writer made itself (a plan): redacts, computes, no caller rules.
/// Refused only if redaction turned a typed value (an enum name) into something else.
pub fn seal(record: Record, ctx: &WriteContext<'_>) -> Result<Accepted, RecordRefusal> {
    let kind = record.kind();
    let mut shapes = BTreeSet::new();
    let mut value = serde_json::to_value(&record).expect("a record always serialises");
    redact_strings(&mut value, ctx.redact, &mut shapes);
    let record: Record =
        serde_json::from_value(value).map_err(|e| RecordRefusal::InvalidField {
            kind,
            field: "(record)".to_owned(),
            problem: format!("no longer reads after redaction: {e}"),
        })?;
    let stored = StoredRecord::new(
        record,
        ctx.task,
        ctx.episode,
        rfc3339(ctx.now),
        shapes.into_iter().collect(),
    );
    Ok(match ctx.records.iter().find(|r| r.id == stored.id) {
        Some(existing) => Accepted {
            record: existing.clone(),
            unchanged: true,
        },
        None => Accepted {
            record: stored,
            unchanged: false,
        },
    })
}

fn redact_strings(
    value: &mut Value,
    redact: &dyn Fn(&str) -> Redaction,
    shapes: &mut BTreeSet<String>,
) {
    match value {
        Value::String(text) => {
            let r = redact(text);
            shapes.extend(r.shapes);
            *text = r.text;
        }
        Value::Array(items) => {
            for item in items {
                redact_strings(item, redact, shapes);
            }
        }
        Value::Object(map) => {
            for item in map.values_mut() {
                redact_strings(item, redact, shapes);
            }
        }
        _ => {}
    }
}

/// Deserialises a kind's fields, naming the field whose value does not fit.
fn parse<T: DeserializeOwned>(
    kind: RecordKind,
    fields: &Map<String, Value>,
) -> Result<T, RecordRefusal> {
    let failed = Cell::new(None);
    let access = NamedFields {
        entries: fields.iter(),
        pending: None,
        failed: &failed,
    };
    T::deserialize(FieldsDeserializer(access)).map_err(|e| RecordRefusal::InvalidField {
        kind,
        field: failed.get().unwrap_or("(record)").to_owned(),
        problem: format!("is invalid: {e}"),
    })
}

struct NamedFields<'a> {
    entries: serde_json::map::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
    failed: &'a Cell<Option<&'a str>>,
}

impl<'a> MapAccess<'a> for NamedFields<'a> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some((key.as_str(), value));
        let key: de::value::StrDeserializer<'_, Self::Error> = key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self
            .pending
            .take()
            .expect("serde asks for a value after its key");
        seed.deserialize(value)
            .inspect_err(|_| self.failed.set(Some(key)))
    }
}

struct FieldsDeserializer<'a>(NamedFields<'a>);

impl<'de> de::Deserializer<'de> for FieldsDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

fn non_blank(kind: RecordKind, pairs: &[(&str, &str)]) -> Result<(), RecordRefusal> {
    match pairs.iter().find(|(_, v)| v.trim().is_empty()) {
        Some((field, _)) => Err(RecordRefusal::InvalidField {
            kind,
            field: (*field).to_owned(),
            problem: "is empty".to_owned(),
        }),
        None => Ok(()),
    }
}

fn evidence_shape(kind: RecordKind, refs: &[EvidenceRef]) -> Result<(), RecordRefusal> {
    for (i, r) in refs.iter().enumerate() {
        if let Err(problem) = r.check() {
            return Err(RecordRefusal::EvidenceShape {
                kind,
                field: format!("evidence[{i}]"),
                reference: r.0.clone(),
                problem,
            });
        }
    }
    Ok(())
}

/// The stored record `id` of kind `expected`, cited by `field` of a `kind` record.
fn cited<'r, T>(
    records: &'r [StoredRecord],
    kind: RecordKind,
    field: &str,
    id: &str,
    expected: RecordKind,
    body: impl Fn(&'r Record) -> Option<&'r T>,
) -> Result<&'r T, RecordRefusal> {
    if !is_record_id(id, Some(expected)) {
        return Err(RecordRefusal::IdShape {
            kind,
            field: field.to_owned(),
            id: id.to_owned(),
            expected,
        });
    }
    records
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| body(&r.record))
        .ok_or_else(|| RecordRefusal::UnknownRecord {
            kind,
            field: field.to_owned(),
            id: id.to_owned(),
            expected,
        })
}

fn as_assessment(r: &Record) -> Option<&Assessment> {
    match r {
        Record::Assessment(a) => Some(a),
        _ => None,
    }
}
fn as_plan(r: &Record) -> Option<&Plan> {
    match r {
        Record::Plan(p) => Some(p),
        _ => None,
    }
}
fn as_consultation(r: &Record) -> Option<&Consultation> {
    match r {
        Record::Consultation(c) => Some(c),
        _ => None,
    }
}
fn as_disagreement(r: &Record) -> Option<&Disagreement> {
    match r {
        Record::Disagreement(d) => Some(d),
        _ => None,
    }
}
fn as_conclusion(r: &Record) -> Option<&Conclusion> {
    match r {
        Record::Conclusion(c) => Some(c),
        _ => None,
    }
}

fn assessment(a: Assessment) -> Result<Assessment, RecordRefusal> {
    let kind = RecordKind::Assessment;
    non_blank(
        kind,
        &[("subject", &a.subject), ("hypothesis", &a.hypothesis)],
    )?;
    evidence_shape(kind, &a.evidence)?;
    if let Some(bad) = a.capabilities.iter().find(|c| !is_capability(c)) {
        return Err(RecordRefusal::InvalidField {
            kind,
            field: "capabilities".to_owned(),
            problem: format!(
                "names \"{bad}\", which is not a capability name (e.g. independent_reasoning)"
            ),
        });
    }
    if a.materiality.is_material() && a.evidence.is_empty() {
        return Err(RecordRefusal::AssessmentEvidence {
            materiality: a.materiality,
        });
    }
    Ok(a)
}

fn consultation(c: Consultation, records: &[StoredRecord]) -> Result<Consultation, RecordRefusal> {
    let kind = RecordKind::Consultation;
    non_blank(kind, &[("advisor", &c.advisor)])?;
    match c.status {
        ConsultationStatus::Completed => {
            if c.conclusion.as_deref().is_none_or(|s| s.trim().is_empty()) {
                return Err(RecordRefusal::CompletedWithoutConclusion);
            }
        }
        status => {
            if c.conclusion.is_some() {
                return Err(RecordRefusal::FailedWithAnswer {
                    status,
                    field: "conclusion",
                });
            }
            if c.stance.is_some() {
                return Err(RecordRefusal::FailedWithAnswer {
                    status,
                    field: "stance",
                });
            }
        }
    }
    if c.retry_after_seconds.is_some() && c.status != ConsultationStatus::RateLimited {
        return Err(RecordRefusal::RetryAfterWithoutRateLimit { status: c.status });
    }
    let plan = cited(records, kind, "plan", &c.plan, RecordKind::Plan, as_plan)?;
    if !plan.selected.contains(&c.advisor) {
        return Err(RecordRefusal::AdvisorNotSelected {
            plan: c.plan.clone(),
            advisor: c.advisor.clone(),
            selected: plan.selected.clone(),
        });
    }
    Ok(c)
}

fn disagreement(d: Disagreement, records: &[StoredRecord]) -> Result<Disagreement, RecordRefusal> {
    let kind = RecordKind::Disagreement;
    non_blank(kind, &[("question", &d.question)])?;
    for (i, p) in d.positions.iter().enumerate() {
        if p.claim.trim().is_empty() {
            return Err(RecordRefusal::InvalidField {
                kind,
                field: format!("positions[{i}].claim"),
                problem: "is empty".to_owned(),
            });
        }
    }
    if d.positions.len() < 2 {
        return Err(RecordRefusal::TooFewPositions {
            count: d.positions.len(),
        });
    }
    let mut holders = BTreeSet::new();
    for p in &d.positions {
        if !holders.insert(&p.holder) {
            return Err(RecordRefusal::DuplicateHolder {
                holder: p.holder.to_string(),
            });
        }
    }
    cited(
        records,
        kind,
        "assessment",
        &d.assessment,
        RecordKind::Assessment,
        as_assessment,
    )?;
    for (index, p) in d.positions.iter().enumerate() {
        let source = |problem: &str| RecordRefusal::PositionSource {
            index,
            holder: p.holder.to_string(),
            problem: problem.to_owned(),
        };
        let advisor = match (&p.holder, &p.consultation) {
            (Holder::Executor, None) => continue,
            (Holder::Executor, Some(_)) => {
                return Err(source("the executor's position cites no consultation"));
            }
            (Holder::Advisor(_), None) => {
                return Err(source("an advisor's position cites its consultation"));
            }
            (Holder::Advisor(advisor), Some(_)) => advisor,
        };
        let id = p.consultation.as_deref().expect("matched Some above");
        let field = format!("positions[{index}].consultation");
        let c = cited(
            records,
            kind,
            &field,
            id,
            RecordKind::Consultation,
            as_consultation,
        )?;
        if c.status != ConsultationStatus::Completed {
            return Err(RecordRefusal::PositionNotCompleted {
                index,
                consultation: id.to_owned(),
                status: c.status,
            });
        }
        if &c.advisor != advisor {
            return Err(source(&format!("{id} is {}'s consultation", c.advisor)));
        }
        let on = plan_assessment(records, &c.plan);
        if on != Some(d.assessment.as_str()) {
            return Err(source(&format!(
                "{id} answered another assessment ({})",
                on.unwrap_or("unknown")
            )));
        }
        if c.stance.unwrap_or(super::record::Stance::Uncertain) != p.stance {
            return Err(source(&format!(
                "its stance is {}, but {id} recorded {}",
                p.stance.name(),
                c.stance.map_or("none", |s| s.name())
            )));
        }
    }
    Ok(d)
}

fn resolution(r: Resolution, records: &[StoredRecord]) -> Result<Resolution, RecordRefusal> {
    let kind = RecordKind::Resolution;
    non_blank(
        kind,
        &[("experiment", &r.experiment), ("result", &r.result)],
    )?;
    evidence_shape(kind, &r.evidence)?;
    if r.evidence.is_empty() {
        return Err(RecordRefusal::ResolutionEvidence);
    }
    let d = cited(
        records,
        kind,
        "disagreement",
        &r.disagreement,
        RecordKind::Disagreement,
        as_disagreement,
    )?;
    let holds = |h: &Holder| d.positions.iter().any(|p| &p.holder == h);
    let admissible = match &r.favours {
        Favours::None => true,
        Favours::Executor => holds(&Holder::Executor),
        Favours::Advisor(id) => holds(&Holder::Advisor(id.clone())),
    };
    if !admissible {
        return Err(RecordRefusal::ResolutionFavours {
            favours: r.favours.to_string(),
            disagreement: r.disagreement.clone(),
            holders: d.positions.iter().map(|p| p.holder.to_string()).collect(),
        });
    }
    Ok(r)
}

fn conclusion(c: ConclusionInput, records: &[StoredRecord]) -> Result<Conclusion, RecordRefusal> {
    let kind = RecordKind::Conclusion;
    non_blank(
        kind,
        &[("decision", &c.decision), ("rationale", &c.rationale)],
    )?;
    evidence_shape(kind, &c.evidence)?;
    let assessment = cited(
        records,
        kind,
        "assessment",
        &c.assessment,
        RecordKind::Assessment,
        as_assessment,
    )?;
    if let Some(old) = &c.supersedes {
        cited(
            records,
            kind,
            "supersedes",
            old,
            RecordKind::Conclusion,
            as_conclusion,
        )?;
    }
    let mut reviewed_by = Vec::new();
    for (i, id) in c.consultations.iter().enumerate() {
        let field = format!("consultations[{i}]");
        let consulted = cited(
            records,
            kind,
            &field,
            id,
            RecordKind::Consultation,
            as_consultation,
        )?;
        let on = plan_assessment(records, &consulted.plan);
        if on != Some(c.assessment.as_str()) {
            return Err(RecordRefusal::ForeignConsultation {
                consultation: id.clone(),
                other: on.unwrap_or("unknown").to_owned(),
            });
        }
        if consulted.status == ConsultationStatus::Completed {
            reviewed_by.push(consulted.advisor.clone());
        }
    }
    if assessment.materiality.is_material() {
        let missing = if c.evidence.is_empty() {
            Some("evidence")
        } else if c
            .validation_plan
            .as_deref()
            .is_none_or(|v| v.trim().is_empty())
        {
            Some("validation plan")
        } else {
            None
        };
        if let Some(missing) = missing {
            return Err(RecordRefusal::ConclusionEvidence {
                assessment: c.assessment.clone(),
                materiality: assessment.materiality,
                missing,
            });
        }
    }
    Ok(Conclusion::from_input(c, reviewed_by))
}

fn validation(v: Validation, records: &[StoredRecord]) -> Result<Validation, RecordRefusal> {
    let kind = RecordKind::Validation;
    non_blank(kind, &[("check", &v.check), ("command", &v.command)])?;
    cited(
        records,
        kind,
        "conclusion",
        &v.conclusion,
        RecordKind::Conclusion,
        as_conclusion,
    )?;
    Ok(v)
}

fn attempt(a: Attempt, records: &[StoredRecord]) -> Result<Attempt, RecordRefusal> {
    let kind = RecordKind::Attempt;
    non_blank(
        kind,
        &[
            ("tried", &a.tried),
            ("failure", &a.failure),
            ("invalidated_assumption", &a.invalidated_assumption),
            ("updated_hypothesis", &a.updated_hypothesis),
        ],
    )?;
    if let Some(id) = &a.assessment {
        cited(
            records,
            kind,
            "assessment",
            id,
            RecordKind::Assessment,
            as_assessment,
        )?;
    }
    Ok(a)
}

/// The assessment a plan (by id) was made for.
fn plan_assessment<'r>(records: &'r [StoredRecord], plan: &str) -> Option<&'r str> {
    records.iter().find_map(|r| match &r.record {
        Record::Plan(p) if r.id == plan => Some(p.assessment.as_str()),
        _ => None,
    })
}

/// The rules that read other records (run after the id, so an identical record already
/// stored is `unchanged` rather than refused).
fn against_records(stored: &StoredRecord, records: &[StoredRecord]) -> Result<(), RecordRefusal> {
    match &stored.record {
        Record::Consultation(c) => {
            let earlier = records.iter().find(|r| {
                matches!(&r.record, Record::Consultation(e) if e.plan == c.plan && e.advisor == c.advisor)
            });
            if let Some(existing) = earlier {
                return Err(RecordRefusal::AlreadyConsulted {
                    plan: c.plan.clone(),
                    advisor: c.advisor.clone(),
                    assessment: plan_assessment(records, &c.plan)
                        .unwrap_or_default()
                        .to_owned(),
                    existing: existing.id.clone(),
                });
            }
        }
        Record::Conclusion(c) => {
            if let Some(open) = unresolved_disagreements(&c.assessment, records).first() {
                return Err(RecordRefusal::UnresolvedDisagreement {
                    disagreement: (*open).to_owned(),
                    assessment: c.assessment.clone(),
                });
            }
            for r in records {
                let Record::Consultation(k) = &r.record else {
                    continue;
                };
                if k.status == ConsultationStatus::Completed
                    && plan_assessment(records, &k.plan) == Some(c.assessment.as_str())
                    && !c.consultations.contains(&r.id)
                {
                    return Err(RecordRefusal::NotWeighed {
                        consultation: r.id.clone(),
                        advisor: k.advisor.clone(),
                        assessment: c.assessment.clone(),
                    });
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Ids of the disagreements on `assessment` that no resolution settles, sorted.
pub fn unresolved_disagreements<'r>(assessment: &str, records: &'r [StoredRecord]) -> Vec<&'r str> {
    let resolved: BTreeSet<&str> = records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Resolution(x) => Some(x.disagreement.as_str()),
            _ => None,
        })
        .collect();
    let mut open: Vec<&str> = records
        .iter()
        .filter(|r| matches!(&r.record, Record::Disagreement(d) if d.assessment == assessment))
        .map(|r| r.id.as_str())
        .filter(|id| !resolved.contains(id))
        .collect();
    open.sort();
    open
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::reasoning::record::FailureKind;
    use crate::model::reasoning::testing::World;
    use crate::model::reasoning::transport::Failure;

    fn rule(e: &RecordRefusal) -> &'static str {
        e.rule()
    }

    fn assessment_json() -> Value {
        json!({
            "kind": "assessment",
            "subject": "s",
            "materiality": "high",
            "confidence": "low",
            "hypothesis": "h",
            "evidence": ["file:src/lib.rs:1"],
        })
    }

    fn with(mut value: Value, key: &str, field: Value) -> Value {
        value[key] = field;
        value
    }

    #[test]
    fn shape_refusals() {
        let mut w = World::new();
        assert_eq!(rule(&w.refused(json!([1]))), "reasoning.record-shape");
        assert_eq!(
            rule(&w.refused(json!({"subject": "s"}))),
            "reasoning.record-shape"
        );
        let e = w.refused(json!({"kind": "opinion"}));
        assert_eq!(
            (rule(&e), e.to_string().contains("opinion")),
            ("reasoning.record-shape", true)
        );

        let e = w.refused(json!({"kind": "plan", "assessment": "assessment-0123456789ab"}));
        assert_eq!(e, RecordRefusal::PlanSupplied);
        assert_eq!(rule(&e), "reasoning.plan-computed");
        assert!(
            e.fix()
                .starts_with("majordomus reasoning plan --assessment")
        );

        for field in COMPUTED_FIELDS {
            let e = w.refused(with(assessment_json(), field, json!("x")));
            assert_eq!(
                e,
                RecordRefusal::ComputedField {
                    kind: RecordKind::Assessment,
                    field: field.to_owned()
                }
            );
            assert_eq!(rule(&e), "reasoning.computed-field");
        }

        let e = w.refused(with(assessment_json(), "verdict", json!(true)));
        assert_eq!(
            e,
            RecordRefusal::UnknownField {
                kind: RecordKind::Assessment,
                field: "verdict".into()
            }
        );
        assert_eq!(rule(&e), "reasoning.unknown-field");
        assert!(e.fix().contains("subject"), "{}", e.fix());

        let mut missing = assessment_json();
        missing.as_object_mut().unwrap().remove("hypothesis");
        let e = w.refused(missing);
        assert!(
            matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "hypothesis"),
            "{e:?}"
        );
        assert_eq!(rule(&e), "reasoning.field");

        let e = w.refused(with(assessment_json(), "materiality", json!("huge")));
        assert!(
            matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "materiality"),
            "{e:?}"
        );
        assert!(e.to_string().contains("huge"), "{e}");
        let e = w.refused(with(assessment_json(), "facts", json!("one fact")));
        assert!(
            matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "facts"),
            "{e:?}"
        );
        let e = w.refused(with(assessment_json(), "subject", json!("  ")));
        assert!(
            matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "subject"),
            "{e:?}"
        );
        let e = w.refused(with(
            assessment_json(),
            "capabilities",
            json!(["Code Review"]),
        ));
        assert!(
            matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "capabilities"),
            "{e:?}"
        );

        let e = w.refused(with(
            assessment_json(),
            "evidence",
            json!(["file:a.rs", "src/lib.rs"]),
        ));
        assert!(
            matches!(&e, RecordRefusal::EvidenceShape { field, .. } if field == "evidence[1]"),
            "{e:?}"
        );
        assert_eq!(rule(&e), "reasoning.evidence-ref");
        assert!(w.records.is_empty());
    }

    #[test]
    fn assessment_evidence() {
        let mut w = World::new();
        for materiality in ["material", "high", "critical"] {
            let e = w.refused(with(
                with(assessment_json(), "materiality", json!(materiality)),
                "evidence",
                json!([]),
            ));
            assert_eq!(rule(&e), "reasoning.assessment-evidence", "{materiality}");
        }
        for materiality in ["trivial", "low"] {
            let mut input = with(assessment_json(), "materiality", json!(materiality));
            input.as_object_mut().unwrap().remove("evidence");
            w.ok(input);
        }
        // Capabilities default to independent reasoning.
        let id = w.ok(assessment_json());
        match &w.get(&id).record {
            Record::Assessment(a) => assert_eq!(a.capabilities, vec!["independent_reasoning"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn references_must_resolve_and_be_id_shaped() {
        let mut w = World::new();
        let e = w.refused(json!({"kind": "validation", "conclusion": "../../etc/passwd", "check": "c", "command": "x", "outcome": "pass"}));
        assert_eq!(rule(&e), "id.shape");
        let e = w.refused(json!({"kind": "validation", "conclusion": "conclusion-0123456789ab", "check": "c", "command": "x", "outcome": "pass"}));
        assert_eq!(
            e,
            RecordRefusal::UnknownRecord {
                kind: RecordKind::Validation,
                field: "conclusion".into(),
                id: "conclusion-0123456789ab".into(),
                expected: RecordKind::Conclusion
            }
        );
        assert_eq!(rule(&e), "reasoning.known-record");
        let e = w.refused(json!({"kind": "attempt", "assessment": "assessment-0123456789ab", "tried": "t", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h"}));
        assert_eq!(rule(&e), "reasoning.known-record");
        let e = w.refused(json!({"kind": "conclusion", "assessment": "assessment-0123456789ab", "decision": "d", "rationale": "r"}));
        assert_eq!(rule(&e), "reasoning.known-record");
        let e = w.refused(json!({"kind": "disagreement", "assessment": "assessment-0123456789ab", "question": "q",
            "positions": [{"holder": "executor", "stance": "supports", "claim": "a"}, {"holder": "executor2", "stance": "opposes", "claim": "b", "consultation": "consultation-0123456789ab"}]}));
        assert_eq!(rule(&e), "reasoning.known-record");
        let e = w.refused(json!({"kind": "resolution", "disagreement": "disagreement-0123456789ab", "experiment": "e", "result": "r", "favours": "none", "evidence": ["test:x"]}));
        assert_eq!(rule(&e), "reasoning.known-record");
        let e = w.refused(World::consultation_input(
            "plan-0123456789ab",
            "alpha",
            World::answer("supports", "c"),
        ));
        assert_eq!(rule(&e), "reasoning.known-record");
        // A well-shaped id of another kind is not a reference of this kind.
        let a = w.assessment("s", "high");
        let e = w.refused(json!({"kind": "validation", "conclusion": a, "check": "c", "command": "x", "outcome": "pass"}));
        assert_eq!(rule(&e), "id.shape");
    }

    #[test]
    fn consultation_refusals() {
        let mut w = World::new();
        w.mode = crate::model::policy::ReasoningMode::Standard;
        let a = w.assessment("s", "material");
        let plan = w.plan(&a);
        match &plan.record {
            Record::Plan(p) => assert_eq!(p.selected, vec!["alpha"]),
            other => panic!("{other:?}"),
        }
        let e = w.refused(World::consultation_input(
            &plan.id,
            "beta",
            World::answer("supports", "c"),
        ));
        assert_eq!(rule(&e), "reasoning.consultation-selected");
        assert!(e.fix().contains("alpha"), "{}", e.fix());

        let mut no_conclusion =
            World::consultation_input(&plan.id, "alpha", World::answer("supports", "c"));
        no_conclusion.as_object_mut().unwrap().remove("conclusion");
        assert_eq!(
            w.refused(no_conclusion),
            RecordRefusal::CompletedWithoutConclusion
        );

        let timeout = || {
            Err(Failure {
                kind: FailureKind::Timeout,
                retry_after_seconds: None,
                diagnostic: None,
            })
        };
        let failed_with = with(
            World::consultation_input(&plan.id, "alpha", timeout()),
            "conclusion",
            json!("c"),
        );
        let e = w.refused(failed_with);
        assert_eq!(
            (rule(&e), e.to_string().contains("timeout")),
            ("reasoning.consultation-failed", true)
        );
        let failed_with = with(
            World::consultation_input(&plan.id, "alpha", timeout()),
            "stance",
            json!("opposes"),
        );
        assert_eq!(
            rule(&w.refused(failed_with)),
            "reasoning.consultation-failed"
        );
        let retry = with(
            World::consultation_input(&plan.id, "alpha", timeout()),
            "retry_after_seconds",
            json!(30),
        );
        let e = w.refused(retry);
        assert_eq!(
            e,
            RecordRefusal::RetryAfterWithoutRateLimit {
                status: ConsultationStatus::Timeout
            }
        );

        let first = World::consultation_input(&plan.id, "alpha", timeout());
        let id = w.ok(first.clone());
        // The same record again is unchanged; another outcome for the same advisor is not.
        let again = w.write(first).unwrap();
        assert!(again.unchanged);
        assert_eq!(again.record.id, id);
        let e = w.refused(World::consultation_input(
            &plan.id,
            "alpha",
            World::answer("supports", "c"),
        ));
        assert_eq!(rule(&e), "reasoning.consultation-once");
        assert!(e.fix().contains(&a), "{}", e.fix());
    }

    #[test]
    fn disagreement_and_resolution_refusals() {
        let mut w = World::new();
        let a = w.assessment("s", "critical");
        let plan = w.plan(&a);
        let alpha = w.ok(World::consultation_input(
            &plan.id,
            "alpha",
            World::answer("opposes", "no"),
        ));
        let beta = w.ok(World::consultation_input(
            &plan.id,
            "beta",
            Err(Failure {
                kind: FailureKind::Timeout,
                retry_after_seconds: None,
                diagnostic: None,
            }),
        ));
        let executor = json!({"holder": "executor", "stance": "supports", "claim": "h"});
        let input = |positions: Value| json!({"kind": "disagreement", "assessment": a, "positions": positions, "question": "q?"});

        let e = w.refused(input(json!([executor])));
        assert_eq!(e, RecordRefusal::TooFewPositions { count: 1 });
        assert_eq!(rule(&e), "reasoning.disagreement-positions");
        let e = w.refused(input(json!([executor, executor])));
        assert_eq!(rule(&e), "reasoning.disagreement-positions");

        let e = w.refused(input(json!([executor, {"holder": "beta", "consultation": beta, "stance": "opposes", "claim": "x"}])));
        assert_eq!(rule(&e), "reasoning.position-completed");

        let sources = [
            json!([{"holder": "executor", "consultation": alpha, "stance": "supports", "claim": "h"}, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}]),
            json!([executor, {"holder": "alpha", "stance": "opposes", "claim": "no"}]),
            json!([executor, {"holder": "gamma", "consultation": alpha, "stance": "opposes", "claim": "no"}]),
            json!([executor, {"holder": "alpha", "consultation": alpha, "stance": "supports", "claim": "no"}]),
        ];
        for positions in sources {
            let e = w.refused(input(positions.clone()));
            assert_eq!(rule(&e), "reasoning.position-source", "{positions}");
        }
        // A consultation of another assessment.
        let other = w.assessment("another subject", "critical");
        let e = w.refused(json!({"kind": "disagreement", "assessment": other, "question": "q",
            "positions": [executor, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}]}));
        assert_eq!(rule(&e), "reasoning.position-source");

        let d = w.ok(input(json!([executor, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}])));
        let resolution = |favours: &str, evidence: Value| json!({"kind": "resolution", "disagreement": d, "experiment": "e", "result": "r", "favours": favours, "evidence": evidence});
        let e = w.refused(resolution("alpha", json!([])));
        assert_eq!(e, RecordRefusal::ResolutionEvidence);
        assert_eq!(rule(&e), "reasoning.resolution-evidence");
        let e = w.refused(resolution("gamma", json!(["test:x"])));
        assert_eq!(rule(&e), "reasoning.resolution-favours");
        assert!(e.fix().contains("executor, alpha"), "{}", e.fix());
        w.ok(resolution("none", json!(["test:x"])));
    }

    #[test]
    fn conclusion_refusals_and_computed_review() {
        let mut w = World::new();
        let a = w.assessment("s", "high");
        let plan = w.plan(&a);
        let alpha = w.ok(World::consultation_input(
            &plan.id,
            "alpha",
            World::answer("supports", "yes"),
        ));
        let beta = w.ok(World::consultation_input(
            &plan.id,
            "beta",
            Err(Failure {
                kind: FailureKind::AuthFailed,
                retry_after_seconds: None,
                diagnostic: Some("401".into()),
            }),
        ));
        let conclusion = |consultations: Value| {
            json!({
                "kind": "conclusion", "assessment": a, "decision": "keep the reflog", "rationale": "measured",
                "evidence": ["command:git reflog => 4 landings"], "consultations": consultations,
                "validation_plan": "watch the next landings",
            })
        };

        let e = w.refused(conclusion(json!([beta])));
        assert_eq!(
            e,
            RecordRefusal::NotWeighed {
                consultation: alpha.clone(),
                advisor: "alpha".into(),
                assessment: a.clone()
            }
        );
        assert_eq!(rule(&e), "reasoning.conclusion-weighed");

        let e = w.refused(with(
            conclusion(json!([alpha, beta])),
            "evidence",
            json!([]),
        ));
        assert_eq!(rule(&e), "reasoning.conclusion-evidence");
        assert!(e.to_string().contains("no evidence"), "{e}");
        let mut no_plan = conclusion(json!([alpha, beta]));
        no_plan.as_object_mut().unwrap().remove("validation_plan");
        let e = w.refused(no_plan);
        assert_eq!(rule(&e), "reasoning.conclusion-evidence");
        assert!(e.to_string().contains("no validation plan"), "{e}");

        let e = w.refused(with(
            conclusion(json!([alpha])),
            "reviewed_by",
            json!(["alpha", "beta", "gamma"]),
        ));
        assert_eq!(rule(&e), "reasoning.computed-field");
        let e = w.refused(with(
            conclusion(json!([alpha])),
            "independent_review_count",
            json!(3),
        ));
        assert_eq!(rule(&e), "reasoning.computed-field");

        let other = w.assessment("another", "high");
        let other_plan = w.plan(&other);
        let foreign = w.ok(World::consultation_input(
            &other_plan.id,
            "alpha",
            World::answer("supports", "y"),
        ));
        let e = w.refused(conclusion(json!([alpha, foreign])));
        assert_eq!(rule(&e), "reasoning.conclusion-consultations");

        // The failed consultation is weighed but reviewed nothing.
        let id = w.ok(conclusion(json!([beta, alpha])));
        match &w.get(&id).record {
            Record::Conclusion(c) => {
                assert_eq!(c.reviewed_by, vec!["alpha"]);
                assert_eq!(c.independent_review_count, 1);
            }
            other => panic!("{other:?}"),
        }
        // A low assessment needs neither evidence nor a validation plan.
        let low = w.ok(json!({"kind": "assessment", "subject": "naming", "materiality": "low", "confidence": "high", "hypothesis": "h"}));
        w.ok(json!({"kind": "conclusion", "assessment": low, "decision": "d", "rationale": "r"}));
        let e = w.refused(json!({"kind": "conclusion", "assessment": low, "decision": "d2", "rationale": "r", "supersedes": "conclusion-0123456789ab"}));
        assert_eq!(rule(&e), "reasoning.known-record");
    }

    #[test]
    fn strings_are_redacted_and_the_shapes_named() {
        fn redact(text: &str) -> Redaction {
            if text.contains("sk-live-123") {
                Redaction {
                    text: text.replace("sk-live-123", "[redacted: api-key]"),
                    shapes: vec!["api-key".into()],
                }
            } else {
                no_redaction(text)
            }
        }
        let mut w = World::new();
        w.redact = redact;
        let id = w.ok(
            json!({"kind": "assessment", "subject": "key sk-live-123 leaks", "materiality": "low",
            "confidence": "low", "hypothesis": "h", "facts": ["env shows sk-live-123"]}),
        );
        let stored = w.get(&id);
        assert_eq!(stored.redacted, vec!["api-key"]);
        let text = serde_json::to_string(stored).unwrap();
        assert!(!text.contains("sk-live-123"), "{text}");
        assert!(text.contains("[redacted: api-key]"));
        assert_eq!(stored.computed_id(), stored.id);
        assert_eq!(stored.recorded_at, "2026-10-21T12:01:00Z");
        assert_eq!(stored.task, "task-1");
    }

    #[test]
    fn every_refusal_has_a_rule_and_a_fix() {
        let mut w = World::new();
        let e = w.refused(json!({"kind": "attempt", "tried": "", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h"}));
        assert_eq!(rule(&e), "reasoning.field");
        assert!(!e.fix().is_empty());
        assert!(e.rule().starts_with("reasoning.") || e.rule() == "id.shape");
    }

    #[test]
    fn input_shapes_come_from_the_schema() {
        let shape = input_shape(RecordKind::Conclusion);
        assert!(shape.fields.contains(&"supersedes".to_owned()));
        assert!(!shape.fields.contains(&"reviewed_by".to_owned()));
        assert_eq!(shape.required, vec!["assessment", "decision", "rationale"]);
        let shape = input_shape(RecordKind::Consultation);
        assert_eq!(
            shape.required,
            vec!["plan", "advisor", "status", "duration_ms"]
        );
        let shape = input_shape(RecordKind::Assessment);
        assert_eq!(
            shape.required,
            vec!["subject", "materiality", "confidence", "hypothesis"]
        );
    }
}
