//! Lexical scoring of the recall index: every document's length (`lens`) and FTS5's BM25
//! computed from a query's postings, bit for bit as FTS5's `bm25(fts, 2.0, 1.0)` computes
//! it (docs/RECALL.md, "How a query is scored").

use std::collections::BinaryHeap;

/// Documents one `lens` row holds.
pub(super) const LENS_CHUNK: usize = 4096;

/// BM25's weights of the head and the body (FTS5's `bm25(fts, 2.0, 1.0, 0.0)`: a record's
/// claim), and its parameters (FTS5's, fixed there). The evidence column is weighed apart
/// (`bm25(fts, 0.0, 0.0, 1.0)`) and ranks below every claim ([`EVIDENCE_BELOW`]).
pub(super) const HEAD_WEIGHT: f64 = 2.0;
pub(super) const BODY_WEIGHT: f64 = 1.0;
/// A record matched by its evidence alone scores at most this share of the weakest record
/// whose claim matches: what only the evidence holds never ranks a record above one whose
/// own claim holds it (a batch's one evidence text names what the records are not about).
/// With no claim matching at all, the evidence is ranked by itself.
pub const EVIDENCE_BELOW: f64 = 0.5;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// The `lens` row and byte offset of document `id`'s entry.
pub(super) fn lens_place(id: i64) -> (i64, usize) {
    let id = u64::try_from(id).unwrap_or(0);
    let chunk = LENS_CHUNK as u64;
    (
        i64::try_from(id / chunk).unwrap_or(i64::MAX),
        usize::try_from(id % chunk).unwrap_or(0) * 2,
    )
}

/// A document's `lens` entry: its tokens + 1 (a length past 65,534 tokens counts as
/// 65,534, where BM25's length normalisation has long flattened).
pub(super) fn len_entry(tokens: usize) -> u16 {
    u16::try_from(tokens.min(usize::from(u16::MAX) - 1) + 1).unwrap_or(u16::MAX)
}

/// Every document's length, as `lens` holds them: one entry per id, flat.
pub(super) struct Lens {
    entries: Vec<u16>,
    /// Documents, and their average length in tokens.
    docs: u64,
    average: f64,
}

impl Lens {
    pub(super) fn of(chunks: Vec<(i64, Vec<u8>)>) -> Lens {
        let last = chunks.iter().map(|(c, _)| *c).max().unwrap_or(-1);
        let size = usize::try_from(last + 1).unwrap_or(0) * LENS_CHUNK;
        let mut entries = vec![0u16; size];
        let (mut docs, mut tokens) = (0u64, 0u64);
        for (chunk, data) in chunks {
            let Ok(start) = usize::try_from(chunk) else {
                continue;
            };
            let start = start * LENS_CHUNK;
            for (i, pair) in data.chunks_exact(2).take(LENS_CHUNK).enumerate() {
                let entry = u16::from_le_bytes([pair[0], pair[1]]);
                entries[start + i] = entry;
                if entry > 0 {
                    docs += 1;
                    tokens += u64::from(entry - 1);
                }
            }
        }
        let average = if docs == 0 {
            0.0
        } else {
            tokens as f64 / docs as f64
        };
        Lens {
            entries,
            docs,
            average,
        }
    }

    /// Document `id`'s length in tokens, when there is such a document.
    pub(super) fn tokens(&self, id: i64) -> Option<u64> {
        let entry = *self.entries.get(usize::try_from(id).ok()?)?;
        (entry > 0).then(|| u64::from(entry - 1))
    }
}

/// The column of the index a posting is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Col {
    Head,
    Body,
    Evidence,
}

/// One term's weighted count in each document — in its claim (head and body) and in its
/// evidence — built from its postings (one per occurrence) as they are read.
#[derive(Debug, Default)]
pub(super) struct TermCounts {
    docs: Vec<(i64, f64, f64)>,
}

