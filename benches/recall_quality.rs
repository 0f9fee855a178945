//! Recall's quality on a real repository's history (issues "Step 9" and "Step 13"): the
//! older commits become episodes — each commit one episode whose decision is the commit's
//! subject (derived, promoted: a curated record) and whose session record lists the paths
//! the commit touched — and the newer commits are held out as queries: their paths, their
//! subject's words, and both. A record is relevant to a query when its episode touched one
//! of the held-out commit's files (the knowledge about the area the work is in). Reported:
//! hit rate at 1 and at 5 (a relevant record first, among the first five) and MRR (of the
//! first relevant record among the first ten), against recency alone as the floor.
//!
//! Then the briefing itself, as an agent started in the middle of work receives it: the
//! store's work tree holds every file of the history (a line each, committed), and
//! - **mid-edit**: the held-out commit's files are changed and not committed (the agent is
//!   in the middle of that commit); the briefing's knowledge list is scored (its first line,
//!   its first five, and its precision: the share of the lines it shows, within its budget,
//!   that are relevant);
//! - **stacked**: a branch `parent` commits the previous held-out commit's files, a branch
//!   `stacked` created from it commits this one's: the briefing on `stacked` should lead
//!   with this commit's area, not the parent's.
//!
//! ```text
//! cargo bench -j2 --bench recall_quality                                   # this repository
//! MAJORDOMUS_QUALITY_REPO=/path/to/a/clone cargo bench -j2 --bench recall_quality
//! MAJORDOMUS_QUALITY_HELD_OUT=0.2   # the newest fifth of the commits are the queries
//! MAJORDOMUS_QUALITY_QUERIES=400    # at most this many queries (evenly spaced)
//! ```
//!
//! Commits that touch more than 40 files (mass renames, vendoring) are neither episodes nor
//! queries; merges are skipped (their first-parent diff repeats their branch's commits).
#![forbid(unsafe_code)]

#[path = "common/history.rs"]
mod history;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use history::{BenchResult, Commit, git};
use majordomus::recall::{RecallKind, RecallRequest};
use majordomus::{Clock, Ctx};

/// The store: a curated record and a session record for every episode.
fn build(root: &Path, corpus: &[Commit]) -> BenchResult<BTreeMap<String, BTreeSet<String>>> {
    git(root, &["init", "-q", "-b", "main"])?;
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_majordomus"));
    let status = Command::new(&bin).arg("init").current_dir(root).output()?;
    if !status.status.success() {
        return Err("majordomus init failed".into());
    }
    Ok(history::write_records(root, corpus)?.into_iter().collect())
}

#[derive(Default)]
struct Score {
    queries: usize,
    hits1: usize,
    hits5: usize,
    reciprocal: f64,
    /// The sum over queries of the share of what was shown that is relevant.
    precision: f64,
}

impl Score {
    fn add(&mut self, ranked: &[String], relevant: &BTreeSet<&str>) {
        self.queries += 1;
        let shown = ranked.len().min(10);
        if shown > 0 {
            let good = ranked[..shown]
                .iter()
                .filter(|id| relevant.contains(id.as_str()))
                .count();
            self.precision += good as f64 / shown as f64;
        }
        if let Some(rank) = ranked
            .iter()
            .take(10)
            .position(|id| relevant.contains(id.as_str()))
        {
            if rank == 0 {
                self.hits1 += 1;
            }
            if rank < 5 {
                self.hits5 += 1;
            }
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }

    fn row(&self, what: &str) -> String {
        let n = self.queries.max(1) as f64;
        format!(
            "| {what} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            self.queries,
            self.hits1 as f64 / n,
            self.hits5 as f64 / n,
            self.reciprocal / n,
            self.precision / n
        )
    }
}

/// A path of the history that can be written in the store's work tree.
fn writable(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.starts_with(".ai/")
        && !path.starts_with(".git/")
        && path != ".git"
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != ".." && part != ".git")
        && !path.chars().any(|c| c.is_control() || c == '\\')
        // git's own files (.gitignore, .gitattributes, .gitmodules) would change what the
        // store's git ignores (its .ai/local/ above all).
        && !path.rsplit('/').next().is_some_and(|name| name.starts_with(".git"))
}

