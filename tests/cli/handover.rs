//! Handovers (SPEC §4): derived at the end of an episode, pinned to the plan and its
//! evidence, resolved against the plan as it is now; and a task's finish feeding knowledge
//! end to end.

use serde_json::Value;

use crate::common::TestRepo;

const INTENT: &str = "# The parser intent.
id: parser
status: active
statement: Parsing is fast and explains its errors.
criteria:
  - id: speed
    text: parses 1 MB in under 10 ms
    evidence: [file:src/parser/lib.rs]
issues:
  - id: parser-nom
    title: Port the parser to nom
    status: open
    paths: [\"src/parser/**\"]
    serves: [speed]
critiques:
  - findings:
      - id: f1
        blocking: false
        text: consider error recovery
";

/// An initialised repository with the parser intent and its evidence committed, an
/// episode open and a task bound to `parser-nom` started.
fn bound_task() -> (TestRepo, String, String) {
    let repo = TestRepo::initialised();
    repo.write(".ai/repo/intents/parser.yaml", INTENT);
    repo.write("src/parser/lib.rs", "pub fn parse() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "The parser intent"]);
    let episode = repo.start_episode();
    let started = repo
        .run(&[
            "--format",
            "json",
            "task",
            "start",
            "Port the parser",
            "--issue",
            "parser-nom",
        ])
        .success()
        .json();
    let task = started["task"]["id"]
        .as_str()
        .expect("a task id")
        .to_owned();
    (repo, episode, task)
}

/// `handover --resolve --format json`; checks that the exit code tells the answer (SPEC
/// §4: 0 unchanged, 3 unknown, 11 evidence_moved or plan_changed).
#[track_caller]
fn resolve(repo: &TestRepo) -> Value {
    let run = repo.run(&["--format", "json", "handover", "--resolve"]);
    let answer = run.json();
    let expected = match answer["answer"].as_str() {
        Some("unchanged") => 0,
        Some("unknown") => 3,
        Some("evidence_moved" | "plan_changed") => 11,
        other => panic!("not an answer: {other:?} in {run}"),
    };
    assert_eq!(run.code(), expected, "{run}");
    answer
}

#[test]
fn a_handover_pins_the_plan_and_resolves_each_way() {
    let (repo, episode, task) = bound_task();
    repo.run(&["checkpoint", "benchmarks set up"]).success();
    let derived = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    let path = format!(".ai/local/state/handovers/{episode}.md");
    assert_eq!(derived["path"], path.as_str());
    assert_eq!(derived["front"]["task"], task.as_str());
    assert_eq!(derived["front"]["issue"], "parser-nom");
    assert_eq!(derived["front"]["intent"], "parser");
    assert!(derived["front"]["plan_revision"].is_string());
    assert!(derived["front"]["evidence_standing"].is_string());
    let text = repo.read(&path);
    for heading in [
        "## Done",
        "## Next Action",
        "## Open Questions",
        "## Reasoning",
        "## Knowledge",
    ] {
        assert!(text.contains(heading), "{heading} missing:\n{text}");
    }
    assert!(
        text.contains(&format!("- continue task {task}: Port the parser")),
        "{text}"
    );
    assert!(
        text.contains("- where it stood: benchmarks set up"),
        "{text}"
    );
    assert_eq!(repo.ledger_events("handover.derived").len(), 1);
    // Same evidence, same bytes: a rerun writes nothing and appends nothing.
    let again = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    assert_eq!(again["write"], "unchanged");
    assert_eq!(repo.ledger_events("handover.derived").len(), 1);

    // Unrelated commits move neither pin.
    repo.commit("README.md", "# unrelated\n", "Touch the readme");
    assert_eq!(resolve(&repo)["answer"], "unchanged");

    // The evidence a served criterion cites changes: evidence_moved.
    repo.commit(
        "src/parser/lib.rs",
        "pub fn parse() { /* faster */ }\n",
        "Faster",
    );
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "evidence_moved", "{answer}");
    assert!(answer["reason"].as_str().is_some_and(|r| !r.is_empty()));

    // The statement changes too: plan_changed wins when both moved.
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace("Parsing is fast", "Parsing is very fast"),
    );
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "plan_changed", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| r.contains("evidence moved too")),
        "{answer}"
    );

    // A plan that no longer reads: unknown, never pass.
    repo.write(".ai/repo/intents/parser.yaml", "id: parser\nstatus: [\n");
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "unknown", "{answer}");

    // Human form names the answer and the file.
    repo.write(".ai/repo/intents/parser.yaml", INTENT);
    let run = repo.run(&["handover", "--resolve", &path]).expect_code(11);
    assert!(run.stdout().starts_with("evidence_moved: "), "{run}");
}

