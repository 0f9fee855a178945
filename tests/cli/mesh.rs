//! Mesh peers (SPEC §7, docs/MESH.md): real runtimes on loopback, linked to a real
//! `majordomus serve`, every catalogue advisor disabled. A linked runtime is an advisor, a
//! plan selects it, its answer (by its command, or through its agent's MCP tools) comes
//! back as a consultation; two peers behind one model are one review; a peer gone leaves
//! the plan to decide locally; forged answers are refused; a server down is
//! `unavailable`, never a hang.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{TestRepo, WAIT};
use crate::mcp::Mcp;

/// The asker's catalogue: one advisor, disabled by [`CATALOGUE_OFF`]: only mesh peers
/// remain.
const CATALOGUE: &str = "advisors:
  - id: alpha
    title: Alpha reviewer
    adapter: fixture
    capabilities: [independent_reasoning, code_review]
";
const CATALOGUE_OFF: &str = "alpha";

/// A repository whose every catalogue advisor is disabled under [`CATALOGUE_OFF`].
fn asker() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.write(".ai/repo/advisors.yaml", CATALOGUE);
    repo
}

/// A running `majordomus serve` (the mesh server).
pub(crate) struct Server {
    child: Child,
    addr: String,
    token: String,
}

impl Server {
    pub(crate) fn start(repo: &TestRepo, window: u64) -> Server {
        let mut child = repo
            .command_in(
                repo.root(),
                &[
                    "serve",
                    "--port",
                    "0",
                    "--heartbeat-window",
                    &window.to_string(),
                ],
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn majordomus serve");
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        let (mut first, mut second) = (String::new(), String::new());
        out.read_line(&mut first).expect("address line");
        out.read_line(&mut second).expect("token line");
        Server {
            child,
            addr: first
                .trim()
                .trim_start_matches("listening on http://")
                .to_owned(),
            token: second.trim().trim_start_matches("token ").to_owned(),
        }
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The environment every runtime of this mesh is given.
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MAJORDOMUS_SERVER_URL", self.url()),
            ("MAJORDOMUS_SERVER_TOKEN", self.token.clone()),
            ("MAJORDOMUS_ADVISORS_DISABLE", CATALOGUE_OFF.to_owned()),
        ]
    }

    /// One raw request: status and JSON body.
    pub(crate) fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream.set_read_timeout(Some(WAIT)).expect("mesh test");
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(t) = token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).expect("mesh test");
        stream.write_all(body.as_bytes()).expect("mesh test");
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let json = text
            .split_once("\r\n\r\n")
            .and_then(|(_, b)| {
                // Content-Length bodies only (axum's JSON answers).
                serde_json::from_str(b).ok()
            })
            .unwrap_or(Value::Null);
        (status, json)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn env_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A runtime linked with `mesh link` running in the foreground; killed on drop.
struct Linked {
    child: Child,
}

impl Drop for Linked {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn link(repo: &TestRepo, server: &Server, extra: &[&str]) -> Linked {
    let mut args = vec!["mesh", "link", "--offers", "reviews"];
    args.extend_from_slice(extra);
    let env = server.env();
    let mut child = repo.spawn_env(&args, &env_refs(&env));
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    out.read_line(&mut line).expect("the link line");
    assert!(line.starts_with("linked runtime "), "{line}");
    // Keep draining stdout so the runtime never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        while out.read_line(&mut sink).is_ok_and(|n| n > 0) {
            sink.clear();
        }
    });
    Linked { child }
}

/// This checkout's runtime id, as `mesh status` says it.
fn runtime_of(repo: &TestRepo, server: &Server) -> String {
    let env = server.env();
    let status = repo.run_env(&["mesh", "status", "--format", "json"], &env_refs(&env), "");
    status.json()["runtime"]
        .as_str()
        .expect("runtime")
        .to_owned()
}

/// A reviewer script (the process adapter's contract): keeps the question it was asked
/// in `asked.txt` beside it and answers with `stance`.
fn reviewer(repo: &TestRepo, stance: &str, delay: u32) -> String {
    let dir = repo.tmpdir();
    let path = dir.join(format!("review-{stance}-{delay}.sh"));
    let asked = dir.join(format!("asked-{stance}.txt"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncat > '{}'\nsleep {delay}\necho '{{\"conclusion\": \"The forge record is authoritative; the reflog is local.\", \"stance\": \"{stance}\", \"assumptions\": [\"clones lag\"], \"falsifiers\": [\"a landing the reflog misses\"], \"confidence\": \"medium\"}}'\n",
            asked.display()
        ),
    )
    .expect("mesh test");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("mesh test");
    }
    path.display().to_string()
}

