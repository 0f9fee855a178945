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
    #[error("no episode is open and none has closed: nothing to derive")]
    NoEpisodeToDerive,
    #[error("episode {id}: no ledger line carries this episode")]
    UnknownEpisode { id: String },
    #[error("knowledge {id}: no such candidate")]
    UnknownKnowledge { id: String },
    #[error("knowledge {id}: already promoted (it is in curated/)")]
    AlreadyPromoted { id: String },
    #[error("knowledge {id}: the candidate is superseded (rejected)")]
    SupersededCandidate { id: String },
    #[error("knowledge {id}: promotion needs evidence on stdin")]
    EvidenceRequired { id: String },
    #[error(
        "{what}: carries the transcript marker `{marker}`; a record is a claim about the repository, never a conversation"
    )]
    TranscriptMarker { what: String, marker: String },
    #[error("--by {id}: no such knowledge record to supersede with")]
    UnknownReplacement { id: String },
    #[error("hook {hook}: {path} already exists, so the hook that is there cannot be chained")]
    HookChainOccupied { hook: String, path: String },
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
            Refusal::NoEpisodeToDerive => "knowledge.episode",
            Refusal::UnknownEpisode { .. } => "knowledge.episode",
            Refusal::UnknownKnowledge { .. } => "knowledge.known-id",
            Refusal::AlreadyPromoted { .. } => "knowledge.already-promoted",
            Refusal::SupersededCandidate { .. } => "knowledge.superseded",
            Refusal::EvidenceRequired { .. } => "knowledge.evidence",
            Refusal::TranscriptMarker { .. } => "knowledge.transcript-marker",
            Refusal::UnknownReplacement { .. } => "knowledge.replacement",
            Refusal::HookChainOccupied { .. } => "hooks.chain",
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
            Refusal::QuestionAlreadyResolved { .. } => {
                Some("ask again with `majordomus question \"<text>\"` if the answer changed".into())
            }
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
            Refusal::NoEpisodeToDerive | Refusal::UnknownEpisode { .. } => Some(
                "majordomus knowledge derive --episode <id> (ids: majordomus history --event session.closed)"
                    .into(),
            ),
            Refusal::UnknownKnowledge { .. } => Some("majordomus knowledge candidates".into()),
            Refusal::AlreadyPromoted { .. } | Refusal::SupersededCandidate { .. } => None,
            Refusal::EvidenceRequired { id } => Some(format!(
                "echo \"<what shows this holds: a test, a file, a command and its output>\" | majordomus knowledge promote {id}"
            )),
            Refusal::TranscriptMarker { .. } => {
                Some("state the claim and its evidence in your own words, without chat role labels or template tokens".into())
            }
            Refusal::UnknownReplacement { .. } => Some("majordomus knowledge candidates".into()),
            Refusal::HookChainOccupied { path, .. } => Some(format!(
                "merge {path} into the existing hook or remove it, then rerun majordomus hooks install"
            )),
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
