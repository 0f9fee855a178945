//! The search: the records a term, a path or a link reaches, best first, with their
//! signals; statuses resolved (a ledger line takes its knowledge record's status, a
//! verified record whose cited files moved is stale); filters; the order of
//! `model::recall`; and for the records shown, why each ranked. Costs what it shows, not
//! what it reaches: the lexical matches are scored from their postings and the best few
//! weighed; each path's records are read best first from the index of paths, only as many
//! as could rank; a bound proves that nothing left unread could have been shown (else the
//! search reads further). Git lookups only for the verified records near the top.
//!
//! A pass is a pipeline, one file a stage: `gather` (which records it reads), `weigh`
//! (each record's signals and score), `judge` (staleness, from the top down), then the
//! order, `bound` (the proof that nothing unread could rank, else read deeper) and the
//! cut to the limit. The passes loop is [`search`].

mod bound;
mod gather;
mod history;
mod judge;
mod weigh;

use std::collections::{HashMap, HashSet};

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{HandSource, HitStatus, LinkKind, Ranked, Signals, order};
use crate::store::recall::{DocRow, Judged, Lexical, RecallDb};

use super::RecallKind;
use bound::Deeper;
use gather::{Caps, PathList};
pub use judge::warm;

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
    /// One pass, not read deeper (`RecallRequest::one_pass`).
    pub one_pass: bool,
    /// Records left out, and every record of an episode (`RecallRequest::leave_out`).
    pub leave_out: Vec<(RecallKind, String)>,
    pub leave_out_episode: Option<String>,
    /// A prompt's words, whose files lift what they found (`RecallRequest::history`).
    pub history: Vec<Vec<String>>,
    /// A prompt's code words, asked whether the repository's code holds them
    /// (`RecallRequest::code_asked`).
    pub code_asked: Vec<String>,
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

    /// A verified knowledge record read to be judged, not ranked (no signals).
    fn verified_record(doc: DocRow) -> Found {
        Found::new(
            doc,
            RecallKind::Knowledge,
            HitStatus::Verified,
            Default::default(),
        )
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
    /// The terms searched for that no record holds (what a prompt's words say that this
    /// repository's memory never said).
    pub absent: Vec<String>,
    /// Of `Query::code_asked`, those that are identifiers in the repository's code.
    pub code_known: Vec<String>,
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
/// Files counted under a directory at most (a directory of more says nothing about one).
const DIR_COUNT_CAP: usize = 10_000;

/// An index read that failed, as the store's error (the caller rebuilds and reads again).
pub(crate) fn index_failed(e: crate::store::recall::IndexError) -> Error {
    crate::store::StoreError::Malformed {
        path: e.path.into(),
        message: e.message,
    }
    .into()
}

/// Runs `query` over the index.
pub fn search(ctx: &Ctx, db: &mut RecallDb, query: &Query) -> Result<Outcome, Error> {
    let mut phase = crate::timing::Phase::start("recall.search");
    // A prompt's words lift what they found with the files they came with.
    let expanded;
    let query = if query.history.is_empty() {
        query
    } else {
        let timing = crate::timing::Phase::start("recall.history");
        let mut with = query.clone();
        for derived in history::paths(db.reader(), &query.history)? {
            if !with.paths.iter().any(|p| p.path == derived.path) {
                with.paths.push(derived);
            }
        }
        timing.end();
        expanded = with;
        &expanded
    };
    // Which of a prompt's code words the repository's code holds (`signal::code`).
    let mut code_known = Vec::new();
    for term in &query.code_asked {
        if db.reader().code_holds(term).map_err(index_failed)? {
            code_known.push(term.clone());
        }
    }
    // A moment's one pass reads each path's best rows up to the hits it asks for; the
    // briefing's as many, at least half a first pass's (a small store's lists whole: its
    // total exact).
    let path_pool = if query.lean_pool {
        query.limit
    } else if query.one_pass {
        query.limit.max(PATH_POOL / 2)
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
    let (left_out, shown) = gather::left_out(db, query)?;
    phase_left_out.end();
    let mut matched_left_out: HashSet<i64> = lexical.leave_out(&left_out).into_iter().collect();
    // How many files each directory between a path asked about and what records reach
    // holds at HEAD (what "beside it" and "under it" are worth).
    let git = crate::timing::Phase::start("recall.git");
    let dirs = if query.paths.is_empty() {
        HashMap::new()
    } else {
        ctx.repo
            .files_in_dirs(&gather::dirs_needed(&query.paths), DIR_COUNT_CAP)?
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
    let lists = gather::path_lists(
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
                outcome.code_known = code_known;
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

/// How deep a pass reads: the best lexical matches it weighs, and each path list's rows
/// (0: a list not read yet).
#[derive(Debug, Clone)]
struct Depth {
    lexical: usize,
    lists: Vec<usize>,
}

/// One pass over the `depth.lexical` best lexical matches and the best records of each
/// path list, as deep as `depth` reads it: the records it reads, weighed, judged, ordered
/// and cut to the limit; `Err` when a record beyond them could rank among the hits shown
/// (a deeper pass is needed).
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
    let (records, unread) =
        gather::gather(db.reader(), query, lexical, lists, depth, judged, caps)?;
    let mut found = weigh::weigh(
        db.reader(),
        query,
        lexical,
        dirs,
        records,
        left_out,
        matched_left_out,
    )?;
    let by_index = judge::top_down(ctx, db, query, &mut found, judged)?;
    if !query.statuses.is_empty() {
        found.retain(|f| query.statuses.contains(&f.status));
    }
    weigh::replacements(db.reader(), &mut found)?;
    keep_replacements_asked(query, &mut found);
    order(&mut found);
    if let Err(deeper) = bound::settled(query, lexical, lists, &unread, &found) {
        return Ok(Err(deeper));
    }
    let total = bound::total(query, lexical, &unread, found.len());
    // The cut: the hits shown.
    found.truncate(query.limit);
    judge::verifying_commits(ctx, db, &mut found, &by_index)?;
    shown(db.reader(), query, &mut found)?;
    Ok(Ok(Outcome {
        found,
        total,
        exact: !unread.any(),
        unranked: unread.beyond_pool,
        left_out: 0,
        absent: lexical.absent.clone(),
        code_known: Vec::new(),
    }))
}

/// A replacement brought in for a superseded record is one of the kinds asked, and one
/// claim once: a decision line is superseded by the record its derivation names, whose key
/// is a knowledge record's and, often, a decision line's too.
fn keep_replacements_asked(query: &Query, found: &mut Vec<Found>) {
    let knowledge_wanted = query.kinds.is_empty() || query.kinds.contains(&RecallKind::Knowledge);
    let mut seen: HashSet<(RecallKind, String)> = HashSet::new();
    found.retain(|f| {
        if f.replaces.is_none() {
            return true;
        }
        (query.kinds.is_empty() || query.kinds.contains(&f.kind))
            && !(knowledge_wanted && f.kind != RecallKind::Knowledge && f.doc.folded)
            && seen.insert((f.kind, f.doc.key.clone()))
    });
}

/// What the hits shown carry besides their row: their whole text, and the query terms
/// each holds (its why).
fn shown(
    r: crate::store::recall::Reader<'_>,
    query: &Query,
    found: &mut [Found],
) -> Result<(), Error> {
    let fail = index_failed;
    let ids: Vec<i64> = found.iter().map(|f| f.doc.id).collect();
    let mut texts = r.texts(&ids).map_err(fail)?;
    let searched = r.searched(&ids).map_err(fail)?;
    for f in found {
        f.doc.text = texts.remove(&f.doc.id).unwrap_or_default();
        f.signals.terms = matched_terms(
            searched.get(&f.doc.id).map_or("", String::as_str),
            &query.terms,
        );
    }
    Ok(())
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
