use std::collections::BTreeSet;

use super::*;
use crate::model::intent::parse::PlanFile;

/// An intent file: critiqued unless `critique` is empty.
fn intent(id: &str, status: &str, issues: &str, critique: &str) -> PlanFile {
    PlanFile {
        path: format!(".ai/repo/intents/{id}.yaml"),
        text: format!(
            "id: {id}\nstatus: {status}\nstatement: The {id} statement.\n\
                 criteria:\n  - id: c1\n    text: First.\n    evidence: [\"file:src/{id}.rs:3\", \"adr:0070\"]\n  \
                 - id: c2\n    text: Second.\n    evidence: [\"test:tests/{id}.rs\"]\n\
                 issues:\n{issues}{critique}"
        ),
    }
}

fn issue(id: &str, status: &str, paths: &str, extra: &str) -> String {
    format!(
        "  - id: {id}\n    title: {id}\n    status: {status}\n    paths: {paths}\n    serves: [c1]\n{extra}"
    )
}

const CRITIQUED: &str = "critiques:\n  - commit: abc\n    findings:\n      - id: f1\n        blocking: true\n        text: Why?\n        resolution: Because.\n";
const BLOCKING: &str = "critiques:\n  - commit: abc\n    findings:\n      - id: f1\n        blocking: true\n        text: Why?\n";

fn files() -> Vec<PlanFile> {
    vec![
            intent(
                "auth",
                "active",
                &(issue("login", "open", "[\"src/auth/**\"]", "")
                    + &issue("logout", "done", "[src/logout.rs]", "")
                    + &issue("sessions", "active", "[\"src/session/**\"]", "    milestone: m1\n")),
                CRITIQUED,
            ),
            intent(
                "web",
                "active",
                &(issue("page", "open", "[\"web/**\"]", "")
                    + &issue("widget", "open", "[\"src/widget/**\"]", "")),
                CRITIQUED,
            ),
            intent("billing", "active", &issue("invoice", "open", "[\"billing/**\"]", ""), ""),
            intent("legacy", "retired", &issue("old", "open", "[\"legacy/**\"]", ""), CRITIQUED),
            intent("finished", "active", &issue("shipped", "done", "[\"shipped/**\"]", ""), CRITIQUED),
            intent("blocked", "active", &issue("b1", "open", "[\"blocked/**\"]", ""), BLOCKING),
            PlanFile {
                path: ".ai/repo/intents/milestones.yaml".into(),
                text: "milestones:\n  - id: m1\n    paths: [\"ops/**\"]\n  - id: m2\n    paths: [\"ci/**\", \".github/**\"]\n".into(),
            },
        ]
}

fn plan() -> PlanInput {
    let plan = PlanInput::read(Some(&files()));
    assert!(matches!(plan, PlanInput::Plan(_)), "{plan:?}");
    plan
}

fn policy() -> Vec<Exemption> {
    vec![Exemption {
        class: "tooling".into(),
        description: "repository tooling no intent covers".into(),
    }]
}

fn blobs(path: &str) -> Option<String> {
    Some(format!("blob:{path}"))
}

fn ask(issue: Option<&str>, intent: Option<&str>, scope: &[&str]) -> BindingRequest {
    BindingRequest {
        issue: issue.map(str::to_owned),
        intent: intent.map(str::to_owned),
        scope: scope.iter().map(|s| (*s).to_owned()).collect(),
        ..BindingRequest::default()
    }
}

fn exempt(class: &str, because: Option<&str>) -> BindingRequest {
    BindingRequest {
        exempt: Some(class.to_owned()),
        because: because.map(str::to_owned),
        ..BindingRequest::default()
    }
}

fn run(plan: &PlanInput, request: &BindingRequest) -> Binding {
    bind(plan, request, &policy(), &blobs)
}

fn refused(plan: &PlanInput, request: &BindingRequest) -> Binding {
    let binding = run(plan, request);
    assert_eq!(binding.status, BindingStatus::Refused, "{binding:#?}");
    assert!(binding.note.starts_with("refused: "), "{}", binding.note);
    assert_eq!(binding.plan_revision, None);
    assert_eq!(binding.evidence_standing, None);
    binding
}

