//! The one atomic writer: temp file in the same directory, fsync, rename (without the
//! fsyncs for a derived file that is rebuilt when lost); and the sweep of the temp files a
//! killed writer left behind.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::StoreError;
use super::fault::{self, Site, Step};

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

impl Durability {
    /// The fault-injection site of this kind of write.
    fn site(self) -> Site {
        match self {
            Durability::Synced => Site::Write,
            Durability::Derived => Site::Derived,
        }
    }
}

fn replace(path: &Path, bytes: &[u8], durability: Durability) -> Result<WriteOutcome, StoreError> {
    if let Ok(existing) = fs::read(path)
        && existing == bytes
    {
        return Ok(WriteOutcome::Unchanged);
    }
    let site = durability.site();
    let tmp = stage(path, bytes, durability, site)?;
    fault::point(site, Step::BeforeRename);
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        StoreError::io(path, e)
    })?;
    fault::point(site, Step::AfterRename);
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
    let tmp = stage(path, bytes, Durability::Synced, Site::New)?;
    fault::point(Site::New, Step::BeforeRename);
    let linked = fs::hard_link(&tmp, path);
    fault::point(Site::New, Step::AfterRename);
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
/// The first write of this process in a directory first removes the stale temp files
/// there (see [`sweep_stale_temps`]).
fn stage(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
    site: Site,
) -> Result<PathBuf, StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    sweep_once(dir);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!("{TEMP_PREFIX}{name}.{}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        fault::point(site, Step::AfterTempWrite);
        if durability == Durability::Synced {
            file.sync_all()?;
        }
        fault::point(site, Step::AfterFsync);
        Ok(())
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

/// Temp files are named `.tmp.<name>.<pid>`: hidden, so no listing of records, notes or
/// tasks ever reads one, and named by their writer's process.
const TEMP_PREFIX: &str = ".tmp.";

/// A temp file this old is stale even when a process with its writer's id runs (that
/// process id was reused): no write holds its temp file for minutes.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(600);

/// The writer's process id, when `name` is a temp file name of the atomic writer.
pub fn temp_writer(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (target, pid) = rest.rsplit_once('.')?;
    if target.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether a process with id `pid` runs on this machine.
fn process_runs(pid: u32) -> bool {
    use nix::errno::Errno;
    use nix::sys::signal::kill;
    // 0 and negative ids name process groups, never one writer.
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    // Signal 0 only asks; EPERM means it runs under another user.
    match kill(nix::unistd::Pid::from_raw(raw), None) {
        Ok(()) => true,
        Err(Errno::ESRCH) => false,
        Err(_) => true,
    }
}

/// Whether the temp file `path` (written by `pid`) was left by a writer that is gone:
/// its process no longer runs, or it is older than [`TEMP_STALE_AFTER`]. A temp file of
/// this very process is its own write under way, unless old.
fn is_stale(path: &Path, pid: u32) -> bool {
    let old = fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|at| SystemTime::now().duration_since(at).ok())
        .is_some_and(|age| age > TEMP_STALE_AFTER);
    old || (pid != std::process::id() && !process_runs(pid))
}

/// Removes the stale temp files directly in `dir` (not below it); returns their paths.
/// A temp file whose writer still runs is left alone: that write is under way.
pub fn sweep_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = temp_writer(&name.to_string_lossy()) else {
            continue;
        };
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_file()) && is_stale(&path, pid) {
            // Another sweeper may have taken it first; either way it is gone.
            if fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed.sort();
    removed
}

/// The directories this process swept, and the temp files it removed there.
#[derive(Default)]
struct Swept {
    dirs: HashSet<PathBuf>,
    removed: Vec<PathBuf>,
}

fn swept() -> &'static Mutex<Swept> {
    static SWEPT: OnceLock<Mutex<Swept>> = OnceLock::new();
    SWEPT.get_or_init(Mutex::default)
}

/// [`sweep_stale_temps`] the first time this process writes in `dir`: a write costs one
/// directory listing per directory and process, not one per file.
fn sweep_once(dir: &Path) {
    let first = swept()
        .lock()
        .map(|mut s| s.dirs.insert(dir.to_owned()))
        .unwrap_or(false);
    if first {
        let removed = sweep_stale_temps(dir);
        if !removed.is_empty()
            && let Ok(mut s) = swept().lock()
        {
            s.removed.extend(removed);
        }
    }
}

