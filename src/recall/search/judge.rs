//! Staleness: a verified record whose cited files moved since the commit that verified it
//! is stale. Judged for the verified records from the top down, until the records that
//! will be shown are all judged — by the index of paths where it knows what each cited
//! path held, else by git's history (kept in the index per record blob) — and, for a stale
//! record shown, the commit that verified it (its why names it).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{HitStatus, order, score};
use crate::store::recall::{Judged, RecallDb, VerifiedAt};

use super::{Found, Query, RecallKind, index_failed};

/// Judges `found` from the top down: a stale record only falls, so an unjudged one below
/// the records that will be shown cannot pass them; all of them when the filter tells
/// stale from verified. Leaves `found` ordered; returns the records the index judged.
pub(super) fn top_down(
    ctx: &Ctx,
    db: &mut RecallDb,
    query: &Query,
    found: &mut Vec<Found>,
    judged: &mut Judged,
) -> Result<HashSet<i64>, Error> {
    let filter_splits =
        query.statuses.contains(&HitStatus::Stale) != query.statuses.contains(&HitStatus::Verified);
    let mut judged_here: HashSet<i64> = HashSet::new();
    let mut phase = crate::timing::Phase::start("recall.judge");
    // A record whose every cited path's blob at its verification the index of paths keeps
    // (an earlier read judged it) is judged by comparing those with HEAD's, without git's
    // history: stale where one differs. Only a stale one shown is judged again, for the
    // commit that verified it (its why names it).
    let by_index = judge_by_index(ctx, db, found, judged)?;
    judged_here.extend(by_index.iter().copied());
    phase.count("by_index", by_index.len());
    // The window judged grows twice as wide each round: where most of the top turns out
    // stale, the rounds stay few (each orders every record found).
    let mut wide = query.limit + 8;
    loop {
        order(found);
        let window = if filter_splits { found.len() } else { wide };
        wide = wide.saturating_mul(2);
        let batch: Vec<usize> = found
            .iter()
            .enumerate()
            .take(window)
            .filter(|(_, f)| {
                f.status == HitStatus::Verified
                    && f.kind == RecallKind::Knowledge
                    && f.doc.place.as_deref() == Some("curated")
                    && !judged_here.contains(&f.doc.id)
            })
            .map(|(i, _)| i)
            .collect();
        if batch.is_empty() {
            break;
        }
        let judgements = judge(ctx, db, found, &batch)?;
        for (i, judgement) in batch.into_iter().zip(judgements) {
            let f = &mut found[i];
            judged_here.insert(f.doc.id);
            if let Some((commit, subject, moved)) = judgement {
                f.verified_in = Some((commit, subject));
                judged.note(f.doc.id, !moved.is_empty());
                if !moved.is_empty() {
                    f.status = HitStatus::Stale;
                    f.moved = moved;
                    f.score = score(&f.signals, f.status);
                }
            }
        }
    }
    let lines = judge_lines(ctx, db, query, found, judged)?;
    phase.count("judged", judged_here.len());
    phase.count("lines", lines);
    phase.end();
    Ok(by_index)
}

/// Verified records judged at most per [`warm`] (a briefing or a `recall`): a store built
/// or fetched with more is judged over the next reads.
pub const WARM_MOST: usize = 20_000;
/// The meta key holding the last document id [`warm`] looked at.
const WARMED: &str = "warm.after";

/// Judges, by git's history, every verified record no read has judged yet, in one batch
/// (one walk of history for all of them), so that a hook at the moment of work finds each
/// record it reaches judged by the index: a briefing and a `recall` call it, as they bring
/// the identifiers to HEAD. A record is judged so once per promotion (its verifying commit
/// is kept per record blob), and looked at once: only the documents indexed since the last
/// warm-up are (a record not judged then, not committed yet, is judged when a read reaches
/// it, as before). With nothing new, this reads no row. Returns how many it judged.
pub fn warm(ctx: &Ctx, db: &mut RecallDb) -> Result<usize, Error> {
    let after: i64 = db
        .reader()
        .meta(WARMED)
        .map_err(index_failed)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let (rows, last) = db
        .reader()
        .unjudged_verified(after, WARM_MOST)
        .map_err(index_failed)?;
    // Up to the last document read (all of them unless the batch was full).
    let upto = if rows.len() == WARM_MOST {
        rows.last().map_or(last, |r| r.id)
    } else {
        last
    };
    let judged = rows.len();
    if !rows.is_empty() {
        let mut phase = crate::timing::Phase::start("recall.warm");
        let found: Vec<Found> = rows.into_iter().map(Found::verified_record).collect();
        let batch: Vec<usize> = (0..found.len()).collect();
        judge(ctx, db, &found, &batch)?;
        phase.count("records", found.len());
    }
    if upto != after {
        // Not kept, the next read looks again: nothing else is lost.
        let _ = db.write(|w| w.set_meta(WARMED, &upto.to_string()));
    }
    Ok(judged)
}

