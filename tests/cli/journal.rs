//! The journal (SPEC §12, docs/JOURNAL.md): a bare origin and clones of it on the local
//! filesystem, each clone a writer publishing its ledger on refs/majordomus/journal/<writer>
//! and pushing it beside the user's push; fetched journals merged into history and
//! session list; restore after `git clean -fdx`; forged journal commits skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, fix_lines, ledger_line};

/// An initialised repository with a bare `origin.git` beside it.
fn team() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo
}

/// `git clone origin.git <name>` beside the repository, with majordomus's hooks installed.
fn clone(repo: &TestRepo, name: &str) -> PathBuf {
    repo.git_in(repo.base(), &["clone", "-q", "origin.git", name]);
    let dir = repo.base().join(name);
    repo.run_in(&dir, &["hooks", "install"]).success();
    dir
}

/// The clone's writer id (`.git/majordomus/writer`).
fn writer(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(".git/majordomus/writer"))
        .expect("a writer id")
        .trim()
        .to_owned()
}

/// An episode with one decision, closed; returns the episode id.
fn work(repo: &TestRepo, dir: &Path, what: &str) -> String {
    let started = repo
        .run_in(dir, &["--format", "json", "session", "start"])
        .success()
        .json();
    repo.run_in(dir, &["decision", what]).success();
    repo.run_in(dir, &["session", "close"]).success();
    started["episode"]["id"]
        .as_str()
        .expect("episode id")
        .to_owned()
}

/// The refs under refs/majordomus/ of the repository at `git_dir` (a bare origin or a
/// clone), by name.
fn majordomus_refs(repo: &TestRepo, dir: &Path) -> BTreeMap<String, String> {
    repo.git_in(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/majordomus/",
        ],
    )
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(name, id)| (name.to_owned(), id.to_owned()))
    .collect()
}

/// `git push ARGS` in `dir` with the hooks running; returns (success, stderr).
fn push(repo: &TestRepo, dir: &Path, args: &[&str]) -> (bool, String) {
    let mut full = vec!["push"];
    full.extend_from_slice(args);
    let out = repo
        .git_command_in(dir, &full)
        .output()
        .expect("spawn git push");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn status(repo: &TestRepo, dir: &Path) -> Value {
    repo.run_in(dir, &["--format", "json", "journal", "status"])
        .success()
        .json()
}

#[test]
fn three_clones_push_at_once_lose_no_journal_and_a_fetch_merges_them() {
    let repo = team();
    let clones: Vec<PathBuf> = (0..3)
        .map(|i| clone(&repo, &format!("clone-{i}")))
        .collect();
    let mut episodes = Vec::new();
    for (i, dir) in clones.iter().enumerate() {
        repo.run_in(dir, &["journal", "enable"]).success();
        episodes.push(work(&repo, dir, &format!("clone {i} decides")));
        repo.git_in(
            dir,
            &[
                "commit",
                "-q",
                "-am",
                &format!("clone {i}: share the journal"),
            ],
        );
    }
    // The three pushes (each with its pre-push hook pushing its journal) at once.
    let pushes: Vec<(bool, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = clones
            .iter()
            .enumerate()
            .map(|(i, dir)| {
                let repo = &repo;
                s.spawn(move || {
                    push(
                        repo,
                        dir,
                        &["-q", "origin", &format!("HEAD:refs/heads/feature-{i}")],
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a push thread"))
            .collect()
    });
    for (ok, stderr) in &pushes {
        assert!(ok, "a push failed: {stderr}");
        assert!(
            !stderr.contains("non-fast-forward")
                && !stderr.contains("rejected")
                && !stderr.contains("journal push"),
            "{stderr}"
        );
    }
    let origin = majordomus_refs(&repo, &repo.base().join("origin.git"));
    assert_eq!(origin.len(), 3, "{origin:?}");
    for dir in &clones {
        let reference = format!("refs/majordomus/journal/{}", writer(dir));
        let local = majordomus_refs(&repo, dir);
        assert_eq!(origin.get(&reference), local.get(&reference), "{reference}");
        let st = status(&repo, dir);
        assert_eq!(st["push"]["ok"], true, "{st}");
        assert_eq!(st["pending"], 0, "{st}");
        assert_eq!(st["published"]["lines"], 4, "{st}");
    }

    // A fetch in the first clone brings the other two writers.
    let first = &clones[0];
    repo.git_in(first, &["fetch", "-q", "origin"]);
    let st = status(&repo, first);
    let fetched: Vec<&str> = st["fetched"]
        .as_array()
        .expect("fetched")
        .iter()
        .map(|j| j["writer"].as_str().expect("writer"))
        .collect();
    let mut others = vec![writer(&clones[1]), writer(&clones[2])];
    others.sort();
    assert_eq!(fetched, others, "{st}");
    for j in st["fetched"].as_array().expect("fetched") {
        assert_eq!(j["lines"], 4, "{j}");
        assert_eq!(j["branch"], "main", "{j}");
        assert_eq!(j["remote"], "origin", "{j}");
        assert!(
            first.join(j["path"].as_str().expect("path")).is_file(),
            "{j}"
        );
    }
    assert!(
        st["findings"].as_array().expect("findings").is_empty(),
        "{st}"
    );

    // history merges them, each line marked with its writer.
    let decisions = repo
        .run_in(
            first,
            &[
                "--format",
                "json",
                "history",
                "--event",
                "decision.recorded",
            ],
        )
        .success()
        .json();
    let lines = decisions["lines"].as_array().expect("lines");
    let mut seen: Vec<(Option<&str>, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["writer"].as_str(),
                l["data"]["text"].as_str().expect("text"),
            )
        })
        .collect();
    seen.sort();
    let mut expected = vec![
        (None, "clone 0 decides"),
        (Some(others[0].as_str()), ""),
        (Some(others[1].as_str()), ""),
    ];
    for (w, text) in &mut expected {
        if let Some(w) = w {
            let i = clones
                .iter()
                .position(|c| writer(c) == *w)
                .expect("a clone");
            *text = ["clone 0 decides", "clone 1 decides", "clone 2 decides"][i];
        }
    }
    expected.sort();
    assert_eq!(seen, expected, "{decisions}");
    // The unfiltered history has every line of the three ledgers, each (writer, seq) once.
    let all = repo
        .run_in(first, &["--format", "json", "history"])
        .success()
        .json();
    let all = all["lines"].as_array().expect("lines");
    assert_eq!(all.len(), 12);
    let mut keys: Vec<(Option<&str>, u64)> = all
        .iter()
        .map(|l| (l["writer"].as_str(), l["seq"].as_u64().expect("seq")))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 12);
    let human = repo.run_in(first, &["history"]).success();
    assert!(
        human
            .stdout()
            .contains(&format!("writer={} branch=main", others[0])),
        "{human}"
    );
    // A filtered read by another writer's episode finds its lines.
    let theirs = repo
        .run_in(
            first,
            &["--format", "json", "history", "--session", &episodes[1]],
        )
        .success()
        .json();
    assert_eq!(
        theirs["lines"].as_array().expect("lines").len(),
        4,
        "{theirs}"
    );

    // session list: the three episodes, the others' marked with their writer.
    let list = repo
        .run_in(first, &["--format", "json", "session", "list"])
        .success()
        .json();
    let mut listed: Vec<(String, Option<String>)> = list["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().expect("id").to_owned(),
                e["writer"].as_str().map(str::to_owned),
            )
        })
        .collect();
    listed.sort();
    let mut want = vec![
        (episodes[0].clone(), None),
        (episodes[1].clone(), Some(writer(&clones[1]))),
        (episodes[2].clone(), Some(writer(&clones[2]))),
    ];
    want.sort();
    assert_eq!(listed, want, "{list}");

    // knowledge check resolves another writer's episode (session:) through its journal.
    let record = crate::common::knowledge_record(
        &format!("{}-0123456789ab", episodes[0]),
        "candidate",
        &[&format!("session:{}", episodes[2])],
        "",
        "Another clone's episode is a valid provenance.\n",
    );
    std::fs::write(
        first.join(format!(
            ".ai/repo/knowledge/candidates/{}-0123456789ab.md",
            episodes[0]
        )),
        record,
    )
    .expect("write a candidate");
    let check = repo
        .run_in(first, &["--format", "json", "knowledge", "check"])
        .json();
    let findings = check["findings"].as_array().expect("findings");
    assert!(
        !findings.iter().any(|f| f["message"]
            .as_str()
            .unwrap_or_default()
            .contains(&episodes[2])),
        "{check}"
    );
}

