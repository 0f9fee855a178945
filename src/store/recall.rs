//! The recall index on disk (SPEC §11): `.ai/local/state/recall.sqlite`, a SQLite database
//! with an FTS5 table, derived from the memory and never authoritative. This module owns
//! the schema, opening (and rebuilding when the file is missing, of another format or
//! unreadable), and the primitive reads and writes; which sources feed it, and how a hit
//! is ranked, live above (`crate::recall`).
//!
//! SQLite writes the file through its own journal (a transaction is all or nothing, a
//! killed process leaves the previous state), so this is the one derived file not written
//! by [`super::write_atomic_derived`]; a rebuild is built beside it and renamed into place.
//! `synchronous=OFF`: a power cut may leave it corrupt, and then the next read rebuilds it.
//!
//! Here: opening and the transactions. The schema is `schema`; the rows that go in and
//! come out `rows`; the primitive writes `writer` and reads `reader`; beside them, the
//! index of paths (`reach`), BM25 from the postings (`lexical`), the judged bits
//! (`judged`) and the work tree's state (`worktree`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

mod code;
mod judged;
mod lexical;
mod reach;
mod reader;
mod rows;
mod schema;
mod worktree;
mod writer;

pub use crate::model::recall::{ancestors, parent_dir};
pub use code::CODE_TREE;
pub use judged::Judged;
pub use lexical::Lexical;
pub use reach::{Cut, ReachGroup, ReachRow};
pub use reader::Reader;
pub use rows::{Column, DocRow, EpisodeRow, NewDoc, TaskRow, VerifiedAt};
use schema::{SCHEMA, schema_digest};
pub use writer::Writer;

/// The schema's format; a database of another format is rebuilt.
pub const FORMAT: i64 = 10;

/// An index that could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct IndexError {
    pub path: String,
    pub message: String,
}

impl IndexError {
    fn new(path: &Option<PathBuf>, e: impl std::fmt::Display) -> IndexError {
        IndexError {
            path: path
                .as_ref()
                .map_or_else(|| "(in memory)".to_owned(), |p| p.display().to_string()),
            message: e.to_string(),
        }
    }
}

/// Why an index was built anew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fresh {
    /// There was none.
    Missing,
    /// It was of another format.
    Format,
    /// It could not be read.
    Unreadable,
}

/// The recall index: one SQLite connection, on disk or in memory.
#[derive(Debug)]
pub struct RecallDb {
    conn: Connection,
    path: Option<PathBuf>,
    /// A read transaction is held ([`RecallDb::hold`]).
    held: bool,
}

