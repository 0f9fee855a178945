//! `majordomus init`: the `.ai/` skeleton, idempotent, never overwriting a file.

use crate::common::TestRepo;

const SKELETON: [&str; 5] = [
    ".ai/repo/policy.yaml",
    ".ai/repo/knowledge/sources.yaml",
    ".ai/repo/knowledge/candidates/README.md",
    ".ai/repo/sessions/README.md",
    ".ai/repo/rules/vendor/majordomus.yaml",
];

#[test]
fn init_creates_the_skeleton_and_ignores_local() {
    let repo = TestRepo::new();
    let run = repo.run(&["init"]).success();
    for file in SKELETON {
        assert!(repo.exists(file), "{file} was not created");
        assert!(
            run.stdout().contains(&format!("  created  {file}\n")),
            "{file} not reported as created: {run}"
        );
    }
    assert!(
        repo.path(".ai/local").is_dir(),
        ".ai/local/ was not created"
    );
    assert_eq!(repo.read(".gitignore"), ".ai/local/\n");
    insta::assert_snapshot!("init_first_run", repo.redact(run.stdout()));

    // git agrees: the local half is ignored, the repo half is not.
    repo.write(".ai/local/probe", "x");
    assert_eq!(
        repo.git(&["check-ignore", ".ai/local/probe"]),
        ".ai/local/probe"
    );
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(status.contains(".ai/repo/policy.yaml"), "{status}");
    assert!(!status.contains(".ai/local"), "{status}");
}

#[test]
fn init_json_lists_what_it_created() {
    let repo = TestRepo::new();
    let json = repo.run(&["--format", "json", "init"]).success().json();
    assert_eq!(json["created"], serde_json::json!(SKELETON));
    assert_eq!(json["existing"], serde_json::json!([]));
    assert_eq!(json["gitignore"], "written");
}

#[test]
fn init_is_idempotent_and_writes_nothing_the_second_time() {
    let repo = TestRepo::new();
    repo.run(&["init"]).success();
    let before = repo.files();

    let run = repo.run(&["init"]).success();
    for file in SKELETON {
        assert!(
            run.stdout().contains(&format!("  kept     {file}\n")),
            "{file} not reported as kept: {run}"
        );
    }
    assert!(!run.stdout().contains("created"), "{run}");
    assert!(
        run.stdout()
            .contains(".gitignore: already ignores .ai/local/"),
        "{run}"
    );
    let after = repo.files();
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "the second run added or removed files"
    );
    for (path, (bytes, modified)) in &before {
        assert_eq!(&after[path].0, bytes, "{path} changed");
        assert_eq!(&after[path].1, modified, "{path} was rewritten");
    }

    let json = repo.run(&["--format", "json", "init"]).success().json();
    assert_eq!(json["created"], serde_json::json!([]));
    assert_eq!(json["existing"], serde_json::json!(SKELETON));
    assert_eq!(json["gitignore"], "unchanged");
}

#[test]
fn init_never_overwrites_an_edited_policy() {
    let repo = TestRepo::new();
    repo.run(&["init"]).success();
    let edited = "session:\n  briefing_budget_lines: 12\n";
    repo.write_policy(edited);

    let run = repo.run(&["init"]).success();
    assert!(
        run.stdout().contains("  kept     .ai/repo/policy.yaml\n"),
        "{run}"
    );
    assert_eq!(repo.read(".ai/repo/policy.yaml"), edited);
}

#[test]
fn init_restores_a_deleted_skeleton_file_only() {
    let repo = TestRepo::new();
    repo.run(&["init"]).success();
    repo.write_policy("reasoning:\n  mode: strict\n");
    std::fs::remove_file(repo.path(".ai/repo/sessions/README.md")).expect("remove");

    let json = repo.run(&["--format", "json", "init"]).success().json();
    assert_eq!(
        json["created"],
        serde_json::json!([".ai/repo/sessions/README.md"])
    );
    assert!(repo.exists(".ai/repo/sessions/README.md"));
    assert_eq!(
        repo.read(".ai/repo/policy.yaml"),
        "reasoning:\n  mode: strict\n"
    );
}

