//! `/cockpit/episodes`: every episode the ledger knows (the `session.list` operation),
//! newest first, each with its session record where it is now.

use std::fmt::Write as _;

use axum::extract::State;

use super::html::{badge, empty, episode_link, escape, label, or_dash};
use super::{Page, PageError};
use crate::http::AppState;
use crate::model::EpisodeState;
use crate::session::{EpisodeEntry, ListRequest};

pub async fn page(State(state): State<AppState>) -> Result<Page, PageError> {
    let (open, list) = state
        .call(|ops| {
            let list: crate::session::EpisodeList = ops.call("session.list", ListRequest {})?;
            Ok((ops.ctx.episode()?, list))
        })
        .await?;
    Ok(Page::new(
        "/episodes",
        "Episodes",
        &render(open.as_ref(), &list.episodes),
    ))
}

fn render(open: Option<&EpisodeState>, episodes: &[EpisodeEntry]) -> String {
    let mut out = String::new();
    match open {
        Some(e) => {
            let _ = write!(
                out,
                "<p>Open now: {} (opened {}, {}). <a href=\"/cockpit#episode\">Its working context</a>.</p>",
                episode_link(&e.id),
                escape(&e.opened),
                escape(&e.provider)
            );
        }
        None => out.push_str(&empty("No episode is open.")),
    }
    if episodes.is_empty() {
        out.push_str(&empty("The ledger records no episode yet."));
        return out;
    }
    for e in episodes {
        let state = match e.outcome {
            Some(outcome) => label(&outcome),
            None if e.open => badge("good", "open"),
            None if e.writer.is_some() => badge("quiet", "not closed at its last publish"),
            None => badge("warn", "not closed"),
        };
        let _ = write!(out, "<h2>{} {state}</h2><dl>", episode_link(&e.id));
        if let Some(writer) = &e.writer {
            let _ = write!(
                out,
                "<dt>writer</dt><dd><code>{}</code> (another writer's journal, fetched)</dd>",
                escape(writer)
            );
        }
        if let Some(ts) = &e.opened {
            let _ = write!(
                out,
                "<dt>opened</dt><dd>{} by {} on {}</dd>",
                escape(ts),
                or_dash(e.provider.as_deref()),
                or_dash(e.branch.as_deref())
            );
        }
        if let Some(ts) = &e.closed {
            let _ = write!(out, "<dt>closed</dt><dd>{}</dd>", escape(ts));
        }
        match &e.record {
            Some(path) => {
                let _ = write!(out, "<dt>record</dt><dd><code>{}</code></dd>", escape(path));
            }
            None if e.closed.is_some() => out.push_str(
                "<dt>record</dt><dd class=\"muted\">not in this work tree (committed on another branch, closed in another clone or worktree, or never committed)</dd>",
            ),
            None => {}
        }
        out.push_str("</dl>");
        if let (Some(record), Some(body)) = (&e.front, &e.body) {
            if !record.tasks.is_empty() {
                let tasks: Vec<String> = record
                    .tasks
                    .iter()
                    .map(|t| format!("<code>{}</code>", escape(t)))
                    .collect();
                let _ = write!(out, "<p>Tasks: {}</p>", tasks.join(", "));
            }
            let _ = write!(
                out,
                "<details><summary>The session record ({} commit(s), {} changed file(s))</summary><pre>{}</pre></details>",
                record.commits.len(),
                record.changed_files.len(),
                escape(body.trim())
            );
        }
        if let Some(why) = &e.record_error {
            let _ = write!(
                out,
                "<p class=\"muted\">The record is not readable: {}</p>",
                escape(why)
            );
        }
    }
    out
}