#[test]
fn a_rebased_and_force_pushed_branch_never_touches_a_journal() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    repo.git_in(&dir, &["checkout", "-q", "-b", "feature"]);
    work(&repo, &dir, "on a branch");
    std::fs::write(dir.join("a.txt"), "one\n").expect("write");
    repo.git_in(&dir, &["add", "-A"]);
    repo.git_in(&dir, &["commit", "-q", "-m", "feature work"]);
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "feature"]);
    assert!(ok, "{stderr}");
    let origin = repo.base().join("origin.git");
    let reference = format!("refs/majordomus/journal/{}", writer(&dir));
    let before = majordomus_refs(&repo, &origin)[&reference].clone();

    // Rewrite the branch (amend: post-rewrite records it, so the journal grows) and force it.
    std::fs::write(dir.join("a.txt"), "two\n").expect("write");
    repo.git_in(
        &dir,
        &[
            "commit",
            "-q",
            "-a",
            "--amend",
            "-m",
            "feature work, amended",
        ],
    );
    let (ok, stderr) = push(&repo, &dir, &["-q", "--force", "origin", "feature"]);
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("journal"), "{stderr}");
    let after = majordomus_refs(&repo, &origin)[&reference].clone();
    assert_eq!(
        repo.git_in(&origin, &["rev-parse", "refs/heads/feature"]),
        repo.git_in(&dir, &["rev-parse", "HEAD"])
    );
    // The journal only ever moved forward: the old tip is an ancestor of the new one.
    repo.git_in(&origin, &["merge-base", "--is-ancestor", &before, &after]);
    assert_eq!(
        majordomus_refs(&repo, &dir)[&reference],
        after,
        "the remote has this writer's tip"
    );
    // Deleting the user's branch leaves the journal as it is.
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "--delete", "feature"]);
    assert!(ok, "{stderr}");
    assert_eq!(majordomus_refs(&repo, &origin)[&reference], after);
}

#[test]
fn a_clone_that_never_enabled_publishes_and_pushes_nothing() {
    let repo = team();
    let quiet = clone(&repo, "quiet");
    work(&repo, &quiet, "kept here");
    let (ok, stderr) = push(&repo, &quiet, &["-q", "origin", "HEAD:refs/heads/quiet"]);
    assert!(ok, "{stderr}");
    let origin = repo.base().join("origin.git");
    assert!(majordomus_refs(&repo, &origin).is_empty());
    assert!(majordomus_refs(&repo, &quiet).is_empty());
    assert!(!quiet.join(".git/majordomus").exists());
    assert_eq!(
        repo.git_in(&quiet, &["config", "--get-all", "remote.origin.fetch"]),
        "+refs/heads/*:refs/remotes/origin/*"
    );
    let st = status(&repo, &quiet);
    assert_eq!(
        (st["share"].clone(), st["enabled"].clone()),
        (false.into(), false.into())
    );

    // Another clone enables and pushes the policy to main; this one pulls it, and still
    // publishes nothing until it enables itself.
    let sharer = clone(&repo, "sharer");
    repo.run_in(&sharer, &["journal", "enable"]).success();
    work(&repo, &sharer, "shared");
    repo.git_in(&sharer, &["commit", "-q", "-am", "share the journal"]);
    let (ok, stderr) = push(&repo, &sharer, &["-q", "origin", "main"]);
    assert!(ok, "{stderr}");
    repo.git_in(&quiet, &["pull", "-q", "--ff-only", "origin", "main"]);
    work(&repo, &quiet, "still kept here");
    let (ok, stderr) = push(&repo, &quiet, &["-q", "origin", "HEAD:refs/heads/quiet"]);
    assert!(ok, "{stderr}");
    let refs = majordomus_refs(&repo, &origin);
    assert_eq!(
        refs.keys().collect::<Vec<_>>(),
        vec![&format!("refs/majordomus/journal/{}", writer(&sharer))]
    );
    let st = status(&repo, &quiet);
    assert_eq!(st["share"], true, "{st}");
    assert_eq!(st["enabled"], false, "{st}");
    assert!(st["published"].is_null(), "{st}");
    assert!(majordomus_refs(&repo, &quiet).is_empty());
}

#[test]
fn git_clean_then_restore_gives_the_same_ledger_lines_back() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "first");
    work(&repo, &dir, "second");
    let ledger = dir.join(".ai/local/ledger.jsonl");
    let before = std::fs::read(&ledger).expect("the ledger");
    repo.git_in(&dir, &["clean", "-q", "-fdx"]);
    assert!(!ledger.exists());
    let restored = repo
        .run_in(&dir, &["--format", "json", "journal", "restore"])
        .success()
        .json();
    assert_eq!(restored["lines"], 8, "{restored}");
    assert_eq!(std::fs::read(&ledger).expect("the ledger"), before);
    // Nothing new to publish: the restored lines are the journal's.
    assert_eq!(status(&repo, &dir)["pending"], 0);

    // After another clean, a line written before the restore is not dropped silently.
    repo.git_in(&dir, &["clean", "-q", "-fdx"]);
    repo.run_in(&dir, &["decision", "written after the clean"])
        .success();
    let refused = repo.run_in(&dir, &["--format", "json", "journal", "restore"]);
    refused.json_error(3, "journal.restore-conflict");
    let human = repo.run_in(&dir, &["journal", "restore"]).expect_code(3);
    let fixes = fix_lines(human.stderr());
    assert_eq!(fixes, vec!["majordomus journal restore --force"], "{human}");
    let out = repo.sh_in(&dir, &fixes[0]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read(&ledger).expect("the ledger");
    assert!(
        text.starts_with(&before),
        "the journal's lines come back first"
    );
    let history = repo
        .run_in(
            &dir,
            &[
                "--format",
                "json",
                "history",
                "--event",
                "decision.recorded",
            ],
        )
        .success()
        .json();
    let texts: Vec<&str> = history["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["data"]["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, vec!["first", "second", "written after the clean"]);
    // The kept line is published next, after the journal's last seq.
    let published = repo
        .run_in(&dir, &["--format", "json", "journal", "publish"])
        .success()
        .json();
    assert_eq!(published["lines"], 1, "{published}");
    assert_eq!(published["first_seq"], 9, "{published}");
}

