//! Identifiers: episode ids, question ids, content digests.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// Lower-case hex of sha256 over `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// JSON with every object's keys sorted, whatever map order serde_json was built with:
/// the bytes hashed into content ids.
pub fn canonical_json(value: &serde_json::Value) -> Vec<u8> {
    fn sorted(value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => {
                let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                serde_json::Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sorted(v)))
                        .collect(),
                )
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(sorted).collect())
            }
            other => other.clone(),
        }
    }
    serde_json::to_vec(&sorted(value)).expect("json values serialise")
}

/// `YYYYMMDDTHHMMSSZ-<6 hex>`; the hex comes from `entropy` so two episodes opened in the
/// same second (two worktrees, two providers) still get distinct ids.
pub fn episode_id(opened: OffsetDateTime, entropy: &[u8]) -> String {
    let stamp = super::time::stamp(opened);
    let mut seed = stamp.clone().into_bytes();
    seed.extend_from_slice(entropy);
    format!("{stamp}-{}", &sha256_hex(&seed)[..6])
}

/// True when `text` has the shape of an episode id.
pub fn is_episode_id(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 23
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'-'
        && b[17..]
            .iter()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// The kinds of id that become part of a file name (SPEC §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// `YYYYMMDDTHHMMSSZ-<6 hex>`.
    Episode,
    /// `q-<10 hex>`.
    Question,
    /// `t-YYYYMMDD-<4 hex>`.
    Task,
    /// `<episode id>-<12 hex>` (candidates and curated records).
    Knowledge,
    /// `<kind>-<12 hex>` (reasoning records).
    Reasoning,
}

impl IdKind {
    pub fn name(self) -> &'static str {
        match self {
            IdKind::Episode => "episode",
            IdKind::Question => "question",
            IdKind::Task => "task",
            IdKind::Knowledge => "knowledge",
            IdKind::Reasoning => "reasoning record",
        }
    }

    /// What a well-formed id of this kind looks like, for messages.
    pub fn example(self) -> &'static str {
        match self {
            IdKind::Episode => "20261130T101500Z-1a2b3c",
            IdKind::Question => "q-1a2b3c4d5e",
            IdKind::Task => "t-20261130-1a2b",
            IdKind::Knowledge => "20261130T101500Z-1a2b3c-0123456789ab",
            IdKind::Reasoning => "assessment-0123456789ab",
        }
    }

    /// True when `id` has this kind's shape; nothing else may become a path.
    pub fn accepts(self, id: &str) -> bool {
        let hex = |s: &str, n: usize| {
            s.len() == n && s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        };
        // Every shape is ASCII; checking first keeps the byte slicing below on char
        // boundaries.
        if !id.is_ascii() {
            return false;
        }
        match self {
            IdKind::Episode => is_episode_id(id),
            IdKind::Question => id.strip_prefix("q-").is_some_and(|h| hex(h, 10)),
            IdKind::Task => id.strip_prefix("t-").is_some_and(|rest| {
                rest.len() == 13
                    && rest[..8].bytes().all(|c| c.is_ascii_digit())
                    && rest.as_bytes()[8] == b'-'
                    && hex(&rest[9..], 4)
            }),
            IdKind::Knowledge => {
                id.len() == 23 + 13
                    && is_episode_id(&id[..23])
                    && id.as_bytes()[23] == b'-'
                    && hex(&id[24..], 12)
            }
            IdKind::Reasoning => id.rsplit_once('-').is_some_and(|(kind, digest)| {
                !kind.is_empty() && kind.bytes().all(|c| c.is_ascii_lowercase()) && hex(digest, 12)
            }),
        }
    }
}

/// An id as a message shows it: quoted and escaped, and cut after 64 characters so a
/// hostile id cannot flood the one error line.
pub fn shown(id: &str) -> String {
    const SHOWN: usize = 64;
    let count = id.chars().count();
    if count <= SHOWN {
        format!("{id:?}")
    } else {
        let head: String = id.chars().take(SHOWN).collect();
        format!("{head:?}… ({count} characters)")
    }
}

/// An id as written when it is short and printable, else as [`shown`] shows it.
pub fn shown_plain(id: &str) -> String {
    if id.chars().count() <= 64 && !id.chars().any(char::is_control) {
        id.to_owned()
    } else {
        shown(id)
    }
}

/// `q-<10 hex>` over the asking episode, a nonce (the asking time) and the text.
pub fn question_id(session: Option<&str>, nonce: &str, text: &str) -> String {
    let seed = format!("{}\n{nonce}\n{text}", session.unwrap_or("-"));
    format!("q-{}", &sha256_hex(seed.as_bytes())[..10])
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn episode_ids_have_the_spec_shape() {
        let id = episode_id(datetime!(2026-11-30 17:48:47 UTC), b"worktree-a");
        assert!(id.starts_with("20261130T174847Z-"), "{id}");
        assert!(is_episode_id(&id), "{id}");
        let other = episode_id(datetime!(2026-11-30 17:48:47 UTC), b"worktree-b");
        assert_ne!(id, other);
        assert!(!is_episode_id("20261130T174847Z"));
        assert!(!is_episode_id("20261130T174847Z-ABCDEF"));
    }

    #[test]
    fn question_ids_are_stable() {
        assert_eq!(
            question_id(Some("e"), "1", "why?"),
            question_id(Some("e"), "1", "why?")
        );
        assert_ne!(
            question_id(Some("e"), "1", "why?"),
            question_id(Some("e"), "2", "why?")
        );
        assert_eq!(question_id(None, "1", "x").len(), 12);
    }

    #[test]
    fn ids_that_become_paths_are_checked_by_shape() {
        let ep = "20261130T101500Z-1a2b3c";
        assert!(IdKind::Episode.accepts(ep));
        assert!(IdKind::Knowledge.accepts(&format!("{ep}-0123456789ab")));
        assert!(IdKind::Question.accepts("q-0123456789"));
        assert!(IdKind::Task.accepts("t-20261130-1a2b"));
        assert!(IdKind::Reasoning.accepts("assessment-0123456789ab"));
        for kind in [
            IdKind::Episode,
            IdKind::Knowledge,
            IdKind::Question,
            IdKind::Task,
            IdKind::Reasoning,
        ] {
            assert!(kind.accepts(kind.example()), "{kind:?}");
            for bad in [
                "",
                "..",
                "../../../../tmp/x",
                "a/b",
                "a\\b",
                "x\0y",
                "none",
                "20261130T101500Z-1a2b3ç",
                "t-20261130-1a2b/..",
                "20261130T101500Z-1a2b3c-0123456789aé",
                "t-2026113é-1a2b",
            ] {
                assert!(!kind.accepts(bad), "{kind:?} accepted {bad:?}");
            }
        }
    }

    #[test]
    fn digest_is_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
