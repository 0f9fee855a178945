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

mod held_out;
mod injected;

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

/// The store checks an id again before it builds a path (SPEC §0: "at the edge and again
/// in the store"): every path the store makes from an id, called directly with each
/// hostile id, past any edge, refuses with `id.shape`, exit 3.
#[test]
fn the_store_refuses_to_build_a_path_from_a_hostile_id_whatever_the_edge_did() {
    use majordomus::error::Error;
    use majordomus::store::layout::Layout;
    use majordomus::store::{StoreError, reasoning};
    let repo = TestRepo::initialised();
    let layout = Layout::new(repo.root());
    let candidates = layout.candidates_dir();
    let sessions = layout.sessions_dir();
    type Build<'a> = Box<dyn Fn(&str) -> Result<std::path::PathBuf, StoreError> + 'a>;
    let builders: Vec<(&str, Build)> = vec![
        ("session_record", Box::new(|id| layout.session_record(id))),
        (
            "record_in",
            Box::new(|id| layout.record_in(&candidates, id)),
        ),
        (
            "episode_file_in",
            Box::new(|id| layout.episode_file_in(&sessions, id)),
        ),
        ("snapshot", Box::new(|id| layout.snapshot(id))),
        ("handover", Box::new(|id| layout.handover(id))),
        ("task_record", Box::new(|id| layout.task_record(id))),
        ("completed_note", Box::new(|id| layout.completed_note(id))),
        (
            "reasoning record",
            Box::new(|id| reasoning::path(&layout, "t-20261130-1a2b", id)),
        ),
        (
            "reasoning task folder",
            Box::new(|id| reasoning::path(&layout, id, "assessment-0123456789ab")),
        ),
        (
            "reasoning episode folder",
            Box::new(|id| {
                reasoning::path(
                    &layout,
                    &format!("_episode-{id}"),
                    "assessment-0123456789ab",
                )
            }),
        ),
    ];
    for id in hostile_ids(&repo) {
        for (name, build) in &builders {
            let shown: String = id.chars().take(40).collect();
            match build(&id) {
                Ok(path) => panic!("{name}({shown:?}) built {}", path.display()),
                Err(e) => {
                    let error = Error::from(e);
                    assert_eq!(error.rule(), "id.shape", "{name}({shown:?}): {error}");
                    // Refused: exit 3 on the CLI, 409 over HTTP, a tool error over MCP.
                    assert_eq!(
                        error.class(),
                        majordomus::error::Class::Refused,
                        "{name}({shown:?}): {error}"
                    );
                }
            }
        }
    }
    // A well-shaped id of each kind is a path under `.ai/`.
    for (name, id) in [
        ("session_record", "20261130T101500Z-1a2b3c"),
        ("record_in", "20261130T101500Z-1a2b3c-0123456789ab"),
        ("episode_file_in", "20261130T101500Z-1a2b3c"),
        ("snapshot", "20261130T101500Z-1a2b3c"),
        ("handover", "20261130T101500Z-1a2b3c"),
        ("task_record", "t-20261130-1a2b"),
        ("completed_note", "t-20261130-1a2b"),
        ("reasoning record", "assessment-0123456789ab"),
        ("reasoning task folder", "t-20261130-1a2b"),
        ("reasoning episode folder", "20261130T101500Z-1a2b3c"),
    ] {
        let (_, build) = builders
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a builder");
        let path = build(id).unwrap_or_else(|e| panic!("{name}({id}): {e}"));
        assert!(
            path.starts_with(repo.path(".ai")),
            "{name}: {}",
            path.display()
        );
    }
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
        // Unreadable state, as docs/HOSTILE.md says: exit 1, its rule, never a path.
        let mut json = vec!["--format", "json"];
        json.extend(&command);
        let error = run(&repo, &json, "").json_error(1, "state.episode-unreadable");
        assert!(
            error["fix"]
                .as_str()
                .is_some_and(|f| f.starts_with("majordomus session start --replace")),
            "{command:?}: {error}"
        );
        run(&repo, &command, "").human_error(1, "episode.json");
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
            assert_eq!(json["error"]["rule"], "input.utf8", "{out:?}");
            assert_eq!(
                json["error"]["message"], "argument 4: not UTF-8 (a dec\\xffision\\xc3()",
                "{out:?}"
            );
        } else if list.len() == 1 {
            assert!(out.stderr.contains("unrecognized subcommand"), "{out:?}");
        } else {
            assert!(out.stderr.contains("UTF-8"), "{out:?}");
        }
    }
    assert!(repo.ledger_events("decision.recorded").is_empty());
}

