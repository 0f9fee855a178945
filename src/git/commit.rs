//! One commit of some paths only (`knowledge promote|reject --commit`): HEAD's tree with
//! those paths as they are in the work tree, on HEAD's branch, and the index updated for
//! those paths alone. Written through gix, so no git hook runs (docs/KNOWLEDGE.md).

use gix::bstr::{BStr, ByteSlice};

use super::{GitError, Repo, plumbing};

/// A path of the commit and what it was before the act that changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathBefore {
    /// From the root, `/`-separated.
    pub path: String,
    /// The git blob id of the file before the act (`None`: there was no file).
    pub blob: Option<String>,
}

/// Why the commit cannot be written as asked (checked before anything is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitBlocker {
    /// HEAD names no branch.
    Detached,
    /// No committer identity is configured (`user.name`, `user.email`).
    NoIdentity,
    /// The index holds staged changes to these paths that are neither HEAD's version nor
    /// the file the act starts from: committing would drop or carry them.
    Staged(Vec<String>),
}

/// The commit written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathsCommit {
    pub id: String,
    /// The branch it was written on.
    pub branch: String,
}

impl Repo {
    /// What would stop [`Repo::commit_paths`] for `paths`: a detached HEAD, no identity,
    /// or staged changes of their own to any of them. `None`: nothing does.
    pub fn commit_blocker(&self, paths: &[PathBefore]) -> Result<Option<CommitBlocker>, GitError> {
        let head = self.repo.head()?;
        if head.is_detached() {
            return Ok(Some(CommitBlocker::Detached));
        }
        if !matches!(self.repo.committer(), Some(Ok(_)))
            || !matches!(self.repo.author(), Some(Ok(_)))
        {
            return Ok(Some(CommitBlocker::NoIdentity));
        }
        let tree = if head.is_unborn() {
            None
        } else {
            Some(self.repo.head_commit()?.tree()?)
        };
        let index = self.repo.index_or_empty()?;
        let mut staged = Vec::new();
        for p in paths {
            let in_index = index
                .entry_by_path(p.path.as_bytes().as_bstr())
                .map(|e| e.id.to_string());
            let in_head = match &tree {
                Some(tree) => tree
                    .lookup_entry_by_path(p.path.as_str())?
                    .map(|e| e.object_id().to_string()),
                None => None,
            };
            if in_index != in_head && in_index != p.blob {
                staged.push(p.path.clone());
            }
        }
        Ok((!staged.is_empty()).then_some(CommitBlocker::Staged(staged)))
    }

    /// Commits `paths` as they are in the work tree (a missing file: removed) on top of
    /// HEAD's tree, on HEAD's branch, with the configured identity, then updates the index
    /// for those paths only. Nothing else staged or unstaged goes in.
    pub fn commit_paths(&self, paths: &[&str], message: &str) -> Result<PathsCommit, GitError> {
        let head = self.repo.head()?;
        let branch = self
            .repo
            .head_name()?
            .map(|n| n.shorten().to_string())
            .unwrap_or_default();
        let parent = if head.is_unborn() {
            None
        } else {
            Some(self.repo.head_id()?.detach())
        };
        let base_tree = match parent {
            Some(p) => self.repo.find_commit(p)?.tree_id()?.detach(),
            None => gix::ObjectId::empty_tree(self.repo.object_hash()),
        };
        let mut editor = self.repo.edit_tree(base_tree)?;
        let mut written: Vec<(&str, Option<gix::ObjectId>)> = Vec::new();
        for path in paths {
            let full = self.workdir.join(path);
            match std::fs::read(&full) {
                Ok(bytes) => {
                    let blob = self.repo.write_blob(&bytes)?.detach();
                    editor.upsert(*path, gix::objs::tree::EntryKind::Blob, blob)?;
                    written.push((path, Some(blob)));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    editor.remove(*path)?;
                    written.push((path, None));
                }
                Err(source) => return Err(GitError::Io { path: full, source }),
            }
        }
        let tree = editor.write()?.detach();
        let id = self.repo.commit("HEAD", message, tree, parent)?.detach();
        let mut index = self.repo.open_index().or_else(|_| {
            // No index yet (a repository with no commit and nothing added).
            Ok::<_, GitError>(gix::index::File::from_state(
                gix::index::State::new(self.repo.object_hash()),
                self.repo.index_path(),
            ))
        })?;
        let touched: std::collections::HashSet<&[u8]> =
            written.iter().map(|(p, _)| p.as_bytes()).collect();
        index.remove_entries(|_, path: &BStr, _| touched.contains(path.as_bytes()));
        for (path, blob) in &written {
            let Some(blob) = blob else { continue };
            let full = self.workdir.join(path);
            let stat = gix::index::fs::Metadata::from_path_no_follow(&full)
                .ok()
                .and_then(|m| gix::index::entry::Stat::from_fs(&m).ok())
                .unwrap_or_default();
            index.dangerously_push_entry(
                stat,
                *blob,
                gix::index::entry::Flags::empty(),
                gix::index::entry::Mode::FILE,
                path.as_bytes().as_bstr(),
            );
        }
        index.sort_entries();
        // The cached trees no longer match the entries: git rebuilds them.
        index.remove_tree();
        index
            .write(gix::index::write::Options::default())
            .map_err(plumbing)?;
        Ok(PathsCommit {
            id: id.to_string(),
            branch,
        })
    }
}
