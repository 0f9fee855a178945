//! Tasks (SPEC §4): start (asking the intent binding as the policy requires), finish
//! (completed or blocked with a reason; files changed outside the scope are said), list.
//! At most one task is active per episode.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::intent::BindingAsk;
use crate::model::event::{TaskFinished, TaskStarted, TaskStatus};
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::intent::{Binding, BindingStatus};
use crate::model::policy::Binding as BindingPolicy;
use crate::model::redact::redact;
use crate::model::task::{TaskRecord, TaskState, in_scope, task_id};
use crate::store::{StateLock, frontmatter, write_atomic};

/// `task.start`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStartRequest {
    /// What the task is, one line.
    pub description: String,
    /// Paths it touches (default: its issue's).
    #[serde(default)]
    pub scope: Vec<String>,
    /// The issue it serves.
    #[serde(default)]
    pub issue: Option<String>,
    /// The intent it serves.
    #[serde(default)]
    pub intent: Option<String>,
    /// A declared exemption class, with `because`.
    #[serde(default)]
    pub exempt: Option<String>,
    /// Why the exemption applies.
    #[serde(default)]
    pub because: Option<String>,
}

/// What `task start` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskStartOutcome {
    pub task: TaskRecord,
    /// The binding's answer, when it was asked.
    pub binding: Option<Binding>,
    /// Under `intent.binding: advisory`, a refusal the start went past; under any policy,
    /// a cause the binding reported without refusing (`critique_stale`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    /// What the repository knows about the task's scope, issue and intent (SPEC §11).
    pub knowledge: crate::recall::Relevant,
    /// The knowledge could not be read (the task started all the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knowledge_error: Option<String>,
    /// Active tasks of other worktrees of this clone whose scope overlaps this one's
    /// (SPEC §12; advisory, never a refusal).
    pub overlaps: Vec<ScopeOverlap>,
}

/// Another worktree's active task working where this one will.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScopeOverlap {
    /// The worktree's directory.
    pub worktree: String,
    /// Its active task.
    pub task: String,
    /// Which entries meet ("<this task's> and <that task's>").
    pub entries: String,
}

/// How many records `task start` shows of what the repository knows.
pub const START_KNOWLEDGE: usize = 5;

/// `task.finish`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskFinishRequest {
    /// `completed` (default) or `blocked`.
    #[serde(default)]
    pub status: Option<TaskStatus>,
    /// Why it is blocked (or how it ended).
    #[serde(default)]
    pub reason: Option<String>,
}

/// What `task finish` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskFinishOutcome {
    pub task: TaskRecord,
    /// The completion note, relative to the root.
    pub note_path: String,
    /// The task's commits since it started.
    pub commits: Vec<String>,
    /// Files those commits changed outside the task's scope (advisory, never refused).
    pub outside_scope: Vec<String>,
    /// What an earlier, interrupted finish of this task had done, when this run only
    /// finished it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
}

/// `task.list` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskListRequest {}

/// Every task of this checkout.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<TaskRecord>,
    /// The active task of the open episode.
    pub active: Option<String>,
}

