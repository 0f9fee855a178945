//! The opening briefing (SPEC §5.6, §11): how to work here (the practice: recall, record,
//! reason about a material uncertainty), open questions, what the repository knows about
//! the work at hand (the curated knowledge most relevant to it, then the decisions of
//! earlier episodes on this branch), candidates awaiting review on this branch, the last
//! handover; bounded by `session.briefing_budget_lines`, and every list that is cut says
//! how many it left out and the command that lists them. Read through the ledger index
//! and the recall index: its cost grows with what it shows, not with the store.

mod render;

pub use render::PRACTICE;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::event::{ShownItem, claim_of};
use crate::model::ids;
use crate::model::question::LedgerQuestion;
use crate::model::recall::HitStatus;
use crate::recall::{Hit, RecallKind, RecallRequest};
use crate::store::StoreError;
use crate::store::index::IndexRebuilt;

/// `briefing` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BriefingRequest {
    /// What the conversation being briefed already holds (`kind:id`, as `context.shown`
    /// names them): a resumed conversation (SPEC §8) is not briefed again with it, nor with
    /// the practice. Set by the session-start hook; never part of a request from a surface.
    #[serde(skip)]
    pub held: Vec<String>,
}

/// A candidate file awaiting review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PendingCandidate {
    pub id: String,
    /// Its title (as the index keeps its first line).
    pub title: String,
    /// The episode its id names, when this checkout knows that episode.
    pub episode: Option<String>,
    /// The branch that episode ran on (its session record's, else its `session.opened`
    /// line's); `None` for a detached HEAD or an unknown episode.
    pub branch: Option<String>,
    /// It waits in the trunk's outbox (on no branch yet: the next episode boundary on a
    /// branch moves it into the tree).
    pub outbox: bool,
}

/// One ranked list of the briefing: what it shows, how many there are, and the command
/// that lists them all.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Ranked {
    pub hits: Vec<Hit>,
    /// How many there are: exact when `total_exact`, else at least this many.
    pub total: usize,
    pub total_exact: bool,
    /// The `majordomus recall ...` that lists every one of them.
    pub command: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Briefing {
    pub open_questions: Vec<LedgerQuestion>,
    /// The curated knowledge most relevant to the work at hand (with nothing to go on,
    /// the most recently verified); the hits are those the budget left room for.
    pub knowledge: Ranked,
    /// Where the work at hand came from, in words (empty: nothing to go on).
    pub at_hand: Vec<String>,
    /// Decisions of episodes on this branch that no promotion or rejection settled yet.
    pub decisions: Ranked,
    /// The branch those decisions ran on (`None` on a detached HEAD).
    pub branch: Option<String>,
    /// The candidates of this work tree (tracked here, or untracked from an episode on
    /// this branch or one this checkout cannot place: unassigned, never hidden), then
    /// those waiting in the outbox.
    pub candidates: Vec<PendingCandidate>,
    /// The candidates the text names (the rest it counts), as put before the model.
    #[serde(skip)]
    pub shown_candidates: Vec<PendingCandidate>,
    /// Untracked candidates left in the tree by episodes that ran on other branches
    /// (counted, not listed).
    pub other_branches: usize,
    /// The newest handover, relative to the repository root.
    pub last_handover: Option<String>,
    /// Knowledge records a merge (rebase, cherry-pick) under way left with conflict
    /// markers: named, with both acts and the fix, never left out silently.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicted: Vec<crate::knowledge::check::ConflictedRecord>,
    /// Its Next Action lines (at most two).
    pub next_action: Vec<String>,
    /// The other worktrees of this clone and their open episodes (SPEC §12); empty in a
    /// clone with one worktree. Those the budget left room for (the text says how many
    /// more and `majordomus worktrees` lists them all).
    pub worktrees: Vec<crate::worktrees::Worktree>,
    /// How many other worktrees there are.
    pub worktrees_total: usize,
    /// The other clones' writers whose journals this clone fetched, each with its latest
    /// episode (SPEC §12): those on this branch first, then the newest; those the budget
    /// left room for (the text says how many more and `majordomus journal status` lists
    /// them all).
    pub writers: Vec<crate::journal::writers::WriterActivity>,
    /// How many fetched writers there are.
    pub writers_total: usize,
    /// The fetched journals could not be read (the briefing is shown without them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal_error: Option<String>,
    /// Review requests from mesh peers wait for this checkout's linked runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    pub budget_lines: u64,
    pub text: String,
    /// The conversation is resumed: how many records it holds from earlier episodes, which
    /// the briefing does not repeat (nor the practice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<usize>,
    /// The claims the resumed conversation holds ([`claim_of`] its references).
    #[serde(skip)]
    pub held: std::collections::HashSet<String>,
    /// The policy could not be read; the briefing used the defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_error: Option<String>,
    /// Set when this read rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
    /// Set when this read built the recall index anew (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_rebuilt: Option<String>,
}

