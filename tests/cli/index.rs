//! The ledger index (`.ai/local/state/ledger-index.json` and `ledger-index/`): derived,
//! extended when the ledger grows, rebuilt (and reported) when missing or stale, and
//! answering what a full read answers.

use serde_json::json;

use crate::common::{TestRepo, ledger_line};

const MANIFEST: &str = ".ai/local/state/ledger-index.json";

/// An episode with a decision, a question and a checkpoint, the index built once.
fn busy() -> (TestRepo, String) {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Index the ledger"]).success();
    repo.run(&["question", "Does the index stay flat?"])
        .success();
    repo.run(&["checkpoint", "Index built"]).success();
    repo.run(&["briefing"]).success();
    (repo, id)
}

/// `majordomus --format json ARGS`, stdout parsed.
fn json(repo: &TestRepo, args: &[&str]) -> serde_json::Value {
    let mut full = vec!["--format", "json"];
    full.extend_from_slice(args);
    repo.run(&full).success().json()
}

#[test]
fn a_deleted_index_is_rebuilt_and_the_rebuild_is_reported() {
    let (repo, id) = busy();
    assert!(repo.exists(MANIFEST));
    std::fs::remove_file(repo.path(MANIFEST)).expect("delete the manifest");
    std::fs::remove_dir_all(repo.path(".ai/local/state/ledger-index")).expect("delete");

    let run = repo.run(&["history", "--session", &id]).success();
    assert_eq!(run.stdout().lines().count(), 4, "{run}");
    assert!(
        run.stderr().starts_with(
            "note: built the ledger index, a cache for reading the ledger fast (.ai/local/state/ledger-index.json): no index yet; read 4 line(s)"
        ),
        "{run}"
    );
    // Rebuilt once: the next read finds it fresh and says nothing.
    let again = repo.run(&["history", "--session", &id]).success();
    assert_eq!(again.stderr(), "", "{again}");
    assert_eq!(again.stdout(), run.stdout());

    std::fs::remove_file(repo.path(MANIFEST)).expect("delete the manifest");
    let briefing = json(&repo, &["briefing"]);
    assert_eq!(briefing["index_rebuilt"]["reason"], "missing");
    assert_eq!(briefing["index_rebuilt"]["lines"], 4);
    assert_eq!(briefing["open_questions"].as_array().map(Vec::len), Some(1));
    assert!(json(&repo, &["briefing"]).get("index_rebuilt").is_none());
}

#[test]
fn an_unreadable_index_is_rebuilt() {
    let (repo, _) = busy();
    let manifest = repo.read(MANIFEST);
    repo.write(MANIFEST, &manifest[..manifest.len() / 2]);
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    assert_eq!(doctor["index_rebuilt"]["reason"], "unreadable", "{doctor}");

    // A segment file cut short.
    let segments = std::fs::read_dir(repo.path(".ai/local/state/ledger-index"))
        .expect("segments")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".seg"))
        .map(|e| e.path())
        .collect::<Vec<_>>();
    assert_eq!(segments.len(), 1, "replaced segments are deleted");
    let bytes = std::fs::read(&segments[0]).expect("segment");
    std::fs::write(&segments[0], &bytes[..bytes.len() - 1]).expect("truncate");
    let run = repo.run(&["knowledge", "status"]).success();
    assert!(
        run.stderr().starts_with(
            "note: rebuilt the ledger index, a cache for reading the ledger fast (.ai/local/state/ledger-index.json): segment "
        ),
        "{run}"
    );
    assert!(run.stdout().contains("last closed: never"), "{run}");
}

