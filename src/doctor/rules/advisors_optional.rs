//! `project.advisors-are-optional` (declared by a project, never by the package): runs
//! `reasoning check`'s source and CI checks; its findings take the declared severity.
//! Doctor says when an adopter does not declare it (`doctor()`).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::reasoning::check::{ADVISORS_ARE_OPTIONAL, CheckRequest};

pub(super) const RULE: Rule = Rule {
    id: ADVISORS_ARE_OPTIONAL,
    reads: &[Input::Git, Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let report = crate::reasoning::check::check(inputs.ctx, CheckRequest {})?;
    let excepted: usize = report.exceptions.iter().map(|e| e.files).sum();
    out.note = Some(format!(
        "{} provider-independent source(s) and {} CI and gate file(s) read; {excepted} file(s) under {} declared exception(s)",
        report.sources,
        report.ci_files,
        report.exceptions.len()
    ));
    // The declared severity decides, as for every project rule.
    out.find_at_severity(report.findings);
    Ok(())
}
