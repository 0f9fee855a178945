//! What the journal costs (issue "Step 12 of 12", item 8), in one run, beside git:
//!
//! 1. **Publishing at close.** A ledger of N lines already published; each run opens an
//!    episode, records a decision and closes it: `session close` with sharing on (it
//!    publishes the episode's lines as one segment) against the same with sharing off,
//!    interleaved, and `journal publish` of one new line.
//! 2. **Fetch, materialize, index.** A writer with a journal of M lines (in 10 segments)
//!    pushed to a bare origin; in a clone: `git fetch` (git), the first `journal status`
//!    (materializes the journal: every commit and line checked), the first filtered
//!    `history` (builds the journal's index), then the same warm.
//! 3. **Reads across writers.** A clone with its own ledger of K lines, alone, and with 10
//!    fetched writers of K lines each: `history --session <id>` and `history --event
//!    session.opened --since <recent>` (warm), interleaved; the goal is 1.3x.
//! 4. **The pre-push journal push.** `git push` of a new commit to a local bare origin with
//!    the hooks installed, sharing off, against sharing on (publish + the nested `git push
//!    --no-verify` of the journal ref), against `git push --no-verify` (no hook at all).
//!
//! ```text
//! cargo bench -j2 --bench journal
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench journal    # smaller sizes, fewer runs
//! MAJORDOMUS_BENCH_FETCH_LINES=200000                        # the fetched journal's size
//! MAJORDOMUS_BENCH_READ_LINES=100000                         # each writer's, for the reads
//! MAJORDOMUS_BENCH_PARTS=close,fetch,reads,push              # some of the four (default all)
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                   # another binary
//! MAJORDOMUS_BENCH_DIR=/mnt/disk                             # where the repositories go
//! ```
#![forbid(unsafe_code)]

mod common;

use common::Stats;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn bench_bin() -> PathBuf {
    std::env::var_os("MAJORDOMUS_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_majordomus")))
        .canonicalize()
        .expect("the benchmarked binary")
}

fn temp_dir(prefix: &str) -> BenchResult<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    Ok(match std::env::var_os("MAJORDOMUS_BENCH_DIR") {
        Some(dir) => builder.tempdir_in(dir)?,
        None => builder.tempdir()?,
    })
}

fn command(program: &Path, args: &[&str], dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@majordomus.invalid")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@majordomus.invalid")
        .env_remove("MAJORDOMUS_NOW")
        .env_remove("MAJORDOMUS_TIMING")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run(program: &Path, args: &[&str], dir: &Path) -> BenchResult<String> {
    let out = command(program, args, dir).output()?;
    if !out.status.success() {
        return Err(format!(
            "{} {}: {}{}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn git(dir: &Path, args: &[&str]) -> BenchResult<String> {
    run(Path::new("git"), args, dir)
}

fn mj(dir: &Path, args: &[&str]) -> BenchResult<String> {
    run(&bench_bin(), args, dir)
}

fn timed(f: impl FnOnce() -> BenchResult<String>) -> BenchResult<Duration> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed())
}

/// Appends `lines` synthetic ledger lines (decisions and, every 50th, an episode opening)
/// after seq `from`, dated in the past (2026-01-01 onwards, one a second); episode ids
/// start with `day` (`YYYYMMDD`), so two ledgers can hold different episodes.
fn append_ledger(dir: &Path, day: &str, from: u64, lines: u64) -> BenchResult<()> {
    let path = dir.join(".ai/local/ledger.jsonl");
    std::fs::create_dir_all(path.parent().expect("parent"))?;
    let mut file = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?,
    );
    let base = 1_767_225_600i64; // 2026-01-01T00:00:00Z
    for seq in from + 1..=from + lines {
        let at = time::OffsetDateTime::from_unix_timestamp(base + seq as i64)?;
        let ts = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        let episode = format!("{day}T000000Z-{:06x}", (seq / 50) % 0xff_ffff);
        if seq % 50 == 1 {
            writeln!(
                file,
                "{{\"seq\":{seq},\"ts\":\"{ts}\",\"event\":\"session.opened\",\"session\":\"{episode}\",\"task\":null,\"data\":{{\"branch\":\"main\",\"head\":null,\"provider\":\"bench\"}}}}"
            )?;
        } else {
            writeln!(
                file,
                "{{\"seq\":{seq},\"ts\":\"{ts}\",\"event\":\"decision.recorded\",\"session\":\"{episode}\",\"task\":null,\"data\":{{\"text\":\"decision number {seq} about the parser and the ledger index\"}}}}"
            )?;
        }
    }
    file.flush()?;
    Ok(())
}

