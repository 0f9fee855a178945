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
        let said = format!("recorded {kind} #{expected_lines} in episode {id}");
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
            .contains("Parse with yaml_serde (task t-20261130-0042)"),
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
            "recorded {kind} #{} with no open episode (session: null)",
            line["seq"]
        );
        assert!(
            run.stdout().contains(&said) || run.stderr().contains(&said),
            "{run}"
        );
        assert!(
            run.stderr()
                .contains("note: no episode is open; `majordomus session start` opens one"),
            "{run}"
        );
    }
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
        format!("recorded answer #{} in episode {id}\n", line["seq"])
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
    repo.start_episode();
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
        briefing
            .stdout()
            .contains(&format!("{qid}: Carry this over?")),
        "{briefing}"
    );
    repo.run(&["question", "resolve", &qid, "Yes, resolved later"])
        .success();
    let context = repo.run(&["session", "context"]).success();
    assert!(
        context.stdout().contains(&format!(
            "- resolved {qid}: Carry this over? -> Yes, resolved later"
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
