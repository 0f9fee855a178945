//! Intents and the binding (SPEC §6): `intent binding` (every status, every refusal cause
//! with advice that works, an unreadable plan of every kind), the two pins (what moves
//! them and what does not: commits, clones, worktrees) and `plan start`.

use serde_json::{Value, json};

use crate::common::TestRepo;

/// `intent.exemptions` declares `docs`; the binding is off.
pub(crate) const POLICY: &str =
    "intent:\n  exemptions:\n    - class: docs\n      description: documentation only\n";

/// Critiqued, one blocking finding resolved; `login` open, `logout` done, `docs-auth`
/// active, `accounts` shares `src/users/**` with `profile`.
pub(crate) const AUTH: &str = "id: auth
status: active
statement: People sign in and out safely.
invariants:
  - Passwords are never logged.
non_goals:
  - Single sign-on.
criteria:
  - id: c1
    text: A user signs in with a password.
    evidence:
      - file:src/auth/login.rs
      - test:tests/auth.rs
  - id: c2
    text: The sign-in flow is documented.
    evidence:
      - file:docs/auth.md
issues:
  - id: login
    title: Login form
    status: open
    paths: [src/auth/**]
    serves: [c1]
  - id: logout
    title: Logout
    status: done
    paths: [src/auth/logout.rs]
    serves: [c1]
  - id: docs-auth
    title: Document sign-in
    status: active
    paths: [docs/auth.md]
    serves: [c2]
  - id: accounts
    title: Account records
    status: open
    paths: [src/users/**]
    serves: [c1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings:
      - id: f1
        blocking: true
        text: Lockout after failed attempts is missing.
        resolution: c1 covers lockout.
";

/// Never critiqued.
const BILLING: &str = "id: billing
status: active
statement: Customers are invoiced monthly.
criteria:
  - id: b1
    text: An invoice is produced.
issues:
  - id: invoice
    title: Invoice run
    status: open
    paths: [src/billing/**]
    serves: [b1]
";

/// A blocking finding still open.
const SEARCH: &str = "id: search
status: active
statement: Search finds documents.
criteria:
  - id: s1
    text: A query returns matches.
issues:
  - id: index
    title: Build the index
    status: open
    paths: [src/search/**]
    serves: [s1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings:
      - id: f1
        blocking: true
        text: The index is never rebuilt.
";

const LEGACY: &str = "id: legacy
status: retired
statement: The old importer.
criteria:
  - id: l1
    text: Old files import.
issues:
  - id: old-import
    title: Import old files
    status: open
    paths: [src/legacy/**]
    serves: [l1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings: []
";

/// Every issue done.
const SHIPPED: &str = "id: shipped
status: active
statement: The exporter ships.
criteria:
  - id: e1
    text: Files export.
issues:
  - id: export
    title: Export files
    status: done
    paths: [src/export/**]
    serves: [e1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings: []
";

/// Shares `src/users/**` with `auth`'s `accounts`.
const PROFILE: &str = "id: profile
status: active
statement: People keep a profile.
criteria:
  - id: p1
    text: A profile shows an avatar.
issues:
  - id: avatar
    title: Avatar upload
    status: open
    paths: [src/users/**]
    serves: [p1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567
    findings: []
";

const MILESTONES: &str = "milestones:\n  - id: upkeep\n    paths: [build/**]\n";

/// An initialised repository with the plan above and its evidence, all committed.
pub(crate) fn plan_repo() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.write_policy(POLICY);
    for (id, text) in [
        ("auth", AUTH),
        ("billing", BILLING),
        ("search", SEARCH),
        ("legacy", LEGACY),
        ("shipped", SHIPPED),
        ("profile", PROFILE),
    ] {
        repo.write(&format!(".ai/repo/intents/{id}.yaml"), text);
    }
    repo.write(".ai/repo/intents/milestones.yaml", MILESTONES);
    repo.write("src/auth/login.rs", "pub fn login() {}\n");
    repo.write("tests/auth.rs", "#[test]\nfn login() {}\n");
    repo.write("docs/auth.md", "# Signing in\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "The plan and its evidence"]);
    repo
}

/// `intent binding ARGS --format json`, expecting exit `code`; checks every field SPEC §6
/// names is there.
#[track_caller]
pub(crate) fn binding(repo: &TestRepo, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--format", "json", "intent", "binding"];
    all.extend_from_slice(args);
    let answer = repo.run(&all).expect_code(code).json();
    for field in [
        "status",
        "causes",
        "issue",
        "intent",
        "exemption",
        "plan_revision",
        "evidence_standing",
        "note",
    ] {
        assert!(answer.get(field).is_some(), "no `{field}` in {answer}");
    }
    answer
}

/// A refusal with exactly `causes`: exit 3, no pins, a note saying why.
#[track_caller]
fn refused(repo: &TestRepo, args: &[&str], causes: &[&str]) -> Value {
    let answer = binding(repo, args, 3);
    assert_eq!(answer["status"], "refused", "{answer}");
    assert_eq!(answer["causes"], json!(causes), "{answer}");
    assert_eq!(answer["plan_revision"], Value::Null);
    assert_eq!(answer["evidence_standing"], Value::Null);
    assert!(
        answer["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("refused: ")),
        "{answer}"
    );
    answer
}

fn note(answer: &Value) -> &str {
    answer["note"].as_str().expect("a note")
}

/// Commits every change under the root.
fn commit_all(repo: &TestRepo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

// --- Statuses ---------------------------------------------------------------------------------

#[test]
fn bound_names_the_issue_its_intent_and_both_pins() {
    let repo = plan_repo();
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(answer["status"], "bound");
    assert_eq!(answer["causes"], json!([]));
    assert_eq!(answer["issue"], "login");
    assert_eq!(answer["intent"], "auth");
    assert_eq!(answer["exemption"], Value::Null);
    assert_eq!(answer["scope"], json!(["src/auth/**"]));
    assert_eq!(
        note(&answer),
        "bound to issue `login` of intent `auth` (serves `c1`)"
    );
    for pin in ["plan_revision", "evidence_standing"] {
        assert!(
            answer[pin]
                .as_str()
                .is_some_and(|p| p.len() == 64 && p.bytes().all(|b| b.is_ascii_hexdigit())),
            "{pin}: {answer}"
        );
    }
    // The human form.
    let run = repo
        .run(&["intent", "binding", "--issue", "login"])
        .success();
    assert!(
        run.stdout().starts_with(
            "binding: bound, issue login, intent auth\nnote: bound to issue `login` of intent `auth` (serves `c1`)\npins: plan_revision "
        ),
        "{run}"
    );
}

#[test]
fn paths_alone_bind_to_the_one_open_issue_they_reach() {
    let repo = plan_repo();
    let answer = binding(&repo, &["--scope", "src/auth/login.rs"], 0);
    assert_eq!(answer["status"], "bound");
    assert_eq!(answer["issue"], "login");
    assert_eq!(answer["intent"], "auth");
}

#[test]
fn maintenance_lies_under_a_milestone_no_intent_names() {
    let repo = plan_repo();
    let answer = binding(&repo, &["--scope", "build/ci.sh"], 0);
    assert_eq!(answer["status"], "maintenance");
    assert_eq!(answer["causes"], json!([]));
    assert_eq!(answer["intent"], Value::Null);
    assert_eq!(answer["exemption"], Value::Null);
    assert_eq!(
        note(&answer),
        "maintenance: build/ci.sh (milestone `upkeep`) lie under milestones no intent names: maintenance, no exemption needed"
    );
    // Maintenance serves no intent: it pins the empty plan.
    assert!(answer["plan_revision"].is_string());
}

#[test]
fn exempt_needs_a_declared_class_and_a_reason() {
    let repo = plan_repo();
    let answer = binding(
        &repo,
        &[
            "--exempt",
            "docs",
            "--because",
            "fixing a typo in the README",
        ],
        0,
    );
    assert_eq!(answer["status"], "exempt");
    assert_eq!(answer["exemption"], "docs");
    assert_eq!(answer["intent"], Value::Null);
    assert_eq!(
        note(&answer),
        "exempt as `docs` (documentation only) because fixing a typo in the README; no intent is served"
    );
}

// --- Every refusal cause, and the advice its note gives, followed ----------------------------

#[test]
fn no_plan_refuses_and_declaring_the_work_binds() {
    let repo = TestRepo::initialised();
    repo.write_policy(POLICY);
    let answer = refused(&repo, &["--issue", "login"], &["no_plan"]);
    assert!(
        note(&answer).contains("declare the work in .ai/repo/intents/<id>.yaml"),
        "{answer}"
    );
    // Either way out the note names works.
    binding(
        &repo,
        &["--exempt", "docs", "--because", "no intent serves this"],
        0,
    );
    repo.write(".ai/repo/intents/auth.yaml", AUTH);
    assert_eq!(binding(&repo, &["--issue", "login"], 0)["status"], "bound");
}

#[test]
fn unknown_issue_refuses_and_naming_a_declared_issue_binds() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--issue", "loggin"], &["unknown_issue"]);
    assert_eq!(
        note(&answer),
        "refused: no intent declares issue `loggin`; name an issue of .ai/repo/intents/*.yaml"
    );
    binding(&repo, &["--issue", "login"], 0);
}

#[test]
fn issue_done_refuses_and_reopening_it_binds() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--issue", "logout"], &["issue_done"]);
    assert!(
        note(&answer).contains("reopen it (status: open) in .ai/repo/intents/auth.yaml"),
        "{answer}"
    );
    let text = repo.read(".ai/repo/intents/auth.yaml").replace(
        "    status: done\n    paths: [src/auth/logout.rs]",
        "    status: open\n    paths: [src/auth/logout.rs]",
    );
    repo.write(".ai/repo/intents/auth.yaml", &text);
    assert_eq!(binding(&repo, &["--issue", "logout"], 0)["status"], "bound");
}

#[test]
fn intent_not_critiqued_refuses_and_recording_a_critique_binds() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--issue", "invoice"], &["intent_not_critiqued"]);
    assert!(
        note(&answer).contains(
            "intent `billing` has no critique; critique its plan and record it under `critiques:` in .ai/repo/intents/billing.yaml"
        ),
        "{answer}"
    );
    repo.write(
        ".ai/repo/intents/billing.yaml",
        &format!("{BILLING}critiques:\n  - commit: 0123456789abcdef0123456789abcdef01234567\n    findings: []\n"),
    );
    binding(&repo, &["--issue", "invoice"], 0);
}

#[test]
fn critique_blocking_refuses_and_resolving_the_finding_binds() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--issue", "index"], &["critique_blocking"]);
    assert!(
        note(&answer).contains(
            "intent `search` has blocking critique findings `f1`; give each a `resolution:` in .ai/repo/intents/search.yaml"
        ),
        "{answer}"
    );
    repo.write(
        ".ai/repo/intents/search.yaml",
        &format!("{SEARCH}        resolution: The index rebuilds nightly.\n"),
    );
    binding(&repo, &["--issue", "index"], 0);
}

// --- Critique staleness ----------------------------------------------------------------------

/// `plan_repo` under `intent.binding: LEVEL`, committed.
fn plan_repo_under(level: &str) -> TestRepo {
    let repo = plan_repo();
    repo.write_policy(&format!("{POLICY}  binding: {level}\n"));
    commit_all(&repo, &format!("intent.binding: {level}"));
    repo
}

/// The `intent.critique-stale` finding `intent validate` reports for `auth`, if any.
fn stale_finding(repo: &TestRepo, code: i32) -> Option<Value> {
    let validation = repo
        .run(&["--format", "json", "intent", "validate"])
        .expect_code(code)
        .json();
    validation["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "intent.critique-stale")
        .cloned()
}

/// The `majordomus.intent-validated` findings of `doctor` with the rule `intent.critique-stale`.
fn doctor_stale(repo: &TestRepo) -> Vec<Value> {
    let report = repo.run(&["--format", "json", "doctor"]).json();
    let rule = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.intent-validated")
        .expect("the rule runs")
        .clone();
    rule["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "intent.critique-stale")
        .cloned()
        .collect()
}

/// Does what a stale critique's printed fix says: a new entry under `critiques:` of
/// `auth.yaml` (its last key) with the `plan_revision` the fix gives.
fn critique_again_as_printed(repo: &TestRepo, fix: &str) {
    let (_, rest) = fix
        .split_once("`plan_revision: ")
        .unwrap_or_else(|| panic!("no revision in the fix: {fix}"));
    let revision = &rest[..64];
    assert!(
        revision.bytes().all(|b| b.is_ascii_hexdigit()),
        "{revision}"
    );
    assert!(
        fix.starts_with(
            "critique the plan again and record it as a new entry under `critiques:` in .ai/repo/intents/auth.yaml"
        ),
        "{fix}"
    );
    let text = repo.read(".ai/repo/intents/auth.yaml");
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &format!(
            "{text}  - commit: 89abcdef0123456789abcdef0123456789abcdef\n    plan_revision: {revision}\n    findings: []\n"
        ),
    );
}

/// AUTH with its critique recorded at `revision`.
fn auth_critiqued_at(revision: &str) -> String {
    AUTH.replace(
        "  - commit: 0123456789abcdef0123456789abcdef01234567\n",
        &format!(
            "  - commit: 0123456789abcdef0123456789abcdef01234567\n    plan_revision: {revision}\n"
        ),
    )
}

/// A critique carrying the revision it reviewed binds; once a criterion is edited the
/// critique is stale: `required` refuses (`critique_stale`, exit 3, in `intent binding`,
/// `task start` and `plan start`), `intent validate` and doctor name it with the fix, and
/// doing what the fix says binds again.
#[test]
fn critique_stale_refuses_under_required_and_critiquing_again_binds() {
    let repo = plan_repo_under("required");
    // A critique of another revision: the fix gives the revision of the plan now.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &auth_critiqued_at(&"0".repeat(64)),
    );
    let finding = stale_finding(&repo, 3).expect("a stale critique is named");
    let fix = finding["fix"].as_str().expect("a fix").to_owned();
    let (_, rest) = fix.split_once("`plan_revision: ").expect("a revision");
    let now = rest[..64].to_owned();

    // Recorded at the revision it reviewed: bound, nothing reported.
    repo.write(".ai/repo/intents/auth.yaml", &auth_critiqued_at(&now));
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(answer["causes"], json!([]), "{answer}");
    assert_eq!(stale_finding(&repo, 0), None);
    // The critique's own findings never make it stale.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &auth_critiqued_at(&now).replace("c1 covers lockout.", "c1 covers lockout and reset."),
    );
    binding(&repo, &["--issue", "login"], 0);
    commit_all(&repo, "auth critiqued at its revision");

    // The plan changes: a criterion edited.
    let edited = auth_critiqued_at(&now).replace(
        "text: A user signs in with a password.",
        "text: A user signs in with a password or a passkey.",
    );
    repo.write(".ai/repo/intents/auth.yaml", &edited);
    let answer = refused(&repo, &["--issue", "login"], &["critique_stale"]);
    assert!(
        note(&answer).contains(&format!(
            "intent `auth`'s latest critique is stale: it reviewed plan revision {} and the plan has changed since; critique the plan again",
            &now[..12]
        )),
        "{answer}"
    );
    repo.start_episode();
    let run = repo.run(&["task", "start", "Passkeys", "--issue", "login"]);
    run.assert_human_error(3, "the intent binding refuses this: critique_stale");
    repo.run(&["--format", "json", "plan", "start", "login"])
        .json_error(3, "intent.binding");

    // intent validate names it (blocking under required), doctor names it with the fix.
    let finding = stale_finding(&repo, 3).expect("validate names the stale critique");
    assert_eq!(finding["severity"], "blocking", "{finding}");
    assert_eq!(finding["file"], ".ai/repo/intents/auth.yaml");
    let fix = finding["fix"].as_str().expect("a fix").to_owned();
    assert!(!fix.contains(&now), "the fix gives the revision now: {fix}");
    let doctored = doctor_stale(&repo);
    assert_eq!(doctored.len(), 1, "{doctored:?}");
    assert_eq!(doctored[0]["fix"], fix.as_str());
    assert_eq!(doctored[0]["severity"], "blocking");
    assert!(
        repo.run(&["doctor"])
            .stdout()
            .contains("[intent.critique-stale] intent auth: the latest critique is stale"),
    );

    // The fix as printed clears it everywhere.
    critique_again_as_printed(&repo, &fix);
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(answer["status"], "bound");
    assert_eq!(answer["causes"], json!([]), "{answer}");
    assert_eq!(stale_finding(&repo, 0), None);
    assert!(doctor_stale(&repo).is_empty());
    repo.run(&["task", "start", "Passkeys", "--issue", "login"])
        .success();
}

/// Under `advisory` a stale critique is reported with the binding, which still binds, and
/// the start goes on saying so; validate and doctor name it as advisory.
#[test]
fn critique_stale_is_reported_not_refused_under_advisory() {
    let repo = plan_repo_under("advisory");
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &auth_critiqued_at(&"0".repeat(64)),
    );
    commit_all(&repo, "auth critiqued at an older revision");
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(answer["status"], "bound", "{answer}");
    assert_eq!(answer["causes"], json!(["critique_stale"]), "{answer}");
    assert!(answer["plan_revision"].is_string(), "{answer}");
    assert!(
        note(&answer).contains("reported, not refused: intent `auth`'s latest critique is stale"),
        "{answer}"
    );
    repo.start_episode();
    let json = repo
        .run(&[
            "--format", "json", "task", "start", "Passkeys", "--issue", "login",
        ])
        .success()
        .json();
    assert_eq!(json["binding"]["causes"], json!(["critique_stale"]));
    assert!(
        json["advisory"]
            .as_str()
            .is_some_and(|a| a.contains("critique_stale")),
        "{json}"
    );
    // Advisory: named, and validate passes (exit 0).
    let finding = stale_finding(&repo, 0).expect("validate names it");
    assert_eq!(finding["severity"], "advisory", "{finding}");
    let doctored = doctor_stale(&repo);
    assert_eq!(doctored.len(), 1, "{doctored:?}");
    assert_eq!(doctored[0]["severity"], "advisory");

    // A critique without a plan_revision (written before critiques carried one) is never
    // stale: there is nothing to compare.
    repo.write(".ai/repo/intents/auth.yaml", AUTH);
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(answer["causes"], json!([]), "{answer}");
}

#[test]
fn paths_outside_plan_refuses_and_claiming_them_in_a_milestone_makes_maintenance() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &["--scope", "scripts/release.sh"],
        &["paths_outside_plan"],
    );
    assert!(
        note(&answer).contains(
            "no issue or milestone of the plan claims scripts/release.sh; name the issue the work serves, add the paths to an issue or to a milestone in .ai/repo/intents/milestones.yaml"
        ),
        "{answer}"
    );
    repo.write(
        ".ai/repo/intents/milestones.yaml",
        &format!("{MILESTONES}  - id: release\n    paths: [scripts/**]\n"),
    );
    assert_eq!(
        binding(&repo, &["--scope", "scripts/release.sh"], 0)["status"],
        "maintenance"
    );
}

#[test]
fn nothing_named_refuses_and_naming_the_issue_binds() {
    let repo = plan_repo();
    let answer = refused(&repo, &[], &["nothing_named"]);
    assert!(
        note(&answer).contains(
            "name the issue (--issue ID), the intent (--intent ID) or the paths (--scope PATH)"
        ),
        "{answer}"
    );
    binding(&repo, &["--issue", "login"], 0);
}

#[test]
fn unknown_intent_refuses_and_lists_the_intents_there_are() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--intent", "authn"], &["unknown_intent"]);
    assert_eq!(
        note(&answer),
        "refused: no intent `authn`; name one of `auth`, `billing`, `legacy`, `profile`, `search`, `shipped`"
    );
    assert_eq!(binding(&repo, &["--intent", "auth"], 0)["status"], "bound");
}

#[test]
fn intent_retired_refuses_named_or_reached() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--intent", "legacy"], &["intent_retired"]);
    assert!(
        note(&answer).contains("intent `legacy` is retired; name work of an active intent"),
        "{answer}"
    );
    let answer = refused(
        &repo,
        &["--scope", "src/legacy/import.rs"],
        &["intent_retired"],
    );
    assert!(
        note(&answer)
            .contains("src/legacy/import.rs is claimed only by intent `legacy`, which is retired"),
        "{answer}"
    );
    // Reviving it (status: active) is the other way: then it binds.
    let text = repo
        .read(".ai/repo/intents/legacy.yaml")
        .replace("status: retired", "status: active");
    repo.write(".ai/repo/intents/legacy.yaml", &text);
    binding(&repo, &["--intent", "legacy"], 0);
}

#[test]
fn intent_has_no_open_work_refuses_and_adding_an_issue_binds() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &["--intent", "shipped"],
        &["intent_has_no_open_work"],
    );
    assert!(
        note(&answer).contains(
            "intent `shipped` has no open or active issue; add the work as an issue in .ai/repo/intents/shipped.yaml"
        ),
        "{answer}"
    );
    let text = repo.read(".ai/repo/intents/shipped.yaml").replace(
        "critiques:",
        "  - id: export-csv\n    title: Export CSV\n    status: open\n    paths: [src/export/csv.rs]\n    serves: [e1]\ncritiques:",
    );
    repo.write(".ai/repo/intents/shipped.yaml", &text);
    binding(&repo, &["--intent", "shipped"], 0);
}

#[test]
fn issue_outside_intent_refuses_and_naming_its_intent_binds() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &["--issue", "login", "--intent", "profile"],
        &["issue_outside_intent"],
    );
    assert!(
        note(&answer).contains(
            "issue `login` belongs to intent `auth`, not `profile`; name --intent auth or drop --intent"
        ),
        "{answer}"
    );
    binding(&repo, &["--issue", "login", "--intent", "auth"], 0);
    binding(&repo, &["--issue", "login"], 0);
}

#[test]
fn ambiguous_intent_refuses_paths_reaching_two_intents_and_naming_the_issue_binds() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &["--scope", "src/users/avatar.rs"],
        &["ambiguous_intent"],
    );
    assert!(
        note(&answer).contains(
            "the scope reaches intents `auth` (issues `accounts`), `profile` (issues `avatar`); name the issue the work serves with --issue"
        ),
        "{answer}"
    );
    let answer = binding(
        &repo,
        &["--scope", "src/users/avatar.rs", "--issue", "avatar"],
        0,
    );
    assert_eq!(answer["intent"], "profile");
}

#[test]
fn unknown_exemption_refuses_and_declaring_the_class_exempts() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &["--exempt", "chore", "--because", "bumping a dependency"],
        &["unknown_exemption"],
    );
    assert!(
        note(&answer).contains(
            "`chore` is not a declared exemption class; use one of `docs` or declare it under intent.exemptions in .ai/repo/policy.yaml"
        ),
        "{answer}"
    );
    repo.write_policy(&format!(
        "{POLICY}    - class: chore\n      description: dependency bumps\n"
    ));
    assert_eq!(
        binding(
            &repo,
            &["--exempt", "chore", "--because", "bumping a dependency"],
            0
        )["status"],
        "exempt"
    );
}

#[test]
fn exemption_without_reason_is_a_refusal_not_a_usage_error() {
    let repo = plan_repo();
    let answer = refused(&repo, &["--exempt", "docs"], &["exemption_without_reason"]);
    assert!(
        note(&answer).contains(
            "an exemption needs a reason: add --because \"<why no intent serves this work>\""
        ),
        "{answer}"
    );
    // An empty reason is no reason.
    refused(
        &repo,
        &["--exempt", "docs", "--because", "  "],
        &["exemption_without_reason"],
    );
    binding(&repo, &["--exempt", "docs", "--because", "a typo"], 0);
}

#[test]
fn exemption_names_work_refuses_an_exemption_beside_named_work() {
    let repo = plan_repo();
    let answer = refused(
        &repo,
        &[
            "--exempt",
            "docs",
            "--because",
            "a typo",
            "--issue",
            "login",
        ],
        &["exemption_names_work"],
    );
    assert!(
        note(&answer)
            .contains("drop --exempt to bind the named issue or intent, or drop --issue/--intent"),
        "{answer}"
    );
    binding(&repo, &["--issue", "login"], 0);
    binding(&repo, &["--exempt", "docs", "--because", "a typo"], 0);
}

#[test]
fn every_cause_of_spec_section_6_has_a_test_above() {
    // The causes are the binding's vocabulary: a new one needs its own test here.
    let causes = [
        "no_plan",
        "plan_unreadable",
        "unknown_issue",
        "issue_done",
        "intent_not_critiqued",
        "critique_blocking",
        "critique_stale",
        "paths_outside_plan",
        "nothing_named",
        "unknown_intent",
        "intent_retired",
        "intent_has_no_open_work",
        "issue_outside_intent",
        "ambiguous_intent",
        "unknown_exemption",
        "exemption_without_reason",
        "exemption_names_work",
    ];
    let source = include_str!("intent.rs");
    for cause in causes {
        assert!(
            source.matches(&format!("&[\"{cause}\"]")).count() >= 1,
            "no test asserts the cause {cause}"
        );
    }
    let schema = TestRepo::unversioned()
        .run(&[
            "--format",
            "json",
            "schema",
            "--operation",
            "intent.binding",
        ])
        .success()
        .json();
    let text = schema.to_string();
    for cause in causes {
        assert!(
            text.contains(&format!("\"{cause}\"")),
            "{cause} not in the schema"
        );
    }
}

// --- An unreadable plan -------------------------------------------------------------------------

#[test]
fn plan_unreadable_names_the_file_and_key_for_each_kind_of_broken_file() {
    let repo = plan_repo();
    let file = ".ai/repo/intents/billing.yaml";
    for (broken, says) in [
        (
            BILLING.replace("issues:\n", "issues: [\n"),
            ".ai/repo/intents/billing.yaml: line ",
        ),
        (
            BILLING.replace("statement:", "owner: finance\nstatement:"),
            ".ai/repo/intents/billing.yaml: owner: unknown key",
        ),
        (
            BILLING.replace("    title: Invoice run\n", ""),
            ".ai/repo/intents/billing.yaml: issues[0].title: missing required field",
        ),
        (
            BILLING.replace("[src/billing/**]", "[\"src/billing/{a,b\"]"),
            ".ai/repo/intents/billing.yaml: issues[0].paths[0]: `src/billing/{a,b` is not a valid glob",
        ),
        (
            BILLING.replace("serves: [b1]", "serves: [b2]"),
            ".ai/repo/intents/billing.yaml: issues[0].serves[0]: `b2` names no criterion of this intent",
        ),
    ] {
        repo.write(file, &broken);
        // Whatever is asked, even about another intent: unknown is never pass.
        for args in [&["--issue", "login"][..], &["--scope", "build/ci.sh"][..]] {
            let answer = refused(&repo, args, &["plan_unreadable"]);
            assert!(note(&answer).contains(says), "{says}: {answer}");
            assert!(
                note(&answer).ends_with("fix the file and ask again"),
                "{answer}"
            );
        }
        // An exemption is refused too.
        let answer = binding(&repo, &["--exempt", "docs", "--because", "a typo"], 3);
        assert_eq!(answer["causes"], json!(["plan_unreadable"]));
        // And `intent validate` names the same file.
        let validate = repo
            .run(&["--format", "json", "intent", "validate"])
            .expect_code(3)
            .json();
        assert_eq!(validate["findings"][0]["rule"], "intent.readable");
        assert_eq!(validate["findings"][0]["file"], file);
    }
    // Fixing the file as the note says reads the plan again.
    repo.write(file, BILLING);
    binding(&repo, &["--issue", "login"], 0);
}

// --- Pins -------------------------------------------------------------------------------------

fn pins(answer: &Value) -> (String, String) {
    (
        answer["plan_revision"]
            .as_str()
            .expect("plan_revision")
            .to_owned(),
        answer["evidence_standing"]
            .as_str()
            .expect("evidence_standing")
            .to_owned(),
    )
}

#[test]
fn pins_are_stable_under_an_unrelated_commit_across_a_clone_and_in_a_worktree() {
    let repo = plan_repo();
    let before = pins(&binding(&repo, &["--issue", "login"], 0));

    // A commit touching a file no criterion cites.
    repo.commit("README.md", "# Still a test project\n", "Touch the readme");
    assert_eq!(pins(&binding(&repo, &["--issue", "login"], 0)), before);
    // Nor does plan start (statuses are not pinned).
    repo.run(&["plan", "start", "login"]).success();
    assert_eq!(pins(&binding(&repo, &["--issue", "login"], 0)), before);
    repo.git(&["checkout", "-q", "--", ".ai/repo/intents/auth.yaml"]);

    // A clone: no ledger, the same plan and evidence.
    repo.git_in(repo.base(), &["clone", "-q", "repo", "clone"]);
    let clone = repo.base().join("clone");
    let answer = repo
        .run_in(
            &clone,
            &["--format", "json", "intent", "binding", "--issue", "login"],
        )
        .success()
        .json();
    assert_eq!(pins(&answer), before);

    // A worktree of the same repository.
    repo.git(&["worktree", "add", "-q", "../wt", "-b", "side"]);
    let answer = repo
        .run_in(
            &repo.base().join("wt"),
            &["--format", "json", "intent", "binding", "--issue", "login"],
        )
        .success()
        .json();
    assert_eq!(pins(&answer), before);
}

#[test]
fn evidence_standing_moves_when_an_evidence_file_changes_at_head() {
    let repo = plan_repo();
    let (plan, standing) = pins(&binding(&repo, &["--issue", "login"], 0));
    // The work tree alone does not move it: the pin reads HEAD.
    repo.write("src/auth/login.rs", "pub fn login() { todo!() }\n");
    assert_eq!(
        pins(&binding(&repo, &["--issue", "login"], 0)),
        (plan.clone(), standing.clone())
    );
    commit_all(&repo, "Change the login");
    let (plan_after, standing_after) = pins(&binding(&repo, &["--issue", "login"], 0));
    assert_eq!(plan_after, plan, "the plan did not change");
    assert_ne!(standing_after, standing);
    // Evidence of a criterion the issue does not serve does not move it.
    repo.commit("docs/auth.md", "# Signing in, revised\n", "Revise the docs");
    assert_eq!(
        pins(&binding(&repo, &["--issue", "login"], 0)),
        (plan_after, standing_after)
    );
}

#[test]
fn plan_revision_moves_with_a_statement_a_criterion_or_a_resolution() {
    let repo = plan_repo();
    let (plan, standing) = pins(&binding(&repo, &["--issue", "login"], 0));
    let original = repo.read(".ai/repo/intents/auth.yaml");
    for (from, to) in [
        (
            "statement: People sign in and out safely.",
            "statement: People sign in and out safely, on every device.",
        ),
        (
            "text: A user signs in with a password.",
            "text: A user signs in with a password or a passkey.",
        ),
        (
            "resolution: c1 covers lockout.",
            "resolution: Lockout is c3, later.",
        ),
    ] {
        repo.write(".ai/repo/intents/auth.yaml", &original.replace(from, to));
        let (moved, standing_now) = pins(&binding(&repo, &["--issue", "login"], 0));
        assert_ne!(moved, plan, "{to}");
        assert_eq!(standing_now, standing, "{to}: the evidence did not change");
    }
    // Formatting and comments are not content: the pin stays.
    repo.write(
        ".ai/repo/intents/auth.yaml",
        &format!(
            "# The sign-in plan.\n{}",
            original.replace("paths: [src/auth/**]", "paths:\n      - src/auth/**")
        ),
    );
    assert_eq!(
        pins(&binding(&repo, &["--issue", "login"], 0)),
        (plan, standing)
    );
}

// --- plan start -----------------------------------------------------------------------------

/// An intent file as a person writes it: comments, blank lines, quoted values, a trailing
/// comment on the status line.
const HAND_WRITTEN: &str = "# Parser work, agreed 2026-11-02.
id: parser
status: active   # the whole intent
statement: \"The parser reads every file we write.\"

criteria:
  - id: p1   # the main one
    text: 'Round-trips the fixtures.'
    evidence:
      - file:src/parser.rs

issues:
  # first things first
  - id: parser-nom
    title: \"Port the parser to nom\"
    status: \"open\"   # not yet started
    paths: ['src/parser.rs', \"src/parser/**\"]
    serves: [p1]

  - id: parser-docs
    title: Document the parser
    status: open
    paths: [docs/parser.md]
    serves: [p1]
critiques:
  - commit: 0123456789abcdef0123456789abcdef01234567   # reviewed by Ada
    findings: []
";

#[test]
fn plan_start_changes_exactly_the_status_value() {
    let repo = TestRepo::initialised();
    repo.write(".ai/repo/intents/parser.yaml", HAND_WRITTEN);
    commit_all(&repo, "Plan the parser");
    let run = repo.run(&["plan", "start", "parser-nom"]).success();
    assert!(
        run.stdout()
            .starts_with("issue parser-nom is now active in .ai/repo/intents/parser.yaml\nbinding: bound, issue parser-nom, intent parser\n"),
        "{run}"
    );
    let expected = HAND_WRITTEN.replace(
        "    status: \"open\"   # not yet started\n",
        "    status: \"active\"   # not yet started\n",
    );
    assert_ne!(expected, HAND_WRITTEN);
    assert_eq!(repo.read(".ai/repo/intents/parser.yaml"), expected);
    // Again: nothing to write.
    let json = repo
        .run(&["--format", "json", "plan", "start", "parser-nom"])
        .success()
        .json();
    assert_eq!(json["write"], "unchanged");
    assert_eq!(repo.read(".ai/repo/intents/parser.yaml"), expected);

    // An unquoted value keeps its style too.
    repo.run(&["plan", "start", "parser-docs"]).success();
    assert_eq!(
        repo.read(".ai/repo/intents/parser.yaml"),
        expected.replace(
            "    title: Document the parser\n    status: open\n",
            "    title: Document the parser\n    status: active\n"
        )
    );
}

#[test]
fn plan_start_refuses_under_a_refusing_binding_with_every_policy() {
    for policy in ["off", "advisory", "required"] {
        let repo = plan_repo();
        repo.write_policy(&format!("{POLICY}  binding: {policy}\n"));
        let before = repo.read(".ai/repo/intents/billing.yaml");
        let run = repo.run(&["plan", "start", "invoice"]);
        run.assert_human_error(3, "the intent binding refuses this: intent_not_critiqued");
        assert!(
            run.stderr().contains(
                "fix: refused: intent `billing` has no critique; critique its plan and record it under `critiques:` in .ai/repo/intents/billing.yaml"
            ),
            "{policy}: {run}"
        );
        let error = repo
            .run(&["--format", "json", "plan", "start", "invoice"])
            .json_error(3, "intent.binding");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("intent_not_critiqued")),
            "{error}"
        );
        assert_eq!(
            repo.read(".ai/repo/intents/billing.yaml"),
            before,
            "{policy}"
        );
        // An unknown issue too.
        repo.run(&["--format", "json", "plan", "start", "nope"])
            .json_error(3, "intent.binding");
    }
}

#[test]
fn plan_start_refuses_an_unreadable_plan_under_required() {
    let repo = plan_repo();
    repo.write_policy(&format!("{POLICY}  binding: required\n"));
    repo.write(".ai/repo/intents/billing.yaml", "id: billing\nstatus: [\n");
    let before = repo.read(".ai/repo/intents/auth.yaml");
    let error = repo
        .run(&["--format", "json", "plan", "start", "login"])
        .json_error(3, "intent.binding");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("plan_unreadable")),
        "{error}"
    );
    assert_eq!(repo.read(".ai/repo/intents/auth.yaml"), before);
}

#[test]
fn a_yml_intent_is_read_by_its_name_and_a_byte_order_mark_is_tolerated() {
    let repo = plan_repo();
    let yaml = repo.read(".ai/repo/intents/auth.yaml");
    std::fs::remove_file(repo.path(".ai/repo/intents/auth.yaml")).expect("remove auth.yaml");
    // The same intent as `auth.yml`, written by an editor that puts a BOM first.
    repo.write(".ai/repo/intents/auth.yml", &format!("\u{feff}{yaml}"));
    // And milestones in a `.yml` of their own.
    let milestones = repo.read(".ai/repo/intents/milestones.yaml");
    std::fs::remove_file(repo.path(".ai/repo/intents/milestones.yaml")).expect("remove");
    repo.write(".ai/repo/intents/milestones.yml", &milestones);
    let upkeep = binding(&repo, &["--scope", "build/ci.sh"], 0);
    assert_eq!(upkeep["status"], "maintenance", "{upkeep}");
    let bound = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(bound["status"], "bound", "{bound}");
    assert_eq!(bound["intent"], "auth");
    // The same intent in both spellings is refused by name, not as the whole plan.
    repo.write(".ai/repo/intents/auth.yaml", &yaml);
    let refused = binding(&repo, &["--issue", "login"], 3);
    assert_eq!(refused["causes"], json!(["plan_unreadable"]), "{refused}");
    let note = refused["note"].as_str().expect("a note");
    assert!(
        note.contains(
            ".ai/repo/intents/auth.yml: id: `auth` repeats the intent of .ai/repo/intents/auth.yaml"
        ),
        "{note}"
    );
}

/// Seed 003's number to watch: of the starts that named no work (no issue, intent or
/// exemption: a scope alone, or nothing), how many the binding refused, and of the refused
/// starts how many named none. A start the binding stops leaves a `task.refused` line (no
/// task starts); one that starts carries what it named on `task.started`. `intent
/// validate` and the INTENT section of `context` say it.
#[test]
fn the_refused_share_of_starts_that_name_nothing_is_reported() {
    let repo = plan_repo_under("advisory");
    repo.start_episode();
    // Nothing asked yet: nothing said.
    let validation = repo
        .run(&["--format", "json", "intent", "validate"])
        .success()
        .json();
    assert_eq!(
        validation["refused_starts"],
        json!({"asked": 0, "refused": 0, "naming_nothing": 0, "naming_nothing_refused": 0})
    );
    let run = repo.run(&["intent", "validate"]).success();
    assert!(!run.stdout().contains("refused starts"), "{run}");

    let start_and_finish = |args: &[&str]| {
        let mut all = vec!["task", "start"];
        all.extend_from_slice(args);
        repo.run(&all).success();
        repo.run(&["task", "finish"]).success();
    };
    // A scope alone that binds; nothing named (refused, started under advisory); paths
    // outside the plan (the same).
    start_and_finish(&["Harden login", "--scope", "src/auth/login.rs"]);
    start_and_finish(&["Tidy up"]);
    start_and_finish(&["Port the lexer", "--scope", "lib/"]);
    // A named issue the plan does not have: a question asked, so the refusal stops it.
    repo.run(&["task", "start", "Something", "--issue", "nope"])
        .expect_code(3);
    // Under required a start that names nothing stops too.
    repo.write_policy(&format!("{POLICY}  binding: required\n"));
    repo.run(&["task", "start", "Anything"]).expect_code(3);

    let refused = repo.ledger_events("task.refused");
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert_eq!(refused[0]["data"]["named"], json!(["issue"]));
    assert_eq!(refused[0]["data"]["causes"], json!(["unknown_issue"]));
    assert_eq!(refused[1]["data"]["named"], json!([]));
    assert_eq!(refused[1]["data"]["description"], "Anything");
    let started = repo.ledger_events("task.started");
    assert_eq!(started[0]["data"]["named"], json!(["scope"]));
    assert_eq!(started[1]["data"]["named"], json!([]));
    assert_eq!(started[1]["data"]["binding"], "refused");
    assert_eq!(
        repo.run(&["task", "list"])
            .success()
            .stdout()
            .matches("Anything")
            .count(),
        0
    );

    let expected = "refused starts: 3 of 4 start(s) naming no issue, intent or exemption were refused (75%); 3 of 4 refused start(s) named none (75%); 5 start(s) asked";
    let validation = repo.run(&["--format", "json", "intent", "validate"]).json();
    assert_eq!(
        validation["refused_starts"],
        json!({"asked": 5, "refused": 4, "naming_nothing": 4, "naming_nothing_refused": 3}),
        "{validation}"
    );
    let run = repo.run(&["intent", "validate"]);
    assert!(run.stdout().contains(&format!("{expected}\n")), "{run}");
    let context = repo.run(&["context"]).success();
    let intent = context
        .stdout()
        .split("\n## INTENT\n")
        .nth(1)
        .expect("an INTENT section");
    assert!(intent.contains(&format!("- {expected}\n")), "{context}");
    let json = repo.run(&["--format", "json", "context"]).success().json();
    assert_eq!(
        json["refused_starts"]["naming_nothing_refused"], 3,
        "{json}"
    );
}
