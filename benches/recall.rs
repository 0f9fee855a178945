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
//! The store (`common/store.rs`): verified records citing 400 source files and one hub
//! file every record cites, their session records, and a ledger of episodes of 24 lines.
//! Everything is measured on a branch `feature` whose one commit changes the hub file (the
//! briefing's work at hand), each run's wall time and its CPU time (user + system, from
//! the children's rusage).
#![forbid(unsafe_code)]

mod common;
#[path = "common/store.rs"]
mod store;

use common::Stats;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use store::{HUB_FILE, output, run, word};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

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
    let s = store::store(&settings.bin, records, lines)?;
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
        let s = store::store(&settings.bin, 1_000, 1_000)?;
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
