//! `majordomus history`: the ledger read back, filtered by event, episode and time.

use serde_json::Value;

use crate::common::TestRepo;

/// Two days of ledger: an episode on the first (its close derives knowledge, then closes),
/// a decision with no episode and a second episode on the next. Returns the repository and
/// both episode ids. The lines: 1 opened, 2 decision, 3 checkpoint, 4 knowledge.derived,
/// 5 closed, 6 decision (no episode), 7 opened, 8 question.
fn two_days() -> (TestRepo, String, String) {
    let mut repo = TestRepo::initialised();
    let first = repo.start_episode(); // 10:00
    repo.now("2026-11-30T10:05:00Z");
    repo.run(&["decision", "First day decision"]).success();
    repo.now("2026-11-30T10:10:00Z");
    repo.run(&["checkpoint", "First day checkpoint"]).success();
    repo.now("2026-11-30T10:20:00Z");
    repo.run_without_stdin(&["session", "close"]).success();
    repo.now("2026-12-01T09:00:00Z");
    repo.run(&["decision", "Between episodes"]).success();
    repo.now("2026-12-01T09:30:00Z");
    let second = repo.start_episode();
    repo.now("2026-12-01T09:35:00Z");
    repo.run(&["question", "Second day question?"]).success();
    (repo, first, second)
}

