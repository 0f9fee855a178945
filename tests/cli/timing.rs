//! `MAJORDOMUS_TIMING=1` (docs/RELIABILITY.md): phase timings and counters on stderr, one
//! line a phase, for `knowledge derive`, `knowledge check`, `doctor` and the hooks, and one
//! phase named after the operation for every operation the registry runs (on every
//! surface); stdout is the same byte for byte, and unset nothing is printed.

use std::sync::LazyLock;

use regex::Regex;

use crate::common::{Run, TestRepo};

/// `timing: <phase> <ms>ms [<counter>=<n>]...`
static PHASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^timing: ([a-z0-9._-]+) \d+\.\dms((?: [a-z_]+=\d+)*)$").expect("valid regex")
});

/// The phases `run` printed, each with its counters, in order; panics on a timing line of
/// another shape.
fn phases(run: &Run) -> Vec<(String, String)> {
    run.stderr()
        .lines()
        .filter(|l| l.starts_with("timing:"))
        .map(|l| {
            let caps = PHASE
                .captures(l)
                .unwrap_or_else(|| panic!("a timing line of another shape: {l:?}"));
            (caps[1].to_owned(), caps[2].trim().to_owned())
        })
        .collect()
}

/// A repository with a closed episode (two candidates) and an open one with a commit.
fn worked() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "Timings go to stderr"]).success();
    repo.run(&["decision", "Nothing is printed unless asked"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.start_episode();
    repo.commit("src/lib.rs", "pub fn timed() {}\n", "Add the library");
    repo
}

/// Runs `args` (stdin `stdin`) twice on copies of `repo`, with and without timing:
/// stdout and the exit code are the same; only the timed run prints phases; returns them.
fn timed(repo: &TestRepo, args: &[&str], stdin: &str) -> Vec<(String, String)> {
    let plain = repo.copy().run_env(args, &[], stdin);
    let timed = repo
        .copy()
        .run_env(args, &[("MAJORDOMUS_TIMING", "1")], stdin);
    assert_eq!(timed.code(), plain.code(), "{timed}");
    assert_eq!(
        timed.stdout(),
        plain.stdout(),
        "timing never touches stdout"
    );
    assert!(
        !plain.stderr().contains("timing:"),
        "unset, nothing: {plain}"
    );
    let zero = repo
        .copy()
        .run_env(args, &[("MAJORDOMUS_TIMING", "0")], stdin);
    assert!(!zero.stderr().contains("timing:"), "0 is off: {zero}");
    // Everything on stderr besides the phases is what the untimed run printed.
    let rest: Vec<&str> = timed
        .stderr()
        .lines()
        .filter(|l| !l.starts_with("timing:"))
        .collect();
    assert_eq!(rest, plain.stderr().lines().collect::<Vec<_>>());
    phases(&timed)
}

/// The counters of `phase`, panicking when it was not printed.
fn counters<'a>(phases: &'a [(String, String)], phase: &str) -> &'a str {
    phases
        .iter()
        .find(|(p, _)| p == phase)
        .map(|(_, c)| c.as_str())
        .unwrap_or_else(|| panic!("no phase {phase} in {phases:?}"))
}

#[test]
fn knowledge_derive_prints_its_phases() {
    let repo = worked();
    let phases = timed(&repo, &["knowledge", "derive"], "");
    let names: Vec<&str> = phases.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "derive.index",
            "derive.read_ledger",
            "derive.commits",
            "derive.write",
            "derive.append",
            "derive.total",
            "knowledge.derive"
        ]
    );
    assert!(
        counters(&phases, "derive.read_ledger").starts_with("lines=1"),
        "{phases:?}"
    );
    assert_eq!(counters(&phases, "derive.commits"), "commits=1");
    assert_eq!(
        counters(&phases, "derive.write"),
        "written=0 unchanged=0 skipped=0 reviewed=0"
    );
}

