//! The ledger under concurrent writers, and its torn-tail recovery.

use std::collections::HashMap;
use std::io::Write;
use std::process::Stdio;

use crate::common::TestRepo;

const WRITERS: usize = 8;
const APPENDS_EACH: usize = 25;

#[test]
fn concurrent_appends_are_whole_lines_with_unique_sequential_seq() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();

    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let repo = &repo;
                scope.spawn(move || {
                    for n in 0..APPENDS_EACH {
                        let text = format!("writer {w} append {n}");
                        let output = repo
                            .command_in(repo.root(), &["checkpoint", &text])
                            .stdin(Stdio::null())
                            .output()
                            .expect("spawn majordomus");
                        assert!(
                            output.status.success(),
                            "{text}: {}",
                            String::from_utf8_lossy(&output.stderr)
                        );
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("writer thread");
        }
    });

    let text = repo.ledger_text();
    assert!(text.ends_with('\n'), "the ledger ends mid-line");
    let lines = repo.ledger(); // panics on any line that does not parse
    let total = 1 + WRITERS * APPENDS_EACH;
    assert_eq!(lines.len(), total);
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    let expected: Vec<u64> = (1..=total as u64).collect();
    assert_eq!(seqs, expected, "seq is not 1..=N in file order");

    // Every append is there exactly once, each writer's in its own order, all stamped.
    let mut seen: HashMap<usize, Vec<usize>> = HashMap::new();
    for line in &lines[1..] {
        assert_eq!(line["event"], "checkpoint.recorded", "{line}");
        assert_eq!(line["session"], id.as_str(), "{line}");
        let text = line["data"]["text"].as_str().expect("text");
        let (w, n) = text
            .strip_prefix("writer ")
            .and_then(|r| r.split_once(" append "))
            .expect("a checkpoint of this test");
        seen.entry(w.parse().expect("writer"))
            .or_default()
            .push(n.parse().expect("append"));
    }
    assert_eq!(seen.len(), WRITERS);
    for (w, ns) in &seen {
        assert_eq!(
            ns,
            &(0..APPENDS_EACH).collect::<Vec<_>>(),
            "writer {w}: lost, duplicated or reordered appends"
        );
    }

    let json = repo.run(&["--format", "json", "history"]).success().json();
    assert_eq!(json["skipped"], serde_json::json!([]));
    assert_eq!(json["lines"].as_array().map(Vec::len), Some(total));
}

#[test]
fn a_torn_last_line_is_skipped_and_the_next_append_starts_a_new_line() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Before the crash"]).success();
    let torn = r#"{"seq":3,"ts":"2026-11-30T10:0"#;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(repo.path(".ai/local/ledger.jsonl"))
        .expect("open ledger");
    file.write_all(torn.as_bytes()).expect("tear the ledger");
    drop(file);

    // Reading still works and reports the torn line.
    let run = repo.run(&["history"]).success();
    assert_eq!(run.stdout().lines().count(), 2, "{run}");
    assert!(
        run.stderr()
            .starts_with("note: skipped 1 unreadable ledger line(s): line 3: torn"),
        "{run}"
    );
    let json = repo.run(&["--format", "json", "history"]).success().json();
    assert_eq!(json["lines"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["skipped"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["skipped"][0]["torn"], true);
    assert_eq!(json["skipped"][0]["line"], 3);
    let context = repo.run(&["session", "context"]).success();
    assert!(
        context
            .stderr()
            .contains("1 unreadable ledger line(s) skipped"),
        "{context}"
    );

    // The next append ends the torn line and takes the next seq on a line of its own.
    let run = repo.run(&["checkpoint", "After the crash"]).success();
    assert_eq!(
        run.stdout(),
        format!("recorded checkpoint (ledger seq 3) in episode {id}\n")
    );
    let text = repo.ledger_text();
    let raw: Vec<&str> = text.lines().collect();
    assert_eq!(raw.len(), 4, "{text}");
    assert_eq!(raw[2], torn, "the torn bytes were changed");
    let appended: serde_json::Value = serde_json::from_str(raw[3]).expect("a whole line");
    assert_eq!(appended["seq"], 3);
    assert_eq!(appended["data"]["text"], "After the crash");
    assert!(text.ends_with('\n'));

    // The torn line stays skipped; it is now whole but unreadable.
    let json = repo.run(&["--format", "json", "history"]).success().json();
    let seqs: Vec<u64> = json["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
    assert_eq!(json["skipped"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["skipped"][0]["line"], 3);
    assert_eq!(json["skipped"][0]["torn"], false);

    // And the episode's window still holds both authored lines.
    let context = repo.run(&["session", "context"]).success();
    assert!(context.stdout().contains("Before the crash"), "{context}");
    assert!(context.stdout().contains("After the crash"), "{context}");
}

#[test]
fn an_episode_opened_after_a_torn_tail_reads_its_window() {
    let repo = TestRepo::initialised();
    repo.run(&["decision", "Before any episode"]).success();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(repo.path(".ai/local/ledger.jsonl"))
        .expect("open ledger");
    file.write_all(b"{\"seq\":2,\"ev").expect("tear the ledger");
    drop(file);

    let id = repo.start_episode();
    repo.run(&["decision", "Inside the episode"]).success();
    let opened = repo
        .ledger_text()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|l| l["event"] == "session.opened")
        .expect("session.opened line");
    assert_eq!(opened["seq"], 2);
    assert_eq!(opened["session"], id.as_str());

    let context = repo.run(&["session", "context"]).success();
    assert!(context.stdout().contains("## Decisions (1)"), "{context}");
    assert!(context.stdout().contains("Inside the episode"), "{context}");
    assert!(
        !context.stdout().contains("Before any episode"),
        "{context}"
    );
}

#[test]
fn ledger_lines_have_the_spec_shape() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "Shape check"]).success();
    for line in repo.ledger_text().lines() {
        let keys: Vec<usize> = [
            "\"seq\":",
            "\"ts\":",
            "\"event\":",
            "\"session\":",
            "\"task\":",
            "\"data\":",
        ]
        .iter()
        .map(|k| {
            line.find(k)
                .unwrap_or_else(|| panic!("{k} missing in {line}"))
        })
        .collect();
        assert!(keys.is_sorted(), "keys out of SPEC order: {line}");
        assert!(line.starts_with("{\"seq\":"), "{line}");
    }
}
