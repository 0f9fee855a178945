//! Benchmark of the intent binding against reading the plan (docs/PERFORMANCE.md): does
//! `intent binding --issue <one>` at 1,000 intents × 20 issues stay within a small factor
//! of reading the files?
//!
//! Plain `Instant` timings, median and p90 over repeated runs, on a synthetic plan this
//! bench generates in a temporary repository: each intent file has 5 criteria citing
//! `file:`/`test:` evidence that exists at HEAD, 20 issues with two globs each serving
//! one or two criteria, a milestone on every fifth issue, and a critique whose blocking
//! finding is resolved (so the binding is `bound`). `MAJORDOMUS_BENCH_QUICK=1` uses 100
//! intents and fewer runs. Beside wall-clock medians it reports the CPU time of each run
//! (this process and its waited-for children, from `/proc/self/stat`), which a busy
//! machine does not inflate. The process timings use the binary next to this bench
//! executable (`target/release/majordomus`: build it first), or `MAJORDOMUS_BENCH_BIN`.
//!
//! ```text
//! cargo build --release -j2 && cargo bench -j2 --bench binding
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use majordomus::git::{Identity, Repo};
use majordomus::intent::BindingAsk;
use majordomus::model::intent::{BindingRequest, BindingStatus, PlanInput, bind};
use majordomus::{Clock, Ctx};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

const ISSUES_PER_INTENT: usize = 20;
const CRITERIA_PER_INTENT: usize = 5;
/// 2026-11-01T00:00:00Z.
const EPOCH: i64 = 1_793_491_200;

