//! The real agent clients, Claude Code, Gemini CLI and Codex from npm, each driven through
//! one non-interactive session against a scripted model API on 127.0.0.1: `majordomus
//! setup <client>` wires it, its session-start hook opens the episode and hands the model
//! the briefing (the practice, then what the repository knows about the branch's files
//! first), the model's scripted `majordomus_decision_record` call lands in that episode,
//! and session end closes it with a record. Also: every `.codex/config.toml` setup leaves is one Codex
//! reads.
//!
//! The clients are installed by `.ci/run` into `$MAJORDOMUS_CLIENTS_DIR` (default
//! `target/agent-clients`; `npm install --prefix DIR` of `fixtures/agent-clients/`, pinned
//! with its lock).
//! Under `CI=true` a missing client fails its test; elsewhere it is SKIPPED, loudly.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestRepo;
use crate::mcp::Mcp;

/// The decision the scripted model records through MCP.
const DECISION: &str = "Parsing stays strict: input the parser cannot place is rejected";
/// The earlier episode's decision, promoted to curated knowledge about src/parser/.
const TITLE: &str = "The parser reports errors with line and column";
const PROMPT: &str = "Record the decision that parsing stays strict.";
/// The scripted model's last word.
const FINAL: &str = "Recorded the decision.";
/// A session that takes longer than this is a hang.
const SESSION: Duration = Duration::from_secs(300);
/// More requests than this in one session is a loop: the fake answers 400 from then on.
const MAX_REQUESTS: usize = 60;

// --- The clients -----------------------------------------------------------------------

/// An agent client from npm.
#[derive(Debug, Clone, Copy)]
struct Client {
    /// `majordomus setup <client>`, and the `--provider` of its hooks.
    setup: &'static str,
    /// Its command in `node_modules/.bin`.
    bin: &'static str,
    package: &'static str,
}

const CLAUDE_CODE: Client = Client {
    setup: "claude-code",
    bin: "claude",
    package: "@anthropic-ai/claude-code",
};
const GEMINI_CLI: Client = Client {
    setup: "gemini-cli",
    bin: "gemini",
    package: "@google/gemini-cli",
};
const CODEX: Client = Client {
    setup: "codex",
    bin: "codex",
    package: "@openai/codex",
};

/// Where `.ci/run` installs the clients.
fn clients_dir() -> PathBuf {
    std::env::var_os("MAJORDOMUS_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agent-clients"))
}

/// The client's installed command; under `CI=true` its absence fails the test, elsewhere
/// it says SKIPPED on stderr and the test returns.
fn installed(client: Client) -> Option<PathBuf> {
    let path = clients_dir().join("node_modules/.bin").join(client.bin);
    if path.exists() {
        return Some(path);
    }
    let how = format!(
        "{} is not installed at {} (`.ci/run` installs it; by hand: mkdir -p {dir} && cp fixtures/agent-clients/package*.json {dir}/ && npm install --prefix {dir})",
        client.package,
        path.display(),
        dir = clients_dir().display()
    );
    crate::common::missing_tool(client.package, &how);
    None
}

/// `program` at the root of `repo`, as [`TestRepo::program_in`] runs it, without the
/// clients' own settings from the caller's environment (API keys, base URLs, a cloud
/// provider switch): no run reaches a real model API; each test sets what it needs.
fn client_command(repo: &TestRepo, program: &Path) -> Command {
    const SETTINGS: [&str; 10] = [
        "ANTHROPIC_",
        "CLAUDE_",
        "GEMINI_",
        "GOOGLE_",
        "OPENAI_",
        "CODEX_",
        "AWS_",
        "AZURE_",
        "VERTEX",
        "CLOUD_ML_",
    ];
    let mut cmd = repo.program_in(repo.root(), program);
    for (key, _) in std::env::vars_os() {
        if SETTINGS
            .iter()
            .any(|p| key.to_string_lossy().starts_with(p))
        {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// Runs `cmd` (stdout and stderr piped) to its end, killing it after [`SESSION`].
fn run_to_end(mut cmd: Command, what: &str) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client") {
            break status;
        }
        if started.elapsed() > SESSION {
            let _ = child.kill();
            let _ = child.wait();
            let out = stdout.join().unwrap_or_default();
            let err = stderr.join().unwrap_or_default();
            panic!(
                "{what} ran longer than {SESSION:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

// --- The scripted model API -------------------------------------------------------------

/// One request the fake model API received.
#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    path: String,
    body: Value,
}

/// What the scripted model does next, from the request it answers: a tool call, or (with
/// `None`, and for any side request) the final text.
type Script = Arc<dyn Fn(&Value) -> Option<Call> + Send + Sync>;

/// A model API on 127.0.0.1 that speaks enough of the Anthropic Messages API (streaming
/// SSE), Gemini's generateContent / streamGenerateContent and OpenAI's Responses API for
/// one session, as its [`Script`] says. It records every request body.
struct FakeModel {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeModel {
    fn start(script: Script) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("the bound address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (requests, stop) = (requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, script) = (requests.clone(), script.clone());
                    std::thread::spawn(move || serve(stream, &requests, &script));
                }
            })
        };
        FakeModel {
            addr,
            requests,
            stop,
            accept: Some(accept),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("the request log").clone()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

enum Answer {
    Json(u16, Value),
    /// Server-sent events: an optional `event:` name and the `data:` JSON.
    Events(Vec<(Option<&'static str>, Value)>),
}

/// Reads one HTTP/1.1 request, records it, answers it and closes the connection.
fn serve(stream: TcpStream, requests: &Mutex<Vec<Recorded>>, script: &Script) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut start = String::new();
    if reader.read_line(&mut start).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = start.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    let mut encoded = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => length = value.parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            "content-encoding" => encoded = Some(value.to_owned()),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                return;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            if reader.read_exact(&mut chunk).is_err() {
                return;
            }
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        if reader.read_exact(&mut body).is_err() {
            return;
        }
    }
    let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let count = {
        let mut log = requests.lock().expect("the request log");
        log.push(Recorded {
            method: method.clone(),
            path: path.clone(),
            body: parsed.clone(),
        });
        log.len()
    };
    let answer = match encoded {
        Some(encoding) => Answer::Json(
            415,
            json!({"error": {"message": format!("content-encoding {encoding} is not scripted")}}),
        ),
        None if count > MAX_REQUESTS => Answer::Json(
            400,
            json!({"error": {"message": "too many requests in one session"}}),
        ),
        None => answer(&method, &path, &parsed, script(&parsed)),
    };
    let _ = respond(&mut writer, answer);
}

fn respond(out: &mut TcpStream, answer: Answer) -> std::io::Result<()> {
    match answer {
        Answer::Json(status, value) => {
            let body = value.to_string();
            write!(
                out,
                "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )?;
        }
        Answer::Events(events) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
            )?;
            for (name, data) in events {
                if let Some(name) = name {
                    writeln!(out, "event: {name}")?;
                }
                write!(out, "data: {data}\n\n")?;
                out.flush()?;
            }
        }
    }
    out.flush()
}

/// The tools a request offers the model: `(namespace, name)` (Codex groups an MCP
/// server's tools in a namespace).
fn offered(body: &Value) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if let Some(declarations) = tool["functionDeclarations"].as_array() {
            out.extend(
                declarations
                    .iter()
                    .filter_map(|d| d["name"].as_str())
                    .map(|n| (None, n.to_owned())),
            );
        } else if tool["type"] == "namespace" {
            let space = tool["name"].as_str().map(str::to_owned);
            out.extend(
                tool["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t["name"].as_str())
                    .map(|n| (space.clone(), n.to_owned())),
            );
        } else if let Some(name) = tool["name"].as_str() {
            out.push((None, name.to_owned()));
        }
    }
    out
}

/// The tool named `majordomus_<suffix>` as the client names it, when the request offers it.
fn tool(body: &Value, suffix: &str) -> Option<(Option<String>, String)> {
    let name = format!("majordomus_{suffix}");
    offered(body).into_iter().find(|(_, n)| {
        n.strip_suffix(&name)
            .is_some_and(|before| before.is_empty() || before.ends_with('_'))
    })
}

/// The decision tool as the client names it, when the request offers it.
fn decision_tool(body: &Value) -> Option<(Option<String>, String)> {
    tool(body, "decision_record")
}

/// How many tool results the conversation holds.
fn results(body: &Value) -> usize {
    let count = |list: &Value, hit: &dyn Fn(&Value) -> usize| -> usize {
        list.as_array().into_iter().flatten().map(hit).sum()
    };
    count(&body["messages"], &|m| {
        count(&m["content"], &|c| usize::from(c["type"] == "tool_result"))
    }) + count(&body["contents"], &|c| {
        count(&c["parts"], &|p| {
            usize::from(p.get("functionResponse").is_some())
        })
    }) + count(&body["input"], &|i| {
        usize::from(i["type"] == "function_call_output")
    })
}

/// Whether the conversation already holds a tool's result.
fn answered(body: &Value) -> bool {
    results(body) > 0
}

/// A tool call the scripted model makes.
struct Call {
    /// Codex's namespace of an MCP server's tools.
    namespace: Option<String>,
    name: String,
    args: Value,
    /// 1 for the first call of the session, 2 for the second.
    n: usize,
}

/// The session's script: the first turn records [`DECISION`]; the second reads the context
/// (a turn that writes nothing, so the compact before the next turn has nothing to say);
/// the third answers [`FINAL`].
fn record_then_read(body: &Value) -> Option<Call> {
    let n = results(body) + 1;
    let ((namespace, name), args) = match n {
        1 => (decision_tool(body)?, json!({"text": DECISION})),
        2 => (tool(body, "context")?, json!({})),
        _ => return None,
    };
    Some(Call {
        namespace,
        name,
        args,
        n,
    })
}

/// What the scripted model recalls: the earlier episode's promoted record.
const RECALL: &str = "parser errors line column";

/// A session that recalls: the first turn calls `majordomus_recall` with [`RECALL`], the
/// next answers [`FINAL`]. The tool is called by the name the client gives it, offered
/// among the request's tools or, where the client defers its definition, named in the
/// request's text.
fn recall_once(body: &Value) -> Option<Call> {
    if results(body) > 0 {
        return None;
    }
    let (namespace, name) = tool(body, "recall").or_else(|| deferred(body, "recall"))?;
    Some(Call {
        namespace,
        name,
        args: json!({"query": RECALL}),
        n: 1,
    })
}

/// The tool named `majordomus_<suffix>` as a word of the request's text (a client that
/// lists deferred tools by name only), when the request offers tools at all: the client's
/// own spelling (`mcp__majordomus__majordomus_recall`) before the bare name, which the
/// briefing's practice and the server's instructions also say.
fn deferred(body: &Value, suffix: &str) -> Option<(Option<String>, String)> {
    if offered(body).is_empty() {
        return None;
    }
    let name = format!("majordomus_{suffix}");
    let mut texts = Vec::new();
    strings(body, &mut texts);
    let words: Vec<&str> = texts
        .iter()
        .flat_map(|t| t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| {
            w.strip_suffix(&name)
                .is_some_and(|before| before.is_empty() || before.ends_with('_'))
        })
        .collect();
    words
        .iter()
        .find(|w| w.len() > name.len())
        .or(words.first())
        .map(|w| (None, (*w).to_owned()))
}

fn answer(method: &str, path: &str, body: &Value, call: Option<Call>) -> Answer {
    let route = path.split('?').next().unwrap_or(path);
    if method != "POST" {
        Answer::Json(404, json!({"error": {"message": "not scripted"}}))
    } else if route.ends_with("/count_tokens") {
        Answer::Json(200, json!({"input_tokens": 1}))
    } else if route.ends_with("/v1/messages") {
        anthropic(body, call)
    } else if route.ends_with(":countTokens") {
        Answer::Json(200, json!({"totalTokens": 1}))
    } else if route.contains(":streamGenerateContent") || route.contains(":generateContent") {
        let reply = gemini(body, call);
        if route.contains(":stream") {
            Answer::Events(vec![(None, reply)])
        } else {
            Answer::Json(200, reply)
        }
    } else if route.ends_with("/responses") {
        openai(call)
    } else {
        Answer::Json(404, json!({"error": {"message": "not scripted"}}))
    }
}

/// The Anthropic Messages API: a `tool_use` block or a text block, streamed when asked.
fn anthropic(body: &Value, call: Option<Call>) -> Answer {
    let model = body["model"].as_str().unwrap_or("claude");
    let (block, delta, stop) = match &call {
        Some(call) => (
            json!({"type": "tool_use", "id": format!("toolu_majordomus_{}", call.n),
                "name": call.name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": call.args.to_string()}),
            "tool_use",
        ),
        None => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": FINAL}),
            "end_turn",
        ),
    };
    let message = json!({
        "id": "msg_majordomus_1", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}
    });
    if body["stream"] != true {
        let mut whole = message;
        whole["content"] = json!([match &call {
            Some(call) => json!({"type": "tool_use", "id": block["id"],
                "name": call.name, "input": call.args}),
            None => json!({"type": "text", "text": FINAL}),
        }]);
        whole["stop_reason"] = json!(stop);
        return Answer::Json(200, whole);
    }
    Answer::Events(vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": message}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 5}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ])
}

/// Gemini's GenerateContentResponse: a `functionCall` part or a text part. A side request
/// that asks for JSON (Gemini CLI's next-speaker check) gets JSON.
fn gemini(body: &Value, call: Option<Call>) -> Value {
    let part = match call {
        Some(call) => json!({"functionCall": {"name": call.name, "args": call.args}}),
        None if body["generationConfig"]["responseMimeType"] == "application/json" => {
            json!({"text": json!({"next_speaker": "user", "reasoning": FINAL}).to_string()})
        }
        None => json!({"text": FINAL}),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash"
    })
}

/// OpenAI's Responses API, streamed: a `function_call` item (with its namespace, as Codex
/// offers MCP tools) or a `message` item.
fn openai(call: Option<Call>) -> Answer {
    let item = match call {
        Some(call) => {
            let mut item = json!({"type": "function_call", "id": format!("fc_majordomus_{}", call.n),
                "call_id": format!("call_majordomus_{}", call.n), "name": call.name,
                "arguments": call.args.to_string(), "status": "completed"});
            if let Some(space) = call.namespace {
                item["namespace"] = json!(space);
            }
            item
        }
        None => json!({"type": "message", "id": "msg_majordomus_1", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}),
    };
    let response = |status: &str, output: Value| {
        json!({"id": "resp_majordomus_1", "object": "response", "status": status, "output": output,
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 15}})
    };
    Answer::Events(vec![
        (
            Some("response.created"),
            json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        ),
        (
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": response("completed", json!([item]))}),
        ),
    ])
}

