//! The other worktrees of this clone, live (SPEC §12): each one's open episode (branch,
//! provider, since, active task and scope, last checkpoint, open questions, recent
//! decisions), read from its own `.ai/local/` through the worktree list. A worktree that
//! is gone, locked or unreadable is named, never fatal. What is read is what that
//! worktree's writers already wrote (redacted when written); nothing here writes.

use schemars::JsonSchema;
use serde::Serialize;

use crate::ctx::Ctx;
use crate::model::EpisodeWindow;
use crate::model::event::{Event, LedgerLine, TaskStarted};
use crate::store::{Layout, Ledger};

/// How many of an episode's newest decisions are carried.
pub const RECENT_DECISIONS: usize = 3;
/// How many of its open questions are carried.
pub const OPEN_QUESTIONS: usize = 3;

/// Where another worktree stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// An episode is open there.
    Open,
    /// No episode is open there.
    Idle,
    /// majordomus was never set up there (no `.ai/`).
    NotInitialised,
    /// Its state could not be read (the reason says why).
    Unreadable,
    /// Its directory is not there.
    Gone,
}

/// Another worktree of this clone.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Worktree {
    /// Its directory.
    pub path: String,
    /// The clone's main worktree (not a linked one).
    pub main: bool,
    /// The branch its HEAD names (`None`: detached or unknown).
    pub branch: Option<String>,
    /// `Some(reason)` when it is locked (`git worktree lock`; the reason may be empty).
    pub locked: Option<String>,
    pub state: WorktreeState,
    /// Why it is unreadable or gone.
    pub reason: Option<String>,
    /// Its open episode.
    pub episode: Option<OpenEpisode>,
}

