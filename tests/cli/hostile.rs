//! Hostile input (docs/HOSTILE.md): ids that would become paths, oversized and non-UTF-8
//! input, a store full of corrupted files, a secrets corpus through every writer, and
//! malformed requests to the MCP and HTTP servers. Whatever comes in: a clear error or a
//! refusal with its rule, never a panic, never a file outside `.ai/`, never a secret
//! written.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::TestRepo;

/// What one run printed (decoded lossily: a hostile run may print anything) and its code.
#[derive(Debug)]
struct Raw {
    command: String,
    code: i32,
    stdout: String,
    stderr: String,
}

impl Raw {
    /// Panics on a panic: exit 101 or "panicked" on stderr.
    #[track_caller]
    fn no_panic(&self) -> &Raw {
        assert!(
            self.code != 101 && !self.stderr.contains("panicked"),
            "{} panicked (exit {}):\n{}",
            self.command,
            self.code,
            self.stderr
        );
        assert!(self.code >= 0, "{} was killed by a signal", self.command);
        self
    }

    /// Panics unless this is a `--format json` error with `code` and `rule`.
    #[track_caller]
    fn json_error(&self, code: i32, rule: &str) -> Value {
        self.no_panic();
        assert_eq!(self.code, code, "{self:?}");
        let json: Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{}: stdout is not JSON ({e}): {self:?}", self.command));
        assert_eq!(json["error"]["rule"], rule, "{self:?}");
        assert_eq!(json["error"]["code"], code, "{self:?}");
        json["error"].clone()
    }

    /// Panics unless this is a human error: one `majordomus: ` line naming `needle` (then
    /// at most a `fix:` line), shorter than 400 bytes, exit `code`.
    #[track_caller]
    fn human_error(&self, code: i32, needle: &str) {
        self.no_panic();
        assert_eq!(self.code, code, "{self:?}");
        let mut lines = self.stderr.lines();
        let first = lines.next().unwrap_or_default();
        assert!(
            first.starts_with("majordomus: ") && first.contains(needle),
            "first stderr line should be `majordomus: ...{needle}...`: {self:?}"
        );
        assert!(first.len() < 400, "a long error line: {}", first.len());
        for rest in lines {
            assert!(rest.starts_with("fix: "), "{self:?}");
        }
    }
}

