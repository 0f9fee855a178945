//! The ledger's line format, its one enum of event names, and one payload type per event:
//! every line is written and read back through the same type.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::knowledge::Class;

/// Every event name the ledger knows (SPEC §3). Unknown names read back as `Unknown`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
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
    #[serde(rename = "knowledge.reverified")]
    KnowledgeReverified,
    /// Not in SPEC's list: a verified record replaced by another (`knowledge supersede`,
    /// `promote --supersedes`).
    #[serde(rename = "knowledge.superseded")]
    KnowledgeSuperseded,
    /// Not in SPEC's list: a verified record that no longer holds, with nothing replacing
    /// it (`knowledge retire`).
    #[serde(rename = "knowledge.retired")]
    KnowledgeRetired,
    #[serde(rename = "outbox.drained")]
    OutboxDrained,
    #[serde(rename = "reasoning.recorded")]
    ReasoningRecorded,
    #[serde(rename = "provider.event.failed")]
    ProviderEventFailed,
    #[serde(rename = "commit.rewritten")]
    CommitRewritten,
    #[serde(rename = "ledger.pruned")]
    LedgerPruned,
    /// Not in SPEC's list: recorded provider hook failures a later success or a person's
    /// acknowledgement cleared (docs/HOOKS.md).
    #[serde(rename = "provider.event.cleared")]
    ProviderEventCleared,
    /// Files an agent's editing tool changed (or was about to), recorded by `hook edit`:
    /// paths only, never content.
    #[serde(rename = "agent.touched")]
    AgentTouched,
    /// Records a hook or a tool put before the model (SPEC §8): never twice a session.
    #[serde(rename = "context.shown")]
    ContextShown,
    /// Not in SPEC's list: a `task start` the intent binding refused and stopped (nothing
    /// started), with what it named: the refused share of starts that name nothing is
    /// read from it and `task.started` (docs/INTENTS.md).
    #[serde(rename = "task.refused")]
    TaskRefused,
    /// A name written by a newer majordomus; readable, shown as `unknown`, never written.
    #[serde(other, rename = "unknown")]
    Unknown,
}

/// The schema of an optional event-name request field: one of [`Event::ALL`]'s names.
pub fn name_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = Event::ALL.iter().map(|e| e.name().into()).collect();
    names.push(serde_json::Value::Null);
    schemars::json_schema!({"type": ["string", "null"], "enum": names})
}

impl Event {
    /// All known events, in SPEC order.
    pub const ALL: [Event; 25] = [
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
        Event::KnowledgeReverified,
        Event::KnowledgeSuperseded,
        Event::KnowledgeRetired,
        Event::OutboxDrained,
        Event::ReasoningRecorded,
        Event::ProviderEventFailed,
        Event::CommitRewritten,
        Event::LedgerPruned,
        Event::ProviderEventCleared,
        Event::AgentTouched,
        Event::ContextShown,
        Event::TaskRefused,
    ];

    /// A line a person or an agent authored for an episode (SPEC §3.2): a decision, a
    /// question or its answer, a checkpoint, a task, a reasoning record. An episode with
    /// none of these and no commit closes empty. (A checkpoint a hook wrote is not
    /// authored: [`LedgerLine::authored`] reads the line.)
    pub fn authored(self) -> bool {
        matches!(
            self,
            Event::DecisionRecorded
                | Event::QuestionAsked
                | Event::QuestionResolved
                | Event::CheckpointRecorded
                | Event::TaskStarted
                | Event::TaskFinished
                | Event::ReasoningRecorded
        )
    }

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
            Event::KnowledgeReverified => "knowledge.reverified",
            Event::KnowledgeSuperseded => "knowledge.superseded",
            Event::KnowledgeRetired => "knowledge.retired",
            Event::OutboxDrained => "outbox.drained",
            Event::ReasoningRecorded => "reasoning.recorded",
            Event::ProviderEventFailed => "provider.event.failed",
            Event::CommitRewritten => "commit.rewritten",
            Event::LedgerPruned => "ledger.pruned",
            Event::ProviderEventCleared => "provider.event.cleared",
            Event::AgentTouched => "agent.touched",
            Event::ContextShown => "context.shown",
            Event::TaskRefused => "task.refused",
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerLine {
    pub seq: u64,
    pub ts: String,
    pub event: Event,
    pub session: Option<String>,
    pub task: Option<String>,
    /// The event's payload (one type per event, see `model::event`).
    #[serde(default)]
    pub data: serde_json::Value,
}

impl LedgerLine {
    /// The line's task id, when it has the shape of one: a garbled or forged `task` read
    /// from the ledger (`../x`, `none`) never becomes a reference or a path (SPEC §0).
    pub fn task_id(&self) -> Option<&str> {
        self.task
            .as_deref()
            .filter(|t| super::ids::IdKind::Task.accepts(t))
    }

