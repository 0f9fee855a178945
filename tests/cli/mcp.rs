//! `majordomus mcp` over real stdio: the handshake, the generated tool list (exactly the
//! operations that are neither human acts nor entry points, under 16 KB), a call of each
//! family, refusals and usage errors as tool errors, resources, a write racing the CLI,
//! stdout carrying protocol lines only, and a clean exit when stdin closes.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestRepo;
use majordomus::ops::Registry;

/// A reply that takes longer than this is a hang.
const REPLY: Duration = Duration::from_secs(60);

/// A running `majordomus mcp` and the JSON-RPC lines it printed.
pub(crate) struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Receiver<String>,
    seen: Vec<Value>,
    next_id: u64,
    /// The `initialize` reply's result.
    pub(crate) initialized: Value,
}

impl Mcp {
    /// Spawns the server in `repo` with `--structured-content` (the tests read results
    /// as JSON) and performs the handshake.
    pub(crate) fn start(repo: &TestRepo) -> Mcp {
        Mcp::start_env(repo, &[])
    }

    /// [`Mcp::start`] with `env` set for the server.
    pub(crate) fn start_env(repo: &TestRepo, env: &[(&str, &str)]) -> Mcp {
        Mcp::spawn(repo, &["mcp", "--structured-content"], env)
    }

    /// The server as `setup` registers it (`majordomus mcp`): results as their text, the
    /// JSON only where smaller or the verdict failed.
    pub(crate) fn start_as_wired(repo: &TestRepo) -> Mcp {
        Mcp::spawn(repo, &["mcp"], &[])
    }

    fn spawn(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut child = repo
            .command_in(repo.root(), args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn majordomus mcp");
        let (tx, lines) = channel();
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (etx, stderr) = channel();
        let err = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = etx.send(line);
            }
        });
        let mut mcp = Mcp {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            seen: Vec::new(),
            next_id: 1,
            initialized: Value::Null,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "majordomus-tests", "version": "1"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "majordomus", "{init}");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        assert!(
            init["result"]["capabilities"]["resources"].is_object(),
            "{init}"
        );
        mcp.initialized = init["result"].clone();
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    /// Writes `line` as it is (any bytes), then a newline.
    pub(crate) fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).expect("write to the server");
        stdin.write_all(b"\n").expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub(crate) fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// Sends a request and waits for the reply with its id: the whole reply line.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.reply(id)
    }

    fn reply(&mut self, id: u64) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(REPLY)
                .unwrap_or_else(|e| panic!("no reply to request {id}: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "not a JSON-RPC line: {line}");
            self.seen.push(message.clone());
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The next line the server prints, as JSON (an answer with no id to wait for).
    pub(crate) fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(REPLY)
            .unwrap_or_else(|e| panic!("no answer: {e}"));
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.300}"));
        assert_eq!(
            message["jsonrpc"], "2.0",
            "not a JSON-RPC line: {line:.300}"
        );
        message
    }

    /// `tools/call`: the result object.
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            reply.get("error").is_none(),
            "{tool}: a protocol error: {reply}"
        );
        reply["result"].clone()
    }

    /// Closes stdin; the server must exit 0 with nothing more on stdout than protocol.
    pub(crate) fn close(mut self) -> Vec<String> {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + REPLY;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not exit when stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
        }
        assert_eq!(status.code(), Some(0), "exit status of majordomus mcp");
        self.stderr.try_iter().collect()
    }
}

