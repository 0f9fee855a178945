//! A task's records built through the real writer, for the tests of this module: a fixed
//! clock that advances a minute per record, a catalogue of scripted advisors.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

use super::availability::{self, Conditions, Disabled, Presence};
use super::catalogue::Catalogue;
use super::plan::{PlanInputs, plan};
use super::record::{Consultation, Record, StoredRecord};
use super::transport::{self, Answer, Failure};
use super::validate::{
    Accepted, Author, RecordRefusal, Redaction, WriteContext, no_redaction, seal, validate,
};
use crate::model::policy::ReasoningMode;

pub const T0: OffsetDateTime = datetime!(2026-10-21 12:00:00 UTC);

/// Three scripted advisors, all offering independent reasoning.
pub const FIXTURE_CATALOGUE: &str = "
advisors:
  - {id: alpha, title: Alpha, adapter: fixture, capabilities: [independent_reasoning, code_review]}
  - {id: beta, title: Beta, adapter: fixture, capabilities: [independent_reasoning]}
  - {id: gamma, title: Gamma, adapter: fixture, capabilities: [independent_reasoning]}
";

pub struct World {
    pub catalogue: Catalogue,
    pub mode: ReasoningMode,
    /// The task's records.
    pub records: Vec<StoredRecord>,
    /// Records of other tasks and episodes of the checkout.
    pub elsewhere: Vec<StoredRecord>,
    /// The task the world writes in.
    pub task: &'static str,
    pub now: OffsetDateTime,
    pub redact: fn(&str) -> Redaction,
}

impl World {
    pub fn new() -> World {
        World {
            catalogue: Catalogue::parse(FIXTURE_CATALOGUE, "advisors.yaml").expect("valid"),
            mode: ReasoningMode::Strict,
            records: Vec::new(),
            elsewhere: Vec::new(),
            task: "task-1",
            now: T0,
            redact: no_redaction,
        }
    }

    fn tick(&mut self) {
        self.now += time::Duration::minutes(1);
    }

    /// Gives `input` to the writer as a caller of `reasoning record`; stores what it
    /// accepts.
    pub fn write(&mut self, input: Value) -> Result<Accepted, RecordRefusal> {
        self.write_as(input, Author::Caller)
    }

    /// Gives `input` to the writer as `author`; stores what it accepts. The task's
    /// records are this world's; the checkout holds them and `elsewhere`.
    pub fn write_as(&mut self, input: Value, author: Author) -> Result<Accepted, RecordRefusal> {
        self.tick();
        let redact = self.redact;
        let checkout: Vec<StoredRecord> = self
            .elsewhere
            .iter()
            .chain(&self.records)
            .cloned()
            .collect();
        let ctx = WriteContext {
            task: self.task,
            episode: Some("20261021T120000Z-abcdef"),
            now: self.now,
            records: &self.records,
            checkout: &checkout,
            redact: &redact,
        };
        let accepted = validate(&input, author, &ctx)?;
        if !accepted.unchanged {
            self.records.push(accepted.record.clone());
        }
        Ok(accepted)
    }

    /// Writes and returns the new id; panics on a refusal.
    pub fn ok(&mut self, input: Value) -> String {
        match self.write(input.clone()) {
            Ok(a) => a.record.id,
            Err(e) => panic!("refused {input}: {e} [{}]", e.rule()),
        }
    }

    /// The rule that refuses `input`; panics if it is accepted.
    pub fn refused(&mut self, input: Value) -> RecordRefusal {
        match self.write(input.clone()) {
            Ok(a) => panic!("accepted {input}: {}", a.record.id),
            Err(e) => e,
        }
    }

    /// Writes a consultation as `consult` does and returns its id; panics on a refusal.
    pub fn consulted(&mut self, input: Value) -> String {
        match self.write_as(input.clone(), Author::Consult) {
            Ok(a) => a.record.id,
            Err(e) => panic!("refused {input}: {e} [{}]", e.rule()),
        }
    }

    /// The rule that refuses a consultation `consult` writes; panics if it is accepted.
    pub fn consult_refused(&mut self, input: Value) -> RecordRefusal {
        match self.write_as(input.clone(), Author::Consult) {
            Ok(a) => panic!("accepted {input}: {}", a.record.id),
            Err(e) => e,
        }
    }

    /// A material assessment with evidence.
    pub fn assessment(&mut self, subject: &str, materiality: &str) -> String {
        self.ok(json!({
            "kind": "assessment",
            "subject": subject,
            "materiality": materiality,
            "confidence": "medium",
            "hypothesis": "The reflog is enough",
            "assumptions": ["the reflog sees every landing"],
            "evidence": ["command:git reflog => 4 landings within 94 s"],
        }))
    }

    /// Plans the assessment with every scripted advisor available, as the writer does.
    pub fn plan(&mut self, assessment: &str) -> StoredRecord {
        self.tick();
        let body = self
            .records
            .iter()
            .find_map(|r| match &r.record {
                Record::Assessment(a) if r.id == assessment => Some(a.clone()),
                _ => None,
            })
            .expect("the assessment is recorded");
        let disabled = Disabled::default();
        let conditions = Conditions {
            mode: self.mode,
            disabled: &disabled,
            cooldown_override: None,
            now: self.now,
        };
        let checkout: Vec<StoredRecord> = self
            .elsewhere
            .iter()
            .chain(&self.records)
            .cloned()
            .collect();
        let snapshot = availability::snapshot(
            &self.catalogue,
            |_| Presence {
                executable_on_path: true,
                credential_set: true,
            },
            &conditions,
            &checkout,
        );
        let plan = plan(
            assessment,
            &PlanInputs {
                assessment: &body,
                mode: self.mode,
                catalogue: &self.catalogue,
                availability: &snapshot,
                records: &checkout,
            },
        );
        let redact = self.redact;
        let ctx = WriteContext {
            task: self.task,
            episode: Some("20261021T120000Z-abcdef"),
            now: self.now,
            records: &self.records,
            checkout: &checkout,
            redact: &redact,
        };
        let accepted = seal(Record::Plan(plan), &ctx).expect("no redaction");
        if !accepted.unchanged {
            self.records.push(accepted.record.clone());
        }
        accepted.record
    }

    /// The JSON `consult` gives the writer for one outcome.
    pub fn consultation_input(
        plan: &str,
        advisor: &str,
        outcome: Result<Answer, Failure>,
    ) -> Value {
        let c: Consultation = transport::consultation(plan, advisor, outcome, 1200);
        serde_json::to_value(Record::Consultation(c)).expect("serialises")
    }

    pub fn answer(stance: &str, conclusion: &str) -> Result<Answer, Failure> {
        transport::parse_answer(&json!({"conclusion": conclusion, "stance": stance}).to_string())
    }

    pub fn get(&self, id: &str) -> &StoredRecord {
        self.records.iter().find(|r| r.id == id).expect("recorded")
    }

    /// Moves on to another task of the same checkout: the records so far become another
    /// task's.
    pub fn next_task(&mut self, task: &'static str) {
        self.elsewhere.append(&mut self.records);
        self.task = task;
    }
}
