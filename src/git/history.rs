//! History: commits by id, when paths were added or last changed, what HEAD changed since
//! it forked from the trunk; each commit summarised with its subject, time and the paths
//! it changed (against its first parent; an episode's merge, against every parent).

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;
use gix::objs::FindExt;
use gix::prelude::ObjectIdExt;

use super::{GitError, Repo, plumbing};
use crate::model::CommitSummary;

impl Repo {
    /// The named commits (those present in this clone), in the order given, each with the
    /// paths it changed itself: against its parent, and for a merge only those that
    /// differ from every parent (the merge's own resolution: a merge that brought a
    /// trunk in does not name the trunk's files). How an episode's commits are shown.
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
            let parents: Vec<gix::ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
            out.push(differ.summarize_own(&self.repo, id, &parents)?);
        }
        Ok(out)
    }

    /// For each of `paths` present in the tree of commit `tip` (HEAD's when `None`), the
    /// committer time of the commit reachable from it that added the path (the newest such,
    /// should it have been re-added). Walks history newest first and stops as soon as every
    /// path is placed.
    pub fn added_at<'a>(
        &self,
        tip: Option<&str>,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashMap<String, String>, GitError> {
        let mut wanted: HashSet<String> = self.existing_paths_at(tip, paths)?.into_iter().collect();
        let mut found = HashMap::new();
        if wanted.is_empty() {
            return Ok(found);
        }
        let tip = match tip {
            Some(c) => gix::ObjectId::from_hex(c.as_bytes()).map_err(plumbing)?,
            None => self.repo.head_id()?.detach(),
        };
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

    /// For each of `paths` present in HEAD's tree, the newest commit reachable from HEAD
    /// that added or modified it; with every commit visited on the way. One walk, newest
    /// first, stopping as soon as every path is placed (or at a shallow clone's boundary,
    /// leaving the rest unplaced).
    pub fn last_changed<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<LastChanged, GitError> {
        let mut wanted: HashSet<String> = self.existing_head_paths(paths)?.into_iter().collect();
        let mut out = LastChanged::default();
        if wanted.is_empty() {
            return Ok(out);
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
            let summary = differ.summarize(&self.repo, info.id, parent)?;
            for path in &summary.paths {
                if wanted.remove(path) {
                    out.at.insert(path.clone(), out.commits.len());
                }
            }
            out.commits.push(summary);
            if wanted.is_empty() {
                break;
            }
        }
        Ok(out)
    }
}

impl Repo {
    /// [`Repo::last_changed`] for a few paths, without diffing whole commits: a commit's
    /// directory holding some of them is compared with its first parent's by tree id, and
    /// only a directory that differs is read, so a commit of ten thousand files costs what
    /// the paths' directories hold. Each commit in `commits` names only the paths placed
    /// at it (the judge of verified records asks no more).
    pub fn last_changed_of<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<LastChanged, GitError> {
        let wanted: HashSet<String> = self.existing_head_paths(paths)?.into_iter().collect();
        let mut out = LastChanged::default();
        if wanted.is_empty() {
            return Ok(out);
        }
        // Each directory's unplaced file names.
        let mut dirs: HashMap<String, HashSet<String>> = HashMap::new();
        for path in wanted {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
            dirs.entry(dir.to_owned())
                .or_default()
                .insert(name.to_owned());
        }
        let mut repo = self.repo.clone();
        repo.object_cache_size_if_unset(4 << 20);
        let dir_tree =
            |commit: gix::ObjectId, dir: &str| -> Result<Option<gix::ObjectId>, GitError> {
                let tree = repo.find_commit(commit)?.tree()?;
                if dir.is_empty() {
                    return Ok(Some(tree.id));
                }
                Ok(match tree.lookup_entry_by_path(dir)? {
                    Some(e) if e.mode().is_tree() => Some(e.object_id()),
                    _ => None,
                })
            };
        // The blob of each of `names` in the directory tree `tree` (one pass over its
        // entries, nothing kept of the others: a directory of 10,000 records is read, not
        // copied).
        let entries = |tree: Option<gix::ObjectId>,
                       names: &HashSet<String>|
         -> Result<HashMap<String, gix::ObjectId>, GitError> {
            let mut out = HashMap::new();
            if let Some(id) = tree {
                for e in repo.find_tree(id)?.iter() {
                    let e = e.map_err(plumbing)?;
                    if e.mode().is_blob()
                        && let Ok(name) = std::str::from_utf8(e.filename())
                        && names.contains(name)
                    {
                        out.insert(name.to_owned(), e.object_id());
                        if out.len() == names.len() {
                            break;
                        }
                    }
                }
            }
            Ok(out)
        };
        let tip = repo.head_id()?.detach();
        let walk = repo
            .rev_walk([tip])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?;
        for info in walk {
            let info = info?;
            let parent = info.parent_ids.first().copied();
            // At a shallow clone's boundary what the commit changed is unknown.
            if parent.is_some_and(|p| !repo.has_object(p)) {
                continue;
            }
            let mut placed: Vec<String> = Vec::new();
            for (dir, names) in dirs.iter_mut() {
                let now = dir_tree(info.id, dir)?;
                let before = match parent {
                    Some(p) => dir_tree(p, dir)?,
                    None => None,
                };
                if now == before {
                    continue;
                }
                let (now, before) = (entries(now, names)?, entries(before, names)?);
                names.retain(|name| {
                    let here = now.get(name);
                    let changed = here.is_some() && here != before.get(name);
                    if changed {
                        placed.push(if dir.is_empty() {
                            name.clone()
                        } else {
                            format!("{dir}/{name}")
                        });
                    }
                    !changed
                });
            }
            dirs.retain(|_, names| !names.is_empty());
            if !placed.is_empty() {
                let commit = info.id.attach(&repo).object()?.into_commit();
                placed.sort();
                for path in &placed {
                    out.at.insert(path.clone(), out.commits.len());
                }
                out.commits.push(CommitSummary {
                    id: info.id.to_string(),
                    subject: commit.message()?.summary().to_string(),
                    time: crate::model::time::from_unix(commit.committer()?.seconds())
                        .map(crate::model::time::rfc3339)
                        .unwrap_or_default(),
                    paths: placed,
                });
            }
            if dirs.is_empty() {
                break;
            }
        }
        Ok(out)
    }

