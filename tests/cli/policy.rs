//! `.ai/repo/policy.yaml`: every key optional, unknown keys refused by name, malformed YAML
//! an error naming the file and line, wrong values refused by key.

use crate::common::{TestRepo, sections, split_record};

/// Runs `session start` against `policy`, which must refuse with `code`; checks nothing
/// was opened and returns the human run.
#[track_caller]
fn start_refused(policy: &str, code: i32, needle: &str) -> crate::common::Run {
    let repo = TestRepo::initialised();
    repo.write_policy(policy);
    let run = repo.run(&["session", "start"]);
    run.assert_human_error(code, needle);
    assert!(repo.episode_state().is_none(), "an episode opened: {run}");
    assert_eq!(
        repo.ledger_text_if_any(),
        None,
        "the refusal made a ledger: {run}"
    );
    run
}

#[test]
fn an_unknown_nested_key_is_refused_by_name() {
    let run = start_refused(
        "session:\n  knowledge_on_start: true\n",
        3,
        "unknown key `session.knowledge_on_start`",
    );
    let lines: Vec<&str> = run.stderr().lines().collect();
    assert_eq!(lines.len(), 2, "{run}");
    assert_eq!(
        lines[0],
        "majordomus: .ai/repo/policy.yaml: unknown key `session.knowledge_on_start`"
    );
    assert!(
        lines[1].starts_with("fix: remove `session.knowledge_on_start` from .ai/repo/policy.yaml"),
        "{run}"
    );
    assert!(
        lines[1].contains("session.knowledge_on_end"),
        "fix lists the known keys: {run}"
    );
}

#[test]
fn an_unknown_top_level_key_is_refused_by_name() {
    let run = start_refused("colour: blue\n", 3, "unknown key `colour`");
    assert!(
        run.stderr()
            .contains("\nfix: remove `colour` from .ai/repo/policy.yaml"),
        "{run}"
    );
}

#[test]
fn an_unknown_key_is_refused_in_json() {
    let repo = TestRepo::initialised();
    repo.write_policy("session:\n  knowledge_on_start: true\n");
    let error = repo
        .run(&["--format", "json", "session", "start"])
        .json_error(3, "policy.known-keys");
    assert_eq!(
        error["message"],
        ".ai/repo/policy.yaml: unknown key `session.knowledge_on_start`"
    );
    assert!(
        error["fix"]
            .as_str()
            .is_some_and(|f| f.contains("session.knowledge_on_start")),
        "{error}"
    );
}

#[test]
fn malformed_yaml_is_an_error_naming_the_file_and_line() {
    let policy = "session:\n  record_sections: [summary\n  knowledge_on_end: true\n";
    let run = start_refused(policy, 1, ".ai/repo/policy.yaml");
    let first = run.stderr().lines().next().unwrap_or_default();
    assert!(first.contains("line 3"), "{run}");
    assert!(
        run.stderr()
            .contains("fix: correct the YAML at .ai/repo/policy.yaml line 3"),
        "{run}"
    );

    let repo = TestRepo::initialised();
    repo.write_policy(policy);
    let error = repo
        .run(&["--format", "json", "session", "start"])
        .json_error(1, "policy.readable");
    let message = error["message"].as_str().expect("message");
    assert!(
        message.contains(".ai/repo/policy.yaml") && message.contains("line 3"),
        "{error}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_refused_by_key() {
    for (policy, key) in [
        (
            "session:\n  briefing_budget_lines: many\n",
            "session.briefing_budget_lines",
        ),
        ("session.knowledge_on_end: 3\n", "session.knowledge_on_end"),
        ("intent:\n  binding: sometimes\n", "intent.binding"),
        (
            "session:\n  record_sections: summary\n",
            "session.record_sections",
        ),
        // A section heading with a scalar instead of its keys.
        ("session: 5\n", "session"),
    ] {
        let run = start_refused(policy, 3, &format!("key `{key}` must be"));
        assert!(run.stderr().contains("\nfix: "), "{run}");

        let repo = TestRepo::initialised();
        repo.write_policy(policy);
        repo.run(&["--format", "json", "session", "start"])
            .json_error(3, "policy.value");
    }
}

#[test]
fn a_record_section_without_a_writer_refuses_the_start_too() {
    let run = start_refused(
        "session: {record_sections: [summary, notes]}\n",
        3,
        "`notes`",
    );
    assert!(run.stderr().contains("no writer"), "{run}");
}

#[test]
fn a_bad_policy_stops_writers_while_readers_still_read_and_doctor_reports_it() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "All git reads go through gix"])
        .success();
    repo.write_policy("colour: blue\n");

    // Read-only commands read, with the defaults, and say so.
    for args in [
        &["history"][..],
        &["knowledge", "check"][..],
        &["knowledge", "candidates"][..],
        &["session", "context"][..],
        &["env"][..],
    ] {
        repo.run(args).success();
    }
    let briefing = repo.run(&["briefing"]).success();
    assert!(
        briefing
            .stderr()
            .contains("note: the policy cannot be read, so the defaults were used"),
        "{briefing}"
    );
    let json = repo.run(&["--format", "json", "briefing"]).success().json();
    assert!(
        json["policy_error"]
            .as_str()
            .is_some_and(|e| e.contains("colour")),
        "{json}"
    );

    // doctor reports a blocking policy.valid finding and runs what needs no policy.
    let report = repo
        .run(&["--format", "json", "doctor"])
        .expect_code(10)
        .json();
    let rules = report["rules"].as_array().expect("rules");
    let valid = rules
        .iter()
        .find(|r| r["rule"] == "majordomus.policy-valid")
        .expect("the policy rule");
    assert_eq!(valid["findings"][0]["rule"], "policy.valid");
    assert_eq!(valid["findings"][0]["severity"], "blocking");
    assert!(
        valid["findings"][0]["fix"]
            .as_str()
            .is_some_and(|f| f.contains("remove `colour`")),
        "{valid}"
    );
    for rule in rules {
        let expected = match rule["rule"].as_str() {
            Some("majordomus.policy-valid") => "fail",
            Some(
                "majordomus.knowledge-observed"
                | "majordomus.candidates-reviewed"
                | "majordomus.journal-pushed"
                | "majordomus.advisors-available"
                | "project.advisors-are-optional",
            ) => "skipped",
            _ => "pass",
        };
        assert_eq!(rule["status"], expected, "{rule}");
    }

    // Writers refuse: their behaviour depends on the policy.
    repo.run(&["--format", "json", "session", "close"])
        .json_error(3, "policy.known-keys");
    // The printed fix works.
    repo.write_policy("");
    repo.run(&["doctor"]).success();
}