#[test]
fn restore_after_git_clean_reopens_the_episode_that_was_open() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "closed before");
    let open = repo
        .run_in(&dir, &["--format", "json", "session", "start"])
        .success()
        .json();
    let id = open["episode"]["id"].as_str().expect("id").to_owned();
    let state = std::fs::read_to_string(dir.join(".ai/local/state/episode.json")).expect("state");
    repo.run_in(&dir, &["decision", "made while it was open"])
        .success();
    repo.run_in(&dir, &["journal", "publish"]).success();
    repo.git_in(&dir, &["clean", "-q", "-fdx"]);
    assert!(!dir.join(".ai/local/state/episode.json").exists());

    let restored = repo
        .run_in(&dir, &["--format", "json", "journal", "restore"])
        .success()
        .json();
    assert_eq!(restored["reopened"], id.as_str(), "{restored}");
    // The episode is open again exactly as it was opened: same id, same offset.
    assert_eq!(
        std::fs::read_to_string(dir.join(".ai/local/state/episode.json")).expect("state"),
        state
    );
    let context = repo.run_in(&dir, &["session", "context"]).success();
    assert!(
        context.stdout().contains("made while it was open"),
        "{context}"
    );
    let closed = repo
        .run_in(&dir, &["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(closed["episode"], id.as_str(), "{closed}");
    let text = closed["text"].as_str().expect("the record");
    assert!(text.contains("made while it was open"), "{text}");

    // Restored again while another episode is open: the one the journal left open is
    // named, and stays as it is.
    repo.run_in(&dir, &["journal", "publish"]).success();
    let other = repo
        .run_in(&dir, &["--format", "json", "session", "start"])
        .success()
        .json();
    repo.run_in(&dir, &["decision", "in the second"]).success();
    repo.run_in(&dir, &["journal", "publish"]).success();
    repo.git_in(&dir, &["clean", "-q", "-fdx"]);
    let third = repo
        .run_in(&dir, &["--format", "json", "session", "start"])
        .success()
        .json();
    let human = repo
        .run_in(&dir, &["journal", "restore", "--force"])
        .success();
    let second = other["episode"]["id"].as_str().expect("id");
    assert!(
        human.stdout().contains(&format!(
            "episode {second} was open at the journal's last publish, but another episode is open now: {second} stays unclosed"
        )),
        "{human}"
    );
    let still = repo
        .run_in(&dir, &["--format", "json", "session", "context"])
        .success()
        .json();
    assert_eq!(still["episode"]["id"], third["episode"]["id"], "{still}");
    // Its window is its own: the merge moved its opening line, and its state followed.
    repo.run_in(&dir, &["decision", "in the third"]).success();
    let context = repo.run_in(&dir, &["session", "context"]).success();
    assert!(context.stdout().contains("in the third"), "{context}");
    assert!(!context.stdout().contains("in the second"), "{context}");
}

#[test]
fn doctor_says_the_journal_holds_what_a_git_clean_removed_and_the_fix_restores_it() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "kept by the journal");
    repo.run_in(&dir, &["journal", "publish"]).success();
    let restorable = |dir: &Path| {
        let report = repo.run_in(dir, &["--format", "json", "doctor"]).json();
        crate::doctor::rule(&report, "majordomus.journal-restorable")
    };
    assert_eq!(restorable(&dir)["status"], "pass");

    for (opened_since, fix) in [
        (false, "majordomus journal restore"),
        (true, "majordomus journal restore --force"),
    ] {
        repo.git_in(&dir, &["clean", "-q", "-fdx"]);
        if opened_since {
            // An episode opened after the clean: its lines are kept, merged after.
            repo.run_in(&dir, &["session", "start"]).success();
        }
        let rule = restorable(&dir);
        assert_eq!(rule["status"], "fail", "{rule}");
        let finding = &rule["findings"][0];
        assert_eq!(
            finding["rule"], "majordomus.journal-restorable",
            "{finding}"
        );
        assert_eq!(finding["severity"], "advisory", "{finding}");
        assert_eq!(finding["fix"], fix, "{finding}");
        // The fix, run as printed, brings the lines back and the finding goes.
        let out = repo.sh_in(&dir, fix);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(restorable(&dir)["status"], "pass");
        let history = repo
            .run_in(
                &dir,
                &[
                    "--format",
                    "json",
                    "history",
                    "--event",
                    "decision.recorded",
                ],
            )
            .success()
            .json();
        assert_eq!(
            history["lines"][0]["data"]["text"], "kept by the journal",
            "{history}"
        );
        if opened_since {
            repo.run_in(&dir, &["session", "close"]).success();
        }
    }
}

#[test]
fn a_journal_whose_tip_tree_holds_every_segment_still_restores_and_grows_by_its_own() {
    // Journals published before each commit held only its own segment have a tip tree of
    // every segment under segments/ beside a journal.json blob; each commit's journal.json
    // still names its own segment, so a chain mixing that shape with today's (one segment
    // at the tree's root, journal.json in the message) reads the same.
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "first");
    work(&repo, &dir, "second");
    let reference = format!("refs/majordomus/journal/{}", writer(&dir));
    let chain = segments(&repo, &dir, &reference);
    assert!(chain.len() >= 2, "{chain:?}");
    // The tip rewritten the earlier way: its tree lists every segment of the chain.
    let tip = &chain[chain.len() - 1].0;
    let mut listing = String::new();
    for (commit, path, _) in &chain {
        let blob = repo.git_in(&dir, &["rev-parse", &format!("{commit}:{path}")]);
        listing.push_str(&format!("100644 blob {blob}\t{path}\n"));
    }
    let all = repo.git_in_with_input(&dir, &["mktree"], &listing);
    // Its journal.json a blob of its tree, naming its segment under segments/.
    let body = repo.git_in(&dir, &["show", "-s", "--format=%b", tip]);
    let body = body.replace("\"segment\": \"", "\"segment\": \"segments/");
    let meta = repo.git_in_with_input(&dir, &["hash-object", "-w", "--stdin"], &body);
    let root = repo.git_in_with_input(
        &dir,
        &["mktree"],
        &format!("100644 blob {meta}\tjournal.json\n040000 tree {all}\tsegments\n"),
    );
    let parent = repo.git_in(&dir, &["rev-parse", &format!("{tip}^")]);
    let old = repo.git_in(
        &dir,
        &[
            "commit-tree",
            &root,
            "-p",
            &parent,
            "-m",
            "journal: the earlier layout",
        ],
    );
    repo.git_in(&dir, &["update-ref", &reference, &old, tip]);
    assert_eq!(
        repo.git_in(&dir, &["ls-tree", "-r", "--name-only", &reference])
            .lines()
            .count(),
        chain.len() + 1
    );

    let ledger = dir.join(".ai/local/ledger.jsonl");
    let before = std::fs::read(&ledger).expect("the ledger");
    repo.git_in(&dir, &["clean", "-q", "-fdx"]);
    repo.run_in(&dir, &["journal", "restore"]).success();
    assert_eq!(std::fs::read(&ledger).expect("the ledger"), before);
    assert_eq!(status(&repo, &dir)["pending"], 0);
    // The next publish adds a commit of its own segment only.
    work(&repo, &dir, "third");
    let tree = repo.git_in(&dir, &["ls-tree", "-r", "--name-only", &reference]);
    assert_eq!(tree.lines().count(), 1, "{tree}");
    let last = repo.git_in(
        &dir,
        &[
            "show",
            &format!("{reference}:{}", tree.lines().next().expect("segment")),
        ],
    );
    assert!(last.contains("third") && !last.contains("second"), "{last}");
}

