//! `journal restore`: this checkout's ledger rebuilt from its own journal (the local ref,
//! or a fetched copy of it), after `git clean -fdx` or on a new machine. The lines come
//! back byte for byte, in seq order.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state;
use crate::Ctx;
use crate::error::Error;
use crate::model::journal::{self, JournalError, LineHead};
use crate::store::WriteOutcome;

/// `journal.restore`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreRequest {
    /// Keep the ledger's lines the journal does not have, merged by seq (by default a
    /// ledger holding such lines is left alone).
    #[serde(default)]
    pub force: bool,
    /// Restore the journal of this writer id and adopt it as this worktree's (a new
    /// machine, a fresh clone); default: this worktree's own writer.
    #[serde(default)]
    pub writer: Option<String>,
}

/// What `journal restore` wrote.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Restored {
    pub writer: String,
    /// The ref read.
    pub reference: String,
    pub commit: String,
    /// Lines the journal gave back.
    pub lines: u64,
    /// Lines of the ledger the journal does not have, kept (`--force`).
    pub kept: u64,
    /// Journal lines that did not read as ledger lines (left out).
    pub unreadable: u64,
    pub write: WriteOutcome,
    /// The episode the journal's lines leave open (opened, never closed), made this
    /// worktree's open episode again: `git clean -fdx` removed it with the ledger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reopened: Option<String>,
    /// The episode the journal's lines leave open while another one is open now: left as
    /// it is (it lists as never closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_unclosed: Option<String>,
}

