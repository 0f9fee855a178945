//! `majordomus.journal-pushed` (advisory; SPEC §12): where this work tree shares the
//! journal (`journal.share` on, `journal enable` run here), git reaches majordomus from
//! pre-push, the one place the journal is pushed. Without it the lines episode boundaries
//! publish stay on this machine, and nothing else says so.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::hooks::Reach;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.journal-pushed",
    reads: &[Input::Policy, Input::GitHooks, Input::Files],
    check,
};

/// The git hook that pushes the journal.
const PRE_PUSH: &str = "pre-push";

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    if !inputs.policy.journal.share {
        return Ok(());
    }
    let Some(remote) = crate::journal::state::read(inputs.ctx)?.remote else {
        out.note = Some(
            "journal.share is on, but this work tree never ran majordomus journal enable: it publishes nothing"
                .to_owned(),
        );
        return Ok(());
    };
    let Some(hook) = inputs.hooks().hooks.iter().find(|h| h.hook == PRE_PUSH) else {
        return Ok(());
    };
    if matches!(hook.reach, Reach::Reached | Reach::Twice) {
        return Ok(());
    }
    let why = match &hook.reason {
        Some(reason) => format!("{}: {reason}", hook.reach.name()),
        None => hook.reach.name().to_owned(),
    };
    out.find(
        &hook.runs,
        format!(
            "journal.share is on and this work tree publishes its journal to {remote}, but git does not reach majordomus from pre-push ({why}): the journal's pending lines will never be pushed"
        ),
        hook.fix
            .clone()
            .unwrap_or_else(|| "majordomus hooks install".to_owned()),
    );
    Ok(())
}
