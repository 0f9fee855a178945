//! Whole flows through the model: assessment → plan → consultations → disagreement →
//! resolution → conclusion → validation, then status and explain.

use serde_json::{Value, json};

use super::record::{Favours, Holder, Record, RecordInput};
use super::status::{AssessmentState, explain, status};
use super::testing::World;
use super::transport::{detect_disagreement, parse_fixture};

/// The consultation inputs `consult` would give the writer for scripted fixtures.
fn consult(w: &mut World, plan: &str, fixtures: &[(&str, &str)]) -> Vec<String> {
    fixtures
        .iter()
        .map(|(advisor, fixture)| {
            let script = parse_fixture(fixture, &format!("{advisor}.json")).expect("valid fixture");
            w.consulted(World::consultation_input(plan, advisor, script.outcome))
        })
        .collect()
}

fn disagreement_input(w: &World, assessment: &str, consultations: &[String]) -> Option<Value> {
    let Record::Assessment(a) = &w.get(assessment).record else {
        panic!("not an assessment");
    };
    let bodies: Vec<(&str, &super::record::Consultation)> = consultations
        .iter()
        .map(|id| match &w.get(id).record {
            Record::Consultation(c) => (id.as_str(), c),
            other => panic!("{other:?}"),
        })
        .collect();
    detect_disagreement(assessment, a, &bodies)
        .map(|d| serde_json::to_value(RecordInput::Disagreement(d)).expect("serialises"))
}

