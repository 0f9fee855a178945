//! Publishing (SPEC §12): this writer's new ledger lines, as they are in the ledger (already
//! redacted), appended as one segment in one commit on `refs/majordomus/journal/<writer>`,
//! moved by compare-and-swap. Deterministic: the commit's time is its last line's, its
//! identity fixed, so the same lines on the same journal give the same commit.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use schemars::JsonSchema;
use serde::Serialize;
use time::OffsetDateTime;

use super::state::{self, PublishedMark, WriterState};
use crate::Ctx;
use crate::error::Error;
use crate::git::{Identity, RefUpdate};
use crate::model::journal::{self, JournalError, JournalMeta, LineHead};
use crate::store::StoreError;

/// Attempts at the compare-and-swap before giving up (each one lost means another
/// publish of this very writer landed: nothing is lost by trying again).
const ATTEMPTS: u32 = 8;

/// What a publish did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Published {
    pub writer: String,
    pub reference: String,
    /// The journal's tip after the publish (`None`: nothing was ever published).
    pub commit: Option<String>,
    /// Lines this publish added (0: the journal already held every line to publish).
    pub lines: u64,
    /// Seqs of the segment added, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
    /// Lines left out because they are older than `ledger.retention_days`.
    pub older_than_retention: u64,
}

/// A ledger line read raw, after the last published one.
#[derive(Debug, Clone)]
pub(crate) struct RawLine {
    pub seq: u64,
    pub ts: String,
    /// The line's bytes, without its newline.
    pub bytes: Vec<u8>,
}

impl AsRef<[u8]> for RawLine {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The lines after `mark` (or after `after` seq when the mark no longer fits the ledger: a
/// prune or a restore rewrote it), and the offset after the last complete line.
pub(crate) fn lines_after(
    ctx: &Ctx,
    mark: Option<&PublishedMark>,
    after: u64,
) -> Result<(Vec<RawLine>, u64), Error> {
    let path = ctx.layout.ledger();
    let io = |e| StoreError::io(&path, e);
    let mut file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(io(e).into()),
    };
    file.lock_shared().map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let start = match mark {
        Some(m)
            if m.seq == after
                && m.offset <= len
                && ends_with_seq(&mut file, m.offset, m.seq).map_err(io)? =>
        {
            m.offset
        }
        _ => 0,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(len - start).unwrap_or(0));
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    file.read_to_end(&mut bytes).map_err(io)?;
    file.unlock().map_err(io)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut out = Vec::new();
    for piece in bytes[..complete].split(|&b| b == b'\n') {
        if piece.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(head) = LineHead::of(piece)
            && head.seq > after
        {
            out.push(RawLine {
                seq: head.seq,
                ts: head.ts,
                bytes: piece.to_vec(),
            });
        }
    }
    Ok((out, start + complete as u64))
}

/// True when the line ending just before `offset` reads and carries `seq` (`offset` 0 and
/// seq 0: the start of the file).
fn ends_with_seq(file: &mut File, offset: u64, seq: u64) -> std::io::Result<bool> {
    if offset == 0 {
        return Ok(seq == 0);
    }
    let chunk = offset.min(64 * 1024);
    file.seek(SeekFrom::Start(offset - chunk))?;
    let mut buf = vec![0u8; usize::try_from(chunk).unwrap_or(0)];
    file.read_exact(&mut buf)?;
    if buf.last() != Some(&b'\n') {
        return Ok(false);
    }
    let body = &buf[..buf.len() - 1];
    let line = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => &body[i + 1..],
        None if chunk == offset => body,
        None => return Ok(false),
    };
    Ok(LineHead::of(line).is_some_and(|h| h.seq == seq))
}

/// The retention cutoff of the policy, if it keeps days.
pub(crate) fn retention_cutoff(ctx: &Ctx, days: Option<u64>) -> Option<OffsetDateTime> {
    let days = i64::try_from(days?).unwrap_or(i64::MAX).min(1_000_000);
    Some(ctx.clock.now() - time::Duration::days(days))
}

/// The fixed identity of a writer's journal commits.
pub(crate) fn identity(writer: &str) -> Identity {
    Identity {
        name: "majordomus journal".to_owned(),
        email: format!("{writer}@majordomus"),
    }
}

/// Publishes this writer's lines not yet in its journal. Refuses when sharing is off
/// (`journal.share`, and `journal enable` in this worktree), and when a line still
/// carries a secret shape (nothing is published then).
pub fn publish(ctx: &Ctx) -> Result<Published, Error> {
    publish_under(ctx, &ctx.policy()?)
}

