//! `majordomus context`: the repository-level builder (SPEC §3.1): the briefing, then
//! the sections REASONING, KNOWLEDGE, OUTBOX and INTENT. `session context` composes the
//! episode; this composes the repository. Derived at every read, nothing cached.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::briefing::{Briefing, BriefingRequest};
use crate::error::Error;
use crate::knowledge::{KnowledgeStatus, StatusRequest};
use crate::store::StoreError;

/// `context` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextRequest {}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RepositoryContext {
    pub briefing: Briefing,
    /// Reasoning record files under `.ai/local/state/reasoning/`.
    pub reasoning_records: usize,
    pub knowledge: KnowledgeStatus,
    /// Intent ids declared under `.ai/repo/intents/`.
    pub intents: Vec<String>,
    pub text: String,
}

fn count_files(dir: &std::path::Path) -> Result<usize, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(StoreError::io(dir, e).into()),
    };
    let mut n = 0;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        n += if path.is_dir() {
            count_files(&path)?
        } else {
            usize::from(path.extension().is_some_and(|e| e == "json"))
        };
    }
    Ok(n)
}

fn intents(ctx: &Ctx) -> Result<Vec<String>, Error> {
    let dir = ctx.layout.repo_dir().join("intents");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&dir, e).into()),
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".yaml").map(str::to_owned))
        .filter(|n| n != "milestones")
        .collect();
    out.sort();
    Ok(out)
}

/// Composes the repository context.
pub fn context(ctx: &Ctx, _request: ContextRequest) -> Result<RepositoryContext, Error> {
    let briefing = crate::briefing::briefing(ctx, BriefingRequest {})?;
    let knowledge = crate::knowledge::status(ctx, StatusRequest {})?;
    let reasoning_records = count_files(&ctx.layout.state_dir().join("reasoning"))?;
    let intents = intents(ctx)?;
    let mut text = String::from("# Repository context\n\n");
    text.push_str(&briefing.text);
    text.push_str("\n## REASONING\n");
    if reasoning_records == 0 {
        text.push_str("- no reasoning records in this checkout\n");
    } else {
        let _ = writeln!(
            text,
            "- {reasoning_records} reasoning record(s) in this checkout"
        );
    }
    text.push_str("\n## KNOWLEDGE\n");
    let _ = writeln!(
        text,
        "- {} candidate(s) pending ({} untracked), {} curated",
        knowledge.pending, knowledge.untracked, knowledge.curated
    );
    let _ = writeln!(
        text,
        "- freshness: {}",
        if knowledge.fresh {
            "the last closed episode has been derived"
        } else {
            "the last closed episode has NOT been derived (majordomus doctor)"
        }
    );
    text.push_str("\n## OUTBOX\n");
    if knowledge.outbox.is_empty() {
        text.push_str("- empty\n");
    } else {
        let _ = writeln!(
            text,
            "- {} session record(s) and {} candidate(s) wait in .ai/local/state/outbox/; the next episode boundary off the trunk moves them into .ai/repo/",
            knowledge.outbox.sessions.len(),
            knowledge.outbox.candidates.len()
        );
    }
    text.push_str("\n## INTENT\n");
    if intents.is_empty() {
        text.push_str("- no intents declared under .ai/repo/intents/\n");
    } else {
        let _ = writeln!(text, "- declared: {}", intents.join(", "));
    }
    Ok(RepositoryContext {
        briefing,
        reasoning_records,
        knowledge,
        intents,
        text,
    })
}
