//! Stores written by an earlier release read, check and re-derive unchanged: the typed
//! ledger payloads keep the JSON of the 0.1.0 release (`fixtures/release-0.1.0/`).

use std::path::Path;

use majordomus::model::LedgerLine;
use majordomus::model::event::{self as ev, LineDraft, Payload};
use serde_json::Value;

use crate::common::TestRepo;

const OLD: &str = "20261129T234000Z-05a295";

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cli/fixtures/release-0.1.0"
    ))
}

/// A repository holding the 0.1.0 store: its ledger and its tracked `.ai/repo/`.
fn old_store() -> TestRepo {
    let repo = TestRepo::initialised();
    let mut stack = vec![fixture().join("repo")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(fixture().join("repo"))
                .expect("inside the fixture");
            let text = std::fs::read_to_string(&path).expect("fixture file");
            repo.write(&format!(".ai/repo/{}", rel.display()), &text);
        }
    }
    repo.write(
        ".ai/local/ledger.jsonl",
        &std::fs::read_to_string(fixture().join("ledger.jsonl")).expect("fixture ledger"),
    );
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "The 0.1.0 store"]);
    repo
}

/// `line` read through its event's payload type and written back.
fn rewritten<P: Payload>(line: &LedgerLine) -> String {
    let payload: P = line
        .payload()
        .unwrap_or_else(|| panic!("#{} does not read as its type", line.seq));
    let again = LineDraft::new(
        line.ts.clone(),
        line.session.clone(),
        line.task.clone(),
        &payload,
    )
    .with_seq(line.seq);
    serde_json::to_string(&again).expect("serialises")
}

#[test]
fn every_line_of_the_old_ledger_reads_as_its_type_and_writes_the_same_bytes() {
    let text = std::fs::read_to_string(fixture().join("ledger.jsonl")).expect("fixture");
    let mut events = std::collections::BTreeSet::new();
    for raw in text.lines() {
        let line: LedgerLine = serde_json::from_str(raw).expect("a ledger line");
        events.insert(line.event.name());
        let again = match line.event {
            ev::Event::SessionOpened => rewritten::<ev::SessionOpened>(&line),
            ev::Event::SessionClosed => rewritten::<ev::SessionClosed>(&line),
            ev::Event::DecisionRecorded => rewritten::<ev::DecisionRecorded>(&line),
            ev::Event::QuestionAsked => rewritten::<ev::QuestionAsked>(&line),
            ev::Event::QuestionResolved => rewritten::<ev::QuestionResolved>(&line),
            ev::Event::CheckpointRecorded => rewritten::<ev::CheckpointRecorded>(&line),
            ev::Event::CommitRecorded => rewritten::<ev::CommitRecorded>(&line),
            ev::Event::KnowledgeDerived => rewritten::<ev::KnowledgeDerived>(&line),
            ev::Event::KnowledgePromoted => rewritten::<ev::KnowledgePromoted>(&line),
            ev::Event::KnowledgeRejected => rewritten::<ev::KnowledgeRejected>(&line),
            ev::Event::ProviderEventFailed => rewritten::<ev::ProviderEventFailed>(&line),
            other => panic!("the fixture has no {other} line"),
        };
        assert_eq!(
            again, raw,
            "#{} changed when read and written back",
            line.seq
        );
    }
    assert_eq!(events.len(), 11, "{events:?}");
}

#[test]
fn an_old_store_checks_reads_and_rederives_unchanged() {
    let repo = old_store();
    let history = repo.run(&["--format", "json", "history"]).success().json();
    let lines = history["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 16);
    assert!(lines.iter().all(|l| l["event"] != "unknown"), "{history}");

    // The record whose task 0.1.0 never checked was rejected: it claims nothing, so its
    // dangling reference is no finding at all.
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    let findings = check["findings"].as_array().expect("findings");
    assert!(findings.is_empty(), "{check}");

    // Derivation over the old evidence names the same ids and writes the same bytes.
    let before = repo.files();
    let derived = repo
        .run(&["--format", "json", "knowledge", "derive", "--episode", OLD])
        .success()
        .json();
    assert_eq!(derived["written"], Value::Array(vec![]), "{derived}");
    assert_eq!(derived["nothing_to_write"], true);
    assert_eq!(derived["unchanged"].as_array().map(Vec::len), Some(1));
    assert_eq!(derived["reviewed"].as_array().map(Vec::len), Some(2));
    let after = repo.files();
    for (path, (bytes, _)) in &before {
        if path.starts_with(".ai/repo/") {
            assert_eq!(Some(bytes), after.get(path).map(|(b, _)| b), "{path}");
        }
    }

    repo.run(&["doctor"]).success();
    repo.run(&["briefing"]).success();
    repo.start_episode();
    repo.run(&["session", "close"]).success();
}