/// [`publish`] under a policy the caller already read (an episode boundary).
pub(crate) fn publish_under(ctx: &Ctx, policy: &crate::model::Policy) -> Result<Published, Error> {
    let _phase = crate::timing::Phase::start("journal.publish");
    let mut state = state::read(ctx)?;
    if !policy.journal.share || state.remote.is_none() {
        return Err(JournalError::NotEnabled.into());
    }
    let writer = state::writer_or_new(ctx)?;
    let _lock = state::Lock::acquire(ctx)?;
    // Re-read under the lock: another publish of this worktree may have moved the mark.
    state = state::read(ctx)?;
    let published = publish_locked(ctx, &writer, &mut state, policy.ledger.retention_days)?;
    state::write_after_publish(ctx, &state)?;
    Ok(published)
}

fn publish_locked(
    ctx: &Ctx,
    writer: &str,
    state: &mut WriterState,
    retention_days: Option<u64>,
) -> Result<Published, Error> {
    let reference = journal::local_ref(writer);
    let cutoff = retention_cutoff(ctx, retention_days);
    let branch = ctx
        .repo
        .head()?
        .branch
        .map(|b| crate::model::redact::redact(&b).text);
    for _ in 0..ATTEMPTS {
        let mut read = crate::timing::Phase::start("journal.publish.read");
        let tip = ctx.repo.ref_target(&reference)?;
        let previous = match &tip {
            Some(tip) => Some(tip_meta(ctx, tip, writer, &reference)?),
            None => None,
        };
        let after = previous
            .as_ref()
            .map_or(0, |m| m.last_seq)
            .max(state.enabled_after);
        let mark = state
            .published
            .as_ref()
            .filter(|m| tip.as_deref().unwrap_or_default() == m.commit);
        let (lines, end) = lines_after(ctx, mark, after)?;
        let mut older = 0u64;
        let lines: Vec<RawLine> = lines
            .into_iter()
            .filter(|l| {
                let keep = cutoff
                    .is_none_or(|c| crate::model::time::parse(&l.ts).is_none_or(|ts| ts >= c));
                older += u64::from(!keep);
                keep
            })
            .collect();
        let Some((first, last)) = lines.first().zip(lines.last()) else {
            state.published = Some(PublishedMark {
                seq: after,
                offset: end,
                commit: tip.clone().unwrap_or_default(),
            });
            return Ok(Published {
                writer: writer.to_owned(),
                reference,
                commit: tip,
                lines: 0,
                first_seq: None,
                last_seq: None,
                older_than_retention: older,
            });
        };
        // Every segment is checked before any is written (nothing is published when one
        // line still carries a secret shape); one pass over each, the line named only
        // when there is one. A segment at a time: a first publish of a long ledger never
        // holds a second copy of it.
        let chunks = segments(&lines, journal::SEGMENT_BYTES);
        for chunk in &chunks {
            let bytes = segment_bytes(chunk);
            let text = String::from_utf8_lossy(&bytes);
            if !journal::secret_shapes(&text).is_empty()
                && let Some((line, shapes)) = chunk.iter().find_map(|l| {
                    let shapes =
                        crate::model::redact::find_shapes(&String::from_utf8_lossy(&l.bytes));
                    (!shapes.is_empty()).then_some((l, shapes))
                })
            {
                return Err(JournalError::Secret {
                    seq: line.seq,
                    shapes: shapes.into_iter().map(str::to_owned).collect(),
                    ledger: ctx.layout.display(&ctx.layout.ledger()),
                }
                .into());
            }
        }
        read.count("lines", lines.len());
        read.end();
        // One commit per segment of at most SEGMENT_BYTES (a line longer than that is a
        // segment of its own), chained, then one compare-and-swap of the ref to the last:
        // git's delta search on a fetch costs with the square of a blob's size, and a
        // first publish of a long ledger (`--include-history`) would otherwise be one blob
        // of everything.
        let objects = crate::timing::Phase::start("journal.publish.objects");
        let mut parent = tip.clone();
        let mut total = previous.as_ref().map_or(0, |m| m.lines);
        let first_seq = previous.as_ref().map_or(first.seq, |m| m.first_seq);
        for chunk in chunks {
            let (head, tail) = (&chunk[0], &chunk[chunk.len() - 1]);
            let segment = segment_bytes(chunk);
            total += chunk.len() as u64;
            let meta = JournalMeta {
                format: journal::FORMAT,
                writer: writer.to_owned(),
                branch: branch.clone(),
                segment: journal::segment_path(head.seq),
                segment_first: head.seq,
                segment_last: tail.seq,
                lines: total,
                first_seq,
                last_seq: tail.seq,
                last_ts: tail.ts.clone(),
            };
            let seconds =
                crate::model::time::parse(&tail.ts).map_or(0, OffsetDateTime::unix_timestamp);
            let commit = ctx.repo.write_journal_commit(
                parent.as_deref(),
                (&meta.segment, &segment),
                &format!("journal {writer}: #{}..#{}", head.seq, tail.seq),
                &meta.to_bytes(),
                seconds,
                &identity(writer),
            )?;
            parent = Some(commit);
        }
        let commit = parent.unwrap_or_default();
        objects.end();
        let _cas = crate::timing::Phase::start("journal.publish.ref");
        match ctx.repo.update_ref_cas(
            &reference,
            tip.as_deref(),
            &commit,
            &format!("majordomus journal: publish #{}..#{}", first.seq, last.seq),
        )? {
            RefUpdate::Updated => {
                state.published = Some(PublishedMark {
                    seq: last.seq,
                    offset: end,
                    commit: commit.clone(),
                });
                return Ok(Published {
                    writer: writer.to_owned(),
                    reference,
                    commit: Some(commit),
                    lines: lines.len() as u64,
                    first_seq: Some(first.seq),
                    last_seq: Some(last.seq),
                    older_than_retention: older,
                });
            }
            RefUpdate::Moved => continue,
        }
    }
    Err(JournalError::Contended {
        reference,
        attempts: ATTEMPTS,
    }
    .into())
}

