//! `handover --resolve`: compares a handover's pins with the binding asked again now.

use schemars::JsonSchema;
use serde::Serialize;

use super::binding::{Binding, BindingStatus};

/// What changed since the handover was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Both pins still hold.
    Unchanged,
    /// The plan holds; the evidence of a served criterion changed.
    EvidenceMoved,
    /// What the work serves changed (whatever the evidence did).
    PlanChanged,
    /// The pins cannot be compared; `reason` says why. Never a pass.
    Unknown,
}

/// `{"answer": ..., "reason": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HandoverAnswer {
    pub answer: Answer,
    pub reason: String,
}

/// Answers a handover written with `pinned_plan` and `pinned_evidence` against the
/// binding `now` asked with the same names. `plan_changed` wins when both pins moved.
pub fn resolve_handover(
    pinned_plan: Option<&str>,
    pinned_evidence: Option<&str>,
    now: &Binding,
) -> HandoverAnswer {
    let unknown = |reason: String| HandoverAnswer {
        answer: Answer::Unknown,
        reason,
    };
    if now.status == BindingStatus::Refused {
        let causes: Vec<&str> = now.causes.iter().map(|c| c.as_str()).collect();
        return unknown(format!(
            "the binding asked now is refused ({}), so its pins cannot be compared: {}",
            causes.join(", "),
            now.note
        ));
    }
    let (Some(plan), Some(evidence)) = (pinned_plan, pinned_evidence) else {
        let missing = match (pinned_plan, pinned_evidence) {
            (None, None) => "plan_revision and evidence_standing",
            (None, Some(_)) => "plan_revision",
            _ => "evidence_standing",
        };
        return unknown(format!(
            "the handover carries no {missing} pin; derive a new handover \
             (majordomus handover --derive) to pin the binding"
        ));
    };
    let (Some(plan_now), Some(evidence_now)) = (&now.plan_revision, &now.evidence_standing) else {
        return unknown("the binding asked now carries no pins".to_owned());
    };
    match (plan != plan_now, evidence != evidence_now) {
        (true, evidence_moved) => HandoverAnswer {
            answer: Answer::PlanChanged,
            reason: format!(
                "the plan the work serves changed since the handover (plan_revision {} → {}){}",
                short(plan),
                short(plan_now),
                if evidence_moved {
                    "; its evidence moved too"
                } else {
                    ""
                }
            ),
        },
        (false, true) => HandoverAnswer {
            answer: Answer::EvidenceMoved,
            reason: format!(
                "the plan holds; evidence of a served criterion changed (evidence_standing \
                 {} → {})",
                short(evidence),
                short(evidence_now)
            ),
        },
        (false, false) => HandoverAnswer {
            answer: Answer::Unchanged,
            reason: "the plan and the evidence of its served criteria are as the handover \
                     pinned them"
                .to_owned(),
        },
    }
}

fn short(pin: &str) -> &str {
    pin.get(..12).unwrap_or(pin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intent::binding::Cause;

    fn binding(status: BindingStatus, plan: &str, evidence: &str) -> Binding {
        let refused = status == BindingStatus::Refused;
        Binding {
            status,
            causes: if refused {
                vec![Cause::PlanUnreadable]
            } else {
                Vec::new()
            },
            issue: Some("login".into()),
            intent: Some("auth".into()),
            exemption: None,
            plan_revision: (!refused).then(|| plan.to_owned()),
            evidence_standing: (!refused).then(|| evidence.to_owned()),
            scope: Vec::new(),
            outside_scope: Vec::new(),
            note: "refused: the plan cannot be read".into(),
        }
    }

    #[test]
    fn answers_follow_the_pins() {
        let now = binding(BindingStatus::Bound, "p1", "e1");
        let answer = |p, e| resolve_handover(p, e, &now).answer;
        assert_eq!(answer(Some("p1"), Some("e1")), Answer::Unchanged);
        assert_eq!(answer(Some("p1"), Some("e0")), Answer::EvidenceMoved);
        assert_eq!(answer(Some("p0"), Some("e1")), Answer::PlanChanged);
        assert_eq!(
            answer(Some("p0"), Some("e0")),
            Answer::PlanChanged,
            "plan wins"
        );
    }

    #[test]
    fn a_missing_pin_or_a_refusal_is_unknown_and_says_why() {
        let now = binding(BindingStatus::Bound, "p1", "e1");
        let missing = resolve_handover(None, Some("e1"), &now);
        assert_eq!(missing.answer, Answer::Unknown);
        assert!(
            missing.reason.contains("no plan_revision pin"),
            "{}",
            missing.reason
        );
        assert_eq!(
            resolve_handover(Some("p1"), None, &now).answer,
            Answer::Unknown
        );

        let refused = binding(BindingStatus::Refused, "", "");
        let answer = resolve_handover(Some("p1"), Some("e1"), &refused);
        assert_eq!(answer.answer, Answer::Unknown);
        assert!(
            answer.reason.contains("plan_unreadable"),
            "{}",
            answer.reason
        );
    }

    #[test]
    fn answers_serialise_as_spec_spells_them() {
        let now = binding(BindingStatus::Maintenance, "p", "e");
        let json =
            serde_json::to_value(resolve_handover(Some("p"), Some("x"), &now)).expect("plain data");
        assert_eq!(json["answer"], "evidence_moved");
    }
}
