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
    /// Also the other worktrees' ledgers of this clone (SPEC §12), each under its path,
    /// with the same filters.
    #[serde(default)]
    pub all_worktrees: bool,
}

/// Another worktree's ledger lines, as `history --all-worktrees` reads them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorktreeHistory {
    /// The worktree's directory.
    pub worktree: String,
    /// The branch its HEAD names.
    pub branch: Option<String>,
    pub lines: Vec<LedgerLine>,
    /// How many of its lines could not be read (torn or unreadable), never fatal.
    pub skipped: usize,
    /// Why its ledger could not be read at all (gone, not set up, unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
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
    /// With `all_worktrees`: each other worktree's lines, in worktree order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worktrees: Vec<WorktreeHistory>,
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
    let worktrees = if filter.all_worktrees {
        elsewhere(ctx, event, filter.session.as_deref(), since)
    } else {
        Vec::new()
    };
    Ok(History {
        lines,
        skipped,
        pruned,
        index_rebuilt: index.rebuilt().cloned(),
        worktrees,
    })
}

/// The other worktrees' lines matching the filters: each ledger read in one pass (another
/// worktree's index is its own, never written from here).
fn elsewhere(
    ctx: &Ctx,
    event: Option<Event>,
    session: Option<&str>,
    since: Option<time::OffsetDateTime>,
) -> Vec<WorktreeHistory> {
    use crate::worktrees::WorktreeState;
    crate::worktrees::others(ctx)
        .into_iter()
        .map(|w| {
            let mut out = WorktreeHistory {
                worktree: w.path.clone(),
                branch: w.branch.clone(),
                lines: Vec::new(),
                skipped: 0,
                unreadable: None,
            };
            match w.state {
                WorktreeState::Gone | WorktreeState::NotInitialised => {
                    out.unreadable = Some(match w.state {
                        WorktreeState::Gone => format!(
                            "gone: {}",
                            w.reason.as_deref().unwrap_or("its directory is not there")
                        ),
                        _ => "majordomus is not set up there (no .ai/)".to_owned(),
                    });
                    return out;
                }
                _ => {}
            }
            let ledger = crate::store::Ledger::new(
                crate::store::Layout::new(std::path::PathBuf::from(&w.path)).ledger(),
            );
            let mut lines = Vec::new();
            match ledger.scan(0, |line| {
                let keep = event.is_none_or(|e| line.event == e)
                    && session.is_none_or(|s| line.session.as_deref() == Some(s))
                    && since.is_none_or(|since| {
                        crate::model::time::parse(&line.ts).is_some_and(|at| at >= since)
                    });
                if keep {
                    lines.push(line);
                }
            }) {
                Ok(skipped) => {
                    out.skipped = skipped.len();
                    out.lines = lines;
                }
                Err(e) => out.unreadable = Some(e.to_string()),
            }
            out
        })
        .collect()
}
