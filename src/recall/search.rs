//! The search: the records a term, a path or a link reaches, best first, with their
//! signals; statuses resolved (a ledger line takes its knowledge record's status, a
//! verified record whose cited files moved is stale); filters; the order of
//! `model::recall`; and for the records shown, why each ranked. Costs what it shows, not
//! what it reaches: the lexical matches are scored from their postings and the best few
//! weighed; each path's records are read best first from the index of paths, only as many
//! as could rank; a bound proves that nothing left unread could have been shown (else the
//! search reads further). Git lookups only for the verified records near the top.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{
    HandSource, HitStatus, LinkKind, PathHow, PathMatch, PathVia, Ranked, Signals, decayed_sum,
    dir_damping, order, score,
};
use crate::store::recall::{
    Column, Cut, DocRow, Judged, Lexical, ReachGroup, ReachRow, RecallDb, VerifiedAt, ancestors,
    parent_dir,
};

use super::RecallKind;

/// A path the search ranks by, and where it came from (what it weighs).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryPath {
    pub path: String,
    pub source: HandSource,
}

/// What to look for, resolved: terms, paths (repository-relative), links, and filters.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub terms: Vec<String>,
    pub paths: Vec<QueryPath>,
    /// Each link with what it weighs.
    pub links: Vec<(LinkKind, String, f64)>,
    pub kinds: Vec<RecallKind>,
    pub statuses: Vec<HitStatus>,
    pub branch: Option<String>,
    /// RFC 3339 or a date: records dated before it are left out.
    pub since: Option<time::OffsetDateTime>,
    /// Superseded records too.
    pub all: bool,
    pub limit: usize,
    /// Only the lists of each path itself: no directory's (`RecallRequest::exact_paths`).
    pub exact_paths: bool,
    /// Weigh first four times the hits asked for (`RecallRequest::lean_pool`).
    pub lean_pool: bool,
    /// Records left out, and every record of an episode (`RecallRequest::leave_out`).
    pub leave_out: Vec<(RecallKind, String)>,
    pub leave_out_episode: Option<String>,
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

impl Found {
    fn new(doc: DocRow, kind: RecallKind, status: HitStatus, signals: Signals) -> Found {
        Found {
            doc,
            kind,
            status,
            signals,
            score: 0,
            moved: Vec::new(),
            verified_in: None,
            replaces: None,
        }
    }

    /// Its place among records of one score: `<recency> <id>`, as the index orders rows.
    fn recency_key(&self) -> String {
        format!("{} {}", self.doc.ts, self.doc.key)
    }
}