/// Runs `majordomus ARGS` (any bytes) at the root with `stdin` piped in.
fn raw(repo: &TestRepo, args: &[OsString], stdin: &[u8]) -> Raw {
    let mut child = repo
        .command_in(repo.root(), &[])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn majordomus");
    let mut pipe = child.stdin.take().expect("piped stdin");
    let input = stdin.to_vec();
    // The command may refuse before it has read everything; a broken pipe is fine.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for majordomus");
    writer.join().expect("stdin writer");
    Raw {
        command: format!(
            "majordomus {}",
            args.iter()
                .map(|a| a.to_string_lossy().chars().take(60).collect::<String>())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

/// `raw` with UTF-8 arguments.
fn run(repo: &TestRepo, list: &[&str], stdin: &str) -> Raw {
    raw(repo, &args(list), stdin.as_bytes())
}

/// Every path under `dir` (recursively), relative to it, `.git` excluded.
fn tree(dir: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            out.insert(
                path.strip_prefix(root)
                    .expect("under root")
                    .to_string_lossy()
                    .into_owned(),
            );
            if path.is_dir() {
                walk(&path, root, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// The paths under the test's temporary directory outside `repo/.ai/` (and outside
/// `.git`, `home/` and `tmp/`, which git and the runner own).
fn outside_ai(repo: &TestRepo) -> BTreeSet<String> {
    tree(repo.base())
        .into_iter()
        .filter(|p| !p.starts_with("repo/.ai") && !p.starts_with("home") && !p.starts_with("tmp"))
        .collect()
}

/// Ids that must never become a path, one per way of trying.
fn hostile_ids(repo: &TestRepo) -> Vec<String> {
    vec![
        "../x".into(),
        "../../../../../../etc/passwd".into(),
        "a/b".into(),
        repo.base().join("escape").display().to_string(),
        "x\u{1}y".into(),
        "\u{7f}".into(),
        "\t".into(),
        "a".repeat(20_000),
        // Cyrillic `е` in an otherwise well-shaped question id.
        "q-1a2b3c4d5\u{435}".into(),
        // A full-width solidus.
        "t-20261130-1a2b\u{ff0f}x".into(),
        String::new(),
        ".".into(),
        "..".into(),
        "t-20261130-1a2b/../../x".into(),
        "20261130T101500Z-1a2b3c/../../../x".into(),
        "20261130T101500Z-1a2b3c\n".into(),
        "assessment-0123456789ab/../../x".into(),
        "C:\\x".into(),
    ]
}

#[test]
fn hostile_ids_are_refused_by_their_shape_and_write_nothing_outside_ai() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let assessment = json!({
        "kind": "assessment", "subject": "s", "materiality": "low", "confidence": "low",
        "hypothesis": "h", "evidence": ["observation:seen"],
    })
    .to_string();
    let known_candidate = "20261130T101500Z-1a2b3c-0123456789ab";
    let before = outside_ai(&repo);
    for id in hostile_ids(&repo) {
        let id = id.as_str();
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec!["knowledge", "promote", id], "the test shows it\n"),
            (vec!["knowledge", "reject", id, "--reason", "wrong"], ""),
            (
                vec![
                    "knowledge",
                    "reject",
                    known_candidate,
                    "--reason",
                    "r",
                    "--by",
                    id,
                ],
                "",
            ),
            (vec!["knowledge", "show", id], ""),
            (vec!["knowledge", "derive", "--episode", id], ""),
            (vec!["question", "resolve", id, "an answer"], ""),
            (vec!["decision", "a decision", "--task", id], ""),
            (vec!["reasoning", "explain", id], ""),
            (
                vec!["reasoning", "record", "--task", id],
                assessment.as_str(),
            ),
            (vec!["handover", "--derive", "--episode", id], ""),
            (vec!["history", "--session", id], ""),
        ];
        for (command, stdin) in cases {
            let mut full = vec!["--format", "json"];
            full.extend(&command);
            let shown = format!("{:?} with id {:?}", command[..2].to_vec(), {
                let s: String = id.chars().take(40).collect();
                s
            });
            let out = run(&repo, &full, stdin);
            // Every id is checked against its shape at the edge (SPEC §0), a task id for
            // `decision --task` included.
            let error = out.json_error(3, "id.shape");
            let message = error["message"].as_str().unwrap_or_default();
            assert!(
                message.len() < 300,
                "{shown}: the message echoes the whole id ({} bytes)",
                message.len()
            );
            // The human form: one short line naming the rule's subject, then the fix.
            let out = run(&repo, &command, stdin);
            out.human_error(3, "");
        }
    }
    assert_eq!(outside_ai(&repo), before, "a file was written outside .ai/");
    assert!(!repo.base().join("escape").exists());
    assert!(!repo.base().join("x").exists());
}

#[test]
fn hostile_session_ids_from_state_ledger_and_payloads_never_become_paths() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let before = outside_ai(&repo);
    // The state file names an episode no writer would make.
    let state = repo.read(".ai/local/state/episode.json");
    let hostile = state.replace(&episode, "../../../escape");
    repo.write(".ai/local/state/episode.json", &hostile);
    for command in [
        vec!["decision", "a decision"],
        vec!["checkpoint", "here"],
        vec!["task", "start", "a task"],
        vec!["session", "context"],
        vec!["handover", "--derive"],
        vec!["knowledge", "derive"],
        vec!["session", "close"],
        vec!["briefing"],
        vec!["context"],
    ] {
        let out = run(&repo, &command, "");
        out.no_panic();
    }
    // Ledger lines stamped with a hostile session and task, as a forged line would be.
    repo.append_ledger(&crate::common::ledger_line(
        900,
        crate::common::NOW,
        "decision.recorded",
        Some("../../../escape"),
        Some("../../escape-task"),
        &json!({"text": "forged"}),
    ));
    repo.append_ledger(&crate::common::ledger_line(
        901,
        crate::common::NOW,
        "task.started",
        Some("../../../escape"),
        Some("../../escape-task"),
        &json!({"description": "forged", "scope": []}),
    ));
    for command in [
        vec!["history"],
        vec!["task", "list"],
        vec!["knowledge", "derive", "--episode", "../../../escape"],
        vec!["handover", "--derive"],
        vec!["doctor"],
    ] {
        run(&repo, &command, "").no_panic();
    }
    // A provider payload naming a hostile session.
    for hook in ["session-start", "session-end", "compact"] {
        let payload =
            json!({"session_id": "../../../escape", "hook_event_name": hook, "cwd": repo.root()})
                .to_string();
        let out = run(&repo, &["hook", hook], &payload);
        out.no_panic();
        assert_eq!(
            out.code, 0,
            "a provider hook never fails its provider: {out:?}"
        );
    }
    assert_eq!(outside_ai(&repo), before, "a file was written outside .ai/");
    assert!(!repo.base().join("escape").exists());
    assert!(!repo.root().join("escape-task.md").exists());
}

/// One byte that is never UTF-8, in the middle of text.
fn bad_utf8(text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.insert(bytes.len() / 2, 0xff);
    bytes.extend_from_slice(&[0xc3, 0x28]);
    bytes
}

#[test]
fn non_utf8_arguments_are_a_usage_error_not_a_panic() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let bad = OsString::from_vec(bad_utf8("a decision"));
    for list in [
        vec![OsString::from("decision"), bad.clone()],
        vec![
            "--format".into(),
            "json".into(),
            "decision".into(),
            bad.clone(),
        ],
        vec!["knowledge".into(), "show".into(), bad.clone()],
        vec!["question".into(), "resolve".into(), bad.clone(), "x".into()],
        vec!["-C".into(), bad.clone(), "env".into()],
        vec![bad.clone()],
    ] {
        let out = raw(&repo, &list, b"");
        out.no_panic();
        assert_eq!(out.code, 2, "{out:?}");
        if list[0] == "-C" {
            // A directory name need not be UTF-8: it is looked for, and is not there.
            assert!(out.stderr.contains("no such directory"), "{out:?}");
        } else if list[0] == "--format" {
            let json: Value = serde_json::from_str(&out.stdout).expect("a JSON error");
            assert_eq!(json["error"]["rule"], "usage", "{out:?}");
        } else if list.len() == 1 {
            assert!(out.stderr.contains("unrecognized subcommand"), "{out:?}");
        } else {
            assert!(out.stderr.contains("UTF-8"), "{out:?}");
        }
    }
    assert!(repo.ledger_events("decision.recorded").is_empty());
}

#[test]
fn non_utf8_stdin_is_an_error_naming_stdin() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let cases: Vec<(Vec<&str>, Vec<u8>)> = vec![
        (
            vec![
                "knowledge",
                "promote",
                "20261130T101500Z-1a2b3c-0123456789ab",
            ],
            bad_utf8("the test shows it"),
        ),
        (
            vec!["reasoning", "record"],
            bad_utf8(
                r#"{"kind": "attempt", "tried": "t", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h"}"#,
            ),
        ),
        (vec!["session", "close"], bad_utf8("the summary")),
    ];
    for (command, stdin) in cases {
        let out = raw(&repo, &args(&command), &stdin);
        out.human_error(2, "stdin");
        assert!(out.stderr.contains("UTF-8"), "{out:?}");
    }
    // Nothing was closed on a summary it could not read.
    assert!(repo.episode_state().is_some());
}

