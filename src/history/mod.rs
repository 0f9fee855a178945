//! `majordomus history`: the ledger read back, filtered, merged with every other writer's
//! journal this clone has (SPEC §12), each of their lines marked with its writer. A
//! filtered read goes through each ledger's index and reads only the lines it prints; an
//! unfiltered one reads everything.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, UsageError};
use crate::journal::JournalFinding;
use crate::model::event::LedgerPruned;
use crate::model::{Event, LedgerLine};
use crate::store::index::{IndexRebuilt, LineQuery};
use crate::store::ledger::Skipped;

/// `history`: every filter given must match.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// Only lines of this event, or of any of a list (e.g. `decision.recorded`).
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(schema_with = "event_names_schema")]
    pub event: Vec<String>,
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

/// `event` as a caller gives it: absent or `null`, one name, or a list of names.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<Names>::deserialize(d)? {
        None => Vec::new(),
        Some(Names::One(name)) => vec![name],
        Some(Names::Many(names)) => names,
    })
}

/// The schema of `event`: a list of event names (one name alone, as earlier callers send
/// it, is still read as a list of one).
fn event_names_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<serde_json::Value> = Event::ALL.iter().map(|e| e.name().into()).collect();
    schemars::json_schema!({"type": ["array", "null"], "items": {"enum": names}})
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

/// A line of the merged history: a ledger line, and whose it is when it is another
/// writer's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HistoryLine {
    #[serde(flatten)]
    pub line: LedgerLine,
    /// The writer id of another writer's journal (a fetched clone, a linked worktree);
    /// absent for this checkout's own lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
    /// That writer's branch at its last publish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_branch: Option<String>,
}

impl std::ops::Deref for HistoryLine {
    type Target = LedgerLine;
    fn deref(&self) -> &LedgerLine {
        &self.line
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct History {
    /// Oldest first; with other writers' journals, ordered by time, then writer, then seq.
    pub lines: Vec<HistoryLine>,
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
    /// The other writers whose lines are merged in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writers: Vec<String>,
    /// Journal commits and lines skipped reading them (never fatal).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub journal_findings: Vec<JournalFinding>,
}

/// The lines matching every given filter, oldest first: looked up in the ledger index when
/// filtered, read in one pass when not.
pub fn history(ctx: &Ctx, filter: HistoryRequest) -> Result<History, Error> {
    let mut events = Vec::new();
    for name in &filter.event {
        let event = Event::from_name(name).ok_or_else(|| UsageError::UnknownEvent {
            value: name.clone(),
        })?;
        if !events.contains(&event) {
            events.push(event);
        }
    }
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
    let unfiltered = events.is_empty() && filter.session.is_none() && since.is_none();
    let query = Query {
        session: filter.session.as_deref(),
        events: &events,
        since,
    };
    let (own, skipped) = if unfiltered {
        let mut lines = Vec::new();
        let skipped = ctx.ledger().scan(0, |line| lines.push(line))?;
        (lines, skipped)
    } else {
        (query.lines(&index)?, index.skipped()?.lines)
    };
    let mut lines: Vec<HistoryLine> = own
        .into_iter()
        .map(|line| HistoryLine {
            line,
            writer: None,
            writer_branch: None,
        })
        .collect();
    let journals = crate::journal::journals(ctx)?;
    let mut phase = crate::timing::Phase::start("history.journals");
    let mut writers = Vec::new();
    for journal in &journals.journals {
        let theirs = if unfiltered {
            crate::journal::read_all(ctx, journal)?
        } else {
            query.lines(&journal.index(ctx)?)?
        };
        writers.push(journal.writer.clone());
        lines.extend(theirs.into_iter().map(|line| HistoryLine {
            line,
            writer: Some(journal.writer.clone()),
            writer_branch: journal.branch.clone(),
        }));
    }
    phase.count("writers", writers.len());
    phase.end();
    if !writers.is_empty() {
        merge(&mut lines);
    }
    let prunes = index.pruned()?;
    let pruned = prunes.last().map(|last| LedgerPruned {
        lines: prunes.iter().map(|p| p.lines).sum(),
        before: last.before.clone(),
    });
    let worktrees = if filter.all_worktrees {
        elsewhere(ctx, &events, filter.session.as_deref(), since)
    } else {
        Vec::new()
    };
    Ok(History {
        lines,
        skipped,
        pruned,
        index_rebuilt: index.rebuilt().cloned(),
        worktrees,
        writers,
        journal_findings: journals.findings,
    })
}

/// The filters of one read: every one given must match; `events` matches a line of any of
/// them.
struct Query<'a> {
    session: Option<&'a str>,
    events: &'a [Event],
    since: Option<time::OffsetDateTime>,
}

impl Query<'_> {
    /// The lines of one ledger matching the query, oldest first: one index lookup per
    /// event, merged in ledger order.
    fn lines(&self, index: &crate::store::index::LedgerIndex) -> Result<Vec<LedgerLine>, Error> {
        let query = |event| LineQuery {
            session: self.session,
            event,
            since: self.since,
        };
        if self.events.len() <= 1 {
            return Ok(index.lines(&query(self.events.first().copied()))?);
        }
        let mut lines = Vec::new();
        for event in self.events {
            lines.extend(index.lines(&query(Some(*event)))?);
        }
        lines.sort_by_key(|l| l.seq);
        Ok(lines)
    }
}

/// Orders merged lines by time, then writer (this checkout's own first), then seq, and
/// keeps one line per (writer, seq).
fn merge(lines: &mut Vec<HistoryLine>) {
    let mut keyed: Vec<(Option<time::OffsetDateTime>, HistoryLine)> = std::mem::take(lines)
        .into_iter()
        .map(|l| (crate::model::time::parse(&l.line.ts), l))
        .collect();
    keyed.sort_by(|(ta, a), (tb, b)| {
        ta.cmp(tb)
            .then_with(|| a.line.ts.cmp(&b.line.ts))
            .then_with(|| a.writer.cmp(&b.writer))
            .then_with(|| a.line.seq.cmp(&b.line.seq))
    });
    let mut seen = std::collections::HashSet::new();
    lines.extend(
        keyed
            .into_iter()
            .map(|(_, l)| l)
            .filter(|l| seen.insert((l.writer.clone(), l.line.seq))),
    );
}

/// The other worktrees' lines matching the filters: each ledger read in one pass (another
/// worktree's index is its own, never written from here).
fn elsewhere(
    ctx: &Ctx,
    events: &[Event],
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
                let keep = (events.is_empty() || events.contains(&line.event))
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
