//! Many processes at once (docs/RELIABILITY.md): appends, derivations, promotions,
//! rejections, outbox drains and closes in one clone and in two worktrees of it lose
//! nothing, number no two lines alike, leave no half-written file and no temp file, and
//! `knowledge check` is clean after. Every batch runs under a deadline
//! ([`run_parallel`]): a deadlock fails the test instead of hanging it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{Run, TestRepo, run_parallel};

/// One process of a batch: where it runs, its arguments, its stdin.
struct Job {
    dir: std::path::PathBuf,
    args: Vec<String>,
    stdin: Option<String>,
}

fn job(dir: &Path, args: &[&str]) -> Job {
    Job {
        dir: dir.to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        stdin: None,
    }
}

/// Runs every job at once (under the deadline); returns the runs in job order.
fn batch(repo: &TestRepo, jobs: Vec<Job>) -> Vec<Run> {
    run_parallel(
        jobs.into_iter()
            .map(|j| {
                let args: Vec<&str> = j.args.iter().map(String::as_str).collect();
                let label = format!("majordomus {} (in {})", j.args.join(" "), j.dir.display());
                (label, repo.command_in(&j.dir, &args), j.stdin)
            })
            .collect(),
    )
}

/// Panics unless the ledger at `dir` is whole lines numbered 1..=N with no gap and no
/// repeat; returns its lines.
#[track_caller]
fn whole_ledger(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(".ai/local/ledger.jsonl")).expect("the ledger");
    assert!(text.ends_with('\n'), "the ledger ends mid-line");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("half a line {l:?}: {e}")))
        .collect();
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(
        seqs,
        (1..=lines.len() as u64).collect::<Vec<_>>(),
        "seq has a gap or a repeat"
    );
    lines
}

/// Panics if a temp file of the atomic writer is anywhere under `dir/.ai`.
#[track_caller]
fn no_temp_files(dir: &Path) {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("list").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&entry.path(), out);
            } else if name.starts_with(".tmp.") {
                out.push(entry.path().display().to_string());
            }
        }
    }
    let mut temps = Vec::new();
    walk(&dir.join(".ai"), &mut temps);
    assert_eq!(temps, Vec::<String>::new(), "temp files left");
}

/// Panics unless every knowledge record and session record under `dir` parses (none half
/// written) and `knowledge check` passes there.
#[track_caller]
fn store_is_whole(repo: &TestRepo, dir: &Path) {
    for folder in [
        ".ai/repo/knowledge/candidates",
        ".ai/repo/knowledge/curated",
        ".ai/repo/sessions",
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "README.md" || !name.ends_with(".md") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).expect("read a record");
            let (_, front, _) = crate::common::split_record(&text);
            assert_eq!(
                front["id"].as_str(),
                Some(name.trim_end_matches(".md")),
                "{folder}/{name}: {text}"
            );
        }
    }
    no_temp_files(dir);
    let check = repo.run_in(dir, &["--format", "json", "knowledge", "check"]);
    assert_eq!(
        check.code(),
        0,
        "knowledge check in {}: {check}",
        dir.display()
    );
}

/// Counts of each event in `lines`.
fn events(lines: &[Value]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for l in lines {
        *out.entry(l["event"].as_str().expect("event").to_owned())
            .or_insert(0) += 1;
    }
    out
}

#[test]
fn parallel_appends_and_derivations_in_one_clone_lose_nothing() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let root = repo.root().to_owned();
    let mut jobs = Vec::new();
    for i in 0..8 {
        jobs.push(job(&root, &["decision", &format!("Parallel decision {i}")]));
        jobs.push(job(
            &root,
            &["checkpoint", &format!("Parallel checkpoint {i}")],
        ));
    }
    for _ in 0..4 {
        jobs.push(job(&root, &["knowledge", "derive"]));
    }
    for run in batch(&repo, jobs) {
        run.success();
    }
    let lines = whole_ledger(&root);
    let counts = events(&lines);
    assert_eq!(counts["decision.recorded"], 8, "{counts:?}");
    assert_eq!(counts["checkpoint.recorded"], 8, "{counts:?}");
    assert_eq!(counts["knowledge.derived"], 4, "{counts:?}");
    for i in 0..8 {
        for (event, text) in [
            ("decision.recorded", format!("Parallel decision {i}")),
            ("checkpoint.recorded", format!("Parallel checkpoint {i}")),
        ] {
            let found = lines
                .iter()
                .filter(|l| l["event"] == event && l["data"]["text"] == text.as_str())
                .count();
            assert_eq!(found, 1, "{text}");
        }
    }
    assert!(lines.iter().all(|l| l["session"] == episode.as_str()));
    // What the racing derivations wrote is whole, and a last one finds all of it there or
    // writes what the others had not seen yet.
    repo.run(&["knowledge", "derive"]).success();
    assert_eq!(repo.record_ids(".ai/repo/knowledge/candidates").len(), 8);
    store_is_whole(&repo, &root);
}