/// A segment's bytes: its lines, each with its newline.
fn segment_bytes(lines: &[RawLine]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.bytes.len() + 1).sum());
    for line in lines {
        out.extend_from_slice(&line.bytes);
        out.push(b'\n');
    }
    out
}

/// `lines` cut into runs of at most `limit` bytes each (newlines counted), in order; a
/// line longer than `limit` is a run of its own.
fn segments<T: AsRef<[u8]>>(lines: &[T], limit: usize) -> Vec<&[T]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        let size = line.as_ref().len() + 1;
        if i > start && bytes + size > limit {
            out.push(&lines[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    if start < lines.len() {
        out.push(&lines[start..]);
    }
    out
}

/// The `journal.json` of this writer's tip, checked.
pub(crate) fn tip_meta(
    ctx: &Ctx,
    tip: &str,
    writer: &str,
    reference: &str,
) -> Result<JournalMeta, Error> {
    let bytes = ctx
        .repo
        .journal_meta(tip)?
        .ok_or_else(|| JournalError::Unreadable {
            reference: reference.to_owned(),
            message: format!("commit {tip} has no journal.json"),
        })?;
    JournalMeta::parse(&bytes, writer).map_err(|message| {
        JournalError::Unreadable {
            reference: reference.to_owned(),
            message,
        }
        .into()
    })
}

/// One segment of a journal, as its chain of commits holds it.
pub(crate) struct SegmentFile {
    /// `<first seq>.jsonl` (or `segments/<first seq>.jsonl`, in a commit of the earlier
    /// shape).
    pub path: String,
    pub first: u64,
    pub bytes: Vec<u8>,
}

/// Every segment the journal at `tip` holds, by first seq: one per commit of its chain,
/// read from that commit (a commit's tree holds only its own segment). A commit whose
/// `journal.json` does not read as this writer's, or whose segment is missing or not of a
/// segment's shape, adds nothing.
pub(crate) fn segments_at(ctx: &Ctx, tip: &str, writer: &str) -> Result<Vec<SegmentFile>, Error> {
    let chain = ctx.repo.journal_chain(tip, None, CHAIN_LIMIT)?;
    let mut by_first = std::collections::BTreeMap::new();
    for commit in chain.commits {
        let Some(meta) = commit
            .meta
            .as_deref()
            .and_then(|bytes| JournalMeta::parse(bytes, writer).ok())
        else {
            continue;
        };
        let Some(first) = journal::segment_first_seq(&meta.segment) else {
            continue;
        };
        let Some(bytes) = ctx.repo.blob_in_commit(&commit.id, &meta.segment)? else {
            continue;
        };
        by_first.insert(
            first,
            SegmentFile {
                path: meta.segment,
                first,
                bytes,
            },
        );
    }
    Ok(by_first.into_values().collect())
}

/// Commits read from one journal in one go at most (a chain longer than that is a
/// journal no publish writes: one commit per episode boundary or push).
pub(crate) const CHAIN_LIMIT: usize = 1_000_000;

#[cfg(test)]
mod tests {
    use super::segments;

    #[test]
    fn segments_hold_at_most_the_limit_and_never_split_a_line() {
        let lines = ["aaaa", "bb", "cccccccccc", "d", "e"];
        // Sizes with newlines: 5, 3, 11, 2, 2.
        let cut: Vec<Vec<&str>> = segments(&lines, 8).into_iter().map(<[_]>::to_vec).collect();
        assert_eq!(
            cut,
            vec![vec!["aaaa", "bb"], vec!["cccccccccc"], vec!["d", "e"]]
        );
        assert_eq!(segments(&lines, 1 << 20).len(), 1);
        assert!(segments::<&str>(&[], 8).is_empty());
    }
}