#[test]
fn a_named_issue_binds() {
    let b = run(&plan(), &ask(Some("login"), None, &[]));
    assert_eq!(b.status, BindingStatus::Bound);
    assert!(b.causes.is_empty());
    assert_eq!(b.issue.as_deref(), Some("login"));
    assert_eq!(b.intent.as_deref(), Some("auth"));
    assert_eq!(b.scope, ["src/auth/**"]);
    assert!(b.plan_revision.is_some() && b.evidence_standing.is_some());
    assert_eq!(
        b.note,
        "bound to issue `login` of intent `auth` (serves `c1`)"
    );

    let same = run(&plan(), &ask(Some("login"), Some("auth"), &[]));
    assert_eq!(same.status, BindingStatus::Bound);
    assert_eq!(same.plan_revision, b.plan_revision);
}

#[test]
fn a_named_intent_binds() {
    let b = run(&plan(), &ask(None, Some("web"), &[]));
    assert_eq!(b.status, BindingStatus::Bound);
    assert_eq!(b.issue, None);
    assert_eq!(b.scope, ["web/**", "src/widget/**"]);
    let scoped = run(&plan(), &ask(None, Some("web"), &["web/index.html"]));
    assert_eq!(scoped.issue.as_deref(), Some("page"));
    assert_eq!(
        scoped.plan_revision, b.plan_revision,
        "a scope moves no pin"
    );
}

#[test]
fn paths_reaching_one_intent_bind_to_it() {
    let b = run(&plan(), &ask(None, None, &["src/auth/login.rs"]));
    assert_eq!(b.status, BindingStatus::Bound, "{b:#?}");
    assert_eq!(
        (b.issue.as_deref(), b.intent.as_deref()),
        (Some("login"), Some("auth"))
    );

    let two = run(
        &plan(),
        &ask(None, None, &["src/auth/", "src/session/x.rs"]),
    );
    assert_eq!(two.status, BindingStatus::Bound);
    assert_eq!(two.issue, None);
    assert!(two.note.contains("`login`, `sessions`"), "{}", two.note);

    // A milestone an issue names reaches that issue's intent.
    let ops = run(&plan(), &ask(None, None, &["ops/deploy.sh"]));
    assert_eq!(ops.status, BindingStatus::Bound);
    assert_eq!(ops.issue.as_deref(), Some("sessions"));
}

#[test]
fn paths_reaching_two_intents_are_ambiguous_and_name_the_issues() {
    let b = refused(&plan(), &ask(None, None, &["src/"]));
    assert_eq!(b.causes, [Cause::AmbiguousIntent]);
    assert_eq!(b.intent, None);
    assert!(
        b.note
            .contains("`auth` (issues `login`, `logout`, `sessions`), `web` (issues `widget`)"),
        "{}",
        b.note
    );
    assert!(b.note.contains("--issue"), "{}", b.note);

    // Ambiguity is said together with the reached intents' missing critiques.
    let b = refused(&plan(), &ask(None, None, &["src/auth/x.rs", "billing/"]));
    assert_eq!(
        b.causes,
        [Cause::IntentNotCritiqued, Cause::AmbiguousIntent]
    );
}

#[test]
fn paths_under_a_milestone_no_intent_names_are_maintenance() {
    let b = run(&plan(), &ask(None, None, &["ci/build.sh", ".github/"]));
    assert_eq!(b.status, BindingStatus::Maintenance, "{b:#?}");
    assert_eq!(b.intent, None);
    assert!(b.note.starts_with("maintenance: "), "{}", b.note);
    assert!(b.plan_revision.is_some(), "maintenance pins the empty plan");

    // Beside work of one intent, maintenance paths are said, not refused.
    let b = run(&plan(), &ask(None, None, &["src/auth/x.rs", "ci/build.sh"]));
    assert_eq!(b.status, BindingStatus::Bound);
    assert!(
        b.note.contains("ci/build.sh (milestone `m2`)"),
        "{}",
        b.note
    );
}

