//! The trunk outbox (SPEC §5.7): on the trunk an episode boundary parks its session record
//! and candidates under `.ai/local/state/outbox/`; the next boundary on another branch moves
//! them, unchanged, into `.ai/repo/`.

use std::collections::BTreeMap;

use serde_json::json;

use crate::common::{TestRepo, bin, changed_files};

const OUTBOX: &str = ".ai/local/state/outbox";

/// Every file under `rel`, by path relative to `rel`, with its bytes.
fn tree(repo: &TestRepo, rel: &str) -> BTreeMap<String, Vec<u8>> {
    repo.files()
        .into_iter()
        .filter_map(|(path, (bytes, _))| {
            path.strip_prefix(&format!("{rel}/"))
                .map(|p| (p.to_owned(), bytes))
        })
        .collect()
}

/// What an episode closed on the trunk left in the outbox.
struct Parked {
    episode: String,
    /// The outbox's files (`sessions/<ep>.md`, `candidates/<id>.md`) and their bytes.
    outbox: BTreeMap<String, Vec<u8>>,
}

/// A repository whose `main` is the trunk (origin's HEAD names it), with the candidates
/// README removed in a commit, and an episode opened, worked and closed on `main`.
fn closed_on_the_trunk(repo: &TestRepo) -> Parked {
    repo.add_origin();
    let env = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(
        env["trunk"],
        json!({"branch": "main", "source": "remote-head", "remote": "origin"})
    );
    repo.git(&["rm", "-q", ".ai/repo/knowledge/candidates/README.md"]);
    repo.git(&["commit", "-q", "-m", "Drop the candidates README"]);
    let before = tree(repo, ".ai/repo");

    let episode = repo.start_episode();
    repo.run(&["decision", "Trunk records wait in the outbox"])
        .success();
    let qid = repo
        .run(&["question", "Where do trunk records go?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&["question", "resolve", &qid, "Into .ai/local/state/outbox/"])
        .success();
    repo.commit(
        "README.md",
        "# A test project\n\nEdited on the trunk.\n",
        "Edit the readme",
    );
    let close = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(close["outboxed"], true);
    assert_eq!(close["derived"]["target"], "outbox");
    assert_eq!(close["derived"]["planted_readme"], false);

    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the trunk stays clean"
    );
    assert_eq!(
        tree(repo, ".ai/repo"),
        before,
        "nothing under .ai/repo/ is written"
    );
    let outbox = tree(repo, OUTBOX);
    let names: Vec<&String> = outbox.keys().collect();
    assert_eq!(names.len(), 3, "one record and two candidates: {names:?}");
    assert_eq!(names[2], &format!("sessions/{episode}.md"));
    assert!(
        names[..2]
            .iter()
            .all(|n| n.starts_with(&format!("candidates/{episode}-"))),
        "{names:?}"
    );
    Parked { episode, outbox }
}

/// Panics unless the outbox is empty and its files sit in `.ai/repo/` with the same bytes.
#[track_caller]
fn assert_moved_unchanged(repo: &TestRepo, parked: &Parked) {
    assert!(tree(repo, OUTBOX).is_empty(), "the outbox is drained");
    for (name, bytes) in &parked.outbox {
        let target = if let Some(n) = name.strip_prefix("sessions/") {
            format!(".ai/repo/sessions/{n}")
        } else {
            format!(
                ".ai/repo/knowledge/candidates/{}",
                name.strip_prefix("candidates/").expect("a shelf")
            )
        };
        let moved = std::fs::read(repo.path(&target))
            .unwrap_or_else(|e| panic!("{name} was not moved to {target}: {e}"));
        assert!(moved == *bytes, "{target} differs from the outbox's {name}");
    }
}

/// The file names `outbox.drained` should list.
fn drained_data(parked: &Parked) -> serde_json::Value {
    let names = |shelf: &str| -> Vec<String> {
        parked
            .outbox
            .keys()
            .filter_map(|k| k.strip_prefix(&format!("{shelf}/")).map(str::to_owned))
            .collect()
    };
    json!({"sessions": names("sessions"), "candidates": names("candidates")})
}

#[test]
fn a_close_on_the_trunk_parks_its_output_in_the_outbox() {
    let repo = TestRepo::initialised();
    let parked = closed_on_the_trunk(&repo);
    let closed = repo.ledger_events("session.closed");
    assert_eq!(
        closed[0]["data"]["record"],
        format!("{OUTBOX}/sessions/{}.md", parked.episode).as_str()
    );
    let derived = repo.ledger_events("knowledge.derived");
    assert_eq!(derived[0]["data"]["target"], "outbox");

    // A rerun on the trunk still writes nothing under .ai/repo/.
    let before = repo.files();
    repo.run(&["knowledge", "derive", "--episode", &parked.episode])
        .success();
    assert_eq!(
        changed_files(&before, &repo.files()),
        [".ai/local/ledger.jsonl"]
    );
    // Starting again on the trunk leaves the outbox where it is.
    repo.start_episode();
    assert_eq!(tree(&repo, OUTBOX), parked.outbox);
    assert!(repo.ledger_events("outbox.drained").is_empty());
}

#[test]
fn the_next_boundary_off_the_trunk_moves_the_outbox_unchanged() {
    let mut repo = TestRepo::initialised();
    let parked = closed_on_the_trunk(&repo);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.now("2026-11-30T11:00:00Z");
    let run = repo
        .run(&["--format", "json", "session", "start"])
        .success();
    let episode = repo.episode_id();
    let mut expected = drained_data(&parked);
    expected["left"] = json!([]);
    assert_eq!(run.json()["drained"], expected);

    assert_moved_unchanged(&repo, &parked);
    let drained = repo.ledger_events("outbox.drained");
    assert_eq!(drained.len(), 1);
    assert_eq!(drained[0]["data"], drained_data(&parked));
    assert_eq!(drained[0]["ts"], "2026-11-30T11:00:00Z");
    // The boundary drains before it opens the new episode.
    let events: Vec<String> = repo
        .ledger()
        .iter()
        .map(|l| l["event"].as_str().expect("event").to_owned())
        .collect();
    assert_eq!(
        events[events.len() - 2..],
        ["outbox.drained", "session.opened"]
    );
    let opened = repo.ledger_events("session.opened");
    assert_eq!(opened.last().expect("opened")["session"], episode.as_str());

    // Idempotent: nothing left to drain, nothing appended.
    repo.run(&["session", "close"]).success();
    repo.start_episode();
    assert_eq!(repo.ledger_events("outbox.drained").len(), 1);
    // The moved files are work for this branch.
    let status = repo.git(&["status", "--porcelain"]);
    assert!(
        status.contains(&format!("?? .ai/repo/sessions/{}.md", parked.episode)),
        "{status}"
    );
}

#[test]
fn a_branch_switch_never_drains_the_next_episode_does() {
    // SPEC §8: the outbox drains at episode boundaries only, never at checkout or merge,
    // even with the git hooks installed.
    let repo = TestRepo::initialised();
    let parked = closed_on_the_trunk(&repo);
    repo.run(&["hooks", "install"]).success();

    let output = repo
        .git_command_in(repo.root(), &["checkout", "-b", "feature"])
        .env("MAJORDOMUS_BIN", bin())
        .output()
        .expect("spawn git");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("majordomus"), "{stderr}");
    assert_eq!(
        tree(&repo, OUTBOX),
        parked.outbox,
        "a checkout moved the outbox"
    );
    assert!(repo.ledger_events("outbox.drained").is_empty());

    repo.start_episode();
    assert_moved_unchanged(&repo, &parked);
    assert_eq!(repo.ledger_events("outbox.drained").len(), 1);
}