// --- The repository and the session ------------------------------------------------------

/// An initialised repository whose earlier episode decided [`TITLE`] about
/// `src/parser/mod.rs`, promoted to curated knowledge, on a branch `feature` (with an
/// origin, so that `main` is the trunk) that then changes that file. Returns the
/// knowledge id.
fn repository_with_knowledge() -> (TestRepo, String) {
    let mut repo = TestRepo::initialised();
    repo.now("2026-11-27T10:00:00Z");
    let episode = repo.start_episode();
    repo.run(&["decision", TITLE]).success();
    repo.commit(
        "src/parser/mod.rs",
        "pub fn parse() {}\n",
        "Parser errors carry line and column",
    );
    repo.run(&["session", "close"]).success();
    let dir = ".ai/repo/knowledge/candidates";
    let id = repo
        .record_ids(dir)
        .into_iter()
        .find(|id| {
            id.starts_with(&episode)
                && repo
                    .read(&format!("{dir}/{id}.md"))
                    .contains(&format!("title: {TITLE}\n"))
        })
        .unwrap_or_else(|| panic!("no candidate titled {TITLE}"));
    repo.run_with_stdin(
        &["knowledge", "promote", &id],
        "the clients harness checks that it reaches the model",
    )
    .success();
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory"]);
    repo.now(crate::common::NOW);
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.commit(
        "src/parser/mod.rs",
        "pub fn parse_fast() {}\n",
        "Faster parsing",
    );
    (repo, id)
}

/// Every string in `value`, depth first.
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// What one session did, for the assertions every client shares.
struct Session<'a> {
    client: Client,
    repo: &'a TestRepo,
    model: &'a FakeModel,
    knowledge: &'a str,
    output: Output,
}

impl Session<'_> {
    fn context(&self) -> String {
        let requests: Vec<String> = self
            .model
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        format!(
            "{} exited {:?}\nstdout:\n{}\nstderr:\n{}\nrequests: {requests:?}\nledger:\n{}",
            self.client.setup,
            self.output.status,
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr),
            self.repo.ledger_text()
        )
    }

    /// The whole contract: the episode opened by the session-start hook, the briefing (the
    /// practice, its knowledge section, the promoted record first) in the model's first
    /// request, the scripted decision in that episode, and the episode closed with its
    /// record. Prints what the client sent (docs/FIELD.md quotes it).
    fn check(&self, briefing_names_episode: bool) {
        self.check_from(briefing_names_episode, 0);
    }

    /// [`Session::check`] of the session whose episode opened in a ledger line from
    /// `since` on (what a client's dialog ran before it is not this session).
    fn check_from(&self, briefing_names_episode: bool, since: usize) {
        let context = self.context();
        assert!(self.output.status.success(), "{context}");
        // Codex clamps a SessionEnd hook's timeout to 3 s and warns at every start when
        // the file asks for more ("warning: clamping SessionEnd hook timeout to 3s").
        let stderr = String::from_utf8_lossy(&self.output.stderr);
        assert!(
            !stderr.contains("clamping"),
            "the client corrected what setup wrote: {context}"
        );
        let opened: Vec<Value> = self
            .repo
            .ledger()
            .into_iter()
            .skip(since)
            .filter(|l| l["event"] == "session.opened")
            .filter(|l| l["data"]["provider"] == self.client.setup)
            .collect();
        assert_eq!(opened.len(), 1, "one episode for the session: {context}");
        let episode = opened[0]["session"].as_str().expect("an episode id");

        // The model's first request is the conversation's first turn: it offers the tools,
        // and it already carries the briefing.
        let requests = self.model.requests();
        let first = requests
            .iter()
            .position(|r| decision_tool(&r.body).is_some())
            .unwrap_or_else(|| panic!("no request offered majordomus_decision_record: {context}"));
        let body = &requests[first].body;
        let mut texts = Vec::new();
        strings(body, &mut texts);
        let briefing = texts
            .iter()
            .find(|t| t.contains("## What the repository knows"))
            .unwrap_or_else(|| panic!("the first request carries no briefing: {body}"));
        let known = briefing
            .split("## What the repository knows")
            .nth(1)
            .expect("the section")
            .lines()
            .find(|l| l.starts_with("- ["))
            .unwrap_or_else(|| panic!("the knowledge section lists nothing:\n{briefing}"));
        assert!(
            known.contains(TITLE) && known.contains(self.knowledge),
            "the promoted record is not first in the knowledge section:\n{briefing}"
        );
        if briefing_names_episode {
            assert!(
                briefing.contains(&format!("majordomus episode {episode}")),
                "{briefing}"
            );
        }
        // The worker's bootstrap reaches the model with it, every line of it.
        for line in majordomus::briefing::PRACTICE.lines() {
            assert!(
                briefing.contains(line),
                "{}: the practice line {line:?} never reached the model:\n{briefing}",
                self.client.setup
            );
        }
        // The tools it offered are every tool the server lists (none held back).
        let listed: BTreeSet<String> = {
            let mut mcp = Mcp::start(self.repo);
            let list = mcp.request("tools/list", json!({}));
            list["result"]["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|t| t["name"].as_str().expect("a name").to_owned())
                .collect()
        };
        let forwarded: BTreeSet<String> = offered(body)
            .into_iter()
            .filter_map(|(_, name)| name.rfind("majordomus_").map(|i| name[i..].to_owned()))
            .collect();
        // Gemini CLI offers only the tools of the server's `includeTools` (setup lists
        // those an agent may call unasked); the others every tool the server lists.
        let expected: BTreeSet<String> = if self.client.setup == GEMINI_CLI.setup {
            let settings: Value =
                serde_json::from_str(&self.repo.read(".gemini/settings.json")).expect("JSON");
            let included: BTreeSet<String> = settings["mcpServers"]["majordomus"]["includeTools"]
                .as_array()
                .expect("includeTools")
                .iter()
                .map(|t| t.as_str().expect("a name").to_owned())
                .collect();
            assert!(
                included.is_subset(&listed) && included.len() < listed.len(),
                "{included:?}"
            );
            included
        } else {
            listed
        };
        assert_eq!(
            forwarded, expected,
            "{}: tools offered to the model",
            self.client.setup
        );
        // The tool result went back to the model.
        let result = requests[first + 1..]
            .iter()
            .find(|r| answered(&r.body))
            .unwrap_or_else(|| panic!("the tool result never reached the model: {context}"));
        let mut texts = Vec::new();
        strings(&result.body, &mut texts);
        assert!(
            texts.iter().any(|t| t.contains("decision.recorded")),
            "{}",
            result.body
        );

        // The second, read-only call was answered too.
        assert!(
            requests.iter().any(|r| results(&r.body) >= 2),
            "the majordomus_context result never reached the model: {context}"
        );

        let decisions: Vec<Value> = self
            .repo
            .ledger_events("decision.recorded")
            .into_iter()
            .filter(|l| l["data"]["text"] == DECISION)
            .collect();
        assert_eq!(decisions.len(), 1, "{context}");
        assert_eq!(
            decisions[0]["session"], episode,
            "the MCP write is stamped with the hook's episode: {context}"
        );
        let closed: Vec<Value> = self
            .repo
            .ledger_events("session.closed")
            .into_iter()
            .filter(|l| l["session"] == episode)
            .collect();
        assert_eq!(closed.len(), 1, "session end closed the episode: {context}");
        let record = closed[0]["data"]["record"].as_str().expect("a record path");
        let text = self.repo.read(record);
        assert!(text.contains(DECISION), "{record}:\n{text}");
        assert!(self.repo.episode_state().is_none(), "{context}");

        // What the client sent, for docs/FIELD.md.
        // Each definition on its own (Gemini CLI lists every function in one
        // `functionDeclarations`, Codex an MCP server's tools in one namespace).
        let bytes: usize = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| match t["functionDeclarations"].as_array() {
                Some(list) => list.iter().collect::<Vec<_>>(),
                None => vec![t],
            })
            .filter(|t| t.to_string().contains("majordomus_"))
            .map(|t| t.to_string().len())
            .sum();
        let events: Vec<String> = self
            .repo
            .ledger()
            .iter()
            .filter(|l| l["session"] == episode)
            .map(|l| {
                let event = l["event"].as_str().unwrap_or_default().to_owned();
                match l["data"]["text"].as_str() {
                    Some(text) if event == "checkpoint.recorded" => {
                        format!("{event} ({})", text.split(':').next().unwrap_or_default())
                    }
                    _ => event,
                }
            })
            .collect();
        // A compact with nothing new since the last one wrote nothing (Gemini CLI runs
        // PreCompress before every turn).
        let mut fresh = None;
        for event in &events {
            match event.as_str() {
                "checkpoint.recorded (compact)" => {
                    assert_ne!(
                        fresh,
                        Some(false),
                        "a compact repeated the last: {events:?}"
                    );
                    fresh = Some(false);
                }
                "knowledge.derived" => {}
                _ if fresh.is_some() => fresh = Some(true),
                _ => {}
            }
        }
        eprintln!(
            "== {} ({} requests: {:?}; the first turn is request {}, {} bytes; {} majordomus tools in {bytes} bytes of tool definitions; the decision tool is {:?})\nthe episode's ledger: {events:?}\n{briefing}\n==",
            self.client.setup,
            requests.len(),
            requests
                .iter()
                .map(|r| format!("{} {}", r.method, r.path))
                .collect::<Vec<_>>(),
            first + 1,
            body.to_string().len(),
            forwarded.len(),
            decision_tool(body).expect("offered"),
        );
    }
}

