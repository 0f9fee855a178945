//! The ledger's line format and its one enum of event names.

use serde::{Deserialize, Serialize};

/// Every event name the ledger knows (SPEC §3). Unknown names read back as `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Event {
    #[serde(rename = "session.opened")]
    SessionOpened,
    #[serde(rename = "session.closed")]
    SessionClosed,
    #[serde(rename = "decision.recorded")]
    DecisionRecorded,
    #[serde(rename = "question.asked")]
    QuestionAsked,
    #[serde(rename = "question.resolved")]
    QuestionResolved,
    #[serde(rename = "checkpoint.recorded")]
    CheckpointRecorded,
    #[serde(rename = "commit.recorded")]
    CommitRecorded,
    #[serde(rename = "task.started")]
    TaskStarted,
    #[serde(rename = "task.finished")]
    TaskFinished,
    #[serde(rename = "handover.derived")]
    HandoverDerived,
    #[serde(rename = "knowledge.derived")]
    KnowledgeDerived,
    #[serde(rename = "knowledge.promoted")]
    KnowledgePromoted,
    #[serde(rename = "knowledge.rejected")]
    KnowledgeRejected,
    #[serde(rename = "outbox.drained")]
    OutboxDrained,
    #[serde(rename = "reasoning.recorded")]
    ReasoningRecorded,
    #[serde(rename = "provider.event.failed")]
    ProviderEventFailed,
    /// A name written by a newer majordomus; readable, shown as `unknown`, never written.
    #[serde(other, rename = "unknown")]
    Unknown,
}

impl Event {
    /// All known events, in SPEC order.
    pub const ALL: [Event; 16] = [
        Event::SessionOpened,
        Event::SessionClosed,
        Event::DecisionRecorded,
        Event::QuestionAsked,
        Event::QuestionResolved,
        Event::CheckpointRecorded,
        Event::CommitRecorded,
        Event::TaskStarted,
        Event::TaskFinished,
        Event::HandoverDerived,
        Event::KnowledgeDerived,
        Event::KnowledgePromoted,
        Event::KnowledgeRejected,
        Event::OutboxDrained,
        Event::ReasoningRecorded,
        Event::ProviderEventFailed,
    ];

    /// The name as written in the ledger.
    pub fn name(self) -> &'static str {
        match self {
            Event::SessionOpened => "session.opened",
            Event::SessionClosed => "session.closed",
            Event::DecisionRecorded => "decision.recorded",
            Event::QuestionAsked => "question.asked",
            Event::QuestionResolved => "question.resolved",
            Event::CheckpointRecorded => "checkpoint.recorded",
            Event::CommitRecorded => "commit.recorded",
            Event::TaskStarted => "task.started",
            Event::TaskFinished => "task.finished",
            Event::HandoverDerived => "handover.derived",
            Event::KnowledgeDerived => "knowledge.derived",
            Event::KnowledgePromoted => "knowledge.promoted",
            Event::KnowledgeRejected => "knowledge.rejected",
            Event::OutboxDrained => "outbox.drained",
            Event::ReasoningRecorded => "reasoning.recorded",
            Event::ProviderEventFailed => "provider.event.failed",
            Event::Unknown => "unknown",
        }
    }

    /// Parses an event name as a user types it (`--event decision.recorded`).
    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One line of the ledger, exactly as SPEC §3 writes it (field order is the line's order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub seq: u64,
    pub ts: String,
    pub event: Event,
    pub session: Option<String>,
    pub task: Option<String>,
    #[serde(default)]
    pub data: serde_json::Value,
}

impl LedgerLine {
    /// A string field of `data`, if present.
    pub fn data_str(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(serde_json::Value::as_str)
    }
}

/// A line before the ledger has numbered it.
#[derive(Debug, Clone, PartialEq)]
pub struct LineDraft {
    pub ts: String,
    pub event: Event,
    pub session: Option<String>,
    pub task: Option<String>,
    pub data: serde_json::Value,
}

impl LineDraft {
    /// Numbers the draft; the ledger calls this under its lock.
    pub fn with_seq(self, seq: u64) -> LedgerLine {
        LedgerLine {
            seq,
            ts: self.ts,
            event: self.event,
            session: self.session,
            task: self.task,
            data: self.data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_serialises_in_spec_order() {
        let line = LineDraft {
            ts: "2026-11-30T10:00:00Z".into(),
            event: Event::DecisionRecorded,
            session: Some("ep".into()),
            task: None,
            data: serde_json::json!({"text": "use gix", "a": 1}),
        }
        .with_seq(7);
        assert_eq!(
            serde_json::to_string(&line).expect("serialises"),
            r#"{"seq":7,"ts":"2026-11-30T10:00:00Z","event":"decision.recorded","session":"ep","task":null,"data":{"a":1,"text":"use gix"}}"#
        );
    }

    #[test]
    fn unknown_event_reads_back() {
        let line: LedgerLine = serde_json::from_str(
            r#"{"seq":1,"ts":"t","event":"future.thing","session":null,"task":null,"data":{}}"#,
        )
        .expect("parses");
        assert_eq!(line.event, Event::Unknown);
        // Reading it back must never make output fail to serialise.
        assert!(
            serde_json::to_string(&line)
                .expect("serialises")
                .contains("\"unknown\"")
        );
    }

    #[test]
    fn names_round_trip() {
        for e in Event::ALL {
            assert_eq!(Event::from_name(e.name()), Some(e));
            let json = serde_json::to_string(&e).expect("serialises");
            assert_eq!(json, format!("\"{}\"", e.name()));
        }
    }
}
