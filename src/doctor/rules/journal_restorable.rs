//! `majordomus.journal-restorable` (advisory; SPEC §12): the ledger holds at least what this
//! work tree's journal published. A `git clean -fdx` (or a lost `.ai/local/`) removes the
//! ledger and the open episode's state but not the journal's state under `.git/`: the lines
//! are in the journal, and nothing else says so (`journal status` then counts 0 pending, and
//! `session context` offers a new episode).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.journal-restorable",
    reads: &[Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let ctx = inputs.ctx;
    let Some(published) = crate::journal::state::read(ctx)?.published else {
        return Ok(());
    };
    let (last, len) = ctx.ledger().last_seq()?;
    if last >= published.seq {
        return Ok(());
    }
    // An empty ledger takes the journal back as it is; one that has lines since (an
    // episode opened after the clean) keeps them, merged after the journal's.
    let fix = if len == 0 {
        "majordomus journal restore"
    } else {
        "majordomus journal restore --force"
    };
    out.find(
        ".ai/local/ledger.jsonl",
        format!(
            "the ledger ends at seq {last}, but this work tree's journal published lines up to seq {} (commit {}): the ledger was removed or replaced (a git clean -fdx?), and the journal holds its lines",
            published.seq,
            &published.commit[..published.commit.len().min(12)]
        ),
        fix.to_owned(),
    );
    Ok(())
}
