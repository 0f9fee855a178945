//! Recall (SPEC §11) side by side with git, in one run: the whole process of
//! `majordomus recall` (words, a path) and of `majordomus briefing` over synthetic stores
//! of 100 to 100k knowledge records and a ledger of up to 1M lines, each interleaved run by
//! run with `git grep` over the same records (what a person would type to search them) and
//! `git rev-parse HEAD` (a process's floor); the index's first build at each size with its
//! peak RSS; and, when `MAJORDOMUS_BENCH_PEER` names a command, a peer's search of the
//! same notes (basic-memory: see docs/PERFORMANCE.md).
//!
//! ```text
//! cargo bench -j2 --bench recall
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench recall      # small sizes: a smoke run
//! MAJORDOMUS_BENCH_DIR=/mnt/disk                                # where the repositories go
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                      # another binary
//! MAJORDOMUS_BENCH_KEEP=1                                       # keep the repositories
//! MAJORDOMUS_BENCH_SIZES=10000:1000000,100000:1000               # records:lines, instead
//! ```
//!
//! The store: records in `curated/` (verified), each citing one of 400 source files, the
//! one file of a hub directory of 500 files that every record cites (`src/hub/file007.rs`:
//! a path every record reaches, SPEC §11's bound) and its episode; a session record per 10
//! records listing the files its episode changed; titles and bodies drawn from a
//! 4,000-word vocabulary with a Zipf distribution, so a query of two mid-frequency words
//! matches about a percent of the records and one common word about 70 %. The ledger:
//! episodes of 24 lines (opened, 10 commits, 4 decisions, a question and its answer, 3
//! checkpoints, derived, closed, and a task), about a third of them searchable records.
//! Everything is measured on a branch `feature` whose one commit changes the hub file (the
//! briefing's work at hand), each run's wall time and its CPU time (user + system, from
//! the children's rusage).
#![forbid(unsafe_code)]

mod common;

use common::Stats;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

const VOCABULARY: usize = 4_000;
const SOURCE_FILES: usize = 400;
/// The files of the hub directory; every record cites [`HUB_FILE`].
const HUB_FILES: usize = 500;
const HUB_FILE: &str = "src/hub/file007.rs";
const RECORDS_PER_EPISODE: usize = 10;
const LINES_PER_EPISODE: u64 = 24;

struct Settings {
    quick: bool,
    bin: PathBuf,
    keep: bool,
    peer: Option<String>,
}

impl Settings {
    fn from_env() -> Settings {
        let on = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0");
        Settings {
            quick: on("MAJORDOMUS_BENCH_QUICK"),
            bin: std::env::var_os("MAJORDOMUS_BENCH_BIN")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_majordomus"))),
            keep: on("MAJORDOMUS_BENCH_KEEP"),
            peer: std::env::var("MAJORDOMUS_BENCH_PEER")
                .ok()
                .filter(|v| !v.trim().is_empty()),
        }
    }

    fn runs(&self) -> usize {
        if self.quick { 5 } else { 21 }
    }
}

/// A deterministic generator (SplitMix64): the same store every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A pronounceable word for rank `i`.
fn word(i: usize) -> String {
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
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut cumulative = Vec::with_capacity(n);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += 1.0 / k as f64;
            cumulative.push(sum);
        }
        Zipf { cumulative }
    }

    fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let x = (rng.next() as f64 / u64::MAX as f64) * total;
        self.cumulative
            .partition_point(|c| *c < x)
            .min(self.cumulative.len() - 1)
    }
}

