//! `/cockpit/review`: the knowledge review queue and the human act on each candidate.
//!
//! The queue is `knowledge.candidates`, with each candidate's episode from its
//! `derived_from` edges (`knowledge.edges`, one pass over the store), filtered and ordered
//! by the GET form (episode, class, where it waits, age; oldest, newest, by class, by
//! episode) and shown [`PAGE`] at a time. Each shown candidate carries what a reviewer
//! decides from: its body (`knowledge.show`; a resolved question's answer), its provenance
//! as links (the episode, its branch and commits from `session.list`), its recall context
//! (`recall` by its files, else by its words: what else is known there) and the promote
//! and reject forms, posted with the run's token and answered by a redirect back to the
//! queue, which then says what happened and what to commit.

use std::collections::HashMap;
use std::fmt::Write as _;

use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, Uri};
use axum::response::Redirect;

use super::flash::{self, Flash};
use super::html::{
    badge, empty, encode, episode_link, error_block, escape, knowledge_link, label, reference_link,
};
use super::{Form, Page, PageError, param, query};
use crate::error::{Class as ErrorClass, Error, ErrorReport};
use crate::http::{ApiError, AppState};
use crate::knowledge::graph::EdgeType;
use crate::knowledge::queue::{CandidateEntry, QueuedFrom};
use crate::knowledge::review::{Promoted, Rejected};
use crate::knowledge::{
    CandidateListing, CandidateState, CandidatesRequest, EdgesRequest, KnowledgeGraph,
    PromoteRequest, RejectRequest, ShowRequest, ShownRecord,
};
use crate::model::knowledge::{Class, Origin, Stance};
use crate::model::shell::quote;
use crate::ops::Caller;
use crate::recall::{Hit, RecallKind, RecallRequest};
use crate::session::{EpisodeEntry, ListRequest};

const QUEUE: &str = "/cockpit/review";

/// Candidates shown on one page of the queue (each costs a `knowledge.show` and a
/// `recall`).
pub const PAGE: usize = 10;

/// Hits of a candidate's recall context.
const CONTEXT: usize = 5;

/// The order of the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Sort {
    /// Oldest first (the operation's own order: time in the queue, then id).
    #[default]
    Oldest,
    Newest,
    /// By class, oldest first within one.
    Class,
    /// By episode (ids begin with when they opened), oldest first within one.
    Episode,
}

impl Sort {
    const ALL: [Sort; 4] = [Sort::Oldest, Sort::Newest, Sort::Class, Sort::Episode];

    fn name(self) -> &'static str {
        match self {
            Sort::Oldest => "oldest",
            Sort::Newest => "newest",
            Sort::Class => "class",
            Sort::Episode => "episode",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Sort::Oldest => "oldest first",
            Sort::Newest => "newest first",
            Sort::Class => "by class",
            Sort::Episode => "by episode",
        }
    }
}

/// Where a candidate waits, as the queue filters it.
const STATES: [CandidateState; 3] = [
    CandidateState::Tracked,
    CandidateState::Untracked,
    CandidateState::Outbox,
];

/// The queue's filters and order, from the query string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filters {
    episode: Option<String>,
    class: Option<Class>,
    state: Option<CandidateState>,
    /// At least this many days old.
    older: Option<i64>,
    sort: Sort,
    /// 1-based.
    page: usize,
}

/// A filter value the form does not offer.
fn bad_filter(name: &str, value: &str, offered: &str) -> ErrorReport {
    ApiError::surface(
        StatusCode::BAD_REQUEST,
        ErrorClass::Usage,
        "request.valid",
        format!("{name} {value:?} is not one the queue knows"),
        &format!("choose {offered}, or leave it empty"),
    )
    .report
}