#[test]
fn an_exemption_is_a_declared_class_with_a_reason() {
    let b = run(&plan(), &exempt("tooling", Some("bump the linter")));
    assert_eq!(b.status, BindingStatus::Exempt, "{b:#?}");
    assert_eq!(b.exemption.as_deref(), Some("tooling"));
    assert!(b.note.contains("bump the linter"), "{}", b.note);
    assert!(b.plan_revision.is_some());

    let b = refused(&plan(), &exempt("chores", Some("why not")));
    assert_eq!(b.causes, [Cause::UnknownExemption]);
    assert!(b.note.contains("use one of `tooling`"), "{}", b.note);
    let none = bind(&plan(), &exempt("chores", Some("x")), &[], &blobs);
    assert!(
        none.note.contains("the policy declares none"),
        "{}",
        none.note
    );

    for because in [None, Some("  ")] {
        let b = refused(&plan(), &exempt("tooling", because));
        assert_eq!(b.causes, [Cause::ExemptionWithoutReason]);
    }

    let mut named = exempt("tooling", Some("x"));
    named.issue = Some("login".into());
    assert_eq!(refused(&plan(), &named).causes, [Cause::ExemptionNamesWork]);
    named.issue = None;
    named.intent = Some("auth".into());
    assert_eq!(refused(&plan(), &named).causes, [Cause::ExemptionNamesWork]);

    let mut everything_wrong = exempt("chores", None);
    everything_wrong.issue = Some("login".into());
    assert_eq!(
        refused(&plan(), &everything_wrong).causes,
        [
            Cause::UnknownExemption,
            Cause::ExemptionWithoutReason,
            Cause::ExemptionNamesWork
        ]
    );
}

#[test]
fn an_exemption_needs_a_readable_plan_but_no_plan_at_all() {
    let b = run(&PlanInput::NoPlan, &exempt("tooling", Some("x")));
    assert_eq!(b.status, BindingStatus::Exempt);
    let broken = PlanInput::read(Some(&[PlanFile {
        path: ".ai/repo/intents/auth.yaml".into(),
        text: "id: [".into(),
    }]));
    let b = refused(&broken, &exempt("tooling", Some("x")));
    assert_eq!(b.causes, [Cause::PlanUnreadable]);
}

#[test]
fn absence_of_an_intent_is_never_an_exemption() {
    let b = refused(&plan(), &ask(None, None, &["tools/script.sh"]));
    assert_eq!(b.causes, [Cause::PathsOutsidePlan]);
    assert!(b.note.contains("tools/script.sh"), "{}", b.note);
    assert!(b.note.contains("--exempt"), "{}", b.note);
}

#[test]
fn a_scope_outside_the_named_issue_is_said_not_refused() {
    let b = run(
        &plan(),
        &ask(Some("login"), None, &["src/auth/", "docs/generated.md"]),
    );
    assert_eq!(b.status, BindingStatus::Bound);
    assert_eq!(b.scope, ["src/auth/", "docs/generated.md"]);
    assert!(
        b.note
            .contains("docs/generated.md outside issue `login`'s paths"),
        "{}",
        b.note
    );
    let plain = run(&plan(), &ask(Some("login"), None, &[]));
    assert_eq!(b.plan_revision, plain.plan_revision);
}

#[test]
fn changed_files_outside_the_scope_are_said() {
    let mut request = ask(Some("login"), None, &[]);
    request.changed = vec!["src/auth/a.rs".into(), "README.md".into()];
    let b = run(&plan(), &request);
    assert_eq!(b.status, BindingStatus::Bound);
    assert_eq!(b.outside_scope, ["README.md"]);
    assert!(
        b.note
            .contains("changed outside the scope (advisory): README.md"),
        "{}",
        b.note
    );

    request.scope = vec!["src/".into(), "README.md".into()];
    assert!(run(&plan(), &request).outside_scope.is_empty());
}

