//! The briefing's per-branch accounting (SPEC §5.6, §5.7; issue 15 item 9): on the trunk
//! the candidates an episode parked in the outbox are the outbox's, not "on this branch";
//! in a fresh worktree or clone the candidates tracked in its work tree are on its branch,
//! whichever branch the episode that derived them ran on.

use serde_json::Value;

use crate::common::TestRepo;

/// The `## Candidates awaiting review` block of a briefing, its lines after the heading.
fn candidates_block(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("## Candidates awaiting review"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// The ids of the pending candidates `knowledge candidates --format json` lists in
/// `state` (`tracked`, `untracked`, `outbox`), sorted.
fn listed(repo: &TestRepo, dir: &std::path::Path, state: &str) -> Vec<String> {
    let json: Value = repo
        .run_in(dir, &["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let mut ids: Vec<String> = json["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .filter(|c| c["state"] == state)
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect();
    ids.sort();
    ids
}

/// Opens an episode in `dir`, records one decision and closes it (which derives).
fn episode_with_a_decision(repo: &TestRepo, dir: &std::path::Path, decision: &str) {
    repo.run_in(dir, &["session", "start"]).success();
    repo.run_in(dir, &["decision", decision]).success();
    repo.run_in(dir, &["session", "close"]).success();
}

#[test]
fn on_the_trunk_the_outbox_candidates_are_the_outboxs_not_this_branchs() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    episode_with_a_decision(&repo, repo.root(), "Trunk records wait in the outbox");
    let parked = listed(&repo, repo.root(), "outbox");
    assert_eq!(parked.len(), 1, "one candidate waits in the outbox");
    assert!(
        repo.git(&["status", "--porcelain"]).is_empty(),
        "nothing is on the trunk's tree"
    );
    let briefing = repo.run(&["briefing"]).success();
    let block = candidates_block(briefing.stdout());
    // Counted in the outbox (waiting to leave the trunk), and — the decision it derives from
    // being listed above — not quoted again: never counted as a candidate on this branch,
    // which has none.
    assert!(
        block.iter().any(|l| l.contains("1 in the outbox"))
            && block.contains(&"(1 of them: the decisions above, not repeated)")
            && briefing.stdout().matches(parked[0].as_str()).count() == 1,
        "the outbox candidate is counted as the outbox's, quoted once:\n{briefing}"
    );
    assert!(
        !block
            .iter()
            .any(|l| l.contains("1 candidate(s) on this branch")),
        "an outbox candidate is on no branch yet:\n{briefing}"
    );
}

#[test]
fn a_fresh_worktree_lists_the_candidates_tracked_in_it() {
    let repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    episode_with_a_decision(&repo, repo.root(), "Feature work reads through gix");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "The episode's records"]);
    let worktree = repo.base().join("side");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        &worktree.display().to_string(),
        "feature",
    ]);
    let tracked = listed(&repo, &worktree, "tracked");
    assert_eq!(tracked.len(), 1, "the candidate is tracked in the worktree");
    let briefing = repo.run_in(&worktree, &["briefing"]).success();
    let block = candidates_block(briefing.stdout());
    assert!(
        block
            .iter()
            .any(|l| l.starts_with(&format!("- {}", tracked[0]))),
        "a candidate tracked in this work tree is on this branch:\n{briefing}"
    );
    assert!(
        !block.iter().any(|l| l.contains("other branches")),
        "nothing here is another branch's:\n{briefing}"
    );
}

#[test]
fn a_fresh_clone_lists_the_candidates_tracked_on_its_branch() {
    let repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    episode_with_a_decision(&repo, repo.root(), "Feature work reads through gix");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "The episode's records"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--ff-only", "feature"]);
    repo.git_in(repo.base(), &["clone", "-q", "repo", "clone"]);
    let clone = repo.base().join("clone");
    let tracked = listed(&repo, &clone, "tracked");
    assert_eq!(tracked.len(), 1, "the merged candidate is tracked on main");
    let briefing = repo.run_in(&clone, &["briefing"]).success();
    let block = candidates_block(briefing.stdout());
    assert!(
        block
            .iter()
            .any(|l| l.starts_with(&format!("- {}", tracked[0]))),
        "a candidate tracked on the clone's branch is on this branch:\n{briefing}"
    );
    assert!(
        !block.iter().any(|l| l.contains("other branches")),
        "its file is in this tree, whichever branch derived it:\n{briefing}"
    );
}
