//! The cockpit (`/cockpit`, served by `majordomus serve`): every page answers with its
//! content and the nav, user strings are escaped, the human act goes through the forms
//! with the run's token (and nothing else gets through), and a real headless Chromium
//! promotes a candidate by typing evidence and clicking Promote.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestRepo;
use crate::http::{Answer, Served};

/// Every page of the header nav, with a string its body must hold.
const PAGES: [(&str, &str); 8] = [
    ("/cockpit", "<h1>Working context</h1>"),
    ("/cockpit/episodes", "<h1>Episodes</h1>"),
    ("/cockpit/review", "<h1>Review queue</h1>"),
    ("/cockpit/graph", "<h1>Knowledge graph</h1>"),
    ("/cockpit/history", "<h1>History</h1>"),
    ("/cockpit/doctor", "<h1>Doctor</h1>"),
    ("/cockpit/tasks", "<h1>Tasks and intents</h1>"),
    ("/cockpit/reasoning", "<h1>Reasoning</h1>"),
];

/// An initialised repository with an open episode and one candidate awaiting review;
/// returns the repository, the candidate's id and its path.
fn with_candidate() -> (TestRepo, String, String) {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let id = format!("{episode}-000000000001");
    let path = format!(".ai/repo/knowledge/candidates/{id}.md");
    repo.write(
        &path,
        &crate::common::knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}")],
            "",
            "Claim.",
        ),
    );
    (repo, id, path)
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body of a 200 HTML page.
    #[track_caller]
    fn page(&self) -> String {
        assert_eq!(self.status, 200, "{}", self.text());
        assert_eq!(
            self.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        self.text()
    }
}

impl Served {
    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A form POST (`application/x-www-form-urlencoded`) with `headers` beside it.
    fn form(&self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Answer {
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut all = vec![("Content-Type", "application/x-www-form-urlencoded")];
        all.extend_from_slice(headers);
        self.send("POST", path, &all, body.as_bytes())
    }

    /// A form POST as a browser sends it from this server's own page.
    fn form_from_page(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let origin = self.origin();
        self.form(
            path,
            fields,
            &[("Origin", &origin), ("Sec-Fetch-Site", "same-origin")],
        )
    }
}

/// The `Location` of an act's redirect: the queue with the one-shot key of its message.
#[track_caller]
fn done_location(answer: &Answer) -> String {
    let location = answer.header("location").expect("a redirect").to_owned();
    let key = location
        .strip_prefix("/cockpit/review?done=")
        .unwrap_or_else(|| panic!("{location}"));
    assert!(
        key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "{location}"
    );
    location
}

/// The value of the hidden `token` field of the first form in `html`.
fn hidden_token(html: &str) -> String {
    let marker = "name=\"token\" value=\"";
    let start = html.find(marker).expect("a hidden token field") + marker.len();
    html[start..]
        .split('"')
        .next()
        .expect("a closing quote")
        .to_owned()
}

#[test]
fn every_page_answers_with_its_content_and_the_header_links_every_page() {
    let (repo, id, _) = with_candidate();
    repo.run(&["decision", "serve the cockpit from the registry"])
        .success();
    let served = Served::start(&repo);
    for (path, heading) in PAGES {
        let html = served.get(path).page();
        assert!(html.contains(heading), "{path}: {html}");
        for (linked, _) in PAGES {
            assert!(
                html.contains(&format!("<a href=\"{linked}\"")),
                "{path} links {linked}"
            );
        }
        assert!(
            html.contains("<link rel=\"stylesheet\" href=\"/cockpit/style.css\">"),
            "{path}"
        );
        assert!(!html.contains("<script"), "{path}: no JavaScript");
    }
    let answer = served.get("/cockpit");
    assert!(
        answer
            .header("content-security-policy")
            .is_some_and(|csp| csp.contains("frame-ancestors 'none'")),
        "{answer:?}"
    );
    let context = answer.page();
    assert!(
        context.contains("serve the cockpit from the registry"),
        "{context}"
    );
    assert!(context.contains(&repo.episode_id()), "{context}");

    let review = served.get("/cockpit/review").page();
    assert!(
        review.contains(&format!(
            "<a href=\"/cockpit/review/{id}\">The ledger is append-only</a>"
        )),
        "{review}"
    );
    assert!(
        review.contains(&format!("name=\"ids\" value=\"{id}\"")),
        "{review}"
    );
    assert!(
        review.contains("<form class=\"batch\" method=\"post\" action=\"/cockpit/review\">"),
        "{review}"
    );
    assert!(review.contains("name=\"evidence\""), "{review}");
    assert!(review.contains("name=\"reason\""), "{review}");
    assert_eq!(hidden_token(&review), served.token);
    let card = served.get(&format!("/cockpit/review/{id}")).page();
    assert!(
        card.contains(&format!("action=\"/cockpit/knowledge/{id}/promote\"")),
        "{card}"
    );
    assert!(
        card.contains(&format!("action=\"/cockpit/knowledge/{id}/reject\"")),
        "{card}"
    );

    let shown = served.get(&format!("/cockpit/knowledge/{id}")).page();
    assert!(
        shown.contains("<h1>The ledger is append-only</h1>"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("session:{}", repo.episode_id())),
        "{shown}"
    );
    assert!(shown.contains("resolves"), "{shown}");

    let graph = served.get("/cockpit/graph?type=derived_from").page();
    assert!(
        graph.contains(&format!("/cockpit/knowledge/{id}")),
        "{graph}"
    );
    assert!(graph.contains("derived_from"), "{graph}");
    assert!(graph.contains("external"), "{graph}");

    let episodes = served.get("/cockpit/episodes").page();
    assert!(episodes.contains(&repo.episode_id()), "{episodes}");
    assert!(episodes.contains("Open now"), "{episodes}");

    let history = served
        .get("/cockpit/history?event=decision.recorded")
        .page();
    assert!(history.contains("1 line(s)"), "{history}");
    assert!(
        history.contains("<option value=\"decision.recorded\" selected>"),
        "{history}"
    );
    let refused = served.get("/cockpit/history?since=yesterday");
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(
        refused.text().contains("history.since"),
        "{}",
        refused.text()
    );

    let doctor = served.get("/cockpit/doctor").page();
    assert!(doctor.contains("majordomus.rule-set"), "{doctor}");
    assert!(doctor.contains("Passing"), "{doctor}");

    let tasks = served.get("/cockpit/tasks").page();
    assert!(tasks.contains("Plan validation"), "{tasks}");
    let reasoning = served.get("/cockpit/reasoning").page();
    assert!(reasoning.contains("Timeline"), "{reasoning}");

    let style = served.get("/cockpit/style.css");
    assert_eq!(style.status, 200);
    assert_eq!(
        style.header("content-type"),
        Some("text/css; charset=utf-8")
    );
    assert!(style.text().contains("prefers-color-scheme: dark"));
}

/// The headers every cockpit page is sent with (docs/COCKPIT.md, docs/SECURITY.md).
const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("cache-control", "no-store"),
    (
        "content-security-policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
];

/// Every route the cockpit's router serves (`src/cockpit/mod.rs`), as `METHOD path`.
fn cockpit_routes() -> std::collections::BTreeSet<String> {
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cockpit/mod.rs"))
            .expect("src/cockpit/mod.rs");
    let route =
        regex::Regex::new(r#"\.route\(\s*(?:ROOT|&format!\("\{ROOT\}([^"]*)"\)),\s*(get|post)\("#)
            .expect("valid regex");
    route
        .captures_iter(&source)
        .map(|c| {
            let path = c
                .get(1)
                .map_or("", |m| m.as_str())
                .replace("{{id}}", "{id}");
            format!("{} /cockpit{path}", c[2].to_uppercase())
        })
        .collect()
}

#[test]
fn every_cockpit_page_is_sent_with_the_security_headers() {
    let (repo, id, _) = with_candidate();
    repo.run(&["decision", "every page carries its headers"])
        .success();
    let served = Served::start(&repo);
    let token = served.token.clone();
    let promote = format!("/cockpit/knowledge/{id}/promote");
    let reject = format!("/cockpit/knowledge/{id}/reject");
    let reverify = format!("/cockpit/knowledge/{id}/reverify");
    let supersede = format!("/cockpit/knowledge/{id}/supersede");
    let retire = format!("/cockpit/knowledge/{id}/retire");
    let batch = "/cockpit/review".to_owned();
    // Each route of the router, with what it answers: its page, and its error pages (a
    // refused form, a usage error, an unknown record).
    let mut cases: Vec<(&str, String, Answer)> = Vec::new();
    let get = |path: &str| served.get(path);
    for (route, path) in [
        ("GET /cockpit", "/cockpit".to_owned()),
        ("GET /cockpit/episodes", "/cockpit/episodes".to_owned()),
        ("GET /cockpit/review", "/cockpit/review".to_owned()),
        (
            "GET /cockpit/review",
            "/cockpit/review?promoted=x".to_owned(),
        ),
        (
            "GET /cockpit/review",
            "/cockpit/review?class=fact&sort=newest".to_owned(),
        ),
        (
            "GET /cockpit/review",
            "/cockpit/review?class=rumour".to_owned(),
        ),
        ("GET /cockpit/review/{id}", format!("/cockpit/review/{id}")),
        (
            "GET /cockpit/review/{id}",
            "/cockpit/review/..%2Fx".to_owned(),
        ),
        (
            "GET /cockpit/review",
            "/cockpit/review?older_than=soon".to_owned(),
        ),
        (
            "GET /cockpit/knowledge/{id}",
            format!("/cockpit/knowledge/{id}"),
        ),
        (
            "GET /cockpit/knowledge/{id}",
            "/cockpit/knowledge/20261130T101500Z-1a2b3c-0123456789ab".to_owned(),
        ),
        (
            "GET /cockpit/knowledge/{id}",
            "/cockpit/knowledge/..%2Fx".to_owned(),
        ),
        ("GET /cockpit/graph", "/cockpit/graph".to_owned()),
        (
            "GET /cockpit/graph",
            "/cockpit/graph?type=derived_from".to_owned(),
        ),
        ("GET /cockpit/history", "/cockpit/history".to_owned()),
        (
            "GET /cockpit/history",
            "/cockpit/history?since=yesterday".to_owned(),
        ),
        ("GET /cockpit/recall", "/cockpit/recall".to_owned()),
        (
            "GET /cockpit/recall",
            "/cockpit/recall?q=headers".to_owned(),
        ),
        ("GET /cockpit/doctor", "/cockpit/doctor".to_owned()),
        ("GET /cockpit/tasks", "/cockpit/tasks".to_owned()),
        ("GET /cockpit/reasoning", "/cockpit/reasoning".to_owned()),
    ] {
        cases.push((route, path.clone(), get(&path)));
    }
    // The forms' refusals and usage errors are pages too (their success is a redirect).
    for (route, path, fields, headers) in [
        (
            "POST /cockpit/knowledge/{id}/promote",
            &promote,
            vec![("evidence", "e")],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/promote",
            &promote,
            vec![("evidence", "e"), ("token", token.as_str())],
            false,
        ),
        (
            "POST /cockpit/knowledge/{id}/promote",
            &promote,
            vec![("token", token.as_str())],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/reject",
            &reject,
            vec![("reason", "r")],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/reject",
            &reject,
            vec![("token", token.as_str())],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/reverify",
            &reverify,
            vec![("evidence", "e")],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/supersede",
            &supersede,
            vec![("by", "b"), ("reason", "r")],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/supersede",
            &supersede,
            vec![("token", token.as_str()), ("reason", "r")],
            true,
        ),
        (
            "POST /cockpit/knowledge/{id}/retire",
            &retire,
            vec![("reason", "r"), ("token", token.as_str())],
            false,
        ),
        (
            "POST /cockpit/review",
            &batch,
            vec![("ids", id.as_str()), ("act", "reject"), ("reason", "r")],
            true,
        ),
        (
            "POST /cockpit/review",
            &batch,
            vec![("token", token.as_str()), ("act", "promote")],
            true,
        ),
    ] {
        let answer = if headers {
            served.form_from_page(path, &fields)
        } else {
            served.form(path, &fields, &[("Origin", "http://evil.example")])
        };
        assert!(answer.status >= 400, "{route}: {}", answer.text());
        cases.push((route, path.clone(), answer));
    }
    let covered: std::collections::BTreeSet<String> =
        cases.iter().map(|(r, _, _)| (*r).to_owned()).collect();
    let served_routes = cockpit_routes();
    let pages: std::collections::BTreeSet<String> = served_routes
        .iter()
        .filter(|r| !r.ends_with("/style.css"))
        .cloned()
        .collect();
    assert!(pages.len() >= 12, "the cockpit's routes: {served_routes:?}");
    assert_eq!(covered, pages, "every cockpit route is tried");
    for (route, path, answer) in &cases {
        assert_eq!(
            answer.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{route} ({path}): {} {}",
            answer.status,
            answer.text()
        );
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(
                answer.header(name),
                Some(value),
                "{route} ({path}, {}): header {name}",
                answer.status
            );
        }
    }
}

#[test]
fn user_strings_are_escaped_on_the_context_and_history_pages() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "<script>alert(1)</script>"])
        .success();
    let served = Served::start(&repo);
    for path in ["/cockpit", "/cockpit/history"] {
        let html = served.get(path).page();
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}: {html}"
        );
        assert!(!html.contains("<script>"), "{path}: {html}");
    }
    // A filter echoed back into the form is escaped too, and so is the refusal that
    // names it (it is not an episode id: id.shape).
    let answer = served.get("/cockpit/history?session=%22%3E%3Cscript%3E");
    assert_eq!(answer.status, 409, "{}", answer.text());
    let html = answer.text();
    assert!(
        html.contains("value=\"&quot;&gt;&lt;script&gt;\""),
        "{html}"
    );
    assert!(html.contains("<code>id.shape</code>"), "{html}");
    assert!(!html.contains("<script>"), "{html}");
}

