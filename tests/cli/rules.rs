//! The rule set doctor runs (SPEC §5.5): the vendored package (`init`, `rules vendor
//! update`), project rules, rules with no check refused by name; and the two rules of
//! step 5, stale knowledge and intent validation.

use serde_json::Value;

use crate::common::{TestRepo, knowledge_record};
use crate::doctor::rule;

const VENDORED: &str = ".ai/repo/rules/vendor/majordomus.yaml";
const STANDARD: &str = include_str!("../../share/standard/rules/majordomus.yaml");
const EPISODE: &str = "20261130T100000Z-abcdef";

/// `doctor --format json`, expecting exit `code`.
#[track_caller]
fn doctor(repo: &TestRepo, code: i32) -> Value {
    repo.run(&["--format", "json", "doctor"])
        .expect_code(code)
        .json()
}

/// The rule ids of a doctor report, in order.
fn rule_ids(report: &Value) -> Vec<String> {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["rule"].as_str().expect("rule").to_owned())
        .collect()
}

/// The ids the standard package declares, in order.
fn standard_ids() -> Vec<String> {
    STANDARD
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- id: "))
        .map(str::to_owned)
        .collect()
}

/// Runs a printed `fix:` line in the work tree; panics unless it succeeds.
#[track_caller]
fn run_fix(repo: &TestRepo, fix: &str) {
    let out = repo.sh_in(repo.root(), fix);
    assert!(
        out.status.success(),
        "the fix `{fix}` failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// --- The vendored package --------------------------------------------------------------

#[test]
fn init_vendors_the_standard_package_and_never_overwrites_it() {
    let repo = TestRepo::initialised();
    assert_eq!(repo.read(VENDORED), STANDARD);
    assert_eq!(
        repo.git(&["ls-files", VENDORED]),
        VENDORED,
        "the vendored copy is tracked"
    );
    let report = doctor(&repo, 0);
    let set = rule(&report, "majordomus.rule-set");
    assert_eq!(set["status"], "pass");
    assert_eq!(set["note"], Value::Null, "{set}");
    let mut expected = vec!["majordomus.rule-set".to_owned()];
    expected.extend(standard_ids());
    // An adopter's doctor says the advisors-are-optional checks do not run.
    expected.push("project.advisors-are-optional".to_owned());
    assert_eq!(rule_ids(&report), expected);
    assert!(
        report["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .skip(1)
            .filter(|r| r["rule"] != "project.advisors-are-optional")
            .all(|r| r["declared_in"] == VENDORED),
        "{report}"
    );

    // init keeps an existing copy, like every skeleton file.
    let edited = STANDARD.replace("severity: advisory", "severity: blocking");
    repo.write(VENDORED, &edited);
    let run = repo.run(&["init"]).success();
    assert!(
        run.stdout().contains(&format!("  kept     {VENDORED}\n")),
        "{run}"
    );
    assert_eq!(repo.read(VENDORED), edited);
}

#[test]
fn vendor_update_says_unchanged_when_the_copy_is_this_versions() {
    let repo = TestRepo::initialised();
    let before = repo.files();
    let run = repo.run(&["rules", "vendor", "update"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "{VENDORED}: unchanged (already the package of majordomus {})\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let json = repo
        .run(&["--format", "json", "rules", "vendor", "update"])
        .success()
        .json();
    assert_eq!(json["write"], "unchanged");
    assert_eq!(json["previous"], "readable");
    assert_eq!(json["added"], serde_json::json!([]));
    assert_eq!(json["removed"], serde_json::json!([]));
    assert_eq!(json["changed"], serde_json::json!([]));
    assert_eq!(
        crate::common::changed_files(&before, &repo.files()),
        Vec::<String>::new(),
        "an unchanged update writes nothing"
    );
}

#[test]
fn vendor_update_names_the_rules_it_adds_removes_and_changes() {
    let repo = TestRepo::initialised();
    // An older copy: without knowledge-stale, ledger-health blocking, and a rule this
    // version no longer has.
    let stale_decl = STANDARD
        .split("  - id: ")
        .find(|d| d.starts_with("majordomus.knowledge-stale"))
        .expect("the package declares knowledge-stale");
    let older = STANDARD
        .replace(&format!("  - id: {stale_decl}"), "")
        .replace(
            "  - id: majordomus.ledger-health\n    severity: advisory",
            "  - id: majordomus.ledger-health\n    severity: blocking",
        )
        + "  - id: majordomus.retired-rule\n    severity: advisory\n    description: Gone.\n";
    repo.write(VENDORED, &older);
    repo.git(&["commit", "-q", "-am", "An older vendored package"]);

    // doctor says the copy differs, refuses the rule it has no check for, and runs the
    // vendored declarations (ledger health blocking, no knowledge-stale).
    let report = doctor(&repo, 10);
    let set = rule(&report, "majordomus.rule-set");
    let note = set["note"].as_str().expect("a note");
    assert!(
        note.contains("the vendored package differs from the one built into majordomus")
            && note.contains("this version adds majordomus.knowledge-stale")
            && note.contains("this version removes majordomus.retired-rule")
            && note.contains("this version changes majordomus.ledger-health"),
        "{note}"
    );
    assert_eq!(set["findings"][0]["rule"], "rules.known");
    assert_eq!(set["findings"][0]["file"], VENDORED);
    assert!(
        set["findings"][0]["message"]
            .as_str()
            .expect("message")
            .starts_with("rule `majordomus.retired-rule`: majordomus "),
        "{set}"
    );
    assert!(!rule_ids(&report).contains(&"majordomus.knowledge-stale".to_owned()));
    assert_eq!(
        rule(&report, "majordomus.ledger-health")["severity"],
        "blocking"
    );

    let run = repo.run(&["rules", "vendor", "update"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "{VENDORED}: updated to the package of majordomus {0}\n  added    majordomus.knowledge-stale\n  removed  majordomus.retired-rule\n  changed  majordomus.ledger-health\nnext: git add {VENDORED} && git commit -m \"Vendor the majordomus {0} rules\"\n  (every clone then checks against it)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(repo.read(VENDORED), STANDARD);
    // The next step commits as printed: no editor opens.
    for next in crate::common::next_lines(run.stdout()) {
        repo.run_printed(&next);
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let report = doctor(&repo, 0);
    assert_eq!(rule(&report, "majordomus.rule-set")["note"], Value::Null);
}

#[test]
fn the_fix_for_a_vendored_rule_with_no_check_works() {
    let repo = TestRepo::initialised();
    repo.write(
        VENDORED,
        &format!(
            "{STANDARD}  - id: majordomus.from-the-future\n    severity: blocking\n    description: A check a newer majordomus has.\n"
        ),
    );
    let run = repo.run(&["doctor"]).expect_code(10);
    let fix = run
        .stdout()
        .lines()
        .find_map(|l| l.trim().strip_prefix("fix: "))
        .expect("a fix line");
    assert!(fix.starts_with("majordomus rules vendor update"), "{run}");
    // The command part of the line (before the parenthesis explaining it) is what runs.
    run_fix(&repo, fix.split(" (").next().expect("a command"));
    repo.run(&["doctor"]).success();
}

#[test]
fn doctor_runs_the_built_in_package_when_nothing_is_vendored_and_says_so() {
    let repo = TestRepo::initialised();
    repo.git(&["rm", "-q", VENDORED]);
    repo.git(&[
        "commit",
        "-q",
        "-m",
        "A repository initialised before vendoring",
    ]);
    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().starts_with(&format!(
            "ok   majordomus.rule-set\n     nothing is vendored ({VENDORED} is missing): ran the package built into majordomus {}; `majordomus rules vendor update` vendors it\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{run}"
    );
    let report = doctor(&repo, 0);
    let mut expected = vec!["majordomus.rule-set".to_owned()];
    expected.extend(standard_ids());
    // An adopter's doctor says the advisors-are-optional checks do not run.
    expected.push("project.advisors-are-optional".to_owned());
    assert_eq!(rule_ids(&report), expected);
    assert_eq!(
        rule(&report, "majordomus.policy-valid")["declared_in"],
        "share/standard/rules/majordomus.yaml (built into majordomus)"
    );

    // The command the note names vendors it.
    let run = repo.run(&["rules", "vendor", "update"]).success();
    assert!(
        run.stdout()
            .starts_with(&format!("{VENDORED}: vendored the package of majordomus")),
        "{run}"
    );
    for id in standard_ids() {
        assert!(
            run.stdout().contains(&format!("  added    {id}\n")),
            "{run}"
        );
    }
    assert_eq!(repo.read(VENDORED), STANDARD);
    assert_eq!(
        rule(&doctor(&repo, 0), "majordomus.rule-set")["note"],
        Value::Null
    );
}

#[test]
fn an_unreadable_vendored_copy_blocks_and_the_built_in_package_runs_meanwhile() {
    let repo = TestRepo::initialised();
    repo.write(
        VENDORED,
        &STANDARD.replace("    drift: true\n", "    drift: true\n    watched: yes\n"),
    );
    let report = doctor(&repo, 10);
    let set = rule(&report, "majordomus.rule-set");
    assert_eq!(set["status"], "fail");
    let finding = &set["findings"][0];
    assert_eq!(finding["rule"], "rules.readable");
    assert_eq!(finding["file"], VENDORED);
    assert!(
        finding["message"]
            .as_str()
            .expect("message")
            .starts_with("unknown key `watched` at line "),
        "{finding}"
    );
    assert!(
        set["note"]
            .as_str()
            .expect("note")
            .contains("the vendored package cannot be read: ran the package built into majordomus"),
        "{set}"
    );
    assert_eq!(rule_ids(&report).len(), 2 + standard_ids().len());

    let json = repo
        .run(&["--format", "json", "rules", "vendor", "update"])
        .success()
        .json();
    assert_eq!(json["previous"], "unreadable");
    assert!(
        json["previous_error"]
            .as_str()
            .is_some_and(|e| e.contains("watched")),
        "{json}"
    );
    doctor(&repo, 0);
}

// --- Project rules -----------------------------------------------------------------------

#[test]
fn a_project_rule_with_no_check_is_refused_by_name_and_removing_it_clears_it() {
    let repo = TestRepo::initialised();
    let file = ".ai/repo/rules/project/team.yaml";
    repo.write(
        file,
        "# The team's rules.\nrules:\n  - id: project.no-friday-deploys\n    severity: advisory\n    description: No deploys on a Friday.\n",
    );
    let run = repo.run(&["doctor"]).expect_code(10);
    assert!(
        run.stdout().starts_with(&format!(
            "FAIL majordomus.rule-set\n     BLOCK {file} [rules.known] rule `project.no-friday-deploys`: majordomus {} has no check for it, so it cannot be run (known rules: majordomus.policy-valid, ",
            env!("CARGO_PKG_VERSION")
        )),
        "{run}"
    );
    assert!(
        run.stdout().contains(&format!(
            "       fix: remove rule `project.no-friday-deploys` from {file}, or update majordomus to a version that checks it\n"
        )),
        "{run}"
    );
    // The rest of the set still ran.
    let report = doctor(&repo, 10);
    assert_eq!(report["blocking"], 1);
    assert_eq!(rule_ids(&report).len(), 2 + standard_ids().len());
    // watch runs the same rule set: it refuses it too.
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 10);

    // The fix, by hand: remove the rule (the file may stay, declaring nothing).
    repo.write(file, "# The team's rules.\nrules:\n");
    doctor(&repo, 0);
}

#[test]
fn a_project_file_is_parsed_strictly() {
    let repo = TestRepo::initialised();
    let file = ".ai/repo/rules/project/team.yaml";
    for (text, needle) in [
        (
            "rules:\n  - id: majordomus.ledger-health\n    severity: blocking\n    description: x\n    sevrity: advisory\n",
            "unknown key `sevrity` at line 5",
        ),
        ("rule:\n  - id: x\n", "unknown key `rule`"),
        (
            "rules:\n  - id: majordomus.ledger-health\n    severity: blocking\n",
            "description",
        ),
        (
            "rules:\n  - id: majordomus.ledger-health\n    severity: loud\n    description: x\n",
            "loud",
        ),
        ("rules: [\n", "at line 2"),
    ] {
        repo.write(file, text);
        let report = doctor(&repo, 10);
        let finding = &rule(&report, "majordomus.rule-set")["findings"][0];
        assert_eq!(finding["rule"], "rules.readable", "{text}");
        assert_eq!(finding["file"], file);
        assert!(
            finding["message"]
                .as_str()
                .is_some_and(|m| m.contains(needle)),
            "{needle}: {finding}"
        );
    }
}

#[test]
fn a_project_rule_replaces_the_package_declaration_of_its_id() {
    let repo = TestRepo::initialised();
    let file = ".ai/repo/rules/project/strict.yaml";
    repo.write(
        file,
        "rules:\n  - id: majordomus.intent-validated\n    severity: advisory\n    description: Plans are validated, and only warned about while we adopt intents.\n",
    );
    // Work began on an intent nobody critiqued.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        "id: auth\nstatus: active\nstatement: Sign-in works.\ncriteria:\n  - id: c1\n    text: A user signs in.\nissues:\n  - id: login\n    title: Login form\n    status: active\n    paths: [src/auth/**]\n    serves: [c1]\n",
    );
    let report = doctor(&repo, 0);
    let validated = rule(&report, "majordomus.intent-validated");
    assert_eq!(validated["severity"], "advisory");
    assert_eq!(validated["declared_in"], file);
    assert_eq!(
        validated["note"],
        format!("declared in {file}, replacing the declaration in {VENDORED}").as_str()
    );
    assert_eq!(validated["findings"][0]["rule"], "intent.critiqued");
    assert_eq!(validated["findings"][0]["severity"], "advisory");
    assert_eq!(report["advisory"], 1);

    // Without the project file the package's declaration (blocking) applies.
    std::fs::remove_file(repo.path(file)).expect("remove the project file");
    let report = doctor(&repo, 10);
    assert_eq!(
        rule(&report, "majordomus.intent-validated")["findings"][0]["severity"],
        "blocking"
    );
}

#[test]
fn an_id_declared_in_two_project_files_is_a_finding_and_the_first_runs() {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/rules/project/a.yaml",
        "rules:\n  - id: majordomus.ledger-health\n    severity: blocking\n    description: From a.\n",
    );
    repo.write(
        ".ai/repo/rules/project/b.yaml",
        "rules:\n  - id: majordomus.ledger-health\n    severity: advisory\n    description: From b.\n",
    );
    let report = doctor(&repo, 10);
    let finding = &rule(&report, "majordomus.rule-set")["findings"][0];
    assert_eq!(finding["rule"], "rules.unique");
    assert_eq!(finding["file"], ".ai/repo/rules/project/b.yaml");
    assert_eq!(
        finding["fix"],
        "declare `majordomus.ledger-health` in one project file only: remove it from .ai/repo/rules/project/b.yaml"
    );
    let health = rule(&report, "majordomus.ledger-health");
    assert_eq!(health["description"], "From a.");
    assert_eq!(health["severity"], "blocking");
}

// --- Intent validation as a doctor rule ---------------------------------------------------

const UNCRITIQUED: &str = "id: auth\nstatus: active\nstatement: Sign-in works.\ncriteria:\n  - id: c1\n    text: A user signs in.\nissues:\n  - id: login\n    title: Login form\n    status: active\n    paths: [src/auth/**]\n    serves: [c1]\n";

#[test]
fn doctor_blocks_on_what_intent_validate_finds_and_watch_does_not_run_it() {
    let repo = TestRepo::initialised();
    let report = doctor(&repo, 0);
    assert_eq!(
        rule(&report, "majordomus.intent-validated")["note"],
        "no plan: .ai/repo/intents/ declares no intent, so there is nothing to validate"
    );

    repo.write(".ai/repo/intents/auth.yaml", UNCRITIQUED);
    let run = repo.run(&["doctor"]).expect_code(10);
    assert!(
        run.stdout().contains(
            "FAIL majordomus.intent-validated\n     BLOCK .ai/repo/intents/auth.yaml [intent.critiqued] intent auth: work began (login) without a critique\n"
        ),
        "{run}"
    );
    // The same findings as `intent validate` (which refuses, exit 3).
    let validate = repo
        .run(&["--format", "json", "intent", "validate"])
        .expect_code(3)
        .json();
    let report = doctor(&repo, 10);
    assert_eq!(
        rule(&report, "majordomus.intent-validated")["findings"],
        validate["findings"]
    );
    // Not a drift rule.
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 0);

    // A blocking finding open while work is under way.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &format!(
            "{UNCRITIQUED}critiques:\n  - commit: abc\n    findings:\n      - id: f1\n        blocking: true\n        text: Sessions never expire.\n"
        ),
    );
    let report = doctor(&repo, 10);
    let finding = &rule(&report, "majordomus.intent-validated")["findings"][0];
    assert_eq!(finding["rule"], "intent.critique-open");

    // An unreadable plan.
    repo.write(".ai/repo/intents/auth.yaml", "id: auth\nstatus: [\n");
    let report = doctor(&repo, 10);
    let finding = &rule(&report, "majordomus.intent-validated")["findings"][0];
    assert_eq!(finding["rule"], "intent.readable");
    assert_eq!(finding["file"], ".ai/repo/intents/auth.yaml");

    // Resolved: the rule passes.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &format!(
            "{UNCRITIQUED}critiques:\n  - commit: abc\n    findings:\n      - id: f1\n        blocking: true\n        text: Sessions never expire.\n        resolution: Sessions expire after 30 days.\n"
        ),
    );
    doctor(&repo, 0);
}

// --- Stale knowledge ------------------------------------------------------------------------

/// A verified record under `curated/` citing `refs`, committed; returns its path.
fn verified_record(repo: &TestRepo, n: u8, refs: &[&str]) -> String {
    let id = format!("{EPISODE}-{n:012x}");
    let path = format!(".ai/repo/knowledge/curated/{id}.md");
    repo.write(
        &path,
        &knowledge_record(
            &id,
            "verified",
            refs,
            "",
            "The parser accepts empty input.\n\n# Evidence\n\ntests/parser.rs covers it.",
        ),
    );
    path
}

#[test]
fn a_verified_record_whose_files_changed_is_named_with_the_commits_that_changed_them() {
    let repo = TestRepo::initialised();
    repo.commit("src/parser.rs", "fn parse() {}\n", "Add the parser");
    repo.commit("tests/parser.rs", "#[test] fn t() {}\n", "Test the parser");
    let record = verified_record(&repo, 1, &["file:src/parser.rs:1", "test:tests/parser.rs"]);
    repo.git(&["add", &record]);
    repo.git(&["commit", "-q", "-m", "Verify the parser claim"]);
    let verified = repo.head();
    doctor(&repo, 0);

    let first = repo.commit(
        "src/parser.rs",
        "fn parse() { todo!() }\n",
        "Rewrite the parser",
    );
    repo.commit("README.md", "# Unrelated\n", "Touch the readme");
    let second = repo.commit("src/parser.rs", "fn parse() -> u8 { 0 }\n", "Return a byte");

    let run = repo.run(&["doctor"]).success();
    let expected = format!(
        "WARN majordomus.knowledge-stale\n     WARN {record} [majordomus.knowledge-stale] verified record {EPISODE}-000000000001 was verified in {} \"Verify the parser claim\"; since then src/parser.rs changed by {} \"Return a byte\", {} \"Rewrite the parser\": if its claim still holds for them as they are now, re-verify it; if not, retire it, or supersede it by the record that replaces it (docs/RULES.md, \"Stale knowledge\")\n       fix: majordomus knowledge reverify {EPISODE}-000000000001  # if it no longer holds: majordomus knowledge retire {EPISODE}-000000000001 --reason \"<why>\", or, when a verified record replaces it, echo \"<why>\" | majordomus knowledge supersede {EPISODE}-000000000001 --by <its id>\n",
        &verified[..12],
        &second[..12],
        &first[..12]
    );
    assert!(
        run.stdout().contains(&expected),
        "{run}\nexpected:\n{expected}"
    );
    let report = doctor(&repo, 0);
    assert_eq!(report["advisory"], 1);
    assert_eq!(report["blocking"], 0);
    // Doctor only: watch does not rerun it.
    let run = repo.run(&["watch", "--max-runs", "1"]);
    assert_eq!(run.code(), 0, "{run}");
    assert!(!run.stdout().contains("knowledge-stale"), "{run}");

    // The fix, as printed (the claim still holds), then the commit its `next:` line names.
    let fix = rule(&report, "majordomus.knowledge-stale")["findings"][0]["fix"]
        .as_str()
        .expect("a fix")
        .to_owned();
    let printed = repo.run_printed(&fix);
    let head = repo.head();
    assert!(
        printed.contains(&format!(
            "re-verified {EPISODE}-000000000001 at {} ({record})\n  it was stale: src/parser.rs changed since it was verified\n",
            &head[..12]
        )),
        "{printed}"
    );
    let next = printed
        .lines()
        .find_map(|l| l.strip_prefix("next: "))
        .expect("a next line");
    assert_eq!(
        next,
        format!("git add {record} && git commit -m \"Re-verify knowledge {EPISODE}-000000000001\"")
    );
    let text = repo.read(&record);
    assert!(
        text.ends_with(&format!(
            "# Evidence\n\ntests/parser.rs covers it.\n\nRe-verified at commit {head} (2026-11-30T10:00:00Z), after src/parser.rs changed since it was verified in {}: the claim still holds.\n",
            &verified[..12]
        )),
        "{text}"
    );
    let reverified = repo.ledger_events("knowledge.reverified");
    assert_eq!(
        reverified[0]["data"],
        serde_json::json!({"id": format!("{EPISODE}-000000000001"), "path": record, "head": head, "changed": ["src/parser.rs"]})
    );
    // Until that commit, doctor reads the re-verification from the work tree: the record
    // is not stale, it waits for its commit, whose command is the finding's fix.
    assert!(
        printed.contains(
            "  doctor names it re-verified and waiting for its commit until the next line is run"
        ),
        "{printed}"
    );
    let report = doctor(&repo, 0);
    let waiting = &rule(&report, "majordomus.knowledge-stale")["findings"];
    assert_eq!(waiting.as_array().map(Vec::len), Some(1), "{waiting}");
    assert_eq!(
        waiting[0]["message"],
        format!(
            "verified record {EPISODE}-000000000001 was re-verified at {} (knowledge reverify) and waits for its commit: until then HEAD holds the record as it was verified before its files changed",
            &head[..12]
        )
    );
    assert_eq!(waiting[0]["fix"], next);
    let run = repo.run(&["doctor"]).success();
    assert!(
        !run.stdout().contains("since then src/parser.rs changed"),
        "{run}"
    );
    repo.run_printed(next);
    let report = doctor(&repo, 0);
    assert_eq!(
        rule(&report, "majordomus.knowledge-stale")["status"],
        "pass"
    );
    repo.run(&["knowledge", "check"]).success();

    // Files that change again after the re-verification make it stale again, named from
    // the commit that re-verified it.
    let third = repo.commit(
        "src/parser.rs",
        "fn parse() -> u16 { 0 }\n",
        "Return two bytes",
    );
    repo.run_printed(&fix);
    repo.commit(
        "src/parser.rs",
        "fn parse() -> u32 { 0 }\n",
        "Return four bytes",
    );
    let report = doctor(&repo, 0);
    let findings = &rule(&report, "majordomus.knowledge-stale")["findings"];
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("since then src/parser.rs changed by")),
        "{findings} (after {third})"
    );
}

