//! The signals that rank one record (SPEC §11) and the one scorer that combines them:
//! words, paths and links add up to its relevance, the work at hand weighs the paths and
//! links it brought, and status scales the sum. Each signal is a file holding its weights,
//! its value (`impl Signals`) and the `why` it contributes; a new signal is a new file, its
//! inputs in [`Signals`], and a line in [`Signals::relevance`] and [`Signals::why`] (and,
//! when it can lift a record the search did not read, its share of the search's bound:
//! `recall::search::bound`). The score is kept in millionths so the same store gives the
//! same order on any machine.

pub mod code;
mod hand;
pub mod history;
mod links;
mod paths;
mod words;

pub use hand::{
    HAND_LINK_FACTOR, HandSource, OWN_COMMIT_DECAY, OWN_COMMIT_FLOOR, OWN_COMMIT_NEWEST,
};
pub use links::LinkKind;
pub use paths::{
    DIR_FREE, PATH_DECAY, PathHow, PathMatch, PathVia, SPREAD_FREE, ancestors, decayed_sum,
    dir_damping, parent_dir, spread_damping,
};
pub use words::LEXICAL_MAX;

use super::status::HitStatus;

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

/// One reason a record ranked, as a hit's `why` says it: the signal (`terms`, `path`,
/// `task`, `issue`, `intent`) and what it found, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    pub signal: &'static str,
    pub detail: String,
}

impl Signals {
    /// Lexical + path + link relevance, before status.
    pub fn relevance(&self) -> f64 {
        self.lexical() + self.path() + self.link()
    }

    /// Why the record ranked, signal by signal in the order they add up (its status is
    /// the hit's to say).
    pub fn why(&self) -> Vec<Why> {
        let mut out = Vec::new();
        out.extend(self.lexical_why());
        out.extend(self.path_why());
        out.extend(self.link_why());
        out
    }
}

/// The score of a record: relevance × its status's factor, in millionths (rounded, so a
/// last-bit difference in floating point never reorders two records).
pub fn score(signals: &Signals, status: HitStatus) -> i64 {
    (signals.relevance() * status.factor() * 1e6).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn m(query: &str, via: PathVia, how: PathHow) -> PathMatch {
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
}
