//! Trees, blobs and the index: which commits and paths exist (batched), the files of a
//! branch, the upstream baseline of the knowledge store, and whether the tree is dirty.

use std::collections::HashSet;

use gix::bstr::ByteSlice;

use super::{GitError, Repo, plumbing};

/// A ref the pending change lands on, and the blob id of each file under a prefix in it.
pub type Baseline = (String, std::collections::HashMap<String, String>);

/// Up to this many paths, [`Repo::blob_ids_at`] looks each up instead of traversing the
/// whole tree.
const LOOKUP_AT_MOST: usize = 32;

/// A file in a commit's tree: its path and blob id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub path: String,
    pub blob: String,
}

impl Repo {
    /// The git blob id `bytes` would have.
    pub fn blob_id(&self, bytes: &[u8]) -> Result<String, GitError> {
        gix::objs::compute_hash(self.repo.object_hash(), gix::object::Kind::Blob, bytes)
            .map(|id| id.to_string())
            .map_err(plumbing)
    }

    /// The upstream the pending change will land on: the branch's remote-tracking ref,
    /// else the trunk's, if either exists; with the blob id of each file under `prefix`
    /// in that ref's tree (one traversal).
    pub fn baseline_blobs(&self, prefix: &str) -> Result<Option<Baseline>, GitError> {
        let mut candidates = Vec::new();
        if let Some(name) = self.repo.head_name()?
            && let Some(Ok(tracking)) = self
                .repo
                .branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)
        {
            candidates.push(tracking.as_bstr().to_str_lossy().into_owned());
        }
        if let Some(trunk) = self.trunk()?
            && let Some(remote) = trunk.remote
        {
            candidates.push(format!("refs/remotes/{remote}/{}", trunk.branch));
        }
        for name in candidates {
            let Some(mut reference) = self.repo.try_find_reference(name.as_str())? else {
                continue;
            };
            let id = reference.peel_to_id()?.detach().to_string();
            let blobs = self
                .files_under_at(&id, prefix)?
                .into_iter()
                .map(|f| (f.path, f.blob))
                .collect();
            return Ok(Some((name, blobs)));
        }
        Ok(None)
    }

    /// Files under `prefix` in the tree of local branch `branch`, sorted.
    pub fn branch_files_under(&self, branch: &str, prefix: &str) -> Result<Vec<String>, GitError> {
        let name = branch_ref(branch)?;
        let Some(mut reference) = self.repo.try_find_reference(name.as_str())? else {
            return Err(GitError::UnknownBranch {
                branch: branch.to_owned(),
            });
        };
        let id = reference.peel_to_id()?.detach();
        let tree = self.repo.find_commit(id)?.tree()?;
        let files = tree.traverse().breadthfirst.files().map_err(plumbing)?;
        let mut out: Vec<String> = files
            .into_iter()
            .filter(|e| !e.mode.is_tree())
            .map(|e| e.filepath.to_str_lossy().into_owned())
            .filter(|p| p.starts_with(prefix))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The bytes of `path` in branch `branch`'s tree.
    pub fn branch_file(&self, branch: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let name = branch_ref(branch)?;
        let Some(mut reference) = self.repo.try_find_reference(name.as_str())? else {
            return Ok(None);
        };
        let id = reference.peel_to_id()?.detach();
        let tree = self.repo.find_commit(id)?.tree()?;
        let Some(entry) = tree.lookup_entry_by_path(path)? else {
            return Ok(None);
        };
        Ok(Some(entry.object()?.detach().data))
    }

    /// True when `git status --porcelain` would print anything (tracked changes or
    /// untracked files that are not ignored).
    pub fn is_dirty(&self) -> Result<bool, GitError> {
        self.is_dirty_outside(None)
    }

    /// The paths `git status --porcelain` would name (untracked directories collapsed),
    /// leaving out those under `ignored`; sorted.
    pub fn dirty_paths_outside(&self, ignored: Option<&str>) -> Result<Vec<String>, GitError> {
        let iter = self
            .repo
            .status(gix::progress::Discard)?
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .into_iter(None)?;
        let mut out = Vec::new();
        for item in iter {
            let item = item?;
            let path = item.location().to_str_lossy().into_owned();
            if ignored.is_none_or(|prefix| !path.starts_with(prefix)) {
                out.push(path);
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Like [`Repo::is_dirty`], but changes under `ignored` (a directory prefix such as
    /// `.ai/`) do not count: majordomus's own bookkeeping is not the work being recorded.
    pub fn is_dirty_outside(&self, ignored: Option<&str>) -> Result<bool, GitError> {
        let iter = self
            .repo
            .status(gix::progress::Discard)?
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .into_iter(None)?;
        for item in iter {
            let item = item?;
            let path = item.location().to_str_lossy();
            if ignored.is_none_or(|prefix| !path.starts_with(prefix)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Paths in the index under `prefix` (a directory, `/`-separated; empty = all), sorted.
    pub fn tracked_files_under(&self, prefix: &str) -> Result<Vec<String>, GitError> {
        let index = self.repo.index_or_empty()?;
        let prefix = prefix.trim_end_matches('/');
        let mut out: Vec<String> = index
            .entries()
            .iter()
            .map(|e| e.path(&index).to_str_lossy().into_owned())
            .filter(|p| {
                prefix.is_empty()
                    || p.strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The paths under `prefix` that the index holds unmerged (a merge, rebase or
    /// cherry-pick stopped on a conflict there), sorted.
    pub fn unmerged_under(&self, prefix: &str) -> Result<Vec<String>, GitError> {
        let index = self.repo.index_or_empty()?;
        let prefix = prefix.trim_end_matches('/');
        let mut out: Vec<String> = index
            .entries()
            .iter()
            .filter(|e| e.stage_raw() != 0)
            .map(|e| e.path(&index).to_str_lossy().into_owned())
            .filter(|p| {
                p.strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Which of `ids` name commits in this object database: one pass, misses answered
    /// without rescanning the pack directory each time.
    pub fn existing_commits<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashSet<String>, GitError> {
        let mut found = HashSet::new();
        let mut primed = false;
        for text in ids {
            let Ok(id) = gix::ObjectId::from_hex(text.as_bytes()) else {
                continue;
            };
            // The first lookup loads the pack indices; later misses must not refresh them.
            let exists = if primed {
                self.repo.objects.exists_without_refresh(&id)
            } else {
                primed = true;
                self.repo.has_object(id)
            };
            if exists
                && self
                    .repo
                    .try_find_header(id)?
                    .is_some_and(|h| h.kind() == gix::object::Kind::Commit)
            {
                found.insert(text.to_owned());
            }
        }
        Ok(found)
    }

    /// Which of `paths` are files in HEAD's tree: one traversal of the tree.
    pub fn existing_head_paths<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashSet<String>, GitError> {
        self.existing_paths_at(None, paths)
    }

    /// Whether this clone is shallow (`git clone --depth N`): commits beyond its
    /// boundary are absent from the object database without being lost.
    pub fn is_shallow(&self) -> Result<bool, GitError> {
        Ok(self.repo.is_shallow()?)
    }

    /// The commit `rev` names (a full or abbreviated id, a ref), if this clone has it.
    pub fn resolve_commit(&self, rev: &str) -> Result<Option<String>, GitError> {
        let Ok(id) = self.repo.rev_parse_single(rev) else {
            return Ok(None);
        };
        let Ok(object) = id.object() else {
            return Ok(None);
        };
        match object.peel_to_commit() {
            Ok(commit) => Ok(Some(commit.id.to_string())),
            Err(_) => Ok(None),
        }
    }

    /// The files under `prefix` (a directory, `/`-separated) in commit `commit`'s tree,
    /// sorted, each with its blob id; only that subtree is traversed.
    pub fn files_under_at(&self, commit: &str, prefix: &str) -> Result<Vec<TreeFile>, GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(plumbing)?;
        let tree = self.repo.find_commit(id)?.tree()?;
        let prefix = prefix.trim_end_matches('/');
        let sub = if prefix.is_empty() {
            tree
        } else {
            match tree.lookup_entry_by_path(prefix)? {
                Some(entry) if entry.mode().is_tree() => entry.object()?.into_tree(),
                _ => return Ok(Vec::new()),
            }
        };
        let files = sub.traverse().breadthfirst.files().map_err(plumbing)?;
        let mut out: Vec<TreeFile> = files
            .into_iter()
            .filter(|e| !e.mode.is_tree())
            .map(|e| TreeFile {
                path: if prefix.is_empty() {
                    e.filepath.to_str_lossy().into_owned()
                } else {
                    format!("{prefix}/{}", e.filepath.to_str_lossy())
                },
                blob: e.oid.to_string(),
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// HEAD's tree id and every file in it, each with its blob id (one traversal);
    /// `None` on an unborn branch.
    pub fn head_files(&self) -> Result<Option<(String, Vec<TreeFile>)>, GitError> {
        if self.repo.head()?.is_unborn() {
            return Ok(None);
        }
        let tree = self.repo.head_tree()?;
        let id = tree.id.to_string();
        let files = tree.traverse().breadthfirst.files().map_err(plumbing)?;
        let files = files
            .into_iter()
            .filter(|e| e.mode.is_blob())
            .map(|e| TreeFile {
                path: e.filepath.to_str_lossy().into_owned(),
                blob: e.oid.to_string(),
            })
            .collect();
        Ok(Some((id, files)))
    }

    /// The bytes of blob `id`.
    pub fn read_blob(&self, id: &str) -> Result<Vec<u8>, GitError> {
        let id = gix::ObjectId::from_hex(id.as_bytes()).map_err(plumbing)?;
        Ok(self.repo.find_blob(id)?.detach().data)
    }

    /// Which of `paths` are files in commit `commit`'s tree (HEAD's when `None`): one
    /// traversal of the tree.
    pub fn existing_paths_at<'a>(
        &self,
        commit: Option<&str>,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashSet<String>, GitError> {
        Ok(self.blob_ids_at(commit, paths)?.into_keys().collect())
    }

    /// The blob id of each of `paths` that is a file in commit `commit`'s tree (HEAD's
    /// when `None`): each directory holding one is found and read once, so a read of a
    /// few records costs their directories, whatever the size of the whole tree.
    pub fn blob_ids_looked_up<'a>(
        &self,
        commit: Option<&str>,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, String>, GitError> {
        let wanted: HashSet<&str> = paths.into_iter().collect();
        if wanted.is_empty() {
            return Ok(Default::default());
        }
        let mut repo = self.repo.clone();
        repo.object_cache_size_if_unset(1 << 20);
        let tree = match commit {
            None if repo.head()?.is_unborn() => return Ok(Default::default()),
            None => repo.head_tree()?,
            Some(c) => {
                let id = gix::ObjectId::from_hex(c.as_bytes()).map_err(plumbing)?;
                repo.find_commit(id)?.tree()?
            }
        };
        // By directory: each directory's tree is found once and its entries read once,
        // for all the paths in it (a directory of 100,000 records is one tree of some
        // megabytes: looked up path by path, it was inflated again for each).
        let mut by_dir: std::collections::BTreeMap<&str, std::collections::HashMap<&[u8], &str>> =
            std::collections::BTreeMap::new();
        for path in wanted {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            by_dir.entry(dir).or_default().insert(name.as_bytes(), path);
        }
        let mut out = std::collections::HashMap::new();
        for (dir, names) in by_dir {
            let sub = if dir.is_empty() {
                tree.clone()
            } else {
                match tree.lookup_entry_by_path(dir)? {
                    Some(entry) if entry.mode().is_tree() => entry.object()?.into_tree(),
                    _ => continue,
                }
            };
            for entry in sub.iter() {
                let entry = entry.map_err(plumbing)?;
                let name: &[u8] = entry.filename().as_ref();
                if let Some(path) = names.get(name)
                    && !entry.mode().is_tree()
                {
                    out.insert((*path).to_owned(), entry.oid().to_string());
                }
            }
        }
        Ok(out)
    }

    /// The tree id of each of `dirs` (`""`: the root) that is a directory in HEAD's tree,
    /// found through the trees above it only (the directory's own tree is not read).
    pub fn tree_ids_at_head<'a>(
        &self,
        dirs: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, String>, GitError> {
        let dirs: HashSet<&str> = dirs.into_iter().collect();
        if dirs.is_empty() || self.repo.head()?.is_unborn() {
            return Ok(Default::default());
        }
        let tree = self.repo.head_tree()?;
        let mut out = std::collections::HashMap::new();
        for dir in dirs {
            if dir.is_empty() {
                out.insert(String::new(), tree.id.to_string());
            } else if let Some(entry) = tree.lookup_entry_by_path(dir)?
                && entry.mode().is_tree()
            {
                out.insert(dir.to_owned(), entry.object_id().to_string());
            }
        }
        Ok(out)
    }

    /// The blob id of each of `paths` that is a file in commit `commit`'s tree (HEAD's
    /// when `None`): one traversal of the tree, or a lookup each for a few paths.
    pub fn blob_ids_at<'a>(
        &self,
        commit: Option<&str>,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, String>, GitError> {
        let wanted: HashSet<&str> = paths.into_iter().collect();
        let tree = match commit {
            _ if wanted.is_empty() => return Ok(Default::default()),
            None if self.repo.head()?.is_unborn() => return Ok(Default::default()),
            None => self.repo.head_tree()?,
            Some(c) => {
                let id = gix::ObjectId::from_hex(c.as_bytes()).map_err(plumbing)?;
                self.repo.find_commit(id)?.tree()?
            }
        };
        // A few paths are cheaper to look up one by one than to traverse the whole tree;
        // the trees on their way are read once (a cache on a handle of this lookup's own).
        if wanted.len() <= LOOKUP_AT_MOST {
            let mut repo = self.repo.clone();
            repo.object_cache_size_if_unset(1 << 20);
            let tree = repo.find_tree(tree.id)?;
            let mut out = std::collections::HashMap::new();
            for path in wanted {
                if let Some(entry) = tree.lookup_entry_by_path(path)?
                    && !entry.mode().is_tree()
                {
                    out.insert(path.to_owned(), entry.object_id().to_string());
                }
            }
            return Ok(out);
        }
        let files = tree.traverse().breadthfirst.files().map_err(plumbing)?;
        Ok(files
            .into_iter()
            .filter(|e| !e.mode.is_tree())
            .filter_map(|e| {
                let path = e.filepath.to_str_lossy();
                wanted
                    .contains(path.as_ref())
                    .then(|| (path.into_owned(), e.oid.to_string()))
            })
            .collect())
    }

    /// The blob id of each file under `prefix` in the tree of the commit `reference`
    /// (a full ref name) points at, if the ref exists.
    pub fn blobs_under_ref(
        &self,
        reference: &str,
        prefix: &str,
    ) -> Result<Option<std::collections::HashMap<String, String>>, GitError> {
        let Some(mut r) = self.repo.try_find_reference(reference)? else {
            return Ok(None);
        };
        let id = r.peel_to_id()?.detach().to_string();
        Ok(Some(
            self.files_under_at(&id, prefix)?
                .into_iter()
                .map(|f| (f.path, f.blob))
                .collect(),
        ))
    }
}

/// `refs/heads/<branch>`, refused (a usage error) unless git would take it as a branch
/// name: never handed to the ref store to fail there as something broken.
fn branch_ref(branch: &str) -> Result<String, GitError> {
    let name = format!("refs/heads/{branch}");
    gix::validate::reference::branch_name(name.as_bytes().as_bstr()).map_err(|e| {
        GitError::InvalidBranchName {
            branch: branch.to_owned(),
            message: e.to_string(),
        }
    })?;
    Ok(name)
}