    /// The files HEAD changed since it forked from the commit `reference` (a full ref
    /// name) points at: `git diff --name-only $(git merge-base <ref> HEAD) HEAD`. `None`
    /// when the ref does not exist, HEAD is unborn, or the two share no commit here (a
    /// shallow clone's boundary); empty when HEAD is at or behind the ref.
    pub fn changed_since_fork(
        &self,
        references: &[String],
    ) -> Result<Option<Vec<String>>, GitError> {
        if self.repo.head()?.is_unborn() {
            return Ok(None);
        }
        let head = self.repo.head_id()?.detach();
        // The fork point nearest HEAD among the references that exist: a local trunk
        // ahead of its remote (commits not pushed yet) and a remote ahead of a stale
        // local one both count as the trunk, never as the branch's own changes.
        let mut nearest: Option<gix::ObjectId> = None;
        for reference in references {
            let Some(mut r) = self.repo.try_find_reference(reference.as_str())? else {
                continue;
            };
            let Ok(tip) = r.peel_to_id() else {
                continue;
            };
            let tip = tip.detach();
            if tip == head {
                return Ok(Some(Vec::new()));
            }
            let Ok(Some(base)) = self.repo.merge_base(head, tip) else {
                continue;
            };
            let base = base.detach();
            nearest = match nearest {
                None => Some(base),
                // `base` descends from the one kept: it is nearer HEAD.
                Some(kept) => match self.repo.merge_base(kept, base) {
                    Ok(Some(b)) if b.detach() == kept => Some(base),
                    _ => Some(kept),
                },
            };
        }
        let Some(base) = nearest else {
            return Ok(None);
        };
        if base == head {
            return Ok(Some(Vec::new()));
        }
        let mut state = gix::diff::tree::State::default();
        let (mut old_buf, mut new_buf) = (Vec::new(), Vec::new());
        let old_tree = self.repo.find_commit(base)?.tree_id()?.detach();
        let new_tree = self.repo.find_commit(head)?.tree_id()?.detach();
        let old = self
            .repo
            .objects
            .find_tree_iter(&old_tree, &mut old_buf)
            .map_err(plumbing)?;
        let new = self
            .repo
            .objects
            .find_tree_iter(&new_tree, &mut new_buf)
            .map_err(plumbing)?;
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(old, new, &mut state, &self.repo.objects, &mut recorder)
            .map_err(plumbing)?;
        let mut paths: Vec<String> = recorder
            .records
            .into_iter()
            .filter_map(|change| {
                use gix::diff::tree::recorder::Change;
                let (mode, path) = match change {
                    Change::Addition {
                        entry_mode, path, ..
                    }
                    | Change::Deletion {
                        entry_mode, path, ..
                    }
                    | Change::Modification {
                        entry_mode, path, ..
                    } => (entry_mode, path),
                };
                (!mode.is_tree()).then(|| path.to_str_lossy().into_owned())
            })
            .collect();
        paths.sort();
        paths.dedup();
        Ok(Some(paths))
    }
}

/// History from HEAD walked once, newest first, until each wanted path is placed: see
/// [`Repo::last_changed`].
#[derive(Debug, Clone, Default)]
pub struct LastChanged {
    /// The commits visited, newest first, each with the paths it changed against its
    /// first parent.
    pub commits: Vec<CommitSummary>,
    /// Each placed path → the index in `commits` of the newest commit that added or
    /// modified it.
    pub at: HashMap<String, usize>,
}

impl LastChanged {
    /// The commits newer than the one at `index` that changed `path`, newest first.
    pub fn changed_since(&self, index: usize, path: &str) -> Vec<&CommitSummary> {
        self.commits[..index.min(self.commits.len())]
            .iter()
            .filter(|c| c.paths.iter().any(|p| p == path))
            .collect()
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

    /// [`Differ::summarize`] with the commit's own paths: for a merge, those that differ
    /// from every parent (what the merge itself resolved or added), like a combined diff;
    /// a parent missing here (a shallow clone) leaves the merge naming none.
    fn summarize_own(
        &mut self,
        repo: &gix::Repository,
        id: gix::ObjectId,
        parents: &[gix::ObjectId],
    ) -> Result<CommitSummary, GitError> {
        let mut summary = self.summarize(repo, id, parents.first().copied())?;
        for parent in parents.iter().skip(1) {
            if summary.paths.is_empty() {
                break;
            }
            // A parent missing here names no paths, so neither does the merge.
            let against = self.summarize(repo, id, Some(*parent))?.paths;
            summary.paths.retain(|p| against.binary_search(p).is_ok());
        }
        Ok(summary)
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
            // At a shallow clone's boundary the parent is not here: what the commit
            // changed is unknown, so it names no paths (never every path of its tree).
            Some(parent) if !repo.has_object(parent) => {
                let summary = CommitSummary {
                    id: id.to_string(),
                    subject,
                    time: crate::model::time::from_unix(seconds)
                        .map(crate::model::time::rfc3339)
                        .unwrap_or_default(),
                    paths: Vec::new(),
                };
                return Ok((summary, Vec::new()));
            }
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
