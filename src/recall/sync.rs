//! Keeping the recall index current: which sources feed it (knowledge records, session
//! records, handovers, reasoning conclusions, the ledger's decisions, answers and
//! checkpoints), how each becomes a document, and how a read brings the index up to date
//! at the cost of what changed: the ledger's new lines, the files of a folder whose
//! entries changed (told by the folder's and each file's stamp: modification time, size,
//! inode). A stamp younger than [`RACY`] is kept as racy, so a change within the file
//! system's clock tick is still seen by the next read.

use std::collections::{BTreeSet, HashMap};
use std::fs::Metadata;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::Ctx;
use crate::error::Error;
use crate::model::LedgerLine;
use crate::model::event::{
    CheckpointRecorded, DecisionRecorded, Event, QuestionAsked, QuestionResolved, SessionOpened,
    TaskStarted,
};
use crate::model::ids::{is_episode_id, sha256_hex};
use crate::model::knowledge::{Status, candidate_id, canonical_source};
use crate::model::recall::tokens;
use crate::store::StoreError;
use crate::store::outbox::{Outbox, Shelf};
use crate::store::recall::{Fresh, IndexError, NewDoc, RecallDb, Writer};

/// A stamp this close to now may be followed by a change that leaves it equal.
pub const RACY: Duration = Duration::from_secs(2);

/// The index opened and brought up to date, and what a reader should be told about it.
#[derive(Debug)]
pub struct Opened {
    pub db: RecallDb,
    /// Set when this read built the index anew (and why), or fell back to memory.
    pub rebuilt: Option<String>,
}

