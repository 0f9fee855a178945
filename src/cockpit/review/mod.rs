//! `/cockpit/review`: the knowledge review queue as a compact list, and the acts on it.
//!
//! The queue is `knowledge.candidates` with the GET form's filters (branch, episode,
//! class, older than: exactly the operation's request), one row per review item (near
//! duplicates folded under the newest), [`PAGE`] rows a page, each with a checkbox; the
//! branch of each row's episode comes from `session.list`. The batch form decides the
//! checked rows or the whole filtered queue in one `knowledge.review` (`act`); a row's
//! full card is its own page (`card`).

mod act;
mod card;

use std::collections::HashMap;
use std::fmt::Write as _;

use axum::extract::State;
use axum::http::{StatusCode, Uri};

pub use act::{Typed, acts, batch, promote, reject, render_flash};
pub use card::page as card;

use super::flash;
use super::html::{empty, encode, error_block, escape};
use super::{Page, PageError, param, query};
use crate::error::{Class as ErrorClass, Error, ErrorReport};
use crate::http::{ApiError, AppState};
use crate::knowledge::queue::CandidateEntry;
use crate::knowledge::{CandidateListing, CandidatesRequest};
use crate::model::knowledge::Class;
use crate::ops::Caller;
use crate::session::ListRequest;

const QUEUE: &str = "/cockpit/review";

/// Review items shown on one page of the queue.
pub const PAGE: usize = 50;

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

/// The queue's filters (`knowledge.candidates`' request), its order and page, from the
/// query string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    branch: Option<String>,
    episode: Option<String>,
    class: Option<Class>,
    /// A span: `30m`, `12h`, `7d`, `2w` (the operation parses it).
    older_than: Option<String>,
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
    /// The filters of `pairs`, each named `prefix` + its name (the queue's query string:
    /// no prefix; the batch form's hidden copy: `f_`).
    fn parse(pairs: &[(String, String)], prefix: &str) -> Result<Filters, ErrorReport> {
        let get = |name: &str| param(pairs, &format!("{prefix}{name}"));
        let class = match get("class") {
            None => None,
            Some(name) => Some(
                Class::from_name(&name)
                    .ok_or_else(|| bad_filter("class", &name, &Class::NAMES.join(", ")))?,
            ),
        };
        let sort = match get("sort") {
            None => Sort::default(),
            Some(name) => Sort::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| bad_filter("sort", &name, "oldest, newest, class or episode"))?,
        };
        let page = match get("page") {
            None => 1,
            Some(n) => n
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| bad_filter("page", &n, "a page number from 1"))?,
        };
        Ok(Filters {
            branch: get("branch"),
            episode: get("episode"),
            class,
            older_than: get("older_than"),
            sort,
            page,
        })
    }

    /// `knowledge.candidates`' request: what the queue lists and `all_listed` acts on.
    fn request(&self) -> CandidatesRequest {
        CandidatesRequest {
            branch: self.branch.clone(),
            episode: self.episode.clone(),
            class: self.class,
            older_than: self.older_than.clone(),
        }
    }

    /// The filters and order as `(name, value)` pairs, defaults left out.
    fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(b) = &self.branch {
            out.push(("branch", b.clone()));
        }
        if let Some(e) = &self.episode {
            out.push(("episode", e.clone()));
        }
        if let Some(c) = self.class {
            out.push(("class", c.name().to_owned()));
        }
        if let Some(o) = &self.older_than {
            out.push(("older_than", o.clone()));
        }
        if self.sort != Sort::default() {
            out.push(("sort", self.sort.name().to_owned()));
        }
        out
    }

    /// The queue with these filters on page `page`, with the one-shot message `done`.
    fn href_with(&self, page: usize, done: Option<&str>) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(key) = done {
            q.append_pair("done", key);
        }
        for (name, value) in self.pairs() {
            q.append_pair(name, &value);
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

    /// The query string of these filters on page `page` (`?...`, or empty).
    fn href(&self, page: usize) -> String {
        self.href_with(page, None)
    }

    /// The filters as hidden fields of the batch form (`f_<name>`).
    fn hidden(&self) -> String {
        let mut out = String::new();
        for (name, value) in self.pairs() {
            let _ = write!(
                out,
                "<input type=\"hidden\" name=\"f_{name}\" value=\"{}\">",
                escape(&value)
            );
        }
        out
    }

    fn narrowed(&self) -> bool {
        self.request().narrows()
    }
}

