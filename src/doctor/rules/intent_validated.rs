//! `majordomus.intent-validated` (blocking by default): the plan passes `majordomus intent
//! validate`. Its findings take the severity the rule is declared with, so a project may
//! make it advisory while it adopts intents; a finding `intent validate` itself reports as
//! advisory (a stale critique outside `intent.binding: required`) stays advisory.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::intent::ValidateRequest;
use crate::knowledge::Severity;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.intent-validated",
    reads: &[Input::Records],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let validation = crate::intent::validate(inputs.ctx, ValidateRequest {})?;
    if validation.intents == 0 && validation.findings.is_empty() {
        out.note = Some(
            "no plan: .ai/repo/intents/ declares no intent, so there is nothing to validate"
                .to_owned(),
        );
    }
    let (advisory, rest): (Vec<_>, Vec<_>) = validation
        .findings
        .into_iter()
        .partition(|f| f.severity == Severity::Advisory);
    out.find_at_severity(rest);
    out.findings.extend(advisory);
    Ok(())
}
