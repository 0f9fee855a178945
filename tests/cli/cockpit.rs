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
    assert!(review.contains("The ledger is append-only"), "{review}");
    assert!(
        review.contains(&format!("action=\"/cockpit/knowledge/{id}/promote\"")),
        "{review}"
    );
    assert!(
        review.contains(&format!("action=\"/cockpit/knowledge/{id}/reject\"")),
        "{review}"
    );
    assert!(review.contains("name=\"evidence\""), "{review}");
    assert!(review.contains("name=\"reason\""), "{review}");
    assert_eq!(hidden_token(&review), served.token);

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
    let location = promoted.header("location").expect("a redirect").to_owned();
    assert_eq!(location, format!("/cockpit/review?promoted={id}"));
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
    assert_eq!(
        rejected.header("location"),
        Some(format!("/cockpit/review?rejected={id}").as_str())
    );
    let text = repo.read(&path);
    assert!(text.contains("status: superseded"), "{text}");
    assert!(text.contains("not a claim"), "{text}");
    let queue = served.get(&format!("/cockpit/review?rejected={id}")).page();
    assert!(queue.contains("Rejected"), "{queue}");
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

#[test]
fn a_browser_promotes_a_candidate_through_the_form() {
    let Some(binary) = chromium() else {
        // Written to the stderr stream itself, past the test harness's capture: loud.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: chromium not found (apt-get install chromium); the cockpit's browser test did not run"
        );
        return;
    };
    let (repo, id, path) = with_candidate();
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
    tab.call("Page.navigate", json!({"url": review}));
    tab.wait_for("Page.loadEventFired");

    let evidence = tab.query("textarea[name=evidence]");
    tab.call("DOM.focus", json!({"nodeId": evidence}));
    tab.call(
        "Input.insertText",
        json!({"text": "typed in a real browser: tests/cli/cockpit.rs"}),
    );
    let button = tab.query("button.promote");
    tab.call("DOM.scrollIntoViewIfNeeded", json!({"nodeId": button}));
    let quad = tab.call("DOM.getBoxModel", json!({"nodeId": button}))["model"]["content"].clone();
    let corner = |i: usize| quad[i].as_f64().expect("a coordinate");
    let (x, y) = ((corner(0) + corner(4)) / 2.0, (corner(1) + corner(5)) / 2.0);
    for kind in ["mousePressed", "mouseReleased"] {
        tab.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        );
    }
    tab.wait_for("Page.loadEventFired");

    let curated = format!(".ai/repo/knowledge/curated/{id}.md");
    let deadline = Instant::now() + Duration::from_secs(20);
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
    assert!(after.contains("The queue is empty."), "{after}");
}