#[test]
fn init_appends_to_an_existing_gitignore() {
    let repo = TestRepo::new();
    // No final newline: init must not glue its line onto `target`.
    repo.write(".gitignore", "target");
    let run = repo.run(&["init"]).success();
    assert!(
        run.stdout().contains(".gitignore: added .ai/local/"),
        "{run}"
    );
    assert_eq!(repo.read(".gitignore"), "target\n.ai/local/\n");
}

#[test]
fn init_accepts_an_equivalent_gitignore_line() {
    let repo = TestRepo::new();
    repo.write(".gitignore", "/target\n/.ai/local\n");
    let json = repo.run(&["--format", "json", "init"]).success().json();
    assert_eq!(json["gitignore"], "unchanged");
    assert_eq!(repo.read(".gitignore"), "/target\n/.ai/local\n");
}

#[test]
fn init_from_a_subdirectory_sets_up_the_work_tree_root() {
    let repo = TestRepo::new();
    repo.write("src/deep/mod.rs", "");
    let run = repo.run_in(&repo.path("src/deep"), &["init"]).success();
    assert!(repo.exists(".ai/repo/policy.yaml"), "{run}");
    assert!(!repo.exists("src/deep/.ai"), "{run}");
    assert_eq!(
        run.stdout().lines().next(),
        Some(format!("initialised {}", repo.root().display()).as_str())
    );
}

#[test]
fn init_with_dash_c_runs_in_that_directory() {
    let repo = TestRepo::new();
    let root = repo.root().display().to_string();
    repo.run_in(repo.base(), &["-C", &root, "init"]).success();
    assert!(repo.exists(".ai/repo/policy.yaml"));
    assert!(!repo.base().join(".ai").exists());
}

#[test]
fn init_outside_a_git_repository_fails() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["init"]);
    run.assert_human_error(1, "not inside a git repository");
    assert!(
        run.stderr().lines().any(|l| l.starts_with("fix: ")),
        "{run}"
    );
    assert!(!dir.exists(".ai"), "init wrote outside a repository");

    let error = dir.run(&["--format", "json", "init"]).json_error(1, "git");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("not inside a git repository"))
    );
}

#[test]
fn every_next_step_runs_as_printed_and_a_rerun_prints_no_commit_to_make() {
    let repo = TestRepo::new();
    let run = repo.run(&["init"]).success();
    let next = crate::common::next_lines(run.stdout());
    assert_eq!(
        next,
        [
            "git add .ai .gitignore && git commit -m \"majordomus: init\"",
            "majordomus hooks install",
            "majordomus session start",
        ],
        "{run}"
    );
    for step in &next {
        repo.run_printed(step);
    }
    // What the steps promised: .ai/ and .gitignore committed, the hooks in place, an
    // episode open.
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let committed = repo.git(&["ls-files"]);
    for file in SKELETON.iter().chain(&[".gitignore"]) {
        assert!(
            committed.lines().any(|l| l == *file),
            "{file} not committed"
        );
    }
    assert!(
        repo.read(".git/hooks/post-commit").contains("majordomus"),
        "the hooks were not installed"
    );
    assert!(repo.episode_state().is_some(), "no episode opened");
    // Run again, there is nothing left to commit: the step is not printed (it would fail).
    let again = repo.run(&["init"]).success();
    assert_eq!(
        crate::common::next_lines(again.stdout()),
        ["majordomus hooks install", "majordomus session start"],
        "{again}"
    );
    let json = repo.run(&["--format", "json", "init"]).success().json();
    assert_eq!(json["uncommitted"], serde_json::json!([]));
}

/// What git's `status --porcelain --untracked-files=all --ignored` says of `path`.
fn git_sees(repo: &TestRepo, path: &str) -> String {
    repo.git(&[
        "status",
        "--porcelain",
        "--untracked-files=all",
        "--ignored",
        "--",
        path,
    ])
}

