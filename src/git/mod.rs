//! The one gix adapter: every git read and write of majordomus goes through `Repo`:
//! HEAD and the trunk (`head`), history and changed paths (`history`), what an episode's
//! commits are attributed from (`episode`), what a push sends
//! (`push`), trees, blobs and the index (`tree`), the work tree's status (`status`), and
//! the demo's commit writer (`write`), the one commit of a review's paths (`commit`), the journal's refs, commits and fetch refspec
//! (`journal`), and the one run of the git program, the journal's push (`program`).

mod commit;
mod episode;
mod hand;
mod head;
mod history;
mod ignore;
mod journal;
mod program;
mod push;
mod status;
mod tree;
mod worktrees;
mod write;

use std::path::{Path, PathBuf};

pub use commit::{CommitBlocker, PathBefore, PathsCommit};
pub use episode::{EpisodeHistory, RefAt, RefLog};
pub use hand::{BranchCommits, ForkPoint, SeenDir};
pub use head::{HeadState, Operation, Trunk, TrunkSource};
pub use history::LastChanged;
pub use ignore::Ignored;
pub use journal::{Chain, ChainCommit, RefUpdate};
pub use program::{PushOutcome, push_ref};
pub use push::{AddedBlob, Pushed};
pub use tree::Baseline;
pub use worktrees::OtherWorktree;
pub use write::Identity;

/// Errors of the git adapter.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("{path}: not inside a git repository")]
    NotARepository {
        path: PathBuf,
        #[source]
        source: gix::Error,
    },
    #[error("{path}: a bare repository has no work tree to keep a memory for")]
    Bare { path: PathBuf },
    #[error("{path}: no such directory")]
    NoSuchDirectory { path: PathBuf },
    #[error("{0}")]
    Git(#[from] gix::Error),
    #[error("branch {branch}: no such local branch")]
    UnknownBranch { branch: String },
    #[error("branch {branch:?}: not a valid branch name ({message})")]
    InvalidBranchName { branch: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn plumbing(e: impl std::error::Error + Send + Sync + 'static) -> GitError {
    GitError::Git(gix::Error::from_error(e))
}

/// A repository with a work tree, opened through gix.
pub struct Repo {
    repo: gix::Repository,
    workdir: PathBuf,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("workdir", &self.workdir)
            .finish()
    }
}

impl Repo {
    /// Finds the repository containing `dir`, walking up.
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        if !dir.is_dir() {
            return Err(GitError::NoSuchDirectory {
                path: dir.to_owned(),
            });
        }
        let repo = gix::discover(dir).map_err(|source| GitError::NotARepository {
            path: dir.to_owned(),
            source,
        })?;
        Repo::from_gix(repo, dir)
    }

    /// Like [`Repo::discover`], but reads only the repository's own configuration: no
    /// system or user (`~/.gitconfig`) file and no `GIT_*` variables. For tests that run
    /// the library in-process, where the developer's own configuration must not leak in.
    pub fn discover_isolated(dir: &Path) -> Result<Repo, GitError> {
        let repo = gix::discover_opts(
            dir,
            gix::discover::upwards::Options::default(),
            gix::open::Options::isolated(),
        )
        .map_err(|source| GitError::NotARepository {
            path: dir.to_owned(),
            source: gix::Error::from_error(source),
        })?;
        Repo::from_gix(repo, dir)
    }

    /// Creates a new repository with a work tree at `dir` (used by `demo`).
    pub fn init(dir: &Path) -> Result<Repo, GitError> {
        let repo = gix::init(dir)?;
        Repo::from_gix(repo, dir)
    }

    fn from_gix(repo: gix::Repository, dir: &Path) -> Result<Repo, GitError> {
        let workdir = repo
            .workdir()
            .ok_or_else(|| GitError::Bare {
                path: dir.to_owned(),
            })?
            .to_owned();
        let workdir = workdir.canonicalize().unwrap_or(workdir);
        Ok(Repo { repo, workdir })
    }

    /// The work tree root.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The person git says is acting here, `Name <email>`: the author identity gix reads
    /// from git's configuration (`user.name`, `user.email`, `author.*`) and environment
    /// (`GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`). `None` when neither is configured.
    pub fn user_identity(&self) -> Option<String> {
        let author = self.repo.author()?.ok()?;
        let name = author.name.to_string();
        let email = author.email.to_string();
        match (name.trim(), email.trim()) {
            ("", "") => None,
            (name, "") => Some(name.to_owned()),
            ("", email) => Some(format!("<{email}>")),
            (name, email) => Some(format!("{name} <{email}>")),
        }
    }
}
