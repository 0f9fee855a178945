use serde_json::json;

use super::*;
use crate::model::reasoning::record::FailureKind;
use crate::model::reasoning::testing::World;
use crate::model::reasoning::transport::Failure;

fn rule(e: &RecordRefusal) -> &'static str {
    e.rule()
}

fn assessment_json() -> Value {
    json!({
        "kind": "assessment",
        "subject": "s",
        "materiality": "high",
        "confidence": "low",
        "hypothesis": "h",
        "evidence": ["file:src/lib.rs:1"],
    })
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

#[test]
fn shape_refusals() {
    let mut w = World::new();
    assert_eq!(rule(&w.refused(json!([1]))), "reasoning.record-shape");
    assert_eq!(
        rule(&w.refused(json!({"subject": "s"}))),
        "reasoning.record-shape"
    );
    let e = w.refused(json!({"kind": "opinion"}));
    assert_eq!(
        (rule(&e), e.to_string().contains("opinion")),
        ("reasoning.record-shape", true)
    );

    let e = w.refused(json!({"kind": "plan", "assessment": "assessment-0123456789ab"}));
    assert_eq!(e, RecordRefusal::PlanSupplied);
    assert_eq!(rule(&e), "reasoning.plan-computed");
    assert!(
        e.fix()
            .starts_with("majordomus reasoning plan --assessment")
    );

    for field in COMPUTED_FIELDS {
        let e = w.refused(with(assessment_json(), field, json!("x")));
        assert_eq!(
            e,
            RecordRefusal::ComputedField {
                kind: RecordKind::Assessment,
                field: field.to_owned()
            }
        );
        assert_eq!(rule(&e), "reasoning.computed-field");
    }

    let e = w.refused(with(assessment_json(), "verdict", json!(true)));
    assert_eq!(
        e,
        RecordRefusal::UnknownField {
            kind: RecordKind::Assessment,
            field: "verdict".into()
        }
    );
    assert_eq!(rule(&e), "reasoning.unknown-field");
    assert!(e.fix().contains("subject"), "{}", e.fix());

    let mut missing = assessment_json();
    missing.as_object_mut().unwrap().remove("hypothesis");
    let e = w.refused(missing);
    assert!(
        matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "hypothesis"),
        "{e:?}"
    );
    assert_eq!(rule(&e), "reasoning.field");

    let e = w.refused(with(assessment_json(), "materiality", json!("huge")));
    assert!(
        matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "materiality"),
        "{e:?}"
    );
    assert!(e.to_string().contains("huge"), "{e}");
    let e = w.refused(with(assessment_json(), "facts", json!("one fact")));
    assert!(
        matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "facts"),
        "{e:?}"
    );
    let e = w.refused(with(assessment_json(), "subject", json!("  ")));
    assert!(
        matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "subject"),
        "{e:?}"
    );
    let e = w.refused(with(
        assessment_json(),
        "capabilities",
        json!(["Code Review"]),
    ));
    assert!(
        matches!(&e, RecordRefusal::InvalidField { field, .. } if field == "capabilities"),
        "{e:?}"
    );

    let e = w.refused(with(
        assessment_json(),
        "evidence",
        json!(["file:a.rs", "src/lib.rs"]),
    ));
    assert!(
        matches!(&e, RecordRefusal::EvidenceShape { field, .. } if field == "evidence[1]"),
        "{e:?}"
    );
    assert_eq!(rule(&e), "reasoning.evidence-ref");
    assert!(w.records.is_empty());
}

