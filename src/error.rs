//! The library's error type and its one classification: every error carries its class
//! (usage, refused, failed), the rule it names and, where one exists, the fix. Surfaces
//! map the class to their own codes (exit code, HTTP status, tool error) in one place each.

use serde::Serialize;

use crate::git::GitError;
use crate::model::policy::PolicyError;
use crate::store::StoreError;

/// How an error is to be understood by whoever asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "ErrorClass")]
pub enum Class {
    /// The request itself was wrong: a bad argument, a filter that names nothing.
    Usage,
    /// A writer or gate said no: a rule, with what would satisfy it.
    Refused,
    /// Something broke: I/O, git, unreadable state.
    Failed,
}

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
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Journal(#[from] crate::model::journal::JournalError),
    #[error(transparent)]
    Review(#[from] crate::model::knowledge::ReviewError),
    #[error(transparent)]
    End(#[from] crate::model::knowledge::EndError),
    #[error(transparent)]
    Mesh(#[from] crate::model::mesh::MeshError),
    /// A long-running operation stopped by a signal after recording what it had.
    #[error("{operation} interrupted by {signal}: {recorded}")]
    Interrupted {
        operation: &'static str,
        signal: &'static str,
        /// What was recorded before it stopped.
        recorded: String,
        fix: String,
    },
}

/// A request that cannot be served as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error("--since {value}: not a timestamp")]
    InvalidSince { value: String },
    #[error("--limit {value}: not between 1 and {max}")]
    InvalidLimit { value: usize, max: usize },
    #[error("--event {value}: no such event")]
    UnknownEvent { value: String },
    #[error("MAJORDOMUS_NOW={value}: not an RFC 3339 timestamp")]
    InvalidClock { value: String },
    #[error("{operation}: {message}")]
    InvalidRequest { operation: String, message: String },
    #[error("{name}: no such operation")]
    UnknownOperation { name: String },
    #[error("{what}: not UTF-8 text ({message})")]
    NotUtf8 { what: String, message: String },
    /// An argument on the command line that is not UTF-8: `argument` is the option it is
    /// the value of (`--file`) or its place, `shown` its bytes (`src/caf\xe9.rs`).
    #[error("{argument}: not UTF-8 ({shown})")]
    ArgumentNotUtf8 { argument: String, shown: String },
    #[error("handover --resolve {}: {why}", crate::model::ids::shown_plain(file))]
    HandoverFile {
        file: String,
        why: &'static str,
        fix: &'static str,
    },
    #[error("{0}")]
    Arguments(String),
    #[error(
        "serve --listen: a team address needs --token-file (a token every runtime is given, not one per run)"
    )]
    ListenWithoutTokenFile,
    /// `knowledge promote --file` with more than one id, a selection or `--commit`: the
    /// fix is the single promotion it can be (its `next:` line commits it).
    #[error(
        "knowledge promote --file: takes one candidate id, and neither a selection nor --commit"
    )]
    PromoteFileAlone { fix: String },
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
    #[error("no episode is open and none has closed: nothing to derive")]
    NoEpisodeToDerive,
    #[error("episode {id}: no ledger line carries this episode")]
    UnknownEpisode { id: String },
    #[error(
        "episode {id}: this clone's ledger does not know it, so the commits its hooks recorded cannot be read"
    )]
    RecomposeUnknownEpisode { id: String },
    #[error("episode {id} is still open: its record is composed when it closes")]
    EpisodeStillOpen { id: String },
    #[error("episode {id}: no session record in .ai/repo/sessions/ or the outbox")]
    NoSessionRecord { id: String },
    #[error("knowledge {id}: no such candidate")]
    UnknownKnowledge { id: String },
    #[error("knowledge {id}: {path} holds both acts of a merge ({sides}); keep one")]
    ConflictedRecord {
        id: String,
        path: String,
        sides: String,
    },
    #[error("knowledge {id}: not a verified record (a candidate is verified by promoting it)")]
    NotVerified { id: String },
    #[error("knowledge {id}: no such verified record in curated/")]
    UnknownVerified { id: String },
    #[error("knowledge {id}: HEAD has no commit yet to re-verify it at")]
    ReverifyUnborn { id: String },
    #[error("knowledge {id}: already promoted (it is in curated/){}", if fix.is_some() { "; a verified record leaves by being superseded or retired, not rejected" } else { "" })]
    AlreadyPromoted {
        id: String,
        /// For a rejection: the supersede or retire that does what was asked.
        fix: Option<String>,
    },
    #[error("knowledge {id}: the candidate is superseded (rejected)")]
    SupersededCandidate { id: String },
    #[error("knowledge {id}: promotion needs evidence on stdin")]
    EvidenceRequired {
        id: String,
        /// The act's own command with the evidence to write in, when the act was given
        /// more than the id (`--supersedes`, `--class`, `--file`): its fix keeps them.
        fix: Option<String>,
    },
    #[error(
        "knowledge {id}: the evidence is a placeholder ({}), not what shows the claim holds",
        crate::model::ids::shown(placeholder)
    )]
    EvidencePlaceholder {
        id: String,
        placeholder: String,
        /// The act that was given it: `promote` or `reverify` (its fix reruns that one).
        act: &'static str,
        /// As `EvidenceRequired`'s: the act's own command, its options kept.
        fix: Option<String>,
    },
    #[error(
        "{what}: carries the transcript marker `{marker}`; a record is a claim about the repository, never a conversation"
    )]
    TranscriptMarker { what: String, marker: String },
    #[error("--by {id}: no such knowledge record to supersede with")]
    UnknownReplacement { id: String },
    #[error(
        "hook {hook}: {path} {reason}, so majordomus cannot call itself from it without putting that hook at risk"
    )]
    HookNeedsHand {
        hook: String,
        path: String,
        reason: String,
        /// What to do by hand (the exact line to add, where there is one).
        fix: String,
    },
    #[error(
        "--task {}: no task of this ledger has that id",
        crate::model::ids::shown_plain(id)
    )]
    UnknownTask { id: String },
    #[error("the intent binding refuses this: {}", causes.join(", "))]
    Binding { causes: Vec<String>, note: String },
    #[error("{message}")]
    PlanEdit { message: String },
    #[error("no task is active in this episode")]
    NoActiveTask,
    #[error("no handover has been derived in this checkout")]
    NoHandover,
    #[error("{message}")]
    Reasoning {
        rule: &'static str,
        message: String,
        fix: String,
    },
    #[error(
        "task {id} is still active in this episode ({description}); one task at a time: finish it (or `--status blocked --reason \"<why>\"`), then start the next"
    )]
    TaskActive { id: String, description: String },
    #[error("task finish --status blocked: a blocked task needs --reason")]
    BlockedWithoutReason,
    #[error(
        "{path} is ignored by `{pattern}` ({rule_file}): git would never see the records majordomus writes there"
    )]
    RecordsIgnored {
        path: String,
        pattern: String,
        rule_file: String,
        fix: String,
    },
    #[error("{path}: {message}; setup edits only a file it can keep byte for byte")]
    SetupFile {
        path: String,
        message: String,
        fix: String,
    },
    #[error("{what}: {bytes} bytes is over the limit of {limit} bytes")]
    TooLarge {
        what: String,
        bytes: usize,
        limit: usize,
    },
    #[error("--path {path}: outside this repository")]
    RecallPathOutside { path: String, fix: String },
    #[error(
        "--file {}: outside this repository (a record cites files of its work tree)",
        crate::model::ids::shown_plain(path)
    )]
    CitedFileOutside { path: String, fix: String },
    #[error("--file {}: {why}", crate::model::ids::shown_plain(path))]
    CitedFileMissing {
        path: String,
        why: &'static str,
        fix: String,
    },
    #[error(
        "--task {}: no task of this checkout or its session records has that id",
        crate::model::ids::shown_plain(id)
    )]
    RecallUnknownTask { id: String, fix: String },
    #[error(
        "--issue {}: neither the plan nor any record names that issue{}",
        crate::model::ids::shown_plain(issue),
        if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(", ")) }
    )]
    RecallUnknownIssue {
        issue: String,
        known: Vec<String>,
        fix: String,
    },
    #[error(
        "{}: no such record (a reference is <kind>:<id>, as a recall hit names it)",
        crate::model::ids::shown_plain(reference)
    )]
    UnknownRecord { reference: String },
    #[error(
        "{kind} id {} does not have the shape of one (like {example})",
        crate::model::ids::shown(id)
    )]
    IdShape {
        kind: &'static str,
        id: String,
        example: &'static str,
    },
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
            Refusal::NoEpisodeToDerive => "knowledge.episode",
            Refusal::UnknownEpisode { .. } => "knowledge.episode",
            Refusal::RecomposeUnknownEpisode { .. } => "session.known-episode",
            Refusal::EpisodeStillOpen { .. } => "session.closed",
            Refusal::NoSessionRecord { .. } => "session.record",
            Refusal::UnknownKnowledge { .. } => "knowledge.known-id",
            Refusal::ConflictedRecord { .. } => "knowledge.conflict",
            Refusal::AlreadyPromoted { .. } => "knowledge.already-promoted",
            Refusal::NotVerified { .. } => "knowledge.reverify-verified",
            Refusal::UnknownVerified { .. } => "knowledge.known-id",
            Refusal::ReverifyUnborn { .. } => "knowledge.reverify-head",
            Refusal::SupersededCandidate { .. } => "knowledge.superseded",
            Refusal::EvidenceRequired { .. } | Refusal::EvidencePlaceholder { .. } => {
                "knowledge.evidence"
            }
            Refusal::TranscriptMarker { .. } => "knowledge.transcript-marker",
            Refusal::UnknownReplacement { .. } => "knowledge.replacement",
            Refusal::HookNeedsHand { .. } => "hooks.manager",
            Refusal::UnknownTask { .. } => "task.known",
            Refusal::IdShape { .. } => "id.shape",
            Refusal::TooLarge { .. } => "input.size",
            Refusal::SetupFile { .. } => "setup.file",
            Refusal::RecordsIgnored { .. } => "init.ignored",
            Refusal::Binding { .. } => "intent.binding",
            Refusal::PlanEdit { .. } => "plan.edit",
            Refusal::NoActiveTask => "task.active",
            Refusal::NoHandover => "handover.known",
            Refusal::Reasoning { rule, .. } => rule,
            Refusal::TaskActive { .. } => "task.one-active",
            Refusal::BlockedWithoutReason => "task.reason",
            Refusal::RecallPathOutside { .. } => "recall.path",
            Refusal::CitedFileOutside { .. } => "record.file-inside",
            Refusal::CitedFileMissing { .. } => "record.file-exists",
            Refusal::RecallUnknownTask { .. } => "task.known",
            Refusal::RecallUnknownIssue { .. } => "recall.issue",
            Refusal::UnknownRecord { .. } => "recall.known",
        }
    }

    /// The command or change that would satisfy the rule.
    pub fn fix(&self) -> Option<String> {
        match self {
            Refusal::NotInitialised { .. } => Some("majordomus init".into()),
            Refusal::NoOpenEpisode => Some("majordomus session start".into()),
            Refusal::UnknownQuestion { .. } => {
                Some("majordomus history --event question.asked".into())
            }
            Refusal::QuestionAlreadyResolved { .. } => {
                Some("ask again with `majordomus question \"<text>\"` if the answer changed".into())
            }
            Refusal::EmptyText { .. } => Some("give the text as one quoted argument".into()),
            // Nothing has happened yet: an episode is what would give it something.
            Refusal::NoEpisodeToDerive => Some("majordomus session start".into()),
            // Whoever asked (derive, handover, reasoning --task _episode-<id>), the list of
            // the episodes this ledger knows is what to choose from.
            Refusal::UnknownEpisode { .. } => Some("majordomus session list".into()),
            // The list says which episodes this ledger knows, and where each one's record
            // is (committed on another branch, closed elsewhere, never written).
            Refusal::RecomposeUnknownEpisode { .. } | Refusal::NoSessionRecord { .. } => {
                Some("majordomus session list".into())
            }
            Refusal::EpisodeStillOpen { .. } => Some("majordomus session close".into()),
            Refusal::UnknownKnowledge { .. } => Some("majordomus knowledge candidates".into()),
            // The check names each side's act and the checkout that keeps it.
            Refusal::ConflictedRecord { .. } => Some("majordomus knowledge check".into()),
            Refusal::NotVerified { id } => Some(format!("majordomus knowledge show {id}")),
            Refusal::UnknownVerified { .. } => {
                Some("majordomus recall --kind knowledge --status verified --status stale".into())
            }
            Refusal::ReverifyUnborn { .. } => {
                Some("git add -A && git commit -m \"First commit\"".into())
            }
            Refusal::AlreadyPromoted { id, fix } => Some(
                fix.clone()
                    .unwrap_or_else(|| format!("majordomus knowledge show {id}")),
            ),
            Refusal::SupersededCandidate { .. } => None,
            // No command can supply evidence: the template says what to write, and the
            // placeholder itself is refused should it be run as it stands.
            Refusal::EvidenceRequired { fix: Some(fix), .. }
            | Refusal::EvidencePlaceholder { fix: Some(fix), .. } => Some(fix.clone()),
            Refusal::EvidenceRequired { id, .. } => Some(format!(
                "by hand: replace the text in angle brackets, then run: echo \"<what shows this holds: a test, a file, a command and its output>\" | majordomus knowledge promote {id}"
            )),
            Refusal::EvidencePlaceholder { id, act, .. } => Some(format!(
                "by hand: replace the text in angle brackets, then run: echo \"<what shows this holds: a test, a file, a command and its output>\" | majordomus knowledge {act} {id}"
            )),
            Refusal::TranscriptMarker { .. } => {
                Some("state the claim and its evidence in your own words, without chat role labels or template tokens".into())
            }
            Refusal::UnknownReplacement { .. } => Some("majordomus knowledge candidates".into()),
            Refusal::HookNeedsHand { fix, .. } => Some(fix.clone()),
            Refusal::UnknownTask { .. } => Some(
                "leave out --task (the record is stamped with the open episode alone)".into(),
            ),
            Refusal::Binding { note, .. } => Some(note.clone()),
            Refusal::PlanEdit { .. } => Some(
                "set the issue's `status: active` in its intent file by hand (the value is not on its key's line, or the issue is in flow style)".into(),
            ),
            Refusal::NoActiveTask => {
                Some("majordomus task start \"<what the task is>\"".into())
            }
            Refusal::NoHandover => Some("majordomus handover --derive".into()),
            Refusal::Reasoning { fix, .. } => Some(fix.clone()),
            Refusal::TaskActive { .. } => Some("majordomus task finish".into()),
            Refusal::BlockedWithoutReason => Some(
                "majordomus task finish --status blocked --reason \"<what blocks it>\"".into(),
            ),
            Refusal::RecallPathOutside { fix, .. }
            | Refusal::CitedFileOutside { fix, .. }
            | Refusal::CitedFileMissing { fix, .. }
            | Refusal::RecallUnknownTask { fix, .. }
            | Refusal::RecallUnknownIssue { fix, .. } => Some(fix.clone()),
            Refusal::UnknownRecord { .. } => {
                Some("majordomus recall".into())
            }
            Refusal::TooLarge { limit, .. } => Some(format!(
                "shorten it to {limit} bytes or less; put a long text in a file under version control and refer to it"
            )),
            Refusal::SetupFile { fix, .. } | Refusal::RecordsIgnored { fix, .. } => {
                Some(fix.clone())
            }
            Refusal::IdShape { kind, .. } => Some(match *kind {
                "episode" => "majordomus history --event session.opened".into(),
                "knowledge" => "majordomus knowledge candidates".into(),
                "question" => "majordomus history --event question.asked".into(),
                "task" => "majordomus task list".into(),
                _ => "majordomus history".into(),
            }),
        }
    }
}