/// A path that is not UTF-8 given to `--file` (either form): the error names `--file`,
/// shows the bytes that are not UTF-8, and says what to do; nothing is recorded.
#[test]
fn a_non_utf8_argument_names_the_option_and_the_fix() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let cafe = OsString::from_vec(b"src/caf\xe9.rs".to_vec());
    let mut eq = b"--file=".to_vec();
    eq.extend_from_slice(b"src/caf\xe9.rs");
    let fix = "fix: give --file as UTF-8: majordomus records paths and text as UTF-8, so a file whose name is not must be renamed first (git mv <old name> <UTF-8 name>) and given by its new name";
    for list in [
        vec![
            "decision".into(),
            "Keep it".into(),
            "--file".into(),
            cafe.clone(),
        ],
        vec![
            "decision".into(),
            "Keep it".into(),
            OsString::from_vec(eq.clone()),
        ],
        vec![
            "checkpoint".into(),
            "Halfway".into(),
            "--file".into(),
            cafe.clone(),
        ],
    ] {
        let out = raw(&repo, &list, b"");
        out.human_error(2, "--file: not UTF-8 (src/caf\\xe9.rs)");
        assert_eq!(
            out.stderr,
            format!("majordomus: --file: not UTF-8 (src/caf\\xe9.rs)\n{fix}\n"),
            "{out:?}"
        );
    }
    let mut list: Vec<OsString> = vec!["--format".into(), "json".into(), "decision".into()];
    list.extend(["Keep it".into(), "--file".into(), cafe]);
    let error = raw(&repo, &list, b"").json_error(2, "input.utf8");
    assert_eq!(error["message"], "--file: not UTF-8 (src/caf\\xe9.rs)");
    assert!(repo.ledger_events_if_any("decision.recorded").is_empty());
    assert!(repo.ledger_events_if_any("checkpoint.recorded").is_empty());
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
    // Inside a check an unreadable record is a finding (SPEC §0): exit 3, its rule, its
    // file, not an I/O error.
    let out = run(&repo, &["--format", "json", "knowledge", "check"], "");
    out.no_panic();
    assert_eq!(out.code, 3, "{out:?}");
    let report: Value = serde_json::from_str(&out.stdout).expect("a JSON report");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["file"] == rel.as_str()
            && f["rule"] == "knowledge.schema"
            && f["severity"] == "blocking"),
        "{report}"
    );
    let out = run(&repo, &["knowledge", "check"], "");
    out.no_panic();
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stdout.contains(&format!("{id}.md")) && out.stdout.contains("knowledge.schema"),
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
    let out = run(&repo, &["--format", "json", "intent", "validate"], "");
    out.no_panic();
    assert_eq!(out.code, 3, "{out:?}");
    let report: Value = serde_json::from_str(&out.stdout).expect("a JSON report");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .any(|f| f["file"] == ".ai/repo/intents/auth.yaml"
                && f["rule"] == "intent.readable"
                && f["severity"] == "blocking"),
        "{report}"
    );
    let out = run(&repo, &["intent", "validate"], "");
    out.no_panic();
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stdout.contains("auth.yaml") && out.stdout.contains("[intent.readable]"),
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
    let shown = format!("knowledge:{candidate}");
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
        vec!["session", "list"],
        vec!["worktrees"],
        vec!["recall", "parser"],
        vec!["show", &shown],
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
    // Each command reads the store: on the intact store it succeeds (a usage error would
    // read nothing, and prove nothing about what it reads).
    // Two verdicts on the intact store are refusals read from it, exit 3: the binding
    // (the intent has no critique) and the handover's (it names nothing to re-ask).
    let mut unexpected = Vec::new();
    for command in read_commands(&candidate) {
        let list: Vec<&str> = command.iter().map(String::as_str).collect();
        let out = run(&repo, &list, "");
        out.no_panic();
        let verdict = list.contains(&"binding") || list.contains(&"--resolve");
        if out.code != if verdict { 3 } else { 0 } {
            unexpected.push(out);
        }
    }
    assert!(
        unexpected.is_empty(),
        "on the intact store: {unexpected:#?}"
    );
    for (name, bytes) in garbage() {
        for f in &files {
            std::fs::write(repo.path(f), &bytes).expect("corrupt a file");
        }
        for command in read_commands(&candidate) {
            let list: Vec<&str> = command.iter().map(String::as_str).collect();
            let out = run(&repo, &list, "");
            out.no_panic();
            assert!(!out.stderr.contains("RUST_BACKTRACE"), "{name}: {out:?}");
            assert_ne!(
                out.code, 2,
                "{name}: a corrupted store is no usage error: {out:?}"
            );
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
    // The promotion decided its whole review item (its near duplicates, which the
    // redacted texts may well be, rejected with it): one still pending is rejected.
    let pending = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let other = pending["candidates"]
        .as_array()
        .and_then(|c| c.first())
        .and_then(|c| c["id"].as_str())
        .unwrap_or_else(|| panic!("no candidate left to reject: {pending}"))
        .to_owned();
    repo.run(&["knowledge", "reject", &other, "--reason", &joined])
        .success();
    repo.git(&["add", "-A", ".ai"]);
    repo.git(&["commit", "-q", "-m", "records"]);

    let objects = git_objects(&repo);
    for (path, (bytes, _)) in repo.all_files() {
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

/// Whether `majordomus mcp` answers every line, even one that is not a message (issue 16
/// item 5: a framing layer in front of rmcp, which drops such lines silently). Until it
/// does, a line marked `framed` below may go unanswered, and `arguments` or a `name` of
/// the wrong type may get rmcp's -32601; every answer that comes must still be the right
/// one. Set to `true` when the framing layer lands (step11-contract): then each line must
/// get exactly its error.
const EVERY_LINE_ANSWERED: bool = true;

#[test]
fn malformed_mcp_messages_get_errors_and_the_server_keeps_serving() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    // (line, the id its error names, the JSON-RPC error code, answered only once framed)
    let raw_lines: Vec<(Vec<u8>, Value, i64, bool)> = vec![
        (b"not json at all".to_vec(), Value::Null, -32700, true),
        (b"{".to_vec(), Value::Null, -32700, true),
        (b"[]".to_vec(), Value::Null, -32600, false),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 5000, \"method\": 7}".to_vec(),
            json!(5000),
            -32600,
            false,
        ),
        (
            b"{\"jsonrpc\": \"1.0\", \"id\": 5001, \"method\": \"tools/list\"}".to_vec(),
            json!(5001),
            -32600,
            false,
        ),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 1e999, \"method\": \"tools/list\"}".to_vec(),
            Value::Null,
            -32700,
            true,
        ),
        (
            bad_utf8("{\"jsonrpc\": \"2.0\", \"id\": 5002, \"method\": \"tools/list\"}"),
            Value::Null,
            -32700,
            true,
        ),
        (
            format!(
                "{{\"jsonrpc\": \"2.0\", \"id\": 5003, \"method\": \"tools/call\", \"params\": {deep}}}"
            )
            .into_bytes(),
            Value::Null,
            -32600,
            true,
        ),
        (deep.clone().into_bytes(), Value::Null, -32600, true),
    ];
    for (line, id, code, framed) in &raw_lines {
        let shown = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
        mcp.send_raw(line);
        // A ping after the line: what comes before its answer is the line's answer.
        let (before, pong) = mcp.request_after("ping", json!({}));
        assert!(pong["result"].is_object(), "{shown}: then {pong}");
        match before.as_slice() {
            [] if *framed && !EVERY_LINE_ANSWERED => {}
            [answer] => {
                // The request's id when it has one (rmcp's own answers name none yet).
                let named = answer.get("id").cloned().unwrap_or(Value::Null);
                if EVERY_LINE_ANSWERED {
                    assert_eq!(named, *id, "{shown}: {answer}");
                } else {
                    assert!(named == *id || named.is_null(), "{shown}: {answer}");
                }
                assert_eq!(answer["error"]["code"], *code, "{shown}: {answer}");
                assert!(
                    answer["error"]["message"]
                        .as_str()
                        .is_some_and(|m| !m.is_empty()),
                    "{shown}: {answer}"
                );
                assert!(answer.get("result").is_none(), "{shown}: {answer}");
            }
            other => panic!("{shown}: expected one JSON-RPC error, got {other:?}"),
        }
    }
    // Tool calls with wrong types, unknown fields, huge numbers, a hostile id, an unknown
    // tool, an oversized text: each its own answer.
    let usage = |reply: &Value, rule: &str| {
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{reply:.400}");
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["rule"], rule, "{reply:.400}");
        assert!(
            error["fix"].as_str().is_some_and(|f| !f.is_empty()),
            "{reply:.400}"
        );
        error["class"].as_str().unwrap_or_default().to_owned()
    };
    let calls: Vec<(Value, &str)> = vec![
        (
            json!({"name": "majordomus_decision_record", "arguments": {"text": 5}}),
            "usage:request.valid",
        ),
        (
            json!({"name": "majordomus_decision_record", "arguments": {"text": "x", "colour": "red"}}),
            "usage:request.valid",
        ),
        (
            json!({"name": "majordomus_decision_record", "arguments": "text"}),
            "-32602",
        ),
        (
            json!({"name": "majordomus_decision_record", "arguments": {"text": ["x"]}}),
            "usage:request.valid",
        ),
        (
            json!({"name": "majordomus_history", "arguments": {"since": 1e300}}),
            "usage:request.valid",
        ),
        (
            json!({"name": "majordomus_question_resolve", "arguments": {"id": "../x", "answer": "a"}}),
            "refused:id.shape",
        ),
        (
            json!({"name": "majordomus_no_such_tool", "arguments": {}}),
            "-32602",
        ),
        (json!({"name": 12, "arguments": {}}), "-32602"),
        (
            json!({"name": "majordomus_decision_record", "arguments": {"text": "x".repeat(5 * INPUT_LIMIT)}}),
            "refused:input.size",
        ),
        (
            json!({"name": "majordomus_decision_record", "arguments": {"text": "x".repeat(TEXT_LIMIT + 1)}}),
            "refused:input.size",
        ),
    ];
    for (params, expected) in calls {
        let reply = mcp.request("tools/call", params.clone());
        let shown = format!("{params:.200}");
        match expected.split_once(':') {
            Some((class, rule)) => {
                assert!(reply.get("error").is_none(), "{shown}: {reply:.400}");
                assert_eq!(usage(&reply, rule), class, "{shown}: {reply:.400}");
            }
            None => {
                assert!(reply.get("result").is_none(), "{shown}: {reply:.400}");
                let code = reply["error"]["code"].as_i64().expect("an error code");
                let wrong_type = params["arguments"].is_string() || params["name"].is_number();
                if wrong_type && !EVERY_LINE_ANSWERED {
                    // rmcp's own answer until the framing layer types them (-32601).
                    assert!([-32602, -32601].contains(&code), "{shown}: {reply}");
                } else {
                    assert_eq!(code.to_string(), expected, "{shown}: {reply}");
                }
            }
        }
    }
    // Nothing was written, and the server still serves.
    assert!(repo.ledger_events("decision.recorded").is_empty());
    let result = mcp.call("majordomus_decision_record", json!({"text": "still here"}));
    assert_eq!(result["isError"], false, "{result}");
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
        // Every one is a request that is not valid (400 `request.valid`, with a fix), or
        // one over the body limit (413 `http.body-limit`).
        let shown = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
        let (status, rule) = if body.len() > 64 * 1024 {
            (413, "http.body-limit")
        } else {
            (400, "request.valid")
        };
        assert_eq!(answer.status(), status, "{shown}: {:?}", answer.json());
        answer.error(status, rule);
    }
    // Query strings of the wrong kind on a read.
    for (path, status, rule) in [
        ("/api/v1/history?since=%ff%fe", 400, "history.since"),
        ("/api/v1/history?event=%00", 400, "history.event"),
        ("/api/v1/knowledge/..%2f..%2fx", 409, "id.shape"),
        (
            "/api/v1/history?since=9999999999999999999999",
            400,
            "history.since",
        ),
    ] {
        served.get(path).error(status, rule);
    }
    // An id that is not one, in the path of a write or a read (percent-encoded, so it is
    // one path segment): refused by its shape, 409 `id.shape`, nothing written.
    let lines = repo.ledger_text();
    for id in [
        "..%2Fx",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "q-1a2b3c4d5%D0%B5",
        "%2E%2E",
        "x%0Ay",
    ] {
        for (path, body) in [
            (
                format!("/api/v1/questions/{id}/resolve"),
                json!({"answer": "a"}),
            ),
            (
                format!("/api/v1/knowledge/{id}/promote"),
                json!({"evidence": "e"}),
            ),
            (
                format!("/api/v1/knowledge/{id}/reject"),
                json!({"reason": "r"}),
            ),
        ] {
            let answer = served.send("POST", &path, &headers, body.to_string().as_bytes());
            answer.error(409, "id.shape");
        }
        served
            .get(&format!("/api/v1/knowledge/{id}"))
            .error(409, "id.shape");
    }
    assert_eq!(repo.ledger_text(), lines, "a refused id wrote a line");
    // Still serving.
    let ok = served.post("/api/v1/decisions", &json!({"text": "still here"}));
    assert_eq!(ok.status(), 200, "{:?}", ok.json());
    assert_eq!(repo.ledger_events("decision.recorded").len(), 1);
}
