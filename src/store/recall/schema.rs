//! The schema of the recall index: its tables, indexes and triggers, and the digest that
//! tells an index built with another schema (rebuilt).

pub(super) const SCHEMA: &str = r#"
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
-- A knowledge record's claim is its head and body; what it says beside its claim (its
-- evidence, why it was rejected or superseded) is a column of its own, weighed apart.
CREATE VIRTUAL TABLE fts USING fts5(head, body, evidence, tokenize='ascii', content='', contentless_delete=1);
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
-- The identifiers of each source file committed at HEAD (`model::recall::signal::code`):
-- each as its case-folded compound term, the files that hold it; and each file read, with
-- its blob, so that a new HEAD re-reads only the files that changed (meta `code.tree`).
CREATE TABLE code_terms(term TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY(term, path)) WITHOUT ROWID;
CREATE INDEX code_terms_path ON code_terms(path);
CREATE TABLE code_files(path TEXT PRIMARY KEY, blob TEXT NOT NULL) WITHOUT ROWID;
CREATE TRIGGER docs_unreached AFTER DELETE ON docs BEGIN
  DELETE FROM reach WHERE doc = old.id;
END;
"#;

/// The schema's digest (64-bit FNV-1a of its text, in hex): kept in `meta` at a build,
/// compared at each open.
pub(super) fn schema_digest() -> String {
    let hash = SCHEMA.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}
