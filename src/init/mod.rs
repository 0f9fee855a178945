//! `majordomus init`: the `.ai/` skeleton, idempotent, never overwriting a file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::store::skeleton::{FILES, GITIGNORE_LINE};
use crate::store::{StoreError, WriteOutcome, write_atomic, write_new};

/// `init` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitRequest {}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Initialised {
    /// The work tree root.
    pub root: String,
    /// Files this run created, relative to the root.
    pub created: Vec<String>,
    /// Skeleton files that were already there and were left alone.
    pub existing: Vec<String>,
    /// `written` when `.ai/local/` was added to `.gitignore`, else `unchanged`.
    pub gitignore: WriteOutcome,
}

/// Creates the skeleton from `share/skeleton/` and ignores `.ai/local/`.
pub fn init(ctx: &Ctx, _request: InitRequest) -> Result<Initialised, Error> {
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
        root: ctx.layout.root().display().to_string(),
        created,
        existing,
        gitignore,
    })
}