#[test]
fn a_plan_changed_during_the_task_resolves_plan_changed() {
    let (repo, episode, _) = bound_task();
    let started = repo.ledger_events("task.started");
    let pinned = started[0]["data"]["plan_revision"].clone();
    assert!(pinned.is_string(), "{started:?}");
    // The plan moves while the work goes on, before the handover is derived.
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace("Parsing is fast", "Parsing is fast and streams"),
    );
    let derived = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    assert_eq!(
        derived["front"]["plan_revision"], pinned,
        "the handover carries the pin the task began under, never one derived now"
    );
    let text = repo.read(&format!(".ai/local/state/handovers/{episode}.md"));
    assert!(
        text.contains(&format!(
            "plan_revision: {}",
            pinned.as_str().unwrap_or_default()
        )),
        "{text}"
    );
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "plan_changed", "{answer}");
    let run = repo.run(&["handover", "--resolve"]).expect_code(11);
    assert!(run.stdout().starts_with("plan_changed: "), "{run}");
}

#[test]
fn evidence_moved_during_the_task_shows_at_resolve() {
    let (repo, _, _) = bound_task();
    repo.commit(
        "src/parser/lib.rs",
        "pub fn parse() { /* rewritten */ }\n",
        "Rewrite the parser",
    );
    repo.run(&["handover", "--derive"]).success();
    assert_eq!(resolve(&repo)["answer"], "evidence_moved");
}

#[test]
fn a_task_whose_issue_is_done_keeps_its_pins() {
    let (repo, episode, _) = bound_task();
    let started = repo.ledger_events("task.started");
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace("status: open", "status: done"),
    );
    let derived = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    assert_eq!(derived["front"]["issue"], "parser-nom");
    assert_eq!(
        derived["front"]["plan_revision"],
        started[0]["data"]["plan_revision"]
    );
    assert_eq!(
        derived["front"]["evidence_standing"],
        started[0]["data"]["evidence_standing"]
    );
    assert!(
        repo.read(&format!(".ai/local/state/handovers/{episode}.md"))
            .contains("evidence_standing: "),
        "the pins are written"
    );
    // Re-asked now, the binding refuses the done issue: unknown, with why, exit 3.
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| r.contains("issue_done")),
        "{answer}"
    );
}

#[test]
fn a_maintenance_task_keeps_its_pins_and_resolves_by_its_scope() {
    let repo = TestRepo::initialised();
    repo.write_policy("intent:\n  binding: advisory\n");
    repo.write(
        ".ai/repo/intents/milestones.yaml",
        "milestones:\n  - id: upkeep\n    paths: [build/**]\n",
    );
    repo.write(".ai/repo/intents/parser.yaml", INTENT);
    repo.write("src/parser/lib.rs", "pub fn parse() {}\n");
    repo.write("build/ci.sh", "#!/bin/sh\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "A plan with a milestone"]);
    repo.start_episode();
    let started = repo
        .run(&[
            "--format",
            "json",
            "task",
            "start",
            "Speed up CI",
            "--scope",
            "build/ci.sh",
        ])
        .success()
        .json();
    assert_eq!(started["binding"]["status"], "maintenance", "{started}");
    let derived = repo
        .run(&["--format", "json", "handover", "--derive"])
        .success()
        .json();
    assert_eq!(derived["front"]["issue"], Value::Null);
    assert_eq!(
        derived["front"]["scope"],
        serde_json::json!(["build/ci.sh"])
    );
    assert_eq!(
        derived["front"]["plan_revision"],
        started["task"]["plan_revision"]
    );
    assert!(derived["front"]["plan_revision"].is_string(), "{derived}");
    assert_eq!(resolve(&repo)["answer"], "unchanged");

    // An intent now claims the paths: the maintenance work serves a plan.
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace(
            "paths: [\"src/parser/**\"]",
            "paths: [\"src/parser/**\", \"build/**\"]",
        ),
    );
    let answer = resolve(&repo);
    assert_eq!(answer["answer"], "plan_changed", "{answer}");
}

#[test]
fn resolve_exit_codes_tell_unchanged_unknown_and_moved_apart() {
    let (repo, _, _) = bound_task();
    repo.run(&["handover", "--derive"]).success();
    repo.run(&["handover", "--resolve"]).expect_code(0);
    repo.write(".ai/repo/intents/parser.yaml", "id: parser\nstatus: [\n");
    let run = repo.run(&["handover", "--resolve"]).expect_code(3);
    assert!(run.stdout().starts_with("unknown: "), "{run}");
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace("consider error recovery", "consider error recovery first"),
    );
    let run = repo.run(&["handover", "--resolve"]).expect_code(11);
    assert!(run.stdout().starts_with("plan_changed: "), "{run}");
}

#[test]
fn a_criterion_change_moves_the_plan_revision() {
    let (repo, _, _) = bound_task();
    repo.run(&["handover", "--derive"]).success();
    repo.write(
        ".ai/repo/intents/parser.yaml",
        &INTENT.replace("parses 1 MB in under 10 ms", "parses 1 MB in under 5 ms"),
    );
    assert_eq!(resolve(&repo)["answer"], "plan_changed");
}

