//! The checks of each record kind, alone and against the records already stored.

use super::*;

pub(super) fn non_blank(kind: RecordKind, pairs: &[(&str, &str)]) -> Result<(), RecordRefusal> {
    match pairs.iter().find(|(_, v)| v.trim().is_empty()) {
        Some((field, _)) => Err(RecordRefusal::InvalidField {
            kind,
            field: (*field).to_owned(),
            problem: "is empty".to_owned(),
        }),
        None => Ok(()),
    }
}

pub(super) fn evidence_shape(kind: RecordKind, refs: &[EvidenceRef]) -> Result<(), RecordRefusal> {
    for (i, r) in refs.iter().enumerate() {
        if let Err(problem) = r.check() {
            return Err(RecordRefusal::EvidenceShape {
                kind,
                field: format!("evidence[{i}]"),
                reference: r.0.clone(),
                problem,
            });
        }
    }
    Ok(())
}

/// The stored record `id` of kind `expected`, cited by `field` of a `kind` record.
pub(super) fn cited<'r, T>(
    records: &'r [StoredRecord],
    kind: RecordKind,
    field: &str,
    id: &str,
    expected: RecordKind,
    body: impl Fn(&'r Record) -> Option<&'r T>,
) -> Result<&'r T, RecordRefusal> {
    if !is_record_id(id, Some(expected)) {
        return Err(RecordRefusal::IdShape {
            kind,
            field: field.to_owned(),
            id: id.to_owned(),
            expected,
        });
    }
    records
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| body(&r.record))
        .ok_or_else(|| RecordRefusal::UnknownRecord {
            kind,
            field: field.to_owned(),
            id: id.to_owned(),
            expected,
        })
}

pub(super) fn as_assessment(r: &Record) -> Option<&Assessment> {
    match r {
        Record::Assessment(a) => Some(a),
        _ => None,
    }
}
pub(super) fn as_plan(r: &Record) -> Option<&Plan> {
    match r {
        Record::Plan(p) => Some(p),
        _ => None,
    }
}
pub(super) fn as_consultation(r: &Record) -> Option<&Consultation> {
    match r {
        Record::Consultation(c) => Some(c),
        _ => None,
    }
}
pub(super) fn as_disagreement(r: &Record) -> Option<&Disagreement> {
    match r {
        Record::Disagreement(d) => Some(d),
        _ => None,
    }
}
pub(super) fn as_conclusion(r: &Record) -> Option<&Conclusion> {
    match r {
        Record::Conclusion(c) => Some(c),
        _ => None,
    }
}

pub(super) fn assessment(a: Assessment) -> Result<Assessment, RecordRefusal> {
    let kind = RecordKind::Assessment;
    non_blank(
        kind,
        &[("subject", &a.subject), ("hypothesis", &a.hypothesis)],
    )?;
    evidence_shape(kind, &a.evidence)?;
    if let Some(bad) = a.capabilities.iter().find(|c| !is_capability(c)) {
        return Err(RecordRefusal::InvalidField {
            kind,
            field: "capabilities".to_owned(),
            problem: format!(
                "names \"{bad}\", which is not a capability name (e.g. independent_reasoning)"
            ),
        });
    }
    if a.materiality.is_material() && a.evidence.is_empty() {
        return Err(RecordRefusal::AssessmentEvidence {
            materiality: a.materiality,
        });
    }
    Ok(a)
}

pub(super) fn consultation(
    c: Consultation,
    records: &[StoredRecord],
) -> Result<Consultation, RecordRefusal> {
    let kind = RecordKind::Consultation;
    non_blank(kind, &[("advisor", &c.advisor)])?;
    match c.status {
        ConsultationStatus::Completed => {
            if c.conclusion.as_deref().is_none_or(|s| s.trim().is_empty()) {
                return Err(RecordRefusal::CompletedWithoutConclusion);
            }
        }
        status => {
            if c.conclusion.is_some() {
                return Err(RecordRefusal::FailedWithAnswer {
                    status,
                    field: "conclusion",
                });
            }
            if c.stance.is_some() {
                return Err(RecordRefusal::FailedWithAnswer {
                    status,
                    field: "stance",
                });
            }
        }
    }
    if c.retry_after_seconds.is_some() && c.status != ConsultationStatus::RateLimited {
        return Err(RecordRefusal::RetryAfterWithoutRateLimit { status: c.status });
    }
    let plan = cited(records, kind, "plan", &c.plan, RecordKind::Plan, as_plan)?;
    if !plan.selected.contains(&c.advisor) {
        return Err(RecordRefusal::AdvisorNotSelected {
            plan: c.plan.clone(),
            advisor: c.advisor.clone(),
            selected: plan.selected.clone(),
        });
    }
    Ok(c)
}