/// A decision or an answer is its knowledge record's claim: one status on every surface.
/// A line whose record is verified (so the line's stored status says `verified`) is stale
/// when its record is (`recall --kind decision` must not call verified what `--kind
/// knowledge` calls stale). Judged from the top down, as records are; the record's rows
/// are read by the line's `derives`, judged by the index where it knows them, else by
/// git's history. Returns how many lines were judged.
fn judge_lines(
    ctx: &Ctx,
    db: &mut RecallDb,
    query: &Query,
    found: &mut Vec<Found>,
    judged: &mut Judged,
) -> Result<usize, Error> {
    let is_line = |f: &Found| {
        f.kind != RecallKind::Knowledge
            && f.status == HitStatus::Verified
            && f.doc.derives.is_some()
    };
    if !found.iter().any(is_line) {
        return Ok(0);
    }
    let filter_splits =
        query.statuses.contains(&HitStatus::Stale) != query.statuses.contains(&HitStatus::Verified);
    order(found);
    let window = if filter_splits {
        found.len()
    } else {
        query.limit + 8
    };
    let lines: Vec<usize> = found
        .iter()
        .enumerate()
        .take(window)
        .filter(|(_, f)| is_line(f))
        .map(|(i, _)| i)
        .collect();
    if lines.is_empty() {
        return Ok(0);
    }
    let keys: Vec<String> = lines
        .iter()
        .filter_map(|&i| found[i].doc.derives.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut records: Vec<Found> = db
        .reader()
        .docs_where(crate::store::recall::Column::Key, &keys)
        .map_err(index_failed)?
        .into_iter()
        .filter(|r| {
            r.kind == "knowledge" && r.status == "verified" && r.place.as_deref() == Some("curated")
        })
        .map(Found::verified_record)
        .collect();
    if records.is_empty() {
        return Ok(0);
    }
    let by_index = judge_by_index(ctx, db, &mut records, judged)?;
    // The rest by history; a stale one judged by the index again, for its verifying
    // commit (the line's why names it).
    let batch: Vec<usize> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| !by_index.contains(&r.doc.id) || r.status == HitStatus::Stale)
        .map(|(i, _)| i)
        .collect();
    if !batch.is_empty() {
        let judgements = judge(ctx, db, &records, &batch)?;
        for (i, judgement) in batch.into_iter().zip(judgements) {
            if let Some((commit, subject, moved)) = judgement {
                let r = &mut records[i];
                r.verified_in = Some((commit, subject));
                if !by_index.contains(&r.doc.id) {
                    judged.note(r.doc.id, !moved.is_empty());
                }
                if !moved.is_empty() {
                    r.status = HitStatus::Stale;
                    r.moved = moved;
                }
            }
        }
    }
    let stale: HashMap<&str, &Found> = records
        .iter()
        .filter(|r| r.status == HitStatus::Stale)
        .map(|r| (r.doc.key.as_str(), r))
        .collect();
    for &i in &lines {
        let f = &mut found[i];
        if let Some(record) = f.doc.derives.as_deref().and_then(|k| stale.get(k)) {
            f.status = HitStatus::Stale;
            f.moved.clone_from(&record.moved);
            f.verified_in.clone_from(&record.verified_in);
            f.score = score(&f.signals, f.status);
        }
    }
    Ok(lines.len())
}

/// The stale records shown that the index judged: their verifying commit, for the why.
pub(super) fn verifying_commits(
    ctx: &Ctx,
    db: &mut RecallDb,
    found: &mut [Found],
    by_index: &HashSet<i64>,
) -> Result<(), Error> {
    let again: Vec<usize> = found
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.status == HitStatus::Stale && f.verified_in.is_none() && by_index.contains(&f.doc.id)
        })
        .map(|(i, _)| i)
        .collect();
    if !again.is_empty() {
        let judgements = judge(ctx, db, found, &again)?;
        for (i, judgement) in again.into_iter().zip(judgements) {
            if let Some((commit, subject, moved)) = judgement
                && !moved.is_empty()
            {
                found[i].verified_in = Some((commit, subject));
                found[i].moved = moved;
            }
        }
    }
    Ok(())
}