impl TermCounts {
    pub(super) fn add(&mut self, doc: i64, col: Col) {
        let (claim, evidence) = match col {
            Col::Head => (HEAD_WEIGHT, 0.0),
            Col::Body => (BODY_WEIGHT, 0.0),
            Col::Evidence => (0.0, 1.0),
        };
        match self.docs.last_mut() {
            Some((last, c, e)) if *last == doc => {
                *c += claim;
                *e += evidence;
            }
            _ => self.docs.push((doc, claim, evidence)),
        }
    }

    /// The counts by document (FTS5 gives a term's postings in document order; any other
    /// order is sorted and merged); documents `lens` does not hold are no match.
    pub(super) fn finish(mut self, lens: &Lens) -> Vec<(i64, f64, f64)> {
        if !self.docs.is_sorted_by_key(|&(doc, _, _)| doc) {
            self.docs.sort_by_key(|&(doc, _, _)| doc);
            self.docs.dedup_by(|later, earlier| {
                if later.0 == earlier.0 {
                    earlier.1 += later.1;
                    earlier.2 += later.2;
                    true
                } else {
                    false
                }
            });
        }
        self.docs.retain(|&(doc, _, _)| lens.tokens(doc).is_some());
        self.docs
    }
}

/// For `dedup_by` over `(doc, value)` sorted by doc: a later entry of the same document
/// is added to the earlier one (so values are summed in their order).
fn merge_into_earlier(later: &mut (i64, f64), earlier: &mut (i64, f64)) -> bool {
    if later.0 == earlier.0 {
        earlier.1 += later.1;
        true
    } else {
        false
    }
}

/// A match in the order of a ranking: the better is the lesser (higher BM25, then the
/// lower id), so a max-heap's top is the worst it holds.
#[derive(Debug, Clone, Copy)]
struct Ranked((i64, f64));

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let ((id, score), (their_id, their_score)) = (self.0, other.0);
        their_score.total_cmp(&score).then(id.cmp(&their_id))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

/// The documents matching a search's terms, with their BM25.
#[derive(Debug, Clone, Default)]
pub struct Lexical {
    /// By id.
    by_id: Vec<(i64, f64)>,
    /// The best BM25 of every match, once some were left out ([`Lexical::leave_out`]).
    best_of_all: Option<f64>,
    /// The terms searched for that no document holds.
    pub absent: Vec<String>,
}