pub(super) fn disagreement(
    d: Disagreement,
    records: &[StoredRecord],
) -> Result<Disagreement, RecordRefusal> {
    let kind = RecordKind::Disagreement;
    non_blank(kind, &[("question", &d.question)])?;
    for (i, p) in d.positions.iter().enumerate() {
        if p.claim.trim().is_empty() {
            return Err(RecordRefusal::InvalidField {
                kind,
                field: format!("positions[{i}].claim"),
                problem: "is empty".to_owned(),
            });
        }
    }
    if d.positions.len() < 2 {
        return Err(RecordRefusal::TooFewPositions {
            count: d.positions.len(),
        });
    }
    let mut holders = BTreeSet::new();
    for p in &d.positions {
        if !holders.insert(&p.holder) {
            return Err(RecordRefusal::DuplicateHolder {
                holder: p.holder.to_string(),
            });
        }
    }
    cited(
        records,
        kind,
        "assessment",
        &d.assessment,
        RecordKind::Assessment,
        as_assessment,
    )?;
    for (index, p) in d.positions.iter().enumerate() {
        let source = |problem: &str| RecordRefusal::PositionSource {
            index,
            holder: p.holder.to_string(),
            problem: problem.to_owned(),
        };
        let advisor = match (&p.holder, &p.consultation) {
            (Holder::Executor, None) => continue,
            (Holder::Executor, Some(_)) => {
                return Err(source("the executor's position cites no consultation"));
            }
            (Holder::Advisor(_), None) => {
                return Err(source("an advisor's position cites its consultation"));
            }
            (Holder::Advisor(advisor), Some(_)) => advisor,
        };
        let id = p.consultation.as_deref().expect("matched Some above");
        let field = format!("positions[{index}].consultation");
        let c = cited(
            records,
            kind,
            &field,
            id,
            RecordKind::Consultation,
            as_consultation,
        )?;
        if c.status != ConsultationStatus::Completed {
            return Err(RecordRefusal::PositionNotCompleted {
                index,
                consultation: id.to_owned(),
                status: c.status,
            });
        }
        if &c.advisor != advisor {
            return Err(source(&format!("{id} is {}'s consultation", c.advisor)));
        }
        let on = plan_assessment(records, &c.plan);
        if on != Some(d.assessment.as_str()) {
            return Err(source(&format!(
                "{id} answered another assessment ({})",
                on.unwrap_or("unknown")
            )));
        }
        if c.stance.unwrap_or(super::super::record::Stance::Uncertain) != p.stance {
            return Err(source(&format!(
                "its stance is {}, but {id} recorded {}",
                p.stance.name(),
                c.stance.map_or("none", |s| s.name())
            )));
        }
    }
    Ok(d)
}

pub(super) fn resolution(
    r: Resolution,
    records: &[StoredRecord],
) -> Result<Resolution, RecordRefusal> {
    let kind = RecordKind::Resolution;
    non_blank(
        kind,
        &[("experiment", &r.experiment), ("result", &r.result)],
    )?;
    evidence_shape(kind, &r.evidence)?;
    if r.evidence.is_empty() {
        return Err(RecordRefusal::ResolutionEvidence);
    }
    let d = cited(
        records,
        kind,
        "disagreement",
        &r.disagreement,
        RecordKind::Disagreement,
        as_disagreement,
    )?;
    let holds = |h: &Holder| d.positions.iter().any(|p| &p.holder == h);
    let admissible = match &r.favours {
        Favours::None => true,
        Favours::Executor => holds(&Holder::Executor),
        Favours::Advisor(id) => holds(&Holder::Advisor(id.clone())),
    };
    if !admissible {
        return Err(RecordRefusal::ResolutionFavours {
            favours: r.favours.to_string(),
            disagreement: r.disagreement.clone(),
            holders: d.positions.iter().map(|p| p.holder.to_string()).collect(),
        });
    }
    Ok(r)
}

