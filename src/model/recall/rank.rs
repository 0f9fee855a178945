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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PathVia {
    /// Its own `file:`/`test:` reference (or a reasoning record's evidence).
    Reference,
    /// Its episode changed the file (the tracked session record's `changed_files`).
    Episode,
    /// Its task's scope covers it.
    Scope,
}

impl PathVia {
    /// What reaching the very path asked about this way is worth.
    pub fn exact_weight(self) -> f64 {
        match self {
            PathVia::Reference => 3.0,
            PathVia::Episode => 2.0,
            PathVia::Scope => 1.5,
        }
    }
}

/// How close the path it reaches is to the path asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PathHow {
    /// The very path.
    Exact,
    /// One lies under the other (a directory asked about, or a directory cited).
    Prefix,
    /// A file beside it, in the same directory.
    Near,
}

impl PathHow {
    /// The share of [`PathVia::exact_weight`] a match this close is worth: the same for
    /// every way of reaching a path, so the records that reach one path can be kept in one
    /// order (the index's) whichever of these a query asks for.
    pub fn factor(self) -> f64 {
        match self {
            PathHow::Exact => 1.0,
            PathHow::Prefix => 0.5,
            PathHow::Near => 0.2,
        }
    }
}

/// Where a path of the work at hand came from, strongest first (SPEC §11): what the
/// request named, the uncommitted changes, the branch's own commits (newest weighing
/// most), the rest of the branch against the trunk, the task's scope, the last handover's
/// files. Its weight multiplies what a record reaching the path is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "source", content = "rank")]
pub enum HandSource {
    /// Named by the request (`--path`).
    Asked,
    /// Changed in the work tree or the index, not committed.
    Uncommitted,
    /// Edited by the agent's tools in the open episode (`agent.touched`), committed or not.
    Touched,
    /// Changed by one of the branch's own commits since it forked from its parent (or,
    /// on the trunk, the open episode's): 0 for the newest.
    OwnCommit(usize),
    /// Changed on the branch against the trunk, before its own commits (a parent
    /// branch's work).
    Branch,
    /// The active or last task's scope.
    Scope,
    /// A file of the last handover's episode.
    Handover,
}

impl HandSource {
    /// What a path from here weighs: 1 for what was asked or is being edited now, then
    /// less the further the work is from now.
    pub fn weight(self) -> f64 {
        match self {
            HandSource::Asked | HandSource::Uncommitted | HandSource::Touched => 1.0,
            // 0.8 for the newest commit, then towards 0.5: 0.71, 0.65, 0.6 ...
            HandSource::OwnCommit(i) => {
                OWN_COMMIT_FLOOR
                    + (OWN_COMMIT_NEWEST - OWN_COMMIT_FLOOR)
                        * OWN_COMMIT_DECAY.powi(i.min(64) as i32)
            }
            HandSource::Branch => 0.4,
            HandSource::Scope => 0.4,
            HandSource::Handover => 0.25,
        }
    }

    /// In words, for a hit's why.
    pub fn said(self) -> String {
        match self {
            HandSource::Asked => "asked".into(),
            HandSource::Uncommitted => "uncommitted change".into(),
            HandSource::Touched => "the agent edited it this episode".into(),
            HandSource::OwnCommit(0) => "this branch's last commit".into(),
            HandSource::OwnCommit(i) => format!("this branch's own commit {} back", i),
            HandSource::Branch => "changed on this branch before its own commits".into(),
            HandSource::Scope => "the task's scope".into(),
            HandSource::Handover => "the last handover's episode".into(),
        }
    }
}

/// What the newest of the branch's own commits weighs ([`HandSource::OwnCommit`]).
pub const OWN_COMMIT_NEWEST: f64 = 0.8;
/// What an old own commit weighs at least.
pub const OWN_COMMIT_FLOOR: f64 = 0.5;
/// Each older own commit keeps this share of the newer one's weight above the floor.
pub const OWN_COMMIT_DECAY: f64 = 0.7;

/// What links of the work at hand (its task, issue, intent) weigh, against the same links
/// asked for by name (`--task`, `--issue`): they come after the files being touched.
pub const HAND_LINK_FACTOR: f64 = 0.5;

/// One path a record reached.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PathMatch {
    /// The path asked about.
    pub query: String,
    /// Where the path asked about came from, and what it weighs.
    pub source: HandSource,
    /// The path the record reaches.
    pub path: String,
    pub via: PathVia,
    pub how: PathHow,
    /// How many files the episode changed (for `episode`): a record of an episode that
    /// touched hundreds of files says less about each.
    pub spread: usize,
    /// How many files the directory that joins the two holds, for a file beside the one
    /// asked about (files directly in their directory) and a directory cited above it
    /// (every file under it); 0 where no directory stands between them.
    pub dir_files: usize,
}

