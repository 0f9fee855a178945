//! The trunk outbox (SPEC §5.7): episode-boundary output parked under
//! `.ai/local/state/outbox/` while on the trunk, moved unchanged into the tracked
//! folders at the next boundary on another branch.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Layout, StoreError, WriteOutcome, write_atomic};

/// Which outbox folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shelf {
    Sessions,
    Candidates,
}

impl Shelf {
    fn name(self) -> &'static str {
        match self {
            Shelf::Sessions => "sessions",
            Shelf::Candidates => "candidates",
        }
    }
}

/// What the outbox holds (file names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct OutboxContents {
    pub sessions: Vec<String>,
    pub candidates: Vec<String>,
}

impl OutboxContents {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.candidates.is_empty()
    }
    pub fn len(&self) -> usize {
        self.sessions.len() + self.candidates.len()
    }
}

/// A file a drain left in the outbox, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Left {
    /// Relative to the repository root.
    pub file: String,
    pub reason: String,
}

/// What one drain did: the file names it moved, and what it left.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Drained {
    pub sessions: Vec<String>,
    pub candidates: Vec<String>,
    pub left: Vec<Left>,
}

impl Drained {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.candidates.is_empty() && self.left.is_empty()
    }
}

/// The outbox of one work tree.
#[derive(Debug, Clone)]
pub struct Outbox {
    dir: PathBuf,
}

impl Outbox {
    pub fn new(layout: &Layout) -> Self {
        Outbox {
            dir: layout.outbox_dir(),
        }
    }

    pub fn shelf(&self, shelf: Shelf) -> PathBuf {
        self.dir.join(shelf.name())
    }

    fn list(&self, shelf: Shelf) -> Result<Vec<String>, StoreError> {
        list_markdown(&self.shelf(shelf))
    }

    pub fn contents(&self) -> Result<OutboxContents, StoreError> {
        Ok(OutboxContents {
            sessions: self.list(Shelf::Sessions)?,
            candidates: self.list(Shelf::Candidates)?,
        })
    }

    /// Copies every outbox file into its tracked folder unchanged; idempotent: a file
    /// already there with the same bytes is left as it is. `keep(path)` says whether an
    /// existing tracked candidate must not be overwritten (the caller passes "is
    /// superseded"): a person's act wins, and the parked copy is only listed, to go. A
    /// tracked file that differs from its outbox copy is never overwritten: the copy stays
    /// in the outbox and the report says so. The outbox copies of what was moved stay
    /// until [`Outbox::remove_moved`]: the caller records the drain in between, so a crash
    /// at any point leaves every file in the outbox, in its tracked folder, or in both.
    pub fn copy_out(
        &self,
        layout: &Layout,
        keep: impl Fn(&Path) -> bool,
    ) -> Result<Drained, StoreError> {
        let mut moved = Drained::default();
        for (shelf, target) in [
            (Shelf::Sessions, layout.sessions_dir()),
            (Shelf::Candidates, layout.candidates_dir()),
        ] {
            for name in self.list(shelf)? {
                let from = self.shelf(shelf).join(&name);
                let bytes = std::fs::read(&from).map_err(|e| StoreError::io(&from, e))?;
                let to = target.join(&name);
                // A person's act wins over a parked derivation: a candidate rejected or
                // promoted meanwhile is not brought back.
                let reviewed = shelf == Shelf::Candidates
                    && (layout.curated_dir().join(&name).exists() || keep(&to));
                if !reviewed {
                    match std::fs::read(&to) {
                        Ok(existing) if existing != bytes => {
                            moved.left.push(Left {
                                file: layout.display(&from),
                                reason: format!(
                                    "{} is already there with other content; compare the two and keep one by hand",
                                    layout.display(&to)
                                ),
                            });
                            continue;
                        }
                        _ => {
                            let _: WriteOutcome = write_atomic(&to, &bytes)?;
                        }
                    }
                }
                match shelf {
                    Shelf::Sessions => moved.sessions.push(name),
                    Shelf::Candidates => moved.candidates.push(name),
                }
            }
        }
        Ok(moved)
    }

    /// Removes from the outbox the files `moved` lists (already gone is fine).
    pub fn remove_moved(&self, moved: &Drained) -> Result<(), StoreError> {
        for (shelf, names) in [
            (Shelf::Sessions, &moved.sessions),
            (Shelf::Candidates, &moved.candidates),
        ] {
            for name in names {
                let from = self.shelf(shelf).join(name);
                match std::fs::remove_file(&from) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(StoreError::io(&from, e)),
                }
            }
        }
        Ok(())
    }
}

/// `*.md` file names in `dir` (not README.md, not temp files), sorted; none if absent.
pub fn list_markdown(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" && !name.starts_with('.') {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}
