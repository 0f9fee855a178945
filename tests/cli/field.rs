//! Field-proof scenarios (issue step 4): what pushes judge, shallow clones, squash merges
//! and rewritten history, ids that would become paths, the outbox on a detached HEAD and
//! on the trunk, unreadable state, worktree sessions, secrets. Each builds the real
//! repository situation with git and runs the product in it, including the `fix:` lines
//! it prints.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{TestRepo, bin, knowledge_record};

const CANDIDATES: &str = ".ai/repo/knowledge/candidates";
const CURATED: &str = ".ai/repo/knowledge/curated";

/// `git ARGS` in `dir` with the hooks able to find this build of majordomus.
fn git_hooked(repo: &TestRepo, dir: &Path, args: &[&str]) -> Output {
    repo.git_command_in(dir, args)
        .env("MAJORDOMUS_BIN", bin())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("spawn git")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn findings(report: &Value) -> Vec<Value> {
    report["findings"].as_array().cloned().unwrap_or_default()
}

/// A tracked repository with an origin (so `main` is the trunk) and hooks installed,
/// working on branch `work`.
fn on_a_branch_with_hooks() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo
}

// --- pre-push judges what is pushed (item 2) -------------------------------------------

#[test]
fn pre_push_judges_the_pushed_tree_not_the_work_tree() {
    let repo = on_a_branch_with_hooks();
    let episode = repo.start_episode();
    // A bad verified record that is not committed: it must not block an unrelated push.
    // (Verified: a candidate citing a file that is gone claims nothing yet and blocks
    // nothing.)
    let bad = format!("{episode}-0123456789ab");
    repo.write(
        &format!("{CURATED}/{bad}.md"),
        &knowledge_record(&bad, "verified", &["file:src/gone.rs"], "", "Claim."),
    );
    repo.commit("src/lib.rs", "//! lib\n", "Add the library");
    let pushed = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(pushed.status.success(), "{}", stderr(&pushed));

    // The same record committed: the push carrying it is refused.
    repo.git(&["add", &format!("{CURATED}/{bad}.md")]);
    repo.git(&["commit", "-q", "-m", "Add a bad claim"]);
    let refused = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(!refused.status.success(), "the push went through");
    assert!(
        stderr(&refused).contains("[knowledge.ref-resolves]"),
        "{}",
        stderr(&refused)
    );

    // Mended in the work tree but not committed: still refused, the commit is what goes.
    repo.write(
        &format!("{CURATED}/{bad}.md"),
        &knowledge_record(&bad, "verified", &["file:src/lib.rs"], "", "Claim."),
    );
    let still = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(
        !still.status.success(),
        "an uncommitted fix let the push through"
    );
    repo.git(&[
        "commit",
        "-q",
        "-am",
        "Point the claim at a file that exists",
    ]);
    let ok = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(ok.status.success(), "{}", stderr(&ok));

    // A file: target resolves against the pushed tree: deleting the file in the pushed
    // commit breaks the record even though the work tree is clean.
    repo.git(&["rm", "-q", "src/lib.rs"]);
    repo.git(&["commit", "-q", "-m", "Drop the library"]);
    let refused = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("does not resolve against the tree of"),
        "{}",
        stderr(&refused)
    );

    // Deleting a branch pushes nothing and passes.
    let deleted = git_hooked(
        &repo,
        repo.root(),
        &["push", "-q", "origin", "--delete", "work"],
    );
    assert!(deleted.status.success(), "{}", stderr(&deleted));
}

#[test]
fn pre_push_refuses_a_pushed_record_that_carries_a_secret() {
    let repo = on_a_branch_with_hooks();
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    // A hand-written record: the writers redact, a person's editor does not.
    let key = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    repo.write(
        &format!("{CANDIDATES}/{id}.md"),
        &knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}")],
            "",
            &format!("The deploy key is {key}."),
        ),
    );
    repo.git(&["add", CANDIDATES]);
    repo.git(&["commit", "-q", "-m", "A record with a key in it"]);
    let refused = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "work"]);
    assert!(!refused.status.success(), "a secret went out");
    // Said once, as what the push sends, with the fix that takes it out of history.
    assert!(
        stderr(&refused).contains(
            "[push.secret] carries a secret shape (aws-access-key-id) brought in by commit "
        ),
        "{}",
        stderr(&refused)
    );
    assert!(
        !stderr(&refused).contains("[knowledge.secret]"),
        "{}",
        stderr(&refused)
    );
}

