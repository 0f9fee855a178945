//! The ledger index (SPEC §3, "reads cost what they show"): derived from the ledger and
//! never authoritative, it maps ids to ledger positions and keeps a few folds, so that a
//! read of one episode, question, task or event seeks to its lines instead of scanning.
//!
//! On disk: `.ai/local/state/ledger-index.json`, the manifest (what the index covers,
//! checked against the ledger's length and a hash of its last line; the folds; the list of
//! segments), and `.ai/local/state/ledger-index/*.seg`, immutable binary segments of
//! postings (see [`segment`]). Every file is written by the one atomic writer (temp file
//! and rename; without fsync, since a torn file after a crash is simply rebuilt). A reader
//! whose ledger only grew parses the new bytes into a new segment (merged with the small
//! ones before it); anything else rebuilds from the first byte, and says so. Deleting the
//! index loses nothing. docs/LEDGER.md describes it for readers.

mod build;
mod files;
mod segment;

use build::*;
use files::*;

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use self::segment::{Segment, SegmentFile};
use super::ledger::{Rewritten, Skipped, scan_file, unreadable_reason};
use super::{Layout, Ledger, StoreError, write_atomic_derived};
use crate::model::event::{
    KnowledgeDerived, LedgerPruned, ProviderEventCleared, ProviderEventFailed, QuestionAsked,
    QuestionResolved, SessionClosed, SessionOpened, TaskFinished, TaskStatus,
};
use crate::model::question::LedgerQuestion;
use crate::model::{Event, LedgerLine, LineDraft};

/// The manifest's format; a manifest of another format is rebuilt.
const FORMAT: u32 = 2;
/// A new segment absorbs the one before it while that one is at most this many times
/// heavier: segments shrink geometrically towards the end, so there are few of them.
const MERGE_FACTOR: u64 = 4;
/// Unreadable lines remembered by position (the count goes on).
const MAX_SKIPPED: usize = 1000;
/// Provider failures remembered, the newest (the count goes on).
const MAX_FAILURES: usize = 100;

/// Why the index was rebuilt from the ledger's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RebuildReason {
    /// There was no index (first use, or it was deleted).
    Missing,
    /// The manifest or a segment could not be read, or is of another format.
    Unreadable,
    /// The ledger is shorter than the index covers, or its line at the index's end differs:
    /// it was replaced, truncated or edited.
    Stale,
    /// A prune rewrote the ledger.
    Pruned,
}

/// A rebuild, as the results that use the index report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct IndexRebuilt {
    pub reason: RebuildReason,
    /// What was found, in words.
    pub detail: String,
    /// Ledger lines read to rebuild it.
    pub lines: u64,
}

/// What opening the index read from the ledger: nothing when it was fresh, the new bytes
/// when the ledger grew, everything on a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
pub struct IndexRead {
    /// First byte read.
    pub from: u64,
    /// One past the last byte indexed (a line end).
    pub to: u64,
    /// Lines parsed.
    pub lines: u64,
}

/// A ledger moment: which episode, when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    pub episode: Option<String>,
    pub ts: String,
}

/// A `session.closed` line: its episode, when, and `knowledge_on_end` as the close saw it
/// (`None` when its data does not read as a close).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedMoment {
    pub episode: Option<String>,
    pub ts: String,
    pub knowledge_on_end: Option<bool>,
    /// It closed empty (SPEC §3.2): nothing to derive.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empty: bool,
}

/// A `provider.event.failed` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderFailure {
    pub seq: u64,
    pub ts: String,
    pub hook: String,
    pub provider: String,
    pub error: String,
}

/// An episode as the ledger knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpisodeEntry {
    pub id: String,
    /// Byte offset of its `session.opened` line.
    pub opened: Option<u64>,
    /// Its last `session.closed` line.
    pub closed: Option<ClosedMoment>,
    /// A `knowledge.derived` line names it.
    pub derived: bool,
}

/// A task as the ledger knows it: its `task.started`, and how it finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEntry {
    pub id: String,
    /// The episode its `task.started` line is stamped with.
    pub episode: Option<String>,
    pub started: String,
    pub status: Option<TaskStatus>,
}

/// Unreadable lines: the ones remembered by position, and how many there are in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkippedLines {
    pub lines: Vec<Skipped>,
    pub total: u64,
}

/// Which lines [`LedgerIndex::lines`] returns: every filter given must match.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineQuery<'a> {
    pub session: Option<&'a str>,
    pub event: Option<Event>,
    pub since: Option<OffsetDateTime>,
}

/// Where the first `knowledge.derived` line naming a candidate is: its time, its `seq`, and
/// the place of the candidate among the line's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedAt {
    pub ts: String,
    pub seq: u64,
    pub position: usize,
}