/// Writes every file of the history into the work tree (one line each) and commits them:
/// what the briefing's work at hand reads (uncommitted changes, a branch's commits) needs
/// files git tracks. Files the history made directories of later are skipped.
fn plant(root: &Path, commits: &[Commit]) -> BenchResult<BTreeSet<String>> {
    let mut planted = BTreeSet::new();
    let all: BTreeSet<&str> = commits
        .iter()
        .flat_map(|c| c.paths.iter().map(String::as_str))
        .filter(|p| writable(p))
        .collect();
    for path in &all {
        // A path that is also a directory of another (renamed over time) is left out.
        let prefix = format!("{path}/");
        if all
            .range::<&str, _>(prefix.as_str()..)
            .next()
            .is_some_and(|n| n.starts_with(&prefix))
        {
            continue;
        }
        let abs = root.join(path);
        if let Some(parent) = abs.parent()
            && std::fs::create_dir_all(parent).is_err()
        {
            continue;
        }
        if std::fs::write(&abs, format!("{path}\n")).is_ok() {
            planted.insert((*path).to_owned());
        }
    }
    git(root, &["add", "-A"])?;
    git(
        root,
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@invalid",
            "commit",
            "-q",
            "-m",
            "history",
            "--allow-empty",
        ],
    )?;
    Ok(planted)
}

/// Changes `files` in the work tree (appends a line), or puts them back.
fn edit(root: &Path, files: &[String], on: bool) -> BenchResult<()> {
    for f in files {
        let text = if on {
            format!("{f}\nedited\n")
        } else {
            format!("{f}\n")
        };
        std::fs::write(root.join(f), text)?;
    }
    Ok(())
}

/// The ids of the briefing's knowledge lines, first shown first.
fn briefed(root: &Path) -> BenchResult<Vec<String>> {
    let ctx = Ctx::open(root, Clock::System)?;
    let b = majordomus::briefing::briefing(&ctx, majordomus::briefing::BriefingRequest::default())?;
    Ok(b.knowledge.hits.into_iter().map(|h| h.id).collect())
}

