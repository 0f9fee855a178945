//! Authored records: `decision`, `question`, `question resolve`, `checkpoint`.

use crate::common::{QUESTION_ID, TestRepo};

#[test]
fn authored_records_append_one_line_each_stamped_with_the_episode() {
    let mut repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.now("2026-11-30T10:05:00Z");

    let mut expected_lines = repo.ledger().len();
    for (args, event, text) in [
        (
            &["decision", "Use gix for every git read"][..],
            "decision.recorded",
            "Use gix for every git read",
        ),
        (
            &["question", "Is the lock per file?"][..],
            "question.asked",
            "Is the lock per file?",
        ),
        (
            &["checkpoint", "Ledger appends under the lock"][..],
            "checkpoint.recorded",
            "Ledger appends under the lock",
        ),
    ] {
        let run = repo.run(args).success();
        expected_lines += 1;
        let ledger = repo.ledger();
        assert_eq!(ledger.len(), expected_lines, "{run}");
        let line = ledger.last().expect("a line");
        assert_eq!(line["seq"], expected_lines, "{line}");
        assert_eq!(line["event"], event);
        assert_eq!(line["session"], id.as_str());
        assert!(line["task"].is_null());
        assert_eq!(line["ts"], "2026-11-30T10:05:00Z");
        assert_eq!(line["data"]["text"], text);
        let kind = event.split('.').next().expect("kind");
        let said = format!("recorded {kind} (ledger seq {expected_lines}) in episode {id}");
        // A question's stdout is its id; where it went is on stderr.
        let where_ = if kind == "question" {
            run.stderr()
        } else {
            run.stdout()
        };
        assert_eq!(where_, format!("{said}\n"), "{run}");
    }
}

#[test]
fn decision_with_a_task_this_ledger_never_started_is_refused() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    for task in ["none", "t-20261130-dead"] {
        let run = repo
            .run(&["--format", "json", "decision", "Use gix", "--task", task])
            .expect_code(3);
        let error = run.json_error(3, "task.known");
        assert!(
            error["message"].as_str().is_some_and(|m| m.contains(task)),
            "{run}"
        );
        // The printed fix works: the same decision without --task is recorded.
        repo.run(&["decision", "Use gix"]).success();
    }
    assert!(
        repo.ledger_events("decision.recorded")
            .iter()
            .all(|l| l["task"].is_null()),
        "nothing was recorded under a task that does not exist"
    );
}

#[test]
fn decision_with_a_task_is_stamped_with_it() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.append_task_started("t-20261130-0042", "Parse the policy");
    let json = repo
        .run(&[
            "--format",
            "json",
            "decision",
            "Parse with yaml_serde",
            "--task",
            "t-20261130-0042",
        ])
        .success()
        .json();
    assert_eq!(json["task"], "t-20261130-0042");
    let line = repo.ledger().pop().expect("a line");
    assert_eq!(line["task"], "t-20261130-0042");
    let context = repo.run(&["session", "context"]).success();
    assert!(
        context
            .stdout()
            .contains("[unverified] ⟪Parse with yaml_serde⟫ (task t-20261130-0042)"),
        "{context}"
    );
}

#[test]
fn without_an_episode_records_say_so_and_are_stamped_null() {
    let repo = TestRepo::initialised();
    for (args, kind) in [
        (&["decision", "Decided between episodes"][..], "decision"),
        (&["checkpoint", "Between episodes"][..], "checkpoint"),
        (&["question", "Asked between episodes?"][..], "question"),
    ] {
        let run = repo.run(args).success();
        let line = repo.ledger().pop().expect("a line");
        assert!(line["session"].is_null(), "{line}");
        let said = format!(
            "recorded {kind} (ledger seq {}) with no open episode (session: null)",
            line["seq"]
        );
        assert!(
            run.stdout().contains(&said) || run.stderr().contains(&said),
            "{run}"
        );
        // How it reaches review: it does not, and the note says what does.
        let note = format!(
            "note: no episode is open, so no episode's close derives a candidate from this {kind} and it will not reach the review queue (recall finds it as it is); to put it up for review, record it in an episode: `majordomus session start`, then the same `majordomus {kind}` command again"
        );
        assert!(run.stderr().contains(&note), "{run}");
    }
    // The next episode's close does not pick it up: only its own lines become candidates.
    repo.start_episode();
    repo.run(&["decision", "Decided in the episode"]).success();
    repo.run_without_stdin(&["session", "close"]).success();
    let derived = repo.ledger_events("knowledge.derived");
    assert_eq!(derived.len(), 1, "{derived:?}");
    let candidates = repo.record_ids(".ai/repo/knowledge/candidates");
    assert_eq!(candidates.len(), 1, "{candidates:?}");
    let text = repo.read(&format!(
        ".ai/repo/knowledge/candidates/{}.md",
        candidates[0]
    ));
    assert!(text.contains("Decided in the episode"), "{text}");
    assert!(!text.contains("between episodes"), "{text}");
    let json = repo
        .run(&["--format", "json", "checkpoint", "Still between"])
        .success()
        .json();
    assert!(json["session"].is_null(), "{json}");
}

