//! `majordomus serve`: loopback binding and the printed token, every generated route
//! answering, writes guarded by the token and the same-origin check, the body limit, the
//! error object, and the OpenAPI document (complete, and valid by a validator).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestRepo;
use majordomus::http::routes::{Method, offered, route, routes};
use majordomus::ops::Registry;

/// A running `majordomus serve --port 0`.
pub(crate) struct Served {
    child: Child,
    /// `127.0.0.1:<port>`.
    pub(crate) addr: String,
    pub(crate) token: String,
}

/// One answer: status, headers (lower-case names) and body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    pub(crate) fn status(&self) -> u16 {
        self.status
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: not JSON: {}", String::from_utf8_lossy(&self.body)))
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The error object; panics unless the status and its `code` are `status` and the
    /// rule is `rule`.
    #[track_caller]
    pub(crate) fn error(&self, status: u16, rule: &str) -> Value {
        assert_eq!(
            self.status,
            status,
            "{self:?}: {}",
            String::from_utf8_lossy(&self.body)
        );
        let json = self.json();
        let error = json["error"].clone();
        assert_eq!(error["code"], status, "{json}");
        assert_eq!(error["rule"], rule, "{json}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{json}"
        );
        assert!(
            error["fix"].as_str().is_some_and(|m| !m.is_empty()),
            "{json}"
        );
        error
    }
}

impl Served {
    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    pub(crate) fn start(repo: &TestRepo) -> Served {
        Served::start_env(repo, &[])
    }

    /// [`Served::start`] with `env` set for the server.
    pub(crate) fn start_env(repo: &TestRepo, env: &[(&str, &str)]) -> Served {
        let mut child = repo
            .command_in(repo.root(), &["serve", "--port", "0"])
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn majordomus serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut first = String::new();
        let mut second = String::new();
        stdout.read_line(&mut first).expect("the address line");
        stdout.read_line(&mut second).expect("the token line");
        let addr = first
            .trim_end()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_owned();
        let token = second
            .trim_end()
            .strip_prefix("token ")
            .unwrap_or_else(|| panic!("second line: {second:?}"))
            .to_owned();
        Served { child, addr, token }
    }

    pub(crate) fn port(&self) -> &str {
        self.addr.rsplit(':').next().expect("a port")
    }

    /// Sends one request (`Connection: close`) and reads the whole answer.
    pub(crate) fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Answer {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(head.as_bytes()).expect("write the head");
        // The server may answer (413) before reading a large body.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        parse_answer(&raw)
    }

    pub(crate) fn get(&self, path: &str) -> Answer {
        self.send("GET", path, &[], b"")
    }

    /// A POST with the token and a JSON body.
    pub(crate) fn post(&self, path: &str, body: &Value) -> Answer {
        let auth = format!("Bearer {}", self.token);
        self.send(
            "POST",
            path,
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            body.to_string().as_bytes(),
        )
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_answer(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .expect("chunk size");
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16)
                .expect("hex size");
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[end + 2..end + 2 + size]);
            rest = &rest[end + 2 + size + 2..];
        }
        body = out;
    }
    Answer {
        status,
        headers,
        body,
    }
}

#[test]
fn binds_loopback_and_prints_the_address_and_a_fresh_token() {
    let repo = TestRepo::initialised();
    let one = Served::start(&repo);
    let two = Served::start(&repo);
    assert!(one.addr.starts_with("127.0.0.1:"), "{}", one.addr);
    assert_ne!(one.port(), "0");
    for token in [&one.token, &two.token] {
        assert_eq!(token.len(), 32);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    }
    assert_ne!(one.token, two.token, "a token per run");
    assert_eq!(one.get("/api/v1/env").status, 200);
}