impl UsageError {
    fn rule(&self) -> &'static str {
        match self {
            UsageError::InvalidSince { .. } => "history.since",
            UsageError::UnknownEvent { .. } => "history.event",
            UsageError::InvalidLimit { .. } => "recall.limit",
            UsageError::InvalidClock { .. } => "usage",
            UsageError::InvalidRequest { .. } => "request.valid",
            UsageError::UnknownOperation { .. } => "request.operation",
            UsageError::NotUtf8 { .. } | UsageError::ArgumentNotUtf8 { .. } => "input.utf8",
            UsageError::HandoverFile { .. } => "handover.file",
            UsageError::PromoteFileAlone { .. } => "usage",
            UsageError::Arguments(_) => "usage",
            UsageError::ListenWithoutTokenFile => "serve.token-file",
        }
    }

    fn fix(&self) -> Option<String> {
        match self {
            UsageError::InvalidSince { .. } => {
                Some("use RFC 3339 (2026-11-30T10:00:00Z) or a date (2026-11-30)".into())
            }
            UsageError::InvalidLimit { max, .. } => {
                Some(format!("give --limit a number from 1 to {max}"))
            }
            UsageError::UnknownEvent { .. } => Some(format!(
                "use one of: {}",
                crate::model::Event::ALL.map(|e| e.name()).join(", ")
            )),
            UsageError::InvalidClock { .. } => {
                Some("unset MAJORDOMUS_NOW, or set it like 2026-11-30T10:00:00Z".into())
            }
            UsageError::InvalidRequest { operation, .. } => {
                Some(format!("majordomus schema --operation {operation}"))
            }
            UsageError::UnknownOperation { .. } => Some("majordomus schema".into()),
            UsageError::Arguments(_) => Some("majordomus --help".into()),
            UsageError::ListenWithoutTokenFile => Some(
                "head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \\n' > ~/.majordomus-token && majordomus serve --listen 0.0.0.0:7788 --token-file ~/.majordomus-token".into(),
            ),
            UsageError::HandoverFile { fix, .. } => Some((*fix).into()),
            UsageError::PromoteFileAlone { fix } => Some(fix.clone()),
            UsageError::NotUtf8 { .. } => Some(
                "give the text as UTF-8 (e.g. `iconv -t UTF-8 < file | majordomus ...`)".into(),
            ),
            UsageError::ArgumentNotUtf8 { argument, .. } => Some(format!(
                "give {argument} as UTF-8: majordomus records paths and text as UTF-8, so a file whose name is not must be renamed first (git mv <old name> <UTF-8 name>) and given by its new name"
            )),
        }
    }
}

