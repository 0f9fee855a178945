//! Handovers (SPEC §4): `handover --derive` writes what the next worker needs to continue
//! (`state/handovers/<episode>.md`, pinned to the plan and its evidence); `handover
//! --resolve` re-asks the binding and says whether what the handover assumed still holds.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::intent::BindingAsk;
use crate::knowledge::CandidatesRequest;
use crate::model::event::{CheckpointRecorded, HandoverDerived, TaskStarted};
use crate::model::ids::IdKind;
use crate::model::intent::{Answer, Binding, resolve_handover};
use crate::model::policy::HandoverSection;
use crate::model::task::{TaskRecord, TaskState};
use crate::model::{EpisodeWindow, Event, LedgerLine};
use crate::store::{StoreError, WriteOutcome, frontmatter, write_atomic};

pub const HANDOVER_SCHEMA: &str = "handover/v1";

/// `handover.derive`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HandoverDeriveRequest")]
pub struct DeriveRequest {
    /// Default: the open episode, else the last closed one.
    #[serde(default)]
    pub episode: Option<String>,
}

/// `handover.resolve`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HandoverResolveRequest")]
pub struct ResolveRequest {
    /// The handover file (default: the newest).
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub file: Option<String>,
}

/// The front matter of a handover: the task's names and both pins, nothing about the
/// intent itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HandoverFront {
    pub episode: String,
    pub schema: String,
    /// The newest ledger line of the episode: what the handover was derived from.
    pub as_of: String,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub exemption: Option<String>,
    pub because: Option<String>,
    /// The task's scope: what `--resolve` re-asks with when the task names no issue,
    /// intent or exemption (maintenance work under a milestone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope: Vec<String>,
    /// The pins the task began under (its `task.started` line), never re-derived.
    pub plan_revision: Option<String>,
    pub evidence_standing: Option<String>,
}

/// What `handover --derive` wrote.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Handover {
    pub path: String,
    pub write: WriteOutcome,
    pub front: HandoverFront,
    /// The whole file as written.
    pub text: String,
    /// What an earlier, interrupted derivation of this handover had done, when this run
    /// only finished it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
}

/// What `handover --resolve` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "HandoverResolution")]
pub struct Resolution {
    pub file: String,
    /// `unchanged`, `evidence_moved`, `plan_changed` or `unknown`.
    pub answer: Answer,
    pub reason: String,
    /// The binding asked now with the handover's names (absent when none were pinned).
    pub binding: Option<Binding>,
}

/// The task a handover hands over: the episode's active task, else its newest.
fn episode_task(ctx: &Ctx, episode: &str) -> Result<Option<TaskRecord>, Error> {
    let tasks: Vec<TaskRecord> = crate::store::tasks::list(&ctx.layout)?
        .into_iter()
        .filter(|t| t.episode == episode)
        .collect();
    Ok(tasks
        .iter()
        .find(|t| t.state == TaskState::Active)
        .or(tasks.last())
        .cloned())
}

/// The pins `task` began under: those of its `task.started` line among the episode's
/// `lines`, else (a line pruned or never read) those its task record kept from the same
/// start. Never re-derived: a plan or evidence change during the task must show at
/// `--resolve`, and a task whose issue is done since, or maintenance work, keeps its pins.
fn started_pins(task: &TaskRecord, lines: &[LedgerLine]) -> (Option<String>, Option<String>) {
    lines
        .iter()
        .filter(|l| l.task.as_deref() == Some(task.id.as_str()))
        .find_map(LedgerLine::payload::<TaskStarted>)
        .map_or_else(
            || (task.plan_revision.clone(), task.evidence_standing.clone()),
            |started| (started.plan_revision, started.evidence_standing),
        )
}

