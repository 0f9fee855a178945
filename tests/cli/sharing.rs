//! Conflict-free sharing (docs/RELIABILITY.md): two branches, each worked in its own
//! worktree, close episodes, derive, promote and reject, then merge into each other both
//! ways: git finds no conflict under `.ai/repo/`, no id is used twice, and `knowledge
//! check` is clean on both merges.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::TestRepo;

/// Every knowledge id in the tree of `rev` (candidates and curated), with the paths
/// holding it.
fn ids_at(repo: &TestRepo, rev: &str) -> BTreeMap<String, Vec<String>> {
    let listing = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        rev,
        "--",
        ".ai/repo/knowledge",
    ]);
    let mut ids: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in listing.lines() {
        let Some(name) = path.rsplit('/').next() else {
            continue;
        };
        if name == "README.md" || !name.ends_with(".md") {
            continue;
        }
        if path.contains("/candidates/") || path.contains("/curated/") {
            ids.entry(name.trim_end_matches(".md").to_owned())
                .or_default()
                .push(path.to_owned());
        }
    }
    ids
}

/// In `dir`: an episode with two decisions, closed (which derives its two candidates);
/// returns the candidates it derived.
fn close_an_episode(repo: &TestRepo, dir: &Path, who: &str) -> Vec<String> {
    repo.run_in(dir, &["session", "start"]).success();
    for i in 0..2 {
        // Claims that are no near duplicates of each other: each is its own review item.
        let me = format!("{}{i}", who.to_lowercase());
        repo.run_in(
            dir,
            &["decision", &format!("Unit {me}x keeps {me}y inside {me}z")],
        )
        .success();
    }
    let closed = repo
        .run_in(dir, &["--format", "json", "session", "close"])
        .success()
        .json();
    let mut written: Vec<String> = closed["derived"]["written"]
        .as_array()
        .expect("written")
        .iter()
        .map(|p| {
            let p = p.as_str().expect("path");
            p.rsplit('/')
                .next()
                .expect("name")
                .trim_end_matches(".md")
                .to_owned()
        })
        .collect();
    written.sort();
    assert_eq!(written.len(), 2, "{closed}");
    written
}

fn promote(repo: &TestRepo, dir: &Path, id: &str) {
    let out = repo.sh_in(
        dir,
        &format!("echo 'tests/cli/sharing.rs promotes it' | majordomus knowledge promote {id}"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn reject(repo: &TestRepo, dir: &Path, id: &str, by: Option<&str>) {
    let mut args = vec![
        "knowledge",
        "reject",
        id,
        "--reason",
        "Not how this project works",
    ];
    if let Some(by) = by {
        args.extend(["--by", by]);
    }
    repo.run_in(dir, &args).success();
}

fn commit_store(repo: &TestRepo, dir: &Path, message: &str) {
    repo.git_in(dir, &["add", "-A", ".ai/repo"]);
    repo.git_in(dir, &["commit", "-q", "-m", message]);
}

#[test]
fn branches_that_derive_promote_and_reject_merge_both_ways_without_conflict() {
    let repo = TestRepo::initialised();
    let root = repo.root().to_owned();
    // On main, an episode whose candidates both branches inherit.
    let shared = close_an_episode(&repo, &root, "Main");
    commit_store(&repo, &root, "Main's episode");
    repo.git(&["branch", "a"]);
    repo.git(&["branch", "b"]);
    let second = repo.base().join("b");
    repo.git(&["worktree", "add", "-q", &second.display().to_string(), "b"]);
    repo.git(&["checkout", "-q", "a"]);

    // Branch a (the first worktree): its own episode; it promotes one of its candidates
    // and one of main's, rejects the other of its own.
    let a = close_an_episode(&repo, &root, "A");
    promote(&repo, &root, &a[0]);
    reject(&repo, &root, &a[1], None);
    promote(&repo, &root, &shared[0]);
    commit_store(&repo, &root, "Branch a reviews");
    // It derives main's episode again: the same bytes, nothing for git to merge.
    let main_episode = shared[0].rsplit_once('-').expect("id").0.to_owned();
    let again = repo
        .run_in(
            &root,
            &[
                "--format",
                "json",
                "knowledge",
                "derive",
                "--episode",
                &main_episode,
            ],
        )
        .success()
        .json();
    assert_eq!(again["written"], serde_json::json!([]), "{again}");

    // Branch b (the second worktree, its own ledger): two episodes; it promotes one of
    // its candidates, rejects another in favour of it, and rejects main's other.
    let b = close_an_episode(&repo, &second, "B");
    let b2 = close_an_episode(&repo, &second, "B again");
    promote(&repo, &second, &b[1]);
    reject(&repo, &second, &b[0], Some(&b[1]));
    reject(&repo, &second, &shared[1], None);
    commit_store(&repo, &second, "Branch b reviews");
    assert!(!b2.is_empty());

    // Merge both ways, each in a branch of its own.
    repo.git(&["checkout", "-q", "-b", "a-then-b", "a"]);
    repo.git(&["merge", "-q", "--no-edit", "b"]);
    repo.git(&["checkout", "-q", "-b", "b-then-a", "b"]);
    repo.git(&["merge", "-q", "--no-edit", "a"]);
    for merged in ["a-then-b", "b-then-a"] {
        repo.git(&["checkout", "-q", merged]);
        assert_eq!(repo.git(&["diff", "--name-only", "--diff-filter=U"]), "");
        // `git grep` exits 1 when nothing matches: that is the pass.
        let grep = repo
            .git_command_in(
                &root,
                &[
                    "grep", "-l", "-e", "^<<<<<<<", "-e", "^>>>>>>>", merged, "--", ".ai/repo",
                ],
            )
            .output()
            .expect("spawn git grep");
        assert_eq!(
            grep.status.code(),
            Some(1),
            "{merged}: conflict markers in {}",
            String::from_utf8_lossy(&grep.stdout)
        );
        for (id, paths) in ids_at(&repo, merged) {
            assert_eq!(paths.len(), 1, "{merged}: {id} is used by {paths:?}");
        }
        // Both reviews of main's candidates stand, each branch's acts are there.
        let ids = ids_at(&repo, merged);
        let place = |id: &str| ids[id][0].clone();
        assert!(place(&shared[0]).contains("/curated/"));
        assert!(place(&a[0]).contains("/curated/"));
        assert!(place(&b[1]).contains("/curated/"));
        for rejected in [&shared[1], &a[1], &b[0]] {
            let text = repo.git(&["show", &format!("{merged}:{}", place(rejected))]);
            assert!(text.contains("status: superseded"), "{merged}: {rejected}");
        }
        assert_eq!(
            repo.git(&[
                "ls-tree",
                "--name-only",
                &format!("{merged}:.ai/repo/sessions")
            ])
            .lines()
            .filter(|n| *n != "README.md")
            .count(),
            4,
            "{merged}: the four session records"
        );
        let check = repo.run(&["--format", "json", "knowledge", "check"]);
        assert_eq!(check.code(), 0, "{merged}: {check}");
    }
    // Both merges hold the same knowledge.
    assert_eq!(
        repo.git(&["rev-parse", "a-then-b:.ai/repo"]),
        repo.git(&["rev-parse", "b-then-a:.ai/repo"])
    );
}
