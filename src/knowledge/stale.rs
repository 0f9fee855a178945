//! Stale knowledge (SPEC §5.5, `majordomus.knowledge-stale`): verified records whose
//! `file:`/`test:` targets changed after the commit that verified them.
//!
//! The commit that verified a record is the newest commit that added or modified its
//! file under `curated/` (promotion adds it; re-verifying edits its evidence), found by
//! one walk of history from HEAD that stops once every record is placed. A target is
//! stale when its blob id at HEAD differs from the one in that commit's tree; the commits
//! of the same walk that changed it since are named. A record HEAD does not hold yet is
//! not judged, nor one whose verifying commit lies beyond a shallow clone's boundary.
//!
//! A record `knowledge reverify` re-verified in the work tree and not committed yet is read
//! from the work tree: re-verified at a commit whose targets are HEAD's, it is not stale; it
//! waits for its commit (`reverified`), which makes that commit the one that verified it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::Serialize;

use crate::Ctx;
use crate::error::Error;
use crate::model::CommitSummary;
use crate::model::knowledge::Status;
use crate::store::StoreError;
use crate::store::outbox::list_markdown;
use crate::store::records::parse_record;

/// A commit as a finding names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CommitRef {
    pub id: String,
    pub subject: String,
}

impl CommitRef {
    fn of(c: &CommitSummary) -> CommitRef {
        CommitRef {
            id: c.id.clone(),
            subject: c.subject.clone(),
        }
    }

    /// `<12 hex> "<subject>"`.
    pub fn short(&self) -> String {
        format!("{} \"{}\"", &self.id[..self.id.len().min(12)], self.subject)
    }
}

/// How a target differs from what the record was verified against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetChange {
    /// It is a different blob now.
    Changed,
    /// HEAD no longer holds it.
    Deleted,
    /// The verifying commit did not hold it; HEAD does.
    Added,
}

impl TargetChange {
    pub fn verb(self) -> &'static str {
        match self {
            TargetChange::Changed => "changed",
            TargetChange::Deleted => "deleted",
            TargetChange::Added => "added",
        }
    }
}

/// One target that moved, with the commits that moved it (newest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MovedTarget {
    pub path: String,
    pub change: TargetChange,
    pub commits: Vec<CommitRef>,
}

/// A verified record whose targets moved since it was verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StaleRecord {
    pub id: String,
    /// The record file, relative to the root.
    pub file: String,
    pub verified_in: CommitRef,
    pub targets: Vec<MovedTarget>,
}

/// A verified record that was not judged, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NotJudged {
    pub file: String,
    pub reason: String,
}

/// A record re-verified in the work tree since the commit that verified it, against the
/// targets as HEAD has them: not stale, waiting for the commit of its re-verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReverifiedRecord {
    pub id: String,
    /// The record file, relative to the root.
    pub file: String,
    /// The commit it was re-verified at (its `# Evidence` says so).
    pub at: String,
}

/// What the stale-knowledge check found.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct StaleReport {
    /// Verified records with `file:`/`test:` targets that were judged.
    pub judged: usize,
    pub stale: Vec<StaleRecord>,
    /// Re-verified in the work tree, not committed yet: not stale.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reverified: Vec<ReverifiedRecord>,
    pub not_judged: Vec<NotJudged>,
}

/// A verified record that cites files: its id, its file and its targets, and the commit
/// of the last re-verification its `# Evidence` names.
struct Cited {
    id: String,
    file: String,
    targets: BTreeSet<String>,
    reverified_at: Option<String>,
}

/// The commit of the last `Re-verified at commit <sha>` line of a record's body (what
/// `knowledge reverify` appends).
fn last_reverification(body: &str) -> Option<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("Re-verified at commit "))
        .filter_map(|rest| rest.split([' ', ',', ':']).next())
        .rfind(|sha| sha.len() >= 7 && sha.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned)
}

