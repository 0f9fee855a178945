//! What the git hooks cost (issue "Step 10 of 12", item 10), in one run, side by side
//! with git:
//!
//! 1. **The installed hook, in CPU.** One repository with an open episode and the hooks
//!    installed: the CPU time (user + system, `getrusage(RUSAGE_CHILDREN)` around each run)
//!    and the wall time of `git rev-parse HEAD`, of `majordomus hook post-commit` itself, of
//!    the script earlier versions installed (`sh`, `command -v`, `exec`), of the same script
//!    without `command -v`, and of the hook `hooks install` writes now (`#!<binary>
//!    hook-script`: no shell), all interleaved run by run.
//! 2. **The push scan.** A repository whose remote already has a store of session records
//!    under `.ai/repo/`, and a push of 1 and of 500 new commits, each adding one session
//!    record and changing a shared one: `majordomus hook pre-push` (the whole hook: the
//!    knowledge check of the tip and the secret scan of every pushed commit) against `git
//!    rev-list --objects <tip> --not --remotes` (git listing the objects the same push
//!    sends), and the scan's own phase (`MAJORDOMUS_TIMING`), with what it read.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench hooks
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench hooks      # fewer runs, a smaller store
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                   # another binary
//! MAJORDOMUS_BENCH_DIR=/mnt/disk                             # where the repositories go
//! MAJORDOMUS_BENCH_BASELINE=/path/to/other/majordomus         # its rows too, interleaved
//! MAJORDOMUS_BENCH_ONLY=cpu                                  # one section (cpu or push)
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

/// A command with the environment every run gets.
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
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

