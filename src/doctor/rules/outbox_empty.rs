//! `majordomus.outbox-empty` (advisory; SPEC §5.7): the trunk outbox is empty; what it
//! holds reaches the tracked folders at the next episode boundary off the trunk.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::store::outbox::Outbox;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.outbox-empty",
    reads: &[Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let contents = Outbox::new(&inputs.ctx.layout).contents()?;
    if !contents.is_empty() {
        out.find(
            ".ai/local/state/outbox/",
            format!(
                "the trunk outbox holds {} session record(s) and {} candidate(s)",
                contents.sessions.len(),
                contents.candidates.len()
            ),
            "switch to a working branch and start an episode there (majordomus session start): the boundary moves them into .ai/repo/".into(),
        );
    }
    Ok(())
}
