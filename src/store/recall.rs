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

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

mod judged;
mod lexical;
mod reach;
mod worktree;

pub use judged::Judged;
pub use lexical::Lexical;
use lexical::{LENS_CHUNK, Lens, TermCounts, len_entry, lens_place};
pub use reach::{Cut, ReachGroup, ReachRow, parent_dir};

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

const SCHEMA: &str = r#"
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE docs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  line TEXT NOT NULL,
  text TEXT NOT NULL,
  searched TEXT NOT NULL,
  date TEXT NOT NULL,
  ts TEXT NOT NULL,
  episode TEXT,
  task TEXT,
  issue TEXT,
  intent TEXT,
  superseded_by TEXT,
  derives TEXT,
  place TEXT,
  offset INTEGER,
  branch TEXT,
  folded INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX docs_key ON docs(key, kind);
CREATE INDEX docs_source ON docs(source);
CREATE INDEX docs_episode ON docs(episode);
CREATE INDEX docs_task ON docs(task);
CREATE INDEX docs_issue ON docs(issue);
CREATE INDEX docs_intent ON docs(intent);
CREATE INDEX docs_derives ON docs(derives);
CREATE INDEX docs_kind_date ON docs(kind, ts DESC, key DESC);
CREATE INDEX docs_kind_status ON docs(kind, status, folded, ts);
CREATE INDEX docs_branch_date ON docs(kind, branch, ts DESC, key DESC);
CREATE INDEX docs_branch_status ON docs(kind, branch, status, folded, ts);
-- How many documents of each kind, branch ('' for none), status and fold there are, kept
-- by the triggers below: a listing's total without counting its rows (a count over 166k
-- decisions' index entries took 28 ms, at every briefing).
CREATE TABLE doc_counts(kind TEXT NOT NULL, branch TEXT NOT NULL, status TEXT NOT NULL, folded INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(kind, branch, status, folded)) WITHOUT ROWID;
CREATE TRIGGER docs_counted AFTER INSERT ON docs BEGIN
  INSERT INTO doc_counts VALUES (new.kind, coalesce(new.branch, ''), new.status, new.folded, 1)
    ON CONFLICT(kind, branch, status, folded) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER docs_uncounted AFTER DELETE ON docs BEGIN
  UPDATE doc_counts SET n = n - 1
    WHERE kind = old.kind AND branch = coalesce(old.branch, '') AND status = old.status AND folded = old.folded;
END;
CREATE TRIGGER docs_recounted AFTER UPDATE OF kind, branch, status, folded ON docs BEGIN
  UPDATE doc_counts SET n = n - 1
    WHERE kind = old.kind AND branch = coalesce(old.branch, '') AND status = old.status AND folded = old.folded;
  INSERT INTO doc_counts VALUES (new.kind, coalesce(new.branch, ''), new.status, new.folded, 1)
    ON CONFLICT(kind, branch, status, folded) DO UPDATE SET n = n + 1;
