//! Each record a pass read, weighed: its row; its signals — its BM25, the paths it
//! reaches against every path asked about, its links; a ledger line folded into the record
//! its derivation wrote (one claim, one hit); the filters that do not depend on staleness;
//! and its score. After the judging, a superseded record's replacement is brought in.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::error::Error;
use crate::model::recall::{HitStatus, PathHow, PathMatch, PathVia, Ranked, Signals, score};
use crate::store::recall::{Column, DocRow, EpisodeRow, Lexical, Reader, ancestors, parent_dir};

use super::gather::Records;
use super::{Found, Query, QueryPath, RecallKind, index_failed};

/// The records of `records`, each with its signals and score, filtered; `left_out` are
/// dropped (and those the query matched noted in `matched_left_out`).
pub(super) fn weigh(
    r: Reader<'_>,
    query: &Query,
    lexical: &Lexical,
    dirs: &HashMap<(String, bool), usize>,
    records: Records,
    left_out: &HashSet<i64>,
    matched_left_out: &mut HashSet<i64>,
) -> Result<Vec<Found>, Error> {
    let fail = index_failed;
    let mut phase = crate::timing::Phase::start("recall.load");
    let docs = load(r, records.docs, &records.wanted, &records.link_rows)?;
    phase.count("records", docs.len());
    let signals = signals(r, query, lexical, dirs, &docs, &records.link_rows)?;
    let derived = derived(r, &docs)?;
    let places = r.episodes(&episodes(&docs)).map_err(fail)?;
    phase.end();
    let mut found = fold(query, lexical, docs, signals, &derived);
    keep(query, &mut found, left_out, matched_left_out);
    scored(lexical, &places, &mut found);
    Ok(found)
}

/// Every record a pass weighs, its row read: those it holds already, the records sharing
/// a link, and those chosen by their id.
fn load(
    r: Reader<'_>,
    mut docs: HashMap<i64, DocRow>,
    wanted: &BTreeSet<i64>,
    link_rows: &[(usize, DocRow)],
) -> Result<HashMap<i64, DocRow>, Error> {
    let fail = index_failed;
    for (_, row) in link_rows {
        docs.entry(row.id).or_insert_with(|| row.clone());
    }
    let missing: Vec<i64> = wanted
        .iter()
        .filter(|id| !docs.contains_key(id))
        .copied()
        .collect();
    for row in r.docs(&missing).map_err(fail)? {
        docs.insert(row.id, row);
    }
    Ok(docs)
}

/// Each record's signals, but what is relative to the others found (its share of the best
/// lexical match, its episode's spread: [`scored`]).
fn signals(
    r: Reader<'_>,
    query: &Query,
    lexical: &Lexical,
    dirs: &HashMap<(String, bool), usize>,
    docs: &HashMap<i64, DocRow>,
    link_rows: &[(usize, DocRow)],
) -> Result<HashMap<i64, Signals>, Error> {
    let fail = index_failed;
    // Every signal of every record read, by random access: its BM25, the paths it reaches
    // (its references, its episode's files, its task's scope) against every path asked
    // about, and its links.
    let mut signals: HashMap<i64, Signals> = HashMap::new();
    for id in docs.keys() {
        let s = signals.entry(*id).or_default();
        s.bm25 = lexical.of(*id).unwrap_or(0.0);
    }
    if !query.paths.is_empty() {
        let phase = crate::timing::Phase::start("recall.signals");
        path_signals(r, &query.paths, dirs, docs, &mut signals).map_err(fail)?;
        phase.end();
    }
    for (l, row) in link_rows {
        let (kind, value, weight) = &query.links[*l];
        let s = signals.entry(row.id).or_default();
        if !s.links.iter().any(|(k, _, _)| k == kind) {
            s.links.push((*kind, value.clone(), *weight));
        }
    }
    Ok(signals)
}