#[test]
fn superseding_a_stale_record_by_hand_clears_it_and_passes_the_check() {
    let repo = TestRepo::initialised();
    repo.commit("src/parser.rs", "fn parse() {}\n", "Add the parser");
    let record = verified_record(&repo, 2, &["file:src/parser.rs"]);
    repo.git(&["add", &record]);
    repo.git(&["commit", "-q", "-m", "Verify the parser claim"]);
    repo.commit("src/parser.rs", "fn parse(x: u8) {}\n", "Take a byte");
    let report = doctor(&repo, 0);
    assert_eq!(
        rule(&report, "majordomus.knowledge-stale")["status"],
        "fail"
    );

    // The other way out the fix names: the claim no longer holds.
    let text = repo
        .read(&record)
        .replace("status: verified", "status: superseded")
        + "\n# Rejected\n\nThe parser takes a byte now; empty input is refused.\n";
    repo.write(&record, &text);
    repo.git(&["commit", "-q", "-am", "Supersede the parser claim"]);
    let report = doctor(&repo, 0);
    assert_eq!(
        rule(&report, "majordomus.knowledge-stale")["status"],
        "pass"
    );
    assert_eq!(
        rule(&report, "majordomus.knowledge-integrity")["status"],
        "pass"
    );
}

#[test]
fn stale_knowledge_compares_blobs_names_deletions_and_skips_uncommitted_records() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.commit("src/b.rs", "b\n", "Add b");
    let reverted = verified_record(&repo, 3, &["file:src/a.rs"]);
    let deleted = verified_record(&repo, 4, &["file:src/b.rs"]);
    repo.git(&["add", ".ai/repo/knowledge"]);
    repo.git(&["commit", "-q", "-m", "Verify two claims"]);
    // Changed and changed back: the same blob, not stale.
    repo.commit("src/a.rs", "a2\n", "Change a");
    repo.commit("src/a.rs", "a\n", "Change a back");
    repo.git(&["rm", "-q", "src/b.rs"]);
    repo.git(&["commit", "-q", "-m", "Remove b"]);
    let removed = repo.head();
    // A record nobody committed yet is not judged.
    let pending = verified_record(&repo, 5, &["file:src/a.rs"]);

    let report = doctor(&repo, 10);
    let stale = rule(&report, "majordomus.knowledge-stale");
    let findings = stale["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{stale}");
    assert_eq!(findings[0]["file"], deleted.as_str());
    assert!(
        findings[0]["message"]
            .as_str()
            .expect("message")
            .contains(&format!(
                "since then src/b.rs deleted by {} \"Remove b\": if its claim still holds",
                &removed[..12]
            )),
        "{stale}"
    );
    assert_eq!(
        stale["note"],
        format!(
            "1 verified record(s) not judged: {pending} (not committed yet: HEAD does not hold it)"
        )
        .as_str()
    );
    assert!(!stale.to_string().contains(&reverted), "{stale}");
    // The deleted file also breaks the record's reference (integrity, blocking).
    assert_eq!(
        rule(&report, "majordomus.knowledge-integrity")["status"],
        "fail"
    );
}

