//! The one gix adapter: every git read and write of majordomus goes through `Repo`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::objs::FindExt;
use gix::prelude::ObjectIdExt;
use serde::Serialize;

use crate::model::CommitSummary;

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
    #[error("{0}")]
    Git(#[from] gix::Error),
    #[error("branch {branch}: no such local branch")]
    UnknownBranch { branch: String },
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

/// A ref the pending change lands on, and the blob id of each file under a prefix in it.
pub type Baseline = (String, std::collections::HashMap<String, String>);

/// HEAD as git sees it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeadState {
    /// The commit HEAD points to; `None` on an unborn branch.
    pub id: Option<String>,
    /// The branch HEAD names; `None` when detached.
    pub branch: Option<String>,
    pub detached: bool,
    pub unborn: bool,
}

/// The repository's trunk (SPEC §5.7) and where the answer came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trunk {
    pub branch: String,
    /// `config` (`majordomus.trunk`) or `remote-head` (`refs/remotes/<remote>/HEAD`).
    pub source: &'static str,
    pub remote: Option<String>,
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
        let repo = gix::discover(dir).map_err(|source| GitError::NotARepository {
            path: dir.to_owned(),
            source,
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
                    source: "config",
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
                        source: "remote-head",
                        remote: Some(remote),
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Commits reachable from HEAD and not from `base` (`git log base..HEAD`), oldest
    /// first, each with subject, committer time and the paths it changed against its
    /// first parent. `base: None` means every commit of HEAD.
    pub fn commits_since(&self, base: Option<&str>) -> Result<Vec<CommitSummary>, GitError> {
        let head = self.repo.head()?;
        if head.is_unborn() {
            return Ok(Vec::new());
        }
        let tip = self.repo.head_id()?.detach();
        let hidden: Vec<gix::ObjectId> = base
            .and_then(|b| gix::ObjectId::from_hex(b.as_bytes()).ok())
            .filter(|id| self.repo.has_object(id))
            .into_iter()
            .collect();
        let walk = self
            .repo
            .rev_walk([tip])
            .with_hidden(hidden)
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?;
        let mut differ = Differ::default();
        let mut out = Vec::new();
        for info in walk {
            let info = info?;
            let parent = info.parent_ids.first().copied();
            out.push(differ.summarize(&self.repo, info.id, parent)?);
        }
        out.reverse();
        Ok(out)
    }

    /// The named commits (those present in this clone), each with its changed paths, in
    /// the order given.
    pub fn commits_by_id<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<CommitSummary>, GitError> {
        let mut differ = Differ::default();
        let mut out = Vec::new();
        for text in ids {
            let Ok(id) = gix::ObjectId::from_hex(text.as_bytes()) else {
                continue;
            };
            let Ok(commit) = self.repo.find_commit(id) else {
                continue;
            };
            let parent = commit.parent_ids().next().map(|p| p.detach());
            out.push(differ.summarize(&self.repo, id, parent)?);
        }
        Ok(out)
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

    /// HEAD's commit id and subject; `None` on an unborn branch.
    pub fn head_subject(&self) -> Result<Option<(String, String)>, GitError> {
        if self.repo.head()?.is_unborn() {
            return Ok(None);
        }
        let id = self.repo.head_id()?.detach();
        let commit = self.repo.find_commit(id)?;
        let subject = commit.message()?.summary().to_string();
        Ok(Some((id.to_string(), subject)))
    }

    /// True when HEAD's branch is the trunk.
    pub fn on_trunk(&self) -> Result<bool, GitError> {
        let head = self.head()?;
        Ok(match (self.trunk()?, head.branch) {
            (Some(t), Some(b)) => t.branch == b,
            _ => false,
        })
    }

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
            let id = reference.peel_to_id()?.detach();
            let tree = self.repo.find_commit(id)?.tree()?;
            let files = tree.traverse().breadthfirst.files().map_err(plumbing)?;
            let blobs = files
                .into_iter()
                .filter(|e| !e.mode.is_tree())
                .filter_map(|e| {
                    let path = e.filepath.to_str_lossy();
                    path.starts_with(prefix)
                        .then(|| (path.into_owned(), e.oid.to_string()))
                })
                .collect();
            return Ok(Some((name, blobs)));
        }
        Ok(None)
    }

    /// Files under `prefix` in the tree of local branch `branch`, sorted.
    pub fn branch_files_under(&self, branch: &str, prefix: &str) -> Result<Vec<String>, GitError> {
        let name = format!("refs/heads/{branch}");
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
        let name = format!("refs/heads/{branch}");
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

    /// For each of `paths` present in HEAD's tree, the committer time of the commit
    /// reachable from HEAD that added it (the newest such, should it have been re-added). Walks history newest first and stops as
    /// soon as every path is placed.
    pub fn added_at<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, String>, GitError> {
        let mut wanted: HashSet<String> = self.existing_head_paths(paths)?.into_iter().collect();
        let mut found = std::collections::HashMap::new();
        if wanted.is_empty() {
            return Ok(found);
        }
        let tip = self.repo.head_id()?.detach();
        let walk = self
            .repo
            .rev_walk([tip])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?;
        let mut differ = Differ::default();
        for info in walk {
            let info = info?;
            let parent = info.parent_ids.first().copied();
            let (summary, additions) = differ.diff(&self.repo, info.id, parent)?;
            for path in additions {
                if wanted.remove(&path) {
                    found.insert(path, summary.time.clone());
                }
            }
            if wanted.is_empty() {
                break;
            }
        }
        Ok(found)
    }

    /// True when `git status --porcelain` would print anything (tracked changes or
    /// untracked files that are not ignored).
    pub fn is_dirty(&self) -> Result<bool, GitError> {
        let mut iter = self
            .repo
            .status(gix::progress::Discard)?
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .into_iter(None)?;
        Ok(iter.next().transpose()?.is_some())
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
        let wanted: HashSet<&str> = paths.into_iter().collect();
        if wanted.is_empty() || self.repo.head()?.is_unborn() {
            return Ok(HashSet::new());
        }
        let tree = self.repo.head_tree()?;
        let files = tree.traverse().breadthfirst.files().map_err(plumbing)?;
        Ok(files
            .into_iter()
            .filter(|e| !e.mode.is_tree())
            .filter_map(|e| {
                let path = e.filepath.to_str_lossy();
                wanted.contains(path.as_ref()).then(|| path.into_owned())
            })
            .collect())
    }

    /// The operation git is in the middle of (rebase, merge, cherry-pick, bisect, ...).
    pub fn operation_in_progress(&self) -> Option<String> {
        self.repo.state().map(|s| format!("{s:?}").to_lowercase())
    }

    /// Writes `files` into the work tree and commits them on HEAD's branch with an
    /// explicit identity and time, updating the index to match (used by `demo`).
    pub fn commit_files(
        &self,
        files: &[(&str, &[u8])],
        message: &str,
        seconds: i64,
    ) -> Result<String, GitError> {
        let head = self.repo.head()?;
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
        for (path, bytes) in files {
            let full = self.workdir.join(path);
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|source| GitError::Io {
                    path: dir.to_owned(),
                    source,
                })?;
            }
            std::fs::write(&full, bytes).map_err(|source| GitError::Io {
                path: full.clone(),
                source,
            })?;
            let blob = self.repo.write_blob(bytes)?;
            editor.upsert(*path, gix::objs::tree::EntryKind::Blob, blob)?;
        }
        let tree = editor.write()?.detach();
        let signature = gix::actor::Signature {
            name: "majordomus demo".into(),
            email: "demo@majordomus.invalid".into(),
            time: gix::date::Time::new(seconds, 0),
        };
        let mut time_buf = gix::date::parse::TimeBuf::default();
        let sig = signature.to_ref(&mut time_buf);
        let commit = self
            .repo
            .commit_as(sig, sig, "HEAD", message, tree, parent)?
            .detach();
        let mut index = self.repo.index_from_tree(&tree)?;
        index
            .write(gix::index::write::Options::default())
            .map_err(plumbing)?;
        Ok(commit.to_string())
    }
}