/// The `file:`/`test:` targets of a reference list (a `:<line>` suffix stripped).
fn targets(refs: &[String]) -> BTreeSet<String> {
    refs.iter()
        .filter_map(|r| r.strip_prefix("file:").or_else(|| r.strip_prefix("test:")))
        .map(|t| match t.rsplit_once(':') {
            Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
                path
            }
            _ => t,
        })
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Judges every verified record under `curated/` against HEAD. A record that does not
/// parse is knowledge-integrity's finding, not this one's.
pub fn stale(ctx: &Ctx) -> Result<StaleReport, Error> {
    let mut records: Vec<Cited> = Vec::new();
    let dir = ctx.layout.curated_dir();
    for name in list_markdown(&dir)? {
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
        let Ok((record, body)) = parse_record(&text) else {
            continue;
        };
        if record.status != Status::Verified {
            continue;
        }
        let targets = targets(&record.provenance.derived_from);
        if !targets.is_empty() {
            records.push(Cited {
                id: record.id,
                file: ctx.layout.display(&path),
                targets,
                reverified_at: last_reverification(body),
            });
        }
    }
    let mut report = StaleReport::default();
    if records.is_empty() {
        return Ok(report);
    }
    let history = ctx
        .repo
        .last_changed(records.iter().map(|r| r.file.as_str()))?;
    let committed = ctx
        .repo
        .existing_head_paths(records.iter().map(|r| r.file.as_str()))?;
    let all_targets: BTreeSet<&str> = records
        .iter()
        .flat_map(|r| r.targets.iter().map(String::as_str))
        .collect();
    let at_head = ctx.repo.blob_ids_at(None, all_targets.iter().copied())?;

    // Records grouped by the commit that verified them: one tree read per commit.
    let mut by_commit: BTreeMap<usize, Vec<&Cited>> = BTreeMap::new();
    for record in &records {
        let rel = &record.file;
        match history.at.get(rel) {
            Some(index) => by_commit.entry(*index).or_default().push(record),
            None if !committed.contains(rel) => report.not_judged.push(NotJudged {
                file: rel.clone(),
                reason: "not committed yet: HEAD does not hold it".into(),
            }),
            None => report.not_judged.push(NotJudged {
                file: rel.clone(),
                reason: "the commit that verified it lies beyond this shallow clone's boundary"
                    .into(),
            }),
        }
    }
    for (index, group) in by_commit {
        let commit = &history.commits[index];
        let wanted: BTreeSet<&str> = group
            .iter()
            .flat_map(|r| r.targets.iter().map(String::as_str))
            .collect();
        let then: HashMap<String, String> = ctx
            .repo
            .blob_ids_at(Some(&commit.id), wanted.iter().copied())?;
        for Cited {
            id,
            file: rel,
            targets,
            reverified_at,
        } in group
        {
            report.judged += 1;
            let moved: Vec<MovedTarget> = targets
                .iter()
                .filter_map(|path| {
                    let change = match (then.get(path), at_head.get(path)) {
                        (Some(a), Some(b)) if a != b => TargetChange::Changed,
                        (Some(_), None) => TargetChange::Deleted,
                        (None, Some(_)) => TargetChange::Added,
                        _ => return None,
                    };
                    Some(MovedTarget {
                        path: path.clone(),
                        change,
                        commits: history
                            .changed_since(index, path)
                            .into_iter()
                            .map(CommitRef::of)
                            .collect(),
                    })
                })
                .collect();
            if moved.is_empty() {
                continue;
            }
            // Re-verified in the work tree (the commit that holds the record is older than
            // its last re-verification) against the targets as HEAD has them: it waits
            // for its commit, it is not stale.
            if let Some(at) = reverified_at
                .as_deref()
                .filter(|at| *at != commit.id.as_str())
            {
                let moved_paths: Vec<&str> = moved.iter().map(|m| m.path.as_str()).collect();
                let there = ctx
                    .repo
                    .blob_ids_at(Some(at), moved_paths.iter().copied())
                    .ok();
                let same = there.is_some_and(|there| {
                    moved_paths.iter().all(|p| there.get(*p) == at_head.get(*p))
                });
                if same {
                    report.reverified.push(ReverifiedRecord {
                        id: id.clone(),
                        file: rel.clone(),
                        at: at.to_owned(),
                    });
                    continue;
                }
            }
            report.stale.push(StaleRecord {
                id: id.clone(),
                file: rel.clone(),
                verified_in: CommitRef::of(commit),
                targets: moved,
            });
        }
    }
    report.stale.sort_by(|a, b| a.file.cmp(&b.file));
    report.reverified.sort_by(|a, b| a.file.cmp(&b.file));
    report.not_judged.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_file_and_test_paths_without_lines() {
        let refs: Vec<String> = [
            "session:x",
            "file:src/a.rs:12",
            "test:tests/b.rs",
            "file:src/a.rs",
            "commit:abc",
            "file:",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            targets(&refs).into_iter().collect::<Vec<_>>(),
            ["src/a.rs", "tests/b.rs"]
        );
    }
}
