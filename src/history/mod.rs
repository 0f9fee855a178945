//! `majordomus history`: the ledger read back, filtered.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, UsageError};
use crate::model::{Event, LedgerLine};
use crate::store::ledger::Skipped;

/// `history`: every filter given must match.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// Only lines of this event (e.g. `decision.recorded`).
    #[serde(default)]
    pub event: Option<String>,
    /// Only lines stamped with this episode id.
    #[serde(default)]
    pub session: Option<String>,
    /// Only lines at or after this time (RFC 3339, or `YYYY-MM-DD`).
    #[serde(default)]
    pub since: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct History {
    pub lines: Vec<LedgerLine>,
    /// Lines that could not be read (torn or unreadable), never fatal.
    pub skipped: Vec<Skipped>,
}

/// Reads the ledger in one pass and keeps the lines matching every given filter.
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
    let mut lines = Vec::new();
    let skipped = ctx.ledger().scan(0, |line| {
        if event.is_some_and(|e| e != line.event) {
            return;
        }
        if filter
            .session
            .as_deref()
            .is_some_and(|s| line.session.as_deref() != Some(s))
        {
            return;
        }
        if let Some(since) = since {
            match crate::model::time::parse(&line.ts) {
                Some(ts) if ts >= since => {}
                _ => return,
            }
        }
        lines.push(line);
    })?;
    Ok(History { lines, skipped })
}
