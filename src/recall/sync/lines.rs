//! Files of ledger lines: this checkout's ledger and the other writers' journals (SPEC
//! §12), read from where the index stopped (all of it again when the line read last is no
//! longer there byte for byte); the decisions, answers and checkpoints become documents,
//! and the episodes, tasks, questions and promotions they tell are kept beside them.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::document::{joined_tokens, one_line};
use super::stamp::{inode, sha, stat};
use crate::Ctx;
use crate::error::Error;
use crate::model::LedgerLine;
use crate::model::event::{
    CheckpointRecorded, DecisionRecorded, Event, QuestionAsked, QuestionResolved, SessionOpened,
    TaskStarted,
};
use crate::model::ids::{is_episode_id, sha256_hex};
use crate::model::knowledge::{candidate_id, canonical_source};
use crate::store::StoreError;
use crate::store::recall::{IndexError, NewDoc, Writer};

/// A file of ledger lines the index reads: this checkout's ledger, or another writer's
/// journal materialized under `.ai/local/journals/` (SPEC §12). Its documents carry its
/// source (`ledger`, `journal:<writer>`); how far it was read is kept under its meta keys.
#[derive(Debug, Clone)]
pub(super) struct Lines {
    pub(super) source: String,
    pub(super) path: PathBuf,
}

impl Lines {
    pub(super) fn ledger(ctx: &Ctx) -> Lines {
        Lines {
            source: "ledger".into(),
            path: ctx.layout.ledger(),
        }
    }

    pub(super) fn journal(ctx: &Ctx, writer: &str) -> Lines {
        Lines {
            source: format!("journal:{writer}"),
            path: crate::journal::journals_dir(ctx).join(format!("{writer}.jsonl")),
        }
    }

    pub(super) fn is_ledger(&self) -> bool {
        self.source == "ledger"
    }

    pub(super) fn key(&self, what: &str) -> String {
        format!("{}.{what}", self.source)
    }

    pub(super) fn stamp(&self) -> Result<(u64, u64), Error> {
        Ok(match stat(&self.path)? {
            Some(m) => (m.len(), inode(&m)),
            None => (0, 0),
        })
    }

    /// Whether lines were added, or the file replaced, since the index read it.
    pub(super) fn changed(
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

/// Reads the ledger's new lines into the index, or all of it when the lines the index
/// covered are no longer where they were (a prune, a replaced or edited ledger).
/// Reads the lines `lines` gained since the index last read it (all of it, when the line
/// read last is no longer there byte for byte: the file was replaced or rewritten).
pub(super) fn sync_lines(w: &Writer<'_>, lines: &Lines) -> Result<Result<(), IndexError>, Error> {
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
