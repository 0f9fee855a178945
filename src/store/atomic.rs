//! The one atomic writer: temp file in the same directory, fsync, rename (without the
//! fsyncs for a derived file that is rebuilt when lost).

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::StoreError;

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WriteOutcome {
    Written,
    /// The file already held exactly these bytes; nothing was written.
    Unchanged,
    /// `write_new` found the file present and left it alone.
    Exists,
}

/// Writes `bytes` to `path` atomically (`.tmp.<name>.<pid>` beside it, fsync, rename);
/// writes nothing and says `Unchanged` when the file already holds these bytes.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<WriteOutcome, StoreError> {
    replace(path, bytes, Durability::Synced)
}

/// [`write_atomic`] for a derived file that is rebuilt whenever it is missing or cannot be
/// read (the ledger index): the same temp file and rename, so no reader ever sees it half
/// written, without the fsyncs that would make it survive a crash. A crash may leave it
/// empty or short; its reader then rebuilds it.
pub fn write_atomic_derived(path: &Path, bytes: &[u8]) -> Result<WriteOutcome, StoreError> {
    replace(path, bytes, Durability::Derived)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// fsync the file and its directory: it survives a crash.
    Synced,
    /// No fsync: rebuilt when lost.
    Derived,
}

fn replace(path: &Path, bytes: &[u8], durability: Durability) -> Result<WriteOutcome, StoreError> {
    if let Ok(existing) = fs::read(path)
        && existing == bytes
    {
        return Ok(WriteOutcome::Unchanged);
    }
    let tmp = stage(path, bytes, durability)?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        StoreError::io(path, e)
    })?;
    if durability == Durability::Synced {
        sync_dir(path);
    }
    Ok(WriteOutcome::Written)
}

/// Writes `bytes` to `path` only if no file is there (never overwrites; atomic against a
/// concurrent writer because the final step is a hard link, which fails on an existing name).
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<WriteOutcome, StoreError> {
    if path.exists() {
        return Ok(WriteOutcome::Exists);
    }
    let tmp = stage(path, bytes, Durability::Synced)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_dir(path);
            Ok(WriteOutcome::Written)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(WriteOutcome::Exists),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// Writes the temp file beside `path` (and fsyncs it, when synced); returns its path.
fn stage(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<std::path::PathBuf, StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".tmp.{name}.{}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        match durability {
            Durability::Synced => file.sync_all(),
            Durability::Derived => Ok(()),
        }
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(StoreError::io(&tmp, e));
    }
    Ok(tmp)
}

/// Makes the rename durable; best effort because not every filesystem allows it.
fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_then_reports_unchanged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a/b/file.md");
        assert_eq!(
            write_atomic(&path, b"one").expect("write"),
            WriteOutcome::Written
        );
        assert_eq!(
            write_atomic(&path, b"one").expect("write"),
            WriteOutcome::Unchanged
        );
        assert_eq!(
            write_atomic(&path, b"two").expect("write"),
            WriteOutcome::Written
        );
        assert_eq!(fs::read(&path).expect("read"), b"two");
        let leftovers: Vec<_> = fs::read_dir(path.parent().expect("parent"))
            .expect("list")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp."))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn write_new_never_overwrites() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("once.md");
        assert_eq!(
            write_new(&path, b"first").expect("write"),
            WriteOutcome::Written
        );
        assert_eq!(
            write_new(&path, b"second").expect("write"),
            WriteOutcome::Exists
        );
        assert_eq!(fs::read(&path).expect("read"), b"first");
    }
}
