//! Which records a pass reads: the lexical matches that could score most; the lists of the
//! index of paths (each path asked about itself — fresh for it at HEAD, not judged yet,
//! stale — what lies under it, the files beside it, each directory above it), best first
//! and only as deep as the pass reads them; the records sharing a link asked about; or,
//! with nothing to rank by, the newest records. What a list not read to its end leaves
//! behind is kept for the bound (`super::bound`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::error::Error;
use crate::model::recall::{HandSource, HitStatus, LinkKind, PathHow, PathVia, dir_damping};
use crate::store::recall::{
    Column, Cut, DocRow, Judged, Lexical, ReachGroup, Reader, RecallDb, ancestors, parent_dir,
};

use super::bound::Floor;
use super::{Depth, PATH_POOL, Query, QueryPath, RecallKind, index_failed};

/// Records a listing reads past its limit, for the filters that apply after it.
const LISTING_SLACK: usize = 16;

/// The records a pass weighs (`super::weigh`).
#[derive(Debug, Default)]
pub(super) struct Records {
    /// Read whole already: the newest, when nothing ranks and they are listed.
    pub(super) docs: HashMap<i64, DocRow>,
    /// Chosen by their id: the lexical pool and the rows of the path lists.
    pub(super) wanted: BTreeSet<i64>,
    /// Each record sharing a link asked about, with the link's place in `Query::links`.
    pub(super) link_rows: Vec<(usize, DocRow)>,
}

/// What a pass knows of the records it did not read: what they could score at most (the
/// bound, `super::bound`), and how many there are at least (the total).
#[derive(Debug, Default)]
pub(super) struct Unread {
    /// The listing's own count, when nothing ranks and the newest are listed.
    pub(super) listed: Option<usize>,
    /// Lexical matches beyond the pool, counted.
    pub(super) beyond_pool: usize,
    /// The lowest BM25 of a full pool: no match beyond it scores more.
    pub(super) floor: Option<f64>,
    /// Each path list not read to its end: its last row (nothing unread ranks above it).
    pub(super) floors: Vec<(usize, Floor)>,
    /// Records a path list reaches beyond what it read, at least.
    /// The most records one path reaches (each reaches it: the total is at least that).
    pub(super) most_reached: usize,
}

impl Unread {
    /// Whether any record was left unread (the total is then a lower bound).
    pub(super) fn any(&self) -> bool {
        self.floor.is_some() || !self.floors.is_empty()
    }
}

/// What one pass reads, as deep as `depth` says.
pub(super) fn gather(
    r: Reader<'_>,
    query: &Query,
    lexical: &Lexical,
    lists: &[PathList],
    depth: &Depth,
    judged: &Judged,
    caps: &Caps<'_>,
) -> Result<(Records, Unread), Error> {
    let mut records = Records::default();
    let mut unread = Unread::default();
    if query.relevance_asked() {
        lexical_pool(
            lexical,
            depth.lexical,
            judged,
            caps,
            &mut records,
            &mut unread,
        );
        path_rows(r, query, lists, depth, &mut records, &mut unread)?;
        records.link_rows = link_rows(r, query)?;
    } else {
        listing(r, query, &mut records, &mut unread)?;
    }
    Ok((records, unread))
}

/// The `pool` best lexical matches by what they could score.
fn lexical_pool(
    lexical: &Lexical,
    pool: usize,
    judged: &Judged,
    caps: &Caps<'_>,
    records: &mut Records,
    unread: &mut Unread,
) {
    // The matches that could score most: a match's BM25 times its status's factor at
    // best (a candidate's, or a stale record's where a read judged it stale here).
    let pooled = lexical.top_capped(pool, |id| caps.of(id, judged));
    if pooled.len() == pool && pool > 0 {
        unread.floor = pooled.last().map(|&(_, _, capped)| capped);
        unread.beyond_pool = lexical.len().saturating_sub(pool);
    }
    records.wanted.extend(pooled.iter().map(|&(id, _, _)| id));
}

