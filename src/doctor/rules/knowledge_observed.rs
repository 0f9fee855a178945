//! `majordomus.knowledge-observed` (blocking, drift; SPEC §5.5): the newest closed episode
//! was derived (a `knowledge.derived` line names it), or is younger than
//! `session.freshness.stale_minutes`; with `session.knowledge_on_end` the close path
//! derives. A ledger with no `knowledge.derived` line at all is not judged.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.knowledge-observed",
    reads: &[Input::Policy, Input::LedgerIndex],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let index = inputs.index();
    let policy = inputs.policy;
    if !index.any_episode_derived() {
        out.skipped = true;
        out.note = Some(
            "skipped: this ledger has no knowledge.derived line at all, so freshness is not judged"
                .to_owned(),
        );
        return Ok(());
    }
    let Some(last) = index.last_episode_closed() else {
        return Ok(());
    };
    // An episode that closed empty had nothing to derive (SPEC §3.2).
    if last.empty {
        return Ok(());
    }
    let Some(episode) = &last.episode else {
        return Ok(());
    };
    let age = crate::model::time::parse(&last.ts)
        .map(|t| (inputs.now - t).whole_minutes())
        .unwrap_or(0);
    let derive_on = last.knowledge_on_end.unwrap_or(true);
    let derived = index.episode(episode)?.is_some_and(|e| e.derived);
    let fix = format!("majordomus knowledge derive --episode {episode}");
    // What the finding read, as a read-only command that prints it: the close and every
    // derivation since (none names the episode).
    let see = format!(
        "see it: majordomus history --event session.closed --event knowledge.derived --since {}",
        crate::model::shell::quote(&last.ts)
    );
    match derived {
        false if age > policy.session.freshness.stale_minutes as i64 => out.find(
            ".ai/local/ledger.jsonl",
            format!(
                "episode {episode} closed {age} minutes ago and no knowledge.derived names it (stale after {} minutes); {see}",
                policy.session.freshness.stale_minutes
            ),
            fix,
        ),
        // The close ran with derivation on and still nothing derived it (a crash between
        // record and derive, or an older version).
        false if policy.session.knowledge_on_end && derive_on => out.find(
            ".ai/local/ledger.jsonl",
            format!(
                "episode {episode} closed with session.knowledge_on_end on, but its close path did not derive; {see}"
            ),
            fix,
        ),
        _ => {}
    }
    Ok(())
}