/// One review item of the queue: a candidate (not folded under another) and what its row
/// shows.
#[derive(Debug, Clone)]
pub struct Row {
    pub entry: CandidateEntry,
    /// The episode it was derived in.
    pub episode: Option<String>,
    /// The branch that episode ran on (`session.list`).
    pub branch: Option<String>,
    /// Days it has waited in the queue (`None`: a start that does not parse).
    pub age: Option<i64>,
}

/// Days `entry` has waited in the queue at `now`.
fn age_of(entry: &CandidateEntry, now: time::OffsetDateTime) -> Option<i64> {
    crate::model::time::parse(&entry.queued_at).map(|d| (now - d).whole_days())
}

/// What the queue's page shows.
#[derive(Debug)]
struct Queue {
    /// Candidates listed with the filters (folded ones included).
    candidates: usize,
    /// Review items listed with the filters.
    items: usize,
    /// This page's rows.
    rows: Vec<Row>,
    unreadable: Vec<String>,
}

/// Reads the queue: one listing with the filters, the branches of the episodes from one
/// `session.list`, the order applied, one page cut.
fn read(ops: Caller<'_>, filters: &Filters) -> Result<Queue, Error> {
    let listing: CandidateListing = ops.call("knowledge.candidates", filters.request())?;
    let now = ops.ctx.clock.now();
    let mut rows: Vec<Row> = listing
        .candidates
        .iter()
        .filter(|c| c.folded_under.is_none())
        .map(|c| Row {
            episode: c.episode.clone(),
            branch: None,
            age: age_of(c, now),
            entry: c.clone(),
        })
        .collect();
    // The listing is oldest first (time in the queue, then id); a stable sort keeps that
    // order within each key.
    match filters.sort {
        Sort::Oldest => {}
        Sort::Newest => rows.reverse(),
        Sort::Class => rows.sort_by_key(|r| r.entry.class.name()),
        Sort::Episode => rows.sort_by(|a, b| a.episode.cmp(&b.episode)),
    }
    let items = rows.len();
    let mut rows: Vec<Row> = rows
        .into_iter()
        .skip((filters.page - 1) * PAGE)
        .take(PAGE)
        .collect();
    if rows.iter().any(|r| r.episode.is_some()) {
        let episodes = ops
            .call::<_, crate::session::EpisodeList>("session.list", ListRequest {})?
            .episodes;
        let branch_of: HashMap<&str, &str> = episodes
            .iter()
            .filter_map(|e| Some((e.id.as_str(), e.branch.as_deref()?)))
            .collect();
        for row in &mut rows {
            row.branch = row
                .episode
                .as_deref()
                .and_then(|e| branch_of.get(e))
                .map(|b| (*b).to_owned());
        }
    }
    Ok(Queue {
        candidates: listing.candidates.len(),
        items,
        rows,
        unreadable: listing.unreadable,
    })
}

