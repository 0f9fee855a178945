//! `project.review-is-recorded-not-claimed` (declared by a project): a review is what the
//! recorded consultations show, never what a caller says. Its check is the writer's
//! refusals, asked again here: a caller-supplied `reviewed_by`, `independent_review_count`,
//! consultation or plan is refused by its rule; and no stored conclusion claims more review
//! than the completed consultations it cites (a record edited by hand, or written by a
//! writer without those refusals).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::model::reasoning::validate::{self, Author, WriteContext, no_redaction};
use crate::model::reasoning::{ConsultationStatus, Record, StoredRecord};

/// The rule's id.
pub(crate) const REVIEW_IS_RECORDED: &str = "project.review-is-recorded-not-claimed";

pub(super) const RULE: Rule = Rule {
    id: REVIEW_IS_RECORDED,
    reads: &[Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let now = inputs.now;
    for (what, probe, rule) in probes() {
        let context = WriteContext {
            task: "_episode-20261130T100000Z-000000",
            episode: None,
            now,
            records: &[],
            checkout: &[],
            redact: &no_redaction,
        };
        match validate::validate(&probe, Author::Caller, &context) {
            Err(refusal) if refusal.rule() == rule => {}
            other => out.find(
                "src/model/reasoning/validate/",
                format!(
                    "the reasoning writer does not refuse a caller-supplied {what} by `{rule}` ({}): a caller could claim a review nobody recorded",
                    match other {
                        Ok(_) => "it accepted it".to_owned(),
                        Err(refusal) => format!("it answered `{}`", refusal.rule()),
                    }
                ),
                "restore the writer's refusal (docs/REASONING.md, \"What the writer refuses\")"
                    .to_owned(),
            ),
        }
    }
    let records = match crate::store::reasoning::read_all(&inputs.ctx.layout) {
        Ok(records) => records,
        Err(e) => {
            out.find(
                ".ai/local/state/reasoning/",
                format!("the reasoning records cannot be read, so their review counts are not checked: {e}"),
                "majordomus reasoning status".to_owned(),
            );
            return Ok(());
        }
    };
    let claims = overclaims(&records);
    out.counts.push(("records", records.len()));
    out.note = Some(format!(
        "the writer refuses {} caller-supplied review field(s) and record kind(s); {} stored conclusion(s) read, none claiming more review than its cited consultations hold",
        probes().len(),
        records
            .iter()
            .filter(|r| matches!(r.record, Record::Conclusion(_)))
            .count()
    ))
    .filter(|_| claims.is_empty());
    for (record, message) in claims {
        let file = crate::store::reasoning::path(&inputs.ctx.layout, &record.task, &record.id)
            .map(|p| inputs.ctx.layout.display(&p))
            .unwrap_or_else(|_| format!(".ai/local/state/reasoning/{}/", record.task));
        out.find(
            &file,
            message,
            format!(
                "remove {file}: the writer computes a conclusion's review from its consultations; record the conclusion again with majordomus reasoning record"
            ),
        );
    }
    Ok(())
}

/// What a caller may never hand the writer, and the rule that refuses each.
fn probes() -> Vec<(&'static str, Value, &'static str)> {
    let conclusion = |field: &str, value: Value| {
        let mut c = json!({"kind": "conclusion", "assessment": "assessment-000000000000", "decision": "d", "rationale": "r"});
        c[field] = value;
        c
    };
    vec![
        (
            "`reviewed_by` on a conclusion",
            conclusion("reviewed_by", json!(["an-advisor"])),
            "reasoning.computed-field",
        ),
        (
            "`independent_review_count` on a conclusion",
            conclusion("independent_review_count", json!(2)),
            "reasoning.computed-field",
        ),
        (
            "consultation",
            json!({"kind": "consultation", "plan": "plan-000000000000", "advisor": "an-advisor", "status": "completed", "duration_ms": 1}),
            "reasoning.consultation-by-consult",
        ),
        (
            "plan",
            json!({"kind": "plan", "assessment": "assessment-000000000000"}),
            "reasoning.plan-computed",
        ),
    ]
}

/// Each stored conclusion that claims more review than the completed consultations it
/// cites: a `reviewed_by` name no such consultation's advisor carries, more names than
/// their advisors, or a count above what the writer counts them as.
/// Counting fewer is never a claim.
fn overclaims(records: &[StoredRecord]) -> Vec<(&StoredRecord, String)> {
    let mut out = Vec::new();
    for record in records {
        let Record::Conclusion(c) = &record.record else {
            continue;
        };
        let completed: Vec<&crate::model::reasoning::record::Consultation> = c
            .consultations
            .iter()
            .filter_map(|id| records.iter().find(|r| &r.id == id))
            .filter_map(|r| match &r.record {
                Record::Consultation(k) if k.status == ConsultationStatus::Completed => Some(k),
                _ => None,
            })
            .collect();
        let advisors: BTreeSet<&str> = completed.iter().map(|k| k.advisor.as_str()).collect();
        // What the writer counts, by the writer's own function.
        let reviews: Vec<(String, String)> = completed
            .iter()
            .map(|k| (k.advisor.clone(), k.counted_source()))
            .collect();
        let independent = crate::model::reasoning::record::independent_reviews(&reviews);
        if let Some(name) = c
            .reviewed_by
            .iter()
            .find(|name| !advisors.contains(name.as_str()))
        {
            out.push((
                record,
                format!(
                    "conclusion {} says it was reviewed by `{name}`, but none of the completed consultations it cites is that advisor's",
                    record.id
                ),
            ));
        } else if c.independent_review_count > independent || c.reviewed_by.len() > advisors.len() {
            out.push((
                record,
                format!(
                    "conclusion {} claims {} independent review(s), but the completed consultations it cites are {independent}",
                    record.id, c.independent_review_count,
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_is_refused_by_its_rule() {
        let context = WriteContext {
            task: "_episode-20261130T100000Z-000000",
            episode: None,
            now: time::OffsetDateTime::UNIX_EPOCH,
            records: &[],
            checkout: &[],
            redact: &no_redaction,
        };
        for (what, probe, rule) in probes() {
            let refusal = validate::validate(&probe, Author::Caller, &context).expect_err(what);
            assert_eq!(refusal.rule(), rule, "{what}");
        }
    }
}
