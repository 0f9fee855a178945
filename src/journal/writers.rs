//! What the other clones' writers are doing, as the briefing shows it (SPEC §12): each
//! fetched writer's latest episode (open or closed at its last publish, with its task and
//! scope, last checkpoint, open questions and newest decisions), read through that
//! writer's journal index. Writers on this branch come first, then the newest. Only the
//! writers shown are read: the order comes from the stamps `journals` already read, so the
//! cost grows with what is shown, not with the writers or their lines.

use schemars::JsonSchema;
use serde::Serialize;

use super::ForeignJournal;
use crate::Ctx;
use crate::error::Error;
use crate::model::Event;
use crate::model::event::SessionOpened;
use crate::store::index::LineQuery;
use crate::worktrees::OpenEpisode;

/// Another clone's writer and its latest episode.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WriterActivity {
    /// The writer id (16 hex digits).
    pub writer: String,
    /// The remote its journal was fetched from.
    pub remote: String,
    /// Its branch at its last publish.
    pub branch: Option<String>,
    /// Its last line's time.
    pub last_ts: Option<String>,
    /// Its latest episode (its newest `session.opened`), when its journal has one.
    pub episode: Option<OpenEpisode>,
    /// When that episode closed; `None`: it was open at the writer's last publish.
    pub closed: Option<String>,
    /// The episode ran on this branch.
    pub this_branch: bool,
}

/// The fetched writers worth a line: those of another clone (a linked worktree of this
/// clone is shown live, under the other worktrees) whose journal holds a line.
pub fn fetched(journals: &[ForeignJournal]) -> Vec<&ForeignJournal> {
    journals
        .iter()
        .filter(|j| j.remote.is_some() && j.lines > 0)
        .collect()
}

/// The `most` writers of `journals` the briefing shows first (those whose last publish
/// was on `here`, then the newest), each read through its index; the caller counts the
/// rest (`fetched(...).len()`).
pub fn activity(
    ctx: &Ctx,
    journals: &[ForeignJournal],
    here: Option<&str>,
    most: usize,
) -> Result<Vec<WriterActivity>, Error> {
    let mut order = fetched(journals);
    let on_here = |j: &ForeignJournal| here.is_some() && j.branch.as_deref() == here;
    order.sort_by(|a, b| {
        on_here(b)
            .cmp(&on_here(a))
            .then_with(|| b.last_ts.cmp(&a.last_ts))
            .then_with(|| a.writer.cmp(&b.writer))
    });
    let mut out = Vec::new();
    for journal in order.into_iter().take(most) {
        out.push(read(ctx, journal, here)?);
    }
    // An episode that opened on this branch goes first, even when its writer moved on.
    out.sort_by_key(|a| !a.this_branch);
    Ok(out)
}

/// One writer's latest episode: its newest `session.opened` line, then that episode's
/// lines (the index's postings for it, never the whole journal).
fn read(ctx: &Ctx, journal: &ForeignJournal, here: Option<&str>) -> Result<WriterActivity, Error> {
    let index = journal.index(ctx)?;
    let mut activity = WriterActivity {
        writer: journal.writer.clone(),
        remote: journal.remote.clone().unwrap_or_default(),
        branch: journal.branch.clone(),
        last_ts: journal.last_ts.clone(),
        episode: None,
        closed: None,
        this_branch: false,
    };
    let Some(opened) = index.last_of(Event::SessionOpened)? else {
        return Ok(activity);
    };
    let (Some(id), Some(payload)) = (&opened.session, opened.payload::<SessionOpened>()) else {
        return Ok(activity);
    };
    if !crate::model::ids::is_episode_id(id) {
        return Ok(activity);
    }
    let lines = index.lines(&LineQuery {
        session: Some(id),
        ..LineQuery::default()
    })?;
    activity.closed = lines
        .iter()
        .rev()
        .find(|l| l.event == Event::SessionClosed)
        .map(|l| l.ts.clone());
    activity.this_branch = here.is_some() && payload.branch.as_deref() == here;
    activity.episode = Some(crate::worktrees::summarise(
        id.clone(),
        payload.provider,
        opened.ts.clone(),
        payload.branch,
        &lines,
    ));
    Ok(activity)
}

/// One line for a writer, as the briefing shows it; `majordomus history --session <id>`
/// reads its episode (history merges every journal).
pub fn line(a: &WriterActivity) -> String {
    let mut head = format!("writer {} ({})", a.writer, a.remote);
    if let Some(branch) = &a.branch {
        head.push_str(&format!(" on {branch}"));
    }
    match &a.episode {
        Some(e) => {
            let mut parts = crate::worktrees::episode_parts(e);
            if let Some(branch) = e.branch.as_ref().filter(|b| a.branch.as_ref() != Some(*b)) {
                parts[0].push_str(&format!(" on {branch}"));
            }
            match &a.closed {
                Some(ts) => parts.insert(1, format!("closed {}", ts.get(..16).unwrap_or(ts))),
                None => parts.insert(1, "open at its last publish".to_owned()),
            }
            format!(
                "- {head}: {}; read: `majordomus history --session {}`",
                parts.join("; "),
                e.id
            )
        }
        None => format!(
            "- {head}: no episode in its journal (last line {})",
            a.last_ts.as_deref().unwrap_or("unknown")
        ),
    }
}
