//! The near-duplicate note of `decision` and `question` (advisory, never a refusal): the
//! verified knowledge and open questions a new text nearly repeats.

use schemars::JsonSchema;
use serde::Serialize;

use super::request::RecallRequest;
use super::{ReadHint, RecallKind, recall_in, sync};
use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{HitStatus, NEAR_DUPLICATE, content_terms, similarity};
use crate::store::recall::Column;

/// An existing record a new one nearly repeats.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NearDuplicate {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    pub line: String,
    /// How alike, 0–1 (the Jaccard index of their content words), two decimals.
    pub similarity: f64,
    pub read: ReadHint,
}

/// Verified knowledge and open questions (but `except`) that `text` nearly repeats
/// (advisory: at least [`NEAR_DUPLICATE`] alike), most alike first.
pub fn near_duplicates(
    ctx: &Ctx,
    text: &str,
    except: Option<&str>,
) -> Result<Vec<NearDuplicate>, Error> {
    let mine = content_terms(text);
    if mine.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<NearDuplicate> = Vec::new();
    let terms: Vec<&String> = mine.iter().collect();
    let query: String = terms
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let ((found, rows, texts, open), _) = sync::with_index(ctx, |opened| {
        let found = recall_in(
            ctx,
            &mut opened.db,
            &RecallRequest {
                query: Some(query.clone()),
                kind: vec![RecallKind::Knowledge],
                status: vec![HitStatus::Verified, HitStatus::Stale],
                limit: Some(5),
                ..RecallRequest::default()
            },
        )?;
        let ids: Vec<String> = found.hits.iter().map(|h| h.id.clone()).collect();
        let rows = opened
            .db
            .reader()
            .docs_where(Column::Key, &ids)
            .unwrap_or_default();
        let texts = opened
            .db
            .reader()
            .texts(&rows.iter().map(|r| r.id).collect::<Vec<_>>())
            .unwrap_or_default();
        let open = opened.db.reader().open_questions().unwrap_or_default();
        Ok((found, rows, texts, open))
    })?;
    for hit in &found.hits {
        let Some(row) = rows
            .iter()
            .find(|r| r.key == hit.id && r.kind == "knowledge")
        else {
            continue;
        };
        // The claim, not the evidence a promotion appended under `# Evidence`.
        let text = texts.get(&row.id).map_or("", String::as_str);
        let claim = text.split("\n# ").next().unwrap_or(text);
        let s = similarity(&mine, &content_terms(claim))
            .max(similarity(&mine, &content_terms(&row.line)));
        if s >= NEAR_DUPLICATE {
            out.push(NearDuplicate {
                kind: hit.kind,
                id: hit.id.clone(),
                status: hit.status,
                line: hit.line.clone(),
                similarity: (s * 100.0).round() / 100.0,
                read: hit.read.clone(),
            });
        }
    }
    for (id, question) in open.iter().filter(|(id, _)| Some(id.as_str()) != except) {
        let s = similarity(&mine, &content_terms(question));
        if s >= NEAR_DUPLICATE {
            out.push(NearDuplicate {
                kind: RecallKind::Question,
                id: id.clone(),
                status: HitStatus::Candidate,
                line: format!("open: {}", sync::one_line(question)),
                similarity: (s * 100.0).round() / 100.0,
                read: ReadHint {
                    command: format!("majordomus question resolve {id} \"<answer>\""),
                    uri: format!("majordomus://question/{id}"),
                },
            });
        }
    }
    out.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(out)
}
