//! The index of paths (SPEC §11): the rows of `reach`, at most one per document and path
//! it reaches (through its own references, its episode's changed files, its task's
//! scope: the best of them), each with what reaching that very path is worth, that times
//! the document's status factor (`bound`), and its recency. A path's rows, or those of a
//! directory's files, are read best first and only as many as a search weighs; how many
//! there are in all is kept beside them (`reach_counts`). Kept by the writes that change
//! what a document reaches (here) and by triggers on `docs` (status, recency, removal).

use std::collections::{BTreeMap, HashMap};

use rusqlite::{OptionalExtension, params};

use super::{IndexError, Reader, Writer, parent_dir};
use crate::model::recall::{PathVia, spread_damping};

/// A document's status factor in tenths, as the triggers compute it (`HitStatus::factor`;
/// stale is judged at read time and stored as verified).
pub(super) fn factor_tenths(status: &str) -> i64 {
    match status {
        "verified" => 10,
        "superseded" => 4,
        _ => 8,
    }
}

/// Millionths, as rows keep weights.
fn millionths(weight: f64) -> i64 {
    (weight * 1e6).round() as i64
}

impl Writer<'_> {
    /// Recomputes the rows of the documents `ids` from their references, their episode's
    /// changed files (each weighing less when the episode changed many) and their task's
    /// scope (each entry by the directory before its first glob character).
    pub(crate) fn reach_docs(&self, ids: &[i64]) -> Result<(), IndexError> {
        for &id in ids {
            let Some((kind, key, status, ts, episode, task)) = self
                .conn
                .prepare_cached(
                    "SELECT kind, key, status, ts, episode, task FROM docs WHERE id = ?1",
                )
                .and_then(|mut s| {
                    s.query_row(params![id], |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, Option<String>>(5)?,
                        ))
                    })
                    .optional()
                })
                .map_err(|e| self.err(e))?
            else {
                continue;
            };
            self.conn
                .prepare_cached("DELETE FROM reach WHERE doc = ?1")
                .and_then(|mut s| s.execute(params![id]))
                .map_err(|e| self.err(e))?;
            // Each path's best way, in millionths.
            let mut best: BTreeMap<String, i64> = BTreeMap::new();
            let mut offer = |path: String, weight: f64| {
                let w = millionths(weight);
                let entry = best.entry(path).or_insert(0);
                *entry = (*entry).max(w);
            };
            for path in self.column_strings("SELECT path FROM refs WHERE doc = ?1", &id)? {
                offer(path, PathVia::Reference.exact_weight());
            }
            if let Some(episode) = &episode {
                let spread: i64 = self
                    .conn
                    .prepare_cached(
                        "SELECT coalesce(max(files), 0) FROM episodes WHERE episode = ?1",
                    )
                    .and_then(|mut s| s.query_row(params![episode], |r| r.get(0)))
                    .map_err(|e| self.err(e))?;
                let weight = PathVia::Episode.exact_weight()
                    * spread_damping(usize::try_from(spread).unwrap_or(0).max(1));
                for path in self.column_strings(
                    "SELECT DISTINCT path FROM episode_files WHERE episode = ?1",
                    episode,
                )? {
                    offer(path, weight);
                }
            }
            if let Some(task) = &task {
                for prefix in
                    self.column_strings("SELECT DISTINCT prefix FROM scopes WHERE task = ?1", task)?
                {
                    offer(prefix, PathVia::Scope.exact_weight());
                }
            }
            let factor = factor_tenths(&status);
            let recency = format!("{ts} {key}");
            let mut insert = self
                .conn
                .prepare_cached(
                    "INSERT INTO reach(doc, path, dir, weight, bound, recency, kind, status) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(|e| self.err(e))?;
            for (path, weight) in best {
                insert
                    .execute(params![
                        id,
                        path,
                        parent_dir(&path),
                        weight,
                        weight * factor / 10,
                        recency,
                        kind,
                        status
                    ])
                    .map_err(|e| self.err(e))?;
            }
        }
        Ok(())
    }

    /// Notes, for each `(doc, path, blob)`, what the path held when the verified record
    /// `doc` was verified (`""`: it was not there), where a row says otherwise.
    pub fn set_reach_blobs(&self, blobs: &[(i64, String, String)]) -> Result<(), IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "UPDATE reach SET blob = ?3 WHERE doc = ?1 AND path = ?2 AND blob IS NOT ?3",
            )
            .map_err(|e| self.err(e))?;
        for (doc, path, blob) in blobs {
            stmt.execute(params![doc, path, blob])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Recomputes the rows of every document of `episode` (its changed files changed).
    pub(crate) fn reach_episode(&self, episode: &str) -> Result<(), IndexError> {
        let ids = self.column_ids("SELECT id FROM docs WHERE episode = ?1", episode)?;
        self.reach_docs(&ids)
    }

    /// Recomputes the rows of every document of `task` (its scope changed).
    pub(crate) fn reach_task(&self, task: &str) -> Result<(), IndexError> {
        let ids = self.column_ids("SELECT id FROM docs WHERE task = ?1", task)?;
        self.reach_docs(&ids)
    }

    /// Records that `key` was promoted at `ts` (as `source` tells it): the record's
    /// recency is its latest promotion.
    pub fn set_promoted(&self, key: &str, source: &str, ts: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "INSERT INTO promoted(key, source, ts) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(key, source) DO UPDATE SET ts = max(ts, excluded.ts)",
            )
            .and_then(|mut s| s.execute(params![key, source, ts]))
            .map_err(|e| self.err(e))?;
        self.settle_recency(key)
    }

    /// Forgets the promotions `source` told.
    pub(crate) fn delete_promoted(&self, source: &str) -> Result<(), IndexError> {
        let keys = self.column_strings("SELECT key FROM promoted WHERE source = ?1", &source)?;
        self.conn
            .prepare_cached("DELETE FROM promoted WHERE source = ?1")
            .and_then(|mut s| s.execute(params![source]))
            .map_err(|e| self.err(e))?;
        for key in keys {
            self.settle_recency(&key)?;
        }
        Ok(())
    }

    /// The latest promotion of `key` any source told.
    pub(crate) fn promoted_at(&self, key: &str) -> Result<Option<String>, IndexError> {
        self.conn
            .prepare_cached("SELECT max(ts) FROM promoted WHERE key = ?1")
            .and_then(|mut s| s.query_row(params![key], |r| r.get::<_, Option<String>>(0)))
            .map_err(|e| self.err(e))
    }

    /// A knowledge record's recency: its latest promotion, else its date.
    fn settle_recency(&self, key: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "UPDATE docs SET ts = coalesce((SELECT max(ts) FROM promoted WHERE key = ?1), date) \
                 WHERE key = ?1 AND kind = 'knowledge'",
            )
            .and_then(|mut s| s.execute(params![key]))
            .map(drop)
            .map_err(|e| self.err(e))
    }

    fn column_strings(
        &self,
        sql: &str,
        value: &dyn rusqlite::ToSql,
    ) -> Result<Vec<String>, IndexError> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.query_map(&[value][..], |r| r.get(0))
                    .and_then(Iterator::collect)
            })
            .map_err(|e| self.err(e))
    }

    fn column_ids(&self, sql: &str, value: &str) -> Result<Vec<i64>, IndexError> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.query_map(params![value], |r| r.get(0))
                    .and_then(Iterator::collect)
            })
            .map_err(|e| self.err(e))
    }
}