/// Wires `client` into a repository with knowledge, commits the wiring and runs one
/// session of it: `configure` adds the client's own settings to `HOME` and returns the
/// client's command.
fn one_session(
    client: Client,
    briefing_names_episode: bool,
    configure: impl FnOnce(&TestRepo, &FakeModel, &Path) -> Command,
) {
    let Some(program) = installed(client) else {
        return;
    };
    let (repo, knowledge) = repository_with_knowledge();
    repo.run(&["setup", client.setup]).success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Wire {}", client.setup)]);
    let model = FakeModel::start(Arc::new(record_then_read));
    let command = configure(&repo, &model, &program);
    let output = run_to_end(command, client.bin);
    Session {
        client,
        repo: &repo,
        model: &model,
        knowledge: &knowledge,
        output,
    }
    .check(briefing_names_episode);
}

#[test]
fn claude_code_runs_a_session_through_the_hooks_and_mcp_setup_wrote() {
    one_session(CLAUDE_CODE, true, |repo, model, program| {
        let mut cmd = client_command(repo, program);
        cmd.args([
            "-p",
            PROMPT,
            "--output-format",
            "json",
            "--allowedTools",
            "mcp__majordomus__majordomus_decision_record,mcp__majordomus__majordomus_context",
        ])
        .env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
        // List MCP tools eagerly, as the tool count check expects.
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        cmd
    });
}

#[test]
fn gemini_cli_runs_a_session_through_the_hooks_and_mcp_setup_wrote() {
    one_session(GEMINI_CLI, false, |repo, model, program| {
        gemini_home_settings(repo);
        let mut cmd = client_command(repo, program);
        cmd.args([
            "-p",
            PROMPT,
            "--model",
            "gemini-2.5-flash",
            "--output-format",
            "json",
            "--approval-mode",
            "yolo",
        ])
        .env("GOOGLE_GEMINI_BASE_URL", model.url())
        .env("GEMINI_API_KEY", "test-key-for-the-scripted-model")
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        cmd
    });
}

/// `~/.gemini/settings.json` for a session against the scripted model: an API key, no
/// update checks, no usage statistics.
fn gemini_home_settings(repo: &TestRepo) {
    repo.write_home(
        ".gemini/settings.json",
        &json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
            "privacy": {"usageStatisticsEnabled": false}
        })
        .to_string(),
    );
}

/// `~/.codex/config.toml` for a session against `model` in a trusted `repo`.
fn codex_home_config(repo: &TestRepo, model: Option<&FakeModel>) {
    codex_home(repo, model, true);
}

/// `~/.codex/config.toml` for a session against `model`, `repo` trusted or not (the
/// project's trust is then the user's to give, as setup says).
fn codex_home(repo: &TestRepo, model: Option<&FakeModel>, trusted: bool) {
    let mut text = String::from("check_for_update_on_startup = false\n");
    if let Some(model) = model {
        text.push_str(&format!(
            "model = \"gpt-5\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nenv_key = \"SCRIPTED_MODEL_API_KEY\"\nwire_api = \"responses\"\n",
            model.url()
        ));
    }
    text.push_str("\n[analytics]\nenabled = false\n");
    if trusted {
        text.push_str(&format!(
            "\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            repo.root().display()
        ));
    }
    repo.write_home(".codex/config.toml", &text);
}

#[test]
fn codex_runs_a_session_through_the_hooks_and_mcp_setup_wrote() {
    one_session(CODEX, true, |repo, model, program| {
        codex_home_config(repo, Some(model));
        let mut cmd = client_command(repo, program);
        // Hooks run only once trusted (`/hooks` in the TUI); this run vets its own.
        cmd.args(["exec", "--dangerously-bypass-hook-trust", PROMPT])
            .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
        cmd
    });
}

/// `codex mcp list --json` in `repo`: the servers Codex reads from the project's config.
fn codex_servers(repo: &TestRepo, program: &Path) -> Result<Vec<Value>, String> {
    let mut cmd = client_command(repo, program);
    cmd.args(["mcp", "list", "--json"]);
    let out = run_to_end(cmd, "codex mcp list");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}"))
}

#[test]
fn every_codex_config_setup_leaves_is_one_codex_reads() {
    /// What `setup codex` must do with a `.codex/config.toml` of each shape.
    #[derive(Debug, Clone, Copy)]
    enum Expected {
        /// `[mcp_servers.majordomus]` appended; Codex reads our server from it.
        Added,
        /// Our server is there as setup writes it; the file is left as it is.
        Present,
        /// The user's own majordomus server holds the place; left as it is, and Codex
        /// reads theirs.
        Kept,
        /// Refused `setup.file` (exit 3): TOML allows no `[mcp_servers.majordomus]` after
        /// an inline `mcp_servers = { ... }`; nothing is written.
        RefusedInline,
    }
    let Some(codex) = installed(CODEX) else {
        return;
    };
    let inline = "mcp_servers = { docs = { command = \"docs-mcp\" } }\n";
    for (before, expected) in [
        ("", Expected::Added),
        (
            "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n",
            Expected::Added,
        ),
        (inline, Expected::RefusedInline),
        (
            "mcp_servers = { majordomus = { command = \"majordomus\", args = [\"mcp\"] } }\n",
            Expected::Present,
        ),
        (
            "mcp_servers = { majordomus = { command = \"/opt/bin/majordomus\", args = [\"mcp\"] } }\n",
            Expected::Kept,
        ),
        (
            "[mcp_servers]\nmajordomus = { command = \"majordomus\", args = [\"mcp\"] }\n",
            Expected::Present,
        ),
        ("mcp_servers.docs.command = \"docs-mcp\"\n", Expected::Added),
    ] {
        let repo = TestRepo::initialised();
        codex_home_config(&repo, None);
        if !before.is_empty() {
            repo.write(".codex/config.toml", before);
        }
        let run = repo.run(&["--format", "json", "setup", "codex"]);
        if let Expected::RefusedInline = expected {
            let error = run.json_error(3, "setup.file");
            assert!(
                error["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("is an inline table")),
                "{before}: {error}"
            );
            assert_eq!(
                repo.read(".codex/config.toml"),
                before,
                "refused, untouched"
            );
            assert!(
                !repo.exists(".codex/hooks.json"),
                "a refusal writes nothing"
            );
            continue;
        }
        let report = run.success().json();
        let config = report["files"]
            .as_array()
            .and_then(|files| files.iter().find(|f| f["path"] == ".codex/config.toml"))
            .unwrap_or_else(|| panic!("{before}: no .codex/config.toml in {report}"));
        let action = &config["entries"][0]["action"];
        let servers = codex_servers(&repo, &codex)
            .unwrap_or_else(|e| panic!("Codex cannot read what setup left ({report}):\n{e}"));
        let ours = servers
            .iter()
            .find(|s| s["name"] == "majordomus")
            .unwrap_or_else(|| panic!("no majordomus server: {servers:?}"));
        match expected {
            Expected::Added => {
                assert_eq!(*action, "added", "{before}: {report}");
                assert!(
                    repo.read(".codex/config.toml").starts_with(before),
                    "{before}: appended after what was there"
                );
            }
            Expected::Present | Expected::Kept => {
                let want = if matches!(expected, Expected::Present) {
                    "present"
                } else {
                    "kept"
                };
                assert_eq!(*action, want, "{before}: {report}");
                assert_eq!(repo.read(".codex/config.toml"), before, "left as it is");
            }
            Expected::RefusedInline => unreachable!("handled above"),
        }
        let command = if matches!(expected, Expected::Kept) {
            "/opt/bin/majordomus"
        } else {
            "majordomus"
        };
        assert_eq!(ours["transport"]["command"], command, "{before}");
        assert_eq!(ours["transport"]["args"], json!(["mcp"]), "{before}");
        if before.contains("docs") {
            assert!(
                servers.iter().any(|s| s["name"] == "docs"),
                "{before}: the user's server is still read: {servers:?}"
            );
        }
    }

    // The inline table is refused; doing what the fix says works.
    let repo = TestRepo::initialised();
    codex_home_config(&repo, None);
    repo.write(".codex/config.toml", inline);
    let error = repo
        .run(&["--format", "json", "setup", "codex"])
        .json_error(3, "setup.file");
    let fix = error["fix"].as_str().expect("a fix");
    let entry = "majordomus = { command = \"majordomus\", args = [\"mcp\"] }";
    assert!(
        fix.contains(&format!(
            "add `{entry}` inside `mcp_servers = {{ ... }}` on line 1 of .codex/config.toml"
        )),
        "{fix}"
    );
    repo.write(
        ".codex/config.toml",
        &inline.replace(" } }", &format!(" }}, {entry} }}")),
    );
    let again = repo
        .run(&["--format", "json", "setup", "codex"])
        .success()
        .json();
    assert_eq!(
        again["files"][0]["entries"][0]["action"], "present",
        "{again}"
    );
    let servers = codex_servers(&repo, &codex).expect("Codex reads the fixed file");
    assert!(servers.iter().any(|s| s["name"] == "docs"), "{servers:?}");
    assert!(
        servers.iter().any(|s| s["name"] == "majordomus"),
        "{servers:?}"
    );
}

// --- A recall, allowed as setup left the client ----------------------------------------

/// A tool result as the client put it before the model.
#[derive(Debug)]
struct ToolResult {
    /// Every string of it, joined: what the model reads.
    text: String,
    /// Its bytes in the request: a string's length, or the JSON of a structured result.
    bytes: usize,
    /// The client marked it as an error.
    error: bool,
}

/// Every tool result in `body`, in the three APIs' shapes.
fn tool_results(body: &Value) -> Vec<ToolResult> {
    let of = |payload: &Value, error: bool| {
        let mut texts = Vec::new();
        strings(payload, &mut texts);
        ToolResult {
            text: texts.join("\n"),
            bytes: match payload {
                Value::String(s) => s.len(),
                other => other.to_string().len(),
            },
            error,
        }
    };
    let mut out = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push(of(&block["content"], block["is_error"] == true));
            }
        }
    }
    for content in body["contents"].as_array().into_iter().flatten() {
        for part in content["parts"].as_array().into_iter().flatten() {
            if let Some(response) = part.get("functionResponse") {
                out.push(of(
                    &response["response"],
                    response["response"].get("error").is_some(),
                ));
            }
        }
    }
    for item in body["input"].as_array().into_iter().flatten() {
        if item["type"] == "function_call_output" {
            out.push(of(&item["output"], false));
        }
    }
    out
}

