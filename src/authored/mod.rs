//! Authored records (SPEC §3): decisions, questions and their answers, checkpoints. Each
//! appends one ledger line stamped with the open episode, or `session: null` when none is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::event::{
    CheckpointRecorded, DecisionRecorded, Event, QuestionAsked, QuestionResolved,
};
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::redact::redact;
use crate::model::{Payload, ids};
use crate::store::index::IndexRebuilt;

/// `decision.record`: one decision, optionally under a task of this ledger.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    /// The decision, one statement.
    pub text: String,
    /// A task this ledger started (`task.started`); default: none.
    #[serde(default)]
    pub task: Option<String>,
}

/// `question.ask`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionRequest {
    /// The question.
    pub text: String,
}

/// `question.resolve`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "QuestionResolveRequest")]
pub struct ResolveRequest {
    /// The question id `question.ask` returned.
    pub id: String,
    /// The answer.
    pub answer: String,
}

/// `checkpoint.record`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointRequest {
    /// Where the work stands, in one line.
    pub text: String,
}

/// What an authored write appended.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Recorded {
    pub event: Event,
    pub seq: u64,
    /// The episode the line is stamped with; `None` when no episode was open.
    pub session: Option<String>,
    pub task: Option<String>,
    /// The question id (questions and answers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Secret shapes removed from the text before it was written (`[redacted: <shape>]`;
    /// always there, empty when nothing was).
    pub redacted: Vec<String>,
    /// Set when the lookup before the write rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
    /// Verified knowledge or open questions this text nearly repeats (decisions and
    /// questions; advisory, SPEC §11).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub near_duplicates: Vec<crate::recall::NearDuplicate>,
}

/// What the repository already holds that `text` nearly repeats (the question `except`
/// left out: the one just asked). A reading that fails leaves the write as it was.
fn near_duplicates(
    ctx: &Ctx,
    text: &str,
    except: Option<&str>,
) -> Vec<crate::recall::NearDuplicate> {
    crate::recall::near_duplicates(ctx, text, except).unwrap_or_default()
}

/// The text as it will be written: secret shapes and terminal control characters
/// removed (SPEC §0), trimmed, never empty.
fn clean(text: &str, what: &'static str, redacted: &mut Vec<String>) -> Result<String, Error> {
    check_size(what, text, TEXT_LIMIT)?;
    let cleaned = redact(text.trim());
    let text = cleaned.text.trim();
    if text.is_empty() {
        return Err(Refusal::EmptyText { what }.into());
    }
    redacted.extend(cleaned.shapes.iter().map(|s| (*s).to_owned()));
    Ok(text.to_owned())
}

/// Appends `payload` stamped with the open episode (if any) and `task`.
fn write<P: Payload>(
    ctx: &Ctx,
    session: Option<String>,
    task: Option<String>,
    payload: &P,
    id: Option<String>,
    redacted: Vec<String>,
) -> Result<Recorded, Error> {
    let appended = ctx.append(session.as_deref(), task.as_deref(), payload)?;
    Ok(Recorded {
        event: P::EVENT,
        seq: appended.seq,
        session,
        task,
        id,
        redacted,
        index_rebuilt: None,
        near_duplicates: Vec::new(),
    })
}

/// Refuses a task id that does not have the shape of one (`../x`: `id.shape`, SPEC §0) and
/// one this ledger never started (`none` and unknown ids: `task.known`, SPEC §3); looked up
/// in the ledger index.
fn known_task(ctx: &Ctx, task: &str) -> Result<Option<IndexRebuilt>, Error> {
    if task != "none" {
        Refusal::check_id(ids::IdKind::Task, task)?;
    }
    let index = ctx.index()?;
    if index.task(task)?.is_some() {
        Ok(index.rebuilt().cloned())
    } else {
        Err(Refusal::UnknownTask {
            id: task.to_owned(),
        }
        .into())
    }
}

/// `majordomus decision "<text>" [--task ID]`.
pub fn record_decision(ctx: &Ctx, request: DecisionRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "decision", &mut redacted)?;
    let rebuilt = match &request.task {
        Some(task) => known_task(ctx, task)?,
        None => None,
    };
    let session = ctx.episode()?.map(|e| e.id);
    // Without --task, the active task of the open episode (SPEC §3).
    let task = match (request.task, &session) {
        (Some(task), _) => Some(task),
        (None, Some(episode)) => crate::store::tasks::active(&ctx.layout, episode)?.map(|t| t.id),
        (None, None) => None,
    };
    let mut recorded = write(
        ctx,
        session,
        task,
        &DecisionRecorded { text: text.clone() },
        None,
        redacted,
    )?;
    recorded.index_rebuilt = rebuilt;
    recorded.near_duplicates = near_duplicates(ctx, &text, None);
    Ok(recorded)
}

/// `majordomus checkpoint "<text>"`.
pub fn record_checkpoint(ctx: &Ctx, request: CheckpointRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "checkpoint", &mut redacted)?;
    let session = ctx.episode()?.map(|e| e.id);
    write(
        ctx,
        session,
        None,
        &CheckpointRecorded { text },
        None,
        redacted,
    )
}

/// `majordomus question "<text>"`: returns the new question's id.
pub fn ask_question(ctx: &Ctx, request: QuestionRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "question", &mut redacted)?;
    let session = ctx.episode()?.map(|e| e.id);
    // The id must exist before the line is appended (it is in the line), so it cannot
    // use the seq; the asking time and a nanosecond nonce keep it unique.
    let nonce = format!(
        "{}:{}",
        ctx.now(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    let id = ids::question_id(session.as_deref(), &nonce, &text);
    let mut recorded = write(
        ctx,
        session,
        None,
        &QuestionAsked {
            id: id.clone(),
            text: text.clone(),
        },
        Some(id.clone()),
        redacted,
    )?;
    recorded.near_duplicates = near_duplicates(ctx, &text, Some(&id));
    Ok(recorded)
}

/// `majordomus question resolve <qid> "<answer>"`: refuses an unknown or resolved id.
pub fn resolve_question(ctx: &Ctx, request: ResolveRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let answer = clean(&request.answer, "answer", &mut redacted)?;
    let id = request.id;
    Refusal::check_id(crate::model::ids::IdKind::Question, &id)?;
    // Held from the lookup to the append, so two resolves cannot both answer.
    let _lock = crate::store::StateLock::acquire(&ctx.layout)?;
    let index = ctx.index()?;
    let question = index
        .question(&id)?
        .ok_or_else(|| Refusal::UnknownQuestion { id: id.clone() })?;
    if let Some(previous) = &question.answer {
        return Err(Refusal::QuestionAlreadyResolved {
            id: id.clone(),
            answer: previous.clone(),
        }
        .into());
    }
    let payload = QuestionResolved {
        id: id.clone(),
        question: question.text.clone(),
        answer,
    };
    let session = ctx.episode()?.map(|e| e.id);
    let mut recorded = write(ctx, session, None, &payload, Some(id), redacted)?;
    recorded.index_rebuilt = index.rebuilt().cloned();
    Ok(recorded)
}