/// Opens the index and brings it up to date. The index never fails a read: a file that
/// cannot be read is rebuilt, and one that cannot be written is replaced by an index in
/// memory for this read. Only the sources themselves failing to read is an error.
pub fn open(ctx: &Ctx) -> Result<Opened, Error> {
    let path = ctx.layout.recall_index();
    match open_on_disk(ctx, &path) {
        Ok(Ok(opened)) => Ok(opened),
        Ok(Err(first)) => {
            // Corrupt in a way opening did not show: rebuild from nothing, once.
            let _ = std::fs::remove_file(&path);
            match open_on_disk(ctx, &path) {
                Ok(Ok(mut opened)) => {
                    opened.rebuilt = Some(format!(
                        "the recall index could not be read ({}): rebuilt",
                        first.message
                    ));
                    Ok(opened)
                }
                Ok(Err(second)) => in_memory(ctx, &second),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Runs `read` over the index opened by [`open`]. The index never fails a read: when it
/// fails during `read` (corrupt in a way opening did not show, such as a damaged
/// full-text segment only a search reads), the file is replaced by one rebuilt from the
/// memory and `read` runs once more. Returns what `read` gave and what the reader should
/// be told about the index.
pub fn with_index<T>(
    ctx: &Ctx,
    mut read: impl FnMut(&mut Opened) -> Result<T, Error>,
) -> Result<(T, Option<String>), Error> {
    let mut opened = open(ctx)?;
    let path = ctx.layout.recall_index();
    match read(&mut opened) {
        Ok(value) => Ok((value, opened.rebuilt)),
        Err(Error::Store(StoreError::Malformed {
            path: failed,
            message,
        })) if opened.db.path().is_some() && failed == path => {
            drop(opened);
            let _ = std::fs::remove_file(&path);
            let mut again = open(ctx)?;
            let value = read(&mut again)?;
            let said = format!("the recall index could not be read ({message}): rebuilt");
            Ok((
                value,
                Some(match again.rebuilt {
                    // Built in memory: that is what the reader must know.
                    Some(memory) if again.db.path().is_none() => format!("{said}; {memory}"),
                    _ => said,
                }),
            ))
        }
        Err(e) => Err(e),
    }
}

/// `Ok(Err)`: the index failed; `Err`: a source failed.
fn open_on_disk(ctx: &Ctx, path: &Path) -> Result<Result<Opened, IndexError>, Error> {
    let (mut db, fresh) = match RecallDb::open(path) {
        Ok(x) => x,
        Err(e) => return Ok(Err(e)),
    };
    let _phase = crate::timing::Phase::start("recall.update");
    if let Err(e) = update(ctx, &mut db)? {
        return Ok(Err(e));
    }
    // Counted only for the message of a build (a count reads the whole table).
    let counted = match fresh.is_some().then(|| db.reader().count_all()) {
        Some(Ok(n)) => n,
        Some(Err(e)) => return Ok(Err(e)),
        None => 0,
    };
    let rebuilt = fresh.map(|(why, detail)| {
        let what = match why {
            Fresh::Missing => "built the recall index".to_owned(),
            Fresh::Format => format!("the recall index was {detail}: rebuilt"),
            Fresh::Unreadable => format!("the recall index could not be read ({detail}): rebuilt"),
        };
        format!("{what} ({counted} records)")
    });
    Ok(Ok(Opened { db, rebuilt }))
}

fn in_memory(ctx: &Ctx, why: &IndexError) -> Result<Opened, Error> {
    let fail = |e: IndexError| -> Error {
        StoreError::Malformed {
            path: PathBuf::from(e.path),
            message: e.message,
        }
        .into()
    };
    let mut db = RecallDb::in_memory().map_err(fail)?;
    update(ctx, &mut db)?.map_err(fail)?;
    let counted = db.reader().count_all().map_err(fail)?;
    Ok(Opened {
        db,
        rebuilt: Some(format!(
            "the recall index {} could not be written ({}): this read built one in memory ({counted} records)",
            why.path, why.message
        )),
    })
}

/// What a folder of record files holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Knowledge(&'static str),
    Session,
    Handover,
}

#[derive(Debug, Clone)]
struct Folder {
    rel: String,
    abs: PathBuf,
    kind: FileKind,
}

fn folders(ctx: &Ctx) -> Vec<Folder> {
    let outbox = Outbox::new(&ctx.layout);
    [
        (
            ctx.layout.candidates_dir(),
            FileKind::Knowledge("candidates"),
        ),
        (ctx.layout.curated_dir(), FileKind::Knowledge("curated")),
        (
            outbox.shelf(Shelf::Candidates),
            FileKind::Knowledge("outbox"),
        ),
        (ctx.layout.sessions_dir(), FileKind::Session),
        (outbox.shelf(Shelf::Sessions), FileKind::Session),
        (ctx.layout.handovers_dir(), FileKind::Handover),
    ]
    .into_iter()
    .map(|(abs, kind)| Folder {
        rel: ctx.layout.display(&abs),
        abs,
        kind,
    })
    .collect()
}

/// A file's or folder's stamp: modification time, size and inode; `racy:` when it is too
/// young to trust; `absent` when there is none.
fn stamp(meta: Option<&Metadata>, now: SystemTime) -> String {
    let Some(meta) = meta else {
        return "absent".into();
    };
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let nanos = modified
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let ino = inode(meta);
    let text = format!("{nanos}.{}.{ino}", meta.len());
    let young = now.duration_since(modified).map_or(true, |age| age < RACY);
    if young { format!("racy:{text}") } else { text }
}

#[cfg(unix)]
fn inode(meta: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn inode(_meta: &Metadata) -> u64 {
    0
}

/// Whether a file whose stamp was `before` is unchanged now. A racy stamp (too young to
/// trust the clock) is kept with the hash of the bytes read; equal bytes are unchanged.
fn unchanged(before: Option<&str>, now_stamp: &str, abs: &Path) -> bool {
    let Some(before) = before else {
        return false;
    };
    if !now_stamp.starts_with("racy:") {
        return before == now_stamp;
    }
    match before
        .strip_prefix(now_stamp)
        .and_then(|rest| rest.strip_prefix('#'))
    {
        Some(hash) => std::fs::read(abs).is_ok_and(|bytes| sha(&bytes) == hash),
        None => false,
    }
}

/// The stamp kept for a file read now: a racy one with the hash of its bytes.
fn kept_stamp(now_stamp: &str, bytes: &[u8]) -> String {
    if now_stamp.starts_with("racy:") {
        format!("{now_stamp}#{}", sha(bytes))
    } else {
        now_stamp.to_owned()
    }
}

fn stat(path: &Path) -> Result<Option<Metadata>, Error> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, e).into()),
    }
}

/// The stamp of the reasoning tree: its folder and every task folder in it.
fn reasoning_stamp(ctx: &Ctx, now: SystemTime) -> Result<String, Error> {
    let root = ctx.layout.reasoning_dir();
    let Some(meta) = stat(&root)? else {
        return Ok("absent".into());
    };
    let mut out = stamp(Some(&meta), now);
    let mut names = Vec::new();
    match std::fs::read_dir(&root) {
        Ok(entries) => {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    names.push(entry.file_name().to_string_lossy().into_owned());
                }
            }
        }
        Err(e) => return Err(StoreError::io(&root, e).into()),
    }
    names.sort();
    for name in names {
        let meta = stat(&root.join(&name))?;
        out.push_str(&format!(" {name}={}", stamp(meta.as_ref(), now)));
    }
    Ok(out)
}

/// Meta keys.
const REASONING: &str = "reasoning.stamp";
/// The writers whose journals the index holds (space-separated).
const JOURNALS: &str = "journals";