/// `majordomus task start "<description>"`: asks the binding as `intent.binding` requires
/// (a flag given is a question asked; `advisory` asks every start and reports a refusal;
/// `required` stops on one), then records the task and `task.started` with the names and
/// pins.
pub fn start(ctx: &Ctx, request: TaskStartRequest) -> Result<TaskStartOutcome, Error> {
    let policy = ctx.policy()?;
    let episode = ctx.require_episode()?;
    check_size("task description", &request.description, TEXT_LIMIT)?;
    if let Some(because) = &request.because {
        check_size("--because", because, TEXT_LIMIT)?;
    }
    let cleaned = redact(request.description.trim());
    let description = cleaned.text.trim().to_owned();
    if description.is_empty() {
        return Err(Refusal::EmptyText {
            what: "task description",
        }
        .into());
    }
    let _lock = StateLock::acquire(&ctx.layout)?;
    if let Some(active) = crate::store::tasks::active(&ctx.layout, &episode.id)? {
        return Err(Refusal::TaskActive {
            id: active.id,
            description: active.description,
        }
        .into());
    }
    let ask = BindingAsk {
        issue: request.issue.clone(),
        intent: request.intent.clone(),
        scope: request.scope.clone(),
        exempt: request.exempt.clone(),
        because: request.because.clone(),
    };
    let explicit = ask.names_anything();
    let binding = if explicit || policy.intent.binding != BindingPolicy::Off {
        Some(crate::intent::ask(ctx, &ask, &[])?)
    } else {
        None
    };
    let mut advisory = None;
    if let Some(answer) = &binding
        && answer.status == BindingStatus::Refused
    {
        if crate::intent::stops(policy.intent.binding, explicit, answer) {
            // Nothing starts, and the refusal is kept: the refused share of starts that
            // name nothing is read from these lines (docs/INTENTS.md).
            ctx.append(
                Some(&episode.id),
                None,
                &crate::model::event::TaskRefused {
                    description: description.clone(),
                    causes: answer
                        .causes
                        .iter()
                        .map(|c| c.as_str().to_owned())
                        .collect(),
                    named: ask.named(),
                },
            )?;
            return Err(crate::intent::refusal(answer).into());
        }
        advisory = Some(format!(
            "intent.binding is advisory: the binding refused ({}), and the task starts anyway: {}",
            answer
                .causes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            answer.note
        ));
    } else if let Some(answer) = &binding
        && !answer.causes.is_empty()
    {
        // Reported without refusing (a stale critique outside `required`).
        advisory = Some(format!(
            "intent.binding reports {} without refusing, and the task starts: {}",
            answer
                .causes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            answer.note
        ));
    }
    let bound = binding
        .as_ref()
        .filter(|b| b.status != BindingStatus::Refused);
    // A scope entry is a path the user typed: it reaches the ledger and the task record,
    // so a secret shape in it is redacted like every other text a writer keeps.
    let scope: Vec<String> = match bound {
        Some(b) if request.scope.is_empty() => b.scope.clone(),
        _ => request.scope.clone(),
    }
    .into_iter()
    .map(|entry| redact(&entry).text)
    .collect();
    let now = ctx.clock.now();
    let day = crate::model::time::stamp(now)[..8].to_owned();
    let entropy = format!(
        "{}\n{}\n{}\n{description}",
        episode.id,
        std::process::id(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    let head = ctx.repo.head()?;
    let task = TaskRecord {
        id: task_id(&day, entropy.as_bytes()),
        description: description.clone(),
        episode: episode.id.clone(),
        scope: scope.clone(),
        issue: bound.and_then(|b| b.issue.clone()).or(request.issue),
        intent: bound.and_then(|b| b.intent.clone()).or(request.intent),
        exemption: bound.and_then(|b| b.exemption.clone()),
        because: bound
            .and_then(|b| b.exemption.as_ref())
            .and(ask.because.as_deref())
            .map(|b| redact(b).text),
        binding: binding.as_ref().map(|b| b.status),
        plan_revision: bound.and_then(|b| b.plan_revision.clone()),
        evidence_standing: bound.and_then(|b| b.evidence_standing.clone()),
        head_at_start: head.id,
        started: ctx.now(),
        state: TaskState::Active,
        finished: None,
        reason: None,
        outside_scope: Vec::new(),
    };
    crate::store::tasks::write(&ctx.layout, &task)?;
    ctx.append(
        Some(&episode.id),
        Some(&task.id),
        &TaskStarted {
            description,
            scope,
            issue: task.issue.clone(),
            intent: task.intent.clone(),
            exemption: task.exemption.clone(),
            because: task.because.clone(),
            binding: task.binding.map(|b| binding_name(b).to_owned()),
            plan_revision: task.plan_revision.clone(),
            evidence_standing: task.evidence_standing.clone(),
            named: binding.as_ref().map(|_| ask.named()),
        },
    )?;
    // The task has started; what the repository knows about it is a reading, and a
    // reading that fails is said, never a reason to undo the start.
    let (knowledge, knowledge_error) = match crate::recall::relevant_knowledge(
        ctx,
        crate::recall::RecallRequest {
            task: Some(task.id.clone()),
            ..Default::default()
        },
        START_KNOWLEDGE,
    ) {
        Ok(k) => (k, None),
        Err(e) => (crate::recall::Relevant::default(), Some(e.to_string())),
    };
    let overlaps = crate::worktrees::overlapping(&crate::worktrees::others(ctx), &task.scope)
        .into_iter()
        .map(|(worktree, task, entries)| ScopeOverlap {
            worktree,
            task,
            entries,
        })
        .collect();
    Ok(TaskStartOutcome {
        task,
        binding,
        advisory,
        knowledge,
        knowledge_error,
        overlaps,
    })
}

fn binding_name(status: BindingStatus) -> &'static str {
    match status {
        BindingStatus::Bound => "bound",
        BindingStatus::Maintenance => "maintenance",
        BindingStatus::Exempt => "exempt",
        BindingStatus::Refused => "refused",
    }
}

/// The completion note's front matter (`state/completed/<task>.md`).
#[derive(Debug, Serialize)]
struct CompletedFront<'a> {
    id: &'a str,
    schema: &'static str,
    episode: &'a str,
    status: &'static str,
    started: &'a str,
    finished: &'a str,
    issue: Option<&'a str>,
    intent: Option<&'a str>,
    exemption: Option<&'a str>,
    scope: &'a [String],
    commits: &'a [String],
    outside_scope: &'a [String],
}

