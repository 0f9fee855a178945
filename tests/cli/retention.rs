//! `ledger.retention_days`: `session close` prunes what the retention lets go and keeps
//! what it must; `ledger.pruned` says so, and so does `history`.

use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::{TestRepo, ledger_line};

const OLD: &str = "2026-10-01T09:00:00Z";
const DERIVED: &str = "20261001T090000Z-aaaaaa";
const UNDERIVED: &str = "20261001T090000Z-bbbbbb";

/// Lines written two months before the pinned clock, numbered 1..=12. Comments say which a
/// 30-day retention must keep.
fn old_lines() -> String {
    let lines = [
        // A closed, derived episode: pruned whole (4).
        (
            "session.opened",
            Some(DERIVED),
            None,
            json!({"branch": "main", "head": null, "provider": "cli"}),
        ),
        (
            "decision.recorded",
            Some(DERIVED),
            None,
            json!({"text": "Old and derived"}),
        ),
        (
            "knowledge.derived",
            Some(DERIVED),
            None,
            json!({"episode": DERIVED, "note": "nothing to write", "paths": [], "reviewed": 0, "skipped": 0, "target": "candidates", "unchanged": 0, "written": 0}),
        ),
        (
            "session.closed",
            Some(DERIVED),
            None,
            json!({"commits": 0, "knowledge_on_end": true, "outcome": "no-commits", "record": "r"}),
        ),
        // A closed episode nothing derived: kept (3).
        (
            "session.opened",
            Some(UNDERIVED),
            None,
            json!({"branch": "main", "head": null, "provider": "cli"}),
        ),
        (
            "checkpoint.recorded",
            Some(UNDERIVED),
            None,
            json!({"text": "Old, never derived"}),
        ),
        (
            "session.closed",
            Some(UNDERIVED),
            None,
            json!({"commits": 0, "knowledge_on_end": false, "outcome": "no-commits", "record": "r"}),
        ),
        // An open question: kept (1).
        (
            "question.asked",
            None,
            None,
            json!({"id": "q-00000000aa", "text": "Still open?"}),
        ),
        // An answered question: pruned (2).
        (
            "question.asked",
            None,
            None,
            json!({"id": "q-00000000bb", "text": "Answered?"}),
        ),
        (
            "question.resolved",
            None,
            None,
            json!({"answer": "Yes", "id": "q-00000000bb", "question": "Answered?"}),
        ),
        // A task a recent decision names: kept (1).
        (
            "task.started",
            None,
            Some("t-20261001-abcd"),
            json!({"description": "Old task", "scope": []}),
        ),
        // A decision of no episode: pruned (1).
        (
            "decision.recorded",
            None,
            None,
            json!({"text": "Old, of no episode"}),
        ),
    ];
    lines
        .iter()
        .enumerate()
        .map(|(i, (event, session, task, data))| {
            ledger_line(i as u64 + 1, OLD, event, *session, *task, data)
        })
        .collect()
}

fn texts(repo: &TestRepo) -> Vec<(u64, String)> {
    repo.ledger()
        .iter()
        .map(|l| {
            (
                l["seq"].as_u64().expect("seq"),
                l["event"].as_str().expect("event").to_owned(),
            )
        })
        .collect()
}

