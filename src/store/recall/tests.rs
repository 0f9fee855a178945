use rusqlite::params;

use super::lexical::LENS_CHUNK;
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

/// FTS5's own `bm25(fts, 2.0, 1.0, 0.0)` of every match of `terms` (the claim's: these
/// documents have no evidence), best first.
fn fts5_bm25(db: &RecallDb, terms: &[&str]) -> Vec<(i64, f64)> {
    let expr = terms
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut stmt = db
        .conn
        .prepare("SELECT rowid, -bm25(fts, 2.0, 1.0, 0.0) AS s FROM fts WHERE fts MATCH ?1 ORDER BY s DESC, rowid")
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
