//! Stamps: what tells a read that a file, a folder or the reasoning tree changed since the
//! index read it — modification time, size and inode; a stamp younger than
//! [`super::RACY`] is kept racy, with the hash of the bytes read.

use std::fs::Metadata;
use std::path::Path;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::RACY;
use crate::Ctx;
use crate::error::Error;
use crate::store::StoreError;

/// A file's or folder's stamp: modification time, size and inode; `racy:` when it is too
/// young to trust; `absent` when there is none.
pub(super) fn stamp(meta: Option<&Metadata>, now: SystemTime) -> String {
    let Some(meta) = meta else {
        return "absent".into();
    };
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let nanos = modified
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let ino = inode(meta);
    let text = format!("{nanos}.{}.{ino}", meta.len());
    let young = now.duration_since(modified).map_or(true, |age| age < RACY);
    if young { format!("racy:{text}") } else { text }
}

#[cfg(unix)]
pub(super) fn inode(meta: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
pub(super) fn inode(_meta: &Metadata) -> u64 {
    0
}

/// Whether a file whose stamp was `before` is unchanged now. A racy stamp (too young to
/// trust the clock) is kept with the hash of the bytes read; equal bytes are unchanged.
pub(super) fn unchanged(before: Option<&str>, now_stamp: &str, abs: &Path) -> bool {
    let Some(before) = before else {
        return false;
    };
    if !now_stamp.starts_with("racy:") {
        return before == now_stamp;
    }
    match before
        .strip_prefix(now_stamp)
        .and_then(|rest| rest.strip_prefix('#'))
    {
        Some(hash) => std::fs::read(abs).is_ok_and(|bytes| sha(&bytes) == hash),
        None => false,
    }
}

/// The stamp kept for a file read now: a racy one with the hash of its bytes.
pub(super) fn kept_stamp(now_stamp: &str, bytes: &[u8]) -> String {
    if now_stamp.starts_with("racy:") {
        format!("{now_stamp}#{}", sha(bytes))
    } else {
        now_stamp.to_owned()
    }
}

pub(super) fn stat(path: &Path) -> Result<Option<Metadata>, Error> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, e).into()),
    }
}

/// The stamp of the reasoning tree: its folder and every task folder in it.
pub(super) fn reasoning_stamp(ctx: &Ctx, now: SystemTime) -> Result<String, Error> {
    let root = ctx.layout.reasoning_dir();
    let Some(meta) = stat(&root)? else {
        return Ok("absent".into());
    };
    let mut out = stamp(Some(&meta), now);
    let mut names = Vec::new();
    match std::fs::read_dir(&root) {
        Ok(entries) => {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    names.push(entry.file_name().to_string_lossy().into_owned());
                }
            }
        }
        Err(e) => return Err(StoreError::io(&root, e).into()),
    }
    names.sort();
    for name in names {
        let meta = stat(&root.join(&name))?;
        out.push_str(&format!(" {name}={}", stamp(meta.as_ref(), now)));
    }
    Ok(out)
}

pub(super) fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