/// Wires `client` with `setup` as it is by default, runs one session whose model calls
/// `majordomus_recall`, and checks what the client did with the call: allowed without a
/// prompt, the result's text (not its JSON) before the model. Returns the repository and
/// the bytes of the result the model read.
fn recall_session(
    client: Client,
    configure: impl FnOnce(&TestRepo, &FakeModel, &Path) -> Command,
) -> Option<(TestRepo, usize)> {
    let program = installed(client)?;
    let (repo, _knowledge) = repository_with_knowledge();
    let report = repo
        .run(&["--format", "json", "setup", client.setup])
        .success()
        .json();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Wire {}", client.setup)]);
    let model = FakeModel::start(Arc::new(recall_once));
    let command = configure(&repo, &model, &program);
    let output = run_to_end(command, client.bin);
    let requests = model.requests();
    let context = format!(
        "{} exited {:?}\nsetup: {report}\nstdout:\n{}\nstderr:\n{}\nrequests: {:?}",
        client.setup,
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        requests
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>()
    );
    if std::env::var_os("MAJORDOMUS_CLIENTS_DUMP").is_some() {
        for (i, r) in requests.iter().enumerate() {
            eprintln!("== request {i}: {} {}\n{}", r.method, r.path, r.body);
        }
    }
    assert!(output.status.success(), "{context}");

    // What the server says, as text, to the same call.
    let expected = {
        let mut mcp = Mcp::start(&repo);
        let answer = mcp.request(
            "tools/call",
            json!({"name": "majordomus_recall", "arguments": {"query": RECALL}}),
        );
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {answer}"))
            .to_owned()
    };
    assert!(expected.contains(TITLE), "{expected}");

    let called = requests
        .iter()
        .any(|r| tool(&r.body, "recall").is_some() || deferred(&r.body, "recall").is_some());
    assert!(called, "no request offered majordomus_recall: {context}");
    let result = requests
        .iter()
        .flat_map(|r| tool_results(&r.body))
        .next()
        .unwrap_or_else(|| panic!("the recall's result never reached the model: {context}"));
    eprintln!(
        "== {}: the recall result before the model: {} bytes (the server's text: {} bytes)\n{}\n==",
        client.setup,
        result.bytes,
        expected.len(),
        result.text
    );
    assert!(!result.error, "{}: {result:?}\n{context}", client.setup);
    assert!(
        result.text.contains(expected.trim_end()),
        "{}: the model did not get the recall's text:\n{}\nexpected:\n{expected}",
        client.setup,
        result.text
    );
    Some((repo, result.bytes))
}

#[test]
fn claude_code_runs_a_recall_setup_allowed_and_the_model_reads_its_text() {
    recall_session(CLAUDE_CODE, |repo, model, program| {
        claude_home_trust(repo);
        let mut cmd = client_command(repo, program);
        cmd.args(["-p", PROMPT, "--output-format", "json"])
            .env("ANTHROPIC_BASE_URL", model.url())
            .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        cmd
    });
}

#[test]
fn gemini_cli_runs_a_recall_setup_allowed_and_the_model_reads_its_text() {
    recall_session(GEMINI_CLI, |repo, model, program| {
        gemini_home_settings(repo);
        let mut cmd = client_command(repo, program);
        cmd.args([
            "-p",
            PROMPT,
            "--model",
            "gemini-2.5-flash",
            "--output-format",
            "json",
        ])
        .env("GOOGLE_GEMINI_BASE_URL", model.url())
        .env("GEMINI_API_KEY", "test-key-for-the-scripted-model")
        // The folder trust setup says is the user's to give.
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        cmd
    });
}

#[test]
fn codex_runs_a_recall_setup_allowed_and_the_model_reads_its_text() {
    recall_session(CODEX, |repo, model, program| {
        codex_home_config(repo, Some(model));
        let mut cmd = client_command(repo, program);
        cmd.args(["exec", PROMPT])
            .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
        cmd
    });
}

// --- Prompt-time and edit-time recall, through the hooks setup wrote ----------------------

/// The earlier episode's decision the prompt's words find.
const PROMPT_RECORD: &str =
    "Tokens keep their byte offsets so that diagnostics point at the source";
/// The earlier episode's decision about the same file that no word of the prompt names:
/// the edit, not the prompt, brings it.
const EDIT_RECORD: &str = "The lexer rejects tab characters in indentation";
/// The prompt of the recall sessions: its words find [`PROMPT_RECORD`].
const MOMENT_PROMPT: &str = "Make the tokens keep byte offsets for the diagnostics, please.";
/// The heading of what `hook prompt` adds to the model's context.
const PROMPT_HEADING: &str = "majordomus recalled for this prompt";
/// The heading of what `hook edit` adds for the edited file.
const EDIT_HEADING: &str = "majordomus: what is verified or decided about src/lexer.rs";
/// What the scripted model recalls in the recall sessions.
const MOMENT_RECALL: &str = "tab characters indentation";
/// The edited file.
const LEXER: &str = "src/lexer.rs";
/// A prompt from another project's history: nothing of this repository's memory is about it.
const OFF_TOPIC_PROMPT: &str =
    "Bump the Kubernetes ingress controller chart and rotate the staging TLS certificates";

/// A repository whose closed earlier episode decided [`PROMPT_RECORD`] and
/// [`EDIT_RECORD`] about [`LEXER`].
fn repository_with_decisions() -> TestRepo {
    let mut repo = TestRepo::initialised();
    repo.now("2026-11-27T10:00:00Z");
    repo.commit(LEXER, "pub fn lex() {}\n", "Lexer");
    repo.commit("src/parser/mod.rs", "pub fn parse() {}\n", "Parser");
    repo.start_episode();
    repo.run(&["decision", TITLE, "--file", "src/parser/mod.rs"])
        .success();
    for text in [PROMPT_RECORD, EDIT_RECORD] {
        repo.run(&["decision", text, "--file", LEXER]).success();
    }
    repo.run(&["session", "close"]).success();
    // Both verified: edit-time recall shows what is verified (or decided in an open
    // episode) about the file.
    let dir = ".ai/repo/knowledge/candidates";
    for id in repo.record_ids(dir) {
        repo.run_with_stdin(
            &["knowledge", "promote", &id],
            "the clients harness checks that it reaches the model",
        )
        .success();
    }
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory"]);
    repo.now(crate::common::NOW);
    // The work at hand is the parser's: the session's briefing ranks what is known about
    // it, not the lexer's records.
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.commit(
        "src/parser/mod.rs",
        "pub fn parse_fast() {}\n",
        "Faster parsing",
    );
    repo
}

/// The scripted model of a recall session in `root`: the turn's first tool call edits
/// [`LEXER`] with the client's own editing tool (whichever the request offers), the second
/// calls `majordomus_recall`, then the final text.
fn edit_then_recall(root: PathBuf) -> Script {
    Arc::new(move |body: &Value| {
        let offered = offered(body);
        if offered.is_empty() {
            return None;
        }
        let has = |name: &str| offered.iter().any(|(_, n)| n == name);
        let file = root.join(LEXER).display().to_string();
        let n = results(body) + 1;
        let (namespace, name, args) = match n {
            1 if has("Edit") => (
                None,
                "Edit".to_owned(),
                json!({"file_path": file, "old_string": "pub fn lex() {}",
                    "new_string": "pub fn lex_strict() {}"}),
            ),
            1 if has("apply_patch") => (
                None,
                "apply_patch".to_owned(),
                json!({"input": format!(
                    "*** Begin Patch\n*** Update File: {LEXER}\n@@\n-pub fn lex() {{}}\n+pub fn lex_strict() {{}}\n*** End Patch\n"
                )}),
            ),
            // Codex 0.171 offers a model it does not know no `apply_patch` tool: its
            // instructions say to run `apply_patch` in the shell, which Codex intercepts.
            1 if has("exec_command") => (
                None,
                "exec_command".to_owned(),
                json!({"cmd": format!(
                    "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {LEXER}\n@@\n-pub fn lex() {{}}\n+pub fn lex_strict() {{}}\n*** End Patch\nEOF\n"
                )}),
            ),
            1 if has("write_file") => (
                None,
                "write_file".to_owned(),
                json!({"file_path": file, "content": "pub fn lex_strict() {}\n"}),
            ),
            1 | 2 => {
                let (namespace, name) =
                    tool(body, "recall").or_else(|| deferred(body, "recall"))?;
                (namespace, name, json!({"query": MOMENT_RECALL}))
            }
            _ => return None,
        };
        Some(Call {
            namespace,
            name,
            args,
            n,
        })
    })
}

/// How many times `record` stands in what a hook added under `heading` in `body`.
fn injected(body: &Value, heading: &str, record: &str) -> usize {
    let mut texts = Vec::new();
    strings(body, &mut texts);
    texts
        .iter()
        .filter(|t| t.contains(heading))
        .map(|t| {
            t.split(heading)
                .skip(1)
                .map(|after| {
                    // Up to the next heading of either moment.
                    let end = [PROMPT_HEADING, "majordomus: what is verified"]
                        .iter()
                        .filter_map(|h| after.find(h))
                        .min()
                        .unwrap_or(after.len());
                    after[..end].matches(record).count()
                })
                .sum::<usize>()
        })
        .sum()
}

/// Every file under `dir` (`.ai/` and `.git/` included) whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            out.extend(files_holding(&path, needle));
        } else if kind.is_file()
            && std::fs::read(&path)
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
        {
            out.push(path);
        }
    }
    out
}