/// Judges the verified curated records of `found` whose every reference the index of
/// paths knows the verified blob of (a read judged them before, and neither the record nor
/// its references' rows changed since): a reference whose path holds another blob at HEAD
/// moved. A record already judged at this HEAD (`judged`) takes that judgement; the others
/// judged are noted there. Returns the records so judged.
fn judge_by_index(
    ctx: &Ctx,
    db: &RecallDb,
    found: &mut [Found],
    judged: &mut Judged,
) -> Result<HashSet<i64>, Error> {
    let mut out = HashSet::new();
    let mut candidates: Vec<usize> = Vec::new();
    for (i, f) in found.iter_mut().enumerate() {
        if f.status != HitStatus::Verified
            || f.kind != RecallKind::Knowledge
            || f.doc.place.as_deref() != Some("curated")
        {
            continue;
        }
        match judged.of(f.doc.id) {
            Some(stale) => {
                if stale {
                    f.status = HitStatus::Stale;
                    f.score = score(&f.signals, f.status);
                }
                out.insert(f.doc.id);
            }
            None => candidates.push(i),
        }
    }
    if candidates.is_empty() {
        return Ok(out);
    }
    let ids: Vec<i64> = candidates.iter().map(|&i| found[i].doc.id).collect();
    let r = db.reader();
    let cited = r.refs_of(&ids).map_err(index_failed)?;
    let held = r.reach_blobs(&ids).map_err(index_failed)?;
    let paths: BTreeSet<&str> = cited.values().flatten().map(String::as_str).collect();
    let at_head = ctx.repo.blob_ids_looked_up(None, paths.iter().copied())?;
    for i in candidates {
        let f = &mut found[i];
        let Some(refs) = cited.get(&f.doc.id).filter(|r| !r.is_empty()) else {
            continue;
        };
        let mut moved = Vec::new();
        let mut known = true;
        for path in refs {
            let Some(Some(then)) = held.get(&(f.doc.id, path.clone())) else {
                known = false;
                break;
            };
            let change = match (then.as_str(), at_head.get(path)) {
                ("", None) => continue,
                ("", Some(_)) => "added",
                (_, None) => "deleted",
                (a, Some(b)) if a != b => "changed",
                _ => continue,
            };
            moved.push((path.clone(), change));
        }
        if !known {
            continue;
        }
        judged.note(f.doc.id, !moved.is_empty());
        if !moved.is_empty() {
            f.status = HitStatus::Stale;
            f.moved = moved;
            f.score = score(&f.signals, f.status);
        }
        out.insert(f.doc.id);
    }
    Ok(out)
}

