//! The work tree's state as `git status --porcelain` lists it: one entry per path, the
//! index against HEAD in the first column, the work tree against the index in the second.

use std::collections::BTreeMap;

use gix::bstr::ByteSlice;

use super::{GitError, Repo};
use crate::model::episode::PathStatus;

impl Repo {
    /// Every path `git status --porcelain` names (untracked directories collapsed to
    /// `dir/`, ignored files left out, a staged rename as `R  old -> new`), in git's order.
    pub fn status_entries(&self) -> Result<Vec<PathStatus>, GitError> {
        self.status_of(Vec::new())
    }

    fn status_of(&self, patterns: Vec<gix::bstr::BString>) -> Result<Vec<PathStatus>, GitError> {
        use gix::status::Item;
        use gix::status::index_worktree::Item as Worktree;
        use gix::status::index_worktree::iter::Summary;
        let iter = self
            .repo
            .status(gix::progress::Discard)?
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .into_iter(patterns)?;
        // path -> (index column, work-tree column, where a rename came from)
        let mut entries: BTreeMap<String, (char, char, Option<String>)> = BTreeMap::new();
        for item in iter {
            match item? {
                Item::TreeIndex(change) => {
                    use gix::diff::index::Change;
                    let (path, code, from) = match &change {
                        Change::Addition { location, .. } => (location.to_str_lossy(), 'A', None),
                        Change::Deletion { location, .. } => (location.to_str_lossy(), 'D', None),
                        Change::Modification {
                            location,
                            previous_entry_mode,
                            entry_mode,
                            ..
                        } => {
                            use gix::index::entry::Mode;
                            let kind = |m: &Mode| (*m == Mode::SYMLINK, m.is_submodule());
                            let kind_changed = kind(previous_entry_mode) != kind(entry_mode);
                            (
                                location.to_str_lossy(),
                                if kind_changed { 'T' } else { 'M' },
                                None,
                            )
                        }
                        Change::Rewrite {
                            source_location,
                            location,
                            copy,
                            ..
                        } => (
                            location.to_str_lossy(),
                            if *copy { 'C' } else { 'R' },
                            Some(source_location.to_str_lossy().into_owned()),
                        ),
                    };
                    let entry = entries.entry(path.into_owned()).or_insert((' ', ' ', None));
                    entry.0 = code;
                    entry.2 = from;
                }
                Item::IndexWorktree(item) => {
                    let Some(summary) = item.summary() else {
                        // Only an index entry to refresh: nothing git status would say.
                        continue;
                    };
                    let path = item.rela_path().to_str_lossy().into_owned();
                    let entry = entries.entry(path).or_insert((' ', ' ', None));
                    match summary {
                        Summary::Added => {
                            // Untracked (collapsed directories end in `/`, as git writes them).
                            *entry = ('?', '?', None);
                            if let Worktree::DirectoryContents { entry: dir, .. } = &item
                                && dir.disk_kind.is_some_and(|k| k.is_dir())
                            {
                                let path = item.rela_path().to_str_lossy().into_owned();
                                entries.remove(&path);
                                entries.insert(format!("{path}/"), ('?', '?', None));
                            }
                        }
                        Summary::Removed => entry.1 = 'D',
                        Summary::Modified => entry.1 = 'M',
                        Summary::TypeChange => entry.1 = 'T',
                        Summary::IntentToAdd => entry.1 = 'A',
                        Summary::Conflict => *entry = ('U', 'U', None),
                        Summary::Renamed => entry.1 = 'R',
                        Summary::Copied => entry.1 = 'C',
                    }
                }
            }
        }
        // Git's order: tracked changes by path, then the untracked ones by path.
        let (untracked, tracked): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .map(|(path, (x, y, from))| PathStatus {
                code: format!("{x}{y}"),
                path,
                from,
            })
            .partition(|e| e.code == "??");
        Ok(tracked.into_iter().chain(untracked).collect())
    }
}