fn git(dir: &Path, args: &[&str]) -> BenchResult<String> {
    let out = command(Path::new("git"), args, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A measured process: program, arguments, extra environment, stdin, the exit codes that
/// are fine.
struct Proc {
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    env: Vec<(String, String)>,
    stdin: Vec<u8>,
}

impl Proc {
    fn new(program: impl AsRef<Path>, args: &[&str], dir: &Path) -> Proc {
        Proc {
            program: program.as_ref().to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: dir.to_owned(),
            env: Vec::new(),
            stdin: Vec::new(),
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
        self.stdin = bytes.to_vec();
        self
    }

    fn command(&self) -> Command {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let mut cmd = command(&self.program, &args, &self.dir);
        cmd.stdin(Stdio::piped());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// One run: its wall time and its CPU time (its own and its children's, user and
    /// system), the process's exit code checked.
    fn run(&self) -> BenchResult<(Duration, Duration, u64)> {
        let before = children_usage();
        let start = Instant::now();
        let mut child = self.command().spawn()?;
        child
            .stdin
            .take()
            .ok_or("no stdin")?
            .write_all(&self.stdin)?;
        let status = child.wait()?;
        let wall = start.elapsed();
        let after = children_usage();
        let cpu = after.0.saturating_sub(before.0);
        let faults = after.1.saturating_sub(before.1);
        if !status.success() {
            return Err(format!(
                "{} {} exited {status}",
                self.program.display(),
                self.args.join(" ")
            )
            .into());
        }
        Ok((wall, cpu, faults))
    }

    /// One run with `MAJORDOMUS_TIMING=1`: its stderr.
    fn timing(&self) -> BenchResult<String> {
        let mut cmd = self.command();
        cmd.env("MAJORDOMUS_TIMING", "1").stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        child
            .stdin
            .take()
            .ok_or("no stdin")?
            .write_all(&self.stdin)?;
        let out = child.wait_with_output()?;
        Ok(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The CPU time and the minor page faults of every child this process waited for so far.
fn children_usage() -> (Duration, u64) {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    (
        tv(usage.user_time()) + tv(usage.system_time()),
        usage.minor_page_faults() as u64,
    )
}

/// Each process once to warm up, then `runs` rounds of each in turn: wall and CPU stats,
/// and the median of the minor page faults.
fn interleaved(runs: usize, procs: &[&Proc]) -> BenchResult<Vec<(Stats, Stats, u64)>> {
    for p in procs {
        p.run()?;
    }
    let mut samples = vec![(Vec::new(), Vec::new(), Vec::new()); procs.len()];
    for _ in 0..runs {
        for (p, (walls, cpus, faults)) in procs.iter().zip(&mut samples) {
            let (wall, cpu, fault) = p.run()?;
            walls.push(wall);
            cpus.push(cpu);
            faults.push(fault);
        }
    }
    Ok(samples
        .into_iter()
        .map(|(w, c, mut f)| {
            f.sort_unstable();
            (Stats::of(w), Stats::of(c), f[f.len() / 2])
        })
        .collect())
}

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// A repository with majordomus initialised, an open episode and the hooks installed.
fn hook_repository(bin: &Path) -> BenchResult<(tempfile::TempDir, PathBuf)> {
    let dir = temp_dir("majordomus-bench-hooks-")?;
    let root = dir.path().canonicalize()?;
    git(&root, &["init", "-q", "-b", "main"])?;
    std::fs::write(root.join("README.md"), "# bench\n")?;
    git(&root, &["add", "README.md"])?;
    git(&root, &["commit", "-q", "-m", "Initial commit"])?;
    let m = |args: &[&str]| -> BenchResult<()> {
        let ok = command(bin, args, &root).status()?.success();
        if ok {
            Ok(())
        } else {
            Err(format!("majordomus {}", args.join(" ")).into())
        }
    };
    m(&["init"])?;
    git(&root, &["add", ".ai", ".gitignore"])?;
    git(&root, &["commit", "-q", "-m", "majordomus: init"])?;
    m(&["session", "start"])?;
    m(&["hooks", "install"])?;
    Ok((dir, root))
}

/// Written back, then dropped from the page cache (GNU dd's `iflag=nocache`), so the next
/// start reads it from disk; best effort: a note when it cannot.
fn evict_from_page_cache(path: &Path) {
    let synced = std::fs::File::open(path).and_then(|f| f.sync_all()).is_ok();
    let dropped = Command::new("dd")
        .arg(format!("if={}", path.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status()
        .is_ok_and(|s| s.success());
    if !(synced && dropped) {
        eprintln!("note: {} stays in the page cache as it is", path.display());
    }
}

fn section_hook_cpu(bin: &Path, runs: usize) -> BenchResult<()> {
    let (_dir, root) = hook_repository(bin)?;
    let scripts = root.join("scripts");
    std::fs::create_dir_all(&scripts)?;
    let write = |name: &str, text: &str| -> BenchResult<PathBuf> {
        let path = scripts.join(name);
        std::fs::write(&path, text)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(path)
    };
    let earlier = write(
        "post-commit-earlier",
        "#!/bin/sh\n# majordomus-hook: post-commit\ncommand -v \"${MAJORDOMUS_BIN:-majordomus}\" >/dev/null 2>&1 || exit 0\nexec \"${MAJORDOMUS_BIN:-majordomus}\" hook post-commit \"$@\"\n",
    )?;
    let no_probe = write(
        "post-commit-no-probe",
        "#!/bin/sh\nexec \"${MAJORDOMUS_BIN:-majordomus}\" hook post-commit \"$@\"\n",
    )?;
    let installed = root.join(".git/hooks/post-commit");
    let first = std::fs::read_to_string(&installed)?;
    let rev_parse = Proc::new("git", &["rev-parse", "HEAD"], &root);
    let binary = Proc::new(bin, &["hook", "post-commit"], &root);
    let earlier = Proc::new(&earlier, &[], &root).env("MAJORDOMUS_BIN", bin);
    let no_probe = Proc::new(&no_probe, &[], &root).env("MAJORDOMUS_BIN", bin);
    let direct = Proc::new(&installed, &[], &root);
    let mut rows: Vec<(String, &Proc)> = vec![
        ("`git rev-parse HEAD` (the yardstick)".into(), &rev_parse),
        (
            "`majordomus hook post-commit` (the binary itself)".into(),
            &binary,
        ),
        (
            "the hook earlier versions installed: `sh`, `command -v`, `exec`".into(),
            &earlier,
        ),
        (
            "the same script without `command -v` (`sh`, `exec`)".into(),
            &no_probe,
        ),
        (
            "the hook `hooks install` writes now (`#!<binary> hook-script`, no shell)".into(),
            &direct,
        ),
    ];
    // Another build of majordomus side by side (before/after a change), on the same
    // repository and ledger: `MAJORDOMUS_BENCH_BASELINE=<binary>`.
    let baseline = match std::env::var_os("MAJORDOMUS_BENCH_BASELINE") {
        Some(other) => {
            let other = PathBuf::from(other).canonicalize()?;
            let dir = scripts.join("baseline");
            std::fs::create_dir_all(&dir)?;
            let hook = dir.join("post-commit");
            std::fs::write(&hook, format!("#!{} hook-script\n", other.display()))?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
            println!("baseline: `{}`", other.display());
            println!();
            Some((
                Proc::new(&other, &["hook", "post-commit"], &root),
                Proc::new(&hook, &[], &root),
            ))
        }
        None => None,
    };
    if let Some((binary, hook)) = &baseline {
        rows.push(("baseline: `hook post-commit`".into(), binary));
        rows.push((
            "baseline: its direct hook (`#!<baseline> hook-script`)".into(),
            hook,
        ));
    }
    // The page cache holds a binary copied with `cp` in larger pieces than one fresh from
    // the linker or read from disk: the copy takes ~25 page faults fewer a start. Both
    // binaries start from disk alike.
    evict_from_page_cache(bin);
    if let Some((binary, _)) = &baseline {
        evict_from_page_cache(&binary.program);
    }
    let procs: Vec<&Proc> = rows.iter().map(|(_, p)| *p).collect();
    let stats = interleaved(runs, &procs)?;
    println!("## The installed post-commit hook, in CPU ({runs} runs each, interleaved)");
    println!();
    println!(
        "installed hook: `{}`",
        first.lines().next().unwrap_or_default()
    );
    println!();
    println!(
        "| run | CPU median (p90) | vs git (CPU) | wall median (p90) | vs git (wall) | page faults (median) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let (git_wall, git_cpu) = (stats[0].0.median, stats[0].1.median);
    for ((what, _), (wall, cpu, faults)) in rows.iter().zip(&stats) {
        println!(
            "| {what} | {} ({}) | {:.2}x | {} ({}) | {:.2}x | {faults} |",
            show(cpu.median),
            show(cpu.p90),
            ratio(cpu.median, git_cpu),
            show(wall.median),
            show(wall.p90),
            ratio(wall.median, git_wall)
        );
    }
    println!();
    Ok(())
}

/// A repository whose origin already has `store` session records, then `pushed` new
/// commits on main, each adding one record and changing a shared one.
fn push_repository(
    bin: &Path,
    store: usize,
    pushed: usize,
) -> BenchResult<(tempfile::TempDir, PathBuf, String)> {
    let (dir, root) = hook_repository(bin)?;
    let sessions = root.join(".ai/repo/sessions");
    std::fs::create_dir_all(&sessions)?;
    for i in 0..store {
        std::fs::write(
            sessions.join(format!("upstream-{i:05}.md")),
            format!("---\nschema: session/v1\n---\nUpstream session {i}: nothing secret here.\n"),
        )?;
    }
    git(&root, &["add", "-A"])?;
    git(&root, &["commit", "-q", "-m", "The store so far"])?;
    let origin = dir.path().join("origin.git");
    git(dir.path(), &["init", "-q", "--bare", "origin.git"])?;
    git(
        &root,
        &["remote", "add", "origin", origin.to_str().ok_or("path")?],
    )?;
    command(Path::new("git"), &["push", "-q", "origin", "main"], &root)
        .env("MAJORDOMUS_BIN", bin)
        .status()?;
    git(&root, &["fetch", "-q", "origin"])?;
    let remote = git(&root, &["rev-parse", "origin/main"])?;
    // The new commits, written with one fast-import stream (git commit per commit would
    // take minutes at 500).
    let mut stream = String::new();
    for i in 0..pushed {
        let record = format!("---\nschema: session/v1\n---\nSession {i} of this push.\n");
        let index = format!("the newest is {i}\n");
        let message = format!("Session {i}");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter bench <bench@majordomus.invalid> {} +0000\ndata {}\n{message}\n",
            1_764_000_000 + i,
            message.len() + 1
        ));
        if i == 0 {
            stream.push_str(&format!("from {remote}\n"));
        }
        stream.push_str(&format!(
            "M 100644 inline .ai/repo/sessions/pushed-{i:05}.md\ndata {}\n{record}\nM 100644 inline .ai/repo/sessions/index.md\ndata {}\n{index}\nM 100644 inline src/step.txt\ndata {}\n{i}\n\n",
            record.len(),
            index.len(),
            i.to_string().len() + 1,
        ));
    }
    let mut child = command(Path::new("git"), &["fast-import", "--quiet"], &root)
        .stdin(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(stream.as_bytes())?;
    if !child.wait()?.success() {
        return Err("git fast-import failed".into());
    }
    git(&root, &["reset", "-q", "--hard", "main"])?;
    Ok((dir, root, remote))
}

fn section_push(bin: &Path, runs: usize, store: usize) -> BenchResult<()> {
    println!(
        "## The push scan: what a push of 1 and of 500 commits costs ({runs} runs each, interleaved; {store} session records already on the remote)"
    );
    println!();
    println!(
        "| push | majordomus `hook pre-push` wall (CPU) | of it, the scan (`pre-push.scan`) | `git rev-list --objects <tip> --not --remotes` wall (CPU) | ratio (wall) | scanned |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | --- |");
    for pushed in [1, 500] {
        let (_dir, root, remote) = push_repository(bin, store, pushed)?;
        let tip = git(&root, &["rev-parse", "HEAD"])?;
        let line = format!("refs/heads/main {tip} refs/heads/main {remote}\n");
        let url = root.join("../origin.git").display().to_string();
        let hook =
            Proc::new(bin, &["hook", "pre-push", "origin", &url], &root).stdin(line.as_bytes());
        let rev_list = Proc::new(
            "git",
            &["rev-list", "--objects", &tip, "--not", "--remotes"],
            &root,
        );
        let stats = interleaved(runs, &[&hook, &rev_list])?;
        let timing = hook.timing()?;
        let scan = timing
            .lines()
            .find(|l| l.contains("pre-push.scan"))
            .unwrap_or("(no timing line)")
            .trim_start_matches("timing: ")
            .to_owned();
        let counted = {
            let out = Proc::new(
                bin,
                &["--format", "json", "hook", "pre-push", "origin", &url],
                &root,
            )
            .stdin(line.as_bytes())
            .command()
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                c.stdin.take().map(|mut s| s.write_all(line.as_bytes()));
                c.wait_with_output()
            })?;
            let json: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            format!(
                "{} commit(s), {} blob(s)",
                json["scanned"]["commits"], json["scanned"]["blobs"]
            )
        };
        println!(
            "| {pushed} commit(s) | {} ({}) | {scan} | {} ({}) | {:.2}x | {counted} |",
            show(stats[0].0.median),
            show(stats[0].1.median),
            show(stats[1].0.median),
            show(stats[1].1.median),
            ratio(stats[0].0.median, stats[1].0.median),
        );
    }
    println!();
    Ok(())
}

fn main() -> BenchResult<()> {
    let quick = std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let bin = bench_bin();
    let (runs, push_runs, store) = if quick {
        (21, 5, 200)
    } else {
        (201, 21, 2_000)
    };
    let started = Instant::now();
    eprintln!(
        "majordomus hooks bench{}: binary {}",
        if quick { " (quick)" } else { "" },
        bin.display()
    );
    println!(
        "majordomus {} hooks bench{}, {} cores",
        env!("CARGO_PKG_VERSION"),
        if quick { " (quick)" } else { "" },
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!();
    // `MAJORDOMUS_BENCH_ONLY=cpu` or `=push`: one section.
    let only = std::env::var("MAJORDOMUS_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "cpu" {
        section_hook_cpu(&bin, runs)?;
    }
    if only.is_empty() || only == "push" {
        section_push(&bin, push_runs, store)?;
    }
    println!("{} in all", show(started.elapsed()));
    Ok(())
}