/// The GET form of the filters, filled with those in use: text fields, so a queue of any
/// number of episodes and branches is filtered by typing (or following a row's link).
fn filter_form(filters: &Filters) -> String {
    let text = |name: &str, label: &str, value: Option<&str>, hint: &str| {
        format!(
            "<div><label for=\"{name}\">{label}</label><input type=\"text\" id=\"{name}\" name=\"{name}\" value=\"{}\" placeholder=\"{hint}\"></div>",
            escape(value.unwrap_or_default())
        )
    };
    let selected = |on: bool| if on { " selected" } else { "" };
    let mut out =
        String::from("<form class=\"filters\" method=\"get\" action=\"/cockpit/review\">");
    out.push_str(&text(
        "branch",
        "Branch",
        filters.branch.as_deref(),
        "a local branch",
    ));
    out.push_str(&text(
        "episode",
        "Episode",
        filters.episode.as_deref(),
        "an episode id",
    ));
    out.push_str("<div><label for=\"class\">Class</label><select id=\"class\" name=\"class\"><option value=\"\">every class</option>");
    for c in Class::NAMES {
        let on = filters.class.map(Class::name) == Some(c);
        let _ = write!(out, "<option value=\"{c}\"{}>{c}</option>", selected(on));
    }
    out.push_str("</select></div>");
    out.push_str(&text(
        "older_than",
        "Older than",
        filters.older_than.as_deref(),
        "30m, 12h, 7d, 2w",
    ));
    out.push_str("<div><label for=\"sort\">Order</label><select id=\"sort\" name=\"sort\">");
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

/// How long a row has waited, short.
fn short_age(days: Option<i64>) -> String {
    match days {
        None => String::from("?"),
        Some(d) if d <= 0 => String::from("today"),
        Some(1) => String::from("1 day"),
        Some(d) => format!("{d} days"),
    }
}

/// The rows of a page, each with its checkbox and a link to its card.
fn rows_table(rows: &[Row], filters: &Filters) -> String {
    let mut out = String::from(
        "<div class=\"scroll\"><table class=\"queue\"><thead><tr><th><span class=\"sr\">select</span></th><th>title</th><th>class</th><th>branch</th><th>episode</th><th>waiting</th><th>folded</th></tr></thead><tbody>",
    );
    for row in rows {
        let c = &row.entry;
        let id = escape(&c.id);
        let target = escape(&encode(&c.id));
        let state = match c.state {
            crate::knowledge::CandidateState::Tracked => String::new(),
            other => format!(" {}", card::state_badge(other)),
        };
        let branch = match (&row.branch, &filters.branch) {
            (Some(b), _) | (None, Some(b)) => format!("<code>{}</code>", escape(b)),
            (None, None) => String::from("<span class=\"muted\">—</span>"),
        };
        let episode = match &row.episode {
            Some(e) => {
                let mut only = filters.clone();
                only.episode = Some(e.clone());
                format!(
                    "<a href=\"{}\" title=\"its candidates\"><code>{}</code></a>",
                    escape(&only.href(1)),
                    escape(e)
                )
            }
            None => String::from("<span class=\"muted\">—</span>"),
        };
        let folded = if c.folded.is_empty() {
            String::from("<span class=\"muted\">—</span>")
        } else {
            format!("+{}", c.folded.len())
        };
        // A verified record it concerns the same files as: restate, replace or keep both?
        // Replacing it is one click: the card, its promote form superseding it.
        let concerns: String = c
            .concerns
            .iter()
            .map(|v| {
                format!(
                    "<span class=\"concern\">concerns verified <a href=\"/cockpit/knowledge/{old}\">{title}</a> · <a class=\"replace\" href=\"{QUEUE}/{target}?supersedes={old}#promote\">promote superseding it</a></span>",
                    old = escape(&encode(&v.id)),
                    title = escape(&v.title),
                )
            })
            .collect();
        let _ = write!(
            out,
            "<tr><td class=\"pick\"><input type=\"checkbox\" name=\"ids\" value=\"{id}\" id=\"pick-{id}\" aria-label=\"select {title}\"></td>\
             <td class=\"title\"><a href=\"{QUEUE}/{target}\">{title}</a>{state}{concerns}</td>\
             <td data-label=\"class\">{class}</td><td data-label=\"branch\">{branch}</td>\
             <td data-label=\"episode\">{episode}</td><td data-label=\"waiting\" title=\"since {queued}\">{age}</td>\
             <td data-label=\"folded\"{none}>{folded}</td></tr>",
            title = escape(&c.title),
            class = c.class.name(),
            queued = escape(&c.queued_at),
            age = short_age(row.age),
            none = if c.folded.is_empty() {
                " class=\"none\""
            } else {
                ""
            },
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// The page links, keeping the filters.
fn pages(filters: &Filters, items: usize) -> String {
    let pages = items.div_ceil(PAGE);
    if pages <= 1 {
        return String::new();
    }
    let mut out = String::from("<nav class=\"pages\" aria-label=\"pages\">");
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
    out
}

/// The queue's page with the filter form and `report` beside it (400).
fn refused_filters(out: &mut String, filters: &Filters, report: &ErrorReport) -> Page {
    // A filter that does not parse: the form stays, with the error beside it.
    out.push_str(&filter_form(filters));
    out.push_str(&error_block(report));
    let mut page = Page::new("/review", "Review queue", out);
    page.status = StatusCode::BAD_REQUEST;
    page
}

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let pairs = query(uri.query());
    let mut out = String::new();
    if let Some(flash) = param(&pairs, "done").and_then(|key| flash::take(state.token(), &key)) {
        out.push_str(&act::render_flash(&flash));
    }
    let filters = match Filters::parse(&pairs, "") {
        Ok(f) => f,
        Err(report) => return Ok(refused_filters(&mut out, &Filters::default(), &report)),
    };
    let queue = {
        let asked = filters.clone();
        match state.call(move |ops| read(ops, &asked)).await {
            Ok(queue) => queue,
            // A filter the operation cannot read or refuses (a span, a branch, an
            // episode id's shape): beside the form, with the operation's status.
            Err(report) if filters.narrowed() && report.class != ErrorClass::Failed => {
                let status = ApiError::from_report(report.clone()).status;
                let mut page = refused_filters(&mut out, &filters, &report);
                page.status = status;
                return Ok(page);
            }
            Err(report) => return Err(report.into()),
        }
    };
    let _ = write!(
        out,
        "<p>{} candidate(s) in {} review item(s) {}. Check rows and promote or reject them together, or open one to read its card. Promoting needs evidence, rejecting a reason; both are human acts: no agent surface offers them.</p>",
        queue.candidates,
        queue.items,
        if filters.narrowed() {
            "match these filters"
        } else {
            "await review"
        }
    );
    out.push_str(&filter_form(&filters));
    if queue.items == 0 {
        if filters.narrowed() {
            out.push_str(&empty("No candidate matches these filters."));
        } else {
            out.push_str(&empty("The queue is empty."));
        }
    } else {
        let first = (filters.page - 1) * PAGE + 1;
        let last = first + queue.rows.len().saturating_sub(1);
        let _ = write!(
            out,
            "<form class=\"batch\" method=\"post\" action=\"{QUEUE}\"><input type=\"hidden\" name=\"token\" value=\"{}\">{}",
            escape(state.token()),
            filters.hidden()
        );
        // The decision first: with fifty rows, what they are checked for stays in view.
        out.push_str(&act::controls_fields(
            Some((queue.items, queue.candidates)),
            &Typed::default(),
        ));
        let _ = write!(
            out,
            "<p class=\"muted\">{} of {} shown{}, {}.</p>",
            if queue.rows.is_empty() {
                String::from("none")
            } else {
                format!("{first}–{last}")
            },
            queue.items,
            if filters.narrowed() {
                " (filtered)"
            } else {
                ""
            },
            filters.sort.label()
        );
        out.push_str(&rows_table(&queue.rows, &filters));
        out.push_str(&pages(&filters, queue.items));
        out.push_str("</form>");
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &str) -> Vec<(String, String)> {
        super::super::query(Some(query))
    }

    #[test]
    fn the_filters_read_back_as_the_same_query() {
        let filters = Filters::parse(
            &pairs("branch=b&episode=E&class=fact&older_than=3d&sort=newest&page=2"),
            "",
        )
        .expect("filters");
        assert_eq!(filters.class, Some(Class::Fact));
        assert_eq!(
            filters.href(2),
            "/cockpit/review?branch=b&episode=E&class=fact&older_than=3d&sort=newest&page=2"
        );
        assert_eq!(
            Filters::parse(&pairs(&filters.href(2)[QUEUE.len() + 1..]), ""),
            Ok(filters.clone())
        );
        assert_eq!(Filters::default().href(1), QUEUE);
        let hidden = pairs("f_branch=b&f_episode=E&f_class=fact&f_older_than=3d&f_sort=newest");
        let mut first = filters;
        first.page = 1;
        assert_eq!(Filters::parse(&hidden, "f_"), Ok(first));
    }

    #[test]
    fn a_filter_the_form_does_not_offer_is_a_usage_error() {
        for query in ["class=rumour", "sort=up", "page=0", "page=x"] {
            let report = Filters::parse(&pairs(query), "").expect_err(query);
            assert_eq!(report.rule, "request.valid", "{query}");
            assert_eq!(report.class, ErrorClass::Usage, "{query}");
            assert!(report.fix.is_some(), "{query}");
        }
    }
}
