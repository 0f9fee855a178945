//! The plan: the mode, the budget (mode × materiality), the greedy explained selection of
//! advisors, reuse of a standing conclusion, and the structured local review.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::availability::{EnvValueError, Snapshot, Status};
use super::catalogue::{Adapter, Catalogue};
use super::record::{
    Assessment, Confidence, DEFAULT_CAPABILITY, LocalReview, Materiality, NotSelected, Outcome,
    Record, ReviewedAssumption, StoredRecord, normalise_subject,
};
use crate::model::policy::ReasoningMode;

/// Every mode, in SPEC's table order.
pub const MODES: [ReasoningMode; 5] = [
    ReasoningMode::Ci,
    ReasoningMode::Fast,
    ReasoningMode::Standard,
    ReasoningMode::Offline,
    ReasoningMode::Strict,
];

/// A mode's name as policy and the environment spell it.
pub fn mode_name(mode: ReasoningMode) -> &'static str {
    match mode {
        ReasoningMode::Ci => "ci",
        ReasoningMode::Fast => "fast",
        ReasoningMode::Standard => "standard",
        ReasoningMode::Offline => "offline",
        ReasoningMode::Strict => "strict",
    }
}

/// The mode named `name`, if any.
pub fn parse_mode(name: &str) -> Option<ReasoningMode> {
    MODES.into_iter().find(|m| mode_name(*m) == name)
}

/// Advisors a plan may select, mode × materiality (SPEC §7).
pub fn budget(mode: ReasoningMode, materiality: Materiality) -> u8 {
    use Materiality::*;
    use ReasoningMode::*;
    match (mode, materiality) {
        (_, Trivial | Low) | (Ci, _) | (Fast, Material) => 0,
        (Fast, High | Critical) => 1,
        (Standard | Offline | Strict, Material) => 1,
        (Standard | Offline, High | Critical) | (Strict, High) => 2,
        (Strict, Critical) => 3,
    }
}

/// The budget after the executor's confidence: high confidence lowers it by one.
pub fn effective_budget(
    mode: ReasoningMode,
    materiality: Materiality,
    confidence: Confidence,
) -> u8 {
    let base = budget(mode, materiality);
    if confidence == Confidence::High {
        base.saturating_sub(1)
    } else {
        base
    }
}

/// Where the mode came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModeSource {
    /// `MAJORDOMUS_REASONING_MODE`.
    Environment,
    /// `CI` is set.
    Ci,
    /// `reasoning.mode` in the policy.
    Policy,
    Default,
    /// Pinned by the program driving the library (the demo pins `standard` so it shows
    /// the same consultation under CI).
    Pinned,
}

/// The mode in force and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResolvedMode {
    pub mode: ReasoningMode,
    pub source: ModeSource,
}

/// What the mode is resolved from; the caller reads the environment and the policy.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModeInputs<'a> {
    /// `MAJORDOMUS_REASONING_MODE`.
    pub env_mode: Option<&'a str>,
    /// `CI`.
    pub ci: Option<&'a str>,
    /// `reasoning.mode` when the policy sets it.
    pub policy: Option<ReasoningMode>,
}

/// `MAJORDOMUS_REASONING_MODE`, else `ci` when `CI` is set (to anything non-empty), else
/// the policy, else `standard`. An empty variable counts as unset.
pub fn resolve_mode(inputs: ModeInputs<'_>) -> Result<ResolvedMode, EnvValueError> {
    fn set(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|v| !v.is_empty())
    }
    if let Some(name) = set(inputs.env_mode) {
        let mode = parse_mode(&name.to_ascii_lowercase()).ok_or_else(|| EnvValueError {
            variable: "MAJORDOMUS_REASONING_MODE",
            value: name.to_owned(),
            expected: "one of ci, fast, standard, offline, strict",
        })?;
        return Ok(ResolvedMode {
            mode,
            source: ModeSource::Environment,
        });
    }
    if set(inputs.ci).is_some() {
        return Ok(ResolvedMode {
            mode: ReasoningMode::Ci,
            source: ModeSource::Ci,
        });
    }
    Ok(match inputs.policy {
        Some(mode) => ResolvedMode {
            mode,
            source: ModeSource::Policy,
        },
        None => ResolvedMode {
            mode: ReasoningMode::Standard,
            source: ModeSource::Default,
        },
    })
}