/// Wires `client` with `setup` (its defaults), runs one session of [`MOMENT_PROMPT`]
/// whose model edits [`LEXER`] and then recalls, and checks the whole of Step 14's
/// contract: the prompt-time context in the turn's first model request, the edit-time
/// context in the request after the edit, `agent.touched`, no record injected twice, the
/// recall allowed and its text before the model, and the prompt in no file. Returns the
/// bytes of the recall result the model read.
fn moment_session(
    client: Client,
    configure: impl Fn(&TestRepo, &FakeModel, &Path, &str) -> Command,
) -> Option<usize> {
    let program = installed(client)?;
    let repo = repository_with_decisions();
    let report = repo
        .run(&["--format", "json", "setup", client.setup])
        .success()
        .json();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Wire {}", client.setup)]);
    let model = FakeModel::start(edit_then_recall(repo.root().to_path_buf()));
    let command = configure(&repo, &model, &program, MOMENT_PROMPT);
    let output = run_to_end(command, client.bin);
    let requests = model.requests();
    let context = format!(
        "{} exited {:?}\nsetup: {}\nstdout:\n{}\nstderr:\n{}\nrequests: {:?}\nledger:\n{}",
        client.setup,
        output.status,
        report["needs_user"],
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        requests
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>(),
        repo.ledger_text()
    );
    if std::env::var_os("MAJORDOMUS_CLIENTS_DUMP").is_some() {
        for (i, r) in requests.iter().enumerate() {
            eprintln!("== request {i}: {} {}\n{}", r.method, r.path, r.body);
        }
    }
    assert!(output.status.success(), "{context}");
    let turn: Vec<&Recorded> = requests
        .iter()
        .filter(|r| !offered(&r.body).is_empty())
        .collect();
    assert!(!turn.is_empty(), "no request offered tools: {context}");

    // (a) The prompt-time context is in the turn's first model request.
    assert_eq!(
        injected(&turn[0].body, PROMPT_HEADING, PROMPT_RECORD),
        1,
        "the first request of the turn lacks the prompt-time context: {}\n{context}",
        turn[0].body
    );
    // The prompt is a query, never stored: no file of the repository holds it.
    let holding = files_holding(repo.root(), MOMENT_PROMPT.as_bytes());
    assert!(holding.is_empty(), "the prompt was written to {holding:?}");

    // (b) The edit-time context is in the request after the edit was proposed, and the
    // file is touched in the ledger.
    let after_edit = turn
        .iter()
        .position(|r| results(&r.body) >= 1)
        .unwrap_or_else(|| panic!("the edit's result never reached the model: {context}"));
    assert_eq!(
        injected(&turn[after_edit].body, EDIT_HEADING, EDIT_RECORD),
        1,
        "the request after the edit lacks the edit-time context: {}\n{context}",
        turn[after_edit].body
    );
    let touched = repo.ledger_events("agent.touched");
    assert_eq!(touched.len(), 1, "{context}");
    assert_eq!(touched[0]["data"]["paths"], json!([LEXER]), "{context}");
    assert_eq!(touched[0]["data"]["provider"], client.setup, "{context}");

    // (c) No record is injected twice: each stands once in what the hooks added, in every
    // request (each repeats the conversation so far), the last included.
    for r in &turn {
        for (heading, record) in [
            (PROMPT_HEADING, PROMPT_RECORD),
            (PROMPT_HEADING, EDIT_RECORD),
            (EDIT_HEADING, PROMPT_RECORD),
            (EDIT_HEADING, EDIT_RECORD),
        ] {
            let count = injected(&r.body, heading, record);
            let most = usize::from(
                (heading, record) == (PROMPT_HEADING, PROMPT_RECORD)
                    || (heading, record) == (EDIT_HEADING, EDIT_RECORD),
            );
            assert!(
                count <= most,
                "`{record}` under `{heading}` {count} times: {}\n{context}",
                r.body
            );
        }
    }
    let last = &turn[turn.len() - 1].body;
    assert_eq!(
        injected(last, PROMPT_HEADING, PROMPT_RECORD) + injected(last, EDIT_HEADING, EDIT_RECORD),
        2,
        "the last request holds each injected record once: {last}"
    );

    // (d) The recall was allowed without a prompt, and its text reached the model.
    let expected = {
        let mut mcp = Mcp::start(&repo);
        let answer = mcp.request(
            "tools/call",
            json!({"name": "majordomus_recall", "arguments": {"query": MOMENT_RECALL}}),
        );
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {answer}"))
            .to_owned()
    };
    assert!(expected.contains(EDIT_RECORD), "{expected}");
    let result = turn
        .iter()
        .find_map(|r| tool_results(&r.body).into_iter().nth(1))
        .unwrap_or_else(|| panic!("the recall's result never reached the model: {context}"));
    assert!(!result.error, "{}: {result:?}\n{context}", client.setup);
    assert!(
        result.text.contains(expected.trim_end()),
        "{}: the model did not get the recall's text:\n{}\nexpected:\n{expected}",
        client.setup,
        result.text
    );
    // (e) What `recall --shown` says reached the model is what the requests carried: each
    // record it lists stands in the last request, and each record a request offers to read
    // (`majordomus show <kind>:<id>`) is one it lists.
    let shown = repo
        .run(&["--format", "json", "recall", "--shown"])
        .success()
        .json();
    let listed: BTreeSet<String> = shown["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .flat_map(|e| e["records"].as_array().expect("records").iter())
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect();
    assert!(!listed.is_empty(), "{shown}");
    for reference in &listed {
        let id = reference.split_once(':').expect("kind:id").1;
        assert!(
            occurrences_in(last, id) >= 1,
            "{}: recall --shown lists {reference}, the model never got it: {last}",
            client.setup
        );
    }
    let mut offered_ids = Vec::new();
    strings(last, &mut offered_ids);
    for text in offered_ids {
        for piece in text.split("majordomus show ").skip(1) {
            let reference: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "-:".contains(*c))
                .collect();
            // A recall the model ran itself is a tool's answer, on record as `tool`.
            assert!(
                listed
                    .iter()
                    .any(|l| crate::common::same_claim(l, &reference)),
                "{}: the model got {reference}, recall --shown does not list it: {shown}",
                client.setup
            );
        }
    }

    // (f) An off-topic prompt, another project's words, in a new session: nothing reaches
    // the model at the prompt.
    let quiet = FakeModel::start(Arc::new(|_: &Value| None));
    let output = run_to_end(
        configure(&repo, &quiet, &program, OFF_TOPIC_PROMPT),
        client.bin,
    );
    assert!(output.status.success(), "{output:?}");
    let requests = quiet.requests();
    let asked = requests
        .iter()
        .find(|r| occurrences_in(&r.body, OFF_TOPIC_PROMPT) > 0 && !offered(&r.body).is_empty())
        .unwrap_or_else(|| {
            panic!(
                "{}: the off-topic prompt never reached the model",
                client.setup
            )
        });
    assert_eq!(
        occurrences_in(&asked.body, PROMPT_HEADING),
        0,
        "{}: an off-topic prompt got records: {}",
        client.setup,
        asked.body
    );

    eprintln!(
        "== {}: {} requests, {} of the turn; the recall result before the model: {} bytes (the server's text: {} bytes)\n==",
        client.setup,
        requests.len(),
        turn.len(),
        result.bytes,
        expected.len()
    );
    Some(result.bytes)
}

#[test]
fn claude_code_recalls_at_the_prompt_and_the_edit_through_the_hooks_setup_wrote() {
    moment_session(CLAUDE_CODE, |repo, model, program, prompt| {
        claude_home_trust(repo);
        let mut cmd = client_command(repo, program);
        cmd.args(["-p", prompt, "--output-format", "json"])
            .env("ANTHROPIC_BASE_URL", model.url())
            .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        cmd
    });
}

#[test]
fn gemini_cli_recalls_at_the_prompt_and_the_edit_through_the_hooks_setup_wrote() {
    moment_session(GEMINI_CLI, |repo, model, program, prompt| {
        gemini_home_settings(repo);
        let mut cmd = client_command(repo, program);
        cmd.args([
            "-p",
            prompt,
            "--model",
            "gemini-2.5-flash",
            "--output-format",
            "json",
            // Without it `gemini -p` offers the model no editing tool at all (its default
            // mode leaves out every tool that would ask); the MCP tools stay as setup
            // allowed them.
            "--approval-mode",
            "auto_edit",
        ])
        .env("GOOGLE_GEMINI_BASE_URL", model.url())
        .env("GEMINI_API_KEY", "test-key-for-the-scripted-model")
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        cmd
    });
}

#[test]
fn codex_recalls_at_the_prompt_and_the_edit_through_the_hooks_setup_wrote() {
    moment_session(CODEX, |repo, model, program, prompt| {
        codex_home_config(repo, Some(model));
        let mut cmd = client_command(repo, program);
        cmd.args(["exec", "--dangerously-bypass-hook-trust", prompt])
            .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
        cmd
    });
}

/// `~/.claude.json` with the workspace trusted, the step setup says is the user's (Claude
/// Code ignores the project's `permissions.allow` until then).
fn claude_home_trust(repo: &TestRepo) {
    repo.write_home(
        ".claude.json",
        &json!({"projects": {repo.root().display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    );
}

// --- Codex's hook trust, as doctor reads it ----------------------------------------------

/// Codex's own view of the hooks in `repo` (`codex app-server`, `hooks/list`): each hook's
/// `key`, `currentHash` and `trustStatus`.
fn codex_hooks(repo: &TestRepo, program: &Path) -> Vec<Value> {
    let mut cmd = client_command(repo, program);
    cmd.arg("app-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("spawn codex app-server");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && tx.send(message).is_err()
            {
                break;
            }
        }
    });
    let call = |stdin: &mut std::process::ChildStdin, id: u64, method: &str, params: Value| {
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .expect("write to codex app-server");
        loop {
            let message = rx
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("codex app-server did not answer {method}: {e}"));
            if message["id"] == id {
                return message;
            }
        }
    };
    call(
        &mut stdin,
        1,
        "initialize",
        json!({"clientInfo": {"name": "majordomus-tests", "version": "1"}}),
    );
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "initialized"})
    )
    .expect("write to codex app-server");
    let listed = call(
        &mut stdin,
        2,
        "hooks/list",
        json!({"cwds": [repo.root().display().to_string()]}),
    );
    let _ = child.kill();
    let _ = child.wait();
    listed["result"]["data"][0]["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("no hooks listed: {listed}"))
        .clone()
}

/// doctor's `majordomus.client-hooks` reads Codex's hook trust where Codex keeps it: it
/// finds untrusted exactly the hooks Codex lists as untrusted, and once Codex's config
/// holds each hook's hash (what "Trust all and continue" writes) both say trusted.
#[test]
fn doctor_reads_the_hook_trust_codex_reads() {
    let Some(codex) = installed(CODEX) else {
        return;
    };
    let repo = TestRepo::initialised();
    codex_home_config(&repo, None);
    repo.run(&["setup", "codex"]).success();
    let hooks = codex_hooks(&repo, &codex);
    assert_eq!(hooks.len(), 5, "{hooks:#?}");
    assert!(
        hooks.iter().all(|h| h["trustStatus"] == "untrusted"),
        "{hooks:#?}"
    );
    let findings = |repo: &TestRepo| -> Vec<Value> {
        let doctor = repo.run(&["--format", "json", "doctor"]).json();
        doctor["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["rule"] == "majordomus.client-hooks")
            .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
            .collect()
    };
    let before = findings(&repo);
    assert_eq!(before.len(), 1, "{before:#?}");
    assert!(
        before[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("records no trust for 5 of them")),
        "{before:#?}"
    );

    // Trust them as Codex records it: each hook's current hash under its key.
    let mut config = repo.read_home(".codex/config.toml");
    for hook in &hooks {
        config.push_str(&format!(
            "\n[hooks.state.{}]\ntrusted_hash = {}\n",
            hook["key"], hook["currentHash"]
        ));
    }
    repo.write_home(".codex/config.toml", &config);
    let hooks = codex_hooks(&repo, &codex);
    assert!(
        hooks.iter().all(|h| h["trustStatus"] == "trusted"),
        "Codex does not read the trust as written: {hooks:#?}"
    );
    let after = findings(&repo);
    assert!(after.is_empty(), "{after:#?}");
}

// --- The advice setup prints, followed exactly as printed ---------------------------------

/// How a test follows the steps setup printed: each step's command, run as printed, or
/// the client's own dialog, answered with the choices the step names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follow {
    Command,
    Dialog,
}

/// The steps `setup <client> [extra]` prints under "still needs you", as its JSON gives
/// them (a second run writes nothing).
fn advice(repo: &TestRepo, client: Client, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--format", "json", "setup", client.setup];
    args.extend(extra);
    let report = repo.run(&args).success().json();
    report["needs_user"]
        .as_array()
        .unwrap_or_else(|| panic!("no needs_user: {report}"))
        .clone()
}

/// The choices a step names in its client's dialog, in order: each `"..."` of its `how`
/// that follows `choose ` or `then ` (not the words the client says, which are quoted too).
fn choices(step: &Value) -> Vec<String> {
    let how = step["how"].as_str().expect("a how");
    let parts: Vec<&str> = how.split('"').collect();
    parts
        .iter()
        .enumerate()
        .skip(1)
        .step_by(2)
        .filter(|(i, _)| {
            let before = parts[i - 1];
            before.ends_with("choose ") || before.ends_with("then ")
        })
        .map(|(_, c)| (*c).to_owned())
        .collect()
}