#[test]
fn restore_on_a_new_machine_adopts_the_writer_from_its_fetched_journal() {
    let repo = team();
    let old = clone(&repo, "old-machine");
    repo.run_in(&old, &["journal", "enable"]).success();
    work(&repo, &old, "on the old machine");
    repo.git_in(&old, &["commit", "-q", "-am", "share"]);
    let (ok, stderr) = push(&repo, &old, &["-q", "origin", "main"]);
    assert!(ok, "{stderr}");
    let id = writer(&old);

    let new = clone(&repo, "new-machine");
    repo.run_in(&new, &["journal", "enable"]).success();
    repo.git_in(&new, &["fetch", "-q", "origin"]);
    let bad = repo.run_in(
        &new,
        &[
            "--format",
            "json",
            "journal",
            "restore",
            "--writer",
            "../../etc",
        ],
    );
    bad.json_error(3, "journal.writer");
    let restored = repo
        .run_in(
            &new,
            &["--format", "json", "journal", "restore", "--writer", &id],
        )
        .success()
        .json();
    assert_eq!(
        restored["reference"],
        format!("refs/majordomus/fetched/origin/{id}")
    );
    assert_eq!(writer(&new), id);
    assert_eq!(
        std::fs::read(new.join(".ai/local/ledger.jsonl")).expect("ledger"),
        std::fs::read(old.join(".ai/local/ledger.jsonl")).expect("ledger")
    );
    let unknown = repo.run_in(
        &new,
        &[
            "--format",
            "json",
            "journal",
            "restore",
            "--writer",
            "0000000000000000",
        ],
    );
    unknown.json_error(3, "journal.known");
}

/// Writes an orphan commit holding `files` in the repository at `dir` and pushes it to
/// origin as `reference` (plain git, no hook: what a hostile clone could push).
/// Pushes to `reference` on origin a commit of `files` alone, with `message`.
fn forge(repo: &TestRepo, dir: &Path, reference: &str, files: &[(&str, &str)], message: &str) {
    repo.git_in(dir, &["checkout", "-q", "--orphan", "forged"]);
    repo.git_in(dir, &["rm", "-rq", "--cached", "--ignore-unmatch", "."]);
    for entry in std::fs::read_dir(dir).expect("list") {
        let path = entry.expect("entry").path();
        if path.file_name().is_some_and(|n| n != ".git") {
            if path.is_dir() {
                std::fs::remove_dir_all(&path).expect("clear");
            } else {
                std::fs::remove_file(&path).expect("clear");
            }
        }
    }
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }
    repo.git_in(dir, &["add", "-A"]);
    repo.git_in(dir, &["commit", "-q", "-m", message]);
    repo.git_in(
        dir,
        &[
            "push",
            "-q",
            "--no-verify",
            "origin",
            &format!("HEAD:{reference}"),
        ],
    );
    repo.git_in(dir, &["checkout", "-q", "main"]);
    repo.git_in(dir, &["branch", "-q", "-D", "forged"]);
}

/// A `journal.json` naming `segment` (`<first>.jsonl`, or `segments/<first>.jsonl` in the
/// earlier shape).
fn meta(writer: &str, segment: &str, first: u64, last: u64) -> String {
    serde_json::to_string_pretty(&serde_json::json!({
        "format": 1,
        "writer": writer,
        "branch": "main",
        "segment": segment,
        "segment_first": first,
        "segment_last": last,
        "lines": last - first + 1,
        "first_seq": first,
        "last_seq": last,
        "last_ts": "2026-11-30T10:00:00Z",
    }))
    .expect("json")
}

#[test]
fn forged_journal_commits_are_skipped_and_reported_never_fatal_never_a_path() {
    let repo = team();
    let reader = clone(&repo, "reader");
    repo.run_in(&reader, &["journal", "enable"]).success();
    let forger = repo.base().join("forger");
    repo.git_in(repo.base(), &["clone", "-q", "origin.git", "forger"]);
    let ts = "2026-11-30T10:00:00Z";
    let good = ledger_line(
        3,
        ts,
        "decision.recorded",
        None,
        None,
        &serde_json::json!({"text": "a good line"}),
    );
    let secret = ledger_line(
        2,
        ts,
        "decision.recorded",
        None,
        None,
        &serde_json::json!({"text": format!("key {}", ["AKIA", "IOSFODNN7", "EXAMPLE"].concat())}),
    );
    let segment = format!("{{not json at all\n{secret}{good}");
    // A journal whose journal.json (its message's body, as publishing writes it) names
    // another writer.
    forge(
        &repo,
        &forger,
        "refs/majordomus/journal/1111111111111111",
        &[("000000000001.jsonl", &good)],
        &format!(
            "journal: #1..#1\n\n{}",
            meta("2222222222222222", "000000000001.jsonl", 1, 1)
        ),
    );
    // A ref whose name is not a writer id.
    forge(
        &repo,
        &forger,
        "refs/majordomus/journal/ABCDEF0123456789",
        &[("000000000001.jsonl", &good)],
        &format!(
            "journal: #1..#1\n\n{}",
            meta("ABCDEF0123456789", "000000000001.jsonl", 1, 1)
        ),
    );
    // A well-formed journal of the earlier shape (journal.json in the tree) holding an
    // unreadable line, a secret shape and a good line.
    forge(
        &repo,
        &forger,
        "refs/majordomus/journal/3333333333333333",
        &[
            (
                "journal.json",
                &meta("3333333333333333", "segments/000000000001.jsonl", 1, 3),
            ),
            ("segments/000000000001.jsonl", &segment),
        ],
        "forged",
    );
    repo.git_in(&reader, &["fetch", "-q", "origin"]);

    let st = status(&repo, &reader);
    let mut rules: Vec<&str> = st["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect();
    rules.sort();
    assert_eq!(
        rules,
        vec![
            "journal.commit",
            "journal.line",
            "journal.secret",
            "journal.writer"
        ],
        "{st}"
    );
    let fetched = st["fetched"].as_array().expect("fetched");
    assert_eq!(fetched.len(), 2, "{st}");
    let forged = fetched
        .iter()
        .find(|j| j["writer"] == "3333333333333333")
        .expect("the well-formed journal");
    assert_eq!(forged["lines"], 1, "{st}");
    let history = repo.run_in(&reader, &["history"]).success();
    assert!(history.stdout().contains("a good line"), "{history}");
    assert!(!history.stdout().contains("AKIA"), "{history}");
    assert!(history.stderr().contains("journal.secret"), "{history}");
    // Only writer ids became file names.
    let mut names: Vec<String> = std::fs::read_dir(reader.join(".ai/local/journals"))
        .expect("journals")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with(".tmp."))
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            "1111111111111111.jsonl",
            "1111111111111111.stamp.json",
            "3333333333333333.jsonl",
            "3333333333333333.stamp.json"
        ]
    );
    // A second read reads nothing again and says the same.
    let again = status(&repo, &reader);
    assert_eq!(again["findings"], st["findings"]);
}