/// One request per cause; together they reach every cause SPEC §6 names.
#[test]
fn every_cause_is_reachable() {
    let broken = |text: &str| {
        let mut files = files();
        files.push(PlanFile {
            path: ".ai/repo/intents/extra.yaml".into(),
            text: text.into(),
        });
        PlanInput::read(Some(&files))
    };
    let mut issue_and_exempt = exempt("tooling", Some("x"));
    issue_and_exempt.issue = Some("login".into());
    let cases: Vec<(Cause, PlanInput, BindingRequest)> = vec![
        (
            Cause::NoPlan,
            PlanInput::NoPlan,
            ask(Some("login"), None, &[]),
        ),
        (
            Cause::PlanUnreadable,
            broken("id: ["),
            ask(Some("login"), None, &[]),
        ),
        (Cause::UnknownIssue, plan(), ask(Some("nope"), None, &[])),
        (Cause::IssueDone, plan(), ask(Some("logout"), None, &[])),
        (
            Cause::IssueDone,
            plan(),
            ask(None, None, &["src/logout.rs"]),
        ),
        (
            Cause::IntentNotCritiqued,
            plan(),
            ask(Some("invoice"), None, &[]),
        ),
        (
            Cause::IntentNotCritiqued,
            plan(),
            ask(None, Some("billing"), &[]),
        ),
        (Cause::CritiqueBlocking, plan(), ask(Some("b1"), None, &[])),
        (
            Cause::CritiqueStale,
            critiqued_at("0123"),
            BindingRequest {
                critique_stale_refuses: true,
                ..ask(Some("login"), None, &[])
            },
        ),
        (
            Cause::PathsOutsidePlan,
            plan(),
            ask(None, None, &["nowhere/x.rs"]),
        ),
        (Cause::NothingNamed, plan(), ask(None, None, &[])),
        (Cause::UnknownIntent, plan(), ask(None, Some("nope"), &[])),
        (
            Cause::UnknownIntent,
            plan(),
            ask(Some("login"), Some("nope"), &[]),
        ),
        (Cause::IntentRetired, plan(), ask(None, Some("legacy"), &[])),
        (Cause::IntentRetired, plan(), ask(Some("old"), None, &[])),
        (
            Cause::IntentRetired,
            plan(),
            ask(None, None, &["legacy/a.rs"]),
        ),
        (
            Cause::IntentHasNoOpenWork,
            plan(),
            ask(None, Some("finished"), &[]),
        ),
        (
            Cause::IssueOutsideIntent,
            plan(),
            ask(Some("login"), Some("web"), &[]),
        ),
        (Cause::AmbiguousIntent, plan(), ask(None, None, &["src/"])),
        (Cause::UnknownExemption, plan(), exempt("chores", Some("x"))),
        (
            Cause::ExemptionWithoutReason,
            plan(),
            exempt("tooling", None),
        ),
        (Cause::ExemptionNamesWork, plan(), issue_and_exempt),
    ];
    let mut reached = BTreeSet::new();
    for (cause, plan, request) in &cases {
        let b = refused(plan, request);
        assert_eq!(b.causes, [*cause], "{request:?}: {}", b.note);
        reached.insert(*cause);
    }
    assert_eq!(reached, Cause::ALL.into_iter().collect());
}

#[test]
fn plan_unreadable_for_each_kind_of_broken_file() {
    let auth = files().remove(0).text;
    for (what, text, says) in [
        (
            "malformed YAML",
            auth.replace("title: login", "title: [login"),
            "line ",
        ),
        (
            "unknown key",
            format!("{auth}owner: me\n"),
            "auth.yaml: owner: unknown key",
        ),
        (
            "missing field",
            auth.replace("    title: logout\n", ""),
            "auth.yaml: issues[1].title: missing required field",
        ),
        (
            "bad glob",
            auth.replace("src/auth/**", "src/{auth"),
            "auth.yaml: issues[0].paths[0]: `src/{auth` is not a valid glob",
        ),
        (
            "dangling serves",
            auth.replacen("serves: [c1]", "serves: [c7]", 1),
            "auth.yaml: issues[0].serves[0]: `c7` names no criterion of this intent",
        ),
    ] {
        let mut files = files();
        files[0].text = text;
        let plan = PlanInput::read(Some(&files));
        for request in [
            ask(Some("page"), None, &[]),
            ask(None, Some("web"), &[]),
            ask(None, None, &["web/"]),
            ask(None, None, &[]),
        ] {
            let b = refused(&plan, &request);
            assert_eq!(b.causes, [Cause::PlanUnreadable], "{what}");
            assert!(
                b.note.contains(&format!(".ai/repo/intents/{says}")) || b.note.contains(says),
                "{what}: {}",
                b.note
            );
        }
    }
}

#[test]
fn causes_combine_on_one_issue() {
    let mut files = files();
    files[0].text = files[0]
        .text
        .replace("status: active\nstatement", "status: retired\nstatement")
        .replace(CRITIQUED, "");
    let plan = PlanInput::read(Some(&files));
    let b = refused(&plan, &ask(Some("logout"), Some("web"), &[]));
    assert_eq!(
        b.causes,
        [
            Cause::IssueDone,
            Cause::IntentNotCritiqued,
            Cause::IntentRetired,
            Cause::IssueOutsideIntent
        ]
    );
    assert_eq!(
        (b.issue.as_deref(), b.intent.as_deref()),
        (Some("logout"), Some("web"))
    );
}