impl Mcp {
    /// Sends a request and waits for its reply; returns what the server sent before the
    /// reply (e.g. the answer to a line sent just before) and the reply.
    pub(crate) fn request_after(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut before = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(REPLY)
                .unwrap_or_else(|e| panic!("no reply to request {id}: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.300}"));
            assert_eq!(
                message["jsonrpc"], "2.0",
                "not a JSON-RPC line: {line:.300}"
            );
            self.seen.push(message.clone());
            if message["id"] == id {
                return (before, message);
            }
            before.push(message);
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The text content of a tool result.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn tools_list_is_every_operation_but_human_acts_admin_acts_and_entry_points_under_16_kb() {
    let repo = TestRepo::initialised();
    let mut mcp = Mcp::start(&repo);
    mcp.send(&json!({"jsonrpc": "2.0", "id": 900, "method": "tools/list"}));
    let line = mcp.lines.recv_timeout(REPLY).expect("tools/list reply");
    assert!(
        line.len() < 16 * 1024,
        "tools/list is {} bytes; agents pay for every byte",
        line.len()
    );
    let reply: Value = serde_json::from_str(&line).expect("JSON");
    let tools = reply["result"]["tools"].as_array().expect("tools").clone();
    let names: BTreeSet<String> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect();

    let registry = Registry::standard();
    let expected: BTreeSet<String> = registry
        .iter()
        .filter(|op| op.offered_to_agents())
        .map(majordomus::mcp::tool_name)
        .collect();
    assert_eq!(names, expected);
    assert_eq!(names.len(), tools.len(), "a tool is listed twice");
    for spec_name in [
        "majordomus_context",
        "majordomus_session_context",
        "majordomus_briefing",
        "majordomus_history",
        "majordomus_decision_record",
        "majordomus_question_ask",
        "majordomus_question_resolve",
        "majordomus_checkpoint_record",
        "majordomus_task_start",
        "majordomus_task_finish",
        "majordomus_knowledge_candidates",
        "majordomus_knowledge_status",
        "majordomus_knowledge_check",
        "majordomus_intent_binding",
        "majordomus_doctor",
        "majordomus_reasoning_advisors",
        "majordomus_reasoning_plan",
        "majordomus_reasoning_record",
        "majordomus_reasoning",
        "majordomus_reasoning_explain",
        "majordomus_reasoning_check",
        "majordomus_recall",
    ] {
        assert!(names.contains(spec_name), "SPEC §9 names {spec_name}");
    }
    // Human acts, and the acts that change the repository's wiring: an agent must not be
    // able to remove the push gate (SPEC §9).
    for hidden in [
        "majordomus_knowledge_promote",
        "majordomus_knowledge_reject",
        "majordomus_knowledge_supersede",
        "majordomus_knowledge_retire",
        "majordomus_knowledge_review",
        "majordomus_knowledge_reverify",
        "majordomus_knowledge_verified",
        "majordomus_init",
        "majordomus_hooks_install",
        "majordomus_hooks_uninstall",
        "majordomus_rules_vendor_update",
        "majordomus_setup",
        "majordomus_hook_session_start",
        "majordomus_hook_post_commit",
    ] {
        assert!(!names.contains(hidden), "{hidden} is offered to agents");
    }
    for tool in &tools {
        let name = tool["name"].as_str().expect("name");
        let op = registry
            .iter()
            .find(|op| majordomus::mcp::tool_name(op) == name)
            .expect("an operation");
        assert_eq!(tool["description"], op.summary, "{name}");
        assert!(
            op.summary.ends_with('.') && op.summary.matches(". ").count() == 0,
            "{name}: one sentence"
        );
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}");
        assert!(schema.get("$schema").is_none(), "{name}");
        // Each hint is said where it differs from MCP's default, and means what the
        // registry says.
        let a = &tool["annotations"];
        let hint = |key: &str, default: bool| a.get(key).map_or(default, |v| v == true);
        assert_eq!(hint("readOnlyHint", false), !op.writes, "{name}: {a}");
        assert_eq!(hint("openWorldHint", true), op.open_world, "{name}: {a}");
        if op.writes {
            assert_eq!(hint("destructiveHint", true), op.destructive, "{name}: {a}");
            assert_eq!(hint("idempotentHint", false), op.idempotent, "{name}: {a}");
        }
        for (key, default) in [
            ("readOnlyHint", false),
            ("openWorldHint", true),
            ("destructiveHint", true),
            ("idempotentHint", false),
        ] {
            assert_ne!(
                a.get(key),
                Some(&json!(default)),
                "{name}: {key} says the default"
            );
        }
        // An outputSchema exactly where MCP.md says, and it holds the real result.
        let published = majordomus::mcp::OUTPUT_SCHEMAS.contains(&op.name);
        assert_eq!(tool.get("outputSchema").is_some(), published, "{name}");
        if published {
            assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        }
    }
    // `record` is typed object, so a client builds an object (SPEC §9).
    let record = tools
        .iter()
        .find(|t| t["name"] == "majordomus_reasoning_record")
        .expect("majordomus_reasoning_record");
    assert_eq!(
        record["inputSchema"]["properties"]["record"]["type"], "object",
        "{record}"
    );
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/MCP.md"),
    )
    .expect("docs/MCP.md");
    for op in majordomus::mcp::OUTPUT_SCHEMAS {
        let tool = format!("`majordomus_{}`", op.replace('.', "_"));
        assert!(
            docs.lines()
                .any(|l| l.starts_with("- outputSchema: ") && l.contains(&tool)),
            "docs/MCP.md's outputSchema line names {tool}"
        );
    }
    let written = mcp.call("majordomus_question_ask", json!({"text": "typed answers?"}));
    assert_eq!(written["isError"], false, "{written}");
    for key in ["event", "seq", "session", "task"] {
        assert!(
            written["structuredContent"].get(key).is_some(),
            "{key} is always in the result: {written}"
        );
    }
    mcp.close();
}