/// A candidate of the plain shape, for tests that need one on disk.
fn write_candidate(repo: &TestRepo, id: &str) -> String {
    let rel = format!(".ai/repo/knowledge/candidates/{id}.md");
    repo.write(
        &rel,
        &crate::common::knowledge_record(id, "candidate", &[], "", "The ledger is append-only."),
    );
    rel
}

#[test]
fn non_utf8_files_under_ai_are_errors_naming_the_file() {
    let id = "20261130T101500Z-1a2b3c-0123456789ab";
    // A candidate.
    let repo = TestRepo::initialised();
    let rel = write_candidate(&repo, id);
    let mut bytes = std::fs::read(repo.path(&rel)).expect("read");
    bytes.extend_from_slice(&bad_utf8("tail"));
    std::fs::write(repo.path(&rel), &bytes).expect("write");
    let out = run(&repo, &["knowledge", "show", id], "");
    out.human_error(1, &format!("{id}.md"));
    let out = run(&repo, &["knowledge", "promote", id], "evidence\n");
    out.human_error(1, &format!("{id}.md"));
    let out = run(&repo, &["knowledge", "check"], "");
    out.no_panic();
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains(&format!("{id}.md")) || out.stderr.contains(&format!("{id}.md")),
        "{out:?}"
    );

    // The policy.
    let repo = TestRepo::initialised();
    let mut policy = std::fs::read(repo.path(".ai/repo/policy.yaml")).expect("read");
    policy.extend_from_slice(&bad_utf8("# odd"));
    std::fs::write(repo.path(".ai/repo/policy.yaml"), &policy).expect("write");
    for command in [vec!["session", "start"], vec!["doctor"], vec!["context"]] {
        let out = run(&repo, &command, "");
        out.human_error(1, "policy.yaml");
    }

    // An intent.
    let repo = TestRepo::initialised();
    repo.write(".ai/repo/intents/auth.yaml", "id: auth\nstatus: active\n");
    let mut intent = std::fs::read(repo.path(".ai/repo/intents/auth.yaml")).expect("read");
    intent.extend_from_slice(&bad_utf8("statement: x"));
    std::fs::write(repo.path(".ai/repo/intents/auth.yaml"), &intent).expect("write");
    let out = run(&repo, &["intent", "validate"], "");
    out.no_panic();
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("auth.yaml"),
        "{out:?}"
    );

    // A ledger line: skipped and said, the others still read.
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "before"]).success();
    let mut ledger = std::fs::read(repo.path(".ai/local/ledger.jsonl")).expect("read");
    ledger.extend_from_slice(&bad_utf8("{\"seq\": 99, \"garbage\": true}"));
    ledger.push(b'\n');
    std::fs::write(repo.path(".ai/local/ledger.jsonl"), &ledger).expect("write");
    let out = run(&repo, &["--format", "json", "history"], "");
    out.no_panic();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("before"), "{out:?}");
    let out = run(&repo, &["decision", "after"], "");
    assert_eq!(out.no_panic().code, 0, "{out:?}");
}