/// What the policy decided for an assessment; a [`Plan`](super::record::Plan) is this with
/// the assessment's id. `reasoning plan` without an assessment (a dry run) shows this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanDecision {
    pub mode: ReasoningMode,
    pub budget: u8,
    pub selected: Vec<String>,
    pub not_selected: Vec<NotSelected>,
    pub availability: Snapshot,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuses: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_review: Option<LocalReview>,
}

/// What a plan is computed from.
#[derive(Debug, Clone, Copy)]
pub struct PlanInputs<'a> {
    pub assessment: &'a Assessment,
    pub mode: ReasoningMode,
    pub catalogue: &'a Catalogue,
    /// Every catalogue advisor's availability now.
    pub availability: &'a Snapshot,
    /// Every record of this checkout (every task and episode), searched for a standing
    /// conclusion on the same subject.
    pub records: &'a [StoredRecord],
}

/// Decides the plan: reuse, else greedy selection within the budget, and the local review
/// when a material-or-above plan selects nobody.
pub fn decide(inputs: &PlanInputs<'_>) -> PlanDecision {
    let a = inputs.assessment;
    let budget = effective_budget(inputs.mode, a.materiality, a.confidence);
    let mut decision = PlanDecision {
        mode: inputs.mode,
        budget,
        selected: Vec::new(),
        not_selected: Vec::new(),
        availability: inputs.availability.clone(),
        reuses: None,
        local_review: None,
    };

    if a.new_evidence != Some(true)
        && let Some(standing) = standing_conclusion(&a.subject, inputs.records)
    {
        decision.not_selected = inputs
            .catalogue
            .advisors
            .iter()
            .map(|adv| NotSelected {
                advisor: adv.id.clone(),
                reason: format!("standing conclusion {standing} answers this subject"),
            })
            .collect();
        decision.reuses = Some(standing);
        return decision;
    }

    let advisors = &inputs.catalogue.advisors;
    let requested = requested_capabilities(a);
    // Catalogue indexes: the admissible pool, and (index, reason) for the others.
    let mut pool: Vec<usize> = Vec::new();
    let mut left_out: Vec<(usize, String)> = Vec::new();
    for (index, advisor) in advisors.iter().enumerate() {
        let availability = inputs.availability.get(&advisor.id);
        match availability {
            None => left_out.push((index, "not in the availability snapshot".to_owned())),
            Some(av) if !av.status.is_admissible() => {
                left_out.push((index, unavailable_reason(&av.status, &av.reason)));
            }
            Some(_) if !requested.iter().any(|c| advisor.offers(c)) => left_out.push((
                index,
                format!(
                    "offers none of the requested capabilities ({})",
                    requested.join(", ")
                ),
            )),
            Some(_) => pool.push(index),
        }
    }

    let mut covered: BTreeSet<&str> = BTreeSet::new();
    let mut adapters: BTreeSet<Adapter> = BTreeSet::new();
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < usize::from(budget) && !pool.is_empty() {
        let best = pool
            .iter()
            .enumerate()
            .max_by_key(|(_, index)| {
                let adv = &advisors[**index];
                let uncovered = requested
                    .iter()
                    .filter(|c| adv.offers(c) && !covered.contains(c.as_str()))
                    .count();
                let new_adapter = !adapters.contains(&adv.adapter);
                (uncovered, new_adapter, std::cmp::Reverse(**index))
            })
            .map(|(at, _)| at)
            .expect("the pool is not empty");
        let index = pool.remove(best);
        let adv = &advisors[index];
        covered.extend(
            requested
                .iter()
                .map(String::as_str)
                .filter(|c| adv.offers(c)),
        );
        adapters.insert(adv.adapter);
        chosen.push(index);
    }
    let rest = if budget == 0 {
        let confidence = if a.confidence == Confidence::High {
            ", high confidence"
        } else {
            ""
        };
        format!(
            "budget is 0 (mode {}, materiality {}{confidence})",
            mode_name(inputs.mode),
            a.materiality.name()
        )
    } else {
        format!("budget exhausted ({budget} of {budget} selected)")
    };
    left_out.extend(pool.into_iter().map(|index| (index, rest.clone())));
    left_out.sort_by_key(|(index, _)| *index);

    decision.selected = chosen.iter().map(|i| advisors[*i].id.clone()).collect();
    decision.not_selected = left_out
        .into_iter()
        .map(|(index, reason)| NotSelected {
            advisor: advisors[index].id.clone(),
            reason,
        })
        .collect();
    if decision.selected.is_empty() && a.materiality.is_material() {
        decision.local_review = Some(local_review(a));
    }
    decision
}