/// The knowledge records the ledger lines of `docs` derive, by key.
fn derived(r: Reader<'_>, docs: &HashMap<i64, DocRow>) -> Result<HashMap<String, DocRow>, Error> {
    let fail = index_failed;
    // A ledger line takes the status of the record its derivation wrote; where that record
    // is itself a candidate here, the line is folded into it (one claim, one hit). Only a
    // line whose record is indexed (`folded`, kept by the index's writes) has one to read:
    // a path that reaches 10,000 lines asks for their records, not 10,000 missing keys.
    let derives: Vec<String> = docs
        .values()
        .filter(|d| d.folded)
        .filter_map(|d| d.derives.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut derived: HashMap<String, DocRow> = HashMap::new();
    for row in r.docs_where(Column::Key, &derives).map_err(fail)? {
        if row.kind == "knowledge" {
            derived.insert(row.key.clone(), row);
        }
    }
    Ok(derived)
}

/// The episodes of `docs`, each once.
fn episodes(docs: &HashMap<i64, DocRow>) -> Vec<String> {
    docs.values()
        .filter_map(|d| d.episode.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Each record found, in the order of its id; a ledger line whose record is indexed is
/// folded into it.
fn fold(
    query: &Query,
    lexical: &Lexical,
    mut docs: HashMap<i64, DocRow>,
    mut signals: HashMap<i64, Signals>,
    derived: &HashMap<String, DocRow>,
) -> Vec<Found> {
    let knowledge_wanted = query.kinds.is_empty() || query.kinds.contains(&RecallKind::Knowledge);
    let mut found: Vec<Found> = Vec::new();
    let mut folded: HashMap<String, Signals> = HashMap::new();
    let mut ids: Vec<i64> = docs.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let Some(doc) = docs.remove(&id) else {
            continue;
        };
        let s = signals.remove(&id).unwrap_or_default();
        let Some(kind) = RecallKind::from_name(&doc.kind) else {
            continue;
        };
        let record = doc.derives.as_ref().and_then(|k| derived.get(k));
        if knowledge_wanted
            && kind != RecallKind::Knowledge
            && let Some(record) = record
        {
            folded
                .entry(record.key.clone())
                .and_modify(|prev| merge(prev, &s))
                .or_insert(s);
            continue;
        }
        // A ledger line's stored status is already its record's.
        let status = status_of(&doc.status);
        found.push(Found::new(doc, kind, status, s));
    }
    // A folded line's record joins with the line's signals (it may not have matched by
    // itself: it has no episode path when it was promoted from another checkout).
    let mut keys: Vec<String> = folded.keys().cloned().collect();
    keys.sort();
    for key in keys {
        let s = folded.remove(&key).unwrap_or_default();
        match found
            .iter_mut()
            .find(|f| f.doc.key == key && f.kind == RecallKind::Knowledge)
        {
            Some(f) => merge(&mut f.signals, &s),
            None => {
                if let Some(row) = derived.get(&key) {
                    let mut s = s;
                    s.bm25 = s.bm25.max(lexical.of(row.id).unwrap_or(0.0));
                    found.push(Found::new(
                        row.clone(),
                        RecallKind::Knowledge,
                        status_of(&row.status),
                        s,
                    ));
                }
            }
        }
    }
    found
}

/// Filters that do not depend on staleness.
fn keep(
    query: &Query,
    found: &mut Vec<Found>,
    left_out: &HashSet<i64>,
    matched_left_out: &mut HashSet<i64>,
) {
    found.retain(|f| {
        if left_out.contains(&f.doc.id) {
            matched_left_out.insert(f.doc.id);
            return false;
        }
        (query.kinds.is_empty() || query.kinds.contains(&f.kind))
            && (query.all
                || f.status != HitStatus::Superseded
                || query.statuses.contains(&HitStatus::Superseded))
            && query
                .branch
                .as_ref()
                .is_none_or(|b| f.doc.branch.as_ref() == Some(b))
            && query.since.is_none_or(|since| {
                crate::model::time::parse(&f.doc.date).is_some_and(|at| at >= since)
            })
            // Read for its signals or its record, reached by nothing asked.
            && (!query.relevance_asked()
                || f.signals.bm25 > 0.0
                || !f.signals.paths.is_empty()
                || !f.signals.links.is_empty())
    });
}

/// Each record's score: its lexical share and its episode's spread known.
fn scored(lexical: &Lexical, places: &HashMap<String, EpisodeRow>, found: &mut [Found]) {
    // Lexical relevance is relative to the best match of the query, read or not.
    let top = lexical.best();
    for f in found {
        f.signals.bm25_top = top;
        // A path reached through the record's episode counts for less when the episode
        // changed many files.
        for m in &mut f.signals.paths {
            if m.via == PathVia::Episode {
                m.spread = f
                    .doc
                    .episode
                    .as_ref()
                    .and_then(|e| places.get(e))
                    .map_or(1, |p| p.files.max(1));
            }
        }
        f.score = score(&f.signals, f.status);
    }
}

/// A superseded record shown is shown below its replacement: bring the replacement in
/// when it did not rank by itself.
pub(super) fn replacements(r: Reader<'_>, found: &mut Vec<Found>) -> Result<(), Error> {
    let fail = index_failed;
    let present: HashSet<String> = found.iter().map(|f| f.doc.key.clone()).collect();
    let replacements: Vec<String> = found
        .iter()
        .filter_map(|f| f.superseded_by().map(str::to_owned))
        .filter(|by| !present.contains(by))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !replacements.is_empty() {
        for row in r.docs_where(Column::Key, &replacements).map_err(fail)? {
            let Some(kind) = RecallKind::from_name(&row.kind) else {
                continue;
            };
            let status = status_of(&row.status);
            let replaced = found
                .iter()
                .find(|f| f.superseded_by() == Some(row.key.as_str()))
                .map(|f| (f.doc.key.clone(), f.signals.clone()));
            let Some((replaced, signals)) = replaced else {
                continue;
            };
            let mut f = Found::new(row, kind, status, signals);
            f.score = score(&f.signals, status);
            f.replaces = Some(replaced);
            found.push(f);
        }
    }
    Ok(())
}

fn status_of(name: &str) -> HitStatus {
    HitStatus::from_name(name).unwrap_or(HitStatus::Candidate)
}

fn merge(into: &mut Signals, from: &Signals) {
    into.bm25 = into.bm25.max(from.bm25);
    for m in &from.paths {
        if !into.paths.contains(m) {
            into.paths.push(m.clone());
        }
    }
    for l in &from.links {
        if !into.links.contains(l) {
            into.links.push(l.clone());
        }
    }
}

/// The paths asked about, looked up by how another path relates to them.
struct PathsAsked<'a> {
    /// Each path asked about → its positions.
    exact: HashMap<&'a str, Vec<usize>>,
    /// Each directory above a path asked about → the positions under it.
    above: HashMap<&'a str, Vec<usize>>,
    /// Each path asked about's directory → the positions in it.
    beside: HashMap<&'a str, Vec<usize>>,
}

impl<'a> PathsAsked<'a> {
    fn of(paths: &'a [QueryPath]) -> PathsAsked<'a> {
        let mut out = PathsAsked {
            exact: HashMap::new(),
            above: HashMap::new(),
            beside: HashMap::new(),
        };
        for (i, q) in paths.iter().enumerate() {
            let p = q.path.as_str();
            out.exact.entry(p).or_default().push(i);
            for a in ancestors(p).into_iter().chain(std::iter::once("")) {
                out.above.entry(a).or_default().push(i);
            }
            out.beside.entry(parent_dir(p)).or_default().push(i);
        }
        out
    }

    /// How `reached` stands to each path asked about that it reaches at all:
    /// `(position, how, the files of the directory between them)`.
    fn relate(
        &self,
        reached: &str,
        dirs: &HashMap<(String, bool), usize>,
        out: &mut Vec<(usize, PathHow, usize)>,
    ) {
        out.clear();
        if let Some(at) = self.exact.get(reached) {
            out.extend(at.iter().map(|&i| (i, PathHow::Exact, 0)));
        }
        // A directory cited above a path asked about: worth less the more it holds.
        if let Some(at) = self.above.get(reached) {
            let files = dirs.get(&(reached.to_owned(), true)).copied().unwrap_or(0);
            out.extend(at.iter().map(|&i| (i, PathHow::Prefix, files)));
        }
        // A path under a directory asked about.
        for a in ancestors(reached) {
            if let Some(at) = self.exact.get(a) {
                out.extend(at.iter().map(|&i| (i, PathHow::Prefix, 0)));
            }
        }
        // A path beside one asked about, in the same directory.
        let dir = parent_dir(reached);
        if let Some(at) = self.beside.get(dir) {
            let files = dirs.get(&(dir.to_owned(), false)).copied().unwrap_or(0);
            for &i in at {
                if !out.iter().any(|(j, _, _)| *j == i) {
                    out.push((i, PathHow::Near, files));
                }
            }
        }
    }
}

/// Every path each of `docs` reaches (its references, its episode's changed files, its
/// task's scope) against every path asked about, read for these records only.
fn path_signals(
    r: crate::store::recall::Reader<'_>,
    paths: &[QueryPath],
    dirs: &HashMap<(String, bool), usize>,
    docs: &HashMap<i64, DocRow>,
    signals: &mut HashMap<i64, Signals>,
) -> Result<(), crate::store::recall::IndexError> {
    let asked = PathsAsked::of(paths);
    let ids: Vec<i64> = docs.keys().copied().collect();
    let refs = r.refs_of(&ids)?;
    let episodes: Vec<String> = docs
        .values()
        .filter_map(|d| d.episode.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let episode_files = r.episode_files_of(&episodes)?;
    let tasks: Vec<String> = docs
        .values()
        .filter_map(|d| d.task.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let scopes = r.scopes_of(&tasks)?;
    let mut related = Vec::new();
    for (id, doc) in docs {
        let s = signals.entry(*id).or_default();
        let mut add = |m: PathMatch| {
            if !s.paths.contains(&m) {
                s.paths.push(m);
            }
        };
        // Its own references, then its episode's changed files (their spread is set once
        // the episodes are read).
        let own = refs
            .get(id)
            .into_iter()
            .flatten()
            .map(|p| (p, PathVia::Reference, 0));
        let changed = doc
            .episode
            .as_ref()
            .and_then(|e| episode_files.get(e))
            .into_iter()
            .flatten()
            .map(|p| (p, PathVia::Episode, 1));
        for (path, via, spread) in own.chain(changed) {
            asked.relate(path, dirs, &mut related);
            for &(q, how, files) in &related {
                add(PathMatch {
                    query: paths[q].path.clone(),
                    source: paths[q].source,
                    path: path.clone(),
                    via,
                    how,
                    spread,
                    dir_files: files,
                });
            }
        }
        // Task scopes: a glob's literal directory was related; the glob itself must cover
        // the path for an exact or above reach, else it is only beside it.
        for (pattern, prefix) in doc
            .task
            .as_ref()
            .and_then(|t| scopes.get(t))
            .into_iter()
            .flatten()
        {
            asked.relate(prefix, dirs, &mut related);
            for &(q, how, files) in &related {
                let asked_path = paths[q].path.as_str();
                let covers =
                    crate::model::task::in_scope(std::slice::from_ref(pattern), asked_path);
                let (how, files) = match how {
                    PathHow::Exact | PathHow::Prefix
                        if prefix.as_str() == asked_path
                            || asked_path.starts_with(&format!("{prefix}/"))
                            || prefix.is_empty() =>
                    {
                        if !covers {
                            (PathHow::Near, files)
                        } else if pattern.trim_end_matches('/') == asked_path {
                            (PathHow::Exact, 0)
                        } else {
                            (PathHow::Prefix, files)
                        }
                    }
                    other => (other, files),
                };
                add(PathMatch {
                    query: asked_path.to_owned(),
                    source: paths[q].source,
                    path: pattern.clone(),
                    via: PathVia::Scope,
                    how,
                    spread: 0,
                    dir_files: files,
                });
            }
        }
    }
    // In the order the paths were asked, and for each by reference, episode, scope (which
    // of two equal matches "why" names).
    let position: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.as_str(), i))
        .collect();
    for s in signals.values_mut() {
        if s.paths.len() > 1 {
            s.paths
                .sort_by_key(|m| (position.get(m.query.as_str()).copied(), m.via));
        }
    }
    Ok(())
}
