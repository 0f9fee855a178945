//! `majordomus init`: the `.ai/` skeleton, idempotent, never overwriting a file.

use serde::Serialize;

use crate::Ctx;
use crate::error::Error;
use crate::store::skeleton::{FILES, GITIGNORE_LINE};
use crate::store::{StoreError, WriteOutcome, write_atomic, write_new};

#[derive(Debug, Clone, Serialize)]
pub struct Initialised {
    /// Files this run created, relative to the root.
    pub created: Vec<String>,
    /// Skeleton files that were already there and were left alone.
    pub existing: Vec<String>,
    /// `written` when `.ai/local/` was added to `.gitignore`, else `unchanged`.
    pub gitignore: WriteOutcome,
}

/// Creates the skeleton from `share/skeleton/` and ignores `.ai/local/`.
pub fn init(ctx: &Ctx) -> Result<Initialised, Error> {
    let mut created = Vec::new();
    let mut existing = Vec::new();
    for (rel, contents) in FILES {
        let path = ctx.layout.root().join(rel);
        match write_new(&path, contents.as_bytes())? {
            WriteOutcome::Written => created.push((*rel).to_owned()),
            _ => existing.push((*rel).to_owned()),
        }
    }
    let local = ctx.layout.local_dir();
    std::fs::create_dir_all(&local).map_err(|e| StoreError::io(&local, e))?;

    let path = ctx.layout.gitignore();
    let current = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(StoreError::io(&path, e).into()),
    };
    let ignored = current.lines().any(|l| {
        let l = l.trim();
        l == GITIGNORE_LINE || l == "/.ai/local/" || l == ".ai/local" || l == "/.ai/local"
    });
    let gitignore = if ignored {
        WriteOutcome::Unchanged
    } else {
        let mut next = current;
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(GITIGNORE_LINE);
        next.push('\n');
        write_atomic(&path, next.as_bytes())?
    };
    Ok(Initialised {
        created,
        existing,
        gitignore,
    })
}