/// A repository on branch `work` with an origin whose trunk is `main`: eight candidates
/// of a closed episode on `work`, and on the trunk a closed episode whose record and
/// candidate wait in the outbox.
fn reviewing_with_a_full_outbox() -> (TestRepo, String, Vec<String>) {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "work"]);
    let worked = repo.start_episode();
    // Eight claims that are no near duplicates of each other: eight review items, each
    // decided by its own act (an act decides a whole item: see the race below).
    for i in 0..8 {
        repo.run(&["decision", &format!("Unit u{i}x keeps k{i}y inside v{i}z")])
            .success();
    }
    repo.run(&["session", "close"]).success();
    let candidates = repo.record_ids(".ai/repo/knowledge/candidates");
    assert_eq!(candidates.len(), 8);
    repo.git(&["add", "-A", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Candidates to review"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.start_episode();
    repo.run(&["decision", "Parked on the trunk"]).success();
    repo.run(&["session", "close"]).success();
    assert_eq!(
        repo.record_ids(".ai/local/state/outbox/candidates").len(),
        1
    );
    repo.git(&["checkout", "-q", "work"]);
    (repo, worked, candidates)
}

#[test]
fn derive_promote_reject_drain_and_close_at_once_keep_every_act() {
    let (repo, worked, ids) = reviewing_with_a_full_outbox();
    let root = repo.root().to_owned();
    let before = whole_ledger(&root).len();
    let mut jobs = Vec::new();
    for id in &ids[..3] {
        let mut j = job(&root, &["knowledge", "promote", id]);
        j.stdin = Some(format!(
            "tests/cli/concurrency.rs promotes {id} in a race\n"
        ));
        jobs.push(j);
    }
    for id in &ids[3..6] {
        jobs.push(job(
            &root,
            &["knowledge", "reject", id, "--reason", "Rejected in a race"],
        ));
    }
    for _ in 0..4 {
        jobs.push(job(&root, &["knowledge", "derive", "--episode", &worked]));
    }
    // One start opens an episode and drains the outbox; the others find it open.
    for _ in 0..3 {
        jobs.push(job(&root, &["--format", "json", "session", "start"]));
    }
    let runs = batch(&repo, jobs);
    for run in &runs {
        assert_eq!(run.code(), 0, "{run}");
    }
    let opened: Vec<bool> = runs[10..]
        .iter()
        .map(|r| r.json()["already_open"].as_bool().expect("already_open"))
        .collect();
    assert_eq!(opened.iter().filter(|o| !**o).count(), 1, "{opened:?}");

    // Close the episode those starts opened while promotions and derivations go on.
    let mut jobs = vec![job(&root, &["session", "close"])];
    for _ in 0..4 {
        jobs.push(job(&root, &["knowledge", "derive", "--episode", &worked]));
    }
    let mut j = job(&root, &["knowledge", "promote", &ids[6]]);
    j.stdin = Some("promoted while the episode closes\n".into());
    jobs.push(j);
    for run in batch(&repo, jobs) {
        run.success();
    }

    let lines = whole_ledger(&root);
    let counts = events(&lines[before..]);
    assert_eq!(counts["knowledge.promoted"], 4, "{counts:?}");
    assert_eq!(counts["knowledge.rejected"], 3, "{counts:?}");
    assert_eq!(counts["outbox.drained"], 1, "drained once: {counts:?}");
    assert_eq!(counts["session.opened"], 1, "{counts:?}");
    assert_eq!(counts["session.closed"], 1, "{counts:?}");
    // Every act stands: no derivation brought a promoted or rejected candidate back.
    let curated = repo.record_ids(".ai/repo/knowledge/curated");
    let mut promoted: Vec<String> = ids[..3].to_vec();
    promoted.push(ids[6].clone());
    promoted.sort();
    assert_eq!(curated, promoted);
    let pending = repo.record_ids(".ai/repo/knowledge/candidates");
    for id in &promoted {
        assert!(!pending.contains(id), "{id} is back among the candidates");
    }
    for id in &ids[3..6] {
        let text = repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md"));
        assert!(
            text.contains("status: superseded"),
            "{id} lost its rejection:\n{text}"
        );
    }
    assert!(
        repo.read(&format!(".ai/repo/knowledge/candidates/{}.md", ids[7]))
            .contains("status: candidate")
    );
    // The outbox moved once, whole.
    assert_eq!(
        repo.record_ids(".ai/local/state/outbox/candidates"),
        Vec::<String>::new()
    );
    assert_eq!(
        repo.record_ids(".ai/local/state/outbox/sessions"),
        Vec::<String>::new()
    );
    let drained = lines
        .iter()
        .find(|l| l["event"] == "outbox.drained")
        .expect("outbox.drained");
    assert_eq!(
        drained["data"]["sessions"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        drained["data"]["candidates"].as_array().map(Vec::len),
        Some(1)
    );
    store_is_whole(&repo, &root);
}

#[test]
fn concurrent_promotions_of_one_candidate_promote_it_once() {
    let (repo, _, ids) = reviewing_with_a_full_outbox();
    let root = repo.root().to_owned();
    let jobs: Vec<Job> = (0..6)
        .map(|i| {
            let mut j = job(
                &root,
                &["--format", "json", "knowledge", "promote", &ids[0]],
            );
            j.stdin = Some(format!("evidence {i}\n"));
            j
        })
        .collect();
    let runs = batch(&repo, jobs);
    let (ok, refused): (Vec<&Run>, Vec<&Run>) = runs.iter().partition(|r| r.code() == 0);
    assert_eq!(ok.len(), 1, "{runs:?}");
    for run in refused {
        run.json_error(3, "knowledge.already-promoted");
    }
    assert_eq!(repo.ledger_events("knowledge.promoted").len(), 1);
    store_is_whole(&repo, &root);
}

#[test]
fn two_worktrees_work_at_once() {
    let repo = TestRepo::initialised();
    let second = repo.base().join("second");
    let path = second.display().to_string();
    repo.git(&["worktree", "add", "-q", "-b", "second", &path]);
    let root = repo.root().to_owned();
    let trees = [root.clone(), second.clone()];
    // Each worktree keeps its own ledger and episode (.ai/local is per work tree).
    let mut jobs = Vec::new();
    for dir in &trees {
        jobs.push(job(dir, &["session", "start"]));
    }
    for run in batch(&repo, jobs) {
        run.success();
    }
    let mut jobs = Vec::new();
    for (t, dir) in trees.iter().enumerate() {
        for i in 0..4 {
            jobs.push(job(dir, &["decision", &format!("Tree {t} decision {i}")]));
            jobs.push(job(
                dir,
                &["checkpoint", &format!("Tree {t} checkpoint {i}")],
            ));
        }
        jobs.push(job(dir, &["knowledge", "derive"]));
        jobs.push(job(dir, &["knowledge", "derive"]));
    }
    for run in batch(&repo, jobs) {
        run.success();
    }
    // Close both at once, while each derives once more.
    let mut jobs = Vec::new();
    for dir in &trees {
        jobs.push(job(dir, &["session", "close"]));
        jobs.push(job(dir, &["knowledge", "derive"]));
    }
    for run in batch(&repo, jobs) {
        // A derive that ran after the close derives the episode it closed: still exit 0.
        run.success();
    }
    for (t, dir) in trees.iter().enumerate() {
        let lines = whole_ledger(dir);
        let counts = events(&lines);
        assert_eq!(counts["decision.recorded"], 4, "tree {t}: {counts:?}");
        assert_eq!(counts["checkpoint.recorded"], 4, "tree {t}: {counts:?}");
        assert_eq!(counts["session.closed"], 1, "tree {t}: {counts:?}");
        for l in lines.iter().filter(|l| l["event"] == "decision.recorded") {
            let text = l["data"]["text"].as_str().expect("text");
            assert!(
                text.starts_with(&format!("Tree {t} ")),
                "tree {t} holds {text}"
            );
        }
        let candidates = repo.run_in(dir, &["--format", "json", "knowledge", "candidates"]);
        assert_eq!(
            candidates.clone().success().json()["candidates"]
                .as_array()
                .map(Vec::len),
            Some(4),
            "{candidates}"
        );
        store_is_whole(&repo, dir);
    }
}

/// Waits until process `pid` is stopped (`T` in `/proc/<pid>/stat`); panics past the
/// deadline.
fn wait_until_stopped(pid: u32) {
    let started = std::time::Instant::now();
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The state follows the command name, which is in parentheses.
        let state = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.chars().next());
        if state == Some('T') {
            return;
        }
        assert!(
            started.elapsed() < crate::common::PARALLEL_DEADLINE,
            "process {pid} never stopped: {stat}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Waits until `child` is blocked waiting for the lock on `lock` (a `->` line of
/// `/proc/locks` naming its pid and the lock file's inode): `true`; or until it exits
/// without having waited there: `false` (it went ahead). Panics past the deadline.
fn waits_on_lock(child: &mut std::process::Child, lock: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let started = std::time::Instant::now();
    let pid = child.id().to_string();
    loop {
        // The lock file exists: the holder made it before it stopped.
        let inode = std::fs::metadata(lock)
            .unwrap_or_else(|e| panic!("the lock file {}: {e}", lock.display()))
            .ino()
            .to_string();
        let locks = std::fs::read_to_string("/proc/locks").expect("read /proc/locks");
        // `1: -> FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF`
        let waiting = locks.lines().any(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(1) == Some(&"->")
                && fields.get(5) == Some(&pid.as_str())
                && fields
                    .get(6)
                    .and_then(|f| f.rsplit(':').next())
                    .is_some_and(|i| i == inode)
        });
        if waiting {
            return true;
        }
        if child.try_wait().expect("poll").is_some() {
            return false;
        }
        assert!(
            started.elapsed() < crate::common::PARALLEL_DEADLINE,
            "process {pid} neither waited on {} nor ended:\n{locks}",
            lock.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Waits for `child` under the deadline (killed and the test failed past it).
fn finish(label: &str, mut child: std::process::Child) -> std::process::Output {
    let started = std::time::Instant::now();
    while child.try_wait().expect("poll").is_none() {
        if started.elapsed() > crate::common::PARALLEL_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{label} still running after the deadline (killed)");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.wait_with_output().expect("collect output")
}

#[test]
fn a_review_waits_for_a_derivation_that_holds_the_knowledge_lock() {
    for act in ["promote", "reject"] {
        let repo = TestRepo::initialised();
        let episode = repo.start_episode();
        repo.run(&["decision", "Derivations and reviews take turns"])
            .success();
        repo.run(&["session", "close"]).success();
        let id = repo.record_ids(".ai/repo/knowledge/candidates")[0].clone();
        // Edited by hand: the next derivation rewrites it, a write it can be stopped at.
        let rel = format!(".ai/repo/knowledge/candidates/{id}.md");
        let text = repo.read(&rel);
        repo.write(&rel, &format!("{text}Edited by hand.\n"));

        // The derivation stops after looking at the candidate, before its rewrite lands.
        let derive = repo.spawn_env(
            &["knowledge", "derive", "--episode", &episode],
            &[("MAJORDOMUS_FAULT", "write:before-rename:1:stop")],
        );
        let derive_pid = derive.id();
        wait_until_stopped(derive_pid);
        let args: Vec<&str> = match act {
            "promote" => vec!["knowledge", "promote", &id],
            _ => vec!["knowledge", "reject", &id, "--reason", "Raced a derivation"],
        };
        let mut review = repo
            .command_in(repo.root(), &args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn the review");
        {
            use std::io::Write;
            let mut stdin = review.stdin.take().expect("stdin");
            stdin
                .write_all(b"tests/cli/concurrency.rs races it\n")
                .expect("write the evidence");
        }
        let lock = repo.path(".ai/local/state/.knowledge.lock");
        let went_ahead = !waits_on_lock(&mut review, &lock);
        let resumed = std::process::Command::new("kill")
            .args(["-CONT", &derive_pid.to_string()])
            .status()
            .expect("kill -CONT");
        assert!(resumed.success());
        let derived = finish("the derivation", derive);
        let reviewed = finish(act, review);
        assert!(
            !went_ahead,
            "{act} went ahead while a derivation held the knowledge lock"
        );
        assert!(
            derived.status.success(),
            "{}",
            String::from_utf8_lossy(&derived.stderr)
        );
        assert!(
            reviewed.status.success(),
            "{}",
            String::from_utf8_lossy(&reviewed.stderr)
        );
        // The person's act came last and stands.
        match act {
            "promote" => {
                assert_eq!(
                    repo.record_ids(".ai/repo/knowledge/curated"),
                    std::slice::from_ref(&id)
                );
                assert!(
                    !repo.exists(&rel),
                    "the derivation brought the candidate back"
                );
            }
            _ => assert!(repo.read(&rel).contains("status: superseded")),
        }
        store_is_whole(&repo, repo.root());
    }
}

#[test]
fn a_rejection_waits_for_a_drain_that_holds_the_knowledge_lock() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.start_episode();
    repo.run(&["decision", "Parked on the trunk, then rejected"])
        .success();
    repo.run(&["session", "close"]).success();
    let id = repo.record_ids(".ai/local/state/outbox/candidates")[0].clone();
    repo.git(&["checkout", "-q", "-b", "work"]);

    // The start drains: it stops after reading the parked candidate, before its copy lands
    // (its second write: the session record is copied first).
    let start = repo.spawn_env(
        &["session", "start"],
        &[("MAJORDOMUS_FAULT", "write:before-rename:2:stop")],
    );
    let start_pid = start.id();
    wait_until_stopped(start_pid);
    let reject = repo
        .command_in(
            repo.root(),
            &["knowledge", "reject", &id, "--reason", "Raced a drain"],
        )
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the rejection");
    let mut reject = reject;
    let lock = repo.path(".ai/local/state/.knowledge.lock");
    let went_ahead = !waits_on_lock(&mut reject, &lock);
    let resumed = std::process::Command::new("kill")
        .args(["-CONT", &start_pid.to_string()])
        .status()
        .expect("kill -CONT");
    assert!(resumed.success());
    let started = finish("the start", start);
    let rejected = finish("the rejection", reject);
    assert!(
        !went_ahead,
        "the rejection went ahead while a drain held the knowledge lock"
    );
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    assert!(
        rejected.status.success(),
        "{}",
        String::from_utf8_lossy(&rejected.stderr)
    );
    // The drain moved the candidate, then the rejection rewrote it where it now lives.
    let rel = format!(".ai/repo/knowledge/candidates/{id}.md");
    assert!(
        repo.read(&rel).contains("status: superseded"),
        "the rejection was lost"
    );
    assert_eq!(
        repo.record_ids(".ai/local/state/outbox/candidates"),
        Vec::<String>::new()
    );
    let rejected_line = repo.ledger_events("knowledge.rejected");
    assert_eq!(rejected_line.len(), 1);
    assert_eq!(rejected_line[0]["data"]["path"], rel.as_str());
    store_is_whole(&repo, repo.root());
}

/// An act decides a whole review item, looking its members up under the lock it holds
/// (SPEC §5.2): a promotion of one member and a rejection of another, at once, leave the
/// item decided by exactly one of them, never half of each.
#[test]
fn two_acts_on_one_review_item_at_once_decide_it_once() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    for claim in [
        "Parse the YAML policy with yaml_serde",
        "Always parse the YAML policy with yaml_serde",
        "Parse the YAML policy with yaml_serde only",
    ] {
        repo.run(&["decision", claim]).success();
    }
    repo.run(&["session", "close"]).success();
    let ids = repo.record_ids(".ai/repo/knowledge/candidates");
    assert_eq!(ids.len(), 3);
    let listed = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    assert_eq!(listed["items"], 1, "one review item: {listed}");
    for round in 0..3 {
        let fresh = repo.copy();
        let root = fresh.root().to_owned();
        let mut promote = job(
            &root,
            &["--format", "json", "knowledge", "promote", &ids[round]],
        );
        promote.stdin = Some("src/model/policy.rs parses it\n".into());
        let reject = job(
            &root,
            &[
                "--format",
                "json",
                "knowledge",
                "reject",
                &ids[(round + 1) % 3],
                "--reason",
                "Raced",
            ],
        );
        let runs = batch(&fresh, vec![promote, reject]);
        // The first act decides the item; the second finds its record decided (refused,
        // exit 3, nothing written).
        let won: Vec<&Run> = runs.iter().filter(|r| r.code() == 0).collect();
        assert_eq!(won.len(), 1, "{runs:?}");
        for lost in runs.iter().filter(|r| r.code() != 0) {
            lost.json_error(3, "knowledge.superseded");
        }
        let lines = whole_ledger(&root);
        let counts = events(&lines);
        let decided = counts.get("knowledge.promoted").copied().unwrap_or(0)
            + counts.get("knowledge.rejected").copied().unwrap_or(0);
        assert_eq!(decided, 3, "every member decided once: {counts:?}");
        let pending = fresh
            .run(&["--format", "json", "knowledge", "candidates"])
            .success()
            .json();
        assert_eq!(pending["candidates"], serde_json::json!([]), "{pending}");
        store_is_whole(&fresh, &root);
    }
}
