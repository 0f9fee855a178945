//! A real repository's history as a memory (the quality benches: `recall_quality`,
//! `prompt_relevance`): its commits, oldest first, each the subject and the paths it
//! touched; a store in which each older commit is an episode whose decision is the commit's
//! subject (a verified, curated record) and whose session record lists the paths the
//! commit touched. Included by those benches alone (`#[path = "common/history.rs"]`).
#![allow(dead_code)] // each bench uses what it needs

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Commits touching more files than this (mass renames, vendoring) are neither episodes
/// nor queries.
pub const MAX_FILES: usize = 40;

/// One non-merge commit.
#[derive(Debug, Clone)]
pub struct Commit {
    pub id: String,
    pub time: i64,
    pub subject: String,
    pub paths: Vec<String>,
}

/// Runs git in `dir` (a bench, not the product: the product never runs git).
pub fn git(dir: &Path, args: &[&str]) -> BenchResult<String> {
    let out = Command::new("git").args(args).current_dir(dir).output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Every non-merge commit reachable from HEAD, oldest first, with its subject and the paths
/// it touched; merges are skipped (their first-parent diff repeats their branch's commits)
/// and so are commits of more than [`MAX_FILES`] files.
pub fn history(repo: &Path) -> BenchResult<Vec<Commit>> {
    let log = git(
        repo,
        &[
            "log",
            "--reverse",
            "--no-merges",
            "--format=%x00%H%x1f%ct%x1f%s",
            "--name-only",
        ],
    )?;
    let mut out = Vec::new();
    for chunk in log.split('\0').filter(|c| !c.trim().is_empty()) {
        let mut lines = chunk.lines();
        let Some(head) = lines.next() else { continue };
        let mut fields = head.splitn(3, '\u{1f}');
        let (Some(id), Some(time), Some(subject)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let paths: Vec<String> = lines
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        if paths.is_empty() || paths.len() > MAX_FILES {
            continue;
        }
        out.push(Commit {
            id: id.to_owned(),
            time: time.parse().unwrap_or(0),
            subject: subject.trim().to_owned(),
            paths,
        });
    }
    Ok(out)
}

/// The episode id of the `n`th commit of a corpus, stamped with the commit's time.
pub fn episode_id(n: usize, time: i64) -> String {
    let at =
        time::OffsetDateTime::from_unix_timestamp(time).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{}-{:06x}",
        majordomus::model::time::stamp(at),
        n & 0xff_ffff
    )
}

/// Front-matter-safe one-line text.
pub fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace(['"', '\\'], "'")
}

/// Writes a curated record and a session record for every commit of `corpus` into the
/// store at `root` (already `majordomus init`ed): the record's title and claim are the
/// commit's subject, its episode's session record lists the paths the commit touched.
/// Returns each record id with those paths (what makes it relevant), oldest first.
pub fn write_records(
    root: &Path,
    corpus: &[Commit],
) -> BenchResult<Vec<(String, BTreeSet<String>)>> {
    let curated = root.join(".ai/repo/knowledge/curated");
    let sessions = root.join(".ai/repo/sessions");
    std::fs::create_dir_all(&curated)?;
    std::fs::create_dir_all(&sessions)?;
    let mut out = Vec::new();
    for (n, c) in corpus.iter().enumerate() {
        let ep = episode_id(n, c.time);
        let at = time::OffsetDateTime::from_unix_timestamp(c.time)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
        let day = &majordomus::model::time::rfc3339(at)[..10];
        let ts = majordomus::model::time::rfc3339(at);
        let id = format!("{ep}-{n:012x}");
        let title: String = plain(&c.subject).chars().take(100).collect();
        std::fs::write(
            curated.join(format!("{id}.md")),
            format!(
                "---\nid: {id}\nschema: knowledge/v1\nclass: convention\nstatus: verified\nstance: decided\ntitle: \"{title}\"\ndate: {day}\nprovenance:\n  origin: extracted\n  derived_from:\n  - session:{ep}\n---\n{}\n",
                plain(&c.subject)
            ),
        )?;
        let files: String = c
            .paths
            .iter()
            .map(|p| format!("- \"{}\"\n", plain(p)))
            .collect();
        std::fs::write(
            sessions.join(format!("{ep}.md")),
            format!(
                "---\nid: {ep}\nschema: session/v1\nprovider: history\nbranch: main\nhead_at_open: null\nhead: null\nopened: {ts}\nclosed: {ts}\ncommits: []\nchanged_files:\n{files}tasks: []\noutcome: committed\n---\n# Session {ep}\n\n## Summary\nNo summary was given.\n"
            ),
        )?;
        out.push((id, c.paths.iter().cloned().collect()));
    }
    Ok(out)
}

/// Record ids by each path their episode touched.
pub fn by_file(records: &[(String, BTreeSet<String>)]) -> BTreeMap<&str, Vec<&str>> {
    let mut m: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, files) in records {
        for f in files {
            m.entry(f.as_str()).or_default().push(id.as_str());
        }
    }
    m
}