/// The request that lists the briefing's knowledge: the work at hand, curated records.
impl Briefing {
    /// Every record the briefing's text puts before the model (SPEC §5.6): what the
    /// repository knows, the decisions of earlier episodes, the candidates it names, and the
    /// last handover when its next actions are quoted; as `context.shown` logs them.
    pub fn shown(&self) -> Vec<ShownItem> {
        let mut items: Vec<ShownItem> = self
            .knowledge
            .hits
            .iter()
            .chain(&self.decisions.hits)
            .map(|h| ShownItem {
                id: format!("{}:{}", h.kind.name(), h.id),
                status: h.status,
            })
            .collect();
        items.extend(self.shown_candidates.iter().map(|c| ShownItem {
            id: format!("{}:{}", RecallKind::Knowledge.name(), c.id),
            status: HitStatus::Candidate,
        }));
        if let Some(episode) = self
            .last_handover
            .as_deref()
            .filter(|_| !self.next_action.is_empty())
            .and_then(|path| path.rsplit('/').next())
            .and_then(|name| name.strip_suffix(".md"))
        {
            items.push(ShownItem {
                id: format!("{}:{episode}", RecallKind::Handover.name()),
                status: HitStatus::Candidate,
            });
        }
        // What a resumed conversation holds is on record already (`resumed`); a decision and
        // the candidate derived from it are one claim, logged once.
        let mut seen = std::collections::HashSet::new();
        items.retain(|i| {
            let claim = claim_of(&i.id).to_owned();
            !self.held.contains(&claim) && seen.insert(claim)
        });
        items
    }
}

pub fn knowledge_request() -> RecallRequest {
    RecallRequest {
        kind: vec![RecallKind::Knowledge],
        status: vec![HitStatus::Verified, HitStatus::Stale],
        at_hand: true,
        ..RecallRequest::default()
    }
}

/// The request that lists the decisions of episodes on `branch` still unsettled.
pub fn decisions_request(branch: &str) -> RecallRequest {
    RecallRequest {
        kind: vec![RecallKind::Decision],
        status: vec![HitStatus::Candidate],
        branch: Some(branch.to_owned()),
        ..RecallRequest::default()
    }
}