    /// The line's payload read as `P`, when the line is `P`'s event and its data reads as
    /// `P` (a line some other writer got wrong reads as `None`, never as an error).
    pub fn payload<P: Payload>(&self) -> Option<P> {
        if self.event != P::EVENT {
            return None;
        }
        P::deserialize(&self.data).ok()
    }

    /// Whether a person or an agent authored this line for its episode (SPEC §3.2, §8): an
    /// [`Event::authored`] event, but not a checkpoint a hook wrote by itself (the session
    /// end's or a compaction's), which never makes an episode non-empty.
    pub fn authored(&self) -> bool {
        self.event.authored()
            && !(self.event == Event::CheckpointRecorded
                && self.data.get("automatic") == Some(&serde_json::Value::Bool(true)))
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
    /// A draft carrying `payload` as its data (keys sorted, as every line writes them).
    pub fn new<P: Payload>(
        ts: String,
        session: Option<String>,
        task: Option<String>,
        payload: &P,
    ) -> LineDraft {
        LineDraft {
            ts,
            event: P::EVENT,
            session,
            task,
            data: serde_json::to_value(payload).expect("ledger payloads always serialise"),
        }
    }

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

/// The payload type of one event: written by `LineDraft::new`, read by `LedgerLine::payload`.
pub trait Payload: Serialize + DeserializeOwned {
    const EVENT: Event;
}

macro_rules! payload {
    ($($ty:ident => $event:ident),* $(,)?) => {
        $(impl Payload for $ty {
            const EVENT: Event = Event::$event;
        })*
    };
}

payload! {
    SessionOpened => SessionOpened,
    SessionClosed => SessionClosed,
    DecisionRecorded => DecisionRecorded,
    QuestionAsked => QuestionAsked,
    QuestionResolved => QuestionResolved,
    CheckpointRecorded => CheckpointRecorded,
    CommitRecorded => CommitRecorded,
    TaskStarted => TaskStarted,
    TaskFinished => TaskFinished,
    HandoverDerived => HandoverDerived,
    KnowledgeDerived => KnowledgeDerived,
    KnowledgePromoted => KnowledgePromoted,
    KnowledgeRejected => KnowledgeRejected,
    KnowledgeReverified => KnowledgeReverified,
    KnowledgeSuperseded => KnowledgeSuperseded,
    KnowledgeRetired => KnowledgeRetired,
    OutboxDrained => OutboxDrained,
    ReasoningRecorded => ReasoningRecorded,
    ProviderEventFailed => ProviderEventFailed,
    CommitRewritten => CommitRewritten,
    LedgerPruned => LedgerPruned,
    ProviderEventCleared => ProviderEventCleared,
    AgentTouched => AgentTouched,
    ContextShown => ContextShown,
    TaskRefused => TaskRefused,
}

/// `session.opened`: who opened the episode and where git stood.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SessionOpened {
    pub provider: String,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// The agent client's conversation it serves, as [`conversation_key`] names it (absent
    /// for a session a person or a script opened): a resumed conversation is known by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

/// The key of an agent client's conversation: 16 hex digits of sha256 over the client's
/// name and its session id (the id itself is the client's, and need not be kept).
pub fn conversation_key(provider: &str, session_id: &str) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    hasher.update(provider.as_bytes());
    hasher.update([0]);
    hasher.update(session_id.as_bytes());
    let digest = hasher.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// How an episode ended, in one word: from its tasks, else from its commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "EpisodeOutcome")]
pub enum Outcome {
    Blocked,
    Unfinished,
    Completed,
    NoCommits,
    Committed,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Blocked => "blocked",
            Outcome::Unfinished => "unfinished",
            Outcome::Completed => "completed",
            Outcome::NoCommits => "no-commits",
            Outcome::Committed => "committed",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn yes() -> bool {
    true
}

/// `session.closed`: where the record went and under which policy the close ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionClosed {
    pub record: String,
    pub commits: usize,
    pub outcome: Outcome,
    /// `session.knowledge_on_end` as the close saw it (older lines lack it: on).
    #[serde(default = "yes")]
    pub knowledge_on_end: bool,
    /// It closed empty (SPEC §3.2): no commit and no authored line, so no record was
    /// written (`record` is empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empty: bool,
}

/// `decision.recorded`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DecisionRecorded {
    pub text: String,
    /// Files the record cites (SPEC §5.1), repository-relative, sorted; absent when none
    /// (so a line citing nothing is byte for byte what it was before files existed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// `question.asked`: the new question's id and text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct QuestionAsked {
    pub id: String,
    pub text: String,
    /// Files the record cites (SPEC §5.1), repository-relative, sorted; absent when none
    /// (so a line citing nothing is byte for byte what it was before files existed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// `question.resolved`: the answer, with the question repeated so the line reads alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct QuestionResolved {
    pub id: String,
    pub question: String,
    pub answer: String,
    /// Files the answer cites and those the question cited (SPEC §5.1), sorted; absent
    /// when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// `checkpoint.recorded`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CheckpointRecorded {
    pub text: String,
    /// Files the record cites (SPEC §5.1), repository-relative, sorted; absent when none
    /// (so a line citing nothing is byte for byte what it was before files existed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Written by a hook, not by a person or an agent: how the work looked at a session's
    /// end or at a compaction (SPEC §8). It never makes an episode non-empty by itself.
    /// Absent when false (a checkpoint someone wrote is byte for byte what it was).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
}

/// `commit.recorded`, written by the post-commit hook.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CommitRecorded {
    pub sha: String,
    pub subject: String,
}

/// `task.started`: what the task names and the pins of its binding.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TaskStarted {
    pub description: String,
    pub scope: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exemption: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_revision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_standing: Option<String>,
    /// What the start named when the binding was asked (`issue`, `intent`, `scope`,
    /// `exempt`; empty: nothing). Absent when the binding was not asked, and on lines
    /// older than this field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<Vec<String>>,
}