#[test]
fn question_prints_its_id_alone() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    let run = repo
        .run(&["question", "Should empty input be an error?"])
        .success();
    let qid = run.stdout().trim_end_matches('\n');
    assert!(
        QUESTION_ID.is_match(qid) && qid.len() == 12,
        "stdout is not a question id alone: {run}"
    );
    assert_eq!(run.stdout(), format!("{qid}\n"));
    assert!(run.stderr().contains(&format!("in episode {id}")), "{run}");
    let line = repo.ledger().pop().expect("a line");
    assert_eq!(line["event"], "question.asked");
    assert_eq!(line["data"]["id"], qid);
    assert_eq!(line["data"]["text"], "Should empty input be an error?");
}

#[test]
fn question_json_has_the_id_at_top_level() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let json = repo
        .run(&["--format", "json", "question", "Same id twice?"])
        .success()
        .json();
    let qid = json["id"].as_str().expect("top-level id");
    assert!(QUESTION_ID.is_match(qid), "{json}");
    assert_eq!(json["event"], "question.asked");
    assert_eq!(repo.ledger().pop().expect("a line")["data"]["id"], qid);

    // The same text asked again is another question.
    let again = repo
        .run(&["--format", "json", "question", "Same id twice?"])
        .success()
        .json();
    assert_ne!(again["id"], json["id"]);
}

