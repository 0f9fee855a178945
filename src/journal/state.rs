//! This writer's identity and state, kept in this worktree's git directory (never in the
//! work tree, so `git clean -fdx` leaves them): `majordomus/writer` (the writer id) and
//! `majordomus/journal.json` (where it publishes, from which line, what it published and
//! how its last push went).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::journal::{self, JournalError};
use crate::store::{StoreError, write_atomic, write_new};

/// `<git dir>/majordomus/`.
pub fn dir(ctx: &Ctx) -> PathBuf {
    ctx.repo.git_dir().join("majordomus")
}

fn writer_path(ctx: &Ctx) -> PathBuf {
    dir(ctx).join("writer")
}

fn state_path(ctx: &Ctx) -> PathBuf {
    dir(ctx).join("journal.json")
}

/// This worktree's writer id, when it has one (shape-checked: a file that is not one is
/// unreadable state, with the fix that remakes it).
pub fn writer(ctx: &Ctx) -> Result<Option<String>, Error> {
    let path = writer_path(ctx);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let id = text.trim_end_matches('\n');
            if journal::is_writer_id(id) {
                Ok(Some(id.to_owned()))
            } else {
                Err(JournalError::WriterUnreadable {
                    path: ctx.layout.display(&path),
                    message: format!(
                        "{} is not 16 hex digits",
                        crate::model::ids::shown(id.trim())
                    ),
                }
                .into())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(&path, e).into()),
    }
}

/// This worktree's writer id, made on first need (8 random bytes from the OS), written
/// once: two processes making one at the same moment agree on the one that landed.
pub fn writer_or_new(ctx: &Ctx) -> Result<String, Error> {
    if let Some(id) = writer(ctx)? {
        return Ok(id);
    }
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| {
        StoreError::io(
            std::path::Path::new("getrandom"),
            std::io::Error::other(e.to_string()),
        )
    })?;
    let id = journal::writer_id(bytes);
    write_new(&writer_path(ctx), format!("{id}\n").as_bytes())?;
    writer(ctx)?.ok_or_else(|| {
        StoreError::Malformed {
            path: writer_path(ctx),
            message: "written, then not found".into(),
        }
        .into()
    })
}

/// Adopts `id` as this worktree's writer id (`journal restore --writer`, on a new machine).
pub fn set_writer(ctx: &Ctx, id: &str) -> Result<(), Error> {
    write_atomic(&writer_path(ctx), format!("{id}\n").as_bytes())?;
    Ok(())
}

/// What this writer remembers about its journal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriterState {
    /// The remote the journal is pushed to; `None`: sharing is not enabled here.
    #[serde(default)]
    pub remote: Option<String>,
    /// Lines up to this seq are never published (the ledger's last seq at `enable`; 0 with
    /// `--include-history`).
    #[serde(default)]
    pub enabled_after: u64,
    /// Where the last publish ended in the ledger, so the next reads only what is new.
    #[serde(default)]
    pub published: Option<PublishedMark>,
    /// How the last journal push went.
    #[serde(default)]
    pub push: Option<PushRecord>,
    /// `journal prune --apply` rewrote this writer's ref: the next push force-updates it
    /// on the remote (only this writer's own ref).
    #[serde(default)]
    pub force_push: bool,
}

/// The end of the last publish: its last line and the byte after it, and the journal tip
/// it left (empty: the journal has no commit yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishedMark {
    pub seq: u64,
    pub offset: u64,
    pub commit: String,
}

/// The last journal push.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushRecord {
    /// The journal commit pushed (or tried).
    pub commit: String,
    pub remote: String,
    pub ok: bool,
    pub at: String,
    /// What git said, when it failed (redacted).
    #[serde(default)]
    pub error: Option<String>,
}

/// The state, or the default when there is none yet.
pub fn read(ctx: &Ctx) -> Result<WriterState, Error> {
    let path = state_path(ctx);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            JournalError::StateUnreadable {
                path: ctx.layout.display(&path),
                message: e.to_string(),
            }
            .into()
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(WriterState::default()),
        Err(e) => Err(StoreError::io(&path, e).into()),
    }
}

/// Writes the state, synced: for what must survive a crash (the remote and the enable
/// point at `enable`/`disable`, the force flag of a prune, the reset of a restore).
pub fn write(ctx: &Ctx, state: &WriterState) -> Result<(), Error> {
    write_atomic(&state_path(ctx), &to_bytes(state))?;
    Ok(())
}

/// Writes the state after a publish or a push, without the fsyncs: what changed is a
/// cache (the publish mark is checked against the ledger before use) and a report (the
/// last push). After a power cut the file is either the old one, the new one, or short,
/// and a short one is unreadable state, never a silent reset of the enable point.
pub fn write_after_publish(ctx: &Ctx, state: &WriterState) -> Result<(), Error> {
    crate::store::write_atomic_derived(&state_path(ctx), &to_bytes(state))?;
    Ok(())
}

fn to_bytes(state: &WriterState) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(state).expect("the state always serialises");
    bytes.push(b'\n');
    bytes
}

/// The lock one worktree's publishes and pushes take (`<git dir>/majordomus/journal.lock`),
/// held until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
}

impl Lock {
    pub fn acquire(ctx: &Ctx) -> Result<Lock, Error> {
        let path = dir(ctx).join("journal.lock");
        std::fs::create_dir_all(dir(ctx)).map_err(|e| StoreError::io(&dir(ctx), e))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        file.lock().map_err(|e| StoreError::io(&path, e))?;
        Ok(Lock { _file: file })
    }
}