/// `task.refused`: a `task start` the intent binding refused, and which stopped there (no
/// task, no `task.started`): its description, the binding's causes and what it named.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TaskRefused {
    pub description: String,
    pub causes: Vec<String>,
    /// `issue`, `intent`, `scope`, `exempt`: what the start named (empty: nothing).
    pub named: Vec<String>,
}

/// How a task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Completed,
    Blocked,
}

impl TaskStatus {
    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Completed => "completed",
            TaskStatus::Blocked => "blocked",
        }
    }
}

/// `task.finished`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TaskFinished {
    pub status: TaskStatus,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `handover.derived`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct HandoverDerived {
    pub path: String,
}

/// Where derivation wrote: the tracked candidates, or the trunk outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeriveTarget {
    Candidates,
    Outbox,
}

impl DeriveTarget {
    pub fn name(self) -> &'static str {
        match self {
            DeriveTarget::Candidates => "candidates",
            DeriveTarget::Outbox => "outbox",
        }
    }
}

/// Whether a derivation wrote anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum DeriveNote {
    #[serde(rename = "written")]
    Written,
    #[serde(rename = "nothing to write")]
    NothingToWrite,
}

/// `knowledge.derived`: what one derivation of an episode wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KnowledgeDerived {
    pub episode: String,
    pub target: DeriveTarget,
    pub written: usize,
    pub unchanged: usize,
    pub skipped: usize,
    pub reviewed: usize,
    /// The candidate files written or found unchanged, sorted.
    #[serde(default)]
    pub paths: Vec<String>,
    pub note: DeriveNote,
}

/// `knowledge.promoted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KnowledgePromoted {
    pub id: String,
    pub class: Class,
    pub path: String,
    pub from: String,
    /// Who promoted it (`Name <email>`, git's author identity), written when no episode
    /// was open: the line's `session` then names no one, and a human act is owned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promoted_by: Option<String>,
}

/// `knowledge.reverified`: a person re-verified a verified record at `head`; `changed` the
/// cited files that had changed since it was verified.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KnowledgeReverified {
    pub id: String,
    pub path: String,
    pub head: String,
    pub changed: Vec<String>,
}

