//! The ledger (SPEC §3): `.ai/local/ledger.jsonl`, appended under an exclusive lock with
//! one write per line, read with torn or unreadable lines skipped and reported.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StoreError;
use super::fault::{self, Site, Step};
use crate::model::{LedgerLine, LineDraft};

/// The append-only ledger file.
#[derive(Debug, Clone)]
pub struct Ledger {
    path: PathBuf,
}

/// Where an append landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Appended {
    pub seq: u64,
    /// Byte offset of the new line's first byte.
    pub offset: u64,
    /// The file ended in a torn line, which this append ended with a newline.
    pub repaired_torn_tail: bool,
}

/// How far an append goes before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `fdatasync` before the lock is released: the line survives a power cut.
    Synced,
    /// Written (in the page cache, visible to every reader at once) but not synced: a
    /// power cut within the kernel's writeback interval may lose it. Only for a line as
    /// durable as what it records (the post-commit hook: git does not sync a new commit
    /// either, by default).
    Written,
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skipped {
    /// Byte offset of the line.
    pub offset: u64,
    /// 1-based line number, when the read started at the beginning of the file.
    pub line: Option<u64>,
    /// The last line had no newline: a crash mid-append.
    pub torn: bool,
    pub reason: String,
}

impl Skipped {
    /// The last line, without its newline: an append was interrupted (or is under way).
    pub fn torn(offset: u64, line: Option<u64>) -> Skipped {
        Skipped {
            offset,
            line,
            torn: true,
            reason: "torn last line (no newline: an append was interrupted)".into(),
        }
    }
}

/// What [`Ledger::rewrite`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rewritten {
    /// Lines dropped (0: the file was left as it was, and no trailer written).
    pub dropped: usize,
    /// Lines kept.
    pub kept: usize,
    /// The trailer's `seq`, when one was written.
    pub trailer: Option<u64>,
}

/// The lines of one read, and what was skipped.
#[derive(Debug, Clone, Default)]
pub struct ReadOutcome {
    pub lines: Vec<LedgerLine>,
    pub skipped: Vec<Skipped>,
}

#[derive(Deserialize)]
struct SeqOnly {
    seq: u64,
}

const TAIL_CHUNK: u64 = 16 * 1024;

impl Ledger {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Ledger { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line under the exclusive lock. The last `seq` comes from the file's
    /// tail, so an append never reads the whole ledger.
    pub fn append(&self, draft: LineDraft) -> Result<Appended, StoreError> {
        self.append_with(draft, Durability::Synced)
    }

    /// [`Ledger::append`], synced or not.
    pub fn append_with(
        &self,
        draft: LineDraft,
        durability: Durability,
    ) -> Result<Appended, StoreError> {
        let io = |e| StoreError::io(&self.path, e);
        let mut file = self.lock_current()?;
        let len = file.metadata().map_err(io)?.len();
        let (last_seq, torn) = tail_state(&mut file, len).map_err(io)?;
        let line = draft.with_seq(last_seq + 1);
        let mut buf = Vec::with_capacity(256);
        if torn {
            buf.push(b'\n');
        }
        serde_json::to_writer(&mut buf, &line).expect("ledger lines always serialise");
        buf.push(b'\n');
        fault::point(Site::Ledger, Step::BeforeLine);
        match fault::fires(Site::Ledger, Step::MidLine) {
            Some(fault::Action::Kill) => {
                // What a crash inside the write leaves: a torn last line.
                let _ = file.write_all(&buf[..buf.len() / 2]);
                fault::crash();
            }
            Some(fault::Action::Stop) => fault::stop(),
            None => {}
        }
        // One write for the whole line; O_APPEND puts it at the end even if another
        // process ignored the lock.
        file.write_all(&buf).map_err(io)?;
        if durability == Durability::Synced {
            file.sync_data().map_err(io)?;
        }
        file.unlock().map_err(io)?;
        fault::point(Site::Ledger, Step::AfterLine);
        Ok(Appended {
            seq: line.seq,
            offset: len + u64::from(torn),
            repaired_torn_tail: torn,
        })
    }