#[test]
fn a_promoted_lesson_goes_stale_when_its_files_change() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["task", "start", "Speed up the parser", "--scope", "src/"])
        .success();
    repo.commit("src/parser.rs", "fn parse() {}\n", "Try a faster parser");
    repo.run(&[
        "task",
        "finish",
        "--status",
        "blocked",
        "--reason",
        "The parser allocates per token",
    ])
    .success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the episode"]);
    let lessons: Vec<String> = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .filter(|id| {
            repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md"))
                .contains("file:src/parser.rs")
        })
        .collect();
    let [lesson] = lessons.as_slice() else {
        panic!("one candidate cites src/parser.rs: {lessons:?}");
    };
    repo.run_with_stdin(
        &["knowledge", "promote", lesson],
        "A flame graph of the parser shows one allocation per token.",
    )
    .success();
    repo.git(&["add", "-A", ".ai/repo/knowledge"]);
    repo.git(&["commit", "-q", "-m", "Promote the parser lesson"]);
    let report = doctor(&repo, 0);
    assert_eq!(
        rule(&report, "majordomus.knowledge-stale")["status"],
        "pass"
    );

    let change = repo.commit(
        "src/parser.rs",
        "fn parse() { arena() }\n",
        "Parse into an arena",
    );
    let report = doctor(&repo, 0);
    let finding = &rule(&report, "majordomus.knowledge-stale")["findings"][0];
    assert_eq!(
        finding["file"],
        format!(".ai/repo/knowledge/curated/{lesson}.md").as_str()
    );
    assert!(
        finding["message"]
            .as_str()
            .expect("message")
            .contains(&format!(
                "since then src/parser.rs changed by {} \"Parse into an arena\": if its claim still holds",
                &change[..12]
            )),
        "{finding}"
    );
}

