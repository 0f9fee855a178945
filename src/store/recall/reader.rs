//! The primitive reads, inside or outside a transaction: meta and stamps, BM25 from the
//! postings, documents by id, key, column or recency, episodes, tasks, questions, and the
//! staleness judgements kept.

use std::collections::HashMap;
use std::path::PathBuf;

use rusqlite::{Connection, OptionalExtension, params};

use super::lexical::{Col, LENS_CHUNK, Lens, TermCounts};
use super::rows::{DOC_COLUMNS, doc_row, json_ids};
use super::{Column, DocRow, EpisodeRow, IndexError, Lexical, TaskRow, VerifiedAt};

/// Reads, inside or outside a transaction.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub(super) conn: &'a Connection,
    pub(super) path: &'a Option<PathBuf>,
}

impl Reader<'_> {
    pub(super) fn err(&self, e: impl std::fmt::Display) -> IndexError {
        IndexError::new(self.path, e)
    }

    /// How many documents the index holds.
    pub fn count_all(&self) -> Result<usize, IndexError> {
        self.conn
            .query_row("SELECT count(*) FROM docs", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>, IndexError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))
    }

    pub fn stamp(&self, path: &str) -> Result<Option<String>, IndexError> {
        self.conn
            .prepare_cached("SELECT stamp FROM stamps WHERE path = ?1")
            .and_then(|mut s| s.query_row(params![path], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))
    }

    /// Stamps under `prefix` (a directory path ending in `/`), by path.
    pub fn stamps_under(&self, prefix: &str) -> Result<HashMap<String, String>, IndexError> {
        let end = format!("{}0", prefix.trim_end_matches('/'));
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, stamp FROM stamps WHERE path >= ?1 AND path < ?2")
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![prefix, end], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// Every document matching any of `terms`, with its BM25 (positive; the head weighs
    /// twice the body; a match in the evidence alone ranks below every claim that matches:
    /// [`super::lexical::EVIDENCE_BELOW`]), best first, ties by id: FTS5's
    /// `bm25(fts, 2.0, 1.0, 0.0)` where the claim matches, computed
    /// here from the terms' postings (`fts_instances`) and the lengths in `lens`, so that
    /// a search costs what its terms' postings hold plus one read of the lengths, instead
    /// of FTS5's lookup of each match's length with a statement of its own.
    pub fn lexical(&self, terms: &[String]) -> Result<Lexical, IndexError> {
        if terms.is_empty() {
            return Ok(Lexical::default());
        }
        let lens = self.lens()?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc, col FROM fts_instances WHERE term = ?1")
            .map_err(|e| self.err(e))?;
        // Per term, each matching document's weighted count of the term.
        let mut postings: Vec<Vec<(i64, f64, f64)>> = Vec::with_capacity(terms.len());
        let mut absent = Vec::new();
        for term in terms {
            let mut counts = TermCounts::default();
            let mut rows = stmt.query(params![term]).map_err(|e| self.err(e))?;
            while let Some(row) = rows.next().map_err(|e| self.err(e))? {
                let doc: i64 = row.get(0).map_err(|e| self.err(e))?;
                let col = match row.get_ref(1).map_err(|e| self.err(e))? {
                    rusqlite::types::ValueRef::Text(b"head") => Col::Head,
                    rusqlite::types::ValueRef::Text(b"evidence") => Col::Evidence,
                    _ => Col::Body,
                };
                counts.add(doc, col);
            }
            let docs = counts.finish(&lens);
            if docs.is_empty() {
                absent.push(term.clone());
            }
            postings.push(docs);
        }
        let mut lexical = Lexical::rank(&lens, &postings);
        lexical.absent = absent;
        Ok(lexical)
    }

    /// Every document's status factor in tenths (0: no document), by id.
    pub fn ranks(&self) -> Result<Vec<u8>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT chunk, data FROM ranks")
            .map_err(|e| self.err(e))?;
        let chunks: Vec<(i64, Vec<u8>)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        let last = chunks.iter().map(|(c, _)| *c).max().unwrap_or(-1);
        let mut out = vec![0u8; usize::try_from(last + 1).unwrap_or(0) * LENS_CHUNK];
        for (chunk, data) in chunks {
            let Ok(start) = usize::try_from(chunk) else {
                continue;
            };
            let start = start * LENS_CHUNK;
            let n = data.len().min(LENS_CHUNK);
            out[start..start + n].copy_from_slice(&data[..n]);
        }
        Ok(out)
    }

    /// Every document's length, and the collection's size and average length.
    fn lens(&self) -> Result<Lens, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT chunk, data FROM lens")
            .map_err(|e| self.err(e))?;
        let chunks: Vec<(i64, Vec<u8>)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(Lens::of(chunks))
    }

    /// The tokens each of `ids` was indexed under (space-joined).
    pub fn searched(&self, ids: &[i64]) -> Result<HashMap<i64, String>, IndexError> {
        self.text_of(
            ids,
            "SELECT id, searched FROM docs WHERE id IN (SELECT value FROM json_each(?1))",
        )
    }

    /// The whole text of each of `ids`.
    pub fn texts(&self, ids: &[i64]) -> Result<HashMap<i64, String>, IndexError> {
        self.text_of(
            ids,
            "SELECT id, text FROM docs WHERE id IN (SELECT value FROM json_each(?1))",
        )
    }

    /// One text column of each of `ids`, by `sql` (`id, <column>` of the docs in `?1`).
    fn text_of(&self, ids: &[i64], sql: &str) -> Result<HashMap<i64, String>, IndexError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![json_ids(ids)], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// The paths each of `ids` cites.
    pub fn refs_of(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<String>>, IndexError> {
        let mut out: HashMap<i64, Vec<String>> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc, path FROM refs WHERE doc IN (SELECT value FROM json_each(?1)) ORDER BY doc, path")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, String)> = stmt
            .query_map(params![json_ids(ids)], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        for (doc, path) in rows {
            out.entry(doc).or_default().push(path);
        }
        Ok(out)
    }

    /// The newest documents of `kind` whose status (a ledger line's is the status of the
    /// knowledge record it derived) is one of `statuses`, on `branch` when given and dated
    /// `since` or later; with `fold`, a ledger line whose record exists is left out (the
    /// record stands for it). At most `limit`, newest first by their recency (`ts`: a
    /// ledger line's time, a curated record's promotion), ties to the greater key, and how
    /// many there are in all. Indexes on (kind, branch, ts) and (kind, branch, status)
    /// serve the order and the count: the newest are read first and the walk stops at
    /// `limit`.
    pub fn listing(
        &self,
        kind: &str,
        statuses: &[&str],
        branch: Option<&str>,
        since: Option<&str>,
        fold: bool,
        limit: usize,
    ) -> Result<(Vec<DocRow>, usize), IndexError> {
        let columns = DOC_COLUMNS
            .split(", ")
            .map(|c| {
                if c.starts_with("''") {
                    c.to_owned()
                } else {
                    format!("d.{c}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        // Each clause only when it applies: a count over the status index alone then
        // reads no table row (the fold was a lookup per line, 166k of them in a briefing
        // at 1M lines, and the date clause made every row be read).
        let folds = fold && matches!(kind, "decision" | "question");
        let fold = if folds { "AND d.folded = 0" } else { "" };
        let on_branch = if branch.is_some() {
            "AND d.branch = ?3"
        } else {
            "AND ?3 IS NULL"
        };
        let after = if since.is_some() {
            "AND CASE WHEN length(d.date) = 10 THEN d.date >= substr(?4, 1, 10) ELSE d.date >= ?4 END"
        } else {
            "AND ?4 IS NULL"
        };
        let filter = format!(
            "FROM docs d WHERE d.kind = ?1 {on_branch} \
             AND d.status IN (SELECT value FROM json_each(?2)) {after} {fold}"
        );
        let statuses = serde_json::to_string(statuses).expect("strings serialise");
        let sql = format!("SELECT {columns} {filter} ORDER BY d.ts DESC, d.key DESC LIMIT ?5");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows: Vec<DocRow> = stmt
            .query_map(
                params![kind, statuses, branch, since, limit as i64],
                doc_row,
            )
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        let total = if since.is_none() {
            self.counted(kind, &statuses, branch, folds)?
        } else {
            self.conn
                .prepare_cached(&format!("SELECT count(*) {filter}"))
                .and_then(|mut s| {
                    s.query_row(params![kind, statuses, branch, since], |r| {
                        r.get::<_, i64>(0)
                    })
                })
                .map_err(|e| self.err(e))?
        };
        Ok((rows, total as usize))
    }

    /// How many documents of `kind` have one of `statuses` (a JSON array), on `branch`
    /// (any without one), not folded into their record when `unfolded`: from the counts
    /// the triggers keep, one row per (branch, status, fold).
    fn counted(
        &self,
        kind: &str,
        statuses: &str,
        branch: Option<&str>,
        unfolded: bool,
    ) -> Result<i64, IndexError> {
        self.conn
            .prepare_cached(
                "SELECT coalesce(sum(n), 0) FROM doc_counts WHERE kind = ?1 \
                 AND (?3 IS NULL OR branch = ?3) AND status IN (SELECT value FROM json_each(?2)) \
                 AND (?4 = 0 OR folded = 0)",
            )
            .and_then(|mut s| s.query_row(params![kind, statuses, branch, unfolded], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// The documents of `ids`, in no particular order.
    pub fn docs(&self, ids: &[i64]) -> Result<Vec<DocRow>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql =
            format!("SELECT {DOC_COLUMNS} FROM docs WHERE id IN (SELECT value FROM json_each(?1))");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![json_ids(ids)], doc_row)
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// The documents whose key is one of `keys`: `(id, kind, key)`, read from the index of
    /// keys alone (it holds the kind: no row is read), so thousands cost a few ms.
    pub fn ids_of_keys(&self, keys: &[String]) -> Result<Vec<(i64, String, String)>, IndexError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let json = serde_json::to_string(keys).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, kind, key FROM docs WHERE key IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// The documents of `episode` (ids only, from the index of episodes).
    pub fn ids_of_episode(&self, episode: &str) -> Result<Vec<i64>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM docs WHERE episode = ?1")
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![episode], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// Documents whose `column` (episode, task, issue, intent, key or derives) is one of
    /// `values`.
    pub fn docs_where(&self, column: Column, values: &[String]) -> Result<Vec<DocRow>, IndexError> {
        if values.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {DOC_COLUMNS} FROM docs WHERE {} IN (SELECT value FROM json_each(?1))",
            column.name()
        );
        let json = serde_json::to_string(values).expect("strings serialise");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![json], doc_row)
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// Knowledge documents in `place` with `status`, by key.
    pub fn knowledge_in(&self, places: &[&str], status: &str) -> Result<Vec<DocRow>, IndexError> {
        let sql = format!(
            "SELECT {DOC_COLUMNS} FROM docs WHERE kind = 'knowledge' AND status = ?1 AND place IN (SELECT value FROM json_each(?2)) ORDER BY key"
        );
        let json = serde_json::to_string(places).expect("strings serialise");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![status, json], doc_row)
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// The verified curated knowledge records no read has judged yet (their file has no
    /// row in `verified`) among the documents after id `after` (a document re-indexed gets
    /// a new id), at most `most`, by id; and the largest document id (0: none). Read by
    /// the id alone, so that with nothing new it reads no row.
    pub fn unjudged_verified(
        &self,
        after: i64,
        most: usize,
    ) -> Result<(Vec<DocRow>, i64), IndexError> {
        let sql = format!(
            "SELECT {DOC_COLUMNS} FROM docs d WHERE id > ?1 AND +kind = 'knowledge' \
             AND +status = 'verified' AND place = 'curated' AND source LIKE 'file:%' \
             AND NOT EXISTS (SELECT 1 FROM verified v WHERE v.file = substr(d.source, 6)) \
             ORDER BY id LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows: Vec<DocRow> = stmt
            .query_map(params![after, most as i64], doc_row)
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        let last: i64 = self
            .conn
            .query_row("SELECT coalesce(max(id), 0) FROM docs", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok((rows, last))
    }

    /// How many files each of `episodes` changed (the largest any source says), and the
    /// branch its session record names (else its `session.opened` line's).
    pub fn episodes(&self, episodes: &[String]) -> Result<HashMap<String, EpisodeRow>, IndexError> {
        if episodes.is_empty() {
            return Ok(HashMap::new());
        }
        let json = serde_json::to_string(episodes).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT episode, source, branch, files FROM episodes WHERE episode IN (SELECT value FROM json_each(?1)) ORDER BY episode, source",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, String, Option<String>, i64)> = stmt
            .query_map(params![json], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        let mut out: HashMap<String, EpisodeRow> = HashMap::new();
        for (episode, source, branch, files) in rows {
            let entry = out.entry(episode).or_default();
            entry.files = entry.files.max(files as usize);
            let from_record = source != "ledger";
            if from_record || !entry.from_record {
                if from_record || entry.branch.is_none() {
                    entry.branch = branch;
                }
                entry.from_record |= from_record;
            }
        }
        Ok(out)
    }

    /// The files an episode changed, as its session records list them.
    pub fn episode_files(&self, episode: &str) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT path FROM episode_files WHERE episode = ?1 ORDER BY path",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![episode], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    pub fn task(&self, task: &str) -> Result<Option<TaskRow>, IndexError> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT task, episode, issue, intent, description, started FROM tasks WHERE task = ?1",
            )
            .and_then(|mut s| {
                s.query_row(params![task], |r| {
                    Ok(TaskRow {
                        task: r.get(0)?,
                        episode: r.get(1)?,
                        issue: r.get(2)?,
                        intent: r.get(3)?,
                        description: r.get(4)?,
                        started: r.get(5)?,
                        scope: Vec::new(),
                    })
                })
                .optional()
            })
            .map_err(|e| self.err(e))?;
        let Some(mut row) = row else {
            return Ok(None);
        };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT pattern FROM scopes WHERE task = ?1 ORDER BY rowid")
            .map_err(|e| self.err(e))?;
        row.scope = stmt
            .query_map(params![task], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(Some(row))
    }

    /// Tasks naming `column` (issue or intent) = `value`.
    pub fn tasks_with(&self, column: Column, value: &str) -> Result<Vec<String>, IndexError> {
        let sql = format!(
            "SELECT task FROM tasks WHERE {} = ?1 ORDER BY task",
            column.name()
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![value], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// True when any document or task names the issue.
    pub fn knows_issue(&self, issue: &str) -> Result<bool, IndexError> {
        self.conn
            .query_row(
                "SELECT EXISTS(SELECT 1 FROM docs WHERE issue = ?1) OR EXISTS(SELECT 1 FROM tasks WHERE issue = ?1)",
                params![issue],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }

    /// Issues the index knows, by name (for a refusal's message).
    pub fn issues(&self) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT issue FROM docs WHERE issue IS NOT NULL UNION SELECT issue FROM tasks WHERE issue IS NOT NULL ORDER BY 1",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// Questions asked and not answered, in asking order: `(id, text)`.
    pub fn open_questions(&self) -> Result<Vec<(String, String)>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT q.id, q.text FROM questions q WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE d.kind = 'question' AND d.key = q.id) ORDER BY q.asked, q.id",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    pub fn verified(&self, files: &[String]) -> Result<HashMap<String, VerifiedAt>, IndexError> {
        if files.is_empty() {
            return Ok(HashMap::new());
        }
        let json = serde_json::to_string(files).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT file, blob, commit_id, subject, targets, tree FROM verified WHERE file IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, String, String, String, String, String)> = stmt
            .query_map(params![json], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(file, blob, commit, subject, targets, tree)| {
                let targets = serde_json::from_str(&targets).unwrap_or_default();
                (
                    file,
                    VerifiedAt {
                        blob,
                        commit,
                        subject,
                        targets,
                        tree,
                    },
                )
            })
            .collect())
    }
}