#[test]
fn init_refuses_to_write_records_git_would_never_see_and_its_fix_works() {
    // A `*.md` rule in the root .gitignore: the records would be ignored.
    let repo = TestRepo::new();
    repo.write(".gitignore", "node_modules/\n*.md\n");
    let error = repo
        .run(&["--format", "json", "init"])
        .json_error(3, "init.ignored");
    assert_eq!(
        error["message"],
        ".ai/repo/sessions/20261130T100000Z-0a1b2c.md is ignored by `*.md` (.gitignore:2): git would never see the records majordomus writes there"
    );
    assert!(!repo.exists(".ai"), "nothing written before the refusal");
    let fix = error["fix"].as_str().expect("a fix");
    assert_eq!(
        fix,
        "printf '%s\\n' '!/.ai/' '!/.ai/repo/' '!/.ai/repo/**' >> .gitignore && majordomus init"
    );
    repo.run_printed(fix);
    assert!(repo.exists(".ai/repo/sessions/README.md"));
    assert_eq!(
        git_sees(&repo, ".ai/repo/sessions/README.md"),
        "?? .ai/repo/sessions/README.md"
    );
    repo.write(".ai/local/ledger.jsonl", "");
    assert_eq!(git_sees(&repo, ".ai/local/"), "!! .ai/local/ledger.jsonl");
    // Other Markdown stays ignored.
    repo.write("notes.md", "x\n");
    assert_eq!(git_sees(&repo, "notes.md"), "!! notes.md");

    // `.ai/` in .git/info/exclude: the same fix wins over it.
    let repo = TestRepo::new();
    repo.write(".git/info/exclude", ".ai/\n");
    let error = repo
        .run(&["--format", "json", "init"])
        .json_error(3, "init.ignored");
    assert!(
        error["message"]
            .as_str()
            .expect("message")
            .starts_with(".ai/ is ignored by `.ai/` (.git/info/exclude:1)"),
        "{error}"
    );
    repo.run_printed(error["fix"].as_str().expect("a fix"));
    assert_eq!(
        git_sees(&repo, ".ai/repo/policy.yaml"),
        "?? .ai/repo/policy.yaml"
    );
}

#[test]
fn doctor_names_a_rule_that_hides_record_paths_once_with_the_paths_and_a_fix_that_works() {
    let repo = TestRepo::initialised();
    let visible = |repo: &TestRepo| {
        let report = repo.run(&["--format", "json", "doctor"]).json();
        report["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .find(|r| r["rule"] == "majordomus.records-visible")
            .cloned()
            .expect("the rule ran")
    };
    assert_eq!(visible(&repo)["status"], "pass");

    repo.write(".git/info/exclude", "*.yaml\n");
    let rule = visible(&repo);
    assert_eq!(rule["status"], "fail", "{rule}");
    let findings = rule["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "one finding for the one rule: {rule}");
    assert_eq!(findings[0]["severity"], "blocking");
    assert_eq!(
        findings[0]["message"],
        "2 record paths (.ai/repo/intents/intent.yaml, .ai/repo/rules/project/rules.yaml) are ignored by `*.yaml` (.git/info/exclude:1): git would never see the records majordomus writes there"
    );
    repo.run(&["doctor"]).expect_code(10);
    let fix = findings[0]["fix"].as_str().expect("a fix").to_owned();
    repo.sh_printed(&fix);
    assert_eq!(visible(&repo)["status"], "pass");

    // A rule in a .gitignore under .ai/ wins over the root's: its line goes by hand.
    repo.write(".ai/repo/knowledge/.gitignore", "*.md\n");
    let rule = visible(&repo);
    let findings = rule["findings"].as_array().expect("findings");
    assert_eq!(
        findings[0]["fix"],
        "by hand: delete line 1 (`*.md`) of .ai/repo/knowledge/.gitignore, then run: majordomus doctor"
    );
    repo.write(".ai/repo/knowledge/.gitignore", "");
    assert_eq!(visible(&repo)["status"], "pass");
}