/// `(verifying commit, its subject, moved targets)` for each record at `batch`; `None`
/// for one that cannot be judged (not committed yet, beyond a shallow boundary, no cited
/// file).
type Judgement = Option<(String, String, Vec<(String, &'static str)>)>;

/// Judges the verified records at `batch`: a cited file whose blob at HEAD differs from
/// the one in the commit that verified the record (the newest commit that added or
/// changed the record's file) moved. The verifying commit and what it held are kept in
/// the index per record blob, so history is walked once per promotion, not per read.
fn judge(
    ctx: &Ctx,
    db: &mut RecallDb,
    found: &[Found],
    batch: &[usize],
) -> Result<Vec<Judgement>, Error> {
    let files: Vec<String> = batch
        .iter()
        .map(|&i| {
            found[i]
                .doc
                .source
                .strip_prefix("file:")
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    // The cited paths are the record's refs.
    let ids: Vec<i64> = batch.iter().map(|&i| found[i].doc.id).collect();
    let cited = db.reader().refs_of(&ids).unwrap_or_default();
    // The record files' blobs at HEAD. A file whose directory is still the very tree it
    // was in when its cache row was written has the blob that row names; only the others
    // are looked up (`curated/` of 100,000 records is a tree of megabytes: found unchanged
    // by its id, it is not read at all).
    let lookup = crate::timing::Phase::start("recall.judge.lookup");
    let cached = db.reader().verified(&files).unwrap_or_default();
    let parent = |f: &str| f.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    let trees = ctx.repo.tree_ids_at_head(
        files
            .iter()
            .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d)),
    )?;
    let mut blobs: HashMap<String, String> = HashMap::new();
    let mut rest: Vec<&str> = Vec::new();
    for f in &files {
        match (cached.get(f), trees.get(&parent(f))) {
            (Some(c), Some(t)) if !c.tree.is_empty() && &c.tree == t => {
                blobs.insert(f.clone(), c.blob.clone());
            }
            _ => rest.push(f),
        }
    }
    blobs.extend(ctx.repo.blob_ids_looked_up(None, rest.iter().copied())?);
    // Rows whose blob was found again under a new tree of their directory: noted, so the
    // next read finds them by the tree's id.
    let retree: Vec<(&str, String)> = rest
        .iter()
        .filter_map(|f| {
            let (c, b, t) = (cached.get(*f)?, blobs.get(*f)?, trees.get(&parent(f))?);
            (&c.blob == b && &c.tree != t).then(|| (*f, t.clone()))
        })
        .collect();
    if !retree.is_empty() {
        let _ = db.write(|w| {
            for (file, tree) in &retree {
                w.set_verified_tree(file, tree)?;
            }
            Ok(())
        });
    }
    lookup.end();
    let uncached: Vec<&str> = files
        .iter()
        .filter(|f| {
            blobs
                .get(*f)
                .is_some_and(|b| cached.get(*f).is_none_or(|c| &c.blob != b))
        })
        .map(String::as_str)
        .collect();
    let position: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_str(), i))
        .collect();
    let mut fresh: HashMap<String, VerifiedAt> = HashMap::new();
    if !uncached.is_empty() {
        let mut walk = crate::timing::Phase::start("recall.judge.walk");
        walk.count("files", uncached.len());
        let history = ctx.repo.last_changed_of(uncached.iter().copied())?;
        walk.count("commits", history.commits.len());
        walk.end();
        let _then = crate::timing::Phase::start("recall.judge.then");
        let mut by_commit: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for file in &uncached {
            if let Some(at) = history.at.get(*file) {
                by_commit.entry(*at).or_default().push(file);
            }
        }
        for (at, group) in by_commit {
            let commit = &history.commits[at];
            let wanted: BTreeSet<&str> = group
                .iter()
                .flat_map(|file| {
                    let i = position.get(*file).copied().unwrap_or(0);
                    cited.get(&ids[i]).into_iter().flatten().map(String::as_str)
                })
                .collect();
            let then = ctx
                .repo
                .blob_ids_looked_up(Some(&commit.id), wanted.iter().copied())?;
            for file in group {
                let i = position.get(file).copied().unwrap_or(0);
                let targets: HashMap<String, String> = cited
                    .get(&ids[i])
                    .into_iter()
                    .flatten()
                    .filter_map(|p| then.get(p).map(|b| (p.clone(), b.clone())))
                    .collect();
                fresh.insert(
                    (*file).to_owned(),
                    VerifiedAt {
                        blob: blobs.get(file).cloned().unwrap_or_default(),
                        commit: commit.id.clone(),
                        subject: commit.subject.clone(),
                        targets,
                        tree: trees.get(&parent(file)).cloned().unwrap_or_default(),
                    },
                );
            }
        }
        if !fresh.is_empty() {
            // A cache that cannot be written costs the next read a walk, nothing else.
            let _ = db.write(|w| {
                for (file, v) in &fresh {
                    w.set_verified(file, v)?;
                }
                Ok(())
            });
        }
    }
    let all_targets: BTreeSet<&str> = ids
        .iter()
        .flat_map(|id| cited.get(id).into_iter().flatten().map(String::as_str))
        .collect();
    let at_head = ctx
        .repo
        .blob_ids_looked_up(None, all_targets.iter().copied())?;
    let mut out = Vec::new();
    // What each cited path held when its record was verified, for the index of paths (its
    // rows are then read fresh or stale for a path without judging them again).
    let mut held: Vec<(i64, String, String)> = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let Some(blob) = blobs.get(file) else {
            out.push(None);
            continue;
        };
        let verified = fresh
            .get(file)
            .or_else(|| cached.get(file).filter(|c| &c.blob == blob));
        let Some(v) = verified else {
            out.push(None);
            continue;
        };
        for path in cited.get(&ids[i]).into_iter().flatten() {
            held.push((
                ids[i],
                path.clone(),
                v.targets.get(path).cloned().unwrap_or_default(),
            ));
        }
        let mut moved = Vec::new();
        for path in cited.get(&ids[i]).into_iter().flatten() {
            let change = match (v.targets.get(path), at_head.get(path)) {
                (Some(a), Some(b)) if a != b => "changed",
                (Some(_), None) => "deleted",
                (None, Some(_)) => "added",
                _ => continue,
            };
            moved.push((path.clone(), change));
        }
        out.push(Some((v.commit.clone(), v.subject.clone(), moved)));
    }
    let known = db.reader().reach_blobs(&ids).unwrap_or_default();
    held.retain(|(doc, path, blob)| {
        known
            .get(&(*doc, path.clone()))
            .is_some_and(|b| b.as_deref() != Some(blob.as_str()))
    });
    if !held.is_empty() {
        // A note that cannot be written costs the next read a judgement, nothing else.
        let _ = db.write(|w| w.set_reach_blobs(&held));
    }
    Ok(out)
}