/// The plan record for the assessment `assessment_id`.
pub fn plan(assessment_id: &str, inputs: &PlanInputs<'_>) -> super::record::Plan {
    let d = decide(inputs);
    super::record::Plan {
        assessment: assessment_id.to_owned(),
        mode: d.mode,
        budget: d.budget,
        selected: d.selected,
        not_selected: d.not_selected,
        availability: d.availability,
        reuses: d.reuses,
        local_review: d.local_review,
    }
}

/// The capabilities an assessment asks for, deduplicated in order; the default when none.
pub fn requested_capabilities(assessment: &Assessment) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &assessment.capabilities {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    if out.is_empty() {
        out.push(DEFAULT_CAPABILITY.to_owned());
    }
    out
}

fn unavailable_reason(status: &Status, reason: &str) -> String {
    match status {
        // The mode and the disable variable already say it in full.
        Status::Disabled => reason.to_owned(),
        _ => match status.until() {
            Some(until) => format!("not available: {} until {until}", status.name()),
            None => format!("not available: {} ({reason})", status.name()),
        },
    }
}

/// The template of the structured local review, hypothesis and assumptions filled in.
pub fn local_review(assessment: &Assessment) -> LocalReview {
    LocalReview {
        hypothesis: assessment.hypothesis.clone(),
        strongest_alternative: None,
        assumptions: assessment
            .assumptions
            .iter()
            .map(|a| ReviewedAssumption {
                assumption: a.clone(),
                evidence: Vec::new(),
            })
            .collect(),
        falsifier: None,
        smallest_discriminating_experiment: None,
        conclusion: None,
    }
}

/// The id of the newest conclusion that still stands on an assessment with the same
/// normalised subject: not superseded by another conclusion, and not failed by its latest
/// validation. `records` are every record of the checkout, so a conclusion of another
/// task or episode stands as well as one of this task.
pub fn standing_conclusion(subject: &str, records: &[StoredRecord]) -> Option<String> {
    standing_conclusions(subject, records).pop()
}

/// Every conclusion that stands on the normalised `subject`, oldest first (by
/// `recorded_at`, then id).
pub fn standing_conclusions(subject: &str, records: &[StoredRecord]) -> Vec<String> {
    let wanted = normalise_subject(subject);
    if wanted.is_empty() {
        return Vec::new();
    }
    let superseded: BTreeSet<&str> = records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Conclusion(c) => c.supersedes.as_deref(),
            _ => None,
        })
        .collect();
    let on_subject: BTreeSet<&str> = records
        .iter()
        .filter(|a| {
            matches!(&a.record, Record::Assessment(x) if normalise_subject(&x.subject) == wanted)
        })
        .map(|a| a.id.as_str())
        .collect();
    let mut standing: Vec<&StoredRecord> = records
        .iter()
        .filter(|r| match &r.record {
            Record::Conclusion(c) => {
                on_subject.contains(c.assessment.as_str())
                    && !superseded.contains(r.id.as_str())
                    && latest_validation(&r.id, records) != Some(Outcome::Fail)
            }
            _ => false,
        })
        .collect();
    standing.sort_by(|a, b| (a.recorded_time(), &a.id).cmp(&(b.recorded_time(), &b.id)));
    standing.into_iter().map(|r| r.id.clone()).collect()
}