impl PolicyError {
    /// The rule a policy error names.
    pub fn rule(&self) -> &'static str {
        match self {
            PolicyError::Malformed { .. } => "policy.readable",
            PolicyError::UnknownKey { .. } => "policy.known-keys",
            PolicyError::InvalidValue { .. } => "policy.value",
            PolicyError::SectionWithoutWriter { .. } => "policy.record-section-writer",
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
            PolicyError::SectionWithoutWriter { file, key, name } => Some(format!(
                "remove `{name}` from {key} in {file} (sections with a writer: {})",
                if key == "handover.sections" {
                    crate::model::policy::HandoverSection::ALL
                        .map(|s| s.name())
                        .join(", ")
                } else {
                    crate::model::compose::Section::ALL
                        .map(|s| s.name())
                        .join(", ")
                }
            )),
        }
    }
}

impl From<crate::model::input::TooLarge> for Refusal {
    fn from(t: crate::model::input::TooLarge) -> Refusal {
        Refusal::TooLarge {
            what: t.what,
            bytes: t.bytes,
            limit: t.limit,
        }
    }
}

impl From<crate::model::input::TooLarge> for Error {
    fn from(t: crate::model::input::TooLarge) -> Error {
        Error::Refused(t.into())
    }
}

impl Refusal {
    /// Refuses `id` unless it has the shape of a `kind` id (SPEC §0: ids never become
    /// paths unchecked).
    pub fn check_id(kind: crate::model::ids::IdKind, id: &str) -> Result<(), Refusal> {
        if kind.accepts(id) {
            Ok(())
        } else {
            Err(Refusal::IdShape {
                kind: kind.name(),
                id: id.to_owned(),
                example: kind.example(),
            })
        }
    }
}