/// `majordomus handover --derive`: composes and writes `state/handovers/<episode>.md`
/// (front matter: the task's names and both pins; the sections of `handover.sections`)
/// and appends `handover.derived`. Same evidence, same bytes.
pub fn derive(ctx: &Ctx, request: DeriveRequest) -> Result<Handover, Error> {
    let policy = ctx.policy()?;
    let open = ctx.episode()?;
    let episode = match request.episode {
        Some(id) => {
            Refusal::check_id(IdKind::Episode, &id)?;
            id
        }
        None => match &open {
            Some(ep) => ep.id.clone(),
            None => crate::knowledge::derive::last_closed_episode(ctx)?
                .ok_or(Refusal::NoEpisodeToDerive)?,
        },
    };
    let index = ctx.index()?;
    let lines: Vec<LedgerLine> = index.lines(&crate::store::index::LineQuery {
        session: Some(&episode),
        ..Default::default()
    })?;
    let Some(last) = lines.last() else {
        return Err(Refusal::UnknownEpisode { id: episode }.into());
    };
    let as_of = last.ts.clone();
    let window = EpisodeWindow::from_lines(&episode, &lines);
    let commits = crate::knowledge::derive::episode_commits(ctx, &episode, &lines)?;
    let task = episode_task(ctx, &episode)?;
    let (plan_revision, evidence_standing) = task
        .as_ref()
        .map_or((None, None), |t| started_pins(t, &lines));
    let front = HandoverFront {
        episode: episode.clone(),
        schema: HANDOVER_SCHEMA.to_owned(),
        as_of,
        task: task.as_ref().map(|t| t.id.clone()),
        issue: task.as_ref().and_then(|t| t.issue.clone()),
        intent: task.as_ref().and_then(|t| t.intent.clone()),
        exemption: task.as_ref().and_then(|t| t.exemption.clone()),
        because: task.as_ref().and_then(|t| t.because.clone()),
        scope: task.as_ref().map(|t| t.scope.clone()).unwrap_or_default(),
        plan_revision,
        evidence_standing,
    };
    let candidates: Vec<String> = crate::knowledge::candidates(ctx, CandidatesRequest::default())?
        .candidates
        .into_iter()
        .filter(|c| c.id.starts_with(&episode))
        .map(|c| c.id)
        .collect();
    let open_questions = index.open_questions();
    let folder = crate::store::reasoning::folder(task.as_ref().map(|t| t.id.as_str()), &episode);
    let reasoning = crate::model::reasoning::status::status(&crate::store::reasoning::read_folder(
        &ctx.layout,
        &folder,
    )?);

    let mut body = format!("# Handover of episode {episode}\n");
    for section in &policy.handover.sections {
        let _ = writeln!(body, "\n## {}", section.title());
        match section {
            HandoverSection::Done => {
                let finished: Vec<_> = window.tasks.iter().filter(|t| t.status.is_some()).collect();
                if finished.is_empty() && commits.is_empty() && window.decisions.is_empty() {
                    body.push_str("- nothing finished, committed or decided in this episode\n");
                }
                for t in finished {
                    let status = t.status.map(|s| s.name()).unwrap_or("finished");
                    let _ = writeln!(
                        body,
                        "- task {} {} ({status})",
                        t.id,
                        inline(&t.description)
                    );
                }
                for c in &commits {
                    let _ = writeln!(
                        body,
                        "- commit {} {}",
                        &c.id[..c.id.len().min(12)],
                        c.subject
                    );
                }
                for d in &window.decisions {
                    let _ = writeln!(body, "- decided: {}", inline(&d.text));
                }
            }
            HandoverSection::NextAction => {
                let mut said = false;
                if let Some(t) = &task {
                    match t.state {
                        TaskState::Active => {
                            let _ = writeln!(
                                body,
                                "- continue task {}: {} (`majordomus task finish` when it is done)",
                                t.id,
                                inline(&t.description)
                            );
                            said = true;
                        }
                        TaskState::Blocked => {
                            let _ = writeln!(
                                body,
                                "- unblock task {}: {} (blocked: {})",
                                t.id,
                                inline(&t.description),
                                inline(t.reason.as_deref().unwrap_or("no reason given"))
                            );
                            said = true;
                        }
                        TaskState::Completed => {}
                    }
                }
                if let Some(c) = window.checkpoints.last() {
                    let _ = writeln!(body, "- where it stood: {}", inline(&c.text));
                    said = true;
                }
                let open_here = window.open_questions().count();
                if open_here > 0 {
                    let _ = writeln!(
                        body,
                        "- answer the {open_here} question(s) this episode left open"
                    );
                    said = true;
                }
                if !said {
                    body.push_str("- nothing left in flight: start from the briefing (`majordomus briefing`)\n");
                }
            }
            HandoverSection::OpenQuestions => {
                if open_questions.is_empty() {
                    body.push_str("- none open\n");
                }
                for q in &open_questions {
                    let _ = writeln!(body, "- {}: {}", q.id, inline(&q.text));
                }
            }
            HandoverSection::Reasoning => {
                body.push_str(&reasoning.summary());
            }
            HandoverSection::Knowledge => {
                if candidates.is_empty() {
                    body.push_str("- no candidates of this episode await review\n");
                }
                for id in &candidates {
                    let _ = writeln!(body, "- awaiting review: {id}");
                }
            }
        }
    }
    let text = frontmatter::render(&front, &body);
    let path = ctx.layout.handover(&episode)?;
    let write = write_atomic(&path, text.as_bytes())?;
    let rel = ctx.layout.display(&path);
    let stamp = open.as_ref().map_or(episode.as_str(), |e| e.id.as_str());
    // The file, then its line: a run killed between them left these very bytes without
    // their `handover.derived`, which this run appends.
    let resumed = (write == WriteOutcome::Unchanged
        && !index
            .lines(&crate::store::index::LineQuery {
                session: Some(stamp),
                event: Some(Event::HandoverDerived),
                ..Default::default()
            })?
            .iter()
            .filter_map(LedgerLine::payload::<HandoverDerived>)
            .any(|h| h.path == rel))
    .then(|| {
        format!("{rel} was written by an earlier run that was interrupted before its handover.derived line; this run appended it")
    });
    if write == WriteOutcome::Written || resumed.is_some() {
        ctx.append(
            Some(stamp),
            front.task.as_deref(),
            &HandoverDerived { path: rel.clone() },
        )?;
    }
    Ok(Handover {
        path: rel,
        write,
        front,
        text,
        resumed,
    })
}