#[test]
fn a_candidate_is_promoted_through_the_form_with_the_token() {
    let (repo, id, path) = with_candidate();
    let served = Served::start(&repo);
    let token = hidden_token(&served.get("/cockpit/review").page());
    let action = format!("/cockpit/knowledge/{id}/promote");

    let refused = served.form_from_page(&action, &[("token", &token), ("evidence", "  ")]);
    assert_eq!(refused.status, 409, "{}", refused.text());
    let page = refused.text();
    assert!(page.contains("<h1>Refused</h1>"), "{page}");
    assert!(page.contains("knowledge.evidence"), "{page}");
    assert!(page.contains("<dt>fix</dt>"), "{page}");
    assert!(page.contains("href=\"/cockpit/review\""), "{page}");
    assert!(repo.exists(&path), "nothing moved");

    let promoted = served.form_from_page(
        &action,
        &[
            ("token", &token),
            ("evidence", "tests/cli/cockpit.rs passes"),
            ("class", ""),
        ],
    );
    assert_eq!(promoted.status, 303, "{}", promoted.text());
    let location = done_location(&promoted);
    assert!(!repo.exists(&path));
    let curated = format!(".ai/repo/knowledge/curated/{id}.md");
    assert!(repo.exists(&curated));
    assert!(repo.read(&curated).contains("tests/cli/cockpit.rs passes"));

    let queue = served.get(&location).page();
    assert!(queue.contains("class=\"flash\""), "{queue}");
    assert!(queue.contains("Promoted"), "{queue}");
    assert!(queue.contains("The queue is empty."), "{queue}");
    let again = served.form_from_page(&action, &[("token", &token), ("evidence", "x")]);
    assert_eq!(again.status, 409, "{}", again.text());
}

#[test]
fn a_candidate_is_rejected_through_the_form_with_a_reason() {
    let (repo, id, path) = with_candidate();
    let served = Served::start(&repo);
    let action = format!("/cockpit/knowledge/{id}/reject");
    let token = served.token.clone();

    let refused = served.form_from_page(&action, &[("token", &token), ("reason", "")]);
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert!(refused.text().contains("<h1>Refused</h1>"));
    let unknown_class = served.form_from_page(
        &format!("/cockpit/knowledge/{id}/promote"),
        &[("token", &token), ("evidence", "x"), ("class", "rumour")],
    );
    assert_eq!(unknown_class.status, 400, "{}", unknown_class.text());
    assert!(unknown_class.text().contains("request.valid"));

    let rejected = served.form_from_page(&action, &[("token", &token), ("reason", "not a claim")]);
    assert_eq!(rejected.status, 303, "{}", rejected.text());
    let location = done_location(&rejected);
    let text = repo.read(&path);
    assert!(text.contains("status: superseded"), "{text}");
    assert!(text.contains("not a claim"), "{text}");
    let queue = served.get(&location).page();
    assert!(queue.contains("Rejected"), "{queue}");
    // It was never committed: committing it adds the file as it now is.
    assert!(
        queue.contains(&format!(
            "<code>git add {path} &amp;&amp; git commit -m &#39;Reject knowledge {id}&#39;</code>"
        )),
        "{queue}"
    );
}

#[test]
fn a_form_without_the_token_or_from_another_origin_is_refused() {
    let (repo, id, path) = with_candidate();
    let served = Served::start(&repo);
    let action = format!("/cockpit/knowledge/{id}/promote");
    let evidence = ("evidence", "a test");
    let token = served.token.clone();

    for fields in [
        vec![evidence],
        vec![evidence, ("token", "00000000000000000000000000000000")],
    ] {
        let answer = served.form_from_page(&action, &fields);
        assert_eq!(answer.status, 401, "{}", answer.text());
        assert!(answer.text().contains("http.token"), "{}", answer.text());
    }
    for foreign in [
        ("Origin", "http://evil.example"),
        ("Origin", "http://127.0.0.1:1"),
        ("Sec-Fetch-Site", "cross-site"),
    ] {
        let answer = served.form(&action, &[evidence, ("token", &token)], &[foreign]);
        assert_eq!(answer.status, 403, "{foreign:?}: {}", answer.text());
        assert!(
            answer.text().contains("http.same-origin"),
            "{}",
            answer.text()
        );
    }
    let reject = served.form(
        &format!("/cockpit/knowledge/{id}/reject"),
        &[("reason", "no"), ("token", &token)],
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(reject.status, 403, "{}", reject.text());
    assert!(repo.exists(&path), "nothing moved");
    assert!(
        !repo.read(&path).contains("superseded"),
        "nothing was rejected"
    );
}

// --- The review queue: what a reviewer decides from ----------------------------------------

/// `text` of an element back from its HTML escapes.
fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `html` with a line break before each block element, so a snapshot reads (and diffs)
/// one block a line.
fn block_lines(html: &str) -> String {
    let mut out = html.to_owned();
    for tag in [
        "<article",
        "<section",
        "<h2",
        "<h3",
        "<p",
        "<pre",
        "<dl",
        "<dt",
        "<ul",
        "<li",
        "<form",
        "<div",
        "<label",
        "<select",
        "<textarea",
        "<input",
        "<button",
        "<nav",
        "<fieldset",
        "<tr",
    ] {
        out = out.replace(tag, &format!("\n{tag}"));
    }
    out.replace("\n\n", "\n")
}

/// The card of the candidate titled `title` on its page.
#[track_caller]
fn card<'a>(html: &'a str, title: &str) -> &'a str {
    let heading = format!("<h2>{title}</h2>");
    let at = html
        .find(&heading)
        .unwrap_or_else(|| panic!("no card {title}: {html}"));
    let start = html[..at].rfind("<article").expect("the card's start");
    let end = at + html[at..].find("</article>").expect("the card's end");
    &html[start..end]
}