/// Garbage of several kinds, by name.
fn garbage() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty", Vec::new()),
        ("binary", (0u8..=255).cycle().take(4096).collect()),
        ("not-utf8", bad_utf8("id: x\nstatus: active\n")),
        (
            "deep-json",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        ),
        (
            "deep-yaml",
            format!("a: {}1{}", "[".repeat(10_000), "]".repeat(10_000)).into_bytes(),
        ),
        (
            "wrong-types",
            b"{\"seq\": -1, \"ts\": 5, \"event\": [], \"id\": {}, \"kind\": 1e999}\n---\nid: [1]\n---\n"
                .to_vec(),
        ),
        ("front-matter-open", b"---\nid: x\nstatus: candidate\n".to_vec()),
        ("huge-number", b"{\"seq\": 123456789012345678901234567890}\n".to_vec()),
    ]
}

/// Every file under `.ai/` of `repo`, relative to the root.
fn ai_files(repo: &TestRepo) -> Vec<String> {
    tree(&repo.path(".ai"))
        .into_iter()
        .filter(|p| repo.path(".ai").join(p).is_file())
        .map(|p| format!(".ai/{p}"))
        .collect()
}

/// A store with something of everything: an episode, decisions, a question, a task, a
/// candidate, a reasoning record, an intent, a closed session and a handover.
fn populated() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/intents/auth.yaml",
        "id: auth\nstatus: active\nstatement: People sign in.\ncriteria:\n  - id: c1\n    text: A user signs in.\nissues:\n  - id: login\n    title: Login\n    status: open\n    paths: [src/**]\n    serves: [c1]\n",
    );
    repo.start_episode();
    repo.run(&["decision", "Use gix for git access"]).success();
    repo.run(&["question", "Is the cache needed?"]).success();
    repo.run(&["checkpoint", "parser done"]).success();
    repo.run(&["task", "start", "Port the parser"]).success();
    let record = json!({"kind": "assessment", "subject": "s", "materiality": "low",
        "confidence": "low", "hypothesis": "h", "evidence": ["observation:seen"]});
    repo.run_with_stdin(&["reasoning", "record"], &record.to_string())
        .success();
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();
    repo.run(&["handover", "--derive"]).success();
    repo.start_episode();
    repo
}