#[test]
fn question_resolve_appends_the_answer() {
    let mut repo = TestRepo::initialised();
    let id = repo.start_episode();
    let qid = repo
        .run(&["question", "Which hash for ids?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.now("2026-11-30T10:20:00Z");
    let run = repo
        .run(&["question", "resolve", &qid, "sha256, cut to 10 hex"])
        .success();
    let line = repo.ledger().pop().expect("a line");
    assert_eq!(
        run.stdout(),
        format!(
            "recorded answer (ledger seq {}) in episode {id}\n",
            line["seq"]
        )
    );
    assert_eq!(line["event"], "question.resolved");
    assert_eq!(line["session"], id.as_str());
    assert_eq!(line["ts"], "2026-11-30T10:20:00Z");
    assert_eq!(line["data"]["id"], qid.as_str());
    assert_eq!(line["data"]["question"], "Which hash for ids?");
    assert_eq!(line["data"]["answer"], "sha256, cut to 10 hex");
}

#[test]
fn a_question_from_an_earlier_episode_can_be_resolved_in_a_later_one() {
    let mut repo = TestRepo::initialised();
    let first = repo.start_episode();
    let qid = repo
        .run(&["question", "Carry this over?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run_without_stdin(&["session", "close"]).success();
    repo.now("2026-11-30T11:00:00Z");
    repo.start_episode();
    let briefing = repo.run(&["briefing"]).success();
    assert!(
        briefing.stdout().contains(&format!(
            "{qid}: [open · episode {first}] ⟪Carry this over?⟫"
        )),
        "{briefing}"
    );
    repo.run(&["question", "resolve", &qid, "Yes, resolved later"])
        .success();
    let context = repo.run(&["session", "context"]).success();
    assert!(
        context.stdout().contains(&format!(
            "- resolved {qid}: [unverified] ⟪Carry this over?⟫ -> [unverified] ⟪Yes, resolved later⟫"
        )),
        "{context}"
    );
}

#[test]
fn resolving_an_unknown_question_is_refused() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let ledger = repo.ledger_text();
    let run = repo.run(&["question", "resolve", "q-0123456789", "an answer"]);
    run.assert_human_error(3, "q-0123456789");
    assert!(
        run.stderr()
            .contains("fix: majordomus history --event question.asked"),
        "{run}"
    );
    repo.run(&[
        "--format",
        "json",
        "question",
        "resolve",
        "q-0123456789",
        "an answer",
    ])
    .json_error(3, "question.known");
    assert_eq!(repo.ledger_text(), ledger, "a refusal appended");
}

#[test]
fn resolving_a_question_twice_is_refused() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let qid = repo
        .run(&["question", "Tabs or spaces?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&["question", "resolve", &qid, "Spaces"]).success();
    let ledger = repo.ledger_text();

    let run = repo.run(&["question", "resolve", &qid, "Tabs"]);
    run.assert_human_error(3, "already resolved with \"Spaces\"");
    let error = repo
        .run(&["--format", "json", "question", "resolve", &qid, "Tabs"])
        .json_error(3, "question.open");
    assert!(
        error["message"].as_str().is_some_and(|m| m.contains(&qid)),
        "{error}"
    );
    assert_eq!(repo.ledger_text(), ledger, "a refusal appended");
}

#[test]
fn empty_text_is_refused() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let qid = repo
        .run(&["question", "Open?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    let ledger = repo.ledger_text();
    for args in [
        &["decision", ""][..],
        &["checkpoint", "   "][..],
        &["question", "\n"][..],
        &["question", "resolve", &qid, " "][..],
    ] {
        let run = repo.run(args);
        run.assert_human_error(3, "the text is empty");
        assert!(run.stderr().contains("\nfix: "), "{run}");
        let mut json_args = vec!["--format", "json"];
        json_args.extend_from_slice(args);
        repo.run(&json_args).json_error(3, "record.text");
    }
    assert_eq!(repo.ledger_text(), ledger, "a refusal appended");
}

#[test]
fn commands_in_an_uninitialised_repository_are_refused() {
    let repo = TestRepo::new();
    for args in [
        &["decision", "text"][..],
        &["question", "text?"][..],
        &["question", "resolve", "q-0123456789", "answer"][..],
        &["checkpoint", "text"][..],
        &["session", "start"][..],
        &["session", "context"][..],
        &["session", "close"][..],
        &["history"][..],
        &["briefing"][..],
    ] {
        let run = repo.run(args);
        run.assert_human_error(3, "repository is not initialised");
        assert_eq!(
            run.stderr().lines().nth(1),
            Some("fix: majordomus init"),
            "{run}"
        );
        let mut json_args = vec!["--format", "json"];
        json_args.extend_from_slice(args);
        let error = repo.run(&json_args).json_error(3, "repository.initialised");
        assert_eq!(error["fix"], "majordomus init");
    }
    assert!(!repo.exists(".ai"), "a refused command wrote .ai/");
}

#[test]
fn concurrent_resolves_answer_once() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    // The race window is small; several rounds make it show reliably.
    for round in 0..10 {
        let qid = repo
            .run(&["question", &format!("Who wins round {round}?")])
            .success()
            .stdout()
            .trim()
            .to_owned();
        let runs =
            repo.run_concurrently(8, &["--format", "json", "question", "resolve", &qid, "Me"]);
        let (answered, refused): (Vec<_>, Vec<_>) = runs.iter().partition(|r| r.code() == 0);
        assert_eq!(answered.len(), 1, "round {round}: one answer: {runs:?}");
        for run in refused {
            run.json_error(3, "question.open");
        }
    }
    let resolved = repo.ledger_events("question.resolved");
    let mut answered: Vec<&str> = resolved
        .iter()
        .map(|l| l["data"]["id"].as_str().expect("id"))
        .collect();
    assert_eq!(answered.len(), 10, "{answered:?}");
    answered.sort_unstable();
    answered.dedup();
    assert_eq!(
        answered.len(),
        10,
        "each question answered once: {answered:?}"
    );
}

#[test]
fn a_task_id_of_the_wrong_shape_is_refused_at_the_edge_even_when_a_line_names_it() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    // A forged `task.started` line makes the id known to the ledger; it is still no id.
    repo.append_ledger_line(
        "task.started",
        Some("../x"),
        serde_json::json!({"description": "Forged", "scope": []}),
    );
    let lines = repo.ledger().len();
    let error = repo
        .run(&["--format", "json", "decision", "Use gix", "--task", "../x"])
        .json_error(3, "id.shape");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("task id \"../x\" does not have the shape of one")),
        "{error}"
    );
    let run = repo.run(&["decision", "Use gix", "--task", "../x"]);
    run.assert_human_error(3, "does not have the shape of one");
    assert_eq!(repo.ledger().len(), lines, "nothing was recorded");
}

// --- Cited files (SPEC §5.1) ---------------------------------------------------------

/// The pending candidate of the knowledge queue titled `title`.
fn candidate_titled(repo: &TestRepo, title: &str) -> serde_json::Value {
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    listing["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|c| c["title"] == title)
        .unwrap_or_else(|| panic!("no candidate titled {title}: {listing}"))
        .clone()
}

/// The `derived_from` of the record at `path` (relative to the root).
fn derived_from(repo: &TestRepo, path: &str) -> Vec<String> {
    let (_, front, _) = crate::common::split_record(&repo.read(path));
    front["provenance"]["derived_from"]
        .as_array()
        .expect("derived_from")
        .iter()
        .map(|r| r.as_str().expect("a string").to_owned())
        .collect()
}

/// The hits of `recall --path PATH` as `(id, status, why details)`.
fn recalled(repo: &TestRepo, path: &str) -> Vec<(String, String, Vec<String>)> {
    let json = repo
        .run(&["--format", "json", "recall", "--path", path])
        .success()
        .json();
    json["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            (
                h["id"].as_str().expect("id").to_owned(),
                h["status"].as_str().expect("status").to_owned(),
                h["why"]
                    .as_array()
                    .expect("why")
                    .iter()
                    .map(|w| w["detail"].as_str().expect("detail").to_owned())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn a_decision_cites_its_files_reaches_them_and_goes_stale_when_one_changes() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.commit("src/b.rs", "b\n", "Add b");
    repo.start_episode();
    let given = repo
        .run(&[
            "--format",
            "json",
            "decision",
            "Retries back off exponentially",
            "--file",
            "src/a.rs",
        ])
        .success()
        .json();
    assert_eq!(
        given["files"],
        serde_json::json!([{"path": "src/a.rs", "via": "given"}])
    );
    // A path the text names that is a file at HEAD is cited; one naming nothing at HEAD,
    // a URL and a directory are not.
    let named = repo
        .run(&[
            "decision",
            "Keep src/b.rs append-only (see docs/nothing.md, https://example.com/src/a.rs and src/)",
        ])
        .success();
    assert_eq!(
        named.stdout().lines().nth(1),
        Some("cites src/b.rs (named in the text)"),
        "{named}"
    );
    let lines = repo.ledger_events("decision.recorded");
    assert_eq!(lines[0]["data"]["files"], serde_json::json!(["src/a.rs"]));
    assert_eq!(lines[1]["data"]["files"], serde_json::json!(["src/b.rs"]));

    // Before the episode closes, recall reaches the decision line itself by the file it
    // cites (the other one only as a neighbour).
    let before = recalled(&repo, "src/a.rs");
    assert_eq!(before[0].1, "candidate", "{before:?}");
    assert_eq!(before[0].2, ["src/a.rs (it cites it)"], "{before:?}");
    assert_eq!(
        before[1].2,
        ["near src/a.rs (it cites src/b.rs)"],
        "{before:?}"
    );

    repo.run(&["session", "close"]).success();
    let mut ids = Vec::new();
    for (title, file) in [
        ("Retries back off exponentially", "src/a.rs"),
        (
            "Keep src/b.rs append-only (see docs/nothing.md, https://example.com/src/a.rs and src/)",
            "src/b.rs",
        ),
    ] {
        let candidate = candidate_titled(&repo, title);
        let refs = derived_from(&repo, candidate["path"].as_str().expect("path"));
        assert_eq!(refs.len(), 2, "the episode and the one file: {refs:?}");
        assert!(refs[0].starts_with("session:"), "{refs:?}");
        assert_eq!(refs[1], format!("file:{file}"));
        let id = candidate["id"].as_str().expect("id").to_owned();
        repo.run_with_stdin(&["knowledge", "promote", &id], "the retry tests pass")
            .success();
        ids.push((id, file));
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Verify the decisions"]);

    for (id, file) in &ids {
        let found = recalled(&repo, file);
        let hit = found
            .iter()
            .find(|(i, _, _)| i == id)
            .unwrap_or_else(|| panic!("recall --path {file} misses {id}: {found:?}"));
        assert_eq!(hit.1, "verified", "{found:?}");
        assert!(
            hit.2.iter().any(|w| w == &format!("{file} (it cites it)")),
            "{found:?}"
        );
        repo.commit(file, "changed\n", &format!("Change {file}"));
        let found = recalled(&repo, file);
        let hit = found
            .iter()
            .find(|(i, _, _)| i == id)
            .unwrap_or_else(|| panic!("recall --path {file} misses {id}: {found:?}"));
        assert_eq!(
            hit.1, "stale",
            "{file} changed after {id} was verified: {found:?}"
        );
    }
}

#[test]
fn a_file_outside_the_repository_missing_or_a_directory_is_refused_with_a_fix_that_works() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.start_episode();
    let outside = repo.base().join("elsewhere.rs");
    std::fs::write(&outside, "x\n").expect("write a file outside");
    let outside = outside.display().to_string();
    for (file, rule) in [
        ("../elsewhere.rs", "record.file-inside"),
        (outside.as_str(), "record.file-inside"),
        (".git/config", "record.file-inside"),
        ("src/nope.rs", "record.file-exists"),
        ("src", "record.file-exists"),
        (".", "record.file-exists"),
    ] {
        let lines = repo.ledger().len();
        let run = repo.run(&[
            "--format", "json", "decision", "Use gix", "--file", "src/a.rs", "--file", file,
        ]);
        let error = run.json_error(3, rule);
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("--file ")),
            "{run}"
        );
        assert_eq!(repo.ledger().len(), lines, "nothing was recorded: {run}");
        // The fix is the same decision without that path, and it works as printed.
        let fix = error["fix"].as_str().expect("a fix");
        assert_eq!(fix, "majordomus decision 'Use gix' --file src/a.rs");
        repo.run_printed(fix);
        let line = repo.ledger().pop().expect("the fix recorded it");
        assert_eq!(line["data"]["files"], serde_json::json!(["src/a.rs"]));
    }
    // The human form names the rule's reason and the fix.
    let run = repo.run(&["decision", "Use gix", "--file", "src/nope.rs"]);
    run.assert_human_error(3, "--file src/nope.rs: no such file");
    assert!(
        run.stderr()
            .contains("\nfix: majordomus decision 'Use gix'\n"),
        "{run}"
    );
}

#[test]
fn a_file_is_taken_from_the_directory_it_was_typed_in_and_so_is_the_fix() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.start_episode();
    let src = repo.path("src");
    let json = repo
        .run_in(
            &src,
            &[
                "--format",
                "json",
                "checkpoint",
                "lexer done",
                "--file",
                "a.rs",
            ],
        )
        .success()
        .json();
    assert_eq!(
        json["files"],
        serde_json::json!([{"path": "src/a.rs", "via": "given"}])
    );
    // A file only in the work tree (not yet committed) is cited as given.
    repo.write("src/new.rs", "new\n");
    let run = repo.run_in(
        &src,
        &[
            "--format",
            "json",
            "checkpoint",
            "--file",
            "new.rs",
            "--file",
            "../src/missing.rs",
            "--",
            "-x flag parsed",
        ],
    );
    let error = run.json_error(3, "record.file-exists");
    let fix = error["fix"].as_str().expect("a fix");
    // A text starting with `-` follows `--`, so the fix parses it as the text.
    assert_eq!(
        fix,
        "majordomus checkpoint --file new.rs -- '-x flag parsed'"
    );
    let out = repo.sh_in(&src, fix);
    assert!(out.status.success(), "{out:?}");
    let line = repo.ledger().pop().expect("a line");
    assert_eq!(line["event"], "checkpoint.recorded");
    assert_eq!(line["data"]["text"], "-x flag parsed");
    assert_eq!(line["data"]["files"], serde_json::json!(["src/new.rs"]));
}