/// The href of the row titled `title` in the queue: its card's page.
#[track_caller]
fn card_href(queue: &str, title: &str) -> String {
    let end = queue
        .find(&format!("\">{title}</a>"))
        .unwrap_or_else(|| panic!("no row {title}: {queue}"));
    let start = queue[..end].rfind("<a href=\"").expect("its link") + "<a href=\"".len();
    queue[start..end].to_owned()
}

/// The card page of the candidate titled `title`, reached from its row in `queue`.
#[track_caller]
fn card_page(served: &Served, queue: &str, title: &str) -> String {
    served.get(&card_href(queue, title)).page()
}

/// The row of the candidate titled `title` in the queue.
#[track_caller]
fn row<'a>(queue: &'a str, title: &str) -> &'a str {
    let at = queue
        .find(&format!("\">{title}</a>"))
        .unwrap_or_else(|| panic!("no row {title}: {queue}"));
    let start = queue[..at].rfind("<tr>").expect("the row's start");
    let end = at + queue[at..].find("</tr>").expect("the row's end");
    &queue[start..end]
}

/// The ids checked by each row of the queue, in its order.
fn row_ids(queue: &str) -> Vec<String> {
    let marker = "name=\"ids\" value=\"";
    queue
        .match_indices(marker)
        .map(|(at, _)| {
            queue[at + marker.len()..]
                .split('"')
                .next()
                .expect("a closing quote")
                .to_owned()
        })
        .collect()
}

/// The titles of `titles` in the order the queue shows their rows (absent ones left out).
fn order<'a>(html: &str, titles: &[&'a str]) -> Vec<&'a str> {
    let mut found: Vec<(usize, &str)> = titles
        .iter()
        .filter_map(|t| html.find(&format!("\">{t}</a>")).map(|at| (at, *t)))
        .collect();
    found.sort();
    found.into_iter().map(|(_, t)| t).collect()
}

/// The command the flash says to run, as a shell reads it.
#[track_caller]
fn commit_command(html: &str) -> String {
    let open = "<pre class=\"command\"><code>";
    let start = html
        .find(open)
        .unwrap_or_else(|| panic!("no command: {html}"))
        + open.len();
    let end = start + html[start..].find("</code>").expect("the command's end");
    unescape(&html[start..end])
}

/// A hand-written candidate.
fn candidate_record(id: &str, class: &str, date: &str, title: &str, refs: &[&str]) -> String {
    let refs: String = refs.iter().map(|r| format!("  - {r}\n")).collect();
    format!(
        "---\nid: {id}\nschema: knowledge/v1\nclass: {class}\nstatus: candidate\nstance: observed\ntitle: {title}\ndate: {date}\nprovenance:\n  origin: authored\n  derived_from:\n{refs}---\n{title}, as claimed.\n"
    )
}

const CURATED_ABOUT_PARSER: &str = "20261101T090000Z-abcdef-000000000001";

/// An episode that started a task scoped to `src/parser.rs`, committed it, finished the
/// task and answered a question, then closed (deriving two candidates) and was committed
/// with a verified record about `src/parser.rs`; the clock is then ten days later.
/// Returns the repository, the episode, the task and the commit.
fn reviewed_episode() -> (TestRepo, String, String, String) {
    let mut repo = TestRepo::initialised();
    repo.now("2026-11-20T09:00:00Z");
    let episode = repo.start_episode();
    repo.run(&[
        "task",
        "start",
        "Split input into tokens",
        "--scope",
        "src/parser.rs",
    ])
    .success();
    let task = repo.ledger_events("task.started")[0]["task"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let sha = repo.commit(
        "src/parser.rs",
        "pub fn tokens(s: &str) -> Vec<&str> { s.split_whitespace().collect() }\n",
        "Add a whitespace tokenizer",
    );
    repo.run(&["task", "finish"]).success();
    let qid = repo
        .run(&[
            "question",
            "Should empty input yield an empty list or an error?",
        ])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&[
        "question",
        "resolve",
        &qid,
        "An empty list: callers iterate, nobody matches on errors",
    ])
    .success();
    repo.run(&["session", "close"]).success();
    repo.write(
        &format!(".ai/repo/knowledge/curated/{CURATED_ABOUT_PARSER}.md"),
        &crate::common::knowledge_record(
            CURATED_ABOUT_PARSER,
            "verified",
            &["file:src/parser.rs"],
            "",
            "Claim.\n\n# Evidence\n\ntests/parser.rs passes",
        ),
    );
    repo.git(&["add", ".ai"]);
    repo.git(&[
        "commit",
        "-q",
        "-m",
        "majordomus: session record and knowledge",
    ]);
    repo.now("2026-11-30T10:00:00Z");
    (repo, episode, task, sha)
}

#[test]
fn each_candidate_shows_its_body_its_provenance_and_what_else_is_known() {
    let (repo, episode, task, sha) = reviewed_episode();
    let served = Served::start(&repo);
    let answer = served.get("/cockpit/review");
    for (name, value) in SECURITY_HEADERS {
        assert_eq!(answer.header(name), Some(value), "{name}");
    }
    let queue = answer.page();
    // One row a candidate: title (a link to its card), class, branch, episode, age.
    let finished_row = row(&queue, "Completed: Split input into tokens");
    for needle in [
        "<td data-label=\"class\">fact</td>".to_owned(),
        "<td data-label=\"branch\"><code>main</code></td>".to_owned(),
        format!("<code>{episode}</code></a></td>"),
        ">10 days</td>".to_owned(),
    ] {
        assert!(finished_row.contains(&needle), "{needle}: {finished_row}");
    }

    let html = card_page(&served, &queue, "Completed: Split input into tokens");
    let finished = card(&html, "Completed: Split input into tokens");
    for needle in [
        "<h3>The claim</h3><pre class=\"body\">Split input into tokens</pre>".to_owned(),
        format!(
            "<a href=\"/cockpit/history?session={episode}\"><code>session:{episode}</code></a>"
        ),
        format!("<a href=\"/cockpit/tasks#task-{task}\"><code>task:{task}</code></a>"),
        "<a href=\"/cockpit/recall?path=src%2Fparser.rs\"><code>file:src/parser.rs</code></a>"
            .to_owned(),
        format!("<code>commit:{sha}</code>"),
        format!("<dt>commits</dt><dd><code>{sha}</code></dd>"),
        "on branch <code>main</code>".to_owned(),
        "(waiting 10 days, since it was derived)".to_owned(),
        "tracked".to_owned(),
        "<h3>Also known about its files</h3>".to_owned(),
        format!("href=\"/cockpit/knowledge/{CURATED_ABOUT_PARSER}\""),
        "path: src/parser.rs".to_owned(),
    ] {
        assert!(finished.contains(&needle), "{needle}: {finished}");
    }
    assert!(!finished.contains("does not resolve"), "{finished}");

    let question_page = card_page(
        &served,
        &queue,
        "Should empty input yield an empty list or an error?",
    );
    let question = card(
        &question_page,
        "Should empty input yield an empty list or an error?",
    );
    for needle in [
        "<h3>The answer</h3><pre class=\"body\">An empty list: callers iterate, nobody matches on errors</pre>".to_owned(),
        format!("<a href=\"/cockpit/history?session={episode}\">"),
        // No commit of its own: its episode's.
        format!("none named; its episode's: <code>{sha}</code>"),
        "<h3>Also known on the same subject</h3>".to_owned(),
    ] {
        assert!(question.contains(&needle), "{needle}: {question}");
    }

    // The links land: the task on the tasks page, the file's recall, the episode's lines.
    let tasks = served.get("/cockpit/tasks").page();
    assert!(tasks.contains(&format!("id=\"task-{task}\"")), "{tasks}");
    let recall = served.get("/cockpit/recall?path=src%2Fparser.rs").page();
    assert!(recall.contains(CURATED_ABOUT_PARSER), "{recall}");
    let history = served
        .get(&format!("/cockpit/history?session={episode}"))
        .page();
    assert!(history.contains("task.finished"), "{history}");

    let stable = |html: &str| block_lines(&repo.redact(html).replace(&served.token, "[TOKEN]"));
    insta::assert_snapshot!("cockpit_review_queue", stable(&queue));
    insta::assert_snapshot!("cockpit_review_card", stable(&html));
}

