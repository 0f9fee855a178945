//! The index as the work at hand last read it, kept in the recall index while the index
//! file and HEAD's tree are what they were (`meta` `worktree.key`): see
//! [`crate::model::worktree`].

use rusqlite::params;

use super::{IndexError, Reader, Writer};
use crate::model::worktree::{IndexState, Tracked};

impl Reader<'_> {
    /// The state kept for `key`, if that is the key it was kept for.
    pub fn index_state(&self, key: &str) -> Result<Option<IndexState>, IndexError> {
        if self.meta("worktree.key")?.as_deref() != Some(key) {
            return Ok(None);
        }
        let staged: Vec<String> = self
            .meta("worktree.staged")?
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        let written: i64 = self
            .meta("worktree.written")?
            .and_then(|s| s.parse().ok())
            .unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, secs, nsecs, size, ino, id FROM tracked ORDER BY path")
            .map_err(|e| self.err(e))?;
        let tracked = stmt
            .query_map([], |r| {
                Ok(Tracked {
                    path: r.get(0)?,
                    secs: r.get(1)?,
                    nsecs: r.get(2)?,
                    size: r.get(3)?,
                    ino: r.get(4)?,
                    id: r.get(5)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(Some(IndexState {
            staged,
            tracked,
            written,
        }))
    }
}

impl Writer<'_> {
    /// Keeps `state` for `key`, in place of what was kept.
    pub fn set_index_state(&self, key: &str, state: &IndexState) -> Result<(), IndexError> {
        self.conn
            .execute("DELETE FROM tracked", [])
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT INTO tracked(path, secs, nsecs, size, ino, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(|e| self.err(e))?;
        for t in &state.tracked {
            stmt.execute(params![t.path, t.secs, t.nsecs, t.size, t.ino, t.id])
                .map_err(|e| self.err(e))?;
        }
        self.set_meta(
            "worktree.staged",
            &serde_json::to_string(&state.staged).expect("strings serialise"),
        )?;
        self.set_meta("worktree.written", &state.written.to_string())?;
        self.set_meta("worktree.key", key)
    }
}