fn main() -> BenchResult<()> {
    let quick = std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| v == "1");
    let bin = majordomus_bin()?;
    let (intents, runs) = if quick { (100, 7) } else { (1_000, 21) };
    let fixture = Fixture::build(intents)?;
    let issue = format!(
        "{}-{:02}",
        intent_id(intents / 2),
        ISSUES_PER_INTENT / 2 + 1
    );
    eprintln!(
        "plan: {intents} intents × {ISSUES_PER_INTENT} issues, {} bytes of YAML; asking --issue {issue}",
        fixture.plan_bytes
    );

    let ctx = Ctx::open(&fixture.root, Clock::System)?;
    let ask = BindingAsk {
        issue: Some(issue.clone()),
        ..BindingAsk::default()
    };
    let answer = majordomus::intent::binding(&ctx, ask.clone())?;
    if answer.status != BindingStatus::Bound {
        return Err(format!("the synthetic plan should bind: {}", answer.note).into());
    }

    let library = sample(runs, || {
        let ctx = Ctx::open(&fixture.root, Clock::System)?;
        let start = Instant::now();
        let answer = majordomus::intent::binding(&ctx, ask.clone())?;
        let elapsed = start.elapsed();
        assert_eq!(answer.status, BindingStatus::Bound);
        Ok(elapsed)
    })?;
    let read = sample(runs, || {
        let start = Instant::now();
        let plan = majordomus::store::plan::read_plan(&ctx.layout)?;
        let elapsed = start.elapsed();
        assert!(matches!(plan, PlanInput::Plan(ref p) if p.intents.len() == intents));
        Ok(elapsed)
    })?;
    let process = sample(runs, || {
        let mut cmd = command(&bin, &fixture.root);
        cmd.args(["intent", "binding", "--issue", &issue]);
        timed(cmd)
    })?;
    let cat = sample(runs, || {
        let mut cmd = command(Path::new("cat"), &fixture.root);
        cmd.args(&fixture.files);
        timed(cmd)
    })?;
    let by_paths = sample(runs, || {
        let ctx = Ctx::open(&fixture.root, Clock::System)?;
        let ask = BindingAsk {
            scope: vec![format!(
                "src/{}/m{:02}/lib.rs",
                intent_id(intents / 2),
                ISSUES_PER_INTENT / 2 + 1
            )],
            ..BindingAsk::default()
        };
        let start = Instant::now();
        let answer = majordomus::intent::binding(&ctx, ask)?;
        let elapsed = start.elapsed();
        assert_eq!(answer.status, BindingStatus::Bound, "{}", answer.note);
        Ok(elapsed)
    })?;

    // Where the library's time goes, step by step, through the same public API.
    let files = majordomus::store::plan::plan_files(&ctx.layout)?.ok_or("no plan")?;
    let plan = PlanInput::read(Some(&files));
    let request = BindingRequest {
        issue: Some(issue.clone()),
        ..BindingRequest::default()
    };
    let served: Vec<String> = {
        let cited = std::cell::RefCell::new(Vec::new());
        bind(&plan, &request, &[], &|path| {
            cited.borrow_mut().push(path.to_owned());
            None
        });
        cited.into_inner()
    };
    let steps = [
        (
            "open the repository (gix discover)",
            sample(runs, || {
                let start = Instant::now();
                let _ctx = Ctx::open(&fixture.root, Clock::System)?;
                Ok(start.elapsed())
            })?,
        ),
        (
            "read the plan files (`store::plan::plan_files`)",
            sample(runs, || {
                let start = Instant::now();
                let read = majordomus::store::plan::plan_files(&ctx.layout)?;
                let elapsed = start.elapsed();
                assert!(read.is_some_and(|f| f.len() == files.len()));
                Ok(elapsed)
            })?,
        ),
        (
            "parse them strictly (`PlanInput::read`, files spread over the cores)",
            sample(runs, || {
                let start = Instant::now();
                let plan = PlanInput::read(Some(&files));
                let elapsed = start.elapsed();
                assert!(matches!(plan, PlanInput::Plan(_)));
                Ok(elapsed)
            })?,
        ),
        (
            "  for contrast: a YAML value tree of every file, one thread (`yaml_serde::Value`)",
            sample(runs, || {
                let start = Instant::now();
                for file in &files {
                    let _: yaml_serde::Value = yaml_serde::from_str(&file.text)?;
                }
                Ok(start.elapsed())
            })?,
        ),
        (
            "bind, pure (`model::intent::bind`, twice: once to learn the cited evidence)",
            sample(runs, || {
                let start = Instant::now();
                bind(&plan, &request, &[], &|_| None);
                let answer = bind(&plan, &request, &[], &|_| None);
                let elapsed = start.elapsed();
                assert_eq!(answer.status, BindingStatus::Bound);
                Ok(elapsed)
            })?,
        ),
        (
            "blob ids of the served evidence at HEAD",
            sample(runs, || {
                let start = Instant::now();
                let found = ctx
                    .repo
                    .blob_ids_at(None, served.iter().map(String::as_str))?;
                let elapsed = start.elapsed();
                assert!(!found.is_empty());
                Ok(elapsed)
            })?,
        ),
    ];

    let mut report = String::new();
    let _ = writeln!(
        report,
        "majordomus bench binding ({}; binary {})\n",
        if quick { "quick" } else { "full" },
        bin.display()
    );
    let _ = writeln!(
        report,
        "{intents} intents × {ISSUES_PER_INTENT} issues ({} issues, {} intent files, {:.1} MB of YAML), median / p90 of {runs} runs:\n",
        intents * ISSUES_PER_INTENT,
        fixture.files.len(),
        fixture.plan_bytes as f64 / 1e6
    );
    let _ = writeln!(report, "| measurement | median | p90 | CPU per run |");
    let _ = writeln!(report, "|---|---:|---:|---:|");
    for (name, stats) in [
        (
            format!("library `intent::binding` --issue {issue}"),
            library,
        ),
        (
            "library `store::plan::read_plan` (read and parse every file)".to_owned(),
            read,
        ),
        (
            format!("process `majordomus intent binding --issue {issue}`"),
            process,
        ),
        (
            format!("process `cat` of the {} plan files", fixture.files.len()),
            cat,
        ),
        (
            "library `intent::binding` --scope <one file> (paths alone: every glob)".to_owned(),
            by_paths,
        ),
    ] {
        let _ = writeln!(
            report,
            "| {name} | {} | {} | {} |",
            ms(stats.median),
            ms(stats.p90),
            cpu_ms(stats.cpu, runs)
        );
    }
    let _ = writeln!(
        report,
        "\nmedians: binding / read_plan {:.2}x; process / cat {:.2}x; paths alone / read_plan {:.2}x",
        ratio(library.median, read.median),
        ratio(process.median, cat.median),
        ratio(by_paths.median, read.median)
    );
    let _ = writeln!(
        report,
        "CPU: binding / read_plan {:.2}x; process / cat {:.2}x; paths alone / read_plan {:.2}x",
        ratio(library.cpu, read.cpu),
        ratio(process.cpu, cat.cpu),
        ratio(by_paths.cpu, read.cpu)
    );
    let _ = writeln!(
        report,
        "\nWhere `intent binding --issue` spends its time (library, median / p90 of {runs}):\n"
    );
    let _ = writeln!(report, "| step | median | p90 | CPU per run |");
    let _ = writeln!(report, "|---|---:|---:|---:|");
    for (name, stats) in steps {
        let _ = writeln!(
            report,
            "| {name} | {} | {} | {} |",
            ms(stats.median),
            ms(stats.p90),
            cpu_ms(stats.cpu, runs)
        );
    }
    print!("{report}");
    Ok(())
}

