//! The library's error type: failures (I/O, git) and refusals (a rule said no, with a fix).

use crate::git::GitError;
use crate::model::policy::PolicyError;
use crate::store::StoreError;

/// Anything an operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// A writer or gate said no. Each variant names its rule and, where one exists, the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{root}: repository is not initialised (no .ai/repo/policy.yaml)")]
    NotInitialised { root: String },
    #[error("no episode is open")]
    NoOpenEpisode,
    #[error("question {id}: no such question in the ledger")]
    UnknownQuestion { id: String },
    #[error("question {id}: already resolved with \"{answer}\"")]
    QuestionAlreadyResolved { id: String, answer: String },
    #[error("{what}: the text is empty")]
    EmptyText { what: &'static str },
    #[error("--since {value}: not a timestamp")]
    InvalidSince { value: String },
    #[error("--event {value}: no such event")]
    UnknownEvent { value: String },
    #[error("{path}: unreadable episode state: {message}")]
    CorruptEpisodeState { path: String, message: String },
}

impl Refusal {
    /// The rule that refused, as shown in `error.rule`.
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::NotInitialised { .. } => "repository.initialised",
            Refusal::NoOpenEpisode => "session.open-episode",
            Refusal::UnknownQuestion { .. } => "question.known",
            Refusal::QuestionAlreadyResolved { .. } => "question.open",
            Refusal::EmptyText { .. } => "record.text",
            Refusal::InvalidSince { .. } => "history.since",
            Refusal::UnknownEvent { .. } => "history.event",
            Refusal::CorruptEpisodeState { .. } => "session.state",
        }
    }

    /// The command or change that would satisfy the rule.
    pub fn fix(&self) -> Option<String> {
        match self {
            Refusal::NotInitialised { .. } => Some("majordomus init".into()),
            Refusal::NoOpenEpisode => Some("majordomus session start".into()),
            Refusal::UnknownQuestion { .. } => {
                Some("majordomus history --event question.asked (lists question ids)".into())
            }
            Refusal::QuestionAlreadyResolved { .. } => None,
            Refusal::EmptyText { .. } => Some("give the text as one quoted argument".into()),
            Refusal::InvalidSince { .. } => {
                Some("use RFC 3339 (2026-11-30T10:00:00Z) or a date (2026-11-30)".into())
            }
            Refusal::UnknownEvent { .. } => Some(format!(
                "use one of: {}",
                crate::model::Event::ALL.map(|e| e.name()).join(", ")
            )),
            Refusal::CorruptEpisodeState { .. } => {
                Some("majordomus session start --replace".into())
            }
        }
    }
}

impl PolicyError {
    /// The rule a policy refusal names; `None` for malformed YAML, which is an error.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            PolicyError::Malformed { .. } => None,
            PolicyError::UnknownKey { .. } => Some("policy.known-keys"),
            PolicyError::InvalidValue { .. } => Some("policy.value"),
            PolicyError::SectionWithoutWriter { .. } => Some("policy.record-section-writer"),
        }
    }

    pub fn fix(&self) -> Option<String> {
        match self {
            PolicyError::Malformed { file, line, .. } => {
                Some(format!("correct the YAML at {file} line {line}"))
            }
            PolicyError::UnknownKey { file, key } => Some(format!(
                "remove `{key}` from {file} (known keys: {})",
                crate::model::policy::KEYS.join(", ")
            )),
            PolicyError::InvalidValue { file, key, .. } => Some(format!(
                "set `{key}` in {file} to an accepted value (docs/POLICY.md)"
            )),
            PolicyError::SectionWithoutWriter { file, name } => Some(format!(
                "remove `{name}` from session.record_sections in {file} (sections with a writer: {})",
                crate::model::compose::Section::ALL
                    .map(|s| s.name())
                    .join(", ")
            )),
        }
    }
}