/// `majordomus task finish`: ends the active task of the open episode, writes its
/// completion note and `task.finished`; files its commits changed outside its scope are
/// said, never refused.
pub fn finish(ctx: &Ctx, request: TaskFinishRequest) -> Result<TaskFinishOutcome, Error> {
    let episode = ctx.require_episode()?;
    let status = request.status.unwrap_or(TaskStatus::Completed);
    if let Some(reason) = &request.reason {
        check_size("reason", reason, TEXT_LIMIT)?;
    }
    let reason = request
        .reason
        .as_deref()
        .map(|r| redact(r.trim()).text.trim().to_owned())
        .filter(|r| !r.is_empty());
    if status == TaskStatus::Blocked && reason.is_none() {
        return Err(Refusal::BlockedWithoutReason.into());
    }
    let _lock = StateLock::acquire(&ctx.layout)?;
    let Some(mut task) = crate::store::tasks::active(&ctx.layout, &episode.id)? else {
        return finish_interrupted(ctx, &episode.id)?.ok_or_else(|| Refusal::NoActiveTask.into());
    };
    let commits = own_commits(ctx, &episode.id, &task)?;
    let outside_scope = outside_scope(&task, &commits);
    let commit_ids: Vec<String> = commits.iter().map(|c| c.id.clone()).collect();
    let finished = ctx.now();
    task.state = status.into();
    task.finished = Some(finished.clone());
    task.reason = reason.clone();
    task.outside_scope = outside_scope.clone();

    let front = CompletedFront {
        id: &task.id,
        schema: "task-note/v1",
        episode: &task.episode,
        status: status.name(),
        started: &task.started,
        finished: &finished,
        issue: task.issue.as_deref(),
        intent: task.intent.as_deref(),
        exemption: task.exemption.as_deref(),
        scope: &task.scope,
        commits: &commit_ids,
        outside_scope: &outside_scope,
    };
    let mut body = format!("# Task {}\n\n{}\n", task.id, task.description);
    body.push_str(&format!("\n## How it ended\n{}", status.name()));
    match &reason {
        Some(r) => body.push_str(&format!(": {}\n", r.replace('\n', "\n  "))),
        None => body.push('\n'),
    }
    body.push_str("\n## Commits\n");
    if commits.is_empty() {
        body.push_str("- none since the task started\n");
    }
    for c in &commits {
        body.push_str(&format!(
            "- {} {}\n",
            &c.id[..c.id.len().min(12)],
            c.subject
        ));
    }
    if !outside_scope.is_empty() {
        body.push_str("\n## Outside the scope\n");
        for p in &outside_scope {
            body.push_str(&format!("- {p}\n"));
        }
    }
    let note_path = ctx.layout.completed_note(&task.id)?;
    // The note, the record, then the line: a crash before the line leaves a finished
    // record the ledger does not know, which the next `task finish` completes.
    write_atomic(&note_path, frontmatter::render(&front, &body).as_bytes())?;
    crate::store::tasks::write(&ctx.layout, &task)?;
    ctx.append(
        Some(&episode.id),
        Some(&task.id),
        &TaskFinished {
            status,
            reason: reason.clone(),
        },
    )?;
    Ok(TaskFinishOutcome {
        note_path: ctx.layout.display(&note_path),
        task,
        commits: commit_ids,
        outside_scope,
        resumed: None,
    })
}

/// Files `commits` changed outside the task's scope (none when it has no scope), sorted;
/// the memory's own files (`.ai/`) are not work.
fn outside_scope(task: &TaskRecord, commits: &[crate::model::CommitSummary]) -> Vec<String> {
    if task.scope.is_empty() {
        return Vec::new();
    }
    let mut outside: Vec<String> = commits
        .iter()
        .flat_map(|c| c.paths.iter().cloned())
        .filter(|p| !p.starts_with(".ai/") && !in_scope(&task.scope, p))
        .collect();
    outside.sort();
    outside.dedup();
    outside
}

