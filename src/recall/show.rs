//! `majordomus show <kind>:<id>`: one record, whole — a file's text as it is on disk, a
//! ledger line's from the index, a task's decisions in ledger order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{RecallKind, sync};
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::ids::IdKind;
use crate::model::input::check_size;
use crate::model::recall::HitStatus;
use crate::store::recall::Column;

/// `recall.show`: one hit, whole.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowRequest {
    /// `<kind>:<id>`, as a hit names it.
    pub reference: String,
}

/// One record, whole.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Shown {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    /// Where it lives: a file relative to the root, or `ledger` (with its offset).
    pub source: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub date: String,
    /// The knowledge record a ledger line derived, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived: Option<String>,
    pub text: String,
}

/// `majordomus show <kind>:<id>`.
pub fn show(ctx: &Ctx, request: ShowRequest) -> Result<Shown, Error> {
    check_size("reference", &request.reference, 1024)?;
    let unknown = || -> Error {
        Refusal::UnknownRecord {
            reference: request.reference.clone(),
        }
        .into()
    };
    let (kind, id) = request.reference.split_once(':').ok_or_else(unknown)?;
    let kind = RecallKind::from_name(kind).ok_or_else(unknown)?;
    let opened = sync::open(ctx)?;
    let r = opened.db.reader();
    let rows = r
        .docs_where(Column::Key, &[id.to_owned()])
        .unwrap_or_default();
    let row = rows.into_iter().find(|d| d.kind == kind.name());
    // A knowledge record's provenance names the decisions of a task as `decision:<task>`
    // (SPEC §5): that reference reads as the task's decisions, in ledger order.
    if row.is_none() && kind == RecallKind::Decision && IdKind::Task.accepts(id) {
        let mut decisions: Vec<_> = r
            .docs_where(Column::Task, &[id.to_owned()])
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.kind == RecallKind::Decision.name())
            .collect();
        decisions.sort_by(|a, b| (a.offset, &a.key).cmp(&(b.offset, &b.key)));
        if let Some(first) = decisions.first() {
            let ids: Vec<i64> = decisions.iter().map(|d| d.id).collect();
            let mut texts = r.texts(&ids).unwrap_or_default();
            let text = decisions
                .iter()
                .map(|d| {
                    format!(
                        "- {} {} (majordomus show decision:{})\n",
                        d.date,
                        texts.remove(&d.id).unwrap_or_default().trim(),
                        d.key
                    )
                })
                .collect::<String>();
            return Ok(Shown {
                kind,
                id: id.to_owned(),
                status: HitStatus::from_name(&first.status).unwrap_or(HitStatus::Candidate),
                source: format!("ledger ({} decision(s) of task {id})", decisions.len()),
                episode: first.episode.clone(),
                task: Some(id.to_owned()),
                date: first.date.clone(),
                derived: None,
                text,
            });
        }
    }
    let row = row.ok_or_else(unknown)?;
    let derived = row
        .derives
        .as_ref()
        .and_then(|k| r.docs_where(Column::Key, std::slice::from_ref(k)).ok())
        .and_then(|rows| rows.into_iter().find(|d| d.kind == "knowledge"));
    let status = HitStatus::from_name(
        derived
            .as_ref()
            .map_or(row.status.as_str(), |d| d.status.as_str()),
    )
    .unwrap_or(HitStatus::Candidate);
    let text = match row.source.strip_prefix("file:") {
        Some(rel) => {
            let path = ctx.layout.root().join(rel);
            std::fs::read_to_string(&path).map_err(|e| crate::store::StoreError::io(&path, e))?
        }
        None => r
            .texts(&[row.id])
            .unwrap_or_default()
            .remove(&row.id)
            .unwrap_or_default(),
    };
    let source = match row.offset {
        Some(offset) if row.source == "ledger" => format!("ledger (byte {offset})"),
        Some(offset) if row.source.starts_with("journal:") => format!(
            "journal of writer {} (byte {offset} of {})",
            row.source.trim_start_matches("journal:"),
            ctx.layout
                .display(&crate::journal::journals_dir(ctx).join(format!(
                    "{}.jsonl",
                    row.source.trim_start_matches("journal:")
                )))
        ),
        _ => row.source.trim_start_matches("file:").to_owned(),
    };
    Ok(Shown {
        kind,
        id: row.key.clone(),
        status,
        source,
        episode: row.episode.clone(),
        task: row.task.clone(),
        date: row.date.clone(),
        derived: derived.map(|d| d.key),
        text,
    })
}