impl Error {
    /// Usage, refused or failed (SPEC §10).
    pub fn class(&self) -> Class {
        match self {
            Error::Usage(_) => Class::Usage,
            Error::Git(
                GitError::UnknownBranch { .. }
                | GitError::InvalidBranchName { .. }
                | GitError::NoSuchDirectory { .. },
            ) => Class::Usage,
            Error::Refused(_) => Class::Refused,
            Error::Journal(j) if j.usage() => Class::Usage,
            Error::Journal(j) if j.refused() => Class::Refused,
            Error::Journal(_) => Class::Failed,
            Error::Review(r) if r.usage() => Class::Usage,
            Error::Review(_) => Class::Refused,
            Error::End(_) => Class::Refused,
            Error::Mesh(m) if m.usage() => Class::Usage,
            Error::Mesh(m) if m.refused() => Class::Refused,
            Error::Mesh(_) => Class::Failed,
            // Malformed YAML is a file that cannot be read; a key the policy does not know
            // or a value it does not accept is a rule saying no.
            Error::Policy(PolicyError::Malformed { .. }) => Class::Failed,
            Error::Policy(_) => Class::Refused,
            Error::Store(StoreError::IdShape { .. }) => Class::Refused,
            Error::Git(_) | Error::Store(_) | Error::Interrupted { .. } => Class::Failed,
        }
    }

