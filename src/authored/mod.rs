//! Authored records (SPEC §3): decisions, questions and their answers, checkpoints. Each
//! appends one ledger line stamped with the open episode, or `session: null` when none is,
//! with the files it cites (SPEC §5.1).

pub(crate) mod cited;

use cited::{Citing, Fix, cited_files};

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::cited::{CitedFile, Via};
use crate::model::event::{
    CheckpointRecorded, DecisionRecorded, Event, QuestionAsked, QuestionResolved,
};
use crate::model::inject::{Shape, shapes};
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
    /// A task this ledger started.
    #[serde(default)]
    pub task: Option<String>,
    /// Files it cites (the CLI's repeatable `--file`), from the repository root; each
    /// must be a file of the work tree or of HEAD's tree. A path its text names that is a
    /// file in HEAD's tree is cited too.
    #[serde(default)]
    #[schemars(description = "Files it concerns.")]
    pub files: Vec<String>,
    /// The directory the CLI's relative `files` were typed in; never part of an MCP or
    /// HTTP request, whose paths are from the root.
    #[serde(skip)]
    pub base: Option<PathBuf>,
}

/// `question.ask`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionRequest {
    // The question (its name says it: no description to pay for).
    pub text: String,
    /// Files it cites (the CLI's repeatable `--file`), from the repository root; each
    /// must be a file of the work tree or of HEAD's tree. A path its text names that is a
    /// file in HEAD's tree is cited too.
    #[serde(default)]
    #[schemars(description = "Files it concerns.")]
    pub files: Vec<String>,
    /// The directory the CLI's relative `files` were typed in; never part of an MCP or
    /// HTTP request, whose paths are from the root.
    #[serde(skip)]
    pub base: Option<PathBuf>,
}

/// `question.resolve`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "QuestionResolveRequest")]
pub struct ResolveRequest {
    /// The id `question.ask` returned.
    pub id: String,
    // The answer (its name says it).
    pub answer: String,
    /// Files it cites (the CLI's repeatable `--file`), from the repository root; each
    /// must be a file of the work tree or of HEAD's tree. The question's files are cited
    /// too, and a path the answer names that is a file in HEAD's tree.
    #[serde(default)]
    #[schemars(description = "Files it concerns.")]
    pub files: Vec<String>,
    /// The directory the CLI's relative `files` were typed in; never part of an MCP or
    /// HTTP request, whose paths are from the root.
    #[serde(skip)]
    pub base: Option<PathBuf>,
}

/// `checkpoint.record`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointRequest {
    /// Where the work stands, in one line.
    pub text: String,
    /// Files it cites (the CLI's repeatable `--file`), from the repository root; each
    /// must be a file of the work tree or of HEAD's tree. A path its text names that is a
    /// file in HEAD's tree is cited too.
    #[serde(default)]
    #[schemars(description = "Files it concerns.")]
    pub files: Vec<String>,
    /// The directory the CLI's relative `files` were typed in; never part of an MCP or
    /// HTTP request, whose paths are from the root.
    #[serde(skip)]
    pub base: Option<PathBuf>,
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
    /// Verified records a decision concerns the same files as (it cites one of theirs — or,
    /// citing none, its episode touched one — and recall ranks them as its neighbours):
    /// restate, replace or keep both? Decisions only;
    /// advisory, SPEC §5.2. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<crate::recall::Concerned>,
    /// With `concerns`, in an episode: the id of the candidate this decision derives at the
    /// episode's close, which `knowledge promote <it> --supersedes <concern>` promotes in
    /// the concern's place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<String>,
    /// The files the line cites, sorted by path, each with how it came to be cited
    /// (`given`, named in the `text`, or cited by the `question` an answer resolves);
    /// absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<CitedFile>,
    /// Instruction-shaped text in what was written (`ignore-instructions`, `role-label`
    /// ...: docs/HOSTILE.md). It is written as said; wherever majordomus puts it before a
    /// model it is quoted and neutralised. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instruction_shapes: Vec<Shape>,
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
        concerns: Vec::new(),
        candidate: None,
        files: Vec::new(),
        instruction_shapes: Vec::new(),
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