#[test]
fn a_check_with_blocking_findings_is_a_tool_error_carrying_the_findings() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    repo.write(
        &format!(".ai/repo/knowledge/candidates/{id}.md"),
        &crate::common::knowledge_record(
            &id,
            "candidate",
            &[
                &format!("session:{episode}"),
                "commit:0123456789abcdef0123456789abcdef01234567",
            ],
            "",
            "Claim.",
        ),
    );
    // As setup wires it: a failed verdict carries its findings as structure too.
    let mut mcp = Mcp::start_as_wired(&repo);
    let checked = mcp.call("majordomus_knowledge_check", json!({}));
    assert_eq!(checked["isError"], true, "{checked}");
    let findings = checked["structuredContent"]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("the findings in structuredContent: {checked}"));
    assert_eq!(findings[0]["rule"], "knowledge.commit-missing", "{checked}");
    assert_eq!(findings[0]["severity"], "blocking", "{checked}");
    // With nothing blocking, the same tool is a plain success.
    std::fs::remove_file(repo.path(&format!(".ai/repo/knowledge/candidates/{id}.md")))
        .expect("remove the record");
    let clean = mcp.call("majordomus_knowledge_check", json!({}));
    assert_eq!(clean["isError"], false, "{clean}");
    assert_eq!(clean["structuredContent"]["findings"], json!([]), "{clean}");
    mcp.close();
}

