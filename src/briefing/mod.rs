//! The opening briefing (SPEC §5.6): open questions, candidates awaiting review on this
//! branch, the last handover; bounded by `session.briefing_budget_lines`.

use std::collections::HashMap;
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::CandidatesRequest;
use crate::model::ids;
use crate::model::question::LedgerQuestion;
use crate::store::StoreError;
use crate::store::index::IndexRebuilt;

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
    /// The branch that episode ran on (its session record's, else its `session.opened`
    /// line's); `None` for a detached HEAD or an unknown episode.
    pub branch: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Briefing {
    pub open_questions: Vec<LedgerQuestion>,
    /// Candidates whose episode ran on this branch, and those this checkout cannot place
    /// (unassigned: never hidden).
    pub candidates: Vec<PendingCandidate>,
    /// Pending candidates of episodes that ran on other branches (counted, not listed).
    pub other_branches: usize,
    /// The newest handover, relative to the repository root.
    pub last_handover: Option<String>,
    /// Its Next Action lines (at most two).
    pub next_action: Vec<String>,
    pub budget_lines: u64,
    pub text: String,
    /// The policy could not be read; the briefing used the defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_error: Option<String>,
    /// Set when this read rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// Where each episode this checkout knows ran: from the tracked session records, else,
/// until an episode's record is written, from its `session.opened` line.
struct Episodes {
    branches: HashMap<String, Option<String>>,
}

impl Episodes {
    fn place(&self, id: &str) -> (Option<String>, Option<String>) {
        let Some(episode) = id.get(..23).filter(|e| ids::is_episode_id(e)) else {
            return (None, None);
        };
        match self.branches.get(episode) {
            Some(branch) => (Some(episode.to_owned()), branch.clone()),
            None => (None, None),
        }
    }
}

/// Session records' branches (tracked and in the outbox): a record names the branch its
/// episode closed on.
fn recorded_branches(
    ctx: &Ctx,
    branches: &mut HashMap<String, Option<String>>,
) -> Result<(), Error> {
    let outbox = crate::store::outbox::Outbox::new(&ctx.layout);
    for dir in [
        ctx.layout.sessions_dir(),
        outbox.shelf(crate::store::outbox::Shelf::Sessions),
    ] {
        for name in crate::store::outbox::list_markdown(&dir)? {
            let Ok(text) = std::fs::read_to_string(dir.join(&name)) else {
                continue;
            };
            if let Ok((record, _)) =
                crate::store::frontmatter::parse::<crate::model::compose::SessionRecord>(&text)
            {
                branches.insert(record.id, record.branch);
            }
        }
    }
    Ok(())
}

/// Pending candidates (status `candidate`, in the work tree or the outbox), sorted, each
/// placed on its episode and that episode's branch.
fn pending_candidates(ctx: &Ctx, episodes: &Episodes) -> Result<Vec<PendingCandidate>, Error> {
    let listing = crate::knowledge::candidates(ctx, CandidatesRequest::default())?;
    let mut list: Vec<PendingCandidate> = listing
        .candidates
        .into_iter()
        .map(|c| {
            let (episode, branch) = episodes.place(&c.id);
            PendingCandidate {
                id: c.id,
                episode,
                branch,
            }
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

/// The first two lines under a handover's `## Next Action`, bullets stripped.
fn next_action(path: &std::path::Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .skip_while(|l| *l != "## Next Action")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("- "))
        .take(2)
        .map(str::to_owned)
        .collect()
}

/// Composes the briefing.
pub fn briefing(ctx: &Ctx, _request: BriefingRequest) -> Result<Briefing, Error> {
    ctx.require_initialised()?;
    let (policy, policy_error) = ctx.policy_lenient()?;
    // The index keeps the open questions folded and knows where each episode opened.
    let index = ctx.index()?;
    let open_questions = index.open_questions();
    let listing_ids: Vec<String> = crate::knowledge::candidates(ctx, CandidatesRequest::default())?
        .candidates
        .iter()
        .filter_map(|c| {
            c.id.get(..23)
                .filter(|e| ids::is_episode_id(e))
                .map(str::to_owned)
        })
        .collect();
    let mut branches = index.opened_branches(listing_ids.iter().map(String::as_str))?;
    recorded_branches(ctx, &mut branches)?;
    let here = ctx.repo.head()?.branch;
    let all = pending_candidates(ctx, &Episodes { branches })?;
    let (candidates, elsewhere): (Vec<_>, Vec<_>) = all
        .into_iter()
        .partition(|c| c.episode.is_none() || c.branch == here);
    let last_handover = last_handover(ctx)?;
    let next_action = match &last_handover {
        Some(rel) => next_action(&ctx.layout.root().join(rel)),
        None => Vec::new(),
    };
    let budget = policy.session.briefing_budget_lines;
    let text = render(
        &open_questions,
        &candidates,
        elsewhere.len(),
        last_handover.as_deref(),
        &next_action,
        budget,
    );
    Ok(Briefing {
        open_questions,
        candidates,
        other_branches: elsewhere.len(),
        last_handover,
        next_action,
        budget_lines: budget,
        text,
        policy_error: policy_error.map(|e| e.to_string()),
        index_rebuilt: index.rebuilt().cloned(),
    })
}

/// Renders the three blocks. Headings, counts and "more" lines are always shown; the
/// item lines of the two lists share what the budget leaves, half each.
fn render(
    questions: &[LedgerQuestion],
    candidates: &[PendingCandidate],
    other_branches: usize,
    handover: Option<&str>,
    next_action: &[String],
    budget: u64,
) -> String {
    // Three headings, the count line, two "more" lines, two blanks, the handover line and
    // its two next-action lines.
    const FIXED: u64 = 11;
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
    let (assigned, unassigned): (Vec<_>, Vec<_>) =
        candidates.iter().partition(|c| c.episode.is_some());
    if candidates.is_empty() {
        out.push_str("- none on this branch\n");
    } else {
        let _ = writeln!(
            out,
            "{} candidate(s) on this branch, {} unassigned",
            candidates.len(),
            unassigned.len()
        );
    }
    if other_branches > 0 {
        let _ = writeln!(
            out,
            "({other_branches} more from episodes on other branches: `majordomus knowledge candidates`)"
        );
    }
    // Unassigned candidates are always named: a record the briefing cannot place is
    // still a record someone has to review. The budget bounds the assigned ones.
    let room = per_list.saturating_sub(unassigned.len()).max(1);
    for c in assigned.iter().take(room) {
        let _ = writeln!(out, "- {}", c.id);
    }
    if assigned.len() > room {
        let _ = writeln!(
            out,
            "- ... {} more: `majordomus knowledge candidates`",
            assigned.len() - room
        );
    }
    for c in &unassigned {
        let _ = writeln!(
            out,
            "- {} (unassigned: this checkout does not know its episode)",
            c.id
        );
    }
    out.push_str("\n## Last handover\n");
    match handover {
        Some(path) => {
            let _ = writeln!(out, "- {path}");
            for line in next_action {
                let _ = writeln!(out, "  next: {line}");
            }
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
        let text = render(&[], &[], 0, None, &[], 40);
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
                episode: Some("E".into()),
                branch: Some("main".into()),
            })
            .collect();
        let text = render(&questions, &candidates, 3, None, &[], 20);
        assert!(text.lines().count() <= 21, "{text}");
        assert!(text.contains("## Open questions (50)"));
        assert!(text.contains("- ... 46 more"), "{text}");
        assert!(text.contains("50 candidate(s) on this branch, 0 unassigned"));
        assert!(
            text.contains("(3 more from episodes on other branches"),
            "{text}"
        );
    }

    #[test]
    fn unassigned_candidates_are_always_named() {
        let candidates: Vec<_> = (0..30)
            .map(|n| PendingCandidate {
                id: format!("c-{n:02}"),
                episode: (n % 2 == 0).then(|| "E".to_owned()),
                branch: None,
            })
            .collect();
        let text = render(&[], &candidates, 0, None, &[], 14);
        for c in candidates.iter().filter(|c| c.episode.is_none()) {
            assert!(
                text.contains(&format!(
                    "- {} (unassigned: this checkout does not know its episode)",
                    c.id
                )),
                "{} is hidden:\n{text}",
                c.id
            );
        }
        assert!(text.contains("30 candidate(s) on this branch, 15 unassigned"));
    }
}
