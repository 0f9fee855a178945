//! Authored records (SPEC §3): decisions, questions and their answers, checkpoints. Each
//! appends one ledger line stamped with the open episode, or `session: null` when none is.

use std::collections::HashMap;

use serde::Serialize;

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::{Event, ids};
use crate::session::open_episode;

/// What an authored write appended.
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    pub event: Event,
    pub seq: u64,
    /// The episode the line is stamped with; `None` when no episode was open.
    pub session: Option<String>,
    pub task: Option<String>,
    /// The question id (questions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

fn non_empty(text: &str, what: &'static str) -> Result<String, Error> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Refusal::EmptyText { what }.into());
    }
    Ok(text.to_owned())
}

fn write(
    ctx: &Ctx,
    event: Event,
    task: Option<&str>,
    data: impl FnOnce(Option<&str>) -> (serde_json::Value, Option<String>),
) -> Result<Recorded, Error> {
    ctx.require_initialised()?;
    let session = open_episode(ctx)?.map(|e| e.id);
    let (payload, id) = data(session.as_deref());
    let appended = ctx.append(event, session.as_deref(), task, payload)?;
    Ok(Recorded {
        event,
        seq: appended.seq,
        session,
        task: task.map(str::to_owned),
        id,
    })
}

/// `majordomus decision "<text>" [--task ID]`.
pub fn record_decision(ctx: &Ctx, text: &str, task: Option<&str>) -> Result<Recorded, Error> {
    let text = non_empty(text, "decision")?;
    write(ctx, Event::DecisionRecorded, task, |_| {
        (serde_json::json!({ "text": text }), None)
    })
}

/// `majordomus checkpoint "<text>"`.
pub fn record_checkpoint(ctx: &Ctx, text: &str) -> Result<Recorded, Error> {
    let text = non_empty(text, "checkpoint")?;
    write(ctx, Event::CheckpointRecorded, None, |_| {
        (serde_json::json!({ "text": text }), None)
    })
}

/// `majordomus question "<text>"`: returns the new question's id.
pub fn ask_question(ctx: &Ctx, text: &str) -> Result<Recorded, Error> {
    let text = non_empty(text, "question")?;
    // The id must exist before the line is appended (it is in the line), so it cannot
    // use the seq; the asking time and a nanosecond nonce keep it unique.
    let nonce = format!(
        "{}:{}",
        ctx.now(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    write(ctx, Event::QuestionAsked, None, |session| {
        let id = ids::question_id(session, &nonce, &text);
        (serde_json::json!({ "id": id, "text": text }), Some(id))
    })
}

/// A question as the whole ledger knows it.
#[derive(Debug, Clone, Serialize)]
pub struct LedgerQuestion {
    pub id: String,
    pub text: String,
    pub session: Option<String>,
    pub asked: String,
    pub answer: Option<String>,
}

/// Questions accumulated from ledger lines, in asking order, with answers.
#[derive(Debug, Default)]
pub struct QuestionBook {
    questions: Vec<LedgerQuestion>,
    index: HashMap<String, usize>,
}

impl QuestionBook {
    /// Takes in one ledger line (other events are ignored).
    pub fn visit(&mut self, line: &crate::model::LedgerLine) {
        match line.event {
            Event::QuestionAsked => {
                let id = line.data_str("id").unwrap_or_default().to_owned();
                self.index.insert(id.clone(), self.questions.len());
                self.questions.push(LedgerQuestion {
                    id,
                    text: line.data_str("text").unwrap_or_default().to_owned(),
                    session: line.session.clone(),
                    asked: line.ts.clone(),
                    answer: None,
                });
            }
            Event::QuestionResolved => {
                if let Some(&i) = line.data_str("id").and_then(|id| self.index.get(id)) {
                    self.questions[i].answer = line.data_str("answer").map(str::to_owned);
                }
            }
            _ => {}
        }
    }

    pub fn into_questions(self) -> Vec<LedgerQuestion> {
        self.questions
    }
}

/// Every question in the ledger, in asking order, with its answer if resolved.
pub fn all_questions(ctx: &Ctx) -> Result<Vec<LedgerQuestion>, Error> {
    let mut book = QuestionBook::default();
    ctx.ledger().scan(0, |line| book.visit(&line))?;
    Ok(book.into_questions())
}

/// `majordomus question resolve <qid> "<answer>"`: refuses an unknown or resolved id.
pub fn resolve_question(ctx: &Ctx, id: &str, answer: &str) -> Result<Recorded, Error> {
    ctx.require_initialised()?;
    let answer = non_empty(answer, "answer")?;
    // Held from the lookup to the append, so two resolves cannot both answer.
    let _lock = crate::store::StateLock::acquire(&ctx.layout)?;
    let question = all_questions(ctx)?
        .into_iter()
        .find(|q| q.id == id)
        .ok_or_else(|| Refusal::UnknownQuestion { id: id.to_owned() })?;
    if let Some(previous) = question.answer {
        return Err(Refusal::QuestionAlreadyResolved {
            id: id.to_owned(),
            answer: previous,
        }
        .into());
    }
    let mut recorded = write(ctx, Event::QuestionResolved, None, |_| {
        (
            serde_json::json!({ "id": id, "question": question.text, "answer": answer }),
            None,
        )
    })?;
    recorded.id = Some(id.to_owned());
    Ok(recorded)
}