fn main() -> BenchResult<()> {
    let repo = std::env::var_os("MAJORDOMUS_QUALITY_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let held_out: f64 = std::env::var("MAJORDOMUS_QUALITY_HELD_OUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.2);
    let max_queries: usize = std::env::var("MAJORDOMUS_QUALITY_QUERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let commits = history::history(&repo)?;
    let split = ((commits.len() as f64) * (1.0 - held_out)) as usize;
    let (corpus, later) = commits.split_at(split);
    let dir = tempfile::Builder::new()
        .prefix("majordomus-recall-quality-")
        .tempdir()?;
    let root = dir.path().canonicalize()?;
    let started = Instant::now();
    let touched = build(&root, corpus)?;
    let ctx = Ctx::open(&root, Clock::System)?;
    // The first read builds the index.
    majordomus::recall::recall(&ctx, RecallRequest::default())?;
    eprintln!(
        "{}: {} commits, {} episodes, {} held out; store and index in {:.1} s",
        repo.display(),
        commits.len(),
        corpus.len(),
        later.len(),
        started.elapsed().as_secs_f64()
    );
    // Answerable queries: a held-out commit some episode's files overlap.
    let by_file: BTreeMap<&str, Vec<&str>> = {
        let mut m: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (id, files) in &touched {
            for f in files {
                m.entry(f.as_str()).or_default().push(id.as_str());
            }
        }
        m
    };
    let answerable: Vec<(&Commit, BTreeSet<&str>)> = later
        .iter()
        .filter_map(|c| {
            let relevant: BTreeSet<&str> = c
                .paths
                .iter()
                .filter_map(|p| by_file.get(p.as_str()))
                .flatten()
                .copied()
                .collect();
            (!relevant.is_empty()).then_some((c, relevant))
        })
        .collect();
    let step = answerable.len().div_ceil(max_queries.max(1)).max(1);
    let queries: Vec<&(&Commit, BTreeSet<&str>)> = answerable.iter().step_by(step).collect();
    let ranked = |request: RecallRequest| -> BenchResult<Vec<String>> {
        Ok(majordomus::recall::recall(&ctx, request)?
            .hits
            .into_iter()
            .map(|h| h.id)
            .collect())
    };
    let base = |query: Option<String>, paths: Vec<String>| RecallRequest {
        query,
        path: paths,
        kind: vec![RecallKind::Knowledge],
        limit: Some(10),
        ..RecallRequest::default()
    };
    let (mut paths, mut words, mut both, mut recency) = (
        Score::default(),
        Score::default(),
        Score::default(),
        Score::default(),
    );
    let newest = ranked(base(None, Vec::new()))?;
    let mut took = [std::time::Duration::ZERO; 3];
    let mut timed = |slot: usize, request: RecallRequest| -> BenchResult<Vec<String>> {
        let start = Instant::now();
        let out = ranked(request);
        took[slot] += start.elapsed();
        out
    };
    for (commit, relevant) in &queries {
        let files: Vec<String> = commit.paths.iter().take(10).cloned().collect();
        paths.add(&timed(0, base(None, files.clone()))?, relevant);
        words.add(
            &timed(1, base(Some(commit.subject.clone()), Vec::new()))?,
            relevant,
        );
        both.add(
            &timed(2, base(Some(commit.subject.clone()), files))?,
            relevant,
        );
        recency.add(&newest, relevant);
    }
    let per = took.map(|t| t.as_secs_f64() * 1e3 / queries.len().max(1) as f64);
    println!(
        "\nrecall quality on {} ({} episodes; {} of {} held-out commits answerable, {} asked; a recall in-process: {:.1} ms by paths, {:.1} ms by words, {:.1} ms by both)",
        repo.display(),
        corpus.len(),
        answerable.len(),
        later.len(),
        queries.len(),
        per[0],
        per[1],
        per[2]
    );
    if std::env::var_os("MAJORDOMUS_QUALITY_KEEP").is_some() {
        eprintln!("kept {}", dir.keep().display());
    }
    println!(
        "| queries by | n | hit rate at 1 | hit rate at 5 | MRR (first 10) | precision (first 10) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    println!("{}", paths.row("paths"));
    println!("{}", words.row("words (the commit's subject)"));
    println!("{}", both.row("paths and words"));
    println!("{}", recency.row("recency alone (the floor)"));

    // The briefing, as an agent started in the middle of work receives it.
    let started = Instant::now();
    let planted = plant(&root, &commits)?;
    let files_of = |c: &Commit| -> Vec<String> {
        c.paths
            .iter()
            .filter(|p| planted.contains(*p))
            .take(10)
            .cloned()
            .collect()
    };
    let (mut mid, mut floor) = (Score::default(), Score::default());
    let quiet = briefed(&root)?;
    for (commit, relevant) in &queries {
        let files = files_of(commit);
        if files.is_empty() {
            continue;
        }
        edit(&root, &files, true)?;
        mid.add(&briefed(&root)?, relevant);
        edit(&root, &files, false)?;
        floor.add(&quiet, relevant);
    }
    let mid_took = started.elapsed().as_secs_f64();
    // Stacked: each query's commit on a branch created from one holding the previous
    // query's commit (when their files differ).
    let mut stacked = Score::default();
    let mut parent_first = 0usize;
    let bench = ["-c", "user.name=bench", "-c", "user.email=bench@invalid"];
    let commit_all = |message: &str| -> BenchResult<()> {
        let mut args = bench.to_vec();
        args.extend(["commit", "-q", "-a", "-m", message]);
        git(&root, &args).map(drop)
    };
    for pair in queries.windows(2) {
        let ((parent, parent_relevant), (own, relevant)) = (pair[0], pair[1]);
        let (parent_files, own_files) = (files_of(parent), files_of(own));
        if parent_files.is_empty()
            || own_files.is_empty()
            || parent_files.iter().any(|f| own_files.contains(f))
        {
            continue;
        }
        git(&root, &["checkout", "-q", "-b", "parent", "main"])?;
        edit(&root, &parent_files, true)?;
        commit_all("parent's work")?;
        git(&root, &["checkout", "-q", "-b", "stacked", "parent"])?;
        edit(&root, &own_files, true)?;
        commit_all("own work")?;
        let ranked = briefed(&root)?;
        stacked.add(&ranked, relevant);
        if ranked.first().is_some_and(|id| {
            parent_relevant.contains(id.as_str()) && !relevant.contains(id.as_str())
        }) {
            parent_first += 1;
        }
        git(&root, &["checkout", "-q", "main"])?;
        git(&root, &["branch", "-q", "-D", "stacked", "parent"])?;
    }
    println!(
        "\nthe briefing's knowledge list, as the model receives it ({} files planted; {:.1} s)",
        planted.len(),
        mid_took
    );
    println!(
        "| work at hand | n | first line relevant (hit rate at 1) | hit rate at 5 | MRR (first 10) | precision at its budget |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "{}",
        mid.row("mid-edit: the held-out commit's files uncommitted")
    );
    println!(
        "{}",
        floor.row("nothing at hand: the most recently verified (the floor)")
    );
    println!(
        "{}",
        stacked.row("stacked: this commit on a branch over the previous one's")
    );
    println!(
        "stacked: the parent's area led (and not this one's) in {parent_first} of {} cases",
        stacked.queries
    );
    Ok(())
}
