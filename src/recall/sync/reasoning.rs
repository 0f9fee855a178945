//! The reasoning records: every conclusion a document, its status from the others (a
//! later conclusion supersedes it, a passing validation verifies it).

use std::collections::{BTreeSet, HashMap};

use super::document::{joined_tokens, one_line, ref_path};
use crate::Ctx;
use crate::error::Error;
use crate::store::recall::{IndexError, NewDoc, Writer};

/// Re-reads every reasoning record (they are few, and a conclusion's status depends on
/// the others: a later conclusion supersedes it, a passing validation verifies it).
pub(super) fn sync_reasoning(ctx: &Ctx, w: &Writer<'_>) -> Result<Result<(), IndexError>, Error> {
    let root_rel = ctx.layout.display(&ctx.layout.reasoning_dir());
    if let Err(e) = w.delete_sources_under(&format!("file:{root_rel}/")) {
        return Ok(Err(e));
    }
    let records = crate::store::reasoning::read_all(&ctx.layout)?;
    let values: Vec<serde_json::Value> = records
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect();
    let field =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let list = |v: &serde_json::Value, k: &str| -> Vec<String> {
        v.get(k)
            .and_then(|x| x.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut superseded: HashMap<String, String> = HashMap::new();
    let mut validated: BTreeSet<String> = BTreeSet::new();
    let mut subjects: HashMap<String, String> = HashMap::new();
    for v in &values {
        match field(v, "kind").as_deref() {
            Some("conclusion") => {
                if let (Some(old), Some(id)) = (field(v, "supersedes"), field(v, "id")) {
                    superseded.insert(old, id);
                }
            }
            Some("validation") if field(v, "outcome").as_deref() == Some("pass") => {
                validated.extend(field(v, "conclusion"));
            }
            Some("assessment") => {
                if let (Some(id), Some(subject)) = (field(v, "id"), field(v, "subject")) {
                    subjects.insert(id, subject);
                }
            }
            _ => {}
        }
    }
    for (record, v) in records.iter().zip(&values) {
        if field(v, "kind").as_deref() != Some("conclusion") {
            continue;
        }
        let decision = field(v, "decision").unwrap_or_default();
        let subject = field(v, "assessment")
            .and_then(|a| subjects.get(&a).cloned())
            .unwrap_or_default();
        let evidence = list(v, "evidence");
        let refs: Vec<String> = evidence
            .iter()
            .filter_map(|e| ref_path(e))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut body = String::new();
        for part in [field(v, "rationale").unwrap_or_default(), subject.clone()] {
            body.push_str(&part);
            body.push('\n');
        }
        for k in ["rejected_alternatives", "risks", "evidence"] {
            for item in list(v, k) {
                body.push_str(&item);
                body.push('\n');
            }
        }
        let status = if superseded.contains_key(&record.id) {
            "superseded"
        } else if validated.contains(&record.id) {
            "verified"
        } else {
            "candidate"
        };
        let rel = format!("{root_rel}/{}/{}.json", record.task, record.id);
        let doc = NewDoc {
            kind: "conclusion",
            key: record.id.clone(),
            source: format!("file:{rel}"),
            status,
            line: one_line(&decision),
            text: format!("{decision}\n\n{body}"),
            date: record.recorded_at.clone(),
            episode: record.episode.clone(),
            task: (!record.task.starts_with("_episode-")).then(|| record.task.clone()),
            superseded_by: superseded.get(&record.id).cloned(),
            head_tokens: joined_tokens(&format!("{decision}\n{subject}")),
            body_tokens: joined_tokens(&body),
            refs,
            ..NewDoc::default()
        };
        if let Err(e) = w.insert_doc(&doc) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}
