//! The performance guarantees side by side, in one run (issue "Step 8 of 8"): each row a
//! majordomus measurement, the baseline it is held against measured in the same run
//! (interleaved run by run, so a busy spell of the shared machine slows both alike), the
//! ratio, the target (docs/PERFORMANCE.md where one is stated, else the reasoned one
//! printed beside it), pass/over, and the peak RSS of the majordomus process.
//!
//! Rows: `knowledge check` at 1k/10k/100k records against `git cat-file --batch-check` of
//! the same commit ids plus reading the record files; `knowledge derive` of an episode of
//! 1,000 decisions; every read command at 1k against 1M ledger lines; each installed git
//! hook against `git rev-parse HEAD`; MCP `tools/call` and HTTP `GET` of the context
//! against the same operation in-process; a review of 200 candidates by selection in one
//! commit against `git commit` of the same 400 paths; the neutraliser over 4,000 openers
//! without an end against 2,000 of them (its cost grows with the text, no more). The last
//! two were wall-clock bounds in `cargo test` that a loaded machine could break.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench guarantees
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench guarantees   # small sizes: a smoke run
//! MAJORDOMUS_BENCH_DIR=/mnt/disk                               # where the repositories go
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                     # another binary
//! MAJORDOMUS_BENCH_ONLY=check,derive,ledger,hooks,surfaces,review,neutralise  # a subset
//! MAJORDOMUS_BENCH_KEEP=1                                      # keep the repositories
//! MAJORDOMUS_BENCH_RECORDS=10000                               # `knowledge check` sizes
//! ```
//!
//! Peak RSS: every majordomus process is also run once (untimed) under this bench's own
//! executable acting as a wrapper (`--peak-rss-of PROGRAM ARGS...`), which spawns it, waits
//! for it and reports `getrusage(RUSAGE_CHILDREN).ru_maxrss`: the wrapper has exactly one
//! child, so the figure is that process's own peak, not a running maximum over the bench.
//! The servers' peak is `VmHWM` from `/proc/<pid>/status`, read while they still run.
#![forbid(unsafe_code)]

mod common;

use common::Stats;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use majordomus::model::ids::{episode_id as real_episode_id, sha256_hex};
use majordomus::model::knowledge::{
    Class, KNOWLEDGE_SCHEMA, KnowledgeRecord, Origin, Provenance, Stance, Status,
};
use majordomus::model::{Event, LedgerLine, LineDraft};
use majordomus::ops::Registry;
use majordomus::store::frontmatter;
use majordomus::{Clock, Ctx};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

// ---------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Settings {
    quick: bool,
    bin: PathBuf,
    records: Vec<usize>,
    ledger_sizes: (u64, u64),
    decisions: usize,
    only: Option<Vec<String>>,
}

impl Settings {
    fn from_env() -> Settings {
        let quick =
            std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let bin = std::env::var_os("MAJORDOMUS_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_majordomus")));
        let only = std::env::var("MAJORDOMUS_BENCH_ONLY")
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| v.split(',').map(|s| s.trim().to_owned()).collect());
        // A profiler wants one size: MAJORDOMUS_BENCH_RECORDS=10000 (comma-separated).
        let records = std::env::var("MAJORDOMUS_BENCH_RECORDS").ok().map(|v| {
            v.split(',')
                .filter_map(|n| n.trim().parse::<usize>().ok())
                .collect::<Vec<_>>()
        });
        let mut settings = if quick {
            Settings {
                quick,
                bin,
                records: vec![100, 1_000],
                ledger_sizes: (1_000, 10_000),
                decisions: 100,
                only,
            }
        } else {
            Settings {
                quick,
                bin,
                records: vec![1_000, 10_000, 100_000],
                ledger_sizes: (1_000, 1_000_000),
                decisions: 1_000,
                only,
            }
        };
        if let Some(records) = records.filter(|r| !r.is_empty()) {
            settings.records = records;
        }
        settings
    }

    fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == section))
    }

    /// Runs of a process that takes milliseconds.
    fn runs(&self) -> usize {
        if self.quick { 5 } else { 21 }
    }

    /// Runs of a process that takes up to a second or more.
    fn slow_runs(&self) -> usize {
        if self.quick { 3 } else { 7 }
    }

    /// Round trips to a running server.
    fn server_runs(&self) -> usize {
        if self.quick { 20 } else { 300 }
    }
}

fn temp_dir(prefix: &str) -> BenchResult<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    // Kept for a profiler to run the same command against (docs/PERFORMANCE.md).
    builder.disable_cleanup(std::env::var_os("MAJORDOMUS_BENCH_KEEP").is_some());
    Ok(match std::env::var_os("MAJORDOMUS_BENCH_DIR") {
        Some(base) => builder.tempdir_in(base)?,
        None => builder.tempdir()?,
    })
}

// ---------------------------------------------------------------------------------------
// Statistics and formatting
// ---------------------------------------------------------------------------------------

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

fn show_stats(s: Stats) -> String {
    format!("{} ({})", show(s.median), show(s.p90))
}

fn show_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn show_kb(kb: u64) -> String {
    if kb >= 10 * 1024 {
        format!("{:.0} MB", kb as f64 / 1024.0)
    } else {
        format!("{:.1} MB", kb as f64 / 1024.0)
    }
}

/// One row of the table.
struct Row {
    section: &'static str,
    what: String,
    ours: Stats,
    baseline: String,
    base: Stats,
    target: f64,
    /// Where the target comes from.
    target_from: &'static str,
    rss: String,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.ours.median.as_secs_f64() / self.base.median.as_secs_f64()
    }
}

// ---------------------------------------------------------------------------------------
// Processes: timing, peak RSS
// ---------------------------------------------------------------------------------------

/// A process to run: program, arguments, directory, extra environment, stdin bytes.
#[derive(Debug, Clone)]
struct Proc {
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    ok: &'static [i32],
}

impl Proc {
    fn new(program: impl AsRef<Path>, args: &[&str], dir: &Path) -> Proc {
        Proc {
            program: program.as_ref().to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: dir.to_owned(),
            env: Vec::new(),
            stdin: None,
            ok: &[0],
        }
    }

    fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Proc {
        self.env.push((
            key.to_owned(),
            value.as_ref().to_string_lossy().into_owned(),
        ));
        self
    }

    fn stdin(mut self, bytes: &[u8]) -> Proc {
        self.stdin = Some(bytes.to_vec());
        self
    }