#[test]
fn empty_dotted_and_partial_policies_are_accepted() {
    for policy in [
        "",
        "# only a comment\n",
        "session.knowledge_on_end: false\n",
        "session:\n  briefing_budget_lines: 10\n",
        "ledger:\n  retention_days: 30\n",
    ] {
        let repo = TestRepo::initialised();
        repo.write_policy(policy);
        let run = repo.run(&["session", "start"]);
        assert_eq!(run.code(), 0, "policy {policy:?} refused: {run}");
    }
}

#[test]
fn an_empty_record_sections_list_is_refused() {
    // A record is never empty (SPEC §3.2), so no sections at all is a wrong value.
    for policy in [
        "session:\n  record_sections: []\n",
        "session.record_sections: []\n",
    ] {
        let run = start_refused(policy, 3, "key `session.record_sections` must be");
        assert!(run.stderr().contains("non-empty"), "{run}");
        assert!(
            run.stderr()
                .contains("\nfix: set `session.record_sections` in .ai/repo/policy.yaml"),
            "{run}"
        );

        let repo = TestRepo::initialised();
        repo.write_policy(policy);
        repo.run(&["--format", "json", "session", "start"])
            .json_error(3, "policy.value");
    }

    // An episode opened under a good policy is not closed under the empty list either.
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.write_policy("session:\n  record_sections: []\n");
    repo.run(&["--format", "json", "session", "close"])
        .json_error(3, "policy.value");
    assert_eq!(repo.episode_id(), id, "the episode stays open");
    assert!(!repo.exists(&format!(".ai/repo/sessions/{id}.md")));
    assert!(repo.ledger_events("session.closed").is_empty());
}

#[test]
fn a_section_whose_keys_are_all_commented_out_is_the_defaults() {
    // The skeleton's policy with every key commented out, section headings left as they are:
    // each heading then holds nothing, which is its defaults.
    let repo = TestRepo::initialised();
    let skeleton = repo.read(".ai/repo/policy.yaml");
    let commented: String = skeleton
        .lines()
        .map(|line| match line.strip_prefix("  ") {
            Some(key) if !key.trim_start().starts_with('#') => format!("  # {key}\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    assert!(commented.contains("\nsession:\n"), "{commented}");
    assert!(
        !commented
            .lines()
            .any(|l| l.starts_with("  ") && !l.trim_start().starts_with('#')),
        "a key was left: {commented}"
    );
    for policy in [
        commented.as_str(),
        "session:\n  # knowledge_on_end: false\n",
        "session:\n",
    ] {
        let repo = TestRepo::initialised();
        repo.write_policy(policy);
        let id = repo.start_episode();
        repo.run(&["decision", "Defaults apply"]).success();
        // The defaults: every record section, and derivation at close.
        let json = repo
            .run_without_stdin(&["--format", "json", "session", "close"])
            .success()
            .json();
        let (_, _, body) = split_record(&repo.read(&format!(".ai/repo/sessions/{id}.md")));
        let titles: Vec<String> = sections(&body).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            titles,
            [
                "Summary",
                "Decisions",
                "Questions",
                "Checkpoints",
                "Commits",
                "Files",
                "Tasks",
                "Agent",
                "Outcome"
            ],
            "policy {policy:?}"
        );
        assert_eq!(
            json["derived"]["written"].as_array().map(Vec::len),
            Some(1),
            "policy {policy:?}: {json}"
        );
    }
}

#[test]
fn a_byte_order_mark_before_the_policy_is_tolerated() {
    let repo = TestRepo::initialised();
    repo.write_policy("\u{feff}session:\n  knowledge_on_end: false\n");
    repo.run(&["doctor"]).success();
    repo.start_episode();
    repo.run(&["decision", "Keep the BOM"]).success();
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    // The key after the mark is read: nothing was derived at the close.
    assert_eq!(closed["derived"], serde_json::Value::Null, "{closed}");
}