// --- secrets never reach git (item 15) ----------------------------------------------------

#[test]
fn writers_redact_secret_shapes_everywhere_the_text_goes() {
    let repo = on_a_branch_with_hooks();
    repo.start_episode();
    let aws = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    let github = ["ghp_", "1234567890abcdefghijABCDEFGHIJ123456"].concat();
    let run = repo
        .run(&[
            "--format",
            "json",
            "decision",
            &format!("Use key {aws} with {github}"),
        ])
        .success();
    assert_eq!(
        run.json()["redacted"],
        json!(["aws-access-key-id", "github-token"])
    );
    let note = repo
        .run(&["checkpoint", &format!("token {github} rotated")])
        .success();
    assert!(
        note.stderr()
            .contains("removed before writing (secret shapes): github-token"),
        "{note}"
    );
    repo.commit("a.txt", "a\n", &format!("Deploy with {aws}"));
    let out = git_hooked(
        &repo,
        repo.root(),
        &[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            &format!("Again {aws}"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    repo.run_with_stdin(
        &["session", "close"],
        &format!("Summary mentioning {github}"),
    )
    .success();
    let commit_id = repo.head();
    let files = repo.all_files();
    assert!(
        files.contains_key(".ai/local/state/ledger-index.json"),
        "the scan covers the ledger index"
    );
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes.0);
        assert!(!text.contains(&aws), "{path} carries the AWS key");
        assert!(!text.contains(&github), "{path} carries the GitHub token");
    }
    let record = repo
        .record_ids(".ai/repo/sessions")
        .into_iter()
        .next()
        .expect("a session record");
    let text = repo.read(&format!(".ai/repo/sessions/{record}.md"));
    assert!(text.contains("[redacted: github-token]"), "{text}");
    assert!(text.contains("[redacted: aws-access-key-id]"), "{text}");
    // Commit ids are not secrets.
    assert!(text.contains(&commit_id), "{text}");
    repo.run(&["knowledge", "check"]).success();
}

// --- shallow clones (item 3) ---------------------------------------------------------------

#[test]
fn every_command_works_in_a_shallow_clone_and_says_where_the_boundary_is() {
    let repo = TestRepo::initialised();
    for n in 0..3 {
        repo.commit(&format!("f{n}.txt"), "x\n", &format!("Commit {n}"));
    }
    let old = repo.git(&["rev-parse", "HEAD~2"]);
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    repo.write(
        &format!("{CANDIDATES}/{id}.md"),
        &knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}"), &format!("commit:{old}")],
            "",
            "Claim.",
        ),
    );
    // A checkpoint: an episode with nothing authored closes empty, with no record for
    // the candidate's `session:` to resolve against in the clone.
    repo.run(&["checkpoint", "Looked at the history"]).success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Records"]);
    let url = format!("file://{}", repo.root().display());
    repo.git_in(
        repo.base(),
        &["clone", "-q", "--depth", "1", &url, "shallow"],
    );
    let clone = repo.base().join("shallow");

    for args in [
        &["doctor"][..],
        &["watch", "--max-runs", "1"][..],
        &["knowledge", "status"][..],
        &["knowledge", "candidates"][..],
        &["briefing"][..],
        &["context"][..],
        &["history"][..],
        &["env"][..],
    ] {
        let run = repo.run_in(&clone, args);
        assert!(
            matches!(run.code(), 0 | 11),
            "{args:?} failed in a shallow clone: {run}"
        );
        assert!(!run.stderr().contains("could not be found"), "{run}");
    }
    let check = repo
        .run_in(&clone, &["--format", "json", "knowledge", "check"])
        .success()
        .json();
    let f = findings(&check);
    assert_eq!(f.len(), 1, "{check}");
    assert_eq!(f[0]["rule"], "knowledge.commit-shallow");
    assert_eq!(f[0]["severity"], "advisory");
    assert!(
        f[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not in this shallow clone")),
        "{check}"
    );
    assert_eq!(f[0]["fix"], "git fetch --unshallow");
    repo.run_in(&clone, &["session", "start"]).success();
    repo.run_in(&clone, &["session", "context"]).success();
    repo.run_in(&clone, &["session", "close"]).success();

    // The printed fix works, and then the commit resolves.
    let fixed = repo.sh_in(&clone, "git fetch -q --unshallow");
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    let check = repo
        .run_in(&clone, &["--format", "json", "knowledge", "check"])
        .success()
        .json();
    assert_eq!(findings(&check), Vec::<Value>::new());
}

