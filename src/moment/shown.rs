//! `recall --shown [--session ID]` (operation `recall.shown`): what the memory put before
//! the model in one episode: each `context.shown` line, where (briefing, prompt, edit, a
//! tool), which records and their status at that moment.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::Event;
use crate::model::event::ContextShown;
use crate::model::ids::IdKind;
use crate::model::moment::ShownSummary;
use crate::model::window::ShownEntry;
use crate::store::index::LineQuery;

/// `recall.shown`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShownRequest {
    /// Default: the open episode, else the newest.
    #[serde(default)]
    pub session: Option<String>,
}

/// What `recall --shown` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShownReport {
    /// The episode (none: this ledger knows no episode yet).
    pub session: Option<String>,
    /// The episode is the open one.
    pub open: bool,
    pub entries: Vec<ShownEntry>,
    pub summary: ShownSummary,
    /// Each record's one line, as the recall index holds it now (`kind:id` → line).
    pub lines: BTreeMap<String, String>,
}

/// `majordomus recall --shown [--session ID]`.
pub fn shown(ctx: &Ctx, request: ShownRequest) -> Result<ShownReport, Error> {
    let open = ctx.episode()?;
    let index = ctx.index()?;
    let session = match request.session {
        Some(id) => {
            Refusal::check_id(IdKind::Episode, &id)?;
            if open.as_ref().is_none_or(|o| o.id != id)
                && index.opened_episodes([id.as_str()])?.is_empty()
            {
                return Err(Refusal::UnknownEpisode { id }.into());
            }
            Some(id)
        }
        None => match &open {
            Some(o) => Some(o.id.clone()),
            None => index.last_of(Event::SessionOpened)?.and_then(|l| l.session),
        },
    };
    let Some(session) = session else {
        return Ok(ShownReport {
            session: None,
            open: false,
            entries: Vec::new(),
            summary: ShownSummary::default(),
            lines: BTreeMap::new(),
        });
    };
    let entries: Vec<ShownEntry> = index
        .lines(&LineQuery {
            session: Some(&session),
            event: Some(Event::ContextShown),
            since: None,
        })?
        .into_iter()
        .filter_map(|line| {
            let shown = line.payload::<ContextShown>()?;
            Some(ShownEntry {
                seq: line.seq,
                ts: line.ts,
                place: shown.place,
                records: shown.records,
                files: shown.files,
                tool: shown.tool,
            })
        })
        .collect();
    let summary = ShownSummary::of(&entries);
    let lines = record_lines(ctx, &entries);
    Ok(ShownReport {
        open: open.is_some_and(|o| o.id == session),
        session: Some(session),
        entries,
        summary,
        lines,
    })
}

/// The one line of each record shown, from the recall index when there is one (a record
/// removed since has none).
fn record_lines(ctx: &Ctx, entries: &[ShownEntry]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if entries.is_empty() || !ctx.layout.recall_index().exists() {
        return out;
    }
    let Ok(opened) = crate::recall::sync::open(ctx) else {
        return out;
    };
    let wanted: Vec<(String, String)> = entries
        .iter()
        .flat_map(|e| e.records.iter())
        .filter_map(|r| {
            r.id.split_once(':')
                .map(|(k, id)| (k.to_owned(), id.to_owned()))
        })
        .collect();
    let keys: Vec<String> = wanted.iter().map(|(_, id)| id.clone()).collect();
    let rows = opened
        .db
        .reader()
        .docs_where(crate::store::recall::Column::Key, &keys)
        .unwrap_or_default();
    for (kind, id) in wanted {
        if let Some(row) = rows.iter().find(|r| r.kind == kind && r.key == id) {
            out.insert(format!("{kind}:{id}"), row.line.clone());
        }
    }
    out
}