fn intent_id(n: usize) -> String {
    format!("i{n:04}")
}

/// The synthetic repository: the plan and its evidence committed.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// The plan files, relative to the root (for `cat`).
    files: Vec<String>,
    plan_bytes: usize,
}

impl Fixture {
    fn build(intents: usize) -> BenchResult<Fixture> {
        let dir = tempfile::Builder::new()
            .prefix("majordomus-bench-binding-")
            .tempdir()?;
        let root = dir.path().canonicalize()?;
        let repo = Repo::init(&root)?;
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for n in 0..intents {
            let id = intent_id(n);
            for c in 1..=CRITERIA_PER_INTENT {
                files.push((
                    format!("src/{id}/c{c}.rs"),
                    format!("//! Criterion {c} of {id}.\npub fn c{c}() {{}}\n").into_bytes(),
                ));
            }
            files.push((
                format!("tests/{id}.rs"),
                format!("#[test]\nfn {id}() {{}}\n").into_bytes(),
            ));
            files.push((
                format!(".ai/repo/intents/{id}.yaml"),
                intent_file(n).into_bytes(),
            ));
        }
        files.push((
            ".ai/repo/intents/milestones.yaml".to_owned(),
            b"# Maintenance paths no intent names.\nmilestones:\n  - id: upkeep\n    paths: [build/**, ci/**]\n  - id: m1\n    paths: [vendor/**]\n".to_vec(),
        ));
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_slice()))
            .collect();
        repo.commit_files(
            &refs,
            "The plan and its evidence",
            EPOCH,
            &Identity {
                name: "bench".into(),
                email: "bench@majordomus.invalid".into(),
            },
        )?;
        drop(repo);
        let ctx = Ctx::open(&root, Clock::System)?;
        majordomus::init::init(&ctx, Default::default())?;
        let plan: Vec<&(String, Vec<u8>)> = files
            .iter()
            .filter(|(p, _)| p.starts_with(".ai/repo/intents/"))
            .collect();
        Ok(Fixture {
            _dir: dir,
            root,
            plan_bytes: plan.iter().map(|(_, b)| b.len()).sum(),
            files: plan.into_iter().map(|(p, _)| p.clone()).collect(),
        })
    }
}