impl Filters {
    fn parse(pairs: &[(String, String)]) -> Result<Filters, ErrorReport> {
        let class = match param(pairs, "class") {
            None => None,
            Some(name) => Some(
                Class::from_name(&name)
                    .ok_or_else(|| bad_filter("class", &name, &Class::NAMES.join(", ")))?,
            ),
        };
        let state = match param(pairs, "state") {
            None => None,
            Some(name) => Some(
                STATES
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| bad_filter("state", &name, "tracked, untracked or outbox"))?,
            ),
        };
        let older = match param(pairs, "older") {
            None => None,
            Some(days) => Some(
                days.parse::<i64>()
                    .ok()
                    .filter(|d| *d >= 0)
                    .ok_or_else(|| bad_filter("older", &days, "a number of days (0 or more)"))?,
            ),
        };
        let sort = match param(pairs, "sort") {
            None => Sort::default(),
            Some(name) => Sort::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| bad_filter("sort", &name, "oldest, newest, class or episode"))?,
        };
        let page = match param(pairs, "page") {
            None => 1,
            Some(n) => n
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| bad_filter("page", &n, "a page number from 1"))?,
        };
        Ok(Filters {
            episode: param(pairs, "episode"),
            class,
            state,
            older,
            sort,
            page,
        })
    }

    /// The query string of these filters on page `page` (`?...`, or empty).
    fn href(&self, page: usize) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(e) = &self.episode {
            q.append_pair("episode", e);
        }
        if let Some(c) = self.class {
            q.append_pair("class", c.name());
        }
        if let Some(s) = self.state {
            q.append_pair("state", s.name());
        }
        if let Some(d) = self.older {
            q.append_pair("older", &d.to_string());
        }
        if self.sort != Sort::default() {
            q.append_pair("sort", self.sort.name());
        }
        if page > 1 {
            q.append_pair("page", &page.to_string());
        }
        let q = q.finish();
        if q.is_empty() {
            QUEUE.to_owned()
        } else {
            format!("{QUEUE}?{q}")
        }
    }

    fn narrowed(&self) -> bool {
        self.episode.is_some()
            || self.class.is_some()
            || self.state.is_some()
            || self.older.is_some()
    }
}

/// One candidate of the queue with what the filters need.
#[derive(Debug, Clone)]
struct Row {
    entry: CandidateEntry,
    /// Its first `session:` reference.
    episode: Option<String>,
    /// Days it has waited in the queue (`None`: a start that does not parse).
    age: Option<i64>,
}

/// A candidate as its card shows it.
#[derive(Debug)]
struct Card {
    row: Row,
    shown: Result<ShownRecord, ErrorReport>,
    /// The episode's entry in `session.list`.
    episode: Option<EpisodeEntry>,
    context: Context,
}

/// What else is known: by the candidate's files, else by its words.
#[derive(Debug)]
struct Context {
    by: ContextBy,
    hits: Result<Vec<Hit>, ErrorReport>,
}

#[derive(Debug)]
enum ContextBy {
    Files(Vec<String>),
    Words(String),
}

/// What the queue's page shows.
#[derive(Debug)]
struct Queue {
    /// Every pending candidate, before the filters.
    total: usize,
    /// The episodes the pending candidates come from, with their counts.
    episodes: Vec<(String, usize)>,
    /// After the filters.
    matching: usize,
    cards: Vec<Card>,
    unreadable: Vec<String>,
}

/// The candidate's `file:` and `test:` references, as paths.
fn files_of(derived_from: &[String]) -> Vec<String> {
    derived_from
        .iter()
        .filter_map(|r| r.strip_prefix("file:").or_else(|| r.strip_prefix("test:")))
        .map(str::to_owned)
        .collect()
}

