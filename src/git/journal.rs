//! The journal's git side (SPEC §12): its refs (read, listed, moved by compare-and-swap),
//! its commits (one segment each, written as objects with a fixed identity and time, so
//! the same lines give the same commit), and the fetch refspec in the remote's config,
//! edited through gix and handed back as bytes for the atomic writer.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::{GitError, Identity, Repo, plumbing};

/// What a compare-and-swap ref update found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefUpdate {
    /// The ref now names the new commit.
    Updated,
    /// The ref did not hold the expected value (another publish moved it): nothing changed.
    Moved,
}

/// One commit of a journal's first-parent chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainCommit {
    pub id: String,
    /// The commit's `journal.json` (its message's body, or a blob of its tree), if any.
    pub meta: Option<Vec<u8>>,
}

/// A first-parent walk from a tip, oldest first, and whether it reached the commit it
/// was asked to stop at.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    pub commits: Vec<ChainCommit>,
    pub reached_stop: bool,
}

impl Repo {
    /// This worktree's own git directory (`.git`, or `.git/worktrees/<name>` in a linked
    /// worktree): where per-writer state lives.
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// The repository's common directory (refs and the shared config).
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// The object id a ref names (peeled), if the ref exists.
    pub fn ref_target(&self, name: &str) -> Result<Option<String>, GitError> {
        let Some(mut reference) = self.repo.try_find_reference(name)? else {
            return Ok(None);
        };
        Ok(Some(reference.peel_to_id().map_err(plumbing)?.to_string()))
    }

