//! The opening briefing (SPEC §5.6): open questions, candidates awaiting review on this
//! branch, the last handover; bounded by `session.briefing_budget_lines`.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::CandidatesRequest;
use crate::model::ids;
use crate::model::question::LedgerQuestion;
use crate::store::StoreError;
use crate::store::index::{IndexRebuilt, LedgerIndex};

/// `briefing` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BriefingRequest {}

/// A candidate file awaiting review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PendingCandidate {
    pub id: String,
    /// The episode its id names, when this checkout knows that episode.
    pub episode: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Briefing {
    pub open_questions: Vec<LedgerQuestion>,
    pub candidates: Vec<PendingCandidate>,
    /// The newest handover, relative to the repository root.
    pub last_handover: Option<String>,
    pub budget_lines: u64,
    pub text: String,
    /// Set when this read rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// Pending candidates (status `candidate`, in the work tree or the outbox), sorted; each
/// placed on its episode when a session record or a `session.opened` line of this
/// checkout names it.
fn pending_candidates(ctx: &Ctx, index: &LedgerIndex) -> Result<Vec<PendingCandidate>, Error> {
    let listing = crate::knowledge::candidates(ctx, CandidatesRequest::default())?;
    let episode_of = |id: &str| {
        id.get(..23)
            .filter(|e| ids::is_episode_id(e))
            .map(str::to_owned)
    };
    let named: Vec<String> = listing
        .candidates
        .iter()
        .filter_map(|c| episode_of(&c.id))
        .collect();
    let known = index.opened_episodes(named.iter().map(String::as_str))?;
    let mut list: Vec<PendingCandidate> = listing
        .candidates
        .into_iter()
        .map(|c| {
            let episode = episode_of(&c.id)
                .filter(|e| known.contains(e) || ctx.layout.session_record(e).is_file());
            PendingCandidate { id: c.id, episode }
        })
        .collect();
    list.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(list)
}

fn last_handover(ctx: &Ctx) -> Result<Option<String>, Error> {
    let dir = ctx.layout.handovers_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(&dir, e).into()),
    };
    // Handover files are named by episode id, which sorts by opening time.
    let newest = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .max();
    Ok(newest.map(|n| ctx.layout.display(&dir.join(n))))
}

/// Composes the briefing.
pub fn briefing(ctx: &Ctx, _request: BriefingRequest) -> Result<Briefing, Error> {
    ctx.require_initialised()?;
    let policy = ctx.policy()?;
    // The index keeps the open questions folded and knows which episodes were opened.
    let index = ctx.index()?;
    let open_questions = index.open_questions();
    let candidates = pending_candidates(ctx, &index)?;
    let last_handover = last_handover(ctx)?;
    let budget = policy.session.briefing_budget_lines;
    let text = render(
        &open_questions,
        &candidates,
        last_handover.as_deref(),
        budget,
    );
    Ok(Briefing {
        open_questions,
        candidates,
        last_handover,
        budget_lines: budget,
        text,
        index_rebuilt: index.rebuilt().cloned(),
    })
}

/// Renders the three blocks. Headings, counts and "more" lines are always shown; the
/// item lines of the two lists share what the budget leaves, half each.
fn render(
    questions: &[LedgerQuestion],
    candidates: &[PendingCandidate],
    handover: Option<&str>,
    budget: u64,
) -> String {
    // Three headings, the count line, two "more" lines, two blanks, the handover line.
    const FIXED: u64 = 9;
    let items = usize::try_from(budget.saturating_sub(FIXED)).unwrap_or(usize::MAX);
    let per_list = (items / 2).max(1);
    let mut out = String::new();
    let _ = writeln!(out, "## Open questions ({})", questions.len());
    if questions.is_empty() {
        out.push_str("- none open\n");
    }
    for q in questions.iter().take(per_list) {
        let _ = writeln!(out, "- {}: {} (asked {})", q.id, q.text, q.asked);
    }
    if questions.len() > per_list {
        let _ = writeln!(
            out,
            "- ... {} more: `majordomus history --event question.asked`",
            questions.len() - per_list
        );
    }
    let _ = writeln!(
        out,
        "\n## Candidates awaiting review ({})",
        candidates.len()
    );
    if candidates.is_empty() {
        out.push_str("- none on this branch\n");
    } else {
        let unassigned = candidates.iter().filter(|c| c.episode.is_none()).count();
        let _ = writeln!(
            out,
            "{} candidate(s) on this branch, {unassigned} unassigned",
            candidates.len()
        );
    }
    for c in candidates.iter().take(per_list) {
        match &c.episode {
            Some(_) => {
                let _ = writeln!(out, "- {}", c.id);
            }
            None => {
                let _ = writeln!(
                    out,
                    "- {} (unassigned: this checkout does not know its episode)",
                    c.id
                );
            }
        }
    }
    if candidates.len() > per_list {
        let _ = writeln!(
            out,
            "- ... {} more: `majordomus knowledge candidates`",
            candidates.len() - per_list
        );
    }
    out.push_str("\n## Last handover\n");
    match handover {
        Some(path) => {
            let _ = writeln!(out, "- {path}");
        }
        None => out.push_str("- none\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: usize) -> LedgerQuestion {
        LedgerQuestion {
            id: format!("q-{n}"),
            text: format!("question {n}"),
            session: None,
            asked: "2026-11-30T10:00:00Z".into(),
            answer: None,
        }
    }

    #[test]
    fn empty_sections_say_so() {
        let text = render(&[], &[], None, 40);
        assert!(text.contains("## Open questions (0)\n- none open"));
        assert!(text.contains("## Candidates awaiting review (0)\n- none on this branch"));
        assert!(text.contains("## Last handover\n- none"));
    }

    #[test]
    fn budget_bounds_the_lists_and_never_hides_the_count() {
        let questions: Vec<_> = (0..50).map(q).collect();
        let candidates: Vec<_> = (0..50)
            .map(|n| PendingCandidate {
                id: format!("c-{n:02}"),
                episode: None,
            })
            .collect();
        let text = render(&questions, &candidates, None, 20);
        assert!(text.lines().count() <= 20, "{text}");
        assert!(text.contains("## Open questions (50)"));
        assert!(text.contains("- ... 45 more"), "{text}");
        assert!(text.contains("50 candidate(s) on this branch, 50 unassigned"));
        assert!(text.contains("(unassigned: this checkout does not know its episode)"));
    }
}