/// Reusable buffers for summarising commits (subject, time, changed paths).
#[derive(Default)]
struct Differ {
    state: gix::diff::tree::State,
    old_buf: Vec<u8>,
    new_buf: Vec<u8>,
}

impl Differ {
    fn summarize(
        &mut self,
        repo: &gix::Repository,
        id: gix::ObjectId,
        parent: Option<gix::ObjectId>,
    ) -> Result<CommitSummary, GitError> {
        Ok(self.diff(repo, id, parent)?.0)
    }

    /// The commit's summary and the file paths it added.
    fn diff(
        &mut self,
        repo: &gix::Repository,
        id: gix::ObjectId,
        parent: Option<gix::ObjectId>,
    ) -> Result<(CommitSummary, Vec<String>), GitError> {
        let commit = id.attach(repo).object()?.into_commit();
        let subject = commit.message()?.summary().to_string();
        let seconds = commit.committer()?.seconds();
        let tree = commit.tree_id()?.detach();
        let new = repo
            .objects
            .find_tree_iter(&tree, &mut self.new_buf)
            .map_err(plumbing)?;
        let old = match parent {
            Some(parent) => {
                let parent_tree = repo.find_commit(parent)?.tree_id()?.detach();
                repo.objects
                    .find_tree_iter(&parent_tree, &mut self.old_buf)
                    .map_err(plumbing)?
            }
            None => gix::objs::TreeRefIter::from_bytes(&[], repo.object_hash()),
        };
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(old, new, &mut self.state, &repo.objects, &mut recorder)
            .map_err(plumbing)?;
        let mut paths = Vec::new();
        let mut additions = Vec::new();
        for change in recorder.records {
            use gix::diff::tree::recorder::Change;
            let (mode, path, added) = match change {
                Change::Addition {
                    entry_mode, path, ..
                } => (entry_mode, path, true),
                Change::Deletion {
                    entry_mode, path, ..
                }
                | Change::Modification {
                    entry_mode, path, ..
                } => (entry_mode, path, false),
            };
            if mode.is_tree() {
                continue;
            }
            let path = path.to_str_lossy().into_owned();
            if added {
                additions.push(path.clone());
            }
            paths.push(path);
        }
        paths.sort();
        paths.dedup();
        let summary = CommitSummary {
            id: id.to_string(),
            subject,
            time: crate::model::time::from_unix(seconds)
                .map(crate::model::time::rfc3339)
                .unwrap_or_default(),
            paths,
        };
        Ok((summary, additions))
    }
}
