//! What the last act did, shown once on the page its redirect lands on. The message lives
//! on the server: a POST that promoted or rejected shelves it under a fresh random key and
//! redirects to `/cockpit/review?done=<key>`; the first GET with that key takes it off the
//! shelf. A URL cannot make the cockpit say anything: an unknown key shows nothing, a key
//! shows its message once, and only to the server run (the token) that shelved it.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Messages kept at most; the oldest goes first (a redirect is followed at once, so only
/// acts whose page was never loaded wait here).
const KEEP: usize = 32;

/// What happened, as the act's result said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flash {
    Promoted {
        id: String,
        /// The curated record, relative to the root.
        path: String,
        /// The files to commit, relative to the root (the curated record, and the candidate
        /// file when git tracked it: its removal is part of the change).
        commit: Vec<String>,
        /// What `knowledge check` says about the promoted record.
        warnings: Vec<String>,
        /// Secret shapes taken out of the evidence.
        redacted: Vec<String>,
        /// Set when this act only finished an interrupted promotion.
        resumed: Option<String>,
        /// `(id, title)` of each verified record it superseded in the same act.
        superseded: Vec<(String, String)>,
    },
    Rejected {
        id: String,
        path: String,
        by: Option<String>,
        /// The files to commit (empty when the candidate waits in the outbox, which git
        /// does not see).
        commit: Vec<String>,
    },
    /// Verified records superseded or retired (`knowledge.supersede`, `knowledge.retire`).
    Ended {
        /// `(id, title)` of each.
        records: Vec<(String, String)>,
        /// The record replacing them (none: retired).
        by: Option<String>,
        decided_by: String,
        /// The one command that commits them.
        next: Option<String>,
    },
    /// A verified record re-verified at HEAD (`knowledge.reverify`).
    Reverified {
        id: String,
        path: String,
        head: String,
        was_stale: bool,
    },
    /// A batch review (`knowledge.review`).
    Reviewed {
        /// `(id, title)` of each promoted record.
        promoted: Vec<(String, String)>,
        /// `(id, title, the record it duplicates)` of each rejected one.
        rejected: Vec<(String, String, Option<String>)>,
        /// The commit written: `(id, branch, how many paths)`.
        commit: Option<(String, String, usize)>,
        /// Without a commit: the one command that commits the review.
        next: Option<String>,
        warnings: Vec<String>,
        redacted: Vec<String>,
    },
}

/// One shelved message: its key, the token of the server run that shelved it.
struct Shelved {
    key: String,
    token: String,
    flash: Flash,
}

/// The messages waiting to be shown, oldest first.
struct Shelf(Mutex<VecDeque<Shelved>>);

/// The process's shelf (a process may serve more than one run: the token keeps them apart).
static SHELF: Shelf = Shelf::new();

impl Shelf {
    const fn new() -> Shelf {
        Shelf(Mutex::new(VecDeque::new()))
    }

    fn put(&self, token: &str, flash: Flash) -> String {
        let key = fresh_key();
        let mut shelf = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while shelf.len() >= KEEP {
            shelf.pop_front();
        }
        shelf.push_back(Shelved {
            key: key.clone(),
            token: token.to_owned(),
            flash,
        });
        key
    }

    fn take(&self, token: &str, key: &str) -> Option<Flash> {
        let mut shelf = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = shelf
            .iter()
            .position(|s| s.key == key && s.token == token)?;
        shelf.remove(at).map(|s| s.flash)
    }
}

/// A fresh key: 16 random bytes as hex.
fn fresh_key() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Without randomness, the time keeps keys distinct; a key only says which message
        // to show once, it guards nothing (the token does).
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Shelves `flash` for the server run holding `token`; returns its key.
pub fn put(token: &str, flash: Flash) -> String {
    SHELF.put(token, flash)
}

/// Takes the message shelved under `key` by the server run holding `token`, once.
pub fn take(token: &str, key: &str) -> Option<Flash> {
    SHELF.take(token, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(id: &str) -> Flash {
        Flash::Rejected {
            id: id.to_owned(),
            path: format!("{id}.md"),
            by: None,
            commit: Vec::new(),
        }
    }

    #[test]
    fn a_message_is_taken_once_by_its_own_server_run() {
        let shelf = Shelf::new();
        let key = shelf.put("token-a", rejected("a"));
        assert_eq!(key.len(), 32);
        assert_ne!(shelf.put("token-a", rejected("b")), key, "fresh keys");
        assert_eq!(
            shelf.take("token-b", &key),
            None,
            "another run's key shows nothing"
        );
        assert_eq!(shelf.take("token-a", &key), Some(rejected("a")));
        assert_eq!(shelf.take("token-a", &key), None, "once");
        assert_eq!(shelf.take("token-a", "not-a-key"), None);
    }

    #[test]
    fn the_shelf_keeps_the_newest_messages() {
        let shelf = Shelf::new();
        let first = shelf.put("token-c", rejected("first"));
        let keys: Vec<String> = (0..KEEP)
            .map(|i| shelf.put("token-c", rejected(&i.to_string())))
            .collect();
        assert_eq!(shelf.take("token-c", &first), None, "the oldest went first");
        let last = keys.last().expect("a key");
        assert_eq!(
            shelf.take("token-c", last),
            Some(rejected(&(KEEP - 1).to_string()))
        );
    }
}