fn sentence(rng: &mut Rng, zipf: &Zipf, words: usize) -> String {
    (0..words)
        .map(|_| word(zipf.sample(rng)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn episode_id(n: usize) -> String {
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

fn source(i: usize) -> String {
    format!("src/area{:02}/file{:03}.rs", i % 20, i)
}

/// The CPU time (user + system) of every child this process waited for, so far.
fn children_cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(Duration::ZERO, |u| {
        let t = |tv: nix::sys::time::TimeVal| {
            Duration::from_secs(tv.tv_sec() as u64) + Duration::from_micros(tv.tv_usec() as u64)
        };
        t(u.user_time()) + t(u.system_time())
    })
}

/// One run's wall time and CPU time.
#[derive(Debug, Clone, Copy)]
struct Took {
    wall: Duration,
    cpu: Duration,
}

fn timed(program: &Path, args: &[&str], dir: &Path) -> BenchResult<Took> {
    let before = children_cpu();
    let wall = run(program, args, dir)?;
    Ok(Took {
        wall,
        cpu: children_cpu().saturating_sub(before),
    })
}

fn run(program: &Path, args: &[&str], dir: &Path) -> BenchResult<Duration> {
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

fn output(program: &str, args: &[&str], dir: &Path) -> BenchResult<String> {
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

/// Peak RSS of one run, in KiB (`/usr/bin/time -f %M` when there is one).
fn peak_rss(program: &Path, args: &[&str], dir: &Path) -> Option<u64> {
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// A repository holding `records` verified knowledge records, their session records, and
/// a ledger of `lines` lines, all committed but the ledger; the index not built.
struct Store {
    dir: tempfile::TempDir,
    root: PathBuf,
    records: usize,
    lines: u64,
}

fn store(settings: &Settings, records: usize, lines: u64) -> BenchResult<Store> {
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
    run(&settings.bin, &["init"], &root)?;
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
    output(
        "git",
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@invalid",
            "commit",
            "-q",
            "-m",
            "store",
        ],
        &root,
    )?;
    // The work at hand: a branch whose own commit changes the hub file.
    output("git", &["checkout", "-q", "-b", "feature"], &root)?;
    std::fs::write(root.join(HUB_FILE), "pub fn h7() { /* faster */ }\n")?;
    output(
        "git",
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@invalid",
            "commit",
            "-q",
            "-a",
            "-m",
            "Faster h7",
        ],
        &root,
    )?;
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

fn write_ledger(path: &Path, lines: u64, rng: &mut Rng, zipf: &Zipf) -> BenchResult<()> {
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

fn interleaved(
    runs: usize,
    fs: &mut [&mut dyn FnMut() -> BenchResult<Duration>],
) -> BenchResult<Vec<Stats>> {
    for f in fs.iter_mut() {
        f()?;
    }
    let mut samples = vec![Vec::with_capacity(runs); fs.len()];
    for _ in 0..runs {
        for (f, s) in fs.iter_mut().zip(&mut samples) {
            s.push(f()?);
        }
    }
    Ok(samples.into_iter().map(Stats::of).collect())
}

/// [`interleaved`] of commands, each measured by wall time and by CPU time.
fn interleaved_runs(
    runs: usize,
    commands: &[(&Path, Vec<&str>)],
    dir: &Path,
) -> BenchResult<Vec<(Stats, Stats)>> {
    for (program, args) in commands {
        timed(program, args, dir)?;
    }
    let mut wall = vec![Vec::with_capacity(runs); commands.len()];
    let mut cpu = vec![Vec::with_capacity(runs); commands.len()];
    for _ in 0..runs {
        for (i, (program, args)) in commands.iter().enumerate() {
            let took = timed(program, args, dir)?;
            wall[i].push(took.wall);
            cpu[i].push(took.cpu);
        }
    }
    Ok(wall
        .into_iter()
        .zip(cpu)
        .map(|(w, c)| (Stats::of(w), Stats::of(c)))
        .collect())
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The query of the bench: two words of middling frequency (ranks 40 and 300).
fn query_words() -> String {
    format!("{} {}", word(40), word(300))
}

/// A word of the fifth rank: in about 70 % of the records.
fn common_word() -> String {
    word(4)
}

struct Measured {
    records: usize,
    lines: u64,
    build: Duration,
    build_rss: Option<u64>,
    /// Wall and CPU of each: the two words, the common word, the hub path, the briefing
    /// on the branch, git grep, git rev-parse.
    words: (Stats, Stats),
    common: (Stats, Stats),
    path: (Stats, Stats),
    briefing: (Stats, Stats),
    grep: (Stats, Stats),
    floor: (Stats, Stats),
    rss: Option<u64>,
    hits: String,
    common_share: f64,
}

fn total_of(bin: &Path, args: &[&str], dir: &Path) -> BenchResult<u64> {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = output(bin.to_str().ok_or("a UTF-8 path")?, &all, dir)?;
    let json: serde_json::Value = serde_json::from_str(&out)?;
    json["total"].as_u64().ok_or_else(|| "no total".into())
}

fn measure(settings: &Settings, records: usize, lines: u64) -> BenchResult<Measured> {
    let s = store(settings, records, lines)?;
    let bin = &settings.bin;
    let query = query_words();
    let common = common_word();
    // The first read builds the index: timed once, with its peak memory (a second copy of
    // the build for the RSS figure, on a fresh index).
    let build = run(bin, &["recall", "x"], &s.root)?;
    std::fs::remove_file(s.root.join(".ai/local/state/recall.sqlite"))?;
    let build_rss = peak_rss(bin, &["recall", "x"], &s.root);
    // Stamps younger than 2 s are racy (the index looks at those files again, by their
    // bytes): measure the steady state a store is in a moment after it was written.
    std::thread::sleep(Duration::from_millis(2_500));
    run(bin, &["recall", "x"], &s.root)?;
    let total = total_of(bin, &["recall", &query], &s.root)?;
    // How many records the common word matches (the files that hold it as a word).
    let common_total = output(
        "git",
        &[
            "grep",
            "-l",
            "-w",
            "-e",
            &common,
            "--",
            ".ai/repo/knowledge/curated",
        ],
        &s.root,
    )?
    .lines()
    .count();
    let runs = settings.runs();
    let git = Path::new("git");
    let stats = interleaved_runs(
        runs,
        &[
            (bin.as_path(), vec!["recall", &query]),
            (bin.as_path(), vec!["recall", &common]),
            (bin.as_path(), vec!["recall", "--path", HUB_FILE]),
            (bin.as_path(), vec!["briefing"]),
            (
                git,
                vec![
                    "grep",
                    "-l",
                    "-i",
                    "-e",
                    word(40).leak(),
                    "--",
                    ".ai/repo/knowledge",
                ],
            ),
            (git, vec!["rev-parse", "HEAD"]),
        ],
        &s.root,
    )?;
    let rss = peak_rss(bin, &["recall", &query], &s.root);
    if settings.keep {
        eprintln!("  kept {}", s.dir.keep().display());
    }
    Ok(Measured {
        records: s.records,
        lines: s.lines,
        build,
        build_rss,
        words: stats[0],
        common: stats[1],
        path: stats[2],
        briefing: stats[3],
        grep: stats[4],
        floor: stats[5],
        rss,
        hits: format!("{total} hit(s)"),
        common_share: common_total as f64 / s.records.max(1) as f64,
    })
}

fn main() -> BenchResult<()> {
    let settings = Settings::from_env();
    // MAJORDOMUS_BENCH_SIZES="records:lines,..." picks the sizes (e.g. "10000:1000000").
    let chosen: Option<Vec<(usize, u64)>> = std::env::var("MAJORDOMUS_BENCH_SIZES").ok().map(|v| {
        v.split(',')
            .filter_map(|pair| {
                let (r, l) = pair.trim().split_once(':')?;
                Some((r.parse().ok()?, l.parse().ok()?))
            })
            .collect()
    });
    let sizes: Vec<(usize, u64)> = if let Some(chosen) = chosen {
        chosen
    } else if settings.quick {
        vec![(100, 1_000), (1_000, 10_000)]
    } else {
        vec![
            (100, 1_000),
            (1_000, 1_000),
            (10_000, 1_000),
            (10_000, 1_000_000),
            (100_000, 1_000),
        ]
    };
    let mut rows = Vec::new();
    for (records, lines) in sizes {
        rows.push(measure(&settings, records, lines)?);
    }
    println!(
        "\nrecall, whole process, median (p90) of {} interleaved runs; wall time, then CPU time (user + system)",
        settings.runs()
    );
    println!(
        "| records | ledger lines | index build | build peak RSS | recall \"{}\" | recall \"{}\" ({{share}} of records) | recall --path {HUB_FILE} | briefing on a branch changing it | git grep -l | git rev-parse | recall peak RSS | hits |",
        query_words(),
        common_word()
    );
    println!(
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let kb = |k: Option<u64>| k.map_or("-".to_owned(), |k| format!("{:.1} MB", k as f64 / 1024.0));
    let both = |(wall, cpu): (Stats, Stats)| {
        format!(
            "{} ({}) · CPU {}",
            ms(wall.median),
            ms(wall.p90),
            ms(cpu.median)
        )
    };
    for m in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} ({:.0} %) | {} | {} | {} | {} | {} | {} |",
            m.records,
            m.lines,
            ms(m.build),
            kb(m.build_rss),
            both(m.words),
            both(m.common),
            m.common_share * 100.0,
            both(m.path),
            both(m.briefing),
            both(m.grep),
            both(m.floor),
            kb(m.rss),
            m.hits,
        );
    }
    let find = |records: usize, lines: u64| {
        rows.iter()
            .find(|m| m.records == records && m.lines == lines)
    };
    let ratio = |large: Stats, small: Stats| {
        large.median.as_secs_f64() / small.median.as_secs_f64().max(1e-9)
    };
    if let (Some(small), Some(large)) = (find(1_000, 1_000), find(100_000, 1_000)) {
        println!(
            "\nrecall at 100k records / at 1k: {:.2}x wall, {:.2}x CPU (target 2x)",
            ratio(large.words.0, small.words.0),
            ratio(large.words.1, small.words.1)
        );
        println!(
            "recall --path {HUB_FILE} at 100k / at 1k: {:.2}x wall, {:.2}x CPU (target 1.5x, CPU); at 100k: {} CPU (target 15 ms)",
            ratio(large.path.0, small.path.0),
            ratio(large.path.1, small.path.1),
            ms(large.path.1.median)
        );
        println!(
            "briefing on the branch at 100k / at 1k: {:.2}x wall, {:.2}x CPU (target 1.5x, CPU); at 100k: {} CPU (target 15 ms)",
            ratio(large.briefing.0, small.briefing.0),
            ratio(large.briefing.1, small.briefing.1),
            ms(large.briefing.1.median)
        );
    }
    if let (Some(small), Some(large)) = (find(1_000, 1_000), find(10_000, 1_000)) {
        println!(
            "recall \"{}\" ({:.0} % of records) at 10k / at 1k: {:.2}x wall, {:.2}x CPU (target 2x, CPU)",
            common_word(),
            large.common_share * 100.0,
            ratio(large.common.0, small.common.0),
            ratio(large.common.1, small.common.1)
        );
    }
    if let (Some(small), Some(large)) = (find(100, 1_000), find(10_000, 1_000)) {
        println!(
            "briefing at 10k records / at 100: {:.2}x wall, {:.2}x CPU (target 1.3x)",
            ratio(large.briefing.0, small.briefing.0),
            ratio(large.briefing.1, small.briefing.1)
        );
    }
    if let Some(m) = find(10_000, 1_000_000) {
        println!(
            "recall at 10k records and 1M ledger lines: {} (target 30 ms)",
            ms(m.words.0.median)
        );
    }
    if let Some(peer) = &settings.peer {
        println!("\npeer: {peer}");
        let s = store(&settings, 1_000, 1_000)?;
        let command = peer
            .replace(
                "{dir}",
                &s.root
                    .join(".ai/repo/knowledge/curated")
                    .display()
                    .to_string(),
            )
            .replace("{query}", &query_words());
        let peer_run = || -> BenchResult<Duration> {
            let start = Instant::now();
            let status = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            if !status.success() {
                return Err(format!("{command}: {status}").into());
            }
            Ok(start.elapsed())
        };
        let query = query_words();
        let stats = interleaved(
            settings.runs().min(7),
            &mut [
                &mut || run(&settings.bin, &["recall", &query], &s.root),
                &mut { peer_run },
            ],
        )?;
        println!(
            "| 1,000 notes | majordomus recall {} | peer {} | ratio {:.0}x |",
            ms(stats[0].median),
            ms(stats[1].median),
            stats[1].median.as_secs_f64() / stats[0].median.as_secs_f64()
        );
    }
    Ok(())
}
