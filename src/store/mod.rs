//! Files on disk: layout paths, the one atomic writer, front matter and the ledger.

pub mod atomic;
pub mod frontmatter;
pub mod layout;
pub mod ledger;
pub mod outbox;
pub mod skeleton;

pub use atomic::{WriteOutcome, write_atomic, write_new};
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
}

impl StoreError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_owned(),
            source,
        }
    }
}