    /// Every ref under `prefix` (e.g. `refs/majordomus/`), with the object id it names
    /// (not peeled: journal refs name commits), sorted by name; one pass over the ref store.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, String)>, GitError> {
        let platform = self.repo.references()?;
        let mut out = Vec::new();
        for reference in platform.prefixed(prefix)? {
            let mut reference = reference.map_err(plumbing)?;
            let name = reference.name().as_bstr().to_str_lossy().into_owned();
            // A direct ref names its object without a lookup; only a symbolic one is
            // followed (peeling would open the object database for every ref).
            if let Some(id) = reference.target().try_id() {
                out.push((name, id.to_string()));
            } else if let Ok(id) = reference.peel_to_id() {
                out.push((name, id.to_string()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// The bytes of the blob at `path` in commit `commit`'s tree, when it is a blob.
    pub fn blob_in_commit(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(plumbing)?;
        let tree = self.repo.find_commit(id)?.tree()?;
        match tree.lookup_entry_by_path(path)? {
            Some(entry) if entry.mode().is_blob() => Ok(Some(entry.object()?.detach().data)),
            _ => Ok(None),
        }
    }

    /// The `journal.json` of journal commit `commit`: its message's body, or (a commit
    /// written before the meta moved there) the blob of that name in its tree.
    pub fn journal_meta(&self, commit: &str) -> Result<Option<Vec<u8>>, GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(plumbing)?;
        journal_meta_of(&self.repo.find_commit(id)?)
    }

    /// The first-parent chain from `tip` back to (not including) `stop`, oldest first, each
    /// commit with its `journal.json`; at most `limit` commits (a chain longer than that
    /// is cut, oldest dropped, and `reached_stop` is false).
    pub fn journal_chain(
        &self,
        tip: &str,
        stop: Option<&str>,
        limit: usize,
    ) -> Result<Chain, GitError> {
        let mut id = Some(gix::ObjectId::from_hex(tip.as_bytes()).map_err(plumbing)?);
        let stop = match stop {
            Some(s) => Some(gix::ObjectId::from_hex(s.as_bytes()).map_err(plumbing)?),
            None => None,
        };
        let mut commits = Vec::new();
        let mut reached_stop = false;
        while let Some(current) = id {
            if Some(current) == stop {
                reached_stop = true;
                break;
            }
            if commits.len() == limit {
                break;
            }
            let commit = self.repo.find_commit(current)?;
            let meta = journal_meta_of(&commit)?;
            commits.push(ChainCommit {
                id: current.to_string(),
                meta,
            });
            id = commit.parent_ids().next().map(|p| p.detach());
        }
        commits.reverse();
        Ok(Chain {
            commits,
            reached_stop,
        })
    }

    /// Writes a journal commit: a tree of one blob, `segment` at `name` (a name, no
    /// directory), and `meta` (the `journal.json`) as the body of its message after
    /// `title`, committed by `identity` at `seconds` with `parent` as its only parent.
    /// Three objects, no ref moves.
    ///
    /// A commit holds only what it adds, never its parent's segments: a tree of every
    /// segment, rewritten at each publish, cost each publish more than the last and stored
    /// the journal's listing once per publish (60 MB of loose objects after 2,100 one-line
    /// publishes; 1.4 MB once each commit held only its own). The journal is its chain of
    /// commits ([`Repo::journal_chain`]). Commits of the earlier shapes (`journal.json`
    /// and `segments/<first seq>.jsonl` in the tree, or a tree of every segment) still
    /// name their own segment in their `journal.json`, so every shape reads the same.
    /// Each object is a file created on disk, the cost of a publish on a busy file system
    /// (docs/PERFORMANCE.md): this shape writes three where the last wrote five.
    pub fn write_journal_commit(
        &self,
        parent: Option<&str>,
        (name, segment): (&str, &[u8]),
        title: &str,
        meta: &[u8],
        seconds: i64,
        identity: &Identity,
    ) -> Result<String, GitError> {
        use gix::objs::tree::EntryKind;
        let parent = match parent {
            Some(p) => Some(gix::ObjectId::from_hex(p.as_bytes()).map_err(plumbing)?),
            None => None,
        };
        if name.is_empty() || name.contains('/') || title.contains('\n') {
            return Err(plumbing(std::io::Error::other(format!(
                "journal commit: {name} is not a name, or its title spans lines"
            ))));
        }
        let blob = self.repo.write_blob(segment)?.detach();
        let mut root = Vec::new();
        upsert(&mut root, name, EntryKind::Blob, blob);
        let tree = self.write_tree(root)?;
        let signature = gix::actor::Signature {
            name: identity.name.as_str().into(),
            email: identity.email.as_str().into(),
            time: gix::date::Time::new(seconds, 0),
        };
        let mut message = Vec::with_capacity(title.len() + 2 + meta.len());
        message.extend_from_slice(title.as_bytes());
        message.extend_from_slice(b"\n\n");
        message.extend_from_slice(meta);
        let commit = gix::objs::Commit {
            tree,
            parents: parent.into_iter().collect(),
            author: signature.clone(),
            committer: signature,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        Ok(self.repo.write_object(&commit)?.detach().to_string())
    }

    /// Writes a tree of `entries`, put in git's order.
    fn write_tree(
        &self,
        mut entries: Vec<gix::objs::tree::Entry>,
    ) -> Result<gix::ObjectId, GitError> {
        entries.sort();
        Ok(self
            .repo
            .write_object(&gix::objs::Tree { entries })?
            .detach())
    }

    /// Moves ref `name` to `new` only if it still names `expected` (`None`: only if it does
    /// not exist), under git's ref lock: two publishers never lose each other's commit.
    /// Git's ref lock is what serialises two publishers; a failure to take it (the other
    /// one holds it) is reported as `Moved`, and the caller reads the ref again.
    pub fn update_ref_cas(
        &self,
        name: &str,
        expected: Option<&str>,
        new: &str,
        message: &str,
    ) -> Result<RefUpdate, GitError> {
        use gix::refs::Target;
        use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
        let new = gix::ObjectId::from_hex(new.as_bytes()).map_err(plumbing)?;
        let expected_id = match expected {
            Some(e) => Some(gix::ObjectId::from_hex(e.as_bytes()).map_err(plumbing)?),
            None => None,
        };
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: message.into(),
                },
                expected: match expected_id {
                    Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
                    None => PreviousValue::MustNotExist,
                },
                new: Target::Object(new),
            },
            name: name.try_into().map_err(plumbing)?,
            deref: false,
        };
        let identity = gix::actor::Signature {
            name: "majordomus journal".into(),
            email: "journal@majordomus".into(),
            time: gix::date::Time::now_utc(),
        };
        let mut time_buf = gix::date::parse::TimeBuf::default();
        match self
            .repo
            .edit_references_as([edit], Some(identity.to_ref(&mut time_buf)))
        {
            Ok(_) => Ok(RefUpdate::Updated),
            Err(e) => {
                // The value is compared under the ref's lock: when the ref no longer holds
                // what was expected, another writer got there first. A lock held by that
                // other writer is the same race, lost a moment earlier.
                let now = self.ref_target(name)?;
                let expected = expected_id.map(|id| id.to_string());
                if now != expected || e.to_string().contains("lock") {
                    Ok(RefUpdate::Moved)
                } else {
                    Err(GitError::Git(e))
                }
            }
        }
    }

    /// The names of this clone's remotes, sorted.
    pub fn remote_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .repo
            .remote_names()
            .into_iter()
            .map(|n| n.to_str_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The repository's own config file with `refspec` added to (or, with `add` false,
    /// removed from) `remote.<remote>.fetch`, edited through gix so everything else stays
    /// byte for byte: `(path, new bytes)`, or `None` when the file already says so. The
    /// caller writes it (through the atomic writer).
    pub fn config_with_fetch_refspec(
        &self,
        remote: &str,
        refspec: &str,
        add: bool,
    ) -> Result<Option<(PathBuf, Vec<u8>)>, GitError> {
        let path = self.repo.common_dir().join("config");
        let mut file =
            gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)
                .map_err(plumbing)?;
        let mut section = match file.section_mut("remote", Some(remote.as_bytes().as_bstr())) {
            Ok(section) => section,
            Err(_) if !add => return Ok(None),
            Err(e) => return Err(plumbing(e)),
        };
        let values = section.values("fetch");
        let has = values.iter().any(|v| v == refspec.as_bytes());
        if has == add {
            return Ok(None);
        }
        if add {
            section
                .push("fetch", Some(refspec.as_bytes().as_bstr()))
                .map_err(plumbing)?;
        } else {
            // Every `fetch` value out, then the others back in their order.
            while section.remove("fetch").is_some() {}
            for value in values.iter().filter(|v| *v != refspec.as_bytes()) {
                section
                    .push("fetch", Some(value.as_bstr()))
                    .map_err(plumbing)?;
            }
        }
        Ok(Some((path, file.to_bstring().into())))
    }

    /// Whether `remote.<remote>.fetch` carries `refspec` (as this process read the config).
    pub fn has_fetch_refspec(&self, remote: &str, refspec: &str) -> bool {
        let config = self.repo.config_snapshot();
        let key = format!("remote.{remote}.fetch");
        config
            .strings(key.as_str())
            .is_some_and(|values| values.iter().any(|v| v.as_bytes() == refspec.as_bytes()))
    }
}

/// `name` in `entries` names `oid` now (any entry of that name before is replaced).
fn upsert(
    entries: &mut Vec<gix::objs::tree::Entry>,
    name: &str,
    kind: gix::objs::tree::EntryKind,
    oid: gix::ObjectId,
) {
    entries.retain(|e| e.filename != name.as_bytes());
    entries.push(gix::objs::tree::Entry {
        mode: kind.into(),
        filename: name.into(),
        oid,
    });
}

/// The `journal.json` a journal commit carries: the body of its message when that is a JSON
/// object (the shape publishing writes), else the blob `journal.json` in its tree (the
/// earlier shape), else nothing.
fn journal_meta_of(commit: &gix::Commit<'_>) -> Result<Option<Vec<u8>>, GitError> {
    let message = commit.message_raw().map_err(plumbing)?;
    if let Some(at) = message.find(b"\n\n") {
        let body = &message[at + 2..];
        if body.trim_start().starts_with(b"{") {
            return Ok(Some(body.to_vec()));
        }
    }
    let tree = commit.tree()?;
    Ok(match tree.lookup_entry_by_path("journal.json")? {
        Some(entry) if entry.mode().is_blob() => Some(entry.object()?.detach().data),
        _ => None,
    })
}