/// A file of ledger lines the index reads: this checkout's ledger, or another writer's
/// journal materialized under `.ai/local/journals/` (SPEC §12). Its documents carry its
/// source (`ledger`, `journal:<writer>`); how far it was read is kept under its meta keys.
#[derive(Debug, Clone)]
struct Lines {
    source: String,
    path: PathBuf,
}

impl Lines {
    fn ledger(ctx: &Ctx) -> Lines {
        Lines {
            source: "ledger".into(),
            path: ctx.layout.ledger(),
        }
    }

    fn journal(ctx: &Ctx, writer: &str) -> Lines {
        Lines {
            source: format!("journal:{writer}"),
            path: crate::journal::journals_dir(ctx).join(format!("{writer}.jsonl")),
        }
    }

    fn is_ledger(&self) -> bool {
        self.source == "ledger"
    }

    fn key(&self, what: &str) -> String {
        format!("{}.{what}", self.source)
    }

    fn stamp(&self) -> Result<(u64, u64), Error> {
        Ok(match stat(&self.path)? {
            Some(m) => (m.len(), inode(&m)),
            None => (0, 0),
        })
    }

    /// Whether lines were added, or the file replaced, since the index read it.
    fn changed(
        &self,
        r: crate::store::recall::Reader<'_>,
    ) -> Result<Result<bool, IndexError>, Error> {
        let (len, ino) = self.stamp()?;
        let read = |what: &str| {
            r.meta(&self.key(what))
                .map(|v| v.and_then(|v| v.parse::<u64>().ok()).unwrap_or(0))
        };
        let covered = match read("covered") {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        };
        let known_ino = match read("ino") {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        };
        Ok(Ok(len != covered || (len > 0 && ino != known_ino)))
    }
}

/// What a read found out of date.
#[derive(Debug, Default)]
struct Work {
    /// Line files with lines the index has not read.
    lines: Vec<Lines>,
    /// Writers whose journals the index holds and this clone no longer has.
    gone: Vec<String>,
    /// The writers whose journals the index holds once this work is done.
    journals: Option<String>,
    folders: Vec<(Folder, String)>,
    reasoning: Option<String>,
}

impl Work {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
            && self.gone.is_empty()
            && self.folders.is_empty()
            && self.reasoning.is_none()
    }
}

