//! Reading the other writers' journals (SPEC §12): each fetched `refs/majordomus/fetched/
//! <remote>/<writer>` (and each sibling worktree's `refs/majordomus/journal/<writer>`)
//! materialized as a ledger file, `.ai/local/journals/<writer>.jsonl`, extended with only
//! the commits added since the last read, every commit and line checked on the way in: a
//! writer id that is not one, a `journal.json` that does not read, a line that does not
//! parse or still carries a secret shape is skipped and reported, never fatal, never a path.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::LedgerLine;
use crate::model::journal::{self, JournalMeta};
use crate::store::index::LedgerIndex;
use crate::store::{StoreError, write_atomic_derived};

/// The stamp's format; a stamp of another format is a rebuild.
const STAMP_FORMAT: u32 = 1;
use super::publish::CHAIN_LIMIT;

/// Another writer's journal, materialized in this checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ForeignJournal {
    /// The writer id (16 hex digits).
    pub writer: String,
    /// The remote it was fetched from; `None`: a linked worktree of this clone.
    pub remote: Option<String>,
    /// The ref it was read from.
    pub reference: String,
    /// The ref's commit, as materialized.
    pub commit: String,
    /// `.ai/local/journals/<writer>.jsonl`, relative to the work tree root.
    pub path: String,
    /// Lines materialized.
    pub lines: u64,
    pub last_seq: Option<u64>,
    pub last_ts: Option<String>,
    /// The branch the writer was on at its last publish.
    pub branch: Option<String>,
}

/// A commit, ref or line of a journal that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JournalFinding {
    /// `journal.writer`, `journal.commit`, `journal.line` or `journal.secret`.
    pub rule: String,
    pub reference: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub message: String,
}

/// Every other writer's journal this clone has, and what was skipped reading them.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Journals {
    pub journals: Vec<ForeignJournal>,
    pub findings: Vec<JournalFinding>,
}

impl ForeignJournal {
    /// The ledger index of the materialized file (under `.ai/local/state/journal-index/`),
    /// brought up to its end like the ledger's own.
    pub fn index(&self, ctx: &Ctx) -> Result<LedgerIndex, Error> {
        let (manifest, dir) = index_paths(ctx, &self.writer);
        Ok(LedgerIndex::open_at(
            &file_path(ctx, &self.writer),
            &manifest,
            &dir,
        )?)
    }

    /// The materialized file's absolute path.
    pub fn file(&self, ctx: &Ctx) -> PathBuf {
        file_path(ctx, &self.writer)
    }
}

/// `.ai/local/journals/`.
pub fn journals_dir(ctx: &Ctx) -> PathBuf {
    ctx.layout.local_dir().join("journals")
}

/// `.ai/local/journals/<writer>.jsonl` (the writer id is shape-checked by every caller).
fn file_path(ctx: &Ctx, writer: &str) -> PathBuf {
    debug_assert!(journal::is_writer_id(writer));
    journals_dir(ctx).join(format!("{writer}.jsonl"))
}

fn stamp_path(ctx: &Ctx, writer: &str) -> PathBuf {
    journals_dir(ctx).join(format!("{writer}.stamp.json"))
}

fn index_paths(ctx: &Ctx, writer: &str) -> (PathBuf, PathBuf) {
    let dir = ctx.layout.state_dir().join("journal-index");
    (dir.join(format!("{writer}.json")), dir.join(writer))
}

/// What a materialized file holds, keyed by the commit it was read up to.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Stamp {
    format: u32,
    reference: String,
    commit: String,
    /// Bytes of the file at this commit (a longer file is an interrupted extension, cut
    /// back; a shorter one is rebuilt).
    bytes: u64,
    lines: u64,
    last_seq: Option<u64>,
    last_ts: Option<String>,
    branch: Option<String>,
    findings: Vec<JournalFinding>,
}

/// One journal ref, as the ref store names it.
#[derive(Debug, Clone)]
struct Source {
    writer: String,
    remote: Option<String>,
    reference: String,
    commit: String,
}