#[test]
fn the_queue_filters_by_branch_episode_class_and_age_and_orders() {
    let mut repo = TestRepo::initialised();
    let (e1, e2) = ("20261101T090000Z-aaaaaa", "20261120T090000Z-bbbbbb");
    let dir = ".ai/repo/knowledge/candidates";
    let write = |n: u32, class: &str, date: &str, title: &str, episode: &str| {
        let id = format!("{episode}-00000000000{n}");
        repo.write(
            &format!("{dir}/{id}.md"),
            &candidate_record(&id, class, date, title, &[&format!("session:{episode}")]),
        );
        id
    };
    let alpha = write(1, "fact", "2026-11-10", "Alpha claim", e1);
    write(2, "convention", "2026-11-25", "Beta claim", e2);
    write(3, "lesson", "2026-11-28", "Gamma claim", e1);
    // Alpha waits from the commit that added it (no ledger line derived it), the others
    // from their dates; only Alpha is in main's tree.
    repo.now("2026-11-10T09:00:00Z");
    repo.git(&["add", &format!("{dir}/{alpha}.md")]);
    repo.git(&["commit", "-q", "-m", "Alpha"]);
    repo.now("2026-11-30T10:00:00Z");
    let served = Served::start(&repo);
    let all = ["Alpha claim", "Beta claim", "Gamma claim"];
    let (of_e1, of_e1_newest) = (format!("episode={e1}"), format!("episode={e1}&sort=newest"));
    for (query, expected) in [
        ("", vec!["Alpha claim", "Beta claim", "Gamma claim"]),
        (
            "sort=oldest",
            vec!["Alpha claim", "Beta claim", "Gamma claim"],
        ),
        (
            "sort=newest",
            vec!["Gamma claim", "Beta claim", "Alpha claim"],
        ),
        (
            "sort=class",
            vec!["Beta claim", "Alpha claim", "Gamma claim"],
        ),
        (
            "sort=episode",
            vec!["Alpha claim", "Gamma claim", "Beta claim"],
        ),
        ("class=convention", vec!["Beta claim"]),
        ("branch=main", vec!["Alpha claim"]),
        (of_e1.as_str(), vec!["Alpha claim", "Gamma claim"]),
        (of_e1_newest.as_str(), vec!["Gamma claim", "Alpha claim"]),
        ("older_than=10d", vec!["Alpha claim"]),
        ("older_than=3d", vec!["Alpha claim", "Beta claim"]),
        ("older_than=1d&class=lesson", vec!["Gamma claim"]),
        ("class=memory", vec![]),
    ] {
        let html = served.get(&format!("/cockpit/review?{query}")).page();
        assert_eq!(order(&html, &all), expected, "{query}");
        if expected.is_empty() {
            assert!(
                html.contains("No candidate matches these filters."),
                "{html}"
            );
        } else {
            assert!(
                html.contains(&format!("of {} shown", expected.len())),
                "{query}: {html}"
            );
            assert_eq!(row_ids(&html).len(), expected.len(), "{query}");
        }
    }
    // The form says what is in use: text fields for branch, episode and age (no list of
    // every id), and the batch form carries the same filters for "the whole queue".
    let html = served
        .get(&format!(
            "/cockpit/review?branch=main&episode={e1}&class=fact&older_than=5d&sort=newest"
        ))
        .page();
    for needle in [
        "<input type=\"text\" id=\"branch\" name=\"branch\" value=\"main\"".to_owned(),
        format!("<input type=\"text\" id=\"episode\" name=\"episode\" value=\"{e1}\""),
        "<option value=\"fact\" selected>".to_owned(),
        "name=\"older_than\" value=\"5d\"".to_owned(),
        "<option value=\"newest\" selected>".to_owned(),
        "1–1 of 1 shown (filtered), newest first.".to_owned(),
        format!("<input type=\"hidden\" name=\"f_episode\" value=\"{e1}\">"),
        "<input type=\"hidden\" name=\"f_branch\" value=\"main\">".to_owned(),
        "the whole filtered queue (1 item(s))".to_owned(),
    ] {
        assert!(html.contains(&needle), "{needle}: {html}");
    }
    assert!(!html.contains("<select id=\"episode\""), "{html}");
    // An episode filter is echoed escaped; a value the queue cannot read is a usage
    // error beside the form.
    let hostile = served.get("/cockpit/review?episode=%22%3E%3Cscript%3E");
    assert_eq!(hostile.status, 409, "{}", hostile.text());
    let hostile = hostile.text();
    assert!(hostile.contains("<code>id.shape</code>"), "{hostile}");
    assert!(hostile.contains("<form class=\"filters\""), "{hostile}");
    assert!(hostile.contains("&quot;&gt;&lt;script&gt;"), "{hostile}");
    assert!(!hostile.contains("<script>"), "{hostile}");
    for (query, rule) in [
        ("class=rumour", "request.valid"),
        ("sort=up", "request.valid"),
        ("page=0", "request.valid"),
        ("older_than=soon", "knowledge.older-than"),
    ] {
        let answer = served.get(&format!("/cockpit/review?{query}"));
        assert_eq!(answer.status, 400, "{query}: {}", answer.text());
        let text = answer.text();
        assert!(
            text.contains(&format!("<code>{rule}</code>")),
            "{query}: {text}"
        );
        assert!(text.contains("<form class=\"filters\""), "{query}: {text}");
        assert!(text.contains("<dt>fix</dt>"), "{query}: {text}");
    }
}

#[test]
fn the_queue_shows_fifty_rows_a_page_and_the_page_links_keep_the_filters() {
    let mut repo = TestRepo::initialised();
    let dir = ".ai/repo/knowledge/candidates";
    for n in 0..60 {
        let id = format!("20261101T090000Z-aaaaaa-0000000000{n:02}");
        repo.write(
            &format!("{dir}/{id}.md"),
            &candidate_record(&id, "fact", "2026-11-01", &format!("Claim {n:02}"), &[]),
        );
    }
    repo.now("2026-11-30T10:00:00Z");
    let served = Served::start(&repo);
    let first = served.get("/cockpit/review?class=fact").page();
    let ids = row_ids(&first);
    assert_eq!(ids.len(), 50, "{first}");
    assert!(
        first.contains(
            "<a href=\"/cockpit/review/20261101T090000Z-aaaaaa-000000000000\">Claim 00</a>"
        ),
        "{first}"
    );
    assert!(first.contains("1–50 of 60 shown (filtered)"), "{first}");
    assert!(first.contains("page 1 of 2"), "{first}");
    assert!(
        first.contains("<a href=\"/cockpit/review?class=fact&amp;page=2\">next →</a>"),
        "{first}"
    );
    assert!(
        first.contains("the whole filtered queue (60 item(s))"),
        "{first}"
    );
    let second = served.get("/cockpit/review?class=fact&page=2").page();
    let rest = row_ids(&second);
    assert_eq!(rest.len(), 10, "{second}");
    assert!(second.contains("\">Claim 50</a>"), "{second}");
    assert!(second.contains("\">Claim 59</a>"), "{second}");
    assert!(!second.contains("\">Claim 49</a>"), "{second}");
    assert!(
        second.contains("<a href=\"/cockpit/review?class=fact\">← previous</a>"),
        "{second}"
    );
    assert!(ids.iter().all(|id| !rest.contains(id)), "no row twice");
    // A candidate that names no file is recalled by its words on its card.
    let card = card_page(&served, &second, "Claim 55");
    assert!(card.contains("Also known on the same subject"), "{card}");
}

// --- The batch form: many candidates in one act ------------------------------------------

/// Candidates as `(id, path)`.
type Written = Vec<(String, String)>;

/// Candidates of two episodes, `e1` (three) and `e2` (two), none committed; returns the
/// repository and each episode's `(id, path)`s.
fn two_episodes() -> (TestRepo, Written, Written) {
    let mut repo = TestRepo::initialised();
    let dir = ".ai/repo/knowledge/candidates";
    let titles = [
        "Parse the policy with yaml_serde",
        "Append the ledger under a lock",
        "Cache keys carry the schema version",
        "Retries back off exponentially",
        "Sockets bind the loopback address",
    ];
    let of = |episode: &str, range: std::ops::Range<usize>| -> Written {
        range
            .map(|n| {
                let id = format!("{episode}-00000000000{n}");
                let path = format!("{dir}/{id}.md");
                repo.write(
                    &path,
                    &candidate_record(
                        &id,
                        "convention",
                        "2026-11-20",
                        titles[n],
                        &[&format!("session:{episode}")],
                    ),
                );
                (id, path)
            })
            .collect()
    };
    let e1 = of("20261101T090000Z-aaaaaa", 0..3);
    let e2 = of("20261120T090000Z-bbbbbb", 3..5);
    repo.now("2026-11-30T10:00:00Z");
    (repo, e1, e2)
}

#[test]
fn the_batch_form_without_the_token_or_from_another_origin_is_refused() {
    let (repo, e1, _) = two_episodes();
    let served = Served::start(&repo);
    let (id, path) = &e1[0];
    let act = [("ids", id.as_str()), ("act", "reject"), ("reason", "no")];
    let token = served.token.clone();
    for fields in [
        act.to_vec(),
        [
            act.as_slice(),
            &[("token", "00000000000000000000000000000000")],
        ]
        .concat(),
    ] {
        let answer = served.form_from_page("/cockpit/review", &fields);
        assert_eq!(answer.status, 401, "{}", answer.text());
        assert!(
            answer.text().contains("<code>http.token</code>"),
            "{}",
            answer.text()
        );
        assert!(!answer.text().contains(&token), "no fresh token handed out");
    }
    let with_token = [act.as_slice(), &[("token", token.as_str())]].concat();
    for foreign in [
        ("Origin", "http://evil.example"),
        ("Origin", "http://127.0.0.1:1"),
        ("Sec-Fetch-Site", "cross-site"),
    ] {
        let answer = served.form("/cockpit/review", &with_token, &[foreign]);
        assert_eq!(answer.status, 403, "{foreign:?}: {}", answer.text());
        assert!(
            answer.text().contains("<code>http.same-origin</code>"),
            "{}",
            answer.text()
        );
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(answer.header(name), Some(value), "{name}");
        }
    }
    let whole = served.form(
        "/cockpit/review",
        &[
            ("token", token.as_str()),
            ("select", "all"),
            ("act", "promote"),
            ("evidence", "e"),
        ],
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(whole.status, 403, "{}", whole.text());
    assert!(
        !repo.read(path).contains("superseded"),
        "nothing was rejected"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".ai/repo/knowledge/curated"]),
        "",
        "nothing was promoted"
    );
    // No row checked and not the whole queue: refused, in the form's words.
    let none = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", token.as_str()),
            ("act", "reject"),
            ("reason", "kept"),
        ],
    );
    assert_eq!(none.status, 409, "{}", none.text());
    let html = none.text();
    assert!(
        html.contains("<code>knowledge.selection-required</code>"),
        "{html}"
    );
    assert!(html.contains("Check the rows to decide"), "{html}");
    assert!(
        html.contains("<pre>kept</pre>"),
        "what was typed is kept: {html}"
    );
}