#[test]
fn doctor_and_knowledge_status_name_a_non_empty_outbox() {
    let repo = TestRepo::initialised();
    let parked = closed_on_the_trunk(&repo);

    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().contains(
            "WARN majordomus.outbox-empty\n     WARN .ai/local/state/outbox/ [majordomus.outbox-empty] the trunk outbox holds 1 session record(s) and 2 candidate(s)\n"
        ),
        "{run}"
    );
    assert!(
        run.stdout()
            .ends_with("doctor: 0 blocking, 1 advisory finding(s)\n"),
        "{run}"
    );
    // The outbox is doctor's; watch reruns the drift rules only.
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 0);

    let run = repo.run(&["knowledge", "status"]).success();
    assert!(
        run.stdout()
            .ends_with("outbox: 1 session record(s), 2 candidate(s) waiting to leave the trunk\n"),
        "{run}"
    );
    let json = repo
        .run(&["--format", "json", "knowledge", "status"])
        .success()
        .json();
    assert_eq!(json["outbox"], drained_data(&parked));

    let json = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let states: Vec<&str> = json["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["state"].as_str().expect("state"))
        .collect();
    assert_eq!(states, ["outbox", "outbox"]);

    // Once drained, nobody names it any more.
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.start_episode();
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let outbox = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.outbox-empty")
        .expect("the outbox rule")
        .clone();
    assert_eq!(outbox["status"], "pass");
}

#[test]
fn context_names_a_non_empty_outbox() {
    let repo = TestRepo::initialised();
    let before = repo.run(&["context"]).success();
    assert!(before.stdout().contains("## OUTBOX\n- empty\n"), "{before}");
    closed_on_the_trunk(&repo);
    let run = repo.run(&["context"]).success();
    let out = run.stdout();
    let section = out.split("## OUTBOX\n").nth(1).expect("an OUTBOX section");
    assert!(
        section.starts_with("- 1 session record(s) and ")
            && section.contains("wait in .ai/local/state/outbox/"),
        "{run}"
    );
}

#[test]
fn a_rejection_survives_a_rederive_on_the_trunk_and_the_next_drain() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let episode = repo.start_episode();
    repo.run(&["decision", "Records wait in the outbox"])
        .success();
    repo.run(&["session", "close"]).success();
    let id = repo.record_ids(".ai/repo/knowledge/candidates")[0].clone();
    let file = format!(".ai/repo/knowledge/candidates/{id}.md");
    repo.run(&["knowledge", "reject", &id, "--reason", "Not a claim"])
        .success();
    let rejected = repo.read(&file);
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record and review the episode"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--ff-only", "feature"]);

    // On the trunk: the deriver finds the rejection in the tracked folder.
    let run = repo
        .run(&["knowledge", "derive", "--episode", &episode])
        .success();
    assert!(
        run.stdout()
            .contains(&format!("  left alone {id} (superseded)\n")),
        "{run}"
    );
    assert!(tree(&repo, OUTBOX).is_empty(), "nothing parked: {run}");

    // Even a fresh candidate parked in the outbox never overwrites the rejection.
    let parked = repo.path(&format!("{OUTBOX}/candidates/{id}.md"));
    std::fs::create_dir_all(parked.parent().expect("shelf")).expect("create the shelf");
    std::fs::write(
        &parked,
        rejected.replace("status: superseded", "status: candidate"),
    )
    .expect("park a candidate");
    repo.git(&["checkout", "-q", "-b", "next"]);
    repo.start_episode();
    assert_eq!(repo.read(&file), rejected, "the drain undid a rejection");
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ai/repo"]), "");
}
