//! The ranking (SPEC §11): lexical relevance, path relevance and link relevance add up;
//! status scales the sum (verified above candidate, stale below its fresh peers,
//! superseded lowest and never above the record that superseded it); recency breaks ties,
//! then the id. Every weight is a constant here and in docs/RECALL.md; the score is kept
//! in millionths so the same store gives the same order on any machine.

use std::cmp::Ordering;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a hit stands: verified (a person promoted it), candidate (not reviewed yet),
/// stale (verified, but a file it cites changed since), superseded (rejected or replaced).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum HitStatus {
    // A person promoted it (curated knowledge; a decision or answer whose record was
    // promoted; a conclusion whose validation passed).
    Verified,
    // Not reviewed by a person (yet).
    Candidate,
    // Verified, but a file it cites changed since it was verified.
    Stale,
    // Rejected or replaced.
    Superseded,
}

impl HitStatus {
    pub const NAMES: [&'static str; 4] = ["verified", "candidate", "stale", "superseded"];

    pub fn name(self) -> &'static str {
        match self {
            HitStatus::Verified => "verified",
            HitStatus::Candidate => "candidate",
            HitStatus::Stale => "stale",
            HitStatus::Superseded => "superseded",
        }
    }

    pub fn from_name(name: &str) -> Option<HitStatus> {
        match name {
            "verified" => Some(HitStatus::Verified),
            "candidate" => Some(HitStatus::Candidate),
            "stale" => Some(HitStatus::Stale),
            "superseded" => Some(HitStatus::Superseded),
            _ => None,
        }
    }

    /// What status multiplies relevance by.
    pub fn factor(self) -> f64 {
        match self {
            HitStatus::Verified => 1.0,
            HitStatus::Candidate => 0.8,
            HitStatus::Stale => 0.6,
            HitStatus::Superseded => 0.4,
        }
    }
}

/// How a record reaches a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PathVia {
    /// Its own `file:`/`test:` reference (or a reasoning record's evidence).
    Reference,
    /// Its episode changed the file (the tracked session record's `changed_files`).
    Episode,
    /// Its task's scope covers it.
    Scope,
}

/// How close the path it reaches is to the path asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PathHow {
    /// The very path.
    Exact,
    /// One lies under the other (a directory asked about, or a directory cited).
    Prefix,
    /// A file beside it, in the same directory.
    Near,
}

/// One path a record reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PathMatch {
    /// The path asked about.
    pub query: String,
    /// The path the record reaches.
    pub path: String,
    pub via: PathVia,
    pub how: PathHow,
    /// How many files the episode changed (for `episode`): a record of an episode that
    /// touched hundreds of files says less about each.
    pub spread: usize,
}

impl PathMatch {
    /// What this match is worth.
    pub fn weight(&self) -> f64 {
        let base = match (self.via, self.how) {
            (PathVia::Reference, PathHow::Exact) => 3.0,
            (PathVia::Reference, PathHow::Prefix) => 1.5,
            (PathVia::Reference, PathHow::Near) => 0.6,
            (PathVia::Episode, PathHow::Exact) => 2.0,
            (PathVia::Episode, PathHow::Prefix) => 1.0,
            (PathVia::Episode, PathHow::Near) => 0.4,
            (PathVia::Scope, PathHow::Exact) => 1.5,
            (PathVia::Scope, PathHow::Prefix) => 0.75,
            (PathVia::Scope, PathHow::Near) => 0.3,
        };
        match self.via {
            PathVia::Episode => base * spread_damping(self.spread),
            _ => base,
        }
    }
}

/// 1 up to [`SPREAD_FREE`] files, then `sqrt(SPREAD_FREE / files)`.
fn spread_damping(files: usize) -> f64 {
    if files <= SPREAD_FREE {
        1.0
    } else {
        (SPREAD_FREE as f64 / files as f64).sqrt()
    }
}

/// Files an episode may change before each counts for less.
pub const SPREAD_FREE: usize = 8;

/// What a record shares with the work asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Task,
    Issue,
    Intent,
}

impl LinkKind {
    pub fn weight(self) -> f64 {
        match self {
            LinkKind::Task => 2.0,
            LinkKind::Issue => 1.5,
            LinkKind::Intent => 1.0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Task => "task",
            LinkKind::Issue => "issue",
            LinkKind::Intent => "intent",
        }
    }
}