/// A repository with one commit, initialised, its init committed, pushed to `origin.git`
/// beside it.
fn project(base: &Path, name: &str) -> BenchResult<PathBuf> {
    let origin = base.join("origin.git");
    if !origin.exists() {
        git(base, &["init", "-q", "--bare", "-b", "main", "origin.git"])?;
    }
    let dir = base.join(name);
    // `--no-local`: a local clone hardlinks the origin's whole object store, the journals'
    // objects too, and a later `git fetch` of them would transfer nothing.
    git(base, &["clone", "-q", "--no-local", "origin.git", name])?;
    if git(&dir, &["rev-parse", "-q", "--verify", "HEAD"]).is_err() {
        git(&dir, &["symbolic-ref", "HEAD", "refs/heads/main"])?;
        std::fs::write(dir.join("README.md"), "# bench\n")?;
        mj(&dir, &["init"])?;
        git(&dir, &["add", "-A"])?;
        git(&dir, &["commit", "-q", "-m", "init"])?;
        git(&dir, &["push", "-q", "origin", "main"])?;
    }
    mj(&dir, &["hooks", "install"])?;
    Ok(dir)
}

struct Row {
    what: String,
    size: String,
    stats: Stats,
}

fn show(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}

fn count(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// 1. `session close` with sharing on and off at `lines` existing (published) lines.
fn publish_at_close(lines: u64, runs: usize, rows: &mut Vec<Row>) -> BenchResult<()> {
    let temp = temp_dir("mj-journal-close-")?;
    let base = temp.path();
    let on = project(base, "on")?;
    let off = project(base, "off")?;
    for dir in [&on, &off] {
        append_ledger(dir, "20260101", 0, lines)?;
    }
    mj(&on, &["journal", "enable", "--include-history"])?;
    let first = timed(|| mj(&on, &["journal", "publish"]))?;
    rows.push(Row {
        what: "first publish of the whole ledger (one segment)".into(),
        size: count(lines),
        stats: Stats::of(vec![first]),
    });
    let (mut with, mut without, mut one) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        for (dir, samples) in [(&on, &mut with), (&off, &mut without)] {
            mj(dir, &["session", "start"])?;
            mj(dir, &["decision", "a decision of this episode"])?;
            samples.push(timed(|| mj(dir, &["session", "close"]))?);
        }
        mj(&on, &["decision", "one more line"])?;
        one.push(timed(|| mj(&on, &["journal", "publish"]))?);
    }
    rows.push(Row {
        what: "session close, sharing off".into(),
        size: count(lines),
        stats: Stats::of(without),
    });
    rows.push(Row {
        what: "session close, sharing on (publishes the episode)".into(),
        size: count(lines),
        stats: Stats::of(with),
    });
    rows.push(Row {
        what: "journal publish of one new line".into(),
        size: count(lines),
        stats: Stats::of(one),
    });
    Ok(())
}