/// Every command that only reads, as a list of argument lists.
fn read_commands(candidate: &str) -> Vec<Vec<String>> {
    let list: Vec<Vec<&str>> = vec![
        vec!["env"],
        vec!["history"],
        vec!["briefing"],
        vec!["context"],
        vec!["session", "context"],
        vec!["task", "list"],
        vec!["intent", "validate"],
        vec!["intent", "binding", "--issue", "login"],
        vec!["handover", "--resolve"],
        vec!["reasoning", "status"],
        vec!["reasoning", "advisors"],
        vec!["reasoning", "check"],
        vec!["knowledge", "candidates"],
        vec!["knowledge", "status"],
        vec!["knowledge", "check"],
        vec!["knowledge", "edges"],
        vec!["knowledge", "show", candidate],
        vec!["doctor"],
        vec!["rules", "vendor"],
    ];
    list.into_iter()
        .flat_map(|l| {
            let human: Vec<String> = l.iter().map(|s| (*s).to_owned()).collect();
            let mut json = vec!["--format".to_owned(), "json".to_owned()];
            json.extend(human.clone());
            [human, json]
        })
        .collect()
}

#[test]
fn no_read_command_panics_on_a_store_of_corrupted_files() {
    let repo = populated();
    let files = ai_files(&repo);
    assert!(files.len() >= 8, "a populated store: {files:?}");
    let candidate = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .next()
        .expect("a candidate");
    let pristine: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|f| (f.clone(), std::fs::read(repo.path(f)).expect("read")))
        .collect();
    for (name, bytes) in garbage() {
        for f in &files {
            std::fs::write(repo.path(f), &bytes).expect("corrupt a file");
        }
        for command in read_commands(&candidate) {
            let list: Vec<&str> = command.iter().map(String::as_str).collect();
            let out = run(&repo, &list, "");
            out.no_panic();
            assert!(!out.stderr.contains("RUST_BACKTRACE"), "{name}: {out:?}");
        }
    }
    // And each file corrupted alone, the others intact.
    for (f, _) in &pristine {
        for (g, bytes) in &pristine {
            std::fs::write(repo.path(g), bytes).expect("restore");
        }
        std::fs::write(repo.path(f), bad_utf8("{\"id\": 1}\n")).expect("corrupt one file");
        for command in read_commands(&candidate) {
            let list: Vec<&str> = command.iter().map(String::as_str).collect();
            let out = run(&repo, &list, "");
            out.no_panic();
        }
    }
}

/// Deterministic characters from `alphabet`, so no secret-shaped literal sits in the
/// source.
fn noise(alphabet: &str, len: usize, seed: u64) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            chars[(state >> 33) as usize % chars.len()]
        })
        .collect()
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const DIGITS: &str = "0123456789";
const BASE64: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";

