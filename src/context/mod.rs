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

/// The active task, the binding asked now with its names, and the served criteria with
/// the blob id of each piece of evidence at HEAD.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ActiveIntent {
    pub task: crate::model::task::TaskRecord,
    pub binding: Option<crate::model::intent::Binding>,
    pub statement: Option<String>,
    pub criteria: Vec<CriterionStanding>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CriterionStanding {
    pub id: String,
    pub text: String,
    /// Each evidence reference, with the blob it names at HEAD (`None`: missing).
    pub evidence: Vec<(String, Option<String>)>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RepositoryContext {
    pub briefing: Briefing,
    /// The reasoning of the current work (the active task, else the open episode; with
    /// nothing open, every record of this checkout).
    pub reasoning: crate::reasoning::Status,
    pub knowledge: KnowledgeStatus,
    /// Intent ids declared under `.ai/repo/intents/`.
    pub intents: Vec<String>,
    /// The open episode's active task and what it serves, derived now.
    pub intent: Option<ActiveIntent>,
    /// The task starts this ledger asked the binding about, and how many it refused, by
    /// whether they named any work (seed 003's number to watch).
    pub refused_starts: crate::model::intent::refused::RefusedShare,
    pub text: String,
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

/// The open episode's active task, what it serves and the standing of that intent's
/// criteria, derived now.
fn active_intent(ctx: &Ctx) -> Result<Option<ActiveIntent>, Error> {
    let Some(episode) = ctx.episode()? else {
        return Ok(None);
    };
    let Some(task) = crate::store::tasks::active(&ctx.layout, &episode.id)? else {
        return Ok(None);
    };
    let named = task.issue.is_some() || task.intent.is_some() || task.exemption.is_some();
    let binding = if named {
        Some(crate::intent::ask(
            ctx,
            &crate::intent::BindingAsk {
                issue: task.issue.clone(),
                intent: task.intent.clone(),
                scope: Vec::new(),
                exempt: task.exemption.clone(),
                because: task.because.clone(),
            },
            &[],
        )?)
    } else {
        None
    };
    let mut statement = None;
    let mut criteria = Vec::new();
    if let (Some(b), crate::model::intent::PlanInput::Plan(plan)) =
        (&binding, crate::store::plan::read_plan(&ctx.layout)?)
        && let Some(intent) = b.intent.as_deref().and_then(|id| plan.intent(id))
    {
        statement = Some(intent.statement.clone());
        let served: Vec<&str> = match b.issue.as_deref().and_then(|i| plan.issue(i)) {
            Some((_, issue)) => issue.serves.iter().map(String::as_str).collect(),
            None => intent.criteria.iter().map(|c| c.id.as_str()).collect(),
        };
        let paths: Vec<String> = intent
            .criteria
            .iter()
            .flat_map(|c| c.evidence.iter())
            .filter_map(|r| r.split_once(':').map(|(_, t)| t.to_owned()))
            .map(|t| match t.rsplit_once(':') {
                Some((p, l)) if l.bytes().all(|b| b.is_ascii_digit()) => p.to_owned(),
                _ => t,
            })
            .collect();
        let blobs = ctx
            .repo
            .blob_ids_at(None, paths.iter().map(String::as_str))?;
        for c in intent
            .criteria
            .iter()
            .filter(|c| served.contains(&c.id.as_str()))
        {
            criteria.push(CriterionStanding {
                id: c.id.clone(),
                text: c.text.clone(),
                evidence: c
                    .evidence
                    .iter()
                    .map(|r| {
                        let target = r.split_once(':').map(|(_, t)| t).unwrap_or(r);
                        let path = match target.rsplit_once(':') {
                            Some((p, l)) if l.bytes().all(|b| b.is_ascii_digit()) => p,
                            _ => target,
                        };
                        (r.clone(), blobs.get(path).cloned())
                    })
                    .collect(),
            });
        }
    }
    Ok(Some(ActiveIntent {
        task,
        binding,
        statement,
        criteria,
    }))
}

/// Composes the repository context.
pub fn context(ctx: &Ctx, _request: ContextRequest) -> Result<RepositoryContext, Error> {
    let briefing = crate::briefing::briefing(ctx, BriefingRequest::default())?;
    let knowledge = crate::knowledge::status(ctx, StatusRequest {})?;
    let reasoning = crate::reasoning::status(ctx, crate::reasoning::StatusRequest::default())?;
    let intents = intents(ctx)?;
    let mut text = String::from("# Repository context\n\n");
    text.push_str(&briefing.text);
    text.push_str("\n## REASONING\n");
    text.push_str(&reasoning.status.summary());
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
    let intent = active_intent(ctx)?;
    match &intent {
        Some(active) => {
            let t = &active.task;
            let _ = writeln!(text, "- active task {}: {}", t.id, t.description);
            match &active.binding {
                Some(b) => {
                    for line in b.summary().lines() {
                        let _ = writeln!(text, "  {line}");
                    }
                }
                None => text.push_str("  not bound to an intent (the binding was not asked)\n"),
            }
            if let Some(statement) = &active.statement {
                let _ = writeln!(text, "  serves: {statement}");
            }
            for c in &active.criteria {
                let _ = writeln!(text, "  - criterion {}: {}", c.id, c.text);
                for (r, blob) in &c.evidence {
                    let standing = match blob {
                        Some(b) => format!("blob {}", &b[..b.len().min(12)]),
                        None => "not at HEAD".to_owned(),
                    };
                    let _ = writeln!(text, "    evidence {r} ({standing})");
                }
            }
        }
        None => text.push_str("- no task is active in this episode\n"),
    }
    if intents.is_empty() {
        text.push_str("- no intents declared under .ai/repo/intents/\n");
    } else {
        let _ = writeln!(text, "- declared: {}", intents.join(", "));
    }
    let refused_starts = crate::intent::refused_share(ctx)?;
    if let Some(line) = refused_starts.summary() {
        let _ = writeln!(text, "- {line}");
    }
    Ok(RepositoryContext {
        briefing,
        reasoning,
        knowledge,
        intents,
        intent,
        refused_starts,
        text,
    })
}