/// The stale temp files the writes of this process removed so far (so that `doctor`,
/// whose own index writes may sweep first, names every one it removed).
pub fn swept_by_this_process() -> Vec<PathBuf> {
    swept()
        .lock()
        .map(|s| s.removed.clone())
        .unwrap_or_default()
}

/// What [`sweep_tree`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TempSweep {
    /// Stale temp files removed.
    pub removed: Vec<PathBuf>,
    /// Temp files of writers still running, left alone.
    pub live: Vec<PathBuf>,
}

/// Removes every stale temp file under `root` (recursively; symbolic links are not
/// followed) and lists the live ones.
pub fn sweep_tree(root: &Path) -> TempSweep {
    fn walk(dir: &Path, out: &mut TempSweep) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut subdirs = Vec::new();
        let mut live = Vec::new();
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                subdirs.push(entry.path());
            } else if kind.is_file()
                && let Some(pid) = temp_writer(&entry.file_name().to_string_lossy())
                && !is_stale(&entry.path(), pid)
            {
                live.push(entry.path());
            }
        }
        out.removed.extend(sweep_stale_temps(dir));
        out.live.extend(live);
        subdirs.sort();
        for sub in subdirs {
            walk(&sub, out);
        }
    }
    let mut out = TempSweep::default();
    walk(root, &mut out);
    out.removed.sort();
    out.live.sort();
    out
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

#[cfg(test)]
mod sweep_tests {
    use super::*;

    /// A process id no process has: a child that was started and reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("spawn true");
        let pid = child.id();
        child.wait().expect("reap");
        pid
    }

    #[test]
    fn temp_names_carry_their_writer() {
        assert_eq!(temp_writer(".tmp.a.md.123"), Some(123));
        assert_eq!(temp_writer(".tmp.ledger.jsonl.9"), Some(9));
        for not_temp in [".tmp.a.md", ".tmp..12", "a.md.12", ".tmp.a.md.12x", ".lock"] {
            assert_eq!(temp_writer(not_temp), None, "{not_temp}");
        }
    }

    #[test]
    fn sweeps_the_dead_writers_temp_files_and_leaves_the_live_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dead = dir.path().join(format!(".tmp.a.md.{}", dead_pid()));
        // The test's own parent runs: a live writer.
        let live = dir
            .path()
            .join(format!(".tmp.b.md.{}", std::os::unix::process::parent_id()));
        let record = dir.path().join("c.md");
        for p in [&dead, &live, &record] {
            fs::write(p, b"x").expect("write");
        }
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).expect("mkdir");
        let deeper = sub.join(format!(".tmp.d.json.{}", dead_pid()));
        fs::write(&deeper, b"x").expect("write");

        assert_eq!(sweep_stale_temps(dir.path()), vec![dead.clone()]);
        assert!(live.exists() && record.exists() && deeper.exists());

        fs::write(&dead, b"x").expect("write");
        let swept = sweep_tree(dir.path());
        assert_eq!(swept.removed, vec![dead.clone(), deeper.clone()]);
        assert_eq!(swept.live, vec![live.clone()]);
        assert!(!dead.exists() && !deeper.exists() && live.exists() && record.exists());
    }

    #[test]
    fn an_old_temp_file_is_stale_whoever_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = dir
            .path()
            .join(format!(".tmp.a.md.{}", std::os::unix::process::parent_id()));
        fs::write(&old, b"x").expect("write");
        let file = File::options().write(true).open(&old).expect("open");
        file.set_modified(SystemTime::now() - TEMP_STALE_AFTER - Duration::from_secs(1))
            .expect("backdate");
        assert_eq!(sweep_stale_temps(dir.path()), vec![old]);
    }

    #[test]
    fn the_first_write_in_a_directory_removes_stale_temp_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dead = dir.path().join(format!(".tmp.x.md.{}", dead_pid()));
        fs::write(&dead, b"half").expect("write");
        write_atomic(&dir.path().join("y.md"), b"whole").expect("write");
        assert!(
            !dead.exists(),
            "the write swept the dead writer's temp file"
        );
    }
}