/// (text carrying a secret, the part that must never be written), one per shape family
/// of SPEC §0 (docs/HOSTILE.md lists the shapes).
fn secrets(seed: u64) -> Vec<(String, String)> {
    let aws = format!("AKIA{}", noise(UPPER, 16, seed));
    let aws_secret = noise(BASE64, 40, seed + 1);
    let github = format!("ghp_{}", noise(ALNUM, 36, seed + 2));
    let gitlab = format!("glpat-{}", noise(ALNUM, 20, seed + 3));
    let slack = format!(
        "xoxb-{}-{}-{}",
        noise(DIGITS, 12, seed + 4),
        noise(DIGITS, 13, seed + 5),
        noise(ALNUM, 24, seed + 6)
    );
    let webhook_key = noise(ALNUM, 24, seed + 7);
    let stripe = format!("sk_live_{}", noise(ALNUM, 24, seed + 8));
    let pem_body = noise(BASE64, 64, seed + 9);
    let bearer = noise(ALNUM, 40, seed + 10);
    let password = format!("Pw{}", noise(ALNUM, 14, seed + 11));
    let url_password = format!("hunter{}", noise(DIGITS, 8, seed + 12));
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{}.{}",
        noise(ALNUM, 20, seed + 13),
        noise(ALNUM, 43, seed + 14)
    );
    vec![
        (format!("deploy key {aws} in use"), aws),
        (format!("aws_secret_access_key = {aws_secret}"), aws_secret),
        (format!("GH_TOKEN={github}"), github),
        (format!("PRIVATE-TOKEN: {gitlab}"), gitlab),
        (format!("the bot posts with {slack}"), slack),
        (
            format!("alerts to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{webhook_key}"),
            webhook_key,
        ),
        (format!("Stripe key \"{stripe}\""), stripe),
        (
            format!("-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----"),
            pem_body,
        ),
        (format!("Authorization: Bearer {bearer}"), bearer),
        (format!("password={password}"), password),
        (
            format!("clone https://ada:{url_password}@example.com/r.git"),
            url_password,
        ),
        (format!("session {jwt}"), jwt),
    ]
}

/// Every object git holds in `repo`, as text.
fn git_objects(repo: &TestRepo) -> String {
    let list = repo.git(&[
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objectname)",
    ]);
    let mut child = repo
        .git_command_in(repo.root(), &["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn git");
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let _ = stdin.write_all(list.as_bytes());
        let _ = stdin.write_all(b"\n");
    });
    let output = child.wait_with_output().expect("git cat-file");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_secrets_corpus_through_every_writer_reaches_no_file_and_no_git_object() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let corpus = secrets(1);
    let all: Vec<String> = corpus.iter().map(|(t, _)| t.clone()).collect();
    let joined = all.join("\n");
    // Authored records, each secret alone and all together.
    for (text, _) in &corpus {
        // `--`: a private key block starts with dashes.
        repo.run(&["decision", "--", text]).success();
        repo.run(&["question", "--", text]).success();
        repo.run(&["checkpoint", "--", text]).success();
    }
    let asked = repo.ledger_events("question.asked");
    let qid = asked[0]["data"]["id"]
        .as_str()
        .expect("a question id")
        .to_owned();
    repo.run(&["question", "resolve", &qid, &joined]).success();
    // A task with a secret in its description and its blocked reason.
    repo.run(&["task", "start", &format!("rotate {}", corpus[0].0)])
        .success();
    let record = json!({"kind": "attempt", "tried": joined, "failure": joined,
        "invalidated_assumption": joined, "updated_hypothesis": joined});
    repo.run_with_stdin(&["reasoning", "record"], &record.to_string())
        .success();
    repo.run(&["task", "finish", "--status", "blocked", "--reason", &joined])
        .success();
    repo.run(&["task", "start", &joined, "--scope", "src/"])
        .success();
    repo.run(&["task", "finish"]).success();
    // The close (summary on stdin) derives candidates; one is promoted with evidence
    // carrying secrets, another rejected with a reason carrying them.
    repo.run_with_stdin(&["session", "close"], &joined)
        .success();
    repo.run(&["handover", "--derive"]).success();
    let candidates = repo.record_ids(".ai/repo/knowledge/candidates");
    assert!(candidates.len() >= 2, "{candidates:?}");
    repo.run_with_stdin(&["knowledge", "promote", &candidates[0]], &joined)
        .success();
    repo.run(&["knowledge", "reject", &candidates[1], "--reason", &joined])
        .success();
    repo.git(&["add", "-A", ".ai"]);
    repo.git(&["commit", "-q", "-m", "records"]);

    let objects = git_objects(&repo);
    for (path, (bytes, _)) in repo.files() {
        if !path.starts_with(".ai") {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (_, secret) in &corpus {
            assert!(!text.contains(secret.as_str()), "{path} keeps `{secret}`");
        }
    }
    for (_, secret) in &corpus {
        assert!(
            !objects.contains(secret.as_str()),
            "a git object keeps `{secret}`"
        );
    }
    // Redaction was said, shape by shape.
    let ledger = repo.ledger_text();
    for shape in [
        "aws-access-key-id",
        "github-token",
        "slack-token",
        "private-key",
        "bearer-token",
        "secret-assignment",
        "url-password",
        "jwt",
    ] {
        assert!(
            ledger.contains(&format!("[redacted: {shape}]")),
            "no `{shape}` marker in the ledger"
        );
    }
}

