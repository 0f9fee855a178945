//! `majordomus.temp-files` (advisory): no temp file of a killed writer is left under
//! `.ai/`. Housekeeping, not a finding: doctor removes the stale ones (their writer no
//! longer runs, or they are older than ten minutes) and names each in the rule's note.

use std::path::PathBuf;

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::store::atomic::{sweep_tree, swept_by_this_process};

pub(super) const RULE: Rule = Rule {
    id: "majordomus.temp-files",
    reads: &[Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let layout = &inputs.ctx.layout;
    let mut swept = sweep_tree(&layout.root().join(".ai"));
    // This run's own writes (the index's) may have swept some first.
    swept.removed.extend(swept_by_this_process());
    swept.removed.sort();
    swept.removed.dedup();
    let names = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| layout.display(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut said = Vec::new();
    if !swept.removed.is_empty() {
        said.push(format!(
            "removed {} stale temp file(s) a killed writer left: {}",
            swept.removed.len(),
            names(&swept.removed)
        ));
    }
    if !swept.live.is_empty() {
        said.push(format!(
            "left {} temp file(s) of writers still running: {}",
            swept.live.len(),
            names(&swept.live)
        ));
    }
    if !said.is_empty() {
        out.note = Some(said.join("; "));
    }
    out.counts.push(("removed", swept.removed.len()));
    Ok(())
}