#[test]
fn every_route_answers_with_its_result_or_the_error_object() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let registry = Registry::standard();
    let all = routes(&registry);
    assert!(all.len() >= 25, "{all:?}");
    for route in &all {
        let path = route.path.replace("{id}", "q-0123456789");
        let answer = match route.method {
            Method::Get => served.get(&path),
            Method::Post => {
                // Without the token, nothing is written.
                let before = repo.ledger_text();
                served
                    .send("POST", &path, &[], b"{}")
                    .error(401, "http.token");
                assert_eq!(repo.ledger_text(), before, "{path}");
                served.post(&path, &json!({}))
            }
        };
        let json = answer.json();
        match answer.status {
            200 => {
                assert!(json.is_object(), "{path}: {json}");
                assert!(answer.header("x-majordomus-verdict").is_some(), "{path}");
            }
            400 | 409 => {
                assert_eq!(json["error"]["code"], answer.status, "{path}: {json}");
            }
            other => panic!("{} {path}: {other} {json}", route.method.name()),
        }
    }
}

#[test]
fn reads_and_writes_through_the_routes_spec_names() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let served = Served::start(&repo);

    let context = served.get("/api/v1/context");
    assert_eq!(context.status, 200);
    assert_eq!(context.header("content-type"), Some("application/json"));
    assert_eq!(
        context.json(),
        repo.run(&["--format", "json", "context"]).success().json()
    );

    let decided = served.post(
        "/api/v1/decisions",
        &json!({"text": "serve binds loopback"}),
    );
    assert_eq!(decided.status, 200, "{decided:?}");
    let line = repo
        .ledger_events("decision.recorded")
        .pop()
        .expect("a line");
    assert_eq!(
        line["session"],
        episode.as_str(),
        "stamped with the open episode"
    );
    let asked = served.post("/api/v1/questions", &json!({"text": "which port?"}));
    let id = asked.json()["id"].as_str().expect("an id").to_owned();
    let resolved = served.post(
        &format!("/api/v1/questions/{id}/resolve"),
        &json!({"answer": "any free one"}),
    );
    assert_eq!(resolved.status, 200, "{:?}", resolved.json());
    served
        .post(
            &format!("/api/v1/questions/{id}/resolve"),
            &json!({"answer": "again"}),
        )
        .error(409, "question.open");
    let checkpoint = served.post("/api/v1/checkpoints", &json!({"text": "routes done"}));
    assert_eq!(checkpoint.status, 200);

    // Query parameters are typed by the request schema; a repeated one is a list.
    let history = served.get("/api/v1/history?event=decision.recorded").json();
    assert_eq!(
        history["lines"].as_array().map(Vec::len),
        Some(1),
        "{history}"
    );
    let history = served
        .get("/api/v1/history?event=decision.recorded&event=checkpoint.recorded")
        .json();
    assert_eq!(
        history["lines"].as_array().map(Vec::len),
        Some(2),
        "{history}"
    );
    let binding = served.get("/api/v1/intents/binding?scope=src&scope=docs");
    assert_eq!(binding.status, 200, "{:?}", binding.json());
    served
        .get("/api/v1/history?since=yesterday")
        .error(400, "history.since");
    served
        .get("/api/v1/history?bogus=1")
        .error(400, "request.valid");
    served.get("/api/v1/nothing").error(404, "http.route");
    served
        .send("DELETE", "/api/v1/context", &[], b"")
        .error(405, "http.method");
    served
        .send(
            "POST",
            "/api/v1/decisions",
            &[("Authorization", &format!("Bearer {}", served.token))],
            b"[1]",
        )
        .error(400, "request.valid");
}