#[test]
fn pins_hold_under_unrelated_edits_and_status_flips() {
    let pinned = run(&plan(), &ask(Some("login"), None, &[]));
    let mut files = files();
    files[1].text = files[1]
        .text
        .replace("The web statement.", "Another statement.");
    files[0].text = files[0]
        .text
        .replace(
            "status: active\n    paths: [\"src/session",
            "status: done\n    paths: [\"src/session",
        )
        .replacen("status: open", "status: active", 1);
    let now = run(
        &PlanInput::read(Some(&files)),
        &ask(Some("login"), None, &[]),
    );
    assert_eq!(now.status, BindingStatus::Bound);
    assert_eq!(now.plan_revision, pinned.plan_revision);
    assert_eq!(now.evidence_standing, pinned.evidence_standing);

    files[0].text = files[0].text.replace("The auth statement.", "A new aim.");
    let moved = run(
        &PlanInput::read(Some(&files)),
        &ask(Some("login"), None, &[]),
    );
    assert_ne!(moved.plan_revision, pinned.plan_revision);
    assert_eq!(moved.evidence_standing, pinned.evidence_standing);

    let other_blobs = |path: &str| Some(format!("other:{path}"));
    let b = bind(
        &plan(),
        &ask(Some("login"), None, &[]),
        &policy(),
        &other_blobs,
    );
    assert_eq!(b.plan_revision, pinned.plan_revision);
    assert_ne!(b.evidence_standing, pinned.evidence_standing);
}

#[test]
fn the_answer_serialises_as_spec_spells_it() {
    let b = refused(&plan(), &ask(None, None, &["src/"]));
    let json = serde_json::to_value(&b).expect("plain data");
    assert_eq!(json["status"], "refused");
    assert_eq!(json["causes"], serde_json::json!(["ambiguous_intent"]));
    for key in [
        "issue",
        "intent",
        "exemption",
        "plan_revision",
        "evidence_standing",
        "note",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    for cause in Cause::ALL {
        assert_eq!(serde_json::to_value(cause).expect("plain"), cause.as_str());
    }
    let schema = serde_json::to_value(schemars::schema_for!(Binding)).expect("schema");
    assert!(schema.to_string().contains("intent_has_no_open_work"));
}

/// A plan whose one intent's critique records `revision`.
fn critiqued_at(revision: &str) -> PlanInput {
    let critique = format!(
        "critiques:\n  - commit: abc\n    plan_revision: \"{revision}\"\n    findings: []\n"
    );
    let plan = PlanInput::read(Some(&[intent(
        "auth",
        "active",
        &issue("login", "open", "[\"src/auth/**\"]", ""),
        &critique,
    )]));
    assert!(matches!(plan, PlanInput::Plan(_)), "{plan:?}");
    plan
}

#[test]
fn a_stale_critique_refuses_only_when_asked_to_and_is_reported_otherwise() {
    let PlanInput::Plan(fresh) = critiqued_at("x") else {
        unreachable!("the fixture parses")
    };
    let now = crate::model::intent::critique_revision(&fresh.intents[0]);
    // Recorded at the revision now: nothing to say.
    let b = run(&critiqued_at(&now), &ask(Some("login"), None, &[]));
    assert_eq!(b.status, BindingStatus::Bound);
    assert!(b.causes.is_empty(), "{b:#?}");

    // Another revision: reported on an answer that still binds, with its pins.
    let stale = critiqued_at("0123");
    let b = run(&stale, &ask(Some("login"), None, &[]));
    assert_eq!(b.status, BindingStatus::Bound);
    assert_eq!(b.causes, [Cause::CritiqueStale]);
    assert!(b.plan_revision.is_some());
    assert!(
        b.note.contains(&format!(
            "reported, not refused: intent `auth`'s latest critique is stale: it reviewed plan revision 0123 and the plan has changed since; critique the plan again and record it as a new entry under `critiques:` in .ai/repo/intents/auth.yaml with `plan_revision: {now}`"
        )),
        "{}",
        b.note
    );

    // Refused when the request says so (`required`).
    let strict = BindingRequest {
        critique_stale_refuses: true,
        ..ask(Some("login"), None, &[])
    };
    let b = refused(&stale, &strict);
    assert_eq!(b.causes, [Cause::CritiqueStale]);

    // A critique without a revision is never stale.
    let legacy = PlanInput::read(Some(&[intent(
        "auth",
        "active",
        &issue("login", "open", "[\"src/auth/**\"]", ""),
        CRITIQUED,
    )]));
    assert!(run(&legacy, &strict).causes.is_empty());
}
