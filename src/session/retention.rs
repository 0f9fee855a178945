//! `ledger.retention_days` at `session close` (SPEC §3): lines older than the retention
//! are pruned by the rules of [`crate::model::retention`], the ledger rewritten under its
//! lock with a `ledger.pruned` line at its end, and the index rebuilt.

use crate::Ctx;
use crate::error::Error;
use crate::model::event::LedgerPruned;
use crate::model::{LineDraft, Policy};
use crate::store::index::LedgerIndex;

/// Prunes the ledger when the policy keeps days and some line may be older; `None` when
/// nothing was pruned. A pass that leaves lines (an open question, an episode not yet
/// derived) is not repeated until the cutoff has moved a day, so a close does not reread
/// the ledger every time for lines it must keep.
pub(super) fn prune(ctx: &Ctx, policy: &Policy) -> Result<Option<LedgerPruned>, Error> {
    let Some(days) = policy.ledger.retention_days else {
        return Ok(None);
    };
    let days = i64::try_from(days).unwrap_or(i64::MAX).min(1_000_000);
    let cutoff = ctx.clock.now() - time::Duration::days(days);
    let before = crate::model::time::rfc3339(cutoff);
    let index = ctx.index()?;
    if index.first_time()?.is_none_or(|first| first >= cutoff) {
        return Ok(None);
    }
    if let Some(checked) = index
        .retention_checked()
        .and_then(crate::model::time::parse)
        && checked > cutoff - time::Duration::days(1)
    {
        return Ok(None);
    }
    let open = ctx.episode()?.map(|e| e.id);
    let now = ctx.now();
    let rewritten = LedgerIndex::rewrite_ledger(
        &ctx.layout,
        |lines| crate::model::retention::plan(lines, cutoff, open.as_deref()),
        |dropped| {
            LineDraft::new(
                now,
                None,
                None,
                &LedgerPruned {
                    lines: dropped,
                    before: before.clone(),
                },
            )
        },
        &before,
    )?;
    Ok((rewritten.dropped > 0).then_some(LedgerPruned {
        lines: rewritten.dropped,
        before,
    }))
}