#[test]
fn a_ledger_replaced_by_another_of_the_same_length_is_caught_by_its_last_line() {
    let (repo, id) = busy();
    let text = repo.ledger_text();
    let swapped = text.replace("Index built", "Index burnt");
    assert_eq!(swapped.len(), text.len());
    std::fs::write(repo.path(".ai/local/ledger.jsonl"), &swapped).expect("replace");

    let run = repo
        .run(&[
            "history",
            "--session",
            &id,
            "--event",
            "checkpoint.recorded",
        ])
        .success();
    assert!(run.stdout().contains("Index burnt"), "{run}");
    assert!(
        run.stderr().contains("rebuilt the ledger index")
            && run.stderr().contains("is not the one the index ends with"),
        "{run}"
    );

    // A shorter ledger (restored from a backup, say) is stale too.
    let half: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(repo.path(".ai/local/ledger.jsonl"), &half).expect("truncate");
    let history = json(&repo, &["history", "--session", &id]);
    assert_eq!(history["index_rebuilt"]["reason"], "stale");
    assert_eq!(history["lines"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_grown_ledger_extends_the_index_without_a_rebuild() {
    let (repo, id) = busy();
    // Written by other processes, or by hand: the next read indexes only these lines.
    let seq = repo.last_seq();
    let mut more = String::new();
    for n in 1..=3 {
        more.push_str(&ledger_line(
            seq + n,
            "2026-11-30T10:00:00Z",
            "decision.recorded",
            Some(&id),
            None,
            &json!({ "text": format!("Later decision {n}") }),
        ));
    }
    repo.append_ledger(&more);
    let run = repo
        .run(&["history", "--event", "decision.recorded"])
        .success();
    assert_eq!(run.stderr(), "", "no rebuild: {run}");
    assert_eq!(run.stdout().lines().count(), 4, "{run}");
    assert!(run.stdout().contains("Later decision 3"), "{run}");
    let doctor = json(&repo, &["doctor"]);
    assert!(doctor.get("index_rebuilt").is_none(), "{doctor}");
}

#[test]
fn filtered_history_answers_as_the_full_read_does() {
    let (repo, id) = busy();
    repo.run_without_stdin(&["session", "close"]).success();
    let all = json(&repo, &["history"]);
    let lines = all["lines"].as_array().expect("lines").clone();
    for (args, keep) in [
        (
            vec!["--session", id.as_str()],
            Box::new(|l: &serde_json::Value| l["session"] == id.as_str())
                as Box<dyn Fn(&serde_json::Value) -> bool>,
        ),
        (
            vec!["--event", "session.closed"],
            Box::new(|l: &serde_json::Value| l["event"] == "session.closed"),
        ),
        (
            vec![
                "--since",
                "2026-11-30T10:00:00Z",
                "--event",
                "question.asked",
            ],
            Box::new(|l: &serde_json::Value| l["event"] == "question.asked"),
        ),
        (
            vec!["--since", "2026-12-01"],
            Box::new(|_: &serde_json::Value| false),
        ),
    ] {
        let mut full = vec!["history"];
        full.extend(args.iter().copied());
        let got = json(&repo, &full);
        let expected: Vec<&serde_json::Value> = lines.iter().filter(|l| keep(l)).collect();
        assert_eq!(
            got["lines"]
                .as_array()
                .expect("lines")
                .iter()
                .collect::<Vec<_>>(),
            expected,
            "{args:?}"
        );
    }
}

#[test]
fn readers_of_many_processes_at_once_agree() {
    let (repo, id) = busy();
    std::fs::remove_file(repo.path(MANIFEST)).expect("delete the manifest");
    // Every one of them finds the index missing; one builds it, the others wait and read.
    let runs = repo.run_concurrently(6, &["--format", "json", "history", "--session", &id]);
    let rebuilt = runs
        .iter()
        .filter(|r| r.json().get("index_rebuilt").is_some())
        .count();
    assert_eq!(rebuilt, 1, "exactly one process builds the index");
    for run in &runs {
        assert_eq!(run.code(), 0, "{run}");
        assert_eq!(
            run.json()["lines"].as_array().map(Vec::len),
            Some(4),
            "{run}"
        );
    }
}

#[test]
fn an_episode_whose_offset_went_stale_is_read_through_the_index() {
    let repo = TestRepo::initialised();
    repo.run(&["decision", "Before the episode"]).success();
    repo.run(&["checkpoint", "Also before the episode"])
        .success();
    let id = repo.start_episode();
    repo.run(&["decision", "Inside the episode"]).success();
    // The lines before the episode go, as a prune would take them: `episode.json` still
    // holds the old offset of the episode's `session.opened` line.
    let text = repo.ledger_text();
    let kept: String = text.lines().skip(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(repo.path(".ai/local/ledger.jsonl"), kept).expect("rewrite the ledger");

    let context = repo.run(&["session", "context"]).success();
    assert!(context.stdout().contains("## Decisions (1)"), "{context}");
    assert!(context.stdout().contains("Inside the episode"), "{context}");
    assert!(
        !context.stdout().contains("Before the episode"),
        "{context}"
    );
    assert!(
        context.stderr().contains("rebuilt the ledger index"),
        "{context}"
    );
    repo.run_without_stdin(&["session", "close"]).success();
    let record = repo.read(&format!(".ai/repo/sessions/{id}.md"));
    assert!(record.contains("Inside the episode"), "{record}");
}