/// Everything that ranks one record.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// BM25 (positive; 0 without a lexical match).
    pub bm25: f64,
    /// The best BM25 of the query (lexical relevance is relative to it).
    pub bm25_top: f64,
    /// The query terms the record holds.
    pub terms: Vec<String>,
    pub paths: Vec<PathMatch>,
    pub links: Vec<(LinkKind, String)>,
}

/// Lexical relevance of the best lexical match of a query; the others in proportion to
/// their BM25 (so it weighs the same against paths and links in a store of ten records,
/// where BM25 itself is tiny, as in one of a hundred thousand).
pub const LEXICAL_MAX: f64 = 3.0;

impl Signals {
    /// Lexical + path + link relevance, before status.
    pub fn relevance(&self) -> f64 {
        self.lexical() + self.path() + self.link()
    }

    pub fn lexical(&self) -> f64 {
        if self.bm25 <= 0.0 || self.bm25_top <= 0.0 {
            return 0.0;
        }
        LEXICAL_MAX * (self.bm25 / self.bm25_top).min(1.0)
    }

    /// For each path asked about, the best way the record reaches it; summed.
    pub fn path(&self) -> f64 {
        let mut best: Vec<(&str, f64)> = Vec::new();
        for m in &self.paths {
            let w = m.weight();
            match best.iter_mut().find(|(q, _)| *q == m.query) {
                Some((_, b)) if *b < w => *b = w,
                Some(_) => {}
                None => best.push((&m.query, w)),
            }
        }
        best.iter().map(|(_, w)| w).sum()
    }

    pub fn link(&self) -> f64 {
        let mut kinds: Vec<LinkKind> = self.links.iter().map(|(k, _)| *k).collect();
        kinds.sort();
        kinds.dedup();
        kinds.iter().map(|k| k.weight()).sum()
    }

    /// The best match for each path asked about, best first (what "why" names).
    pub fn best_paths(&self) -> Vec<&PathMatch> {
        let mut best: Vec<&PathMatch> = Vec::new();
        for m in &self.paths {
            match best.iter_mut().find(|b| b.query == m.query) {
                Some(b) if b.weight() < m.weight() => *b = m,
                Some(_) => {}
                None => best.push(m),
            }
        }
        best.sort_by(|a, b| {
            b.weight()
                .total_cmp(&a.weight())
                .then_with(|| a.query.cmp(&b.query))
        });
        best
    }
}

/// The score of a record: relevance × its status's factor, in millionths (rounded, so a
/// last-bit difference in floating point never reorders two records).
pub fn score(signals: &Signals, status: HitStatus) -> i64 {
    (signals.relevance() * status.factor() * 1e6).round() as i64
}

/// What one ranked record carries for ordering.
pub trait Ranked {
    fn score(&self) -> i64;
    /// `YYYY-MM-DD` or RFC 3339: later sorts later.
    fn date(&self) -> &str;
    fn id(&self) -> &str;
    /// The record that superseded this one, if it names one.
    fn superseded_by(&self) -> Option<&str>;
}

/// Score, then recency, then the id: the order of any two records.
pub fn compare<R: Ranked>(a: &R, b: &R) -> Ordering {
    b.score()
        .cmp(&a.score())
        .then_with(|| b.date().cmp(a.date()))
        .then_with(|| a.id().cmp(b.id()))
}