/// Which of a path's rows: by what a verified record's reference held of it when the
/// record was verified, against what the path holds at HEAD.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cut {
    /// All of them.
    All,
    /// Those verified when the path held this blob (`""`: when it was not there): fresh
    /// for it, when that is what it holds at HEAD.
    Blob(String),
    /// Those not (yet) known: every row but a verified reference a read has judged.
    Unknown,
    /// Those verified when the path held another blob than this one: stale for it.
    Other(String),
}

/// Which rows of `reach` a search reads, best first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReachGroup {
    /// The documents that reach this very path (a file, or a directory a record cites),
    /// cut by what a verified reference held of it.
    Path(String, Cut),
    /// The documents that reach a file directly in this directory.
    Dir(String),
    /// The documents that reach a path under this directory (read whole, then sorted:
    /// a directory asked about).
    Under(String),
}

/// One row read: a document, the path it reaches, and its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReachRow {
    pub doc: i64,
    pub path: String,
    /// Millionths: what reaching the very path is worth times the status factor.
    pub bound: i64,
    /// `<ts> <key>`: the order among rows of one bound (newest first).
    pub recency: String,
    /// The document's kind.
    pub kind: String,
}

impl Reader<'_> {
    /// The best `limit` rows of `group` among documents of `kinds` with a stored status
    /// of `statuses` (empty: any), best first (bound, then recency, newest first); and
    /// whether those are all of them.
    pub fn reach_top(
        &self,
        group: &ReachGroup,
        kinds: &[&str],
        statuses: &[&str],
        limit: usize,
    ) -> Result<(Vec<ReachRow>, bool), IndexError> {
        let filter = "AND (?2 = '[]' OR kind IN (SELECT value FROM json_each(?2))) \
                      AND (?3 = '[]' OR status IN (SELECT value FROM json_each(?3)))";
        let (sql, a, b) = match group {
            ReachGroup::Path(p, Cut::All) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach INDEXED BY reach_path WHERE path = ?1 {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                p.clone(),
                String::new(),
            ),
            ReachGroup::Path(p, Cut::Blob(blob)) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach INDEXED BY reach_blob WHERE path = ?1 AND blob = ?5 {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                p.clone(),
                blob.clone(),
            ),
            ReachGroup::Path(p, Cut::Unknown) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach INDEXED BY reach_blob WHERE path = ?1 AND blob IS NULL {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                p.clone(),
                String::new(),
            ),
            // The stale are read in the path's order, passing over the others: they are
            // read when a path's records are mostly stale (a file every record cites has
            // just changed), where they come first.
            ReachGroup::Path(p, Cut::Other(blob)) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach INDEXED BY reach_path WHERE path = ?1 \
                     AND blob IS NOT NULL AND blob != ?5 {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                p.clone(),
                blob.clone(),
            ),
            ReachGroup::Dir(d) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach INDEXED BY reach_dir WHERE dir = ?1 {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                d.clone(),
                String::new(),
            ),
            ReachGroup::Under(d) => (
                format!(
                    "SELECT doc, path, bound, recency, kind FROM reach WHERE path > ?1 AND path < ?5 {filter} \
                     ORDER BY bound DESC, recency DESC LIMIT ?4"
                ),
                format!("{d}/"),
                format!("{d}0"),
            ),
        };
        let kinds = serde_json::to_string(kinds).expect("strings serialise");
        let statuses = serde_json::to_string(statuses).expect("strings serialise");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let row = |r: &rusqlite::Row<'_>| -> rusqlite::Result<ReachRow> {
            Ok(ReachRow {
                doc: r.get(0)?,
                path: r.get(1)?,
                bound: r.get(2)?,
                recency: r.get(3)?,
                kind: r.get(4)?,
            })
        };
        let rows: Vec<ReachRow> = match group {
            ReachGroup::Under(_)
            | ReachGroup::Path(_, Cut::Blob(_))
            | ReachGroup::Path(_, Cut::Other(_)) => {
                stmt.query_map(params![a, kinds, statuses, limit as i64, b], row)
            }
            _ => stmt.query_map(params![a, kinds, statuses, limit as i64], row),
        }
        .and_then(Iterator::collect)
        .map_err(|e| self.err(e))?;
        let all = rows.len() < limit;
        Ok((rows, all))
    }

    /// What each row of `ids` says its path held when the record was verified (`None`:
    /// not known yet), by document and path.
    pub fn reach_blobs(
        &self,
        ids: &[i64],
    ) -> Result<HashMap<(i64, String), Option<String>>, IndexError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let json = serde_json::to_string(ids).expect("integers serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT doc, path, blob FROM reach WHERE doc IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![json], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))
    }

    /// How many documents of `kinds` with a stored status of `statuses` (empty: any)
    /// reach `path` itself (from the counts kept beside the rows).
    pub fn reach_count(
        &self,
        path: &str,
        kinds: &[&str],
        statuses: &[&str],
    ) -> Result<usize, IndexError> {
        let kinds = serde_json::to_string(kinds).expect("strings serialise");
        let statuses = serde_json::to_string(statuses).expect("strings serialise");
        self.conn
            .prepare_cached(
                "SELECT coalesce(sum(n), 0) FROM reach_counts WHERE path = ?1 \
                 AND (?2 = '[]' OR kind IN (SELECT value FROM json_each(?2))) \
                 AND (?3 = '[]' OR status IN (SELECT value FROM json_each(?3)))",
            )
            .and_then(|mut s| s.query_row(params![path, kinds, statuses], |r| r.get::<_, i64>(0)))
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(|e| self.err(e))
    }

    /// The paths each of `ids` reaches (its references, its episode's changed files, its
    /// task's scope), each with how many documents reach it in all: what says something
    /// about a record (a path few reach) and what does not (a hub most reach).
    pub fn reached_by(
        &self,
        ids: &[i64],
    ) -> Result<HashMap<i64, Vec<(String, usize)>>, IndexError> {
        let mut out: HashMap<i64, Vec<(String, usize)>> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let json = serde_json::to_string(ids).expect("ids serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.doc, r.path, (SELECT coalesce(sum(n), 0) FROM reach_counts c WHERE c.path = r.path) \
                 FROM reach r WHERE r.doc IN (SELECT value FROM json_each(?1)) ORDER BY r.doc, r.path",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, String, i64)> = stmt
            .query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        for (doc, path, n) in rows {
            out.entry(doc)
                .or_default()
                .push((path, usize::try_from(n).unwrap_or(0)));
        }
        Ok(out)
    }

    /// The documents holding `term`, when at most `most` do (`None` when more do): one read
    /// of its postings, stopped past `most` documents.
    pub fn term_docs(&self, term: &str, most: usize) -> Result<Option<Vec<i64>>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT doc FROM fts_instances WHERE term = ?1 LIMIT ?2")
            .map_err(|e| self.err(e))?;
        let docs: Vec<i64> = stmt
            .query_map(params![term, (most + 1) as i64], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok((docs.len() <= most).then_some(docs))
    }

    /// The paths each of `ids` reaches, without their counts.
    pub fn paths_of(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<String>>, IndexError> {
        let mut out: HashMap<i64, Vec<String>> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let json = serde_json::to_string(ids).expect("ids serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT doc, path FROM reach WHERE doc IN (SELECT value FROM json_each(?1)) ORDER BY doc, path",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, String)> = stmt
            .query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        for (doc, path) in rows {
            out.entry(doc).or_default().push(path);
        }
        Ok(out)
    }

    /// How many documents reach each of `paths`.
    pub fn reach_totals(&self, paths: &[&str]) -> Result<HashMap<String, usize>, IndexError> {
        if paths.is_empty() {
            return Ok(HashMap::new());
        }
        let json = serde_json::to_string(paths).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path, coalesce(sum(n), 0) FROM reach_counts WHERE path IN (SELECT value FROM json_each(?1)) GROUP BY path",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, i64)> = stmt
            .query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(p, n)| (p, usize::try_from(n).unwrap_or(0)))
            .collect())
    }

    /// How many documents the index holds (from the counts its triggers keep).
    pub fn documents(&self) -> Result<usize, IndexError> {
        self.conn
            .query_row("SELECT coalesce(sum(n), 0) FROM doc_counts", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(|e| self.err(e))
    }

    /// The files each of `episodes` changed, as its session records list them.
    pub fn episode_files_of(
        &self,
        episodes: &[String],
    ) -> Result<HashMap<String, Vec<String>>, IndexError> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        if episodes.is_empty() {
            return Ok(out);
        }
        let json = serde_json::to_string(episodes).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT episode, path FROM episode_files WHERE episode IN (SELECT value FROM json_each(?1)) ORDER BY episode, path",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, String)> = stmt
            .query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        for (episode, path) in rows {
            out.entry(episode).or_default().push(path);
        }
        Ok(out)
    }

    /// Each of `tasks`' scope entries: `(pattern, the directory before its first glob
    /// character)`.
    pub fn scopes_of(
        &self,
        tasks: &[String],
    ) -> Result<HashMap<String, Vec<(String, String)>>, IndexError> {
        let mut out: HashMap<String, Vec<(String, String)>> = HashMap::new();
        if tasks.is_empty() {
            return Ok(out);
        }
        let json = serde_json::to_string(tasks).expect("strings serialise");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT task, pattern, prefix FROM scopes WHERE task IN (SELECT value FROM json_each(?1)) ORDER BY task, rowid",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, String, String)> = stmt
            .query_map(params![json], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.err(e))?;
        for (task, pattern, prefix) in rows {
            out.entry(task).or_default().push((pattern, prefix));
        }
        Ok(out)
    }
}