/// A writer repository (in `base`) whose journal of `lines` lines in `segments` segments
/// is pushed to origin under `writers` different writer ids (the same lines each).
fn writers_on_origin(base: &Path, lines: u64, segments: u64, writers: usize) -> BenchResult<()> {
    let writer = project(base, "writer")?;
    let per = lines / segments;
    for id in 0..writers {
        if id > 0 {
            // A new writer id for the same ledger: another writer of the same size.
            for state in ["writer", "journal.json"] {
                let _ = std::fs::remove_file(writer.join(".git/majordomus").join(state));
            }
            std::fs::remove_file(writer.join(".ai/local/ledger.jsonl"))?;
        }
        for s in 0..segments {
            append_ledger(&writer, "20260101", s * per, per)?;
            if s == 0 {
                mj(&writer, &["journal", "enable", "--include-history"])?;
            }
            mj(&writer, &["journal", "publish"])?;
        }
        let id = std::fs::read_to_string(writer.join(".git/majordomus/writer"))?;
        let reference = format!("refs/majordomus/journal/{}", id.trim());
        // Setup, not measured: a segment of 100k lines is a blob of ~19 MB, and git's
        // delta search over ten of them is minutes on a busy machine; stored whole, they
        // are zlib'd once (what a journal of one segment per episode, small blobs, gets).
        git(
            &writer,
            &[
                "-c",
                "core.bigFileThreshold=1m",
                "push",
                "-q",
                "--no-verify",
                "origin",
                &format!("{reference}:{reference}"),
            ],
        )?;
    }
    Ok(())
}

/// 2. Fetch, materialize and index a journal of `lines` lines.
fn fetch_and_index(lines: u64, rows: &mut Vec<Row>) -> BenchResult<()> {
    let temp = temp_dir("mj-journal-fetch-")?;
    let base = temp.path();
    writers_on_origin(base, lines, 10, 1)?;
    let reader = project(base, "reader")?;
    mj(&reader, &["journal", "enable"])?;
    let size = count(lines);
    let mut push = |what: &str, d: Duration| {
        rows.push(Row {
            what: what.into(),
            size: size.clone(),
            stats: Stats::of(vec![d]),
        })
    };
    push(
        "git fetch of the journal",
        timed(|| git(&reader, &["fetch", "-q", "origin"]))?,
    );
    push(
        "first journal status (materializes: every commit and line checked)",
        timed(|| mj(&reader, &["journal", "status"]))?,
    );
    let filtered = [
        "history",
        "--event",
        "session.opened",
        "--since",
        "2026-06-01",
    ];
    push(
        "first filtered history (builds the journal's index)",
        timed(|| mj(&reader, &filtered))?,
    );
    push("the same history, warm", timed(|| mj(&reader, &filtered))?);
    push(
        "journal status, warm",
        timed(|| mj(&reader, &["journal", "status"]))?,
    );
    Ok(())
}

/// 3. Filtered reads with one writer against 10 fetched writers of `lines` lines each.
fn reads_across_writers(lines: u64, runs: usize, rows: &mut Vec<Row>) -> BenchResult<()> {
    let temp = temp_dir("mj-journal-reads-")?;
    let base = temp.path();
    writers_on_origin(base, lines, 1, 10)?;
    let alone = project(base, "alone")?;
    let team = project(base, "team")?;
    for dir in [&alone, &team] {
        append_ledger(dir, "20260102", 0, lines)?;
    }
    mj(&team, &["journal", "enable"])?;
    git(&team, &["fetch", "-q", "origin"])?;
    // One of this writer's own episodes: the same lines are shown with or without the others.
    let session = "20260102T000000Z-000001";
    let by_session = ["history", "--session", session];
    let by_event = [
        "history",
        "--event",
        "session.opened",
        "--since",
        "2026-01-02",
    ];
    let briefing = ["briefing"];
    let list = ["session", "list"];
    // Warm both: indexes built, journals materialized.
    for dir in [&alone, &team] {
        mj(dir, &by_session)?;
        mj(dir, &by_event)?;
        mj(dir, &briefing)?;
    }
    for (what, args) in [
        ("history --session", &by_session[..]),
        ("history --event --since", &by_event[..]),
        ("briefing", &briefing[..]),
        ("session list", &list[..]),
    ] {
        let (mut one, mut ten) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            one.push(timed(|| mj(&alone, args))?);
            ten.push(timed(|| mj(&team, args))?);
        }
        rows.push(Row {
            what: format!("{what}, one writer"),
            size: count(lines),
            stats: Stats::of(one),
        });
        rows.push(Row {
            what: format!(
                "{what}, this writer + 10 fetched writers{}",
                if what.contains("event") {
                    " (shows 11x the lines)"
                } else if what.contains("list") {
                    " (lists 11x the episodes)"
                } else if what == "briefing" {
                    " (one line per writer)"
                } else {
                    ""
                }
            ),
            size: format!("11 × {}", count(lines)),
            stats: Stats::of(ten),
        });
    }
    Ok(())
}

