//! `majordomus.policy-valid` (blocking): `.ai/repo/policy.yaml` parses and names only known
//! keys with accepted values. Doctor never refuses for a bad policy (SPEC §8): this rule
//! reports it, and the rules that need the policy are skipped and say so.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::knowledge::{Finding, Severity};

pub(super) const RULE: Rule = Rule {
    id: "majordomus.policy-valid",
    reads: &[Input::Policy],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    if let Some(e) = inputs.policy_error {
        let report = e.report();
        out.findings.push(Finding {
            informational: false,
            file: ".ai/repo/policy.yaml".to_owned(),
            rule: "policy.valid".to_owned(),
            severity: Severity::Blocking,
            message: format!("{} [{}]", report.message, report.rule),
            fix: report
                .fix
                .unwrap_or_else(|| "correct .ai/repo/policy.yaml (docs/POLICY.md)".to_owned()),
        });
    }
    Ok(())
}
