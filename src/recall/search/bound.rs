//! The bound: the proof that no record a pass left unread could rank among the hits it
//! shows — a lexical match beyond a full pool scores at most the pool's floor, a record a
//! path list did not reach to its end reaches that path at most as the list's last row
//! does — else which lists to read deeper; and the total, exact or at least.

use crate::model::recall::{PathHow, PathVia, Signals, decayed_sum, dir_damping};
use crate::store::recall::{Lexical, ReachRow};

use super::gather::{PathList, Unread};
use super::{Found, Query};

/// What a pass that could not settle its hits reads deeper next time: the lists whose
/// unread rows could still rank among them.
#[derive(Debug, Clone, Default)]
pub(super) struct Deeper {
    pub(super) lexical: bool,
    pub(super) lists: Vec<usize>,
}

/// What a list left unread could still be worth: the last row read of a list that was
/// not read to its end (for a list not read at all, the best any row could be).
#[derive(Debug, Clone)]
pub(super) struct Floor {
    pub(super) row: ReachRow,
}

impl Floor {
    /// A list not read: a row could be worth anything up to a verified reference to the
    /// very path, and be of any time.
    pub(super) fn unread() -> Floor {
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

/// `Ok` when the hits `found` holds are settled: nothing was left unread, or the last hit
/// shown outranks the best that any record left unread could score (a moment's search
/// ranks what its one pass read); else the lists to read deeper.
pub(super) fn settled(
    query: &Query,
    lexical: &Lexical,
    lists: &[PathList],
    unread: &Unread,
    found: &[Found],
) -> Result<(), Deeper> {
    let (floor, floors) = (unread.floor, &unread.floors);
    // Lexical relevance is relative to the best match of the query, read or not.
    let top = lexical.best();
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
    for (l, f) in floors {
        for &(q, how, files) in &lists[*l].serves {
            per_path[q] = per_path[q].max(value_of(*l, f, q, how, files));
        }
    }
    let mut sorted = per_path.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let bound_value = lexical_bound + decayed_sum(&sorted);
    // A moment's search (`lean_pool`) and the briefing's (`one_pass`) rank what their one
    // pass read: the cost is bounded by the pool, and a record beyond it waits for `recall`.
    if unread.any() && !query.lean_pool && !query.one_pass {
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
            return Err(deeper);
        }
    }
    Ok(())
}

/// Records in all, before the limit: exact when nothing was left unread, else at least
/// this many.
pub(super) fn total(query: &Query, lexical: &Lexical, unread: &Unread, found: usize) -> usize {
    match unread.listed {
        Some(n) => n.max(found),
        // At least: what was found and the lexical matches left unread (the words alone),
        // or what was found, every record of the path most reached, and (with no kind
        // asked) every match of the words.
        None if query.paths.is_empty() => found + unread.beyond_pool,
        None => found
            .max(unread.most_reached)
            .max(if query.kinds.is_empty() {
                lexical.len()
            } else {
                0
            }),
    }
}