/// The active task's scope and the files its commits changed outside it.
#[derive(Debug, Clone)]
pub struct OutsideScope {
    pub task: String,
    pub scope: Vec<String>,
    pub files: Vec<String>,
}

/// The open episode's active task and the files its commits changed outside its scope, for
/// pre-push's note (advisory, never a refusal). `None` when no task with a scope is active.
pub fn pushed_outside_scope(ctx: &Ctx) -> Result<Option<OutsideScope>, Error> {
    let Some(episode) = ctx.episode()? else {
        return Ok(None);
    };
    let Some(task) = crate::store::tasks::active(&ctx.layout, &episode.id)? else {
        return Ok(None);
    };
    if task.scope.is_empty() {
        return Ok(None);
    }
    let commits = own_commits(ctx, &episode.id, &task)?;
    let files = outside_scope(&task, &commits);
    Ok(Some(OutsideScope {
        task: task.id,
        scope: task.scope,
        files,
    }))
}

/// The task's own commits: what a rebase moved it onto or a merge brought in is not.
fn own_commits(
    ctx: &Ctx,
    episode: &str,
    task: &TaskRecord,
) -> Result<Vec<crate::model::CommitSummary>, Error> {
    let lines = ctx.index()?.lines(&crate::store::index::LineQuery {
        session: Some(episode),
        ..Default::default()
    })?;
    let window = crate::model::EpisodeWindow::from_lines(episode, &lines);
    let head = ctx.repo.head()?;
    let recorded = window.recorded_shas();
    let started =
        crate::model::time::parse(&task.started).map(time::OffsetDateTime::unix_timestamp);
    let own = ctx.repo.own_commits(&crate::model::episode::EpisodeSpan {
        head: head.id.as_deref(),
        branch: head.branch.as_deref(),
        head_at_open: task.head_at_start.as_deref(),
        opened: started,
        boundaries: crate::model::episode::BoundariesAt::Now,
        recorded: &recorded,
        rewrites: &window.commits_rewritten,
    })?;
    // What the episode committed before the task started is not the task's.
    Ok(own
        .commits
        .into_iter()
        .filter(|c| {
            started.is_none_or(|since| {
                crate::model::time::parse(&c.time).is_none_or(|t| t.unix_timestamp() >= since)
            })
        })
        .collect())
}

/// A finish killed after writing the task's record and before its `task.finished` line
/// leaves a task of `episode` that is no longer active and that the ledger does not know
/// finished: appends the line from the record. `None` when there is none.
fn finish_interrupted(ctx: &Ctx, episode: &str) -> Result<Option<TaskFinishOutcome>, Error> {
    let index = ctx.index()?;
    let mut finished: Vec<TaskRecord> = crate::store::tasks::list(&ctx.layout)?
        .into_iter()
        .filter(|t| t.episode == episode && t.state != TaskState::Active)
        .collect();
    finished.sort_by(|a, b| (&b.finished, &b.id).cmp(&(&a.finished, &a.id)));
    for task in finished {
        let status = match task.state {
            TaskState::Completed => TaskStatus::Completed,
            TaskState::Blocked => TaskStatus::Blocked,
            TaskState::Active => continue,
        };
        // Only a task this ledger started and never saw finish.
        if index.task(&task.id)?.is_none_or(|e| e.status.is_some()) {
            continue;
        }
        let note_path = ctx.layout.completed_note(&task.id)?;
        ctx.append(
            Some(episode),
            Some(&task.id),
            &TaskFinished {
                status,
                reason: task.reason.clone(),
            },
        )?;
        let commits = own_commits(ctx, episode, &task)?
            .into_iter()
            .map(|c| c.id)
            .collect();
        return Ok(Some(TaskFinishOutcome {
            note_path: ctx.layout.display(&note_path),
            outside_scope: task.outside_scope.clone(),
            resumed: Some(format!(
                "an earlier finish of task {} was interrupted after writing its note and record; this run appended its task.finished line",
                task.id
            )),
            task,
            commits,
        }));
    }
    Ok(None)
}

/// `majordomus task list`: every task of this checkout, oldest first.
pub fn list(ctx: &Ctx, _request: TaskListRequest) -> Result<TaskList, Error> {
    let tasks = crate::store::tasks::list(&ctx.layout)?;
    let active = match ctx.episode()? {
        Some(ep) => tasks
            .iter()
            .find(|t| t.episode == ep.id && t.state == TaskState::Active)
            .map(|t| t.id.clone()),
        None => None,
    };
    Ok(TaskList { tasks, active })
}
