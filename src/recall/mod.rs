//! Recall (SPEC §11), the reader of the memory: `majordomus recall` searches curated
//! knowledge and candidates, decisions, answered questions, checkpoints, session records,
//! handovers and reasoning conclusions, ranked by the work at hand and explained; `show`
//! reads one hit whole. The same search serves the briefing's "What the repository
//! knows", `task start`, `session context`, and the near-duplicate note of `decision` and
//! `question`. The index behind it is derived (`sync`); the ranking is `model::recall`.
//!
//! A recall is a pipeline: the request (`request`) resolved into what the search ranks
//! by (`resolve`, with the work at hand: `hand`), the search ([`search`]), and each
//! record found made a hit with why it ranked (`hit`). Beside it: what `task start` and
//! `session context` show (`relevant`), the near-duplicate note (`duplicate`), the
//! verified records a new decision concerns (`concern`), and `show` (`show`).

mod concern;
mod duplicate;
mod hand;
mod hit;
mod relevant;
mod request;
mod resolve;
pub mod search;
mod show;
pub mod sync;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::query_terms;

pub use concern::{Concerned, concerned};
pub use duplicate::{NearDuplicate, near_duplicates};
pub use hand::{AtHand, at_hand, last_handover};
pub use hit::{Hit, ReadHint, Reason, Weighed, read_hint};
pub use relevant::{Relevant, relevant_knowledge};
pub use request::{DEFAULT_LIMIT, MAX_LIMIT, MAX_PATHS, RecallRequest, command, quote};
pub(crate) use resolve::normalise_path;
pub use resolve::{RecallContext, WeighedPath, from_directory};
pub use search::{Query, QueryPath};
pub use show::{ShowRequest, Shown, show};

/// What a hit is: knowledge (curated or candidate), a decision, an answered question, a
/// checkpoint, a session record, a handover, a reasoning conclusion.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecallKind {
    // A knowledge record: curated (verified) or a candidate.
    Knowledge,
    // A decision from the ledger.
    Decision,
    // An answered question.
    Question,
    // A checkpoint.
    Checkpoint,
    // A closed episode's session record.
    Session,
    // A derived handover.
    Handover,
    // A reasoning conclusion.
    Conclusion,
}

impl RecallKind {
    pub const ALL: [RecallKind; 7] = [
        RecallKind::Knowledge,
        RecallKind::Decision,
        RecallKind::Question,
        RecallKind::Checkpoint,
        RecallKind::Session,
        RecallKind::Handover,
        RecallKind::Conclusion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RecallKind::Knowledge => "knowledge",
            RecallKind::Decision => "decision",
            RecallKind::Question => "question",
            RecallKind::Checkpoint => "checkpoint",
            RecallKind::Session => "session",
            RecallKind::Handover => "handover",
            RecallKind::Conclusion => "conclusion",
        }
    }

    pub fn from_name(name: &str) -> Option<RecallKind> {
        RecallKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// `recall`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Recall {
    pub query: String,
    /// The distinct terms searched for.
    pub terms: Vec<String>,
    /// Distinct terms past the limit of terms, not searched.
    pub terms_left_out: usize,
    pub context: RecallContext,
    pub hits: Vec<Hit>,
    /// Hits in all, before the limit: exact when `total_exact`, else at least this many
    /// (a path or words that reach more records than a search needs to read).
    pub total: usize,
    pub total_exact: bool,
    pub limit: usize,
    /// When hits were left out: the command that lists them all.
    pub more: Option<String>,
    /// Set when this read built the index anew (and why), or built one in memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<String>,
    /// Other worktrees of this clone whose open episode's active task works where the
    /// paths asked about are (SPEC §12): what is being done there now, not yet recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<crate::worktrees::Worktree>,
    /// Records the request matched that it leaves out as shown already
    /// (`RecallRequest::leave_out`): a moment's `already_shown`.
    #[serde(skip)]
    pub shown_left_out: usize,
    /// The terms searched for that no record holds.
    #[serde(skip)]
    pub absent_terms: Vec<String>,
    /// Of `RecallRequest::code_asked`, those that are identifiers in the repository's code.
    #[serde(skip)]
    pub code_known: Vec<String>,
}

/// `majordomus recall`.
pub fn recall(ctx: &Ctx, request: RecallRequest) -> Result<Recall, Error> {
    let (mut found, rebuilt) = sync::with_index(ctx, |opened| {
        // A moment reads the index as it is; a read of its own brings it to HEAD.
        if !request.lean_pool {
            to_head(ctx, &mut opened.db)?;
        }
        recall_in(ctx, &mut opened.db, &request)
    })?;
    found.index_rebuilt = rebuilt;
    if !found.context.paths.is_empty() {
        found.elsewhere = crate::worktrees::others(ctx)
            .into_iter()
            .filter(|w| {
                w.episode
                    .as_ref()
                    .and_then(|e| e.task.as_ref())
                    .is_some_and(|t| {
                        crate::model::task::scopes_overlap(&found.context.paths, &t.scope).is_some()
                    })
            })
            .collect();
    }
    Ok(found)
}

/// What a read that is not a hook at the moment of work brings to HEAD besides the
/// records (a briefing, `recall`): the identifiers of the source committed there
/// (`sync::code`), and a judgement of every verified record no read judged yet
/// (`search::warm`), so a hook reads both and computes neither.
pub fn to_head(ctx: &Ctx, db: &mut crate::store::recall::RecallDb) -> Result<(), Error> {
    sync::code::refresh(ctx, db)?;
    search::warm(ctx, db)?;
    Ok(())
}

/// [`recall`] over an index already open and current (the briefing runs several).
pub fn recall_in(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    request: &RecallRequest,
) -> Result<Recall, Error> {
    db.hold();
    let found = recall_held(ctx, db, request);
    db.release();
    found
}

fn recall_held(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    request: &RecallRequest,
) -> Result<Recall, Error> {
    let (query, context) = resolve::resolve(ctx, db, request)?;
    let outcome = run_fresh(ctx, db, &query)?;
    let hits = hit::hits(ctx, db, &outcome, &query)?;
    let more = (outcome.total > hits.len()).then(|| {
        let mut all = request.clone();
        all.limit = Some(outcome.total.min(MAX_LIMIT));
        command(&all)
    });
    Ok(Recall {
        query: request.query.clone().unwrap_or_default(),
        terms: query.terms.clone(),
        terms_left_out: query_terms(request.query.as_deref().unwrap_or("")).1,
        context,
        hits,
        total: outcome.total,
        total_exact: outcome.exact,
        limit: query.limit,
        more,
        index_rebuilt: None,
        elsewhere: Vec::new(),
        shown_left_out: outcome.left_out,
        absent_terms: outcome.absent.clone(),
        code_known: outcome.code_known.clone(),
    })
}

/// The search, with the files of the hits it shows checked against their stamps: a file
/// edited in place (its folder unchanged) is re-read and the search run again, once.
fn run_fresh(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    query: &Query,
) -> Result<search::Outcome, Error> {
    let outcome = search::search(ctx, db, query)?;
    let files: Vec<String> = outcome
        .found
        .iter()
        .filter_map(|f| f.doc.source.strip_prefix("file:").map(str::to_owned))
        .collect();
    if sync::refresh_files(ctx, db, &files)? {
        return search::search(ctx, db, query);
    }
    Ok(outcome)
}