#[test]
fn close_prunes_what_retention_lets_go_and_keeps_what_it_must() {
    let repo = TestRepo::initialised();
    repo.write_policy("ledger:\n  retention_days: 30\n");
    repo.append_ledger(&old_lines());
    let id = repo.start_episode();
    repo.run(&[
        "decision",
        "Builds on the old task",
        "--task",
        "t-20261001-abcd",
    ])
    .success();
    let close = repo.run_without_stdin(&["session", "close"]).success();
    assert!(
        close.stdout().contains(
            "pruned 7 ledger line(s) older than 2026-10-31T10:00:00Z (ledger.retention_days)"
        ),
        "{close}"
    );

    let lines = repo.ledger();
    let kept: Vec<u64> = lines
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    let pruned = lines.last().expect("a last line");
    let at = pruned["seq"].as_u64().expect("seq");
    let mut expected = vec![5, 6, 7, 8, 11];
    expected.extend(13..=at);
    assert_eq!(kept, expected, "{:?}", texts(&repo));
    assert_eq!(pruned["event"], "ledger.pruned");
    assert_eq!(
        lines[lines.len() - 2]["event"],
        "session.closed",
        "pruned after the close"
    );
    assert_eq!(pruned["session"], Value::Null);
    assert_eq!(
        pruned["data"],
        json!({"before": "2026-10-31T10:00:00Z", "lines": 7})
    );
    assert!(
        lines
            .iter()
            .any(|l| l["session"] == id.as_str() && l["event"] == "session.closed")
    );

    // history says so, on stderr and in JSON.
    let history = repo.run(&["history"]).success();
    assert!(
        history.stderr().contains(
            "note: lines before 2026-10-31T10:00:00Z were pruned by retention (7 line(s); ledger.retention_days)"
        ),
        "{history}"
    );
    let json = repo
        .run(&[
            "--format",
            "json",
            "history",
            "--event",
            "decision.recorded",
        ])
        .success()
        .json();
    assert_eq!(
        json["pruned"],
        json!({"before": "2026-10-31T10:00:00Z", "lines": 7})
    );
    assert_eq!(json["lines"].as_array().map(Vec::len), Some(1));

    // What was kept still reads: the open question, the task, the underived episode.
    let briefing = repo.run(&["briefing"]).success();
    assert!(briefing.stdout().contains("Still open?"), "{briefing}");
    assert!(!briefing.stdout().contains("Answered?"), "{briefing}");
    repo.run(&[
        "decision",
        "Still a known task",
        "--task",
        "t-20261001-abcd",
    ])
    .success();
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    assert!(
        doctor.get("index_rebuilt").is_none(),
        "the prune rebuilt the index: {doctor}"
    );

    // The next append numbers after the prune's line.
    let appended = repo.ledger();
    assert_eq!(
        appended.last().expect("line")["seq"],
        at + 1,
        "seq never goes back"
    );

    // A second close the same day does not read the ledger again for what it must keep.
    repo.start_episode();
    repo.run_without_stdin(&["session", "close"]).success();
    assert_eq!(repo.ledger_events("ledger.pruned").len(), 1);
}

#[test]
fn without_retention_nothing_is_pruned() {
    let repo = TestRepo::initialised();
    repo.append_ledger(&old_lines());
    repo.start_episode();
    let close = repo.run_without_stdin(&["session", "close"]).success();
    assert!(!close.stdout().contains("pruned"), "{close}");
    assert!(repo.ledger_events("ledger.pruned").is_empty());
    assert_eq!(repo.ledger()[0]["seq"], 1);
    let history = repo.run(&["history"]).success();
    assert!(!history.stderr().contains("pruned"), "{history}");
}

#[test]
fn appends_while_a_prune_rewrites_the_ledger_all_land_in_the_new_ledger() {
    const WRITERS: usize = 4;
    const EACH: usize = 15;
    let repo = TestRepo::initialised();
    repo.write_policy("ledger:\n  retention_days: 30\n");
    // Enough old lines that the prune takes a while.
    let mut old = String::new();
    for n in 1..=30_000u64 {
        old.push_str(&ledger_line(
            n,
            OLD,
            "decision.recorded",
            None,
            None,
            &json!({ "text": format!("old decision {n} with some words to make it longer") }),
        ));
    }
    repo.append_ledger(&old);
    repo.start_episode();

    let close = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let repo = &repo;
                scope.spawn(move || {
                    for n in 0..EACH {
                        let text = format!("writer {w} append {n}");
                        let output = repo
                            .command_in(repo.root(), &["checkpoint", &text])
                            .stdin(Stdio::null())
                            .output()
                            .expect("spawn majordomus");
                        assert!(output.status.success(), "{text}");
                    }
                })
            })
            .collect();
        // The close starts once the writers are appending (a line of theirs is there), so
        // the prune runs among their appends, not before them.
        let started = std::time::Instant::now();
        while !repo
            .ledger_text()
            .contains("\"event\":\"checkpoint.recorded\"")
        {
            assert!(
                started.elapsed() < crate::common::PARALLEL_DEADLINE,
                "no writer appended"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let close = repo.run_without_stdin(&["session", "close"]);
        for w in writers {
            w.join().expect("writer thread");
        }
        close
    });
    let close = close.success();
    assert!(
        close.stdout().contains("pruned 30000 ledger line(s)"),
        "{close}"
    );

    let lines = repo.ledger();
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    // Every old line went (no episode names them); what is left is numbered on from
    // them with no gap and no repeat, whichever side of the rewrite an append landed on.
    let first = 30_001;
    assert_eq!(
        seqs,
        (first..first + seqs.len() as u64).collect::<Vec<_>>(),
        "seq has a gap, a repeat or went back"
    );
    let mut written: Vec<String> = lines
        .iter()
        .filter(|l| l["event"] == "checkpoint.recorded")
        .map(|l| l["data"]["text"].as_str().expect("text").to_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = (0..WRITERS)
        .flat_map(|w| (0..EACH).map(move |n| format!("writer {w} append {n}")))
        .collect();
    expected.sort();
    assert_eq!(
        written, expected,
        "an append was lost or doubled during the prune"
    );
    assert_eq!(repo.ledger_events("ledger.pruned").len(), 1);
}
