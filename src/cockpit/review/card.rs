//! `/cockpit/review/{id}`: one candidate's card, a click away from its row in the queue —
//! its claim (`knowledge.show`; a resolved question's answer), its provenance as links
//! (the episode, its branch and commits from `session.list`), what else is known there
//! (`recall` by its files, else by its words), the near duplicates folded under it, and
//! the acts.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};

use super::act::{Typed, acts, controls};
use super::{Filters, QUEUE, Row, age_of};
use crate::cockpit::html::{
    badge, empty, encode, episode_link, error_block, escape, knowledge_link, label, reference_link,
};
use crate::cockpit::{Page, PageError};
use crate::error::{Error, ErrorReport, Refusal};
use crate::http::AppState;
use crate::knowledge::queue::{CandidateEntry, QueuedFrom};
use crate::knowledge::{
    CandidateListing, CandidateState, CandidatesRequest, ShowRequest, ShownRecord,
};
use crate::model::ids::IdKind;
use crate::model::knowledge::{Class, Origin, Stance};
use crate::ops::Caller;
use crate::recall::{Hit, RecallKind, RecallRequest};
use crate::session::{EpisodeEntry, ListRequest};

/// Hits of a candidate's recall context.
const CONTEXT: usize = 5;

/// A candidate as its card shows it.
#[derive(Debug)]
pub struct Card {
    pub row: Row,
    pub shown: Result<ShownRecord, ErrorReport>,
    /// The episode's entry in `session.list`.
    pub episode: Option<EpisodeEntry>,
    pub context: Context,
    /// The candidates folded under it (near duplicates: one review item), with titles.
    pub folded: Vec<(String, String)>,
}

/// What else is known: by the candidate's files, else by its words.
#[derive(Debug)]
pub struct Context {
    by: ContextBy,
    hits: Result<Vec<Hit>, ErrorReport>,
}

#[derive(Debug)]
enum ContextBy {
    Files(Vec<String>),
    Words(String),
}

/// The candidate's `file:` and `test:` references, as paths.
fn files_of(derived_from: &[String]) -> Vec<String> {
    derived_from
        .iter()
        .filter_map(|r| r.strip_prefix("file:").or_else(|| r.strip_prefix("test:")))
        .map(str::to_owned)
        .collect()
}

/// The card of pending candidate `id` (`None`: no candidate of that id waits for review).
fn read(ops: Caller<'_>, id: &str) -> Result<Option<Card>, Error> {
    let listing: CandidateListing =
        ops.call("knowledge.candidates", CandidatesRequest::default())?;
    let Some(entry) = listing.candidates.iter().find(|c| c.id == id).cloned() else {
        return Ok(None);
    };
    let folded = entry
        .folded
        .iter()
        .map(|f| {
            let title = listing
                .candidates
                .iter()
                .find(|c| &c.id == f)
                .map(|c| c.title.clone())
                .unwrap_or_default();
            (f.clone(), title)
        })
        .collect();
    let shown = ops
        .call::<_, ShownRecord>(
            "knowledge.show",
            ShowRequest {
                id: entry.id.clone(),
            },
        )
        .map_err(|e| e.report());
    // The episode its id names, else its first `session:` reference (derivation writes
    // the deriving episode first).
    let episode = entry.episode.clone().or_else(|| {
        shown.as_ref().ok().and_then(|s| {
            s.record
                .provenance
                .derived_from
                .iter()
                .find_map(|r| r.strip_prefix("session:"))
                .map(str::to_owned)
        })
    });
    let row = Row {
        age: age_of(&entry, ops.ctx.clock.now()),
        branch: None,
        episode,
        entry,
    };
    let files = shown
        .as_ref()
        .map(|s| files_of(&s.record.provenance.derived_from))
        .unwrap_or_default();
    let by = if files.is_empty() {
        // Its subject, stop words left out: "the" and "of" rank nothing (a title of
        // nothing else is asked as it is).
        let words = crate::model::recall::subject_query(&row.entry.title);
        ContextBy::Words(if words.is_empty() {
            row.entry.title.clone()
        } else {
            words
        })
    } else {
        ContextBy::Files(files)
    };
    let request = RecallRequest {
        query: match &by {
            ContextBy::Words(words) => Some(words.clone()),
            ContextBy::Files(_) => None,
        },
        path: match &by {
            ContextBy::Files(files) => files.clone(),
            ContextBy::Words(_) => Vec::new(),
        },
        kind: vec![RecallKind::Knowledge],
        // One more than shown: the candidate itself is among what its files reach.
        limit: Some(CONTEXT + 1),
        ..RecallRequest::default()
    };
    let hits = ops
        .call::<_, crate::recall::Recall>("recall", request)
        .map(|r| {
            r.hits
                .into_iter()
                .filter(|h| h.id != row.entry.id)
                .take(CONTEXT)
                .collect()
        })
        .map_err(|e| e.report());
    let episode = match row.episode.as_deref() {
        Some(ep) => ops
            .call::<_, crate::session::EpisodeList>("session.list", ListRequest {})?
            .episodes
            .into_iter()
            .find(|s| s.id == ep),
        None => None,
    };
    Ok(Some(Card {
        row,
        shown,
        episode,
        context: Context { by, hits },
        folded,
    }))
}