#[test]
fn refusals_name_their_rule_and_their_fix_works() {
    // No such remote: the fix names the one there is.
    let repo = team();
    repo.run(&[
        "--format", "json", "journal", "enable", "--remote", "upstream",
    ])
    .json_error(3, "journal.remote");
    let human = repo
        .run(&["journal", "enable", "--remote", "upstream"])
        .expect_code(3);
    let fixes = fix_lines(human.stderr());
    assert_eq!(fixes, vec!["majordomus journal enable --remote origin"]);
    repo.run(&["--format", "json", "journal", "enable", "--remote", "a:b"])
        .json_error(3, "journal.remote");

    // Publishing before enabling: the fix enables.
    repo.run(&["--format", "json", "journal", "publish"])
        .json_error(3, "journal.share");
    let human = repo.run(&["journal", "publish"]).expect_code(3);
    let fixes = fix_lines(human.stderr());
    assert_eq!(fixes, vec!["majordomus journal enable"]);
    repo.run_printed(&fixes[0]);
    repo.run(&["journal", "publish"]).success();

    // A line that still carries a secret refuses the publish, and is named.
    let key = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    repo.append_ledger_line(
        "decision.recorded",
        None,
        serde_json::json!({"text": format!("use {key}")}),
    );
    let seq = repo.last_seq();
    let refused = repo
        .run(&["--format", "json", "journal", "publish"])
        .json_error(3, "journal.secret");
    assert!(
        refused["message"]
            .as_str()
            .expect("message")
            .contains(&format!("#{seq}")),
        "{refused}"
    );
    // ... never fatal to the boundary that publishes: the close goes on and says so.
    repo.run(&["session", "start"]).success();
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success();
    assert_eq!(closed.json()["journal"]["error"]["rule"], "journal.secret");
    let closed_human = {
        repo.run(&["session", "start"]).success();
        repo.run(&["session", "close"]).success()
    };
    assert!(
        closed_human
            .stderr()
            .contains("warning: journal not published"),
        "{closed_human}"
    );
    let origin_refs = majordomus_refs(&repo, &repo.base().join("origin.git"));
    assert!(origin_refs.is_empty());
    // The fix, by hand: take the secret out of the line, then publish.
    let human = repo.run(&["journal", "publish"]).expect_code(3);
    let fix = fix_lines(human.stderr()).pop().expect("a fix");
    assert!(
        fix.starts_with("by hand:") && fix.ends_with("majordomus journal publish"),
        "{fix}"
    );
    let text = repo
        .ledger_text()
        .replace(&key, "[redacted: aws-access-key]");
    repo.write(".ai/local/ledger.jsonl", &text);
    let published = repo
        .run(&["--format", "json", "journal", "publish"])
        .success()
        .json();
    assert!(
        published["lines"].as_u64().expect("lines") >= 1,
        "{published}"
    );

    // An unreadable writer id: a failure with the fix that remakes it.
    repo.write(".git/majordomus/writer", "not a writer\n");
    repo.run(&["--format", "json", "journal", "status"])
        .json_error(1, "journal.writer-unreadable");
    let human = repo.run(&["journal", "status"]).expect_code(1);
    let fixes = fix_lines(human.stderr());
    assert_eq!(fixes.len(), 1, "{human}");
    repo.run_printed(&fixes[0]);
    repo.run(&["journal", "status"]).success();

    // A repository without any remote: said by hand.
    let alone = TestRepo::initialised();
    let error = alone
        .run(&["--format", "json", "journal", "enable"])
        .json_error(3, "journal.remote");
    assert!(
        error["fix"].as_str().expect("fix").starts_with("by hand:"),
        "{error}"
    );
}

#[test]
fn disable_removes_the_refspec_and_deletes_nothing() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "shared once");
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "HEAD:refs/heads/x"]);
    assert!(ok, "{stderr}");
    let disabled = repo
        .run_in(&dir, &["--format", "json", "journal", "disable"])
        .success()
        .json();
    assert_eq!(disabled["refspec_removed"], true, "{disabled}");
    assert_eq!(
        repo.git_in(&dir, &["config", "--get-all", "remote.origin.fetch"]),
        "+refs/heads/*:refs/remotes/origin/*"
    );
    let origin = repo.base().join("origin.git");
    assert_eq!(majordomus_refs(&repo, &origin).len(), 1);
    // Nothing more is published or pushed.
    work(&repo, &dir, "kept here now");
    let before = majordomus_refs(&repo, &dir);
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "HEAD:refs/heads/x"]);
    assert!(ok, "{stderr}");
    assert_eq!(majordomus_refs(&repo, &dir), before);
    // The command it names deletes the remote's copy.
    let command = disabled["remove_from_remote"]
        .as_str()
        .expect("the command");
    let out = repo.sh_in(&dir, command);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(majordomus_refs(&repo, &origin).is_empty());
}

/// The segments of the journal at `reference`, oldest first: (commit, path, size), read
/// commit by commit. Each commit is three objects: a tree of its own segment alone, and
/// its `journal.json` as its message's body, naming that segment (asserted here: a tree of
/// every segment grew with each publish, and every object is a file created at publish).
fn segments(repo: &TestRepo, dir: &Path, reference: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for commit in repo
        .git_in(dir, &["rev-list", "--reverse", reference])
        .lines()
    {
        let tree = repo.git_in(dir, &["ls-tree", "-r", "-l", commit]);
        let entries: Vec<&str> = tree.lines().collect();
        assert_eq!(entries.len(), 1, "one segment, nothing else: {tree}");
        let (head, path) = entries[0].split_once('\t').expect("an ls-tree line");
        assert!(
            path.len() == 18
                && path.ends_with(".jsonl")
                && path[..12].bytes().all(|b| b.is_ascii_digit()),
            "{tree}"
        );
        let body = repo.git_in(dir, &["show", "-s", "--format=%b", commit]);
        let meta: serde_json::Value = serde_json::from_str(&body).expect("journal.json");
        assert_eq!(meta["segment"], path, "{body}");
        let size = head
            .split_whitespace()
            .nth(3)
            .expect("size")
            .parse()
            .expect("a size");
        out.push((commit.to_owned(), path.to_owned(), size));
    }
    out
}

/// The text of every segment of the journal at `reference`, in order.
fn journal_text(repo: &TestRepo, dir: &Path, reference: &str) -> String {
    let mut text = String::new();
    for (commit, path, _) in segments(repo, dir, reference) {
        // git_in trims the output's last newline.
        text.push_str(
            repo.git_in(dir, &["show", &format!("{commit}:{path}")])
                .trim_end(),
        );
        text.push('\n');
    }
    text
}