#[test]
fn the_whole_filtered_queue_is_promoted_in_one_act_and_the_rest_left() {
    let (repo, e1, e2) = two_episodes();
    let served = Served::start(&repo);
    let episode = "20261101T090000Z-aaaaaa";
    let queue = served
        .get(&format!("/cockpit/review?episode={episode}"))
        .page();
    assert_eq!(row_ids(&queue).len(), 3, "{queue}");
    assert!(
        queue.contains("the whole filtered queue (3 item(s))"),
        "{queue}"
    );
    let answer = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", served.token.as_str()),
            ("f_episode", episode),
            ("select", "all"),
            ("act", "promote"),
            ("evidence", "tests/cli/cockpit.rs passes"),
            ("reason", ""),
            ("duplicate_of", ""),
        ],
    );
    assert_eq!(answer.status, 303, "{}", answer.text());
    let location = answer.header("location").expect("a redirect").to_owned();
    assert!(
        location.starts_with("/cockpit/review?done=")
            && location.ends_with(&format!("&episode={episode}")),
        "back to the filtered queue: {location}"
    );
    for (id, path) in &e1 {
        assert!(!repo.exists(path), "{id} left the queue");
        let curated = repo.read(&format!(".ai/repo/knowledge/curated/{id}.md"));
        assert!(curated.contains("tests/cli/cockpit.rs passes"), "{curated}");
    }
    for (id, path) in &e2 {
        assert!(
            repo.read(path).contains("status: candidate"),
            "{id} is left as it was"
        );
    }
    assert_eq!(
        repo.ledger_events("knowledge.promoted").len(),
        3,
        "one act each"
    );
    let page = served.get(&location).page();
    assert!(page.contains("Reviewed 3 record(s): promoted 3."), "{page}");
    assert!(
        page.contains("No candidate matches these filters."),
        "{page}"
    );
    // Without the commit option, the one command that commits the review, working as shown.
    let command = commit_command(&page);
    let run = repo.sh_in(repo.root(), &command);
    assert!(run.status.success(), "{command}: {run:?}");
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".ai/repo/knowledge/curated"]),
        ""
    );
    let rest = served.get("/cockpit/review").page();
    assert_eq!(row_ids(&rest).len(), 2, "{rest}");
}

#[test]
fn the_checked_rows_are_rejected_together_and_the_rest_left() {
    let (repo, e1, e2) = two_episodes();
    let served = Served::start(&repo);
    let queue = served.get("/cockpit/review").page();
    assert_eq!(row_ids(&queue).len(), 5, "{queue}");
    let (a, b) = (&e1[1], &e2[0]);
    let answer = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", served.token.as_str()),
            ("select", "checked"),
            ("ids", a.0.as_str()),
            ("ids", b.0.as_str()),
            ("act", "reject"),
            ("evidence", ""),
            ("reason", "not what the code does"),
            ("duplicate_of", ""),
        ],
    );
    assert_eq!(answer.status, 303, "{}", answer.text());
    for (_, path) in [a, b] {
        let text = repo.read(path);
        assert!(text.contains("status: superseded"), "{text}");
        assert!(text.contains("not what the code does"), "{text}");
    }
    for (id, path) in e1
        .iter()
        .chain(&e2)
        .filter(|(id, _)| id != &a.0 && id != &b.0)
    {
        assert!(
            repo.read(path).contains("status: candidate"),
            "{id} as it was"
        );
    }
    let page = served.get(&done_location(&answer)).page();
    assert!(page.contains("Reviewed 2 record(s): rejected 2."), "{page}");
    assert_eq!(row_ids(&page).len(), 3, "{page}");
    // The checked rows and a duplicate-of: superseded by that record.
    let (c, keep) = (&e1[2], &e1[0]);
    let answer = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", served.token.as_str()),
            ("ids", c.0.as_str()),
            ("act", "reject"),
            ("duplicate_of", keep.0.as_str()),
        ],
    );
    assert_eq!(answer.status, 303, "{}", answer.text());
    let text = repo.read(&c.1);
    assert!(
        text.contains(&format!("superseded_by: {}", keep.0)),
        "{text}"
    );
}

#[test]
fn the_commit_option_writes_one_commit_of_exactly_the_reviewed_paths() {
    let (repo, e1, e2) = two_episodes();
    repo.git(&["add", ".ai/repo/knowledge/candidates"]);
    repo.git(&["commit", "-q", "-m", "candidates"]);
    // Something else staged and something else modified: neither joins the commit.
    repo.write("notes.txt", "staged\n");
    repo.git(&["add", "notes.txt"]);
    repo.write(
        &e2[0].1,
        &repo.read(&e2[0].1).replace("as claimed", "as edited"),
    );
    let before = repo.git(&["rev-parse", "HEAD"]);
    let served = Served::start(&repo);
    let answer = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", served.token.as_str()),
            ("ids", e1[0].0.as_str()),
            ("ids", e1[1].0.as_str()),
            ("act", "promote"),
            ("evidence", "tests/cli/cockpit.rs passes"),
            ("commit", "1"),
        ],
    );
    assert_eq!(answer.status, 303, "{}", answer.text());
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]), before, "one commit");
    let mut expected: Vec<String> = e1[..2]
        .iter()
        .flat_map(|(id, path)| [format!(".ai/repo/knowledge/curated/{id}.md"), path.clone()])
        .collect();
    expected.sort();
    let held = repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"]);
    let mut held: Vec<String> = held.lines().map(str::to_owned).collect();
    held.sort();
    assert_eq!(held, expected);
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("majordomus: review — promote 2"),
        "{message}"
    );
    let page = served.get(&done_location(&answer)).page();
    assert!(
        page.contains(&format!(
            "One commit, <code class=\"commit\">{head}</code> on branch <code>main</code>, holds the 4 reviewed path(s)"
        )),
        "{page}"
    );
    assert!(
        !page.contains("<pre class=\"command\">"),
        "nothing left to commit: {page}"
    );
    // The rest as it was: notes.txt still staged, the edited candidate still modified.
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "notes.txt");
    assert_eq!(repo.git(&["diff", "--name-only"]), e2[0].1);
    let status = repo.git(&["status", "--porcelain"]);
    assert!(!status.contains(&e1[0].0), "{status}");
}

#[test]
fn a_review_item_is_one_row_and_its_card_lists_what_is_folded_under_it() {
    let mut repo = TestRepo::initialised();
    let dir = ".ai/repo/knowledge/candidates";
    let write = |n: u32, date: &str, title: &str| {
        let id = format!("20261101T090000Z-aaaaaa-00000000000{n}");
        let path = format!("{dir}/{id}.md");
        repo.write(
            &path,
            &candidate_record(&id, "convention", date, title, &[]),
        );
        (id, path)
    };
    let older = write(
        1,
        "2026-11-10",
        "Parse the policy file with yaml_serde, never by hand",
    );
    let newer = write(
        2,
        "2026-11-12",
        "Parse the policy file with yaml_serde and never by hand",
    );
    let other = write(
        3,
        "2026-11-11",
        "Sockets bind the loopback address unless told",
    );
    repo.now("2026-11-30T10:00:00Z");
    let served = Served::start(&repo);
    let queue = served.get("/cockpit/review").page();
    assert_eq!(
        row_ids(&queue),
        vec![other.0.clone(), newer.0.clone()],
        "{queue}"
    );
    assert!(
        row(
            &queue,
            "Parse the policy file with yaml_serde and never by hand"
        )
        .contains("<td data-label=\"folded\">+1</td>"),
        "{queue}"
    );
    assert!(
        queue.contains("the whole filtered queue (2 item(s), 3 candidates)"),
        "{queue}"
    );
    let html = card_page(
        &served,
        &queue,
        "Parse the policy file with yaml_serde and never by hand",
    );
    let item = card(
        &html,
        "Parse the policy file with yaml_serde and never by hand",
    );
    for needle in [
        "<h3>Folded under it (1)</h3>".to_owned(),
        format!(
            "<a href=\"/cockpit/review/{0}\">Parse the policy file with yaml_serde, never by hand</a>",
            older.0
        ),
        format!("<input type=\"hidden\" name=\"ids\" value=\"{}\">", newer.0),
        "<h3>The claim</h3>".to_owned(),
    ] {
        assert!(item.contains(&needle), "{needle}: {item}");
    }
    // The folded one's card says where it is decided.
    let folded = served.get(&format!("/cockpit/review/{}", older.0)).page();
    assert!(folded.contains("A near duplicate folded under"), "{folded}");
    // An id is checked against its shape before use; a record no longer waiting is shown
    // on its record page.
    let bad = served.get("/cockpit/review/..%2F..%2Fetc");
    assert!(bad.status >= 400, "{}", bad.text());
    assert!(
        bad.text().contains("<code>id.shape</code>"),
        "{}",
        bad.text()
    );
    // Deciding the item promotes the one and rejects the folded one as its duplicate.
    let answer = served.form_from_page(
        "/cockpit/review",
        &[
            ("token", served.token.as_str()),
            ("ids", newer.0.as_str()),
            ("act", "promote"),
            ("evidence", "tests/cli/cockpit.rs passes"),
        ],
    );
    assert_eq!(answer.status, 303, "{}", answer.text());
    assert!(repo.exists(&format!(".ai/repo/knowledge/curated/{}.md", newer.0)));
    assert!(
        repo.read(&older.1)
            .contains(&format!("superseded_by: {}", newer.0)),
        "{}",
        repo.read(&older.1)
    );
    let page = served.get(&done_location(&answer)).page();
    assert!(
        page.contains("Reviewed 2 record(s): promoted 1, rejected 1 (1 as near duplicates)."),
        "{page}"
    );
    let gone = served.get(&format!("/cockpit/review/{}", newer.0));
    assert_eq!(gone.status, 303, "{}", gone.text());
    assert_eq!(
        gone.header("location"),
        Some(format!("/cockpit/knowledge/{}", newer.0).as_str())
    );
}