#[test]
fn writes_need_the_token_and_the_same_origin_and_the_host_must_be_this_server() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let body = json!({"text": "from somewhere"}).to_string();
    let bearer = format!("Bearer {}", served.token);
    let origin = format!("http://127.0.0.1:{}", served.port());
    let before = repo.ledger_text();
    served
        .send("POST", "/api/v1/decisions", &[], body.as_bytes())
        .error(401, "http.token");
    served
        .send(
            "POST",
            "/api/v1/decisions",
            &[("Authorization", "Bearer 00000000000000000000000000000000")],
            body.as_bytes(),
        )
        .error(401, "http.token");
    for foreign in [
        ("Origin", "http://evil.example"),
        ("Origin", "http://127.0.0.1:1"),
        ("Referer", "http://localhost:9/page"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        served
            .send(
                "POST",
                "/api/v1/decisions",
                &[("Authorization", &bearer), foreign],
                body.as_bytes(),
            )
            .error(403, "http.same-origin");
    }
    served
        .send(
            "GET",
            "/api/v1/context",
            &[("Host", &format!("evil.example:{}", served.port()))],
            b"",
        )
        .error(403, "http.host");
    assert_eq!(repo.ledger_text(), before, "nothing was written");

    let same_origin = served.send(
        "POST",
        "/api/v1/decisions",
        &[
            ("Authorization", &bearer),
            ("Origin", &origin),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        body.as_bytes(),
    );
    assert_eq!(same_origin.status, 200, "{:?}", same_origin.json());
    // Reads need no token.
    assert_eq!(served.get("/api/v1/history").status, 200);
}

#[test]
fn every_state_change_needs_the_token() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let registry = Registry::standard();
    let before = repo.ledger_text();
    let mut posts = 0;
    for route in routes(&registry) {
        match route.method {
            // What a GET does is tried by every_get_route_leaves_the_whole_tree_as_it_was.
            Method::Get => {}
            Method::Post => {
                let path = route
                    .path_params()
                    .iter()
                    .fold(route.path.clone(), |p, name| {
                        p.replace(&format!("{{{name}}}"), "x")
                    });
                served
                    .send("POST", &path, &[], b"{}")
                    .error(401, "http.token");
                posts += 1;
            }
        }
    }
    assert!(
        posts >= 10,
        "the writes of the registry are routed ({posts})"
    );
    assert_eq!(
        repo.ledger_text(),
        before,
        "no request without the token wrote"
    );
}

/// A store with something for every read to show: an intent with an issue, a closed
/// episode (decisions, a question, a checkpoint, a task, an assessment and its
/// conclusion) with its candidates and handover, and an open episode. Returns the
/// repository and, by request field, a valid value for the reads that need one.
fn store_for_every_read() -> (TestRepo, BTreeMap<&'static str, String>) {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/intents/auth.yaml",
        "id: auth\nstatus: active\nstatement: People sign in.\ncriteria:\n  - id: c1\n    text: A user signs in.\nissues:\n  - id: login\n    title: Login\n    status: open\n    paths: [src/**]\n    serves: [c1]\n",
    );
    repo.start_episode();
    repo.run(&["decision", "Reads are GET and write nothing"])
        .success();
    repo.run(&["question", "Does a read build caches?"])
        .success();
    repo.run(&["checkpoint", "the routes answer"]).success();
    repo.run(&["task", "start", "Try every read", "--scope", "src/"])
        .success();
    let assessment = json!({"kind": "assessment", "subject": "reads", "materiality": "low",
        "confidence": "low", "hypothesis": "a read writes nothing",
        "evidence": ["observation:the tree before and after"]});
    let assessed = repo
        .run_with_stdin(
            &["--format", "json", "reasoning", "record"],
            &assessment.to_string(),
        )
        .success()
        .json();
    let conclusion = json!({"kind": "conclusion", "assessment": assessed["id"],
        "decision": "compare the whole tree", "rationale": "bytes and mtimes",
        "evidence": ["observation:the tree before and after"], "consultations": [],
        "validation_plan": "run every GET twice"});
    let concluded = repo
        .run_with_stdin(
            &["--format", "json", "reasoning", "record"],
            &conclusion.to_string(),
        )
        .success()
        .json();
    let task = repo.ledger_events("task.started")[0]["task"]
        .as_str()
        .expect("a task id")
        .to_owned();
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();
    let handover = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    let candidate = repo.record_ids(".ai/repo/knowledge/candidates")[0].clone();
    repo.start_episode();
    let mut values = BTreeMap::new();
    values.insert("id", candidate.clone());
    values.insert("issue", "login".to_owned());
    values.insert(
        "file",
        handover["path"]
            .as_str()
            .unwrap_or_else(|| panic!("the handover's path: {handover}"))
            .to_owned(),
    );
    values.insert(
        "conclusion",
        concluded["id"]
            .as_str()
            .expect("a conclusion id")
            .to_owned(),
    );
    values.insert("reference", format!("knowledge:{candidate}"));
    values.insert("query", "read".to_owned());
    values.insert("task", task);
    // `GET /api/v1/reasoning/plan` is the dry run (nothing stored).
    values.insert("materiality", "material".to_owned());
    (repo, values)
}