    /// Opens the ledger (created, with its directory, if missing) and takes its exclusive
    /// lock. A prune replaces the file while holding the lock on the old
    /// one, so after waiting for the lock this checks that the path still names the file
    /// it locked, and opens the new one if not: a line never lands in a replaced file.
    fn lock_current(&self) -> Result<File, StoreError> {
        let io = |e| StoreError::io(&self.path, e);
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        }
        loop {
            let file = OpenOptions::new()
                .create(true)
                .read(true)
                .append(true)
                .open(&self.path)
                .map_err(io)?;
            file.lock().map_err(io)?;
            if names_same_file(&file, &self.path).map_err(io)? {
                return Ok(file);
            }
            // Replaced while we waited: drop (and so unlock) the old file, open the new.
        }
    }

    /// Rewrites the ledger under its exclusive lock, through the atomic writer: `plan`
    /// sees every line (`None` for one that cannot be read) and says which to keep;
    /// when it drops any, `trailer(dropped)` is appended numbered after the last
    /// readable `seq`, so `seq` never goes back. Blank lines are dropped uncounted; a torn
    /// tail is kept and ended with a newline. Appenders that waited on the lock write
    /// into the new file (see `lock_current`).
    pub fn rewrite(
        &self,
        plan: impl FnOnce(&[Option<LedgerLine>]) -> Vec<bool>,
        trailer: impl FnOnce(usize) -> LineDraft,
    ) -> Result<Rewritten, StoreError> {
        let io = |e| StoreError::io(&self.path, e);
        let mut file = self.lock_current()?;
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.read_to_end(&mut bytes).map_err(io)?;
        let mut pieces: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        let torn = pieces.pop_if(|p| p.last() != Some(&b'\n'));
        pieces.retain(|p| !p.iter().all(u8::is_ascii_whitespace));
        let lines: Vec<Option<LedgerLine>> = pieces
            .iter()
            .map(|p| serde_json::from_slice(&p[..p.len() - 1]).ok())
            .collect();
        let keep = plan(&lines);
        let dropped = keep.iter().filter(|k| !**k).count();
        if dropped == 0 {
            file.unlock().map_err(io)?;
            return Ok(Rewritten {
                dropped: 0,
                kept: lines.len(),
                trailer: None,
            });
        }
        let last_seq = lines
            .iter()
            .rev()
            .flatten()
            .map(|l| l.seq)
            .next()
            .unwrap_or(0);
        let mut out = Vec::with_capacity(bytes.len());
        for (piece, keep) in pieces.iter().zip(&keep) {
            if *keep {
                out.extend_from_slice(piece);
            }
        }
        if let Some(torn) = torn {
            out.extend_from_slice(torn);
            out.push(b'\n');
        }
        let trailer = trailer(dropped).with_seq(last_seq + 1);
        serde_json::to_writer(&mut out, &trailer).expect("ledger lines always serialise");
        out.push(b'\n');
        super::write_atomic(&self.path, &out)?;
        // Unlocking the replaced file wakes the appenders waiting on it; they reopen.
        file.unlock().map_err(io)?;
        Ok(Rewritten {
            dropped,
            kept: keep.len() - dropped,
            trailer: Some(trailer.seq),
        })
    }

    /// Replaces the ledger's bytes under its exclusive lock, through the atomic writer:
    /// `plan` sees the current bytes and returns the new ones, or `Err` to leave the file
    /// as it is (`journal restore`). Appenders that waited on the lock write into the new
    /// file (see `lock_current`).
    pub fn replace<E>(
        &self,
        plan: impl FnOnce(&[u8]) -> Result<Vec<u8>, E>,
    ) -> Result<Result<super::WriteOutcome, E>, StoreError> {
        let io = |e| StoreError::io(&self.path, e);
        let mut file = self.lock_current()?;
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.read_to_end(&mut bytes).map_err(io)?;
        let outcome = match plan(&bytes) {
            Ok(new) => Ok(super::write_atomic(&self.path, &new)?),
            Err(e) => Err(e),
        };
        file.unlock().map_err(io)?;
        Ok(outcome)
    }

