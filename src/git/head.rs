//! HEAD, the branch, the trunk (SPEC §5.7) and where git keeps its hooks.

use std::path::PathBuf;

use gix::bstr::ByteSlice;
use schemars::JsonSchema;
use serde::Serialize;

use super::{GitError, Repo};

/// HEAD as git sees it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HeadState {
    /// The commit HEAD points to; `None` on an unborn branch.
    pub id: Option<String>,
    /// The branch HEAD names; `None` when detached.
    pub branch: Option<String>,
    pub detached: bool,
    pub unborn: bool,
}

/// An operation git is in the middle of, as its state on disk says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// gix's name for it, lower case (`rebaseinteractive`, `cherrypick`, ...).
    pub name: String,
    /// A cherry-pick or a revert (single or a sequence): git's sequencer making a new
    /// commit per pick and running post-commit for each while `CHERRY_PICK_HEAD` (or
    /// `REVERT_HEAD`) is still on disk. A rebase's picks are not this (its state wins:
    /// its commits are rewrites, which post-rewrite records).
    pub picking: bool,
}

/// The repository's trunk (SPEC §5.7) and where the answer came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Trunk {
    pub branch: String,
    pub source: TrunkSource,
    pub remote: Option<String>,
}

/// Where the trunk's name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TrunkSource {
    /// `git config majordomus.trunk`.
    Config,
    /// `refs/remotes/<remote>/HEAD`.
    RemoteHead,
}

impl Repo {
    /// HEAD's commit, branch, detached and unborn state.
    pub fn head(&self) -> Result<HeadState, GitError> {
        let head = self.repo.head()?;
        let detached = head.is_detached();
        let unborn = head.is_unborn();
        let branch = self.repo.head_name()?.map(|n| n.shorten().to_string());
        let id = if unborn {
            None
        } else {
            Some(self.repo.head_id()?.detach().to_string())
        };
        Ok(HeadState {
            id,
            branch,
            detached,
            unborn,
        })
    }

