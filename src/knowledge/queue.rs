//! `knowledge candidates` and `knowledge status` (SPEC §5.4): the review queue.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::knowledge::{Class, KnowledgeRecord, Status};
use crate::store::frontmatter;
use crate::store::index::{IndexRebuilt, file_name};
use crate::store::outbox::{Outbox, OutboxContents};
use crate::store::records::{Place, stored_files};

const CANDIDATES_PREFIX: &str = ".ai/repo/knowledge/candidates/";

/// `knowledge.candidates`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CandidatesRequest {
    /// Another branch's tree.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub branch: Option<String>,
    // Only this episode's candidates (those of its id, or deriving from `session:<it>`);
    // and only this class (its schema a string, the decoding names the classes): left
    // undescribed in the schema, where MCP's byte budget is spent, since the names say it.
    #[serde(default)]
    pub episode: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub class: Option<Class>,
    // A whole number and a unit: 30m, 12h, 7d, 2w (the pattern says it to a schema's
    // reader, within MCP's byte budget).
    #[serde(default)]
    #[schemars(regex(pattern = r"^[0-9]{1,6}[mhdw]$"))]
    pub older_than: Option<String>,
}

impl CandidatesRequest {
    /// Whether any filter narrows the queue (`branch` reads another tree: it counts).
    pub fn narrows(&self) -> bool {
        self.branch.is_some()
            || self.episode.is_some()
            || self.class.is_some()
            || self.older_than.is_some()
    }

    /// The filters as `knowledge candidates` options, each quoted for sh.
    pub fn options(&self) -> String {
        let mut out = String::new();
        let mut push = |flag: &str, value: &str| {
            out.push_str(&format!(" --{flag} {}", crate::model::shell::quote(value)));
        };
        if let Some(b) = &self.branch {
            push("branch", b);
        }
        if let Some(e) = &self.episode {
            push("episode", e);
        }
        if let Some(c) = self.class {
            push("class", c.name());
        }
        if let Some(o) = &self.older_than {
            push("older-than", o);
        }
        out
    }
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

/// What a candidate's time in the review queue is measured from (SPEC §5.2): the first
/// of these that there is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueuedFrom {
    /// The first `knowledge.derived` line of this ledger naming its file.
    Derived,
    /// The commit that added its file (a candidate this ledger never derived: a
    /// teammate's, say).
    Added,
    /// Its `date` (neither: a file no ledger line names and no commit added).
    Date,
}

impl QueuedFrom {
    pub fn name(self) -> &'static str {
        match self {
            QueuedFrom::Derived => "derived",
            QueuedFrom::Added => "added",
            QueuedFrom::Date => "date",
        }
    }

    /// What the age is measured from, in words.
    pub fn said(self) -> &'static str {
        match self {
            QueuedFrom::Derived => "the oldest knowledge.derived naming it",
            QueuedFrom::Added => "the commit that added it",
            QueuedFrom::Date => "its date (no knowledge.derived names it, no commit added it)",
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
    /// When it entered the review queue (RFC 3339; from its `date`, that day's midnight
    /// UTC): what "oldest first" orders by.
    pub queued_at: String,
    /// What `queued_at` was measured from.
    pub queued_from: QueuedFrom,
    /// Where its first derivation is in the ledger (`seq`, then its place among the
    /// line's paths): what orders candidates that entered the queue in the same second.
    #[serde(skip)]
    pub(crate) derived_order: Option<(u64, usize)>,
    /// The episode it was derived in (the start of its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episode: Option<String>,
    /// The candidates folded under this one (near duplicates of its claim, older than
    /// it): one review item, decided by one act. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<String>,
    /// The candidate this one is folded under (the newest of its review item).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded_under: Option<String>,
    /// The verified record whose claim this review item restates (a near duplicate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restates: Option<String>,
    /// Verified records this candidate concerns the same files as (it cites one of theirs
    /// and their claims are alike): restate, replace (`knowledge promote <it> --supersedes
    /// <them>`) or keep both? Most alike first; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<QueueConcern>,
    /// Its claim, for folding.
    #[serde(skip)]
    pub(crate) claim: String,
    /// Its `derived_from`, for the episode filter.
    #[serde(skip)]
    derived_from: Vec<String>,
}