/// The keys that select `choice` in its client's dialog from where the cursor starts:
/// how each pinned client's terminal UI lays its options out (checked by the choice being
/// on the screen before they are typed, and by what the choice records).
fn keys_for(choice: &str) -> Vec<&'static str> {
    const DOWN: &str = "\u{1b}[B";
    const UP: &str = "\u{1b}[A";
    const ENTER: &str = "\r";
    match choice {
        // Claude Code's trust dialog starts on "No, exit".
        "Yes, I trust this folder" => vec![DOWN, ENTER],
        // Its server dialog starts on "Continue without using this MCP server", the last.
        "Use this MCP server" => vec![UP, UP, ENTER],
        // Codex's hook review starts on "Review hooks".
        "Trust all and continue" => vec![DOWN, ENTER],
        // Codex's "Trust this folder?" and Gemini CLI's folder trust start on the choice.
        c if c == "Trust and continue" || c.starts_with("Trust folder (") => vec![ENTER],
        other => panic!("the test knows no way to choose {other:?}"),
    }
}

/// Runs `program` (the client's interactive UI) in `repo`'s root through a pseudo-terminal
/// (tests/cli/fixtures/tui.py) and answers its dialogs with `choices`, each once it is on
/// the screen; panics when one never shows.
fn answer_dialogs(repo: &TestRepo, program: &Path, env: &[(&str, String)], choices: &[String]) {
    let steps: Vec<Value> = choices
        .iter()
        .map(|c| json!([regex::escape(c), keys_for(c)]))
        .collect();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/tui.py");
    let mut cmd = client_command(repo, Path::new("python3"));
    cmd.arg(driver)
        .arg(Value::Array(steps).to_string())
        .arg("--")
        .arg(program);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_to_end(cmd, "the client's dialogs");
    assert!(
        out.status.success(),
        "{choices:?}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A repository with knowledge, wired by `setup <client> [extra]` (at its defaults when
/// `extra` is empty) and committed, with the steps setup printed.
fn wired(client: Client, extra: &[&str]) -> (TestRepo, String, Vec<Value>) {
    let (repo, knowledge) = repository_with_knowledge();
    let mut args = vec!["setup", client.setup];
    args.extend(extra);
    let run = repo.run(&args).success();
    // It ends with the commit that shares the wiring, which works as printed.
    let next = crate::common::next_lines(run.stdout());
    assert_eq!(next.len(), 1, "{run}");
    repo.run_printed(&next[0]);
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "{run}");
    let steps = advice(&repo, client, extra);
    assert!(
        !steps.is_empty(),
        "{}: setup says nothing needs the user",
        client.setup
    );
    (repo, knowledge, steps)
}

/// Follows every step as printed: runs its command, or answers its dialog in the client.
fn follow(repo: &TestRepo, program: &Path, env: &[(&str, String)], steps: &[Value], how: Follow) {
    let mut dialog = Vec::new();
    for step in steps {
        match (how, step["command"].as_str()) {
            (Follow::Command, Some(command)) => {
                repo.run_printed(command);
            }
            _ => dialog.extend(choices(step)),
        }
    }
    if !dialog.is_empty() {
        answer_dialogs(repo, program, env, &dialog);
    }
}

/// One headless session of the client against the scripted model, with nothing of its
/// own that trusts or allows anything: what it can do comes from setup's files and the
/// steps the user followed. The whole contract of [`Session::check`] holds.
fn advised_session(
    client: Client,
    how: Follow,
    dialog_env: impl Fn(&TestRepo) -> Vec<(&'static str, String)>,
    headless: impl FnOnce(&TestRepo, &FakeModel, &Path) -> Command,
) {
    advised_session_after(client, &[], how, dialog_env, headless);
}

/// [`advised_session`] after `setup <client> <extra>`.
fn advised_session_after(
    client: Client,
    extra: &[&str],
    how: Follow,
    dialog_env: impl Fn(&TestRepo) -> Vec<(&'static str, String)>,
    headless: impl FnOnce(&TestRepo, &FakeModel, &Path) -> Command,
) {
    let Some(program) = installed(client) else {
        return;
    };
    let (repo, knowledge, steps) = wired(client, extra);
    follow(&repo, &program, &dialog_env(&repo), &steps, how);
    // An episode the dialog's own start opened is not the session checked.
    if repo.episode_state().is_some() {
        repo.run(&["session", "close"]).success();
    }
    let since = repo.ledger().len();
    let model = FakeModel::start(Arc::new(record_then_read));
    let output = run_to_end(headless(&repo, &model, &program), client.bin);
    Session {
        client,
        repo: &repo,
        model: &model,
        knowledge: &knowledge,
        output,
    }
    .check_from(client.setup != GEMINI_CLI.setup, since);
}

fn claude_env(repo: &TestRepo) -> Vec<(&'static str, String)> {
    // Not the advice: a first run's onboarding, which would call Anthropic's API.
    let mut home: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.base().join("home/.claude.json"))
            .unwrap_or_else(|_| "{}".to_owned()),
    )
    .expect("~/.claude.json reads");
    home["hasCompletedOnboarding"] = json!(true);
    repo.write_home(".claude.json", &home.to_string());
    vec![
        (
            "ANTHROPIC_API_KEY",
            "test-key-for-the-scripted-model".to_owned(),
        ),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
    ]
}

fn claude_headless(repo: &TestRepo, model: &FakeModel, program: &Path) -> Command {
    // The server is approved and connected: what the steps were for.
    let mut get = client_command(repo, program);
    get.args(["mcp", "get", "majordomus"]);
    let got = run_to_end(get, "claude mcp get");
    let said = String::from_utf8_lossy(&got.stdout);
    assert!(said.contains("Connected"), "{said}");
    let mut cmd = client_command(repo, program);
    // No --allowedTools: the permissions.allow setup wrote, honoured in a trusted workspace.
    cmd.args(["-p", PROMPT, "--output-format", "json"])
        .env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    cmd
}

#[test]
fn claude_code_runs_after_the_command_setup_prints() {
    advised_session(
        CLAUDE_CODE,
        Follow::Command,
        |_| Vec::new(),
        claude_headless,
    );
}

/// With `--no-permissions`, setup says each tool call asks, and that rerunning it without
/// the flag allows them: followed by its commands, the session runs unasked.
#[test]
fn claude_code_runs_after_the_commands_setup_prints_with_no_permissions() {
    advised_session_after(
        CLAUDE_CODE,
        &["--no-permissions"],
        Follow::Command,
        |_| Vec::new(),
        claude_headless,
    );
}

#[test]
fn gemini_cli_runs_after_the_commands_setup_prints_with_no_permissions() {
    advised_session_after(
        GEMINI_CLI,
        &["--no-permissions"],
        Follow::Command,
        |_| Vec::new(),
        gemini_headless,
    );
}

#[test]
fn claude_code_runs_after_the_dialog_choices_setup_names() {
    advised_session(CLAUDE_CODE, Follow::Dialog, claude_env, claude_headless);
}

fn gemini_dialog_env(repo: &TestRepo) -> Vec<(&'static str, String)> {
    gemini_home_settings(repo);
    vec![
        (
            "GEMINI_API_KEY",
            "test-key-for-the-scripted-model".to_owned(),
        ),
        ("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9".to_owned()),
    ]
}

fn gemini_headless(repo: &TestRepo, model: &FakeModel, program: &Path) -> Command {
    gemini_home_settings(repo);
    let mut cmd = client_command(repo, program);
    // No GEMINI_CLI_TRUST_WORKSPACE, no --approval-mode: the folder's trust the user gave,
    // and the server's trust and includeTools setup wrote.
    cmd.args([
        "-p",
        PROMPT,
        "--model",
        "gemini-2.5-flash",
        "--output-format",
        "json",
    ])
    .env("GOOGLE_GEMINI_BASE_URL", model.url())
    .env("GEMINI_API_KEY", "test-key-for-the-scripted-model");
    cmd
}

#[test]
fn gemini_cli_runs_after_the_command_setup_prints() {
    advised_session(GEMINI_CLI, Follow::Command, |_| Vec::new(), gemini_headless);
}

#[test]
fn gemini_cli_runs_after_the_dialog_choice_setup_names() {
    advised_session(
        GEMINI_CLI,
        Follow::Dialog,
        gemini_dialog_env,
        gemini_headless,
    );
}

fn codex_headless(repo: &TestRepo, _model: &FakeModel, program: &Path) -> Command {
    let mut cmd = client_command(repo, program);
    // No --dangerously-bypass-hook-trust: the hooks run on the trust the user gave.
    cmd.args(["exec", PROMPT])
        .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
    cmd
}

/// Codex's config, with the model (once there is one) and without trust, the project's
/// trust the steps add kept.
fn codex_prepare(repo: &TestRepo, model: Option<&FakeModel>) {
    let before =
        std::fs::read_to_string(repo.base().join("home/.codex/config.toml")).unwrap_or_default();
    codex_home(repo, model, false);
    // What the steps recorded (the project's and the hooks' trust) stays.
    let kept: String = before
        .split("\n[")
        .filter(|t| t.starts_with("projects.") || t.starts_with("hooks."))
        .map(|t| format!("\n[{t}"))
        .collect();
    let now = repo.read_home(".codex/config.toml");
    repo.write_home(".codex/config.toml", &format!("{now}{kept}\n"));
}

fn codex_dialog_env(_: &TestRepo) -> Vec<(&'static str, String)> {
    vec![(
        "SCRIPTED_MODEL_API_KEY",
        "test-key-for-the-scripted-model".to_owned(),
    )]
}

/// Doctor's fixes for Codex are setup's steps, word for word; once they are followed its
/// rule passes.
fn codex_doctor(repo: &TestRepo, steps: &[Value], followed: bool) {
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let findings: Vec<Value> = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| r["rule"] == "majordomus.client-hooks")
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .collect();
    if followed {
        assert!(findings.is_empty(), "{findings:#?}");
        return;
    }
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0]["fix"], steps[0]["how"], "{findings:#?}");
    assert!(
        steps[1]["how"]
            .as_str()
            .is_some_and(|h| h.starts_with(findings[1]["fix"].as_str().expect("a fix"))),
        "{findings:#?}"
    );
}

#[test]
fn codex_runs_after_the_dialog_choices_setup_names() {
    let Some(program) = installed(CODEX) else {
        return;
    };
    let (repo, knowledge, steps) = wired(CODEX, &[]);
    // Codex's first start wants a model provider (else it asks to sign in first).
    let dialog_model = FakeModel::start(Arc::new(|_: &Value| None));
    codex_prepare(&repo, Some(&dialog_model));
    codex_doctor(&repo, &steps, false);
    follow(
        &repo,
        &program,
        &codex_dialog_env(&repo),
        &steps,
        Follow::Dialog,
    );
    codex_doctor(&repo, &steps, true);
    codex_session(&repo, &program, &knowledge);
}

#[test]
fn codex_runs_after_the_command_and_the_dialog_choice_setup_prints() {
    let Some(program) = installed(CODEX) else {
        return;
    };
    let (repo, knowledge, steps) = wired(CODEX, &[]);
    let dialog_model = FakeModel::start(Arc::new(|_: &Value| None));
    codex_prepare(&repo, Some(&dialog_model));
    // The project's trust by its command; the hooks' only Codex's dialog records.
    assert!(steps[0]["command"].is_string(), "{steps:?}");
    assert!(steps[1]["command"].is_null(), "{steps:?}");
    follow(
        &repo,
        &program,
        &codex_dialog_env(&repo),
        &steps,
        Follow::Command,
    );
    codex_doctor(&repo, &steps, true);
    // Run again, the command changes nothing (the table is there).
    let before = repo.read_home(".codex/config.toml");
    repo.run_printed(steps[0]["command"].as_str().expect("a command"));
    assert_eq!(repo.read_home(".codex/config.toml"), before);
    codex_session(&repo, &program, &knowledge);
}