    /// The trunk: `majordomus.trunk` from git config when set, else the branch that a
    /// remote's `refs/remotes/<remote>/HEAD` names (the default fetch remote first).
    /// No remote HEAD means no trunk; nothing is guessed.
    pub fn trunk(&self) -> Result<Option<Trunk>, GitError> {
        let config = self.repo.config_snapshot();
        if let Some(name) = config.string("majordomus.trunk") {
            let name = name.to_str_lossy().trim().to_owned();
            if !name.is_empty() {
                return Ok(Some(Trunk {
                    branch: name,
                    source: TrunkSource::Config,
                    remote: None,
                }));
            }
        }
        let mut remotes: Vec<String> = self
            .repo
            .remote_names()
            .into_iter()
            .map(|n| n.to_str_lossy().into_owned())
            .collect();
        if let Some(default) = self
            .repo
            .remote_default_name(gix::remote::Direction::Fetch)
            .map(|n| n.to_str_lossy().into_owned())
        {
            remotes.retain(|r| *r != default);
            remotes.insert(0, default);
        }
        for remote in remotes {
            let head_ref = format!("refs/remotes/{remote}/HEAD");
            let Some(reference) = self.repo.try_find_reference(head_ref.as_str())? else {
                continue;
            };
            if let Some(target) = reference.target().try_name() {
                let full = target.as_bstr().to_str_lossy();
                let prefix = format!("refs/remotes/{remote}/");
                if let Some(branch) = full.strip_prefix(&prefix) {
                    return Ok(Some(Trunk {
                        branch: branch.to_owned(),
                        source: TrunkSource::RemoteHead,
                        remote: Some(remote),
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The git directory's hooks folder, honouring `core.hooksPath` (relative paths are
    /// relative to the work tree, as git does).
    pub fn hooks_dir(&self) -> PathBuf {
        let config = self.repo.config_snapshot();
        if let Ok(Some(path)) = config.trusted_path("core.hooksPath") {
            return if path.is_absolute() {
                path
            } else {
                self.workdir.join(path)
            };
        }
        self.repo.common_dir().join("hooks")
    }

    /// git's own hooks directory (`<common dir>/hooks`), used when `core.hooksPath` is
    /// not set; never shared by a clone or committed.
    pub fn default_hooks_dir(&self) -> PathBuf {
        self.repo.common_dir().join("hooks")
    }

    /// `core.hooksPath` as configured (before resolving a relative value), when set.
    pub fn hooks_path_setting(&self) -> Option<PathBuf> {
        let config = self.repo.config_snapshot();
        config.trusted_path("core.hooksPath").ok().flatten()
    }

    /// The main work tree, when this is a linked worktree (`git worktree add`).
    pub fn main_worktree(&self) -> Option<PathBuf> {
        if self.repo.git_dir() == self.repo.common_dir() {
            return None;
        }
        let common = self.repo.common_dir();
        let common = common.canonicalize().unwrap_or_else(|_| common.to_owned());
        (common.file_name()? == ".git")
            .then(|| common.parent().map(std::path::Path::to_path_buf))
            .flatten()
    }

    /// HEAD's commit id and subject; `None` on an unborn branch. Reads HEAD once and the
    /// commit once (the post-commit hook runs it on every commit).
    pub fn head_subject(&self) -> Result<Option<(String, String)>, GitError> {
        let head = self.repo.head()?;
        if head.is_unborn() {
            return Ok(None);
        }
        let id = match head.id() {
            Some(id) => id.detach(),
            // A reference that names another one: let gix follow it.
            None => self.repo.head_id()?.detach(),
        };
        let commit = self.repo.find_commit(id)?;
        let subject = commit.message()?.summary().to_string();
        Ok(Some((id.to_string(), subject)))
    }

    /// Whether git syncs a loose object it writes, as `core.fsync` (or the older
    /// `core.fsyncObjectFiles`) says; by default it does not, so a new commit is not synced.
    pub fn syncs_loose_objects(&self) -> bool {
        let config = self.repo.config_snapshot();
        let fsync = config.string("core.fsync");
        syncs_loose_objects(
            fsync.as_ref().map(|v| v.to_str_lossy()).as_deref(),
            config.boolean("core.fsyncObjectFiles").unwrap_or(false),
        )
    }

    /// True when HEAD's branch is the trunk.
    pub fn on_trunk(&self) -> Result<bool, GitError> {
        let head = self.head()?;
        Ok(match (self.trunk()?, head.branch) {
            (Some(t), Some(b)) => t.branch == b,
            _ => false,
        })
    }

    /// The operation git is in the middle of (rebase, merge, cherry-pick, bisect, ...).
    pub fn operation_in_progress(&self) -> Option<Operation> {
        use gix::state::InProgress;
        self.repo.state().map(|s| Operation {
            name: format!("{s:?}").to_lowercase(),
            picking: matches!(
                s,
                InProgress::CherryPick
                    | InProgress::CherryPickSequence
                    | InProgress::Revert
                    | InProgress::RevertSequence
            ),
        })
    }
}

/// git's answer for loose objects: a `core.fsync` component that includes them, named
/// positively (git adds named components to its default set, which leaves loose objects
/// out, and a named one wins over a `-` one), or the older `core.fsyncObjectFiles`.
fn syncs_loose_objects(fsync: Option<&str>, object_files: bool) -> bool {
    let named = fsync.is_some_and(|value| {
        value.split(',').any(|c| {
            matches!(
                c.trim(),
                "loose-object" | "objects" | "committed" | "added" | "all"
            )
        })
    });
    named || object_files
}

#[cfg(test)]
mod tests {
    use super::syncs_loose_objects;

    #[test]
    fn loose_objects_are_synced_only_where_git_syncs_them() {
        assert!(!syncs_loose_objects(None, false), "git's default");
        assert!(!syncs_loose_objects(Some("reference,index"), false));
        assert!(!syncs_loose_objects(Some("none"), false));
        assert!(!syncs_loose_objects(Some("-loose-object"), false));
        for named in [
            "loose-object",
            "objects",
            "committed",
            "added",
            "all",
            "index, all",
        ] {
            assert!(syncs_loose_objects(Some(named), false), "{named}");
        }
        assert!(syncs_loose_objects(None, true), "core.fsyncObjectFiles");
    }
}
