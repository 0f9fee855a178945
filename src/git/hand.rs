//! What git says about the work at hand (SPEC §11): the paths changed and not committed,
//! the branch's own commits since it forked from its parent (newest first, each with the
//! files it changed), and how many files a directory holds at HEAD (what "beside it" and
//! "under it" are worth).

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;

use super::{GitError, Repo};
use crate::model::CommitSummary;

/// Where a branch's own commits begin, and how that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForkPoint {
    /// The branch's creation in its reflog (`branch: Created from <from>`).
    Created { from: Option<String> },
    /// The branch's upstream (no reflog entry says where it was created).
    Upstream { name: String },
    /// The merge base with the trunk (neither a creation nor an upstream is known).
    Trunk,
    /// On the trunk itself: the commits after a given one (the open episode's opening
    /// HEAD).
    Since,
}

/// A branch's own commits, newest first, and where they begin.
#[derive(Debug, Clone)]
pub struct OwnCommits {
    pub fork: ForkPoint,
    /// Newest first; merges left out (what a merge brings in is another line's work).
    pub commits: Vec<CommitSummary>,
    /// Own commits past the ones listed (older).
    pub more: usize,
}

impl Repo {
    /// The paths of the work tree and the index that differ from HEAD, as `git status`
    /// lists them, outside `ignored` (a directory prefix, such as `.ai/`): staged,
    /// unstaged and untracked files (an untracked directory is left out: its files are not
    /// known yet), repository-relative, sorted.
    pub fn uncommitted_paths(&self, ignored: &str) -> Result<Vec<String>, GitError> {
        let mut out: Vec<String> = self
            .status_entries_outside(ignored)?
            .into_iter()
            .filter(|e| !e.path.ends_with('/'))
            .flat_map(|e| std::iter::once(e.path).chain(e.from))
            .filter(|p| !p.starts_with(ignored))
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The own commits of the branch HEAD is on: those reachable from HEAD and not from
    /// where it forked from its parent (its creation point in its reflog, and the parent
    /// branch it names as it is now; else its upstream; else the merge base with the
    /// trunk), nor from the trunk (`trunk_refs`, full ref names), nor from `since` (the
    /// open episode's opening HEAD, used alone on the trunk). At most `most`, newest
    /// first. `None` on a detached or unborn HEAD.
    pub fn own_commits(
        &self,
        trunk_refs: &[String],
        on_trunk: bool,
        since: Option<&str>,
        most: usize,
    ) -> Result<Option<OwnCommits>, GitError> {
        let head = self.repo.head()?;
        if head.is_unborn() {
            return Ok(None);
        }
        let Some(name) = self.repo.head_name()? else {
            return Ok(None);
        };
        let tip = self.repo.head_id()?.detach();
        let mut hidden: Vec<gix::ObjectId> = Vec::new();
        let peel = |name: &str| -> Option<gix::ObjectId> {
            let mut r = self.repo.try_find_reference(name).ok()??;
            r.peel_to_id().ok().map(|id| id.detach())
        };
        let fork = if on_trunk {
            match since.and_then(|s| gix::ObjectId::from_hex(s.as_bytes()).ok()) {
                Some(id) if self.repo.has_object(id) => hidden.push(id),
                // No opening HEAD to count from: the trunk has no own commits to weigh.
                _ => return Ok(None),
            }
            ForkPoint::Since
        } else {
            for r in trunk_refs {
                hidden.extend(peel(r));
            }
            match self.creation(name.as_ref())? {
                Some((created, from)) => {
                    if self.repo.has_object(created) {
                        hidden.push(created);
                    }
                    // The parent as it is now: a parent that moved on since is not this
                    // branch's work either.
                    if let Some(parent) = from.as_deref().filter(|f| *f != "HEAD") {
                        for full in [
                            format!("refs/heads/{parent}"),
                            format!("refs/remotes/{parent}"),
                        ] {
                            hidden.extend(peel(&full));
                        }
                    }
                    ForkPoint::Created { from }
                }
                None => {
                    let upstream = self
                        .repo
                        .branch_remote_tracking_ref_name(
                            name.as_ref(),
                            gix::remote::Direction::Fetch,
                        )
                        .and_then(Result::ok)
                        .map(|n| n.as_bstr().to_str_lossy().into_owned());
                    match upstream.and_then(|u| peel(&u).map(|id| (u, id))) {
                        Some((u, id)) => {
                            hidden.push(id);
                            ForkPoint::Upstream {
                                name: u.trim_start_matches("refs/remotes/").to_owned(),
                            }
                        }
                        None => ForkPoint::Trunk,
                    }
                }
            }
        };
        // Nothing to tell the branch's own commits from the rest: no own commits to weigh
        // (walking every commit of the history would call it all the branch's own).
        if hidden.is_empty() {
            return Ok(None);
        }
        if hidden.contains(&tip) {
            return Ok(Some(OwnCommits {
                fork,
                commits: Vec::new(),
                more: 0,
            }));
        }
        let walk = self
            .repo
            .rev_walk([tip])
            .with_hidden(hidden)
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?;
        let mut commits = Vec::new();
        let mut more = 0;
        let mut ids = Vec::new();
        for info in walk {
            let info = info?;
            if info.parent_ids.len() > 1 {
                continue;
            }
            if ids.len() < most {
                ids.push(info.id.to_string());
            } else {
                more += 1;
            }
        }
        commits.extend(self.commits_by_id(ids.iter().map(String::as_str))?);
        Ok(Some(OwnCommits {
            fork,
            commits,
            more,
        }))
    }

    /// Where branch `name` (a full ref name) was created, from the first line of its
    /// reflog when that line is its creation (`branch: Created from <what>`): the commit
    /// and what it was created from.
    fn creation(
        &self,
        name: &gix::refs::FullNameRef,
    ) -> Result<Option<(gix::ObjectId, Option<String>)>, GitError> {
        let Some(reference) = self.repo.try_find_reference(name)? else {
            return Ok(None);
        };
        let mut platform = reference.log_iter();
        let Ok(Some(mut lines)) = platform.all() else {
            return Ok(None);
        };
        let Some(Ok(first)) = lines.next() else {
            return Ok(None);
        };
        // Only a branch's creation says where it forked: the first line of a trunk's reflog
        // is its first commit or its clone, which says nothing of the kind.
        let message = first.message.to_str_lossy();
        match message.strip_prefix("branch: Created from ") {
            Some(from) if first.previous_oid().is_null() => {
                Ok(Some((first.new_oid(), Some(from.trim().to_owned()))))
            }
            _ => Ok(None),
        }
    }

    /// How many files each of `dirs` (`""`: the root) holds in HEAD's tree: directly in
    /// it (`recursive` false) or anywhere under it (counted up to `cap`). A directory that
    /// is not there holds none.
    pub fn files_in_dirs(
        &self,
        dirs: &[(String, bool)],
        cap: usize,
    ) -> Result<HashMap<(String, bool), usize>, GitError> {
        let mut out = HashMap::new();
        if dirs.is_empty() || self.repo.head()?.is_unborn() {
            return Ok(out);
        }
        let mut repo = self.repo.clone();
        repo.object_cache_size_if_unset(1 << 20);
        let root = repo.head_tree()?;
        let mut seen: HashSet<(String, bool)> = HashSet::new();
        for (dir, recursive) in dirs {
            if !seen.insert((dir.clone(), *recursive)) {
                continue;
            }
            let tree_id = if dir.is_empty() {
                Some(root.id)
            } else {
                match root.lookup_entry_by_path(dir.as_str())? {
                    Some(entry) if entry.mode().is_tree() => Some(entry.object_id()),
                    _ => None,
                }
            };
            let Some(tree_id) = tree_id else {
                out.insert((dir.clone(), *recursive), 0);
                continue;
            };
            let mut count = 0usize;
            let mut stack = vec![tree_id];
            while let Some(id) = stack.pop() {
                let tree = repo.find_tree(id)?;
                for entry in tree.iter() {
                    let entry = entry.map_err(super::plumbing)?;
                    if entry.mode().is_tree() {
                        if *recursive {
                            stack.push(entry.object_id());
                        }
                    } else if !entry.mode().is_commit() {
                        count += 1;
                    }
                }
                if count >= cap {
                    count = cap;
                    break;
                }
            }
            out.insert((dir.clone(), *recursive), count);
        }
        Ok(out)
    }
}
