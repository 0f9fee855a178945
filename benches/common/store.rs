//! The synthetic store the recall and hooks benches measure against: a repository of
//! verified knowledge records citing source files and a hub file, their session records,
//! and a ledger of N lines (docs/PERFORMANCE.md). Included by those two benches alone
//! (`#[path = "common/store.rs"] mod store;`): `common/mod.rs` is compiled into every bench.
//!
//! The store: records in `curated/` (verified), each citing one of 400 source files, the
//! one file of a hub directory of 500 files that every record cites (`src/hub/file007.rs`:
//! a path every record reaches, SPEC §11's bound) and its episode; a session record per 10
//! records listing the files its episode changed; titles and bodies drawn from a
//! 4,000-word vocabulary with a Zipf distribution, so a query of two mid-frequency words
//! matches about a percent of the records and one common word about 70 %. The ledger:
//! episodes of 24 lines (opened, 10 commits, 4 decisions, a question and its answer, 3
//! checkpoints, derived, closed, and a task), about a third of them searchable records.
//! The repository is on a branch `feature` whose one commit changes the hub file (the
//! briefing's work at hand).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

pub const VOCABULARY: usize = 4_000;
pub const SOURCE_FILES: usize = 400;
/// The files of the hub directory; every record cites [`HUB_FILE`].
pub const HUB_FILES: usize = 500;
pub const HUB_FILE: &str = "src/hub/file007.rs";
pub const RECORDS_PER_EPISODE: usize = 10;
pub const LINES_PER_EPISODE: u64 = 24;

/// A deterministic generator (SplitMix64): the same store every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A pronounceable word for rank `i`.
pub fn word(i: usize) -> String {
    const C: &[u8] = b"bdfgklmnprstvz";
    const V: &[u8] = b"aeiou";
    let mut n = i;
    let mut out = String::new();
    for _ in 0..3 {
        out.push(C[n % C.len()] as char);
        n /= C.len();
        out.push(V[n % V.len()] as char);
        n /= V.len();
    }
    out
}

/// Zipf(1) over the vocabulary, by inverse transform on the harmonic numbers.
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize) -> Zipf {
        let mut cumulative = Vec::with_capacity(n);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += 1.0 / k as f64;
            cumulative.push(sum);
        }
        Zipf { cumulative }
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let x = (rng.next() as f64 / u64::MAX as f64) * total;
        self.cumulative
            .partition_point(|c| *c < x)
            .min(self.cumulative.len() - 1)
    }
}

