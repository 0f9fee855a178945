//! The search: every record that a term, a path or a link reaches, with its signals;
//! statuses resolved (a ledger line takes its knowledge record's status, a verified record
//! whose cited files moved is stale); filters; the order of `model::recall`; and for the
//! records shown, why each ranked. Costs what it finds: the full-text match, indexed path
//! and link lookups, and git lookups only for the verified records near the top.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{
    HitStatus, LinkKind, PathHow, PathMatch, PathVia, Ranked, Signals, order, score,
};
use crate::store::recall::{Column, DocRow, Lexical, Reach, RecallDb, VerifiedAt};

use super::RecallKind;

/// What to look for, resolved: terms, paths (repository-relative), links, and filters.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub terms: Vec<String>,
    pub paths: Vec<String>,
    pub links: Vec<(LinkKind, String)>,
    pub kinds: Vec<RecallKind>,
    pub statuses: Vec<HitStatus>,
    pub branch: Option<String>,
    /// RFC 3339 or a date: records dated before it are left out.
    pub since: Option<time::OffsetDateTime>,
    /// Superseded records too.
    pub all: bool,
    pub limit: usize,
}

impl Query {
    fn relevance_asked(&self) -> bool {
        !self.terms.is_empty() || !self.paths.is_empty() || !self.links.is_empty()
    }
}

/// One ranked record, before it becomes a hit.
#[derive(Debug, Clone)]
pub struct Found {
    pub doc: DocRow,
    pub kind: RecallKind,
    pub status: HitStatus,
    pub signals: Signals,
    pub score: i64,
    /// For a stale record: each cited path that moved, and how.
    pub moved: Vec<(String, &'static str)>,
    pub verified_in: Option<(String, String)>,
    /// It is here because it replaced a superseded record that ranked.
    pub replaces: Option<String>,
}

impl Ranked for Found {
    fn score(&self) -> i64 {
        self.score
    }
    fn date(&self) -> &str {
        &self.doc.date
    }
    fn id(&self) -> &str {
        &self.doc.key
    }
    fn superseded_by(&self) -> Option<&str> {
        if self.status == HitStatus::Superseded {
            self.doc.superseded_by.as_deref()
        } else {
            None
        }
    }
}

/// What a search found: the records to show, ranked, and how many there were in all.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub found: Vec<Found>,
    pub total: usize,
    /// Lexical matches past the pool: counted in `total`, never ranked.
    pub unranked: usize,
}

/// How many of the best lexical matches a search weighs first (at least four times the
/// hits asked for). When a record beyond them could still rank among the hits shown, the
/// search runs again over [`POOL_GROWTH`] times as many, so the hits are exactly those
/// of ranking every match; usually the first pool settles it, and the cost follows the
/// hits asked for, not the records that match.
const LEXICAL_POOL: usize = 200;
const POOL_GROWTH: usize = 8;
/// Records a listing reads past its limit, for the filters that apply after it.
const LISTING_SLACK: usize = 16;

/// An index read that failed, as the store's error (the caller rebuilds and reads again).
fn index_failed(e: crate::store::recall::IndexError) -> Error {
    crate::store::StoreError::Malformed {
        path: e.path.into(),
        message: e.message,
    }
    .into()
}

/// Runs `query` over the index.
pub fn search(ctx: &Ctx, db: &mut RecallDb, query: &Query) -> Result<Outcome, Error> {
    let mut phase = crate::timing::Phase::start("recall.search");
    let mut pool = LEXICAL_POOL.max(query.limit.saturating_mul(4));
    let mut passes = 1;
    // Every match's BM25, computed once for every pass.
    let lexical = if query.relevance_asked() {
        let mut phase = crate::timing::Phase::start("recall.lexical");
        let lexical = db.reader().lexical(&query.terms).map_err(index_failed)?;
        phase.count("matches", lexical.len());
        lexical
    } else {
        Lexical::default()
    };
    loop {
        if let Some(outcome) = search_pool(ctx, db, query, &lexical, pool)? {
            phase.count("pool", pool as u64);
            phase.count("passes", passes);
            phase.count("total", outcome.total as u64);
            return Ok(outcome);
        }
        pool = pool.saturating_mul(POOL_GROWTH);
        passes += 1;
    }
}