#[test]
fn as_setup_wires_it_a_result_is_its_text_and_its_json_only_where_smaller_or_failed() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&[
        "decision",
        "Parsing stays strict: input the parser cannot place is rejected",
    ])
    .success();
    let mut mcp = Mcp::start_as_wired(&repo);

    // The instructions: the sentence that matters first, under 300 bytes.
    let instructions = mcp.initialized["instructions"]
        .as_str()
        .unwrap_or_else(|| panic!("instructions: {}", mcp.initialized));
    assert!(
        instructions.len() < 300,
        "{} bytes: {instructions}",
        instructions.len()
    );
    assert!(
        instructions
            .starts_with("Before you decide something or change an area, call majordomus_recall"),
        "{instructions}"
    );

    // A recall: the text the CLI prints, no JSON beside it (the JSON is the longer).
    let recalled = mcp.call("majordomus_recall", json!({"query": "parsing strict"}));
    assert_eq!(recalled["isError"], false, "{recalled}");
    assert!(recalled.get("structuredContent").is_none(), "{recalled}");
    let cli = repo
        .run(&["recall", "parsing strict"])
        .success()
        .stdout()
        .to_owned();
    assert_eq!(text(&recalled).trim_end(), cli.trim_end(), "{recalled}");
    let json = repo
        .run(&["--format", "json", "recall", "parsing strict"])
        .success()
        .json();
    assert!(json.to_string().len() > text(&recalled).len(), "{json}");

    // Where the JSON is the smaller, it travels too.
    let checked = mcp.call("majordomus_knowledge_check", json!({}));
    let structured = &checked["structuredContent"];
    assert_eq!(structured["findings"], json!([]), "{checked}");
    assert!(
        structured.to_string().len() < text(&checked).len(),
        "{checked}"
    );

    // A refusal: the rule and the fix in the text, nothing else.
    let refused = mcp.call(
        "majordomus_question_resolve",
        json!({"id": "q-0000000000", "answer": "x"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.get("structuredContent").is_none(), "{refused}");
    assert!(text(&refused).contains("\nfix: "), "{refused}");
    mcp.close();
}

#[test]
fn every_line_that_is_not_a_message_gets_a_json_rpc_error_and_the_server_goes_on() {
    let repo = TestRepo::initialised();
    let mut mcp = Mcp::start(&repo);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut oversized =
        b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\", \"params\": {\"x\": \"".to_vec();
    oversized.resize(17 * 1024 * 1024, b'a');
    oversized.extend_from_slice(b"\"}}");
    let cases: Vec<(&str, Vec<u8>, i64)> = vec![
        ("not JSON", b"not json at all".to_vec(), -32700),
        ("cut short", b"{\"jsonrpc\": \"2.0\", \"id\": 1".to_vec(), -32700),
        ("not UTF-8", b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"p\xffing\"}".to_vec(), -32700),
        (
            "a lone surrogate",
            br#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "majordomus_decision_record", "arguments": {"text": "\ud800"}}}"#.to_vec(),
            -32700,
        ),
        ("deep nesting", deep.into_bytes(), -32600),
        ("over 16 MiB", oversized, -32600),
        ("a batch", b"[]".to_vec(), -32600),
        ("a number", b"42".to_vec(), -32600),
        ("not JSON-RPC 2.0", b"{\"jsonrpc\": \"1.0\", \"id\": 4, \"method\": \"ping\"}".to_vec(), -32600),
        ("a method that is no string", b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": 7}".to_vec(), -32600),
    ];
    for (what, line, code) in &cases {
        mcp.send_raw(line);
        let answer = mcp.next_message();
        assert_eq!(answer["error"]["code"], *code, "{what}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}: {answer}"
        );
        // Answered, and still serving.
        let pong = mcp.request("ping", json!({}));
        assert!(pong["result"].is_object(), "{what}: then {pong}");
    }
    // Arguments that are not an object: invalid params, with the request's id.
    for arguments in [json!("{\"text\": \"x\"}"), json!(["x"]), json!(5)] {
        let reply = mcp.request(
            "tools/call",
            json!({"name": "majordomus_decision_record", "arguments": arguments}),
        );
        assert_eq!(reply["error"]["code"], -32602, "{arguments}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("arguments must be an object")),
            "{reply}"
        );
    }
    assert!(repo.ledger_events_if_any("decision.recorded").is_empty());
    let written = mcp.call("majordomus_decision_record", json!({"text": "still here"}));
    assert_eq!(written["isError"], false, "{written}");
    mcp.close();
}

#[test]
fn bad_input_is_a_usage_tool_error_with_a_fix_and_no_absolute_path() {
    let repo = TestRepo::initialised();
    let mut mcp = Mcp::start(&repo);
    let root = repo.root().display().to_string();
    for (tool, arguments, rule) in [
        (
            "majordomus_handover_resolve",
            json!({"file": "."}),
            "handover.file",
        ),
        (
            "majordomus_handover_resolve",
            json!({"file": "src/none.md"}),
            "handover.file",
        ),
        (
            "majordomus_knowledge_candidates",
            json!({"branch": "a..b"}),
            "branch.name",
        ),
    ] {
        let answer = mcp.call(tool, arguments.clone());
        assert_eq!(answer["isError"], true, "{tool} {arguments}: {answer}");
        let error = &answer["structuredContent"]["error"];
        assert_eq!(error["class"], "usage", "{tool} {arguments}: {answer}");
        assert_eq!(error["rule"], rule, "{tool} {arguments}: {answer}");
        assert!(
            error["fix"].as_str().is_some_and(|f| !f.is_empty()),
            "{answer}"
        );
        assert!(
            !answer.to_string().contains(&root),
            "an absolute path: {answer}"
        );
    }
    mcp.close();
}

#[test]
fn a_read_a_write_stamped_with_the_open_episode_and_a_task_read() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let mut mcp = Mcp::start(&repo);

    let context = mcp.call("majordomus_context", json!({}));
    assert_eq!(context["isError"], false, "{context}");
    assert!(context["structuredContent"].is_object(), "{context}");
    let cli = repo.run(&["context"]).success();
    assert_eq!(
        text(&context),
        cli.stdout(),
        "the text is the CLI's rendering"
    );

    let recorded = mcp.call(
        "majordomus_decision_record",
        json!({"text": "use rmcp for the MCP server"}),
    );
    assert_eq!(recorded["isError"], false, "{recorded}");
    assert_eq!(recorded["structuredContent"]["session"], episode.as_str());
    let lines = repo.ledger_events("decision.recorded");
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0]["session"],
        episode.as_str(),
        "stamped like a CLI write"
    );
    assert_eq!(lines[0]["data"]["text"], "use rmcp for the MCP server");

    let asked = mcp.call("majordomus_question_ask", json!({"text": "which port?"}));
    let id = asked["structuredContent"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let resolved = mcp.call(
        "majordomus_question_resolve",
        json!({"id": id, "answer": "any free one"}),
    );
    assert_eq!(resolved["isError"], false, "{resolved}");

    let tasks = mcp.call("majordomus_task_list", json!({}));
    assert_eq!(tasks["isError"], false, "{tasks}");
    let binding = mcp.call("majordomus_intent_binding", json!({"scope": ["src"]}));
    assert!(binding["structuredContent"].is_object(), "{binding}");

    let stderr = mcp.close();
    assert!(
        stderr.is_empty(),
        "nothing failed, nothing logged: {stderr:?}"
    );
}

