//! Recorded provider hook failures (`provider.event.failed`, shown by `doctor`) and what
//! clears them: a later run of the same hook that succeeds, or a person's acknowledgement
//! (`majordomus hooks acknowledge`), each a `provider.event.cleared` line.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ProviderHook;
use crate::Ctx;
use crate::error::Error;
use crate::model::event::{ClearedBy, ProviderEventCleared};

/// `hooks.acknowledge`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcknowledgeRequest {
    /// Acknowledge the failures up to this ledger seq (doctor's fix names the newest it
    /// showed); default: every failure recorded so far.
    #[serde(default)]
    pub through: Option<u64>,
}

/// What `hooks acknowledge` cleared.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Acknowledged {
    /// Failures doctor no longer shows.
    pub cleared: u64,
    /// The seq of the newest failure acknowledged (none: there was nothing to clear).
    pub through: Option<u64>,
    /// Failures recorded after `through`, still shown.
    pub left: u64,
}

/// `majordomus hooks acknowledge [--through SEQ]`: the recorded provider hook failures up
/// to `through` stop being doctor findings; the lines stay in the ledger (`history`).
pub fn acknowledge(ctx: &Ctx, request: AcknowledgeRequest) -> Result<Acknowledged, Error> {
    let index = ctx.index()?;
    let (failures, total) = index.provider_failures();
    let newest = failures.iter().map(|f| f.seq).max();
    let through = match (request.through, newest) {
        (Some(asked), Some(newest)) => Some(asked.min(newest)),
        (None, newest) => newest,
        (Some(_), None) => None,
    };
    let Some(through) = through else {
        return Ok(Acknowledged {
            cleared: 0,
            through: None,
            left: total,
        });
    };
    let left = failures.iter().filter(|f| f.seq > through).count() as u64;
    let session = ctx.episode()?.map(|e| e.id);
    ctx.append(
        session.as_deref(),
        None,
        &ProviderEventCleared {
            hook: None,
            provider: None,
            through,
            by: ClearedBy::Acknowledgement,
        },
    )?;
    Ok(Acknowledged {
        cleared: total - left,
        through: Some(through),
        left,
    })
}

/// After `hook` of `provider` ran through, clears that hook's earlier recorded failures:
/// the warning has done its work once the same hook works again. Best effort: a hook that
/// succeeded never fails because its bookkeeping could not be written.
pub(super) fn clear_after_success(ctx: &Ctx, hook: ProviderHook, provider: &str) {
    if !may_have_failures(ctx, hook, provider) {
        return;
    }
    let Ok(index) = ctx.index() else {
        return;
    };
    let (failures, _) = index.provider_failures();
    let Some(through) = failures
        .iter()
        .filter(|f| f.hook == hook.name() && f.provider == provider)
        .map(|f| f.seq)
        .max()
    else {
        return;
    };
    let session = ctx.episode().ok().flatten().map(|e| e.id);
    let _ = ctx.append(
        session.as_deref(),
        None,
        &ProviderEventCleared {
            hook: Some(hook.name().to_owned()),
            provider: Some(provider.to_owned()),
            through,
            by: ClearedBy::Success,
        },
    );
}

/// Whether the ledger may hold a failure of `hook` for `provider` not cleared yet, asked
/// without bringing the ledger index up to date: the failures its manifest knew of, and
/// the lines past what it covers searched for the event's name (most runs find neither
/// and write nothing). Anything it cannot read answers "maybe".
fn may_have_failures(ctx: &Ctx, hook: ProviderHook, provider: &str) -> bool {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let Some((failures, covered)) =
        crate::store::index::LedgerIndex::peek_provider_failures(&ctx.layout)
    else {
        return true;
    };
    if failures
        .iter()
        .any(|f| f.hook == hook.name() && f.provider == provider)
    {
        return true;
    }
    let path = ctx.layout.ledger();
    let Ok(mut file) = std::fs::File::open(&path) else {
        return true;
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return true;
    };
    if len < covered || file.seek(SeekFrom::Start(covered)).is_err() {
        return true;
    }
    let mut tail = Vec::new();
    if file.take(len - covered).read_to_end(&mut tail).is_err() {
        return true;
    }
    let name = crate::model::Event::ProviderEventFailed.name().as_bytes();
    tail.windows(name.len()).any(|w| w == name)
}
