//! `majordomus.provider-events` (advisory; SPEC §8): no provider hook failed
//! (`provider.event.failed`), or each failure has been acknowledged or followed by a run
//! of the same hook that succeeded.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.provider-events",
    reads: &[Input::LedgerIndex],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let (failures, total) = inputs.index().provider_failures();
    let unlisted = total.saturating_sub(failures.len() as u64);
    if unlisted > 0 {
        out.find(
            ".ai/local/ledger.jsonl",
            format!(
                "{unlisted} earlier provider hook failure(s) besides the newest {}",
                failures.len()
            ),
            "majordomus history --event provider.event.failed".into(),
        );
    }
    // The recorded error is the message; running a provider hook by hand prints nothing
    // of it. Once read, an acknowledgement clears it (as does a later run of the same
    // hook that succeeds).
    let newest = failures.iter().map(|f| f.seq).max().unwrap_or_default();
    for failed in &failures {
        out.find(
            ".ai/local/ledger.jsonl",
            format!(
                "#{} {}: provider hook {} ({}) failed: {}",
                failed.seq, failed.ts, failed.hook, failed.provider, failed.error
            ),
            format!("majordomus hooks acknowledge --through {newest}"),
        );
    }
    Ok(())
}