#[test]
fn two_against_one_is_settled_by_an_experiment_not_by_the_majority() {
    let mut w = World::new();
    let a = w.assessment("Date landings by the forge's merge record?", "critical");
    let plan = w.plan(&a);
    let Record::Plan(p) = &plan.record else {
        panic!("a plan");
    };
    assert_eq!(p.budget, 3);
    assert_eq!(p.selected, vec!["alpha", "beta", "gamma"]);

    let consulted = consult(
        &mut w,
        &plan.id,
        &[
            (
                "alpha",
                r#"{"answer":{"conclusion":"The reflog is enough","stance":"supports","assumptions":["the reflog sees every landing"],"usage":{"input_tokens":100,"output_tokens":20}}}"#,
            ),
            (
                "beta",
                r#"{"answer":{"conclusion":"Keep the reflog","stance":"supports","assumptions":["the reflog sees every landing"],"usage":{"input_tokens":90,"output_tokens":30}}}"#,
            ),
            (
                "gamma",
                r#"{"answer":{"conclusion":"Read the forge: a fresh clone has no reflog","stance":"opposes","assumptions":["clones are long-lived"],"falsifiers":["a landing in a fresh clone"]}}"#,
            ),
        ],
    );

    let disagreement = disagreement_input(&w, &a, &consulted).expect("gamma opposes");
    let d = w.ok(disagreement);
    let Record::Disagreement(recorded) = &w.get(&d).record else {
        panic!("a disagreement");
    };
    assert_eq!(recorded.positions.len(), 4);
    assert_eq!(recorded.positions[0].holder, Holder::Executor);
    assert_eq!(
        recorded.divergent_assumptions,
        vec!["the reflog sees every landing", "clones are long-lived"]
    );
    assert!(
        recorded
            .question
            .ends_with("Decide by: a landing in a fresh clone")
    );

    let conclusion = json!({
        "kind": "conclusion", "assessment": a,
        "decision": "Keep the reflog", "rationale": "two advisors agree",
        "evidence": ["command:git reflog => 4 landings within 94 s"],
        "consultations": consulted, "validation_plan": "watch the next landings",
    });
    // Three positions of four agree; the majority settles nothing.
    let e = w.refused(conclusion.clone());
    assert_eq!(e.rule(), "reasoning.conclusion-disputed");
    assert!(e.fix().contains(&d), "{}", e.fix());

    // A "resolution" without evidence is refused too.
    let e = w.refused(
        json!({"kind": "resolution", "disagreement": d, "experiment": "count votes",
        "result": "2 to 1", "favours": "executor", "evidence": []}),
    );
    assert_eq!(e.rule(), "reasoning.resolution-evidence");

    // The experiment favours the minority.
    let r = w.ok(json!({"kind": "resolution", "disagreement": d,
        "experiment": "land a change in a fresh clone", "result": "the fresh clone's reflog missed it",
        "favours": "gamma", "evidence": ["command:git reflog (fresh clone) => no entry for the landing"]}));
    let Record::Resolution(resolution) = &w.get(&r).record else {
        panic!("a resolution");
    };
    assert_eq!(resolution.favours, Favours::Advisor("gamma".into()));

    let decided = json!({
        "kind": "conclusion", "assessment": a,
        "decision": "Read the forge's merge record", "rationale": "a fresh clone has no reflog (resolution)",
        "evidence": ["command:git reflog (fresh clone) => no entry for the landing"],
        "consultations": consulted, "rejected_alternatives": ["keep the reflog"],
        "validation_plan": "a landing in a fresh clone is dated",
    });
    let c = w.ok(decided);
    let Record::Conclusion(concluded) = &w.get(&c).record else {
        panic!("a conclusion");
    };
    assert_eq!(concluded.reviewed_by, vec!["alpha", "beta", "gamma"]);
    assert_eq!(concluded.independent_review_count, 3);

    let report = status(&w.records);
    assert_eq!(report.assessments[0].state, AssessmentState::Concluded);
    w.ok(
        json!({"kind": "validation", "conclusion": c, "check": "fresh clone landing",
        "command": "cargo test -j2 landing", "outcome": "pass"}),
    );

    let report = status(&w.records);
    assert_eq!(report.assessments.len(), 1);
    assert_eq!(report.assessments[0].state, AssessmentState::Validated);
    assert_eq!(report.consultations.len(), 3);
    assert_eq!(
        report.disagreements[0].holders,
        vec!["executor", "alpha", "beta", "gamma"]
    );
    assert!(report.disagreements[0].resolved);
    assert_eq!(
        report.conclusions[0].reviewed_by,
        vec!["alpha", "beta", "gamma"]
    );
    assert_eq!(
        report.conclusions[0].validation,
        Some(super::record::Outcome::Pass)
    );
    assert_eq!(
        (report.tokens.input_tokens, report.tokens.output_tokens),
        (190, 50)
    );
    assert_eq!(report.timeline.len(), w.records.len());
    assert!(
        report
            .timeline
            .windows(2)
            .all(|p| p[0].recorded_at <= p[1].recorded_at)
    );
    assert_eq!(
        report.timeline[0].summary,
        "critical: Date landings by the forge's merge record?"
    );

    let chain = explain(&c, &w.records).expect("a recorded conclusion");
    assert_eq!(
        chain.assessment.as_ref().map(|r| r.id.as_str()),
        Some(a.as_str())
    );
    assert_eq!(chain.plans.len(), 1);
    assert_eq!(chain.consultations.len(), 3);
    assert_eq!(chain.disagreements.len(), 1);
    assert_eq!(chain.resolutions.len(), 1);
    assert_eq!(chain.conclusion.id, c);
    assert_eq!(chain.validations.len(), 1);
    assert_eq!(
        explain("conclusion-0123456789ab", &w.records)
            .unwrap_err()
            .rule(),
        "reasoning.known-record"
    );
    assert_eq!(explain("../x", &w.records).unwrap_err().rule(), "id.shape");
}

#[test]
fn states_follow_the_records() {
    let mut w = World::new();
    let a = w.assessment("subject one", "high");
    assert_eq!(
        status(&w.records).assessments[0].state,
        AssessmentState::Open
    );
    let plan = w.plan(&a);
    assert_eq!(
        status(&w.records).assessments[0].state,
        AssessmentState::Planned
    );
    let opposing = consult(
        &mut w,
        &plan.id,
        &[(
            "alpha",
            r#"{"answer":{"conclusion":"no","stance":"alternative"}}"#,
        )],
    );
    let d = disagreement_input(&w, &a, &opposing).expect("an alternative diverges");
    w.ok(d);
    assert_eq!(
        status(&w.records).assessments[0].state,
        AssessmentState::Disputed
    );

    // A failed validation leaves it concluded; a later standing conclusion can validate it.
    let mut w = World::new();
    let a = w.assessment("subject two", "low");
    let c = w.ok(json!({"kind": "conclusion", "assessment": a, "decision": "d", "rationale": "r"}));
    w.ok(json!({"kind": "validation", "conclusion": c, "check": "c", "command": "x", "outcome": "fail"}));
    let report = status(&w.records);
    assert_eq!(report.assessments[0].state, AssessmentState::Concluded);
    assert_eq!(
        report.conclusions[0].validation,
        Some(super::record::Outcome::Fail)
    );
    let c2 = w.ok(json!({"kind": "conclusion", "assessment": a, "decision": "d2", "rationale": "r", "supersedes": c}));
    w.ok(json!({"kind": "validation", "conclusion": c2, "check": "c", "command": "x", "outcome": "pass"}));
    let report = status(&w.records);
    assert_eq!(report.assessments[0].state, AssessmentState::Validated);
    assert_eq!(
        report.conclusions[0].superseded_by.as_deref(),
        Some(c2.as_str())
    );
}

