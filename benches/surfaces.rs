//! Surface latency: the `context` operation through MCP (a `tools/call` on a running
//! `majordomus mcp`) and through HTTP (a `GET /api/v1/context` on a running `majordomus
//! serve`, a new connection each time), against the same operation in-process
//! (`Registry::invoke`, the repository opened per call as the servers do) and against a
//! `majordomus context` process. Medians, p90 and ratios, as markdown (docs/PERFORMANCE.md).
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench surfaces
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench surfaces    # few runs, a smoke run
//! ```
#![forbid(unsafe_code)]

mod common;

use common::{committed_now, repeat};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use majordomus::authored;
use majordomus::git::{Identity, Repo};
use majordomus::ops::Registry;
use majordomus::session::{self, StartRequest};
use majordomus::{Clock, Ctx};

const BIN: &str = env!("CARGO_BIN_EXE_majordomus");

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1e3)
    }
}

/// A repository like one in use: initialised, an open episode with decisions, a question,
/// checkpoints and a commit.
fn fixture(root: &Path) {
    let identity = Identity {
        name: "bench".into(),
        email: "bench@majordomus.invalid".into(),
    };
    let repo = Repo::init(root).expect("git init");
    repo.commit_files(
        &[("README.md", b"# bench\n".as_slice())],
        "Initial commit",
        1_764_000_000,
        &identity,
    )
    .expect("first commit");
    drop(repo);
    let ctx = Ctx::open(root, Clock::System).expect("open the repository");
    majordomus::init::init(&ctx, Default::default()).expect("majordomus init");
    session::start(&ctx, StartRequest::default()).expect("session start");
    for text in ["use gix", "one ledger per clone", "serve on loopback only"] {
        authored::record_decision(
            &ctx,
            authored::DecisionRequest {
                text: text.into(),
                task: None,
                files: Vec::new(),
                base: None,
            },
        )
        .expect("decision");
    }
    authored::ask_question(
        &ctx,
        authored::QuestionRequest {
            text: "Which port?".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("question");
    ctx.repo
        .commit_files(
            &[("src/lib.rs", b"pub fn answer() -> u32 { 42 }\n".as_slice())],
            "Add the answer",
            // Committed now, after the episode opened: an earlier commit time would
            // make it work the episode did not do (model::episode::attribute_commits).
            committed_now(),
            &identity,
        )
        .expect("commit");
    authored::record_checkpoint(
        &ctx,
        authored::CheckpointRequest {
            text: "fixture built".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("checkpoint");
}

/// A `majordomus mcp` after the handshake.
struct Mcp {
    child: Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl Mcp {
    fn start(root: &Path) -> Mcp {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn majordomus mcp");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut mcp = Mcp {
            child,
            lines,
            next: 1,
        };
        mcp.request(
            r#""method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}"#,
        );
        mcp.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn write(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// One request and its reply line (notifications in between skipped).
    fn request(&mut self, body: &str) -> String {
        let id = self.next;
        self.next += 1;
        self.write(&format!(r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#));
        let marker = format!(r#""id":{id},"#);
        loop {
            let line = self.lines.next().expect("a reply").expect("a line");
            if line.contains(&marker) {
                return line;
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// A `majordomus serve --port 0`; its address.
struct Served {
    child: Child,
    addr: String,
}

impl Served {
    fn start(root: &Path) -> Served {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0"])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn majordomus serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the address line");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .expect("listening on ...")
            .to_owned();
        Served { child, addr }
    }

    fn get(&self, path: &str) -> Vec<u8> {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .expect("write");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        answer
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    let quick = std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let runs = if quick { 20 } else { 300 };
    let dir = tempfile::Builder::new()
        .prefix("majordomus-bench-")
        .tempdir()
        .expect("a temporary directory");
    let root = dir.path();
    fixture(root);
    eprintln!("fixture at {}", root.display());

    let registry = Registry::standard();
    let in_process = || {
        let ctx = Ctx::open(root, Clock::System).expect("open");
        registry
            .invoke(&ctx, "context", serde_json::Value::Null)
            .expect("context");
    };
    // Warm the page cache and the allocator before any measurement.
    for _ in 0..10 {
        in_process();
    }
    let base = repeat(runs, in_process);

    let mut mcp = Mcp::start(root);
    let call = r#""method":"tools/call","params":{"name":"majordomus_context","arguments":{}}"#;
    for _ in 0..10 {
        mcp.request(call);
    }
    let through_mcp = repeat(runs, || {
        let reply = mcp.request(call);
        assert!(reply.contains(r#""isError":false"#), "{reply}");
    });
    drop(mcp);

    let served = Served::start(root);
    for _ in 0..10 {
        served.get("/api/v1/context");
    }
    let through_http = repeat(runs, || {
        let answer = served.get("/api/v1/context");
        assert!(
            answer.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&answer)
        );
    });
    drop(served);

    let process = repeat(runs.min(100), || {
        let out = Command::new(BIN)
            .arg("context")
            .current_dir(root)
            .stdin(Stdio::null())
            .output()
            .expect("run majordomus context");
        assert!(out.status.success());
    });

    println!("| `context` through | runs | median | p90 | median ÷ in-process |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, stats) in [
        (
            "in-process `Registry::invoke` (repository opened per call)",
            base,
        ),
        (
            "MCP `tools/call majordomus_context` (stdio round trip)",
            through_mcp,
        ),
        (
            "HTTP `GET /api/v1/context` (new connection each)",
            through_http,
        ),
        ("`majordomus context` process (spawn, run, exit)", process),
    ] {
        println!(
            "| {name} | {} | {} | {} | {:.2}× |",
            stats.runs,
            show(stats.median),
            show(stats.p90),
            stats.median.as_secs_f64() / base.median.as_secs_f64()
        );
    }
}