/// A derived cache a read may build (the ledger index, the recall index, and the lock
/// files they are built under): never authoritative, rebuilt when missing.
fn is_derived_cache(path: &str) -> bool {
    let Some(name) = path.strip_prefix(".ai/local/state/") else {
        return false;
    };
    name == "ledger-index.json"
        || name.starts_with("ledger-index/")
        || name.starts_with("recall.sqlite")
        || name.starts_with(".ledger-index")
        || name.starts_with(".recall")
}

/// Sets the modification time of every file and folder in `repo`'s tree (not `.git/`) but
/// the derived caches an hour back: the recall index stamps folders as well as files.
fn backdate(repo: &TestRepo) {
    fn walk(dir: &std::path::Path, root: &std::path::Path, when: std::time::SystemTime) {
        for entry in std::fs::read_dir(dir).expect("list directory") {
            let path = entry.expect("directory entry").path();
            let rel = path.strip_prefix(root).expect("under root");
            if rel == std::path::Path::new(".git") || is_derived_cache(&rel.to_string_lossy()) {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, when);
            }
            std::fs::File::open(&path)
                .and_then(|file| file.set_modified(when))
                .unwrap_or_else(|e| panic!("backdate {}: {e}", path.display()));
        }
    }
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3_600);
    walk(repo.root(), repo.root(), an_hour_ago);
}

#[test]
fn every_get_route_leaves_the_whole_tree_as_it_was() {
    let (repo, values) = store_for_every_read();
    // A mesh server, and this checkout linked to it: the mesh reads have one to read.
    let mesh_home = TestRepo::initialised();
    let mesh = crate::mesh::Server::start(&mesh_home, 30);
    let env = mesh.env();
    let env = crate::mesh::env_refs(&env);
    repo.run_env(&["mesh", "link", "--offers", "reviews", "--once"], &env, "")
        .success();
    let served = Served::start_env(&repo, &env);
    let registry = Registry::standard();
    // Every GET of the registry, with a valid value for each field it needs (in the path
    // or required) and for the optional ones that make it read more.
    let mut gets = Vec::new();
    for route in routes(&registry) {
        if route.method != Method::Get {
            continue;
        }
        let operation = registry.get(route.operation).expect("registered");
        let schema = operation.request_schema();
        let required: Vec<String> = schema["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let fields: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let params = route.path_params();
        let mut path = route.path.clone();
        let mut query = Vec::new();
        for field in &fields {
            let needed = required.contains(field) || params.contains(&field.as_str());
            let value = values.get(field.as_str());
            assert!(
                !needed || value.is_some(),
                "{} needs `{field}`: give store_for_every_read a value for it",
                route.path
            );
            let Some(value) = value else { continue };
            if params.contains(&field.as_str()) {
                path = path.replace(&format!("{{{field}}}"), value);
            } else {
                query.push(format!(
                    "{field}={}",
                    form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>()
                ));
            }
        }
        if !query.is_empty() {
            path = format!("{path}?{}", query.join("&"));
        }
        gets.push(path);
    }
    assert!(gets.len() >= 20, "the reads of the registry: {gets:?}");
    let read_all = || {
        for path in &gets {
            let answer = served.get(path);
            assert_eq!(
                answer.status,
                200,
                "GET {path}: {}",
                String::from_utf8_lossy(&answer.body)
            );
        }
    };
    // Every file an hour old first: a GET that writes one gives it a modification time
    // that differs however coarse the file system's clock, and the recall index, which
    // keeps a stamp younger than 2 s as racy and looks at it again at the next read
    // (docs/RECALL.md, "Incremental"), has none to keep (no sleeping for it to settle).
    backdate(&repo);
    // A first pass may build the derived caches (and only those)...
    let pristine = repo.all_files();
    read_all();
    let warmed = repo.all_files();
    let built: Vec<String> = crate::common::changed_files(&pristine, &warmed);
    let written: Vec<&String> = built.iter().filter(|p| !is_derived_cache(p)).collect();
    assert!(
        written.is_empty(),
        "a GET wrote what is not a derived cache: {written:?}"
    );
    // ...one more pass touches nothing but the caches...
    read_all();
    let settled = repo.all_files();
    let written: Vec<String> = crate::common::changed_files(&warmed, &settled)
        .into_iter()
        .filter(|p| !is_derived_cache(p))
        .collect();
    assert!(
        written.is_empty(),
        "a GET wrote what is not a derived cache: {written:?}"
    );
    // ...after which no read changes a byte or a modification time anywhere in the tree.
    let mut tree = settled;
    for path in &gets {
        let answer = served.get(path);
        assert_eq!(answer.status, 200, "GET {path}");
        let now = repo.all_files();
        assert_eq!(
            crate::common::changed_files(&tree, &now),
            Vec::<String>::new(),
            "GET {path} changed the tree (its caches were built by the first pass)"
        );
        tree = now;
    }
}

#[test]
fn an_oversized_body_is_413_with_the_limit() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let text = "x".repeat(70 * 1024);
    let answer = served.post("/api/v1/decisions", &json!({ "text": text }));
    let error = answer.error(413, "http.body-limit");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("65536")),
        "{error}"
    );
    assert!(repo.ledger_events("decision.recorded").is_empty());
}

