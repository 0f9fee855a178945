//! `majordomus history`: the ledger read back, filtered. A filtered read goes through the
//! ledger index and reads only the lines it prints; an unfiltered one reads everything.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, UsageError};
use crate::model::event::LedgerPruned;
use crate::model::{Event, LedgerLine};
use crate::store::index::{IndexRebuilt, LineQuery};
use crate::store::ledger::Skipped;

/// `history`: every filter given must match.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// Only lines of this event (e.g. `decision.recorded`).
    #[serde(default)]
    #[schemars(schema_with = "crate::model::event::name_schema")]
    pub event: Option<String>,
    /// Only lines stamped with this episode id.
    #[serde(default)]
    pub session: Option<String>,
    /// Only lines at or after this time (RFC 3339, or `YYYY-MM-DD`).
    #[serde(default)]
    #[schemars(schema_with = "crate::model::time::since_schema")]
    pub since: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct History {
    pub lines: Vec<LedgerLine>,
    /// Lines that could not be read (torn or unreadable), never fatal.
    pub skipped: Vec<Skipped>,
    /// What retention pruned from this ledger, over every prune (`before`: the newest
    /// prune's cutoff), when it pruned anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned: Option<LedgerPruned>,
    /// Set when this read rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// The lines matching every given filter, oldest first: looked up in the ledger index when
/// filtered, read in one pass when not.
pub fn history(ctx: &Ctx, filter: HistoryRequest) -> Result<History, Error> {
    ctx.require_initialised()?;
    let event = match &filter.event {
        Some(name) => Some(
            Event::from_name(name).ok_or_else(|| UsageError::UnknownEvent {
                value: name.clone(),
            })?,
        ),
        None => None,
    };
    let since = match &filter.since {
        Some(text) => {
            Some(
                crate::model::time::parse(text).ok_or_else(|| UsageError::InvalidSince {
                    value: text.clone(),
                })?,
            )
        }
        None => None,
    };
    // An episode id is looked up in the ledger index: one of another shape names nothing
    // and is refused like everywhere else (SPEC §0).
    if let Some(session) = &filter.session {
        crate::error::Refusal::check_id(crate::model::ids::IdKind::Episode, session)?;
    }
    let index = ctx.index()?;
    let (lines, skipped) = if event.is_none() && filter.session.is_none() && since.is_none() {
        let mut lines = Vec::new();
        let skipped = ctx.ledger().scan(0, |line| lines.push(line))?;
        (lines, skipped)
    } else {
        let query = LineQuery {
            session: filter.session.as_deref(),
            event,
            since,
        };
        (index.lines(&query)?, index.skipped()?.lines)
    };
    let prunes = index.pruned()?;
    let pruned = prunes.last().map(|last| LedgerPruned {
        lines: prunes.iter().map(|p| p.lines).sum(),
        before: last.before.clone(),
    });
    Ok(History {
        lines,
        skipped,
        pruned,
        index_rebuilt: index.rebuilt().cloned(),
    })
}