#[test]
fn refusals_and_usage_errors_are_tool_errors_and_the_server_goes_on() {
    let repo = TestRepo::initialised();
    let mut mcp = Mcp::start(&repo);

    let refused = mcp.call(
        "majordomus_question_resolve",
        json!({"id": "q-0123456789", "answer": "no such question"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    let error = &refused["structuredContent"]["error"];
    assert_eq!(error["rule"], "question.known");
    assert_eq!(error["class"], "refused");
    let fix = "majordomus history --event question.asked";
    assert_eq!(error["fix"], fix);
    assert!(text(&refused).contains("[question.known]"), "{refused}");
    assert!(text(&refused).contains(&format!("fix: {fix}")), "{refused}");

    let missing = mcp.call("majordomus_decision_record", json!({}));
    assert_eq!(missing["isError"], true, "{missing}");
    let error = &missing["structuredContent"]["error"];
    assert_eq!(error["rule"], "request.valid");
    assert_eq!(error["class"], "usage");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("`text`")),
        "{missing}"
    );
    assert_eq!(
        error["fix"],
        "majordomus schema --operation decision.record"
    );

    let unknown = mcp.request(
        "tools/call",
        json!({"name": "majordomus_knowledge_promote", "arguments": {"id": "x"}}),
    );
    assert!(
        unknown["error"].is_object(),
        "promote is not a tool: {unknown}"
    );

    // Still serving, and the refusal's fix works through the same surface.
    let asked = mcp.call("majordomus_question_ask", json!({"text": "which port?"}));
    assert_eq!(asked["isError"], false, "{asked}");
    let listed = mcp.call("majordomus_history", json!({"event": "question.asked"}));
    let id = listed["structuredContent"]["lines"][0]["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a question id: {listed}"))
        .to_owned();
    let resolved = mcp.call(
        "majordomus_question_resolve",
        json!({"id": id, "answer": "any free one"}),
    );
    assert_eq!(resolved["isError"], false, "{resolved}");

    let stderr = mcp.close();
    assert!(
        stderr.iter().any(|l| l.contains("question.known")),
        "failures are logged on stderr: {stderr:?}"
    );
}