/// `GET /cockpit/review/{id}`: the card of one candidate; a record that no longer waits
/// for review is shown on its record page.
pub async fn page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Result<Response, PageError> {
    // An id reaches the store only in the shape of one (SPEC §0).
    Refusal::check_id(IdKind::Knowledge, &id)
        .map_err(|refusal| PageError::from(Error::from(refusal).report()))?;
    let card = {
        let id = id.clone();
        state.call(move |ops| read(ops, &id)).await?
    };
    let Some(card) = card else {
        return Ok(Redirect::to(&format!("/cockpit/knowledge/{}", encode(&id))).into_response());
    };
    // `?supersedes=<id>`: the queue's "promote superseding it", ticked in the form.
    let pairs = crate::cockpit::query(uri.query());
    let typed = Typed::superseding(
        pairs
            .iter()
            .filter(|(k, v)| k == "supersedes" && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
            .collect(),
    );
    let mut out = format!("<p><a href=\"{QUEUE}\">← the review queue</a></p>");
    out.push_str(&render(&card, state.token(), &typed));
    Ok(Page::new("/review", &card.row.entry.title, &out).into_response())
}

/// How long a candidate has waited in the queue, and measured from what (SPEC §5.2).
fn waiting(days: Option<i64>, from: QueuedFrom) -> String {
    let since = match from {
        QueuedFrom::Derived => "since it was derived",
        QueuedFrom::Added => "since the commit that added it",
        QueuedFrom::Date => "since its date",
    };
    match days {
        None => String::from("(a date that does not parse)"),
        Some(d) if d <= 0 => format!("(waiting less than a day, {since})"),
        Some(1) => format!("(waiting 1 day, {since})"),
        Some(d) => format!("(waiting {d} days, {since})"),
    }
}

pub fn state_badge(state: CandidateState) -> String {
    match state {
        CandidateState::Tracked => badge("good", "tracked"),
        CandidateState::Untracked => badge("warn", "untracked"),
        CandidateState::Outbox | CandidateState::Branch => badge("quiet", state.name()),
    }
}

/// One candidate's card: what it claims, where it comes from, what else is known there,
/// what is folded under it, and the acts.
fn render(card: &Card, token: &str, typed: &Typed) -> String {
    let c: &CandidateEntry = &card.row.entry;
    let mut out = String::new();
    let _ = write!(
        out,
        "<article class=\"candidate\" id=\"c-{}\"><h2>{}</h2><p class=\"meta\">{} · {} · {} {} · {}</p>",
        escape(&c.id),
        escape(&c.title),
        knowledge_link(&c.id),
        label(&c.class),
        escape(&c.date),
        escape(&waiting(card.row.age, c.queued_from)),
        state_badge(c.state),
    );
    if let Some(under) = &c.folded_under {
        let _ = write!(
            out,
            "<p class=\"note\">A near duplicate folded under <a href=\"{QUEUE}/{}\"><code>{}</code></a>: deciding that item decides this one.</p>",
            escape(&encode(under)),
            escape(under)
        );
    }
    if let Some(restates) = &c.restates {
        let _ = write!(
            out,
            "<p class=\"note\">Its claim restates the verified record {}.</p>",
            knowledge_link(restates)
        );
    }
    if !c.concerns.is_empty() {
        let _ = write!(
            out,
            "<section class=\"note\"><p>It concerns the same files as {} verified record(s): restate, replace or keep both? To replace one, tick it in the promote form below: promoting this candidate supersedes it in the same act.</p><ul class=\"concerns\">",
            c.concerns.len()
        );
        for v in &c.concerns {
            let files: Vec<String> = v
                .files
                .iter()
                .map(|f| format!("<code>{}</code>", escape(f)))
                .collect();
            let _ = write!(
                out,
                "<li>{} {} <span class=\"muted\">({}; {}% alike)</span></li>",
                knowledge_link(&v.id),
                escape(&v.title),
                files.join(", "),
                (v.similarity * 100.0).round()
            );
        }
        out.push_str("</ul></section>");
    }
    match &card.shown {
        Ok(shown) => {
            let r = &shown.record;
            // A resolved question derives a fact the ledger decided: its title is the
            // question, its body the answer (SPEC §5.1).
            let what = if r.provenance.origin == Origin::Extracted
                && r.class == Class::Fact
                && r.stance == Stance::Decided
            {
                "The answer"
            } else {
                "The claim"
            };
            let _ = write!(
                out,
                "<h3>{what}</h3><pre class=\"body\">{}</pre>",
                escape(shown.body.trim())
            );
            out.push_str(&provenance(card, shown));
        }
        Err(report) => out.push_str(&error_block(report)),
    }
    out.push_str(&context(&card.context));
    if !card.folded.is_empty() {
        let _ = write!(
            out,
            "<h3>Folded under it ({})</h3><p class=\"muted\">Near duplicates of its claim: one review item. Promoting it rejects these as its duplicates; rejecting it rejects them too.</p><ul class=\"refs\">",
            card.folded.len()
        );
        for (id, title) in &card.folded {
            let _ = write!(
                out,
                "<li><a href=\"{QUEUE}/{}\">{}</a> <code class=\"muted\">{}</code></li>",
                escape(&encode(id)),
                escape(title),
                escape(id)
            );
        }
        out.push_str("</ul>");
        out.push_str("<h3>Decide the item</h3>");
        out.push_str(&controls(
            token,
            &Filters::default(),
            &Typed::default(),
            std::slice::from_ref(&c.id),
        ));
    } else {
        let offered: Vec<(String, String)> = c
            .concerns
            .iter()
            .map(|v| (v.id.clone(), v.title.clone()))
            .collect();
        out.push_str(&acts(&c.id, token, typed, &offered));
    }
    out.push_str("</article>");
    out
}

/// The provenance of a shown candidate: its episode and branch, its references as links,
/// its commits, its file.
fn provenance(card: &Card, shown: &ShownRecord) -> String {
    let r = &shown.record;
    let mut out = String::from("<h3>Where it comes from</h3><dl class=\"facts\">");
    let _ = write!(
        out,
        "<dt>origin</dt><dd>{} · {}</dd>",
        label(&r.provenance.origin),
        label(&r.stance)
    );
    match (&card.row.episode, card.episode.as_ref()) {
        (Some(ep), entry) => {
            let branch = entry
                .and_then(|e| e.branch.as_deref())
                .map(|b| format!(" on branch <code>{}</code>", escape(b)))
                .unwrap_or_else(|| String::from(" (branch unknown here)"));
            let when = entry
                .and_then(|e| e.opened.as_deref())
                .map(|t| format!(", opened {}", escape(t)))
                .unwrap_or_default();
            let _ = write!(
                out,
                "<dt>episode</dt><dd>{}{branch}{when} · <a href=\"{QUEUE}?episode={}\">its candidates</a></dd>",
                episode_link(ep),
                escape(&encode(ep))
            );
        }
        (None, _) => out.push_str("<dt>episode</dt><dd class=\"muted\">none named</dd>"),
    }
    let commits: Vec<&str> = r
        .provenance
        .derived_from
        .iter()
        .filter_map(|d| d.strip_prefix("commit:"))
        .collect();
    if commits.is_empty() {
        let of_episode = card
            .episode
            .as_ref()
            .and_then(|e| e.front.as_ref())
            .map(|f| f.commits.as_slice())
            .unwrap_or_default();
        if of_episode.is_empty() {
            out.push_str("<dt>commits</dt><dd class=\"muted\">none named</dd>");
        } else {
            let list: Vec<String> = of_episode
                .iter()
                .map(|c| format!("<code>{}</code>", escape(c)))
                .collect();
            let _ = write!(
                out,
                "<dt>commits</dt><dd>none named; its episode's: {}</dd>",
                list.join(" ")
            );
        }
    } else {
        let list: Vec<String> = commits
            .iter()
            .map(|c| format!("<code>{}</code>", escape(c)))
            .collect();
        let _ = write!(out, "<dt>commits</dt><dd>{}</dd>", list.join(" "));
    }
    out.push_str("<dt>derived from</dt><dd>");
    if shown.references.is_empty() {
        out.push_str("<span class=\"muted\">nothing</span>");
    } else {
        out.push_str("<ul class=\"refs\">");
        for reference in &shown.references {
            let resolves = if reference.resolves {
                badge("good", "resolves")
            } else {
                badge("bad", "does not resolve")
            };
            let _ = write!(
                out,
                "<li>{} {resolves}</li>",
                reference_link(&reference.reference)
            );
        }
        out.push_str("</ul>");
    }
    let _ = write!(
        out,
        "</dd><dt>file</dt><dd><code>{}</code></dd></dl>",
        escape(&shown.path)
    );
    out
}
/// What else is known where the candidate is, as recall ranked it.
fn context(context: &Context) -> String {
    let mut out = match &context.by {
        ContextBy::Files(files) => {
            let named: Vec<String> = files
                .iter()
                .map(|f| format!("<code>{}</code>", escape(f)))
                .collect();
            format!(
                "<h3>Also known about its files</h3><p class=\"muted\">Recall by {}:</p>",
                named.join(", ")
            )
        }
        ContextBy::Words(_) => String::from(
            "<h3>Also known on the same subject</h3><p class=\"muted\">It names no file; recall by the words of its title:</p>",
        ),
    };
    match &context.hits {
        Err(report) => out.push_str(&error_block(report)),
        Ok(hits) if hits.is_empty() => out.push_str(&empty("Nothing else is known there.")),
        Ok(hits) => {
            out.push_str("<ul class=\"hits\">");
            for hit in hits {
                let tone = match hit.status {
                    crate::model::recall::HitStatus::Verified => "good",
                    crate::model::recall::HitStatus::Candidate => "quiet",
                    crate::model::recall::HitStatus::Stale => "warn",
                    crate::model::recall::HitStatus::Superseded => "bad",
                };
                let why: Vec<String> = hit
                    .why
                    .iter()
                    .map(|r| format!("{}: {}", escape(&r.signal), escape(&r.detail)))
                    .collect();
                let _ = write!(
                    out,
                    "<li>{} {} {}<br><span class=\"muted\">why — {}</span></li>",
                    badge(tone, hit.status.name()),
                    knowledge_link(&hit.id),
                    escape(&hit.line),
                    why.join("; ")
                );
            }
            out.push_str("</ul>");
        }
    }
    out
}