/// Sorts `hits` and then moves every superseded record that ranks above the record that
/// superseded it to just below that record (chains included). A replacement missing from
/// `hits` leaves the record where it is: the caller adds replacements first.
pub fn order<R: Ranked>(hits: &mut Vec<R>) {
    // Sorted through their positions, so each (large) hit moves once, not once per
    // comparison; a stable sort of positions is the stable sort of the hits.
    let mut at: Vec<usize> = (0..hits.len()).collect();
    at.sort_by(|a, b| compare(&hits[*a], &hits[*b]));
    let mut slots: Vec<Option<R>> = hits.drain(..).map(Some).collect();
    hits.extend(at.into_iter().filter_map(|i| slots[i].take()));
    // Every move puts a record below its replacement; a cycle of replacements (a
    // hand-edited store) would move forever, so the moves are bounded.
    let mut moves = hits.len() * hits.len();
    let mut i = 0;
    while i < hits.len() && moves > 0 {
        let replacement = hits[i]
            .superseded_by()
            .and_then(|by| hits.iter().position(|h| h.id() == by));
        match replacement {
            Some(r) if r > i => {
                let record = hits.remove(i);
                // The replacement moved up by one when the record left.
                hits.insert(r, record);
                moves -= 1;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone)]
    struct H {
        id: &'static str,
        score: i64,
        date: &'static str,
        by: Option<&'static str>,
    }

    impl Ranked for H {
        fn score(&self) -> i64 {
            self.score
        }
        fn date(&self) -> &str {
            self.date
        }
        fn id(&self) -> &str {
            self.id
        }
        fn superseded_by(&self) -> Option<&str> {
            self.by
        }
    }

    fn h(id: &'static str, score: i64, date: &'static str) -> H {
        H {
            id,
            score,
            date,
            by: None,
        }
    }

    fn ids(hits: &[H]) -> Vec<&str> {
        hits.iter().map(|h| h.id).collect()
    }

    #[test]
    fn score_then_recency_then_id() {
        let mut hits = vec![
            h("b", 5, "2026-01-01"),
            h("a", 5, "2026-01-01"),
            h("c", 5, "2026-02-01"),
            h("d", 9, "2025-01-01"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["d", "c", "a", "b"]);
    }

    #[test]
    fn a_superseded_record_never_ranks_above_its_replacement() {
        let mut hits = vec![
            H {
                id: "old",
                score: 100,
                date: "2026-01-01",
                by: Some("new"),
            },
            h("other", 50, "2026-01-01"),
            H {
                id: "new",
                score: 10,
                date: "2026-01-01",
                by: Some("newest"),
            },
            h("newest", 1, "2026-01-01"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["other", "newest", "new", "old"]);
    }

    #[test]
    fn a_cycle_of_replacements_ends() {
        let mut hits = vec![
            H {
                id: "a",
                score: 2,
                date: "x",
                by: Some("b"),
            },
            H {
                id: "b",
                score: 1,
                date: "x",
                by: Some("a"),
            },
        ];
        order(&mut hits);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn status_orders_equal_relevance_and_an_exact_path_beats_a_prefix() {
        let exact = Signals {
            paths: vec![PathMatch {
                query: "src/a.rs".into(),
                path: "src/a.rs".into(),
                via: PathVia::Reference,
                how: PathHow::Exact,
                spread: 0,
            }],
            ..Signals::default()
        };
        let mut prefix = exact.clone();
        prefix.paths[0].how = PathHow::Prefix;
        assert!(score(&exact, HitStatus::Verified) > score(&prefix, HitStatus::Verified));
        assert!(score(&exact, HitStatus::Verified) > score(&exact, HitStatus::Candidate));
        assert!(score(&exact, HitStatus::Candidate) > score(&exact, HitStatus::Stale));
        assert!(score(&exact, HitStatus::Stale) > score(&exact, HitStatus::Superseded));
    }

    #[test]
    fn each_path_asked_counts_once_by_its_best_match_and_wide_episodes_count_less() {
        let m = |query: &str, via, how, spread| PathMatch {
            query: query.into(),
            path: query.into(),
            via,
            how,
            spread,
        };
        let s = Signals {
            paths: vec![
                m("a", PathVia::Episode, PathHow::Exact, 1),
                m("a", PathVia::Reference, PathHow::Exact, 0),
                m("b", PathVia::Episode, PathHow::Exact, 200),
            ],
            ..Signals::default()
        };
        let expected = 3.0 + 2.0 * (8.0f64 / 200.0).sqrt();
        assert!((s.path() - expected).abs() < 1e-9);
        assert_eq!(s.best_paths()[0].via, PathVia::Reference);
    }

    #[test]
    fn lexical_relevance_is_relative_to_the_best_match() {
        let s = |bm25, bm25_top| Signals {
            bm25,
            bm25_top,
            ..Signals::default()
        };
        assert_eq!(s(0.0, 5.0).lexical(), 0.0);
        assert_eq!(s(5.0, 5.0).lexical(), LEXICAL_MAX);
        assert!((s(2.5, 5.0).lexical() - LEXICAL_MAX / 2.0).abs() < 1e-12);
        // A store so small that BM25 is a millionth still ranks by it.
        assert_eq!(s(2e-6, 2e-6).lexical(), LEXICAL_MAX);
    }
}
