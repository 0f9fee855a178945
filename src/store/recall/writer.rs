//! The primitive writes, inside one transaction: documents in (their text to the full-text
//! table, their paths, their length and status factor kept in chunks) and out, episodes,
//! tasks, questions, stamps, meta, and the staleness judgements a read worked out.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rusqlite::{Connection, OptionalExtension, params};

use super::lexical::{LENS_CHUNK, len_entry, lens_place};
use super::{IndexError, NewDoc, Reader, TaskRow, VerifiedAt, literal_prefix, reach};

/// Writes, inside one transaction; reads too.
pub struct Writer<'a> {
    pub(super) conn: &'a Connection,
    pub(super) path: &'a Option<PathBuf>,
    /// The `lens` rows this transaction changed, by chunk: written once, at its end.
    pub(super) lens: RefCell<BTreeMap<i64, Vec<u8>>>,
    /// The `ranks` rows this transaction changed, by chunk.
    pub(super) ranks: RefCell<BTreeMap<i64, Vec<u8>>>,
}

impl Writer<'_> {
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            conn: self.conn,
            path: self.path,
        }
    }

    pub(super) fn err(&self, e: impl std::fmt::Display) -> IndexError {
        IndexError::new(self.path, e)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), IndexError> {
        self.conn
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn delete_meta(&self, key: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached("DELETE FROM meta WHERE key = ?1")
            .and_then(|mut s| s.execute(params![key]))
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn set_stamp(&self, path: &str, stamp: &str) -> Result<(), IndexError> {
        self.conn
            .execute(
                "INSERT INTO stamps(path, stamp) VALUES (?1, ?2) ON CONFLICT(path) DO UPDATE SET stamp = excluded.stamp",
                params![path, stamp],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn delete_stamp(&self, path: &str) -> Result<(), IndexError> {
        self.conn
            .execute("DELETE FROM stamps WHERE path = ?1", params![path])
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Stamps under `prefix` (a directory path ending in `/`), by path.
    pub fn stamps_under(&self, prefix: &str) -> Result<HashMap<String, String>, IndexError> {
        self.reader().stamps_under(prefix)
    }

    /// Adds one document (its text to the full-text table, its paths to `refs`).
    pub fn insert_doc(&self, doc: &NewDoc) -> Result<i64, IndexError> {
        // Its branch and (for a ledger line) its record's status are read first and
        // inserted with it: an UPDATE after each insert opened a statement savepoint, at
        // which FTS5 writes out what it holds in memory, so a build of a large ledger wrote
        // one tiny segment per line and spent its time merging them.
        let branch = match &doc.episode {
            Some(episode) => self.branch_of(episode)?,
            None => None,
        };
        let record = match &doc.derives {
            Some(record) => self.record_status(record)?,
            None => None,
        };
        // A decision or an answer whose record is indexed too is folded into it (one
        // claim, one hit); kept as a column so a listing counts without a lookup per line.
        let folded = record.is_some() && matches!(doc.kind, "decision" | "question");
        // One claim, one status: a line also names what superseded its record.
        let superseded_by = match &record {
            Some((_, by)) => by.clone(),
            None => doc.superseded_by.clone(),
        };
        let status = record.map_or_else(|| doc.status.to_owned(), |(status, _)| status);
        // A knowledge record is as recent as its promotion, where one was recorded.
        let ts = match doc.kind {
            "knowledge" => self.promoted_at(&doc.key)?,
            _ => None,
        }
        .unwrap_or_else(|| doc.date.clone());
        self.conn
            .prepare_cached(
                "INSERT INTO docs(kind, key, source, status, line, text, date, episode, task, issue, intent, superseded_by, derives, place, offset, searched, branch, folded, ts) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            )
            .and_then(|mut s| s.execute(params![
                    doc.kind,
                    doc.key,
                    doc.source,
                    status,
                    doc.line,
                    doc.text,
                    doc.date,
                    doc.episode,
                    doc.task,
                    doc.issue,
                    doc.intent,
                    superseded_by,
                    doc.derives,
                    doc.place,
                    doc.offset.map(|o| o as i64),
                    format!("{} {}", doc.head_tokens, doc.body_tokens),
                    branch,
                    folded,
                    ts,
                ]))
            .map_err(|e| self.err(e))?;
        let id = self.conn.last_insert_rowid();
        self.set_rank(id, reach::factor_tenths(&status) as u8)?;
        // A record's status is its lines' (when it has any).
        if doc.kind == "knowledge" && self.has_lines(&doc.key)? {
            self.settle_lines(&doc.key)?;
        }
        self.conn
            .prepare_cached("INSERT INTO fts(rowid, head, body, evidence) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut s| {
                s.execute(params![
                    id,
                    doc.head_tokens,
                    doc.body_tokens,
                    doc.evidence_tokens
                ])
            })
            .map_err(|e| self.err(e))?;
        // The tokens FTS5 counted: ours, space-joined, each one token to its ASCII tokenizer.
        let tokens = doc.head_tokens.split_whitespace().count()
            + doc.body_tokens.split_whitespace().count()
            + doc.evidence_tokens.split_whitespace().count();
        self.set_len(id, len_entry(tokens))?;
        let mut stmt = self
            .conn
            .prepare_cached("INSERT INTO refs(doc, path) VALUES (?1, ?2)")
            .map_err(|e| self.err(e))?;
        for path in &doc.refs {
            stmt.execute(params![id, path]).map_err(|e| self.err(e))?;
        }
        self.reach_docs(&[id])?;
        Ok(id)
    }

    /// The branch of `episode`'s documents: its session record's, else its
    /// `session.opened` line's.
    fn branch_of(&self, episode: &str) -> Result<Option<String>, IndexError> {
        self.conn
            .prepare_cached(
                "SELECT branch FROM episodes WHERE episode = ?1 ORDER BY source = 'ledger' LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row(params![episode], |r| r.get::<_, Option<String>>(0))
                    .optional()
            })
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// The status a ledger line deriving `record` takes: the record's (verified above
    /// superseded above candidate, when two copies lie in two places); `None` when there
    /// is no such record.
    fn record_status(&self, record: &str) -> Result<Option<(String, Option<String>)>, IndexError> {
        self.conn
            .prepare_cached(
                "SELECT status, superseded_by FROM docs WHERE key = ?1 AND kind = 'knowledge' \
                 ORDER BY CASE status WHEN 'verified' THEN 0 WHEN 'superseded' THEN 1 ELSE 2 END LIMIT 1",
            )
            .and_then(|mut s| {
                s.query_row(params![record], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Whether any ledger line derives `record`.
    fn has_lines(&self, record: &str) -> Result<bool, IndexError> {
        self.conn
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM docs WHERE derives = ?1 AND kind IN ('decision', 'question'))",
            )
            .and_then(|mut s| s.query_row(params![record], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// Whether any document belongs to `episode`.
    fn has_episode_docs(&self, episode: &str) -> Result<bool, IndexError> {
        self.conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM docs WHERE episode = ?1)")
            .and_then(|mut s| s.query_row(params![episode], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// The status of the ledger lines (decisions, answers) whose derivation is the
    /// record `key`: that record's (verified above superseded above candidate, when two
    /// copies lie in two places), `candidate` when there is none; what superseded it; and
    /// whether they are folded into it (it is indexed).
    fn settle_lines(&self, key: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "UPDATE docs SET status = COALESCE((SELECT k.status FROM docs k WHERE k.key = ?1 AND k.kind = 'knowledge' \
                 ORDER BY CASE k.status WHEN 'verified' THEN 0 WHEN 'superseded' THEN 1 ELSE 2 END LIMIT 1), 'candidate'), \
                 superseded_by = (SELECT k.superseded_by FROM docs k WHERE k.key = ?1 AND k.kind = 'knowledge' \
                 ORDER BY CASE k.status WHEN 'verified' THEN 0 WHEN 'superseded' THEN 1 ELSE 2 END LIMIT 1), \
                 folded = EXISTS(SELECT 1 FROM docs k WHERE k.key = ?1 AND k.kind = 'knowledge') \
                 WHERE derives = ?1 AND kind IN ('decision', 'question') RETURNING id, status",
            )
            .and_then(|mut s| {
                s.query_map(params![key], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                    .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            })
            .map_err(|e| self.err(e))?
            .into_iter()
            .try_for_each(|(id, status)| self.set_rank(id, reach::factor_tenths(&status) as u8))
    }

    /// The branch of every document of `episode`: its session record's, else its
    /// `session.opened` line's.
    fn settle_branch(&self, episode: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "UPDATE docs SET branch = (SELECT branch FROM episodes WHERE episode = ?1 ORDER BY source = 'ledger' LIMIT 1) \
                 WHERE episode = ?1",
            )
            .and_then(|mut s| s.execute(params![episode]))
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Removes every document, episode and file list that `source` gave.
    pub fn delete_source(&self, source: &str) -> Result<(), IndexError> {
        let ids: Vec<(i64, String, String)> = {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, kind, key FROM docs WHERE source = ?1")
                .map_err(|e| self.err(e))?;
            stmt.query_map(params![source], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .and_then(Iterator::collect)
                .map_err(|e| self.err(e))?
        };
        for (id, kind, key) in ids {
            self.delete_doc(id)?;
            if kind == "knowledge" {
                self.settle_lines(&key)?;
            }
        }
        let episodes: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT episode FROM episodes WHERE source = ?1")
                .map_err(|e| self.err(e))?;
            stmt.query_map(params![source], |r| r.get(0))
                .and_then(Iterator::collect)
                .map_err(|e| self.err(e))?
        };
        self.conn
            .execute("DELETE FROM episodes WHERE source = ?1", params![source])
            .map_err(|e| self.err(e))?;
        let changed = self
            .conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM episode_files WHERE source = ?1)")
            .and_then(|mut s| s.query_row(params![source], |r| r.get::<_, bool>(0)))
            .map_err(|e| self.err(e))?;
        self.conn
            .execute(
                "DELETE FROM episode_files WHERE source = ?1",
                params![source],
            )
            .map_err(|e| self.err(e))?;
        for episode in episodes {
            self.settle_branch(&episode)?;
            if changed {
                self.reach_episode(&episode)?;
            }
        }
        self.delete_promoted(source)?;
        Ok(())
    }

    /// Removes every document whose source lies under `prefix` (`file:<dir>/`).
    pub fn delete_sources_under(&self, prefix: &str) -> Result<(), IndexError> {
        let end = format!("{}0", prefix.trim_end_matches('/'));
        let sources: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT DISTINCT source FROM docs WHERE source >= ?1 AND source < ?2",
                )
                .map_err(|e| self.err(e))?;
            stmt.query_map(params![prefix, end], |r| r.get(0))
                .and_then(Iterator::collect)
                .map_err(|e| self.err(e))?
        };
        for source in sources {
            self.delete_source(&source)?;
        }
        Ok(())
    }

    fn delete_doc(&self, id: i64) -> Result<(), IndexError> {
        self.set_len(id, 0)?;
        self.set_rank(id, 0)?;
        for sql in [
            "DELETE FROM fts WHERE rowid = ?1",
            "DELETE FROM refs WHERE doc = ?1",
            "DELETE FROM docs WHERE id = ?1",
        ] {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(params![id]))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Sets document `id`'s entry in `lens` (in this transaction's copy of its chunk).
    fn set_len(&self, id: i64, entry: u16) -> Result<(), IndexError> {
        let (chunk, at) = lens_place(id);
        let mut lens = self.lens.borrow_mut();
        let data = match lens.entry(chunk) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                let mut data: Vec<u8> = self
                    .conn
                    .prepare_cached("SELECT data FROM lens WHERE chunk = ?1")
                    .and_then(|mut s| s.query_row(params![chunk], |r| r.get(0)).optional())
                    .map_err(|e| self.err(e))?
                    .unwrap_or_default();
                data.resize(LENS_CHUNK * 2, 0);
                v.insert(data)
            }
        };
        data[at..at + 2].copy_from_slice(&entry.to_le_bytes());
        Ok(())
    }

    /// Sets document `id`'s status factor in `ranks` (tenths; 0: no document).
    fn set_rank(&self, id: i64, tenths: u8) -> Result<(), IndexError> {
        let (chunk, at) = lens_place(id);
        let at = at / 2;
        let mut ranks = self.ranks.borrow_mut();
        let data = match ranks.entry(chunk) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                let mut data: Vec<u8> = self
                    .conn
                    .prepare_cached("SELECT data FROM ranks WHERE chunk = ?1")
                    .and_then(|mut s| s.query_row(params![chunk], |r| r.get(0)).optional())
                    .map_err(|e| self.err(e))?
                    .unwrap_or_default();
                data.resize(LENS_CHUNK, 0);
                v.insert(data)
            }
        };
        data[at] = tenths;
        Ok(())
    }

    /// Writes the `ranks` chunks this transaction changed.
    pub(super) fn flush_ranks(&self) -> Result<(), IndexError> {
        let ranks = std::mem::take(&mut *self.ranks.borrow_mut());
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT INTO ranks(chunk, data) VALUES (?1, ?2) ON CONFLICT(chunk) DO UPDATE SET data = excluded.data",
            )
            .map_err(|e| self.err(e))?;
        for (chunk, data) in ranks {
            stmt.execute(params![chunk, data])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Writes the `lens` chunks this transaction changed.
    pub(super) fn flush_lens(&self) -> Result<(), IndexError> {
        let lens = std::mem::take(&mut *self.lens.borrow_mut());
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT INTO lens(chunk, data) VALUES (?1, ?2) ON CONFLICT(chunk) DO UPDATE SET data = excluded.data",
            )
            .map_err(|e| self.err(e))?;
        for (chunk, data) in lens {
            stmt.execute(params![chunk, data])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Forgets everything the ledger gave (before reading it again from its first byte).
    pub fn clear_ledger(&self) -> Result<(), IndexError> {
        self.delete_source("ledger")?;
        self.conn
            .execute_batch("DELETE FROM tasks; DELETE FROM scopes; DELETE FROM questions;")
            .map_err(|e| self.err(e))?;
        // Records of those tasks (tracked knowledge naming them) no longer reach their scope.
        let ids: Vec<i64> = self
            .conn
            .prepare_cached("SELECT id FROM docs WHERE task IS NOT NULL")
            .and_then(|mut s| s.query_map([], |r| r.get(0)).and_then(Iterator::collect))
            .map_err(|e| self.err(e))?;
        self.reach_docs(&ids)
    }

    /// An episode and the files it changed, as `source` tells them.
    pub fn insert_episode(
        &self,
        episode: &str,
        source: &str,
        branch: Option<&str>,
        files: &[String],
    ) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "INSERT INTO episodes(episode, source, branch, files) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(episode, source) DO UPDATE SET branch = excluded.branch, files = excluded.files",
            )
            .and_then(|mut st| st.execute(params![episode, source, branch, files.len() as i64]))
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .conn
            .prepare_cached("INSERT INTO episode_files(episode, source, path) VALUES (?1, ?2, ?3)")
            .map_err(|e| self.err(e))?;
        for path in files {
            stmt.execute(params![episode, source, path])
                .map_err(|e| self.err(e))?;
        }
        // A `session.opened` line comes before its episode's documents: nothing to settle.
        if self.has_episode_docs(episode)? {
            self.settle_branch(episode)?;
            if !files.is_empty() {
                self.reach_episode(episode)?;
            }
        }
        Ok(())
    }

    /// A task as its `task.started` line names it, with its scope (each entry with the
    /// directory before its first glob character, for lookups).
    pub fn insert_task(&self, row: &TaskRow) -> Result<(), IndexError> {
        let TaskRow {
            task,
            episode,
            issue,
            intent,
            description,
            started,
            scope,
        } = row;
        self.conn
            .prepare_cached(
                "INSERT INTO tasks(task, episode, issue, intent, description, started) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT(task) DO UPDATE SET episode = excluded.episode, issue = excluded.issue, intent = excluded.intent, description = excluded.description, started = excluded.started",
            )
            .and_then(|mut st| st.execute(params![task, episode, issue, intent, description, started]))
            .map_err(|e| self.err(e))?;
        self.conn
            .prepare_cached("DELETE FROM scopes WHERE task = ?1")
            .and_then(|mut st| st.execute(params![task]))
            .map_err(|e| self.err(e))?;
        for pattern in scope {
            self.conn
                .prepare_cached("INSERT INTO scopes(task, pattern, prefix) VALUES (?1, ?2, ?3)")
                .and_then(|mut st| st.execute(params![task, pattern, literal_prefix(pattern)]))
                .map_err(|e| self.err(e))?;
        }
        self.reach_task(task)
    }

    pub fn insert_question(
        &self,
        id: &str,
        text: &str,
        episode: Option<&str>,
        task: Option<&str>,
        asked: &str,
    ) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "INSERT INTO questions(id, text, episode, task, asked) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT(id) DO UPDATE SET text = excluded.text, episode = excluded.episode, task = excluded.task, asked = excluded.asked",
            )
            .and_then(|mut st| st.execute(params![id, text, episode, task, asked]))
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn set_verified(&self, file: &str, v: &VerifiedAt) -> Result<(), IndexError> {
        let targets = serde_json::to_string(&v.targets).expect("a map of strings serialises");
        self.conn
            .prepare_cached(
                "INSERT INTO verified(file, blob, commit_id, subject, targets, tree) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT(file) DO UPDATE SET blob = excluded.blob, commit_id = excluded.commit_id, subject = excluded.subject, targets = excluded.targets, tree = excluded.tree",
            )
            .and_then(|mut st| st.execute(params![file, v.blob, v.commit, v.subject, targets, v.tree]))
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Notes that `file`'s cached blob was found again in its directory's tree `tree`.
    pub fn set_verified_tree(&self, file: &str, tree: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached("UPDATE verified SET tree = ?2 WHERE file = ?1")
            .and_then(|mut st| st.execute(params![file, tree]))
            .map(drop)
            .map_err(|e| self.err(e))
    }
}
