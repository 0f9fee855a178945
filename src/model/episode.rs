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

/// Git now against git at open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GitSinceOpen {
    pub head: Option<String>,
    pub branch: Option<String>,
    /// Commits reachable from HEAD and not from the HEAD at open, oldest first.
    pub commits: Vec<CommitSummary>,
    /// Union of the commits' paths, sorted.
    pub changed_files: Vec<String>,
    /// Working tree has tracked or untracked changes (like a non-empty `git status --porcelain`).
    pub dirty: bool,
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
        }
    }
}
