//! The index as the work at hand reads it (SPEC §11): the paths staged against HEAD and
//! each tracked file's stat and blob, outside the memory's own directory. Plain data: read
//! by `git`, kept by the recall index while the index file and HEAD are the same.

/// A tracked file as the index records it: what its copy in the work tree is compared
/// with to tell whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    pub path: String,
    /// Modification time the index saw (seconds, nanoseconds).
    pub secs: i64,
    pub nsecs: i64,
    /// Size the index saw (capped at 4 GiB, as the index keeps it).
    pub size: i64,
    pub ino: i64,
    /// Its blob id in the index.
    pub id: String,
}

/// The index as the work at hand reads it: the paths staged against HEAD and the tracked
/// files (both outside a directory such as `.ai/`).
#[derive(Debug, Clone, Default)]
pub struct IndexState {
    pub staged: Vec<String>,
    pub tracked: Vec<Tracked>,
    /// When the index was written (seconds): a file changed in the same second may look
    /// unchanged by its stat (git's "racy" entries), so such a file is read.
    pub written: i64,
}