#[test]
fn an_answer_cites_its_own_files_and_its_questions_and_its_candidate_carries_them() {
    let repo = TestRepo::initialised();
    repo.commit("src/lock.rs", "lock\n", "Add the lock");
    repo.commit("docs/LOCKS.md", "# Locks\n", "Document locks");
    repo.commit("Cargo.toml", "[package]\n", "Add the manifest");
    repo.start_episode();
    let asked = repo
        .run(&[
            "--format",
            "json",
            "question",
            "Is the lock per file?",
            "--file",
            "src/lock.rs",
        ])
        .success()
        .json();
    let qid = asked["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        asked["files"],
        serde_json::json!([{"path": "src/lock.rs", "via": "given"}])
    );
    let answered = repo
        .run(&[
            "question",
            "resolve",
            &qid,
            "Yes, see docs/LOCKS.md.",
            "--file",
            "Cargo.toml",
        ])
        .success();
    assert_eq!(
        answered.stdout().lines().nth(1),
        Some(
            "cites Cargo.toml, docs/LOCKS.md (named in the text), src/lock.rs (cited by the question)"
        ),
        "{answered}"
    );
    let line = repo
        .ledger_events("question.resolved")
        .pop()
        .expect("a line");
    assert_eq!(
        line["data"]["files"],
        serde_json::json!(["Cargo.toml", "docs/LOCKS.md", "src/lock.rs"])
    );
    repo.run(&["session", "close"]).success();
    let candidate = candidate_titled(&repo, "Is the lock per file?");
    let refs = derived_from(&repo, candidate["path"].as_str().expect("path"));
    assert_eq!(
        &refs[1..],
        ["file:Cargo.toml", "file:docs/LOCKS.md", "file:src/lock.rs"],
        "{refs:?}"
    );
    // Every reference resolves: knowledge check has nothing to say about the candidate.
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn mcp_and_http_take_files_from_the_repository_root() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.start_episode();
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let written = mcp.call(
        "majordomus_decision_record",
        serde_json::json!({"text": "Use gix", "files": ["src/a.rs"]}),
    );
    assert_eq!(written["isError"], false, "{written}");
    let refused = mcp.call(
        "majordomus_checkpoint_record",
        serde_json::json!({"text": "half", "files": ["src/nope.rs"]}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["rule"], "record.file-exists",
        "{refused}"
    );
    mcp.close();
    let line = repo
        .ledger_events("decision.recorded")
        .pop()
        .expect("a line");
    assert_eq!(line["data"]["files"], serde_json::json!(["src/a.rs"]));

    let served = crate::http::Served::start(&repo);
    let answer = served.post(
        "/api/v1/checkpoints",
        &serde_json::json!({"text": "half way", "files": ["./src/a.rs"]}),
    );
    assert_eq!(answer.status, 200, "{:?}", answer.json());
    assert_eq!(
        answer.json()["files"],
        serde_json::json!([{"path": "src/a.rs", "via": "given"}])
    );
    let refused = served.post(
        "/api/v1/decisions",
        &serde_json::json!({"text": "x", "files": ["../../etc/passwd"]}),
    );
    assert_eq!(refused.status, 409, "{:?}", refused.json());
    assert_eq!(refused.json()["error"]["rule"], "record.file-inside");
}

#[test]
fn a_question_its_answer_and_a_checkpoint_are_stamped_with_the_active_task() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let task = repo
        .run(&["--format", "json", "task", "start", "Tune the lock"])
        .success()
        .json()["task"]["id"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let qid = repo
        .run(&["question", "Is the lock per file?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&["question", "resolve", &qid, "Yes, one lock per ledger file"])
        .success();
    repo.run(&["checkpoint", "Lock measured"]).success();
    for event in ["question.asked", "question.resolved", "checkpoint.recorded"] {
        let lines = repo.ledger_events(event);
        assert_eq!(lines.len(), 1, "{event}");
        assert_eq!(lines[0]["task"], task.as_str(), "{event}: {}", lines[0]);
    }
    // The answered question's candidate cites its task (SPEC §5.1: session, task).
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();
    let answered = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .map(|id| repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md")))
        .find(|text| text.contains("title: Is the lock per file?"))
        .expect("the answered question's candidate");
    assert!(
        answered.contains(&format!("  - session:{episode}\n")),
        "{answered}"
    );
    assert!(
        answered.contains(&format!("  - task:{task}\n")),
        "{answered}"
    );
}