/// One intent file, written as a person would: comments, block lists, flow lists.
fn intent_file(n: usize) -> String {
    let id = intent_id(n);
    let mut out = format!(
        "# Intent {n}: what group {n} of the product must do.\nid: {id}\nstatus: active\nstatement: >-\n  Group {n} does what its users need, and says so when it cannot.\ninvariants:\n  - Nothing in group {n} panics on user input.\n  - Group {n} never writes outside its own folder.\nnon_goals:\n  - Group {n} is not a plugin system.\ncriteria:\n"
    );
    for c in 1..=CRITERIA_PER_INTENT {
        let _ = write!(
            out,
            "  - id: c{c}\n    text: Group {n} meets criterion {c}, checked by its test.\n    evidence:\n      - file:src/{id}/c{c}.rs\n      - test:tests/{id}.rs\n"
        );
    }
    out.push_str("issues:\n");
    for k in 1..=ISSUES_PER_INTENT {
        let first = (k - 1) % CRITERIA_PER_INTENT + 1;
        let second = k % CRITERIA_PER_INTENT + 1;
        let _ = write!(
            out,
            "  - id: {id}-{k:02}\n    title: \"Feature {k} of group {n}\"\n    status: {}\n    paths:\n      - src/{id}/m{k:02}/**\n      - docs/{id}/m{k:02}/*.md\n    serves: [c{first}, c{second}]\n",
            match k % 3 {
                0 => "done",
                1 => "open",
                _ => "active",
            }
        );
        if k % 5 == 0 {
            let _ = writeln!(out, "    milestone: m{}", k / 5);
        }
    }
    let _ = write!(
        out,
        "critiques:\n  - commit: \"{:040x}\"\n    findings:\n      - id: f1\n        blocking: true\n        text: Group {n} had no failure mode.\n        resolution: Criterion c5 covers it.\n      - id: f2\n        blocking: false\n        text: Titles could be shorter.\n",
        n + 1
    );
    out
}

/// `target/<profile>/majordomus`: the bench executable lives in `target/<profile>/deps/`.
fn majordomus_bin() -> BenchResult<PathBuf> {
    if let Ok(path) = std::env::var("MAJORDOMUS_BENCH_BIN") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("majordomus"))
        .ok_or("the bench executable has no target directory")?;
    if !bin.is_file() {
        return Err(format!(
            "{} not found: build the binary first (cargo build --release), or set MAJORDOMUS_BENCH_BIN",
            bin.display()
        )
        .into());
    }
    Ok(bin)
}

/// Median and p90 of a set of runs.
#[derive(Debug, Clone, Copy)]
struct Stats {
    median: Duration,
    p90: Duration,
    /// CPU time (user + system, this process and the children it waited for) per run,
    /// averaged over the runs: what the work costs whatever else the machine runs.
    cpu: Duration,
}

impl Stats {
    fn of(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        let n = samples.len();
        Stats {
            median: samples[n / 2],
            p90: samples[(n * 9).div_ceil(10).max(1) - 1],
            cpu: Duration::ZERO,
        }
    }
}

/// Runs `f` once to warm caches, then `runs` times, timing each.
fn sample(runs: usize, mut f: impl FnMut() -> BenchResult<Duration>) -> BenchResult<Stats> {
    f()?;
    let mut samples = Vec::with_capacity(runs);
    let before = cpu_ticks()?;
    for _ in 0..runs {
        samples.push(f()?);
    }
    let ticks = cpu_ticks()? - before;
    let mut stats = Stats::of(samples);
    // Linux counts CPU time in ticks of 1/100 s (`getconf CLK_TCK`).
    stats.cpu = Duration::from_millis(ticks * 10) / runs as u32;
    Ok(stats)
}

/// utime + stime + cutime + cstime of this process, in clock ticks (`/proc/self/stat`).
fn cpu_ticks() -> BenchResult<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let (_, rest) = stat.rsplit_once(')').ok_or("unreadable /proc/self/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3, utime 14 ... cstime 17 (1-based).
    let mut total = 0;
    for field in &fields[11..15] {
        total += field.parse::<i64>()?.max(0) as u64;
    }
    Ok(total)
}

/// CPU time per run, or what it is below when no tick was counted.
fn cpu_ms(d: Duration, runs: usize) -> String {
    if d.is_zero() {
        format!("< {:.2} ms", 10.0 / runs as f64)
    } else {
        ms(d)
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// A child process with git's configuration pinned to the repository's own.
fn command(program: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("MAJORDOMUS_NOW")
        .stdin(Stdio::null());
    cmd
}

/// Runs a process to completion and returns how long it took; fails on a non-zero exit.
fn timed(mut cmd: Command) -> BenchResult<Duration> {
    let start = Instant::now();
    let output = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output()?;
    let elapsed = start.elapsed();
    if !output.status.success() {
        return Err(format!(
            "{cmd:?} exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(elapsed)
}