#[test]
fn assessment_evidence() {
    let mut w = World::new();
    for materiality in ["material", "high", "critical"] {
        let e = w.refused(with(
            with(assessment_json(), "materiality", json!(materiality)),
            "evidence",
            json!([]),
        ));
        assert_eq!(rule(&e), "reasoning.assessment-evidence", "{materiality}");
    }
    for materiality in ["trivial", "low"] {
        let mut input = with(assessment_json(), "materiality", json!(materiality));
        input.as_object_mut().unwrap().remove("evidence");
        w.ok(input);
    }
    // Capabilities default to independent reasoning.
    let id = w.ok(assessment_json());
    match &w.get(&id).record {
        Record::Assessment(a) => assert_eq!(a.capabilities, vec!["independent_reasoning"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn references_must_resolve_and_be_id_shaped() {
    let mut w = World::new();
    let e = w.refused(json!({"kind": "validation", "conclusion": "../../etc/passwd", "check": "c", "command": "x", "outcome": "pass"}));
    assert_eq!(rule(&e), "id.shape");
    let e = w.refused(json!({"kind": "validation", "conclusion": "conclusion-0123456789ab", "check": "c", "command": "x", "outcome": "pass"}));
    assert_eq!(
        e,
        RecordRefusal::UnknownRecord {
            kind: RecordKind::Validation,
            field: "conclusion".into(),
            id: "conclusion-0123456789ab".into(),
            expected: RecordKind::Conclusion
        }
    );
    assert_eq!(rule(&e), "reasoning.known-record");
    let e = w.refused(json!({"kind": "attempt", "assessment": "assessment-0123456789ab", "tried": "t", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h"}));
    assert_eq!(rule(&e), "reasoning.known-record");
    let e = w.refused(json!({"kind": "conclusion", "assessment": "assessment-0123456789ab", "decision": "d", "rationale": "r"}));
    assert_eq!(rule(&e), "reasoning.known-record");
    let e = w.refused(json!({"kind": "disagreement", "assessment": "assessment-0123456789ab", "question": "q",
            "positions": [{"holder": "executor", "stance": "supports", "claim": "a"}, {"holder": "executor2", "stance": "opposes", "claim": "b", "consultation": "consultation-0123456789ab"}]}));
    assert_eq!(rule(&e), "reasoning.known-record");
    let e = w.refused(json!({"kind": "resolution", "disagreement": "disagreement-0123456789ab", "experiment": "e", "result": "r", "favours": "none", "evidence": ["test:x"]}));
    assert_eq!(rule(&e), "reasoning.known-record");
    let e = w.consult_refused(World::consultation_input(
        "plan-0123456789ab",
        "alpha",
        World::answer("supports", "c"),
    ));
    assert_eq!(rule(&e), "reasoning.known-record");
    // A well-shaped id of another kind is not a reference of this kind.
    let a = w.assessment("s", "high");
    let e = w.refused(json!({"kind": "validation", "conclusion": a, "check": "c", "command": "x", "outcome": "pass"}));
    assert_eq!(rule(&e), "id.shape");
}

#[test]
fn consultation_refusals() {
    let mut w = World::new();
    w.mode = crate::model::policy::ReasoningMode::Standard;
    let a = w.assessment("s", "material");
    let plan = w.plan(&a);
    match &plan.record {
        Record::Plan(p) => assert_eq!(p.selected, vec!["alpha"]),
        other => panic!("{other:?}"),
    }
    let e = w.consult_refused(World::consultation_input(
        &plan.id,
        "beta",
        World::answer("supports", "c"),
    ));
    assert_eq!(rule(&e), "reasoning.consultation-selected");
    assert!(e.fix().contains("alpha"), "{}", e.fix());

    let mut no_conclusion =
        World::consultation_input(&plan.id, "alpha", World::answer("supports", "c"));
    no_conclusion.as_object_mut().unwrap().remove("conclusion");
    assert_eq!(
        w.consult_refused(no_conclusion),
        RecordRefusal::CompletedWithoutConclusion
    );

    let timeout = || {
        Err(Failure {
            kind: FailureKind::Timeout,
            retry_after_seconds: None,
            diagnostic: None,
        })
    };
    let failed_with = with(
        World::consultation_input(&plan.id, "alpha", timeout()),
        "conclusion",
        json!("c"),
    );
    let e = w.consult_refused(failed_with);
    assert_eq!(
        (rule(&e), e.to_string().contains("timeout")),
        ("reasoning.consultation-failed", true)
    );
    let failed_with = with(
        World::consultation_input(&plan.id, "alpha", timeout()),
        "stance",
        json!("opposes"),
    );
    assert_eq!(
        rule(&w.consult_refused(failed_with)),
        "reasoning.consultation-failed"
    );
    let retry = with(
        World::consultation_input(&plan.id, "alpha", timeout()),
        "retry_after_seconds",
        json!(30),
    );
    let e = w.consult_refused(retry);
    assert_eq!(
        e,
        RecordRefusal::RetryAfterWithoutRateLimit {
            status: ConsultationStatus::Timeout
        }
    );

    let first = World::consultation_input(&plan.id, "alpha", timeout());
    let id = w.consulted(first.clone());
    // The same record again is unchanged; another outcome for the same advisor is not.
    let again = w.write_as(first, Author::Consult).unwrap();
    assert!(again.unchanged);
    assert_eq!(again.record.id, id);
    let e = w.consult_refused(World::consultation_input(
        &plan.id,
        "alpha",
        World::answer("supports", "c"),
    ));
    assert_eq!(rule(&e), "reasoning.consultation-once");
    assert!(e.fix().contains(&a), "{}", e.fix());
}

#[test]
fn a_caller_cannot_hand_in_a_consultation() {
    let mut w = World::new();
    let a = w.assessment("s", "high");
    let plan = w.plan(&a);
    // Two hand-written completed consultations would count two independent reviews.
    for advisor in ["alpha", "beta"] {
        let e = w.refused(World::consultation_input(
            &plan.id,
            advisor,
            World::answer("supports", "yes"),
        ));
        assert_eq!(rule(&e), "reasoning.consultation-by-consult");
        assert_eq!(
            e.fix(),
            format!("majordomus reasoning consult --assessment {a} --task task-1")
        );
    }
    // Whatever it carries: a failure, or a plan this task does not have.
    let e = w.refused(json!({"kind": "consultation", "plan": "plan-0123456789ab", "advisor": "alpha", "status": "timeout", "duration_ms": 1}));
    assert_eq!(rule(&e), "reasoning.consultation-by-consult");
    assert!(e.fix().contains("<its id>"), "{}", e.fix());
    assert!(
        !w.records
            .iter()
            .any(|r| r.kind() == RecordKind::Consultation)
    );
    // `consult` writes them from the adapters' answers.
    w.consulted(World::consultation_input(
        &plan.id,
        "alpha",
        World::answer("supports", "yes"),
    ));
    // A caller's UnknownKind fix no longer offers the kind.
    let e = w.refused(json!({"kind": "review"}));
    assert!(!e.fix().contains("consultation"), "{}", e.fix());
}

#[test]
fn disagreement_and_resolution_refusals() {
    let mut w = World::new();
    let a = w.assessment("s", "critical");
    let plan = w.plan(&a);
    let alpha = w.consulted(World::consultation_input(
        &plan.id,
        "alpha",
        World::answer("opposes", "no"),
    ));
    let beta = w.consulted(World::consultation_input(
        &plan.id,
        "beta",
        Err(Failure {
            kind: FailureKind::Timeout,
            retry_after_seconds: None,
            diagnostic: None,
        }),
    ));
    let executor = json!({"holder": "executor", "stance": "supports", "claim": "h"});
    let input = |positions: Value| json!({"kind": "disagreement", "assessment": a, "positions": positions, "question": "q?"});

    let e = w.refused(input(json!([executor])));
    assert_eq!(e, RecordRefusal::TooFewPositions { count: 1 });
    assert_eq!(rule(&e), "reasoning.disagreement-positions");
    let e = w.refused(input(json!([executor, executor])));
    assert_eq!(rule(&e), "reasoning.disagreement-positions");

    let e = w.refused(input(json!([executor, {"holder": "beta", "consultation": beta, "stance": "opposes", "claim": "x"}])));
    assert_eq!(rule(&e), "reasoning.position-completed");

    let sources = [
        json!([{"holder": "executor", "consultation": alpha, "stance": "supports", "claim": "h"}, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}]),
        json!([executor, {"holder": "alpha", "stance": "opposes", "claim": "no"}]),
        json!([executor, {"holder": "gamma", "consultation": alpha, "stance": "opposes", "claim": "no"}]),
        json!([executor, {"holder": "alpha", "consultation": alpha, "stance": "supports", "claim": "no"}]),
    ];
    for positions in sources {
        let e = w.refused(input(positions.clone()));
        assert_eq!(rule(&e), "reasoning.position-source", "{positions}");
    }
    // A consultation of another assessment.
    let other = w.assessment("another subject", "critical");
    let e = w.refused(json!({"kind": "disagreement", "assessment": other, "question": "q",
            "positions": [executor, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}]}));
    assert_eq!(rule(&e), "reasoning.position-source");

    let d = w.ok(input(json!([executor, {"holder": "alpha", "consultation": alpha, "stance": "opposes", "claim": "no"}])));
    let resolution = |favours: &str, evidence: Value| json!({"kind": "resolution", "disagreement": d, "experiment": "e", "result": "r", "favours": favours, "evidence": evidence});
    let e = w.refused(resolution("alpha", json!([])));
    assert_eq!(e, RecordRefusal::ResolutionEvidence);
    assert_eq!(rule(&e), "reasoning.resolution-evidence");
    let e = w.refused(resolution("gamma", json!(["test:x"])));
    assert_eq!(rule(&e), "reasoning.resolution-favours");
    assert!(e.fix().contains("executor, alpha"), "{}", e.fix());
    w.ok(resolution("none", json!(["test:x"])));
}

#[test]
fn conclusion_refusals_and_computed_review() {
    let mut w = World::new();
    let a = w.assessment("s", "high");
    let plan = w.plan(&a);
    let alpha = w.consulted(World::consultation_input(
        &plan.id,
        "alpha",
        World::answer("supports", "yes"),
    ));
    let beta = w.consulted(World::consultation_input(
        &plan.id,
        "beta",
        Err(Failure {
            kind: FailureKind::AuthFailed,
            retry_after_seconds: None,
            diagnostic: Some("401".into()),
        }),
    ));
    let conclusion = |consultations: Value| {
        json!({
            "kind": "conclusion", "assessment": a, "decision": "keep the reflog", "rationale": "measured",
            "evidence": ["command:git reflog => 4 landings"], "consultations": consultations,
            "validation_plan": "watch the next landings",
        })
    };

    let e = w.refused(conclusion(json!([beta])));
    assert_eq!(
        e,
        RecordRefusal::NotWeighed {
            consultation: alpha.clone(),
            advisor: "alpha".into(),
            assessment: a.clone()
        }
    );
    assert_eq!(rule(&e), "reasoning.conclusion-weighed");

    let e = w.refused(with(
        conclusion(json!([alpha, beta])),
        "evidence",
        json!([]),
    ));
    assert_eq!(rule(&e), "reasoning.conclusion-evidence");
    assert!(e.to_string().contains("no evidence"), "{e}");
    let mut no_plan = conclusion(json!([alpha, beta]));
    no_plan.as_object_mut().unwrap().remove("validation_plan");
    let e = w.refused(no_plan);
    assert_eq!(rule(&e), "reasoning.conclusion-evidence");
    assert!(e.to_string().contains("no validation plan"), "{e}");

    let e = w.refused(with(
        conclusion(json!([alpha])),
        "reviewed_by",
        json!(["alpha", "beta", "gamma"]),
    ));
    assert_eq!(rule(&e), "reasoning.computed-field");
    let e = w.refused(with(
        conclusion(json!([alpha])),
        "independent_review_count",
        json!(3),
    ));
    assert_eq!(rule(&e), "reasoning.computed-field");

    let other = w.assessment("another", "high");
    let other_plan = w.plan(&other);
    let foreign = w.consulted(World::consultation_input(
        &other_plan.id,
        "alpha",
        World::answer("supports", "y"),
    ));
    let e = w.refused(conclusion(json!([alpha, foreign])));
    assert_eq!(rule(&e), "reasoning.conclusion-consultations");

    // The failed consultation is weighed but reviewed nothing.
    let id = w.ok(conclusion(json!([beta, alpha])));
    match &w.get(&id).record {
        Record::Conclusion(c) => {
            assert_eq!(c.reviewed_by, vec!["alpha"]);
            assert_eq!(c.independent_review_count, 1);
        }
        other => panic!("{other:?}"),
    }
    // A low assessment needs neither evidence nor a validation plan.
    let low = w.ok(json!({"kind": "assessment", "subject": "naming", "materiality": "low", "confidence": "high", "hypothesis": "h"}));
    w.ok(json!({"kind": "conclusion", "assessment": low, "decision": "d", "rationale": "r"}));
    let e = w.refused(json!({"kind": "conclusion", "assessment": low, "decision": "d2", "rationale": "r", "supersedes": "conclusion-0123456789ab"}));
    assert_eq!(rule(&e), "reasoning.known-record");
}

#[test]
fn strings_are_redacted_and_the_shapes_named() {
    fn redact(text: &str) -> Redaction {
        if text.contains("sk-live-123") {
            Redaction {
                text: text.replace("sk-live-123", "[redacted: api-key]"),
                shapes: vec!["api-key".into()],
            }
        } else {
            no_redaction(text)
        }
    }
    let mut w = World::new();
    w.redact = redact;
    let id = w.ok(
        json!({"kind": "assessment", "subject": "key sk-live-123 leaks", "materiality": "low",
            "confidence": "low", "hypothesis": "h", "facts": ["env shows sk-live-123"]}),
    );
    let stored = w.get(&id);
    assert_eq!(stored.redacted, vec!["api-key"]);
    let text = serde_json::to_string(stored).unwrap();
    assert!(!text.contains("sk-live-123"), "{text}");
    assert!(text.contains("[redacted: api-key]"));
    assert_eq!(stored.computed_id(), stored.id);
    assert_eq!(stored.recorded_at, "2026-10-21T12:01:00Z");
    assert_eq!(stored.task, "task-1");
}

#[test]
fn every_refusal_has_a_rule_and_a_fix() {
    let mut w = World::new();
    let e = w.refused(json!({"kind": "attempt", "tried": "", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h"}));
    assert_eq!(rule(&e), "reasoning.field");
    assert!(!e.fix().is_empty());
    assert!(e.rule().starts_with("reasoning.") || e.rule() == "id.shape");
}

#[test]
fn input_shapes_come_from_the_schema() {
    let shape = input_shape(RecordKind::Conclusion);
    assert!(shape.fields.contains(&"supersedes".to_owned()));
    assert!(!shape.fields.contains(&"reviewed_by".to_owned()));
    assert_eq!(shape.required, vec!["assessment", "decision", "rationale"]);
    let shape = input_shape(RecordKind::Consultation);
    assert_eq!(
        shape.required,
        vec!["plan", "advisor", "status", "duration_ms"]
    );
    let shape = input_shape(RecordKind::Assessment);
    assert_eq!(
        shape.required,
        vec!["subject", "materiality", "confidence", "hypothesis"]
    );
}
