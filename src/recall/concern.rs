//! The verified records a new decision concerns (SPEC §5.2, advisory, never a refusal):
//! those recall ranks as neighbours of its text and its cited files that cite one of the
//! same files and say something alike (`model::knowledge::concern`): "restate, replace or
//! keep both?".

use schemars::JsonSchema;
use serde::Serialize;

use super::request::RecallRequest;
use super::{ReadHint, RecallKind, recall_in, sync};
use crate::Ctx;
use crate::error::Error;
use crate::model::knowledge::{Held, claim_of, concerns};
use crate::model::recall::{HitStatus, subject_query};
use crate::store::recall::Column;

/// The hits recall reads for a new text: its neighbours among verified records.
const NEIGHBOURS: usize = 10;

/// A verified record a new claim concerns the same files as.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Concerned {
    pub id: String,
    /// `verified` or `stale`.
    pub status: HitStatus,
    /// Its title.
    pub line: String,
    /// The files both cite.
    pub files: Vec<String>,
    /// How alike the two claims are, 0–1.
    pub similarity: f64,
    pub read: ReadHint,
}

/// The verified (or stale) records that `text`, citing `files`, concerns the same files as:
/// recall's neighbours of the text and the files, each citing one of them and at least
/// [`crate::model::knowledge::NEIGHBOUR`] alike. Most alike first.
pub fn concerned(ctx: &Ctx, text: &str, files: &[String]) -> Result<Vec<Concerned>, Error> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let query = subject_query(text);
    let ((found, rows, refs, texts), _) = sync::with_index(ctx, |opened| {
        let found = recall_in(
            ctx,
            &mut opened.db,
            &RecallRequest {
                query: Some(query.clone()).filter(|q| !q.is_empty()),
                path: files.to_vec(),
                kind: vec![RecallKind::Knowledge],
                status: vec![HitStatus::Verified, HitStatus::Stale],
                limit: Some(NEIGHBOURS),
                ..RecallRequest::default()
            },
        )?;
        let ids: Vec<String> = found.hits.iter().map(|h| h.id.clone()).collect();
        let rows = opened
            .db
            .reader()
            .docs_where(Column::Key, &ids)
            .unwrap_or_default();
        let doc_ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        let refs = opened.db.reader().refs_of(&doc_ids).unwrap_or_default();
        let texts = opened.db.reader().texts(&doc_ids).unwrap_or_default();
        Ok((found, rows, refs, texts))
    })?;
    // Each neighbour's claim (its title and the body before `# Evidence`) and what it cites.
    let mut held: Vec<(String, String, Vec<String>)> = Vec::new();
    for hit in &found.hits {
        let Some(row) = rows
            .iter()
            .find(|r| r.key == hit.id && r.kind == "knowledge")
        else {
            continue;
        };
        let whole = texts.get(&row.id).map_or("", String::as_str);
        let body = whole.split_once("\n\n").map_or("", |(_, b)| b);
        let claim = format!("{}\n{}", row.line, claim_of(&row.line, body));
        held.push((
            hit.id.clone(),
            claim,
            refs.get(&row.id).cloned().unwrap_or_default(),
        ));
    }
    let rule: Vec<Held<'_>> = held
        .iter()
        .map(|(id, text, files)| Held { id, text, files })
        .collect();
    Ok(concerns(text, files, &rule)
        .into_iter()
        .filter_map(|c| {
            let hit = found.hits.iter().find(|h| h.id == c.id)?;
            Some(Concerned {
                id: c.id,
                status: hit.status,
                line: hit.line.clone(),
                files: c.files,
                similarity: c.similarity,
                read: hit.read.clone(),
            })
        })
        .collect())
}