/// The headless Codex session after the steps, checked whole.
fn codex_session(repo: &TestRepo, program: &Path, knowledge: &str) {
    if repo.episode_state().is_some() {
        repo.run(&["session", "close"]).success();
    }
    let since = repo.ledger().len();
    let model = FakeModel::start(Arc::new(record_then_read));
    codex_prepare(repo, Some(&model));
    let output = run_to_end(codex_headless(repo, &model, program), CODEX.bin);
    Session {
        client: CODEX,
        repo,
        model: &model,
        knowledge,
        output,
    }
    .check_from(true, since);
}

// --- The field day (docs/FIELD.md, step 19) -----------------------------------------------

/// The ledger's lines, none when there is no ledger yet.
fn ledger_lines(repo: &TestRepo) -> Vec<Value> {
    repo.ledger_text_if_any()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The field trial of step 19, run by hand on a real repository (it takes a few minutes
/// and a clone of a real history, which no test has): `MAJORDOMUS_FIELD_SOURCE=<a git
/// repository> MAJORDOMUS_CLIENTS_DIR=... cargo test --test cli field_day -- --ignored
/// --nocapture`. The three pinned clients after `setup` at its defaults (the steps it
/// printed followed as printed: the commands, and Codex's hook dialog), against the
/// scripted model: on each of six branches a working session (a decision through MCP,
/// then a commit) and two idle ones (a prompt answered without a tool), then idle sessions
/// on the trunk. After every idle session `git status` is clean, and each session's
/// briefing hands over from its own branch. It prints what it saw.
#[test]
#[ignore = "a field trial on a real repository, run by hand (docs/FIELD.md, step 19)"]
fn field_day() {
    let Some(source) = std::env::var_os("MAJORDOMUS_FIELD_SOURCE") else {
        panic!("set MAJORDOMUS_FIELD_SOURCE to a git repository with real history");
    };
    let programs: Vec<(Client, PathBuf)> = [CLAUDE_CODE, GEMINI_CLI, CODEX]
        .into_iter()
        .map(|c| (c, installed(c).expect("the pinned clients")))
        .collect();
    let mut repo = TestRepo::unversioned();
    let mut log = String::new();
    let mut say = |line: String| {
        eprintln!("{line}");
        log.push_str(&line);
        log.push('\n');
    };
    std::fs::remove_dir_all(repo.root()).expect("an empty work tree");
    repo.git_in(
        repo.base(),
        &[
            "clone",
            "-q",
            "--bare",
            &source.to_string_lossy(),
            "origin.git",
        ],
    );
    repo.git_in(repo.base(), &["clone", "-q", "origin.git", "repo"]);
    let trunk = repo.git(&["symbolic-ref", "--short", "HEAD"]);
    let commits = repo.git(&["rev-list", "--count", "HEAD"]);
    say(format!(
        "== a clone of {} ({commits} commits on {trunk})",
        source.to_string_lossy()
    ));
    let init = repo.run(&["init"]).success();
    // Its commit and `hooks install`; the episodes are the clients' to open.
    for line in crate::common::next_lines(init.stdout()) {
        if line != "majordomus session start" {
            repo.run_printed(&line);
        }
    }
    say(format!(
        "$ majordomus init; its next: lines run as printed (not its `session start`: the clients' hooks open the episodes)\n{}",
        init.stdout()
    ));
    // setup at its defaults (`claude`, `gemini`: the short names), each step as printed.
    for (client, name) in [
        (CLAUDE_CODE, "claude"),
        (GEMINI_CLI, "gemini"),
        (CODEX, "codex"),
    ] {
        let run = repo.run(&["setup", name]).success();
        say(format!("$ majordomus setup {name}\n{}", run.stdout()));
        for line in crate::common::next_lines(run.stdout()) {
            repo.run_printed(&line);
        }
        for step in advice(&repo, client, &[]) {
            if let Some(command) = step["command"].as_str() {
                repo.run_printed(command);
                say(format!("  followed: {}", step["what"]));
            }
        }
    }
    gemini_home_settings(&repo);
    let dialog_model = FakeModel::start(Arc::new(|_: &Value| None));
    codex_prepare(&repo, Some(&dialog_model));
    let codex = &programs[2].1;
    answer_dialogs(
        &repo,
        codex,
        &codex_dialog_env(&repo),
        &["Trust all and continue".to_owned()],
    );
    if repo.episode_state().is_some() {
        repo.run(&["session", "close"]).success();
    }
    say(
        "  followed: Codex's \"Hooks need review\" → \"Trust all and continue\" (its terminal UI)"
            .to_owned(),
    );
    let doctor = repo.run(&["doctor"]);
    say(format!(
        "$ majordomus doctor (exit {})\n{}",
        doctor.code(),
        doctor.stdout()
    ));
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "setup left files");

    let mut minute = 0;
    let mut sessions = 0;
    let mut idle = 0;
    let mut next_time = |repo: &mut TestRepo| {
        minute += 7;
        repo.now(&format!(
            "2026-12-07T{:02}:{:02}:00Z",
            8 + minute / 60,
            minute % 60
        ));
    };
    let run_client = |repo: &TestRepo, client: Client, program: &Path, script: Script| -> Output {
        let model = FakeModel::start(script);
        let cmd = match client.setup {
            "claude-code" => claude_headless(repo, &model, program),
            "gemini-cli" => gemini_headless(repo, &model, program),
            _ => {
                codex_prepare(repo, Some(&model));
                codex_headless(repo, &model, program)
            }
        };
        let out = run_to_end(cmd, client.bin);
        assert!(
            out.status.success(),
            "{}: {}",
            client.setup,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let branches = [
        "lexer-tabs",
        "pager-env",
        "theme-cache",
        "wrap-width",
        "git-diff-markers",
        "config-paths",
    ];
    for (b, branch) in branches.iter().enumerate() {
        repo.git(&["checkout", "-q", "-b", branch, &trunk]);
        let (worker, program) = &programs[b % 3];
        // The working session: a decision through MCP, then the agent's change committed.
        next_time(&mut repo);
        let decision =
            format!("On {branch}: the change keeps the existing command-line flags as they are");
        let text = decision.clone();
        let script: Script = Arc::new(move |body: &Value| {
            let n = results(body) + 1;
            let ((namespace, name), args) = match n {
                1 => (decision_tool(body)?, json!({"text": text})),
                _ => return None,
            };
            Some(Call {
                namespace,
                name,
                args,
                n,
            })
        });
        let before = ledger_lines(&repo).len();
        run_client(&repo, *worker, program, script);
        sessions += 1;
        let lines: Vec<Value> = ledger_lines(&repo).into_iter().skip(before).collect();
        let opened = lines
            .iter()
            .find(|l| l["event"] == "session.opened")
            .expect("an episode");
        let episode = opened["session"].as_str().expect("an id").to_owned();
        let start_briefing = repo.read(&format!(".ai/local/session-contexts/{episode}.md"));
        let handover_line = start_briefing
            .split("## Last handover\n")
            .nth(1)
            .and_then(|r| r.lines().next())
            .unwrap_or("")
            .to_owned();
        assert!(
            lines
                .iter()
                .any(|l| l["event"] == "decision.recorded" && l["data"]["text"] == decision),
            "{branch}: the decision did not land"
        );
        repo.write(&format!("doc/field-{branch}.md"), &format!("# {branch}\n"));
        repo.git(&["add", "-A"]);
        let commit = repo
            .git_command_in(
                repo.root(),
                &[
                    "commit",
                    "-q",
                    "-m",
                    &format!("{branch}: work and its record"),
                ],
            )
            .env("MAJORDOMUS_BIN", crate::common::bin())
            .output()
            .expect("git commit");
        assert!(commit.status.success());
        say(format!(
            "-- {branch}: {} worked (episode {episode}; its briefing's last handover: {handover_line}); committed, status: {:?}",
            worker.setup,
            repo.git(&["status", "--porcelain"])
        ));
        // The work goes on in a second session of another client: it hands over from the
        // first (this branch's), and its own change is committed too.
        let (second, program2) = &programs[(b + 1) % 3];
        next_time(&mut repo);
        let decision2 = format!("On {branch}: the second step documents the behaviour it changed");
        let text2 = decision2.clone();
        let script: Script = Arc::new(move |body: &Value| {
            let n = results(body) + 1;
            let ((namespace, name), args) = match n {
                1 => (decision_tool(body)?, json!({"text": text2})),
                _ => return None,
            };
            Some(Call {
                namespace,
                name,
                args,
                n,
            })
        });
        let before = ledger_lines(&repo).len();
        run_client(&repo, *second, program2, script);
        sessions += 1;
        let lines: Vec<Value> = ledger_lines(&repo).into_iter().skip(before).collect();
        let opened = lines
            .iter()
            .find(|l| l["event"] == "session.opened")
            .expect("an episode");
        let continued = opened["session"].as_str().expect("an id").to_owned();
        let snapshot = repo.read(&format!(".ai/local/session-contexts/{continued}.md"));
        let handed = snapshot
            .split("## Last handover\n")
            .nth(1)
            .and_then(|r| r.lines().next())
            .unwrap_or("")
            .to_owned();
        assert_eq!(
            handed,
            format!("- .ai/local/state/handovers/{episode}.md"),
            "{branch}"
        );
        assert!(
            lines.iter().any(|l| l["data"]["text"] == decision2),
            "{branch}"
        );
        repo.write(
            &format!("doc/field-{branch}.md"),
            &format!("# {branch}\n\nDocumented.\n"),
        );
        repo.git(&["add", "-A"]);
        let commit = repo
            .git_command_in(
                repo.root(),
                &["commit", "-q", "-m", &format!("{branch}: document it")],
            )
            .env("MAJORDOMUS_BIN", crate::common::bin())
            .output()
            .expect("git commit");
        assert!(commit.status.success());
        say(format!(
            "   {branch}: {} continued (episode {continued}; its briefing's last handover: {handed}); committed",
            second.setup
        ));
        let episode = continued;
        // Two idle sessions: a prompt, an answer, nothing else.
        for k in 1..=2 {
            let (client, program) = &programs[(b + k) % 3];
            next_time(&mut repo);
            let before = ledger_lines(&repo).len();
            run_client(&repo, *client, program, Arc::new(|_: &Value| None));
            sessions += 1;
            idle += 1;
            let lines: Vec<Value> = ledger_lines(&repo).into_iter().skip(before).collect();
            let closed = lines.iter().find(|l| l["event"] == "session.closed");
            let status = repo.git(&["status", "--porcelain"]);
            say(format!(
                "   idle {} on {branch}: closed {}, git status {:?}",
                client.setup,
                closed.map_or("no (still open)".to_owned(), |c| format!(
                    "empty={}",
                    c["data"]["empty"]
                )),
                status
            ));
            assert_eq!(
                status, "",
                "an idle {} session left a file on {branch}",
                client.setup
            );
        }
        let briefing = repo.run(&["briefing"]).success();
        let last = briefing
            .stdout()
            .split("## Last handover\n")
            .nth(1)
            .and_then(|r| r.lines().next())
            .unwrap_or("")
            .to_owned();
        assert_eq!(
            last,
            format!("- .ai/local/state/handovers/{episode}.md"),
            "{branch}"
        );
    }
    // The trunk: idle sessions of each client, twice for two of them.
    repo.git(&["checkout", "-q", &trunk]);
    for (client, program) in programs.iter().chain(programs.iter().take(2)) {
        next_time(&mut repo);
        run_client(&repo, *client, program, Arc::new(|_: &Value| None));
        sessions += 1;
        idle += 1;
        let status = repo.git(&["status", "--porcelain"]);
        say(format!(
            "   idle {} on {trunk}: git status {status:?}",
            client.setup
        ));
        assert_eq!(status, "");
    }
    let briefing = repo.run(&["briefing"]).success();
    say(format!(
        "$ majordomus briefing (on {trunk})\n{}",
        briefing.stdout()
    ));
    let listed = repo.run(&["session", "list"]).success();
    say(format!("$ majordomus session list\n{}", listed.stdout()));
    let doctor = repo.run(&["doctor"]);
    say(format!(
        "$ majordomus doctor (exit {})\n{}",
        doctor.code(),
        doctor.stdout()
    ));
    say(format!(
        "== {sessions} sessions ({idle} idle), {} branches; git status: {:?}",
        branches.len(),
        repo.git(&["status", "--porcelain"])
    ));
    if let Some(out) = std::env::var_os("MAJORDOMUS_FIELD_OUT") {
        std::fs::write(out, log).expect("write the transcript");
    }
}

// --- A resumed conversation ----------------------------------------------------------------

/// How many times `needle` stands in the strings of `body`.
fn occurrences_in(body: &Value, needle: &str) -> usize {
    let mut texts = Vec::new();
    strings(body, &mut texts);
    texts.iter().map(|t| t.matches(needle).count()).sum()
}

/// A client's conversation run twice, the second time resumed (`first` then `again`, each
/// a command from the repository, the client and the model): the model's last request holds
/// one briefing and the verified record once; the two episodes share the conversation, and
/// the second put on record what the conversation held.
fn continued_conversation(
    client: Client,
    prepare: impl Fn(&TestRepo, &FakeModel),
    first: impl Fn(&TestRepo, &FakeModel, &Path) -> Command,
    again: impl Fn(&TestRepo, &FakeModel, &Path) -> Command,
) {
    let Some(program) = installed(client) else {
        return;
    };
    let (repo, _) = repository_with_knowledge();
    repo.run(&["setup", client.setup]).success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Wire {}", client.setup)]);
    // The model only answers: every record it sees is what the hooks put before it.
    let model = FakeModel::start(Arc::new(|_: &Value| None));
    prepare(&repo, &model);
    let output = run_to_end(first(&repo, &model, &program), client.bin);
    assert!(output.status.success(), "{output:?}");
    let output = run_to_end(again(&repo, &model, &program), client.bin);
    assert!(
        output.status.success(),
        "{output:?}\nledger:\n{}",
        repo.ledger_text()
    );
    let requests = model.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| occurrences_in(&r.body, RESUMED_PROMPT) > 0 && !offered(&r.body).is_empty())
        .unwrap_or_else(|| {
            panic!(
                "the resumed turn never reached the model: {:?}",
                requests.iter().map(|r| &r.path).collect::<Vec<_>>()
            )
        });
    let context = format!("{}\nledger:\n{}", last.body, repo.ledger_text());
    if std::env::var_os("MAJORDOMUS_CLIENTS_DUMP").is_some() {
        for (i, r) in requests.iter().enumerate() {
            eprintln!(
                "== request {i}: {} {} first={} resumed={} briefings={} record={} tools={}",
                r.method,
                r.path,
                occurrences_in(&r.body, FIRST_PROMPT),
                occurrences_in(&r.body, RESUMED_PROMPT),
                occurrences_in(&r.body, "## How to work here"),
                occurrences_in(&r.body, TITLE),
                offered(&r.body).len()
            );
        }
    }
    // Whether the client sent the earlier turns again: when it did, the briefing is not
    // repeated; when it did not (Gemini CLI), the resumed session is briefed in full.
    let keeps_turns = occurrences_in(&last.body, FIRST_PROMPT) >= 1;
    assert_eq!(keeps_turns, client.setup != GEMINI_CLI.setup, "{context}");
    assert_eq!(
        occurrences_in(&last.body, "## How to work here"),
        1,
        "{context}"
    );
    assert_eq!(occurrences_in(&last.body, TITLE), 1, "{context}");
    let opened = repo.ledger_events("session.opened");
    let theirs: Vec<&Value> = opened
        .iter()
        .filter(|o| o["data"]["provider"] == client.setup)
        .collect();
    assert_eq!(theirs.len(), 2, "{context}");
    assert_eq!(
        theirs[0]["data"]["conversation"], theirs[1]["data"]["conversation"],
        "{context}"
    );
    let shown = repo.ledger_events("context.shown");
    assert_eq!(
        shown.iter().any(|l| l["data"]["where"] == "resumed"),
        keeps_turns,
        "{context}"
    );
}

/// The first and the resumed prompt of a continued conversation.
const FIRST_PROMPT: &str = "What does the parser report on an error?";
const RESUMED_PROMPT: &str = "And how are its columns counted?";

fn scripted_claude(cmd: &mut Command, model: &FakeModel) {
    cmd.env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
}

#[test]
fn claude_code_continued_holds_one_briefing_and_each_record_once() {
    continued_conversation(
        CLAUDE_CODE,
        |repo, _| claude_home_trust(repo),
        |repo, model, program| {
            let mut cmd = client_command(repo, program);
            cmd.args(["-p", FIRST_PROMPT, "--output-format", "json"]);
            scripted_claude(&mut cmd, model);
            cmd
        },
        |repo, model, program| {
            let mut cmd = client_command(repo, program);
            cmd.args([
                "-p",
                "--continue",
                RESUMED_PROMPT,
                "--output-format",
                "json",
            ]);
            scripted_claude(&mut cmd, model);
            cmd
        },
    );
}

#[test]
fn codex_resumed_holds_one_briefing_and_each_record_once() {
    continued_conversation(
        CODEX,
        |repo, model| codex_home_config(repo, Some(model)),
        |repo, _, program| {
            let mut cmd = client_command(repo, program);
            cmd.args(["exec", "--dangerously-bypass-hook-trust", FIRST_PROMPT])
                .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
            cmd
        },
        |repo, _, program| {
            let mut cmd = client_command(repo, program);
            cmd.args([
                "exec",
                "--dangerously-bypass-hook-trust",
                "resume",
                "--last",
                RESUMED_PROMPT,
            ])
            .env("SCRIPTED_MODEL_API_KEY", "test-key-for-the-scripted-model");
            cmd
        },
    );
}

#[test]
fn gemini_cli_resumed_holds_one_briefing_and_each_record_once() {
    let gemini = |resume: bool| {
        move |repo: &TestRepo, model: &FakeModel, program: &Path| {
            let mut cmd = client_command(repo, program);
            if resume {
                cmd.args(["--resume", "latest", "-p", RESUMED_PROMPT]);
            } else {
                cmd.args(["-p", FIRST_PROMPT]);
            }
            cmd.args(["--model", "gemini-2.5-flash", "--output-format", "json"])
                .env("GOOGLE_GEMINI_BASE_URL", model.url())
                .env("GEMINI_API_KEY", "test-key-for-the-scripted-model")
                .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
            cmd
        }
    };
    continued_conversation(
        GEMINI_CLI,
        |repo, _| gemini_home_settings(repo),
        gemini(false),
        gemini(true),
    );
}

// --- The end of a record's life, read by a real client (issue 35) -------------------------

/// The texts a hook added to what the model reads in `body`, after `heading`.
fn hook_texts(body: &Value, heading: &str) -> Vec<String> {
    let mut texts = Vec::new();
    strings(body, &mut texts);
    texts
        .iter()
        .filter_map(|t| t.find(heading).map(|at| t[at..].to_owned()))
        .collect()
}

/// Claude Code, set up in `repo`, given `prompt` against a model that answers at once: the
/// request bodies the model received.
fn claude_prompt(repo: &TestRepo, program: &Path, prompt: &str) -> Vec<Recorded> {
    repo.run(&["setup", "claude-code"]).success();
    claude_home_trust(repo);
    let model = FakeModel::start(Arc::new(|_: &Value| None));
    let mut cmd = client_command(repo, program);
    cmd.args(["-p", prompt, "--output-format", "json"]);
    cmd.env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "test-key-for-the-scripted-model")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    let output = run_to_end(cmd, "claude");
    assert!(
        output.status.success(),
        "claude exited {:?}: {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    model.requests()
}

#[test]
fn claude_code_prompt_brings_the_current_record_never_the_one_it_superseded() {
    let Some(program) = installed(CLAUDE_CODE) else {
        return;
    };
    let repo = crate::lifecycle::project();
    let old = crate::lifecycle::verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let new = crate::lifecycle::decided(
        &repo,
        "Model pricing refresh is now async",
        "src/pricing.rs",
    );
    repo.run_with_stdin(
        &["knowledge", "promote", &new, "--supersedes", &old],
        "src/pricing.rs spawns refresh()",
    )
    .success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Supersede the synchronous refresh"]);
    let requests = claude_prompt(
        &repo,
        &program,
        "Go ahead and apply the pricing refresh change we agreed on",
    );
    let turn: Vec<&Recorded> = requests
        .iter()
        .filter(|r| !offered(&r.body).is_empty())
        .collect();
    assert!(!turn.is_empty(), "no request of the turn: {requests:?}");
    let said = hook_texts(&turn[0].body, PROMPT_HEADING).join("\n");
    assert!(
        said.contains(&new),
        "the current record is not in the first request: {said}\n{}",
        turn[0].body
    );
    // Nothing majordomus put before the model names it (its id is in a commit subject git
    // status shows; its claim is only majordomus's to show).
    for r in &requests {
        for text in hook_texts(&r.body, PROMPT_HEADING) {
            assert!(
                !text.contains(&old),
                "the superseded record was injected: {text}"
            );
        }
        assert!(
            !r.body.to_string().contains("must stay synchronous"),
            "the superseded claim reached the model: {}",
            r.body
        );
    }
}

/// A field trial's tool (docs/FIELD.md, step 18): Claude Code in a copy of the repository
/// at `MAJORDOMUS_FIELD_REPO`, given `MAJORDOMUS_FIELD_PROMPT`; writes every request body
/// the model received to `MAJORDOMUS_FIELD_OUT` (one JSON document a line) and prints what
/// the prompt hook added to the first request of the turn. Not part of the suite: it reads
/// a repository outside the test's own temporary directory.
#[test]
#[ignore = "a field trial's tool: MAJORDOMUS_FIELD_REPO, MAJORDOMUS_FIELD_PROMPT, MAJORDOMUS_FIELD_OUT"]
fn field_trial_prompt_through_claude_code() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set (docs/FIELD.md, step 18)"))
    };
    let program = installed(CLAUDE_CODE).expect("Claude Code is installed");
    let repo = TestRepo::copied_from(Path::new(&var("MAJORDOMUS_FIELD_REPO")));
    let requests = claude_prompt(&repo, &program, &var("MAJORDOMUS_FIELD_PROMPT"));
    let lines: Vec<String> = requests.iter().map(|r| r.body.to_string()).collect();
    std::fs::write(var("MAJORDOMUS_FIELD_OUT"), lines.join("\n") + "\n").expect("write the log");
    let turn = requests
        .iter()
        .find(|r| !offered(&r.body).is_empty())
        .expect("a request of the turn");
    eprintln!(
        "== {} request(s); the prompt hook's text in the first of the turn:\n{}",
        requests.len(),
        hook_texts(&turn.body, PROMPT_HEADING).join("\n--\n")
    );
}