/// Reads the queue: every candidate (one listing, one pass over the edges), the filters
/// and the order applied, then for the page's candidates their record, their episode and
/// their recall context.
fn read(ops: Caller<'_>, filters: &Filters) -> Result<Queue, Error> {
    let listing: CandidateListing =
        ops.call("knowledge.candidates", CandidatesRequest::default())?;
    let graph: KnowledgeGraph = ops.call(
        "knowledge.edges",
        EdgesRequest {
            edge_type: Some(EdgeType::DerivedFrom),
        },
    )?;
    let mut episode_of: HashMap<&str, &str> = HashMap::new();
    for e in &graph.edges {
        if let Some(ep) = e.to.strip_prefix("session:") {
            episode_of.entry(e.from.as_str()).or_insert(ep);
        }
    }
    let now = ops.ctx.clock.now();
    let rows: Vec<Row> = listing
        .candidates
        .iter()
        .map(|c| Row {
            episode: episode_of.get(c.id.as_str()).map(|e| (*e).to_owned()),
            age: crate::model::time::parse(&c.queued_at).map(|d| (now - d).whole_days()),
            entry: c.clone(),
        })
        .collect();
    let mut episodes: Vec<(String, usize)> = Vec::new();
    for ep in rows.iter().filter_map(|r| r.episode.as_deref()) {
        match episodes.iter_mut().find(|(e, _)| e == ep) {
            Some((_, n)) => *n += 1,
            None => episodes.push((ep.to_owned(), 1)),
        }
    }
    episodes.sort();
    let mut matching: Vec<Row> = rows
        .into_iter()
        .filter(|r| {
            filters
                .episode
                .as_deref()
                .is_none_or(|e| r.episode.as_deref() == Some(e))
                && filters.class.is_none_or(|c| r.entry.class == c)
                && filters.state.is_none_or(|s| r.entry.state == s)
                && filters
                    .older
                    .is_none_or(|d| r.age.is_some_and(|age| age >= d))
        })
        .collect();
    // The listing is oldest first (time in the queue, then id); a stable sort keeps that
    // order within each key.
    match filters.sort {
        Sort::Oldest => {}
        Sort::Newest => matching.reverse(),
        Sort::Class => matching.sort_by_key(|r| r.entry.class.name()),
        Sort::Episode => matching.sort_by(|a, b| a.episode.cmp(&b.episode)),
    }
    let count = matching.len();
    let page: Vec<Row> = matching
        .into_iter()
        .skip((filters.page - 1) * PAGE)
        .take(PAGE)
        .collect();
    let sessions = if page.iter().any(|r| r.episode.is_some()) {
        ops.call::<_, crate::session::EpisodeList>("session.list", ListRequest {})?
            .episodes
    } else {
        Vec::new()
    };
    let mut cards = Vec::with_capacity(page.len());
    for row in page {
        let shown = ops
            .call::<_, ShownRecord>(
                "knowledge.show",
                ShowRequest {
                    id: row.entry.id.clone(),
                },
            )
            .map_err(|e| e.report());
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
        let episode = row
            .episode
            .as_deref()
            .and_then(|ep| sessions.iter().find(|s| s.id == ep))
            .cloned();
        cards.push(Card {
            row,
            shown,
            episode,
            context: Context { by, hits },
        });
    }
    Ok(Queue {
        total: listing.candidates.len(),
        episodes,
        matching: count,
        cards,
        unreadable: listing.unreadable,
    })
}

/// What a candidate's forms hold: empty, or what was typed when the act was refused.
#[derive(Debug, Clone, Default)]
pub struct Typed {
    evidence: String,
    class: String,
    reason: String,
    by: String,
}