impl Ranked for Found {
    fn score(&self) -> i64 {
        self.score
    }
    fn recency(&self) -> &str {
        &self.doc.ts
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
    /// Records in all, before the limit: exact when `exact`, else at least this many (a
    /// path or a word that reaches more records than a search reads).
    pub total: usize,
    pub exact: bool,
    /// Lexical matches past the pool: counted in `total`, never ranked.
    pub unranked: usize,
    /// Records the query matched that it leaves out (`Query::leave_out`).
    pub left_out: usize,
}

/// How many of the best records of each list (the lexical matches, each path's records)
/// a search weighs first (at least four times the hits asked for). When a record beyond
/// them could still rank among the hits shown, the search runs again over [`POOL_GROWTH`]
/// times as many, so the hits are those of ranking everything the lists hold; usually the
/// first pool settles it, and the cost follows the hits asked for, not the records that
/// match.
pub(crate) const LEXICAL_POOL: usize = 200;
const PATH_POOL: usize = 32;
const POOL_GROWTH: usize = 8;
/// Records a listing reads past its limit, for the filters that apply after it.
const LISTING_SLACK: usize = 16;
/// Files counted under a directory at most (a directory of more says nothing about one).
const DIR_COUNT_CAP: usize = 10_000;

/// An index read that failed, as the store's error (the caller rebuilds and reads again).
fn index_failed(e: crate::store::recall::IndexError) -> Error {
    crate::store::StoreError::Malformed {
        path: e.path.into(),
        message: e.message,
    }
    .into()
}

/// One list of the index of paths a search reads, and the paths asked about it serves:
/// for each, how close its rows are to that path and how many files the directory between
/// them holds.
#[derive(Debug, Clone)]
struct PathList {
    group: ReachGroup,
    serves: Vec<(usize, PathHow, usize)>,
    /// What its rows are worth at most against their bound: the stale of a path (verified
    /// records whose reference held another blob) are worth the stale factor of a verified
    /// one's.
    cap: f64,
    /// Read from the second pass on only (the stale of a path: needed when the fresh do
    /// not settle the hits).
    deferred: bool,
}

/// The lists of the index of paths that `paths` read: each path itself (its records fresh
/// for it at HEAD, those not judged yet, and, when needed, its stale ones), what lies
/// under it, the files beside it, and each directory above it (the root included: a task
/// scoped to the whole repository reaches every path). `blobs`: each path's blob at HEAD.
fn path_lists(
    paths: &[QueryPath],
    dirs: &HashMap<(String, bool), usize>,
    blobs: &HashMap<String, String>,
    exact_only: bool,
    lean: bool,
) -> Vec<PathList> {
    let stale = HitStatus::Stale.factor() / HitStatus::Verified.factor();
    type Entry = (Vec<(usize, PathHow, usize)>, f64, bool);
    let mut lists: BTreeMap<ReachGroup, Entry> = BTreeMap::new();
    for (i, q) in paths.iter().enumerate() {
        // A moment's touched files lift what its words found; they read no list.
        if lean && q.source == HandSource::Touched {
            continue;
        }
        let p = q.path.as_str();
        let mut add = |group: ReachGroup, how: PathHow, files: usize, cap: f64, deferred: bool| {
            lists
                .entry(group)
                .or_insert_with(|| (Vec::new(), cap, deferred))
                .0
                .push((i, how, files));
        };
        // "": not a file at HEAD (a record verified while it was not there either is
        // fresh for it).
        let at_head = blobs.get(p).cloned().unwrap_or_default();
        let fresh = ReachGroup::Path(p.to_owned(), Cut::Blob(at_head.clone()));
        add(fresh, PathHow::Exact, 0, 1.0, false);
        let unknown = ReachGroup::Path(p.to_owned(), Cut::Unknown);
        add(unknown, PathHow::Exact, 0, 1.0, false);
        let stale_ones = ReachGroup::Path(p.to_owned(), Cut::Other(at_head));
        add(stale_ones, PathHow::Exact, 0, stale, true);
        if exact_only {
            continue;
        }
        add(
            ReachGroup::Under(p.to_owned()),
            PathHow::Prefix,
            0,
            1.0,
            false,
        );
        let parent = parent_dir(p).to_owned();
        let beside = dirs.get(&(parent.clone(), false)).copied().unwrap_or(0);
        add(ReachGroup::Dir(parent), PathHow::Near, beside, 1.0, false);
        for a in ancestors(p).into_iter().chain(std::iter::once("")) {
            let under = dirs.get(&(a.to_owned(), true)).copied().unwrap_or(0);
            let above = ReachGroup::Path(a.to_owned(), Cut::All);
            add(above, PathHow::Prefix, under, 1.0, false);
        }
    }
    lists
        .into_iter()
        .map(|(group, (serves, cap, deferred))| PathList {
            group,
            serves,
            cap,
            deferred,
        })
        .collect()
}

/// The directories whose size at HEAD the ranking of `paths` needs: each path's own
/// directory (files directly in it) and every directory above it (files under it).
fn dirs_needed(paths: &[QueryPath]) -> Vec<(String, bool)> {
    let mut out: BTreeSet<(String, bool)> = BTreeSet::new();
    for q in paths {
        out.insert((parent_dir(&q.path).to_owned(), false));
        for a in ancestors(&q.path).into_iter().chain(std::iter::once("")) {
            out.insert((a.to_owned(), true));
        }
    }
    out.into_iter().collect()
}

/// Runs `query` over the index.
pub fn search(ctx: &Ctx, db: &mut RecallDb, query: &Query) -> Result<Outcome, Error> {
    let mut phase = crate::timing::Phase::start("recall.search");
    // A moment's one pass reads each path's best rows up to the hits it asks for.
    let path_pool = if query.lean_pool {
        query.limit
    } else {
        PATH_POOL.max(query.limit.saturating_mul(2))
    };
    let mut passes = 1;
    // Every match's BM25, computed once for every pass.
    let mut lexical = if query.relevance_asked() {
        let mut phase = crate::timing::Phase::start("recall.lexical");
        let lexical = db.reader().lexical(&query.terms).map_err(index_failed)?;
        phase.count("matches", lexical.len());
        lexical
    } else {
        Lexical::default()
    };
    let phase_left_out = crate::timing::Phase::start("recall.left_out");
    let (left_out, shown) = left_out(db, query)?;
    phase_left_out.end();
    let mut matched_left_out: HashSet<i64> = lexical.leave_out(&left_out).into_iter().collect();
    // How many files each directory between a path asked about and what records reach
    // holds at HEAD (what "beside it" and "under it" are worth).
    let git = crate::timing::Phase::start("recall.git");
    let dirs = if query.paths.is_empty() {
        HashMap::new()
    } else {
        ctx.repo
            .files_in_dirs(&dirs_needed(&query.paths), DIR_COUNT_CAP)?
    };
    // Each path's blob at HEAD: what a verified record's reference must have held for the
    // record to be fresh for it.
    let blobs = if query.paths.is_empty() {
        HashMap::new()
    } else {
        ctx.repo
            .blob_ids_looked_up(None, query.paths.iter().map(|q| q.path.as_str()))?
    };
    // What reads judged at this HEAD: a word's match known stale scores at most a stale
    // record's share, read or not.
    let tree = ctx.repo.head_tree_hex()?.unwrap_or_default();
    let mut judged = db.reader().judged(&tree).map_err(index_failed)?;
    let before = judged.clone();
    // Every document's stored status, for what a word's match could score at most.
    let ranks = if lexical.is_empty() {
        Vec::new()
    } else {
        db.reader().ranks().map_err(index_failed)?
    };
    git.end();
    let lists = path_lists(
        &query.paths,
        &dirs,
        &blobs,
        query.exact_paths,
        query.lean_pool,
    );
    let mut depth = Depth {
        lexical: if query.lean_pool {
            query.limit.saturating_mul(4)
        } else {
            LEXICAL_POOL.max(query.limit.saturating_mul(4))
        },
        lists: lists
            .iter()
            .map(|l| if l.deferred { 0 } else { path_pool })
            .collect(),
    };
    loop {
        let caps = Caps {
            ranks: &ranks,
            superseded: query.all || query.statuses.contains(&HitStatus::Superseded),
        };
        match search_pool(
            ctx,
            db,
            query,
            &lexical,
            &lists,
            &dirs,
            &depth,
            &mut judged,
            &caps,
            &left_out,
            &mut matched_left_out,
        )? {
            Ok(mut outcome) => {
                outcome.left_out = matched_left_out.intersection(&shown).count();
                if judged != before && !tree.is_empty() {
                    // Not kept, the next read judges them again: nothing else is lost.
                    let _ = db.write(|w| w.set_judged(&judged));
                }
                phase.count("pool", depth.lexical as u64);
                phase.count("passes", passes);
                phase.count("total", outcome.total as u64);
                return Ok(outcome);
            }
            Err(deeper) => {
                if deeper.lexical {
                    depth.lexical = depth.lexical.saturating_mul(POOL_GROWTH);
                }
                for l in deeper.lists {
                    depth.lists[l] = match depth.lists[l] {
                        0 => path_pool,
                        n => n.saturating_mul(POOL_GROWTH),
                    };
                }
                passes += 1;
            }
        }
    }
}

/// The documents `query` leaves out: the records it names (the second set), and every
/// document of the episode it names.
fn left_out(db: &mut RecallDb, query: &Query) -> Result<(HashSet<i64>, HashSet<i64>), Error> {
    let mut ids = HashSet::new();
    let r = db.reader();
    if !query.leave_out.is_empty() {
        let keys: Vec<String> = query
            .leave_out
            .iter()
            .map(|(_, key)| key.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let wanted: HashSet<(&str, &str)> = query
            .leave_out
            .iter()
            .map(|(kind, key)| (kind.name(), key.as_str()))
            .collect();
        for (id, kind, key) in r.ids_of_keys(&keys).map_err(index_failed)? {
            if wanted.contains(&(kind.as_str(), key.as_str())) {
                ids.insert(id);
            }
        }
    }
    let shown = ids.clone();
    if let Some(episode) = &query.leave_out_episode {
        ids.extend(r.ids_of_episode(episode).map_err(index_failed)?);
    }
    Ok((ids, shown))
}

/// What a word's match could score at most, against a verified record's: its stored
/// status's factor (a superseded one nothing, unless asked for), and a stale record's
/// where a read judged it stale at this HEAD.
struct Caps<'a> {
    ranks: &'a [u8],
    superseded: bool,
}

impl Caps<'_> {
    fn of(&self, id: i64, judged: &Judged) -> f64 {
        let tenths = usize::try_from(id)
            .ok()
            .and_then(|i| self.ranks.get(i))
            .copied()
            .unwrap_or(0);
        let stored = match tenths {
            0 => 1.0,
            4 if !self.superseded => 0.0,
            t => f64::from(t) / 10.0,
        };
        match judged.of(id) {
            Some(true) => stored.min(HitStatus::Stale.factor()),
            _ => stored,
        }
    }
}