#[test]
fn a_later_assessment_of_the_same_subject_reuses_the_conclusion() {
    let mut w = World::new();
    let a = w.assessment("Date landings by the forge's merge record?", "high");
    let plan = w.plan(&a);
    let consulted = consult(
        &mut w,
        &plan.id,
        &[
            (
                "alpha",
                r#"{"answer":{"conclusion":"yes","stance":"supports"}}"#,
            ),
            ("beta", r#"{"failure":{"kind":"timeout"}}"#),
        ],
    );
    assert!(disagreement_input(&w, &a, &consulted).is_none());
    let c = w.ok(json!({"kind": "conclusion", "assessment": a, "decision": "keep the reflog", "rationale": "r",
        "evidence": ["test:landing_dates"], "consultations": consulted, "validation_plan": "v"}));

    let again = w.assessment("date landings by the FORGE'S merge record", "high");
    let plan = w.plan(&again);
    let Record::Plan(p) = &plan.record else {
        panic!("a plan")
    };
    assert_eq!(p.reuses.as_deref(), Some(c.as_str()));
    assert!(p.selected.is_empty());
    assert_eq!(
        status(&w.records).assessments[1].reuses.as_deref(),
        Some(c.as_str())
    );
    // Reused: consulting anyone under that plan is refused.
    let e = w.consult_refused(World::consultation_input(
        &plan.id,
        "alpha",
        World::answer("supports", "y"),
    ));
    assert_eq!(e.rule(), "reasoning.consultation-selected");
}

/// A low assessment concluded without review, in the world's current task.
fn concluded(w: &mut World, subject: &str) -> (String, String) {
    let a = w.assessment(subject, "low");
    let c = w.ok(json!({"kind": "conclusion", "assessment": a, "decision": "keep the reflog", "rationale": "r"}));
    (a, c)
}

#[test]
fn a_standing_conclusion_of_another_task_is_reused_not_rediscovered() {
    let mut w = World::new();
    let (_, c) = concluded(&mut w, "Date landings by the forge's merge record?");
    w.next_task("task-2");
    let again = w.assessment("date landings by the FORGE'S merge record", "high");
    let plan = w.plan(&again);
    let Record::Plan(p) = &plan.record else {
        panic!("a plan")
    };
    assert_eq!(p.reuses.as_deref(), Some(c.as_str()), "{p:?}");
    assert!(p.selected.is_empty());
    assert_eq!(
        status(&w.records).assessments[0].reuses.as_deref(),
        Some(c.as_str())
    );
}

#[test]
fn new_evidence_concludes_again_naming_what_it_supersedes_in_any_task() {
    let mut w = World::new();
    let (_, old) = concluded(&mut w, "Date landings by the forge's merge record?");
    let (_, unrelated) = concluded(&mut w, "Which lock guards the ledger?");
    w.next_task("task-2");
    let a = w.ok(
        json!({"kind": "assessment", "subject": "date landings by the forge's merge record",
        "materiality": "low", "confidence": "medium", "hypothesis": "the merge record is late",
        "new_evidence": true}),
    );
    let plan = w.plan(&a);
    let Record::Plan(p) = &plan.record else {
        panic!("a plan")
    };
    assert_eq!(p.reuses, None, "new evidence reviews again");
    let conclusion = |supersedes: Option<&str>| {
        let mut c = json!({"kind": "conclusion", "assessment": a, "decision": "date by the merge record", "rationale": "r"});
        if let Some(s) = supersedes {
            c["supersedes"] = json!(s);
        }
        c
    };
    let e = w.refused(conclusion(None));
    assert_eq!(e.rule(), "reasoning.conclusion-supersedes");
    assert!(e.to_string().contains(&old), "{e}");
    assert!(
        e.fix().contains(&format!("\"supersedes\": \"{old}\"")),
        "{}",
        e.fix()
    );
    let e = w.refused(conclusion(Some(&unrelated)));
    assert_eq!(e.rule(), "reasoning.conclusion-supersedes");
    assert!(
        e.to_string().contains("does not stand on that subject"),
        "{e}"
    );
    let e = w.refused(conclusion(Some("conclusion-0123456789ab")));
    assert_eq!(e.rule(), "reasoning.known-record");
    assert!(e.to_string().contains("this checkout"), "{e}");

    // Naming the other task's conclusion is accepted, and it stops standing.
    let new = w.ok(conclusion(Some(&old)));
    let mut checkout = w.elsewhere.clone();
    checkout.extend(w.records.iter().cloned());
    assert_eq!(
        super::plan::standing_conclusion("Date landings by the forge's merge record", &checkout),
        Some(new)
    );

    // New evidence on a subject nothing concluded supersedes nothing.
    let fresh = w.ok(
        json!({"kind": "assessment", "subject": "a subject nobody concluded",
        "materiality": "low", "confidence": "medium", "hypothesis": "h", "new_evidence": true}),
    );
    w.ok(json!({"kind": "conclusion", "assessment": fresh, "decision": "d", "rationale": "r"}));
}

#[test]
fn the_circuit_reads_recorded_consultations() {
    use super::availability::{Conditions, Disabled, Presence, Status, assess, history};
    let mut w = World::new();
    let a = w.assessment("s", "critical");
    let first = w.plan(&a);
    consult(
        &mut w,
        &first.id,
        &[("alpha", r#"{"failure":{"kind":"timeout"}}"#)],
    );
    let second = w.plan(&a);
    assert_ne!(
        first.id, second.id,
        "a plan at another moment is another plan"
    );
    consult(
        &mut w,
        &second.id,
        &[(
            "alpha",
            r#"{"failure":{"kind":"error","diagnostic":"boom"}}"#,
        )],
    );

    let alpha = w.catalogue.get("alpha").expect("in the catalogue").clone();
    let disabled = Disabled::default();
    let conditions = Conditions {
        mode: w.mode,
        disabled: &disabled,
        cooldown_override: None,
        now: w.now,
    };
    let got = assess(
        &alpha,
        Presence::default(),
        &conditions,
        &history("alpha", &w.records),
    );
    assert!(
        matches!(got.status, Status::TemporarilyFailed { .. }),
        "{got:?}"
    );
    let third = w.plan(&a);
    let Record::Plan(p) = &third.record else {
        panic!("a plan")
    };
    assert_eq!(p.selected, vec!["beta", "gamma"]);
    assert!(
        p.not_selected[0]
            .reason
            .starts_with("not available: temporarily_failed until ")
    );
}

#[test]
fn every_api_type_has_a_json_schema() {
    use schemars::schema_for;
    let schemas = [
        ("StoredRecord", schema_for!(super::record::StoredRecord)),
        ("RecordInput", schema_for!(super::record::RecordInput)),
        ("Catalogue", schema_for!(super::catalogue::Catalogue)),
        ("Snapshot", schema_for!(super::availability::Snapshot)),
        ("PlanDecision", schema_for!(super::plan::PlanDecision)),
        ("ResolvedMode", schema_for!(super::plan::ResolvedMode)),
        ("Answer", schema_for!(super::transport::Answer)),
        ("Failure", schema_for!(super::transport::Failure)),
        (
            "ReasoningStatus",
            schema_for!(super::status::ReasoningStatus),
        ),
        ("Provenance", schema_for!(super::status::Provenance)),
    ];
    for (name, schema) in schemas {
        let text = serde_json::to_string(&schema).expect("a schema serialises");
        assert!(text.len() > 50, "{name}: {text}");
    }
    // The input union names every kind a caller writes, and no plan or consultation.
    let input = serde_json::to_string(&schema_for!(super::record::RecordInput)).unwrap();
    for kind in [
        "assessment",
        "disagreement",
        "resolution",
        "conclusion",
        "validation",
        "attempt",
    ] {
        assert!(input.contains(&format!("\"const\":\"{kind}\"")), "{kind}");
    }
    assert!(!input.contains("\"const\":\"plan\""));
    assert!(!input.contains("\"const\":\"consultation\""));
}

/// Property tests: the writer redacts every secret shape (SPEC §0) from every string it
/// stores, whatever text surrounds the secret. `PROPTEST_CASES=100000` runs longer.
mod props {
    use proptest::prelude::*;
    use serde_json::json;

    use super::World;
    use crate::model::reasoning::validate::Redaction;

    /// The redaction the CLI's writer applies (`reasoning::redaction`).
    fn redaction(text: &str) -> Redaction {
        let r = crate::model::redact::redact(text);
        Redaction {
            text: r.text,
            shapes: r.shapes.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// (the text carrying a secret, the secret part that must not survive)
    fn secret() -> impl Strategy<Value = (String, String)> {
        let same = |s: String| (s.clone(), s);
        prop_oneof![
            "AKIA[A-Z2-7]{16}".prop_map(same),
            "ghp_[A-Za-z0-9]{36}".prop_map(same),
            "glpat-[A-Za-z0-9_-]{20}".prop_map(same),
            "xoxb-[0-9]{12}-[0-9]{13}-[A-Za-z0-9]{24}".prop_map(same),
            "sk_live_[A-Za-z0-9]{24}".prop_map(same),
            "[A-Za-z0-9+/]{64}".prop_map(|body| (
                format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"),
                body
            )),
            "[a-z]{4}[0-9]{4}[A-Z]{4}".prop_map(|v| (format!("DB_PASSWORD={v}"), v)),
            "[A-Za-z0-9]{32}".prop_map(|v| (format!("Authorization: Bearer {v}"), v)),
            "[a-z]{5}[0-9]{5}".prop_map(|v| (format!("https://ada:{v}@example.com/r.git"), v)),
        ]
    }

    /// What may separate the secret from its neighbours: spaces, punctuation, quotes, and
    /// terminal control characters (which the writer removes before it looks).
    fn boundary() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            " ",
            "\n",
            "\t",
            "\"",
            "'",
            "(",
            ")",
            ",",
            ";",
            "\u{7}",
            "\r",
            "\u{1b}[0m",
            "\u{1b}[31m",
            "\u{9b}1m",
            "\u{7f}",
        ])
    }

    /// What may follow it: the same, but `(` (`password=value(` reads as a call, code).
    fn right_boundary() -> impl Strategy<Value = &'static str> {
        boundary().prop_filter("not a call", |b| *b != "(")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn the_writer_redacts_a_secret_whatever_surrounds_it(
            (text, secret) in secret(),
            before in any::<String>(),
            after in any::<String>(),
            left in boundary(),
            right in right_boundary(),
            field in 0usize..4,
        ) {
            // Only what the redactor recognises on its own is asked of it in context.
            prop_assume!(!crate::model::redact::redact(&text).is_clean());
            let hidden = format!("{before}{left}{text}{right}{after}");
            let mut fields = ["tried", "failure", "invalidated_assumption", "updated_hypothesis"]
                .map(|f| (f, json!("plain words")));
            fields[field].1 = json!(hidden);
            let mut input = serde_json::Map::new();
            input.insert("kind".into(), json!("attempt"));
            for (k, v) in fields {
                input.insert(k.into(), v);
            }
            let mut w = World::new();
            w.redact = redaction;
            let accepted = w.write(serde_json::Value::Object(input));
            // A refusal writes nothing; an accepted record must not keep the secret.
            if let Ok(accepted) = accepted {
                let stored = serde_json::to_string(&accepted.record).expect("serialises");
                prop_assert!(
                    !stored.contains(&secret),
                    "the stored record keeps the secret {secret:?}: {stored}"
                );
            }
        }
    }
}
