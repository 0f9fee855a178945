//! The open episode's own record (`.ai/local/state/episode.json`) and git's view of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What `session start` records about the episode it opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeState {
    pub id: String,
    pub provider: String,
    /// Branch at open; `None` when HEAD was detached.
    pub branch: Option<String>,
    /// HEAD at open; `None` when the branch was unborn.
    pub head_at_open: Option<String>,
    pub opened: String,
    /// Byte offset of this episode's `session.opened` line, where its ledger window starts.
    pub ledger_offset: u64,
}

/// One commit as git shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CommitSummary {
    pub id: String,
    pub subject: String,
    /// Committer time, RFC 3339 UTC.
    pub time: String,
    /// Paths changed against the first parent, sorted.
    pub paths: Vec<String>,
}

/// A commit of the walk from HEAD back to a base, with its parents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkedCommit {
    pub summary: CommitSummary,
    pub parents: Vec<String>,
}

/// Which of the commits between a base (the HEAD at open, or at a task's start) and HEAD
/// are the work since `since`, and how many are not. Git's `base..HEAD` also holds what a
/// rebase moved the work onto and what a merge brought in; those are someone else's
/// commits and a record must not claim them:
///
/// - a commit committed before `since` was not made during the episode (a rebase or a
///   cherry-pick gives the commits it writes the time it writes them);
/// - a commit on HEAD's first-parent line is the branch's own work (merges included);
/// - a commit off that line came in through a merge: it is the episode's only when the
///   hooks saw the episode make it (`committed`, from [`super::EpisodeWindow::committed`]);
///   with no hook evidence at all it is kept, since nothing says otherwise;
/// - a commit below a commit a rebase or an amend wrote (`successors`, every `new` of the
///   window's `commit.rewritten` pairs) that is neither one itself nor seen made by the
///   episode is what the rebase moved the work onto, whatever its time says (a trunk
///   commit made in the same second as the open is not the episode's either).
///
/// Oldest first, like the walk.
pub fn attribute_commits(
    walked: Vec<WalkedCommit>,
    head: Option<&str>,
    since: Option<time::OffsetDateTime>,
    committed: Option<&std::collections::HashSet<String>>,
    successors: &std::collections::HashSet<String>,
) -> (Vec<CommitSummary>, usize) {
    use std::collections::{HashMap, HashSet};
    // Everything the walk holds below a rewrite's successor: one pass over the parents.
    let parents: HashMap<&str, &[String]> = walked
        .iter()
        .map(|c| (c.summary.id.as_str(), c.parents.as_slice()))
        .collect();
    let mut below_rewrite: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = walked
        .iter()
        .filter(|c| successors.contains(&c.summary.id))
        .flat_map(|c| c.parents.iter().map(String::as_str))
        .collect();
    while let Some(id) = stack.pop() {
        if parents.contains_key(id) && below_rewrite.insert(id) {
            stack.extend(parents[id].iter().map(String::as_str));
        }
    }
    let moved_onto: HashSet<String> = below_rewrite
        .into_iter()
        .filter(|id| !successors.contains(*id) && committed.is_none_or(|own| !own.contains(*id)))
        .map(str::to_owned)
        .collect();
    let first_parents: HashMap<&str, Option<&str>> = walked
        .iter()
        .map(|c| (c.summary.id.as_str(), c.parents.first().map(String::as_str)))
        .collect();
    let mut line: HashSet<&str> = HashSet::new();
    let mut at = head;
    while let Some(id) = at {
        let Some(parent) = first_parents.get(id) else {
            break;
        };
        if !line.insert(id) {
            break;
        }
        at = *parent;
    }
    let line: HashSet<String> = line.into_iter().map(str::to_owned).collect();
    let total = walked.len();
    let own: Vec<CommitSummary> = walked
        .into_iter()
        .filter(|c| {
            let before = since.is_some_and(|since| {
                super::time::parse(&c.summary.time).is_some_and(|t| t < since)
            });
            if before || moved_onto.contains(&c.summary.id) {
                return false;
            }
            line.contains(&c.summary.id) || committed.is_none_or(|own| own.contains(&c.summary.id))
        })
        .map(|c| c.summary)
        .collect();
    let elsewhere = total - own.len();
    (own, elsewhere)
}

/// Git now against git at open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GitSinceOpen {
    pub head: Option<String>,
    pub branch: Option<String>,
    /// Commits reachable from HEAD and not from the HEAD at open, oldest first.
    pub commits: Vec<CommitSummary>,
    /// Union of the commits' paths, sorted.
    pub changed_files: Vec<String>,
    /// Working tree has tracked or untracked changes outside the memory's own files
    /// under `.ai/` (what `working_tree` lists, those left out).
    pub dirty: bool,
    /// Every path `git status --porcelain` names, in its order and with its two-letter
    /// code (`.ai/` included: listed, not counted as dirty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub working_tree: Vec<PathStatus>,
    /// Commits between the HEAD at open and HEAD that are not the episode's: what a
    /// rebase moved it onto or a merge brought in ([`attribute_commits`]).
    pub elsewhere: usize,
}

impl GitSinceOpen {
    /// Builds the view; `changed_files` is computed from the commits.
    pub fn new(
        head: Option<String>,
        branch: Option<String>,
        commits: Vec<CommitSummary>,
        dirty: bool,
    ) -> Self {
        let mut changed_files: Vec<String> = commits
            .iter()
            .flat_map(|c| c.paths.iter().cloned())
            .collect();
        changed_files.sort();
        changed_files.dedup();
        GitSinceOpen {
            head,
            branch,
            commits,
            changed_files,
            dirty,
            working_tree: Vec::new(),
            elsewhere: 0,
        }
    }
}

