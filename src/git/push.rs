//! What a push sends (SPEC §8): the commits reachable from the pushed tips and from no
//! remote-tracking ref nor the remote's old tips, and the blobs those commits add or
//! change under a prefix, each blob once.

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;
use gix::objs::FindExt;

use super::{GitError, Repo, plumbing};

/// A blob a pushed commit adds or changes under the prefix, against its first parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedBlob {
    /// The oldest pushed commit that brought this blob in.
    pub commit: String,
    /// That commit's first parent; `None` for a root commit.
    pub parent: Option<String>,
    pub subject: String,
    pub path: String,
    pub blob: String,
}

/// The commits a push sends and the blobs they bring in under a prefix.
#[derive(Debug, Clone, Default)]
pub struct Pushed {
    /// How many commits the push sends.
    pub commits: usize,
    /// Each blob once, oldest commit first.
    pub blobs: Vec<AddedBlob>,
}

impl Repo {
    /// The commits reachable from `tips` and from no remote-tracking ref (`refs/remotes/`)
    /// nor from `also_hidden` (the remote's old tips, when this clone has them), and each
    /// blob they add or change under `prefix` (a directory, `/`-separated) against their
    /// first parent: one walk, the prefix's subtree compared by id (a commit that leaves
    /// it alone costs two tree lookups), only differing subtrees diffed, and every blob
    /// reported once (by the oldest commit that brought it), never every file of every
    /// commit.
    pub fn pushed_blobs_under(
        &self,
        tips: &[String],
        also_hidden: &[String],
        prefix: &str,
    ) -> Result<Pushed, GitError> {
        let tips: Vec<gix::ObjectId> = tips.iter().filter_map(|t| self.commit_id(t)).collect();
        if tips.is_empty() {
            return Ok(Pushed::default());
        }
        let mut hidden: Vec<gix::ObjectId> = also_hidden
            .iter()
            .filter_map(|t| self.commit_id(t))
            .collect();
        for reference in self.repo.references()?.remote_branches()? {
            let mut reference = reference.map_err(plumbing)?;
            if let Ok(id) = reference.peel_to_id()
                && let Some(id) = self.commit_id(&id.to_string())
            {
                hidden.push(id);
            }
        }
        hidden.sort();
        hidden.dedup();
        let walk = self
            .repo
            .rev_walk(tips)
            .with_hidden(hidden)
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?;
        let mut commits = Vec::new();
        for info in walk {
            let info = info?;
            commits.push((info.id, info.parent_ids.first().copied()));
        }
        // Oldest first, so a blob is credited to the commit that brought it in.
        commits.reverse();
        let prefix = prefix.trim_end_matches('/');
        let mut subtrees = Subtrees::new(prefix);
        let mut seen = HashSet::new();
        let mut state = gix::diff::tree::State::default();
        let (mut old_buf, mut new_buf) = (Vec::new(), Vec::new());
        let mut blobs = Vec::new();
        for (id, parent) in &commits {
            let (new, subject) = subtrees.of(&self.repo, *id)?;
            // A parent beyond a shallow boundary is unknown: everything counts as added.
            let old = match parent {
                Some(p) if self.repo.has_object(p) => subtrees.of(&self.repo, *p)?.0,
                _ => None,
            };
            let Some(new) = new else { continue };
            if old == Some(new) {
                continue;
            }
            let new_iter = self
                .repo
                .objects
                .find_tree_iter(&new, &mut new_buf)
                .map_err(plumbing)?;
            let old_iter = match old {
                Some(old) => self
                    .repo
                    .objects
                    .find_tree_iter(&old, &mut old_buf)
                    .map_err(plumbing)?,
                None => gix::objs::TreeRefIter::from_bytes(&[], self.repo.object_hash()),
            };
            let mut recorder = gix::diff::tree::Recorder::default();
            gix::diff::tree(
                old_iter,
                new_iter,
                &mut state,
                &self.repo.objects,
                &mut recorder,
            )
            .map_err(plumbing)?;
            for change in recorder.records {
                use gix::diff::tree::recorder::Change;
                let (mode, oid, path) = match change {
                    Change::Addition {
                        entry_mode,
                        oid,
                        path,
                        ..
                    }
                    | Change::Modification {
                        entry_mode,
                        oid,
                        path,
                        ..
                    } => (entry_mode, oid, path),
                    Change::Deletion { .. } => continue,
                };
                if !mode.is_blob() || !seen.insert(oid) {
                    continue;
                }
                blobs.push(AddedBlob {
                    commit: id.to_string(),
                    parent: parent.map(|p| p.to_string()),
                    subject: subject.clone(),
                    path: format!("{prefix}/{}", path.to_str_lossy()),
                    blob: oid.to_string(),
                });
            }
        }
        Ok(Pushed {
            commits: commits.len(),
            blobs,
        })
    }

    /// The commit `text` (a full id) names, if this clone has it as a commit (a tag is
    /// peeled).
    fn commit_id(&self, text: &str) -> Option<gix::ObjectId> {
        let id = gix::ObjectId::from_hex(text.as_bytes()).ok()?;
        let object = self.repo.try_find_object(id).ok()??;
        object.peel_to_commit().ok().map(|c| c.id)
    }
}

/// Each commit's subtree at the prefix (and its subject), looked up once.
struct Subtrees<'p> {
    prefix: &'p str,
    known: HashMap<gix::ObjectId, (Option<gix::ObjectId>, String)>,
}

impl<'p> Subtrees<'p> {
    fn new(prefix: &'p str) -> Self {
        Subtrees {
            prefix,
            known: HashMap::new(),
        }
    }

    fn of(
        &mut self,
        repo: &gix::Repository,
        id: gix::ObjectId,
    ) -> Result<(Option<gix::ObjectId>, String), GitError> {
        if let Some(known) = self.known.get(&id) {
            return Ok(known.clone());
        }
        let commit = repo.find_commit(id)?;
        let subject = commit.message()?.summary().to_string();
        let tree = commit.tree()?;
        let sub = if self.prefix.is_empty() {
            Some(tree.id)
        } else {
            tree.lookup_entry_by_path(self.prefix)?
                .filter(|e| e.mode().is_tree())
                .map(|e| e.object_id())
        };
        self.known.insert(id, (sub, subject.clone()));
        Ok((sub, subject))
    }
}
