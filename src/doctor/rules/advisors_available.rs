//! `majordomus.advisors-available` (advisory, information only): the reasoning mode and each
//! advisor's availability now, said in the rule's note. It never finds anything: a missing
//! advisor is a state, never a fault (SPEC §7), and it contacts no model (availability is
//! presence, mode, the disabled list, recorded consultations and the clock; with
//! `MAJORDOMUS_SERVER_URL`, the mesh server's list of linked runtimes).

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.advisors-available",
    reads: &[Input::Policy, Input::Records, Input::Files],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    match crate::reasoning::advisors(inputs.ctx, crate::reasoning::AdvisorsRequest {}) {
        Ok(advisors) => {
            let capacity: Vec<String> = advisors
                .capacity
                .iter()
                .map(|c| format!("{} {}/{}", c.capability, c.admissible, c.offered_by))
                .collect();
            let mesh = advisors.mesh.as_ref().map(|m| match &m.problem {
                Some(problem) => format!("; mesh {}: no peers listed ({problem})", m.server),
                None => format!(
                    "; mesh {}: {} live peer(s) offering reviews",
                    m.server, m.peers
                ),
            });
            out.note = Some(
                if capacity.is_empty() {
                    format!("information: advisors: {}", advisors.line())
                } else {
                    format!(
                        "information: advisors: {}; admissible/offering per capability: {}",
                        advisors.line(),
                        capacity.join(", ")
                    )
                } + mesh.as_deref().unwrap_or_default(),
            );
        }
        // Information that cannot be read is said, and judged by the rules that own it.
        Err(e) => {
            out.skipped = true;
            out.note = Some(format!(
                "skipped: the advisors cannot be read ({e}); majordomus reasoning advisors says more"
            ));
        }
    }
    Ok(())
}
