//! `/cockpit/episodes`: every episode the ledger knows (`history` of `session.opened` and
//! `session.closed`), newest first, each with its session record as written.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::extract::State;

use super::html::{badge, empty, episode_link, escape, label, or_dash};
use super::{Page, PageError};
use crate::history::HistoryRequest;
use crate::http::AppState;
use crate::model::compose::SessionRecord;
use crate::model::event::{SessionClosed, SessionOpened};
use crate::model::{EpisodeState, LedgerLine};

/// One episode as the page shows it.
struct Episode {
    id: String,
    opened: Option<(String, SessionOpened)>,
    closed: Option<(String, SessionClosed)>,
    /// The session record read back: its front matter and body, or why it could not be.
    record: Option<Result<(SessionRecord, String), String>>,
}

pub async fn page(State(state): State<AppState>) -> Result<Page, PageError> {
    let (open, episodes) = state
        .run(|ctx| {
            let lines = |event: &str| {
                crate::history::history(
                    ctx,
                    HistoryRequest {
                        event: Some(event.to_owned()),
                        ..HistoryRequest::default()
                    },
                )
                .map(|h| h.lines)
            };
            let opened = lines("session.opened")?;
            let closed = lines("session.closed")?;
            let mut episodes = episodes(&opened, &closed);
            for e in &mut episodes {
                if let Some((_, c)) = &e.closed {
                    let path = ctx.layout.root().join(&c.record);
                    e.record = Some(
                        std::fs::read_to_string(&path)
                            .map_err(|err| err.to_string())
                            .and_then(|text| {
                                crate::store::frontmatter::parse::<SessionRecord>(&text)
                                    .map(|(r, body)| (r, body.to_owned()))
                            }),
                    );
                }
            }
            Ok((ctx.episode()?, episodes))
        })
        .await?;
    Ok(Page::new(
        "/episodes",
        "Episodes",
        &render(open.as_ref(), &episodes),
    ))
}

/// The episodes of the `session.opened` and `session.closed` lines, newest first.
fn episodes(opened: &[LedgerLine], closed: &[LedgerLine]) -> Vec<Episode> {
    fn entry<'a>(by_id: &'a mut BTreeMap<String, Episode>, id: &str) -> &'a mut Episode {
        by_id.entry(id.to_owned()).or_insert_with(|| Episode {
            id: id.to_owned(),
            opened: None,
            closed: None,
            record: None,
        })
    }
    let mut by_id: BTreeMap<String, Episode> = BTreeMap::new();
    for line in opened {
        if let (Some(id), Some(p)) = (&line.session, line.payload::<SessionOpened>()) {
            entry(&mut by_id, id).opened = Some((line.ts.clone(), p));
        }
    }
    for line in closed {
        if let (Some(id), Some(p)) = (&line.session, line.payload::<SessionClosed>()) {
            entry(&mut by_id, id).closed = Some((line.ts.clone(), p));
        }
    }
    // Episode ids begin with their opening time: reverse id order is newest first.
    by_id.into_values().rev().collect()
}

fn render(open: Option<&EpisodeState>, episodes: &[Episode]) -> String {
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
        let state = match (&e.closed, open) {
            (Some((_, c)), _) => label(&c.outcome),
            (None, Some(o)) if o.id == e.id => badge("good", "open"),
            (None, _) => badge("warn", "not closed"),
        };
        let _ = write!(out, "<h2>{} {state}</h2><dl>", episode_link(&e.id));
        if let Some((ts, o)) = &e.opened {
            let _ = write!(
                out,
                "<dt>opened</dt><dd>{} by {} on {}</dd>",
                escape(ts),
                escape(&o.provider),
                or_dash(o.branch.as_deref())
            );
        }
        if let Some((ts, c)) = &e.closed {
            let _ = write!(
                out,
                "<dt>closed</dt><dd>{}, {} commit(s)</dd><dt>record</dt><dd><code>{}</code></dd>",
                escape(ts),
                c.commits,
                escape(&c.record)
            );
        }
        out.push_str("</dl>");
        match &e.record {
            Some(Ok((record, body))) => {
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
                    "<details><summary>The session record ({} changed file(s))</summary><pre>{}</pre></details>",
                    record.changed_files.len(),
                    escape(body.trim())
                );
            }
            Some(Err(why)) => {
                let _ = write!(
                    out,
                    "<p class=\"muted\">The record is not readable in this checkout: {}</p>",
                    escape(why)
                );
            }
            None => {}
        }
    }
    out
}