/// `knowledge.superseded`: a verified record replaced by `superseded_by`; who decided it
/// (git's author identity) and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KnowledgeSuperseded {
    pub id: String,
    pub superseded_by: String,
    pub reason: String,
    pub path: String,
    pub decided_by: String,
}

/// `knowledge.retired`: a verified record that no longer holds, nothing replacing it; who
/// decided it and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KnowledgeRetired {
    pub id: String,
    pub reason: String,
    pub path: String,
    pub decided_by: String,
}

/// `knowledge.rejected`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KnowledgeRejected {
    pub id: String,
    pub reason: String,
    pub superseded_by: Option<String>,
    pub path: String,
}

/// `outbox.drained`: the file names moved out of the outbox, and those left in it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OutboxDrained {
    pub sessions: Vec<String>,
    pub candidates: Vec<String>,
    /// Outbox files not moved because a different tracked file is in their place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<String>,
}

/// `reasoning.recorded`: one reasoning record stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ReasoningRecorded {
    pub id: String,
    pub kind: String,
    pub path: String,
}

/// `provider.event.failed`: a provider hook that failed (it never blocks its provider).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProviderEventFailed {
    pub hook: String,
    pub provider: String,
    pub error: String,
}

/// What cleared recorded provider hook failures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClearedBy {
    /// The same hook of the same provider ran through without a failure afterwards.
    #[default]
    Success,
    /// A person acknowledged them (`majordomus hooks acknowledge`).
    Acknowledgement,
}

/// `provider.event.cleared`: the `provider.event.failed` lines up to `through` (of `hook`
/// and `provider` when given, else every one) no longer need attention.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProviderEventCleared {
    pub hook: Option<String>,
    pub provider: Option<String>,
    /// The seq of the newest failure cleared.
    pub through: u64,
    pub by: ClearedBy,
}

impl ProviderEventCleared {
    /// Whether this clears the failure `seq` of `hook` by `provider`.
    pub fn clears(&self, seq: u64, hook: &str, provider: &str) -> bool {
        seq <= self.through
            && self.hook.as_deref().is_none_or(|h| h == hook)
            && self.provider.as_deref().is_none_or(|p| p == provider)
    }
}

/// `agent.touched`: the files one call of an agent's editing tool changed (or, before the
/// tool runs, is about to), repository-relative and sorted; only the paths the episode had
/// not touched yet (the episode's working set grows, never repeats).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AgentTouched {
    pub paths: Vec<String>,
    /// The client's tool (`Edit`, `apply_patch`, `write_file`).
    pub tool: String,
    /// The agent client.
    pub provider: String,
}

/// Where a record was put before the model.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ShownWhere {
    /// The briefing a session-start hook hands the client.
    #[default]
    Briefing,
    /// Prompt-time recall (`hook prompt`).
    Prompt,
    /// Edit-time recall (`hook edit`), about one file.
    Edit,
    /// A tool the agent called (`majordomus_recall`, `majordomus_briefing`, ...).
    Tool,
    /// What a resumed conversation already holds from its earlier episodes (SPEC §8): put
    /// before the model then, not now; on record so the new episode never shows it again.
    Resumed,
}

impl ShownWhere {
    pub const ALL: [ShownWhere; 5] = [
        ShownWhere::Briefing,
        ShownWhere::Prompt,
        ShownWhere::Edit,
        ShownWhere::Tool,
        ShownWhere::Resumed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ShownWhere::Briefing => "briefing",
            ShownWhere::Prompt => "prompt",
            ShownWhere::Edit => "edit",
            ShownWhere::Tool => "tool",
            ShownWhere::Resumed => "resumed",
        }
    }
}

/// `context.shown`: the records one hook or tool put before the model, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ContextShown {
    #[serde(rename = "where")]
    pub place: ShownWhere,
    pub records: Vec<ShownItem>,
    /// The files an edit-time recall was about.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The tool that showed them (`recall`, `briefing`), for [`ShownWhere::Tool`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// One record put before the model: `kind:id` (as `majordomus show` reads it) and its
/// status at that moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShownItem {
    pub id: String,
    pub status: super::recall::HitStatus,
}