fn out_of_date(
    ctx: &Ctx,
    r: crate::store::recall::Reader<'_>,
    now: SystemTime,
) -> Result<Result<Work, IndexError>, Error> {
    let mut work = Work::default();
    let ledger = Lines::ledger(ctx);
    match ledger.changed(r)? {
        Ok(true) => work.lines.push(ledger),
        Ok(false) => {}
        Err(e) => return Ok(Err(e)),
    }
    // The other writers' journals this clone has fetched (or its sibling worktrees
    // publish), each brought up to its ref first. A journal that cannot be read this time
    // keeps what the index holds of it (its findings are `journal status`'s to tell).
    if let Ok(journals) = crate::journal::journals(ctx) {
        let known = match r.meta(JOURNALS) {
            Ok(v) => v.unwrap_or_default(),
            Err(e) => return Ok(Err(e)),
        };
        let writers: BTreeSet<&str> = journals
            .journals
            .iter()
            .map(|j| j.writer.as_str())
            .collect();
        work.gone = known
            .split(' ')
            .filter(|w| !w.is_empty() && !writers.contains(w))
            .map(str::to_owned)
            .collect();
        let now_known = writers.iter().copied().collect::<Vec<_>>().join(" ");
        if now_known != known {
            work.journals = Some(now_known);
        }
        for writer in writers {
            let lines = Lines::journal(ctx, writer);
            match lines.changed(r)? {
                Ok(true) => work.lines.push(lines),
                Ok(false) => {}
                Err(e) => return Ok(Err(e)),
            }
        }
    }
    for folder in folders(ctx) {
        let now_stamp = stamp(stat(&folder.abs)?.as_ref(), now);
        let known = match r.stamp(&format!("dir:{}", folder.rel)) {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        if known.as_deref() != Some(now_stamp.as_str()) || now_stamp.starts_with("racy:") {
            work.folders.push((folder, now_stamp));
        }
    }
    let reasoning = reasoning_stamp(ctx, now)?;
    let known = match r.meta(REASONING) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    if known.as_deref() != Some(reasoning.as_str()) || reasoning.contains("racy:") {
        work.reasoning = Some(reasoning);
    }
    Ok(Ok(work))
}

/// Brings the index up to date.
fn update(ctx: &Ctx, db: &mut RecallDb) -> Result<Result<(), IndexError>, Error> {
    let now = SystemTime::now();
    let work = match out_of_date(ctx, db.reader(), now)? {
        Ok(w) => w,
        Err(e) => return Ok(Err(e)),
    };
    if !work.is_empty() {
        // Source errors are carried out of the transaction (which then rolls back).
        let mut source_error: Option<Error> = None;
        let outcome = db.write(|w| {
            // Another reader may have done this while this one waited for the lock.
            let work = match out_of_date(ctx, w.reader(), now) {
                Ok(Ok(work)) => work,
                Ok(Err(e)) => return Err(e),
                Err(e) => {
                    source_error = Some(e);
                    return Err(IndexError {
                        path: String::new(),
                        message: String::new(),
                    });
                }
            };
            match apply(ctx, w, &work) {
                Ok(result) => result,
                Err(e) => {
                    source_error = Some(e);
                    Err(IndexError {
                        path: String::new(),
                        message: String::new(),
                    })
                }
            }
        });
        if let Some(e) = source_error {
            return Err(e);
        }
        if let Err(e) = outcome {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

fn apply(ctx: &Ctx, w: &Writer<'_>, work: &Work) -> Result<Result<(), IndexError>, Error> {
    macro_rules! index {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(e) => return Ok(Err(e)),
            }
        };
    }
    for writer in &work.gone {
        let lines = Lines::journal(ctx, writer);
        index!(w.delete_source(&lines.source));
        for what in ["covered", "tail", "ino"] {
            index!(w.delete_meta(&lines.key(what)));
        }
    }
    for lines in &work.lines {
        index!(sync_lines(w, lines)?);
    }
    if let Some(journals) = &work.journals {
        index!(w.set_meta(JOURNALS, journals));
    }
    for (folder, now_stamp) in &work.folders {
        index!(sync_folder(ctx, w, folder)?);
        index!(w.set_stamp(&format!("dir:{}", folder.rel), now_stamp));
    }
    if let Some(stamp) = &work.reasoning {
        index!(sync_reasoning(ctx, w)?);
        index!(w.set_meta(REASONING, stamp));
    }
    Ok(Ok(()))
}

/// Re-reads the record files of one folder whose stamps changed, and forgets those gone.
fn sync_folder(
    ctx: &Ctx,
    w: &Writer<'_>,
    folder: &Folder,
) -> Result<Result<(), IndexError>, Error> {
    let now = SystemTime::now();
    let prefix = format!("{}/", folder.rel);
    let mut known = match w.stamps_under(&prefix) {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    // Only files directly in the folder belong to it (the outbox's shelves are folders
    // of their own).
    known.retain(|path, _| !path[prefix.len()..].contains('/'));
    for name in crate::store::outbox::list_markdown(&folder.abs)? {
        let abs = folder.abs.join(&name);
        let rel = format!("{prefix}{name}");
        let now_stamp = stamp(stat(&abs)?.as_ref(), now);
        let before = known.remove(&rel);
        if unchanged(before.as_deref(), &now_stamp, &abs) {
            continue;
        }
        if let Err(e) = reindex_file(ctx, w, folder.kind, &abs, &rel, &now_stamp)? {
            return Ok(Err(e));
        }
    }
    for gone in known.keys() {
        if let Err(e) = w.delete_source(&format!("file:{gone}")) {
            return Ok(Err(e));
        }
        if let Err(e) = w.delete_stamp(gone) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

fn reindex_file(
    ctx: &Ctx,
    w: &Writer<'_>,
    kind: FileKind,
    abs: &Path,
    rel: &str,
    now_stamp: &str,
) -> Result<Result<(), IndexError>, Error> {
    let source = format!("file:{rel}");
    if let Err(e) = w.delete_source(&source) {
        return Ok(Err(e));
    }
    let bytes = match std::fs::read(abs) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(w.delete_stamp(rel));
        }
        Err(e) => return Err(StoreError::io(abs, e).into()),
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let doc = match kind {
        FileKind::Knowledge(place) => knowledge_doc(&text, &source, place),
        FileKind::Session => match session_doc(&text, &source) {
            Some((doc, episode, branch, files)) => {
                if let Err(e) = w.insert_episode(&episode, &source, branch.as_deref(), &files) {
                    return Ok(Err(e));
                }
                Some(doc)
            }
            None => None,
        },
        FileKind::Handover => handover_doc(&text, &source),
    };
    if let Some(doc) = doc
        && let Err(e) = w.insert_doc(&doc)
    {
        return Ok(Err(e));
    }
    let _ = ctx;
    Ok(w.set_stamp(rel, &kept_stamp(now_stamp, &bytes)))
}

/// Re-reads one file now (a hit whose file changed in place, which leaves its folder's
/// stamp as it was). True when the index changed.
pub fn refresh_files(ctx: &Ctx, db: &mut RecallDb, rels: &[String]) -> Result<bool, Error> {
    let now = SystemTime::now();
    let folders = folders(ctx);
    let mut changed = Vec::new();
    for rel in rels {
        let Some(folder) = folders.iter().find(|f| {
            rel.strip_prefix(&f.rel)
                .is_some_and(|r| r.starts_with('/') && !r[1..].contains('/'))
        }) else {
            continue;
        };
        let abs = ctx.layout.root().join(rel);
        let now_stamp = stamp(stat(&abs)?.as_ref(), now);
        let known = db.reader().stamp(rel).ok().flatten();
        if !unchanged(known.as_deref(), &now_stamp, &abs) {
            changed.push((folder.clone(), abs, rel.clone(), now_stamp));
        }
    }
    if changed.is_empty() {
        return Ok(false);
    }
    let mut source_error = None;
    let outcome = db.write(|w| {
        for (folder, abs, rel, now_stamp) in &changed {
            let result = if now_stamp == "absent" {
                w.delete_source(&format!("file:{rel}"))
                    .and_then(|()| w.delete_stamp(rel))
            } else {
                match reindex_file(ctx, w, folder.kind, abs, rel, now_stamp) {
                    Ok(r) => r,
                    Err(e) => {
                        source_error = Some(e);
                        return Err(IndexError {
                            path: String::new(),
                            message: String::new(),
                        });
                    }
                }
            };
            result?;
        }
        Ok(())
    });
    if let Some(e) = source_error {
        return Err(e);
    }
    Ok(outcome.is_ok())
}

fn joined_tokens(text: &str) -> String {
    tokens(text).join(" ")
}

/// The first line of `text`, trimmed, at most 160 characters.
pub fn one_line(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut line: String = first.chars().take(160).collect();
    if first.chars().count() > 160 {
        line.push('…');
    }
    line
}

/// The path of a `file:`/`test:` reference, without a `:<line>` suffix.
pub fn ref_path(reference: &str) -> Option<String> {
    let target = reference
        .strip_prefix("file:")
        .or_else(|| reference.strip_prefix("test:"))?;
    let path = match target.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => path,
        _ => target,
    };
    let path = path.trim_start_matches("./").trim_end_matches('/');
    (!path.is_empty()).then(|| path.to_owned())
}

fn knowledge_doc(text: &str, source: &str, place: &'static str) -> Option<NewDoc> {
    let (record, body) = crate::store::records::parse_record(text).ok()?;
    let refs: Vec<String> = record
        .provenance
        .derived_from
        .iter()
        .filter_map(|r| ref_path(r))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let task = record.provenance.derived_from.iter().find_map(|r| {
        r.strip_prefix("task:")
            .or_else(|| r.strip_prefix("decision:"))
            .filter(|t| !t.is_empty() && *t != "none")
            .map(str::to_owned)
    });
    let issue = record
        .provenance
        .derived_from
        .iter()
        .find_map(|r| r.strip_prefix("issue:").map(str::to_owned));
    let episode = record
        .id
        .get(..23)
        .filter(|e| is_episode_id(e))
        .map(str::to_owned);
    let status = match record.status {
        Status::Verified => "verified",
        Status::Candidate => "candidate",
        Status::Superseded => "superseded",
    };
    let body = body.trim();
    let mut searchable = body.to_owned();
    for r in &refs {
        searchable.push('\n');
        searchable.push_str(r);
    }
    Some(NewDoc {
        kind: "knowledge",
        key: record.id.clone(),
        source: source.to_owned(),
        status,
        line: one_line(&record.title),
        text: format!("{}\n\n{body}", record.title),
        date: record.date.clone(),
        episode,
        task,
        issue,
        intent: None,
        superseded_by: record.superseded_by.clone(),
        derives: None,
        place: Some(place),
        offset: None,
        head_tokens: joined_tokens(&record.title),
        body_tokens: joined_tokens(&searchable),
        refs,
    })
}

/// The lines of a Markdown section `## <title>` (up to the next `## `).
fn section<'a>(body: &'a str, title: &str) -> Vec<&'a str> {
    let heading = format!("## {title}");
    body.lines()
        .skip_while(|l| l.trim_end() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

type SessionParts = (NewDoc, String, Option<String>, Vec<String>);

fn session_doc(text: &str, source: &str) -> Option<SessionParts> {
    let (record, body) =
        crate::store::frontmatter::parse::<crate::model::compose::SessionRecord>(text).ok()?;
    if !is_episode_id(&record.id) {
        return None;
    }
    let summary: Vec<&str> = section(body, "Summary")
        .into_iter()
        .filter(|l| !l.starts_with("No summary was given"))
        .collect();
    // `- <12 hex> <subject> (<time>)`
    let subjects: Vec<String> = section(body, "Commits")
        .into_iter()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(' ').map(|(_, rest)| rest))
        .map(|rest| match rest.rfind(" (") {
            Some(i) if rest.ends_with(')') => rest[..i].to_owned(),
            _ => rest.to_owned(),
        })
        .collect();
    let summary = summary.join("\n");
    let line = if !summary.is_empty() {
        one_line(&summary)
    } else if let Some(first) = subjects.first() {
        one_line(&format!(
            "{} commit(s) on {}: {first}",
            record.commits.len(),
            record.branch.as_deref().unwrap_or("a detached HEAD")
        ))
    } else {
        format!(
            "episode on {} ({})",
            record.branch.as_deref().unwrap_or("a detached HEAD"),
            serde_json::to_value(record.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        )
    };
    let mut searchable = summary.clone();
    for s in &subjects {
        searchable.push('\n');
        searchable.push_str(s);
    }
    let doc = NewDoc {
        kind: "session",
        key: record.id.clone(),
        source: source.to_owned(),
        status: "candidate",
        line: line.clone(),
        text: body.trim().to_owned(),
        date: record.closed.clone(),
        episode: Some(record.id.clone()),
        task: record.tasks.first().cloned(),
        head_tokens: joined_tokens(&line),
        body_tokens: joined_tokens(&searchable),
        ..NewDoc::default()
    };
    Some((doc, record.id, record.branch, record.changed_files))
}

/// What recall reads of a handover's front matter.
#[derive(serde::Deserialize)]
struct HandoverHead {
    episode: String,
    as_of: String,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    issue: Option<String>,
    #[serde(default)]
    intent: Option<String>,
}

fn handover_doc(text: &str, source: &str) -> Option<NewDoc> {
    let (front, body) = crate::store::frontmatter::parse::<HandoverHead>(text).ok()?;
    if !is_episode_id(&front.episode) {
        return None;
    }
    let next: Vec<&str> = section(body, "Next Action")
        .into_iter()
        .filter_map(|l| l.strip_prefix("- "))
        .collect();
    let line = one_line(&format!(
        "handover: {}",
        next.first().copied().unwrap_or("nothing left in flight")
    ));
    Some(NewDoc {
        kind: "handover",
        key: front.episode.clone(),
        source: source.to_owned(),
        status: "candidate",
        line: line.clone(),
        text: body.trim().to_owned(),
        date: front.as_of.clone(),
        episode: Some(front.episode.clone()),
        task: front.task.clone(),
        issue: front.issue.clone(),
        intent: front.intent.clone(),
        head_tokens: joined_tokens(&line),
        body_tokens: joined_tokens(body),
        ..NewDoc::default()
    })
}

/// Re-reads every reasoning record (they are few, and a conclusion's status depends on
/// the others: a later conclusion supersedes it, a passing validation verifies it).
fn sync_reasoning(ctx: &Ctx, w: &Writer<'_>) -> Result<Result<(), IndexError>, Error> {
    let root_rel = ctx.layout.display(&ctx.layout.reasoning_dir());
    if let Err(e) = w.delete_sources_under(&format!("file:{root_rel}/")) {
        return Ok(Err(e));
    }
    let records = crate::store::reasoning::read_all(&ctx.layout)?;
    let values: Vec<serde_json::Value> = records
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect();
    let field =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let list = |v: &serde_json::Value, k: &str| -> Vec<String> {
        v.get(k)
            .and_then(|x| x.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut superseded: HashMap<String, String> = HashMap::new();
    let mut validated: BTreeSet<String> = BTreeSet::new();
    let mut subjects: HashMap<String, String> = HashMap::new();
    for v in &values {
        match field(v, "kind").as_deref() {
            Some("conclusion") => {
                if let (Some(old), Some(id)) = (field(v, "supersedes"), field(v, "id")) {
                    superseded.insert(old, id);
                }
            }
            Some("validation") if field(v, "outcome").as_deref() == Some("pass") => {
                validated.extend(field(v, "conclusion"));
            }
            Some("assessment") => {
                if let (Some(id), Some(subject)) = (field(v, "id"), field(v, "subject")) {
                    subjects.insert(id, subject);
                }
            }
            _ => {}
        }
    }
    for (record, v) in records.iter().zip(&values) {
        if field(v, "kind").as_deref() != Some("conclusion") {
            continue;
        }
        let decision = field(v, "decision").unwrap_or_default();
        let subject = field(v, "assessment")
            .and_then(|a| subjects.get(&a).cloned())
            .unwrap_or_default();
        let evidence = list(v, "evidence");
        let refs: Vec<String> = evidence
            .iter()
            .filter_map(|e| ref_path(e))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut body = String::new();
        for part in [field(v, "rationale").unwrap_or_default(), subject.clone()] {
            body.push_str(&part);
            body.push('\n');
        }
        for k in ["rejected_alternatives", "risks", "evidence"] {
            for item in list(v, k) {
                body.push_str(&item);
                body.push('\n');
            }
        }
        let status = if superseded.contains_key(&record.id) {
            "superseded"
        } else if validated.contains(&record.id) {
            "verified"
        } else {
            "candidate"
        };
        let rel = format!("{root_rel}/{}/{}.json", record.task, record.id);
        let doc = NewDoc {
            kind: "conclusion",
            key: record.id.clone(),
            source: format!("file:{rel}"),
            status,
            line: one_line(&decision),
            text: format!("{decision}\n\n{body}"),
            date: record.recorded_at.clone(),
            episode: record.episode.clone(),
            task: (!record.task.starts_with("_episode-")).then(|| record.task.clone()),
            superseded_by: superseded.get(&record.id).cloned(),
            head_tokens: joined_tokens(&format!("{decision}\n{subject}")),
            body_tokens: joined_tokens(&body),
            refs,
            ..NewDoc::default()
        };
        if let Err(e) = w.insert_doc(&doc) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

/// The events the index reads from the ledger; the rest are not searched.
const LEDGER_EVENTS: [&str; 7] = [
    "decision.recorded",
    "question.asked",
    "question.resolved",
    "checkpoint.recorded",
    "session.opened",
    "task.started",
    "knowledge.promoted",
];

/// The event name in a raw ledger line, without parsing the line.
fn event_of(line: &[u8]) -> Option<&str> {
    const KEY: &[u8] = b"\"event\":\"";
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let end = line[at..].iter().position(|&b| b == b'"')?;
    std::str::from_utf8(&line[at..at + end]).ok()
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads the ledger's new lines into the index, or all of it when the lines the index
/// covered are no longer where they were (a prune, a replaced or edited ledger).
/// Reads the lines `lines` gained since the index last read it (all of it, when the line
/// read last is no longer there byte for byte: the file was replaced or rewritten).
fn sync_lines(w: &Writer<'_>, lines: &Lines) -> Result<Result<(), IndexError>, Error> {
    macro_rules! index {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(e) => return Ok(Err(e)),
            }
        };
    }
    let path = &lines.path;
    let (covered_key, tail_key, ino_key) =
        (lines.key("covered"), lines.key("tail"), lines.key("ino"));
    let r = w.reader();
    let covered = index!(r.meta(&covered_key))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    let tail = index!(r.meta(&tail_key));
    let clear = |w: &Writer<'_>| {
        if lines.is_ledger() {
            w.clear_ledger()
        } else {
            w.delete_source(&lines.source)
        }
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if covered > 0 {
                index!(clear(w));
            }
            index!(w.set_meta(&covered_key, "0"));
            index!(w.set_meta(&ino_key, "0"));
            return Ok(Ok(()));
        }
        Err(e) => return Err(StoreError::io(path, e).into()),
    };
    let meta = file.metadata().map_err(|e| StoreError::io(path, e))?;
    let len = meta.len();
    // The index continues where it stopped only when the line it read last is still
    // there, byte for byte.
    let still_there = covered > 0
        && covered <= len
        && tail
            .as_deref()
            .and_then(|t| t.split_once(':'))
            .is_some_and(|(start, hash)| {
                start.parse::<u64>().ok().is_some_and(|start| {
                    let mut buf = vec![0u8; (covered.saturating_sub(start)) as usize];
                    file.seek(SeekFrom::Start(start)).is_ok()
                        && file.read_exact(&mut buf).is_ok()
                        && sha(&buf) == hash
                })
            });
    let from = if still_there { covered } else { 0 };
    if from == 0 && covered > 0 {
        index!(clear(w));
    }
    file.seek(SeekFrom::Start(from))
        .map_err(|e| StoreError::io(path, e))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut pos = from;
    let mut last: Option<(u64, String)> = None;
    let mut buf = Vec::with_capacity(512);
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| StoreError::io(path, e))?;
        if n == 0 || buf.last() != Some(&b'\n') {
            // A torn last line is left for when its append completes.
            break;
        }
        let start = pos;
        pos += n as u64;
        last = Some((start, sha(&buf)));
        let Some(event) = event_of(&buf) else {
            continue;
        };
        if !LEDGER_EVENTS.contains(&event) {
            continue;
        }
        let Ok(line) = serde_json::from_slice::<LedgerLine>(&buf[..n - 1]) else {
            continue;
        };
        index!(ledger_line(w, lines, &line, start));
    }
    index!(w.set_meta(&covered_key, &pos.to_string()));
    if let Some((start, hash)) = last {
        index!(w.set_meta(&tail_key, &format!("{start}:{hash}")));
    }
    index!(w.set_meta(&ino_key, &inode(&meta).to_string()));
    Ok(Ok(()))
}

/// The id a ledger line's hit carries: the id its derivation gives (`<episode>-<12 hex>`),
/// or, for a line no episode stamped, `ledger-<12 hex>` of the same canonical bytes.
fn line_key(line: &LedgerLine) -> String {
    match line.session.as_deref().filter(|s| is_episode_id(s)) {
        Some(episode) => candidate_id(episode, line),
        None => format!("ledger-{}", &sha256_hex(&canonical_source(line))[..12]),
    }
}

/// The paths a ledger line cites, as a doc's refs: it is reached by them ("it cites it").
fn cited_refs(mut files: Vec<String>) -> Vec<String> {
    files.retain(|f| crate::model::cited::is_normal(f));
    files.sort();
    files.dedup();
    files
}

fn ledger_line(
    w: &Writer<'_>,
    lines: &Lines,
    line: &LedgerLine,
    offset: u64,
) -> Result<(), IndexError> {
    let episode = line.session.clone().filter(|s| is_episode_id(s));
    let task = line.task.clone();
    let (issue, intent) = match task.as_ref().filter(|_| lines.is_ledger()) {
        Some(t) => match w.reader().task(t)? {
            Some(row) => (row.issue, row.intent),
            None => (None, None),
        },
        None => (None, None),
    };
    let base = NewDoc {
        source: lines.source.clone(),
        status: "candidate",
        date: line.ts.clone(),
        episode: episode.clone(),
        task: task.clone(),
        issue,
        intent,
        offset: Some(offset),
        ..NewDoc::default()
    };
    match line.event {
        Event::DecisionRecorded => {
            let DecisionRecorded { text, files } = line.payload().unwrap_or_default();
            let key = line_key(line);
            let doc = NewDoc {
                kind: "decision",
                derives: episode.is_some().then(|| key.clone()),
                key,
                line: one_line(&text),
                head_tokens: joined_tokens(&text),
                text,
                refs: cited_refs(files),
                ..base
            };
            w.insert_doc(&doc)?;
        }
        Event::CheckpointRecorded => {
            let CheckpointRecorded { text, files, .. } = line.payload().unwrap_or_default();
            let doc = NewDoc {
                kind: "checkpoint",
                key: line_key(line),
                line: one_line(&text),
                head_tokens: joined_tokens(&text),
                text,
                refs: cited_refs(files),
                ..base
            };
            w.insert_doc(&doc)?;
        }
        // Open questions and tasks are this checkout's: another writer's are read from
        // its journal where they are shown (history, the briefing), and its task ids
        // are its own (two clones may draw the same).
        Event::QuestionAsked if lines.is_ledger() => {
            if let Some(q) = line.payload::<QuestionAsked>() {
                w.insert_question(
                    &q.id,
                    &q.text,
                    episode.as_deref(),
                    task.as_deref(),
                    &line.ts,
                )?;
            }
        }
        Event::QuestionResolved => {
            if let Some(r) = line.payload::<QuestionResolved>() {
                let derives = episode.as_deref().map(|e| candidate_id(e, line));
                let doc = NewDoc {
                    kind: "question",
                    key: r.id.clone(),
                    line: one_line(&format!("{} → {}", r.question.trim(), one_line(&r.answer))),
                    text: format!("{}\n\n{}", r.question.trim(), r.answer.trim()),
                    head_tokens: joined_tokens(&r.question),
                    body_tokens: joined_tokens(&r.answer),
                    derives,
                    refs: cited_refs(r.files),
                    ..base
                };
                w.insert_doc(&doc)?;
            }
        }
        Event::SessionOpened => {
            if let (Some(ep), Some(opened)) = (&episode, line.payload::<SessionOpened>()) {
                w.insert_episode(ep, &lines.source, opened.branch.as_deref(), &[])?;
            }
        }
        // When a record was promoted: its recency ("the most recently verified").
        Event::KnowledgePromoted => {
            if let Some(p) = line.payload::<crate::model::event::KnowledgePromoted>()
                && !p.id.is_empty()
            {
                w.set_promoted(&p.id, &lines.source, &line.ts)?;
            }
        }
        Event::TaskStarted if lines.is_ledger() => {
            if let (Some(t), Some(started)) = (&task, line.payload::<TaskStarted>())
                && crate::model::ids::IdKind::Task.accepts(t)
            {
                w.insert_task(&crate::store::recall::TaskRow {
                    task: t.clone(),
                    episode: episode.clone(),
                    issue: started.issue.clone(),
                    intent: started.intent.clone(),
                    description: started.description.clone(),
                    started: line.ts.clone(),
                    scope: started.scope.clone(),
                })?;
            }
        }
        _ => {}
    }
    Ok(())
}