/// The documented limits (docs/HOSTILE.md).
const TEXT_LIMIT: usize = 64 * 1024;
const INPUT_LIMIT: usize = 1024 * 1024;

#[test]
fn oversized_input_is_refused_by_its_limit_and_writes_nothing() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let lines = repo.ledger().len();
    // An argument over the text limit (the kernel caps one argument at 128 KiB).
    let big = "x".repeat(TEXT_LIMIT + 1);
    for command in [
        vec!["decision", big.as_str()],
        vec!["question", big.as_str()],
        vec!["checkpoint", big.as_str()],
        vec!["task", "start", big.as_str()],
    ] {
        let out = run(&repo, &command, "");
        out.human_error(3, "65536");
        let mut json = vec!["--format", "json"];
        json.extend(&command);
        run(&repo, &json, "").json_error(3, "input.size");
    }
    // Exactly at the limit is accepted.
    let at = "y".repeat(TEXT_LIMIT);
    assert_eq!(run(&repo, &["decision", &at], "").no_panic().code, 0);
    assert_eq!(repo.ledger().len(), lines + 1);
    // Several megabytes on stdin.
    let huge = "z".repeat(5 * INPUT_LIMIT);
    let id = "20261130T101500Z-1a2b3c-0123456789ab";
    write_candidate(&repo, id);
    for command in [
        vec!["knowledge", "promote", id],
        vec!["reasoning", "record"],
        vec!["session", "close"],
    ] {
        let out = run(&repo, &command, &huge);
        out.human_error(3, "1048576");
        let mut json = vec!["--format", "json"];
        json.extend(&command);
        run(&repo, &json, &huge).json_error(3, "input.size");
    }
    assert!(repo.exists(&format!(".ai/repo/knowledge/candidates/{id}.md")));
    assert!(repo.episode_state().is_some(), "the close was refused");
    assert_eq!(repo.ledger().len(), lines + 1);
}

// --- MCP and HTTP -------------------------------------------------------------------