/// The claim a reference (`kind:id`) states (SPEC §8, "one claim is one record"): a
/// decision and the knowledge record derived from it share their id (`<episode>-<12 hex>`),
/// so `decision:X` and `knowledge:X` are the claim `X`; any other reference is its own.
pub fn claim_of(reference: &str) -> &str {
    match reference.split_once(':') {
        Some(("decision" | "knowledge", id)) => id,
        _ => reference,
    }
}

/// One rewritten commit: git's `<old> <new>` pair.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rewrite {
    pub old: String,
    pub new: String,
}

/// `commit.rewritten`, written by the post-rewrite hook (amend, rebase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CommitRewritten {
    /// `amend` or `rebase`, as git names the rewrite.
    pub by: String,
    pub pairs: Vec<Rewrite>,
}

/// `ledger.pruned`: how many lines retention removed, and up to when.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LedgerPruned {
    pub lines: usize,
    /// Lines older than this were eligible.
    pub before: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_serialises_in_spec_order_with_sorted_data() {
        let line = LineDraft::new(
            "2026-11-30T10:00:00Z".into(),
            Some("ep".into()),
            None,
            &CommitRecorded {
                subject: "use gix".into(),
                sha: "abc".into(),
            },
        )
        .with_seq(7);
        assert_eq!(
            serde_json::to_string(&line).expect("serialises"),
            r#"{"seq":7,"ts":"2026-11-30T10:00:00Z","event":"commit.recorded","session":"ep","task":null,"data":{"sha":"abc","subject":"use gix"}}"#
        );
    }

    #[test]
    fn payloads_read_back_through_their_type() {
        let line = LineDraft::new(
            "t".into(),
            None,
            None,
            &QuestionResolved {
                id: "q-1".into(),
                question: "why?".into(),
                answer: "speed".into(),
                files: Vec::new(),
            },
        )
        .with_seq(1);
        let back: QuestionResolved = line.payload().expect("reads");
        assert_eq!(back.answer, "speed");
        assert_eq!(line.payload::<QuestionAsked>(), None, "another event");
    }

    #[test]
    fn lines_of_the_step_two_release_read_the_same() {
        // Written by majordomus 0.1.0 before payloads were typed.
        let closed: LedgerLine = serde_json::from_str(
            r#"{"seq":9,"ts":"2026-11-30T10:05:00Z","event":"session.closed","session":"E","task":null,"data":{"commits":1,"knowledge_on_end":true,"outcome":"no-commits","record":".ai/repo/sessions/E.md"}}"#,
        )
        .expect("parses");
        let payload: SessionClosed = closed.payload().expect("typed");
        assert_eq!(payload.outcome, Outcome::NoCommits);
        let rewritten =
            LineDraft::new(closed.ts.clone(), closed.session.clone(), None, &payload).with_seq(9);
        assert_eq!(
            serde_json::to_string(&rewritten).expect("serialises"),
            serde_json::to_string(&closed).expect("serialises"),
            "the typed payload writes the same bytes"
        );
        let derived: LedgerLine = serde_json::from_str(
            r#"{"seq":10,"ts":"t","event":"knowledge.derived","session":"E","task":null,"data":{"episode":"E","note":"nothing to write","paths":[],"reviewed":0,"skipped":0,"target":"outbox","unchanged":2,"written":0}}"#,
        )
        .expect("parses");
        let payload: KnowledgeDerived = derived.payload().expect("typed");
        assert_eq!(payload.note, DeriveNote::NothingToWrite);
        assert_eq!(payload.target, DeriveTarget::Outbox);
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

    /// Property tests: the line parser against arbitrary input, and the writer's lines
    /// read back. `PROPTEST_CASES=100000 cargo test --lib event::tests::props` runs longer.
    mod props {
        use super::*;
        use proptest::prelude::*;

        /// JSON the way payloads hold it: strings (any Unicode), integers, booleans, null,
        /// lists and objects. No floats: no payload carries one, and serde_json's default
        /// float parsing is best-effort, not exact.
        pub(crate) fn json_value() -> impl Strategy<Value = serde_json::Value> {
            let leaf = prop_oneof![
                Just(serde_json::Value::Null),
                any::<bool>().prop_map(serde_json::Value::Bool),
                any::<i64>().prop_map(serde_json::Value::from),
                any::<u64>().prop_map(serde_json::Value::from),
                any::<String>().prop_map(serde_json::Value::String),
            ];
            leaf.prop_recursive(3, 24, 6, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                    prop::collection::btree_map(any::<String>(), inner, 0..6)
                        .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
                ]
            })
        }

        pub(crate) fn event() -> impl Strategy<Value = Event> {
            prop::sample::select(Event::ALL.to_vec())
        }

        /// A line as `Ledger::append` numbers it (the data any JSON object or value).
        pub(crate) fn line() -> impl Strategy<Value = LedgerLine> {
            (
                any::<u64>(),
                any::<String>(),
                event(),
                any::<Option<String>>(),
                any::<Option<String>>(),
                json_value(),
            )
                .prop_map(|(seq, ts, event, session, task, data)| LedgerLine {
                    seq,
                    ts,
                    event,
                    session,
                    task,
                    data,
                })
        }

        proptest! {
            #[test]
            fn arbitrary_bytes_never_panic_the_line_parser(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
                // Either a line or an error; never a panic, and a line read back writes.
                if let Ok(line) = serde_json::from_slice::<LedgerLine>(&bytes) {
                    prop_assert!(serde_json::to_vec(&line).is_ok());
                }
            }

            #[test]
            fn arbitrary_json_objects_never_panic_the_line_parser(
                fields in prop::collection::btree_map(
                    prop_oneof![
                        prop::sample::select(vec!["seq", "ts", "event", "session", "task", "data"])
                            .prop_map(str::to_owned),
                        any::<String>(),
                    ],
                    prop_oneof![
                        json_value(),
                        event().prop_map(|e| serde_json::Value::from(e.name())),
                    ],
                    0..8,
                ),
            ) {
                let value = serde_json::Value::Object(fields.into_iter().collect());
                let text = serde_json::to_vec(&value).expect("values serialise");
                if let Ok(line) = serde_json::from_slice::<LedgerLine>(&text) {
                    // Whatever event name it carried, reading it back is total.
                    let _ = line.payload::<DecisionRecorded>();
                    let _ = line.payload::<TaskStarted>();
                    let _ = line.payload::<KnowledgeDerived>();
                    prop_assert!(serde_json::to_string(&line).is_ok());
                }
            }

            #[test]
            fn every_line_the_writer_produces_parses_back_to_the_same_value(line in line()) {
                let text = serde_json::to_string(&line).expect("lines serialise");
                prop_assert!(!text.contains('\n'), "one line: {text}");
                let back: LedgerLine = serde_json::from_str(&text).expect("the line parses");
                prop_assert_eq!(&back, &line);
                // And writes the very same bytes again.
                prop_assert_eq!(serde_json::to_string(&back).expect("serialises"), text);
            }

            #[test]
            fn typed_payloads_round_trip_through_a_line(
                seq in any::<u64>(),
                session in any::<Option<String>>(),
                task in any::<Option<String>>(),
                text in any::<String>(),
                id in any::<String>(),
                answer in any::<String>(),
                scope in prop::collection::vec(any::<String>(), 0..4),
                issue in any::<Option<String>>(),
                reason in any::<Option<String>>(),
                blocked in any::<bool>(),
            ) {
                fn through<P: Payload + PartialEq + std::fmt::Debug>(
                    seq: u64,
                    session: &Option<String>,
                    task: &Option<String>,
                    payload: P,
                ) -> Result<(), TestCaseError> {
                    let line = LineDraft::new("2026-11-30T10:00:00Z".into(), session.clone(), task.clone(), &payload)
                        .with_seq(seq);
                    let text = serde_json::to_string(&line).expect("lines serialise");
                    let back: LedgerLine = serde_json::from_str(&text).expect("the line parses");
                    prop_assert_eq!(back.event, P::EVENT);
                    prop_assert_eq!(back.payload::<P>(), Some(payload));
                    Ok(())
                }
                through(seq, &session, &task, DecisionRecorded { text: text.clone(), files: scope.clone() })?;
                through(seq, &session, &task, QuestionResolved { id: id.clone(), question: text.clone(), answer, files: scope.clone() })?;
                through(seq, &session, &task, TaskStarted {
                    description: text.clone(),
                    scope,
                    issue,
                    ..TaskStarted::default()
                })?;
                through(seq, &session, &task, TaskFinished {
                    status: if blocked { TaskStatus::Blocked } else { TaskStatus::Completed },
                    reason,
                })?;
                through(seq, &session, &task, CommitRecorded { sha: id, subject: text })?;
            }
        }
    }
}