/// The open episode of another worktree.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OpenEpisode {
    pub id: String,
    pub provider: String,
    /// When it opened (RFC 3339).
    pub since: String,
    /// The branch it opened on.
    pub branch: Option<String>,
    /// The task it works on now.
    pub task: Option<ActiveTask>,
    /// Its newest checkpoint.
    pub last_checkpoint: Option<String>,
    /// Its open questions (at most [`OPEN_QUESTIONS`]), and how many there are.
    pub open_questions: Vec<OpenQuestion>,
    pub open_questions_total: usize,
    /// Its newest decisions, newest first (at most [`RECENT_DECISIONS`]), and how many.
    pub decisions: Vec<String>,
    pub decisions_total: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ActiveTask {
    pub id: String,
    pub description: String,
    /// Its scope (empty: the whole repository).
    pub scope: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OpenQuestion {
    pub id: String,
    pub text: String,
}

/// Every other worktree of this clone, the main one first, then the linked ones by name.
/// A list that cannot be read is one unreadable entry, never an error.
pub fn others(ctx: &Ctx) -> Vec<Worktree> {
    let listed = match ctx.repo.other_worktrees() {
        Ok(listed) => listed,
        Err(e) => {
            return vec![Worktree {
                path: ".git/worktrees".to_owned(),
                main: false,
                branch: None,
                locked: None,
                state: WorktreeState::Unreadable,
                reason: Some(format!("the worktree list could not be read: {e}")),
                episode: None,
            }];
        }
    };
    listed
        .into_iter()
        .map(|w| {
            let mut out = Worktree {
                path: w.path.display().to_string(),
                main: w.main,
                branch: w.branch,
                locked: w.locked,
                state: WorktreeState::Idle,
                reason: None,
                episode: None,
            };
            if let Some(why) = w.missing {
                out.state = WorktreeState::Gone;
                out.reason = Some(why);
                return out;
            }
            let layout = Layout::new(&w.path);
            if !layout.is_initialised() {
                out.state = WorktreeState::NotInitialised;
                return out;
            }
            match open_episode(&layout) {
                Ok(Some(episode)) => {
                    out.state = WorktreeState::Open;
                    out.episode = Some(episode);
                }
                Ok(None) => {}
                Err(why) => {
                    out.state = WorktreeState::Unreadable;
                    out.reason = Some(why);
                }
            }
            out
        })
        .collect()
}

/// The open episode of the worktree at `layout`: its state file, then its ledger window
/// from the episode's own offset (what it wrote since it opened, not the whole ledger).
fn open_episode(layout: &Layout) -> Result<Option<OpenEpisode>, String> {
    let state = match crate::store::episode::read(layout) {
        Ok(Some(state)) => state,
        Ok(None) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let ledger = Ledger::new(layout.ledger());
    let mut lines: Vec<LedgerLine> = Vec::new();
    let from = match ledger.is_line_start(state.ledger_offset) {
        Ok(true) => state.ledger_offset,
        // A pruned or rewritten ledger: its offset no longer starts a line; the whole
        // file is read (lines of other episodes are left out below).
        _ => 0,
    };
    ledger
        .scan(from, |line| {
            if line.session.as_deref() == Some(state.id.as_str()) {
                lines.push(line);
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(Some(summarise(
        state.id,
        state.provider,
        state.opened,
        state.branch,
        &lines,
    )))
}

/// An episode as the briefing shows another writer's: its active task and scope, last
/// checkpoint, open questions and newest decisions, from its own ledger lines (another
/// worktree's window, or another writer's journal: SPEC §12).
pub fn summarise(
    id: String,
    provider: String,
    since: String,
    branch: Option<String>,
    lines: &[LedgerLine],
) -> OpenEpisode {
    let window = EpisodeWindow::from_lines(&id, lines);
    let task = window
        .tasks
        .iter()
        .rev()
        .find(|t| t.status.is_none())
        .map(|t| ActiveTask {
            id: t.id.clone(),
            description: t.description.clone(),
            scope: lines
                .iter()
                .rev()
                .find(|l| l.event == Event::TaskStarted && l.task_id() == Some(t.id.as_str()))
                .and_then(LedgerLine::payload::<TaskStarted>)
                .map(|p| p.scope)
                .unwrap_or_default(),
        });
    let open: Vec<OpenQuestion> = window
        .open_questions()
        .map(|q| OpenQuestion {
            id: q.id.clone(),
            text: q.text.clone(),
        })
        .collect();
    OpenEpisode {
        id,
        provider,
        since,
        branch,
        task,
        last_checkpoint: window.checkpoints.last().map(|c| c.text.clone()),
        open_questions_total: open.len(),
        open_questions: open.into_iter().take(OPEN_QUESTIONS).collect(),
        decisions_total: window.decisions.len(),
        decisions: window
            .decisions
            .iter()
            .rev()
            .take(RECENT_DECISIONS)
            .map(|d| d.text.clone())
            .collect(),
    }
}

/// What a line says of an episode: since when, its task and scope, its last checkpoint,
/// its open questions and newest decision (the worktrees' and the other writers' lines).
/// What the episode's agent wrote is quoted as data (`⟪…⟫`, instruction-shaped text made
/// inert, docs/SECURITY.md); a last part names the shapes neutralised, if any.
pub fn episode_parts(e: &OpenEpisode) -> Vec<String> {
    let mut shapes = Vec::new();
    let mut quoted = |text: &str| {
        let q = crate::model::inject::quote(text);
        shapes.extend(q.shapes);
        q.text
    };
    let mut parts = vec![format!(
        "episode {} ({}, since {})",
        e.id,
        e.provider,
        e.since.get(..16).unwrap_or(&e.since)
    )];
    if let Some(t) = &e.task {
        let scope = if t.scope.is_empty() {
            "the whole repository".to_owned()
        } else {
            t.scope.join(", ")
        };
        parts.push(format!(
            "task {} {} (scope {scope})",
            t.id,
            quoted(&t.description)
        ));
    }
    if let Some(c) = &e.last_checkpoint {
        parts.push(format!("checkpoint: {}", quoted(c)));
    }
    if e.open_questions_total > 0 {
        parts.push(format!("{} open question(s)", e.open_questions_total));
    }
    if let Some(d) = e.decisions.first() {
        let more = e.decisions_total - 1;
        if more > 0 {
            parts.push(format!("decided: {} (+{more} more)", quoted(d)));
        } else {
            parts.push(format!("decided: {}", quoted(d)));
        }
    }
    if !shapes.is_empty() {
        shapes.sort_unstable();
        shapes.dedup();
        parts.push(format!(
            "neutralised: {}",
            crate::model::inject::names(&shapes)
        ));
    }
    parts
}

/// One line for a worktree, as the briefing and `context` show it.
pub fn line(w: &Worktree) -> String {
    let mut head = w.path.clone();
    if let Some(branch) = &w.branch {
        head.push_str(&format!(" on {branch}"));
    }
    if w.locked.is_some() {
        head.push_str(" (locked)");
    }
    match (&w.state, &w.episode) {
        (WorktreeState::Open, Some(e)) => {
            format!("- {head}: {}", episode_parts(e).join("; "))
        }
        (WorktreeState::Idle, _) | (WorktreeState::Open, None) => {
            format!("- {head}: no episode open")
        }
        (WorktreeState::NotInitialised, _) => {
            format!("- {head}: majordomus is not set up there (no .ai/)")
        }
        (WorktreeState::Unreadable, _) => format!(
            "- {head}: unreadable: {}",
            w.reason.as_deref().unwrap_or("unknown")
        ),
        (WorktreeState::Gone, _) => {
            format!(
                "- {head}: gone: {}",
                w.reason.as_deref().unwrap_or("unknown")
            )
        }
    }
}

/// The active tasks of other worktrees whose scope overlaps `scope`: `(worktree path,
/// task id, the entries that overlap)`.
pub fn overlapping(others: &[Worktree], scope: &[String]) -> Vec<(String, String, String)> {
    others
        .iter()
        .filter_map(|w| {
            let task = w.episode.as_ref()?.task.as_ref()?;
            let (mine, theirs) = crate::model::task::scopes_overlap(scope, &task.scope)?;
            Some((
                w.path.clone(),
                task.id.clone(),
                format!("{mine} and {theirs}"),
            ))
        })
        .collect()
}

/// `worktrees` takes nothing.
#[derive(Debug, Clone, Default, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorktreesRequest {}

/// Every other worktree of this clone, with its open episode.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorktreesList {
    pub worktrees: Vec<Worktree>,
}

/// The other worktrees of this clone and what each is doing now.
pub fn list(ctx: &Ctx, _request: WorktreesRequest) -> Result<WorktreesList, crate::Error> {
    Ok(WorktreesList {
        worktrees: others(ctx),
    })
}
