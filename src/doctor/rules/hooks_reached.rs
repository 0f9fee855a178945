//! `majordomus.hooks-reached` (advisory; SPEC §8): once majordomus's git hooks are
//! installed, git reaches majordomus exactly once from each of them in this work tree (no
//! hook manager replaced or bypassed the block, none runs it twice, and the hooks
//! directory git uses exists here).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.hooks-reached",
    reads: &[Input::GitHooks],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let state = inputs.hooks();
    if !state.installed {
        out.note = Some(format!(
            "no git hook of majordomus is installed in {} (majordomus hooks install installs them)",
            state.dir
        ));
    }
    for hook in state.problems() {
        out.find(
            &hook.runs,
            format!(
                "{} {}: {}",
                hook.hook,
                hook.reach.name(),
                hook.reason.as_deref().unwrap_or_default()
            ),
            hook.fix.clone().unwrap_or_default(),
        );
    }
    Ok(())
}