fn inline(text: &str) -> String {
    text.trim().replace('\n', "\n  ")
}

/// The newest handover file, if any (episode ids sort by opening time).
pub fn newest(ctx: &Ctx) -> Result<Option<std::path::PathBuf>, Error> {
    let dir = ctx.layout.handovers_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(&dir, e).into()),
    };
    let newest = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .max();
    Ok(newest.map(|n| dir.join(n)))
}

/// The fix of a named file that is no handover: list the handovers there are, or derive
/// one when there is none.
fn bad_file_fix(ctx: &Ctx) -> Result<&'static str, Error> {
    Ok(if newest(ctx)?.is_some() {
        "ls .ai/local/state/handovers/"
    } else {
        "majordomus handover --derive"
    })
}

/// `majordomus handover --resolve [FILE]`: re-asks the binding with the handover's names
/// and answers `unchanged`, `evidence_moved`, `plan_changed` (wins when both pins moved)
/// or `unknown`, with why.
pub fn resolve(ctx: &Ctx, request: ResolveRequest) -> Result<Resolution, Error> {
    let path = match &request.file {
        Some(f) => {
            let p = std::path::PathBuf::from(f);
            let path = if p.is_absolute() {
                p
            } else {
                ctx.layout.root().join(p)
            };
            // Bad input is a usage error naming the file as given, never an I/O failure.
            let fix = bad_file_fix(ctx)?;
            let why = if f.trim().is_empty() {
                Some("the file name is empty")
            } else if path.is_dir() {
                Some("a directory, not a handover file")
            } else if !path.exists() {
                Some("no such file")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(crate::UsageError::HandoverFile {
                    file: f.clone(),
                    why,
                    fix,
                }
                .into());
            }
            path
        }
        None => newest(ctx)?.ok_or(Refusal::NoHandover)?,
    };
    let file = ctx.layout.display(&path);
    let read = std::fs::read_to_string(&path)
        .map_err(|e| Error::from(StoreError::io(&path, e)))
        .and_then(|text| {
            frontmatter::parse::<HandoverFront>(&text)
                .map(|(front, _)| front)
                .map_err(|message| {
                    StoreError::Malformed {
                        path: path.clone(),
                        message,
                    }
                    .into()
                })
        });
    let front = match (read, &request.file) {
        (Ok(parsed), _) => parsed,
        // A file the caller named that is no handover is bad input; the newest handover
        // unreadable is broken state.
        (Err(_), Some(f)) => {
            return Err(crate::UsageError::HandoverFile {
                file: f.clone(),
                why: "not a handover file (no readable handover/v1 front matter)",
                fix: bad_file_fix(ctx)?,
            }
            .into());
        }
        (Err(e), None) => return Err(e),
    };
    let named = front.issue.is_some() || front.intent.is_some() || front.exemption.is_some();
    // Maintenance work names nothing; its scope and pins are what it began under.
    let maintenance = !named && !front.scope.is_empty() && front.plan_revision.is_some();
    if !named && !maintenance {
        return Ok(Resolution {
            file,
            answer: Answer::Unknown,
            reason: "the handover names no issue, intent or exemption and pins no scope, so there is nothing to re-ask; start from the briefing".into(),
            binding: None,
        });
    }
    let ask = BindingAsk {
        issue: front.issue.clone(),
        intent: front.intent.clone(),
        scope: if named {
            Vec::new()
        } else {
            front.scope.clone()
        },
        exempt: front.exemption.clone(),
        because: front.because.clone(),
    };
    let now = crate::intent::ask(ctx, &ask, &[])?;
    let answer = resolve_handover(
        front.plan_revision.as_deref(),
        front.evidence_standing.as_deref(),
        &now,
    );
    Ok(Resolution {
        file,
        answer: answer.answer,
        reason: answer.reason,
        binding: Some(now),
    })
}