/// The outcome of the newest validation of `conclusion`.
pub fn latest_validation(conclusion: &str, records: &[StoredRecord]) -> Option<Outcome> {
    records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Validation(v) if v.conclusion == conclusion => Some((r, v.outcome)),
            _ => None,
        })
        .max_by(|(a, _), (b, _)| (a.recorded_time(), &a.id).cmp(&(b.recorded_time(), &b.id)))
        .map(|(_, outcome)| outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reasoning::availability::{
        self, AdvisorAvailability, Availability, Conditions, Disabled, Presence,
    };
    use crate::model::reasoning::catalogue::Advisor;
    use crate::model::reasoning::record::{Conclusion, EvidenceRef, Plan, Validation};
    use time::macros::datetime;

    const NOW: time::OffsetDateTime = datetime!(2026-10-21 12:00:00 UTC);

    #[test]
    fn budget_table_is_the_spec_table() {
        use Materiality::*;
        let expected: [(ReasoningMode, [u8; 5]); 5] = [
            (ReasoningMode::Ci, [0, 0, 0, 0, 0]),
            (ReasoningMode::Fast, [0, 0, 0, 1, 1]),
            (ReasoningMode::Standard, [0, 0, 1, 2, 2]),
            (ReasoningMode::Offline, [0, 0, 1, 2, 2]),
            (ReasoningMode::Strict, [0, 0, 1, 2, 3]),
        ];
        for (mode, row) in expected {
            for (materiality, want) in [Trivial, Low, Material, High, Critical]
                .into_iter()
                .zip(row)
            {
                assert_eq!(
                    budget(mode, materiality),
                    want,
                    "{mode:?} × {materiality:?}"
                );
                for confidence in [Confidence::Low, Confidence::Medium] {
                    assert_eq!(effective_budget(mode, materiality, confidence), want);
                }
                assert_eq!(
                    effective_budget(mode, materiality, Confidence::High),
                    want.saturating_sub(1),
                    "{mode:?} × {materiality:?}, high confidence"
                );
            }
        }
    }

    #[test]
    fn mode_resolution_order() {
        let r = |env_mode, ci, policy| {
            resolve_mode(ModeInputs {
                env_mode,
                ci,
                policy,
            })
        };
        let got = r(Some("offline"), Some("true"), Some(ReasoningMode::Strict)).unwrap();
        assert_eq!(
            (got.mode, got.source),
            (ReasoningMode::Offline, ModeSource::Environment)
        );
        let got = r(None, Some("true"), Some(ReasoningMode::Strict)).unwrap();
        assert_eq!((got.mode, got.source), (ReasoningMode::Ci, ModeSource::Ci));
        let got = r(Some(""), Some(""), Some(ReasoningMode::Strict)).unwrap();
        assert_eq!(
            (got.mode, got.source),
            (ReasoningMode::Strict, ModeSource::Policy)
        );
        let got = r(None, None, None).unwrap();
        assert_eq!(
            (got.mode, got.source),
            (ReasoningMode::Standard, ModeSource::Default)
        );
        let err = r(Some("turbo"), None, None).unwrap_err();
        assert_eq!(err.variable, "MAJORDOMUS_REASONING_MODE");
    }

    fn advisor(id: &str, adapter: Adapter, local: bool, caps: &[&str]) -> Advisor {
        Advisor {
            id: id.into(),
            title: id.into(),
            adapter,
            provider: None,
            model: None,
            executable: (adapter == Adapter::Process).then(|| format!("{id}-cli")),
            args: vec![],
            credential: None,
            local,
            capabilities: caps.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn all_available(catalogue: &Catalogue) -> Snapshot {
        Snapshot {
            as_of: "2026-10-21T12:00:00Z".into(),
            advisors: catalogue
                .advisors
                .iter()
                .map(|a| AdvisorAvailability {
                    advisor: a.id.clone(),
                    availability: Availability {
                        status: Status::Available,
                        reason: "present".into(),
                    },
                })
                .collect(),
        }
    }

    fn assessment(materiality: Materiality, confidence: Confidence, caps: &[&str]) -> Assessment {
        Assessment {
            subject: "Date the landing by the forge's merge record?".into(),
            materiality,
            confidence,
            hypothesis: "The reflog is enough".into(),
            facts: vec![],
            assumptions: vec!["the reflog sees every landing".into()],
            questions: vec![],
            evidence: vec![EvidenceRef("observation:94 s at most".into())],
            capabilities: caps.iter().map(|c| (*c).to_owned()).collect(),
            new_evidence: None,
        }
    }

    fn decide_with(
        catalogue: &Catalogue,
        snapshot: &Snapshot,
        a: &Assessment,
        mode: ReasoningMode,
        records: &[StoredRecord],
    ) -> PlanDecision {
        decide(&PlanInputs {
            assessment: a,
            mode,
            catalogue,
            availability: snapshot,
            records,
        })
    }

    fn reasons(d: &PlanDecision) -> Vec<(&str, &str)> {
        d.not_selected
            .iter()
            .map(|n| (n.advisor.as_str(), n.reason.as_str()))
            .collect()
    }

    #[test]
    fn greedy_prefers_uncovered_capabilities_then_a_new_adapter_then_order() {
        let catalogue = Catalogue {
            advisors: vec![
                advisor(
                    "reasoner-a",
                    Adapter::Process,
                    false,
                    &["independent_reasoning"],
                ),
                advisor(
                    "reasoner-b",
                    Adapter::Process,
                    false,
                    &["independent_reasoning"],
                ),
                advisor(
                    "reviewer",
                    Adapter::Process,
                    false,
                    &["independent_reasoning", "code_review"],
                ),
                advisor(
                    "scripted",
                    Adapter::Fixture,
                    false,
                    &["independent_reasoning"],
                ),
            ],
        };
        let snap = all_available(&catalogue);
        let a = assessment(
            Materiality::Critical,
            Confidence::Medium,
            &["independent_reasoning", "code_review"],
        );

        // Most uncovered capabilities first (reviewer covers both), then a different
        // adapter (scripted) over catalogue order (reasoner-a), then catalogue order.
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Strict, &[]);
        assert_eq!(d.budget, 3);
        assert_eq!(d.selected, vec!["reviewer", "scripted", "reasoner-a"]);
        assert_eq!(
            reasons(&d),
            vec![("reasoner-b", "budget exhausted (3 of 3 selected)")]
        );
        assert_eq!(d.local_review, None);

        // Standard critical: two.
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Standard, &[]);
        assert_eq!(d.selected, vec!["reviewer", "scripted"]);

        // Only code_review requested: a reasoner offers none of it.
        let review_only = assessment(Materiality::High, Confidence::Low, &["code_review"]);
        let d = decide_with(
            &catalogue,
            &snap,
            &review_only,
            ReasoningMode::Standard,
            &[],
        );
        assert_eq!(d.selected, vec!["reviewer"]);
        assert_eq!(
            reasons(&d)[0],
            (
                "reasoner-a",
                "offers none of the requested capabilities (code_review)"
            )
        );
    }

    #[test]
    fn selection_keeps_going_after_every_capability_is_covered() {
        let catalogue = Catalogue {
            advisors: vec![
                advisor("one", Adapter::Process, false, &["independent_reasoning"]),
                advisor("two", Adapter::Process, false, &["independent_reasoning"]),
            ],
        };
        let snap = all_available(&catalogue);
        let a = assessment(Materiality::High, Confidence::Medium, &[]);
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Standard, &[]);
        assert_eq!(d.selected, vec!["one", "two"]);
        assert!(d.not_selected.is_empty());
    }

    #[test]
    fn unselected_advisors_carry_their_reason() {
        let catalogue = Catalogue {
            advisors: vec![
                advisor(
                    "remote",
                    Adapter::Process,
                    false,
                    &["independent_reasoning"],
                ),
                advisor(
                    "limited",
                    Adapter::Process,
                    false,
                    &["independent_reasoning"],
                ),
                advisor("here", Adapter::Process, true, &["independent_reasoning"]),
            ],
        };
        let mut snap = all_available(&catalogue);
        snap.advisors[1].availability = Availability {
            status: Status::RateLimited {
                until: "2026-10-21T12:15:00Z".into(),
            },
            reason: "rate limited".into(),
        };
        let a = assessment(Materiality::High, Confidence::Low, &[]);
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Standard, &[]);
        assert_eq!(d.selected, vec!["remote", "here"]);
        assert_eq!(
            reasons(&d),
            vec![(
                "limited",
                "not available: rate_limited until 2026-10-21T12:15:00Z"
            )]
        );

        // Offline: the availability says why; the one local advisor is selected.
        let disabled = Disabled::default();
        let conditions = Conditions {
            mode: ReasoningMode::Offline,
            disabled: &disabled,
            cooldown_override: None,
            now: NOW,
        };
        let present = |_: &Advisor| Presence {
            executable_on_path: true,
            credential_set: true,
        };
        let snap = availability::snapshot(&catalogue, present, &conditions, &[]);
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Offline, &[]);
        assert_eq!(d.selected, vec!["here"]);
        assert_eq!(
            reasons(&d),
            vec![
                ("remote", "mode offline admits only local advisors"),
                ("limited", "mode offline admits only local advisors"),
            ]
        );

        // Low materiality: budget 0 and no local review.
        let low = assessment(Materiality::Low, Confidence::Low, &[]);
        let snap = all_available(&catalogue);
        let d = decide_with(&catalogue, &snap, &low, ReasoningMode::Standard, &[]);
        assert!(d.selected.is_empty());
        assert_eq!(
            reasons(&d)[0].1,
            "budget is 0 (mode standard, materiality low)"
        );
        assert_eq!(d.local_review, None);
    }

    #[test]
    fn a_material_plan_with_nobody_carries_the_local_review() {
        let catalogue = Catalogue {
            advisors: vec![advisor(
                "remote",
                Adapter::Process,
                false,
                &["independent_reasoning"],
            )],
        };
        let snap = all_available(&catalogue);
        let a = assessment(Materiality::Material, Confidence::High, &[]);
        let d = decide_with(&catalogue, &snap, &a, ReasoningMode::Standard, &[]);
        assert_eq!(d.budget, 0);
        assert_eq!(
            reasons(&d),
            vec![(
                "remote",
                "budget is 0 (mode standard, materiality material, high confidence)"
            )]
        );
        let review = d.local_review.expect("material with nobody selected");
        assert_eq!(review.hypothesis, "The reflog is enough");
        assert_eq!(
            review.assumptions[0].assumption,
            "the reflog sees every landing"
        );
        assert_eq!(review.falsifier, None);

        // An empty catalogue: the same.
        let empty = Catalogue::default();
        let d = decide_with(
            &empty,
            &all_available(&empty),
            &a,
            ReasoningMode::Strict,
            &[],
        );
        assert!(d.local_review.is_some());
    }

    fn stored(record: Record, at: &str) -> StoredRecord {
        StoredRecord::new(record, "t", None, at.into(), vec![])
    }

    #[test]
    fn a_standing_conclusion_is_reused_unless_new_evidence() {
        let catalogue = Catalogue {
            advisors: vec![advisor(
                "remote",
                Adapter::Process,
                false,
                &["independent_reasoning"],
            )],
        };
        let snap = all_available(&catalogue);
        let earlier = stored(
            Record::Assessment(assessment(Materiality::High, Confidence::Low, &[])),
            "2026-10-20T10:00:00Z",
        );
        let conclusion = stored(
            Record::Conclusion(Conclusion {
                assessment: earlier.id.clone(),
                decision: "keep the reflog".into(),
                rationale: "r".into(),
                evidence: vec![],
                consultations: vec![],
                rejected_alternatives: vec![],
                risks: vec![],
                validation_plan: None,
                supersedes: None,
                reviewed_by: vec![],
                independent_review_count: 0,
            }),
            "2026-10-20T11:00:00Z",
        );
        let records = vec![earlier, conclusion.clone()];

        let mut again = assessment(Materiality::High, Confidence::Low, &[]);
        again.subject = "date the landing by the FORGE'S   merge record".into();
        let d = decide_with(&catalogue, &snap, &again, ReasoningMode::Standard, &records);
        assert_eq!(d.reuses.as_deref(), Some(conclusion.id.as_str()));
        assert!(d.selected.is_empty());
        assert!(d.local_review.is_none());
        assert!(
            reasons(&d)[0]
                .1
                .starts_with("standing conclusion conclusion-")
        );

        again.new_evidence = Some(true);
        let d = decide_with(&catalogue, &snap, &again, ReasoningMode::Standard, &records);
        assert_eq!(d.reuses, None);
        assert_eq!(d.selected, vec!["remote"]);

        // A failed validation: the conclusion no longer stands.
        let mut failed = records.clone();
        failed.push(stored(
            Record::Validation(Validation {
                conclusion: conclusion.id.clone(),
                check: "c".into(),
                command: "x".into(),
                outcome: Outcome::Fail,
            }),
            "2026-10-20T12:00:00Z",
        ));
        again.new_evidence = None;
        let d = decide_with(&catalogue, &snap, &again, ReasoningMode::Standard, &failed);
        assert_eq!(d.reuses, None);
    }

    #[test]
    fn a_new_advisor_in_the_catalogue_needs_no_code_change() {
        let base = crate::model::reasoning::catalogue::SHIPPED_CATALOGUE;
        let appended = format!(
            "{base}\n  - id: brand-new-advisor\n    title: Brand new\n    adapter: process\n    executable: brand-new\n    capabilities: [independent_reasoning, code_review]\n"
        );
        let catalogue = Catalogue::parse(&appended, "advisors.yaml").unwrap();
        let disabled = Disabled::default();
        let conditions = Conditions {
            mode: ReasoningMode::Strict,
            disabled: &disabled,
            cooldown_override: None,
            now: NOW,
        };
        // Only the new one is installed.
        let present = |a: &Advisor| Presence {
            executable_on_path: a.id == "brand-new-advisor",
            credential_set: false,
        };
        let snap = availability::snapshot(&catalogue, present, &conditions, &[]);
        let a = assessment(Materiality::Critical, Confidence::Low, &["code_review"]);
        let plan: Plan = plan(
            "assessment-0123456789ab",
            &PlanInputs {
                assessment: &a,
                mode: ReasoningMode::Strict,
                catalogue: &catalogue,
                availability: &snap,
                records: &[],
            },
        );
        assert_eq!(plan.selected, vec!["brand-new-advisor"]);
        assert_eq!(plan.not_selected.len(), catalogue.advisors.len() - 1);
        assert!(
            plan.not_selected
                .iter()
                .all(|n| n.reason.starts_with("not available: unavailable"))
        );
        assert_eq!(plan.availability.advisors.len(), catalogue.advisors.len());
    }
}