#[test]
fn malformed_mcp_messages_get_errors_and_the_server_keeps_serving() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let raw_lines: Vec<Vec<u8>> = vec![
        b"not json at all".to_vec(),
        b"{".to_vec(),
        b"[]".to_vec(),
        b"{\"jsonrpc\": \"2.0\", \"id\": 5000, \"method\": 7}".to_vec(),
        b"{\"jsonrpc\": \"1.0\", \"id\": 5001, \"method\": \"tools/list\"}".to_vec(),
        b"{\"jsonrpc\": \"2.0\", \"id\": 1e999, \"method\": \"tools/list\"}".to_vec(),
        bad_utf8("{\"jsonrpc\": \"2.0\", \"id\": 5002, \"method\": \"tools/list\"}"),
        format!(
            "{{\"jsonrpc\": \"2.0\", \"id\": 5003, \"method\": \"tools/call\", \"params\": {deep}}}"
        )
        .into_bytes(),
        deep.clone().into_bytes(),
    ];
    for line in &raw_lines {
        mcp.send_raw(line);
    }
    // Tool calls with wrong types, unknown fields, deep nesting, huge numbers.
    let calls = vec![
        json!({"name": "majordomus_decision_record", "arguments": {"text": 5}}),
        json!({"name": "majordomus_decision_record", "arguments": {"text": "x", "colour": "red"}}),
        json!({"name": "majordomus_decision_record", "arguments": "text"}),
        json!({"name": "majordomus_decision_record", "arguments": {"text": ["x"]}}),
        json!({"name": "majordomus_history", "arguments": {"since": 1e300}}),
        json!({"name": "majordomus_question_resolve", "arguments": {"id": "../x", "answer": "a"}}),
        json!({"name": "majordomus_no_such_tool", "arguments": {}}),
        json!({"name": 12, "arguments": {}}),
        json!({"name": "majordomus_decision_record", "arguments": {"text": "x".repeat(5 * INPUT_LIMIT)}}),
    ];
    for params in calls {
        let reply = mcp.request("tools/call", params.clone());
        let is_error = reply.get("error").is_some() || reply["result"]["isError"] == true;
        assert!(is_error, "{params:.200}: {reply:.400}");
    }
    // The id shape and the size limit are named.
    let reply = mcp.request(
        "tools/call",
        json!({"name": "majordomus_question_resolve", "arguments": {"id": "../x", "answer": "a"}}),
    );
    assert_eq!(
        reply["result"]["structuredContent"]["error"]["rule"], "id.shape",
        "{reply}"
    );
    let reply = mcp.request(
        "tools/call",
        json!({"name": "majordomus_decision_record", "arguments": {"text": "x".repeat(TEXT_LIMIT + 1)}}),
    );
    assert_eq!(
        reply["result"]["structuredContent"]["error"]["rule"], "input.size",
        "{reply:.400}"
    );
    // Still serving.
    let result = mcp.call("majordomus_decision_record", json!({"text": "still here"}));
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(repo.ledger_events("decision.recorded").len(), 1);
    let stderr = mcp.close();
    assert!(!stderr.iter().any(|l| l.contains("panicked")), "{stderr:?}");
}

#[test]
fn malformed_http_bodies_get_error_objects_and_the_server_keeps_serving() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let served = crate::http::Served::start(&repo);
    let auth = format!("Bearer {}", served.token());
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let bodies: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"not json".to_vec(),
        b"{".to_vec(),
        b"[]".to_vec(),
        b"{\"text\": 5}".to_vec(),
        b"{\"text\": \"x\", \"colour\": \"red\"}".to_vec(),
        b"{\"text\": 1e999}".to_vec(),
        b"{\"text\": 123456789012345678901234567890}".to_vec(),
        bad_utf8("{\"text\": \"a decision\"}"),
        deep.clone().into_bytes(),
        format!("{{\"text\": {deep}}}").into_bytes(),
    ];
    for body in &bodies {
        let answer = served.send("POST", "/api/v1/decisions", &headers, body);
        assert!(
            (400..500).contains(&answer.status()),
            "{:?}: {}",
            String::from_utf8_lossy(&body[..body.len().min(80)]),
            answer.status()
        );
        let json = answer.json();
        assert!(json["error"]["rule"].is_string(), "{json}");
    }
    // Query strings of the wrong kind on a read.
    for path in [
        "/api/v1/history?since=%ff%fe",
        "/api/v1/history?event=%00",
        "/api/v1/knowledge/..%2f..%2fx",
        "/api/v1/history?since=9999999999999999999999",
    ] {
        let answer = served.get(path);
        assert!(answer.status() < 500, "{path}: {}", answer.status());
    }
    // An id that is not one, through a write.
    let answer = served.send(
        "POST",
        "/api/v1/questions/resolve",
        &headers,
        json!({"id": "../x", "answer": "a"}).to_string().as_bytes(),
    );
    assert!(
        answer.status() == 404 || answer.json()["error"]["rule"] == "id.shape",
        "{}",
        answer.status()
    );
    // Still serving.
    let ok = served.post("/api/v1/decisions", &json!({"text": "still here"}));
    assert_eq!(ok.status(), 200, "{:?}", ok.json());
    assert_eq!(repo.ledger_events("decision.recorded").len(), 1);
}