#[test]
fn the_briefing_shows_the_last_handover_and_its_next_action() {
    let (repo, _, task) = bound_task();
    repo.run(&["checkpoint", "halfway through the lexer"])
        .success();
    repo.run(&["handover", "--derive"]).success();
    let briefing = repo.run(&["briefing"]).success();
    assert!(
        briefing.stdout().contains(&format!(
            "  next: [candidate handover] ⟪continue task {task}: Port the parser"
        )),
        "{briefing}"
    );
    assert!(
        briefing
            .stdout()
            .contains("  next: [candidate handover] ⟪where it stood: halfway through the lexer⟫"),
        "{briefing}"
    );
}

#[test]
fn resolving_with_no_handover_says_how_to_make_one() {
    let repo = TestRepo::initialised();
    let error = repo
        .run(&["--format", "json", "handover", "--resolve"])
        .json_error(3, "handover.known");
    assert_eq!(error["fix"], "majordomus handover --derive");
    let usage = repo.run(&["handover"]);
    assert_eq!(usage.code(), 2, "{usage}");
}

#[test]
fn handover_sections_follow_the_policy_and_a_name_without_a_writer_is_refused() {
    let (repo, episode, _) = bound_task();
    repo.write_policy("handover:\n  sections: [next_action, done]\n");
    repo.run(&["handover", "--derive"]).success();
    let text = repo.read(&format!(".ai/local/state/handovers/{episode}.md"));
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings, ["## Next Action", "## Done"]);

    repo.write_policy("handover:\n  sections: [done, gossip]\n");
    let error = repo
        .run(&["--format", "json", "handover", "--derive"])
        .json_error(3, "policy.record-section-writer");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("handover.sections names `gossip`")),
        "{error}"
    );
}

#[test]
fn a_finished_task_becomes_knowledge_with_its_commits_and_files() {
    let (repo, episode, task) = bound_task();
    repo.commit("src/parser/nom.rs", "//! nom\n", "Port to nom");
    let ported = repo.head();
    repo.commit("README.md", "# parser\n", "Mention the parser");
    let finished = repo.run(&["task", "finish"]).success();
    assert!(
        finished.stderr().contains(
            "note: the task's commits changed files outside its scope (src/parser/**): README.md"
        ),
        "{finished}"
    );
    let note = repo.read(&format!(".ai/local/state/completed/{task}.md"));
    assert!(note.contains("## Outside the scope\n- README.md"), "{note}");
    repo.run(&["session", "close"]).success();
    let record = repo.read(&format!(".ai/repo/sessions/{episode}.md"));
    assert!(record.contains(&format!("tasks:\n- {task}")), "{record}");
    assert!(
        record.contains(&format!("- {task} Port the parser (completed)")),
        "{record}"
    );
    let fact = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .map(|id| repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md")))
        .find(|t| t.contains("Completed: Port the parser"))
        .expect("a fact from the finished task");
    assert!(fact.contains("class: fact"), "{fact}");
    assert!(fact.contains(&format!("- task:{task}")), "{fact}");
    assert!(fact.contains(&format!("- commit:{ported}")), "{fact}");
    assert!(fact.contains("- file:src/parser/nom.rs"), "{fact}");
    assert!(!fact.contains("README.md"), "outside the scope: {fact}");
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Records"]);
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn a_blocked_task_becomes_a_lesson_with_its_reason() {
    let (repo, _, task) = bound_task();
    repo.run(&[
        "task",
        "finish",
        "--status",
        "blocked",
        "--reason",
        "nom 8 is not released",
    ])
    .success();
    let list = repo
        .run(&["--format", "json", "task", "list"])
        .success()
        .json();
    assert_eq!(list["tasks"][0]["state"], "blocked");
    assert_eq!(list["tasks"][0]["reason"], "nom 8 is not released");
    repo.run(&["session", "close"]).success();
    let lesson = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .map(|id| repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md")))
        .find(|t| t.contains("class: lesson"))
        .expect("a lesson");
    assert!(lesson.contains("nom 8 is not released"), "{lesson}");
    assert!(lesson.contains(&format!("- task:{task}")), "{lesson}");
}

#[test]
fn derive_for_an_episode_this_ledger_never_knew_prints_a_fix_that_lists_the_episodes() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    repo.run(&["session", "close"]).success();
    let unknown = "20261130T090000Z-abcdef";
    let run = repo.run(&["handover", "--derive", "--episode", unknown]);
    run.assert_human_error(3, "no ledger line carries this episode");
    repo.run(&[
        "--format",
        "json",
        "handover",
        "--derive",
        "--episode",
        unknown,
    ])
    .json_error(3, "knowledge.episode");
    let fixes = crate::common::fix_lines(run.stderr());
    assert_eq!(fixes, ["majordomus session list"], "{run}");
    // As printed, it lists the episode the handover can be derived for.
    let listed = repo.run_printed(&fixes[0]);
    assert!(listed.contains(&episode), "{listed}");
    repo.run(&["handover", "--derive", "--episode", &episode])
        .success();
}