impl Typed {
    fn from_form(form: &Form) -> Typed {
        let raw = |name: &str| {
            form.fields
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        Typed {
            evidence: raw("evidence"),
            class: raw("class"),
            reason: raw("reason"),
            by: raw("by"),
        }
    }
}

/// The promote and reject forms of candidate `id`, with the run's `token` hidden in each
/// and `typed` in their fields.
pub fn acts(id: &str, token: &str, typed: &Typed) -> String {
    let target = escape(&encode(id));
    let token = escape(token);
    let mut classes = String::from("<option value=\"\">keep the derived class</option>");
    for name in Class::NAMES {
        let selected = if typed.class == name { " selected" } else { "" };
        let _ = write!(
            classes,
            "<option value=\"{name}\"{selected}>{name}</option>"
        );
    }
    format!(
        "<div class=\"acts\">\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/promote\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"evidence-{target}\">Evidence</label>\
         <textarea id=\"evidence-{target}\" name=\"evidence\" required placeholder=\"What shows the claim holds: a test, a file, a command and its output\">{evidence}</textarea>\
         <label for=\"class-{target}\">Class</label>\
         <select id=\"class-{target}\" name=\"class\">{classes}</select>\
         <button type=\"submit\" class=\"promote\">Promote</button>\
         </form>\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/reject\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"reason-{target}\">Reason</label>\
         <input type=\"text\" id=\"reason-{target}\" name=\"reason\" required placeholder=\"Why it is rejected\" value=\"{reason}\">\
         <label for=\"by-{target}\">Replaced by (optional)</label>\
         <input type=\"text\" id=\"by-{target}\" name=\"by\" placeholder=\"a knowledge id\" value=\"{by}\">\
         <button type=\"submit\" class=\"reject\">Reject</button>\
         </form></div>",
        evidence = escape(&typed.evidence),
        reason = escape(&typed.reason),
        by = escape(&typed.by),
    )
}

/// The GET form of the filters, filled with those in use.
fn filter_form(filters: &Filters, episodes: &[(String, usize)]) -> String {
    let selected = |on: bool| if on { " selected" } else { "" };
    let mut out = String::from(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/review\"><div><label for=\"episode\">Episode</label><select id=\"episode\" name=\"episode\"><option value=\"\">every episode</option>",
    );
    let mut listed = false;
    for (ep, n) in episodes {
        let on = filters.episode.as_deref() == Some(ep);
        listed |= on;
        let _ = write!(
            out,
            "<option value=\"{0}\"{1}>{0} ({n})</option>",
            escape(ep),
            selected(on)
        );
    }
    if let (Some(ep), false) = (&filters.episode, listed) {
        let _ = write!(
            out,
            "<option value=\"{0}\" selected>{0} (none)</option>",
            escape(ep)
        );
    }
    out.push_str("</select></div><div><label for=\"class\">Class</label><select id=\"class\" name=\"class\"><option value=\"\">every class</option>");
    for c in Class::NAMES {
        let on = filters.class.map(Class::name) == Some(c);
        let _ = write!(out, "<option value=\"{c}\"{}>{c}</option>", selected(on));
    }
    out.push_str("</select></div><div><label for=\"state\">Waits</label><select id=\"state\" name=\"state\"><option value=\"\">anywhere</option>");
    for s in STATES {
        let on = filters.state == Some(s);
        let _ = write!(
            out,
            "<option value=\"{0}\"{1}>{0}</option>",
            s.name(),
            selected(on)
        );
    }
    let _ = write!(
        out,
        "</select></div><div><label for=\"older\">Age, days at least</label><input type=\"number\" min=\"0\" id=\"older\" name=\"older\" value=\"{}\"></div><div><label for=\"sort\">Order</label><select id=\"sort\" name=\"sort\">",
        filters.older.map(|d| d.to_string()).unwrap_or_default()
    );
    for s in Sort::ALL {
        let _ = write!(
            out,
            "<option value=\"{}\"{}>{}</option>",
            s.name(),
            selected(filters.sort == s),
            s.label()
        );
    }
    out.push_str("</select></div><div><button type=\"submit\">Show</button> <a href=\"/cockpit/review\">clear</a></div></form>");
    out
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

fn state_badge(state: CandidateState) -> String {
    match state {
        CandidateState::Tracked => badge("good", "tracked"),
        CandidateState::Untracked => badge("warn", "untracked"),
        CandidateState::Outbox | CandidateState::Branch => badge("quiet", state.name()),
    }
}

/// One candidate's card: what it claims, where it comes from, what else is known there,
/// and the two forms.
fn card(card: &Card, token: &str) -> String {
    let c = &card.row.entry;
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
    out.push_str(&acts(&c.id, token, &Typed::default()));
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

/// The flash: what the act did and what to commit.
fn render_flash(flash: &Flash) -> String {
    let command = |files: &[String], message: String| {
        let files: Vec<String> = files.iter().map(|f| quote(f).into_owned()).collect();
        format!(
            "git add {} &amp;&amp; git commit -m {}",
            escape(&files.join(" ")),
            escape(&quote(&message))
        )
    };
    match flash {
        Flash::Promoted {
            id,
            path,
            commit,
            warnings,
            redacted,
            resumed,
        } => {
            let mut out = format!(
                "<section class=\"flash\" role=\"status\"><p>Promoted {}: it is curated knowledge now, in <code>{}</code>.</p>",
                knowledge_link(id),
                escape(path)
            );
            if let Some(note) = resumed {
                let _ = write!(out, "<p>{}</p>", escape(note));
            }
            if !redacted.is_empty() {
                let _ = write!(
                    out,
                    "<p>Taken out of the evidence before it was written: {}.</p>",
                    escape(&redacted.join(", "))
                );
            }
            if !warnings.is_empty() {
                out.push_str("<p>The check says of the promoted record:</p><ul>");
                for w in warnings {
                    let _ = write!(out, "<li>{}</li>", escape(w));
                }
                out.push_str("</ul>");
            }
            let _ = write!(
                out,
                "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre></section>",
                command(commit, format!("Verify knowledge {id}"))
            );
            out
        }
        Flash::Rejected {
            id,
            path,
            by,
            commit,
        } => {
            let by = by
                .as_deref()
                .map(|b| format!(", replaced by {}", knowledge_link(b)))
                .unwrap_or_default();
            let mut out = format!(
                "<section class=\"flash\" role=\"status\"><p>Rejected {}{by}: it stays, marked superseded, in <code>{}</code>.</p>",
                knowledge_link(id),
                escape(path)
            );
            if commit.is_empty() {
                out.push_str(
                    "<p>It waits in the outbox, which git does not see: nothing to commit.</p>",
                );
            } else {
                let _ = write!(
                    out,
                    "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre>",
                    command(commit, format!("Reject knowledge {id}"))
                );
            }
            out.push_str("</section>");
            out
        }
    }
}

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let pairs = query(uri.query());
    let mut out = String::new();
    if let Some(flash) = param(&pairs, "done").and_then(|key| flash::take(state.token(), &key)) {
        out.push_str(&render_flash(&flash));
    }
    let filters = match Filters::parse(&pairs) {
        Ok(f) => f,
        Err(report) => {
            // A filter that does not parse: the form stays, with the error beside it.
            out.push_str(&filter_form(&Filters::default(), &[]));
            out.push_str(&error_block(&report));
            let mut page = Page::new("/review", "Review queue", &out);
            page.status = StatusCode::BAD_REQUEST;
            return Ok(page);
        }
    };
    let queue = {
        let filters = filters.clone();
        state.call(move |ops| read(ops, &filters)).await?
    };
    let _ = write!(
        out,
        "<p>{} candidate(s) await review. Promoting needs evidence; rejecting needs a reason. Both are human acts: no agent surface offers them.</p>",
        queue.total
    );
    out.push_str(&filter_form(&filters, &queue.episodes));
    if queue.total == 0 {
        out.push_str(&empty("The queue is empty."));
    } else if queue.matching == 0 {
        out.push_str(&empty("No candidate matches these filters."));
    } else {
        let first = (filters.page - 1) * PAGE + 1;
        let last = first + queue.cards.len().saturating_sub(1);
        let _ = write!(
            out,
            "<p class=\"muted\">{} of {} shown{}, {}.</p>",
            if queue.cards.is_empty() {
                String::from("none")
            } else {
                format!("{first}–{last}")
            },
            queue.matching,
            if filters.narrowed() {
                " (filtered)"
            } else {
                ""
            },
            filters.sort.label()
        );
    }
    for c in &queue.cards {
        out.push_str(&card(c, state.token()));
    }
    let pages = queue.matching.div_ceil(PAGE);
    if pages > 1 {
        out.push_str("<nav class=\"pages\" aria-label=\"pages\">");
        if filters.page > 1 {
            let _ = write!(
                out,
                "<a href=\"{}\">← previous</a> ",
                escape(&filters.href(filters.page - 1))
            );
        }
        let _ = write!(out, "<span>page {} of {pages}</span>", filters.page);
        if filters.page < pages {
            let _ = write!(
                out,
                " <a href=\"{}\">next →</a>",
                escape(&filters.href(filters.page + 1))
            );
        }
        out.push_str("</nav>");
    }
    if !queue.unreadable.is_empty() {
        out.push_str("<h2>Unreadable files</h2><p>These are not records (the Doctor page and <code>majordomus knowledge check</code> say why):</p><ul>");
        for f in &queue.unreadable {
            let _ = write!(out, "<li><code>{}</code></li>", escape(f));
        }
        out.push_str("</ul>");
    }
    Ok(Page::new("/review", "Review queue", &out))
}

/// The error page of an act, linking back to the queue.
fn refused(error: impl Into<PageError>) -> PageError {
    error
        .into()
        .back(QUEUE.to_owned(), "Back to the review queue")
}

/// The error page of an act the operation refused: the forms again, with what was typed.
fn refused_with_forms(report: ErrorReport, id: &str, token: &str, typed: &Typed) -> PageError {
    refused(report).with(format!("<h2>Try again</h2>{}", acts(id, token, typed)))
}

/// Where candidate `id` waits (tracked, untracked, outbox), before an act moves it.
fn waited(ops: Caller<'_>, id: &str) -> Result<Option<CandidateState>, Error> {
    let listing: CandidateListing =
        ops.call("knowledge.candidates", CandidatesRequest::default())?;
    Ok(listing
        .candidates
        .into_iter()
        .find(|c| c.id == id)
        .map(|c| c.state))
}

/// `POST /cockpit/knowledge/{id}/promote`: `knowledge.promote` through the registry, with
/// the form's evidence.
pub async fn promote(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let typed = Typed::from_form(&form);
    let class = match form.field("class") {
        None => None,
        Some(name) => Some(Class::from_name(name).ok_or_else(|| {
            refused_with_forms(
                ApiError::surface(
                    StatusCode::BAD_REQUEST,
                    ErrorClass::Usage,
                    "request.valid",
                    format!("class {name:?} is not a knowledge class"),
                    "choose fact, convention, constraint, memory or lesson, or keep the derived class",
                )
                .report,
                &id,
                state.token(),
                &typed,
            )
        })?),
    };
    let request = PromoteRequest {
        id: id.clone(),
        class,
        evidence: form.field("evidence").unwrap_or_default().to_owned(),
        files: Vec::new(),
        base: None,
    };
    let (was, promoted) = state
        .call(move |ops| {
            // Where it waited decides what to commit: a tracked candidate's removal is
            // part of the change.
            let was = waited(ops, &request.id)?;
            Ok((was, ops.call::<_, Promoted>("knowledge.promote", request)?))
        })
        .await
        .map_err(|report| refused_with_forms(report, &id, state.token(), &typed))?;
    let mut commit = vec![promoted.path.clone()];
    if was == Some(CandidateState::Tracked) && promoted.from != promoted.path {
        commit.push(promoted.from.clone());
    }
    let key = flash::put(
        state.token(),
        Flash::Promoted {
            id: promoted.id,
            path: promoted.path,
            commit,
            warnings: promoted
                .warnings
                .iter()
                .map(|w| format!("{} [{}]: {}", label(&w.severity), w.rule, w.message))
                .collect(),
            redacted: promoted.redacted,
            resumed: promoted.resumed,
        },
    );
    Ok(Redirect::to(&format!("{QUEUE}?done={key}")))
}

/// `POST /cockpit/knowledge/{id}/reject`: `knowledge.reject` through the registry, with
/// the form's reason.
pub async fn reject(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let typed = Typed::from_form(&form);
    let request = RejectRequest {
        id: id.clone(),
        reason: form.field("reason").unwrap_or_default().to_owned(),
        by: form.field("by").map(str::to_owned),
    };
    let (was, rejected) = state
        .call(move |ops| {
            let was = waited(ops, &request.id)?;
            Ok((was, ops.call::<_, Rejected>("knowledge.reject", request)?))
        })
        .await
        .map_err(|report| refused_with_forms(report, &id, state.token(), &typed))?;
    let commit = if was == Some(CandidateState::Outbox) {
        Vec::new()
    } else {
        vec![rejected.path.clone()]
    };
    let key = flash::put(
        state.token(),
        Flash::Rejected {
            id: rejected.id,
            path: rejected.path,
            by: rejected.superseded_by,
            commit,
        },
    );
    Ok(Redirect::to(&format!("{QUEUE}?done={key}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &str) -> Vec<(String, String)> {
        super::super::query(Some(query))
    }

    #[test]
    fn the_filters_read_back_as_the_same_query() {
        let filters = Filters::parse(&pairs(
            "episode=E&class=fact&state=untracked&older=3&sort=newest&page=2",
        ))
        .expect("filters");
        assert_eq!(filters.class, Some(Class::Fact));
        assert_eq!(filters.state, Some(CandidateState::Untracked));
        assert_eq!(
            filters.href(2),
            "/cockpit/review?episode=E&class=fact&state=untracked&older=3&sort=newest&page=2"
        );
        assert_eq!(
            Filters::parse(&pairs(&filters.href(2)[QUEUE.len() + 1..])),
            Ok(filters)
        );
        assert_eq!(Filters::default().href(1), QUEUE);
    }

    #[test]
    fn a_filter_the_form_does_not_offer_is_a_usage_error() {
        for query in [
            "class=rumour",
            "state=branch",
            "older=-1",
            "older=x",
            "sort=up",
            "page=0",
        ] {
            let report = Filters::parse(&pairs(query)).expect_err(query);
            assert_eq!(report.rule, "request.valid", "{query}");
            assert_eq!(report.class, ErrorClass::Usage, "{query}");
            assert!(report.fix.is_some(), "{query}");
        }
    }

    #[test]
    fn the_flash_names_the_exact_commit() {
        let html = render_flash(&Flash::Promoted {
            id: "I".into(),
            path: ".ai/repo/knowledge/curated/I.md".into(),
            commit: vec![
                ".ai/repo/knowledge/curated/I.md".into(),
                ".ai/repo/knowledge/candidates/I.md".into(),
            ],
            warnings: Vec::new(),
            redacted: Vec::new(),
            resumed: None,
        });
        assert!(
            html.contains("<code>git add .ai/repo/knowledge/curated/I.md .ai/repo/knowledge/candidates/I.md &amp;&amp; git commit -m &#39;Verify knowledge I&#39;</code>"),
            "{html}"
        );
    }
}