/// The last handover of this branch (never another branch's, never an idle session's).
fn newest_handover(ctx: &Ctx) -> Result<Option<String>, Error> {
    Ok(crate::recall::last_handover(ctx)?.map(|(_, path)| ctx.layout.display(&path)))
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
pub fn briefing(ctx: &Ctx, request: BriefingRequest) -> Result<Briefing, Error> {
    let _phase = crate::timing::Phase::start("briefing");
    let (policy, policy_error) = ctx.policy_lenient()?;
    // The ledger index keeps the open questions folded.
    let phase = crate::timing::Phase::start("briefing.ledger");
    let index = ctx.index()?;
    phase.end();
    let open_questions = index.open_questions();
    // Branches are recorded redacted (a secret shape in a branch name never reaches a
    // record), so this branch is compared, filtered by and shown in the same form.
    let here = ctx
        .repo
        .head()?
        .branch
        .map(|b| crate::model::redact::redact(&b).text);

    // What the repository knows: as many as the budget could ever show, and the totals.
    let budget = policy.session.briefing_budget_lines;
    // No list can get more item lines than the budget less the lines always shown.
    let most = usize::try_from(budget)
        .unwrap_or(usize::MAX)
        .saturating_sub(render::ALWAYS_SHOWN)
        .clamp(1, 200);

    // Everything the recall index gives, in one read (rebuilt and read again if the index
    // fails during it).
    let ((pending, places, known, decisions), recall_rebuilt) =
        crate::recall::sync::with_index(ctx, |opened| {
            // The identifiers and the judgements the hooks read, brought to HEAD.
            let phase = crate::timing::Phase::start("briefing.to_head");
            crate::recall::to_head(ctx, &mut opened.db)?;
            phase.end();
            let pending_phase = crate::timing::Phase::start("briefing.pending");
            // Pending candidates, each placed on its episode's branch.
            let pending = opened
                .db
                .reader()
                .knowledge_in(&["candidates", "outbox"], "candidate")
                .map_err(index_error)?;
            let episodes: Vec<String> = pending
                .iter()
                .filter_map(|d| d.episode.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let places = opened
                .db
                .reader()
                .episodes(&episodes)
                .map_err(index_error)?;
            pending_phase.end();
            let mut known_request = knowledge_request();
            known_request.limit = Some(most);
            known_request.leave_out = request.held.clone();
            // At every session start and re-entry: one pass (docs/PERFORMANCE.md).
            known_request.one_pass = true;
            let mut known = crate::recall::recall_in(ctx, &mut opened.db, &known_request)?;
            // The one pass left records unread: what the repository knows is every
            // verified record, counted over the status index (no row read).
            if !known.total_exact {
                let (_, all) = opened
                    .db
                    .reader()
                    .listing(
                        RecallKind::Knowledge.name(),
                        &["verified"],
                        None,
                        None,
                        true,
                        0,
                    )
                    .map_err(index_error)?;
                known.total = known.total.max(all);
                known.total_exact = true;
            }
            let decisions = match &here {
                Some(branch) => {
                    let mut decided = decisions_request(branch);
                    decided.limit = Some(most);
                    decided.leave_out = request.held.clone();
                    decided.one_pass = true;
                    Some(crate::recall::recall_in(ctx, &mut opened.db, &decided)?)
                }
                None => None,
            };
            Ok((pending, places, known, decisions))
        })?;
    let mut all: Vec<(PendingCandidate, Option<String>)> = pending
        .into_iter()
        .map(|d| {
            let episode = d
                .episode
                .filter(|e| ids::is_episode_id(e) && places.contains_key(e));
            let branch = episode
                .as_ref()
                .and_then(|e| places.get(e))
                .and_then(|p| p.branch.clone());
            let file = d.source.strip_prefix("file:").map(str::to_owned);
            (
                PendingCandidate {
                    id: d.key,
                    title: d.line,
                    episode,
                    branch,
                    outbox: d.place.as_deref() == Some("outbox"),
                },
                file,
            )
        })
        .collect();
    // The oldest first: an id starts with its episode's time; one episode's by title.
    let time = |c: &PendingCandidate| c.id.get(..16).unwrap_or(&c.id).to_owned();
    all.sort_by(|(a, _), (b, _)| {
        (a.outbox, time(a), &a.title, &a.id).cmp(&(b.outbox, time(b), &b.title, &b.id))
    });
    all.dedup_by(|(a, _), (b, _)| a.id == b.id && a.outbox == b.outbox);
    // A file git tracks in this tree is on this branch, whichever branch's episode derived
    // it (a merge, a fresh clone or worktree); only an untracked file left behind by an
    // episode on another branch is elsewhere. The git index is read only when one could be.
    let elsewhere_maybe = all
        .iter()
        .any(|(c, _)| !c.outbox && c.episode.is_some() && c.branch != here);
    let tracked: std::collections::HashSet<String> = if elsewhere_maybe {
        ctx.repo
            .tracked_files_under(".ai/repo/knowledge/candidates/")?
            .into_iter()
            .collect()
    } else {
        Default::default()
    };
    let (candidates, elsewhere): (Vec<_>, Vec<_>) = all.into_iter().partition(|(c, file)| {
        c.outbox
            || c.episode.is_none()
            || c.branch == here
            || file.as_ref().is_some_and(|f| tracked.contains(f))
    });
    let candidates: Vec<PendingCandidate> = candidates.into_iter().map(|(c, _)| c).collect();

    let rest = crate::timing::Phase::start("briefing.rest");
    let last_handover = newest_handover(ctx)?;
    let conflicted = crate::knowledge::check::conflicted_in_progress(ctx)?;
    let next_action = match &last_handover {
        Some(rel) => next_action(&ctx.layout.root().join(rel)),
        None => Vec::new(),
    };

    // Open episodes first (what another agent is doing now), then the rest, in list order.
    let mut worktrees = crate::worktrees::others(ctx);
    worktrees.sort_by_key(|w| w.state != crate::worktrees::WorktreeState::Open);

    // The other clones' writers: only as many as a list could show are read.
    let (writers, writers_total, journal_error) = match other_writers(ctx, here.as_deref(), most) {
        Ok((shown, total)) => (shown, total, None),
        Err(e) => (Vec::new(), 0, Some(e.to_string())),
    };

    rest.end();
    let _render = crate::timing::Phase::start("briefing.render");
    let mut briefing = Briefing {
        open_questions,
        knowledge: Ranked {
            hits: known.hits,
            total: known.total,
            total_exact: known.total_exact,
            command: String::new(),
        },
        at_hand: known.context.at_hand,
        decisions: match decisions {
            Some(d) => Ranked {
                hits: d.hits,
                total: d.total,
                total_exact: d.total_exact,
                command: String::new(),
            },
            None => Ranked::default(),
        },
        branch: here.clone(),
        candidates,
        shown_candidates: Vec::new(),
        other_branches: elsewhere.len(),
        last_handover,
        conflicted,
        next_action,
        worktrees_total: worktrees.len(),
        worktrees,
        writers,
        writers_total,
        journal_error,
        mesh: crate::mesh::briefing_line(ctx),
        budget_lines: budget,
        text: String::new(),
        resumed: (!request.held.is_empty()).then_some(request.held.len()),
        held: request
            .held
            .iter()
            .map(|r| claim_of(r).to_owned())
            .collect(),
        policy_error: policy_error.map(|e| e.to_string()),
        index_rebuilt: index.rebuilt().cloned(),
        recall_rebuilt,
    };
    let shown = render::render(&mut briefing);
    briefing.text = shown;
    Ok(briefing)
}

/// The fetched writers the briefing may show (at most `most`), and how many there are.
fn other_writers(
    ctx: &Ctx,
    here: Option<&str>,
    most: usize,
) -> Result<(Vec<crate::journal::writers::WriterActivity>, usize), Error> {
    let journals = crate::journal::journals(ctx)?;
    let total = crate::journal::writers::fetched(&journals.journals).len();
    let shown = crate::journal::writers::activity(ctx, &journals.journals, here, most)?;
    Ok((shown, total))
}

fn index_error(e: crate::store::recall::IndexError) -> Error {
    StoreError::Malformed {
        path: e.path.into(),
        message: e.message,
    }
    .into()
}