// --- squash merges and rewritten history (items 4 and 13) --------------------------------

#[test]
fn a_squash_merged_and_collected_branch_leaves_advisories_never_a_blocked_push() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let episode = repo.start_episode();
    // The task's scope covers src/, so its finish derives a fact citing the commit.
    repo.append_ledger_line(
        "task.started",
        Some("t-20261130-0a0b"),
        json!({"description": "Add the parser", "scope": ["src"]}),
    );
    repo.commit("src/parser.rs", "//! parser\n", "Add the parser");
    let feature_commit = repo.head();
    repo.append_ledger_line(
        "task.finished",
        Some("t-20261130-0a0b"),
        json!({"status": "completed"}),
    );
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the episode"]);
    let candidate = repo
        .record_ids(CANDIDATES)
        .into_iter()
        .find(|id| {
            repo.read(&format!("{CANDIDATES}/{id}.md"))
                .contains(&feature_commit)
        })
        .expect("a candidate citing the feature commit");

    // Squash-merge into main, drop the branch, collect its commits.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--squash", "feature"]);
    repo.git(&["commit", "-q", "-m", "Squash the feature"]);
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["branch", "-q", "-D", "feature"]);
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    assert!(
        repo.git_command_in(repo.root(), &["cat-file", "-e", &feature_commit])
            .output()
            .is_ok_and(|o| !o.status.success()),
        "the feature commit is gone"
    );

    // On a new branch a person promotes the candidate: a warning, not a refusal.
    repo.git(&["checkout", "-q", "-b", "review"]);
    let promoted = repo
        .run_with_stdin(
            &["--format", "json", "knowledge", "promote", &candidate],
            "src/parser.rs holds it",
        )
        .success()
        .json();
    let warnings = promoted["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{promoted}");
    assert_eq!(warnings[0]["rule"], "knowledge.commit-rewritten");
    assert_eq!(warnings[0]["severity"], "advisory");
    let message = warnings[0]["message"].as_str().expect("message");
    assert!(
        message.contains(&format!(".ai/repo/sessions/{episode}.md")),
        "the finding names the session record that keeps its subject: {message}"
    );

    repo.git(&["add", "-A", ".ai/repo/knowledge"]);
    repo.git(&["commit", "-q", "-m", "Promote the parser fact"]);
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    assert!(
        findings(&check).iter().all(|f| f["severity"] == "advisory"),
        "{check}"
    );
    let pushed = git_hooked(&repo, repo.root(), &["push", "-q", "origin", "review"]);
    assert!(pushed.status.success(), "{}", stderr(&pushed));
}