    /// The rule that refused, or the kind of failure.
    pub fn rule(&self) -> &'static str {
        match self {
            Error::Refused(r) => r.rule(),
            Error::Journal(j) => j.rule(),
            Error::Review(r) => r.rule(),
            Error::End(e) => e.rule(),
            Error::Mesh(m) => m.rule(),
            Error::Usage(u) => u.rule(),
            Error::Policy(p) => p.rule(),
            Error::Git(GitError::UnknownBranch { .. } | GitError::NoSuchDirectory { .. }) => {
                "usage"
            }
            Error::Git(GitError::InvalidBranchName { .. }) => "branch.name",
            Error::Git(_) => "git",
            Error::Store(StoreError::EpisodeUnreadable { .. }) => "state.episode-unreadable",
            Error::Store(StoreError::IdShape { .. }) => "id.shape",
            Error::Store(_) => "io",
            Error::Interrupted { .. } => "interrupted",
        }
    }

    /// A command (or, where none exists, what to do by hand) that would get past this.
    pub fn fix(&self) -> Option<String> {
        match self {
            Error::Refused(r) => r.fix(),
            Error::Journal(j) => j.fix(),
            Error::Review(r) => r.fix(),
            Error::End(e) => Some(e.fix()),
            Error::Mesh(m) => m.fix(),
            Error::Usage(u) => u.fix(),
            Error::Policy(p) => p.fix(),
            Error::Git(GitError::NotARepository { .. }) => {
                Some("run inside a git work tree, or `git init` one".into())
            }
            Error::Git(GitError::UnknownBranch { .. } | GitError::InvalidBranchName { .. }) => {
                Some("git branch --list".into())
            }
            Error::Git(GitError::NoSuchDirectory { .. }) => {
                Some("give -C a directory that exists (or leave it out)".into())
            }
            // The message says the unreadable file is kept aside by `--replace`.
            Error::Store(StoreError::EpisodeUnreadable { .. }) => {
                Some("majordomus session start --replace".into())
            }
            Error::Store(StoreError::IdShape { kind, .. }) => Refusal::IdShape {
                kind,
                id: String::new(),
                example: "",
            }
            .fix(),
            Error::Interrupted { fix, .. } => Some(fix.clone()),
            Error::Git(_) | Error::Store(_) => None,
        }
    }

    /// The error as every surface reports it.
    pub fn report(&self) -> ErrorReport {
        ErrorReport {
            class: self.class(),
            rule: self.rule().to_owned(),
            message: self.to_string(),
            fix: self.fix(),
        }
    }
}