/// How deep a pass reads: the best lexical matches it weighs, and each path list's rows
/// (0: a list not read yet).
#[derive(Debug, Clone)]
struct Depth {
    lexical: usize,
    lists: Vec<usize>,
}

/// What a pass that could not settle its hits reads deeper next time: the lists whose
/// unread rows could still rank among them.
#[derive(Debug, Clone, Default)]
struct Deeper {
    lexical: bool,
    lists: Vec<usize>,
}

/// The stored statuses and kinds the index of paths is read for: what the filters keep
/// (stale is stored as verified; a decision or an answer stands for its knowledge record,
/// so they are read with it).
fn list_filters(query: &Query) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut kinds: Vec<&'static str> = Vec::new();
    for k in &query.kinds {
        kinds.push(k.name());
        if *k == RecallKind::Knowledge {
            kinds.extend(["decision", "question"]);
        }
    }
    kinds.sort();
    kinds.dedup();
    let mut statuses: Vec<&'static str> = if query.statuses.is_empty() {
        if query.all {
            Vec::new()
        } else {
            vec!["verified", "candidate"]
        }
    } else {
        query
            .statuses
            .iter()
            .map(|s| match s {
                HitStatus::Stale => "verified",
                other => other.name(),
            })
            .collect()
    };
    if query.all && !statuses.is_empty() && !statuses.contains(&"superseded") {
        statuses.push("superseded");
    }
    statuses.sort();
    statuses.dedup();
    (kinds, statuses)
}

/// What a list left unread could still be worth: the last row read of a list that was
/// not read to its end (for a list not read at all, the best any row could be).
#[derive(Debug, Clone)]
struct Floor {
    row: ReachRow,
}

impl Floor {
    /// A list not read: a row could be worth anything up to a verified reference to the
    /// very path, and be of any time.
    fn unread() -> Floor {
        Floor {
            row: ReachRow {
                doc: 0,
                path: String::new(),
                bound: (PathVia::Reference.exact_weight() * 1e6).round() as i64,
                recency: "\u{10ffff}".to_owned(),
                kind: String::new(),
            },
        }
    }
}

