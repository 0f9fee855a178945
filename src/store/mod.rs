//! Files on disk: layout paths, the one atomic writer, front matter, the ledger and its
//! index, the episode state, the knowledge record files and the outbox.

pub mod atomic;
pub mod episode;
pub mod fault;
pub mod frontmatter;
pub mod index;
pub mod layout;
pub mod ledger;
pub mod outbox;
pub mod plan;
pub mod reasoning;
pub mod recall;
pub mod records;
pub mod rules;
pub mod skeleton;
pub mod tasks;

pub use atomic::{WriteOutcome, write_atomic, write_atomic_derived, write_new};
pub use layout::Layout;
pub use ledger::Ledger;

use std::path::{Path, PathBuf};

/// Errors of the file store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error(
        "{path}: unreadable episode state: {message}; `session start --replace` keeps it aside"
    )]
    EpisodeUnreadable { path: String, message: String },
    #[error(
        "{kind} id {} does not have the shape of one (like {example}); it is never made a path",
        crate::model::ids::shown(id)
    )]
    IdShape {
        kind: &'static str,
        id: String,
        example: &'static str,
    },
}

impl StoreError {
    /// Refuses to build a path from `id` unless it has the shape of a `kind` id.
    pub fn check_id(kind: crate::model::ids::IdKind, id: &str) -> Result<(), StoreError> {
        if kind.accepts(id) {
            Ok(())
        } else {
            Err(StoreError::IdShape {
                kind: kind.name(),
                id: id.to_owned(),
                example: kind.example(),
            })
        }
    }

    pub fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// An exclusive lock over the episode state (`.ai/local/state/.lock`): held across every
/// check-then-act on it (opening, closing, resolving) so two processes cannot both act.
/// Released when dropped.
#[derive(Debug)]
pub struct StateLock {
    _file: std::fs::File,
}

impl StateLock {
    pub fn acquire(layout: &Layout) -> Result<StateLock, StoreError> {
        Ok(StateLock {
            _file: lock_file(layout, ".lock")?,
        })
    }
}

/// An exclusive lock over this work tree's knowledge record files (candidates, curated,
/// the outbox: `.ai/local/state/.knowledge.lock`): derive, promote, reject and the outbox
/// drain each look, then write, so two of them at once must not interleave (a derive that
/// looked before a promotion would bring the promoted candidate back). Taken after
/// [`StateLock`] when both are held, never before it. Released when dropped.
#[derive(Debug)]
pub struct KnowledgeLock {
    _file: std::fs::File,
}

impl KnowledgeLock {
    pub fn acquire(layout: &Layout) -> Result<KnowledgeLock, StoreError> {
        Ok(KnowledgeLock {
            _file: lock_file(layout, ".knowledge.lock")?,
        })
    }
}

/// Opens (creating it) `.ai/local/state/<name>` and takes its exclusive lock, waiting.
fn lock_file(layout: &Layout, name: &str) -> Result<std::fs::File, StoreError> {
    let dir = layout.state_dir();
    std::fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
    let path = dir.join(name);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| StoreError::io(&path, e))?;
    file.lock().map_err(|e| StoreError::io(&path, e))?;
    Ok(file)
}

/// 32 hex digits from the system's random source (tokens, keys, request ids).
pub fn random_hex() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        StoreError::io(
            std::path::Path::new("getrandom"),
            std::io::Error::other(e.to_string()),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
