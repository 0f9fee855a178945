//! The rows that go into the index and come out of it: a document as written and as read,
//! an episode, a task, a staleness judgement kept, and the columns a read filters on.

use std::collections::HashMap;

/// One document as it goes into the index.
#[derive(Debug, Clone, Default)]
pub struct NewDoc {
    pub kind: &'static str,
    pub key: String,
    /// `file:<rel path>` or `ledger`.
    pub source: String,
    pub status: &'static str,
    pub line: String,
    pub text: String,
    pub date: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub superseded_by: Option<String>,
    /// For a ledger line: the knowledge record id its derivation has.
    pub derives: Option<String>,
    /// For a knowledge record: candidates, curated or outbox.
    pub place: Option<&'static str>,
    /// For a ledger line: its byte offset.
    pub offset: Option<u64>,
    /// The tokens of the head (title, one line) and of the rest, space-joined.
    pub head_tokens: String,
    pub body_tokens: String,
    /// The tokens of what a record says beside its claim (a knowledge record's `# Evidence`,
    /// `# Rejected`, `# Superseded`), space-joined: searched, but never ranked above a
    /// claim that holds the same word (docs/KNOWLEDGE.md, "Evidence answers for no one").
    pub evidence_tokens: String,
    /// Paths the record cites (`file:`/`test:`, evidence).
    pub refs: Vec<String>,
}

/// One document as a read returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocRow {
    pub id: i64,
    pub kind: String,
    pub key: String,
    pub source: String,
    pub status: String,
    pub line: String,
    pub text: String,
    pub date: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub superseded_by: Option<String>,
    pub derives: Option<String>,
    pub place: Option<String>,
    pub offset: Option<i64>,
    /// The branch its episode ran on (its session record's, else its `session.opened`
    /// line's), kept current as records arrive.
    pub branch: Option<String>,
    /// A decision or an answer whose record (`derives`) is indexed too, and folded into
    /// it: kept by the writes, so a search looks up only these records.
    pub folded: bool,
    /// When it was recorded, for "newest first": a ledger line's time; a curated record's
    /// promotion as the ledger or a journal recorded it, else its date; a session record's
    /// close; a handover's and a conclusion's time.
    pub ts: String,
}

/// Every column but the text, which is read for the records shown only.
pub(super) const DOC_COLUMNS: &str = "id, kind, key, source, status, line, '' AS text, date, episode, task, issue, intent, superseded_by, derives, place, offset, branch, folded, ts";

pub(super) fn doc_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocRow> {
    Ok(DocRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        key: r.get(2)?,
        source: r.get(3)?,
        status: r.get(4)?,
        line: r.get(5)?,
        text: r.get(6)?,
        date: r.get(7)?,
        episode: r.get(8)?,
        task: r.get(9)?,
        issue: r.get(10)?,
        intent: r.get(11)?,
        superseded_by: r.get(12)?,
        derives: r.get(13)?,
        place: r.get(14)?,
        offset: r.get(15)?,
        branch: r.get(16)?,
        folded: r.get::<_, i64>(17)? != 0,
        ts: r.get(18)?,
    })
}

/// A staleness judgement kept for a curated file: what its verifying commit held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedAt {
    /// The curated file's blob id at HEAD when this was worked out.
    pub blob: String,
    pub commit: String,
    pub subject: String,
    /// Each cited path's blob id in the verifying commit (absent: it did not hold it).
    pub targets: HashMap<String, String>,
    /// The id of the tree of the file's directory at HEAD when `blob` was read: while
    /// HEAD's directory is that very tree, `blob` is still the file's blob at HEAD.
    pub tree: String,
}

/// An episode as the index knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpisodeRow {
    pub branch: Option<String>,
    pub files: usize,
    /// A session record told it (not only the ledger).
    pub from_record: bool,
}

/// A task as its `task.started` line named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    pub task: String,
    pub episode: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub description: String,
    pub started: String,
    pub scope: Vec<String>,
}

/// The columns [`Reader::docs_where`] and [`Reader::tasks_with`] filter on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Episode,
    Task,
    Issue,
    Intent,
    Key,
    Derives,
}

impl Column {
    pub(super) fn name(self) -> &'static str {
        match self {
            Column::Episode => "episode",
            Column::Task => "task",
            Column::Issue => "issue",
            Column::Intent => "intent",
            Column::Key => "key",
            Column::Derives => "derives",
        }
    }
}

pub(super) fn json_ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).expect("integers serialise")
}