/// One search over the `pool` best lexical matches and the `path_pool` best records of
/// each path list; `None` when a record beyond them could rank among the hits shown (a
/// larger pool is needed).
#[allow(clippy::too_many_arguments)]
fn search_pool(
    ctx: &Ctx,
    db: &mut RecallDb,
    query: &Query,
    lexical: &Lexical,
    lists: &[PathList],
    dirs: &HashMap<(String, bool), usize>,
    depth: &Depth,
    judged: &mut Judged,
    caps: &Caps<'_>,
    left_out: &HashSet<i64>,
    matched_left_out: &mut HashSet<i64>,
) -> Result<Result<Outcome, Deeper>, Error> {
    let pool = depth.lexical;
    let r = db.reader();
    let fail = index_failed;
    let mut wanted: BTreeSet<i64> = BTreeSet::new();
    let mut docs: HashMap<i64, DocRow> = HashMap::new();
    // The listing's own count, when nothing ranks and the newest are listed.
    let mut listed: Option<usize> = None;
    // Lexical matches beyond the pool, counted.
    let mut beyond_pool = 0;
    // The lowest BM25 of a full pool: no match beyond it scores more.
    let mut floor: Option<f64> = None;
    // Each path list not read to its end: its last row (nothing unread ranks above it).
    let mut floors: Vec<(usize, Floor)> = Vec::new();
    // Records a path list reaches beyond what it read, at least.
    // The most records one path reaches (each reaches it: the total is at least that).
    let mut most_reached = 0;
    let mut link_rows: Vec<(usize, DocRow)> = Vec::new();

    if query.relevance_asked() {
        // The matches that could score most: a match's BM25 times its status's factor at
        // best (a candidate's, or a stale record's where a read judged it stale here).
        let pooled = lexical.top_capped(pool, |id| caps.of(id, judged));
        if pooled.len() == pool && pool > 0 {
            floor = pooled.last().map(|&(_, _, capped)| capped);
            beyond_pool = lexical.len().saturating_sub(pool);
        }
        wanted.extend(pooled.iter().map(|&(id, _, _)| id));
        let mut phase = crate::timing::Phase::start("recall.paths");
        let (kinds, statuses) = list_filters(query);
        let mut rows_read = 0;
        // Per path asked about: the rows its fresh and not-yet-judged lists held, when
        // both were read to their end (None once one was not).
        let mut read_whole: HashMap<&str, Option<usize>> = HashMap::new();
        // What each record read is worth at least (its best row, were it stale), where
        // no filter left to apply could drop it: a list that can hold nothing worth as
        // much as the hits shown need not be read.
        let skipping = query.branch.is_none()
            && query.since.is_none()
            && query.statuses.contains(&HitStatus::Stale)
                == query.statuses.contains(&HitStatus::Verified)
            && !query.statuses.contains(&HitStatus::Candidate);
        let mut at_least: HashMap<i64, f64> = HashMap::new();
        let stale = HitStatus::Stale.factor();
        let worth = |l: usize, how: PathHow, files: usize, q: usize| {
            lists[l].cap * how.factor() * dir_damping(files) * query.paths[q].source.weight()
        };
        let most_of = |l: usize| {
            lists[l]
                .serves
                .iter()
                .map(|&(q, how, files)| PathVia::Reference.exact_weight() * worth(l, how, files, q))
                .fold(0.0_f64, f64::max)
        };
        // Best first: a list that could hold more is read before one that could hold less.
        let mut order: Vec<usize> = (0..lists.len()).collect();
        order.sort_by(|a, b| most_of(*b).total_cmp(&most_of(*a)).then(a.cmp(b)));
        let mut skipped = 0;
        // Only once a list was not read to its end: the total is a lower bound by then,
        // and a small store's lists are all read (its total stays exact).
        let mut partial = false;
        for l in order {
            let list = &lists[l];
            if skipping && partial && at_least.len() >= query.limit {
                let mut values: Vec<f64> = at_least.values().copied().collect();
                values.sort_by(|a, b| b.total_cmp(a));
                if most_of(l) < values[query.limit - 1] - 1e-6 {
                    floors.push((l, Floor::unread()));
                    skipped += 1;
                    continue;
                }
            }
            let pool = match depth.lists[l] {
                // A path's stale ones, not read yet: nothing, when the path's other lists
                // held every record that reaches it; read now, not in a pass of its own,
                // when those lists held fewer records than are asked for (the path's
                // records are mostly stale: a file every record cites changed).
                0 => {
                    let (empty, now) = match &list.group {
                        ReachGroup::Path(p, Cut::Other(_)) => match read_whole.get(p.as_str()) {
                            Some(Some(seen)) => (
                                r.reach_count(p, &kinds, &statuses).map_err(fail)? == *seen,
                                *seen < query.limit,
                            ),
                            _ => (false, false),
                        },
                        _ => (false, false),
                    };
                    if empty {
                        continue;
                    }
                    if !now {
                        floors.push((l, Floor::unread()));
                        continue;
                    }
                    PATH_POOL.max(query.limit.saturating_mul(2))
                }
                n => n,
            };
            let (rows, all) = r
                .reach_top(&list.group, &kinds, &statuses, pool)
                .map_err(fail)?;
            rows_read += rows.len();
            wanted.extend(rows.iter().map(|row| row.doc));
            if let ReachGroup::Path(p, Cut::Blob(_) | Cut::Unknown) = &list.group {
                let seen = read_whole.entry(p.as_str()).or_insert(Some(0));
                *seen = seen.filter(|_| all).map(|n| n + rows.len());
            }
            for row in rows.iter().filter(|row| {
                query.kinds.is_empty() || query.kinds.iter().any(|k| k.name() == row.kind.as_str())
            }) {
                for &(q, how, files) in &list.serves {
                    let v = row.bound as f64 / 1e6 * stale * worth(l, how, files, q) / list.cap;
                    let entry = at_least.entry(row.doc).or_insert(0.0);
                    *entry = entry.max(v);
                }
            }
            if !all && let Some(last) = rows.last() {
                partial = true;
                if let ReachGroup::Path(p, _) = &list.group {
                    let n = r.reach_count(p, &kinds, &statuses).map_err(fail)?;
                    most_reached = most_reached.max(n);
                }
                floors.push((l, Floor { row: last.clone() }));
            }
        }
        phase.count("skipped", skipped);
        phase.count("lists", lists.len());
        phase.count("rows", rows_read);
        phase.end();
        for (l, (kind, value, _)) in query.links.iter().enumerate() {
            let mut rows = r
                .docs_where(kind_column(*kind), std::slice::from_ref(value))
                .map_err(fail)?;
            if *kind != LinkKind::Task {
                let tasks = r.tasks_with(kind_column(*kind), value).map_err(fail)?;
                rows.extend(r.docs_where(Column::Task, &tasks).map_err(fail)?);
            }
            link_rows.extend(rows.into_iter().map(|row| (l, row)));
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
            docs.insert(row.id, row);
        }
    }

    let mut phase = crate::timing::Phase::start("recall.load");
    for (_, row) in &link_rows {
        docs.entry(row.id).or_insert_with(|| row.clone());
    }
    let missing: Vec<i64> = wanted
        .iter()
        .filter(|id| !docs.contains_key(id))
        .copied()
        .collect();
    for row in r.docs(&missing).map_err(fail)? {
        docs.insert(row.id, row);
    }
    phase.count("records", docs.len());

    // Every signal of every record read, by random access: its BM25, the paths it reaches
    // (its references, its episode's files, its task's scope) against every path asked
    // about, and its links.
    let mut signals: HashMap<i64, Signals> = HashMap::new();
    for id in docs.keys() {
        let s = signals.entry(*id).or_default();
        s.bm25 = lexical.of(*id).unwrap_or(0.0);
    }
    if !query.paths.is_empty() {
        let phase = crate::timing::Phase::start("recall.signals");
        path_signals(r, &query.paths, dirs, &docs, &mut signals).map_err(fail)?;
        phase.end();
    }
    for (l, row) in &link_rows {
        let (kind, value, weight) = &query.links[*l];
        let s = signals.entry(row.id).or_default();
        if !s.links.iter().any(|(k, _, _)| k == kind) {
            s.links.push((*kind, value.clone(), *weight));
        }
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
    let mut ids: Vec<i64> = docs.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let Some(doc) = docs.remove(&id) else {
            continue;
        };
        let s = signals.remove(&id).unwrap_or_default();
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
        found.push(Found::new(doc, kind, status, s));
    }
    // A folded line's record joins with the line's signals (it may not have matched by
    // itself: it has no episode path when it was promoted from another checkout).
    let mut keys: Vec<String> = folded.keys().cloned().collect();
    keys.sort();
    for key in keys {
        let s = folded.remove(&key).unwrap_or_default();
        match found
            .iter_mut()
            .find(|f| f.doc.key == key && f.kind == RecallKind::Knowledge)
        {
            Some(f) => merge(&mut f.signals, &s),
            None => {
                if let Some(row) = derived.get(&key) {
                    let mut s = s;
                    s.bm25 = s.bm25.max(lexical.of(row.id).unwrap_or(0.0));
                    found.push(Found::new(
                        row.clone(),
                        RecallKind::Knowledge,
                        status_of(&row.status),
                        s,
                    ));
                }
            }
        }
    }

    // Filters that do not depend on staleness.
    found.retain(|f| {
        if left_out.contains(&f.doc.id) {
            matched_left_out.insert(f.doc.id);
            return false;
        }
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
            // Read for its signals or its record, reached by nothing asked.
            && (!query.relevance_asked()
                || f.signals.bm25 > 0.0
                || !f.signals.paths.is_empty()
                || !f.signals.links.is_empty())
    });
    // Lexical relevance is relative to the best match of the query, read or not.
    let top = lexical.best();
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
    let mut judged_here: HashSet<i64> = HashSet::new();
    let mut phase = crate::timing::Phase::start("recall.judge");
    // A record whose every cited path's blob at its verification the index of paths keeps
    // (an earlier read judged it) is judged by comparing those with HEAD's, without git's
    // history: stale where one differs. Only a stale one shown is judged again, for the
    // commit that verified it (its why names it).
    let by_index = judge_by_index(ctx, db, &mut found, judged)?;
    judged_here.extend(by_index.iter().copied());
    phase.count("by_index", by_index.len());
    // The window judged grows twice as wide each round: where most of the top turns out
    // stale, the rounds stay few (each orders every record found).
    let mut wide = query.limit + 8;
    loop {
        order(&mut found);
        let window = if filter_splits { found.len() } else { wide };
        wide = wide.saturating_mul(2);
        let batch: Vec<usize> = found
            .iter()
            .enumerate()
            .take(window)
            .filter(|(_, f)| {
                f.status == HitStatus::Verified
                    && f.kind == RecallKind::Knowledge
                    && f.doc.place.as_deref() == Some("curated")
                    && !judged_here.contains(&f.doc.id)
            })
            .map(|(i, _)| i)
            .collect();
        if batch.is_empty() {
            break;
        }
        let judgements = judge(ctx, db, &found, &batch)?;
        for (i, judgement) in batch.into_iter().zip(judgements) {
            let f = &mut found[i];
            judged_here.insert(f.doc.id);
            if let Some((commit, subject, moved)) = judgement {
                f.verified_in = Some((commit, subject));
                judged.note(f.doc.id, !moved.is_empty());
                if !moved.is_empty() {
                    f.status = HitStatus::Stale;
                    f.moved = moved;
                    f.score = score(&f.signals, f.status);
                }
            }
        }
    }
    phase.count("judged", judged_here.len());
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
            let mut f = Found::new(row, kind, status, signals);
            f.score = score(&f.signals, status);
            f.replaces = Some(replaced);
            found.push(f);
        }
    }
    order(&mut found);

    // Exact only when the last hit shown outranks the best that any record left unread
    // could score: a lexical match beyond a full pool has a BM25 at most the floor; a
    // record a path list did not reach to its end reaches that path at most as its last
    // row does; its status at best verified; links are read whole.
    let lexical_bound = floor.map_or(0.0, |f| {
        Signals {
            bm25: f,
            bm25_top: top,
            ..Signals::default()
        }
        .lexical()
    });
    // What a record left unread could still reach each path asked about: the best of the
    // lists serving it (each list's last row read, as close as that list is).
    let mut per_path: Vec<f64> = vec![0.0; query.paths.len()];
    let value_of = |l: usize, f: &Floor, q: usize, how: PathHow, files: usize| {
        f.row.bound as f64 / 1e6
            * lists[l].cap
            * how.factor()
            * dir_damping(files)
            * query.paths[q].source.weight()
    };
    for (l, f) in &floors {
        for &(q, how, files) in &lists[*l].serves {
            per_path[q] = per_path[q].max(value_of(*l, f, q, how, files));
        }
    }
    let mut sorted = per_path.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let bound_value = lexical_bound + decayed_sum(&sorted);
    let unread = floor.is_some() || !floors.is_empty();
    // A moment's search (`lean_pool`) ranks what its one pass read: its cost is bounded by
    // the hits it asks for, and a record beyond the pool waits for `recall`.
    if unread && !query.lean_pool {
        let bound = (bound_value * 1e6).round() as i64;
        let last = query.limit.max(1) - 1;
        let settled = match found.get(last) {
            None => false,
            Some(f) if f.score > bound + 1 => true,
            // A tie with what the lists of one path left unread: each list holds its rows
            // best first and, among equals, newest first, so the hit stands when it is at
            // least as new as the last row read of every list that could tie it.
            Some(f) => {
                let reaching: Vec<usize> =
                    (0..per_path.len()).filter(|q| per_path[*q] > 0.0).collect();
                floor.is_none()
                    && reaching.len() == 1
                    && f.score >= bound - 1
                    && floors.iter().all(|(l, fl)| {
                        lists[*l].serves.iter().all(|&(q, how, files)| {
                            q != reaching[0]
                                || ((value_of(*l, fl, q, how, files) * 1e6).round() as i64)
                                    < f.score - 2
                                || f.recency_key() >= fl.row.recency
                        })
                    })
            }
        };
        if !settled {
            // Deeper where it could matter: every list that could still hold a hit (all of
            // them while there are fewer hits than asked); if none alone could, but
            // together they could, all of them.
            let need = found.get(last).map_or(i64::MIN, |f| f.score - 2);
            let lexical_binding = floor.is_some() && (lexical_bound * 1e6).round() as i64 >= need;
            let mut deeper = Deeper {
                lexical: lexical_binding,
                lists: floors
                    .iter()
                    .filter(|(l, fl)| {
                        lists[*l].serves.iter().any(|&(q, how, files)| {
                            (value_of(*l, fl, q, how, files) * 1e6).round() as i64 >= need
                        })
                    })
                    .map(|(l, _)| *l)
                    .collect(),
            };
            if !deeper.lexical && deeper.lists.is_empty() {
                deeper.lexical = floor.is_some();
                deeper.lists = floors.iter().map(|(l, _)| *l).collect();
            }
            return Ok(Err(deeper));
        }
    }
    let total = match listed {
        Some(n) => n.max(found.len()),
        // At least: what was found and the lexical matches left unread (the words alone),
        // or what was found, every record of the path most reached, and (with no kind
        // asked) every match of the words.
        None if query.paths.is_empty() => found.len() + beyond_pool,
        None => found
            .len()
            .max(most_reached)
            .max(if query.kinds.is_empty() {
                lexical.len()
            } else {
                0
            }),
    };
    found.truncate(query.limit);
    // The stale records shown that the index judged: their verifying commit, for the why.
    let again: Vec<usize> = found
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.status == HitStatus::Stale && f.verified_in.is_none() && by_index.contains(&f.doc.id)
        })
        .map(|(i, _)| i)
        .collect();
    if !again.is_empty() {
        let judgements = judge(ctx, db, &found, &again)?;
        for (i, judgement) in again.into_iter().zip(judgements) {
            if let Some((commit, subject, moved)) = judgement
                && !moved.is_empty()
            {
                found[i].verified_in = Some((commit, subject));
                found[i].moved = moved;
            }
        }
    }
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
    Ok(Ok(Outcome {
        found,
        total,
        exact: !unread,
        unranked: beyond_pool,
        left_out: 0,
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

/// The paths asked about, looked up by how another path relates to them.
struct PathsAsked<'a> {
    /// Each path asked about → its positions.
    exact: HashMap<&'a str, Vec<usize>>,
    /// Each directory above a path asked about → the positions under it.
    above: HashMap<&'a str, Vec<usize>>,
    /// Each path asked about's directory → the positions in it.
    beside: HashMap<&'a str, Vec<usize>>,
}

impl<'a> PathsAsked<'a> {
    fn of(paths: &'a [QueryPath]) -> PathsAsked<'a> {
        let mut out = PathsAsked {
            exact: HashMap::new(),
            above: HashMap::new(),
            beside: HashMap::new(),
        };
        for (i, q) in paths.iter().enumerate() {
            let p = q.path.as_str();
            out.exact.entry(p).or_default().push(i);
            for a in ancestors(p).into_iter().chain(std::iter::once("")) {
                out.above.entry(a).or_default().push(i);
            }
            out.beside.entry(parent_dir(p)).or_default().push(i);
        }
        out
    }

    /// How `reached` stands to each path asked about that it reaches at all:
    /// `(position, how, the files of the directory between them)`.
    fn relate(
        &self,
        reached: &str,
        dirs: &HashMap<(String, bool), usize>,
        out: &mut Vec<(usize, PathHow, usize)>,
    ) {
        out.clear();
        if let Some(at) = self.exact.get(reached) {
            out.extend(at.iter().map(|&i| (i, PathHow::Exact, 0)));
        }
        // A directory cited above a path asked about: worth less the more it holds.
        if let Some(at) = self.above.get(reached) {
            let files = dirs.get(&(reached.to_owned(), true)).copied().unwrap_or(0);
            out.extend(at.iter().map(|&i| (i, PathHow::Prefix, files)));
        }
        // A path under a directory asked about.
        for a in ancestors(reached) {
            if let Some(at) = self.exact.get(a) {
                out.extend(at.iter().map(|&i| (i, PathHow::Prefix, 0)));
            }
        }
        // A path beside one asked about, in the same directory.
        let dir = parent_dir(reached);
        if let Some(at) = self.beside.get(dir) {
            let files = dirs.get(&(dir.to_owned(), false)).copied().unwrap_or(0);
            for &i in at {
                if !out.iter().any(|(j, _, _)| *j == i) {
                    out.push((i, PathHow::Near, files));
                }
            }
        }
    }
}

/// Every path each of `docs` reaches (its references, its episode's changed files, its
/// task's scope) against every path asked about, read for these records only.
fn path_signals(
    r: crate::store::recall::Reader<'_>,
    paths: &[QueryPath],
    dirs: &HashMap<(String, bool), usize>,
    docs: &HashMap<i64, DocRow>,
    signals: &mut HashMap<i64, Signals>,
) -> Result<(), crate::store::recall::IndexError> {
    let asked = PathsAsked::of(paths);
    let ids: Vec<i64> = docs.keys().copied().collect();
    let refs = r.refs_of(&ids)?;
    let episodes: Vec<String> = docs
        .values()
        .filter_map(|d| d.episode.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let episode_files = r.episode_files_of(&episodes)?;
    let tasks: Vec<String> = docs
        .values()
        .filter_map(|d| d.task.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let scopes = r.scopes_of(&tasks)?;
    let mut related = Vec::new();
    for (id, doc) in docs {
        let s = signals.entry(*id).or_default();
        let mut add = |m: PathMatch| {
            if !s.paths.contains(&m) {
                s.paths.push(m);
            }
        };
        // Its own references, then its episode's changed files (their spread is set once
        // the episodes are read).
        let own = refs
            .get(id)
            .into_iter()
            .flatten()
            .map(|p| (p, PathVia::Reference, 0));
        let changed = doc
            .episode
            .as_ref()
            .and_then(|e| episode_files.get(e))
            .into_iter()
            .flatten()
            .map(|p| (p, PathVia::Episode, 1));
        for (path, via, spread) in own.chain(changed) {
            asked.relate(path, dirs, &mut related);
            for &(q, how, files) in &related {
                add(PathMatch {
                    query: paths[q].path.clone(),
                    source: paths[q].source,
                    path: path.clone(),
                    via,
                    how,
                    spread,
                    dir_files: files,
                });
            }
        }
        // Task scopes: a glob's literal directory was related; the glob itself must cover
        // the path for an exact or above reach, else it is only beside it.
        for (pattern, prefix) in doc
            .task
            .as_ref()
            .and_then(|t| scopes.get(t))
            .into_iter()
            .flatten()
        {
            asked.relate(prefix, dirs, &mut related);
            for &(q, how, files) in &related {
                let asked_path = paths[q].path.as_str();
                let covers =
                    crate::model::task::in_scope(std::slice::from_ref(pattern), asked_path);
                let (how, files) = match how {
                    PathHow::Exact | PathHow::Prefix
                        if prefix.as_str() == asked_path
                            || asked_path.starts_with(&format!("{prefix}/"))
                            || prefix.is_empty() =>
                    {
                        if !covers {
                            (PathHow::Near, files)
                        } else if pattern.trim_end_matches('/') == asked_path {
                            (PathHow::Exact, 0)
                        } else {
                            (PathHow::Prefix, files)
                        }
                    }
                    other => (other, files),
                };
                add(PathMatch {
                    query: asked_path.to_owned(),
                    source: paths[q].source,
                    path: pattern.clone(),
                    via: PathVia::Scope,
                    how,
                    spread: 0,
                    dir_files: files,
                });
            }
        }
    }
    // In the order the paths were asked, and for each by reference, episode, scope (which
    // of two equal matches "why" names).
    let position: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.as_str(), i))
        .collect();
    for s in signals.values_mut() {
        if s.paths.len() > 1 {
            s.paths
                .sort_by_key(|m| (position.get(m.query.as_str()).copied(), m.via));
        }
    }
    Ok(())
}

/// Judges the verified curated records of `found` whose every reference the index of
/// paths knows the verified blob of (a read judged them before, and neither the record nor
/// its references' rows changed since): a reference whose path holds another blob at HEAD
/// moved. A record already judged at this HEAD (`judged`) takes that judgement; the others
/// judged are noted there. Returns the records so judged.
fn judge_by_index(
    ctx: &Ctx,
    db: &RecallDb,
    found: &mut [Found],
    judged: &mut Judged,
) -> Result<HashSet<i64>, Error> {
    let mut out = HashSet::new();
    let mut candidates: Vec<usize> = Vec::new();
    for (i, f) in found.iter_mut().enumerate() {
        if f.status != HitStatus::Verified
            || f.kind != RecallKind::Knowledge
            || f.doc.place.as_deref() != Some("curated")
        {
            continue;
        }
        match judged.of(f.doc.id) {
            Some(stale) => {
                if stale {
                    f.status = HitStatus::Stale;
                    f.score = score(&f.signals, f.status);
                }
                out.insert(f.doc.id);
            }
            None => candidates.push(i),
        }
    }
    if candidates.is_empty() {
        return Ok(out);
    }
    let ids: Vec<i64> = candidates.iter().map(|&i| found[i].doc.id).collect();
    let r = db.reader();
    let cited = r.refs_of(&ids).map_err(index_failed)?;
    let held = r.reach_blobs(&ids).map_err(index_failed)?;
    let paths: BTreeSet<&str> = cited.values().flatten().map(String::as_str).collect();
    let at_head = ctx.repo.blob_ids_looked_up(None, paths.iter().copied())?;
    for i in candidates {
        let f = &mut found[i];
        let Some(refs) = cited.get(&f.doc.id).filter(|r| !r.is_empty()) else {
            continue;
        };
        let mut moved = Vec::new();
        let mut known = true;
        for path in refs {
            let Some(Some(then)) = held.get(&(f.doc.id, path.clone())) else {
                known = false;
                break;
            };
            let change = match (then.as_str(), at_head.get(path)) {
                ("", None) => continue,
                ("", Some(_)) => "added",
                (_, None) => "deleted",
                (a, Some(b)) if a != b => "changed",
                _ => continue,
            };
            moved.push((path.clone(), change));
        }
        if !known {
            continue;
        }
        judged.note(f.doc.id, !moved.is_empty());
        if !moved.is_empty() {
            f.status = HitStatus::Stale;
            f.moved = moved;
            f.score = score(&f.signals, f.status);
        }
        out.insert(f.doc.id);
    }
    Ok(out)
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
    let position: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_str(), i))
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
                    let i = position.get(*file).copied().unwrap_or(0);
                    cited.get(&ids[i]).into_iter().flatten().map(String::as_str)
                })
                .collect();
            let then = ctx
                .repo
                .blob_ids_looked_up(Some(&commit.id), wanted.iter().copied())?;
            for file in group {
                let i = position.get(file).copied().unwrap_or(0);
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
    // What each cited path held when its record was verified, for the index of paths (its
    // rows are then read fresh or stale for a path without judging them again).
    let mut held: Vec<(i64, String, String)> = Vec::new();
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
        for path in cited.get(&ids[i]).into_iter().flatten() {
            held.push((
                ids[i],
                path.clone(),
                v.targets.get(path).cloned().unwrap_or_default(),
            ));
        }
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
    let known = db.reader().reach_blobs(&ids).unwrap_or_default();
    held.retain(|(doc, path, blob)| {
        known
            .get(&(*doc, path.clone()))
            .is_some_and(|b| b.as_deref() != Some(blob.as_str()))
    });
    if !held.is_empty() {
        // A note that cannot be written costs the next read a judgement, nothing else.
        let _ = db.write(|w| w.set_reach_blobs(&held));
    }
    Ok(out)
}