fn asked(repo: &TestRepo, stance: &str) -> String {
    std::fs::read_to_string(repo.tmpdir().join(format!("asked-{stance}.txt"))).unwrap_or_default()
}

/// Records an assessment needing a code review at `materiality`; returns its id.
fn assess(repo: &TestRepo, env: &[(&'static str, String)], materiality: &str) -> String {
    repo.run_env(&["session", "start"], &env_refs(env), "")
        .success();
    let record = json!({
        "kind": "assessment",
        "subject": "Date landings by the reflog",
        "materiality": materiality,
        "confidence": "medium",
        "hypothesis": "The reflog is enough",
        "facts": ["4 landings in 94 s", "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB seen in CI"],
        "assumptions": ["the reflog sees every landing"],
        "evidence": ["command:git reflog => 4 landings"],
        "capabilities": ["code_review"]
    });
    let written = repo
        .run_env(
            &["reasoning", "record", "--format", "json"],
            &env_refs(env),
            &record.to_string(),
        )
        .success()
        .json();
    written["id"].as_str().expect("id").to_owned()
}

/// The dry run of a material plan's `--format json`.
fn dry_plan(asker: &TestRepo, env: &[(&'static str, String)]) -> Value {
    asker
        .run_env(
            &[
                "reasoning",
                "plan",
                "--materiality",
                "material",
                "--format",
                "json",
            ],
            &env_refs(env),
            "",
        )
        .success()
        .json()
}

/// `reasoning consult` of `assessment` (30 s for every advisor), its JSON.
fn consult(asker: &TestRepo, env: &[(&'static str, String)], assessment: &str) -> Value {
    asker
        .run_env(
            &[
                "reasoning",
                "consult",
                "--assessment",
                assessment,
                "--timeout",
                "30",
                "--format",
                "json",
            ],
            &env_refs(env),
            "",
        )
        .success()
        .json()
}

/// `reasoning consult` of `assessment` (60 s), running, for a test that acts meanwhile.
fn consult_in_background(
    asker: &TestRepo,
    env: &[(&'static str, String)],
    assessment: &str,
) -> Child {
    asker.spawn_env(
        &[
            "reasoning",
            "consult",
            "--assessment",
            assessment,
            "--timeout",
            "60",
            "--format",
            "json",
        ],
        &env_refs(env),
    )
}

/// Polls `done` until it holds; `limit` ([`WAIT`]) only guards against a hang.
fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_linked_runtime_is_an_advisor_a_plan_selects_and_its_answer_is_a_consultation() {
    let asker = asker();
    let peer = TestRepo::initialised();
    let server = Server::start(&asker, 30);
    let env = server.env();
    let script = reviewer(&peer, "opposes", 0);
    let _b = link(
        &peer,
        &server,
        &["--answer-with", &script, "--source", "scripted/model-x"],
    );
    let b = runtime_of(&peer, &server);

    // The advisor: adapter mesh, available, beside the disabled catalogue.
    let advisors = asker
        .run_env(
            &["reasoning", "advisors", "--format", "json"],
            &env_refs(&env),
            "",
        )
        .success()
        .json();
    let entry = advisors["advisors"]
        .as_array()
        .expect("mesh test")
        .iter()
        .find(|a| a["id"] == b.as_str())
        .unwrap_or_else(|| panic!("{b} not among {advisors}"));
    assert_eq!(entry["adapter"], "mesh");
    assert_eq!(entry["availability"]["status"], "available");
    assert_eq!(entry["model"], "scripted/model-x");
    assert_eq!(advisors["mesh"]["peers"], 1);

    // A code-review plan selects it; consult sends the request and records the answer.
    let assessment = assess(&asker, &env, "material");
    let consulted = consult(&asker, &env, &assessment);
    assert_eq!(consulted["plan"]["selected"], json!([b]));
    let c = &consulted["consultations"][0];
    assert_eq!(
        (c["advisor"].as_str(), c["status"].as_str()),
        (Some(b.as_str()), Some("completed"))
    );
    assert_eq!(c["stance"], "opposes");
    assert_eq!(c["source"], "scripted/model-x");
    assert_eq!(
        c["conclusion"],
        "The forge record is authoritative; the reflog is local."
    );
    // The question crossed the server redacted, the hypothesis marked as an opinion.
    let question = asked(&peer, "opposes");
    assert!(
        question.contains("OPINION, not fact — the executor's hypothesis"),
        "{question}"
    );
    assert!(
        question.contains("command:git reflog => 4 landings"),
        "{question}"
    );
    assert!(!question.contains("ghp_0123456789"), "{question}");
    // The same plan again (the clock is pinned): refused before the peer is asked.
    std::fs::remove_file(peer.tmpdir().join("asked-opposes.txt")).expect("the question file");
    asker
        .run_env(
            &[
                "reasoning",
                "consult",
                "--assessment",
                &assessment,
                "--format",
                "json",
            ],
            &env_refs(&env),
            "",
        )
        .json_error(3, "reasoning.consultation-once");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(asked(&peer, "opposes"), "", "the peer was not asked again");
    // Read back in plan order, with its source.
    let status = asker
        .run_env(&["reasoning", "status"], &env_refs(&env), "")
        .success();
    assert!(status.stdout().contains(&b), "{status}");
}

#[test]
fn two_peers_behind_one_model_are_one_review_and_explain_shows_each_source() {
    let asker = asker();
    let (p1, p2) = (TestRepo::initialised(), TestRepo::initialised());
    let server = Server::start(&asker, 30);
    let env = server.env();
    let _one = link(
        &p1,
        &server,
        &[
            "--answer-with",
            &reviewer(&p1, "supports", 0),
            "--source",
            "scripted/model-x",
        ],
    );
    let _two = link(
        &p2,
        &server,
        &[
            "--answer-with",
            &reviewer(&p2, "supports", 0),
            "--source",
            "scripted/model-x",
        ],
    );
    let assessment = assess(&asker, &env, "high");
    let consulted = consult(&asker, &env, &assessment);
    let ids: Vec<String> = consulted["consultations"]
        .as_array()
        .expect("mesh test")
        .iter()
        .inspect(|c| assert_eq!(c["status"], "completed", "{c}"))
        .map(|c| c["id"].as_str().expect("mesh test").to_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{consulted}");
    let conclusion = json!({
        "kind": "conclusion",
        "assessment": assessment,
        "decision": "Date landings by the forge's merge record",
        "rationale": "both reviews agree",
        "evidence": ["command:git reflog => 4 landings"],
        "consultations": ids,
        "validation_plan": "compare a week of landings"
    });
    let written = asker
        .run_env(
            &["reasoning", "record", "--format", "json"],
            &env_refs(&env),
            &conclusion.to_string(),
        )
        .success()
        .json();
    assert_eq!(
        written["reviewed_by"].as_array().expect("mesh test").len(),
        2,
        "{written}"
    );
    assert_eq!(written["independent_review_count"], 1, "{written}");
    let explain = asker
        .run_env(
            &[
                "reasoning",
                "explain",
                written["id"].as_str().expect("mesh test"),
            ],
            &env_refs(&env),
            "",
        )
        .success();
    assert_eq!(
        explain
            .stdout()
            .matches("(source: scripted/model-x)")
            .count(),
        2,
        "{explain}"
    );
    assert!(
        explain
            .stdout()
            .contains("reviewed by 2 advisor(s), 1 independent source(s)"),
        "{explain}"
    );
}

#[test]
fn a_runtime_answers_through_its_agents_mcp_tools_and_the_briefing_says_a_request_waits() {
    let asker = asker();
    let peer = TestRepo::initialised();
    let server = Server::start(&asker, 30);
    let env = server.env();
    let _b = link(&peer, &server, &[]);
    let assessment = assess(&asker, &env, "material");
    let consult = consult_in_background(&asker, &env, &assessment);

    let mut mcp = Mcp::start_env(&peer, &env_refs(&env));
    let mut waiting = Value::Null;
    wait_until("the request to reach the peer", WAIT, || {
        waiting = mcp.call("majordomus_mesh_requests", json!({}));
        waiting["structuredContent"]["requests"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    });
    let request = waiting["structuredContent"]["requests"][0].clone();
    assert!(
        request["question"]
            .as_str()
            .expect("mesh test")
            .contains("Subject: Date landings by the reflog"),
        "{request}"
    );
    // The briefing of the peer's next session says a request waits.
    let briefing = peer.run_env(&["briefing"], &env_refs(&env), "").success();
    assert!(
        briefing
            .stdout()
            .contains("mesh: 1 review request waits for this runtime"),
        "{briefing}"
    );
    let answered = mcp.call(
        "majordomus_mesh_answer",
        json!({
            "request": request["request"],
            "conclusion": "Keep the reflog, but cross-check with the forge weekly.",
            "stance": "supports",
            "falsifiers": ["a landing the reflog misses"],
            "source": "scripted-agent/model-y"
        }),
    );
    assert_eq!(answered["isError"], false, "{answered}");
    let done = crate::common::Run::from_child("reasoning consult", consult);
    let done = done.success().json();
    let c = &done["consultations"][0];
    assert_eq!(c["status"], "completed", "{done}");
    assert_eq!(c["source"], "scripted-agent/model-y");
    assert_eq!(
        c["conclusion"],
        "Keep the reflog, but cross-check with the forge weekly."
    );
}

#[test]
fn a_peer_gone_disappears_and_the_same_plan_decides_locally() {
    let asker = asker();
    let (p1, p2) = (TestRepo::initialised(), TestRepo::initialised());
    let server = Server::start(&asker, 2);
    let env = server.env();
    let plan = || {
        asker
            .run_env(
                &[
                    "reasoning",
                    "plan",
                    "--materiality",
                    "material",
                    "--capabilities",
                    "code_review",
                    "--format",
                    "json",
                ],
                &env_refs(&env),
                "",
            )
            .success()
            .json()["decision"]
            .clone()
    };
    // Its heartbeat stops (killed, never unlinked): gone after the window.
    let b = link(
        &p1,
        &server,
        &["--answer-with", &reviewer(&p1, "supports", 0)],
    );
    let id = runtime_of(&p1, &server);
    // Live once its heartbeat is in. On a loaded machine a heartbeat may come later than
    // the 2-second window (the runtime is gone for a moment, and live again at its next
    // poll): the test waits for it instead of betting on the spawns in between. The
    // window itself is judged where the clock is the test's (`mesh::hub`'s unit tests).
    wait_until("the peer to be live", WAIT, || {
        plan()["selected"] == json!([id])
    });
    drop(b);
    // Killed, it sends no heartbeat: gone once the window passed, and said so (asked
    // until it is, so that no spawn in between can outlast the ten windows after which
    // the server forgets it).
    wait_until("the window to pass", WAIT, || {
        asker
            .run_env(&["reasoning", "advisors"], &env_refs(&env), "")
            .success()
            .stdout()
            .contains("0 live peers offering reviews (1 gone: no heartbeat within the window)")
    });
    let decided = plan();
    assert_eq!(decided["selected"], json!([]), "{decided}");
    assert!(decided["local_review"].is_object(), "{decided}");
    // A consult that asks nobody says why and what to do instead.
    let assessment = assess(&asker, &env, "material");
    let alone = asker
        .run_env(
            &["reasoning", "consult", "--assessment", &assessment],
            &env_refs(&env),
            "",
        )
        .success();
    assert!(
        alone.stdout().contains("record a structured local review"),
        "{alone}"
    );
    assert!(alone.stdout().contains("  not alpha: "), "{alone}");
    let advisors = asker
        .run_env(
            &["reasoning", "advisors", "--format", "json"],
            &env_refs(&env),
            "",
        )
        .success()
        .json();
    assert!(!advisors.to_string().contains(&id), "{advisors}");

    // Unlinked: gone at once.
    p2.run_env(
        &["mesh", "link", "--offers", "reviews", "--once"],
        &env_refs(&env),
        "",
    )
    .success();
    let id2 = runtime_of(&p2, &server);
    assert_eq!(plan()["selected"], json!([id2]));
    let unlinked = p2
        .run_env(&["mesh", "unlink"], &env_refs(&env), "")
        .success();
    assert!(
        unlinked
            .stdout()
            .contains(&format!("unlinked runtime {id2}")),
        "{unlinked}"
    );
    assert_eq!(plan()["selected"], json!([]));
}

fn key_of(repo: &TestRepo) -> String {
    let text = std::fs::read_to_string(repo.root().join(".ai/local/state/mesh/runtime.json"))
        .expect("mesh test");
    serde_json::from_str::<Value>(&text).expect("mesh test")["key"]
        .as_str()
        .expect("mesh test")
        .to_owned()
}

#[test]
fn forged_answers_are_refused_and_every_mesh_route_needs_the_token() {
    let asker = asker();
    let (p1, p2) = (TestRepo::initialised(), TestRepo::initialised());
    let server = Server::start(&asker, 30);
    let env = server.env();
    for p in [&p1, &p2] {
        p.run_env(
            &["mesh", "link", "--offers", "reviews", "--once"],
            &env_refs(&env),
            "",
        )
        .success();
    }
    let (b, c) = (runtime_of(&p1, &server), runtime_of(&p2, &server));
    let (kb, kc) = (key_of(&p1), key_of(&p2));
    let token = Some(server.token.as_str());

    let (status, body) = server.send("GET", "/api/v1/mesh/runtimes", None, None);
    assert_eq!(
        (status, body["error"]["rule"].as_str()),
        (401, Some("http.token"))
    );
    let (status, sent) = server.send(
        "POST",
        "/api/v1/mesh/requests",
        token,
        Some(&json!({"to": b, "question": "Is the reflog enough?", "deadline_ms": 60000})),
    );
    assert_eq!(status, 201, "{sent}");
    let request = sent["request"].as_str().expect("mesh test").to_owned();
    let answer = |runtime: &str, key: &str| json!({"runtime": runtime, "key": key, "answer": {"conclusion": "forged", "stance": "opposes"}});
    let path = format!("/api/v1/mesh/requests/{request}/answer");
    let refused = |status: u16, rule: &str, (got, body): (u16, Value)| {
        assert_eq!(
            (got, body["error"]["rule"].as_str()),
            (status, Some(rule)),
            "{body}"
        );
        assert!(
            body["error"]["fix"].as_str().is_some_and(|f| !f.is_empty()),
            "{body}"
        );
    };
    refused(
        404,
        "mesh.request-unknown",
        server.send(
            "POST",
            "/api/v1/mesh/requests/00000000000000000000000000000000/answer",
            token,
            Some(&answer(&b, &kb)),
        ),
    );
    refused(
        401,
        "http.token",
        server.send("POST", &path, None, Some(&answer(&b, &kb))),
    );
    refused(
        403,
        "mesh.not-addressed",
        server.send("POST", &path, token, Some(&answer(&c, &kc))),
    );
    refused(
        403,
        "mesh.runtime-key",
        server.send("POST", &path, token, Some(&answer(&b, &kc))),
    );
    // The CLI refuses a forged request id before sending it.
    let forged = p1.run_env(
        &[
            "mesh",
            "answer",
            "not-a-request",
            "--conclusion",
            "x",
            "--format",
            "json",
        ],
        &env_refs(&env),
        "",
    );
    forged.json_error(3, "mesh.request-unknown");
    // Nothing forged was taken: the request still waits for b.
    let (_, view) = server.send(
        "GET",
        &format!("/api/v1/mesh/requests/{request}"),
        token,
        None,
    );
    assert_eq!(view["state"], "waiting", "{view}");
    let (status, _) = server.send("POST", &path, token, Some(&answer(&b, &kb)));
    assert_eq!(status, 200);
    refused(
        409,
        "mesh.answered",
        server.send("POST", &path, token, Some(&answer(&b, &kb))),
    );
}

#[test]
fn a_server_that_is_down_is_unavailable_never_a_hang() {
    let asker = asker();
    let peer = TestRepo::initialised();
    // Nothing listens on a port bound and dropped.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("mesh test")
        .local_addr()
        .expect("mesh test")
        .port();
    let down = [
        ("MAJORDOMUS_SERVER_URL", format!("http://127.0.0.1:{port}")),
        (
            "MAJORDOMUS_SERVER_TOKEN",
            "0123456789abcdef0123456789abcdef".to_owned(),
        ),
        ("MAJORDOMUS_ADVISORS_DISABLE", CATALOGUE_OFF.to_owned()),
    ];
    // Nothing listens: the kernel refuses at once (the client's unit test
    // `a_server_that_is_down_is_unreachable_at_once` checks it is a refusal, not a wait);
    // here the time is only a guard against a hang.
    let started = Instant::now();
    let advisors = asker
        .run_env(&["reasoning", "advisors"], &env_refs(&down), "")
        .success();
    assert!(advisors.stdout().contains("no peers listed"), "{advisors}");
    assert!(advisors.stdout().contains("unreachable"), "{advisors}");
    let plan = dry_plan(&asker, &down);
    assert_eq!(plan["decision"]["selected"], json!([]));
    assert!(plan["decision"]["local_review"].is_object());
    asker
        .run_env(
            &[
                "mesh", "link", "--offers", "reviews", "--once", "--format", "json",
            ],
            &env_refs(&down),
            "",
        )
        .json_error(1, "mesh.unreachable");
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());

    // Selected, then the server goes away while the peer thinks: `unavailable`, at once
    // (the consult's own deadline is 60 s, after which it would say `timeout`: the status
    // is what shows it did not wait for it).
    let server = Server::start(&asker, 30);
    let env = server.env();
    let _b = link(
        &peer,
        &server,
        &["--answer-with", &reviewer(&peer, "supports", 5)],
    );
    let assessment = assess(&asker, &env, "material");
    let consult = consult_in_background(&asker, &env, &assessment);
    let asked_file = peer.tmpdir().join("asked-supports.txt");
    wait_until("the question to reach the peer", WAIT, || {
        Path::new(&asked_file).exists()
    });
    drop(server);
    let done = crate::common::Run::from_child("reasoning consult", consult)
        .success()
        .json();
    assert_eq!(done["consultations"][0]["status"], "unavailable", "{done}");
}

#[test]
fn mesh_refusals_name_their_rule() {
    let repo = TestRepo::initialised();
    repo.run(&[
        "mesh", "link", "--offers", "reviews", "--once", "--format", "json",
    ])
    .json_error(3, "mesh.server");
    let env = [("MAJORDOMUS_SERVER_URL", "https://mesh.example:7788")];
    repo.run_env(&["mesh", "status", "--format", "json"], &env, "")
        .json_error(3, "mesh.server");
    let server = Server::start(&repo, 30);
    let env = server.env();
    repo.run_env(
        &["mesh", "link", "--offers", "snacks", "--format", "json"],
        &env_refs(&env),
        "",
    )
    .json_error(2, "mesh.offers");
    repo.run_env(
        &["mesh", "requests", "--format", "json"],
        &env_refs(&env),
        "",
    )
    .json_error(3, "mesh.linked");
    let bad_token = [
        ("MAJORDOMUS_SERVER_URL", server.url()),
        (
            "MAJORDOMUS_SERVER_TOKEN",
            "wrong-token-0123456789".to_owned(),
        ),
    ];
    repo.run_env(
        &[
            "mesh", "link", "--offers", "reviews", "--once", "--format", "json",
        ],
        &env_refs(&bad_token),
        "",
    )
    .json_error(3, "http.token");
    // A team address needs a token file.
    repo.run(&["serve", "--port", "0", "--listen", "127.0.0.1:0"])
        .assert_human_error(2, "--token-file");
    repo.run(&[
        "serve",
        "--port",
        "0",
        "--listen",
        "127.0.0.1:0",
        "--format",
        "json",
    ])
    .json_error(2, "serve.token-file");
}

#[test]
fn a_team_address_serves_the_mesh_routes_only_and_always_asks_the_token() {
    let repo = TestRepo::initialised();
    let token_file = repo.tmpdir().join("mesh-token");
    std::fs::write(&token_file, "team-token-0123456789abcdef\n").expect("mesh test");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("mesh test")
        .local_addr()
        .expect("mesh test")
        .port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = repo
        .command_in(
            repo.root(),
            &[
                "serve",
                "--port",
                "0",
                "--listen",
                &listen,
                "--token-file",
                token_file.to_str().expect("mesh test"),
            ],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mesh test");
    let mut out = BufReader::new(child.stdout.take().expect("mesh test"));
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut l = String::new();
        out.read_line(&mut l).expect("mesh test");
        lines.push(l);
    }
    assert!(
        lines[1].contains(&format!("mesh routes also on http://{listen}/api/v1/mesh/")),
        "{lines:?}"
    );
    assert!(
        !lines.concat().contains("team-token"),
        "the token file's token is never printed: {lines:?}"
    );
    let team = Server {
        child,
        addr: listen.clone(),
        token: "team-token-0123456789abcdef".into(),
    };
    // Any Host name reaches the mesh routes there; every one needs the token.
    let (status, body) = team.send("GET", "/api/v1/mesh/runtimes", Some(&team.token), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(team.send("GET", "/api/v1/mesh/runtimes", None, None).0, 401);
    // The rest of the API and the cockpit stay on 127.0.0.1's own port.
    assert_eq!(
        team.send("GET", "/api/v1/context", Some(&team.token), None)
            .0,
        404
    );
    assert_eq!(team.send("GET", "/cockpit", Some(&team.token), None).0, 404);
    // A runtime links through the team address with the file's token.
    let env = [
        ("MAJORDOMUS_SERVER_URL", format!("http://{listen}")),
        ("MAJORDOMUS_SERVER_TOKEN", team.token.clone()),
    ];
    repo.run_env(
        &["mesh", "link", "--offers", "reviews", "--once"],
        &env_refs(&env),
        "",
    )
    .success();
}

#[test]
fn a_consult_after_the_session_ended_finds_its_assessment() {
    let asker = asker();
    let peer = TestRepo::initialised();
    let server = Server::start(&asker, 30);
    let env = server.env();
    let _b = link(
        &peer,
        &server,
        &["--answer-with", &reviewer(&peer, "supports", 0)],
    );
    let assessment = assess(&asker, &env, "material");
    asker
        .run_env(&["session", "close"], &env_refs(&env), "")
        .success();
    let consulted = consult(&asker, &env, &assessment);
    assert_eq!(
        consulted["consultations"][0]["status"], "completed",
        "{consulted}"
    );
    let folder = consulted["plan"]["task"].as_str().expect("mesh test");
    assert!(folder.starts_with("_episode-"), "{consulted}");
    assert!(
        consulted["plan"]["path"]
            .as_str()
            .expect("mesh test")
            .contains(folder),
        "the plan is beside its assessment: {consulted}"
    );
}

#[test]
fn one_link_per_checkout_and_status_says_when_its_process_is_gone() {
    let repo = TestRepo::initialised();
    let server = Server::start(&repo, 30);
    let env = server.env();
    let first = link(&repo, &server, &[]);
    let second = repo.run_env(
        &["mesh", "link", "--offers", "reviews", "--format", "json"],
        &env_refs(&env),
        "",
    );
    second.json_error(3, "mesh.linked-once");
    repo.run_env(
        &[
            "mesh", "link", "--offers", "reviews", "--once", "--format", "json",
        ],
        &env_refs(&env),
        "",
    )
    .json_error(3, "mesh.linked-once");
    // Killed: no unlink; status says the link's process is gone.
    drop(first);
    let status = repo.run_env(&["mesh", "status"], &env_refs(&env), "");
    assert!(
        status.stdout().contains("is not running: no heartbeat"),
        "{status}"
    );
    // And a new link is accepted.
    repo.run_env(
        &["mesh", "link", "--offers", "reviews", "--once"],
        &env_refs(&env),
        "",
    )
    .success();
}

#[test]
fn a_server_that_accepts_and_never_answers_holds_up_no_plan() {
    let asker = asker();
    // The kernel accepts connections into the backlog; nobody ever answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("mesh test");
    let env = [
        (
            "MAJORDOMUS_SERVER_URL",
            format!("http://{}", silent.local_addr().expect("mesh test")),
        ),
        (
            "MAJORDOMUS_SERVER_TOKEN",
            "0123456789abcdef0123456789abcdef".to_owned(),
        ),
        ("MAJORDOMUS_ADVISORS_DISABLE", CATALOGUE_OFF.to_owned()),
    ];
    // The client's read timeout (2 s) ends the ask: the client's unit test
    // `a_server_that_never_answers_is_unreachable_by_the_read_timeout` checks that the
    // timeout is what ends it; here the time is only a guard against a hang.
    let started = Instant::now();
    let plan = dry_plan(&asker, &env);
    assert!(plan["decision"]["local_review"].is_object(), "{plan}");
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());
    drop(silent);
}

#[test]
fn a_command_that_fails_comes_back_as_its_typed_failure() {
    let asker = asker();
    let peer = TestRepo::initialised();
    let server = Server::start(&asker, 30);
    let env = server.env();
    let _b = link(
        &peer,
        &server,
        &[
            "--answer-with",
            "cat >/dev/null; echo 'model quota exhausted' >&2; exit 1",
        ],
    );
    let assessment = assess(&asker, &env, "material");
    let consulted = consult(&asker, &env, &assessment);
    let c = &consulted["consultations"][0];
    assert_eq!(c["status"], "error", "{consulted}");
    assert_eq!(c["diagnostic"], "model quota exhausted", "{consulted}");
    assert!(c.get("conclusion").is_none(), "{consulted}");
}
