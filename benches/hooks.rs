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
//! 3. **The moment of work** (issue "Step 14 of 16", item 7). The recall bench's store
//!    (`common/store.rs`) of 10,000 records and a ledger of 100,000 lines, an open episode
//!    and the index built: `hook prompt` with words that match records (twelve prompts in
//!    turn: a run shows new records or finds them all shown already), with filler only,
//!    `hook edit` of a file not touched yet this episode (one more file each run) and of a
//!    `Read`, and `hook session-start` in the open episode, interleaved with `git rev-parse
//!    HEAD` against the 15 ms target, in episodes of 25 moments of each kind (a long
//!    working session: each closes and the next opens, untimed); whether the first runs put
//!    records before the model; the same hooks in one long episode of 200 prompts and 200
//!    edits; and each hook's phases (`MAJORDOMUS_TIMING`), the payloads with nothing to
//!    rank by checked to open no index (no `recall.` phase).
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench hooks
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench hooks      # fewer runs, a smaller store
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                   # another binary
//! MAJORDOMUS_BENCH_DIR=/mnt/disk                             # where the repositories go
//! MAJORDOMUS_BENCH_BASELINE=/path/to/other/majordomus         # its rows too, interleaved
//! MAJORDOMUS_BENCH_ONLY=cpu                                  # one section (cpu, push, moment)
//! MAJORDOMUS_BENCH_KEEP=1                                    # keep the moment's store
//! ```
#![forbid(unsafe_code)]

mod common;
#[path = "common/store.rs"]
mod store;

use common::Stats;
use std::cell::Cell;
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

/// A measured process: program, arguments, extra environment, stdin (one for every run, or
/// several taken in turn), and whether its stdout is read or dropped.
struct Proc {
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    env: Vec<(String, String)>,
    stdins: Vec<Vec<u8>>,
    /// How many runs took a stdin so far: the next one's is `stdins[next % len]`.
    next: Cell<usize>,
    capture: bool,
}

/// One run: its wall time, its CPU time (its own and its children's, user and system), its
/// minor page faults, and what it printed (when its stdout is read).
struct Run {
    wall: Duration,
    cpu: Duration,
    faults: u64,
    stdout: Vec<u8>,
}

impl Proc {
    fn new(program: impl AsRef<Path>, args: &[&str], dir: &Path) -> Proc {
        Proc {
            program: program.as_ref().to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: dir.to_owned(),
            env: Vec::new(),
            stdins: vec![Vec::new()],
            next: Cell::new(0),
            capture: false,
        }
    }

    fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Proc {
        self.env.push((
            key.to_owned(),
            value.as_ref().to_string_lossy().into_owned(),
        ));
        self
    }

    fn stdin(self, bytes: &[u8]) -> Proc {
        self.stdins(vec![bytes.to_vec()])
    }

    /// A stdin a run, taken in turn.
    fn stdins(mut self, each: Vec<Vec<u8>>) -> Proc {
        assert!(!each.is_empty(), "a process reads at least one stdin");
        self.stdins = each;
        self
    }

    /// Reads what each run prints (the runs that print nothing tell apart).
    fn capturing(mut self) -> Proc {
        self.capture = true;
        self
    }

