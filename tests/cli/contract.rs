//! One contract on every surface (SPEC §10): every operation of the registry runs on every
//! surface that offers it — the CLI's `--format json`, MCP's `structuredContent`, the
//! HTTP body — and each result validates against the schema the registry publishes
//! (`majordomus schema`), the HTTP body also against its response in the OpenAPI
//! document, an MCP result also against the tool's `outputSchema` where it has one.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::common::TestRepo;
use crate::http::Served;
use crate::mcp::Mcp;
use majordomus::http::routes::{Method, route};
use majordomus::ops::Registry;

/// An intent with one open issue (`plan.start`, `task.start --issue`, `intent.binding`).
const INTENT: &str = "id: contract
status: active
statement: Every surface keeps one contract.
criteria:
  - id: c1
    text: Every result validates against its schema.
    evidence:
      - file:src/lib.rs
issues:
  - id: contract-all
    title: Validate every result
    status: open
    paths: [src/**]
    serves: [c1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings: []
";

/// A fixture advisor, so that consulting has someone to ask (it answers nothing here:
/// no fixture directory, so the consultation fails as the advisor's own failure).
const ADVISORS: &str = "advisors:
  - id: alpha
    title: Alpha reviewer
    adapter: fixture
    capabilities: [independent_reasoning]
";

/// What `schema` says is wrong with `value`, one line per violation (empty: valid).
fn violations(schema: &Value, value: &Value) -> Vec<String> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("not a JSON Schema ({e}): {schema}"));
    validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The schema of one response of the OpenAPI `document`, with the document's components
/// beside it so that its references resolve.
fn openapi_response(document: &Value, method: Method, path: &str) -> Value {
    let schema = &document["paths"][path][method.name().to_lowercase()]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    assert!(
        schema.is_object(),
        "{} {path}: no 200 schema",
        method.name()
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": schema["$ref"],
        "components": document["components"],
    })
}

/// The surfaces one script runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Surface {
    Cli,
    Mcp,
    Http,
}

/// One surface, driving one repository.
struct Driver {
    surface: Surface,
    repo: TestRepo,
    registry: Registry,
    mcp: Option<Mcp>,
    http: Option<Served>,
    openapi: Value,
    output_schemas: BTreeMap<String, Value>,
    /// Operations that answered with a result that validated.
    passed: BTreeSet<&'static str>,
    /// Everything that went wrong, said once at the end.
    problems: Vec<String>,
    /// On the CLI, when asked for: every run with `MAJORDOMUS_TIMING=1`, kept with the
    /// operation it ran, in order (the timing test reads the phases each printed).
    timed: Option<Vec<(&'static str, crate::common::Run)>>,
    /// The mesh server every surface is given (`MAJORDOMUS_SERVER_URL`), in a repository
    /// of its own.
    mesh: crate::mesh::Server,
    _mesh_home: TestRepo,
}

impl Driver {
    fn new(surface: Surface) -> Driver {
        let repo = TestRepo::initialised();
        repo.write(".ai/repo/intents/contract.yaml", INTENT);
        repo.write(".ai/repo/advisors.yaml", ADVISORS);
        repo.write("src/lib.rs", "//! lib\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "An intent, an advisor, a library"]);
        let mesh_home = TestRepo::initialised();
        let mesh = crate::mesh::Server::start(&mesh_home, 60);
        let mut driver = Driver {
            mesh,
            _mesh_home: mesh_home,
            surface,
            registry: Registry::standard(),
            mcp: None,
            http: None,
            openapi: Value::Null,
            output_schemas: BTreeMap::new(),
            passed: BTreeSet::new(),
            problems: Vec::new(),
            timed: None,
            repo,
        };
        match surface {
            Surface::Cli => {}
            Surface::Mcp => {
                let env = driver.mesh.env();
                let mut mcp = Mcp::start_env(&driver.repo, &crate::mesh::env_refs(&env));
                let listed = mcp.request("tools/list", json!({}));
                for tool in listed["result"]["tools"].as_array().expect("tools") {
                    if let Some(schema) = tool.get("outputSchema") {
                        driver.output_schemas.insert(
                            tool["name"].as_str().expect("a name").to_owned(),
                            schema.clone(),
                        );
                    }
                }
                driver.mcp = Some(mcp);
            }
            Surface::Http => {
                let env = driver.mesh.env();
                let served = Served::start_env(&driver.repo, &crate::mesh::env_refs(&env));
                let document = served.get("/api/v1/openapi.json");
                assert_eq!(document.status(), 200);
                driver.openapi = document.json();
                driver.http = Some(served);
            }
        }
        driver
    }

    /// Runs `operation` with `request` (on the CLI: `majordomus --format json <cli>`, with
    /// `stdin`); returns its result when the surface offers the operation and it
    /// succeeded, after validating it.
    fn run(&mut self, name: &str, request: Value, cli: &[&str], stdin: &str) -> Option<Value> {
        let operation = self
            .registry
            .get(name)
            .unwrap_or_else(|| panic!("{name}: not in the registry"));
        let op_name = operation.name;
        let schema = operation.result_schema();
        let (result, extra): (Result<Value, String>, Vec<(String, Value)>) = match self.surface {
            Surface::Cli => {
                let mut args = vec!["--format", "json"];
                args.extend_from_slice(cli);
                let mesh = self.mesh.env();
                let mut env = crate::mesh::env_refs(&mesh);
                if self.timed.is_some() {
                    env.push(("MAJORDOMUS_TIMING", "1"));
                }
                let run = self.repo.run_env(&args, &env, stdin);
                // A report whose verdict is not a pass exits 3, 10 or 11 and still prints
                // its result; an error prints `{"error": ...}`.
                let result = match serde_json::from_str::<Value>(run.stdout()) {
                    Ok(v) if v.get("error").is_none() && [0, 3, 10, 11].contains(&run.code()) => {
                        (Ok(v), Vec::new())
                    }
                    _ => (Err(format!("exit {}: {run}", run.code())), Vec::new()),
                };
                if let Some(timed) = &mut self.timed {
                    timed.push((op_name, run));
                }
                result
            }
            Surface::Mcp => {
                if !majordomus::mcp::exposed(operation) {
                    return None;
                }
                let tool = majordomus::mcp::tool_name(operation);
                let answer = self.mcp.as_mut().expect("a server").call(&tool, request);
                let extra = self
                    .output_schemas
                    .get(&tool)
                    .map(|s| vec![(format!("tool {tool}'s outputSchema"), s.clone())])
                    .unwrap_or_default();
                // A report whose verdict is blocking or refused is `isError` with the
                // whole result; an error is `{"error": ...}`.
                if answer["isError"] == true && answer["structuredContent"].get("error").is_some() {
                    (Err(format!("a tool error: {answer}")), extra)
                } else {
                    (Ok(answer["structuredContent"].clone()), extra)
                }
            }
            Surface::Http => {
                if !majordomus::http::routes::offered(operation) {
                    return None;
                }
                let route = route(operation);
                let served = self.http.as_ref().expect("a server");
                let mut body = request.as_object().cloned().unwrap_or_default();
                let mut path = route.path.clone();
                for param in route.path_params() {
                    let value = body
                        .remove(param)
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_else(|| panic!("{name}: the path needs {param}"));
                    path = path.replace(&format!("{{{param}}}"), &value);
                }
                let answer = match route.method {
                    Method::Get => {
                        let mut query = form_urlencoded::Serializer::new(String::new());
                        for (key, value) in &body {
                            let values = match value {
                                Value::Array(items) => items.clone(),
                                Value::Null => Vec::new(),
                                other => vec![other.clone()],
                            };
                            for v in values {
                                let text = match v {
                                    Value::String(s) => s,
                                    other => other.to_string(),
                                };
                                query.append_pair(key, &text);
                            }
                        }
                        let query = query.finish();
                        if query.is_empty() {
                            served.get(&path)
                        } else {
                            served.get(&format!("{path}?{query}"))
                        }
                    }
                    Method::Post => served.post(&path, &Value::Object(body)),
                };
                let extra = vec![(
                    format!(
                        "the OpenAPI response of {} {}",
                        route.method.name(),
                        route.path
                    ),
                    openapi_response(&self.openapi, route.method, &route.path),
                )];
                if answer.status() == 200 {
                    (Ok(answer.json()), extra)
                } else {
                    (
                        Err(format!("HTTP {}: {}", answer.status(), answer.json())),
                        extra,
                    )
                }
            }
        };
        let value = match result {
            Ok(value) => value,
            Err(problem) => {
                self.problems
                    .push(format!("{:?} {op_name}: {problem}", self.surface));
                return None;
            }
        };
        let mut valid = true;
        for (what, schema) in
            std::iter::once(("its published schema".to_owned(), schema)).chain(extra)
        {
            for v in violations(&schema, &value) {
                valid = false;
                self.problems
                    .push(format!("{:?} {op_name}: against {what}: {v}", self.surface));
            }
        }
        if valid {
            self.passed.insert(op_name);
        }
        Some(value)
    }

    /// Notes each of `keys` (a JSON pointer each) that `value` lacks: fields SPEC §10
    /// says a result always carries.
    fn require(&mut self, name: &str, value: Option<&Value>, keys: &[&str]) {
        let Some(value) = value else { return };
        for key in keys {
            if value.pointer(key).is_none() {
                self.problems
                    .push(format!("{:?} {name}: no {key} in {value}", self.surface));
            }
        }
    }

    /// The operations this surface offers.
    fn offered(&self) -> BTreeSet<&'static str> {
        self.registry
            .iter()
            .filter(|op| match self.surface {
                Surface::Cli => true,
                Surface::Mcp => majordomus::mcp::exposed(op),
                Surface::Http => majordomus::http::routes::offered(op),
            })
            .map(|op| op.name)
            .collect()
    }
}

fn id_in(value: Option<&Value>, key: &str) -> Option<String> {
    value?.get(key)?.as_str().map(str::to_owned)
}

/// Every operation, in an order where each finds what it needs.
fn script(d: &mut Driver) {
    d.run("init", json!({}), &["init"], "");
    d.run("env", json!({}), &["env"], "");
    d.run(
        "rules.vendor-update",
        json!({}),
        &["rules", "vendor", "update"],
        "",
    );
    d.run(
        "session.start",
        json!({"provider": "contract"}),
        &["session", "start", "--provider", "contract"],
        "",
    );
    let context = d.run("session.context", json!({}), &["session", "context"], "");
    d.require("session.context", context.as_ref(), &["/git/elsewhere"]);
    d.run(
        "session.snapshot",
        json!({}),
        &["session", "context", "--path"],
        "",
    );
    let text = "Validate every result against its schema";
    let decided = d.run(
        "decision.record",
        json!({"text": text}),
        &["decision", text],
        "",
    );
    d.require("decision.record", decided.as_ref(), &["/redacted"]);
    let asked = d.run(
        "question.ask",
        json!({"text": "Is the contract whole?"}),
        &["question", "Is the contract whole?"],
        "",
    );
    d.require("question.ask", asked.as_ref(), &["/redacted"]);
    if let Some(id) = id_in(asked.as_ref(), "id") {
        d.run(
            "question.resolve",
            json!({"id": id, "answer": "Yes, on every surface"}),
            &["question", "resolve", &id, "Yes, on every surface"],
            "",
        );
    }
    let checkpoint = d.run(
        "checkpoint.record",
        json!({"text": "Half way through the registry"}),
        &["checkpoint", "Half way through the registry"],
        "",
    );
    d.require("checkpoint.record", checkpoint.as_ref(), &["/redacted"]);
    d.run(
        "intent.binding",
        json!({"issue": "contract-all"}),
        &["intent", "binding", "--issue", "contract-all"],
        "",
    );
    d.run("intent.validate", json!({}), &["intent", "validate"], "");
    d.run(
        "plan.start",
        json!({"issue": "contract-all"}),
        &["plan", "start", "contract-all"],
        "",
    );
    d.run(
        "task.start",
        json!({"description": "Contract work", "issue": "contract-all"}),
        &["task", "start", "Contract work", "--issue", "contract-all"],
        "",
    );
    d.run("task.list", json!({}), &["task", "list"], "");

    d.run(
        "reasoning.advisors",
        json!({}),
        &["reasoning", "advisors"],
        "",
    );
    d.run(
        "reasoning.plan",
        json!({"materiality": "high"}),
        &["reasoning", "plan", "--materiality", "high"],
        "",
    );
    let assessment = json!({
        "kind": "assessment",
        "subject": "Do results match their schemas?",
        "materiality": "material",
        "confidence": "medium",
        "hypothesis": "Some omit a required field",
        "evidence": ["command:cargo test contract => validated"],
    });
    let recorded = d.run(
        "reasoning.record",
        json!({"record": assessment}),
        &["reasoning", "record"],
        &assessment.to_string(),
    );
    if let Some(a) = id_in(recorded.as_ref(), "id") {
        d.run(
            "reasoning.plan-assessment",
            json!({"assessment": a}),
            &["reasoning", "plan", "--assessment", &a],
            "",
        );
        d.run(
            "reasoning.consult",
            json!({"assessment": a, "timeout": 5}),
            &["reasoning", "consult", "--assessment", &a, "--timeout", "5"],
            "",
        );
    }
    let trivial = json!({
        "kind": "assessment",
        "subject": "Is a typo fix worth a review?",
        "materiality": "trivial",
        "confidence": "high",
        "hypothesis": "No",
        "evidence": ["observation:one character"],
    });
    let small = d.run(
        "reasoning.record",
        json!({"record": trivial}),
        &["reasoning", "record"],
        &trivial.to_string(),
    );
    if let Some(a) = id_in(small.as_ref(), "id") {
        let conclusion = json!({
            "kind": "conclusion",
            "assessment": a,
            "decision": "Fix the typo",
            "rationale": "trivial",
            "evidence": ["observation:one character"],
            "validation_plan": "read it again",
        });
        let concluded = d.run(
            "reasoning.record",
            json!({"record": conclusion}),
            &["reasoning", "record"],
            &conclusion.to_string(),
        );
        if let Some(c) = id_in(concluded.as_ref(), "id") {
            d.run(
                "reasoning.explain",
                json!({"conclusion": c}),
                &["reasoning", "explain", &c],
                "",
            );
        }
    }
    d.run("reasoning.status", json!({}), &["reasoning", "status"], "");
    d.run("reasoning.check", json!({}), &["reasoning", "check"], "");
    d.run("task.finish", json!({}), &["task", "finish"], "");

    d.run("knowledge.derive", json!({}), &["knowledge", "derive"], "");
    let listed = d.run(
        "knowledge.candidates",
        json!({}),
        &["knowledge", "candidates"],
        "",
    );
    let candidates: Vec<String> = listed
        .as_ref()
        .and_then(|l| l["candidates"].as_array())
        .map(|c| {
            c.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let Some(first) = candidates.first() {
        d.run(
            "knowledge.show",
            json!({"id": first}),
            &["knowledge", "show", first],
            "",
        );
    }
    d.run("knowledge.edges", json!({}), &["knowledge", "edges"], "");
    d.run("knowledge.status", json!({}), &["knowledge", "status"], "");
    d.run("knowledge.check", json!({}), &["knowledge", "check"], "");
    if d.surface != Surface::Mcp {
        if let Some(first) = candidates.first() {
            let promoted = d.run(
                "knowledge.promote",
                json!({"id": first, "evidence": "tests/cli/contract.rs validates it"}),
                &["knowledge", "promote", first],
                "tests/cli/contract.rs validates it",
            );
            d.require(
                "knowledge.promote",
                promoted.as_ref(),
                &["/rewritten", "/warnings", "/redacted"],
            );
            d.run(
                "knowledge.reverify",
                json!({"id": first, "evidence": "tests/cli/contract.rs still validates it"}),
                &["knowledge", "reverify", first],
                "tests/cli/contract.rs still validates it",
            );
        }
        if let Some(second) = candidates.get(1) {
            d.run(
                "knowledge.reject",
                json!({"id": second, "reason": "only a test"}),
                &["knowledge", "reject", second, "--reason", "only a test"],
                "",
            );
        }
        // Two candidates written by hand, reviewed in one act and one commit.
        let batch = [
            "20261130T101500Z-c0ffee-00000000000a",
            "20261130T101500Z-c0ffee-00000000000b",
        ];
        for (n, id) in batch.iter().enumerate() {
            d.repo.write(
                &format!(".ai/repo/knowledge/candidates/{id}.md"),
                &format!(
                    "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: Batch claim {n}\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n  derived_from:\n  - file:src/lib.rs\n---\nUnit u{n}x keeps k{n}y inside v{n}z.\n"
                ),
            );
        }
        let reviewed = d.run(
            "knowledge.review",
            json!({"act": "reject", "ids": batch, "reason": "only a test", "commit": true}),
            &[
                "knowledge",
                "reject",
                batch[0],
                batch[1],
                "--reason",
                "only a test",
                "--commit",
            ],
            "",
        );
        d.require(
            "knowledge.review",
            reviewed.as_ref(),
            &["/promoted", "/rejected", "/message", "/commit/id"],
        );
        // Two verified records written by hand: one superseded by the promoted record, one
        // retired; the listing they are selected from.
        let ended = [
            "20261130T101500Z-c0ffee-00000000000c",
            "20261130T101500Z-c0ffee-00000000000d",
        ];
        for (n, id) in ended.iter().enumerate() {
            d.repo.write(
                &format!(".ai/repo/knowledge/curated/{id}.md"),
                &format!(
                    "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: verified\nstance: observed\ntitle: Verified claim {n}\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n  derived_from:\n  - file:src/lib.rs\n---\nUnit w{n}x keeps z{n}y.\n"
                ),
            );
        }
        d.run(
            "knowledge.verified",
            json!({}),
            &["knowledge", "verified"],
            "",
        );
        if let Some(first) = candidates.first() {
            let superseded = d.run(
                "knowledge.supersede",
                json!({"ids": [ended[0]], "by": first, "reason": "only a test"}),
                &["knowledge", "supersede", ended[0], "--by", first],
                "only a test",
            );
            d.require(
                "knowledge.supersede",
                superseded.as_ref(),
                &["/records", "/by", "/decided_by", "/at", "/message"],
            );
        }
        d.run(
            "knowledge.retire",
            json!({"ids": [ended[1]], "reason": "only a test"}),
            &["knowledge", "retire", ended[1], "--reason", "only a test"],
            "",
        );
    }
    let recalled = d.run(
        "recall",
        json!({"query": "schema"}),
        &["recall", "schema"],
        "",
    );
    let reference = recalled
        .as_ref()
        .and_then(|r| r["hits"].as_array())
        .and_then(|h| h.first())
        .and_then(|h| Some(format!("{}:{}", h["kind"].as_str()?, h["id"].as_str()?)));
    if let Some(reference) = reference {
        d.run(
            "recall.show",
            json!({"reference": reference}),
            &["show", &reference],
            "",
        );
    }
    d.run("recall.shown", json!({}), &["recall", "--shown"], "");
    d.run("history", json!({}), &["history"], "");
    d.run("worktrees", json!({}), &["worktrees"], "");
    // The journal (SPEC §12): its remote, then every act of it.
    d.repo.add_origin();
    d.run("journal.status", json!({}), &["journal", "status"], "");
    d.run(
        "journal.enable",
        json!({"include_history": true}),
        &["journal", "enable", "--include-history"],
        "",
    );
    d.run("journal.publish", json!({}), &["journal", "publish"], "");
    d.run("journal.prune", json!({}), &["journal", "prune"], "");
    d.run(
        "journal.restore",
        json!({"force": true}),
        &["journal", "restore", "--force"],
        "",
    );
    d.run("journal.disable", json!({}), &["journal", "disable"], "");
    // The mesh: this checkout linked (on the CLI, whatever the surface), a request sent
    // to it through the server, and every act of it.
    let mesh = d.mesh.env();
    let env = crate::mesh::env_refs(&mesh);
    d.repo
        .run_env(&["mesh", "link", "--offers", "reviews", "--once"], &env, "")
        .success();
    d.run("mesh.status", json!({}), &["mesh", "status"], "");
    d.run(
        "mesh.link",
        json!({"offers": ["reviews"]}),
        &["mesh", "link", "--offers", "reviews", "--once"],
        "",
    );
    let runtime = d
        .repo
        .run_env(&["mesh", "status", "--format", "json"], &env, "")
        .json()["runtime"]
        .as_str()
        .expect("a runtime id")
        .to_owned();
    let (_, sent) = d.mesh.send(
        "POST",
        "/api/v1/mesh/requests",
        Some(d.mesh.token()),
        Some(&json!({"to": runtime, "question": "Is one contract enough?", "deadline_ms": 60000})),
    );
    let request = sent["request"].as_str().expect("a request id").to_owned();
    d.run("mesh.requests", json!({}), &["mesh", "requests"], "");
    d.run(
        "mesh.answer",
        json!({"request": request, "conclusion": "One is enough.", "stance": "supports"}),
        &[
            "mesh",
            "answer",
            &request,
            "--conclusion",
            "One is enough.",
            "--stance",
            "supports",
        ],
        "",
    );
    d.run("mesh.unlink", json!({}), &["mesh", "unlink"], "");
    d.run("briefing", json!({}), &["briefing"], "");
    d.run("context", json!({}), &["context"], "");
    d.run("doctor", json!({}), &["doctor"], "");
    d.run("hooks.install", json!({}), &["hooks", "install"], "");
    d.run(
        "hooks.acknowledge",
        json!({}),
        &["hooks", "acknowledge"],
        "",
    );
    d.run("hooks.uninstall", json!({}), &["hooks", "uninstall"], "");
    d.run("session.list", json!({}), &["session", "list"], "");
    d.run("handover.derive", json!({}), &["handover", "--derive"], "");
    let episode = d.repo.episode_id();
    d.run(
        "session.close",
        json!({"summary": "Validated every result"}),
        &["session", "close"],
        "",
    );
    d.run(
        "session.recompose",
        json!({"episode": episode}),
        &["session", "recompose", &episode],
        "",
    );
    d.run(
        "handover.resolve",
        json!({}),
        &["handover", "--resolve"],
        "",
    );

    // The entry points (the CLI is their only surface).
    d.run(
        "setup",
        json!({"client": "cursor", "dry_run": true}),
        &["setup", "cursor", "--dry-run"],
        "",
    );
    d.run(
        "hook.session-start",
        json!({"provider": "contract", "payload": "{}"}),
        &["hook", "session-start", "--provider", "contract"],
        "{}",
    );
    d.repo
        .commit("src/lib.rs", "//! lib, again\n", "Touch the library");
    d.run("hook.post-commit", json!({}), &["hook", "post-commit"], "");
    d.run(
        "hook.post-rewrite",
        json!({"by": "amend", "stdin": ""}),
        &["hook", "post-rewrite", "amend"],
        "",
    );
    d.run("hook.pre-push", json!({}), &["hook", "pre-push"], "");
    d.run(
        "hook.compact",
        json!({"provider": "contract", "payload": "{}"}),
        &["hook", "compact", "--provider", "contract"],
        "{}",
    );
    d.run(
        "hook.prompt",
        json!({"provider": "contract", "payload": "{\"prompt\":\"why is the schema strict?\"}"}),
        &["hook", "prompt", "--provider", "contract"],
        "{\"prompt\":\"why is the schema strict?\"}",
    );
    d.run(
        "hook.edit",
        json!({"provider": "contract", "payload": "{\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"src/lib.rs\"}}"}),
        &["hook", "edit", "--provider", "contract"],
        "{\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"src/lib.rs\"}}",
    );
    d.run(
        "hook.session-end",
        json!({"provider": "contract", "payload": "{}"}),
        &["hook", "session-end", "--provider", "contract"],
        "{}",
    );
}

/// The script on the CLI with `MAJORDOMUS_TIMING=1`: each operation's run, in order, and
/// the problems the script met (none: every run was a valid request whose result
/// validated), with the operations that gave no validated result.
pub(crate) fn timed_cli_runs() -> (Vec<(&'static str, crate::common::Run)>, Vec<String>) {
    let mut driver = Driver::new(Surface::Cli);
    driver.timed = Some(Vec::new());
    script(&mut driver);
    let missing: Vec<&str> = driver
        .offered()
        .difference(&driver.passed)
        .copied()
        .collect();
    let mut problems = std::mem::take(&mut driver.problems);
    if !missing.is_empty() {
        problems.push(format!("no validated result of {}", missing.join(", ")));
    }
    (driver.timed.take().unwrap_or_default(), problems)
}

fn run_surface(surface: Surface) {
    let mut driver = Driver::new(surface);
    script(&mut driver);
    let offered = driver.offered();
    let missing: Vec<&str> = offered.difference(&driver.passed).copied().collect();
    let mut problems = std::mem::take(&mut driver.problems);
    if !missing.is_empty() {
        problems.push(format!(
            "{surface:?}: no validated result of {}",
            missing.join(", ")
        ));
    }
    if let Some(mcp) = driver.mcp.take() {
        mcp.close();
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_cli_result_validates_against_its_schema() {
    run_surface(Surface::Cli);
}

#[test]
fn every_mcp_result_validates_against_its_schema() {
    run_surface(Surface::Mcp);
}

#[test]
fn every_http_body_validates_against_its_schema_and_the_openapi_document() {
    run_surface(Surface::Http);
}

#[test]
fn a_result_that_breaks_its_schema_is_a_violation() {
    let registry = Registry::standard();
    let schema = registry
        .get("decision.record")
        .expect("decision.record")
        .result_schema();
    for bad in [
        json!({"event": "decision.recorded", "session": null, "task": null}),
        // `redacted` is always there (SPEC §10).
        json!({"event": "decision.recorded", "seq": 3, "session": null, "task": null}),
        json!({"event": "decision.recorded", "seq": "three", "session": null, "task": null}),
        json!({"event": "decision.recorded", "seq": 3, "session": null, "task": null, "redacted": "aws"}),
    ] {
        assert!(
            !violations(&schema, &bad).is_empty(),
            "{bad} passes decision.record's result schema {schema}"
        );
    }
    assert!(
        violations(
            &schema,
            &json!({"event": "decision.recorded", "seq": 3, "session": null, "task": null, "redacted": []})
        )
        .is_empty(),
        "a well-formed result: {schema}"
    );
    // And through the OpenAPI document, whose references must resolve.
    let document = majordomus::http::openapi::openapi(&registry);
    let edges = openapi_response(&document, Method::Get, "/api/v1/knowledge/edges");
    assert!(!violations(&edges, &json!({"records": "none"})).is_empty());
}

#[test]
fn bad_input_on_the_cli_is_exit_2_with_a_fix_that_works_as_printed() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let base = repo.base().display().to_string();
    let run = repo.run(&["--format", "json", "handover", "--resolve", "."]);
    let error = run.json_error(2, "handover.file");
    assert_eq!(error["class"], "usage", "{run}");
    assert!(!run.stdout().contains(&base), "an absolute path: {run}");
    // No handover yet: derive one, as the fix says; then resolving works.
    let fix = error["fix"].as_str().expect("a fix").to_owned();
    assert_eq!(fix, "majordomus handover --derive");
    repo.run_printed(&fix);
    let run = repo.run(&["--format", "json", "handover", "--resolve", "src/none.md"]);
    let error = run.json_error(2, "handover.file");
    let fix = error["fix"].as_str().expect("a fix").to_owned();
    assert_eq!(fix, "ls .ai/local/state/handovers/");
    assert!(
        repo.run_printed(&fix).contains(".md"),
        "it lists the handover"
    );
    repo.write("notes.md", "not a handover\n");
    repo.run(&["--format", "json", "handover", "--resolve", "notes.md"])
        .json_error(2, "handover.file");

    let run = repo.run(&[
        "--format",
        "json",
        "knowledge",
        "candidates",
        "--branch",
        "a..b",
    ]);
    let error = run.json_error(2, "branch.name");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("a..b")),
        "{run}"
    );
    repo.run_printed(error["fix"].as_str().expect("a fix"));
}
