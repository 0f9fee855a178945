//! The journal's pure shapes (SPEC §12): writer ids, the `journal.json` each journal commit
//! carries, segment names, which ledger lines a publish takes, and the journal's errors.

use serde::{Deserialize, Serialize};

/// The format of `journal.json`; a commit of another format is skipped by readers.
pub const FORMAT: u32 = 1;

/// Where this writer's journal lives in the repository (`refs/majordomus/journal/<writer>`).
pub const LOCAL_PREFIX: &str = "refs/majordomus/journal/";

/// Where `git fetch` puts the remote's journals (`refs/majordomus/fetched/<remote>/<writer>`).
pub const FETCHED_PREFIX: &str = "refs/majordomus/fetched/";

/// The rule of a ledger line that still carries a secret shape at publish.
pub const JOURNAL_SECRET: &str = "journal.secret";

/// Length of a writer id: 16 lowercase hex digits.
pub const WRITER_LEN: usize = 16;

/// True when `id` has the shape of a writer id (16 lowercase hex digits): nothing else
/// becomes a ref name or a path.
pub fn is_writer_id(id: &str) -> bool {
    id.len() == WRITER_LEN && id.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// A writer id from 8 random bytes.
pub fn writer_id(bytes: [u8; 8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// This writer's ref.
pub fn local_ref(writer: &str) -> String {
    format!("{LOCAL_PREFIX}{writer}")
}

/// The fetch refspec `journal enable` adds to a remote.
pub fn fetch_refspec(remote: &str) -> String {
    format!("+{LOCAL_PREFIX}*:{FETCHED_PREFIX}{remote}/*")
}

/// A remote name usable in a ref name and a refspec (what `git remote add` accepts, minus
/// anything that would make the refspec or the ref mean something else).
pub fn is_remote_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && !name.starts_with(['-', '.'])
        && !name.contains("..")
        && !name.ends_with(".lock")
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// The most bytes a segment holds (lines are never split: a longer line is a segment of
/// its own). A publish of more writes a chain of commits, one segment each.
pub const SEGMENT_BYTES: usize = 1 << 20;

/// The tree path of the segment whose first line is `first_seq`: the one entry of its
/// commit's tree.
pub fn segment_path(first_seq: u64) -> String {
    format!("{first_seq:012}.jsonl")
}

/// The first seq a segment path names, when it has the shape of one: `<12 digits>.jsonl`,
/// or `segments/<12 digits>.jsonl` (commits published before the segment moved to the
/// tree's root).
pub fn segment_first_seq(path: &str) -> Option<u64> {
    let name = path.strip_prefix("segments/").unwrap_or(path);
    let name = name.strip_suffix(".jsonl")?;
    (name.len() == 12 && name.bytes().all(|c| c.is_ascii_digit()))
        .then(|| name.parse().ok())
        .flatten()
}

/// `journal.json`, in the tree of every journal commit: who wrote it and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JournalMeta {
    pub format: u32,
    /// The writer id (the ref's last component).
    pub writer: String,
    /// The branch the writer's worktree was on at this publish (redacted), if any.
    pub branch: Option<String>,
    /// The segment this commit added (`<first seq>.jsonl`, the tree's one entry; commits
    /// published before that named `segments/<first seq>.jsonl`).
    pub segment: String,
    /// First and last seq of that segment.
    pub segment_first: u64,
    pub segment_last: u64,
    /// Lines in the journal up to this commit (every segment of its chain).
    pub lines: u64,
    /// First and last seq of the whole journal.
    pub first_seq: u64,
    pub last_seq: u64,
    /// The time of the last line (also the commit's time).
    pub last_ts: String,
}

impl JournalMeta {
    /// The bytes written to `journal.json`: pretty JSON and a newline, the same for the
    /// same value.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).expect("journal.json always serialises");
        out.push(b'\n');
        out
    }

    /// Reads `journal.json`, checking its format, its writer and its segment's shape.
    pub fn parse(bytes: &[u8], writer: &str) -> Result<JournalMeta, String> {
        let meta: JournalMeta =
            serde_json::from_slice(bytes).map_err(|e| format!("journal.json: {e}"))?;
        if meta.format != FORMAT {
            return Err(format!(
                "journal.json: format {} (not {FORMAT})",
                meta.format
            ));
        }
        if !is_writer_id(&meta.writer) {
            return Err(format!(
                "journal.json: writer {} is not a writer id (16 hex digits)",
                crate::model::ids::shown(&meta.writer)
            ));
        }
        if meta.writer != writer {
            return Err(format!(
                "journal.json: writer {} on the ref of writer {writer}",
                meta.writer
            ));
        }
        if segment_first_seq(&meta.segment) != Some(meta.segment_first)
            || meta.segment_last < meta.segment_first
        {
            return Err(format!(
                "journal.json: segment {} does not name lines {}..{}",
                crate::model::ids::shown(&meta.segment),
                meta.segment_first,
                meta.segment_last
            ));
        }
        Ok(meta)
    }
}

/// Below this many bytes a text is scanned for secret shapes without the automata (their
/// one-time set-up costs more than a small segment's scan: a publish at close is a few
/// lines).
pub const BULK_SCAN_BYTES: usize = 256 * 1024;

/// The secret shapes `text` carries, scanned the way that is cheaper for its size.
pub fn secret_shapes(text: &str) -> Vec<&'static str> {
    if text.len() < BULK_SCAN_BYTES {
        crate::model::redact::find_shapes(text)
    } else {
        crate::model::redact::find_shapes_bulk(text)
    }
}

