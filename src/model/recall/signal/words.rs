//! Words, a signal (SPEC §11): the query's terms against the record's text, BM25 over the
//! code-aware tokens (`super::super::tokens`), relative to the best match of the query.
//! Why: the query terms the record holds.

use super::{Signals, Why};

/// Lexical relevance of the best lexical match of a query; the others in proportion to
/// their BM25 (so it weighs the same against paths and links in a store of ten records,
/// where BM25 itself is tiny, as in one of a hundred thousand).
pub const LEXICAL_MAX: f64 = 3.0;

impl Signals {
    pub fn lexical(&self) -> f64 {
        if self.bm25 <= 0.0 || self.bm25_top <= 0.0 {
            return 0.0;
        }
        LEXICAL_MAX * (self.bm25 / self.bm25_top).min(1.0)
    }

    /// Why it ranked by words: the query terms it holds, in the query's order.
    pub fn lexical_why(&self) -> Option<Why> {
        (!self.terms.is_empty()).then(|| Why {
            signal: "terms",
            detail: self.terms.join(", "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