/// Every other writer's journal, materialized and brought up to its ref: one pass over
/// `refs/majordomus/`, then for each writer only the commits its ref gained since the last
/// read (a journal whose ref did not move costs a stamp read). This writer's own journal
/// (and its fetched copy) is left out.
pub fn journals(ctx: &Ctx) -> Result<Journals, Error> {
    let mut phase = crate::timing::Phase::start("journal.journals");
    let own = super::state::writer(ctx).ok().flatten();
    let mut out = Journals::default();
    let mut sources: BTreeMap<String, Source> = BTreeMap::new();
    for (name, commit) in ctx.repo.refs_under("refs/majordomus/")? {
        let (writer, remote) = if let Some(w) = name.strip_prefix(journal::LOCAL_PREFIX) {
            (w, None)
        } else if let Some(rest) = name.strip_prefix(journal::FETCHED_PREFIX) {
            match rest.split_once('/') {
                Some((remote, w)) => (w, Some(remote.to_owned())),
                None => continue,
            }
        } else {
            continue;
        };
        if !journal::is_writer_id(writer) {
            out.findings.push(JournalFinding {
                rule: "journal.writer".into(),
                reference: crate::model::redact::redact(&name).text,
                commit: None,
                message: format!(
                    "{} is not a writer id (16 hex digits): the ref is not read",
                    crate::model::ids::shown(writer)
                ),
            });
            continue;
        }
        if own.as_deref() == Some(writer) {
            continue;
        }
        // A sibling worktree's own ref is at least as new as any fetched copy of it.
        let source = Source {
            writer: writer.to_owned(),
            remote,
            reference: name.clone(),
            commit,
        };
        match sources.get(writer) {
            Some(known) if known.remote.is_none() => {}
            Some(_) if source.remote.is_some() => {}
            _ => {
                sources.insert(writer.to_owned(), source);
            }
        }
    }
    phase.count("refs", sources.len());
    for source in sources.into_values() {
        let stamp = materialize(ctx, &source)?;
        out.findings.extend(stamp.findings.iter().cloned());
        out.journals.push(ForeignJournal {
            path: ctx.layout.display(&file_path(ctx, &source.writer)),
            writer: source.writer,
            remote: source.remote,
            reference: source.reference,
            commit: stamp.commit,
            lines: stamp.lines,
            last_seq: stamp.last_seq,
            last_ts: stamp.last_ts,
            branch: stamp.branch,
        });
    }
    Ok(out)
}

fn read_stamp(ctx: &Ctx, writer: &str) -> Option<Stamp> {
    let bytes = std::fs::read(stamp_path(ctx, writer)).ok()?;
    serde_json::from_slice::<Stamp>(&bytes)
        .ok()
        .filter(|s| s.format == STAMP_FORMAT)
}

/// Brings `<writer>.jsonl` up to `source.commit`, under the file's lock.
fn materialize(ctx: &Ctx, source: &Source) -> Result<Stamp, Error> {
    let path = file_path(ctx, &source.writer);
    if let Some(stamp) = read_stamp(ctx, &source.writer)
        && stamp.commit == source.commit
        && std::fs::metadata(&path).is_ok_and(|m| m.len() == stamp.bytes)
    {
        return Ok(stamp);
    }
    let io = |e| StoreError::io(&path, e);
    std::fs::create_dir_all(journals_dir(ctx))
        .map_err(|e| StoreError::io(&journals_dir(ctx), e))?;
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    // Another reader may have done it while this one waited.
    let len = file.metadata().map_err(io)?.len();
    let previous = read_stamp(ctx, &source.writer).filter(|s| s.bytes <= len);
    if let Some(stamp) = &previous
        && stamp.commit == source.commit
        && stamp.bytes == len
    {
        file.unlock().map_err(io)?;
        return Ok(stamp.clone());
    }
    // Walked towards the stamp's commit: a walk that never meets it went to the root, and
    // so holds the whole journal (its writer rewrote the ref, pruning it).
    let chain = ctx.repo.journal_chain(
        &source.commit,
        previous.as_ref().map(|s| s.commit.as_str()),
        CHAIN_LIMIT,
    )?;
    let mut stamp = match previous {
        Some(stamp) if chain.reached_stop => {
            // An extension interrupted before its stamp: cut back to what the stamp covers.
            if len > stamp.bytes {
                file.set_len(stamp.bytes).map_err(io)?;
            }
            stamp
        }
        _ => {
            file.set_len(0).map_err(io)?;
            Stamp {
                format: STAMP_FORMAT,
                ..Stamp::default()
            }
        }
    };
    stamp.reference = source.reference.clone();
    let mut appended = Vec::new();
    for commit in &chain.commits {
        append_commit(ctx, source, commit, &mut stamp, &mut appended)?;
    }
    file.write_all(&appended).map_err(io)?;
    stamp.bytes += appended.len() as u64;
    stamp.commit = source.commit.clone();
    let mut bytes = serde_json::to_vec_pretty(&stamp).expect("a stamp always serialises");
    bytes.push(b'\n');
    write_atomic_derived(&stamp_path(ctx, &source.writer), &bytes)?;
    file.unlock().map_err(io)?;
    Ok(stamp)
}