pub fn restore(ctx: &Ctx, request: RestoreRequest) -> Result<Restored, Error> {
    let writer = match &request.writer {
        Some(id) if journal::is_writer_id(id) => id.clone(),
        Some(id) => return Err(JournalError::WriterShape { id: id.clone() }.into()),
        None => state::writer(ctx)?.ok_or_else(|| JournalError::NoJournal {
            writer: "(this worktree has none yet)".into(),
        })?,
    };
    let local = journal::local_ref(&writer);
    let (reference, commit) = match ctx.repo.ref_target(&local)? {
        Some(commit) => (local, commit),
        None => ctx
            .repo
            .refs_under(journal::FETCHED_PREFIX)?
            .into_iter()
            .find(|(name, _)| name.rsplit('/').next() == Some(writer.as_str()))
            .ok_or_else(|| JournalError::NoJournal {
                writer: writer.clone(),
            })?,
    };
    // Each commit of the chain holds its own segment, named by first seq.
    let mut journal_lines: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let mut unreadable = 0u64;
    for segment in super::publish::segments_at(ctx, &commit, &writer)? {
        for piece in segment.bytes.split(|&b| b == b'\n') {
            if piece.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match LineHead::of(piece) {
                Some(head) => {
                    journal_lines
                        .entry(head.seq)
                        .or_insert_with(|| piece.to_vec());
                }
                None => unreadable += 1,
            }
        }
    }
    let lines = journal_lines.len() as u64;
    let force = request.force;
    let mut kept = 0u64;
    let outcome = ctx.ledger().replace(|existing| {
        let mut merged = journal_lines;
        // A line is the journal's when the journal holds these very bytes at its seq; any
        // other line is the ledger's own (written since the journal's last publish, or
        // after a `git clean -fdx` started the numbering again).
        let mut extra: Vec<(u64, Vec<u8>)> = Vec::new();
        for piece in existing.split(|&b| b == b'\n') {
            if let Some(head) = LineHead::of(piece)
                && merged.get(&head.seq).is_none_or(|l| l.as_slice() != piece)
            {
                extra.push((head.seq, piece.to_vec()));
            }
        }
        if !extra.is_empty() && !force {
            return Err(JournalError::RestoreConflict {
                lines: extra.len() as u64,
                first_seq: extra.iter().map(|(s, _)| *s).min().unwrap_or_default(),
            });
        }
        kept = extra.len() as u64;
        // Merged by seq; a line whose seq the journal already uses is numbered after the
        // last one (only its `seq` changes), so no line is lost and seq stays unique.
        let mut next = merged
            .keys()
            .next_back()
            .copied()
            .unwrap_or(0)
            .max(extra.iter().map(|(s, _)| *s).max().unwrap_or(0));
        for (seq, bytes) in extra {
            if merged.contains_key(&seq) {
                next += 1;
                merged.insert(next, renumbered(&bytes, next));
            } else {
                merged.insert(seq, bytes);
            }
        }
        let mut out = Vec::with_capacity(merged.values().map(|l| l.len() + 1).sum());
        for line in merged.values() {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        Ok(out)
    })?;
    let write = outcome?;
    if request.writer.is_some() {
        state::set_writer(ctx, &writer)?;
    }
    // The ledger was rewritten: the next publish finds its place again from the journal.
    let mut st = state::read(ctx)?;
    st.published = None;
    state::write(ctx, &st)?;
    let (reopened, left_unclosed) = reopen(ctx)?;
    Ok(Restored {
        reopened,
        left_unclosed,
        writer,
        reference,
        commit,
        lines,
        kept,
        unreadable,
        write,
    })
}

/// The episodes the restored ledger leaves open (a `session.opened` with no
/// `session.closed` after it): with none open now, the last of them is made the open
/// episode again; with one open now, its state is pointed at where its `session.opened`
/// line is in the rewritten ledger (a `--force` merge renumbers and moves lines), and the
/// last other one is named. `(reopened, left unclosed)`.
fn reopen(ctx: &Ctx) -> Result<(Option<String>, Option<String>), Error> {
    use crate::model::event::{Event, SessionOpened};
    let _lock = crate::store::StateLock::acquire(&ctx.layout)?;
    let path = ctx.layout.ledger();
    let bytes = std::fs::read(&path).map_err(|e| crate::store::StoreError::io(&path, e))?;
    // Opened and not closed, in ledger order: (line, its byte offset).
    let mut unclosed: Vec<(crate::model::LedgerLine, u64)> = Vec::new();
    let mut offset = 0u64;
    for piece in bytes.split_inclusive(|&b| b == b'\n') {
        let at = offset;
        offset += piece.len() as u64;
        let Ok(line) = serde_json::from_slice::<crate::model::LedgerLine>(piece) else {
            continue;
        };
        let Some(id) = line.session.as_deref() else {
            continue;
        };
        if crate::store::StoreError::check_id(crate::model::ids::IdKind::Episode, id).is_err() {
            continue;
        }
        match line.event {
            Event::SessionOpened => unclosed.push((line, at)),
            Event::SessionClosed => unclosed.retain(|(open, _)| open.session != line.session),
            _ => {}
        }
    }
    let state = |line: &crate::model::LedgerLine, at: u64| {
        line.payload::<SessionOpened>()
            .map(|opened| crate::model::EpisodeState {
                id: line.session.clone().unwrap_or_default(),
                provider: opened.provider,
                branch: opened.branch,
                head_at_open: opened.head,
                opened: line.ts.clone(),
                ledger_offset: at,
            })
    };
    match crate::store::episode::read(&ctx.layout)? {
        Some(open) => {
            if let Some((_, at)) = unclosed
                .iter()
                .find(|(l, _)| l.session.as_deref() == Some(open.id.as_str()))
                && *at != open.ledger_offset
            {
                crate::store::episode::write(
                    &ctx.layout,
                    &crate::model::EpisodeState {
                        ledger_offset: *at,
                        ..open.clone()
                    },
                )?;
            }
            let other = unclosed
                .iter()
                .rev()
                .find(|(l, _)| l.session.as_deref() != Some(open.id.as_str()))
                .and_then(|(l, _)| l.session.clone());
            Ok((None, other))
        }
        None => match unclosed.last().and_then(|(line, at)| state(line, *at)) {
            Some(episode) => {
                crate::store::episode::write(&ctx.layout, &episode)?;
                Ok((Some(episode.id), None))
            }
            None => Ok((None, None)),
        },
    }
}

/// `line` with its `seq` set to `seq` (every other field as it was read).
fn renumbered(line: &[u8], seq: u64) -> Vec<u8> {
    match serde_json::from_slice::<crate::model::LedgerLine>(line) {
        Ok(mut parsed) => {
            parsed.seq = seq;
            serde_json::to_vec(&parsed).expect("ledger lines always serialise")
        }
        Err(_) => line.to_vec(),
    }
}