/// `majordomus decision "<text>" [--task ID] [--file PATH]...`.
pub fn record_decision(ctx: &Ctx, request: DecisionRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "decision", &mut redacted)?;
    let rebuilt = match &request.task {
        Some(task) => known_task(ctx, task)?,
        None => None,
    };
    let files = cited_files(
        ctx,
        &Citing {
            given: &request.files,
            base: request.base.as_deref(),
            texts: &[&text],
        },
        Fix {
            command: &["majordomus", "decision"],
            arguments: &[&text],
            options: &request
                .task
                .as_deref()
                .map(|t| ("--task", t))
                .into_iter()
                .collect::<Vec<_>>(),
            files: &request.files,
            stdin: None,
        },
    )?;
    let episode = ctx.episode()?;
    // The files the decision reaches (SPEC §5.2: "cite or reach"): those it cites, else the
    // files its episode's editing tools touched (the work it was decided in). A reading that
    // fails reaches nothing (advisory).
    let reached = match &episode {
        Some(open) if files.is_empty() => crate::ctx::touched(ctx, open).unwrap_or_default(),
        _ => cited::paths(&files),
    };
    let session = episode.map(|e| e.id);
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
        &DecisionRecorded {
            text: text.clone(),
            files: cited::paths(&files),
        },
        None,
        redacted,
    )?;
    recorded.index_rebuilt = rebuilt;
    recorded.near_duplicates = near_duplicates(ctx, &text, None);
    // A reading that fails leaves the write as it was (advisory).
    recorded.concerns = crate::recall::concerned(ctx, &text, &reached).unwrap_or_default();
    if !recorded.concerns.is_empty() {
        recorded.candidate = derived_id(ctx, &recorded).ok().flatten();
    }
    recorded.files = files;
    recorded.instruction_shapes = shapes(&text);
    Ok(recorded)
}

/// The id the candidate derived from the line `recorded` appended will have (SPEC §5.1:
/// the episode and the digest of the line), read back from the ledger; `None` outside an
/// episode (no close derives it).
fn derived_id(ctx: &Ctx, recorded: &Recorded) -> Result<Option<String>, Error> {
    let Some(episode) = recorded.session.as_deref() else {
        return Ok(None);
    };
    let lines = ctx.index()?.lines(&crate::store::index::LineQuery {
        session: Some(episode),
        event: Some(recorded.event),
        ..Default::default()
    })?;
    Ok(lines
        .iter()
        .find(|l| l.seq == recorded.seq)
        .map(|l| crate::model::knowledge::candidate_id(episode, l)))
}

/// The files a record of one text cites (`--file`, and the paths its text names), a
/// refused one's fix being `majordomus <command> <text>` without it.
fn cited_by_text(
    ctx: &Ctx,
    command: &'static str,
    text: &str,
    given: &[String],
    base: Option<&std::path::Path>,
) -> Result<Vec<crate::model::cited::CitedFile>, Error> {
    cited_files(
        ctx,
        &Citing {
            given,
            base,
            texts: &[text],
        },
        Fix {
            command: &["majordomus", command],
            arguments: &[text],
            options: &[],
            files: given,
            stdin: None,
        },
    )
}

/// The active task of the open episode `session`, if any: what a question, an answer or a
/// checkpoint is stamped with, as a decision without `--task` is (SPEC §3, §5.1: an
/// answer's candidate cites its task).
fn active_task(ctx: &Ctx, session: Option<&str>) -> Result<Option<String>, Error> {
    Ok(match session {
        Some(episode) => crate::store::tasks::active(&ctx.layout, episode)?.map(|t| t.id),
        None => None,
    })
}

