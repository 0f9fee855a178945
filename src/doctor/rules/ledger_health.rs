//! `majordomus.ledger-health` (advisory): every ledger line reads; a torn or malformed
//! line is named by its place (skipped on read, never fatal).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.ledger-health",
    reads: &[Input::LedgerIndex],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let skipped = inputs.index().skipped()?;
    for s in &skipped.lines {
        let place = s
            .line
            .map(|n| format!("line {n}"))
            .unwrap_or_else(|| format!("byte {}", s.offset));
        out.find(
            ".ai/local/ledger.jsonl",
            format!("{place}: {}", s.reason),
            "nothing to do: unreadable lines are skipped; a torn tail is ended by the next append"
                .into(),
        );
    }
    let unlisted = skipped.total.saturating_sub(skipped.lines.len() as u64);
    if unlisted > 0 {
        out.find(
            ".ai/local/ledger.jsonl",
            format!("{unlisted} more unreadable line(s) after these"),
            "majordomus history --format json lists every skipped line".into(),
        );
    }
    Ok(())
}