    /// The last readable `seq` (0 for an empty or missing ledger), read from the file's
    /// tail, and the file's length.
    pub fn last_seq(&self) -> Result<(u64, u64), StoreError> {
        let io = |e| StoreError::io(&self.path, e);
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
            Err(e) => return Err(io(e)),
        };
        let len = file.metadata().map_err(io)?.len();
        let (seq, torn) = tail_state(&mut file, len).map_err(io)?;
        // A torn tail is not a line: the length given is the end of the last complete one.
        let end = if torn {
            let mut bytes = Vec::new();
            file.seek(SeekFrom::Start(len.saturating_sub(TAIL_CHUNK)))
                .map_err(io)?;
            file.read_to_end(&mut bytes).map_err(io)?;
            match bytes.iter().rposition(|&b| b == b'\n') {
                Some(i) => len - (bytes.len() - i - 1) as u64,
                None => 0,
            }
        } else {
            len
        };
        Ok((seq, end))
    }

    /// Reads every line.
    pub fn read_all(&self) -> Result<ReadOutcome, StoreError> {
        let mut out = ReadOutcome::default();
        out.skipped = self.scan(0, |line| out.lines.push(line))?;
        Ok(out)
    }

    /// Calls `visit` for each readable line from byte `offset` (a line start) to the end,
    /// without parsing anything before it; returns what was skipped.
    pub fn scan(
        &self,
        offset: u64,
        visit: impl FnMut(LedgerLine),
    ) -> Result<Vec<Skipped>, StoreError> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(&self.path, e)),
        };
        scan_file(&file, &self.path, offset, visit)
    }

    /// True when `offset` is the start of a line in the current file.
    pub fn is_line_start(&self, offset: u64) -> Result<bool, StoreError> {
        if offset == 0 {
            return Ok(true);
        }
        let io = |e| StoreError::io(&self.path, e);
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(io(e)),
        };
        if file.metadata().map_err(io)?.len() < offset {
            return Ok(false);
        }
        file.seek(SeekFrom::Start(offset - 1)).map_err(io)?;
        let mut byte = [0u8; 1];
        file.read_exact(&mut byte).map_err(io)?;
        Ok(byte[0] == b'\n')
    }

    /// Size of the file in bytes (0 when absent).
    pub fn len(&self) -> Result<u64, StoreError> {
        match std::fs::metadata(&self.path) {
            Ok(m) => Ok(m.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(StoreError::io(&self.path, e)),
        }
    }

    pub fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }
}

/// [`Ledger::scan`] over a ledger file already open (the index reads the file it was
/// validated against): under a shared lock, from `offset` to the end.
pub(crate) fn scan_file(
    file: &File,
    path: &Path,
    offset: u64,
    mut visit: impl FnMut(LedgerLine),
) -> Result<Vec<Skipped>, StoreError> {
    let io = |e| StoreError::io(path, e);
    file.lock_shared().map_err(io)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    reader.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut skipped = Vec::new();
    let mut buf = Vec::with_capacity(512);
    let mut pos = offset;
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        number += 1;
        let line_no = (offset == 0).then_some(number);
        let torn = buf.last() != Some(&b'\n');
        let text = if torn { &buf[..] } else { &buf[..n - 1] };
        if torn {
            skipped.push(Skipped::torn(pos, line_no));
        } else if !text.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice::<LedgerLine>(text) {
                Ok(line) => visit(line),
                Err(e) => skipped.push(Skipped {
                    offset: pos,
                    line: line_no,
                    torn: false,
                    reason: unreadable_reason(&e),
                }),
            }
        }
        pos += n as u64;
    }
    file.unlock().map_err(io)?;
    Ok(skipped)
}

/// The reason recorded for a complete line that is not a ledger line.
pub(crate) fn unreadable_reason(error: &serde_json::Error) -> String {
    format!("unreadable line: {error}")
}

