//! `majordomus.records-visible` (blocking): no path majordomus writes records to is hidden
//! by git's ignore rules; one finding per ignore rule, naming the paths it hides and the
//! one fix (`init` refuses the same way).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::git::Ignored;
use crate::store::skeleton::RECORD_PATHS;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.records-visible",
    reads: &[Input::Git],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    // One finding a rule: the paths it hides, and the one fix.
    let ignored = inputs.ctx.repo.ignored(RECORD_PATHS)?;
    let mut by_rule: Vec<(&Ignored, Vec<&str>)> = Vec::new();
    for hidden in &ignored {
        match by_rule.iter_mut().find(|(first, _)| {
            (&first.pattern, &first.source, first.line)
                == (&hidden.pattern, &hidden.source, hidden.line)
        }) {
            Some((_, paths)) => paths.push(&hidden.path),
            None => by_rule.push((hidden, vec![&hidden.path])),
        }
    }
    for (first, paths) in by_rule {
        let refusal = crate::init::ignored_refusal(first, "majordomus doctor");
        let message = if paths.len() == 1 {
            refusal.to_string()
        } else {
            refusal
                .to_string()
                .replacen(
                    &first.path,
                    &format!("{} record paths ({})", paths.len(), paths.join(", ")),
                    1,
                )
                .replacen(" is ignored by", " are ignored by", 1)
        };
        out.find(&first.path, message, refusal.fix().unwrap_or_default());
    }
    Ok(())
}