#[test]
fn reverify_refuses_what_is_not_a_verified_record_each_with_a_fix_that_works() {
    let repo = TestRepo::initialised();
    repo.commit("src/parser.rs", "fn parse() {}\n", "Add the parser");
    let record = verified_record(&repo, 5, &["file:src/parser.rs"]);
    repo.git(&["add", &record]);
    repo.git(&["commit", "-q", "-m", "Verify the parser claim"]);
    let id = format!("{EPISODE}-000000000005");

    // Not stale: re-verified all the same, and said so.
    let run = repo
        .run_with_stdin(
            &["knowledge", "reverify", &id],
            "tests/parser.rs still passes",
        )
        .success();
    assert!(
        run.stdout().contains(
            "  it was not stale: its cited files are as they were when it was verified\n"
        ),
        "{run}"
    );
    assert!(
        repo.read(&record).ends_with(&format!(
            "Re-verified at commit {} (2026-11-30T10:00:00Z): tests/parser.rs still passes\n",
            repo.head()
        )),
        "{}",
        repo.read(&record)
    );

    // A candidate is verified by promoting it.
    let candidate = format!("{EPISODE}-000000000006");
    repo.write(
        &format!(".ai/repo/knowledge/candidates/{candidate}.md"),
        &knowledge_record(&candidate, "candidate", &[], "", "A claim."),
    );
    let error = repo
        .run(&["--format", "json", "knowledge", "reverify", &candidate])
        .json_error(3, "knowledge.reverify-verified");
    // Its fix shows the record, which says it is a candidate (to promote, not re-verify).
    let shown = repo.run_printed(error["fix"].as_str().expect("a fix"));
    assert!(
        shown.contains(&candidate) && shown.contains("candidate"),
        "{shown}"
    );
    // No such record.
    let error = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "reverify",
            &format!("{EPISODE}-00000000000f"),
        ])
        .json_error(3, "knowledge.known-id");
    let listed = repo.run_printed(error["fix"].as_str().expect("a fix"));
    assert!(listed.contains(&id), "{listed}");
    // Not an id at all: its fix lists what there is.
    let error = repo
        .run(&["--format", "json", "knowledge", "reverify", "../x"])
        .json_error(3, "id.shape");
    repo.run_printed(error["fix"].as_str().expect("a fix"));
    // Placeholder evidence: the fix says what to replace by hand, then the command to run,
    // which re-verifies (not promotes: the record is verified).
    let error = repo
        .run_with_stdin(
            &["--format", "json", "knowledge", "reverify", &id],
            "<what shows it>",
        )
        .json_error(3, "knowledge.evidence");
    // Every refusal left the record and the ledger as they were.
    assert_eq!(repo.ledger_events("knowledge.reverified").len(), 1);
    let fix = error["fix"].as_str().expect("a fix");
    let (by_hand, command) = fix.split_once(", then run: ").expect("a command");
    assert!(
        by_hand.starts_with("by hand: replace the text in angle brackets"),
        "{fix}"
    );
    assert!(
        command.ends_with(&format!("| majordomus knowledge reverify {id}")),
        "{fix}"
    );
    let replaced = regex::Regex::new("<[^>]*>")
        .expect("a regex")
        .replace_all(command, "tests/parser.rs still covers it");
    repo.run_printed(&replaced);
    assert_eq!(repo.ledger_events("knowledge.reverified").len(), 2);
    assert!(
        repo.read(&record)
            .ends_with("tests/parser.rs still covers it\n"),
        "{}",
        repo.read(&record)
    );

    // An unborn HEAD has no commit to re-verify at: its fix makes the first one.
    let unborn = TestRepo::unborn();
    unborn.run(&["init"]).success();
    let record = verified_record(&unborn, 7, &["file:README.md"]);
    unborn.write("README.md", "# readme\n");
    let id = format!("{EPISODE}-000000000007");
    let error = unborn
        .run(&["--format", "json", "knowledge", "reverify", &id])
        .json_error(3, "knowledge.reverify-head");
    unborn.run_printed(error["fix"].as_str().expect("a fix"));
    unborn.run(&["knowledge", "reverify", &id]).success();
    assert!(unborn.read(&record).contains("Re-verified at commit "));
}
