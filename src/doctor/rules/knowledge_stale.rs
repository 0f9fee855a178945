//! `majordomus.knowledge-stale` (advisory, doctor only; SPEC §5.5): no verified record's
//! `file:`/`test:` targets changed since the commit that verified it; a stale record is
//! named with the commits that changed them, the command that re-verifies it and the ones
//! that retire or supersede it; one re-verified in the work tree is named as waiting for
//! its commit, with the commit.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::knowledge::stale::StaleRecord;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.knowledge-stale",
    reads: &[Input::Records, Input::Git],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let report = crate::knowledge::stale(inputs.ctx)?;
    if !report.not_judged.is_empty() {
        let listed: Vec<String> = report
            .not_judged
            .iter()
            .map(|n| format!("{} ({})", n.file, n.reason))
            .collect();
        out.note = Some(format!(
            "{} verified record(s) not judged: {}",
            listed.len(),
            listed.join("; ")
        ));
    }
    for record in &report.stale {
        let (message, fix) = stale_finding(record);
        out.find(&record.file, message, fix);
    }
    // Re-verified in the work tree: not stale, but HEAD's copy is still the one verified
    // before the files changed until the re-verification is committed.
    for record in &report.reverified {
        out.find(
            &record.file,
            format!(
                "verified record {} was re-verified at {} (knowledge reverify) and waits for its commit: until then HEAD holds the record as it was verified before its files changed",
                record.id,
                &record.at[..record.at.len().min(12)]
            ),
            format!(
                "git add {} && git commit -m \"Re-verify knowledge {}\"",
                record.file, record.id
            ),
        );
    }
    Ok(())
}

/// What a stale record's finding says, and its fix: the command that re-verifies it once a
/// person checked it (a curated record cannot be promoted again), with the other way out —
/// retire or supersede it — named after it as a shell comment, so the line still runs as
/// printed.
fn stale_finding(record: &StaleRecord) -> (String, String) {
    let moved: Vec<String> = record
        .targets
        .iter()
        .map(|t| {
            if t.commits.is_empty() {
                format!("{} {}", t.path, t.change.verb())
            } else {
                let by: Vec<String> = t.commits.iter().map(|c| c.short()).collect();
                format!("{} {} by {}", t.path, t.change.verb(), by.join(", "))
            }
        })
        .collect();
    let message = format!(
        "verified record {} was verified in {}; since then {}: if its claim still holds for them as they are now, re-verify it; if not, retire it, or supersede it by the record that replaces it (docs/RULES.md, \"Stale knowledge\")",
        record.id,
        record.verified_in.short(),
        moved.join("; ")
    );
    // Both ways out: the command re-verifies it as printed; the shell comment after it
    // names the other (a person decides which: nothing here can tell whether it holds).
    let fix = format!(
        "majordomus knowledge reverify {id}  # if it no longer holds: majordomus knowledge retire {id} --reason \"<why>\", or, when a verified record replaces it, echo \"<why>\" | majordomus knowledge supersede {id} --by <its id>",
        id = record.id
    );
    (message, fix)
}