impl RecallDb {
    /// Opens the index at `path`, or builds an empty one there when it is missing, of
    /// another format or unreadable (and says which, with what was found).
    pub fn open(path: &Path) -> Result<(RecallDb, Option<(Fresh, String)>), IndexError> {
        let where_ = Some(path.to_path_buf());
        if path.exists() {
            match Self::open_existing(path) {
                Ok(Some(db)) => return Ok((db, None)),
                Ok(None) => {
                    let db = Self::create(path)?;
                    return Ok((db, Some((Fresh::Format, "of another format".into()))));
                }
                Err(e) => {
                    let db = Self::create(path)?;
                    return Ok((db, Some((Fresh::Unreadable, e.message))));
                }
            }
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| IndexError::new(&where_, e))?;
        }
        let db = Self::create(path)?;
        Ok((db, Some((Fresh::Missing, "no index yet".into()))))
    }

    /// An empty index in memory: what a read uses when the file cannot be written.
    pub fn in_memory() -> Result<RecallDb, IndexError> {
        let conn = Connection::open_in_memory().map_err(|e| IndexError::new(&None, e))?;
        let db = RecallDb {
            conn,
            path: None,
            held: false,
        };
        db.init()?;
        Ok(db)
    }

    /// Where it lives (`None`: in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn err(&self, e: impl std::fmt::Display) -> IndexError {
        IndexError::new(&self.path, e)
    }

    /// The database at `path` when it reads as this format; `None` when it is of another.
    fn open_existing(path: &Path) -> Result<Option<RecallDb>, IndexError> {
        let where_ = Some(path.to_path_buf());
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| IndexError::new(&where_, e))?;
        let db = RecallDb {
            conn,
            path: where_,
            held: false,
        };
        db.configure()?;
        let version: i64 = db
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| db.err(e))?;
        if version != FORMAT {
            return Ok(None);
        }
        // The schema it was built with, by digest: a schema changed without a new FORMAT
        // is another format too (a table a query needs is never missing).
        let schema: Option<String> = db
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| db.err(e))?;
        if schema.as_deref() != Some(schema_digest().as_str()) {
            return Ok(None);
        }
        // A read of tables the schema names proves the file is a database of this schema:
        // one row of each, never a count (a count of `stamps` read its every page, 3,100
        // reads of 4 KiB at 100k records, at every open).
        db.conn
            .query_row(
                "SELECT (SELECT 1 FROM stamps LIMIT 1), (SELECT 1 FROM doc_counts LIMIT 1), (SELECT 1 FROM lens LIMIT 1)",
                [],
                |r| r.get::<_, Option<i64>>(0),
            )
            .map_err(|e| db.err(e))?;
        Ok(Some(db))
    }

    /// A new, empty database at `path`: built beside it and renamed over whatever was
    /// there, so a reader never opens half a schema.
    fn create(path: &Path) -> Result<RecallDb, IndexError> {
        let where_ = Some(path.to_path_buf());
        let name = path.file_name().map_or_else(
            || "recall.sqlite".into(),
            |n| n.to_string_lossy().into_owned(),
        );
        let temp = path.with_file_name(format!(".tmp.{name}.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        {
            let conn = Connection::open(&temp).map_err(|e| IndexError::new(&where_, e))?;
            let db = RecallDb {
                conn,
                path: Some(temp.clone()),
                held: false,
            };
            db.init()?;
        }
        // The journal of a database that was replaced belongs to the old file.
        let _ = std::fs::remove_file(path.with_file_name(format!("{name}-journal")));
        std::fs::rename(&temp, path).map_err(|e| IndexError::new(&where_, e))?;
        let conn = Connection::open(path).map_err(|e| IndexError::new(&where_, e))?;
        let db = RecallDb {
            conn,
            path: where_,
            held: false,
        };
        db.configure()?;
        Ok(db)
    }

    fn configure(&self) -> Result<(), IndexError> {
        self.conn
            .busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| self.err(e))?;
        self.conn
            .execute_batch(
                // A page cache of up to 64 MiB (SQLite's default is 2 MiB): a build of a
                // large ledger touches a dozen indexes per record, and with the default
                // every insert re-read its pages from the file (docs/PERFORMANCE.md).
                // No memory map: measured, a search over 10k records and 1M ledger lines
                // spent 18 % of its time unmapping what it had touched, and a build's
                // resident set grew to the file's size (docs/PERFORMANCE.md).
                "PRAGMA synchronous=OFF; PRAGMA journal_mode=DELETE; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;",
            )
            .map_err(|e| self.err(e))?;
        // Every statement of a build and of a search stays prepared (rusqlite keeps 16).
        self.conn.set_prepared_statement_cache_capacity(64);
        Ok(())
    }

    fn init(&self) -> Result<(), IndexError> {
        self.configure()?;
        self.conn
            .execute_batch(&format!(
                "BEGIN; {SCHEMA} INSERT INTO meta(key, value) VALUES ('schema', '{}'); PRAGMA user_version = {FORMAT}; COMMIT;",
                schema_digest()
            ))
            .map_err(|e| self.err(e))
    }

    /// Runs `f` in one write transaction (taken at once, waiting for another writer):
    /// all of it lands, or none.
    pub fn write<T>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        // A write ends a held read (and holds again after it).
        let held = self.held;
        self.release();
        let out = self.write_now(f);
        if held {
            self.hold();
        }
        out
    }

    fn write_now<T>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| IndexError::new(&path, e))?;
        let writer = Writer {
            conn: &tx,
            path: &path,
            lens: RefCell::new(BTreeMap::new()),
            ranks: RefCell::new(BTreeMap::new()),
        };
        let out = f(&writer)?;
        writer.flush_lens()?;
        writer.flush_ranks()?;
        drop(writer);
        tx.commit().map_err(|e| IndexError::new(&path, e))?;
        Ok(out)
    }

    /// Holds one read transaction until [`RecallDb::release`] (or the next write): the
    /// reads between see one state and share SQLite's page cache and lock, instead of
    /// taking the lock and checking the file anew for every statement.
    pub fn hold(&mut self) {
        if !self.held && self.conn.is_autocommit() && self.conn.execute_batch("BEGIN").is_ok() {
            self.held = true;
        }
    }

    /// Ends the read transaction [`RecallDb::hold`] began.
    pub fn release(&mut self) {
        if self.held {
            let _ = self.conn.execute_batch("COMMIT");
            self.held = false;
        }
    }

    /// A reader over the current state.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            conn: &self.conn,
            path: &self.path,
        }
    }
}

/// The directory part of a scope entry before its first glob character (`src/a/**` →
/// `src/a`), without a trailing slash; the entry itself when it has none.
pub fn literal_prefix(pattern: &str) -> String {
    let cut = pattern
        .find(['*', '?', '[', '{'])
        .map_or(pattern, |i| &pattern[..i]);
    let cut = if cut.len() < pattern.len() {
        cut.rsplit_once('/').map_or("", |(dir, _)| dir)
    } else {
        cut
    };
    cut.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests;
