//! `journal prune`: `ledger.retention_days` applied to what this writer has published. A
//! segment whose every line is older than the retention is dropped by rewriting this
//! writer's own ref as a new chain of the segments kept (same times, same identity: the
//! same kept segments give the same commits). Dry run by default; `--apply` moves the ref
//! (by compare-and-swap), and the next journal push force-updates this writer's ref on the
//! remote: only its own, which only it writes. The newest segment is always kept: it
//! carries the journal's last seq, so nothing is ever published twice.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{publish, state};
use crate::Ctx;
use crate::error::Error;
use crate::git::RefUpdate;
use crate::model::journal::{self, JournalError, JournalMeta, LineHead};

/// `journal.prune`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PruneRequest {
    /// Rewrite this writer's ref (by default only say what would go).
    #[serde(default)]
    pub apply: bool,
}

/// What `journal prune` found, and did with `--apply`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Pruned {
    pub applied: bool,
    /// Lines older than this go (`None`: the policy keeps everything).
    pub cutoff: Option<String>,
    pub reference: Option<String>,
    /// Segments that go (all their lines are older than the cutoff).
    pub segments: Vec<String>,
    pub lines: u64,
    /// Segments kept.
    pub kept: usize,
    /// The new tip, when applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

struct Segment {
    path: String,
    bytes: Vec<u8>,
    first: u64,
    last: u64,
    last_ts: String,
    lines: u64,
}

pub fn prune(ctx: &Ctx, request: PruneRequest) -> Result<Pruned, Error> {
    let policy = ctx.policy()?;
    let cutoff = publish::retention_cutoff(ctx, policy.ledger.retention_days);
    let writer = state::writer(ctx)?;
    let reference = writer.as_deref().map(journal::local_ref);
    let empty = |reference: Option<String>| Pruned {
        applied: false,
        cutoff: cutoff.map(crate::model::time::rfc3339),
        reference,
        segments: Vec::new(),
        lines: 0,
        kept: 0,
        commit: None,
    };
    let (Some(cut), Some(writer), Some(reference)) = (cutoff, writer, reference) else {
        return Ok(empty(None));
    };
    let _lock = state::Lock::acquire(ctx)?;
    let Some(tip) = ctx.repo.ref_target(&reference)? else {
        return Ok(empty(Some(reference)));
    };
    let meta = publish::tip_meta(ctx, &tip, &writer, &reference)?;
    let mut segments = Vec::new();
    for file in publish::segments_at(ctx, &tip, &writer)? {
        let heads: Vec<LineHead> = file
            .bytes
            .split(|&b| b == b'\n')
            .filter_map(LineHead::of)
            .collect();
        let Some(last) = heads.last() else { continue };
        segments.push(Segment {
            path: file.path,
            first: file.first,
            last: last.seq,
            last_ts: last.ts.clone(),
            lines: heads.len() as u64,
            bytes: file.bytes,
        });
    }
    segments.sort_by_key(|s| s.first);
    let newest = segments.last().map(|s| s.first);
    let (gone, kept): (Vec<&Segment>, Vec<&Segment>) = segments.iter().partition(|s| {
        Some(s.first) != newest && crate::model::time::parse(&s.last_ts).is_some_and(|t| t < cut)
    });
    let mut out = Pruned {
        applied: false,
        cutoff: Some(crate::model::time::rfc3339(cut)),
        reference: Some(reference.clone()),
        segments: gone.iter().map(|s| s.path.clone()).collect(),
        lines: gone.iter().map(|s| s.lines).sum(),
        kept: kept.len(),
        commit: None,
    };
    if !request.apply || gone.is_empty() {
        return Ok(out);
    }
    // The kept segments, one commit each, as publishing them in order would have made.
    let mut parent: Option<String> = None;
    let mut total = 0u64;
    let first_seq = kept.first().map_or(meta.first_seq, |s| s.first);
    for segment in &kept {
        total += segment.lines;
        let meta = JournalMeta {
            format: journal::FORMAT,
            writer: writer.clone(),
            branch: meta.branch.clone(),
            segment: journal::segment_path(segment.first),
            segment_first: segment.first,
            segment_last: segment.last,
            lines: total,
            first_seq,
            last_seq: segment.last,
            last_ts: segment.last_ts.clone(),
        };
        let seconds = crate::model::time::parse(&segment.last_ts)
            .map_or(0, time::OffsetDateTime::unix_timestamp);
        parent = Some(ctx.repo.write_journal_commit(
            parent.as_deref(),
            (&meta.segment, &segment.bytes),
            &format!("journal {writer}: #{}..#{}", segment.first, segment.last),
            &meta.to_bytes(),
            seconds,
            &publish::identity(&writer),
        )?);
    }
    let new = parent.expect("the newest segment is always kept");
    match ctx
        .repo
        .update_ref_cas(&reference, Some(&tip), &new, "majordomus journal: prune")?
    {
        RefUpdate::Updated => {}
        RefUpdate::Moved => {
            return Err(JournalError::Contended {
                reference,
                attempts: 1,
            }
            .into());
        }
    }
    let mut st = state::read(ctx)?;
    st.published = None;
    st.force_push = true;
    state::write(ctx, &st)?;
    out.applied = true;
    out.commit = Some(new);
    Ok(out)
}
