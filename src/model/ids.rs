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
    fn digest_is_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