#[test]
fn resources_list_and_read_the_context() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let mut mcp = Mcp::start(&repo);
    let listed = mcp.request("resources/list", json!({}));
    let uris: BTreeSet<&str> = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    assert!(uris.contains("majordomus://context"), "{listed}");
    assert!(
        uris.contains("majordomus://knowledge/candidates"),
        "{listed}"
    );

    let read = mcp.request("resources/read", json!({"uri": "majordomus://context"}));
    let contents = read["result"]["contents"].as_array().expect("contents");
    assert_eq!(contents[0]["uri"], "majordomus://context");
    assert_eq!(contents[0]["mimeType"], "text/markdown");
    assert_eq!(
        contents[0]["text"].as_str().expect("text"),
        repo.run(&["context"]).success().stdout()
    );
    let json: Value =
        serde_json::from_str(contents[1]["text"].as_str().expect("json text")).expect("JSON");
    assert_eq!(
        json,
        repo.run(&["--format", "json", "context"]).success().json()
    );

    let unknown = mcp.request("resources/read", json!({"uri": "majordomus://nothing"}));
    assert!(unknown["error"].is_object(), "{unknown}");

    // The advisors and their availability now, as `reasoning advisors` says them.
    assert!(uris.contains("majordomus://reasoning/advisors"), "{listed}");
    let read = mcp.request(
        "resources/read",
        json!({"uri": "majordomus://reasoning/advisors"}),
    );
    let contents = read["result"]["contents"].as_array().expect("contents");
    assert_eq!(contents[0]["uri"], "majordomus://reasoning/advisors");
    assert_eq!(
        contents[0]["text"].as_str().expect("text"),
        repo.run(&["reasoning", "advisors"]).success().stdout()
    );
    let json: Value =
        serde_json::from_str(contents[1]["text"].as_str().expect("json text")).expect("JSON");
    assert_eq!(
        json,
        repo.run(&["--format", "json", "reasoning", "advisors"])
            .success()
            .json()
    );
    mcp.close();
}

#[test]
fn a_write_from_mcp_and_one_from_the_cli_at_once_both_land() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let mut mcp = Mcp::start(&repo);
    for round in 0..3 {
        let from_mcp = format!("mcp decision {round}");
        let from_cli = format!("cli decision {round}");
        let mut cli = repo
            .command_in(repo.root(), &["decision", &from_cli])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn the CLI");
        let result = mcp.call("majordomus_decision_record", json!({"text": from_mcp}));
        assert_eq!(result["isError"], false, "{result}");
        assert!(cli.wait().expect("the CLI ran").success());
    }
    let lines = repo.ledger_events("decision.recorded");
    assert_eq!(lines.len(), 6, "{lines:?}");
    // The whole ledger is numbered 1..=N in file order: no gap, no repeat.
    let all: Vec<u64> = repo
        .ledger()
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(
        all,
        (1..=all.len() as u64).collect::<Vec<_>>(),
        "seq has a gap or a repeat"
    );
    assert!(lines.iter().all(|l| l["session"] == episode.as_str()));
    for round in 0..3 {
        for who in ["mcp", "cli"] {
            let text = format!("{who} decision {round}");
            assert!(
                lines.iter().any(|l| l["data"]["text"] == text.as_str()),
                "{text} is missing"
            );
        }
    }
    mcp.close();
}

#[test]
fn closing_stdin_before_the_handshake_exits_0_and_prints_nothing() {
    let repo = TestRepo::initialised();
    let output = repo
        .command_in(repo.root(), &["mcp"])
        .stdin(Stdio::null())
        .output()
        .expect("run majordomus mcp");
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}
