//! What reads judged of verified records at one HEAD tree (stale or fresh), one bit a
//! document each: a search bounds what a word's match it did not read could still score
//! (a stale record scores at most the stale factor of a verified one) without reading it.

use rusqlite::{OptionalExtension, params};

use super::{IndexError, Reader, Writer};

/// The judgements kept for one tree: which documents are known, and which of those are
/// stale.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judged {
    pub tree: String,
    known: Vec<u8>,
    stale: Vec<u8>,
}

fn bit(bits: &[u8], id: i64) -> bool {
    usize::try_from(id)
        .ok()
        .and_then(|i| bits.get(i / 8).map(|b| b & (1 << (i % 8)) != 0))
        .unwrap_or(false)
}

fn set(bits: &mut Vec<u8>, id: i64, on: bool) {
    let Ok(i) = usize::try_from(id) else {
        return;
    };
    if bits.len() <= i / 8 {
        bits.resize(i / 8 + 1, 0);
    }
    if on {
        bits[i / 8] |= 1 << (i % 8);
    } else {
        bits[i / 8] &= !(1 << (i % 8));
    }
}

impl Judged {
    /// Nothing known yet at `tree`.
    pub fn empty(tree: &str) -> Judged {
        Judged {
            tree: tree.to_owned(),
            ..Judged::default()
        }
    }

    /// `Some(stale)` when document `id` was judged at this tree.
    pub fn of(&self, id: i64) -> Option<bool> {
        bit(&self.known, id).then(|| bit(&self.stale, id))
    }

    /// Notes a judgement; true when it is news.
    pub fn note(&mut self, id: i64, stale: bool) -> bool {
        if self.of(id) == Some(stale) {
            return false;
        }
        set(&mut self.known, id, true);
        set(&mut self.stale, id, stale);
        true
    }
}

impl Reader<'_> {
    /// The judgements kept for `tree` (none kept: empty).
    pub fn judged(&self, tree: &str) -> Result<Judged, IndexError> {
        let row: Option<(Vec<u8>, Vec<u8>)> = self
            .conn
            .prepare_cached("SELECT known, stale FROM judged WHERE tree = ?1")
            .and_then(|mut s| {
                s.query_row(params![tree], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(|e| self.err(e))?;
        Ok(match row {
            Some((known, stale)) => Judged {
                tree: tree.to_owned(),
                known,
                stale,
            },
            None => Judged::empty(tree),
        })
    }
}

impl Writer<'_> {
    /// Keeps `judged` as the judgements of its tree, in place of any other tree's.
    pub fn set_judged(&self, judged: &Judged) -> Result<(), IndexError> {
        self.conn
            .prepare_cached("DELETE FROM judged WHERE tree != ?1")
            .and_then(|mut s| s.execute(params![judged.tree]))
            .map_err(|e| self.err(e))?;
        self.conn
            .prepare_cached(
                "INSERT INTO judged(tree, known, stale) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(tree) DO UPDATE SET known = excluded.known, stale = excluded.stale",
            )
            .and_then(|mut s| s.execute(params![judged.tree, judged.known, judged.stale]))
            .map(drop)
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judgement_is_kept_by_id_and_news_is_told() {
        let mut j = Judged::empty("t");
        assert_eq!(j.of(17), None);
        assert!(j.note(17, true));
        assert!(!j.note(17, true));
        assert_eq!(j.of(17), Some(true));
        assert!(j.note(17, false));
        assert_eq!(j.of(17), Some(false));
        assert!(j.note(3, false));
        assert_eq!(j.of(3), Some(false));
        assert_eq!(j.of(16), None);
        assert_eq!(j.of(-1), None);
    }
}