impl PathMatch {
    /// What this match is worth, before the weight of where the path asked about came
    /// from.
    pub fn weight(&self) -> f64 {
        let spread = match self.via {
            PathVia::Episode => spread_damping(self.spread),
            _ => 1.0,
        };
        self.via.exact_weight() * self.how.factor() * spread * dir_damping(self.dir_files)
    }

    /// What it adds to the record's path relevance: [`PathMatch::weight`] times the
    /// weight of where the path asked about came from.
    pub fn value(&self) -> f64 {
        self.weight() * self.source.weight()
    }
}

/// 1 up to [`SPREAD_FREE`] files, then `sqrt(SPREAD_FREE / files)`.
pub fn spread_damping(files: usize) -> f64 {
    if files <= SPREAD_FREE {
        1.0
    } else {
        (SPREAD_FREE as f64 / files as f64).sqrt()
    }
}

/// Files an episode may change before each counts for less.
pub const SPREAD_FREE: usize = 8;

/// 1 for no directory or one of up to [`DIR_FREE`] files, then `DIR_FREE / files`: a file
/// beside the one asked about in a flat directory of 17 modules is worth a quarter of one
/// in a directory of four, and a directory of 500 files says next to nothing about one of
/// them.
pub fn dir_damping(files: usize) -> f64 {
    if files <= DIR_FREE {
        1.0
    } else {
        DIR_FREE as f64 / files as f64
    }
}

/// Files a directory may hold before "beside it" or "under it" counts for less.
pub const DIR_FREE: usize = 4;

/// Each further path a record reaches adds this share of what the one before it added
/// (its matches taken best first): a record about the file being edited outranks one that
/// touches many files of the branch's older work.
pub const PATH_DECAY: f64 = 0.5;

/// What a record shares with the work asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
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
    /// Each link, with what it weighs (the link's weight, less when it came from the work
    /// at hand: [`HAND_LINK_FACTOR`]).
    pub links: Vec<(LinkKind, String, f64)>,
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

    /// For each path asked about, the best way the record reaches it (times the weight of
    /// where that path came from); those added best first, each further one at
    /// [`PATH_DECAY`] of the one before.
    pub fn path(&self) -> f64 {
        let mut values: Vec<f64> = self.best_paths().iter().map(|m| m.value()).collect();
        values.sort_by(|a, b| b.total_cmp(a));
        decayed_sum(&values)
    }

    pub fn link(&self) -> f64 {
        let mut best: Vec<(LinkKind, f64)> = Vec::new();
        for (kind, _, weight) in &self.links {
            match best.iter_mut().find(|(k, _)| k == kind) {
                Some((_, w)) if *w < *weight => *w = *weight,
                Some(_) => {}
                None => best.push((*kind, *weight)),
            }
        }
        best.iter().map(|(_, w)| w).sum()
    }

    /// The best match for each path asked about, best first (what "why" names).
    pub fn best_paths(&self) -> Vec<&PathMatch> {
        let mut best: Vec<&PathMatch> = Vec::new();
        for m in &self.paths {
            match best.iter_mut().find(|b| b.query == m.query) {
                Some(b) if b.value() < m.value() => *b = m,
                Some(_) => {}
                None => best.push(m),
            }
        }
        best.sort_by(|a, b| {
            b.value()
                .total_cmp(&a.value())
                .then_with(|| a.query.cmp(&b.query))
        });
        best
    }
}

/// `values` (best first) added, each at [`PATH_DECAY`] of the one before.
pub fn decayed_sum(values: &[f64]) -> f64 {
    let mut share = 1.0;
    let mut sum = 0.0;
    for v in values {
        sum += v * share;
        share *= PATH_DECAY;
    }
    sum
}

/// The score of a record: relevance × its status's factor, in millionths (rounded, so a
/// last-bit difference in floating point never reorders two records).
pub fn score(signals: &Signals, status: HitStatus) -> i64 {
    (signals.relevance() * status.factor() * 1e6).round() as i64
}

/// What one ranked record carries for ordering.
pub trait Ranked {
    fn score(&self) -> i64;
    /// When it was recorded, as a sortable string: RFC 3339 (a ledger line, a promotion),
    /// or a `YYYY-MM-DD` date where nothing finer is known. Later sorts later.
    fn recency(&self) -> &str;
    fn id(&self) -> &str;
    /// The record that superseded this one, if it names one.
    fn superseded_by(&self) -> Option<&str>;
}