impl Lexical {
    /// FTS5's BM25 (`fts5Bm25Function`) of a claim: for each term, its IDF (at least
    /// 1e-6) times its saturated, length-normalised weighted count in the head and body,
    /// summed in the terms' order — bit for bit `bm25(fts, 2.0, 1.0, 0.0)`. A document
    /// whose claim holds none of the terms and whose evidence does scores its evidence's
    /// BM25 (`bm25(fts, 0.0, 0.0, 1.0)`) scaled below the weakest claim that matches
    /// ([`EVIDENCE_BELOW`]); with no claim matching, its evidence's BM25 as it is.
    pub(super) fn rank(lens: &Lens, postings: &[Vec<(i64, f64, f64)>]) -> Lexical {
        let claim = Lexical::column(lens, postings, |&(doc, c, _)| (doc, c));
        let evidence = Lexical::column(lens, postings, |&(doc, _, e)| (doc, e));
        let weakest = claim
            .iter()
            .map(|&(_, s)| s)
            .filter(|s| *s > 0.0)
            .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.min(s))));
        let strongest = evidence.iter().map(|&(_, s)| s).fold(0.0, f64::max);
        let mut by_id = Vec::with_capacity(claim.len());
        let mut e = evidence.iter().peekable();
        for &(doc, c) in &claim {
            let mut ev = 0.0;
            while let Some(&&(d, s)) = e.peek() {
                if d > doc {
                    break;
                }
                e.next();
                if d == doc {
                    ev = s;
                }
            }
            let score = if c > 0.0 {
                c
            } else {
                match weakest {
                    Some(w) if strongest > 0.0 => EVIDENCE_BELOW * w * ev / strongest,
                    _ => ev,
                }
            };
            if score > 0.0 {
                by_id.push((doc, score));
            }
        }
        Lexical {
            by_id,
            best_of_all: None,
            absent: Vec::new(),
        }
    }

    /// One column group's BM25 of every document in `postings` (0 where the group holds
    /// none of the terms), by document: `count` picks a posting's weighted count. A term's
    /// IDF counts every document matching it anywhere, as FTS5's does.
    fn column(
        lens: &Lens,
        postings: &[Vec<(i64, f64, f64)>],
        count: impl Fn(&(i64, f64, f64)) -> (i64, f64),
    ) -> Vec<(i64, f64)> {
        let n = lens.docs as f64;
        let mut parts: Vec<(i64, f64)> = Vec::with_capacity(postings.iter().map(Vec::len).sum());
        for docs in postings {
            let hits = docs.len() as f64;
            let idf = ((n - hits + 0.5) / (hits + 0.5)).ln();
            let idf = if idf <= 0.0 { 1e-6 } else { idf };
            for posting in docs {
                let (doc, f) = count(posting);
                let length = lens.tokens(doc).unwrap_or(0) as f64;
                let norm = if lens.average > 0.0 {
                    1.0 - BM25_B + BM25_B * length / lens.average
                } else {
                    1.0
                };
                // Associated as FTS5 does: the same store gives the same bits.
                parts.push((doc, idf * ((f * (BM25_K1 + 1.0)) / (f + BM25_K1 * norm))));
            }
        }
        // A stable sort by document keeps each document's parts in the terms' order, and
        // they are summed in it (as FTS5 sums, from 0.0: the first part is the sum so far).
        // One term's parts are in document order already.
        if !parts.is_sorted_by_key(|&(doc, _)| doc) {
            parts.sort_by_key(|&(doc, _)| doc);
        }
        parts.dedup_by(merge_into_earlier);
        parts
    }

    /// The best `limit`, best first, ties by id: kept in a heap of `limit` while the
    /// matches are walked once, so no copy of every match is sorted.
    pub fn top(&self, limit: usize) -> Vec<(i64, f64)> {
        if limit >= self.by_id.len() {
            let mut all = self.by_id.clone();
            all.sort_unstable_by_key(|&hit| Ranked(hit));
            return all;
        }
        let mut best: BinaryHeap<Ranked> = BinaryHeap::with_capacity(limit + 1);
        for &hit in &self.by_id {
            if best.len() < limit {
                best.push(Ranked(hit));
            } else if best.peek().is_some_and(|worst| Ranked(hit) < *worst) {
                best.pop();
                best.push(Ranked(hit));
            }
        }
        best.into_sorted_vec().into_iter().map(|r| r.0).collect()
    }

    /// The best `limit` by what each could score at most — its BM25 times `cap(id)` (its
    /// status factor at best, relative to a verified record's) — best first, ties by id:
    /// `(id, BM25, capped)`.
    pub fn top_capped(&self, limit: usize, cap: impl Fn(i64) -> f64) -> Vec<(i64, f64, f64)> {
        let capped = Lexical {
            by_id: self
                .by_id
                .iter()
                .map(|&(id, bm25)| (id, bm25 * cap(id)))
                .collect(),
            best_of_all: None,
            absent: Vec::new(),
        };
        capped
            .top(limit)
            .into_iter()
            .map(|(id, c)| (id, self.of(id).unwrap_or(0.0), c))
            .collect()
    }

    /// The best BM25 of every match (0 with none), those left out included.
    pub fn best(&self) -> f64 {
        self.best_of_all
            .unwrap_or_else(|| self.by_id.iter().map(|&(_, b)| b).fold(0.0, f64::max))
    }

    /// Leaves the documents `ids` out (records a session was shown already): they are
    /// neither pooled nor counted, while relevance stays relative to the best match of the
    /// query, theirs included.
    /// Returns the matches left out.
    pub fn leave_out(&mut self, ids: &std::collections::HashSet<i64>) -> Vec<i64> {
        if ids.is_empty() {
            return Vec::new();
        }
        let best = self.best();
        let mut out = Vec::new();
        self.by_id.retain(|&(id, _)| {
            let kept = !ids.contains(&id);
            if !kept {
                out.push(id);
            }
            kept
        });
        self.best_of_all = Some(best);
        out
    }

    /// How many documents match.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The BM25 of document `id`, when it matches.
    pub fn of(&self, id: i64) -> Option<f64> {
        self.by_id
            .binary_search_by_key(&id, |&(doc, _)| doc)
            .ok()
            .map(|i| self.by_id[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terms_postings_are_weighed_by_document_in_any_order_and_unknown_ones_dropped() {
        // Documents 1 and 3 of lengths 4 and 9; 2 has no entry (deleted).
        let mut chunk = vec![0u8; LENS_CHUNK * 2];
        for (id, tokens) in [(1usize, 4usize), (3, 9)] {
            chunk[id * 2..id * 2 + 2].copy_from_slice(&len_entry(tokens).to_le_bytes());
        }
        let lens = Lens::of(vec![(0, chunk)]);
        assert_eq!((lens.docs, lens.average), (2, 6.5));
        let mut counts = TermCounts::default();
        for (doc, col) in [
            (3, Col::Body),
            (1, Col::Head),
            (2, Col::Head),
            (3, Col::Head),
            (1, Col::Body),
            (3, Col::Evidence),
        ] {
            counts.add(doc, col);
        }
        assert_eq!(
            counts.finish(&lens),
            [
                (1, HEAD_WEIGHT + BODY_WEIGHT, 0.0),
                (3, BODY_WEIGHT + HEAD_WEIGHT, 1.0)
            ]
        );
        // The best k of a ranking are its first k, ties by id.
        let ranked = Lexical::rank(
            &lens,
            &[vec![(1, 1.0, 0.0), (3, 1.0, 0.0)], vec![(1, 1.0, 0.0)]],
        );
        assert_eq!(ranked.len(), 2);
        assert_eq!(ranked.top(1)[0].0, 1, "the document with both terms");
        assert_eq!(ranked.top(0), []);
        assert!(ranked.of(2).is_none());

        // Left out (records a session was shown): neither pooled nor counted, and the best
        // match stays the measure of relevance.
        let best = ranked.best();
        let mut left = ranked.clone();
        let out = left.leave_out(&[1].into_iter().collect());
        assert_eq!(out, [1]);
        assert_eq!(left.len(), 1);
        assert_eq!(left.top(5)[0].0, 3);
        assert!(left.of(1).is_none());
        assert_eq!(
            left.best(),
            best,
            "relative to the best match, left out or not"
        );
        assert!(left.best() > left.of(3).expect("3 matches"));
        // Leaving nothing out changes nothing.
        let mut same = ranked.clone();
        assert!(same.leave_out(&std::collections::HashSet::new()).is_empty());
        assert_eq!(same.len(), 2);
    }

    #[test]
    fn evidence_alone_ranks_below_every_claim_and_by_itself_when_no_claim_matches() {
        // Document 1's claim holds the term once, in a long body; 3's evidence holds it
        // three times in a short record: its evidence alone still ranks below 1.
        let mut chunk = vec![0u8; LENS_CHUNK * 2];
        for (id, tokens) in [(1usize, 60usize), (3, 4), (5, 4)] {
            chunk[id * 2..id * 2 + 2].copy_from_slice(&len_entry(tokens).to_le_bytes());
        }
        let lens = Lens::of(vec![(0, chunk)]);
        let ranked = Lexical::rank(&lens, &[vec![(1, 1.0, 0.0), (3, 0.0, 3.0), (5, 0.0, 1.0)]]);
        let (claim, three, five) = (
            ranked.of(1).expect("1"),
            ranked.of(3).expect("3"),
            ranked.of(5).expect("5"),
        );
        assert!(three <= EVIDENCE_BELOW * claim, "{three} against {claim}");
        assert!(
            five < three,
            "more evidence, more weight, still below the claim"
        );
        assert_eq!(ranked.best(), claim);
        // With no claim matching, the evidence is what there is: ranked by itself.
        let alone = Lexical::rank(&lens, &[vec![(3, 0.0, 3.0), (5, 0.0, 1.0)]]);
        assert!(alone.of(3).expect("3") > alone.of(5).expect("5"));
        assert_eq!(alone.best(), alone.of(3).expect("3"));
    }
}
