//! `knowledge candidates` and `knowledge status` (SPEC §5.4): the review queue.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::knowledge::{Class, KnowledgeRecord, Status};
use crate::store::frontmatter;
use crate::store::index::IndexRebuilt;
use crate::store::outbox::{Outbox, OutboxContents};
use crate::store::records::{Place, stored_files};

const CANDIDATES_PREFIX: &str = ".ai/repo/knowledge/candidates/";

/// `knowledge.candidates`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CandidatesRequest {
    /// List the candidates in this local branch's tree instead of the work tree.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub branch: Option<String>,
}

/// `knowledge.status` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeStatusRequest")]
pub struct StatusRequest {}

/// Where a pending candidate was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CandidateState {
    /// In the index.
    Tracked,
    /// In the work tree, not in the index.
    Untracked,
    /// Derived on the trunk, waiting in the outbox.
    Outbox,
    /// Read from another branch's tree (`--branch`).
    Branch,
}

impl CandidateState {
    pub fn name(self) -> &'static str {
        match self {
            CandidateState::Tracked => "tracked",
            CandidateState::Untracked => "untracked",
            CandidateState::Outbox => "outbox",
            CandidateState::Branch => "branch",
        }
    }
}

/// One pending candidate.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CandidateEntry {
    pub id: String,
    pub title: String,
    pub class: Class,
    pub date: String,
    pub path: String,
    pub state: CandidateState,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CandidateListing {
    pub branch: Option<String>,
    pub candidates: Vec<CandidateEntry>,
    /// Files that could not be read as records (see `knowledge check`).
    pub unreadable: Vec<String>,
}

fn entry(record: KnowledgeRecord, path: String, state: CandidateState) -> Option<CandidateEntry> {
    (record.status == Status::Candidate).then_some(CandidateEntry {
        id: record.id,
        title: record.title,
        class: record.class,
        date: record.date,
        path,
        state,
    })
}

/// Pending candidates: in the work tree (each marked tracked or untracked) and the
/// outbox, or in branch `branch`'s tree.
pub fn candidates(ctx: &Ctx, request: CandidatesRequest) -> Result<CandidateListing, Error> {
    let branch = request.branch.as_deref();
    let mut listing = CandidateListing {
        branch: branch.map(str::to_owned),
        candidates: Vec::new(),
        unreadable: Vec::new(),
    };
    if let Some(branch) = branch {
        for path in ctx.repo.branch_files_under(branch, CANDIDATES_PREFIX)? {
            if !path.ends_with(".md") || path.ends_with("/README.md") {
                continue;
            }
            let bytes = ctx.repo.branch_file(branch, &path)?.unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            match frontmatter::parse::<KnowledgeRecord>(&text) {
                Ok((record, _)) => {
                    listing
                        .candidates
                        .extend(entry(record, path, CandidateState::Branch))
                }
                Err(_) => listing.unreadable.push(path),
            }
        }
        return Ok(listing);
    }
    let tracked: HashSet<String> = ctx
        .repo
        .tracked_files_under(CANDIDATES_PREFIX)?
        .into_iter()
        .collect();
    for file in stored_files(&ctx.layout)? {
        let state = match file.place {
            Place::Curated => continue,
            Place::Outbox => CandidateState::Outbox,
            Place::Candidates if tracked.contains(&file.rel) => CandidateState::Tracked,
            Place::Candidates => CandidateState::Untracked,
        };
        match file.parse() {
            Ok((record, _)) => listing
                .candidates
                .extend(entry(record, file.rel.clone(), state)),
            Err(_) => listing.unreadable.push(file.rel.clone()),
        }
    }
    // Oldest first, grouped by class, then by title: stable for a reader whatever the ids.
    listing.candidates.sort_by(|a, b| {
        (&a.date, a.class.name(), &a.title, &a.id).cmp(&(&b.date, b.class.name(), &b.title, &b.id))
    });
    Ok(listing)
}

/// A ledger moment: which episode, when.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Moment {
    pub episode: Option<String>,
    pub ts: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KnowledgeStatus {
    pub last_closed: Option<Moment>,
    pub last_derived: Option<Moment>,
    /// The last closed episode has a `knowledge.derived` line.
    pub fresh: bool,
    pub pending: usize,
    pub untracked: usize,
    pub oldest_date: Option<String>,
    pub oldest_age_days: Option<i64>,
    pub curated: usize,
    pub outbox: OutboxContents,
    /// Set when this read rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// Freshness (last close vs last derive), queue length and ages, outbox state.
pub fn status(ctx: &Ctx, _request: StatusRequest) -> Result<KnowledgeStatus, Error> {
    let index = ctx.index()?;
    let last_closed = index.last_closed().map(|c| Moment {
        episode: c.episode.clone(),
        ts: c.ts.clone(),
    });
    let last_derived = index.last_derived().map(|d| Moment {
        episode: d.episode.clone(),
        ts: d.ts.clone(),
    });
    let fresh = match &last_closed {
        Some(Moment {
            episode: Some(ep), ..
        }) => index.episode(ep)?.is_some_and(|e| e.derived),
        _ => true,
    };
    let listing = candidates(ctx, CandidatesRequest::default())?;
    let curated = crate::store::outbox::list_markdown(&ctx.layout.curated_dir())?.len();
    let oldest_date = listing.candidates.iter().map(|c| c.date.clone()).min();
    let now = ctx.clock.now();
    let oldest_age_days = oldest_date
        .as_deref()
        .and_then(crate::model::time::parse)
        .map(|d| (now - d).whole_days());
    Ok(KnowledgeStatus {
        last_closed,
        last_derived,
        fresh,
        pending: listing.candidates.len(),
        untracked: listing
            .candidates
            .iter()
            .filter(|c| c.state == CandidateState::Untracked)
            .count(),
        oldest_date,
        oldest_age_days,
        curated,
        outbox: Outbox::new(&ctx.layout).contents()?,
        index_rebuilt: index.rebuilt().cloned(),
    })
}