#[test]
fn the_flash_cannot_be_set_from_the_url() {
    let (repo, id, _) = with_candidate();
    let served = Served::start(&repo);
    for query in [
        format!("promoted={id}"),
        format!("rejected={id}"),
        "flash=Forged%20message".to_owned(),
        "message=Forged".to_owned(),
        "done=00000000000000000000000000000000".to_owned(),
        "done=%3Cb%3EForged%3C%2Fb%3E".to_owned(),
    ] {
        let html = served.get(&format!("/cockpit/review?{query}")).page();
        assert!(!html.contains("class=\"flash\""), "{query}: {html}");
        assert!(!html.contains("Promoted"), "{query}: {html}");
        assert!(!html.contains("Rejected"), "{query}: {html}");
        assert!(!html.contains("Forged"), "{query}: {html}");
    }
    // The server's own message is shown once, to this run only.
    let promoted = served.form_from_page(
        &format!("/cockpit/knowledge/{id}/promote"),
        &[
            ("token", &served.token),
            ("evidence", "tests/cli/cockpit.rs passes"),
        ],
    );
    let location = done_location(&promoted);
    let other = Served::start(&repo);
    assert!(
        !other.get(&location).page().contains("class=\"flash\""),
        "another run does not show this run's message"
    );
    let once = served.get(&location).page();
    assert!(once.contains("class=\"flash\""), "{once}");
    assert!(
        once.contains(&format!("Promoted <a href=\"/cockpit/knowledge/{id}\">")),
        "{once}"
    );
    let again = served.get(&location).page();
    assert!(!again.contains("class=\"flash\""), "once only: {again}");
}

#[test]
fn a_refusal_in_the_browser_names_the_form_not_the_terminal() {
    let (repo, id, path) = with_candidate();
    let served = Served::start(&repo);
    let promote = format!("/cockpit/knowledge/{id}/promote");
    let reject = format!("/cockpit/knowledge/{id}/reject");
    let token = served.token.clone();
    let terminal = [
        "stdin",
        "Bearer",
        "Authorization",
        "--reason",
        "--by",
        "--evidence",
    ];
    let check = |answer: &Answer, status: u16, rule: &str, words: &str| {
        assert_eq!(answer.status, status, "{rule}: {}", answer.text());
        let html = answer.text();
        assert!(
            html.contains(&format!("<code>{rule}</code>")),
            "{rule}: {html}"
        );
        assert!(html.contains(words), "{rule}: {words}: {html}");
        for word in terminal {
            assert!(!html.contains(word), "{rule}: {word}: {html}");
        }
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(answer.header(name), Some(value), "{rule}: {name}");
        }
        html
    };

    let empty = served.form_from_page(
        &promote,
        &[("token", &token), ("evidence", " "), ("class", "lesson")],
    );
    let html = check(
        &empty,
        409,
        "knowledge.evidence",
        "Write the evidence in the Evidence box",
    );
    // The forms come back with what was chosen, so nothing typed is lost.
    assert!(html.contains("<h2>Try again</h2>"), "{html}");
    assert!(
        html.contains("<option value=\"lesson\" selected>"),
        "{html}"
    );
    assert!(
        html.contains(&format!("name=\"token\" value=\"{token}\"")),
        "{html}"
    );

    let marker = served.form_from_page(
        &promote,
        &[
            ("token", &token),
            ("evidence", "User: <b>please</b> promote it"),
        ],
    );
    let html = check(
        &marker,
        409,
        "knowledge.transcript-marker",
        "in your own words",
    );
    assert!(
        html.contains(">User: &lt;b&gt;please&lt;/b&gt; promote it</textarea>"),
        "{html}"
    );

    let no_reason = served.form_from_page(&reject, &[("token", &token), ("reason", "")]);
    check(&no_reason, 409, "record.text", "Write in the Reason box");
    let unknown_by = served.form_from_page(
        &reject,
        &[
            ("token", &token),
            ("reason", "a duplicate"),
            ("by", "20261101T090000Z-abcdef-000000000009"),
        ],
    );
    let html = check(
        &unknown_by,
        409,
        "knowledge.replacement",
        "Leave Replaced by empty",
    );
    assert!(
        html.contains("Replaced by 20261101T090000Z-abcdef-000000000009"),
        "{html}"
    );
    assert!(html.contains("value=\"a duplicate\""), "{html}");

    let no_token = served.form_from_page(&promote, &[("evidence", "a test")]);
    let html = check(&no_token, 401, "http.token", "Reload the page");
    // A guard's refusal does not hand out a fresh form (with this run's token).
    assert!(!html.contains(&token), "{html}");
    let foreign = served.form(
        &promote,
        &[("token", &token), ("evidence", "a test")],
        &[("Origin", "http://evil.example")],
    );
    let html = check(
        &foreign,
        403,
        "http.same-origin",
        "this server&#39;s own pages",
    );
    assert!(!html.contains(&token), "{html}");

    assert!(repo.exists(&path), "nothing moved");
    assert!(
        !repo.read(&path).contains("superseded"),
        "nothing was rejected"
    );
}

#[test]
fn after_an_act_the_queue_says_what_to_commit_and_the_command_works() {
    let (repo, tracked, tracked_path) = with_candidate();
    repo.git(&["add", &tracked_path]);
    repo.git(&["commit", "-q", "-m", "A candidate"]);
    let untracked = format!("{}-000000000002", repo.episode_id());
    let untracked_path = format!(".ai/repo/knowledge/candidates/{untracked}.md");
    repo.write(
        &untracked_path,
        &crate::common::knowledge_record(&untracked, "candidate", &[], "", "Another claim."),
    );
    let rejected = format!("{}-000000000003", repo.episode_id());
    let rejected_path = format!(".ai/repo/knowledge/candidates/{rejected}.md");
    repo.write(
        &rejected_path,
        &crate::common::knowledge_record(&rejected, "candidate", &[], "", "A third claim."),
    );
    let served = Served::start(&repo);
    let clean = || repo.git(&["status", "--porcelain", "--", ".ai/repo/knowledge"]);

    // A tracked candidate: its removal is part of the commit.
    let answer = served.form_from_page(
        &format!("/cockpit/knowledge/{tracked}/promote"),
        &[
            ("token", &served.token),
            ("evidence", "tests/cli/cockpit.rs passes"),
        ],
    );
    let page = served.get(&done_location(&answer)).page();
    let command = commit_command(&page);
    assert_eq!(
        command,
        format!(
            "git add .ai/repo/knowledge/curated/{tracked}.md {tracked_path} && git commit -m 'Verify knowledge {tracked}'"
        )
    );
    assert!(
        page.contains("Commit it, in a terminal in this repository:"),
        "{page}"
    );
    let run = repo.sh_in(repo.root(), &command);
    assert!(run.status.success(), "{command}: {run:?}");
    assert!(!clean().contains(&tracked), "{}", clean());
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]),
        format!("Verify knowledge {tracked}")
    );
    assert_eq!(repo.git(&["ls-files", &tracked_path]), "");

    // An untracked one: only the curated record to add.
    let answer = served.form_from_page(
        &format!("/cockpit/knowledge/{untracked}/promote"),
        &[
            ("token", &served.token),
            ("evidence", "tests/cli/cockpit.rs passes"),
        ],
    );
    let command = commit_command(&served.get(&done_location(&answer)).page());
    assert_eq!(
        command,
        format!(
            "git add .ai/repo/knowledge/curated/{untracked}.md && git commit -m 'Verify knowledge {untracked}'"
        )
    );
    let run = repo.sh_in(repo.root(), &command);
    assert!(run.status.success(), "{command}: {run:?}");

    // A rejection: the candidate as it now is.
    let answer = served.form_from_page(
        &format!("/cockpit/knowledge/{rejected}/reject"),
        &[("token", &served.token), ("reason", "not a claim")],
    );
    let command = commit_command(&served.get(&done_location(&answer)).page());
    assert_eq!(
        command,
        format!("git add {rejected_path} && git commit -m 'Reject knowledge {rejected}'")
    );
    let run = repo.sh_in(repo.root(), &command);
    assert!(run.status.success(), "{command}: {run:?}");
    assert_eq!(clean(), "", "everything the acts changed is committed");
}

// --- A real browser --------------------------------------------------------------------

