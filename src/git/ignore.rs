//! Which paths git's ignore rules exclude (`.gitignore` files of the work tree,
//! `.git/info/exclude`, `core.excludesFile`), and by which rule: `init` refuses to leave a
//! record path ignored, doctor finds one (docs/SESSIONS.md, "Ignored records").

use super::{GitError, Repo};

/// A path the ignore rules exclude, and the rule that does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The path asked about, from the work tree root (`/` at the end for a directory).
    pub path: String,
    /// The rule as written (`*.md`, `.ai/`).
    pub pattern: String,
    /// The file holding it, from the work tree root when it is inside it, else as git
    /// found it; `None` when it came from elsewhere.
    pub source: Option<String>,
    /// Its line in that file.
    pub line: usize,
}

impl Repo {
    /// The paths of `paths` (each `(path, is a directory)`, from the root) that git
    /// would not add because an ignore rule excludes them or a directory above them. One
    /// stack of the rules, read once.
    pub fn ignored(&self, paths: &[(&str, bool)]) -> Result<Vec<Ignored>, GitError> {
        let index = gix::index::State::new(self.repo.object_hash());
        let mut stack = self.repo.excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )?;
        let mut out = Vec::new();
        for (path, dir) in paths {
            let mode = if *dir {
                gix::index::entry::Mode::DIR
            } else {
                gix::index::entry::Mode::FILE
            };
            let Ok(platform) = stack.at_path(*path, Some(mode)) else {
                continue;
            };
            let Some(found) = platform
                .matching_exclude_pattern()
                .filter(|m| !m.pattern.is_negative())
            else {
                continue;
            };
            let source = found.source.map(|s| {
                s.strip_prefix(&self.workdir)
                    .unwrap_or(s)
                    .to_string_lossy()
                    .into_owned()
            });
            out.push(Ignored {
                path: if *dir {
                    format!("{}/", path.trim_end_matches('/'))
                } else {
                    (*path).to_owned()
                },
                pattern: found.pattern.to_string(),
                source,
                line: found.sequence_number,
            });
        }
        Ok(out)
    }
}