    /// The stdin of the next run.
    fn next_stdin(&self) -> &[u8] {
        let n = self.next.get();
        self.next.set(n + 1);
        &self.stdins[n % self.stdins.len()]
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

    /// One run, the process's exit code checked.
    fn run(&self) -> BenchResult<Run> {
        let before = children_usage();
        let start = Instant::now();
        let mut cmd = self.command();
        if self.capture {
            cmd.stdout(Stdio::piped());
        }
        let mut child = cmd.spawn()?;
        child
            .stdin
            .take()
            .ok_or("no stdin")?
            .write_all(self.next_stdin())?;
        let out = child.wait_with_output()?;
        let wall = start.elapsed();
        let after = children_usage();
        let cpu = after.0.saturating_sub(before.0);
        let faults = after.1.saturating_sub(before.1);
        let status = out.status;
        if !status.success() {
            return Err(format!(
                "{} {} exited {status}",
                self.program.display(),
                self.args.join(" ")
            )
            .into());
        }
        Ok(Run {
            wall,
            cpu,
            faults,
            stdout: out.stdout,
        })
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
            .write_all(self.next_stdin())?;
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

/// Each process once to warm up, then `runs` rounds of each in turn: every process's runs.
fn interleaved_runs(runs: usize, procs: &[&Proc]) -> BenchResult<Vec<Vec<Run>>> {
    interleaved_runs_with(runs, procs, usize::MAX, &mut || Ok(()))
}

/// [`interleaved_runs`], calling `between` (untimed) after every `every` rounds.
fn interleaved_runs_with(
    runs: usize,
    procs: &[&Proc],
    every: usize,
    between: &mut dyn FnMut() -> BenchResult<()>,
) -> BenchResult<Vec<Vec<Run>>> {
    for p in procs {
        p.run()?;
    }
    let mut samples: Vec<Vec<Run>> = procs.iter().map(|_| Vec::with_capacity(runs)).collect();
    for round in 0..runs {
        if round > 0 && round % every == 0 {
            between()?;
        }
        for (p, runs) in procs.iter().zip(&mut samples) {
            runs.push(p.run()?);
        }
    }
    Ok(samples)
}

/// Wall and CPU stats of some runs, and the median of their minor page faults.
fn summary<'a>(runs: impl IntoIterator<Item = &'a Run>) -> (Stats, Stats, u64) {
    let runs: Vec<&Run> = runs.into_iter().collect();
    let mut faults: Vec<u64> = runs.iter().map(|r| r.faults).collect();
    faults.sort_unstable();
    (
        Stats::of(runs.iter().map(|r| r.wall).collect()),
        Stats::of(runs.iter().map(|r| r.cpu).collect()),
        faults[faults.len() / 2],
    )
}

/// [`interleaved_runs`], summed up a process.
fn interleaved(runs: usize, procs: &[&Proc]) -> BenchResult<Vec<(Stats, Stats, u64)>> {
    Ok(interleaved_runs(runs, procs)?.iter().map(summary).collect())
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
    majordomus(bin, &root, &["init"])?;
    git(&root, &["add", ".ai", ".gitignore"])?;
    git(&root, &["commit", "-q", "-m", "majordomus: init"])?;
    majordomus(bin, &root, &["session", "start"])?;
    majordomus(bin, &root, &["hooks", "install"])?;
    Ok((dir, root))
}

/// One `majordomus` command that must succeed (setting up, not measured).
fn majordomus(bin: &Path, root: &Path, args: &[&str]) -> BenchResult<()> {
    if command(bin, args, root).status()?.success() {
        Ok(())
    } else {
        Err(format!("majordomus {}", args.join(" ")).into())
    }
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

/// The 15 ms a hook at the moment of work may take, whole process (issue "Step 14 of 16").
const MOMENT_TARGET: Duration = Duration::from_millis(15);

/// The moments of each kind one episode of the bench sees before it closes: a long working
/// session (25 prompts, 25 file edits).
const EPISODE_MOMENTS: usize = 25;

/// The moments of each kind the long episode sees before its runs are timed.
const LONG_EPISODE_MOMENTS: usize = 200;

/// A Claude Code payload for the repository at `root`: the common fields and `fields`.
fn claude_payload(root: &Path, event: &str, fields: serde_json::Value) -> Vec<u8> {
    let mut payload = serde_json::json!({"session_id": "s", "cwd": root, "hook_event_name": event});
    if let (Some(all), serde_json::Value::Object(more)) = (payload.as_object_mut(), fields) {
        all.extend(more);
    }
    payload.to_string().into_bytes()
}

/// A prompt whose two words of the store's vocabulary (middling ranks, about a percent of
/// the records each pair) rank records above the floor; `k` picks the pair.
fn matching_prompt(k: usize) -> String {
    format!(
        "Why does {} break when {} is empty?",
        store::word(40 + 7 * k),
        store::word(300 + 11 * k)
    )
}

/// A call of Claude Code's `tool` on the file `path` of `root`.
fn tool_payload(root: &Path, tool: &str, path: &str) -> Vec<u8> {
    claude_payload(
        root,
        "PreToolUse",
        serde_json::json!({
            "tool_name": tool,
            "tool_input": {"file_path": root.join(path), "old_string": "a", "new_string": "b"},
        }),
    )
}

/// The `timing:` lines of one run, without the prefix.
fn phases(timing: &str) -> Vec<&str> {
    timing
        .lines()
        .filter_map(|l| l.strip_prefix("timing: "))
        .collect()
}

/// A run's phases, as a block.
fn print_phases(timing: &str) {
    println!();
    println!("```text");
    for phase in phases(timing) {
        println!("{phase}");
    }
    println!("```");
    println!();
}

/// The files the open episode touched and the records shown to its agent so far.
fn episode_so_far(root: &Path) -> BenchResult<(usize, usize)> {
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        root.join(".ai/local/state/episode.json"),
    )?)?;
    let open = state["id"].as_str().ok_or("no open episode")?.to_owned();
    let (mut touched, mut shown) = (0, 0);
    for line in std::fs::read_to_string(root.join(".ai/local/ledger.jsonl"))?.lines() {
        if !(line.contains("\"agent.touched\"") || line.contains("\"context.shown\"")) {
            continue;
        }
        let event: serde_json::Value = serde_json::from_str(line)?;
        if event["session"].as_str() != Some(open.as_str()) {
            continue;
        }
        let count = |key: &str| event["data"][key].as_array().map_or(0, Vec::len);
        match event["event"].as_str() {
            Some("agent.touched") => touched += count("paths"),
            Some("context.shown") => shown += count("records"),
            _ => {}
        }
    }
    Ok((touched, shown))
}

/// Whether the runs met [`MOMENT_TARGET`], in wall time.
fn target_met(wall: &Stats) -> &'static str {
    if wall.p90 <= MOMENT_TARGET {
        "met (median and p90)"
    } else if wall.median <= MOMENT_TARGET {
        "median met, p90 not"
    } else {
        "**not met**"
    }
}