/// The automatic checkpoint of an episode's end (SPEC §8): HEAD, branch, dirty paths and
/// the active task, as a checkpoint line.
pub fn end_checkpoint(ctx: &Ctx, why: &str) -> Result<Option<u64>, Error> {
    let Some(episode) = ctx.episode()? else {
        return Ok(None);
    };
    let state = work_state(ctx, &episode.id)?;
    let appended = ctx.append(
        Some(&episode.id),
        state.task.as_deref(),
        &CheckpointRecorded {
            text: crate::model::redact::redact(&format!("{why}: {}", state.text)).text,
            files: Vec::new(),
            automatic: true,
        },
    )?;
    Ok(Some(appended.seq))
}

/// How the work looks now, as an automatic checkpoint says it: HEAD, branch, the dirty
/// paths outside `.ai/`, the active task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkState {
    pub text: String,
    /// The active task's id.
    pub task: Option<String>,
}

/// [`WorkState`] of the work tree for `episode`, read from git and the task store (nothing
/// written).
pub fn work_state(ctx: &Ctx, episode: &str) -> Result<WorkState, Error> {
    let head = ctx.repo.head()?;
    let dirty = ctx.repo.dirty_paths_outside(Some(".ai/"))?;
    let task = crate::store::tasks::active(&ctx.layout, episode)?;
    let mut text = format!(
        "HEAD {} on {}",
        head.id.as_deref().map(|i| &i[..12]).unwrap_or("(unborn)"),
        head.branch.as_deref().unwrap_or("a detached HEAD")
    );
    if dirty.is_empty() {
        text.push_str(", working tree clean");
    } else {
        let shown: Vec<&str> = dirty.iter().take(20).map(String::as_str).collect();
        let _ = write!(text, ", uncommitted: {}", shown.join(", "));
        if dirty.len() > shown.len() {
            let _ = write!(text, " and {} more", dirty.len() - shown.len());
        }
    }
    if let Some(t) = &task {
        let _ = write!(text, ", active task {} ({})", t.id, t.description);
    }
    Ok(WorkState {
        text,
        task: task.map(|t| t.id),
    })
}
