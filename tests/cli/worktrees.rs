//! The other worktrees of a clone, live (SPEC §12): each one's open episode in the
//! briefing, `worktrees`, `recall`, `history --all-worktrees`; `task start` says when its
//! scope overlaps another worktree's active task; a worktree that is gone or not set up
//! is named, never fatal.

use crate::common::TestRepo;

/// A repository with a linked worktree `wt-b` on branch `feature-b` (beside `repo/`),
/// both set up.
fn two_worktrees() -> (TestRepo, std::path::PathBuf) {
    let repo = TestRepo::initialised();
    let other = repo.base().join("wt-b");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature-b",
        other.to_str().expect("utf-8"),
    ]);
    // `.ai/local/` is ignored, so the new worktree has the tracked `.ai/repo/` only:
    // `init` there completes it (idempotent).
    repo.run_in(&other, &["init"]).success();
    (repo, other)
}

#[test]
fn each_worktree_sees_the_others_open_episode_task_and_decision() {
    let (repo, other) = two_worktrees();
    repo.run_in(&other, &["session", "start", "--provider", "agent-b"])
        .success();
    repo.run_in(
        &other,
        &[
            "task",
            "start",
            "Rework the parser",
            "--scope",
            "src/parser/",
        ],
    )
    .success();
    repo.run_in(&other, &["decision", "Parse with a hand-written lexer"])
        .success();
    repo.run_in(&other, &["checkpoint", "lexer half done"])
        .success();
    repo.run_in(
        &other,
        &["question", "Keep the old grammar for one release?"],
    )
    .success();

    repo.run(&["session", "start", "--provider", "agent-a"])
        .success();
    let briefing = repo.run(&["briefing"]).success();
    let text = briefing.stdout();
    assert!(text.contains("## Other worktrees (1)"), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("wt-b on feature-b"))
        .unwrap_or_else(|| panic!("no line for wt-b:\n{text}"));
    for needle in [
        "(agent-b, since",
        "task t-",
        "⟪Rework the parser⟫ (scope src/parser/)",
        "checkpoint: ⟪lexer half done⟫",
        "1 open question(s)",
        "decided: ⟪Parse with a hand-written lexer⟫",
    ] {
        assert!(line.contains(needle), "{needle} missing from: {line}");
    }

    let listed = repo
        .run(&["worktrees", "--format", "json"])
        .success()
        .json();
    let w = &listed["worktrees"][0];
    assert_eq!(w["state"], "open", "{listed}");
    assert_eq!(w["branch"], "feature-b");
    assert_eq!(w["episode"]["provider"], "agent-b");
    assert_eq!(w["episode"]["task"]["scope"][0], "src/parser/");
    assert_eq!(
        w["episode"]["decisions"][0],
        "Parse with a hand-written lexer"
    );
    assert_eq!(w["episode"]["open_questions_total"], 1);
    // The text names each decision once: the newest on the worktree's line, none again
    // below it (the step 12 field trial printed it twice).
    let text = repo.run(&["worktrees"]).success();
    assert_eq!(
        text.stdout()
            .matches("Parse with a hand-written lexer")
            .count(),
        1,
        "{text}"
    );
    repo.run_in(&other, &["decision", "Keep the lexer tables generated"])
        .success();
    let text = repo.run(&["worktrees"]).success();
    let out = text.stdout();
    assert_eq!(
        out.matches("Keep the lexer tables generated").count(),
        1,
        "{out}"
    );
    assert_eq!(
        out.matches("Parse with a hand-written lexer").count(),
        1,
        "{out}"
    );
    assert!(
        out.contains("decided: ⟪Keep the lexer tables generated⟫ (+1 more)")
            && out.contains("\n  decided: [candidate] ⟪Parse with a hand-written lexer⟫\n"),
        "{out}"
    );

    // And the other way round: wt-b sees this worktree's (the main one's) episode.
    let back = repo
        .run_in(&other, &["worktrees", "--format", "json"])
        .success()
        .json();
    assert_eq!(back["worktrees"][0]["main"], true, "{back}");
    assert_eq!(back["worktrees"][0]["episode"]["provider"], "agent-a");

    // recall by a path in that scope names what is being done there.
    let recalled = repo
        .run(&["recall", "--path", "src/parser/mod.rs", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        recalled["elsewhere"][0]["episode"]["task"]["description"], "Rework the parser",
        "{recalled}"
    );
    let human = repo
        .run(&["recall", "--path", "src/parser/mod.rs"])
        .success();
    assert!(
        human
            .stdout()
            .contains("Being worked on now in other worktrees (not recorded yet):"),
        "{}",
        human.stdout()
    );
    // A path elsewhere does not.
    let unrelated = repo
        .run(&["recall", "--path", "docs/guide.md", "--format", "json"])
        .success()
        .json();
    assert!(unrelated.get("elsewhere").is_none(), "{unrelated}");
}

#[test]
fn task_start_says_when_its_scope_overlaps_another_worktrees_task() {
    let (repo, other) = two_worktrees();
    repo.run_in(&other, &["session", "start"]).success();
    repo.run_in(&other, &["task", "start", "Parser work", "--scope", "src/"])
        .success();
    repo.run(&["session", "start"]).success();
    let started = repo
        .run(&[
            "task",
            "start",
            "Lexer work",
            "--scope",
            "src/lexer/",
            "--format",
            "json",
        ])
        .success()
        .json();
    let overlap = &started["overlaps"][0];
    assert!(
        overlap["worktree"]
            .as_str()
            .is_some_and(|w| w.ends_with("wt-b")),
        "{started}"
    );
    assert_eq!(overlap["entries"], "src/lexer/ and src/");
    // Advisory: the task started.
    assert!(started["task"]["id"].as_str().is_some());
    repo.run(&["task", "finish"]).success();
    let human = repo
        .run(&["task", "start", "Docs", "--scope", "docs/"])
        .success();
    assert!(!human.stdout().contains("overlaps:"), "{}", human.stdout());
    repo.run(&["task", "finish"]).success();
    let human = repo
        .run(&["task", "start", "More lexer", "--scope", "src/lexer/"])
        .success();
    assert!(
        human.stdout().contains("overlaps: task t-"),
        "{}",
        human.stdout()
    );
}

#[test]
fn history_reads_every_worktrees_ledger_with_the_same_filters() {
    let (repo, other) = two_worktrees();
    repo.run_in(&other, &["session", "start"]).success();
    repo.run_in(&other, &["decision", "Decided over there"])
        .success();
    repo.run(&["session", "start"]).success();
    repo.run(&["decision", "Decided here"]).success();

    let own = repo
        .run(&[
            "history",
            "--event",
            "decision.recorded",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert_eq!(own["lines"].as_array().map(Vec::len), Some(1), "{own}");
    assert!(own.get("worktrees").is_none(), "{own}");

    let all = repo
        .run(&[
            "history",
            "--event",
            "decision.recorded",
            "--all-worktrees",
            "--format",
            "json",
        ])
        .success()
        .json();
    let there = &all["worktrees"][0];
    assert_eq!(there["branch"], "feature-b", "{all}");
    let lines = there["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1, "{all}");
    assert_eq!(lines[0]["data"]["text"], "Decided over there");
    let human = repo
        .run(&["history", "--event", "decision.recorded", "--all-worktrees"])
        .success();
    assert!(
        human.stdout().contains("== worktree ") && human.stdout().contains("Decided over there"),
        "{}",
        human.stdout()
    );
}

#[test]
fn a_worktree_gone_or_not_set_up_is_named_never_fatal() {
    let repo = TestRepo::initialised();
    let gone = repo.base().join("wt-gone");
    let bare = repo.base().join("wt-bare");
    for (dir, branch) in [(&gone, "gone"), (&bare, "bare")] {
        repo.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            branch,
            dir.to_str().expect("utf-8"),
        ]);
    }
    repo.git(&[
        "worktree",
        "lock",
        "--reason",
        "on a USB disk",
        bare.to_str().expect("utf-8"),
    ]);
    std::fs::remove_dir_all(&gone).expect("remove a worktree's directory");
    // wt-bare is a plain checkout: its `.ai/local/` was never made.
    std::fs::remove_dir_all(bare.join(".ai")).expect("remove .ai");

    let listed = repo
        .run(&["worktrees", "--format", "json"])
        .success()
        .json();
    let states: Vec<(&str, &str)> = listed["worktrees"]
        .as_array()
        .expect("worktrees")
        .iter()
        .map(|w| {
            (
                w["path"].as_str().unwrap_or(""),
                w["state"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        states
            .iter()
            .any(|(p, s)| p.ends_with("wt-gone") && *s == "gone"),
        "{listed}"
    );
    assert!(
        states
            .iter()
            .any(|(p, s)| p.ends_with("wt-bare") && *s == "not_initialised"),
        "{listed}"
    );
    let locked = listed["worktrees"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|w| w["path"].as_str().is_some_and(|p| p.ends_with("wt-bare")))
        })
        .expect("wt-bare");
    assert_eq!(locked["locked"], "on a USB disk");

    repo.run(&["session", "start"]).success();
    let briefing = repo.run(&["briefing"]).success();
    let text = repo.redact(briefing.stdout());
    assert!(text.contains("## Other worktrees (2)"), "{text}");
    assert!(
        text.contains("- [TEMP]/wt-gone: gone: its directory is not there"),
        "{text}"
    );
    assert!(
        text.contains(
            "- [TEMP]/wt-bare on bare (locked): majordomus is not set up there (no .ai/)"
        ),
        "{text}"
    );
    let history = repo
        .run(&["history", "--all-worktrees", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        history["worktrees"].as_array().map(Vec::len),
        Some(2),
        "{history}"
    );
}

#[test]
fn the_briefing_bounds_the_other_worktrees_and_names_the_command_for_the_rest() {
    let repo = TestRepo::initialised();
    for n in 0..12 {
        let dir = repo.base().join(format!("wt-{n:02}"));
        repo.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            &format!("b{n:02}"),
            dir.to_str().expect("utf-8"),
        ]);
    }
    repo.write_policy("session:\n  briefing_budget_lines: 20\n");
    let briefing = repo.run(&["briefing"]).success();
    let text = briefing.stdout();
    assert!(
        text.lines().count() <= 20,
        "{} lines:\n{text}",
        text.lines().count()
    );
    assert!(text.contains("## Other worktrees (12)"), "{text}");
    let more = text
        .lines()
        .find(|l| l.contains("more: `majordomus worktrees`"))
        .unwrap_or_else(|| panic!("no cut line:\n{text}"));
    let shown = text.lines().filter(|l| l.contains("/wt-")).count();
    assert_eq!(
        more,
        format!("- ... {} more: `majordomus worktrees`", 12 - shown)
    );
    // The command printed lists them all.
    let listed = repo
        .run(&["worktrees", "--format", "json"])
        .success()
        .json();
    assert_eq!(listed["worktrees"].as_array().map(Vec::len), Some(12));
}
