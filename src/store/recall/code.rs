//! The identifiers of the source files committed at HEAD (`model::recall::signal::code`):
//! which files hold a term, the files read and their blobs, and their replacement when a
//! new HEAD changed some.

use std::collections::HashMap;

use rusqlite::params;

use super::{IndexError, Reader, Writer};

/// The meta key holding the tree whose source files `code_terms` holds.
pub const CODE_TREE: &str = "code.tree";

impl Reader<'_> {
    /// Whether some source file holds `term` as an identifier.
    pub fn code_holds(&self, term: &str) -> Result<bool, IndexError> {
        self.conn
            .prepare_cached("SELECT 1 FROM code_terms WHERE term = ?1 LIMIT 1")
            .and_then(|mut s| s.exists(params![term]))
            .map_err(|e| self.err(e))
    }

    /// Each source file read, with the blob it was read at.
    pub fn code_files(&self) -> Result<HashMap<String, String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, blob FROM code_files")
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }
}

impl Writer<'_> {
    /// Forgets what `path` held.
    pub fn delete_code_file(&self, path: &str) -> Result<(), IndexError> {
        for sql in [
            "DELETE FROM code_terms WHERE path = ?1",
            "DELETE FROM code_files WHERE path = ?1",
        ] {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(params![path]))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// `path`, read at `blob`, holds `terms` (what it held before is forgotten).
    pub fn set_code_file<'t>(
        &self,
        path: &str,
        blob: &str,
        terms: impl IntoIterator<Item = &'t String>,
    ) -> Result<(), IndexError> {
        self.delete_code_file(path)?;
        self.conn
            .prepare_cached("INSERT INTO code_files(path, blob) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![path, blob]))
            .map_err(|e| self.err(e))?;
        let mut insert = self
            .conn
            .prepare_cached("INSERT OR IGNORE INTO code_terms(term, path) VALUES (?1, ?2)")
            .map_err(|e| self.err(e))?;
        for term in terms {
            insert
                .execute(params![term, path])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