/// Chromium on `PATH` (`chromium`, else `chromium-browser`).
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// Flags for a headless Chromium in a throwaway profile (`--no-sandbox`: CI runs as root).
fn headless(binary: &Path, profile: &Path) -> Command {
    let mut command = Command::new(binary);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--window-size=1200,800",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// A running Chromium, killed when dropped.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A minimal WebSocket client (RFC 6455) for the DevTools protocol: text frames out
/// (masked, as a client must), text frames in.
struct DevTools {
    stream: TcpStream,
    next_id: u64,
    /// Events read while waiting for an answer.
    events: Vec<Value>,
}

impl DevTools {
    fn connect(ws_url: &str) -> DevTools {
        let rest = ws_url.strip_prefix("ws://").expect("a ws:// url");
        let (host, path) = rest.split_at(rest.find('/').expect("a path"));
        let mut stream = TcpStream::connect(host).expect("connect to DevTools");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .expect("handshake");
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).expect("handshake answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        DevTools {
            stream,
            next_id: 0,
            events: Vec::new(),
        }
    }

    fn send_text(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 65536 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x5a, 0x17, 0xc3, 0x9e];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).expect("send a frame");
    }

    /// The next whole text message (continuation frames joined; pings answered).
    fn read_text(&mut self) -> String {
        let mut message = Vec::new();
        loop {
            let mut head = [0u8; 2];
            self.stream.read_exact(&mut head).expect("a frame");
            let fin = head[0] & 0x80 != 0;
            let opcode = head[0] & 0x0f;
            let len = match head[1] & 0x7f {
                126 => {
                    let mut b = [0u8; 2];
                    self.stream.read_exact(&mut b).expect("length");
                    u64::from(u16::from_be_bytes(b))
                }
                127 => {
                    let mut b = [0u8; 8];
                    self.stream.read_exact(&mut b).expect("length");
                    u64::from_be_bytes(b)
                }
                n => u64::from(n),
            };
            let mut payload = vec![0u8; usize::try_from(len).expect("a frame that fits")];
            self.stream.read_exact(&mut payload).expect("payload");
            match opcode {
                0x9 => {
                    // A ping: answer with a pong carrying the same payload (masked).
                    let mut pong = vec![0x8a, 0x80 | payload.len() as u8, 0, 0, 0, 0];
                    pong.extend_from_slice(&payload);
                    self.stream.write_all(&pong).expect("pong");
                }
                0x8 => panic!("DevTools closed the connection"),
                _ => {
                    message.extend_from_slice(&payload);
                    if fin {
                        return String::from_utf8(message).expect("UTF-8 text");
                    }
                }
            }
        }
    }

    /// Calls `method` and returns its `result`, keeping the events read meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send_text(&json!({"id": id, "method": method, "params": params}).to_string());
        loop {
            let message: Value = serde_json::from_str(&self.read_text()).expect("JSON");
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    /// Waits for the event `method` (kept or new), consuming it.
    fn wait_for(&mut self, method: &str) -> Value {
        if let Some(i) = self.events.iter().position(|e| e["method"] == method) {
            return self.events.remove(i);
        }
        loop {
            let message: Value = serde_json::from_str(&self.read_text()).expect("JSON");
            if message["method"] == method {
                return message;
            }
        }
    }

    /// The node matching `selector` in the current document.
    fn query(&mut self, selector: &str) -> u64 {
        let root = self.call("DOM.getDocument", json!({}))["root"]["nodeId"].clone();
        let node = self.call(
            "DOM.querySelector",
            json!({"nodeId": root, "selector": selector}),
        )["nodeId"]
            .as_u64()
            .expect("a node id");
        assert_ne!(node, 0, "no element matches {selector}");
        node
    }

    /// The document's outer HTML.
    fn html(&mut self) -> String {
        let node = self.query("html");
        self.call("DOM.getOuterHTML", json!({"nodeId": node}))["outerHTML"]
            .as_str()
            .expect("HTML")
            .to_owned()
    }
}

/// Measures, in the page, its width, how wide its content scrolls, and the elements that
/// reach past its right edge (outside a `.scroll` box, which scrolls inside itself).
const OVERFLOW: &str = r#"(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const e of document.querySelectorAll("body *")) {
    if (e.parentElement && e.parentElement.closest(".scroll")) continue;
    const right = e.getBoundingClientRect().right;
    if (right > width + 0.5) out.push(e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " " + Math.round(right));
  }
  return JSON.stringify({width, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8)});
})()"#;

#[test]
fn a_browser_promotes_a_candidate_through_the_form() {
    let Some(binary) = chromium() else {
        crate::common::missing_tool("chromium", "apt-get install chromium");
        return;
    };
    let (repo, id, path) = with_candidate();
    // A long unbroken word (a path, an id) must wrap, not widen the page.
    repo.run(&[
        "decision",
        "Keep src/cockpit/a/very/deep/directory/with/a/long/path/to/one/file/named/review_queue_rendering_of_candidates.rs as is",
    ])
    .success();
    let served = Served::start(&repo);
    let review = format!("{}/cockpit/review", served.origin());

    // A plain load: the page renders without JavaScript, with its form.
    let dumped = headless(&binary, &repo.base().join("chromium-dump"))
        .arg("--dump-dom")
        .arg(&review)
        .stderr(Stdio::null())
        .output()
        .expect("run chromium --dump-dom");
    let dom = String::from_utf8_lossy(&dumped.stdout);
    assert!(dom.contains("The ledger is append-only"), "{dom}");
    assert!(dom.contains("Promote</button>"), "{dom}");

    // Drive it over the DevTools protocol: type the evidence, click Promote.
    let mut child = headless(&binary, &repo.base().join("chromium-profile"))
        .arg("--remote-debugging-port=0")
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn chromium");
    let stderr = child.stderr.take().expect("piped stderr");
    let _browser = Browser(child);
    let mut lines = BufReader::new(stderr).lines();
    let ws = loop {
        let line = lines
            .next()
            .expect("chromium printed its DevTools address")
            .expect("a line");
        if let Some(url) = line.strip_prefix("DevTools listening on ") {
            break url.trim().to_owned();
        }
    };
    // Keep draining stderr so chromium never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    // A tab of its own, reached at /devtools/page/<target id> beside the browser's address.
    let mut browser = DevTools::connect(&ws);
    let target = browser.call("Target.createTarget", json!({"url": "about:blank"}))["targetId"]
        .as_str()
        .expect("a target id")
        .to_owned();
    let devtools_addr = ws
        .strip_prefix("ws://")
        .and_then(|r| r.split('/').next())
        .expect("host:port");
    let page_ws = format!("ws://{devtools_addr}/devtools/page/{target}");
    let mut tab = DevTools::connect(&page_ws);
    tab.call("Page.enable", json!({}));

    // At phone width nothing reaches past the viewport: long ids and paths wrap, tables
    // scroll inside their box.
    tab.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}),
    );
    let mut pages: Vec<String> = PAGES.iter().map(|(p, _)| (*p).to_owned()).collect();
    pages.push(format!("/cockpit/knowledge/{id}"));
    pages.push(format!("/cockpit/review/{id}"));
    pages.push("/cockpit/recall?q=ledger".to_owned());
    for page in &pages {
        tab.call(
            "Page.navigate",
            json!({"url": format!("{}{page}", served.origin())}),
        );
        tab.wait_for("Page.loadEventFired");
        let measured = tab.call(
            "Runtime.evaluate",
            json!({"expression": OVERFLOW, "returnByValue": true}),
        )["result"]["value"]
            .as_str()
            .expect("the measure")
            .to_owned();
        let measured: Value = serde_json::from_str(&measured).expect("JSON");
        assert_eq!(measured["width"], 390, "{page}: {measured}");
        assert_eq!(
            measured["scroll"], measured["width"],
            "{page} is wider than the phone: {measured}"
        );
        assert_eq!(measured["out"], json!([]), "{page}: {measured}");
    }
    tab.call("Emulation.clearDeviceMetricsOverride", json!({}));

    tab.call("Page.navigate", json!({"url": review}));
    tab.wait_for("Page.loadEventFired");

    // Check the candidate's row, type the evidence once, press Promote.
    let click = |tab: &mut DevTools, selector: &str| {
        let node = tab.query(selector);
        tab.call("DOM.scrollIntoViewIfNeeded", json!({"nodeId": node}));
        let quad = tab.call("DOM.getBoxModel", json!({"nodeId": node}))["model"]["content"].clone();
        let corner = |i: usize| quad[i].as_f64().expect("a coordinate");
        let (x, y) = ((corner(0) + corner(4)) / 2.0, (corner(1) + corner(5)) / 2.0);
        for kind in ["mousePressed", "mouseReleased"] {
            tab.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    };
    click(&mut tab, &format!("input[name=ids][value=\"{id}\"]"));
    let evidence = tab.query("textarea[name=evidence]");
    tab.call("DOM.focus", json!({"nodeId": evidence}));
    tab.call(
        "Input.insertText",
        json!({"text": "typed in a real browser: tests/cli/cockpit.rs"}),
    );
    click(&mut tab, "button.promote");
    tab.wait_for("Page.loadEventFired");

    let curated = format!(".ai/repo/knowledge/curated/{id}.md");
    let deadline = Instant::now() + crate::common::WAIT;
    while !repo.exists(&curated) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        repo.exists(&curated),
        "the browser's form promoted the candidate"
    );
    assert!(!repo.exists(&path));
    assert!(
        repo.read(&curated)
            .contains("typed in a real browser: tests/cli/cockpit.rs")
    );
    let after = tab.html();
    assert!(after.contains("class=\"flash\""), "{after}");
    assert!(after.contains("promoted 1"), "{after}");
}

// --- The end of a record's life (issue 35) ------------------------------------------------

