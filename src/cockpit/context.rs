//! `/cockpit`: the working context — the repository's (`context`: briefing, reasoning,
//! knowledge, outbox, intent) and the open episode's (`session.context`).

use std::fmt::Write as _;

use axum::extract::State;

use super::html::{self, ROOT, badge, empty, encode, escape, or_dash, table};
use super::{Page, PageError};
use crate::context::{ContextRequest, RepositoryContext};
use crate::http::AppState;
use crate::session::{EpisodeContext, EpisodeRequest};

pub async fn page(State(state): State<AppState>) -> Result<Page, PageError> {
    let (repository, episode) = state
        .call(|ops| {
            let repository: RepositoryContext = ops.call("context", ContextRequest {})?;
            let episode = match ops.ctx.episode()? {
                Some(_) => {
                    Some(ops.call::<_, EpisodeContext>("session.context", EpisodeRequest {})?)
                }
                None => None,
            };
            Ok((repository, episode))
        })
        .await?;
    Ok(Page::new(
        "",
        "Working context",
        &render(&repository, episode.as_ref()),
    ))
}

fn card(n: usize, what: &str, href: &str) -> String {
    format!(
        "<a class=\"card\" href=\"{href}\"><div class=\"n\">{n}</div><div>{}</div></a>",
        escape(what)
    )
}