/// True when `path` names the very file `file` is (not a file that replaced it).
#[cfg(unix)]
fn names_same_file(file: &File, path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) => Ok(open.dev() == now.dev() && open.ino() == now.ino()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Elsewhere a file that is open cannot be replaced by a rename, so the path still names it.
#[cfg(not(unix))]
fn names_same_file(_file: &File, _path: &Path) -> std::io::Result<bool> {
    Ok(true)
}

/// The last readable `seq` and whether the file ends in a torn line, reading backwards
/// from the end in growing chunks until a complete readable line is found.
fn tail_state(file: &mut File, len: u64) -> std::io::Result<(u64, bool)> {
    if len == 0 {
        return Ok((0, false));
    }
    let mut chunk = TAIL_CHUNK.min(len);
    loop {
        let start = len - chunk;
        file.seek(SeekFrom::Start(start))?;
        let mut buf = vec![0u8; chunk as usize];
        file.read_exact(&mut buf)?;
        let torn = buf.last() != Some(&b'\n');
        // Only bytes up to the last newline are complete lines; when the chunk does not
        // start at a line start, its first piece is partial and not trusted.
        let complete = match buf.iter().rposition(|&b| b == b'\n') {
            Some(i) => &buf[..i],
            None => &buf[..0],
        };
        let trusted = if start == 0 {
            complete
        } else {
            match complete.iter().position(|&b| b == b'\n') {
                Some(i) => &complete[i + 1..],
                None => &complete[..0],
            }
        };
        // Newest first, stopping at the first line that reads: the append path parses one
        // line, not the whole chunk.
        for piece in trusted.rsplit(|&b| b == b'\n') {
            if let Ok(s) = serde_json::from_slice::<SeqOnly>(piece) {
                return Ok((s.seq, torn));
            }
        }
        if start == 0 {
            return Ok((0, torn));
        }
        chunk = (chunk * 4).min(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Event;

    fn draft(text: &str) -> LineDraft {
        LineDraft {
            ts: "2026-11-30T10:00:00Z".into(),
            event: Event::CheckpointRecorded,
            session: Some("ep".into()),
            task: None,
            data: serde_json::json!({ "text": text }),
        }
    }

    #[test]
    fn appends_number_lines_and_offsets_seek_to_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path().join("local/ledger.jsonl"));
        let a = ledger.append(draft("one")).expect("append");
        let b = ledger.append(draft("two")).expect("append");
        assert_eq!((a.seq, a.offset), (1, 0));
        assert_eq!(b.seq, 2);
        assert!(ledger.is_line_start(b.offset).expect("check"));
        let mut seen = Vec::new();
        let skipped = ledger.scan(b.offset, |l| seen.push(l.seq)).expect("scan");
        assert_eq!(seen, vec![2]);
        assert!(skipped.is_empty());
    }

    #[test]
    fn torn_tail_is_skipped_then_repaired() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ledger.jsonl");
        let ledger = Ledger::new(&path);
        ledger.append(draft("one")).expect("append");
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(br#"{"seq":2,"ts":"2026-11-30T10:0"#)
            .expect("tear");
        drop(f);

        let read = ledger.read_all().expect("read");
        assert_eq!(read.lines.len(), 1);
        assert_eq!(read.skipped.len(), 1);
        assert!(read.skipped[0].torn);
        assert_eq!(read.skipped[0].line, Some(2));

        let c = ledger.append(draft("three")).expect("append");
        assert!(c.repaired_torn_tail);
        assert_eq!(c.seq, 2, "the torn line never got its seq");
        let read = ledger.read_all().expect("read");
        assert_eq!(
            read.lines.iter().map(|l| l.seq).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(read.skipped.len(), 1);
        assert!(!read.skipped[0].torn, "now a complete but unreadable line");
    }

    #[test]
    fn tail_search_crosses_chunks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ledger.jsonl");
        let ledger = Ledger::new(&path);
        ledger.append(draft("one")).expect("append");
        // A run of garbage longer than one tail chunk after the last good line.
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        for _ in 0..2000 {
            f.write_all(b"not json at all, not json at all\n")
                .expect("write");
        }
        drop(f);
        assert_eq!(ledger.append(draft("two")).expect("append").seq, 2);
    }

    /// Property tests: a ledger file of arbitrary content (readable lines, garbage, blank
    /// lines, a torn tail) is read without a panic, every readable line comes back and the
    /// next append continues the numbering. Each case writes a file, so a quarter of
    /// `PROPTEST_CASES` (default 256) run; `PROPTEST_CASES=100000` runs longer.
    mod props {
        use super::*;
        use crate::model::LedgerLine;
        use crate::model::event::{DecisionRecorded, LineDraft};
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Piece {
            Line(LedgerLine),
            /// Not JSON at all: never starts with `{` or whitespace.
            Garbage(Vec<u8>),
            Blank(String),
        }

        fn piece() -> impl Strategy<Value = Piece> {
            let line = (
                0u64..1_000_000,
                any::<String>(),
                any::<Option<String>>(),
                any::<String>(),
            )
                .prop_map(|(seq, ts, session, text)| {
                    Piece::Line(
                        LineDraft::new(
                            ts,
                            session,
                            None,
                            &DecisionRecorded {
                                text,
                                files: Vec::new(),
                            },
                        )
                        .with_seq(seq),
                    )
                });
            let garbage = (
                any::<u8>().prop_filter("not `{`, whitespace or a newline", |b| {
                    *b != b'{' && !b.is_ascii_whitespace()
                }),
                prop::collection::vec(
                    any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
                    0..200,
                ),
            )
                .prop_map(|(first, mut rest)| {
                    rest.insert(0, first);
                    Piece::Garbage(rest)
                });
            prop_oneof![
                4 => line,
                2 => garbage,
                1 => "[ \t\r]{0,3}".prop_map(Piece::Blank),
            ]
        }

        fn config() -> ProptestConfig {
            let base = ProptestConfig::default();
            ProptestConfig {
                cases: (base.cases / 4).max(1),
                ..base
            }
        }

        proptest! {
            #![proptest_config(config())]

            #[test]
            fn any_file_reads_without_panic_and_appends_continue_it(
                pieces in prop::collection::vec(piece(), 0..24),
                torn in prop::option::of(prop::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 1..64)),
            ) {
                let dir = tempfile::tempdir().expect("tempdir");
                let path = dir.path().join("ledger.jsonl");
                let mut bytes = Vec::new();
                for p in &pieces {
                    match p {
                        Piece::Line(l) => serde_json::to_writer(&mut bytes, l).expect("serialises"),
                        Piece::Garbage(g) => bytes.extend_from_slice(g),
                        Piece::Blank(b) => bytes.extend_from_slice(b.as_bytes()),
                    }
                    bytes.push(b'\n');
                }
                if let Some(t) = &torn {
                    bytes.extend_from_slice(t);
                }
                std::fs::write(&path, &bytes).expect("write the ledger");
                let ledger = Ledger::new(&path);

                let read = ledger.read_all().expect("reads");
                let written: Vec<&LedgerLine> = pieces
                    .iter()
                    .filter_map(|p| match p { Piece::Line(l) => Some(l), _ => None })
                    .collect();
                prop_assert_eq!(read.lines.iter().collect::<Vec<_>>(), written.clone());
                let garbage = pieces.iter().filter(|p| matches!(p, Piece::Garbage(_))).count();
                prop_assert_eq!(read.skipped.iter().filter(|s| !s.torn).count(), garbage);
                prop_assert_eq!(read.skipped.iter().filter(|s| s.torn).count(), usize::from(torn.is_some()));

                // Reading from any line start sees the same lines as reading it all.
                let mut offset = 0u64;
                let mut starts = vec![0u64];
                for p in &pieces {
                    offset += match p {
                        Piece::Line(l) => serde_json::to_vec(l).expect("serialises").len() as u64,
                        Piece::Garbage(g) => g.len() as u64,
                        Piece::Blank(b) => b.len() as u64,
                    } + 1;
                    starts.push(offset);
                }
                let from = starts[starts.len() / 2];
                prop_assert!(ledger.is_line_start(from).expect("checks"));
                let mut tail = Vec::new();
                ledger.scan(from, |l| tail.push(l)).expect("scans");
                let before = pieces[..starts.len() / 2]
                    .iter()
                    .filter(|p| matches!(p, Piece::Line(_)))
                    .count();
                prop_assert_eq!(tail.iter().collect::<Vec<_>>(), written[before..].to_vec());

                let appended = ledger
                    .append(LineDraft::new("t".into(), None, None, &DecisionRecorded { text: "next".into(), files: Vec::new() }))
                    .expect("appends");
                prop_assert_eq!(appended.seq, written.last().map_or(0, |l| l.seq) + 1);
                prop_assert_eq!(appended.repaired_torn_tail, torn.is_some());
                let again = ledger.read_all().expect("reads");
                prop_assert_eq!(again.lines.last().map(|l| l.seq), Some(appended.seq));
                prop_assert_eq!(again.lines.len(), written.len() + 1);
            }
        }
    }
}