#[test]
fn a_rewritten_commit_resolves_to_its_successor_and_promote_writes_it() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    repo.commit("a.txt", "a\n", "First try");
    let old = repo.head();
    repo.git(&["commit", "-q", "--amend", "-m", "First try, amended"]);
    let new = repo.head();
    // What the post-rewrite hook records for the amend.
    repo.append_ledger_line(
        "commit.rewritten",
        None,
        json!({"by": "amend", "pairs": [{"old": old, "new": new}]}),
    );
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    let id = format!("{episode}-0123456789ab");
    repo.write(
        &format!("{CANDIDATES}/{id}.md"),
        &knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}"), &format!("commit:{old}")],
            "",
            "Claim.",
        ),
    );
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    let f = findings(&check);
    assert_eq!(f.len(), 1, "{check}");
    assert_eq!(f[0]["rule"], "knowledge.commit-rewritten");
    assert!(
        f[0]["message"].as_str().is_some_and(|m| m.contains(&new)),
        "the finding names the successor: {check}"
    );
    let promoted = repo
        .run_with_stdin(
            &["--format", "json", "knowledge", "promote", &id],
            "a.txt holds it",
        )
        .success()
        .json();
    assert_eq!(promoted["rewritten"], json!([{"old": old, "new": new}]));
    let curated = repo.read(&format!(".ai/repo/knowledge/curated/{id}.md"));
    assert!(curated.contains(&format!("commit:{new}")), "{curated}");
    assert!(!curated.contains(&old), "{curated}");
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn a_record_lists_the_episodes_own_commits_not_what_a_rebase_or_merge_brought() {
    let mut repo = on_a_branch_with_hooks();
    let root = repo.root().to_owned();
    // The trunk moves on before the episode opens.
    repo.git(&["checkout", "-q", "main"]);
    repo.now("2026-11-30T10:01:00Z");
    repo.commit("trunk.txt", "t\n", "Trunk moves on");
    repo.git(&["checkout", "-q", "work"]);
    repo.now("2026-11-30T10:02:00Z");
    repo.start_episode();
    // The episode's own commit, seen by the post-commit hook.
    repo.write("mine.txt", "m\n");
    repo.git(&["add", "mine.txt"]);
    let out = git_hooked(&repo, &root, &["commit", "-q", "-m", "My work"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A teammate's commit made during the episode, elsewhere (no hook of ours saw it: git
    // runs no hook for it here).
    repo.git(&["checkout", "-q", "-b", "other", "main"]);
    repo.write("theirs.txt", "t\n");
    repo.git(&["add", "theirs.txt"]);
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "-m",
        "Their work",
    ]);
    repo.git(&["checkout", "-q", "work"]);
    // Rebase onto the trunk (post-rewrite records the successor), then merge theirs.
    let out = git_hooked(&repo, &root, &["rebase", "-q", "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mine = repo.head();
    let out = git_hooked(
        &repo,
        &root,
        &["merge", "-q", "--no-ff", "-m", "Merge their work", "other"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let merge = repo.head();

    let context = repo.run(&["session", "context"]).success();
    assert!(
        context.stdout().contains(
            "- not listed: 2 commit(s) since the HEAD at open that this episode did not make"
        ),
        "{context}"
    );
    let closed = repo
        .run_with_stdin(
            &["--format", "json", "session", "close"],
            "Rebased and merged.",
        )
        .success()
        .json();
    assert_eq!(
        closed["record"]["commits"],
        json!([mine, merge]),
        "only the episode's commit (as rebased) and its merge: {closed}"
    );
    let files: Vec<&str> = closed["record"]["changed_files"]
        .as_array()
        .expect("changed_files")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!files.contains(&"trunk.txt"), "{files:?}");
    assert!(files.contains(&"mine.txt"), "{files:?}");
    let text = closed["text"].as_str().expect("text");
    assert!(
        !text.contains("Trunk moves on") && !text.contains("Their work"),
        "{text}"
    );
}

#[test]
fn a_rebase_onto_a_trunk_commit_of_the_same_second_leaves_it_out() {
    // Found in the field trial's rerun: a script squash-merged on the trunk and opened the
    // episode in the same second, so the commit's time could not tell it apart; the
    // rebase's commit.rewritten line can (the trunk commit is below its successor).
    let mut repo = on_a_branch_with_hooks();
    let root = repo.root().to_owned();
    repo.now("2026-11-30T10:02:00Z");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("trunk.txt", "t\n", "Trunk moves on");
    repo.git(&["checkout", "-q", "work"]);
    repo.start_episode();
    repo.write("mine.txt", "m\n");
    repo.git(&["add", "mine.txt"]);
    let out = git_hooked(&repo, &root, &["commit", "-q", "-m", "My work"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = git_hooked(&repo, &root, &["rebase", "-q", "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mine = repo.head();
    let closed = repo
        .run_with_stdin(&["--format", "json", "session", "close"], "Rebased.")
        .success()
        .json();
    assert_eq!(closed["record"]["commits"], json!([mine]), "{closed}");
    let text = closed["text"].as_str().expect("text");
    assert!(!text.contains("Trunk moves on"), "{text}");
    assert!(
        text.contains("- not listed: 1 commit(s) since the HEAD at open"),
        "{text}"
    );
}

// --- ids never become paths unchecked (item 6) -------------------------------------------

#[test]
fn an_id_that_is_not_an_id_never_becomes_a_path() {
    let repo = TestRepo::initialised();
    let forged = "../../../../tmp/x";
    repo.append_ledger_line("session.opened", None, json!({"provider": "x"}));
    // Stamp a decision with the forged episode.
    let mut ledger: Vec<Value> = repo.ledger();
    let mut line = ledger.pop().expect("a line");
    line["session"] = json!(forged);
    let mut decision = line.clone();
    decision["seq"] = json!(2);
    decision["event"] = json!("decision.recorded");
    decision["data"] = json!({"text": "Escape the store"});
    let text = format!("{line}\n{decision}\n");
    repo.write(".ai/local/ledger.jsonl", &text);

    let before = repo.files();
    let run = repo.run(&[
        "--format",
        "json",
        "knowledge",
        "derive",
        "--episode",
        forged,
    ]);
    let error = run.json_error(3, "id.shape");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("episode id")),
        "{error}"
    );
    assert_eq!(before.len(), repo.files().len(), "nothing was written");
    assert!(!repo.base().join("tmp/x").exists());
    // The printed fix runs.
    let fix = error["fix"].as_str().expect("fix").to_owned();
    assert!(fix.starts_with("majordomus history"), "{fix}");
    repo.run(&["history", "--event", "session.opened"])
        .success();

    for (args, rule) in [
        (vec!["knowledge", "promote", "../x"], "id.shape"),
        (
            vec!["knowledge", "reject", "a/b", "--reason", "r"],
            "id.shape",
        ),
        (
            vec!["question", "resolve", "../../q", "an answer"],
            "id.shape",
        ),
    ] {
        let mut json_args = vec!["--format", "json"];
        json_args.extend(args);
        repo.run_with_stdin(&json_args, "evidence")
            .json_error(3, rule);
    }
}

// --- the outbox (item 7) ------------------------------------------------------------------

#[test]
fn a_detached_head_neither_drains_nor_writes_to_the_tracked_folders() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    // Park something in the outbox on the trunk.
    repo.start_episode();
    repo.run(&["decision", "Trunk output waits"]).success();
    repo.run(&["session", "close"]).success();
    let parked = repo.record_ids(".ai/local/state/outbox/candidates");
    assert_eq!(parked.len(), 1);

    repo.git(&["checkout", "-q", "--detach"]);
    repo.start_episode();
    repo.run(&["decision", "Detached output waits too"])
        .success();
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(closed["outboxed"], true, "{closed}");
    assert_eq!(closed["drained"], Value::Null, "a detached HEAD drained");
    assert_eq!(
        repo.record_ids(".ai/local/state/outbox/candidates").len(),
        2
    );
    // Back on the trunk nothing was left behind in the work tree.
    repo.git(&["checkout", "-q", "main"]);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // A named branch drains it, and says so.
    repo.git(&["checkout", "-q", "-b", "work"]);
    let started = repo.run(&["session", "start"]).success();
    assert!(
        started.stdout().starts_with(
            "moved 2 session record(s) and 2 candidate(s) from the outbox into .ai/repo/\n"
        ),
        "{started}"
    );
}

#[test]
fn a_drain_never_overwrites_a_tracked_record_that_differs() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.start_episode();
    repo.run(&["decision", "Trunk output waits"]).success();
    repo.run(&["session", "close"]).success();
    let id = repo.record_ids(".ai/local/state/outbox/candidates")[0].clone();
    repo.git(&["checkout", "-q", "-b", "work"]);
    // Someone already has a different file under that name.
    repo.write(&format!("{CANDIDATES}/{id}.md"), "a different record\n");
    let started = repo
        .run(&["--format", "json", "session", "start"])
        .success()
        .json();
    let left = started["drained"]["left"].as_array().expect("left");
    assert_eq!(left.len(), 1, "{started}");
    assert!(
        left[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with(&format!("{id}.md")))
    );
    assert_eq!(
        repo.read(&format!("{CANDIDATES}/{id}.md")),
        "a different record\n"
    );
    assert!(repo.exists(&format!(".ai/local/state/outbox/candidates/{id}.md")));
    let drained = repo.ledger_events("outbox.drained");
    assert_eq!(drained[0]["data"]["left"].as_array().map(Vec::len), Some(1));
}

#[test]
fn rederiving_on_the_trunk_never_lists_a_tracked_candidate_twice() {
    let repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "-b", "work"]);
    let episode = repo.start_episode();
    repo.run(&["decision", "Derived on a branch"]).success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "work"]);
    repo.add_origin();
    let derived = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "derive",
            "--episode",
            &episode,
        ])
        .success()
        .json();
    assert_eq!(derived["reviewed"][0]["state"], "tracked", "{derived}");
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    assert_eq!(
        listing["candidates"].as_array().map(Vec::len),
        Some(1),
        "{listing}"
    );
}