/// The `seq` and `ts` of a ledger line, read without the rest.
#[derive(Debug, Clone, Deserialize)]
pub struct LineHead {
    pub seq: u64,
    pub ts: String,
}

impl LineHead {
    /// The head of a raw line (without its newline), when it reads as a ledger line.
    pub fn of(line: &[u8]) -> Option<LineHead> {
        serde_json::from_slice::<crate::model::LedgerLine>(line)
            .ok()
            .map(|l| LineHead {
                seq: l.seq,
                ts: l.ts,
            })
    }
}

/// Why a journal operation said no, or could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("--remote {remote}: no such remote in this clone{}", known_list(known))]
    UnknownRemote { remote: String, known: Vec<String> },
    #[error("--remote {}: not a remote name", crate::model::ids::shown(remote))]
    RemoteName { remote: String },
    #[error(
        "journal: ledger line #{seq} still carries a secret shape ({}); nothing was published",
        shapes.join(", ")
    )]
    Secret {
        seq: u64,
        shapes: Vec<String>,
        ledger: String,
    },
    #[error("journal: sharing is off (policy journal.share, or not enabled in this worktree)")]
    NotEnabled,
    #[error(
        "journal restore: the ledger has {lines} line(s) the journal does not (from #{first_seq}); restoring would drop them (--force keeps them, merged by seq)"
    )]
    RestoreConflict { lines: u64, first_seq: u64 },
    #[error(
        "journal restore: no journal of writer {writer} in this clone (no local ref, no fetched copy; git fetch brings the remote's)"
    )]
    NoJournal { writer: String },
    #[error(
        "--writer {}: not a writer id (16 hex digits)",
        crate::model::ids::shown(id)
    )]
    WriterShape { id: String },
    #[error(
        "{path}: unreadable writer id ({message}); removing it makes a new one at the next publish"
    )]
    WriterUnreadable { path: String, message: String },
    #[error(
        "{path}: unreadable journal state ({message}); remove it and enable again (the journal ref stays)"
    )]
    StateUnreadable { path: String, message: String },
    #[error("journal: {reference} moved while publishing, {attempts} times; nothing was lost")]
    Contended { reference: String, attempts: u32 },
    #[error("journal: {reference}: {message}")]
    Unreadable { reference: String, message: String },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (it has none)".to_owned()
    } else {
        format!(" (known: {})", known.join(", "))
    }
}

impl JournalError {
    /// Refused (a rule said no) or failed (state that cannot be read).
    pub fn refused(&self) -> bool {
        !matches!(
            self,
            JournalError::WriterUnreadable { .. }
                | JournalError::StateUnreadable { .. }
                | JournalError::Contended { .. }
                | JournalError::Unreadable { .. }
        )
    }

    /// A usage error: none. A malformed remote name or writer id is refused like every id
    /// of the wrong shape (SPEC §0, `id.shape`: exit 3, HTTP 409): a request its schema
    /// accepts is never a usage error.
    pub fn usage(&self) -> bool {
        false
    }