fn render(repo: &RepositoryContext, episode: Option<&EpisodeContext>) -> String {
    let b = &repo.briefing;
    let k = &repo.knowledge;
    let r = &repo.reasoning.status;
    let mut out = String::from("<div class=\"cards\">");
    out.push_str(&card(b.open_questions.len(), "open questions", "#briefing"));
    out.push_str(&card(k.pending, "candidates to review", "/cockpit/review"));
    out.push_str(&card(k.curated, "curated records", "/cockpit/graph"));
    out.push_str(&card(
        r.assessments.len(),
        "assessments",
        "/cockpit/reasoning",
    ));
    out.push_str(&card(k.outbox.len(), "files in the outbox", "#outbox"));
    out.push_str("</div>");

    out.push_str("<h2 id=\"episode\">Open episode</h2>");
    match episode {
        Some(e) => out.push_str(&render_episode(e)),
        None => out.push_str(&empty(
            "No episode is open (majordomus session start opens one).",
        )),
    }

    out.push_str("<h2 id=\"briefing\">Briefing</h2><h3>Open questions</h3>");
    if b.open_questions.is_empty() {
        out.push_str(&empty("No open questions."));
    } else {
        let rows: Vec<Vec<String>> = b
            .open_questions
            .iter()
            .map(|q| {
                vec![
                    format!("<code>{}</code>", escape(&q.id)),
                    escape(&q.text),
                    escape(&q.asked),
                    or_dash(q.session.as_deref()),
                ]
            })
            .collect();
        out.push_str(&table(&["id", "question", "asked", "episode"], &rows));
    }
    out.push_str("<h3>Candidates awaiting review on this branch</h3>");
    if b.candidates.is_empty() {
        out.push_str(&empty("None."));
    } else {
        out.push_str("<ul>");
        for c in &b.candidates {
            // By title, linked to its card: an id says nothing to a reader.
            let _ = write!(
                out,
                "<li><a href=\"{ROOT}/review/{}\">{}</a> <span class=\"muted\">episode {}, branch {}{}</span></li>",
                escape(&encode(&c.id)),
                escape(&c.title),
                or_dash(c.episode.as_deref()),
                or_dash(c.branch.as_deref()),
                if c.outbox { ", in the outbox" } else { "" }
            );
        }
        out.push_str("</ul>");
    }
    if b.other_branches > 0 {
        let _ = write!(
            out,
            "<p class=\"muted\">{} more await review on other branches.</p>",
            b.other_branches
        );
    }
    if b.writers_total > 0 {
        // The other clones' writers (SPEC §12), as the briefing shows them.
        out.push_str("<h3>Other writers</h3><ul>");
        for w in &b.writers {
            let line = crate::journal::writers::line(w);
            let _ = write!(
                out,
                "<li>{}</li>",
                escape(line.strip_prefix("- ").unwrap_or(&line))
            );
        }
        out.push_str("</ul>");
        if b.writers_total > b.writers.len() {
            let _ = write!(
                out,
                "<p class=\"muted\">{} more: <code>majordomus journal status</code></p>",
                b.writers_total - b.writers.len()
            );
        }
    }
    out.push_str("<h3>Last handover</h3>");
    match &b.last_handover {
        Some(path) => {
            let _ = write!(out, "<p><code>{}</code></p>", escape(path));
            if !b.next_action.is_empty() {
                out.push_str("<p>Next action:</p><ul>");
                for line in &b.next_action {
                    let _ = write!(out, "<li>{}</li>", escape(line));
                }
                out.push_str("</ul>");
            }
        }
        None => out.push_str(&empty("No handover yet.")),
    }
    if let Some(e) = &b.policy_error {
        let _ = write!(
            out,
            "<p class=\"error\">The policy could not be read; the defaults were used: {}</p>",
            escape(e)
        );
    }

    out.push_str("<h2 id=\"reasoning\">Reasoning</h2>");
    let _ = write!(
        out,
        "<p class=\"muted\">Records of {}. <a href=\"/cockpit/reasoning\">The timeline</a>.</p><pre>{}</pre>",
        repo.reasoning
            .folder
            .as_deref()
            .map_or_else(|| String::from("this checkout"), escape),
        escape(&r.summary())
    );

    out.push_str("<h2 id=\"knowledge\">Knowledge</h2><dl>");
    let _ = write!(
        out,
        "<dt>pending</dt><dd>{} candidate(s), {} untracked</dd><dt>curated</dt><dd>{}</dd>",
        k.pending, k.untracked, k.curated
    );
    let _ = write!(
        out,
        "<dt>freshness</dt><dd>{}</dd>",
        if k.fresh {
            badge("good", "the last closed episode has been derived")
        } else {
            badge("warn", "the last closed episode has not been derived")
        }
    );
    if let (Some(at), Some(from), Some(age)) =
        (&k.oldest_queued_at, k.oldest_queued_from, k.oldest_age_days)
    {
        let _ = write!(
            out,
            "<dt>oldest candidate</dt><dd>waiting since {} ({age} days, measured from {})</dd>",
            escape(at),
            escape(from.said())
        );
    }
    for (name, moment) in [
        ("last closed", &k.last_closed),
        ("last derived", &k.last_derived),
    ] {
        if let Some(m) = moment {
            let _ = write!(
                out,
                "<dt>{name}</dt><dd>{} <span class=\"muted\">{}</span></dd>",
                escape(&m.ts),
                or_dash(m.episode.as_deref())
            );
        }
    }
    out.push_str("</dl>");

    out.push_str("<h2 id=\"outbox\">Outbox</h2>");
    if k.outbox.is_empty() {
        out.push_str(&empty("Empty."));
    } else {
        out.push_str("<p>Waiting in <code>.ai/local/state/outbox/</code> until the next episode boundary off the trunk:</p><ul>");
        for f in k.outbox.sessions.iter().chain(&k.outbox.candidates) {
            let _ = write!(out, "<li><code>{}</code></li>", escape(f));
        }
        out.push_str("</ul>");
    }

    out.push_str("<h2 id=\"intent\">Intent</h2>");
    match &repo.intent {
        Some(active) => {
            let t = &active.task;
            let _ = write!(
                out,
                "<p>Active task <code>{}</code>: {}</p>",
                escape(&t.id),
                escape(&t.description)
            );
            match &active.binding {
                Some(binding) => {
                    let _ = write!(out, "<pre>{}</pre>", escape(&binding.summary()));
                }
                None => out.push_str(&empty(
                    "Not bound to an intent (the binding was not asked).",
                )),
            }
            if let Some(statement) = &active.statement {
                let _ = write!(out, "<p>Serves: {}</p>", escape(statement));
            }
            for c in &active.criteria {
                let _ = write!(
                    out,
                    "<h3>Criterion <code>{}</code></h3><p>{}</p><ul>",
                    escape(&c.id),
                    escape(&c.text)
                );
                for (reference, blob) in &c.evidence {
                    let standing = match blob {
                        Some(b) => badge("good", &format!("blob {}", &b[..b.len().min(12)])),
                        None => badge("bad", "not at HEAD"),
                    };
                    let _ = write!(
                        out,
                        "<li><code>{}</code> {standing}</li>",
                        escape(reference)
                    );
                }
                out.push_str("</ul>");
            }
        }
        None => out.push_str(&empty("No task is active in this episode.")),
    }
    if repo.intents.is_empty() {
        out.push_str(&empty("No intents declared under .ai/repo/intents/."));
    } else {
        let names: Vec<String> = repo.intents.iter().map(|i| escape(i)).collect();
        let _ = write!(out, "<p>Declared intents: {}</p>", names.join(", "));
    }
    out
}