/// One line of `git status --porcelain`: `XY path` (`XY from -> path` for a rename).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PathStatus {
    /// The two columns: the index against HEAD, the work tree against the index
    /// (`M `, ` M`, `A `, ` D`, `R `, `??`, ...).
    pub code: String,
    /// Repository-relative, `/`-separated; an untracked directory ends in `/`.
    pub path: String,
    /// Where a rename or copy came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl PathStatus {
    /// The line as `git status --porcelain` prints it.
    pub fn porcelain(&self) -> String {
        match &self.from {
            Some(from) => format!("{} {from} -> {}", self.code, self.path),
            None => format!("{} {}", self.code, self.path),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn walked(id: &str, time: &str, parents: &[&str]) -> WalkedCommit {
        WalkedCommit {
            summary: CommitSummary {
                id: id.into(),
                subject: id.into(),
                time: time.into(),
                paths: Vec::new(),
            },
            parents: parents.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    fn ids(commits: &[CommitSummary]) -> Vec<&str> {
        commits.iter().map(|c| c.id.as_str()).collect()
    }

    fn at(text: &str) -> Option<time::OffsetDateTime> {
        crate::model::time::parse(text)
    }

    #[test]
    fn a_rebase_onto_older_work_leaves_that_work_out() {
        // open at o; trunk t (older than the episode) was rebased under the episode's e.
        let walk = vec![
            walked("t", "2026-11-30T09:00:00Z", &["o"]),
            walked("e", "2026-11-30T10:05:00Z", &["t"]),
        ];
        let (own, elsewhere) = attribute_commits(
            walk,
            Some("e"),
            at("2026-11-30T10:00:00Z"),
            None,
            &HashSet::new(),
        );
        assert_eq!((ids(&own), elsewhere), (vec!["e"], 1));
    }

    #[test]
    fn a_merge_keeps_itself_and_only_the_merged_commits_the_hooks_saw() {
        // e1 on the branch, m merges x (someone else's, made during the episode).
        let walk = vec![
            walked("e1", "2026-11-30T10:01:00Z", &["o"]),
            walked("x", "2026-11-30T10:02:00Z", &["o"]),
            walked("m", "2026-11-30T10:03:00Z", &["e1", "x"]),
        ];
        let seen: HashSet<String> = ["e1".to_owned()].into();
        let (own, elsewhere) = attribute_commits(
            walk.clone(),
            Some("m"),
            at("2026-11-30T10:00:00Z"),
            Some(&seen),
            &HashSet::new(),
        );
        assert_eq!((ids(&own), elsewhere), (vec!["e1", "m"], 1));
        // Without hook evidence nothing says x is not the episode's.
        let (own, elsewhere) = attribute_commits(
            walk,
            Some("m"),
            at("2026-11-30T10:00:00Z"),
            None,
            &HashSet::new(),
        );
        assert_eq!((ids(&own), elsewhere), (vec!["e1", "x", "m"], 0));
    }

    #[test]
    fn no_time_and_no_evidence_keeps_the_walk() {
        let walk = vec![walked("a", "2026-11-30T09:00:00Z", &["o"])];
        let (own, elsewhere) = attribute_commits(walk, Some("a"), None, None, &HashSet::new());
        assert_eq!((ids(&own), elsewhere), (vec!["a"], 0));
    }

    #[test]
    fn a_commit_in_the_second_the_episode_opened_is_its_own() {
        let walk = vec![walked("a", "2026-11-30T10:00:00Z", &["o"])];
        let (own, _) = attribute_commits(
            walk,
            Some("a"),
            at("2026-11-30T10:00:00Z"),
            None,
            &HashSet::new(),
        );
        assert_eq!(ids(&own), ["a"]);
    }

    #[test]
    fn a_rebase_onto_a_commit_of_the_same_second_still_leaves_it_out() {
        // The episode opened at 10:00:00 and made e (recorded); the trunk got t in the
        // same second; the rebase wrote e' on t. Time cannot tell; the rewrite can.
        let walk = vec![
            walked("t", "2026-11-30T10:00:00Z", &["o"]),
            walked("e2", "2026-11-30T10:00:00Z", &["t"]),
        ];
        let seen: HashSet<String> = ["e".to_owned(), "e2".to_owned()].into();
        let successors: HashSet<String> = ["e2".to_owned()].into();
        let (own, elsewhere) = attribute_commits(
            walk.clone(),
            Some("e2"),
            at("2026-11-30T10:00:00Z"),
            Some(&seen),
            &successors,
        );
        assert_eq!((ids(&own), elsewhere), (vec!["e2"], 1));
        // A commit no hook saw but that the rebase rewrote too (made by a tool that runs
        // no hooks) stays the episode's: it is a successor itself.
        let walk = vec![
            walked("t", "2026-11-30T10:00:00Z", &["o"]),
            walked("h2", "2026-11-30T10:00:01Z", &["t"]),
            walked("e2", "2026-11-30T10:00:02Z", &["h2"]),
        ];
        let successors: HashSet<String> = ["h2".to_owned(), "e2".to_owned()].into();
        let (own, elsewhere) = attribute_commits(
            walk,
            Some("e2"),
            at("2026-11-30T10:00:00Z"),
            Some(&seen),
            &successors,
        );
        assert_eq!((ids(&own), elsewhere), (vec!["h2", "e2"], 1));
    }
}