#[test]
fn openapi_names_every_route_and_validates() {
    let repo = TestRepo::initialised();
    let served = Served::start(&repo);
    let answer = served.get("/api/v1/openapi.json");
    assert_eq!(answer.status, 200);
    let document = answer.json();
    assert_eq!(document["openapi"], "3.1.0");
    for route in routes(&Registry::standard()) {
        let method = route.method.name().to_lowercase();
        let operation = &document["paths"][&route.path][&method];
        assert_eq!(operation["operationId"], route.operation, "{route:?}");
        assert!(operation["responses"]["200"].is_object(), "{route:?}");
        assert!(operation["responses"]["409"].is_object(), "{route:?}");
        if route.method == Method::Post {
            assert!(operation["requestBody"].is_object(), "{route:?}");
            assert_eq!(operation["security"], json!([{"bearer": []}]), "{route:?}");
        }
        for param in route.path_params() {
            let params = operation["parameters"].as_array().expect("parameters");
            assert!(
                params
                    .iter()
                    .any(|p| p["name"] == param && p["in"] == "path"),
                "{route:?}"
            );
        }
    }
    let history = &document["paths"]["/api/v1/history"]["get"]["parameters"];
    assert!(
        history.as_array().is_some_and(|ps| ps
            .iter()
            .any(|p| p["name"] == "event" && p["in"] == "query")),
        "{history}"
    );
    assert_eq!(
        document,
        majordomus::http::openapi::openapi(&Registry::standard()),
        "served as generated"
    );
    validate_openapi(&answer.body);
}

/// Validates with `openapi-spec-validator` (PyPI; `.ci/run` installs it).
fn validate_openapi(document: &[u8]) {
    let script = "import json, sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(sys.stdin))\nprint('valid')\n";
    let probe = std::process::Command::new("python3")
        .args(["-c", "import openapi_spec_validator"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::common::missing_tool(
            "python3 with openapi-spec-validator",
            "pip install openapi-spec-validator",
        );
        return;
    }
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(document)
        .expect("write the document");
    let output = child.wait_with_output().expect("python3 ran");
    assert!(
        output.status.success(),
        "the OpenAPI document is not valid:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_route_table_of_the_docs_is_the_registrys() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/HTTP.md"),
    )
    .expect("docs/HTTP.md");
    let documented: Vec<(String, String, String)> = docs
        .lines()
        .filter(|l| l.starts_with("| `GET` |") || l.starts_with("| `POST` |"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(|c| c.trim().trim_matches('`')).collect();
            (
                cells[1].to_owned(),
                cells[2].to_owned(),
                cells[3].to_owned(),
            )
        })
        .collect();
    let generated: Vec<(String, String, String)> = routes(&Registry::standard())
        .into_iter()
        .map(|r| (r.method.name().to_owned(), r.path, r.operation.to_owned()))
        .collect();
    assert_eq!(documented, generated, "docs/HTTP.md's route table");
}

