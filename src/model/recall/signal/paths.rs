//! Paths, a signal (SPEC §11): a record reaches files through its own references, its
//! episode's changed files and its task's scope; for each path asked about (or at hand)
//! the best way it reaches it counts — how it reaches it, how close, what a directory
//! between them leaves, times where the path came from (`super::hand`) — and those add
//! best first, each further one at [`PATH_DECAY`] of the one before. Why: each path's best
//! match, in words.

use schemars::JsonSchema;
use serde::Serialize;

use super::hand::HandSource;
use super::{Signals, Why};

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

    /// Why a record reached a path, in words: how, where the path came from (the work at
    /// hand), and, where a directory stands between them, what that left of the weight.
    pub fn said(&self) -> String {
        let mut out = match (self.via, self.how) {
            (PathVia::Reference, PathHow::Exact) => format!("{} (it cites it", self.query),
            (PathVia::Reference, PathHow::Prefix) => {
                format!("{} (it cites {}", self.query, self.path)
            }
            (PathVia::Reference, PathHow::Near) => {
                format!("near {} (it cites {}", self.query, self.path)
            }
            (PathVia::Episode, PathHow::Exact) => {
                format!("{} (its episode changed it", self.query)
            }
            (PathVia::Episode, PathHow::Prefix) => {
                format!("{} (its episode changed {}", self.query, self.path)
            }
            (PathVia::Episode, PathHow::Near) => {
                format!("near {} (its episode changed {}", self.query, self.path)
            }
            (PathVia::Scope, PathHow::Near) => {
                format!("near {} (its task's scope {}", self.query, self.path)
            }
            (PathVia::Scope, _) => format!("{} (its task's scope {}", self.query, self.path),
        };
        if self.dir_files > DIR_FREE {
            let dir = match self.how {
                PathHow::Near => parent_dir(&self.query),
                _ => self.path.as_str(),
            };
            let dir = if dir.is_empty() {
                "the repository"
            } else {
                dir
            };
            let files = if self.dir_files >= 10_000 {
                "10,000 or more".to_owned()
            } else {
                self.dir_files.to_string()
            };
            out.push_str(&format!(
                "; {dir} holds {files} files: weight ×{:.2}",
                dir_damping(self.dir_files)
            ));
        }
        if self.source != HandSource::Asked {
            out.push_str(&format!("; {}", self.source.said()));
        }
        out.push(')');
        out
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

impl Signals {
    /// For each path asked about, the best way the record reaches it (times the weight of
    /// where that path came from); those added best first, each further one at
    /// [`PATH_DECAY`] of the one before.
    pub fn path(&self) -> f64 {
        let mut values: Vec<f64> = self.best_paths().iter().map(|m| m.value()).collect();
        values.sort_by(|a, b| b.total_cmp(a));
        decayed_sum(&values)
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

    /// Why it ranked by paths: each path asked about that it reaches, by its best match.
    pub fn path_why(&self) -> Vec<Why> {
        self.best_paths()
            .into_iter()
            .map(|m| Why {
                signal: "path",
                detail: m.said(),
            })
            .collect()
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

/// The directory a path lies in (`""` at the root).
pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// A path's directories, nearest first (`a/b/c.rs` → `a/b`, `a`).
pub fn ancestors(path: &str) -> Vec<&str> {
    path.match_indices('/')
        .map(|(i, _)| &path[..i])
        .rev()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::m;
    use super::*;

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
}
