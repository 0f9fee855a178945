//! `majordomus.candidates-reviewed` (advisory, doctor only; SPEC §5.5): the review queue
//! stays under `knowledge.candidates_max_files`, no candidate waits longer than
//! `knowledge.candidate_max_age_minutes`, and git tracks every candidate.

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;
use crate::knowledge::{CandidateState, CandidatesRequest};

pub(super) const RULE: Rule = Rule {
    id: "majordomus.candidates-reviewed",
    reads: &[Input::Policy, Input::Records, Input::Git],
    check,
};

fn check(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let policy = inputs.policy;
    let keys = [
        "knowledge.candidates_max_files",
        "knowledge.candidate_max_age_minutes",
    ];
    if !keys.iter().any(|k| policy.declared.iter().any(|d| d == k)) {
        out.note = Some(format!(
            "the policy declares neither {} nor {}; the defaults ({} files, {} minutes) apply",
            keys[0],
            keys[1],
            policy.knowledge.candidates_max_files,
            policy.knowledge.candidate_max_age_minutes
        ));
    }
    let listing = crate::knowledge::candidates(inputs.ctx, CandidatesRequest::default())?;
    let max = policy.knowledge.candidates_max_files as usize;
    if listing.candidates.len() > max {
        out.find(
            ".ai/repo/knowledge/candidates/",
            format!(
                "{} candidates pending, more than knowledge.candidates_max_files ({max})",
                listing.candidates.len()
            ),
            "review them: majordomus knowledge promote <id> / reject <id> --reason".into(),
        );
    }
    let limit = policy.knowledge.candidate_max_age_minutes as i64;
    // Aged as the review queue is (SPEC §5.2: `knowledge::queue_starts`): the first
    // knowledge.derived naming it, else the commit that added it, else its date.
    for c in &listing.candidates {
        if let Some(at) = crate::model::time::parse(&c.queued_at) {
            let age = (inputs.now - at).whole_minutes();
            if age > limit {
                out.find(
                    &c.path,
                    format!(
                        "awaiting review for {age} minutes (limit {limit}), measured from {}",
                        c.queued_from.said()
                    ),
                    format!("majordomus knowledge promote {} or reject it", c.id),
                );
            }
        }
        if c.state == CandidateState::Untracked {
            out.find(
                &c.path,
                "git does not track this candidate".into(),
                format!("git add {}", c.path),
            );
        }
    }
    Ok(())
}
