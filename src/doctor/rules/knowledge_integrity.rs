//! `majordomus.knowledge-integrity` (blocking, drift): every knowledge record passes
//! `majordomus knowledge check` (SPEC §5.3); its findings are this rule's.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::knowledge::CheckRequest;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.knowledge-integrity",
    reads: &[Input::Records, Input::Git],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let report = crate::knowledge::check(inputs.ctx, CheckRequest {})?;
    out.findings.extend(report.findings);
    Ok(())
}