#[test]
fn the_cockpits_human_acts_and_knowledge_reads_route_to_their_operations() {
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
    let served = Served::start(&repo);
    let candidates = served.get("/api/v1/knowledge/candidates").json();
    assert_eq!(
        candidates["candidates"][0]["id"],
        id.as_str(),
        "{candidates}"
    );
    let shown = served.get(&format!("/api/v1/knowledge/{id}")).json();
    assert_eq!(shown["record"]["status"], "candidate", "{shown}");
    let edges = served
        .get("/api/v1/knowledge/edges?type=derived_from")
        .json();
    assert_eq!(edges["edges"][0]["state"], "external", "{edges}");

    served
        .post(&format!("/api/v1/knowledge/{id}/promote"), &json!({}))
        .error(409, "knowledge.evidence");
    // The files the evidence names are from the repository root, checked as the CLI's.
    served
        .post(
            &format!("/api/v1/knowledge/{id}/promote"),
            &json!({"evidence": "tests/cli/http.rs passes", "files": ["nope.md"]}),
        )
        .error(409, "record.file-exists");
    let promoted = served.post(
        &format!("/api/v1/knowledge/{id}/promote"),
        &json!({"evidence": "tests/cli/http.rs passes", "files": ["README.md"]}),
    );
    assert_eq!(promoted.status, 200, "{:?}", promoted.json());
    assert_eq!(promoted.json()["cited"], json!(["file:README.md"]));
    assert!(!repo.exists(&path));
    assert!(repo.exists(&format!(".ai/repo/knowledge/curated/{id}.md")));
    let shown = served.get(&format!("/api/v1/knowledge/{id}")).json();
    assert_eq!(shown["place"], "curated", "{shown}");
}

#[test]
fn bad_input_is_400_with_a_fix_and_never_an_absolute_path() {
    let repo = TestRepo::initialised();
    let served = Served::start(&repo);
    let base = repo.base().display().to_string();
    for (path, rule) in [
        ("/api/v1/handover/resolve?file=.", "handover.file"),
        ("/api/v1/handover/resolve?file=src", "handover.file"),
        (
            "/api/v1/handover/resolve?file=no%2Fsuch.md",
            "handover.file",
        ),
        ("/api/v1/handover/resolve?file=", "handover.file"),
        ("/api/v1/handover/resolve?file=%2Fetc", "handover.file"),
        ("/api/v1/knowledge/candidates?branch=a..b", "branch.name"),
        ("/api/v1/knowledge/candidates?branch=", "branch.name"),
        ("/api/v1/knowledge/candidates?branch=x%20y", "branch.name"),
    ] {
        let answer = served.get(path);
        let error = answer.error(400, rule);
        assert_eq!(error["class"], "usage", "{path}: {error}");
        let body = String::from_utf8_lossy(&answer.body).into_owned();
        assert!(!body.contains(&base), "{path}: an absolute path: {body}");
    }
}

#[test]
fn get_reasoning_plan_is_the_dry_run_and_writes_nothing() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let before = repo.files();
    let answer =
        served.get("/api/v1/reasoning/plan?materiality=high&capabilities=independent_reasoning");
    assert_eq!(answer.status(), 200, "{}", answer.json());
    let plan = answer.json();
    assert_eq!(plan["dry_run"], true, "{plan}");
    assert!(plan["plan"].is_null(), "a dry run stores no plan: {plan}");
    assert!(plan["decision"]["budget"].is_u64(), "{plan}");
    assert_eq!(repo.files(), before, "a dry run writes nothing");
    // Neither field: the missing one is named.
    let error = served
        .get("/api/v1/reasoning/plan")
        .error(400, "request.valid");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("materiality")),
        "{error}"
    );
    // Planning a recorded assessment is the POST, behind the token.
    served
        .send("POST", "/api/v1/reasoning/plan", &[], b"{}")
        .error(401, "http.token");
    let error = served
        .post("/api/v1/reasoning/plan", &json!({}))
        .error(400, "request.valid");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("assessment")),
        "{error}"
    );
    assert_eq!(repo.files(), before, "nothing was planned");
}