/// The `seq` of each line of `history --format json ARGS`.
fn seqs(repo: &TestRepo, args: &[&str]) -> Vec<u64> {
    let mut full = vec!["--format", "json", "history"];
    full.extend_from_slice(args);
    let json = repo.run(&full).success().json();
    json["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect()
}

#[test]
fn history_lists_every_line_oldest_first() {
    let (repo, first, second) = two_days();
    let run = repo.run(&["history"]).success();
    let lines: Vec<&str> = run.stdout().lines().collect();
    assert_eq!(lines.len(), 8, "{run}");
    assert!(
        lines[0].starts_with(&format!(
            "#1 2026-11-30T10:00:00Z session.opened session={first} "
        )),
        "{run}"
    );
    // The close derives before it closes, both at the close's time.
    assert!(
        lines[3].starts_with(&format!(
            "#4 2026-11-30T10:20:00Z knowledge.derived session={first} "
        )),
        "{run}"
    );
    assert!(
        lines[4].starts_with(&format!(
            "#5 2026-11-30T10:20:00Z session.closed session={first} "
        )),
        "{run}"
    );
    assert!(
        lines[5].starts_with("#6 2026-12-01T09:00:00Z decision.recorded session=null "),
        "{run}"
    );
    assert!(
        lines[5].ends_with(r#"{"text":"Between episodes"}"#),
        "{run}"
    );
    assert!(
        lines[7].contains(&format!("question.asked session={second} ")),
        "{run}"
    );
    assert_eq!(run.stderr(), "");
    insta::assert_snapshot!("history_two_days", repo.redact(run.stdout()));
}

#[test]
fn history_filters_by_event() {
    let (repo, _, _) = two_days();
    assert_eq!(seqs(&repo, &["--event", "decision.recorded"]), [2, 6]);
    assert_eq!(seqs(&repo, &["--event", "session.opened"]), [1, 7]);
    assert_eq!(seqs(&repo, &["--event", "knowledge.derived"]), [4]);
    assert_eq!(seqs(&repo, &["--event", "task.started"]), Vec::<u64>::new());
}

#[test]
fn history_event_repeats_for_lines_of_any_of_them() {
    let (repo, first, _) = two_days();
    assert_eq!(
        seqs(
            &repo,
            &["--event", "session.closed", "--event", "knowledge.derived"]
        ),
        [4, 5]
    );
    assert_eq!(
        seqs(
            &repo,
            &[
                "--event",
                "decision.recorded",
                "--event",
                "session.opened",
                "--event",
                "decision.recorded"
            ]
        ),
        [1, 2, 6, 7]
    );
    // With the other filters, every one must match.
    assert_eq!(
        seqs(
            &repo,
            &[
                "--event",
                "decision.recorded",
                "--event",
                "session.opened",
                "--session",
                &first
            ]
        ),
        [1, 2]
    );
    assert_eq!(
        seqs(
            &repo,
            &[
                "--event",
                "decision.recorded",
                "--event",
                "question.asked",
                "--since",
                "2026-12-01"
            ]
        ),
        [6, 8]
    );
    let run = repo
        .run(&[
            "history",
            "--event",
            "session.closed",
            "--event",
            "knowledge.derived",
        ])
        .success();
    let events: Vec<&str> = run
        .stdout()
        .lines()
        .map(|l| l.split(' ').nth(2).expect("event"))
        .collect();
    assert_eq!(events, ["knowledge.derived", "session.closed"], "{run}");
    // One unknown name among them refuses the read, by its name.
    repo.run(&[
        "history",
        "--event",
        "session.closed",
        "--event",
        "decision",
    ])
    .assert_human_error(2, "--event decision");
}

#[test]
fn history_filters_by_session() {
    let (repo, first, second) = two_days();
    assert_eq!(seqs(&repo, &["--session", &first]), [1, 2, 3, 4, 5]);
    assert_eq!(seqs(&repo, &["--session", &second]), [7, 8]);
    let none = repo
        .run(&["history", "--session", "20200101T000000Z-000000"])
        .success();
    assert_eq!(none.stdout(), "no ledger lines match\n");
}

#[test]
fn history_filters_by_since() {
    let (repo, _, _) = two_days();
    // A date is midnight UTC.
    assert_eq!(seqs(&repo, &["--since", "2026-12-01"]), [6, 7, 8]);
    // Inclusive: the checkpoint at 10:10 is kept.
    assert_eq!(
        seqs(&repo, &["--since", "2026-11-30T10:10:00Z"]),
        [3, 4, 5, 6, 7, 8]
    );
    // Any offset is the same instant.
    assert_eq!(
        seqs(&repo, &["--since", "2026-11-30T11:10:00+01:00"]),
        [3, 4, 5, 6, 7, 8]
    );
    assert_eq!(seqs(&repo, &["--since", "2027-01-01"]), Vec::<u64>::new());
}

#[test]
fn history_filters_combine() {
    let (repo, first, _) = two_days();
    assert_eq!(
        seqs(
            &repo,
            &["--event", "decision.recorded", "--since", "2026-12-01"]
        ),
        [6]
    );
    assert_eq!(
        seqs(
            &repo,
            &["--event", "decision.recorded", "--session", &first]
        ),
        [2]
    );
    assert_eq!(
        seqs(
            &repo,
            &["--event", "knowledge.derived", "--since", "2026-12-01"]
        ),
        Vec::<u64>::new()
    );
}

#[test]
fn history_json_is_lines_and_skipped() {
    let (repo, first, _) = two_days();
    let json = repo.run(&["--format", "json", "history"]).success().json();
    let object = json.as_object().expect("an object");
    assert_eq!(
        object.keys().collect::<Vec<_>>(),
        ["lines", "skipped"],
        "{json}"
    );
    assert_eq!(json["skipped"], serde_json::json!([]));
    let lines = json["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 8);
    assert_eq!(
        lines,
        &repo.ledger(),
        "history shows the ledger's lines as written"
    );
    let first_line = &lines[0];
    let mut keys: Vec<&str> = first_line
        .as_object()
        .expect("line object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["data", "event", "seq", "session", "task", "ts"]);
    assert_eq!(first_line["session"], first.as_str());
    assert_eq!(first_line["data"]["provider"], "cli");
    assert_eq!(lines[5]["session"], Value::Null);
}

#[test]
fn history_of_a_fresh_repository_is_empty() {
    let repo = TestRepo::initialised();
    let run = repo.run(&["history"]).success();
    assert_eq!(run.stdout(), "no ledger lines match\n");
    let json = repo.run(&["--format", "json", "history"]).success().json();
    assert_eq!(json, serde_json::json!({ "lines": [], "skipped": [] }));
}

#[test]
fn history_refuses_an_unknown_event() {
    let (repo, _, _) = two_days();
    let run = repo.run(&["history", "--event", "decision"]);
    run.assert_human_error(2, "--event decision");
    assert!(
        run.stderr().contains("fix: use one of: session.opened, "),
        "{run}"
    );
    repo.run(&["--format", "json", "history", "--event", "decision"])
        .json_error(2, "history.event");
}

#[test]
fn history_refuses_a_bad_since() {
    let (repo, _, _) = two_days();
    for since in ["yesterday", "2026-13-45", "30.11.2026", ""] {
        let run = repo.run(&["history", "--since", since]);
        run.assert_human_error(2, "not a timestamp");
        assert!(run.stderr().contains("fix: use RFC 3339"), "{run}");
        repo.run(&["--format", "json", "history", "--since", since])
            .json_error(2, "history.since");
    }
}

#[test]
fn a_line_with_an_event_from_a_newer_version_is_shown_as_unknown() {
    let repo = TestRepo::initialised();
    repo.run(&["checkpoint", "before"]).success();
    let mut text = repo.ledger_text();
    text.push_str(
        r#"{"seq":2,"ts":"2026-11-30T10:00:00Z","event":"future.thing","session":null,"task":null,"data":{}}"#,
    );
    text.push('\n');
    repo.write(".ai/local/ledger.jsonl", &text);
    let run = repo.run(&["history"]).success();
    assert!(
        run.stdout()
            .contains("#2 2026-11-30T10:00:00Z unknown session=null {}"),
        "{run}"
    );
    let json = repo.run(&["--format", "json", "history"]).success().json();
    assert_eq!(json["lines"][1]["event"], "unknown");
    repo.run(&["checkpoint", "after"]).success();
    assert_eq!(repo.ledger().last().expect("a line")["seq"], 3);
}

#[test]
fn a_line_with_an_unknown_event_in_an_episode_breaks_no_reader() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    let mut text = repo.ledger_text();
    text.push_str(&format!(
        r#"{{"seq":2,"ts":"2026-11-30T10:00:00Z","event":"future.thing","session":"{id}","task":null,"data":{{"x":1}}}}"#
    ));
    text.push('\n');
    repo.write(".ai/local/ledger.jsonl", &text);
    repo.run(&["decision", "Readers skip what they do not know"])
        .success();
    let run = repo.run(&["history", "--session", &id]).success();
    assert!(
        run.stdout()
            .contains(&format!("#2 2026-11-30T10:00:00Z unknown session={id} ")),
        "{run}"
    );
    // The episode's readers and writers take the line in their stride.
    let context = repo.run(&["session", "context"]).success();
    assert!(context.stdout().contains("## Decisions (1)"), "{context}");
    repo.run(&["briefing"]).success();
    let closed = repo
        .run_without_stdin(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(
        closed["derived"]["written"].as_array().map(Vec::len),
        Some(1)
    );
    let events: Vec<String> = repo
        .ledger()
        .iter()
        .map(|l| l["event"].as_str().expect("event").to_owned())
        .collect();
    assert_eq!(
        events[3..],
        ["knowledge.derived", "session.closed"],
        "{events:?}"
    );
}