fn render_episode(e: &EpisodeContext) -> String {
    let ep = &e.episode;
    let mut out = String::from("<dl>");
    let _ = write!(
        out,
        "<dt>episode</dt><dd>{}</dd><dt>provider</dt><dd>{}</dd><dt>branch</dt><dd>{}</dd><dt>opened</dt><dd>{}</dd><dt>HEAD</dt><dd><code>{}</code>{}</dd>",
        html::episode_link(&ep.id),
        escape(&ep.provider),
        or_dash(ep.branch.as_deref()),
        escape(&ep.opened),
        or_dash(e.git.head.as_deref().map(|h| &h[..h.len().min(12)])),
        if e.git.dirty {
            format!(" {}", badge("warn", "uncommitted changes"))
        } else {
            String::new()
        },
    );
    out.push_str("</dl>");
    let w = &e.window;
    out.push_str("<h3>Decisions</h3>");
    if w.decisions.is_empty() {
        out.push_str(&empty("None recorded in this episode."));
    } else {
        let rows: Vec<Vec<String>> = w
            .decisions
            .iter()
            .map(|d| vec![escape(&d.ts), escape(&d.text), or_dash(d.task.as_deref())])
            .collect();
        out.push_str(&table(&["when", "decision", "task"], &rows));
    }
    out.push_str("<h3>Questions</h3>");
    if w.questions.is_empty() {
        out.push_str(&empty("None asked or resolved in this episode."));
    } else {
        let rows: Vec<Vec<String>> = w
            .questions
            .iter()
            .map(|q| {
                vec![
                    format!("<code>{}</code>", escape(&q.id)),
                    escape(&q.text),
                    match &q.answer {
                        Some(a) => escape(a),
                        None => badge("warn", "open"),
                    },
                ]
            })
            .collect();
        out.push_str(&table(&["id", "question", "answer"], &rows));
    }
    out.push_str("<h3>Checkpoints</h3>");
    if w.checkpoints.is_empty() {
        out.push_str(&empty("None."));
    } else {
        let rows: Vec<Vec<String>> = w
            .checkpoints
            .iter()
            .map(|c| vec![escape(&c.ts), escape(&c.text)])
            .collect();
        out.push_str(&table(&["when", "where the work stands"], &rows));
    }
    out.push_str("<h3>Tasks</h3>");
    if w.tasks.is_empty() {
        out.push_str(&empty("None started."));
    } else {
        let rows: Vec<Vec<String>> = w
            .tasks
            .iter()
            .map(|t| {
                vec![
                    format!("<code>{}</code>", escape(&t.id)),
                    escape(&t.description),
                    t.status
                        .as_ref()
                        .map_or_else(|| badge("quiet", "active"), html::label),
                    or_dash(t.reason.as_deref()),
                ]
            })
            .collect();
        out.push_str(&table(&["id", "task", "status", "reason"], &rows));
    }
    out.push_str("<h3>Commits since open</h3>");
    if e.git.commits.is_empty() {
        out.push_str(&empty("None."));
    } else {
        let rows: Vec<Vec<String>> = e
            .git
            .commits
            .iter()
            .map(|c| {
                vec![
                    format!("<code>{}</code>", escape(&c.id[..c.id.len().min(12)])),
                    escape(&c.subject),
                    escape(&c.time),
                ]
            })
            .collect();
        out.push_str(&table(&["commit", "subject", "time"], &rows));
    }
    out
}