#[test]
fn enable_publishes_only_later_lines_unless_asked_for_history() {
    let repo = team();
    let dir = clone(&repo, "clone");
    work(&repo, &dir, "private, before enable");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "after enable");
    let reference = format!("refs/majordomus/journal/{}", writer(&dir));
    let text = journal_text(&repo, &dir, &reference);
    assert!(text.contains("after enable"), "{text}");
    assert!(!text.contains("private, before enable"), "{text}");

    let other = clone(&repo, "other");
    work(&repo, &other, "old history");
    repo.run_in(&other, &["journal", "enable", "--include-history"])
        .success();
    let published = repo
        .run_in(&other, &["--format", "json", "journal", "publish"])
        .success()
        .json();
    assert_eq!(published["first_seq"], 1, "{published}");
}

#[test]
fn prune_drops_old_segments_from_the_writers_own_ref_and_the_push_follows() {
    let mut repo = team();
    let dir = clone(&repo, "clone");
    repo.now("2026-01-01T10:00:00Z");
    repo.run_in(&dir, &["journal", "enable"]).success();
    work(&repo, &dir, "long ago");
    repo.now("2026-11-30T10:00:00Z");
    work(&repo, &dir, "recent");
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "HEAD:refs/heads/x"]);
    assert!(ok, "{stderr}");
    std::fs::write(
        dir.join(".ai/repo/policy.yaml"),
        format!(
            "{}ledger.retention_days: 30\n",
            std::fs::read_to_string(dir.join(".ai/repo/policy.yaml"))
                .expect("policy")
                .replace("  retention_days: null\n", "")
        ),
    )
    .expect("policy");
    let dry = repo
        .run_in(&dir, &["--format", "json", "journal", "prune"])
        .success()
        .json();
    assert_eq!(dry["applied"], false, "{dry}");
    assert!(
        !dry["segments"].as_array().expect("segments").is_empty(),
        "{dry}"
    );
    let reference = format!("refs/majordomus/journal/{}", writer(&dir));
    let tip = majordomus_refs(&repo, &dir)[&reference].clone();
    let applied = repo
        .run_in(&dir, &["--format", "json", "journal", "prune", "--apply"])
        .success()
        .json();
    assert_eq!(applied["applied"], true, "{applied}");
    let new_tip = majordomus_refs(&repo, &dir)[&reference].clone();
    assert_ne!(tip, new_tip);
    let kept: Vec<String> = segments(&repo, &dir, &reference)
        .into_iter()
        .map(|(_, path, _)| path)
        .collect();
    assert_eq!(
        kept.len() as u64,
        applied["kept"].as_u64().expect("kept"),
        "{applied}"
    );
    for gone in applied["segments"].as_array().expect("segments") {
        assert!(
            !kept.iter().any(|p| p == gone.as_str().expect("path")),
            "{kept:?}"
        );
    }
    let text = journal_text(&repo, &dir, &reference);
    assert!(
        text.contains("recent") && !text.contains("long ago"),
        "{text}"
    );
    // The next push force-updates this writer's ref, and only it.
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "HEAD:refs/heads/x"]);
    assert!(ok, "{stderr}");
    let origin = majordomus_refs(&repo, &repo.base().join("origin.git"));
    assert_eq!(origin[&reference], new_tip);
    assert_eq!(status(&repo, &dir)["push"]["ok"], true);
    // Nothing is published twice after the prune.
    assert_eq!(status(&repo, &dir)["pending"], 0);
}

#[test]
fn a_linked_worktree_reads_its_siblings_journal_without_a_fetch() {
    let repo = team();
    let main = clone(&repo, "clone");
    let linked = repo.base().join("clone-linked");
    repo.git_in(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "other",
            linked.to_str().expect("utf-8"),
        ],
    );
    for dir in [&main, &linked] {
        repo.run_in(dir, &["journal", "enable"]).success();
    }
    work(&repo, &main, "in the main worktree");
    work(&repo, &linked, "in the linked worktree");
    let sibling =
        std::fs::read_to_string(main.join(".git/worktrees/clone-linked/majordomus/writer"))
            .expect("the linked worktree's own writer id")
            .trim()
            .to_owned();
    assert_ne!(sibling, writer(&main), "one writer per worktree");
    let st = status(&repo, &main);
    let fetched = st["fetched"].as_array().expect("fetched");
    assert_eq!(fetched.len(), 1, "{st}");
    assert_eq!(fetched[0]["writer"], sibling.as_str(), "{st}");
    assert!(fetched[0]["remote"].is_null(), "{st}");
    assert_eq!(fetched[0]["branch"], "other", "{st}");
    let decisions = repo
        .run_in(
            &main,
            &[
                "--format",
                "json",
                "history",
                "--event",
                "decision.recorded",
            ],
        )
        .success()
        .json();
    let seen: Vec<(Option<&str>, &str)> = decisions["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| {
            (
                l["writer"].as_str(),
                l["data"]["text"].as_str().expect("text"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (None, "in the main worktree"),
            (Some(sibling.as_str()), "in the linked worktree")
        ],
        "{decisions}"
    );
}

/// `(writer, id, line)` of the decision hits of `recall QUERY` in `dir`.
fn recalled(repo: &TestRepo, dir: &Path, query: &str) -> Vec<(Option<String>, String, String)> {
    let run = repo
        .run_in(
            dir,
            &["--format", "json", "recall", query, "--kind", "decision"],
        )
        .success()
        .json();
    run["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            (
                h["writer"].as_str().map(str::to_owned),
                h["id"].as_str().expect("id").to_owned(),
                h["line"].as_str().expect("line").to_owned(),
            )
        })
        .collect()
}