    fn ok(mut self, codes: &'static [i32]) -> Proc {
        self.ok = codes;
        self
    }

    fn command_for(&self, program: &Path, leading: &[String]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(leading)
            .args(&self.args)
            .current_dir(&self.dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@majordomus.invalid")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@majordomus.invalid")
            .env_remove("MAJORDOMUS_NOW")
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Spawns `cmd`, feeds the stdin bytes, waits; the exit code and stdout.
    fn run_command(&self, mut cmd: Command, capture: bool) -> BenchResult<(i32, Vec<u8>)> {
        cmd.stdout(if capture {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::null());
        let mut child = cmd.spawn()?;
        if let Some(bytes) = &self.stdin {
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            stdin.write_all(bytes)?;
        }
        let out = child.wait_with_output()?;
        Ok((out.status.code().unwrap_or(-1), out.stdout))
    }

    fn check(&self, code: i32) -> BenchResult<()> {
        if self.ok.contains(&code) {
            Ok(())
        } else {
            Err(format!(
                "{} {} exited {code}",
                self.program.display(),
                self.args.join(" ")
            )
            .into())
        }
    }

    /// One timed run, output discarded.
    fn time(&self) -> BenchResult<Duration> {
        let cmd = self.command_for(&self.program, &[]);
        let start = Instant::now();
        let (code, _) = self.run_command(cmd, false)?;
        let took = start.elapsed();
        self.check(code)?;
        Ok(took)
    }

    /// One run, stdout returned.
    fn output(&self) -> BenchResult<String> {
        let (code, out) = self.run_command(self.command_for(&self.program, &[]), true)?;
        self.check(code)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// One untimed run under the wrapper: the process's own peak RSS, in KiB.
    fn peak_rss_kb(&self) -> BenchResult<u64> {
        let exe = std::env::current_exe()?;
        let leading = vec![
            RSS_FLAG.to_owned(),
            self.program.to_string_lossy().into_owned(),
        ];
        let (code, out) = self.run_command(self.command_for(&exe, &leading), true)?;
        self.check(code)?;
        let text = String::from_utf8_lossy(&out);
        Ok(text
            .trim()
            .parse()
            .map_err(|e| format!("peak RSS from the wrapper ({text:?}): {e}"))?)
    }
}

const RSS_FLAG: &str = "--peak-rss-of";

/// The wrapper: runs `program args...` (stdin inherited, output discarded), waits, prints
/// its peak RSS in KiB and exits with its code.
fn rss_wrapper(args: &[String]) -> ! {
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", args[0]));
    let status = child.wait().expect("wait for the measured process");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    println!("{}", usage.max_rss());
    std::process::exit(status.code().unwrap_or(1));
}

/// `VmHWM` of a running process, in KiB.
fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs each closure once to warm caches, then `runs` rounds in which each runs once in
/// turn; one `Stats` per closure.
fn interleaved(
    runs: usize,
    fs: &mut [&mut dyn FnMut() -> BenchResult<Duration>],
) -> BenchResult<Vec<Stats>> {
    for f in fs.iter_mut() {
        f()?;
    }
    let mut samples = vec![Vec::with_capacity(runs); fs.len()];
    for _ in 0..runs {
        for (f, out) in fs.iter_mut().zip(&mut samples) {
            out.push(f()?);
        }
    }
    Ok(samples.into_iter().map(Stats::of).collect())
}

fn git(dir: &Path, args: &[&str]) -> BenchResult<String> {
    Proc::new("git", args, dir).output()
}

// ---------------------------------------------------------------------------------------
// 1. knowledge check at 1k / 10k / 100k records (generator from benches/knowledge.rs)
// ---------------------------------------------------------------------------------------

/// Commits in the synthetic history; every `commit:` reference names one of them.
const COMMITS: usize = 200;
/// Candidates per synthetic episode (each episode also starts one task).
const RECORDS_PER_EPISODE: usize = 10;
/// 2026-11-01T00:00:00Z: the synthetic history starts here.
const EPOCH: i64 = 1_793_491_200;

fn identity() -> majordomus::git::Identity {
    majordomus::git::Identity {
        name: "bench".into(),
        email: "bench@majordomus.invalid".into(),
    }
}

fn at(seconds: i64) -> BenchResult<time::OffsetDateTime> {
    Ok(time::OffsetDateTime::from_unix_timestamp(EPOCH + seconds)?)
}

/// A repository with `COMMITS` commits (packed, as in a clone) and an initialised store.
fn check_repository(dir: &Path) -> BenchResult<Vec<String>> {
    let repo = majordomus::git::Repo::init(dir)?;
    let mut commits = Vec::with_capacity(COMMITS);
    for i in 0..COMMITS {
        let path = format!("src/m{i:03}.rs");
        let body = format!("//! Module {i}.\npub fn f{i}() -> usize {{ {i} }}\n");
        commits.push(repo.commit_files(
            &[(path.as_str(), body.as_bytes())],
            &format!("Add module {i}"),
            EPOCH + 60 * i as i64,
            &identity(),
        )?);
    }
    Proc::new("git", &["repack", "-a", "-d", "-q"], dir).output()?;
    let ctx = Ctx::open(dir, Clock::System)?;
    majordomus::init::init(&ctx, Default::default())?;
    Ok(commits)
}

fn draft(seq: u64, ts: &str, event: Event, session: &str, task: Option<&str>) -> LineDraft {
    LineDraft {
        ts: ts.to_owned(),
        event,
        session: Some(session.to_owned()),
        task: task.map(str::to_owned),
        data: serde_json::json!({ "text": format!("synthetic line {seq}") }),
    }
}

fn write_drafts(path: &Path, lines: &[LineDraft]) -> BenchResult<()> {
    let mut buf = Vec::with_capacity(lines.len() * 200);
    for (i, d) in lines.iter().enumerate() {
        serde_json::to_writer(&mut buf, &d.clone().with_seq(i as u64 + 1))?;
        buf.push(b'\n');
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, buf)?;
    Ok(())
}

struct CheckFixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    commit_ids: Vec<String>,
}

/// `records` candidates, each with four references that resolve: `session:`, `task:`,
/// `commit:` (one of the real commits) and `file:` (a path in HEAD's tree).
fn check_fixture(records: usize) -> BenchResult<CheckFixture> {
    let dir = temp_dir("majordomus-guarantees-check-")?;
    let root = dir.path().canonicalize()?;
    let commits = check_repository(&root)?;
    let episodes = records.div_ceil(RECORDS_PER_EPISODE);
    let mut lines = Vec::new();
    let mut ids = Vec::with_capacity(episodes);
    for e in 0..episodes {
        let opened = at(3_600 * 24 + 600 * e as i64)?;
        let ep = real_episode_id(opened, format!("bench {e}").as_bytes());
        let ts = majordomus::model::time::rfc3339(opened);
        let task = format!("t-20261102-{:04x}", e % 0x10000);
        let seq = lines.len() as u64 + 1;
        lines.push(draft(seq, &ts, Event::SessionOpened, &ep, None));
        lines.push(draft(seq + 1, &ts, Event::TaskStarted, &ep, Some(&task)));
        for k in 0..RECORDS_PER_EPISODE {
            let seq = lines.len() as u64 + 1;
            let event = if k % 2 == 0 {
                Event::DecisionRecorded
            } else {
                Event::CheckpointRecorded
            };
            lines.push(draft(seq, &ts, event, &ep, Some(&task)));
        }
        let seq = lines.len() as u64 + 1;
        lines.push(draft(seq, &ts, Event::SessionClosed, &ep, None));
        ids.push((ep, task));
    }
    let ctx = Ctx::open(&root, Clock::System)?;
    write_drafts(&ctx.layout.ledger(), &lines)?;
    let candidates = ctx.layout.candidates_dir();
    std::fs::create_dir_all(&candidates)?;
    let mut commit_ids = Vec::with_capacity(records);
    for i in 0..records {
        let (ep, task) = &ids[i / RECORDS_PER_EPISODE];
        let commit = &commits[(i * 7) % COMMITS];
        let file = format!("src/m{:03}.rs", (i * 13) % COMMITS);
        let id = format!(
            "{ep}-{}",
            &sha256_hex(format!("record {i}").as_bytes())[..12]
        );
        let record = KnowledgeRecord {
            id: id.clone(),
            schema: KNOWLEDGE_SCHEMA.to_owned(),
            class: Class::Fact,
            status: Status::Candidate,
            stance: Stance::Observed,
            title: format!("Module {} returns its own number", (i * 13) % COMMITS),
            date: "2026-11-02".to_owned(),
            provenance: Provenance {
                origin: Origin::Extracted,
                derived_from: vec![
                    format!("session:{ep}"),
                    format!("task:{task}"),
                    format!("commit:{commit}"),
                    format!("file:{file}"),
                ],
            },
            superseded_by: None,
            relations: None,
        };
        let body = format!("`f{0}()` in {file} returns {0}.\n", (i * 13) % COMMITS);
        std::fs::write(
            candidates.join(format!("{id}.md")),
            frontmatter::render(&record, &body),
        )?;
        commit_ids.push(commit.clone());
    }
    let report = majordomus::knowledge::check(&ctx, Default::default())?;
    if report.records != records || !report.findings.is_empty() {
        return Err(format!(
            "the synthetic store should check clean: {} records, {} findings",
            report.records,
            report.findings.len()
        )
        .into());
    }
    Ok(CheckFixture {
        _dir: dir,
        root,
        commit_ids,
    })
}

impl CheckFixture {
    /// `git cat-file --batch-check` fed the same commit ids (the objects the check
    /// resolves), plus reading every record file: the least any tool must do.
    fn git_batch_and_read(&self) -> BenchResult<Duration> {
        self.git_batch(true)
    }

    /// The secret scan of `knowledge check` on its own: every record's text through the
    /// bulk scan, on one core, the files read beforehand (the scan runs on what the
    /// check has already read).
    fn secret_scan(
        &self,
        texts: &[String],
        scan: fn(&str) -> Vec<&'static str>,
    ) -> BenchResult<Duration> {
        let start = Instant::now();
        let found = texts.iter().filter(|t| !scan(t).is_empty()).count();
        let took = start.elapsed();
        if found != 0 {
            return Err(format!("{found} synthetic records carry a secret shape").into());
        }
        Ok(took)
    }

    /// [`CheckFixture::secret_scan`] in CPU time (user + system of this process, which
    /// scans on this one thread).
    fn secret_scan_cpu(
        &self,
        texts: &[String],
        scan: fn(&str) -> Vec<&'static str>,
    ) -> BenchResult<Duration> {
        let before = cpu_of(nix::sys::resource::UsageWho::RUSAGE_SELF);
        self.secret_scan(texts, scan)?;
        Ok(cpu_of(nix::sys::resource::UsageWho::RUSAGE_SELF).saturating_sub(before))
    }

    /// [`CheckFixture::git_batch`] without reading the files, in git's CPU time (user +
    /// system of the waited-for child).
    fn git_batch_cpu(&self) -> BenchResult<Duration> {
        let before = cpu_of(nix::sys::resource::UsageWho::RUSAGE_CHILDREN);
        self.git_batch(false)?;
        Ok(cpu_of(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).saturating_sub(before))
    }

    /// Every record file's text.
    fn texts(&self) -> BenchResult<Vec<String>> {
        let mut texts = Vec::new();
        for entry in std::fs::read_dir(self.root.join(".ai/repo/knowledge/candidates"))? {
            texts.push(std::fs::read_to_string(entry?.path())?);
        }
        Ok(texts)
    }

    /// `git cat-file --batch-check` of the commit ids, and (with `read`) reading every
    /// record file.
    fn git_batch(&self, read: bool) -> BenchResult<Duration> {
        let start = Instant::now();
        let mut child = Command::new("git")
            .args(["cat-file", "--batch-check"])
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
        let input: String = self.commit_ids.iter().map(|id| format!("{id}\n")).collect();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let mut answer = String::new();
        child
            .stdout
            .take()
            .ok_or("git cat-file has no stdout")?
            .read_to_string(&mut answer)?;
        writer.join().map_err(|_| "the stdin writer panicked")??;
        child.wait()?;
        let found = answer.lines().filter(|l| l.contains(" commit ")).count();
        let mut bytes = 0usize;
        if read {
            for entry in std::fs::read_dir(self.root.join(".ai/repo/knowledge/candidates"))? {
                bytes += std::fs::read(entry?.path())?.len();
            }
        } else {
            bytes = 1;
        }
        let took = start.elapsed();
        if found != self.commit_ids.len() || bytes == 0 {
            return Err(format!("git found {found} of {} commits", self.commit_ids.len()).into());
        }
        Ok(took)
    }
}

/// User + system CPU time of `who`.
fn cpu_of(who: nix::sys::resource::UsageWho) -> Duration {
    let usage = nix::sys::resource::getrusage(who).expect("getrusage");
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    tv(usage.user_time()) + tv(usage.system_time())
}

fn section_check(settings: &Settings, rows: &mut Vec<Row>) -> BenchResult<()> {
    for &records in &settings.records {
        let started = Instant::now();
        let fx = check_fixture(records)?;
        eprintln!(
            "  knowledge check: {records} records, fixture in {}",
            show(started.elapsed())
        );
        let proc = Proc::new(&settings.bin, &["knowledge", "check"], &fx.root);
        let runs = if records >= 100_000 {
            settings.slow_runs()
        } else {
            settings.runs().min(11)
        };
        let stats = interleaved(
            runs,
            &mut [&mut || proc.time(), &mut || fx.git_batch_and_read()],
        )?;
        rows.push(Row {
            section: "check",
            what: format!(
                "`knowledge check`, {} records (4 refs each)",
                show_count(records as u64)
            ),
            ours: stats[0],
            baseline:
                "`git cat-file --batch-check` of the same commit ids + reading the record files"
                    .into(),
            base: stats[1],
            target: 2.0,
            target_from: "PERFORMANCE.md",
            rss: show_kb(proc.peak_rss_kb()?),
        });
        // The tax the secret scan adds (issue 15, item 10): its own time against git's
        // batch lookup alone.
        // And, as a what-if, the same texts searched one by one the way a lone short
        // text is (`find_shapes`: a search per anchor below 4 KiB), which is what the
        // check ran before it used the bulk scan.
        let texts = fx.texts()?;
        use majordomus::model::redact::{find_shapes, find_shapes_bulk};
        let stats = interleaved(
            runs,
            &mut [
                &mut || fx.secret_scan(&texts, find_shapes_bulk),
                &mut || fx.secret_scan(&texts, find_shapes),
                &mut || fx.git_batch(false),
            ],
        )?;
        // The same tax in CPU time (issue "Step 15 of 16", item 10): the scan's CPU
        // against git's.
        let cpu = interleaved(
            runs,
            &mut [
                &mut || fx.secret_scan_cpu(&texts, find_shapes_bulk),
                &mut || fx.git_batch_cpu(),
            ],
        )?;
        rows.push(Row {
            section: "check",
            what: format!(
                "secret scan of `knowledge check`, CPU, {} records (in-process, one core)",
                show_count(records as u64)
            ),
            ours: cpu[0],
            baseline: "`git cat-file --batch-check` of the same commit ids, its CPU".into(),
            base: cpu[1],
            target: 0.5,
            target_from: "PERFORMANCE.md",
            rss: "—".into(),
        });
        for (what, ours, target) in [
            ("secret scan of `knowledge check`", stats[0], 0.5),
            (
                "  what-if: the same scan text by text (`find_shapes`)",
                stats[1],
                0.0,
            ),
        ] {
            rows.push(Row {
                section: "check",
                what: format!(
                    "{what}, {} records (in-process, one core)",
                    show_count(records as u64)
                ),
                ours,
                baseline: "`git cat-file --batch-check` of the same commit ids".into(),
                base: stats[2],
                target,
                target_from: "PERFORMANCE.md",
                rss: "—".into(),
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Ledger fixtures (generator from benches/commands.rs)
// ---------------------------------------------------------------------------------------

/// Lines of one synthetic episode: opened, 6 decisions, 3 questions asked and resolved,
/// 5 checkpoints, knowledge.derived, closed.
const LINES_PER_EPISODE: u64 = 20;
/// The task every synthetic ledger starts (in its first episode).
const TASK: &str = "t-2026-11-30-beef";

/// A synthetic episode id of the real shape, `YYYYMMDDTHHMMSSZ-<6 hex>`.
fn episode_id(n: u64) -> String {
    let seconds = n % 86_400;
    format!(
        "2026{:02}{:02}T{:02}{:02}{:02}Z-{:06x}",
        1 + (n / 86_400) % 11,
        1 + (n / 86_400) % 28,
        seconds / 3600,
        (seconds / 60) % 60,
        seconds % 60,
        n & 0xff_ffff
    )
}

/// Writes `lines` ledger lines in episodes of [`LINES_PER_EPISODE`], in exactly the
/// format `Ledger::append` writes, then (when `decisions` > 0) one more episode of that
/// many decisions; returns that episode's id.
fn write_synthetic_ledger(path: &Path, lines: u64, decisions: usize) -> BenchResult<String> {
    std::fs::create_dir_all(path.parent().ok_or("the ledger has a directory")?)?;
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut seq = 0u64;
    let mut episode = 0u64;
    let push = |out: &mut BufWriter<File>, line: &LedgerLine| -> BenchResult<()> {
        serde_json::to_writer(&mut *out, line)?;
        out.write_all(b"\n")?;
        Ok(())
    };
    while seq < lines {
        let id = episode_id(episode);
        let ts = format!(
            "2026-11-28T{:02}:{:02}:{:02}Z",
            (episode / 3600) % 24,
            (episode / 60) % 60,
            episode % 60
        );
        for k in 0..LINES_PER_EPISODE {
            if seq >= lines {
                break;
            }
            seq += 1;
            let question = format!("q-{:010x}", episode * 4 + k % 3);
            let mut task = None;
            let (event, data) = match k {
                0 => (
                    Event::SessionOpened,
                    serde_json::json!({"provider": "bench", "branch": "main", "head": null}),
                ),
                1 if episode == 0 => {
                    task = Some(TASK.to_owned());
                    (
                        Event::TaskStarted,
                        serde_json::json!({"description": "the bench's task", "scope": []}),
                    )
                }
                1..=6 => (
                    Event::DecisionRecorded,
                    serde_json::json!({"text": format!("decision {k} of episode {episode}: keep the ledger append-only")}),
                ),
                7..=9 => (
                    Event::QuestionAsked,
                    serde_json::json!({"id": question, "text": format!("question {k} of episode {episode}?")}),
                ),
                10..=12 => (
                    Event::QuestionResolved,
                    serde_json::json!({"id": question, "question": format!("question {k} of episode {episode}?"), "answer": "yes, measured"}),
                ),
                13..=17 => (
                    Event::CheckpointRecorded,
                    serde_json::json!({"text": format!("checkpoint {k} of episode {episode}")}),
                ),
                18 => (
                    Event::KnowledgeDerived,
                    serde_json::json!({"episode": id, "target": "candidates", "written": 0, "unchanged": 0, "skipped": 0, "reviewed": 0, "paths": [], "note": "nothing to write"}),
                ),
                _ => (
                    Event::SessionClosed,
                    serde_json::json!({"record": format!(".ai/repo/sessions/{id}.md"), "commits": 0, "outcome": "no-commits", "knowledge_on_end": true}),
                ),
            };
            push(
                &mut out,
                &LedgerLine {
                    seq,
                    ts: ts.clone(),
                    event,
                    session: Some(id.clone()),
                    task,
                    data,
                },
            )?;
        }
        episode += 1;
    }
    // The derive episode: opened, `decisions` decisions, closed (the day before the rest).
    let id = "20261127T090000Z-d1d1d1".to_owned();
    if decisions > 0 {
        let line = |seq: u64, event: Event, data: serde_json::Value| LedgerLine {
            seq,
            ts: format!(
                "2026-11-29T{:02}:{:02}:{:02}Z",
                9 + seq / 3600 % 12,
                seq / 60 % 60,
                seq % 60
            ),
            event,
            session: Some(id.clone()),
            task: None,
            data,
        };
        seq += 1;
        push(
            &mut out,
            &line(
                seq,
                Event::SessionOpened,
                serde_json::json!({"provider": "bench", "branch": "main", "head": null}),
            ),
        )?;
        for d in 0..decisions {
            seq += 1;
            push(
                &mut out,
                &line(
                    seq,
                    Event::DecisionRecorded,
                    serde_json::json!({"text": format!("Decision {d}: every store write goes through the one atomic writer, and the ledger stays append-only")}),
                ),
            )?;
        }
        seq += 1;
        push(
            &mut out,
            &line(
                seq,
                Event::SessionClosed,
                serde_json::json!({"record": format!(".ai/repo/sessions/{id}.md"), "commits": 0, "outcome": "no-commits", "knowledge_on_end": false}),
            ),
        )?;
    }
    out.flush()?;
    Ok(id)
}

/// A repository with a synthetic ledger of `lines` lines: `git init`, a commit,
/// `majordomus init` committed, the ledger written, the index built.
struct LedgerFixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    lines: u64,
    derive_episode: String,
}

fn ledger_fixture(settings: &Settings, lines: u64, decisions: usize) -> BenchResult<LedgerFixture> {
    let started = Instant::now();
    let dir = temp_dir("majordomus-guarantees-ledger-")?;
    let root = dir.path().canonicalize()?;
    git(&root, &["init", "-q", "-b", "main"])?;
    std::fs::write(root.join("README.md"), "# bench\n")?;
    git(&root, &["add", "README.md"])?;
    git(&root, &["commit", "-q", "-m", "Initial commit"])?;
    Proc::new(&settings.bin, &["init"], &root).output()?;
    git(&root, &["add", ".ai", ".gitignore"])?;
    git(&root, &["commit", "-q", "-m", "majordomus: init"])?;
    let derive_episode =
        write_synthetic_ledger(&root.join(".ai/local/ledger.jsonl"), lines, decisions)?;
    // The first read builds the index (once, untimed).
    Proc::new(&settings.bin, &["briefing"], &root).output()?;
    eprintln!(
        "  ledger of {} lines (+{decisions} decisions): fixture in {}",
        show_count(lines),
        show(started.elapsed())
    );
    Ok(LedgerFixture {
        _dir: dir,
        root,
        lines,
        derive_episode,
    })
}

impl LedgerFixture {
    /// An open episode with a decision, a question, a checkpoint and a commit; the hooks
    /// installed.
    fn open_episode(&self, bin: &Path) -> BenchResult<()> {
        let m = |args: &[&str]| Proc::new(bin, args, &self.root).output();
        m(&["session", "start"])?;
        m(&["decision", "Benchmarks spawn the release binary"])?;
        m(&["question", "Does every read stay flat?"])?;
        m(&["checkpoint", "fixture built"])?;
        std::fs::write(self.root.join("lib.rs"), "pub fn answer() -> u32 { 42 }\n")?;
        git(&self.root, &["add", "lib.rs"])?;
        git(&self.root, &["commit", "-q", "-m", "Add the answer"])?;
        m(&["hooks", "install"])?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// 2. knowledge derive of an episode with 1,000 decisions
// ---------------------------------------------------------------------------------------

/// What a durable writer of the same files must at least do, in-process: for each file,
/// write a temp file, fsync it, rename it over the target, fsync the directory (what
/// `write_atomic` does).
fn durable_write_floor(dir: &Path, files: &[(String, Vec<u8>)]) -> BenchResult<Duration> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let start = Instant::now();
    for (name, bytes) in files {
        let tmp = dir.join(format!(".tmp.{name}"));
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join(name))?;
        File::open(dir)?.sync_all()?;
    }
    Ok(start.elapsed())
}

fn section_derive(settings: &Settings, rows: &mut Vec<Row>) -> BenchResult<()> {
    let fx = ledger_fixture(settings, 1_000, settings.decisions)?;
    let episode = fx.derive_episode.clone();
    let derive = Proc::new(
        &settings.bin,
        &[
            "--format",
            "json",
            "knowledge",
            "derive",
            "--episode",
            &episode,
        ],
        &fx.root,
    );
    // The first derive: its report names the files it wrote.
    let report: serde_json::Value = serde_json::from_str(&derive.output()?)?;
    let written: Vec<PathBuf> = report["written"]
        .as_array()
        .ok_or("derive reports what it wrote")?
        .iter()
        .filter_map(|p| p.as_str())
        .map(|p| fx.root.join(p))
        .collect();
    if written.len() != settings.decisions {
        return Err(format!(
            "derive wrote {} candidates for {} decisions",
            written.len(),
            settings.decisions
        )
        .into());
    }
    let files: Vec<(String, Vec<u8>)> = written
        .iter()
        .map(|p| {
            Ok((
                p.file_name()
                    .ok_or("a file name")?
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(p)?,
            ))
        })
        .collect::<BenchResult<_>>()?;
    let floor_dir = fx.root.join("floor");
    // A first derive each run: the candidates removed before it (untimed).
    let mut first = || -> BenchResult<Duration> {
        for p in &written {
            std::fs::remove_file(p)?;
        }
        derive.time()
    };
    let mut floor = || durable_write_floor(&floor_dir, &files);
    let first_stats = interleaved(settings.slow_runs(), &mut [&mut first, &mut floor])?;
    for p in &written {
        std::fs::remove_file(p)?;
    }
    let first_rss = derive.peak_rss_kb()?;

    // A rerun over the same evidence (nothing to write) against reading the window.
    let history = Proc::new(
        &settings.bin,
        &["--format", "json", "history", "--session", &episode],
        &fx.root,
    );
    let rerun = interleaved(
        settings.runs(),
        &mut [&mut || derive.time(), &mut || history.time()],
    )?;
    let n = show_count(settings.decisions as u64);
    rows.push(Row {
        section: "derive",
        what: format!("`knowledge derive`, episode of {n} decisions: first run ({n} candidates written)"),
        ours: first_stats[0],
        baseline: format!("the same {n} files written durably in-process (temp, fsync, rename, fsync dir: what `write_atomic` does)"),
        base: first_stats[1],
        target: 1.5,
        target_from: "reasoned: derive's own work (window read, ids, rendering) should stay under half its I/O",
        rss: show_kb(first_rss),
    });
    rows.push(Row {
        section: "derive",
        what: format!("`knowledge derive`, episode of {n} decisions: rerun (nothing to write)"),
        ours: rerun[0],
        baseline:
            "`history --session <the episode> --format json` (reads and prints the same window)"
                .into(),
        base: rerun[1],
        target: 2.0,
        target_from: "reasoned: the window read plus reading back one small file per candidate",
        rss: show_kb(derive.peak_rss_kb()?),
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------
// 3. every read command at 1k vs 1M ledger lines; 4. hooks; 5. surfaces
// ---------------------------------------------------------------------------------------

fn section_ledger(
    settings: &Settings,
    small: &LedgerFixture,
    large: &LedgerFixture,
    rows: &mut Vec<Row>,
) -> BenchResult<()> {
    let cases: Vec<(&str, Vec<&str>, &'static [i32])> = vec![
        (
            "`git rev-parse HEAD` (yardstick: git itself)",
            vec!["rev-parse", "HEAD"],
            &[0],
        ),
        ("`session context`", vec!["session", "context"], &[0]),
        ("`briefing`", vec!["briefing"], &[0]),
        ("`context`", vec!["context"], &[0]),
        ("`doctor`", vec!["doctor"], &[0, 10]),
        ("`knowledge check`", vec!["knowledge", "check"], &[0]),
        (
            "`history --event task.started`",
            vec!["history", "--event", "task.started"],
            &[0],
        ),
        (
            "`hook post-commit` (one append)",
            vec!["hook", "post-commit"],
            &[0],
        ),
        (
            "`hook pre-push` (empty stdin)",
            vec!["hook", "pre-push"],
            &[0],
        ),
    ];
    let (a, b) = (show_count(small.lines), show_count(large.lines));
    for (what, args, ok) in cases {
        eprintln!("  {what}");
        let program: PathBuf = if what.starts_with("`git") {
            PathBuf::from("git")
        } else {
            settings.bin.clone()
        };
        let at_small = Proc::new(&program, &args, &small.root).ok(ok);
        let at_large = Proc::new(&program, &args, &large.root).ok(ok);
        let stats = interleaved(
            settings.runs(),
            &mut [&mut || at_large.time(), &mut || at_small.time()],
        )?;
        rows.push(Row {
            section: "ledger",
            what: format!("{what} at {b} ledger lines"),
            ours: stats[0],
            baseline: format!("the same at {a} lines"),
            base: stats[1],
            target: 1.3,
            target_from: "PERFORMANCE.md",
            rss: format!(
                "{} ({a}: {})",
                show_kb(at_large.peak_rss_kb()?),
                show_kb(at_small.peak_rss_kb()?)
            ),
        });
    }
    Ok(())
}

fn section_hooks(settings: &Settings, fx: &LedgerFixture, rows: &mut Vec<Row>) -> BenchResult<()> {
    let head = git(&fx.root, &["rev-parse", "HEAD"])?.trim().to_owned();
    let parent = git(&fx.root, &["rev-parse", "HEAD~1"])?.trim().to_owned();
    let pair = format!("{parent} {head}\n");
    let hooks = fx.root.join(".git/hooks");
    let script = |name: &str| {
        Proc::new(hooks.join(name), &[], &fx.root).env("MAJORDOMUS_BIN", &settings.bin)
    };
    let cases: Vec<(&str, Proc, f64, &'static str)> = vec![
        (
            "installed `.git/hooks/post-commit` (runs `hook post-commit`: one append)",
            script("post-commit"),
            2.0,
            "PERFORMANCE.md",
        ),
        (
            "installed `.git/hooks/pre-push origin <url>`, empty stdin (nothing pushed)",
            {
                let mut p = script("pre-push").stdin(b"");
                p.args = vec!["origin".into(), "https://example.invalid/bench.git".into()];
                p
            },
            2.0,
            "reasoned: as post-commit (an `exec`'d process, nothing to check)",
        ),
        (
            "installed `.git/hooks/post-rewrite amend`, one pair on stdin (one synced append)",
            {
                let mut p = script("post-rewrite").stdin(pair.as_bytes());
                p.args = vec!["amend".into()];
                p
            },
            2.5,
            "reasoned: post-commit's 2x plus one fdatasync (git's post-commit line is not synced; this one is)",
        ),
    ];
    let rev_parse = Proc::new("git", &["rev-parse", "HEAD"], &fx.root);
    for (what, proc, target, from) in cases {
        eprintln!("  {what}");
        let stats = interleaved(
            settings.runs(),
            &mut [&mut || proc.time(), &mut || rev_parse.time()],
        )?;
        rows.push(Row {
            section: "hooks",
            what: format!("{what}, {} ledger lines", show_count(fx.lines)),
            ours: stats[0],
            baseline: "`git rev-parse HEAD`".into(),
            base: stats[1],
            target,
            target_from: from,
            rss: show_kb(proc.peak_rss_kb()?),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Review: 200 candidates promoted by selection in one commit
// ---------------------------------------------------------------------------------------

/// A repository holding `n` committed candidates of distinct claims (no two fold).
fn review_fixture(bin: &Path, n: usize) -> BenchResult<tempfile::TempDir> {
    let dir = temp_dir("majordomus-bench-review-")?;
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"])?;
    std::fs::write(root.join("README.md"), "# bench\n")?;
    git(root, &["add", "README.md"])?;
    git(root, &["commit", "-q", "-m", "Initial commit"])?;
    Proc::new(bin, &["init"], root).output()?;
    let candidates = root.join(".ai/repo/knowledge/candidates");
    std::fs::create_dir_all(&candidates)?;
    for i in 0..n {
        let id = format!("20261130T101500Z-1a2b3c-{:012x}", i + 1);
        let claim = format!("Unit u{i}x keeps k{i}y inside v{i}z");
        std::fs::write(
            candidates.join(format!("{id}.md")),
            format!(
                "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: {claim}\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n  derived_from:\n  - file:README.md\n---\n{claim}\n"
            ),
        )?;
    }
    git(root, &["add", "-A"])?;
    git(root, &["commit", "-q", "-m", "candidates"])?;
    Ok(dir)
}

/// `knowledge promote --all-listed --commit` of 200 candidates (each run on a fresh copy
/// of the fixture, the copy untimed) against `git add -A && git commit` of the same 400
/// paths (the promotion's commit, made by git).
fn section_review(settings: &Settings, rows: &mut Vec<Row>) -> BenchResult<()> {
    const N: usize = 200;
    eprintln!("  review: {N} candidates by selection, one commit");
    let fixture = review_fixture(&settings.bin, N)?;
    let fresh = || -> BenchResult<tempfile::TempDir> {
        let copy = temp_dir("majordomus-bench-review-run-")?;
        let out = Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", fixture.path().display()))
            .arg(copy.path())
            .output()?;
        if !out.status.success() {
            return Err("cp -a of the review fixture failed".into());
        }
        Ok(copy)
    };
    let mut review = || -> BenchResult<Duration> {
        let copy = fresh()?;
        let proc = Proc::new(
            &settings.bin,
            &["knowledge", "promote", "--all-listed", "--commit"],
            copy.path(),
        )
        .stdin(b"benches/guarantees.rs checks every one of them");
        proc.time()
    };
    let mut by_git = || -> BenchResult<Duration> {
        let copy = fresh()?;
        let root = copy.path();
        let candidates = root.join(".ai/repo/knowledge/candidates");
        let curated = root.join(".ai/repo/knowledge/curated");
        std::fs::create_dir_all(&curated)?;
        for entry in std::fs::read_dir(&candidates)? {
            let entry = entry?;
            std::fs::rename(entry.path(), curated.join(entry.file_name()))?;
        }
        let proc = Proc::new(
            "sh",
            &["-c", "git add -A .ai && git commit -q -m review"],
            root,
        );
        proc.time()
    };
    let stats = interleaved(settings.slow_runs(), &mut [&mut review, &mut by_git])?;
    let copy = fresh()?;
    let rss = Proc::new(
        &settings.bin,
        &["knowledge", "promote", "--all-listed", "--commit"],
        copy.path(),
    )
    .stdin(b"benches/guarantees.rs checks every one of them")
    .peak_rss_kb()?;
    rows.push(Row {
        section: "review",
        what: format!("`knowledge promote --all-listed --commit`, {N} candidates"),
        ours: stats[0],
        baseline: format!("`git add -A && git commit` of the same {} paths", 2 * N),
        base: stats[1],
        target: 40.0,
        target_from: "reasoned: 200 acts (each a record written, a ledger line under the lock, the queue read once) and one commit through gix, against one `git commit`; tests/cli/review.rs checks the result, no longer its time",
        rss: show_kb(rss),
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The neutraliser over openers without an end
// ---------------------------------------------------------------------------------------

/// `neutralise` (in-process) over 4,000 units of `<`, `[`, `"`, `![` and schemes without an
/// end against the same over 2,000: every matcher looks a bounded distance from each
/// opener, so twice the text costs twice the time, no more.
fn section_neutralise(settings: &Settings, rows: &mut Vec<Row>) -> BenchResult<()> {
    eprintln!("  neutralise: openers without an end");
    let unit = "<a [b \"c ![d javascript data:x ";
    let (long, short) = (unit.repeat(4_000), unit.repeat(2_000));
    let time = |text: &str| -> BenchResult<Duration> {
        let start = Instant::now();
        let n = majordomus::model::inject::neutralise(text);
        let took = start.elapsed();
        if !n.shapes.is_empty() {
            return Err("the openers were marked".into());
        }
        Ok(took)
    };
    let stats = interleaved(
        settings.runs(),
        &mut [&mut || time(&long), &mut || time(&short)],
    )?;
    rows.push(Row {
        section: "neutralise",
        what: "`neutralise` of 4,000 openers without an end (in-process)".into(),
        ours: stats[0],
        baseline: "the same, 2,000 of them".into(),
        base: stats[1],
        target: 2.5,
        target_from: "reasoned: cost linear in the text (2x the text, 2x the time; 2.5 leaves room for noise); was a `< 2 s` bound in src/model/inject/tests.rs",
        rss: "-".into(),
    });
    Ok(())
}

/// A `majordomus mcp` after the handshake (from benches/surfaces.rs).
struct Mcp {
    child: Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl Mcp {
    fn start(bin: &Path, root: &Path) -> BenchResult<Mcp> {
        let mut child = Command::new(bin)
            .arg("mcp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let lines = BufReader::new(child.stdout.take().ok_or("stdout")?).lines();
        let mut mcp = Mcp {
            child,
            lines,
            next: 1,
        };
        mcp.request(
            r#""method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}"#,
        )?;
        mcp.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
        Ok(mcp)
    }

    fn write(&mut self, line: &str) -> BenchResult<()> {
        let stdin = self.child.stdin.as_mut().ok_or("stdin")?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    fn request(&mut self, body: &str) -> BenchResult<String> {
        let id = self.next;
        self.next += 1;
        self.write(&format!(r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#))?;
        let marker = format!(r#""id":{id},"#);
        loop {
            let line = self.lines.next().ok_or("the server closed")??;
            if line.contains(&marker) {
                return Ok(line);
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// A `majordomus serve --port 0`; its address (from benches/surfaces.rs).
struct Served {
    child: Child,
    addr: String,
}

impl Served {
    fn start(bin: &Path, root: &Path) -> BenchResult<Served> {
        let mut child = Command::new(bin)
            .args(["serve", "--port", "0"])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("stdout")?);
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .ok_or("listening on ...")?
            .to_owned();
        Ok(Served { child, addr })
    }

    fn get(&self, path: &str) -> BenchResult<Vec<u8>> {
        let mut stream = TcpStream::connect(&self.addr)?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer)?;
        Ok(answer)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn section_surfaces(
    settings: &Settings,
    fx: &LedgerFixture,
    rows: &mut Vec<Row>,
) -> BenchResult<()> {
    let root = &fx.root;
    let registry = Registry::standard();
    let mut in_process = || -> BenchResult<Duration> {
        let start = Instant::now();
        let ctx = Ctx::open(root, Clock::System)?;
        registry.invoke(&ctx, "context", serde_json::Value::Null)?;
        Ok(start.elapsed())
    };
    let runs = settings.server_runs();
    let lines = show_count(fx.lines);

    let mut mcp = Mcp::start(&settings.bin, root)?;
    let call = r#""method":"tools/call","params":{"name":"majordomus_context","arguments":{}}"#;
    for _ in 0..10 {
        mcp.request(call)?;
    }
    let mcp_pid = mcp.child.id();
    let stats = {
        let mut through_mcp = || -> BenchResult<Duration> {
            let start = Instant::now();
            let reply = mcp.request(call)?;
            let took = start.elapsed();
            if !reply.contains(r#""isError":false"#) {
                return Err(format!("MCP error: {reply}").into());
            }
            Ok(took)
        };
        interleaved(runs, &mut [&mut through_mcp, &mut in_process])?
    };
    let rss = vm_hwm_kb(mcp_pid).map_or("-".to_owned(), show_kb);
    drop(mcp);
    rows.push(Row {
        section: "surfaces",
        what: format!("MCP `tools/call majordomus_context` on a running `majordomus mcp` (stdio round trip), {lines} ledger lines"),
        ours: stats[0],
        baseline: "the same operation in-process (`Registry::invoke`, repository opened per call)".into(),
        base: stats[1],
        target: 1.5,
        target_from: "reasoned: JSON-RPC framing over a pipe should add under half the operation",
        rss: format!("{rss} (server, VmHWM)"),
    });

    let served = Served::start(&settings.bin, root)?;
    for _ in 0..10 {
        served.get("/api/v1/context")?;
    }
    let stats = {
        let mut through_http = || -> BenchResult<Duration> {
            let start = Instant::now();
            let answer = served.get("/api/v1/context")?;
            let took = start.elapsed();
            if !answer.starts_with(b"HTTP/1.1 200") {
                return Err(String::from_utf8_lossy(&answer).into_owned().into());
            }
            Ok(took)
        };
        interleaved(runs, &mut [&mut through_http, &mut in_process])?
    };
    let rss = vm_hwm_kb(served.child.id()).map_or("-".to_owned(), show_kb);
    drop(served);
    rows.push(Row {
        section: "surfaces",
        what: format!("HTTP `GET /api/v1/context` on a running `majordomus serve --port 0` (new connection each), {lines} ledger lines"),
        ours: stats[0],
        baseline: "the same operation in-process".into(),
        base: stats[1],
        target: 1.5,
        target_from: "reasoned: a loopback connection and HTTP framing should add under half the operation",
        rss: format!("{rss} (server, VmHWM)"),
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------

fn main() -> BenchResult<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(RSS_FLAG) {
        rss_wrapper(&args[1..]);
    }
    let settings = Settings::from_env();
    let started = Instant::now();
    eprintln!(
        "majordomus guarantees bench{}: records {:?}, ledgers {:?}, {} decisions; binary {}",
        if settings.quick { " (quick)" } else { "" },
        settings.records,
        settings.ledger_sizes,
        settings.decisions,
        settings.bin.display()
    );
    let mut rows = Vec::new();
    if settings.wants("check") {
        section_check(&settings, &mut rows)?;
    }
    if settings.wants("derive") {
        section_derive(&settings, &mut rows)?;
    }
    if settings.wants("ledger") || settings.wants("hooks") || settings.wants("surfaces") {
        let (a, b) = settings.ledger_sizes;
        let small = ledger_fixture(&settings, a, 0)?;
        let large = ledger_fixture(&settings, b, 0)?;
        small.open_episode(&settings.bin)?;
        large.open_episode(&settings.bin)?;
        if settings.wants("ledger") {
            section_ledger(&settings, &small, &large, &mut rows)?;
        }
        if settings.wants("hooks") {
            section_hooks(&settings, &large, &mut rows)?;
        }
        if settings.wants("surfaces") {
            section_surfaces(&settings, &large, &mut rows)?;
        }
    }
    if settings.wants("review") {
        section_review(&settings, &mut rows)?;
    }
    if settings.wants("neutralise") {
        section_neutralise(&settings, &mut rows)?;
    }

    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!(
        "majordomus {} guarantees bench{}, {cores} cores, {} in all; medians (p90), majordomus and its baseline interleaved run by run",
        env!("CARGO_PKG_VERSION"),
        if settings.quick { " (quick)" } else { "" },
        show(started.elapsed()),
    );
    println!();
    println!(
        "| measured | runs | majordomus median (p90) | baseline | baseline median (p90) | ratio | target | | peak RSS |"
    );
    println!("| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |");
    for r in &rows {
        let ratio = r.ratio();
        // A what-if row (target 0) is held to nothing: it shows what a choice saves.
        if r.target == 0.0 {
            println!(
                "| {} | {} | {} | {} | {} | {ratio:.2}x | — | what-if | {} |",
                r.what,
                r.ours.runs,
                show_stats(r.ours),
                r.baseline,
                show_stats(r.base),
                r.rss
            );
            continue;
        }
        println!(
            "| {} | {} | {} | {} | {} | {ratio:.2}x | ≤ {:.1}x{} | {} | {} |",
            r.what,
            r.ours.runs,
            show_stats(r.ours),
            r.baseline,
            show_stats(r.base),
            r.target,
            if r.target_from == "PERFORMANCE.md" {
                String::new()
            } else {
                "*".to_owned()
            },
            if ratio <= r.target {
                "pass"
            } else {
                "**over**"
            },
            r.rss
        );
    }
    println!();
    let mut notes: Vec<&str> = rows
        .iter()
        .filter(|r| r.target_from != "PERFORMANCE.md")
        .map(|r| r.target_from)
        .collect();
    notes.dedup();
    println!("\\* targets not stated in docs/PERFORMANCE.md before this bench:");
    for n in notes {
        println!("- {n}");
    }
    if let Some(worst) = rows
        .iter()
        .filter(|r| r.section != "ledger" || !r.what.starts_with("`git"))
        .filter(|r| r.target > 0.0)
        .max_by(|a, b| (a.ratio() / a.target).total_cmp(&(b.ratio() / b.target)))
    {
        println!();
        println!(
            "Worst against its target: {} at {:.2}x (target {:.1}x, {:.0}% of it).",
            worst.what,
            worst.ratio(),
            worst.target,
            100.0 * worst.ratio() / worst.target
        );
    }
    Ok(())
}
