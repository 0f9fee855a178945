//! What git says about the work at hand (SPEC §11): the paths changed and not committed,
//! the branch's own commits since it forked from its parent (newest first, each with the
//! files it changed), and how many files a directory holds at HEAD (what "beside it" and
//! "under it" are worth).

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;

use super::{GitError, Repo};
use crate::model::CommitSummary;
pub use crate::model::worktree::{IndexState, Tracked};

/// What [`Repo::untracked_near`] found in one directory, and its modification time then.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeenDir {
    /// Nanoseconds since the epoch.
    pub stamp: u128,
    /// Read as a new directory (every file in it untracked).
    pub new: bool,
    /// The untracked files directly in it, and its new directories.
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

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
pub struct BranchCommits {
    pub fork: ForkPoint,
    /// Newest first; merges left out (what a merge brings in is another line's work).
    pub commits: Vec<CommitSummary>,
    /// Own commits past the ones listed (older).
    pub more: usize,
}

impl Repo {
    /// The own commits of the branch HEAD is on: those reachable from HEAD and not from
    /// where it forked from its parent (its creation point in its reflog, and the parent
    /// branch it names as it is now; else its upstream; else the merge base with the
    /// trunk), nor from the trunk (`trunk_refs`, full ref names), nor from `since` (the
    /// open episode's opening HEAD: on the trunk, with the trunk's remote copy, what
    /// bounds them). At most `most`, newest first. `None` on a detached or unborn HEAD.
    pub fn branch_commits(
        &self,
        trunk_refs: &[String],
        on_trunk: bool,
        since: Option<&str>,
        most: usize,
    ) -> Result<Option<BranchCommits>, GitError> {
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
            // What the trunk's remote holds is published, or a teammate's a pull brought
            // in: not what is being worked on here.
            for r in trunk_refs.iter().filter(|r| r.starts_with("refs/remotes/")) {
                hidden.extend(peel(r));
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
            return Ok(Some(BranchCommits {
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
        Ok(Some(BranchCommits {
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
    /// it (`recursive` false) or anywhere under it (counted up to `cap`; the memory's own
    /// `.ai/` left out). A directory that is not there holds none.
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
            let mut stack = vec![(tree_id, dir.is_empty())];
            while let Some((id, at_root)) = stack.pop() {
                let tree = repo.find_tree(id)?;
                for entry in tree.iter() {
                    let entry = entry.map_err(super::plumbing)?;
                    if entry.mode().is_tree() {
                        // The memory's own files are not the work's.
                        if *recursive && !(at_root && entry.filename() == ".ai") {
                            stack.push((entry.object_id(), false));
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

impl Repo {
    /// HEAD's tree id (`None` on an unborn branch).
    pub fn head_tree_hex(&self) -> Result<Option<String>, GitError> {
        if self.repo.head()?.is_unborn() {
            return Ok(None);
        }
        Ok(Some(self.repo.head_tree_id()?.to_string()))
    }

    /// What the index's state depends on: the index file (modification time, size,
    /// inode) and HEAD's tree. The same key, the same [`IndexState`].
    pub fn index_key(&self) -> Result<String, GitError> {
        let path = self.repo.index_path();
        let tree = match self.repo.head()?.is_unborn() {
            true => String::new(),
            false => self.repo.head_tree_id()?.to_string(),
        };
        let stamp = match std::fs::metadata(&path) {
            Ok(m) => {
                let modified = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{modified}:{}:{}", m.len(), file_ino(&m))
            }
            Err(_) => "none".to_owned(),
        };
        Ok(format!("{stamp}:{tree}"))
    }

    /// Reads the index: the paths staged against HEAD (`git status`'s first column,
    /// through gix) and every tracked file, both outside `ignored`.
    pub fn index_state(&self, ignored: &str) -> Result<IndexState, GitError> {
        let dir = ignored.trim_end_matches('/');
        let index = self.repo.index_or_empty()?;
        let written = index.timestamp().unix_seconds();
        let mut tracked = Vec::new();
        for entry in index.entries() {
            let path = entry.path(&index).to_str_lossy();
            if path.starts_with(ignored) || entry.mode.is_submodule() {
                continue;
            }
            tracked.push(Tracked {
                path: path.into_owned(),
                secs: i64::from(entry.stat.mtime.secs),
                nsecs: i64::from(entry.stat.mtime.nsecs),
                size: i64::from(entry.stat.size),
                ino: i64::from(entry.stat.ino),
                id: entry.id.to_string(),
            });
        }
        drop(index);
        // Staged: the index against HEAD's tree, outside `ignored` (that directory's tree
        // is never read: a store of 100,000 records is one of its subtrees).
        let head = self.head_files_outside(dir)?;
        let mut staged: Vec<String> = Vec::new();
        for t in &tracked {
            if head.get(t.path.as_str()) != Some(&t.id) {
                staged.push(t.path.clone());
            }
        }
        let in_index: HashSet<&str> = tracked.iter().map(|t| t.path.as_str()).collect();
        staged.extend(
            head.keys()
                .filter(|p| !in_index.contains(p.as_str()))
                .cloned(),
        );
        staged.sort();
        staged.dedup();
        Ok(IndexState {
            staged,
            tracked,
            written,
        })
    }

    /// The files in the work tree that git does not track and does not ignore, outside
    /// the directory `ignored` (such as `.ai/`): in each directory that holds a tracked
    /// file (`tracked`), and in a new directory there (walked), at most `most` of them,
    /// sorted. A directory git ignores (`target/`, `node_modules/`) is never walked.
    ///
    /// `seen` is what an earlier call found in each directory it read, by the directory's
    /// modification time (a file added, removed or renamed in a directory changes it): a
    /// directory whose time is the same is not read again. What this call read is added
    /// to it (the caller keeps it while the index and the root `.gitignore` are the same).
    pub fn untracked_near(
        &self,
        tracked: &[Tracked],
        ignored: &str,
        most: usize,
        seen: &mut HashMap<String, SeenDir>,
    ) -> Result<Vec<String>, GitError> {
        let skip = ignored.trim_end_matches('/');
        let files: HashSet<&str> = tracked.iter().map(|t| t.path.as_str()).collect();
        // Every directory above a tracked file (the root included).
        let mut dirs: HashSet<&str> = HashSet::from([""]);
        for t in tracked {
            let mut p = t.path.as_str();
            while let Some((dir, _)) = p.rsplit_once('/') {
                if !dirs.insert(dir) {
                    break;
                }
                p = dir;
            }
        }
        // Built only when a directory must be read: its rules are files to read.
        let mut excludes = None;
        let mut out: Vec<String> = Vec::new();
        let mut known: Vec<&str> = dirs.iter().copied().collect();
        known.sort_unstable();
        // Directories to read: each known one, then the new ones found in them.
        let mut queue: Vec<(String, bool)> =
            known.iter().map(|d| ((*d).to_owned(), false)).collect();
        while let Some((dir, new)) = queue.pop() {
            if out.len() >= most {
                break;
            }
            let Ok(meta) = std::fs::metadata(self.workdir.join(&dir)) else {
                continue;
            };
            let stamp = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            let found = match seen.get(&dir).filter(|s| s.stamp == stamp && s.new == new) {
                Some(kept) => kept.clone(),
                None => {
                    if excludes.is_none() {
                        let index = gix::index::State::new(self.repo.object_hash());
                        excludes = Some(self.repo.excludes(
                            &index,
                            None,
                            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
                        )?);
                    }
                    let stack = excludes.as_mut().expect("built above");
                    let mut is_excluded = |path: &str, dir: bool| -> bool {
                        let mode = if dir {
                            gix::index::entry::Mode::DIR
                        } else {
                            gix::index::entry::Mode::FILE
                        };
                        stack
                            .at_path(path, Some(mode))
                            .is_ok_and(|p| p.is_excluded())
                    };
                    let Ok(entries) = std::fs::read_dir(self.workdir.join(&dir)) else {
                        continue;
                    };
                    let mut names: Vec<(String, bool)> = entries
                        .filter_map(Result::ok)
                        .filter_map(|e| {
                            let kind = e.file_type().ok()?;
                            Some((e.file_name().to_string_lossy().into_owned(), kind.is_dir()))
                        })
                        .collect();
                    names.sort();
                    let mut found = SeenDir {
                        stamp,
                        new,
                        files: Vec::new(),
                        dirs: Vec::new(),
                    };
                    for (name, is_dir) in names {
                        let path = if dir.is_empty() {
                            name.clone()
                        } else {
                            format!("{dir}/{name}")
                        };
                        if (dir.is_empty() && (name == ".git" || name == skip)) || path == skip {
                            continue;
                        }
                        if is_dir {
                            if (new || !dirs.contains(path.as_str())) && !is_excluded(&path, true) {
                                found.dirs.push(path);
                            }
                        } else if (new || !files.contains(path.as_str()))
                            && !is_excluded(&path, false)
                        {
                            found.files.push(path);
                        }
                    }
                    // A directory changed in the last two seconds may change again within
                    // its clock's tick unseen: kept without its time, it is read again.
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos());
                    let mut kept = found.clone();
                    if now.saturating_sub(stamp) < 2_000_000_000 {
                        kept.stamp = 0;
                    }
                    seen.insert(dir.clone(), kept);
                    found
                }
            };
            out.extend(found.files);
            queue.extend(found.dirs.into_iter().map(|d| (d, true)));
        }
        out.sort();
        out.truncate(most);
        Ok(out)
    }

    /// Every file of HEAD's tree outside the directory `ignored` (a path from the root),
    /// with its blob id; submodules left out.
    fn head_files_outside(&self, ignored: &str) -> Result<HashMap<String, String>, GitError> {
        let mut out = HashMap::new();
        if self.repo.head()?.is_unborn() {
            return Ok(out);
        }
        let root = self.repo.head_tree()?;
        let mut stack: Vec<(String, gix::ObjectId)> = vec![(String::new(), root.id)];
        while let Some((prefix, id)) = stack.pop() {
            let tree = self.repo.find_tree(id)?;
            for entry in tree.iter() {
                let entry = entry.map_err(super::plumbing)?;
                let name = entry.filename().to_str_lossy();
                let path = if prefix.is_empty() {
                    name.into_owned()
                } else {
                    format!("{prefix}/{name}")
                };
                if path == ignored {
                    continue;
                }
                if entry.mode().is_tree() {
                    stack.push((path, entry.object_id()));
                } else if !entry.mode().is_commit() {
                    out.insert(path, entry.object_id().to_string());
                }
            }
        }
        Ok(out)
    }

    /// Which of `tracked` differ in the work tree from the index: deleted, or of another
    /// size, or with another stat whose content hashes to another blob (a file touched but
    /// unchanged is not; one changed in the second the index was written is always read).
    pub fn unstaged(&self, tracked: &[Tracked], written: i64) -> Vec<String> {
        let seen = stats(&self.workdir, tracked);
        let mut out = Vec::new();
        for (t, seen) in tracked.iter().zip(seen) {
            let Some(seen) = seen else {
                out.push(t.path.clone());
                continue;
            };
            // Another size is another content, but for an entry whose stat was never
            // recorded (an index written from a tree: every field 0): that one is read.
            if seen.file && t.size != 0 && seen.size & 0xffff_ffff != t.size {
                out.push(t.path.clone());
                continue;
            }
            let same_stat = seen.secs == t.secs
                && seen.nsecs == t.nsecs
                && (t.ino == 0 || seen.ino & 0xffff_ffff == t.ino);
            if same_stat && seen.secs < written {
                continue;
            }
            let abs = self.workdir.join(&t.path);
            let bytes = if seen.link {
                std::fs::read_link(&abs)
                    .map(|l| l.to_string_lossy().into_owned().into_bytes())
                    .ok()
            } else {
                std::fs::read(&abs).ok()
            };
            match bytes.and_then(|b| self.blob_id(&b).ok()) {
                Some(id) if id == t.id => {}
                _ => out.push(t.path.clone()),
            }
        }
        out
    }
}

/// What [`Repo::unstaged`] compares of a file in the work tree.
#[derive(Debug, Clone, Copy)]
struct Seen {
    secs: i64,
    nsecs: i64,
    size: i64,
    ino: i64,
    file: bool,
    link: bool,
}

/// Each tracked file's stat (`None`: not there), each directory opened once and its
/// files looked up in it (a path's directories are resolved once, not once a file).
#[cfg(unix)]
fn stats(workdir: &std::path::Path, tracked: &[Tracked]) -> Vec<Option<Seen>> {
    use nix::fcntl::AtFlags;
    use nix::sys::stat::{SFlag, fstatat};
    let mut out = Vec::with_capacity(tracked.len());
    let mut open: Option<(&str, Option<std::fs::File>)> = None;
    for t in tracked {
        let (dir, name) = t.path.rsplit_once('/').unwrap_or(("", t.path.as_str()));
        if open.as_ref().is_none_or(|(d, _)| *d != dir) {
            open = Some((dir, std::fs::File::open(workdir.join(dir)).ok()));
        }
        let Some((_, Some(fd))) = &open else {
            out.push(None);
            continue;
        };
        out.push(
            fstatat(fd, name, AtFlags::AT_SYMLINK_NOFOLLOW)
                .ok()
                .map(|st| {
                    let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
                    Seen {
                        secs: st.st_mtime,
                        nsecs: st.st_mtime_nsec,
                        size: st.st_size,
                        ino: st.st_ino as i64,
                        file: kind == SFlag::S_IFREG,
                        link: kind == SFlag::S_IFLNK,
                    }
                }),
        );
    }
    out
}

#[cfg(not(unix))]
fn stats(workdir: &std::path::Path, tracked: &[Tracked]) -> Vec<Option<Seen>> {
    tracked
        .iter()
        .map(|t| {
            let meta = std::fs::symlink_metadata(workdir.join(&t.path)).ok()?;
            let (secs, nsecs) = meta
                .modified()
                .ok()
                .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or((0, 0), |d| {
                    (d.as_secs() as i64, i64::from(d.subsec_nanos()))
                });
            Some(Seen {
                secs,
                nsecs,
                size: meta.len() as i64,
                ino: 0,
                file: meta.is_file(),
                link: meta.file_type().is_symlink(),
            })
        })
        .collect()
}

#[cfg(unix)]
fn file_ino(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn file_ino(_meta: &std::fs::Metadata) -> u64 {
    0
}
