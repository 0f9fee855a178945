//! The writer's validation: a caller's JSON and the task's records in, the record to store
//! or a typed refusal (rule + one-line fix) out.
//!
//! Order: who may write the kind (plans are the writer's, consultations `consult`'s), shape
//! (object, kind, computed and unknown fields, field types, evidence and id shapes),
//! redaction of every string, the kind's own rules, references to records that must
//! exist, the computed fields and id, and then the rules that read other records. A record
//! whose id is already stored comes back `unchanged`.

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

mod kinds;
mod refusal;
mod strict;

use kinds::*;
pub use refusal::RecordRefusal;
use strict::*;

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

/// Who hands a record to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    /// A caller of `reasoning record` (CLI, MCP, HTTP): every kind but a plan and a
    /// consultation. A review count the caller could write is a review it could invent.
    Caller,
    /// `reasoning consult`, from an adapter's answer: its consultations and the
    /// disagreement it detects.
    Consult,
}

/// Everything the writer needs besides the caller's JSON.
#[derive(Clone, Copy)]
pub struct WriteContext<'a> {
    pub task: &'a str,
    pub episode: Option<&'a str>,
    pub now: OffsetDateTime,
    /// The task's stored records.
    pub records: &'a [StoredRecord],
    /// Every stored record of this checkout, the task's included: a conclusion's
    /// `supersedes` may name another task's conclusion, and the standing conclusion on its
    /// subject may be anywhere.
    pub checkout: &'a [StoredRecord],
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
            .field("checkout", &self.checkout.len())
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

fn caller_kinds() -> Vec<&'static str> {
    RecordKind::ALL
        .into_iter()
        .filter(|k| !matches!(k, RecordKind::Plan | RecordKind::Consultation))
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

/// Validates the JSON `author` hands the writer against the kind's rules and the task's
/// records; returns the record to store, or why not.
pub fn validate(
    input: &Value,
    author: Author,
    ctx: &WriteContext<'_>,
) -> Result<Accepted, RecordRefusal> {
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
    if kind == RecordKind::Consultation && author == Author::Caller {
        // The assessment its plan was made for, when the task has that plan: the fix
        // consults on it.
        let assessment = object
            .get("plan")
            .and_then(Value::as_str)
            .and_then(|plan| plan_assessment(ctx.records, plan))
            .map(str::to_owned);
        return Err(RecordRefusal::ConsultationSupplied {
            assessment,
            task: (!ctx.task.starts_with("_episode-")).then(|| ctx.task.to_owned()),
        });
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
        RecordKind::Conclusion => Record::Conclusion(conclusion(
            parse(kind, &fields)?,
            ctx.records,
            ctx.checkout,
        )?),
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
mod tests;
