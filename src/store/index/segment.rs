//! One immutable segment of the ledger index: the postings and the time blocks of one byte
//! range of the ledger, in a small binary file read by seeking, never parsed whole.
//!
//! Layout (little-endian): a 64-byte header (`MJDXSEG1`, start, end, lines, postings,
//! blocks, max_ts, stride), the postings (`key u64, value u64`, sorted), the time blocks
//! (`offset u64, prefix max ts i64`, in ledger order) and the fences (the key of every
//! `stride`-th posting), so a lookup reads the fences and one or two pages of postings.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const MAGIC: &[u8; 8] = b"MJDXSEG1";
const HEADER: u64 = 64;
/// Postings per page: a lookup reads the pages its key spans, 4 KiB each.
const STRIDE: u64 = 256;
/// Lines per time block.
pub(super) const BLOCK_LINES: u64 = 64;

/// A segment held in memory: built from new ledger lines, or loaded to be merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Segment {
    /// The ledger byte range it covers: `start..end`, both line starts.
    pub start: u64,
    pub end: u64,
    /// Newline-terminated lines in the range (blank and unreadable ones included).
    pub lines: u64,
    /// `(key, value)` sorted; a value is `offset << 8 | event code`.
    pub postings: Vec<(u64, u64)>,
    /// One per [`BLOCK_LINES`] lines: the block's first byte and the largest `ts` (Unix
    /// seconds, rounded up) of the segment up to the block's end.
    pub blocks: Vec<(u64, i64)>,
    /// The largest `ts` of the segment (`i64::MIN` when no line has one).
    pub max_ts: i64,
}

impl Segment {
    /// An empty segment starting at ledger byte `start`.
    pub fn starting_at(start: u64) -> Segment {
        Segment {
            start,
            end: start,
            max_ts: i64::MIN,
            ..Segment::default()
        }
    }

    /// Records one line of the range: its first byte and its time, if it has one.
    pub fn push_line(&mut self, offset: u64, next: u64, ts: Option<i64>) {
        if self.lines.is_multiple_of(BLOCK_LINES) {
            self.blocks.push((offset, self.max_ts));
        }
        if let Some(ts) = ts {
            self.max_ts = self.max_ts.max(ts);
        }
        if let Some(block) = self.blocks.last_mut() {
            block.1 = self.max_ts;
        }
        self.lines += 1;
        self.end = next;
    }

    /// How much work merging this segment costs: its postings and lines.
    pub fn weight(&self) -> u64 {
        self.postings.len() as u64 + self.lines
    }