/// `majordomus checkpoint "<text>" [--file PATH]...`.
pub fn record_checkpoint(ctx: &Ctx, request: CheckpointRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "checkpoint", &mut redacted)?;
    let files = cited_by_text(
        ctx,
        "checkpoint",
        &text,
        &request.files,
        request.base.as_deref(),
    )?;
    let session = ctx.episode()?.map(|e| e.id);
    let task = active_task(ctx, session.as_deref())?;
    let instruction_shapes = shapes(&text);
    let mut recorded = write(
        ctx,
        session,
        task,
        &CheckpointRecorded {
            text,
            files: cited::paths(&files),
            automatic: false,
        },
        None,
        redacted,
    )?;
    recorded.files = files;
    recorded.instruction_shapes = instruction_shapes;
    Ok(recorded)
}

/// `majordomus question "<text>" [--file PATH]...`: returns the new question's id.
pub fn ask_question(ctx: &Ctx, request: QuestionRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let text = clean(&request.text, "question", &mut redacted)?;
    let files = cited_by_text(
        ctx,
        "question",
        &text,
        &request.files,
        request.base.as_deref(),
    )?;
    let session = ctx.episode()?.map(|e| e.id);
    // The id must exist before the line is appended (it is in the line), so it cannot
    // use the seq; the asking time and a nanosecond nonce keep it unique.
    let nonce = format!(
        "{}:{}",
        ctx.now(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    let id = ids::question_id(session.as_deref(), &nonce, &text);
    let task = active_task(ctx, session.as_deref())?;
    let mut recorded = write(
        ctx,
        session,
        task,
        &QuestionAsked {
            id: id.clone(),
            text: text.clone(),
            files: cited::paths(&files),
        },
        Some(id.clone()),
        redacted,
    )?;
    recorded.near_duplicates = near_duplicates(ctx, &text, Some(&id));
    recorded.files = files;
    recorded.instruction_shapes = shapes(&text);
    Ok(recorded)
}

/// `majordomus question resolve <qid> "<answer>" [--file PATH]...`: refuses an unknown or
/// resolved id. The answer cites its own files and those its question cited.
pub fn resolve_question(ctx: &Ctx, request: ResolveRequest) -> Result<Recorded, Error> {
    let mut redacted = Vec::new();
    let answer = clean(&request.answer, "answer", &mut redacted)?;
    let id = request.id;
    Refusal::check_id(crate::model::ids::IdKind::Question, &id)?;
    // Held from the lookup to the append, so two resolves cannot both answer.
    let _lock = crate::store::StateLock::acquire(&ctx.layout)?;
    let index = ctx.index()?;
    let (question, asked_files) = index
        .question_citing(&id)?
        .ok_or_else(|| Refusal::UnknownQuestion { id: id.clone() })?;
    if let Some(previous) = &question.answer {
        return Err(Refusal::QuestionAlreadyResolved {
            id: id.clone(),
            answer: previous.clone(),
        }
        .into());
    }
    let own = cited_files(
        ctx,
        &Citing {
            given: &request.files,
            base: request.base.as_deref(),
            texts: &[&answer],
        },
        Fix {
            command: &["majordomus", "question", "resolve"],
            arguments: &[&id, &answer],
            options: &[],
            files: &request.files,
            stdin: None,
        },
    )?;
    // The asked line's files were checked when it was written; one read from a ledger
    // line is checked again for its shape.
    let files = crate::model::cited::merged(
        own.into_iter().map(|c| (c.path, c.via)).chain(
            asked_files
                .into_iter()
                .filter(|p| crate::model::cited::is_normal(p))
                .map(|p| (p, Via::Question)),
        ),
    );
    let instruction_shapes = shapes(&answer);
    let payload = QuestionResolved {
        id: id.clone(),
        question: question.text.clone(),
        answer,
        files: cited::paths(&files),
    };
    let session = ctx.episode()?.map(|e| e.id);
    let task = active_task(ctx, session.as_deref())?;
    let mut recorded = write(ctx, session, task, &payload, Some(id), redacted)?;
    recorded.index_rebuilt = index.rebuilt().cloned();
    recorded.files = files;
    recorded.instruction_shapes = instruction_shapes;
    Ok(recorded)
}