#[test]
fn recall_finds_another_clones_decisions_once_marked_with_their_writer_after_a_fetch() {
    let repo = team();
    let a = clone(&repo, "clone-a");
    let b = clone(&repo, "clone-b");
    for dir in [&a, &b] {
        repo.run_in(dir, &["journal", "enable"]).success();
    }
    work(&repo, &a, "The tokenizer splits snake_case identifiers");
    work(&repo, &b, "The tokenizer keeps digits inside words");
    // Before a fetch, b knows only its own.
    let own = recalled(&repo, &b, "tokenizer");
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0].0, None, "this checkout's own decision has no writer");
    let (ok, stderr) = push(&repo, &a, &["-q", "origin", "HEAD:refs/heads/from-a"]);
    assert!(ok, "{stderr}");
    repo.git_in(&b, &["fetch", "-q", "origin"]);
    let hits = recalled(&repo, &b, "tokenizer");
    let from_a: Vec<_> = hits.iter().filter(|h| h.0.is_some()).collect();
    assert_eq!(from_a.len(), 1, "once, not once per read: {hits:?}");
    assert_eq!(from_a[0].0.as_deref(), Some(writer(&a).as_str()));
    assert_eq!(from_a[0].2, "The tokenizer splits snake_case identifiers");
    // A second read (nothing fetched since) still shows it once; the text names the writer.
    assert_eq!(recalled(&repo, &b, "tokenizer"), hits);
    let text = repo
        .run_in(&b, &["recall", "snake_case"])
        .success()
        .stdout()
        .to_owned();
    assert!(
        text.contains(&format!("from the journal of writer {}", writer(&a))),
        "{text}"
    );
    // The briefing's earlier decisions on this branch include it, marked.
    let briefing = repo.run_in(&b, &["briefing"]).success().stdout().to_owned();
    assert!(
        briefing.contains(&format!(
            "· writer {}] ⟪The tokenizer splits snake_case identifiers⟫",
            writer(&a)
        )),
        "{briefing}"
    );
    // It reads whole through the command the hit names.
    let shown = repo
        .run_in(&b, &["show", &format!("decision:{}", from_a[0].1)])
        .success()
        .stdout()
        .to_owned();
    assert!(
        shown.contains("The tokenizer splits snake_case identifiers")
            && shown.contains(&format!("journal of writer {}", writer(&a))),
        "{shown}"
    );
    // What a later fetch brings is added, and only that.
    work(&repo, &a, "The tokenizer lowercases ASCII only");
    let (ok, stderr) = push(&repo, &a, &["-q", "origin", "HEAD:refs/heads/from-a"]);
    assert!(ok, "{stderr}");
    repo.git_in(&b, &["fetch", "-q", "origin"]);
    let hits = recalled(&repo, &b, "tokenizer");
    let mut from_a: Vec<&str> = hits
        .iter()
        .filter(|h| h.0.is_some())
        .map(|h| h.2.as_str())
        .collect();
    from_a.sort();
    assert_eq!(
        from_a,
        vec![
            "The tokenizer lowercases ASCII only",
            "The tokenizer splits snake_case identifiers"
        ],
        "{hits:?}"
    );
    // A clone that drops the fetched journal (its ref deleted) no longer recalls it.
    for name in majordomus_refs(&repo, &b).keys() {
        if name.contains(&writer(&a)) {
            repo.git_in(&b, &["update-ref", "-d", name]);
        }
    }
    let hits = recalled(&repo, &b, "tokenizer");
    assert!(hits.iter().all(|h| h.0.is_none()), "{hits:?}");
}

/// The body of a 200 cockpit page.
#[track_caller]
fn page(served: &crate::http::Served, path: &str) -> String {
    let answer = served.get(path);
    let text = String::from_utf8_lossy(&answer.body).into_owned();
    assert_eq!(answer.status, 200, "{path}: {text}");
    text
}