/// An error as surfaces show it: `{class, rule, message, fix}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ErrorReport {
    pub class: Class,
    pub rule: String,
    pub message: String,
    pub fix: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fix that is a command is only the command: sh runs it exactly as printed, so no
    /// explanation in parentheses trails it (the explanation is in the message).
    #[test]
    fn a_fix_that_is_a_command_is_nothing_but_the_command() {
        let mut errors: Vec<Error> = vec![
            Refusal::NotInitialised { root: "/r".into() }.into(),
            Refusal::NoOpenEpisode.into(),
            Refusal::UnknownQuestion { id: "q-1".into() }.into(),
            Refusal::UnknownRecord {
                reference: "knowledge:k".into(),
            }
            .into(),
            Refusal::BlockedWithoutReason.into(),
            UsageError::UnknownOperation {
                name: "decision.make".into(),
            }
            .into(),
            StoreError::EpisodeUnreadable {
                path: ".ai/local/state/episode.json".into(),
                message: "not JSON".into(),
            }
            .into(),
        ];
        for kind in ["episode", "knowledge", "question", "task", "record"] {
            errors.push(
                Refusal::IdShape {
                    kind,
                    id: "../x".into(),
                    example: "",
                }
                .into(),
            );
        }
        for error in errors {
            let fix = error.report().fix.expect("a fix");
            if fix.starts_with("majordomus ") {
                assert!(
                    !fix.contains(" ("),
                    "{error}: fix {fix:?} is not only a command"
                );
            }
        }
    }
}