pub(super) fn conclusion(
    c: ConclusionInput,
    records: &[StoredRecord],
    checkout: &[StoredRecord],
) -> Result<Conclusion, RecordRefusal> {
    let kind = RecordKind::Conclusion;
    non_blank(
        kind,
        &[("decision", &c.decision), ("rationale", &c.rationale)],
    )?;
    evidence_shape(kind, &c.evidence)?;
    let assessment = cited(
        records,
        kind,
        "assessment",
        &c.assessment,
        RecordKind::Assessment,
        as_assessment,
    )?;
    if let Some(old) = &c.supersedes {
        // Any conclusion of this checkout: the one superseded may be another task's.
        cited(
            checkout,
            kind,
            "supersedes",
            old,
            RecordKind::Conclusion,
            as_conclusion,
        )
        .map_err(|e| match e {
            RecordRefusal::UnknownRecord { id, .. } => RecordRefusal::UnknownSuperseded { id },
            e => e,
        })?;
    }
    // New evidence reopens a standing decision: the new conclusion names the one it
    // replaces, so the old one stops standing and nobody rediscovers it.
    if assessment.new_evidence == Some(true) {
        let standing = super::super::plan::standing_conclusions(&assessment.subject, checkout);
        if let Some(newest) = standing.last()
            && !c.supersedes.as_ref().is_some_and(|s| standing.contains(s))
        {
            return Err(RecordRefusal::SupersedesMissing {
                assessment: c.assessment.clone(),
                standing: newest.clone(),
                named: c.supersedes.clone(),
            });
        }
    }
    let mut reviewed_by = Vec::new();
    let mut sources = Vec::new();
    for (i, id) in c.consultations.iter().enumerate() {
        let field = format!("consultations[{i}]");
        let consulted = cited(
            records,
            kind,
            &field,
            id,
            RecordKind::Consultation,
            as_consultation,
        )?;
        let on = plan_assessment(records, &consulted.plan);
        if on != Some(c.assessment.as_str()) {
            return Err(RecordRefusal::ForeignConsultation {
                consultation: id.clone(),
                other: on.unwrap_or("unknown").to_owned(),
            });
        }
        if consulted.status == ConsultationStatus::Completed {
            reviewed_by.push(consulted.advisor.clone());
            sources.push((consulted.advisor.clone(), consulted.counted_source()));
        }
    }
    if assessment.materiality.is_material() {
        let missing = if c.evidence.is_empty() {
            Some("evidence")
        } else if c
            .validation_plan
            .as_deref()
            .is_none_or(|v| v.trim().is_empty())
        {
            Some("validation plan")
        } else {
            None
        };
        if let Some(missing) = missing {
            return Err(RecordRefusal::ConclusionEvidence {
                assessment: c.assessment.clone(),
                materiality: assessment.materiality,
                missing,
            });
        }
    }
    Ok(Conclusion::from_input(c, reviewed_by, sources))
}

pub(super) fn validation(
    v: Validation,
    records: &[StoredRecord],
) -> Result<Validation, RecordRefusal> {
    let kind = RecordKind::Validation;
    non_blank(kind, &[("check", &v.check), ("command", &v.command)])?;
    cited(
        records,
        kind,
        "conclusion",
        &v.conclusion,
        RecordKind::Conclusion,
        as_conclusion,
    )?;
    Ok(v)
}

pub(super) fn attempt(a: Attempt, records: &[StoredRecord]) -> Result<Attempt, RecordRefusal> {
    let kind = RecordKind::Attempt;
    non_blank(
        kind,
        &[
            ("tried", &a.tried),
            ("failure", &a.failure),
            ("invalidated_assumption", &a.invalidated_assumption),
            ("updated_hypothesis", &a.updated_hypothesis),
        ],
    )?;
    if let Some(id) = &a.assessment {
        cited(
            records,
            kind,
            "assessment",
            id,
            RecordKind::Assessment,
            as_assessment,
        )?;
    }
    Ok(a)
}

/// The assessment a plan (by id) was made for.
pub(super) fn plan_assessment<'r>(records: &'r [StoredRecord], plan: &str) -> Option<&'r str> {
    records.iter().find_map(|r| match &r.record {
        Record::Plan(p) if r.id == plan => Some(p.assessment.as_str()),
        _ => None,
    })
}

/// The rules that read other records (run after the id, so an identical record already
/// stored is `unchanged` rather than refused).
pub(super) fn against_records(
    stored: &StoredRecord,
    records: &[StoredRecord],
) -> Result<(), RecordRefusal> {
    match &stored.record {
        Record::Consultation(c) => {
            let earlier = records.iter().find(|r| {
                matches!(&r.record, Record::Consultation(e) if e.plan == c.plan && e.advisor == c.advisor)
            });
            if let Some(existing) = earlier {
                return Err(RecordRefusal::AlreadyConsulted {
                    plan: c.plan.clone(),
                    advisor: c.advisor.clone(),
                    assessment: plan_assessment(records, &c.plan)
                        .unwrap_or_default()
                        .to_owned(),
                    existing: existing.id.clone(),
                });
            }
        }
        Record::Conclusion(c) => {
            if let Some(open) = unresolved_disagreements(&c.assessment, records).first() {
                return Err(RecordRefusal::UnresolvedDisagreement {
                    disagreement: (*open).to_owned(),
                    assessment: c.assessment.clone(),
                });
            }
            for r in records {
                let Record::Consultation(k) = &r.record else {
                    continue;
                };
                if k.status == ConsultationStatus::Completed
                    && plan_assessment(records, &k.plan) == Some(c.assessment.as_str())
                    && !c.consultations.contains(&r.id)
                {
                    return Err(RecordRefusal::NotWeighed {
                        consultation: r.id.clone(),
                        advisor: k.advisor.clone(),
                        assessment: c.assessment.clone(),
                    });
                }
            }
        }
        _ => {}
    }
    Ok(())
}
