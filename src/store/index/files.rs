//! The index on disk: the manifest, its check against the ledger, the writer lock, and
//! writing segments and the manifest through the atomic writer.

use super::*;

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A fresh name for a rebuild's segments.
pub(super) fn generation() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{}:{nanos}", std::process::id());
    sha256_hex(seed.as_bytes())[..12].to_owned()
}

/// The exclusive lock index writers take (`ledger-index/lock`), so one extends while the
/// others wait and then find it extended. Released when dropped.
pub(super) struct WriterLock {
    pub(super) _file: File,
}

impl WriterLock {
    pub(super) fn acquire(paths: &Paths) -> Result<WriterLock, StoreError> {
        std::fs::create_dir_all(&paths.dir).map_err(|e| StoreError::io(&paths.dir, e))?;
        let path = paths.dir.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        file.lock().map_err(|e| StoreError::io(&path, e))?;
        Ok(WriterLock { _file: file })
    }
}

/// How a manifest stands against the ledger.
pub(super) enum Check {
    Fresh(Vec<SegmentFile>),
    /// Whole new lines follow what it covers.
    Grew,
    Rebuild(RebuildReason, String),
}

pub(super) fn open_ledger(path: &Path) -> Result<Option<File>, StoreError> {
    match File::open(path) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

pub(super) fn read_exact_at(file: &File, at: u64, buf: &mut [u8]) -> std::io::Result<()> {
    let mut f = file;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

/// True when `from..end` holds a newline: a whole line follows what the index covers.
pub(super) fn has_newline(file: &File, from: u64, end: u64) -> std::io::Result<bool> {
    let mut f = file;
    f.seek(SeekFrom::Start(from))?;
    let mut reader = BufReader::new(f.take(end - from));
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        if buf.contains(&b'\n') {
            return Ok(true);
        }
        let n = buf.len();
        reader.consume(n);
    }
}

pub(super) fn read_manifest(paths: &Paths) -> Result<Manifest, (RebuildReason, String)> {
    let text = match std::fs::read(&paths.manifest) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err((RebuildReason::Missing, "no index yet".into()));
        }
        Err(e) => return Err((RebuildReason::Unreadable, format!("manifest: {e}"))),
    };
    let manifest: Manifest = serde_json::from_slice(&text)
        .map_err(|e| (RebuildReason::Unreadable, format!("manifest: {e}")))?;
    if manifest.format != FORMAT || manifest.events != event_table() {
        return Err((
            RebuildReason::Unreadable,
            "manifest of another format or event table".into(),
        ));
    }
    Ok(manifest)
}

/// Checks `manifest` against the ledger `file` of `len` bytes.
pub(super) fn check(
    paths: &Paths,
    manifest: &Manifest,
    file: &File,
    len: u64,
) -> Result<Check, StoreError> {
    let io = |e| StoreError::io(&paths.ledger, e);
    if len < manifest.covered {
        return Ok(Check::Rebuild(
            RebuildReason::Stale,
            format!(
                "the ledger has {len} bytes, fewer than the {} the index covers",
                manifest.covered
            ),
        ));
    }
    if let Some(tail) = &manifest.tail {
        if tail.start >= manifest.covered {
            return Ok(Check::Rebuild(
                RebuildReason::Unreadable,
                "manifest: its last line ends before it starts".into(),
            ));
        }
        let mut bytes = vec![0u8; (manifest.covered - tail.start) as usize];
        read_exact_at(file, tail.start, &mut bytes).map_err(io)?;
        let mut before = [b'\n'];
        if tail.start > 0 {
            read_exact_at(file, tail.start - 1, &mut before).map_err(io)?;
        }
        let whole = before[0] == b'\n' && bytes.last() == Some(&b'\n');
        if !whole || sha256_hex(&bytes[..bytes.len() - 1]) != tail.sha256 {
            return Ok(Check::Rebuild(
                RebuildReason::Stale,
                format!(
                    "the ledger's line at byte {} is not the one the index ends with",
                    tail.start
                ),
            ));
        }
    }
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for s in &manifest.segments {
        match SegmentFile::open(&paths.dir.join(&s.file)) {
            Ok(f) => segments.push(f),
            Err(e) => {
                return Ok(Check::Rebuild(
                    RebuildReason::Unreadable,
                    format!("segment {}: {e}", s.file),
                ));
            }
        }
    }
    if len > manifest.covered && has_newline(file, manifest.covered, len).map_err(io)? {
        return Ok(Check::Grew);
    }
    Ok(Check::Fresh(segments))
}

/// The ledger's length once every append under way has finished: appends hold the
/// exclusive lock for their one write, so under the shared lock every byte up to this
/// length is a finished append, and later appends only add bytes after it.
pub(super) fn settled_len(file: &File, path: &Path) -> Result<u64, StoreError> {
    let io = |e| StoreError::io(path, e);
    file.lock_shared().map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    file.unlock().map_err(io)?;
    Ok(len)
}

pub(super) fn write_segment(
    paths: &Paths,
    generation: &str,
    segment: &Segment,
) -> Result<SegmentRef, StoreError> {
    let file = format!("{generation}-{:x}-{:x}.seg", segment.start, segment.end);
    write_atomic_derived(&paths.dir.join(&file), &segment.to_bytes())?;
    Ok(SegmentRef {
        file,
        start: segment.start,
        end: segment.end,
        weight: segment.weight(),
        max_ts: segment.max_ts,
    })
}

pub(super) fn write_manifest(paths: &Paths, manifest: &Manifest) -> Result<(), StoreError> {
    let bytes = serde_json::to_vec(manifest).expect("the manifest serialises");
    write_atomic_derived(&paths.manifest, &bytes)?;
    Ok(())
}

/// Writes the manifest, opens the segments it names, and deletes the segments it no longer
/// names. A reader that opened them keeps reading its open files; one that read the old
/// manifest but finds a segment gone takes the writer lock and reads the manifest again.
pub(super) fn commit(paths: &Paths, manifest: &Manifest) -> Result<Vec<SegmentFile>, StoreError> {
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for s in &manifest.segments {
        let path = paths.dir.join(&s.file);
        segments.push(
            SegmentFile::open(&path).map_err(|message| StoreError::Malformed {
                path: path.clone(),
                message,
            })?,
        );
    }
    write_manifest(paths, manifest)?;
    let named: HashSet<&str> = manifest.segments.iter().map(|s| s.file.as_str()).collect();
    if let Ok(entries) = std::fs::read_dir(&paths.dir) {
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".seg") && !named.contains(name.as_str()) {
                // Best effort: where an open file cannot be deleted, the next commit tries again.
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(segments)
}
