//! The commit writer (used by `demo`): files into the work tree and a commit on HEAD's
//! branch with an explicit identity and time.

use super::{GitError, Repo, plumbing};

/// Who a written commit is authored and committed by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

impl Repo {
    /// Writes `files` into the work tree and commits them on HEAD's branch with an
    /// explicit identity and time, updating the index to match (used by `demo`).
    pub fn commit_files(
        &self,
        files: &[(&str, &[u8])],
        message: &str,
        seconds: i64,
        identity: &Identity,
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
            name: identity.name.as_str().into(),
            email: identity.email.as_str().into(),
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