END;
CREATE VIRTUAL TABLE fts USING fts5(head, body, tokenize='ascii', content='', contentless_delete=1);
-- Each term's postings, one row per occurrence (doc, column): what BM25 is computed from.
CREATE VIRTUAL TABLE fts_instances USING fts5vocab(fts, 'instance');
-- Every document's length in tokens, LENS_CHUNK to a row (two bytes each, little-endian:
-- tokens + 1, 0 where there is no document): one read of this table gives every length
-- and the collection's statistics (FTS5's bm25() looked each match's length up with a
-- statement of its own: 21 ms of a 40 ms recall over 11k matches).
CREATE TABLE lens(chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
-- Every document's status factor in tenths (10 verified, 8 candidate, 4 superseded; 0: no
-- document), LENS_CHUNK to a row, one byte each: what a word's match could score at most,
-- known without reading its row.
CREATE TABLE ranks(chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE refs(doc INTEGER NOT NULL, path TEXT NOT NULL);
CREATE INDEX refs_path ON refs(path);
CREATE INDEX refs_doc ON refs(doc);
CREATE TABLE episodes(episode TEXT NOT NULL, source TEXT NOT NULL, branch TEXT, files INTEGER NOT NULL, PRIMARY KEY(episode, source)) WITHOUT ROWID;
CREATE TABLE episode_files(episode TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL);
CREATE INDEX episode_files_path ON episode_files(path);
CREATE INDEX episode_files_source ON episode_files(source);
CREATE INDEX episode_files_episode ON episode_files(episode);
CREATE TABLE tasks(task TEXT PRIMARY KEY, episode TEXT, issue TEXT, intent TEXT, description TEXT NOT NULL, started TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX tasks_issue ON tasks(issue);
CREATE TABLE scopes(task TEXT NOT NULL, pattern TEXT NOT NULL, prefix TEXT NOT NULL);
CREATE INDEX scopes_prefix ON scopes(prefix);
CREATE INDEX scopes_task ON scopes(task);
CREATE TABLE questions(id TEXT PRIMARY KEY, text TEXT NOT NULL, episode TEXT, task TEXT, asked TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE stamps(path TEXT PRIMARY KEY, stamp TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE verified(file TEXT PRIMARY KEY, blob TEXT NOT NULL, commit_id TEXT NOT NULL, subject TEXT NOT NULL, targets TEXT NOT NULL, tree TEXT NOT NULL) WITHOUT ROWID;
-- When each record was promoted, as the ledger (or a fetched journal) recorded it: a
-- curated record's recency (a record's date is only its evidence's day).
CREATE TABLE promoted(key TEXT NOT NULL, source TEXT NOT NULL, ts TEXT NOT NULL, PRIMARY KEY(key, source)) WITHOUT ROWID;
-- The paths each document reaches, at most one row a path: through its own references,
-- its episode's changed files and its task's scope (the best of them), with what reaching
-- the very path is worth (`weight`, millionths), that times its status's factor (`bound`),
-- its recency ("<ts> <key>") and what a search filters on. The index of a path, or of a
-- directory's files, keeps them best first, so a path's best records are read without
-- reading the others (SPEC §11): kept by the writes (recall::reach) and the triggers below.
-- `blob`: for a verified record's own reference, the path's blob id in the commit that
-- verified the record ('' where it was not there), once a read has worked that out (NULL
-- until then): whether the record is stale for that path is then one comparison with the
-- path's blob at HEAD, and the fresh ones of a path are read apart from the stale ones.
CREATE TABLE reach(doc INTEGER NOT NULL, path TEXT NOT NULL, dir TEXT NOT NULL, weight INTEGER NOT NULL, bound INTEGER NOT NULL, recency TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, blob TEXT, PRIMARY KEY(doc, path)) WITHOUT ROWID;
CREATE INDEX reach_path ON reach(path, bound DESC, recency DESC, kind, status);
CREATE INDEX reach_blob ON reach(path, blob, bound DESC, recency DESC, kind, status);
CREATE INDEX reach_dir ON reach(dir, bound DESC, recency DESC, kind, status);
-- How many documents reach each path, by kind and status: a search that reads a path's
-- best says how many there are without counting them.
CREATE TABLE reach_counts(path TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(path, kind, status)) WITHOUT ROWID;
CREATE TRIGGER reach_counted AFTER INSERT ON reach BEGIN
  INSERT INTO reach_counts VALUES (new.path, new.kind, new.status, 1)
    ON CONFLICT(path, kind, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER reach_uncounted AFTER DELETE ON reach BEGIN
  UPDATE reach_counts SET n = n - 1 WHERE path = old.path AND kind = old.kind AND status = old.status;
END;
CREATE TRIGGER reach_recounted AFTER UPDATE OF status ON reach BEGIN
  UPDATE reach_counts SET n = n - 1 WHERE path = old.path AND kind = old.kind AND status = old.status;
  INSERT INTO reach_counts VALUES (new.path, new.kind, new.status, 1)
    ON CONFLICT(path, kind, status) DO UPDATE SET n = n + 1;
END;
-- A document's status and recency are its rows' (a promotion, a ledger line settling).
CREATE TRIGGER docs_reach_status AFTER UPDATE OF status ON docs BEGIN
  UPDATE reach SET status = new.status,
    bound = weight * (CASE new.status WHEN 'verified' THEN 10 WHEN 'superseded' THEN 4 ELSE 8 END) / 10
    WHERE doc = new.id;
END;
CREATE TRIGGER docs_reach_recency AFTER UPDATE OF ts ON docs BEGIN
  UPDATE reach SET recency = new.ts || ' ' || new.key WHERE doc = new.id;
END;
-- The index as the work at hand last read it (outside .ai/): each tracked file's stat and
-- blob, kept with the staged paths (meta worktree.*) while the index file and HEAD's tree
-- are the same: the work tree's changes are then a stat of each of these files, not a
-- read of an index that lists every record too.
CREATE TABLE tracked(path TEXT PRIMARY KEY, secs INTEGER NOT NULL, nsecs INTEGER NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL, id TEXT NOT NULL) WITHOUT ROWID;
-- Which verified records a read judged at HEAD's tree `tree`, and which of those were
-- stale, one bit a document id each (ids are never reused): a search weighs its words'
-- matches by what they could still score without reading them (one row, the latest tree).
CREATE TABLE judged(tree TEXT PRIMARY KEY, known BLOB NOT NULL, stale BLOB NOT NULL) WITHOUT ROWID;
CREATE TRIGGER docs_unreached AFTER DELETE ON docs BEGIN
  DELETE FROM reach WHERE doc = old.id;
END;
"#;

/// The schema's digest (64-bit FNV-1a of its text, in hex): kept in `meta` at a build,
/// compared at each open.
fn schema_digest() -> String {
    let hash = SCHEMA.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
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

/// One document as it goes into the index.
#[derive(Debug, Clone, Default)]
pub struct NewDoc {
    pub kind: &'static str,
    pub key: String,
    /// `file:<rel path>` or `ledger`.
    pub source: String,
    pub status: &'static str,
    pub line: String,
    pub text: String,
    pub date: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub superseded_by: Option<String>,
    /// For a ledger line: the knowledge record id its derivation has.
    pub derives: Option<String>,
    /// For a knowledge record: candidates, curated or outbox.
    pub place: Option<&'static str>,
    /// For a ledger line: its byte offset.
    pub offset: Option<u64>,
    /// The tokens of the head (title, one line) and of the rest, space-joined.
    pub head_tokens: String,
    pub body_tokens: String,
    /// Paths the record cites (`file:`/`test:`, evidence).
    pub refs: Vec<String>,
}

/// One document as a read returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocRow {
    pub id: i64,
    pub kind: String,
    pub key: String,
    pub source: String,
    pub status: String,
    pub line: String,
    pub text: String,
    pub date: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub superseded_by: Option<String>,
    pub derives: Option<String>,
    pub place: Option<String>,
    pub offset: Option<i64>,
    /// The branch its episode ran on (its session record's, else its `session.opened`
    /// line's), kept current as records arrive.
    pub branch: Option<String>,
    /// A decision or an answer whose record (`derives`) is indexed too, and folded into
    /// it: kept by the writes, so a search looks up only these records.
    pub folded: bool,
    /// When it was recorded, for "newest first": a ledger line's time; a curated record's
    /// promotion as the ledger or a journal recorded it, else its date; a session record's
    /// close; a handover's and a conclusion's time.
    pub ts: String,
}

/// Every column but the text, which is read for the records shown only.
const DOC_COLUMNS: &str = "id, kind, key, source, status, line, '' AS text, date, episode, task, issue, intent, superseded_by, derives, place, offset, branch, folded, ts";

fn doc_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocRow> {
    Ok(DocRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        key: r.get(2)?,
        source: r.get(3)?,
        status: r.get(4)?,
        line: r.get(5)?,
        text: r.get(6)?,
        date: r.get(7)?,
        episode: r.get(8)?,
        task: r.get(9)?,
        issue: r.get(10)?,
        intent: r.get(11)?,
        superseded_by: r.get(12)?,
        derives: r.get(13)?,
        place: r.get(14)?,
        offset: r.get(15)?,
        branch: r.get(16)?,
        folded: r.get::<_, i64>(17)? != 0,
        ts: r.get(18)?,
    })
}

/// A staleness judgement kept for a curated file: what its verifying commit held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedAt {
    /// The curated file's blob id at HEAD when this was worked out.
    pub blob: String,
    pub commit: String,
    pub subject: String,
    /// Each cited path's blob id in the verifying commit (absent: it did not hold it).
    pub targets: HashMap<String, String>,
    /// The id of the tree of the file's directory at HEAD when `blob` was read: while
    /// HEAD's directory is that very tree, `blob` is still the file's blob at HEAD.
    pub tree: String,
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

/// Reads, inside or outside a transaction.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    conn: &'a Connection,
    path: &'a Option<PathBuf>,
}

/// Writes, inside one transaction; reads too.
pub struct Writer<'a> {
    conn: &'a Connection,
    path: &'a Option<PathBuf>,
    /// The `lens` rows this transaction changed, by chunk: written once, at its end.
    lens: RefCell<BTreeMap<i64, Vec<u8>>>,
    /// The `ranks` rows this transaction changed, by chunk.
    ranks: RefCell<BTreeMap<i64, Vec<u8>>>,
}

impl Writer<'_> {
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            conn: self.conn,
            path: self.path,
        }
    }

    fn err(&self, e: impl std::fmt::Display) -> IndexError {
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
        let status = record.unwrap_or(doc.status.to_owned());
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
                    doc.superseded_by,
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
            .prepare_cached("INSERT INTO fts(rowid, head, body) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![id, doc.head_tokens, doc.body_tokens]))
            .map_err(|e| self.err(e))?;
        // The tokens FTS5 counted: ours, space-joined, each one token to its ASCII tokenizer.
        let tokens =
            doc.head_tokens.split_whitespace().count() + doc.body_tokens.split_whitespace().count();
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
    fn record_status(&self, record: &str) -> Result<Option<String>, IndexError> {
        self.conn
            .prepare_cached(
                "SELECT status FROM docs WHERE key = ?1 AND kind = 'knowledge' \
                 ORDER BY CASE status WHEN 'verified' THEN 0 WHEN 'superseded' THEN 1 ELSE 2 END LIMIT 1",
            )
            .and_then(|mut s| s.query_row(params![record], |r| r.get(0)).optional())
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
    /// copies lie in two places), `candidate` when there is none; and whether they are
    /// folded into it (it is indexed).
    fn settle_lines(&self, key: &str) -> Result<(), IndexError> {
        self.conn
            .prepare_cached(
                "UPDATE docs SET status = COALESCE((SELECT k.status FROM docs k WHERE k.key = ?1 AND k.kind = 'knowledge' \
                 ORDER BY CASE k.status WHEN 'verified' THEN 0 WHEN 'superseded' THEN 1 ELSE 2 END LIMIT 1), 'candidate'), \
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
    fn flush_ranks(&self) -> Result<(), IndexError> {
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
    fn flush_lens(&self) -> Result<(), IndexError> {
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

/// A path's directories, nearest first (`a/b/c.rs` → `a/b`, `a`).
pub fn ancestors(path: &str) -> Vec<&str> {
    path.match_indices('/')
        .map(|(i, _)| &path[..i])
        .rev()
        .collect()
}

impl Reader<'_> {
    fn err(&self, e: impl std::fmt::Display) -> IndexError {
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
    /// twice the body), best first, ties by id: FTS5's `bm25(fts, 2.0, 1.0)`, computed
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
        let mut postings: Vec<Vec<(i64, f64)>> = Vec::with_capacity(terms.len());
        for term in terms {
            let mut counts = TermCounts::default();
            let mut rows = stmt.query(params![term]).map_err(|e| self.err(e))?;
            while let Some(row) = rows.next().map_err(|e| self.err(e))? {
                let doc: i64 = row.get(0).map_err(|e| self.err(e))?;
                let col = row.get_ref(1).map_err(|e| self.err(e))?;
                counts.add(doc, matches!(col, rusqlite::types::ValueRef::Text(b"head")));
            }
            postings.push(counts.finish(&lens));
        }
        Ok(Lexical::rank(&lens, &postings))
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

/// An episode as the index knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpisodeRow {
    pub branch: Option<String>,
    pub files: usize,
    /// A session record told it (not only the ledger).
    pub from_record: bool,
}

/// A task as its `task.started` line named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    pub task: String,
    pub episode: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub description: String,
    pub started: String,
    pub scope: Vec<String>,
}

/// The columns [`Reader::docs_where`] and [`Reader::tasks_with`] filter on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Episode,
    Task,
    Issue,
    Intent,
    Key,
    Derives,
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Episode => "episode",
            Column::Task => "task",
            Column::Issue => "issue",
            Column::Intent => "intent",
            Column::Key => "key",
            Column::Derives => "derives",
        }
    }
}

fn json_ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).expect("integers serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(key: &str, head: &str, body: &str) -> NewDoc {
        NewDoc {
            kind: "knowledge",
            key: key.into(),
            source: format!("file:{key}"),
            status: "verified",
            line: head.into(),
            text: body.into(),
            date: "2026-11-30".into(),
            head_tokens: crate::model::recall::tokens(head).join(" "),
            body_tokens: crate::model::recall::tokens(body).join(" "),
            refs: vec!["src/a/b.rs".into(), "src/c".into()],
            ..NewDoc::default()
        }
    }

    #[test]
    fn literal_prefixes_and_ancestors() {
        assert_eq!(literal_prefix("src/a/**"), "src/a");
        assert_eq!(literal_prefix("src/a/*.rs"), "src/a");
        assert_eq!(literal_prefix("src/a/"), "src/a");
        assert_eq!(literal_prefix("src/a.rs"), "src/a.rs");
        assert_eq!(literal_prefix("**/*.rs"), "");
        assert_eq!(ancestors("a/b/c.rs"), ["a/b", "a"]);
        assert!(ancestors("c.rs").is_empty());
    }

    #[test]
    fn documents_are_found_by_terms_and_paths_and_deleted_by_source() {
        let mut db = RecallDb::in_memory().expect("memory index");
        let (k1, k2) = db
            .write(|w| {
                let k1 = w.insert_doc(&doc(
                    "k1",
                    "Parse YAML with yaml_serde",
                    "the parser reads front matter",
                ))?;
                let k2 = w.insert_doc(&NewDoc {
                    refs: vec!["src/a/x.rs".into()],
                    ..doc("k2", "Ledger appends take the lock", "one write per line")
                })?;
                Ok((k1, k2))
            })
            .expect("write");
        let r = db.reader();
        let hits = r.lexical(&["yaml".into()]).expect("lexical");
        assert_eq!(hits.top(10).iter().map(|h| h.0).collect::<Vec<_>>(), [k1]);
        assert!(hits.top(10)[0].1 > 0.0);
        // Syntax in a term is never syntax: such a term is looked up, and matches nothing.
        assert!(
            r.lexical(&["\"AND".into(), "*".into()])
                .expect("lexical")
                .is_empty()
        );
        fn top(db: &RecallDb, group: ReachGroup) -> Vec<(i64, String, i64)> {
            let (rows, all) = db.reader().reach_top(&group, &[], &[], 10).expect("reach");
            assert!(all, "ten rows hold them all");
            rows.into_iter().map(|r| (r.doc, r.path, r.bound)).collect()
        }
        // A cited file, a verified record's reference: 3 (millionths).
        let cites = |doc: i64, path: &str| (doc, path.to_owned(), 3_000_000);
        assert_eq!(
            top(&db, ReachGroup::Path("src/a/b.rs".into(), Cut::All)),
            [cites(k1, "src/a/b.rs")]
        );
        // A cited directory is a path of its own.
        assert_eq!(
            top(&db, ReachGroup::Path("src/c".into(), Cut::All)),
            [cites(k1, "src/c")]
        );
        // The files of a directory, equals newest first (then the greater key).
        assert_eq!(
            top(&db, ReachGroup::Dir("src/a".into())),
            [cites(k2, "src/a/x.rs"), cites(k1, "src/a/b.rs")]
        );
        let mut under = top(&db, ReachGroup::Under("src".into()));
        under.sort();
        assert_eq!(
            under,
            [
                cites(k1, "src/a/b.rs"),
                cites(k1, "src/c"),
                cites(k2, "src/a/x.rs")
            ]
        );
        assert_eq!(top(&db, ReachGroup::Under("src/a/b.rs".into())), []);
        assert_eq!(
            db.reader()
                .reach_count("src/a/b.rs", &[], &[])
                .expect("count"),
            1
        );
        assert_eq!(
            db.reader()
                .reach_count("src/a/b.rs", &["knowledge"], &["candidate"])
                .expect("count"),
            0
        );
        // A promotion recorded later makes k1 the newest of the directory's equals.
        db.write(|w| w.set_promoted("k1", "ledger", "2026-12-01T09:00:00Z"))
            .expect("promoted");
        assert_eq!(
            top(&db, ReachGroup::Dir("src/a".into())),
            [cites(k1, "src/a/b.rs"), cites(k2, "src/a/x.rs")]
        );
        db.write(|w| w.delete_source("file:k1")).expect("delete");
        assert!(
            db.reader()
                .lexical(&["yaml".into()])
                .expect("lexical")
                .is_empty()
        );
        assert_eq!(
            top(&db, ReachGroup::Path("src/a/b.rs".into(), Cut::All)),
            []
        );
        assert_eq!(
            top(&db, ReachGroup::Dir("src/a".into())),
            [cites(k2, "src/a/x.rs")]
        );
        assert_eq!(
            db.reader()
                .reach_count("src/a/b.rs", &[], &[])
                .expect("count"),
            0
        );
    }

    #[test]
    fn a_paths_records_are_read_fresh_unknown_or_stale_by_the_blob_they_were_verified_with() {
        let mut db = RecallDb::in_memory().expect("memory index");
        let (a, b, c) = db
            .write(|w| {
                let cites = |key: &str| NewDoc {
                    refs: vec!["src/x.rs".into()],
                    ..doc(key, "A record", "x")
                };
                let a = w.insert_doc(&cites("a"))?;
                let b = w.insert_doc(&cites("b"))?;
                let c = w.insert_doc(&cites("c"))?;
                // a was verified when src/x.rs held blob 1, b when it held blob 2; c is
                // not judged yet.
                w.set_reach_blobs(&[
                    (a, "src/x.rs".into(), "1".into()),
                    (b, "src/x.rs".into(), "2".into()),
                ])?;
                Ok((a, b, c))
            })
            .expect("write");
        fn docs(db: &RecallDb, cut: Cut) -> Vec<i64> {
            let (rows, _) = db
                .reader()
                .reach_top(&ReachGroup::Path("src/x.rs".into(), cut), &[], &[], 10)
                .expect("reach");
            let mut out: Vec<i64> = rows.into_iter().map(|r| r.doc).collect();
            out.sort();
            out
        }
        // HEAD holds blob 2: b is fresh, a stale, c unknown.
        assert_eq!(docs(&db, Cut::Blob("2".into())), [b]);
        assert_eq!(docs(&db, Cut::Other("2".into())), [a]);
        assert_eq!(docs(&db, Cut::Unknown), [c]);
        assert_eq!(docs(&db, Cut::All), [a, b, c]);
        // Recomputing a record's rows forgets what was judged of it.
        db.write(|w| w.reach_docs(&[a])).expect("reach");
        assert_eq!(docs(&db, Cut::Unknown), [a, c]);
        let blobs = db.reader().reach_blobs(&[a, b]).expect("blobs");
        assert_eq!(blobs[&(a, "src/x.rs".to_owned())], None);
        assert_eq!(blobs[&(b, "src/x.rs".to_owned())].as_deref(), Some("2"));
    }

    #[test]
    fn a_status_change_reorders_a_paths_records_and_moves_its_counts() {
        let mut db = RecallDb::in_memory().expect("memory index");
        let (line, record) = db
            .write(|w| {
                // A decision line citing a file, then the candidate its derivation wrote.
                let line = w.insert_doc(&NewDoc {
                    kind: "decision",
                    key: "d1".into(),
                    source: "ledger".into(),
                    status: "candidate",
                    derives: Some("r1".into()),
                    refs: vec!["src/a.rs".into()],
                    ..doc("d1", "Keep the lock", "x")
                })?;
                let record = w.insert_doc(&NewDoc {
                    status: "candidate",
                    refs: vec!["src/a.rs".into()],
                    ..doc("r1", "Keep the lock", "x")
                })?;
                Ok((line, record))
            })
            .expect("write");
        let bounds = |db: &RecallDb| -> Vec<(i64, i64)> {
            let (rows, _) = db
                .reader()
                .reach_top(&ReachGroup::Path("src/a.rs".into(), Cut::All), &[], &[], 10)
                .expect("reach");
            let mut out: Vec<(i64, i64)> = rows.into_iter().map(|r| (r.doc, r.bound)).collect();
            out.sort();
            out
        };
        // Candidates: 3 × 0.8.
        assert_eq!(bounds(&db), [(line, 2_400_000), (record, 2_400_000)]);
        assert_eq!(
            db.reader()
                .reach_count("src/a.rs", &[], &["candidate"])
                .expect("count"),
            2
        );
        // The record is promoted (its file moves to curated/: removed and added again);
        // the line takes its status: both rows follow.
        db.write(|w| {
            w.delete_source("file:r1")?;
            w.insert_doc(&NewDoc {
                source: "file:curated/r1".into(),
                status: "verified",
                refs: vec!["src/a.rs".into()],
                ..doc("r1", "Keep the lock", "x")
            })
        })
        .expect("promote");
        let verified = bounds(&db);
        assert_eq!(verified.len(), 2);
        assert!(
            verified.iter().all(|(_, b)| *b == 3_000_000),
            "{verified:?}"
        );
        assert_eq!(
            db.reader()
                .reach_count("src/a.rs", &[], &["verified"])
                .expect("count"),
            2
        );
        assert_eq!(
            db.reader()
                .reach_count("src/a.rs", &[], &["candidate"])
                .expect("count"),
            0
        );
    }

    /// Every listing total the kept counts give, against counting the rows.
    fn assert_counts_match_rows(db: &RecallDb) {
        let r = db.reader();
        for kind in ["decision", "question", "knowledge"] {
            for statuses in [
                &["candidate"][..],
                &["verified"],
                &["verified", "candidate", "superseded"],
            ] {
                for branch in [None, Some("main"), Some("topic")] {
                    for fold in [false, true] {
                        let (_, counted) = r
                            .listing(kind, statuses, branch, None, fold, 1)
                            .expect("listing");
                        // A `since` before everything counts the rows themselves.
                        let (_, scanned) = r
                            .listing(kind, statuses, branch, Some("2000-01-01"), fold, 1)
                            .expect("listing");
                        assert_eq!(
                            counted, scanned,
                            "{kind} {statuses:?} {branch:?} fold={fold}"
                        );
                    }
                }
            }
        }
    }

    /// FTS5's own `bm25(fts, 2.0, 1.0)` of every match of `terms`, best first.
    fn fts5_bm25(db: &RecallDb, terms: &[&str]) -> Vec<(i64, f64)> {
        let expr = terms
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let mut stmt = db
            .conn
            .prepare("SELECT rowid, -bm25(fts, 2.0, 1.0) AS s FROM fts WHERE fts MATCH ?1 ORDER BY s DESC, rowid")
            .expect("prepare");
        stmt.query_map(params![expr], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .expect("bm25")
    }

    fn assert_lexical_is_fts5s(db: &RecallDb, terms: &[&str]) {
        let owned: Vec<String> = terms.iter().map(|t| (*t).to_owned()).collect();
        let ours = db.reader().lexical(&owned).expect("lexical");
        let theirs = fts5_bm25(db, terms);
        assert_eq!(ours.len(), theirs.len(), "{terms:?}");
        for ((id, score), (their_id, their_score)) in ours.top(usize::MAX).iter().zip(&theirs) {
            assert_eq!(
                id,
                their_id,
                "{terms:?}: {:?} against {theirs:?}",
                ours.top(10)
            );
            assert_eq!(
                score.to_bits(),
                their_score.to_bits(),
                "{id}: {score} against {their_score}"
            );
            assert_eq!(ours.of(*id), Some(*score));
        }
        // The best k are the first k of the whole order, whatever k.
        let all = ours.top(usize::MAX);
        let n = all.len();
        for k in [0, 1, 2, 3, 7, n.saturating_sub(1), n, n + 5] {
            assert_eq!(ours.top(k), all[..k.min(all.len())], "{terms:?}: top {k}");
        }
    }

    #[test]
    fn lexical_scores_are_fts5s_bm25_through_inserts_deletes_and_chunks() {
        let mut db = RecallDb::in_memory().expect("memory index");
        let words = ["ledger", "index", "hook", "commit", "journal", "recall"];
        // More documents than one lens row holds, of lengths from 1 to 40 tokens, the
        // terms in heads and bodies in varying counts.
        db.write(|w| {
            for n in 0..(LENS_CHUNK + 300) {
                let head = words[n % words.len()];
                let body: Vec<&str> = (0..(n % 40))
                    .map(|i| words[(n * 7 + i) % words.len()])
                    .collect();
                w.insert_doc(&doc(&format!("k{n}"), head, &body.join(" ")))?;
            }
            Ok(())
        })
        .expect("write");
        for terms in [
            &["ledger"][..],
            &["ledger", "hook"],
            &["recall", "journal", "index"],
            &["absent"],
        ] {
            assert_lexical_is_fts5s(&db, terms);
        }
        // Deleted documents leave the counts, the lengths and the matches, in another
        // transaction; new ones take their place.
        db.write(|w| {
            for n in (0..LENS_CHUNK + 300).step_by(3) {
                w.delete_source(&format!("file:k{n}"))?;
            }
            w.insert_doc(&doc("late", "ledger ledger", "a hook in the body"))?;
            Ok(())
        })
        .expect("write");
        for terms in [&["ledger"][..], &["ledger", "hook"], &["commit"]] {
            assert_lexical_is_fts5s(&db, terms);
        }
        // Code-aware text: compounds, camelCase, paths, digits and non-ASCII letters are
        // each one FTS5 term and one token of the length FTS5 counts.
        db.write(|w| {
            for (n, (head, body)) in [
                (
                    "LedgerIndex in src/ledger/index.rs",
                    "ledger_index café Ünïcode v1.2 sha256 HTTPServer",
                ),
                (
                    "the ledger_index moved",
                    "naïve ledger; (index) \"quoted\" AND ledger* field:x ^y ~z",
                ),
                (
                    "ÜNÏCODE café",
                    "src/ledger/index.rs:42 fooBar foo_bar foo-bar",
                ),
            ]
            .into_iter()
            .enumerate()
            {
                w.insert_doc(&doc(&format!("code{n}"), head, body))?;
            }
            Ok(())
        })
        .expect("write");
        for terms in [
            &["ledgerindex"][..],
            &["ledger", "index"],
            &["café", "ünïcode"],
            &["sha256", "httpserver", "foobar"],
        ] {
            assert_lexical_is_fts5s(&db, terms);
            let owned: Vec<String> = terms.iter().map(|t| (*t).to_owned()).collect();
            let found = db.reader().lexical(&owned).expect("lexical");
            assert!(!found.is_empty(), "{terms:?} matches a code-aware record");
        }
        let all: Vec<String> = vec!["ledger".into()];
        let lexical = db.reader().lexical(&all).expect("lexical");
        assert!(lexical.of(1).is_none(), "k0 was deleted");
        assert!(!lexical.is_empty());
    }

    #[test]
    fn listing_totals_kept_by_triggers_match_counting_the_rows() {
        let mut db = RecallDb::in_memory().expect("memory index");
        let line = |key: &str, kind: &'static str, record: &str, episode: &str| NewDoc {
            kind,
            key: key.into(),
            source: "ledger".into(),
            status: "candidate",
            line: key.into(),
            date: "2026-11-30T10:00:00Z".into(),
            episode: Some(episode.into()),
            derives: Some(record.into()),
            ..NewDoc::default()
        };
        db.write(|w| {
            w.insert_episode("e1", "ledger", Some("main"), &[])?;
            for n in 0..6 {
                w.insert_doc(&line(
                    &format!("d{n}"),
                    "decision",
                    &format!("k{}", n % 3),
                    "e1",
                ))?;
            }
            w.insert_doc(&line("q1", "question", "k1", "e1"))?;
            // An episode whose branch is known only later.
            w.insert_doc(&line("d9", "decision", "k2", "e2"))?;
            Ok(())
        })
        .expect("write");
        assert_counts_match_rows(&db);
        // A record arrives: its lines fold into it and take its status.
        db.write(|w| {
            w.insert_doc(&doc("k1", "Parse YAML", "front matter"))
                .map(drop)
        })
        .expect("write");
        assert_counts_match_rows(&db);
        let (_, folded) = db
            .reader()
            .listing("decision", &["verified"], None, None, true, 10)
            .expect("listing");
        let (_, all) = db
            .reader()
            .listing("decision", &["verified"], None, None, false, 10)
            .expect("listing");
        assert_eq!(
            (folded, all),
            (0, 2),
            "k1's two decisions are verified and folded"
        );
        // A branch settles later; a record and a ledger go.
        db.write(|w| w.insert_episode("e2", "ledger", Some("topic"), &[]))
            .expect("write");
        assert_counts_match_rows(&db);
        db.write(|w| w.delete_source("file:k1")).expect("delete");
        assert_counts_match_rows(&db);
        db.write(|w| w.clear_ledger()).expect("clear");
        assert_counts_match_rows(&db);
        let (_, none) = db
            .reader()
            .listing("decision", &["candidate"], None, None, false, 10)
            .expect("listing");
        assert_eq!(none, 0);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_rebuilt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("recall.sqlite");
        std::fs::write(&path, b"garbage, not a database").expect("write");
        let (db, fresh) = RecallDb::open(&path).expect("open");
        assert!(matches!(fresh, Some((Fresh::Unreadable, _))), "{fresh:?}");
        assert_eq!(db.reader().meta("x").expect("meta"), None);
        drop(db);
        let (_, fresh) = RecallDb::open(&path).expect("reopen");
        assert!(fresh.is_none());
    }
}