#[test]
fn admin_acts_are_posts_behind_the_token_and_the_document_says_so() {
    let repo = TestRepo::initialised();
    let served = Served::start(&repo);
    let registry = Registry::standard();
    let admin: Vec<_> = registry
        .iter()
        .filter(|op| op.admin && offered(op))
        .collect();
    let names: Vec<&str> = admin.iter().map(|op| op.name).collect();
    assert_eq!(
        names,
        [
            "init",
            "mesh.link",
            "mesh.unlink",
            "rules.vendor-update",
            "journal.enable",
            "journal.disable",
            "journal.publish",
            "journal.restore",
            "journal.prune",
            "hooks.install",
            "hooks.uninstall"
        ]
    );
    let document = served.get("/api/v1/openapi.json").json();
    for op in &admin {
        let route = route(op);
        assert_eq!(route.method, Method::Post, "{}", op.name);
        let described = &document["paths"][&route.path]["post"];
        assert_eq!(
            described["security"],
            json!([{"bearer": []}]),
            "{described}"
        );
        assert_eq!(described["x-majordomus-admin"], true, "{described}");
        assert!(
            described["description"].as_str().is_some_and(
                |d| d.contains("bearer token") && d.contains("never offered to agents")
            ),
            "{described}"
        );
        served.get(&route.path).error(405, "http.method");
        let before = repo.files();
        served
            .send("POST", &route.path, &[], b"{}")
            .error(401, "http.token");
        let wrong = "Bearer 00000000000000000000000000000000";
        served
            .send("POST", &route.path, &[("Authorization", wrong)], b"{}")
            .error(401, "http.token");
        assert_eq!(
            repo.files(),
            before,
            "{}: refused, nothing changed",
            op.name
        );
        assert!(!repo.exists(".git/hooks/post-commit"), "{}", op.name);
    }
    // With the token, they run.
    let installed = served.post("/api/v1/hooks/install", &json!({}));
    assert_eq!(installed.status(), 200, "{}", installed.json());
    assert!(repo.exists(".git/hooks/post-commit"));
    // The human acts are marked too.
    for path in [
        "/api/v1/knowledge/{id}/promote",
        "/api/v1/knowledge/{id}/reject",
    ] {
        let described = &document["paths"][path]["post"];
        assert_eq!(described["x-majordomus-human-act"], true, "{described}");
        assert_eq!(
            described["security"],
            json!([{"bearer": []}]),
            "{described}"
        );
    }
}

/// The schemathesis binary, when it is installed (`.ci/run` installs it; under CI a
/// missing one fails the test).
fn schemathesis() -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .chain(std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".local/bin")))
            .map(|dir| dir.join("schemathesis"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        crate::common::missing_tool("schemathesis", "pip install schemathesis");
    }
    found
}

#[test]
fn schemathesis_finds_no_5xx_no_response_off_the_document_and_no_valid_request_refused() {
    let Some(schemathesis) = schemathesis() else {
        return;
    };
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = Served::start(&repo);
    let work = repo.tmpdir();
    std::fs::create_dir_all(&work).expect("a directory for schemathesis");
    // A `file` or `branch` that names nothing in the repository is a usage error (400)
    // that no schema can tell from a name that is there: those three operations may answer
    // 400 to schema-valid data (docs/HTTP.md). Every other one may not.
    std::fs::write(
        work.join("schemathesis.toml"),
        "[[operations]]\ninclude-operation-id = [\"handover.resolve\", \"knowledge.candidates\", \"knowledge.review\"]\n\
         checks.positive_data_acceptance.expected-statuses = [\"2xx\", 400, 404, 409]\n",
    )
    .expect("write schemathesis.toml");
    let output = std::process::Command::new(schemathesis)
        .current_dir(&work)
        .env("HOME", repo.base().join("home"))
        .env("NO_COLOR", "1")
        .args([
            "run",
            &format!("http://{}/api/v1/openapi.json", served.addr),
            "--header",
            &format!("Authorization: Bearer {}", served.token()),
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,positive_data_acceptance",
            "--mode",
            "positive",
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            "10",
            "--workers",
            "1",
            "--seed",
            "1",
            "--request-timeout",
            "60",
        ])
        .output()
        .expect("run schemathesis");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis found failures:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("Tested:"), "{stdout}");
}