/// A verified record a candidate concerns the same files as.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QueueConcern {
    pub id: String,
    pub title: String,
    /// The files both cite.
    pub files: Vec<String>,
    /// How alike the two claims are, 0–1.
    pub similarity: f64,
}

/// A verified record as the queue compares candidates with it.
#[derive(Debug, Clone)]
pub(crate) struct VerifiedClaim {
    pub id: String,
    pub title: String,
    /// Its claim (the body before its first section, else its title).
    pub claim: String,
    /// The files it cites.
    pub files: Vec<String>,
}

impl VerifiedClaim {
    fn of(record: &KnowledgeRecord, body: &str) -> VerifiedClaim {
        VerifiedClaim {
            id: record.id.clone(),
            title: record.title.clone(),
            claim: crate::model::knowledge::claim_of(&record.title, body).to_owned(),
            files: crate::model::knowledge::cited_paths(&record.provenance.derived_from),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CandidateListing {
    pub branch: Option<String>,
    /// Oldest first by their time in the queue (`queued_at`); those that entered it in
    /// the same second in the order they were derived (the ledger's), else by date,
    /// class, title, then id.
    pub candidates: Vec<CandidateEntry>,
    /// Review items: candidates whose claims are near duplicates of each other count
    /// once (SPEC §5.2).
    pub items: usize,
    /// Files that could not be read as records (see `knowledge check`).
    pub unreadable: Vec<String>,
    /// Set when the lookup of the queue's ages rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// The episode a candidate id names: the id without its last `-<12 hex>`.
pub fn episode_of(id: &str) -> Option<&str> {
    let (episode, digest) = id.rsplit_once('-')?;
    (digest.len() == 12 && digest.bytes().all(|b| b.is_ascii_hexdigit()) && !episode.is_empty())
        .then_some(episode)
}

fn entry(
    record: KnowledgeRecord,
    body: &str,
    path: String,
    state: CandidateState,
) -> Option<CandidateEntry> {
    (record.status == Status::Candidate).then(|| CandidateEntry {
        episode: episode_of(&record.id).map(str::to_owned),
        folded: Vec::new(),
        folded_under: None,
        restates: None,
        concerns: Vec::new(),
        claim: crate::model::knowledge::claim_of(&record.title, body).to_owned(),
        derived_from: record.provenance.derived_from.clone(),
        id: record.id,
        title: record.title,
        class: record.class,
        queued_at: record.date.clone(),
        queued_from: QueuedFrom::Date,
        derived_order: None,
        date: record.date,
        path,
        state,
    })
}

/// When a candidate entered the review queue (RFC 3339), and what that was measured from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueStart {
    pub at: String,
    pub from: QueuedFrom,
    /// The derivation's place in the ledger (`seq`, place among its paths), when it was
    /// measured from one.
    pub order: Option<(u64, usize)>,
}

/// The queue starts of some candidates, in their order, and whether looking them up
/// rebuilt the ledger index.
#[derive(Debug, Clone, Default)]
pub struct QueueStarts {
    pub starts: Vec<QueueStart>,
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// Since when each of `candidates` has waited for review (SPEC §5.2), in their order: the
/// first `knowledge.derived` naming its file (one ledger-index lookup per name), else the
/// commit that added its file to the history of `tip` (HEAD's when `None`; one walk for
/// all of them), else its `date`. Doctor's candidate-age rule and `knowledge status`
/// measure by it too.
pub fn queue_starts(
    ctx: &Ctx,
    candidates: &[CandidateEntry],
    tip: Option<&str>,
) -> Result<QueueStarts, Error> {
    if candidates.is_empty() {
        return Ok(QueueStarts::default());
    }
    let index = ctx.index()?;
    // Keyed by file name: a candidate derived on the trunk is named by its outbox path in
    // the ledger and lives under candidates/ after the drain.
    let mut derived: HashMap<&str, crate::store::index::DerivedAt> = HashMap::new();
    for c in candidates {
        let name = file_name(&c.path);
        if !derived.contains_key(name)
            && let Some(at) = index.first_derived_at(name)?
        {
            derived.insert(name, at);
        }
    }
    let added = ctx.repo.added_at(
        tip,
        candidates
            .iter()
            .filter(|c| !derived.contains_key(file_name(&c.path)))
            .map(|c| c.path.as_str()),
    )?;
    let starts = candidates
        .iter()
        .map(
            |c| match (derived.get(file_name(&c.path)), added.get(&c.path)) {
                (Some(d), _) => QueueStart {
                    at: d.ts.clone(),
                    from: QueuedFrom::Derived,
                    order: Some((d.seq, d.position)),
                },
                (None, Some(ts)) => QueueStart {
                    at: ts.clone(),
                    from: QueuedFrom::Added,
                    order: None,
                },
                (None, None) => QueueStart {
                    at: crate::model::time::parse(&c.date)
                        .map_or_else(|| c.date.clone(), crate::model::time::rfc3339),
                    from: QueuedFrom::Date,
                    order: None,
                },
            },
        )
        .collect();
    Ok(QueueStarts {
        starts,
        index_rebuilt: index.rebuilt().cloned(),
    })
}

/// Orders `listing` oldest first by queue age (SPEC §5.2); a start that does not parse as
/// a time goes last. Candidates that entered the queue in the same second fall to the
/// order they were derived in (the ledger's: the `seq` of their first `knowledge.derived`,
/// then their place in it), never to their ids, which carry an episode's random part; what
/// no derivation of this ledger orders, by date, class, title, then id.
fn in_queue_order(
    ctx: &Ctx,
    listing: &mut CandidateListing,
    tip: Option<&str>,
) -> Result<(), Error> {
    let QueueStarts {
        starts,
        index_rebuilt,
    } = queue_starts(ctx, &listing.candidates, tip)?;
    for (c, start) in listing.candidates.iter_mut().zip(starts) {
        c.queued_at = start.at;
        c.queued_from = start.from;
        c.derived_order = start.order;
    }
    listing.index_rebuilt = index_rebuilt;
    listing.candidates.sort_by_cached_key(|c| {
        let at = crate::model::time::parse(&c.queued_at);
        (
            at.is_none(),
            at,
            c.derived_order.is_none(),
            c.derived_order,
            c.date.clone(),
            c.class.name(),
            c.title.clone(),
            c.id.clone(),
        )
    });
    Ok(())
}

/// Pending candidates: in the work tree (each marked tracked or untracked) and the
/// outbox, or in branch `branch`'s tree.
///
/// The filters narrow the listing (`episode`, `class`, then `older_than`, measured from
/// `queued_at` to now), and near duplicates among what is left fold into one review item
/// under the newest (SPEC §5.2).
pub fn candidates(ctx: &Ctx, request: CandidatesRequest) -> Result<CandidateListing, Error> {
    let older_than = match request.older_than.as_deref() {
        None => None,
        Some(text) => Some(crate::model::time::parse_span(text).ok_or_else(|| {
            crate::model::knowledge::ReviewError::OlderThan {
                value: text.to_owned(),
            }
        })?),
    };
    if let Some(episode) = request.episode.as_deref() {
        crate::error::Refusal::check_id(crate::model::ids::IdKind::Episode, episode)?;
    }
    let mut verified = Vec::new();
    let mut listing = listed(ctx, &request, &mut verified)?;
    if let Some(span) = older_than {
        let now = ctx.clock.now();
        listing
            .candidates
            .retain(|c| crate::model::time::parse(&c.queued_at).is_some_and(|at| now - at > span));
    }
    fold_listing(&mut listing, &verified);
    let reached = reached_by_episode(ctx, &listing);
    concerns_of(&mut listing, &verified, &reached);
    Ok(listing)
}

/// What each episode whose candidates cite no file reached: the files its editing tools
/// touched (`agent.touched`, this clone's ledger), read in one pass and only when such a
/// candidate is listed. A reading that fails reaches nothing (concerns are advisory).
fn reached_by_episode(
    ctx: &Ctx,
    listing: &CandidateListing,
) -> std::collections::HashMap<String, Vec<String>> {
    let wanted: std::collections::HashSet<&str> = listing
        .candidates
        .iter()
        .filter(|c| crate::model::knowledge::cited_paths(&c.derived_from).is_empty())
        .filter_map(|c| c.episode.as_deref())
        .collect();
    let mut newest_first: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::new();
    if wanted.is_empty() {
        return newest_first;
    }
    let Ok(index) = ctx.index() else {
        return newest_first;
    };
    let Ok(lines) = index.lines(&crate::store::index::LineQuery {
        event: Some(crate::model::event::Event::AgentTouched),
        ..Default::default()
    }) else {
        return newest_first;
    };
    for line in lines.iter().rev() {
        let Some(episode) = line.session.as_deref().filter(|e| wanted.contains(e)) else {
            continue;
        };
        if let Some(touched) = line.payload::<crate::model::event::AgentTouched>() {
            newest_first
                .entry(episode.to_owned())
                .or_default()
                .extend(touched.paths.into_iter().rev());
        }
    }
    newest_first
        .into_iter()
        .map(|(episode, paths)| (episode, crate::ctx::most_recent(paths)))
        .collect()
}

/// The verified records each candidate concerns the same files as (SPEC §5.2): the rule of
/// `model::knowledge::concern`, over the verified records of this listing's store.
fn concerns_of(
    listing: &mut CandidateListing,
    verified: &[VerifiedClaim],
    reached: &std::collections::HashMap<String, Vec<String>>,
) {
    use crate::model::knowledge::{Held, concerns};
    let texts: Vec<String> = verified
        .iter()
        .map(|v| format!("{}\n{}", v.title, v.claim))
        .collect();
    let held: Vec<Held<'_>> = verified
        .iter()
        .zip(&texts)
        .map(|(v, text)| Held {
            id: &v.id,
            text,
            files: &v.files,
        })
        .collect();
    for c in &mut listing.candidates {
        // What it cites, else what its episode touched (SPEC §5.2: "cite or reach").
        let mut files = crate::model::knowledge::cited_paths(&c.derived_from);
        if files.is_empty()
            && let Some(touched) = c.episode.as_ref().and_then(|e| reached.get(e))
        {
            files.clone_from(touched);
        }
        if files.is_empty() {
            continue;
        }
        let text = format!("{}\n{}", c.title, c.claim);
        c.concerns = concerns(&text, &files, &held)
            .into_iter()
            .map(|found| QueueConcern {
                title: verified
                    .iter()
                    .find(|v| v.id == found.id)
                    .map(|v| v.title.clone())
                    .unwrap_or_default(),
                id: found.id,
                files: found.files,
                similarity: found.similarity,
            })
            .collect();
    }
}

/// Folds the near duplicates of `listing` (in queue order) into review items, each under
/// its newest; names the verified record an item restates.
fn fold_listing(listing: &mut CandidateListing, verified: &[VerifiedClaim]) {
    use crate::model::knowledge::{Claim, fold};
    let claims: Vec<Claim<'_>> = listing
        .candidates
        .iter()
        .map(|c| Claim {
            id: &c.id,
            text: &c.claim,
        })
        .collect();
    let verified: Vec<Claim<'_>> = verified
        .iter()
        .map(|v| Claim {
            id: &v.id,
            text: &v.claim,
        })
        .collect();
    let items = fold(&claims, &verified);
    listing.items = items.len();
    let at: HashMap<String, usize> = listing
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.clone(), i))
        .collect();
    for item in items {
        for f in &item.folded {
            let c = &mut listing.candidates[at[f]];
            c.folded_under = Some(item.head.clone());
        }
        let head = &mut listing.candidates[at[&item.head]];
        head.folded = item.folded;
        head.restates = item.verified;
    }
}

/// The pending candidates of the work tree or of `request.branch`'s tree, in queue order,
/// narrowed by episode and class; `verified` gets each verified record's id and claim.
fn listed(
    ctx: &Ctx,
    request: &CandidatesRequest,
    verified: &mut Vec<VerifiedClaim>,
) -> Result<CandidateListing, Error> {
    let keep = |c: &CandidateEntry| {
        request.class.is_none_or(|class| c.class == class)
            && request.episode.as_deref().is_none_or(|e| {
                c.episode.as_deref() == Some(e)
                    || c.derived_from
                        .iter()
                        .any(|r| r.strip_prefix("session:") == Some(e))
            })
    };
    let branch = request.branch.as_deref();
    let mut listing = CandidateListing {
        branch: branch.map(str::to_owned),
        candidates: Vec::new(),
        items: 0,
        unreadable: Vec::new(),
        index_rebuilt: None,
    };
    if let Some(branch) = branch {
        for path in ctx.repo.branch_files_under(branch, CANDIDATES_PREFIX)? {
            if !path.ends_with(".md") || path.ends_with("/README.md") {
                continue;
            }
            let bytes = ctx.repo.branch_file(branch, &path)?.unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            match frontmatter::parse::<KnowledgeRecord>(&text) {
                Ok((record, body)) => listing
                    .candidates
                    .extend(entry(record, body, path, CandidateState::Branch).filter(|c| keep(c))),
                Err(_) => listing.unreadable.push(path),
            }
        }
        for file in stored_files(&ctx.layout)? {
            // A superseded or retired record is no longer claimed: nothing restates it.
            if file.place == Place::Curated
                && let Ok((record, body)) = file.parse()
                && record.status == Status::Verified
            {
                verified.push(VerifiedClaim::of(&record, body));
            }
        }
        let tip = ctx.repo.resolve_commit(&format!("refs/heads/{branch}"))?;
        in_queue_order(ctx, &mut listing, tip.as_deref())?;
        return Ok(listing);
    }
    let tracked: HashSet<String> = ctx
        .repo
        .tracked_files_under(CANDIDATES_PREFIX)?
        .into_iter()
        .collect();
    for file in stored_files(&ctx.layout)? {
        let state = match file.place {
            Place::Curated => {
                if let Ok((record, body)) = file.parse()
                    && record.status == Status::Verified
                {
                    verified.push(VerifiedClaim::of(&record, body));
                }
                continue;
            }
            Place::Outbox => CandidateState::Outbox,
            Place::Candidates if tracked.contains(&file.rel) => CandidateState::Tracked,
            Place::Candidates => CandidateState::Untracked,
        };
        match file.parse() {
            Ok((record, body)) => listing
                .candidates
                .extend(entry(record, body, file.rel.clone(), state).filter(|c| keep(c))),
            Err(_) => listing.unreadable.push(file.rel.clone()),
        }
    }
    in_queue_order(ctx, &mut listing, None)?;
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
    /// The candidate that has waited longest (the queue's first, SPEC §5.2).
    pub oldest: Option<String>,
    /// When it entered the queue, and what that was measured from.
    pub oldest_queued_at: Option<String>,
    pub oldest_queued_from: Option<QueuedFrom>,
    /// How long it has waited, in whole minutes (as doctor's candidate-age rule measures
    /// it) and in whole days.
    pub oldest_age_minutes: Option<i64>,
    pub oldest_age_days: Option<i64>,
    /// Verified records under `curated/` (a conflicted file is not counted: it is in
    /// `conflicted`).
    pub curated: usize,
    /// Records git left with conflict markers (a merge met a promote and a reject): each
    /// with both acts and the fix; none is counted as pending or curated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicted: Vec<super::check::ConflictedRecord>,
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
    let conflicted = super::check::conflicted_records(ctx)?;
    let curated_prefix = ctx.layout.display(&ctx.layout.curated_dir());
    let curated = crate::store::outbox::list_markdown(&ctx.layout.curated_dir())?.len()
        - conflicted
            .iter()
            .filter(|c| c.file.starts_with(&curated_prefix))
            .count();
    // The queue is oldest first: its first candidate has waited longest.
    let oldest = listing.candidates.first();
    let waited = oldest
        .and_then(|c| crate::model::time::parse(&c.queued_at))
        .map(|at| ctx.clock.now() - at);
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
        oldest: oldest.map(|c| c.id.clone()),
        oldest_queued_at: oldest.map(|c| c.queued_at.clone()),
        oldest_queued_from: oldest.map(|c| c.queued_from),
        oldest_age_minutes: waited.map(|w| w.whole_minutes()),
        oldest_age_days: waited.map(|w| w.whole_days()),
        curated,
        conflicted,
        outbox: Outbox::new(&ctx.layout).contents()?,
        index_rebuilt: index.rebuilt().cloned().or(listing.index_rebuilt),
    })
}