    pub fn rule(&self) -> &'static str {
        match self {
            JournalError::UnknownRemote { .. } | JournalError::RemoteName { .. } => {
                "journal.remote"
            }
            JournalError::Secret { .. } => JOURNAL_SECRET,
            JournalError::NotEnabled => "journal.share",
            JournalError::RestoreConflict { .. } => "journal.restore-conflict",
            JournalError::NoJournal { .. } => "journal.known",
            JournalError::WriterShape { .. } => "journal.writer",
            JournalError::WriterUnreadable { .. } => "journal.writer-unreadable",
            JournalError::StateUnreadable { .. } => "journal.state-unreadable",
            JournalError::Contended { .. } => "journal.contended",
            JournalError::Unreadable { .. } => "journal.unreadable",
        }
    }

    pub fn fix(&self) -> Option<String> {
        Some(match self {
            JournalError::UnknownRemote { known, .. } => match known.first() {
                Some(first) => format!("majordomus journal enable --remote {first}"),
                None => "by hand: add the remote the team pushes to (git remote add origin <url>), then run: majordomus journal enable".to_owned(),
            },
            JournalError::RemoteName { .. } => {
                "give --remote the name of a remote (git remote lists them)".to_owned()
            }
            JournalError::Secret { seq, ledger, .. } => format!(
                "by hand: rotate the secret and take it out of line #{seq} of {ledger} (it never left this machine), then run: majordomus journal publish"
            ),
            JournalError::NotEnabled => "majordomus journal enable".to_owned(),
            JournalError::RestoreConflict { .. } => "majordomus journal restore --force".to_owned(),
            JournalError::NoJournal { .. } => "majordomus journal status".to_owned(),
            JournalError::WriterShape { .. } => "majordomus journal status".to_owned(),
            JournalError::WriterUnreadable { path, .. } => {
                format!("rm {}", crate::model::shell::quote(path))
            }
            JournalError::StateUnreadable { path, .. } => format!(
                "rm {} && majordomus journal enable",
                crate::model::shell::quote(path)
            ),
            JournalError::Contended { .. } => "majordomus journal publish".to_owned(),
            JournalError::Unreadable { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_ids_and_segments_are_shape_checked() {
        assert!(is_writer_id("0123456789abcdef"));
        assert!(!is_writer_id("0123456789ABCDEF"));
        assert!(!is_writer_id("../../etc/passwd"));
        assert!(!is_writer_id("0123456789abcde"));
        assert_eq!(writer_id([0, 1, 2, 0xff, 4, 5, 6, 7]), "000102ff04050607");
        assert_eq!(segment_path(42), "000000000042.jsonl");
        assert_eq!(segment_first_seq("000000000042.jsonl"), Some(42));
        assert_eq!(segment_first_seq("segments/000000000042.jsonl"), Some(42));
        assert_eq!(segment_first_seq("other/000000000042.jsonl"), None);
        assert_eq!(
            segment_first_seq("segments/segments/000000000042.jsonl"),
            None
        );
        assert_eq!(segment_first_seq("segments/../x.jsonl"), None);
        assert_eq!(segment_first_seq("segments/42.jsonl"), None);
    }

    #[test]
    fn remote_names_that_would_bend_a_refspec_are_refused() {
        assert!(is_remote_name("origin"));
        assert!(is_remote_name("team-remote_2"));
        for bad in ["", "a b", "a/b", "a:b", "*", "..", "-x", "a.lock"] {
            assert!(!is_remote_name(bad), "{bad}");
        }
        assert_eq!(
            fetch_refspec("origin"),
            "+refs/majordomus/journal/*:refs/majordomus/fetched/origin/*"
        );
    }

    #[test]
    fn journal_json_round_trips_and_checks_its_writer() {
        let meta = JournalMeta {
            format: FORMAT,
            writer: "0123456789abcdef".into(),
            branch: Some("main".into()),
            segment: segment_path(3),
            segment_first: 3,
            segment_last: 5,
            lines: 5,
            first_seq: 1,
            last_seq: 5,
            last_ts: "2026-11-30T10:00:00Z".into(),
        };
        let bytes = meta.to_bytes();
        assert_eq!(
            JournalMeta::parse(&bytes, "0123456789abcdef"),
            Ok(meta.clone())
        );
        assert!(JournalMeta::parse(&bytes, "fedcba9876543210").is_err());
        let forged = JournalMeta {
            writer: "nothex".into(),
            ..meta.clone()
        };
        assert!(JournalMeta::parse(&forged.to_bytes(), "nothex").is_err());
        let bent = JournalMeta {
            segment: "segments/../../x".into(),
            ..meta
        };
        assert!(JournalMeta::parse(&bent.to_bytes(), "0123456789abcdef").is_err());
    }
}