/// The moment of work (issue "Step 14 of 16", item 7): `hook prompt` and `hook edit` over
/// the recall bench's store (`records` records, a ledger of `lines` lines) with an open
/// episode and the index built, interleaved with `git rev-parse HEAD`.
fn section_moment(bin: &Path, runs: usize, records: usize, lines: u64) -> BenchResult<()> {
    let s = store::store(bin, records, lines)?;
    let root = s.root.clone();
    majordomus(bin, &root, &["session", "start"])?;
    majordomus(bin, &root, &["recall", "x"])?;
    // Stamps younger than 2 s are racy (the index looks at those files again, by their
    // bytes): measure the steady state a store is in a moment after it was written.
    std::thread::sleep(Duration::from_millis(2_500));
    majordomus(bin, &root, &["recall", "x"])?;
    let claude = |hook: &str| Proc::new(bin, &["hook", hook, "--provider", "claude-code"], &root);
    const PROMPTS: usize = 12;
    let prompt = claude("prompt")
        .stdins(
            (0..PROMPTS)
                .map(|k| {
                    let text = matching_prompt(k);
                    claude_payload(
                        &root,
                        "UserPromptSubmit",
                        serde_json::json!({"prompt": text}),
                    )
                })
                .collect(),
        )
        .capturing();
    let filler = claude("prompt").stdin(&claude_payload(
        &root,
        "UserPromptSubmit",
        serde_json::json!({"prompt": "ok, thanks!"}),
    ));
    // A file not touched yet this episode each run: the first run, the early timed run, the
    // warm-up, the runs and the late timed run.
    let edited: Vec<String> = (0..store::SOURCE_FILES).map(store::source).collect();
    let edit = claude("edit")
        .stdins(
            edited
                .iter()
                .map(|f| tool_payload(&root, "Edit", f))
                .collect(),
        )
        .capturing();
    let read = claude("edit").stdin(&tool_payload(&root, "Read", &edited[0]));
    let session_start = claude("session-start")
        .stdin(&claude_payload(
            &root,
            "SessionStart",
            serde_json::json!({"source": "startup"}),
        ))
        .capturing();
    let rev_parse = Proc::new("git", &["rev-parse", "HEAD"], &root);

    // The first run of each hook that puts records before the model: did it?
    let injected = |run: &Run| -> String {
        let out: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
        match out["hookSpecificOutput"]["additionalContext"].as_str() {
            Some(context) => format!(
                "yes, {} record(s)",
                context.lines().filter(|l| l.starts_with("- ")).count()
            ),
            None => "**no** (it printed nothing)".to_owned(),
        }
    };
    let first_prompt = injected(&prompt.run()?);
    let first_edit = injected(&edit.run()?);
    // Where the time goes early in the episode (one file touched, a few records shown).
    let early = [
        (episode_so_far(&root)?, "prompt", prompt.timing()?),
        (episode_so_far(&root)?, "edit", edit.timing()?),
    ];
    if runs + 4 > edited.len() {
        println!(
            "note: {} runs of `hook edit` over {} files: the later ones touch a file again",
            runs + 4,
            edited.len()
        );
    }

    let rows: Vec<(&str, &Proc)> = vec![
        ("`git rev-parse HEAD` (the yardstick)", &rev_parse),
        (
            "`hook prompt`, words that match records (12 prompts in turn)",
            &prompt,
        ),
        (
            "`hook prompt`, filler only (\"ok, thanks!\"): no index",
            &filler,
        ),
        (
            "`hook edit`, `Edit` of a file not touched yet (append + recall)",
            &edit,
        ),
        ("`hook edit`, a `Read` (not an edit): no index", &read),
        (
            "`hook session-start`, the episode open (the briefing)",
            &session_start,
        ),
    ];
    let procs: Vec<&Proc> = rows.iter().map(|(_, p)| *p).collect();
    // A working session: each episode sees `EPISODE_MOMENTS` prompts, edits and
    // session-start re-entries, then closes and the next opens (untimed); an episode of
    // hundreds of moments is measured on its own below.
    let mut restart = || -> BenchResult<()> {
        majordomus(bin, &root, &["session", "close"])?;
        majordomus(bin, &root, &["session", "start"])
    };
    let all = interleaved_runs_with(runs, &procs, EPISODE_MOMENTS, &mut restart)?;
    let stats: Vec<(Stats, Stats, u64)> = all.iter().map(summary).collect();

    println!(
        "## The moment of work: `hook prompt` and `hook edit` ({} records, {} ledger lines, an open episode, the index built; {runs} runs each, interleaved)",
        s.records, s.lines
    );
    println!();
    println!(
        "| run | wall median (p90) | vs git (wall) | CPU median (p90) | vs git (CPU) | runs that printed context | 15 ms (wall) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    let (git_wall, git_cpu) = (stats[0].0.median, stats[0].1.median);
    for (((what, p), (wall, cpu, _)), runs) in rows.iter().zip(&stats).zip(&all) {
        let printed = if p.capture {
            format!(
                "{} of {}",
                runs.iter().filter(|r| !r.stdout.is_empty()).count(),
                runs.len()
            )
        } else {
            "-".to_owned()
        };
        println!(
            "| {what} | {} ({}) | {:.2}x | {} ({}) | {:.2}x | {printed} | {} |",
            show(wall.median),
            show(wall.p90),
            ratio(wall.median, git_wall),
            show(cpu.median),
            show(cpu.p90),
            ratio(cpu.median, git_cpu),
            target_met(wall),
        );
    }
    println!();
    println!("first run of `hook prompt` put records before the model: {first_prompt}");
    println!("first run of `hook edit` put records before the model: {first_edit}");
    // The prompt's runs that showed new records against those whose records were all shown
    // earlier this session (the search still runs, nothing is appended).
    for (what, runs) in [("prompt", &all[1]), ("edit", &all[3])] {
        let (shown, quiet): (Vec<&Run>, Vec<&Run>) =
            runs.iter().partition(|r| !r.stdout.is_empty());
        for (which, some) in [
            ("that printed context", shown),
            ("that printed nothing", quiet),
        ] {
            if some.is_empty() {
                continue;
            }
            let (wall, cpu, _) = summary(some.iter().copied());
            println!(
                "`hook {what}`, the {} runs {which}: wall {} ({}), CPU {} ({})",
                some.len(),
                show(wall.median),
                show(wall.p90),
                show(cpu.median),
                show(cpu.p90)
            );
        }
    }
    // An episode's touched files and shown records grow run by run (each edit touches one
    // more file, each run that prints shows up to five more): the runs by their place in
    // their episode.
    for (what, runs) in [("prompt", &all[1]), ("edit", &all[3])] {
        const BUCKET: usize = 5;
        let parts: Vec<String> = (0..EPISODE_MOMENTS.div_ceil(BUCKET))
            .map(|b| {
                let some: Vec<&Run> = runs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (i % EPISODE_MOMENTS) / BUCKET == b)
                    .map(|(_, r)| r)
                    .collect();
                let (wall, cpu, _) = summary(some);
                format!(
                    "moments {}–{}: wall {}, CPU {}",
                    b * BUCKET + 1,
                    ((b + 1) * BUCKET).min(EPISODE_MOMENTS),
                    show(wall.median),
                    show(cpu.median)
                )
            })
            .collect();
        println!(
            "`hook {what}` by its place in its episode (medians): {}",
            parts.join("; ")
        );
    }
    let failed = std::fs::read_to_string(root.join(".ai/local/ledger.jsonl"))?
        .lines()
        .filter(|l| l.contains("\"provider.event.failed\""))
        .count();
    println!("every run exited 0; `provider.event.failed` lines in the ledger: {failed}");
    println!();

    // One long episode: `LONG_EPISODE_MOMENTS` prompts and edits first (untimed), then
    // runs of each, interleaved with git.
    majordomus(bin, &root, &["session", "close"])?;
    majordomus(bin, &root, &["session", "start"])?;
    for _ in 0..LONG_EPISODE_MOMENTS {
        prompt.run()?;
        edit.run()?;
    }
    let long_runs = runs.min(51);
    let long = interleaved(long_runs, &[&rev_parse, &prompt, &edit])?;
    let (touched, shown) = episode_so_far(&root)?;
    println!(
        "One long episode: after {LONG_EPISODE_MOMENTS} prompts and {LONG_EPISODE_MOMENTS} edits ({touched} file(s) touched, {shown} record(s) in its `context.shown` lines by the end), {long_runs} runs each:"
    );
    println!();
    println!("| run | wall median (p90) | CPU median (p90) | 15 ms (wall) |");
    println!("| --- | ---: | ---: | --- |");
    for (what, (wall, cpu, _)) in [
        "`git rev-parse HEAD`",
        "`hook prompt`, words that match records",
        "`hook edit`, a file not touched yet",
    ]
    .iter()
    .zip(&long)
    {
        println!(
            "| {what} | {} ({}) | {} ({}) | {} |",
            show(wall.median),
            show(wall.p90),
            show(cpu.median),
            show(cpu.p90),
            target_met(wall)
        );
    }
    println!();

    // Where the time goes: one run of each with `MAJORDOMUS_TIMING=1`, early in the episode
    // and after the runs. The payloads with nothing to rank by must not open the index (no
    // `recall.` phase).
    for ((touched, shown), what, timing) in &early {
        println!(
            "`hook {what}` early in the episode ({touched} file(s) touched, {shown} record(s) in its `context.shown` lines), its phases (`MAJORDOMUS_TIMING=1`, one run):"
        );
        print_phases(timing);
    }
    println!(
        "After the runs (the long episode): {touched} file(s) touched, {shown} record(s) in its `context.shown` lines (a record the briefing showed again counts again)."
    );
    println!();
    for (what, p, no_index) in [
        ("`hook prompt`, words that match records", &prompt, false),
        ("`hook prompt`, filler only", &filler, true),
        (
            "`hook edit`, `Edit` of a file not touched yet",
            &edit,
            false,
        ),
        ("`hook edit`, a `Read`", &read, true),
        ("`hook session-start`", &session_start, false),
    ] {
        let timing = p.timing()?;
        let phases = phases(&timing);
        if no_index {
            let recall: Vec<&&str> = phases.iter().filter(|l| l.starts_with("recall.")).collect();
            println!(
                "{what}: {}",
                if recall.is_empty() {
                    "no `recall.` phase: the index was not opened (check passed)".to_owned()
                } else {
                    format!("**the index was opened** (check failed): {recall:?}")
                }
            );
        } else {
            println!("{what}, after the runs, its phases (`MAJORDOMUS_TIMING=1`, one run):");
        }
        print_phases(&timing);
    }
    if std::env::var("MAJORDOMUS_BENCH_KEEP").is_ok_and(|v| !v.is_empty() && v != "0") {
        eprintln!("  kept {}", s.dir.keep().display());
    }
    Ok(())
}

fn main() -> BenchResult<()> {
    let quick = std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let bin = bench_bin();
    let (runs, push_runs, remote_records) = if quick {
        (21, 5, 200)
    } else {
        (201, 21, 2_000)
    };
    let (moment_records, moment_lines) = if quick {
        (1_000, 10_000)
    } else {
        (10_000, 100_000)
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
    // `MAJORDOMUS_BENCH_ONLY=cpu`, `=push` or `=moment`: one section.
    let only = std::env::var("MAJORDOMUS_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "cpu" {
        section_hook_cpu(&bin, runs)?;
    }
    if only.is_empty() || only == "push" {
        section_push(&bin, push_runs, remote_records)?;
    }
    if only.is_empty() || only == "moment" {
        section_moment(&bin, runs, moment_records, moment_lines)?;
    }
    println!("{} in all", show(started.elapsed()));
    Ok(())
}