// --- broken state is recoverable (item 8) -------------------------------------------------

#[test]
fn an_unreadable_episode_state_is_an_error_whose_fix_works_and_keeps_the_file() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.write(".ai/local/state/episode.json", "{ torn");
    let run = repo.run(&["decision", "x"]);
    assert_eq!(run.code(), 1, "{run}");
    let error = repo
        .run(&["--format", "json", "decision", "x"])
        .json_error(1, "state.episode-unreadable");
    let fix = error["fix"].as_str().expect("fix");
    assert!(
        fix.starts_with("majordomus session start --replace"),
        "{fix}"
    );
    let started = repo.run(&["session", "start", "--replace"]).success();
    assert!(
        started.stdout().starts_with(
            "moved the unreadable episode state aside to .ai/local/state/episode.json.unreadable-"
        ),
        "{started}"
    );
    let aside: Vec<String> = std::fs::read_dir(repo.path(".ai/local/state"))
        .expect("state dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("episode.json.unreadable-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(
        repo.read(&format!(".ai/local/state/{}", aside[0])),
        "{ torn"
    );
    repo.run(&["decision", "Recorded again"]).success();
}

// --- worktrees (item 14) ------------------------------------------------------------------

#[test]
fn a_provider_hook_records_into_the_worktree_its_payload_names() {
    let repo = TestRepo::initialised();
    repo.git(&["worktree", "add", "-q", "-b", "side", "../side"]);
    let side = repo.base().join("side");
    // The client exports the main checkout as its project directory; the agent works in
    // the linked worktree.
    let payload = json!({"session_id": "s1", "hook_event_name": "SessionStart", "cwd": side.display().to_string()}).to_string();
    let run = repo.run_with_stdin(
        &[
            "-C",
            &repo.root().display().to_string(),
            "hook",
            "session-start",
            "--provider",
            "example-agent",
        ],
        &payload,
    );
    assert_eq!(run.code(), 0, "{run}");
    assert!(side.join(".ai/local/state/episode.json").exists(), "{run}");
    assert!(
        !repo.exists(".ai/local/state/episode.json"),
        "the main checkout got the episode"
    );
}

// --- smaller things (item 16) ---------------------------------------------------------------

#[test]
fn a_record_leaves_the_memory_files_out_of_the_work() {
    let repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.start_episode();
    repo.run(&["decision", "x"]).success();
    repo.commit("src/a.rs", "//! a\n", "Add a");
    repo.write(".ai/repo/sessions/NOTE.md", "bookkeeping\n");
    repo.git(&["add", ".ai/repo/sessions/NOTE.md"]);
    repo.git(&["commit", "-q", "-m", "Bookkeeping"]);
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(closed["record"]["changed_files"], json!(["src/a.rs"]));
    // Records drained into the work tree do not make the next record "dirty".
    repo.start_episode();
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert!(
        !closed["text"]
            .as_str()
            .expect("text")
            .contains("uncommitted or untracked changes at close"),
        "{closed}"
    );
}

#[test]
fn a_missing_directory_is_named() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["-C", "/nonexistent/majordomus", "env"]);
    run.assert_human_error(2, "/nonexistent/majordomus: no such directory");
}