/// How many times `needle` occurs in `text`.
fn occurrences(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn the_briefing_and_the_cockpit_show_a_fetched_writer_marked_once() {
    let repo = team();
    let other = clone(&repo, "other");
    for dir in [repo.root(), other.as_path()] {
        repo.run_in(dir, &["journal", "enable"]).success();
    }
    let theirs = writer(&other);
    // The other clone's episode, open, with a decision, a question and a checkpoint,
    // pushed (the pre-push hook publishes and pushes its journal).
    let episode = repo
        .run_in(&other, &["--format", "json", "session", "start"])
        .success()
        .json()["episode"]["id"]
        .as_str()
        .expect("episode id")
        .to_owned();
    repo.run_in(&other, &["decision", "the parser keeps comments"])
        .success();
    repo.run_in(
        &other,
        &["question", "Keep the old grammar for one release?"],
    )
    .success();
    repo.run_in(&other, &["checkpoint", "lexer half done"])
        .success();
    let (ok, stderr) = push(&repo, &other, &["-q", "origin", "HEAD:refs/heads/other"]);
    assert!(ok, "{stderr}");
    repo.git(&["fetch", "-q", "origin"]);
    // The journal's trees and commits are what git itself would write.
    repo.git_in(&other, &["fsck", "--strict", "--no-dangling"]);

    // session list: another writer's episode still open there is not "never closed".
    let list = repo.run(&["session", "list"]).success();
    assert!(
        list.stdout().contains(&format!(
            "- {episode} [writer {theirs}] (cli, main) not closed at its writer's last publish"
        )),
        "{list}"
    );

    let briefing = repo.run(&["--format", "json", "briefing"]).success().json();
    assert_eq!(briefing["writers_total"], 1, "{briefing}");
    let shown = &briefing["writers"][0];
    assert_eq!(shown["writer"], theirs.as_str(), "{shown}");
    assert_eq!(shown["remote"], "origin", "{shown}");
    assert_eq!(shown["this_branch"], true, "{shown}");
    assert!(shown["closed"].is_null(), "{shown}");
    assert_eq!(shown["episode"]["id"], episode.as_str(), "{shown}");
    assert_eq!(
        shown["episode"]["decisions"][0], "the parser keeps comments",
        "{shown}"
    );
    assert_eq!(shown["episode"]["open_questions_total"], 1, "{shown}");
    assert_eq!(
        shown["episode"]["last_checkpoint"], "lexer half done",
        "{shown}"
    );
    let text = briefing["text"].as_str().expect("text");
    assert_eq!(occurrences(text, "## Other writers (1)"), 1, "{text}");
    let line = format!("- writer {theirs} (origin) on main: episode {episode} (");
    assert_eq!(occurrences(text, &line), 1, "{text}");
    for part in [
        "open at its last publish",
        "checkpoint: ⟪lexer half done⟫",
        "1 open question(s)",
        "decided: ⟪the parser keeps comments⟫",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // The command the line names reads that episode, its lines marked with the writer.
    let read = format!("majordomus history --session {episode}");
    assert!(text.contains(&format!("read: `{read}`")), "{text}");
    let history = repo
        .run(&["--format", "json", "history", "--session", &episode])
        .success()
        .json();
    let lines = history["lines"].as_array().expect("lines");
    assert!(lines.len() >= 4, "{history}");
    assert!(
        lines.iter().all(|l| l["writer"] == theirs.as_str()),
        "{history}"
    );

    // The episode closes with one more decision, pushed again and fetched: still one
    // line for the writer, now closed, never the first episode twice.
    repo.run_in(&other, &["decision", "comments go to the side table"])
        .success();
    repo.run_in(&other, &["session", "close"]).success();
    let (ok, stderr) = push(&repo, &other, &["-q", "origin", "HEAD:refs/heads/other"]);
    assert!(ok, "{stderr}");
    repo.git(&["fetch", "-q", "origin"]);
    for _ in 0..2 {
        let briefing = repo.run(&["--format", "json", "briefing"]).success().json();
        assert_eq!(briefing["writers_total"], 1, "{briefing}");
        assert!(briefing["writers"][0]["closed"].is_string(), "{briefing}");
        let text = briefing["text"].as_str().expect("text");
        // One line for the writer in Other writers; each of its decisions once among
        // the earlier decisions on this branch, marked with it (recall reads journals).
        assert_eq!(
            occurrences(text, &format!("- writer {theirs} ")),
            1,
            "{text}"
        );
        for decided in ["the parser keeps comments", "comments go to the side table"] {
            assert_eq!(
                occurrences(text, &format!("· writer {theirs}] ⟪{decided}⟫")),
                1,
                "{text}"
            );
        }
        assert!(
            text.contains("decided: ⟪comments go to the side table⟫ (+1 more)"),
            "{text}"
        );
    }

    // The cockpit's history and episodes pages mark the writer, each line once.
    let served = crate::http::Served::start(&repo);
    let html = page(&served, "/cockpit/history");
    assert!(
        html.contains(&format!("<code>{theirs}</code> on main")),
        "{html}"
    );
    assert_eq!(occurrences(&html, "the parser keeps comments"), 1, "{html}");
    assert!(html.contains("Merged with 1 other writer(s)"), "{html}");
    let html = page(&served, &format!("/cockpit/history?session={episode}"));
    assert_eq!(
        occurrences(&html, "comments go to the side table"),
        1,
        "{html}"
    );
    let html = page(&served, "/cockpit");
    assert!(html.contains("<h3>Other writers</h3>"), "{html}");
    assert_eq!(
        occurrences(&html, &format!("writer {theirs} (origin) on main")),
        1,
        "{html}"
    );
    let html = page(&served, "/cockpit/episodes");
    assert_eq!(
        occurrences(&html, &format!("<dt>writer</dt><dd><code>{theirs}</code>")),
        1,
        "{html}"
    );
}

#[test]
fn enable_asks_for_a_commit_only_when_it_changed_the_policy() {
    let repo = team();
    let first = repo.run(&["journal", "enable"]).success();
    let commit = "next: git add .ai/repo/policy.yaml && git commit";
    assert!(first.stdout().contains(commit), "{first}");
    repo.git(&["commit", "-q", "-am", "share the journal"]);
    repo.git(&["push", "-q", "origin", "HEAD"]);
    // A teammate's clone already has `journal.share: true`: nothing to commit (the step
    // 12 field trial was told to commit an unchanged file).
    let other = clone(&repo, "other");
    let second = repo.run_in(&other, &["journal", "enable"]).success();
    assert!(
        second.stdout().contains("journal.share: true (unchanged)"),
        "{second}"
    );
    assert!(!second.stdout().contains(commit), "{second}");
    assert!(
        repo.git_in(&other, &["status", "--porcelain", ".ai/repo/policy.yaml"])
            .is_empty()
    );
}

#[test]
fn a_linked_worktrees_journal_is_not_an_other_writer_in_the_briefing() {
    // A sibling worktree is shown live under "Other worktrees"; its journal ref is not a
    // second line under "Other writers".
    let repo = team();
    let linked = repo.base().join("linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "other",
        linked.to_str().expect("utf-8"),
    ]);
    for dir in [repo.root(), linked.as_path()] {
        repo.run_in(dir, &["journal", "enable"]).success();
    }
    work(&repo, &linked, "in the linked worktree");
    let briefing = repo.run(&["--format", "json", "briefing"]).success().json();
    assert_eq!(briefing["writers_total"], 0, "{briefing}");
    let text = briefing["text"].as_str().expect("text");
    assert!(!text.contains("## Other writers"), "{text}");
    assert!(text.contains("## Other worktrees (1)"), "{text}");
}

#[test]
fn a_long_ledger_is_published_as_a_chain_of_segments_of_at_most_a_mebibyte() {
    // 6,000 decisions of about 300 bytes: some 1.8 MB, so at least two segments.
    let repo = team();
    let dir = clone(&repo, "clone");
    let lines: String = (1..=6000u64)
        .map(|seq| {
            ledger_line(
                seq,
                "2026-11-30T10:00:00Z",
                "decision.recorded",
                None,
                None,
                &serde_json::json!({ "text": format!("decision {seq}: {}", "x".repeat(240)) }),
            )
        })
        .collect();
    std::fs::create_dir_all(dir.join(".ai/local")).expect("create .ai/local");
    std::fs::write(dir.join(".ai/local/ledger.jsonl"), &lines).expect("write the ledger");
    repo.run_in(&dir, &["journal", "enable", "--include-history"])
        .success();
    let published = repo
        .run_in(&dir, &["--format", "json", "journal", "publish"])
        .success()
        .json();
    assert_eq!(published["lines"], 6000, "{published}");
    let reference = format!("refs/majordomus/journal/{}", writer(&dir));
    let commits: usize = repo
        .git_in(&dir, &["rev-list", "--count", &reference])
        .trim()
        .parse()
        .expect("a count");
    assert!(commits >= 2, "{commits} commit(s)");
    let chain = segments(&repo, &dir, &reference);
    for (commit, path, size) in &chain {
        assert!(*size <= 1 << 20, "{commit} {path}: {size} bytes");
    }
    assert_eq!(chain.len(), commits, "one segment a commit");
    // Every line is there once, in order, across the chain.
    let text = journal_text(&repo, &dir, &reference);
    let (published, written): (Vec<&str>, Vec<&str>) =
        (text.lines().collect(), lines.lines().collect());
    let first_difference = published.iter().zip(&written).position(|(a, b)| a != b);
    assert!(
        published.len() == written.len() && first_difference.is_none(),
        "{} line(s) published for {} written; first difference at {first_difference:?}: {:?}",
        published.len(),
        written.len(),
        first_difference.map(|i| (
            &published[i][..published[i].len().min(120)],
            &written[i][..written[i].len().min(120)]
        ))
    );
    // Another clone reads the chain after a fetch.
    let (ok, stderr) = push(&repo, &dir, &["-q", "origin", "HEAD:refs/heads/long"]);
    assert!(ok, "{stderr}");
    let other = clone(&repo, "other");
    repo.run_in(&other, &["journal", "enable"]).success();
    repo.git_in(&other, &["fetch", "-q", "origin"]);
    let st = status(&repo, &other);
    assert_eq!(st["fetched"][0]["lines"], 6000, "{st}");
}

/// The push `journal enable` prints works as printed: `git push` where the branch has an
/// upstream, `git push -u origin <branch>` on a branch that has none (a plain `git push`
/// fails there with "has no upstream branch"); and it carries the journal.
#[test]
fn the_push_enable_prints_works_as_printed_with_or_without_an_upstream() {
    let repo = team();
    let dir = clone(&repo, "clone");
    repo.git_in(&dir, &["checkout", "-q", "-b", "work"]);
    let enabled = repo.run_in(&dir, &["journal", "enable"]).success();
    let next: Vec<String> = crate::common::next_lines(enabled.stdout());
    assert_eq!(
        next.last().map(String::as_str),
        Some(
            "git push -u origin work (the pre-push hook of majordomus hooks install pushes the journal beside it)"
        ),
        "{enabled}"
    );
    let json = repo
        .run_in(&dir, &["--format", "json", "journal", "enable"])
        .success()
        .json();
    assert_eq!(json["push"], "git push -u origin work");
    repo.git_in(&dir, &["commit", "-q", "-am", "share the journal"]);
    work(&repo, &dir, "on a branch with no upstream");
    let push = json["push"].as_str().expect("a push");
    let out = repo.sh_printed_in(&dir, push);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = format!("refs/majordomus/journal/{}", writer(&dir));
    assert!(
        !repo
            .git_in(
                repo.base(),
                &["--git-dir", "origin.git", "for-each-ref", &journal]
            )
            .is_empty(),
        "the push did not carry the journal"
    );
    // Now the branch has an upstream: a plain push.
    let again = repo
        .run_in(&dir, &["--format", "json", "journal", "enable"])
        .success()
        .json();
    assert_eq!(again["push"], "git push");
}