/// One search over the `pool` best lexical matches; `None` when a match beyond them
/// could rank among the hits shown (a larger pool is needed).
fn search_pool(
    ctx: &Ctx,
    db: &mut RecallDb,
    query: &Query,
    lexical: &Lexical,
    pool: usize,
) -> Result<Option<Outcome>, Error> {
    let r = db.reader();
    let fail = index_failed;
    let mut signals: HashMap<i64, Signals> = HashMap::new();
    let mut docs: HashMap<i64, DocRow> = HashMap::new();
    // The listing's own count, when nothing ranks and the newest are listed.
    let mut listed: Option<usize> = None;
    // Lexical matches beyond the pool, counted.
    let mut beyond_pool = 0;

    // The lowest BM25 of a full pool: no match beyond it scores more.
    let mut floor: Option<f64> = None;

    if query.relevance_asked() {
        let pooled = lexical.top(pool);
        if pooled.len() == pool && pool > 0 {
            floor = pooled.last().map(|(_, bm25)| *bm25);
            beyond_pool = lexical.len().saturating_sub(pool);
        }
        for (id, bm25) in pooled {
            signals.entry(id).or_default().bm25 = bm25;
        }
        let mut phase = crate::timing::Phase::start("recall.paths");
        path_signals(r, &query.paths, &mut signals, &mut docs).map_err(fail)?;
        phase.count("reached", signals.len());
        phase.end();
        for (kind, value) in &query.links {
            let mut rows = r
                .docs_where(kind_column(*kind), std::slice::from_ref(value))
                .map_err(fail)?;
            if *kind != LinkKind::Task {
                let tasks = r.tasks_with(kind_column(*kind), value).map_err(fail)?;
                rows.extend(r.docs_where(Column::Task, &tasks).map_err(fail)?);
            }
            for row in rows {
                let s = signals.entry(row.id).or_default();
                if !s.links.iter().any(|(k, _)| k == kind) {
                    s.links.push((*kind, value.clone()));
                }
                docs.insert(row.id, row);
            }
        }
        // Records reached by a path or a link but not among a full pool weigh their text
        // too (outside a pool that is not full, a record matches no term).
        if floor.is_some() {
            for (id, s) in signals.iter_mut() {
                if s.bm25 == 0.0
                    && let Some(bm25) = lexical.of(*id)
                {
                    s.bm25 = bm25;
                }
            }
        }
    } else {
        // Nothing to rank by: the newest records (of the kinds asked, else verified
        // knowledge), within the filters.
        let kinds: Vec<&str> = if query.kinds.is_empty() {
            vec![RecallKind::Knowledge.name()]
        } else {
            query.kinds.iter().map(|k| k.name()).collect()
        };
        let mut statuses: Vec<&str> = if !query.statuses.is_empty() {
            query
                .statuses
                .iter()
                .map(|s| match s {
                    HitStatus::Stale => "verified",
                    other => other.name(),
                })
                .collect()
        } else if query.kinds.is_empty() {
            vec!["verified"]
        } else {
            vec!["verified", "candidate"]
        };
        if query.all && !statuses.contains(&"superseded") {
            statuses.push("superseded");
        }
        let since = query.since.map(crate::model::time::rfc3339);
        // A ledger line whose record is listed too is folded into it.
        let fold = kinds.contains(&RecallKind::Knowledge.name());
        let mut rows = Vec::new();
        let mut total = 0;
        for kind in &kinds {
            let (some, all) = r
                .listing(
                    kind,
                    &statuses,
                    query.branch.as_deref(),
                    since.as_deref(),
                    fold,
                    query.limit + LISTING_SLACK,
                )
                .map_err(fail)?;
            rows.extend(some);
            total += all;
        }
        listed = Some(total);
        for row in rows {
            signals.entry(row.id).or_default();
            docs.insert(row.id, row);
        }
    }

    let mut phase = crate::timing::Phase::start("recall.load");
    let wanted: Vec<i64> = signals
        .keys()
        .filter(|id| !docs.contains_key(id))
        .copied()
        .collect();
    phase.count("records", signals.len());
    for row in r.docs(&wanted).map_err(fail)? {
        docs.insert(row.id, row);
    }

    // A ledger line takes the status of the record its derivation wrote; where that record
    // is itself a candidate here, the line is folded into it (one claim, one hit). Only a
    // line whose record is indexed (`folded`, kept by the index's writes) has one to read:
    // a path that reaches 10,000 lines asks for their records, not 10,000 missing keys.
    let derives: Vec<String> = docs
        .values()
        .filter(|d| d.folded)
        .filter_map(|d| d.derives.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut derived: HashMap<String, DocRow> = HashMap::new();
    for row in r.docs_where(Column::Key, &derives).map_err(fail)? {
        if row.kind == "knowledge" {
            derived.insert(row.key.clone(), row);
        }
    }
    let knowledge_wanted = query.kinds.is_empty() || query.kinds.contains(&RecallKind::Knowledge);

    let episodes: Vec<String> = docs
        .values()
        .filter_map(|d| d.episode.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let places = r.episodes(&episodes).map_err(fail)?;

    phase.end();
    let mut found: Vec<Found> = Vec::new();
    let mut folded: HashMap<String, Signals> = HashMap::new();
    for (id, s) in signals {
        let Some(doc) = docs.remove(&id) else {
            continue;
        };
        let Some(kind) = RecallKind::from_name(&doc.kind) else {
            continue;
        };
        let record = doc.derives.as_ref().and_then(|k| derived.get(k));
        if knowledge_wanted
            && kind != RecallKind::Knowledge
            && let Some(record) = record
        {
            folded
                .entry(record.key.clone())
                .and_modify(|prev| merge(prev, &s))
                .or_insert(s);
            continue;
        }
        // A ledger line's stored status is already its record's.
        let status = status_of(&doc.status);
        found.push(Found {
            doc,
            kind,
            status,
            signals: s,
            score: 0,
            moved: Vec::new(),
            verified_in: None,
            replaces: None,
        });
    }
    // A folded line's record joins with the line's signals (it may not have matched by
    // itself: it has no episode path when it was promoted from another checkout).
    for (key, s) in folded {
        match found
            .iter_mut()
            .find(|f| f.doc.key == key && f.kind == RecallKind::Knowledge)
        {
            Some(f) => merge(&mut f.signals, &s),
            None => {
                if let Some(row) = derived.get(&key) {
                    found.push(Found {
                        doc: row.clone(),
                        kind: RecallKind::Knowledge,
                        status: status_of(&row.status),
                        signals: s,
                        score: 0,
                        moved: Vec::new(),
                        verified_in: None,
                        replaces: None,
                    });
                }
            }
        }
    }

    // Filters that do not depend on staleness.
    found.retain(|f| {
        (query.kinds.is_empty() || query.kinds.contains(&f.kind))
            && (query.all
                || f.status != HitStatus::Superseded
                || query.statuses.contains(&HitStatus::Superseded))
            && query
                .branch
                .as_ref()
                .is_none_or(|b| f.doc.branch.as_ref() == Some(b))
            && query.since.is_none_or(|since| {
                crate::model::time::parse(&f.doc.date).is_some_and(|at| at >= since)
            })
    });
    let top = found.iter().map(|f| f.signals.bm25).fold(0.0_f64, f64::max);
    for f in &mut found {
        f.signals.bm25_top = top;
        // A path reached through the record's episode counts for less when the episode
        // changed many files.
        for m in &mut f.signals.paths {
            if m.via == PathVia::Episode {
                m.spread = f
                    .doc
                    .episode
                    .as_ref()
                    .and_then(|e| places.get(e))
                    .map_or(1, |p| p.files.max(1));
            }
        }
        f.score = score(&f.signals, f.status);
    }

    // Staleness: judged for verified records from the top down, until the records that
    // will be shown are all judged (a stale record only falls, so an unjudged one below
    // cannot pass it); all of them when the filter tells stale from verified.
    let filter_splits =
        query.statuses.contains(&HitStatus::Stale) != query.statuses.contains(&HitStatus::Verified);
    let mut judged: HashSet<i64> = HashSet::new();
    let mut phase = crate::timing::Phase::start("recall.judge");
    loop {
        order(&mut found);
        let window = if filter_splits {
            found.len()
        } else {
            query.limit + 8
        };
        let batch: Vec<usize> = found
            .iter()
            .enumerate()
            .take(window)
            .filter(|(_, f)| {
                f.status == HitStatus::Verified
                    && f.kind == RecallKind::Knowledge
                    && f.doc.place.as_deref() == Some("curated")
                    && !judged.contains(&f.doc.id)
            })
            .map(|(i, _)| i)
            .collect();
        if batch.is_empty() {
            break;
        }
        let judgements = judge(ctx, db, &found, &batch)?;
        for (i, judgement) in batch.into_iter().zip(judgements) {
            let f = &mut found[i];
            judged.insert(f.doc.id);
            if let Some((commit, subject, moved)) = judgement {
                f.verified_in = Some((commit, subject));
                if !moved.is_empty() {
                    f.status = HitStatus::Stale;
                    f.moved = moved;
                    f.score = score(&f.signals, f.status);
                }
            }
        }
    }
    phase.count("judged", judged.len());
    phase.end();
    if !query.statuses.is_empty() {
        found.retain(|f| query.statuses.contains(&f.status));
    }

    // A superseded record shown is shown below its replacement: bring the replacement
    // in when it did not rank by itself.
    let present: HashSet<String> = found.iter().map(|f| f.doc.key.clone()).collect();
    let replacements: Vec<String> = found
        .iter()
        .filter_map(|f| f.superseded_by().map(str::to_owned))
        .filter(|by| !present.contains(by))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !replacements.is_empty() {
        let r = db.reader();
        for row in r.docs_where(Column::Key, &replacements).map_err(fail)? {
            let Some(kind) = RecallKind::from_name(&row.kind) else {
                continue;
            };
            let status = status_of(&row.status);
            let replaced = found
                .iter()
                .find(|f| f.superseded_by() == Some(row.key.as_str()))
                .map(|f| (f.doc.key.clone(), f.signals.clone()));
            let Some((replaced, signals)) = replaced else {
                continue;
            };
            found.push(Found {
                score: score(&signals, status),
                doc: row,
                kind,
                status,
                signals,
                moved: Vec::new(),
                verified_in: None,
                replaces: Some(replaced),
            });
        }
    }
    order(&mut found);
    // Exact only when the last hit shown outranks the best that any match beyond a full
    // pool could score (its BM25 at most the floor, its status at best verified, and no
    // path or link: those were all weighed above). A tie could go either way on recency.
    if let Some(floor) = floor {
        let bound = score(
            &Signals {
                bm25: floor,
                bm25_top: top,
                ..Signals::default()
            },
            HitStatus::Verified,
        );
        let last = query.limit.max(1) - 1;
        if found.get(last).is_none_or(|f| f.score <= bound) {
            return Ok(None);
        }
    }
    let total = match listed {
        Some(n) => n.max(found.len()),
        None => found.len() + beyond_pool,
    };
    found.truncate(query.limit);
    let ids: Vec<i64> = found.iter().map(|f| f.doc.id).collect();
    let mut texts = db.reader().texts(&ids).map_err(fail)?;
    let searched = db.reader().searched(&ids).map_err(fail)?;
    for f in &mut found {
        f.doc.text = texts.remove(&f.doc.id).unwrap_or_default();
        f.signals.terms = matched_terms(
            searched.get(&f.doc.id).map_or("", String::as_str),
            &query.terms,
        );
    }
    Ok(Some(Outcome {
        found,
        total,
        unranked: beyond_pool,
    }))
}

fn kind_column(kind: LinkKind) -> Column {
    match kind {
        LinkKind::Task => Column::Task,
        LinkKind::Issue => Column::Issue,
        LinkKind::Intent => Column::Intent,
    }
}

fn status_of(name: &str) -> HitStatus {
    HitStatus::from_name(name).unwrap_or(HitStatus::Candidate)
}

fn merge(into: &mut Signals, from: &Signals) {
    into.bm25 = into.bm25.max(from.bm25);
    for m in &from.paths {
        if !into.paths.contains(m) {
            into.paths.push(m.clone());
        }
    }
    for l in &from.links {
        if !into.links.contains(l) {
            into.links.push(l.clone());
        }
    }
}

/// The query terms a record was indexed under (its space-joined tokens), in the query's
/// order.
fn matched_terms(searched: &str, terms: &[String]) -> Vec<String> {
    if terms.is_empty() {
        return Vec::new();
    }
    let have: HashSet<&str> = searched.split(' ').collect();
    terms
        .iter()
        .filter(|t| have.contains(t.as_str()))
        .cloned()
        .collect()
}

fn how(reach: Reach) -> PathHow {
    match reach {
        Reach::Exact => PathHow::Exact,
        Reach::Below | Reach::Above => PathHow::Prefix,
        Reach::Beside => PathHow::Near,
    }
}

/// Every record each of `paths` reaches: through its own references, its episode's
/// changed files, and its task's scope. The records of the episodes and tasks reached are
/// read once for all the paths.
fn path_signals(
    r: crate::store::recall::Reader<'_>,
    paths: &[String],
    signals: &mut HashMap<i64, Signals>,
    docs: &mut HashMap<i64, DocRow>,
) -> Result<(), crate::store::recall::IndexError> {
    let mut add = |id: i64, m: PathMatch| {
        let s = signals.entry(id).or_default();
        if !s.paths.contains(&m) {
            s.paths.push(m);
        }
    };
    // Per episode and per task: the best reach of each queried path.
    let mut by_episode: BTreeMap<String, Vec<(usize, PathHow, String)>> = BTreeMap::new();
    let mut by_task: BTreeMap<String, Vec<(usize, PathHow, String)>> = BTreeMap::new();
    let better = |into: &mut BTreeMap<String, Vec<(usize, PathHow, String)>>,
                  owner: String,
                  q: usize,
                  h: PathHow,
                  p: String| {
        let reaches = into.entry(owner).or_default();
        match reaches.iter_mut().find(|(i, _, _)| *i == q) {
            Some(best) if h < best.1 => *best = (q, h, p),
            Some(_) => {}
            None => reaches.push((q, h, p)),
        }
    };
    for (q, path) in paths.iter().enumerate() {
        for f in r.refs_reaching(path)? {
            if let Ok(id) = f.owner.parse::<i64>() {
                add(
                    id,
                    PathMatch {
                        query: path.clone(),
                        path: f.path,
                        via: PathVia::Reference,
                        how: how(f.reach),
                        spread: 0,
                    },
                );
            }
        }
        for f in r.episode_files_reaching(path)? {
            better(&mut by_episode, f.owner, q, how(f.reach), f.path);
        }
        // Task scopes: a glob's literal directory was matched; the glob itself must cover
        // the path for an exact or above reach.
        for f in r.scopes_reaching(path)? {
            let h = match f.reach {
                Reach::Exact | Reach::Above => {
                    if crate::model::task::in_scope(std::slice::from_ref(&f.path), path) {
                        if f.path.trim_end_matches('/') == path {
                            PathHow::Exact
                        } else {
                            PathHow::Prefix
                        }
                    } else {
                        PathHow::Near
                    }
                }
                other => how(other),
            };
            better(&mut by_task, f.owner, q, h, f.path);
        }
    }
    let mut reached = |rows: Vec<DocRow>,
                       owner: fn(&DocRow) -> Option<&String>,
                       by: &BTreeMap<String, Vec<(usize, PathHow, String)>>,
                       via: PathVia| {
        for row in rows {
            let Some(reaches) = owner(&row).and_then(|o| by.get(o)) else {
                continue;
            };
            for (q, h, p) in reaches {
                add(
                    row.id,
                    PathMatch {
                        query: paths[*q].clone(),
                        path: p.clone(),
                        via,
                        how: *h,
                        spread: usize::from(via == PathVia::Episode),
                    },
                );
            }
            docs.insert(row.id, row);
        }
    };
    if !by_episode.is_empty() {
        let episodes: Vec<String> = by_episode.keys().cloned().collect();
        reached(
            r.docs_where(Column::Episode, &episodes)?,
            |d| d.episode.as_ref(),
            &by_episode,
            PathVia::Episode,
        );
    }
    if !by_task.is_empty() {
        let tasks: Vec<String> = by_task.keys().cloned().collect();
        reached(
            r.docs_where(Column::Task, &tasks)?,
            |d| d.task.as_ref(),
            &by_task,
            PathVia::Scope,
        );
    }
    // In the order the paths were asked, and for each by reference, episode, scope (which
    // of two equal matches "why" names).
    let position: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    for s in signals.values_mut() {
        if s.paths.len() > 1 {
            s.paths
                .sort_by_key(|m| (position.get(m.query.as_str()).copied(), m.via));
        }
    }
    Ok(())
}

/// `(verifying commit, its subject, moved targets)` for each record at `batch`; `None`
/// for one that cannot be judged (not committed yet, beyond a shallow boundary, no cited
/// file).
type Judgement = Option<(String, String, Vec<(String, &'static str)>)>;

/// Judges the verified records at `batch`: a cited file whose blob at HEAD differs from
/// the one in the commit that verified the record (the newest commit that added or
/// changed the record's file) moved. The verifying commit and what it held are kept in
/// the index per record blob, so history is walked once per promotion, not per read.
fn judge(
    ctx: &Ctx,
    db: &mut RecallDb,
    found: &[Found],
    batch: &[usize],
) -> Result<Vec<Judgement>, Error> {
    let files: Vec<String> = batch
        .iter()
        .map(|&i| {
            found[i]
                .doc
                .source
                .strip_prefix("file:")
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    // The cited paths are the record's refs.
    let ids: Vec<i64> = batch.iter().map(|&i| found[i].doc.id).collect();
    let cited = db.reader().refs_of(&ids).unwrap_or_default();
    // The record files' blobs at HEAD. A file whose directory is still the very tree it
    // was in when its cache row was written has the blob that row names; only the others
    // are looked up (`curated/` of 100,000 records is a tree of megabytes: found unchanged
    // by its id, it is not read at all).
    let cached = db.reader().verified(&files).unwrap_or_default();
    let parent = |f: &str| f.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    let trees = ctx.repo.tree_ids_at_head(
        files
            .iter()
            .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d)),
    )?;
    let mut blobs: HashMap<String, String> = HashMap::new();
    let mut rest: Vec<&str> = Vec::new();
    for f in &files {
        match (cached.get(f), trees.get(&parent(f))) {
            (Some(c), Some(t)) if !c.tree.is_empty() && &c.tree == t => {
                blobs.insert(f.clone(), c.blob.clone());
            }
            _ => rest.push(f),
        }
    }
    blobs.extend(ctx.repo.blob_ids_looked_up(None, rest.iter().copied())?);
    // Rows whose blob was found again under a new tree of their directory: noted, so the
    // next read finds them by the tree's id.
    let retree: Vec<(&str, String)> = rest
        .iter()
        .filter_map(|f| {
            let (c, b, t) = (cached.get(*f)?, blobs.get(*f)?, trees.get(&parent(f))?);
            (&c.blob == b && &c.tree != t).then(|| (*f, t.clone()))
        })
        .collect();
    if !retree.is_empty() {
        let _ = db.write(|w| {
            for (file, tree) in &retree {
                w.set_verified_tree(file, tree)?;
            }
            Ok(())
        });
    }
    let uncached: Vec<&str> = files
        .iter()
        .filter(|f| {
            blobs
                .get(*f)
                .is_some_and(|b| cached.get(*f).is_none_or(|c| &c.blob != b))
        })
        .map(String::as_str)
        .collect();
    let mut fresh: HashMap<String, VerifiedAt> = HashMap::new();
    if !uncached.is_empty() {
        let history = ctx.repo.last_changed(uncached.iter().copied())?;
        let mut by_commit: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for file in &uncached {
            if let Some(at) = history.at.get(*file) {
                by_commit.entry(*at).or_default().push(file);
            }
        }
        for (at, group) in by_commit {
            let commit = &history.commits[at];
            let wanted: BTreeSet<&str> = group
                .iter()
                .flat_map(|file| {
                    let i = files.iter().position(|f| f == file).unwrap_or(0);
                    cited.get(&ids[i]).into_iter().flatten().map(String::as_str)
                })
                .collect();
            let then = ctx
                .repo
                .blob_ids_looked_up(Some(&commit.id), wanted.iter().copied())?;
            for file in group {
                let i = files.iter().position(|f| f == file).unwrap_or(0);
                let targets: HashMap<String, String> = cited
                    .get(&ids[i])
                    .into_iter()
                    .flatten()
                    .filter_map(|p| then.get(p).map(|b| (p.clone(), b.clone())))
                    .collect();
                fresh.insert(
                    (*file).to_owned(),
                    VerifiedAt {
                        blob: blobs.get(file).cloned().unwrap_or_default(),
                        commit: commit.id.clone(),
                        subject: commit.subject.clone(),
                        targets,
                        tree: trees.get(&parent(file)).cloned().unwrap_or_default(),
                    },
                );
            }
        }
        if !fresh.is_empty() {
            // A cache that cannot be written costs the next read a walk, nothing else.
            let _ = db.write(|w| {
                for (file, v) in &fresh {
                    w.set_verified(file, v)?;
                }
                Ok(())
            });
        }
    }
    let all_targets: BTreeSet<&str> = ids
        .iter()
        .flat_map(|id| cited.get(id).into_iter().flatten().map(String::as_str))
        .collect();
    let at_head = ctx
        .repo
        .blob_ids_looked_up(None, all_targets.iter().copied())?;
    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let Some(blob) = blobs.get(file) else {
            out.push(None);
            continue;
        };
        let verified = fresh
            .get(file)
            .or_else(|| cached.get(file).filter(|c| &c.blob == blob));
        let Some(v) = verified else {
            out.push(None);
            continue;
        };
        let mut moved = Vec::new();
        for path in cited.get(&ids[i]).into_iter().flatten() {
            let change = match (v.targets.get(path), at_head.get(path)) {
                (Some(a), Some(b)) if a != b => "changed",
                (Some(_), None) => "deleted",
                (None, Some(_)) => "added",
                _ => continue,
            };
            moved.push((path.clone(), change));
        }
        out.push(Some((v.commit.clone(), v.subject.clone(), moved)));
    }
    Ok(out)
}