/// 4. `git push` with the hooks installed: sharing off, sharing on, and no hook at all.
fn pre_push(runs: usize, rows: &mut Vec<Row>) -> BenchResult<()> {
    let temp = temp_dir("mj-journal-push-")?;
    let base = temp.path();
    let off = project(base, "off")?;
    let on = project(base, "on")?;
    mj(&on, &["journal", "enable"])?;
    let (mut plain, mut without, mut with) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        for (dir, samples, verify, name) in [
            (&off, &mut plain, false, "plain"),
            (&off, &mut without, true, "off"),
            (&on, &mut with, true, "on"),
        ] {
            // One episode's lines pending on the sharing side, a new commit on each.
            mj(dir, &["decision", &format!("decision {i}")])?;
            std::fs::write(dir.join("work.txt"), format!("{name} {i}\n"))?;
            git(dir, &["add", "work.txt"])?;
            git(dir, &["commit", "-q", "-m", &format!("{name} {i}")])?;
            let target = format!("HEAD:refs/heads/{name}");
            let mut args = vec!["push", "-q"];
            if !verify {
                args.push("--no-verify");
            }
            args.extend(["origin", target.as_str()]);
            samples.push(timed(|| git(dir, &args))?);
        }
    }
    rows.push(Row {
        what: "git push --no-verify (no hook)".into(),
        size: "-".into(),
        stats: Stats::of(plain),
    });
    rows.push(Row {
        what: "git push, pre-push hook, sharing off".into(),
        size: "-".into(),
        stats: Stats::of(without),
    });
    rows.push(Row {
        what: "git push, pre-push hook, sharing on (publish + journal push)".into(),
        size: "-".into(),
        stats: Stats::of(with),
    });
    Ok(())
}

fn main() -> BenchResult<()> {
    let quick = std::env::var_os("MAJORDOMUS_BENCH_QUICK").is_some();
    let (close_sizes, fetch_lines, read_lines, runs): (&[u64], u64, u64, usize) = if quick {
        (&[10_000], 100_000, 10_000, 5)
    } else {
        (&[10_000, 100_000], 1_000_000, 100_000, 15)
    };
    // The journal of the fetch measurement can be sized on its own: pushing 1M lines to
    // the bare origin is the slow part of the setup on a busy machine.
    let fetch_lines = std::env::var("MAJORDOMUS_BENCH_FETCH_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(fetch_lines);
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    eprintln!(
        "majordomus journal bench{}",
        if quick { " (quick)" } else { "" }
    );
    // MAJORDOMUS_BENCH_PARTS=close,fetch,reads,push (default: all) runs some of them.
    let parts = std::env::var("MAJORDOMUS_BENCH_PARTS").unwrap_or_default();
    let part = |name: &str| parts.is_empty() || parts.split(',').any(|p| p.trim() == name);
    let read_lines = std::env::var("MAJORDOMUS_BENCH_READ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(read_lines);
    let mut rows = Vec::new();
    if part("close") {
        for &lines in close_sizes {
            publish_at_close(lines, runs, &mut rows)?;
        }
    }
    if part("fetch") {
        fetch_and_index(fetch_lines, &mut rows)?;
    }
    if part("reads") {
        reads_across_writers(read_lines, runs, &mut rows)?;
    }
    if part("push") {
        pre_push(runs, &mut rows)?;
    }
    println!(
        "majordomus {} journal bench, {cores} cores",
        env!("CARGO_PKG_VERSION")
    );
    println!();
    println!("| measurement | lines | runs | median | p90 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} | {} |",
            row.what,
            row.size,
            row.stats.runs,
            show(row.stats.median),
            show(row.stats.p90)
        );
    }
    Ok(())
}