#[test]
fn a_verified_records_page_decides_it_re_verified_superseded_or_retired() {
    use crate::lifecycle::{project, verified};
    let repo = project();
    let stale = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let other = verified(
        &repo,
        "Trace ids are random",
        "src/trace.rs",
        "src/trace.rs: ids",
    );
    let new = verified(
        &repo,
        "Trace spans are kept for a week",
        "src/pricing.rs",
        "src/pricing.rs: 7d",
    );
    repo.commit(
        "src/trace.rs",
        "pub fn normalize() { week() }\n",
        "Keep spans a week",
    );
    let served = Served::start(&repo);
    let page = served.get(&format!("/cockpit/knowledge/{stale}")).page();
    assert!(page.contains("<strong>Stale</strong>"), "{page}");
    assert!(
        page.contains("<code>src/trace.rs</code> changed by"),
        "{page}"
    );
    for form in ["reverify", "supersede", "retire"] {
        assert!(
            page.contains(&format!("action=\"/cockpit/knowledge/{stale}/{form}\"")),
            "{form}: {page}"
        );
    }
    let token = hidden_token(&page);
    // The doctor's stale finding links to this page, where it is decided.
    let doctor = served.get("/cockpit/doctor").page();
    assert!(
        doctor.contains(&format!("href=\"/cockpit/knowledge/{stale}#decide\"")),
        "{doctor}"
    );

    // A refused act: the rule, the fix in the form's words, the forms again with what was
    // typed; nothing written.
    let action = format!("/cockpit/knowledge/{stale}/supersede");
    let refused = served.form_from_page(
        &action,
        &[("token", &token), ("by", &stale), ("reason", "A week now")],
    );
    assert_eq!(refused.status, 409, "{}", refused.text());
    let text = refused.text();
    assert!(
        text.contains("knowledge.replacement") && text.contains("press Retire"),
        "{text}"
    );
    assert!(
        text.contains("A week now"),
        "what was typed is kept: {text}"
    );
    assert!(
        repo.read(&format!(".ai/repo/knowledge/curated/{stale}.md"))
            .contains("status: verified")
    );
    let empty = served.form_from_page(
        &format!("/cockpit/knowledge/{other}/retire"),
        &[("token", &token), ("reason", " ")],
    );
    assert_eq!(empty.status, 409, "{}", empty.text());
    assert!(
        empty.text().contains("The Reason box is empty."),
        "{}",
        empty.text()
    );

    // Superseded through the form: a redirect back to its page, which says it once.
    let done = served.form_from_page(
        &action,
        &[("token", &token), ("by", &new), ("reason", "A week now")],
    );
    assert_eq!(done.status, 303, "{}", done.text());
    let location = done.header("location").expect("a redirect").to_owned();
    assert!(
        location.starts_with(&format!("/cockpit/knowledge/{stale}?done=")),
        "{location}"
    );
    let after = served.get(&location).page();
    assert!(
        after.contains("class=\"flash\"") && after.contains("Superseded by"),
        "{after}"
    );
    assert!(
        after.contains("No longer claimed: superseded by"),
        "{after}"
    );
    assert!(
        !after.contains("action=\"/cockpit/knowledge/"),
        "no forms on an ended record: {after}"
    );
    let again = served.get(&location).page();
    assert!(!again.contains("class=\"flash\""), "said once");
    let record = repo.read(&format!(".ai/repo/knowledge/curated/{stale}.md"));
    assert!(
        record.contains(&format!("superseded_by: {new}")),
        "{record}"
    );
    assert!(record.contains("# Superseded\n\nSuperseded by"), "{record}");

    // Retired, and re-verified, through theirs.
    let done = served.form_from_page(
        &format!("/cockpit/knowledge/{other}/retire"),
        &[("token", &token), ("reason", "Ids are sequential now")],
    );
    assert_eq!(done.status, 303, "{}", done.text());
    let after = served
        .get(done.header("location").expect("a redirect"))
        .page();
    assert!(after.contains("Retired:"), "{after}");
    let done = served.form_from_page(
        &format!("/cockpit/knowledge/{new}/reverify"),
        &[
            ("token", &token),
            ("evidence", "src/pricing.rs still says 7d"),
        ],
    );
    assert_eq!(done.status, 303, "{}", done.text());
    let after = served
        .get(done.header("location").expect("a redirect"))
        .page();
    assert!(after.contains("Re-verified"), "{after}");
    // The commit line the flash printed works as printed.
    let command = commit_command(&after);
    repo.run_printed(&command);
    assert_eq!(repo.ledger_events("knowledge.superseded").len(), 1);
    assert_eq!(repo.ledger_events("knowledge.retired").len(), 1);
}

#[test]
fn a_retired_replacement_is_refused_with_advice_the_supersede_form_can_follow() {
    use crate::lifecycle::{project, verified};
    let repo = project();
    let old = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let retired = verified(
        &repo,
        "Trace spans are kept for a week",
        "src/trace.rs",
        "src/trace.rs: TTL 7d",
    );
    let live = verified(
        &repo,
        "Trace spans are kept for a month",
        "src/trace.rs",
        "src/trace.rs: TTL 30d",
    );
    repo.run(&[
        "knowledge",
        "retire",
        &retired,
        "--reason",
        "Spans are kept a month",
    ])
    .success();
    let served = Served::start(&repo);
    let page = served.get(&format!("/cockpit/knowledge/{old}")).page();
    let token = hidden_token(&page);
    let action = format!("/cockpit/knowledge/{old}/supersede");
    let refused = served.form_from_page(
        &action,
        &[
            ("token", &token),
            ("by", &retired),
            ("reason", "A month now"),
        ],
    );
    assert_eq!(refused.status, 409, "{}", refused.text());
    let text = refused.text();
    assert!(
        text.contains("<code>knowledge.replacement</code>"),
        "{text}"
    );
    assert!(text.contains("itself retired"), "{text}");
    // Replaced by is required on this form: the advice is never to leave it empty.
    assert!(!text.contains("Leave Replaced by empty"), "{text}");
    assert!(
        text.contains(
            "That record was retired: nothing replaces anything through it. Give in Replaced by the id of a verified record the Graph page lists, or press Retire if nothing replaces this one."
        ),
        "{text}"
    );
    assert!(
        text.contains(">A month now</textarea>") && text.contains(&format!("value=\"{retired}\"")),
        "what was typed is kept: {text}"
    );
    // The Graph page lists the record to give; followed, the form supersedes it.
    let graph = served.get("/cockpit/graph").page();
    assert!(graph.contains(&live), "{graph}");
    let done = served.form_from_page(
        &action,
        &[("token", &token), ("by", &live), ("reason", "A month now")],
    );
    assert_eq!(done.status, 303, "{}", done.text());
    assert!(
        repo.read(&format!(".ai/repo/knowledge/curated/{old}.md"))
            .contains(&format!("superseded_by: {live}"))
    );
}

#[test]
fn the_queue_shows_the_verified_records_a_candidate_concerns_and_promotes_superseding_one_click_away()
 {
    use crate::lifecycle::{decided, project, verified};
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let new = decided(
        &repo,
        "Model pricing refresh is now async",
        "src/pricing.rs",
    );
    let unrelated = decided(
        &repo,
        "Prices are displayed with two decimals",
        "src/pricing.rs",
    );
    // The queue's JSON names the record under the candidate, and only there.
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let entry = |id: &str| {
        listing["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .find(|c| c["id"] == id)
            .cloned()
            .expect("listed")
    };
    assert_eq!(entry(&new)["concerns"][0]["id"], old.as_str(), "{listing}");
    assert_eq!(
        entry(&new)["concerns"][0]["files"],
        json!(["src/pricing.rs"])
    );
    assert!(entry(&unrelated).get("concerns").is_none(), "{listing}");
    // The CLI says it with the flag that replaces it.
    let text = repo.run(&["knowledge", "candidates"]).success();
    assert!(
        text.stdout().contains(&format!(
            "    concerns the same files as verified {old} (src/pricing.rs; 54% alike): Model pricing refresh must stay synchronous — restate, replace or keep both? replace: echo \"<evidence>\" | majordomus knowledge promote {new} --supersedes {old}"
        )),
        "{text}"
    );

    let served = Served::start(&repo);
    let queue = served.get("/cockpit/review").page();
    let link = format!("href=\"/cockpit/review/{new}?supersedes={old}#promote\"");
    assert!(queue.contains(&link), "{queue}");
    assert_eq!(queue.matches("concerns verified").count(), 1, "{queue}");
    // One click: the card, its promote form ticking the record it replaces.
    let card = served
        .get(&format!("/cockpit/review/{new}?supersedes={old}"))
        .page();
    assert!(
        card.contains("It concerns the same files as 1 verified record(s)"),
        "{card}"
    );
    assert!(
        card.contains(&format!("name=\"supersedes\" value=\"{old}\" checked>")),
        "{card}"
    );
    let token = hidden_token(&card);
    let done = served.form_from_page(
        &format!("/cockpit/knowledge/{new}/promote"),
        &[
            ("token", &token),
            ("evidence", "src/pricing.rs spawns refresh()"),
            ("supersedes", &old),
        ],
    );
    assert_eq!(done.status, 303, "{}", done.text());
    let after = served.get(&done_location(&done)).page();
    assert!(after.contains("It supersedes"), "{after}");
    let record = repo.read(&format!(".ai/repo/knowledge/curated/{old}.md"));
    assert!(
        record.contains(&format!("superseded_by: {new}")),
        "{record}"
    );
    // What to commit names the superseded record too, and works as printed.
    let command = commit_command(&after);
    assert!(command.contains(&format!("curated/{old}.md")), "{command}");
    repo.run_printed(&command);
}