/// Checks one journal commit and appends its segment's good lines to `out`.
fn append_commit(
    ctx: &Ctx,
    source: &Source,
    commit: &crate::git::ChainCommit,
    stamp: &mut Stamp,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let finding = |rule: &str, message: String| JournalFinding {
        rule: rule.to_owned(),
        reference: source.reference.clone(),
        commit: Some(commit.id.clone()),
        message,
    };
    let meta = match commit
        .meta
        .as_deref()
        .ok_or_else(|| "no journal.json in its message or its tree".to_owned())
        .and_then(|bytes| JournalMeta::parse(bytes, &source.writer))
    {
        Ok(meta) => meta,
        Err(message) => {
            stamp.findings.push(finding(
                "journal.commit",
                format!("{message}: the commit is skipped"),
            ));
            return Ok(());
        }
    };
    let Some(segment) = ctx.repo.blob_in_commit(&commit.id, &meta.segment)? else {
        stamp.findings.push(finding(
            "journal.commit",
            format!("{} is not in its tree: the commit is skipped", meta.segment),
        ));
        return Ok(());
    };
    // One pass for the whole segment; lines are looked at one by one only when it finds one.
    let has_secret = !journal::secret_shapes(&String::from_utf8_lossy(&segment)).is_empty();
    for (n, piece) in segment.split(|&b| b == b'\n').enumerate() {
        if piece.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = match serde_json::from_slice::<LedgerLine>(piece) {
            Ok(line) => line,
            Err(e) => {
                stamp.findings.push(finding(
                    "journal.line",
                    format!("{} line {}: unreadable ({e}): skipped", meta.segment, n + 1),
                ));
                continue;
            }
        };
        if has_secret {
            let shapes = crate::model::redact::find_shapes(&String::from_utf8_lossy(piece));
            if !shapes.is_empty() {
                stamp.findings.push(finding(
                    journal::JOURNAL_SECRET,
                    format!(
                        "{} line {} (#{}): carries a secret shape ({}): skipped",
                        meta.segment,
                        n + 1,
                        line.seq,
                        shapes.join(", ")
                    ),
                ));
                continue;
            }
        }
        // (writer, seq) names one line: a seq already read is a repeat, never a second line.
        if stamp.last_seq.is_some_and(|last| line.seq <= last) {
            stamp.findings.push(finding(
                "journal.line",
                format!(
                    "{} line {}: #{} is not after #{}: skipped",
                    meta.segment,
                    n + 1,
                    line.seq,
                    stamp.last_seq.unwrap_or_default()
                ),
            ));
            continue;
        }
        out.extend_from_slice(piece);
        out.push(b'\n');
        stamp.lines += 1;
        stamp.last_seq = Some(line.seq);
        stamp.last_ts = Some(line.ts);
    }
    stamp.branch = meta.branch.map(|b| crate::model::redact::redact(&b).text);
    Ok(())
}

/// Reads every line of a materialized journal (for the unfiltered history).
pub fn read_all(ctx: &Ctx, journal: &ForeignJournal) -> Result<Vec<LedgerLine>, Error> {
    let mut lines = Vec::new();
    crate::store::Ledger::new(journal.file(ctx)).scan(0, |l| lines.push(l))?;
    Ok(lines)
}