/// Score, then recency (newest first), then the id (the greater first: record ids begin
/// with their episode's opening time, so among records of one day the newer episode's
/// comes first): the order of any two records.
pub fn compare<R: Ranked>(a: &R, b: &R) -> Ordering {
    b.score()
        .cmp(&a.score())
        .then_with(|| b.recency().cmp(a.recency()))
        .then_with(|| b.id().cmp(a.id()))
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
        recency: &'static str,
        by: Option<&'static str>,
    }

    impl Ranked for H {
        fn score(&self) -> i64 {
            self.score
        }
        fn recency(&self) -> &str {
            self.recency
        }
        fn id(&self) -> &str {
            self.id
        }
        fn superseded_by(&self) -> Option<&str> {
            self.by
        }
    }

    fn h(id: &'static str, score: i64, recency: &'static str) -> H {
        H {
            id,
            score,
            recency,
            by: None,
        }
    }

    fn ids(hits: &[H]) -> Vec<&str> {
        hits.iter().map(|h| h.id).collect()
    }

    fn m(query: &str, via: PathVia, how: PathHow) -> PathMatch {
        PathMatch {
            query: query.into(),
            source: HandSource::Asked,
            path: query.into(),
            via,
            how,
            spread: 0,
            dir_files: 0,
        }
    }

    #[test]
    fn score_then_recency_newest_first_then_the_id_greater_first() {
        let mut hits = vec![
            h("b", 5, "2026-01-01"),
            h("a", 5, "2026-01-01"),
            h("c", 5, "2026-02-01"),
            h("d", 9, "2025-01-01"),
            // A time within a day is newer than the day alone, and two times order.
            h("e", 5, "2026-02-01T09:00:00Z"),
            h("f", 5, "2026-02-01T17:30:00Z"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["d", "f", "e", "c", "b", "a"]);
    }

    #[test]
    fn ids_of_one_day_order_newest_episode_first() {
        // Record ids begin with their episode's opening time.
        let mut hits = vec![
            h("20261130T090000Z-aaaaaa-000000000001", 7, "2026-11-30"),
            h("20261130T170000Z-bbbbbb-000000000002", 7, "2026-11-30"),
            h("20261130T120000Z-cccccc-000000000003", 7, "2026-11-30"),
        ];
        order(&mut hits);
        assert_eq!(
            ids(&hits),
            [
                "20261130T170000Z-bbbbbb-000000000002",
                "20261130T120000Z-cccccc-000000000003",
                "20261130T090000Z-aaaaaa-000000000001"
            ]
        );
    }

    #[test]
    fn a_superseded_record_never_ranks_above_its_replacement() {
        let mut hits = vec![
            H {
                id: "old",
                score: 100,
                recency: "2026-01-01",
                by: Some("new"),
            },
            h("other", 50, "2026-01-01"),
            H {
                id: "new",
                score: 10,
                recency: "2026-01-01",
                by: Some("newest"),
            },
            h("newest", 1, "2026-01-01"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["other", "newest", "new", "old"]);
    }

    #[test]
    fn a_cycle_of_replacements_ends_with_every_record_kept_once() {
        // a → b → c → a: each names the next as its replacement. The moves are bounded, so
        // ordering ends; nothing is lost or repeated, and records outside the cycle keep
        // their place by score.
        let mut hits = vec![
            H {
                id: "a",
                score: 30,
                recency: "x",
                by: Some("b"),
            },
            H {
                id: "b",
                score: 20,
                recency: "x",
                by: Some("c"),
            },
            H {
                id: "c",
                score: 10,
                recency: "x",
                by: Some("a"),
            },
            h("top", 100, "x"),
            h("bottom", 1, "x"),
        ];
        order(&mut hits);
        assert_eq!(hits.len(), 5);
        let mut sorted = ids(&hits);
        sorted.sort();
        assert_eq!(sorted, ["a", "b", "bottom", "c", "top"]);
        assert_eq!(hits[0].id, "top");
        assert_eq!(hits[4].id, "bottom");
        // The same input always ends in the same order.
        let mut again = vec![
            hits[1].clone(),
            hits[3].clone(),
            hits[2].clone(),
            hits[0].clone(),
            hits[4].clone(),
        ];
        order(&mut again);
        assert_eq!(ids(&again), ids(&hits));
    }

    #[test]
    fn status_orders_equal_relevance_and_an_exact_path_beats_a_prefix() {
        let exact = Signals {
            paths: vec![m("src/a.rs", PathVia::Reference, PathHow::Exact)],
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
    fn a_match_is_its_ways_exact_weight_times_how_close_it_is() {
        // The index keeps one order per path (by the exact weight); every closeness is the
        // same share of it, whichever way the record reaches the path.
        for via in [PathVia::Reference, PathVia::Episode, PathVia::Scope] {
            for how in [PathHow::Exact, PathHow::Prefix, PathHow::Near] {
                let w = m("a", via, how).weight();
                assert!((w - via.exact_weight() * how.factor()).abs() < 1e-12);
            }
        }
        assert_eq!(m("a", PathVia::Reference, PathHow::Exact).weight(), 3.0);
        assert_eq!(m("a", PathVia::Episode, PathHow::Prefix).weight(), 1.0);
        assert!((m("a", PathVia::Scope, PathHow::Near).weight() - 0.3).abs() < 1e-12);
    }

    #[test]
    fn each_path_asked_counts_once_by_its_best_match_and_wide_episodes_count_less() {
        let mut wide = m("b", PathVia::Episode, PathHow::Exact);
        wide.spread = 200;
        let s = Signals {
            paths: vec![
                m("a", PathVia::Episode, PathHow::Exact),
                m("a", PathVia::Reference, PathHow::Exact),
                wide,
            ],
            ..Signals::default()
        };
        // Best first, the second at half.
        let expected = 3.0 + PATH_DECAY * 2.0 * (8.0f64 / 200.0).sqrt();
        assert!((s.path() - expected).abs() < 1e-9, "{}", s.path());
        assert_eq!(s.best_paths()[0].via, PathVia::Reference);
    }

    #[test]
    fn a_directory_weighs_less_the_more_files_it_holds() {
        let near = |files| {
            let mut x = m("src/click/types.py", PathVia::Reference, PathHow::Near);
            x.dir_files = files;
            x.weight()
        };
        assert!((near(0) - 0.6).abs() < 1e-12);
        assert!((near(4) - 0.6).abs() < 1e-12);
        // click's one source directory of 17 modules: a quarter of a small directory's.
        assert!((near(17) - 0.6 * 4.0 / 17.0).abs() < 1e-12);
        assert!(near(17) < near(8) && near(8) < near(4));
        // An exact path always beats any directory or neighbour, however small.
        let exact = m("src/a.rs", PathVia::Episode, PathHow::Exact).weight();
        for via in [PathVia::Reference, PathVia::Episode, PathVia::Scope] {
            for files in [0, 1, 4, 17, 500] {
                for how in [PathHow::Prefix, PathHow::Near] {
                    let mut x = m("src/a.rs", via, how);
                    x.dir_files = files;
                    assert!(x.weight() < exact, "{via:?} {how:?} {files}");
                }
            }
        }
    }

    #[test]
    fn the_work_at_hand_weighs_the_edit_first_then_the_branchs_newest_commits() {
        let order = [
            HandSource::Uncommitted,
            HandSource::OwnCommit(0),
            HandSource::OwnCommit(1),
            HandSource::OwnCommit(5),
            HandSource::Branch,
            HandSource::Handover,
        ];
        for pair in order.windows(2) {
            assert!(pair[0].weight() > pair[1].weight(), "{pair:?}");
        }
        assert_eq!(HandSource::Asked.weight(), 1.0);
        assert!((HandSource::OwnCommit(0).weight() - OWN_COMMIT_NEWEST).abs() < 1e-12);
        assert!(HandSource::OwnCommit(1000).weight() >= OWN_COMMIT_FLOOR);
        assert!(HandSource::OwnCommit(1000).weight() > HandSource::Branch.weight());
        // A record about the file being edited outranks one about five files of the
        // branch's older work (the decay keeps breadth from beating strength).
        let edit = Signals {
            paths: vec![PathMatch {
                source: HandSource::Uncommitted,
                ..m("src/edit.rs", PathVia::Reference, PathHow::Exact)
            }],
            ..Signals::default()
        };
        let broad = Signals {
            paths: (0..5)
                .map(|i| PathMatch {
                    query: format!("src/old{i}.rs"),
                    source: HandSource::Branch,
                    ..m("x", PathVia::Reference, PathHow::Exact)
                })
                .collect(),
            ..Signals::default()
        };
        assert!(
            edit.path() > broad.path(),
            "{} {}",
            edit.path(),
            broad.path()
        );
    }

    #[test]
    fn links_count_each_kind_once_by_its_best_weight() {
        let s = Signals {
            links: vec![
                (
                    LinkKind::Task,
                    "t".into(),
                    LinkKind::Task.weight() * HAND_LINK_FACTOR,
                ),
                (LinkKind::Task, "t".into(), LinkKind::Task.weight()),
                (LinkKind::Issue, "i".into(), LinkKind::Issue.weight()),
            ],
            ..Signals::default()
        };
        assert!((s.link() - 3.5).abs() < 1e-12);
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