pub fn sentence(rng: &mut Rng, zipf: &Zipf, words: usize) -> String {
    (0..words)
        .map(|_| word(zipf.sample(rng)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn episode_id(n: usize) -> String {
    let s = n % 86_400;
    format!(
        "2026{:02}{:02}T{:02}{:02}{:02}Z-{:06x}",
        1 + (n / 86_400) % 11,
        1 + (n / 86_400) % 28,
        s / 3600,
        (s / 60) % 60,
        s % 60,
        n & 0xff_ffff
    )
}

pub fn source(i: usize) -> String {
    format!("src/area{:02}/file{:03}.rs", i % 20, i)
}

pub fn run(program: &Path, args: &[&str], dir: &Path) -> BenchResult<Duration> {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env_remove("MAJORDOMUS_NOW")
        .status()?;
    let took = start.elapsed();
    if !status.success() {
        return Err(format!(
            "{} {args:?} in {}: {status}",
            program.display(),
            dir.display()
        )
        .into());
    }
    Ok(took)
}

pub fn output(program: &str, args: &[&str], dir: &Path) -> BenchResult<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A repository holding `records` verified knowledge records, their session records, and
/// a ledger of `lines` lines, all committed but the ledger; the index not built.
pub struct Store {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub records: usize,
    pub lines: u64,
}

pub fn store(bin: &Path, records: usize, lines: u64) -> BenchResult<Store> {
    let started = Instant::now();
    let mut builder = tempfile::Builder::new();
    builder.prefix("majordomus-recall-bench-");
    let dir = match std::env::var_os("MAJORDOMUS_BENCH_DIR") {
        Some(base) => builder.tempdir_in(base)?,
        None => builder.tempdir()?,
    };
    let root = dir.path().canonicalize()?;
    output("git", &["init", "-q", "-b", "main"], &root)?;
    for i in 0..SOURCE_FILES {
        let path = root.join(source(i));
        std::fs::create_dir_all(path.parent().ok_or("a parent")?)?;
        std::fs::write(&path, format!("pub fn f{i}() {{}}\n"))?;
    }
    std::fs::create_dir_all(root.join("src/hub"))?;
    for i in 0..HUB_FILES {
        std::fs::write(
            root.join(format!("src/hub/file{i:03}.rs")),
            format!("pub fn h{i}() {{}}\n"),
        )?;
    }
    run(bin, &["init"], &root)?;
    let mut rng = Rng(0x5eed);
    let zipf = Zipf::new(VOCABULARY);
    let curated = root.join(".ai/repo/knowledge/curated");
    let sessions = root.join(".ai/repo/sessions");
    std::fs::create_dir_all(&curated)?;
    std::fs::create_dir_all(&sessions)?;
    let episodes = records.div_ceil(RECORDS_PER_EPISODE);
    for e in 0..episodes {
        let ep = episode_id(e);
        let files: Vec<String> = (0..3).map(|_| source(rng.below(SOURCE_FILES))).collect();
        let mut changed = files.clone();
        changed.sort();
        changed.dedup();
        let record = format!(
            "---\nid: {ep}\nschema: session/v1\nprovider: bench\nbranch: main\nhead_at_open: null\nhead: null\nopened: 2026-11-20T10:00:00Z\nclosed: 2026-11-20T11:00:00Z\ncommits: []\nchanged_files:\n{}tasks: []\noutcome: no-commits\n---\n# Session {ep}\n\n## Summary\n{}\n\n## Commits\n- 0123456789ab {} (2026-11-20T10:30:00Z)\n",
            changed
                .iter()
                .map(|f| format!("- {f}\n"))
                .collect::<String>(),
            sentence(&mut rng, &zipf, 12),
            sentence(&mut rng, &zipf, 6),
        );
        std::fs::write(sessions.join(format!("{ep}.md")), record)?;
        for r in 0..RECORDS_PER_EPISODE {
            let n = e * RECORDS_PER_EPISODE + r;
            if n >= records {
                break;
            }
            let id = format!("{ep}-{:012x}", n);
            let title = sentence(&mut rng, &zipf, 8);
            let body = sentence(&mut rng, &zipf, 50);
            let cited = &files[r % files.len()];
            let day = 1 + n % 28;
            std::fs::write(
                curated.join(format!("{id}.md")),
                format!(
                    "---\nid: {id}\nschema: knowledge/v1\nclass: convention\nstatus: verified\nstance: decided\ntitle: {title}\ndate: 2026-11-{day:02}\nprovenance:\n  origin: extracted\n  derived_from:\n  - session:{ep}\n  - file:{cited}\n  - file:{HUB_FILE}\n---\n{body}\n\n# Evidence\n{}\n",
                    sentence(&mut rng, &zipf, 10)
                ),
            )?;
        }
    }
    output("git", &["add", "-A"], &root)?;
    commit(&root, &["-m", "store"])?;
    // The work at hand: a branch whose own commit changes the hub file.
    output("git", &["checkout", "-q", "-b", "feature"], &root)?;
    std::fs::write(root.join(HUB_FILE), "pub fn h7() { /* faster */ }\n")?;
    commit(&root, &["-a", "-m", "Faster h7"])?;
    write_ledger(&root.join(".ai/local/ledger.jsonl"), lines, &mut rng, &zipf)?;
    eprintln!(
        "  store of {records} records, {lines} ledger lines: built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(Store {
        dir,
        root,
        records,
        lines,
    })
}

/// `git commit -q` with `args`, as the bench's author.
fn commit(root: &Path, args: &[&str]) -> BenchResult<String> {
    let mut all = vec![
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@invalid",
        "commit",
        "-q",
    ];
    all.extend_from_slice(args);
    output("git", &all, root)
}

pub fn write_ledger(path: &Path, lines: u64, rng: &mut Rng, zipf: &Zipf) -> BenchResult<()> {
    std::fs::create_dir_all(path.parent().ok_or("a parent")?)?;
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut seq = 0u64;
    let mut e = 0usize;
    while seq < lines {
        let ep = episode_id(100_000 + e);
        let task = format!("t-20261120-{:04x}", e & 0xffff);
        for k in 0..LINES_PER_EPISODE {
            if seq >= lines {
                break;
            }
            seq += 1;
            let ts = format!(
                "2026-11-{:02}T{:02}:{:02}:{:02}Z",
                1 + e % 28,
                (e / 60) % 24,
                e % 60,
                k
            );
            let (event, task_of, data) = match k {
                0 => (
                    "session.opened",
                    None,
                    serde_json::json!({"provider": "bench", "branch": "main", "head": null}),
                ),
                1 => (
                    "task.started",
                    Some(&task),
                    serde_json::json!({"description": sentence(rng, zipf, 5), "scope": [source(rng.below(SOURCE_FILES))]}),
                ),
                2..=11 => (
                    "commit.recorded",
                    None,
                    serde_json::json!({"sha": format!("{:040x}", seq), "subject": sentence(rng, zipf, 6)}),
                ),
                12..=15 => (
                    "decision.recorded",
                    Some(&task),
                    serde_json::json!({"text": sentence(rng, zipf, 10)}),
                ),
                16 => (
                    "question.asked",
                    None,
                    serde_json::json!({"id": format!("q-{:010x}", seq), "text": sentence(rng, zipf, 8)}),
                ),
                17 => (
                    "question.resolved",
                    None,
                    serde_json::json!({"id": format!("q-{:010x}", seq - 1), "question": "q", "answer": sentence(rng, zipf, 8)}),
                ),
                18..=20 => (
                    "checkpoint.recorded",
                    None,
                    serde_json::json!({"text": sentence(rng, zipf, 8)}),
                ),
                21 => (
                    "task.finished",
                    Some(&task),
                    serde_json::json!({"status": "completed", "reason": null}),
                ),
                22 => (
                    "knowledge.derived",
                    None,
                    serde_json::json!({"episode": ep, "target": "candidates", "written": 0, "unchanged": 0, "skipped": 0, "reviewed": 0, "paths": [], "note": "nothing to write"}),
                ),
                _ => (
                    "session.closed",
                    None,
                    serde_json::json!({"record": format!(".ai/repo/sessions/{ep}.md"), "commits": 0, "outcome": "no-commits", "knowledge_on_end": true}),
                ),
            };
            let line = serde_json::json!({"seq": seq, "ts": ts, "event": event, "session": ep, "task": task_of, "data": data});
            serde_json::to_writer(&mut out, &line)?;
            out.write_all(b"\n")?;
        }
        e += 1;
    }
    out.flush()?;
    Ok(())
}