/// The rows of each path list, best first: a list that could hold more is read before one
/// that could hold less, each to its depth, and a list that can hold nothing worth as much
/// as the hits shown is not read at all.
fn path_rows(
    r: Reader<'_>,
    query: &Query,
    lists: &[PathList],
    depth: &Depth,
    records: &mut Records,
    unread: &mut Unread,
) -> Result<(), Error> {
    let fail = index_failed;
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
                unread.floors.push((l, Floor::unread()));
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
                    unread.floors.push((l, Floor::unread()));
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
        records.wanted.extend(rows.iter().map(|row| row.doc));
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
                unread.most_reached = unread.most_reached.max(n);
            }
            unread.floors.push((l, Floor { row: last.clone() }));
        }
    }
    phase.count("skipped", skipped);
    phase.count("lists", lists.len());
    phase.count("rows", rows_read);
    phase.end();
    Ok(())
}

/// The records sharing each link asked about: naming it, or of a task that names it.
fn link_rows(r: Reader<'_>, query: &Query) -> Result<Vec<(usize, DocRow)>, Error> {
    let fail = index_failed;
    let mut link_rows = Vec::new();
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
    Ok(link_rows)
}

/// Nothing to rank by: the newest records (of the kinds asked, else verified knowledge),
/// within the filters, and how many there are.
fn listing(
    r: Reader<'_>,
    query: &Query,
    records: &mut Records,
    unread: &mut Unread,
) -> Result<(), Error> {
    let fail = index_failed;
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
    unread.listed = Some(total);
    for row in rows {
        records.docs.insert(row.id, row);
    }
    Ok(())
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

fn kind_column(kind: LinkKind) -> Column {
    match kind {
        LinkKind::Task => Column::Task,
        LinkKind::Issue => Column::Issue,
        LinkKind::Intent => Column::Intent,
    }
}

/// One list of the index of paths a search reads, and the paths asked about it serves:
/// for each, how close its rows are to that path and how many files the directory between
/// them holds.
#[derive(Debug, Clone)]
pub(super) struct PathList {
    pub(super) group: ReachGroup,
    pub(super) serves: Vec<(usize, PathHow, usize)>,
    /// What its rows are worth at most against their bound: the stale of a path (verified
    /// records whose reference held another blob) are worth the stale factor of a verified
    /// one's.
    pub(super) cap: f64,
    /// Read from the second pass on only (the stale of a path: needed when the fresh do
    /// not settle the hits).
    pub(super) deferred: bool,
}

/// The lists of the index of paths that `paths` read: each path itself (its records fresh
/// for it at HEAD, those not judged yet, and, when needed, its stale ones), what lies
/// under it, the files beside it, and each directory above it (the root included: a task
/// scoped to the whole repository reaches every path). `blobs`: each path's blob at HEAD.
pub(super) fn path_lists(
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
        // A moment's touched files and the files its words came with lift what its words
        // found; they read no list.
        if lean && matches!(q.source, HandSource::Touched | HandSource::Words(_)) {
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
pub(super) fn dirs_needed(paths: &[QueryPath]) -> Vec<(String, bool)> {
    let mut out: BTreeSet<(String, bool)> = BTreeSet::new();
    for q in paths {
        out.insert((parent_dir(&q.path).to_owned(), false));
        for a in ancestors(&q.path).into_iter().chain(std::iter::once("")) {
            out.insert((a.to_owned(), true));
        }
    }
    out.into_iter().collect()
}

/// The documents `query` leaves out: the records it names (the second set), and every
/// document of the episode it names.
pub(super) fn left_out(
    db: &mut RecallDb,
    query: &Query,
) -> Result<(HashSet<i64>, HashSet<i64>), Error> {
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
pub(super) struct Caps<'a> {
    pub(super) ranks: &'a [u8],
    pub(super) superseded: bool,
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