#[test]
fn knowledge_check_prints_its_phases() {
    let repo = worked();
    let phases = timed(&repo, &["knowledge", "check"], "");
    let names: Vec<&str> = phases.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "check.read_records",
            "check.baseline",
            "check.parse",
            "check.resolve",
            "check.judge",
            "check.total",
            "knowledge.check"
        ]
    );
    assert_eq!(
        counters(&phases, "check.read_records"),
        "records=2 session_records=1"
    );
    assert_eq!(counters(&phases, "check.judge"), "findings=0");
}

#[test]
fn doctor_prints_a_phase_per_rule() {
    let repo = worked();
    let phases = timed(&repo, &["doctor"], "");
    let names: Vec<&str> = phases.iter().map(|(p, _)| p.as_str()).collect();
    for rule in [
        "doctor.index",
        "doctor.policy-valid",
        "doctor.knowledge-observed",
        "doctor.knowledge-integrity",
        "doctor.candidates-reviewed",
        "doctor.ledger-health",
        "doctor.outbox-empty",
        "doctor.provider-events",
        "doctor.temp-files",
        "doctor.total",
    ] {
        assert!(names.contains(&rule), "{rule} missing from {names:?}");
    }
    // The operation's own phase, which the registry times, ends the run.
    assert_eq!(names.last(), Some(&"doctor"));
    assert_eq!(names[names.len() - 2], "doctor.total");
    // The integrity rule runs knowledge check: its phases nest inside.
    assert!(names.contains(&"check.judge"), "{names:?}");
    assert_eq!(
        counters(&phases, "doctor.temp-files"),
        "removed=0 findings=0"
    );
}

#[test]
fn hooks_print_their_phase() {
    let repo = worked();
    let phases = timed(&repo, &["hook", "post-commit"], "");
    assert_eq!(
        phases.last().map(|(p, _)| p.as_str()),
        Some("hook.post-commit")
    );
    let line = format!(
        "refs/heads/main {} refs/heads/main {}\n",
        repo.head(),
        "0".repeat(40)
    );
    let phases = timed(&repo, &["hook", "pre-push", "origin", "url"], &line);
    let names: Vec<&str> = phases.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names.last(), Some(&"hook.pre-push"), "{names:?}");
    assert!(names.contains(&"check.judge"), "{names:?}");
    let payload = r#"{"session_id": "s", "hook_event_name": "PreCompact"}"#;
    let phases = timed(
        &repo,
        &["hook", "compact", "--provider", "example-agent"],
        payload,
    );
    let names: Vec<&str> = phases.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names.last(), Some(&"hook.compact"), "{names:?}");
    assert!(names.contains(&"derive.write"), "{names:?}");
}

/// The CLI runs an operation through its registry entry: every command's last phase is the
/// operation's name, timed by the registry, as it is when MCP calls the same operation.
/// Every operation of the registry runs, from its CLI command, with a valid request, in
/// the order of the contract test's script (tests/cli/contract.rs), where each finds what
/// it needs; none is left out.
#[test]
fn every_command_is_timed_under_its_operation_name_as_over_mcp() {
    let registry = majordomus::ops::Registry::standard();
    let (runs, problems) = crate::contract::timed_cli_runs();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let mut timed = std::collections::BTreeSet::new();
    for (operation, run) in &runs {
        let phases = phases(run);
        assert_eq!(
            phases.last().map(|(p, _)| p.as_str()),
            Some(*operation),
            "{run}"
        );
        timed.insert(*operation);
    }
    let every: std::collections::BTreeSet<&str> = registry.iter().map(|op| op.name).collect();
    assert_eq!(
        timed, every,
        "every operation of the registry, timed by its name"
    );

    let repo = worked();
    let mut mcp = crate::mcp::Mcp::start_env(&repo, &[("MAJORDOMUS_TIMING", "1")]);
    let result = mcp.call(
        "majordomus_decision_record",
        serde_json::json!({"text": "Timed over MCP"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let stderr = mcp.close();
    assert!(
        stderr.iter().any(|l| PHASE
            .captures(l)
            .is_some_and(|c| &c[1] == "decision.record")),
        "{stderr:?}"
    );
}
