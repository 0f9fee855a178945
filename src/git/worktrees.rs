//! The other work trees of this repository (`git worktree list`): where each is, its
//! branch, whether it is locked, and whether it is there at all.

use std::path::PathBuf;

use super::{GitError, Repo};

/// A work tree of this repository other than the one majordomus runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherWorktree {
    /// Its work tree (where its `.ai/local/` is); for a linked one whose registration
    /// cannot be read, its git directory.
    pub path: PathBuf,
    /// The main work tree (the clone's own), not a linked one.
    pub main: bool,
    /// The branch its HEAD names; `None` when detached or unknown.
    pub branch: Option<String>,
    /// `Some(reason)` when it is locked (`git worktree lock`; the reason may be empty).
    pub locked: Option<String>,
    /// Why it cannot be read, when it cannot: its directory is gone or unreadable.
    pub missing: Option<String>,
}

impl Repo {
    /// Every other work tree: the main one when this is a linked one, then the linked
    /// ones by name. A work tree that cannot be opened is listed with why, never an error.
    pub fn other_worktrees(&self) -> Result<Vec<OtherWorktree>, GitError> {
        let own = canonical(self.repo.git_dir());
        let mut out = Vec::new();
        if self.main_worktree().is_some() {
            match self.repo.main_repo() {
                Ok(main) => {
                    if let Some(path) = main.workdir() {
                        out.push(OtherWorktree {
                            path: path.to_owned(),
                            main: true,
                            branch: branch_of(&main),
                            locked: None,
                            missing: (!path.is_dir())
                                .then(|| "its directory is not there".to_owned()),
                        });
                    }
                }
                Err(e) => out.push(OtherWorktree {
                    path: self.repo.common_dir().to_owned(),
                    main: true,
                    branch: None,
                    locked: None,
                    missing: Some(e.to_string()),
                }),
            }
        }
        let mut linked = Vec::new();
        for proxy in self.repo.worktrees()? {
            if canonical(proxy.git_dir()) == own {
                continue;
            }
            let name = proxy
                .id()
                .map(|id| id.to_string())
                .unwrap_or_else(|_| proxy.git_dir().display().to_string());
            let locked = proxy.is_locked().then(|| {
                proxy
                    .lock_reason()
                    .map(|r| r.to_string())
                    .unwrap_or_default()
            });
            let git_dir = proxy.git_dir().to_owned();
            let base = proxy.base().ok();
            let entry = match base {
                None => OtherWorktree {
                    path: git_dir,
                    main: false,
                    branch: None,
                    locked,
                    missing: Some("its registration does not say where it is".to_owned()),
                },
                Some(path) if !path.is_dir() => OtherWorktree {
                    path,
                    main: false,
                    branch: None,
                    locked,
                    missing: Some(
                        "its directory is not there (moved, deleted, or on a disk not mounted: \
                         `git worktree prune` forgets it)"
                            .to_owned(),
                    ),
                },
                Some(path) => {
                    let branch = proxy
                        .into_repo_with_possibly_inaccessible_worktree()
                        .ok()
                        .and_then(|r| branch_of(&r));
                    OtherWorktree {
                        path,
                        main: false,
                        branch,
                        locked,
                        missing: None,
                    }
                }
            };
            linked.push((name, entry));
        }
        linked.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(linked.into_iter().map(|(_, w)| w));
        Ok(out)
    }
}

fn canonical(path: &std::path::Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

fn branch_of(repo: &gix::Repository) -> Option<String> {
    repo.head_name()
        .ok()
        .flatten()
        .map(|name| name.shorten().to_string())
}