    /// `self` followed by `later` (which starts where `self` ends), as one segment.
    pub fn merge(self, later: Segment) -> Segment {
        debug_assert_eq!(self.end, later.start, "segments merge in ledger order");
        let mut postings = Vec::with_capacity(self.postings.len() + later.postings.len());
        let (mut a, mut b) = (
            self.postings.into_iter().peekable(),
            later.postings.into_iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            postings.extend(next);
        }
        let before = self.max_ts;
        let mut blocks = self.blocks;
        blocks.extend(later.blocks.into_iter().map(|(o, m)| (o, m.max(before))));
        Segment {
            start: self.start,
            end: later.end,
            lines: self.lines + later.lines,
            postings,
            blocks,
            max_ts: before.max(later.max_ts),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let fences: Vec<u64> = self
            .postings
            .iter()
            .step_by(STRIDE as usize)
            .map(|(k, _)| *k)
            .collect();
        let mut out = Vec::with_capacity(
            (HEADER as usize)
                + self.postings.len() * 16
                + self.blocks.len() * 16
                + fences.len() * 8,
        );
        out.extend_from_slice(MAGIC);
        for n in [
            self.start,
            self.end,
            self.lines,
            self.postings.len() as u64,
            self.blocks.len() as u64,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.max_ts.to_le_bytes());
        out.extend_from_slice(&STRIDE.to_le_bytes());
        for (k, v) in &self.postings {
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
        for (o, m) in &self.blocks {
            out.extend_from_slice(&o.to_le_bytes());
            out.extend_from_slice(&m.to_le_bytes());
        }
        for f in fences {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out
    }

    /// Reads a whole segment file (to merge it).
    pub fn load(path: &Path) -> Result<Segment, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let header = Header::parse(&bytes).ok_or("not a segment (bad header)")?;
        if header.file_len() != bytes.len() as u64 {
            return Err(format!(
                "truncated: {} bytes, the header says {}",
                bytes.len(),
                header.file_len()
            ));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let mut at = HEADER as usize;
        let mut postings = Vec::with_capacity(header.postings as usize);
        for _ in 0..header.postings {
            postings.push((word(at), word(at + 8)));
            at += 16;
        }
        let mut blocks = Vec::with_capacity(header.blocks as usize);
        for _ in 0..header.blocks {
            blocks.push((word(at), word(at + 8) as i64));
            at += 16;
        }
        Ok(Segment {
            start: header.start,
            end: header.end,
            lines: header.lines,
            postings,
            blocks,
            max_ts: header.max_ts,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Header {
    start: u64,
    end: u64,
    lines: u64,
    postings: u64,
    blocks: u64,
    max_ts: i64,
    stride: u64,
}

impl Header {
    fn parse(bytes: &[u8]) -> Option<Header> {
        if bytes.len() < HEADER as usize || &bytes[..8] != MAGIC {
            return None;
        }
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        let header = Header {
            start: word(1),
            end: word(2),
            lines: word(3),
            postings: word(4),
            blocks: word(5),
            max_ts: word(6) as i64,
            stride: word(7),
        };
        (header.stride > 0 && header.start <= header.end).then_some(header)
    }

    fn fences(&self) -> u64 {
        self.postings.div_ceil(self.stride)
    }

    fn postings_at(&self) -> u64 {
        HEADER
    }

    fn blocks_at(&self) -> u64 {
        HEADER + self.postings * 16
    }

    fn fences_at(&self) -> u64 {
        self.blocks_at() + self.blocks * 16
    }

    fn file_len(&self) -> u64 {
        self.fences_at() + self.fences() * 8
    }
}

/// A segment file opened for lookups: its header and fences in memory, the rest read on
/// demand.
#[derive(Debug)]
pub(super) struct SegmentFile {
    file: File,
    header: Header,
    fences: Vec<u64>,
}

impl SegmentFile {
    pub fn open(path: &Path) -> Result<SegmentFile, String> {
        let mut file = File::open(path).map_err(|e| e.to_string())?;
        let mut head = [0u8; HEADER as usize];
        file.read_exact(&mut head).map_err(|e| e.to_string())?;
        let header = Header::parse(&head).ok_or("not a segment (bad header)")?;
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        if len != header.file_len() {
            return Err(format!(
                "truncated: {len} bytes, the header says {}",
                header.file_len()
            ));
        }
        let mut raw = vec![0u8; (header.fences() * 8) as usize];
        file.seek(SeekFrom::Start(header.fences_at()))
            .and_then(|_| file.read_exact(&mut raw))
            .map_err(|e| e.to_string())?;
        let fences = raw
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        Ok(SegmentFile {
            file,
            header,
            fences,
        })
    }

    /// Appends the values posted under `key` to `out`, in ledger order.
    pub fn postings(&self, key: u64, out: &mut Vec<u64>) -> std::io::Result<()> {
        if self.header.postings == 0 {
            return Ok(());
        }
        // The first page whose fence is >= key; a run of `key` may begin one page earlier.
        let page = self.fences.partition_point(|&f| f < key).saturating_sub(1) as u64;
        let mut at = page * self.header.stride;
        let mut buf = vec![0u8; (self.header.stride * 16) as usize];
        while at < self.header.postings {
            let n = (self.header.postings - at).min(self.header.stride);
            let bytes = &mut buf[..(n * 16) as usize];
            let mut file = &self.file;
            file.seek(SeekFrom::Start(self.header.postings_at() + at * 16))?;
            file.read_exact(bytes)?;
            for pair in bytes.chunks_exact(16) {
                let k = u64::from_le_bytes(pair[..8].try_into().expect("8 bytes"));
                if k > key {
                    return Ok(());
                }
                if k == key {
                    out.push(u64::from_le_bytes(pair[8..].try_into().expect("8 bytes")));
                }
            }
            at += n;
        }
        Ok(())
    }

    /// The first byte of the first block whose running largest `ts` (with `before`, the
    /// largest of the segments ahead of this one) reaches `ts`; `None` when no line of
    /// this segment is that late.
    pub fn first_block_reaching(&self, ts: i64, before: i64) -> std::io::Result<Option<u64>> {
        if before.max(self.header.max_ts) < ts {
            return Ok(None);
        }
        // The running maximum never decreases: binary search over the blocks.
        let (mut lo, mut hi) = (0u64, self.header.blocks);
        let mut entry = [0u8; 16];
        let mut found = None;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let mut file = &self.file;
            file.seek(SeekFrom::Start(self.header.blocks_at() + mid * 16))?;
            file.read_exact(&mut entry)?;
            let offset = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
            let max = i64::from_le_bytes(entry[8..].try_into().expect("8 bytes"));
            if before.max(max) >= ts {
                found = Some(offset);
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(start: u64, keys: &[(u64, u64)], ts: &[i64]) -> Segment {
        let mut s = Segment::starting_at(start);
        for (i, t) in ts.iter().enumerate() {
            s.push_line(start + i as u64 * 10, start + i as u64 * 10 + 10, Some(*t));
        }
        s.postings = keys.to_vec();
        s.postings.sort_unstable();
        s
    }

    #[test]
    fn bytes_round_trip_and_lookups_cross_pages() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut keys = Vec::new();
        for i in 0..2000u64 {
            keys.push((i % 7, i << 8));
        }
        let ts: Vec<i64> = (0..300).map(|i| 1000 + i).collect();
        let s = segment(0, &keys, &ts);
        let path = dir.path().join("s.seg");
        std::fs::write(&path, s.to_bytes()).expect("write");
        assert_eq!(Segment::load(&path).expect("load"), s);
        let f = SegmentFile::open(&path).expect("open");
        for k in 0..8u64 {
            let mut out = Vec::new();
            f.postings(k, &mut out).expect("lookup");
            let expected: Vec<u64> = keys
                .iter()
                .filter(|(kk, _)| *kk == k)
                .map(|(_, v)| *v)
                .collect();
            let mut expected = expected;
            expected.sort_unstable();
            assert_eq!(out, expected, "key {k}");
        }
        // Blocks of 64 lines: line 100 (ts 1100) is in the second block, at byte 640.
        assert_eq!(
            f.first_block_reaching(1100, i64::MIN).expect("blocks"),
            Some(640)
        );
        assert_eq!(
            f.first_block_reaching(1000, i64::MIN).expect("blocks"),
            Some(0)
        );
        assert_eq!(
            f.first_block_reaching(5000, i64::MIN).expect("blocks"),
            None
        );
        assert_eq!(f.first_block_reaching(5000, 6000).expect("blocks"), Some(0));
    }

    #[test]
    fn a_truncated_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = segment(0, &[(1, 256), (2, 512)], &[1, 2]);
        let mut bytes = s.to_bytes();
        bytes.pop();
        let path = dir.path().join("s.seg");
        std::fs::write(&path, &bytes).expect("write");
        assert!(SegmentFile::open(&path).is_err());
        assert!(Segment::load(&path).is_err());
    }

    #[test]
    fn merge_keeps_order_and_running_maximum() {
        let a = segment(0, &[(5, 0 << 8), (9, 10 << 8)], &[50, 40]);
        let b = segment(20, &[(5, 20 << 8), (1, 30 << 8)], &[10, 60]);
        let m = a.merge(b);
        assert_eq!(m.start, 0);
        assert_eq!(m.end, 40);
        assert_eq!(m.lines, 4);
        assert_eq!(
            m.postings,
            vec![(1, 30 << 8), (5, 0), (5, 20 << 8), (9, 10 << 8)]
        );
        assert_eq!(m.blocks, vec![(0, 50), (20, 60)]);
        assert_eq!(m.max_ts, 60);
    }
}