/// The index of one ledger, checked against it and brought up to its end.
#[derive(Debug)]
pub struct LedgerIndex {
    paths: Paths,
    /// The ledger file the index was checked against; every line is read through it, so
    /// a ledger replaced meanwhile (a prune) is never read at this index's offsets.
    ledger: Option<File>,
    manifest: Manifest,
    segments: Vec<SegmentFile>,
    rebuilt: Option<IndexRebuilt>,
    read: IndexRead,
}

#[derive(Debug, Clone)]
struct Paths {
    ledger: PathBuf,
    manifest: PathBuf,
    dir: PathBuf,
}

impl Paths {
    fn new(layout: &Layout) -> Paths {
        Paths {
            ledger: layout.ledger(),
            manifest: layout.ledger_index(),
            dir: layout.ledger_index_dir(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// The event names in code order: a posting's low byte is an index into it.
    events: String,
    /// Names this build of the index's segments, so a rebuild never reuses a name.
    generation: String,
    /// Bytes indexed: through the last newline read.
    covered: u64,
    /// Newline-terminated lines in those bytes.
    lines: u64,
    /// The last indexed line, to check the ledger still has it where it was.
    tail: Option<Tail>,
    segments: Vec<SegmentRef>,
    folds: Folds,
    /// The cutoff of the last retention pass (see `session close`).
    #[serde(default)]
    retention_checked: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Tail {
    start: u64,
    sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SegmentRef {
    file: String,
    start: u64,
    end: u64,
    weight: u64,
    max_ts: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct OpenQuestion {
    id: String,
    text: String,
    session: Option<String>,
    asked: String,
}

/// What the index keeps folded, line by line, besides positions.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Folds {
    /// In asking order.
    open_questions: Vec<OpenQuestion>,
    /// The last `session.closed` line.
    last_closed: Option<ClosedMoment>,
    /// The last `session.closed` line with an episode and a readable close.
    last_episode_closed: Option<ClosedMoment>,
    /// The last `knowledge.derived` line.
    last_derived: Option<Moment>,
    /// Some `knowledge.derived` line names an episode.
    any_episode_derived: bool,
    provider_failures: VecDeque<ProviderFailure>,
    provider_failures_total: u64,
    skipped: Vec<Skipped>,
    skipped_total: u64,
}

impl Folds {
    fn visit(&mut self, line: &LedgerLine) {
        match line.event {
            Event::QuestionAsked => {
                if let Some(q) = line.payload::<QuestionAsked>() {
                    self.open_questions.push(OpenQuestion {
                        id: q.id,
                        text: q.text,
                        session: line.session.clone(),
                        asked: line.ts.clone(),
                    });
                }
            }
            Event::QuestionResolved => {
                if let Some(r) = line.payload::<QuestionResolved>()
                    && let Some(i) = self.open_questions.iter().rposition(|q| q.id == r.id)
                {
                    self.open_questions.remove(i);
                }
            }
            Event::SessionClosed => {
                let closed = line.payload::<SessionClosed>();
                let moment = ClosedMoment {
                    episode: line.session.clone(),
                    ts: line.ts.clone(),
                    knowledge_on_end: closed.as_ref().map(|c| c.knowledge_on_end),
                    empty: closed.as_ref().is_some_and(|c| c.empty),
                };
                if line.session.is_some() && closed.is_some() {
                    self.last_episode_closed = Some(moment.clone());
                }
                self.last_closed = Some(moment);
            }
            Event::KnowledgeDerived => {
                self.any_episode_derived |= line.session.is_some();
                self.last_derived = Some(Moment {
                    episode: line.session.clone(),
                    ts: line.ts.clone(),
                });
            }
            Event::ProviderEventFailed => {
                let failed = line.payload::<ProviderEventFailed>().unwrap_or_default();
                self.provider_failures.push_back(ProviderFailure {
                    seq: line.seq,
                    ts: line.ts.clone(),
                    hook: failed.hook,
                    provider: failed.provider,
                    error: failed.error,
                });
                if self.provider_failures.len() > MAX_FAILURES {
                    self.provider_failures.pop_front();
                }
                self.provider_failures_total += 1;
            }
            Event::ProviderEventCleared => {
                let Some(cleared) = line.payload::<ProviderEventCleared>() else {
                    return;
                };
                let before = self.provider_failures.len();
                self.provider_failures
                    .retain(|f| !cleared.clears(f.seq, &f.hook, &f.provider));
                let removed = (before - self.provider_failures.len()) as u64;
                self.provider_failures_total =
                    if cleared.hook.is_none() && cleared.provider.is_none() {
                        // Everything up to `through` is cleared, the failures no longer
                        // listed among the newest included.
                        self.provider_failures
                            .iter()
                            .filter(|f| f.seq > cleared.through)
                            .count() as u64
                    } else {
                        self.provider_failures_total.saturating_sub(removed)
                    };
            }
            _ => {}
        }
    }

    fn skip(&mut self, skipped: Skipped) {
        if self.skipped.len() < MAX_SKIPPED {
            self.skipped.push(skipped);
        }
        self.skipped_total += 1;
    }
}

/// What a posting is filed under; hashed (FNV-1a, 64 bits) into the posting's key. Two ids
/// may share a hash: every reader checks the lines it reads, so that only costs a read.
#[derive(Debug, Clone, Copy)]
enum Key<'a> {
    /// Every line stamped with the episode.
    Session(&'a str),
    /// The episode's `session.opened`, `session.closed` and `knowledge.derived` lines.
    Lifecycle(&'a str),
    /// Every line of the event.
    Event(Event),
    /// `question.asked` and `question.resolved` lines of the question.
    Question(&'a str),
    /// Every line stamped with the task.
    Task(&'a str),
    /// `knowledge.derived` lines naming a candidate of this file name.
    Derived(&'a str),
    /// `session.opened` lines of an agent client's conversation (its key).
    Conversation(&'a str),
}

impl Key<'_> {
    fn hash(self) -> u64 {
        let code = [match self {
            Key::Event(e) => code(e),
            _ => 0,
        }];
        let (tag, id): (u8, &[u8]) = match self {
            Key::Session(s) => (b'S', s.as_bytes()),
            Key::Lifecycle(s) => (b'L', s.as_bytes()),
            Key::Event(_) => (b'E', &code),
            Key::Question(q) => (b'Q', q.as_bytes()),
            Key::Task(t) => (b'T', t.as_bytes()),
            Key::Derived(d) => (b'D', d.as_bytes()),
            Key::Conversation(c) => (b'C', c.as_bytes()),
        };
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in std::iter::once(&tag).chain(id) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }
}

/// An event's code: its place in [`Event::ALL`]; `unknown` is 255.
fn code(event: Event) -> u8 {
    Event::ALL
        .iter()
        .position(|e| *e == event)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(u8::MAX)
}

fn event_table() -> String {
    Event::ALL.map(Event::name).join(",")
}

fn posting(offset: u64, event: Event) -> u64 {
    (offset << 8) | u64::from(code(event))
}

fn offset_of(value: u64) -> u64 {
    value >> 8
}

fn code_of(value: u64) -> u8 {
    (value & 0xff) as u8
}

/// The file name of a candidate path, which names it across the outbox and the tree.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A line's time as Unix seconds, rounded up (so a block's maximum never undershoots).
fn ts_seconds(ts: &str) -> Option<i64> {
    crate::model::time::parse(ts).map(seconds_up)
}

fn seconds_up(at: OffsetDateTime) -> i64 {
    at.unix_timestamp() + i64::from(at.nanosecond() > 0)
}

impl LedgerIndex {
    /// The index of the repository's ledger, brought up to the ledger's end: read as it is
    /// when fresh, extended with the new lines when the ledger only grew, rebuilt (and
    /// [`rebuilt`](Self::rebuilt) says why) when it is missing, unreadable or stale.
    pub fn open(layout: &Layout) -> Result<LedgerIndex, StoreError> {
        LedgerIndex::open_paths(Paths::new(layout))
    }

    /// The provider failures the index knew of when it was last brought up to date, and
    /// the ledger offset it covers, from its manifest alone: no lock, no catch-up, no write
    /// (a hook that only asks whether it has a failure to clear must not pay for a segment
    /// and a manifest each run). `None` without a readable manifest.
    pub fn peek_provider_failures(layout: &Layout) -> Option<(Vec<ProviderFailure>, u64)> {
        let manifest = read_manifest(&Paths::new(layout)).ok()?;
        Some((
            manifest.folds.provider_failures.iter().cloned().collect(),
            manifest.covered,
        ))
    }

    /// [`LedgerIndex::open`] for a ledger file elsewhere (a fetched journal materialized
    /// under `.ai/local/journals/`), its manifest and segments at the paths given.
    pub fn open_at(ledger: &Path, manifest: &Path, dir: &Path) -> Result<LedgerIndex, StoreError> {
        LedgerIndex::open_paths(Paths {
            ledger: ledger.to_owned(),
            manifest: manifest.to_owned(),
            dir: dir.to_owned(),
        })
    }

    fn open_paths(paths: Paths) -> Result<LedgerIndex, StoreError> {
        // The common case takes no lock and writes nothing.
        let Some(file) = open_ledger(&paths.ledger)? else {
            return Ok(LedgerIndex::empty(paths, None));
        };
        let len = file
            .metadata()
            .map_err(|e| StoreError::io(&paths.ledger, e))?
            .len();
        if len == 0 {
            return Ok(LedgerIndex::empty(paths, Some(file)));
        }
        if let Ok(manifest) = read_manifest(&paths)
            && let Check::Fresh(segments) = check(&paths, &manifest, &file, len)?
        {
            return Ok(LedgerIndex::fresh(paths, file, manifest, segments));
        }

        let _lock = WriterLock::acquire(&paths)?;
        // Another writer may have extended or rebuilt it while this one waited, or a prune
        // replaced the ledger: look again.
        let Some(file) = open_ledger(&paths.ledger)? else {
            return Ok(LedgerIndex::empty(paths, None));
        };
        let len = settled_len(&file, &paths.ledger)?;
        let (reason, detail) = match read_manifest(&paths) {
            Err(why) => why,
            Ok(manifest) => match check(&paths, &manifest, &file, len)? {
                Check::Fresh(segments) => {
                    return Ok(LedgerIndex::fresh(paths, file, manifest, segments));
                }
                Check::Grew => match LedgerIndex::extend(&paths, &file, manifest, len)? {
                    Ok(index) => return Ok(index),
                    Err(why) => why,
                },
                Check::Rebuild(reason, detail) => (reason, detail),
            },
        };
        LedgerIndex::rebuild(&paths, file, len, reason, detail, None)
    }

    fn empty(paths: Paths, ledger: Option<File>) -> LedgerIndex {
        LedgerIndex {
            paths,
            ledger,
            manifest: Manifest {
                format: FORMAT,
                events: event_table(),
                generation: String::new(),
                covered: 0,
                lines: 0,
                tail: None,
                segments: Vec::new(),
                folds: Folds::default(),
                retention_checked: None,
            },
            segments: Vec::new(),
            rebuilt: None,
            read: IndexRead::default(),
        }
    }

    fn fresh(
        paths: Paths,
        file: File,
        manifest: Manifest,
        segments: Vec<SegmentFile>,
    ) -> LedgerIndex {
        let at = manifest.covered;
        LedgerIndex {
            paths,
            ledger: Some(file),
            manifest,
            segments,
            rebuilt: None,
            read: IndexRead {
                from: at,
                to: at,
                lines: 0,
            },
        }
    }

    /// Parses the ledger's new lines into a segment, merges it with the lighter segments
    /// before it, writes it and the manifest. `Err(why)` when an older segment cannot be
    /// read for the merge: the caller rebuilds.
    fn extend(
        paths: &Paths,
        file: &File,
        manifest: Manifest,
        len: u64,
    ) -> Result<Result<LedgerIndex, (RebuildReason, String)>, StoreError> {
        let from = manifest.covered;
        let mut builder = Builder::new(manifest.folds.clone(), manifest.lines, from);
        builder.read(file, &paths.ledger, from, len)?;
        let read = IndexRead {
            from,
            to: builder.segment.end,
            lines: builder.segment.lines,
        };
        let mut refs = manifest.segments.clone();
        let mut segment = std::mem::take(&mut builder.segment);
        while let Some(last) = refs.last()
            && last.weight <= MERGE_FACTOR * segment.weight().max(1)
        {
            match Segment::load(&paths.dir.join(&last.file)) {
                Ok(before) => segment = before.merge(segment),
                Err(e) => {
                    return Ok(Err((
                        RebuildReason::Unreadable,
                        format!("segment {}: {e}", last.file),
                    )));
                }
            }
            refs.pop();
        }
        refs.push(write_segment(paths, &manifest.generation, &segment)?);
        let manifest = Manifest {
            covered: read.to,
            lines: builder.lines,
            tail: builder.tail_ref().or(manifest.tail),
            segments: refs,
            folds: builder.folds,
            ..manifest
        };
        let segments = commit(paths, &manifest)?;
        Ok(Ok(LedgerIndex {
            paths: paths.clone(),
            ledger: Some(
                file.try_clone()
                    .map_err(|e| StoreError::io(&paths.ledger, e))?,
            ),
            manifest,
            segments,
            rebuilt: None,
            read,
        }))
    }

    /// Reads the whole ledger into a new index of one segment.
    fn rebuild(
        paths: &Paths,
        file: File,
        len: u64,
        reason: RebuildReason,
        detail: String,
        retention_checked: Option<String>,
    ) -> Result<LedgerIndex, StoreError> {
        let mut builder = Builder::new(Folds::default(), 0, 0);
        builder.read(&file, &paths.ledger, 0, len)?;
        let generation = generation();
        let segment = std::mem::take(&mut builder.segment);
        let read = IndexRead {
            from: 0,
            to: segment.end,
            lines: segment.lines,
        };
        let refs = vec![write_segment(paths, &generation, &segment)?];
        let manifest = Manifest {
            format: FORMAT,
            events: event_table(),
            generation,
            covered: read.to,
            lines: builder.lines,
            tail: builder.tail_ref(),
            segments: refs,
            folds: builder.folds,
            retention_checked,
        };
        let segments = commit(paths, &manifest)?;
        Ok(LedgerIndex {
            paths: paths.clone(),
            ledger: Some(file),
            manifest,
            segments,
            rebuilt: Some(IndexRebuilt {
                reason,
                detail,
                lines: read.lines,
            }),
            read,
        })
    }

    /// Set when opening rebuilt the index; the results that use it report this.
    pub fn rebuilt(&self) -> Option<&IndexRebuilt> {
        self.rebuilt.as_ref()
    }

    /// What opening read from the ledger.
    pub fn read(&self) -> IndexRead {
        self.read
    }

    /// Bytes of the ledger the index covers (through its last complete line).
    pub fn covered(&self) -> u64 {
        self.manifest.covered
    }

    /// The questions no `question.resolved` answers, in asking order.
    pub fn open_questions(&self) -> Vec<LedgerQuestion> {
        self.manifest
            .folds
            .open_questions
            .iter()
            .map(|q| LedgerQuestion {
                id: q.id.clone(),
                text: q.text.clone(),
                session: q.session.clone(),
                asked: q.asked.clone(),
                answer: None,
            })
            .collect()
    }

    /// The last `session.closed` line.
    pub fn last_closed(&self) -> Option<&ClosedMoment> {
        self.manifest.folds.last_closed.as_ref()
    }

    /// The last `session.closed` line that names its episode and reads as a close.
    pub fn last_episode_closed(&self) -> Option<&ClosedMoment> {
        self.manifest.folds.last_episode_closed.as_ref()
    }

    /// The last `knowledge.derived` line.
    pub fn last_derived(&self) -> Option<&Moment> {
        self.manifest.folds.last_derived.as_ref()
    }

    /// Some `knowledge.derived` line names an episode.
    pub fn any_episode_derived(&self) -> bool {
        self.manifest.folds.any_episode_derived
    }

    /// The newest `provider.event.failed` lines (at most 100), and how many there are.
    pub fn provider_failures(&self) -> (Vec<ProviderFailure>, u64) {
        let f = &self.manifest.folds;
        (
            f.provider_failures.iter().cloned().collect(),
            f.provider_failures_total,
        )
    }

    /// The unreadable lines (the first 1000 by position, and the count), and a torn last
    /// line if the ledger ends in one.
    pub fn skipped(&self) -> Result<SkippedLines, StoreError> {
        let folds = &self.manifest.folds;
        let mut out = SkippedLines {
            lines: folds.skipped.clone(),
            total: folds.skipped_total,
        };
        if let Some(file) = &self.ledger {
            let io = |e| StoreError::io(&self.paths.ledger, e);
            let len = settled_len(file, &self.paths.ledger)?;
            let covered = self.manifest.covered;
            if len > covered && !has_newline(file, covered, len).map_err(io)? {
                out.lines
                    .push(Skipped::torn(covered, Some(self.manifest.lines + 1)));
                out.total += 1;
            }
        }
        Ok(out)
    }

    /// The values posted under `key`, in ledger order.
    fn postings(&self, key: Key<'_>) -> Result<Vec<u64>, StoreError> {
        let hash = key.hash();
        let mut out = Vec::new();
        for (file, s) in self.segments.iter().zip(&self.manifest.segments) {
            file.postings(hash, &mut out)
                .map_err(|e| StoreError::io(&self.paths.dir.join(&s.file), e))?;
        }
        Ok(out)
    }

    /// The lines at `offsets` (ascending), read through the file the index was checked
    /// against; a line that does not read is left out.
    fn read_at(&self, offsets: &[u64]) -> Result<Vec<LedgerLine>, StoreError> {
        let Some(file) = &self.ledger else {
            return Ok(Vec::new());
        };
        let io = |e| StoreError::io(&self.paths.ledger, e);
        let mut reader = BufReader::with_capacity(64 * 1024, file);
        let mut pos: Option<u64> = None;
        let mut buf = Vec::with_capacity(512);
        let mut out = Vec::with_capacity(offsets.len());
        for &at in offsets {
            match pos {
                Some(p) if at >= p && at - p < 64 * 1024 => {
                    reader.seek_relative((at - p) as i64).map_err(io)?;
                }
                _ => {
                    reader.seek(SeekFrom::Start(at)).map_err(io)?;
                }
            }
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
            pos = Some(at + n as u64);
            if n == 0 || buf.last() != Some(&b'\n') {
                continue;
            }
            if let Ok(line) = serde_json::from_slice::<LedgerLine>(&buf[..n - 1]) {
                out.push(line);
            }
        }
        Ok(out)
    }

    /// The lines posted under `key` whose event is one of `events` (all when empty),
    /// from byte `from` on.
    fn lines_under(
        &self,
        key: Key<'_>,
        events: &[Event],
        from: u64,
    ) -> Result<Vec<LedgerLine>, StoreError> {
        let codes: Vec<u8> = events.iter().map(|e| code(*e)).collect();
        let mut offsets: Vec<u64> = self
            .postings(key)?
            .into_iter()
            .filter(|v| codes.is_empty() || codes.contains(&code_of(*v)))
            .map(offset_of)
            .filter(|o| *o >= from)
            .collect();
        offsets.dedup();
        let lines = self.read_at(&offsets)?;
        Ok(lines
            .into_iter()
            .filter(|l| events.is_empty() || events.contains(&l.event))
            .collect())
    }

    /// The newest line of `event`: its postings listed, then only that line read (a line
    /// that does not read is passed over for the one before it).
    pub fn last_of(&self, event: Event) -> Result<Option<LedgerLine>, StoreError> {
        let c = code(event);
        let mut offsets: Vec<u64> = self
            .postings(Key::Event(event))?
            .into_iter()
            .filter(|v| code_of(*v) == c)
            .map(offset_of)
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        while let Some(at) = offsets.pop() {
            if let Some(line) = self.read_at(&[at])?.into_iter().find(|l| l.event == event) {
                return Ok(Some(line));
            }
        }
        Ok(None)
    }

    /// The episode `id` as its `session.opened`, `session.closed` and `knowledge.derived`
    /// lines show it; `None` when the ledger has none of them.
    pub fn episode(&self, id: &str) -> Result<Option<EpisodeEntry>, StoreError> {
        let offsets: Vec<u64> = self
            .postings(Key::Lifecycle(id))?
            .into_iter()
            .map(offset_of)
            .collect();
        let mut entry = EpisodeEntry {
            id: id.to_owned(),
            opened: None,
            closed: None,
            derived: false,
        };
        let mut found = false;
        for (at, line) in offsets.iter().zip(self.read_at(&offsets)?) {
            if line.session.as_deref() != Some(id) {
                continue;
            }
            found = true;
            match line.event {
                Event::SessionOpened => {
                    entry.opened.get_or_insert(*at);
                }
                Event::SessionClosed => {
                    let closed = line.payload::<SessionClosed>();
                    entry.closed = Some(ClosedMoment {
                        episode: line.session.clone(),
                        knowledge_on_end: closed.as_ref().map(|c| c.knowledge_on_end),
                        empty: closed.as_ref().is_some_and(|c| c.empty),
                        ts: line.ts,
                    })
                }
                Event::KnowledgeDerived => entry.derived = true,
                _ => {}
            }
        }
        Ok(found.then_some(entry))
    }

    /// The episodes opened for the agent client's conversation `key` (SPEC §8: a resumed
    /// conversation keeps what it was shown), oldest first.
    pub fn conversation_episodes(&self, key: &str) -> Result<Vec<String>, StoreError> {
        Ok(self
            .lines_under(Key::Conversation(key), &[Event::SessionOpened], 0)?
            .into_iter()
            .filter(|l| {
                l.payload::<crate::model::event::SessionOpened>()
                    .and_then(|o| o.conversation)
                    .as_deref()
                    == Some(key)
            })
            .filter_map(|l| l.session)
            .collect())
    }

    /// The records every `context.shown` line of `episode` lists (`kind:id`), each once, in
    /// the order they were first shown.
    pub fn shown_in(
        &self,
        episode: &str,
    ) -> Result<Vec<crate::model::event::ShownItem>, StoreError> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for line in self.lines_under(Key::Session(episode), &[Event::ContextShown], 0)? {
            if line.session.as_deref() != Some(episode) {
                continue;
            }
            if let Some(shown) = line.payload::<crate::model::event::ContextShown>() {
                for item in shown.records {
                    if seen.insert(item.id.clone()) {
                        out.push(item);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Of `ids`, those a `session.opened` line of this ledger names.
    pub fn opened_episodes<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashSet<String>, StoreError> {
        let mut out = HashSet::new();
        for id in ids.into_iter().collect::<HashSet<_>>() {
            if !out.contains(id)
                && self
                    .lines_under(Key::Lifecycle(id), &[Event::SessionOpened], 0)?
                    .iter()
                    .any(|l| l.session.as_deref() == Some(id))
            {
                out.insert(id.to_owned());
            }
        }
        Ok(out)
    }

    /// Of `ids`, those a `session.opened` line of this ledger names, each with the branch
    /// it opened on (`None`: a detached HEAD).
    pub fn opened_branches<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashMap<String, Option<String>>, StoreError> {
        let mut out = HashMap::new();
        for id in ids.into_iter().collect::<HashSet<_>>() {
            if let Some(opened) = self
                .lines_under(Key::Lifecycle(id), &[Event::SessionOpened], 0)?
                .into_iter()
                .find(|l| l.session.as_deref() == Some(id))
            {
                let branch = opened
                    .payload::<crate::model::event::SessionOpened>()
                    .and_then(|o| o.branch);
                out.insert(id.to_owned(), branch);
            }
        }
        Ok(out)
    }

    /// The task `id`: its first `task.started` line and its last `task.finished`.
    pub fn task(&self, id: &str) -> Result<Option<TaskEntry>, StoreError> {
        // A line whose task is not a task id names no task (SPEC §0): `--task ../x` never
        // resolves because a forged `task.started` line carries it.
        if !crate::model::ids::IdKind::Task.accepts(id) {
            return Ok(None);
        }
        let lines =
            self.lines_under(Key::Task(id), &[Event::TaskStarted, Event::TaskFinished], 0)?;
        let mut entry: Option<TaskEntry> = None;
        for line in lines.iter().filter(|l| l.task.as_deref() == Some(id)) {
            match line.event {
                Event::TaskStarted if entry.is_none() => {
                    entry = Some(TaskEntry {
                        id: id.to_owned(),
                        episode: line.session.clone(),
                        started: line.ts.clone(),
                        status: None,
                    })
                }
                Event::TaskFinished => {
                    if let (Some(e), Some(f)) = (&mut entry, line.payload::<TaskFinished>()) {
                        e.status = Some(f.status);
                    }
                }
                _ => {}
            }
        }
        Ok(entry)
    }

    /// Of `ids`, those a `task.started` line of this ledger names.
    pub fn started_tasks<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashSet<String>, StoreError> {
        let mut out = HashSet::new();
        for id in ids.into_iter().collect::<HashSet<_>>() {
            if self.task(id)?.is_some() {
                out.insert(id.to_owned());
            }
        }
        Ok(out)
    }

    /// The question `id` with its answer, as the whole ledger knows it.
    pub fn question(&self, id: &str) -> Result<Option<LedgerQuestion>, StoreError> {
        Ok(self.question_citing(id)?.map(|(q, _)| q))
    }

    /// The question `id`, if the ledger asked it, with the files its asking line cites.
    pub fn question_citing(
        &self,
        id: &str,
    ) -> Result<Option<(LedgerQuestion, Vec<String>)>, StoreError> {
        let lines = self.lines_under(
            Key::Question(id),
            &[Event::QuestionAsked, Event::QuestionResolved],
            0,
        )?;
        let mut found: Option<(LedgerQuestion, Vec<String>)> = None;
        for line in &lines {
            if let Some(asked) = line.payload::<QuestionAsked>()
                && asked.id == id
            {
                found = Some((
                    LedgerQuestion {
                        id: asked.id,
                        text: asked.text,
                        session: line.session.clone(),
                        asked: line.ts.clone(),
                        answer: None,
                    },
                    asked.files,
                ));
            } else if let Some(resolved) = line.payload::<QuestionResolved>()
                && resolved.id == id
                && let Some((q, _)) = &mut found
            {
                q.answer = Some(resolved.answer);
            }
        }
        Ok(found)
    }

    /// When the first `knowledge.derived` line naming a candidate of this file name was
    /// written.
    pub fn first_derived(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self.first_derived_at(name)?.map(|d| d.ts))
    }

    /// The first `knowledge.derived` line naming a candidate of this file name: when, and
    /// where in the ledger (its `seq`, and the place of the name among the line's paths),
    /// which orders what one second derived as the derivations did.
    pub fn first_derived_at(&self, name: &str) -> Result<Option<DerivedAt>, StoreError> {
        for line in self.lines_under(Key::Derived(name), &[Event::KnowledgeDerived], 0)? {
            if let Some(position) = line
                .payload::<KnowledgeDerived>()
                .and_then(|d| d.paths.iter().position(|p| file_name(p) == name))
            {
                return Ok(Some(DerivedAt {
                    ts: line.ts,
                    seq: line.seq,
                    position,
                }));
            }
        }
        Ok(None)
    }

    /// Every `ledger.pruned` line's record, oldest first.
    pub fn pruned(&self) -> Result<Vec<LedgerPruned>, StoreError> {
        Ok(self
            .lines_under(Key::Event(Event::LedgerPruned), &[Event::LedgerPruned], 0)?
            .iter()
            .filter_map(LedgerLine::payload::<LedgerPruned>)
            .collect())
    }

    /// The first byte from which a line may be at or after `since`: every line before it
    /// is earlier (lines are in append order, and their times almost always are too; the
    /// running maximum makes this right even when they are not).
    pub fn since_offset(&self, since: OffsetDateTime) -> Result<u64, StoreError> {
        // Block maxima are rounded up, so comparing with the whole second at or before
        // `since` never skips a block that holds a line at or after it.
        let threshold = since.unix_timestamp();
        let mut before = i64::MIN;
        for (file, s) in self.segments.iter().zip(&self.manifest.segments) {
            if before.max(s.max_ts) >= threshold
                && let Some(at) = file
                    .first_block_reaching(threshold, before)
                    .map_err(|e| StoreError::io(&self.paths.dir.join(&s.file), e))?
            {
                return Ok(at);
            }
            before = before.max(s.max_ts);
        }
        Ok(self.manifest.covered)
    }

    /// The lines matching `query`, oldest first: through the postings of its episode or
    /// event, or (for a time alone) from the first line that may be that late.
    pub fn lines(&self, query: &LineQuery<'_>) -> Result<Vec<LedgerLine>, StoreError> {
        let from = match query.since {
            Some(t) => self.since_offset(t)?,
            None => 0,
        };
        let events: Vec<Event> = query.event.into_iter().collect();
        let mut lines = match (query.session, query.event) {
            (Some(s), _) => self.lines_under(Key::Session(s), &events, from)?,
            (None, Some(e)) => self.lines_under(Key::Event(e), &events, from)?,
            (None, None) => {
                let mut all = Vec::new();
                if let Some(file) = &self.ledger {
                    scan_file(file, &self.paths.ledger, from, |l| all.push(l))?;
                }
                all
            }
        };
        lines.retain(|l| {
            query
                .session
                .is_none_or(|s| l.session.as_deref() == Some(s))
                && query.since.is_none_or(|since| {
                    crate::model::time::parse(&l.ts).is_some_and(|ts| ts >= since)
                })
        });
        Ok(lines)
    }

    /// The cutoff of the last retention pass, if this index remembers one.
    pub fn retention_checked(&self) -> Option<&str> {
        self.manifest.retention_checked.as_deref()
    }

    /// The time of the ledger's first readable line (of the first 1000 lines).
    pub fn first_time(&self) -> Result<Option<OffsetDateTime>, StoreError> {
        let Some(file) = &self.ledger else {
            return Ok(None);
        };
        let io = |e| StoreError::io(&self.paths.ledger, e);
        let mut reader = BufReader::new(file);
        reader.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut buf = Vec::new();
        for _ in 0..1000 {
            buf.clear();
            if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
                break;
            }
            if let Ok(line) = serde_json::from_slice::<LedgerLine>(buf.trim_ascii_end()) {
                return Ok(crate::model::time::parse(&line.ts));
            }
        }
        Ok(None)
    }

    /// Rewrites the ledger with [`Ledger::rewrite`], holding the index's writer lock so no
    /// reader extends the index from the old file meanwhile, then rebuilds the index from
    /// the new ledger. Either way the index remembers `cutoff` as the last retention pass.
    pub fn rewrite_ledger(
        layout: &Layout,
        plan: impl FnOnce(&[Option<LedgerLine>]) -> Vec<bool>,
        trailer: impl FnOnce(usize) -> LineDraft,
        cutoff: &str,
    ) -> Result<Rewritten, StoreError> {
        let paths = Paths::new(layout);
        let _lock = WriterLock::acquire(&paths)?;
        let rewritten = Ledger::new(&paths.ledger).rewrite(plan, trailer)?;
        if rewritten.dropped == 0 {
            if let Ok(mut manifest) = read_manifest(&paths) {
                manifest.retention_checked = Some(cutoff.to_owned());
                write_manifest(&paths, &manifest)?;
            }
            return Ok(rewritten);
        }
        if let Some(file) = open_ledger(&paths.ledger)? {
            let len = settled_len(&file, &paths.ledger)?;
            LedgerIndex::rebuild(
                &paths,
                file,
                len,
                RebuildReason::Pruned,
                format!("retention pruned {} line(s)", rewritten.dropped),
                Some(cutoff.to_owned()),
            )?;
        }
        Ok(rewritten)
    }
}

#[cfg(test)]
mod tests;
