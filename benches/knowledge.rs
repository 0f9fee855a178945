//! Benchmarks of `knowledge check` and `hook post-commit` against plain git (docs/PERFORMANCE.md).
//!
//! Plain `Instant` timings, median and p90 over repeated runs, on synthetic repositories
//! this bench generates in a temporary directory. `MAJORDOMUS_BENCH_QUICK=1` uses small
//! sizes and fewer runs; `MAJORDOMUS_BENCH_ONLY=hook` runs only the hook part. The
//! `majordomus` process timings use the binary next to this
//! bench executable (`target/release/majordomus`, so build it first with `cargo build
//! --release`), or `MAJORDOMUS_BENCH_BIN` when set.
//!
//! ```text
//! cargo build --release -j2 && cargo bench -j2 --bench knowledge
//! ```

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use majordomus::model::ids::{episode_id, sha256_hex};
use majordomus::model::knowledge::{
    Class, KNOWLEDGE_SCHEMA, KnowledgeRecord, Markers, Origin, Provenance, Stance, Status,
};
use majordomus::model::{Event, LineDraft};
use majordomus::session::StartRequest;
use majordomus::store::frontmatter;
use majordomus::store::ledger::Durability;
use majordomus::{Clock, Ctx};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Commits in the synthetic history; every `commit:` reference names one of them.
const COMMITS: usize = 200;
/// Candidates per synthetic episode (each episode also starts one task).
const RECORDS_PER_EPISODE: usize = 10;
/// 2026-11-01T00:00:00Z: the synthetic history starts here.
const EPOCH: i64 = 1_793_491_200;

fn main() -> BenchResult<()> {
    let quick = std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| v == "1");
    let hook_only = std::env::var("MAJORDOMUS_BENCH_ONLY").is_ok_and(|v| v == "hook");
    let bin = majordomus_bin()?;
    let (sizes, check_runs, ledger_lines, hook_runs) = if quick {
        ([100, 1_000], 5, 10_000, 21)
    } else {
        ([1_000, 10_000], 11, 100_000, 201)
    };
    let mut report = String::new();
    let _ = writeln!(
        report,
        "majordomus bench knowledge ({}; binary {})\n",
        if quick { "quick" } else { "full" },
        bin.display()
    );

    // (a) knowledge check, library and process, against git's batch lookup + reading files.
    if !hook_only {
        check(&mut report, &bin, sizes, check_runs)?;
    }

    // (b) hook post-commit on a long ledger, against a bare `git rev-parse HEAD`.
    let hook = HookFixture::build(ledger_lines)?;
    let (rows, steps) = hook.measure(&bin, hook_runs)?;
    render_hook(&mut report, &rows, ledger_lines, hook_runs);
    let _ = writeln!(
        report,
        "\nWhere `hook post-commit` spends its time (in-process steps, median of {hook_runs}):\n"
    );
    render_steps(&mut report, &steps);

    print!("{report}");
    Ok(())
}

/// (a): `knowledge check` at each size, and where it spends its time at the larger one.
fn check(report: &mut String, bin: &Path, sizes: [usize; 2], check_runs: usize) -> BenchResult<()> {
    let mut rows = Vec::new();
    let mut breakdown = None;
    for records in sizes {
        let fixture = CheckFixture::build(records)?;
        rows.push(fixture.measure(bin, check_runs)?);
        if records == sizes[1] {
            breakdown = Some(fixture.breakdown(check_runs)?);
        }
    }
    render_check(report, &rows, check_runs);
    if let Some(steps) = breakdown {
        let _ = writeln!(
            report,
            "\nWhere `knowledge check` spends its time ({} records, library, median of {check_runs}):\n",
            sizes[1]
        );
        render_steps(report, &steps);
    }
    Ok(())
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

/// Runs each of `commands` once to warm caches, then `runs` rounds in which each runs once,
/// in turn: on a shared machine a burst of load then falls on every command alike, so the
/// ratios between them hold better than with all runs of one command in a row.
fn sample_interleaved(
    runs: usize,
    commands: &mut [&mut dyn FnMut() -> BenchResult<Duration>],
) -> BenchResult<Vec<Stats>> {
    for f in commands.iter_mut() {
        f()?;
    }
    let mut samples = vec![Vec::with_capacity(runs); commands.len()];
    for _ in 0..runs {
        for (f, out) in commands.iter_mut().zip(&mut samples) {
            out.push(f()?);
        }
    }
    Ok(samples.into_iter().map(Stats::of).collect())
}

/// Median and p90 of a set of runs.
#[derive(Debug, Clone, Copy)]
struct Stats {
    median: Duration,
    p90: Duration,
}

impl Stats {
    fn of(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        let n = samples.len();
        Stats {
            median: samples[n / 2],
            p90: samples[(n * 9).div_ceil(10).max(1) - 1],
        }
    }
}

/// Runs `f` once to warm caches, then `runs` times, timing each.
fn sample(runs: usize, mut f: impl FnMut() -> BenchResult<Duration>) -> BenchResult<Stats> {
    f()?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        samples.push(f()?);
    }
    Ok(Stats::of(samples))
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

/// A repository with `COMMITS` commits (packed, as in a clone) and an initialised store.
fn repository(dir: &Path) -> BenchResult<Vec<String>> {
    let repo = majordomus::git::Repo::init(dir)?;
    let mut commits = Vec::with_capacity(COMMITS);
    for i in 0..COMMITS {
        let path = format!("src/m{i:03}.rs");
        let body = format!("//! Module {i}.\npub fn f{i}() -> usize {{ {i} }}\n");
        let sha = repo.commit_files(
            &[(path.as_str(), body.as_bytes())],
            &format!("Add module {i}"),
            EPOCH + 60 * i as i64,
            &majordomus::git::Identity {
                name: "bench".into(),
                email: "bench@majordomus.invalid".into(),
            },
        )?;
        commits.push(sha);
    }
    // A clone holds its history in a pack; so does this repository.
    let mut repack = command(Path::new("git"), dir);
    repack.args(["repack", "-a", "-d", "-q"]);
    timed(repack)?;
    let ctx = Ctx::open(dir, Clock::System)?;
    majordomus::init::init(&ctx, Default::default())?;
    Ok(commits)
}

fn at(seconds: i64) -> BenchResult<time::OffsetDateTime> {
    Ok(time::OffsetDateTime::from_unix_timestamp(EPOCH + seconds)?)
}

fn ledger_line(seq: u64, ts: &str, event: Event, session: &str, task: Option<&str>) -> LineDraft {
    LineDraft {
        ts: ts.to_owned(),
        event,
        session: Some(session.to_owned()),
        task: task.map(str::to_owned),
        data: serde_json::json!({ "text": format!("synthetic line {seq}") }),
    }
}

/// Appends `lines` to the ledger file in one write (bench set-up, not the ledger writer).
fn write_ledger(path: &Path, lines: &[LineDraft]) -> BenchResult<()> {
    let mut buf = Vec::with_capacity(lines.len() * 200);
    for (i, draft) in lines.iter().enumerate() {
        serde_json::to_writer(&mut buf, &draft.clone().with_seq(i as u64 + 1))?;
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
    records: usize,
    /// The `commit:` target of each record, in file order.
    commit_ids: Vec<String>,
}

struct CheckRow {
    records: usize,
    library: Stats,
    process: Stats,
    baseline: Stats,
}

impl CheckFixture {
    /// `records` candidates, each with four references that resolve: `session:`, `task:`,
    /// `commit:` (one of the real commits) and `file:` (a path in HEAD's tree).
    fn build(records: usize) -> BenchResult<CheckFixture> {
        let dir = tempfile::Builder::new()
            .prefix("majordomus-bench-check-")
            .tempdir()?;
        let root = dir.path().canonicalize()?;
        let commits = repository(&root)?;
        let episodes = records.div_ceil(RECORDS_PER_EPISODE);
        let mut lines = Vec::new();
        let mut ids = Vec::with_capacity(episodes);
        for e in 0..episodes {
            let opened = at(3_600 * 24 + 600 * e as i64)?;
            let ep = episode_id(opened, format!("bench {e}").as_bytes());
            let ts = majordomus::model::time::rfc3339(opened);
            let task = format!("t-20261102-{:04x}", e % 0x10000);
            let seq = lines.len() as u64 + 1;
            lines.push(ledger_line(seq, &ts, Event::SessionOpened, &ep, None));
            lines.push(ledger_line(
                seq + 1,
                &ts,
                Event::TaskStarted,
                &ep,
                Some(&task),
            ));
            for k in 0..RECORDS_PER_EPISODE {
                let seq = lines.len() as u64 + 1;
                let event = if k % 2 == 0 {
                    Event::DecisionRecorded
                } else {
                    Event::CheckpointRecorded
                };
                lines.push(ledger_line(seq, &ts, event, &ep, Some(&task)));
            }
            let seq = lines.len() as u64 + 1;
            lines.push(ledger_line(seq, &ts, Event::SessionClosed, &ep, None));
            ids.push((ep, task));
        }
        let ctx = Ctx::open(&root, Clock::System)?;
        write_ledger(&ctx.layout.ledger(), &lines)?;

        let dir_candidates = ctx.layout.candidates_dir();
        std::fs::create_dir_all(&dir_candidates)?;
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
                dir_candidates.join(format!("{id}.md")),
                frontmatter::render(&record, &body),
            )?;
            commit_ids.push(commit.clone());
        }
        let report = majordomus::knowledge::check(&ctx, Default::default())?;
        if report.records != records || !report.findings.is_empty() {
            return Err(format!(
                "the synthetic store should check clean: {} records, findings {:?}",
                report.records,
                report.findings.iter().take(3).collect::<Vec<_>>()
            )
            .into());
        }
        Ok(CheckFixture {
            _dir: dir,
            root,
            records,
            commit_ids,
        })
    }

    fn measure(&self, bin: &Path, runs: usize) -> BenchResult<CheckRow> {
        let library = sample(runs, || {
            let ctx = Ctx::open(&self.root, Clock::System)?;
            let start = Instant::now();
            let report = majordomus::knowledge::check(&ctx, Default::default())?;
            let elapsed = start.elapsed();
            assert_eq!(report.records, self.records);
            Ok(elapsed)
        })?;
        let process = sample(runs, || {
            let mut cmd = command(bin, &self.root);
            cmd.args(["knowledge", "check"]);
            timed(cmd)
        })?;
        let baseline = sample(runs, || self.git_batch_and_read())?;
        Ok(CheckRow {
            records: self.records,
            library,
            process,
            baseline,
        })
    }

    /// What any tool must at least do: one `git cat-file --batch-check` over the same
    /// commit ids, and reading every record file.
    fn git_batch_and_read(&self) -> BenchResult<Duration> {
        let start = Instant::now();
        let mut child = command(Path::new("git"), &self.root)
            .args(["cat-file", "--batch-check"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
        let input: String = self.commit_ids.iter().map(|id| format!("{id}\n")).collect();
        // Write from another thread: git answers while it reads, and both pipes are finite.
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
        let dir = self.root.join(".ai/repo/knowledge/candidates");
        for entry in std::fs::read_dir(&dir)? {
            bytes += std::fs::read(entry?.path())?.len();
        }
        let elapsed = start.elapsed();
        if found != self.commit_ids.len() || bytes == 0 {
            return Err(format!("git found {found} of {} commits", self.commit_ids.len()).into());
        }
        Ok(elapsed)
    }

    /// The steps of a check, timed one by one through the same public API it uses.
    fn breakdown(&self, runs: usize) -> BenchResult<Vec<(&'static str, Stats)>> {
        let root = self.root.clone();
        let mut steps = Vec::new();
        steps.push((
            "open the repository (gix discover)",
            sample(runs, || {
                let start = Instant::now();
                let _ctx = Ctx::open(&root, Clock::System)?;
                Ok(start.elapsed())
            })?,
        ));
        let ctx = Ctx::open(&root, Clock::System)?;
        steps.push((
            "read every record file",
            sample(runs, || {
                let start = Instant::now();
                let files = majordomus::store::records::stored_files(&ctx.layout)?;
                assert_eq!(files.len(), self.records);
                Ok(start.elapsed())
            })?,
        ));
        let files = majordomus::store::records::stored_files(&ctx.layout)?;
        steps.push((
            "parse front matter (YAML)",
            sample(runs, || {
                let start = Instant::now();
                for f in &files {
                    f.parse()?;
                }
                Ok(start.elapsed())
            })?,
        ));
        steps.push((
            "  same parse on 2 threads (what-if; check parses on 1)",
            sample(runs, || {
                let start = Instant::now();
                let (left, right) = files.split_at(files.len() / 2);
                std::thread::scope(|scope| {
                    let other = scope.spawn(|| right.iter().all(|f| f.parse().is_ok()));
                    let here = left.iter().all(|f| f.parse().is_ok());
                    assert!(here && other.join().is_ok_and(|ok| ok));
                });
                Ok(start.elapsed())
            })?,
        ));
        let parsed = files
            .iter()
            .map(|f| f.parse().map(|(r, body)| (r.title, body.to_owned())))
            .collect::<Result<Vec<_>, String>>()?;
        let markers = Markers::standard();
        steps.push((
            "transcript-marker scan (titles and bodies)",
            sample(runs, || {
                let start = Instant::now();
                let hits = parsed
                    .iter()
                    .filter(|(title, body)| {
                        markers.find(title).is_some() || markers.find(body).is_some()
                    })
                    .count();
                assert_eq!(hits, 0);
                Ok(start.elapsed())
            })?,
        ));
        steps.push((
            "one pass over the ledger",
            sample(runs, || {
                let start = Instant::now();
                let mut n = 0usize;
                ctx.ledger().scan(0, |_| n += 1)?;
                Ok(start.elapsed())
            })?,
        ));
        steps.push((
            "batched commit lookup (gix)",
            sample(runs, || {
                let fresh = Ctx::open(&root, Clock::System)?;
                let start = Instant::now();
                let found = fresh
                    .repo
                    .existing_commits(self.commit_ids.iter().map(String::as_str))?;
                assert!(!found.is_empty());
                Ok(start.elapsed())
            })?,
        ));
        steps.push((
            "HEAD tree traversal (gix)",
            sample(runs, || {
                let start = Instant::now();
                let found = ctx.repo.existing_head_paths(["src/m000.rs"])?;
                assert_eq!(found.len(), 1);
                Ok(start.elapsed())
            })?,
        ));
        steps.push((
            "whole check (library)",
            sample(runs, || {
                let start = Instant::now();
                majordomus::knowledge::check(&ctx, Default::default())?;
                Ok(start.elapsed())
            })?,
        ));
        Ok(steps)
    }
}

struct HookFixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

struct HookRows {
    hook: Stats,
    synced: Stats,
    script: Stats,
    rev_parse: Stats,
    sh_rev_parse: Stats,
    version: Stats,
    spawn_floor: Stats,
}

impl HookFixture {
    /// One commit, an open episode, hooks installed, and a ledger of `lines` lines.
    fn build(lines: usize) -> BenchResult<HookFixture> {
        let dir = tempfile::Builder::new()
            .prefix("majordomus-bench-hook-")
            .tempdir()?;
        let root = dir.path().canonicalize()?;
        let repo = majordomus::git::Repo::init(&root)?;
        repo.commit_files(
            &[("README.md", b"# bench\n")],
            "Initial commit",
            EPOCH,
            &majordomus::git::Identity {
                name: "bench".into(),
                email: "bench@majordomus.invalid".into(),
            },
        )?;
        drop(repo);
        let ctx = Ctx::open(&root, Clock::System)?;
        majordomus::init::init(&ctx, Default::default())?;
        let mut drafts = Vec::with_capacity(lines);
        let mut episode = String::new();
        for i in 0..lines {
            if i % 50 == 0 {
                episode = episode_id(at(60 * i as i64)?, format!("old {i}").as_bytes());
            }
            let ts = majordomus::model::time::rfc3339(at(60 * i as i64)?);
            let event = match i % 50 {
                0 => Event::SessionOpened,
                49 => Event::SessionClosed,
                n if n % 3 == 0 => Event::CommitRecorded,
                _ => Event::DecisionRecorded,
            };
            drafts.push(ledger_line(i as u64 + 1, &ts, event, &episode, None));
        }
        write_ledger(&ctx.layout.ledger(), &drafts)?;
        majordomus::session::start(
            &ctx,
            StartRequest {
                provider: Some("bench".into()),
                replace: false,
                conversation: None,
            },
        )?;
        majordomus::hooks::install(&ctx, Default::default())?;
        Ok(HookFixture { _dir: dir, root })
    }

    fn measure(
        &self,
        bin: &Path,
        runs: usize,
    ) -> BenchResult<(HookRows, Vec<(&'static str, Stats)>)> {
        let root = &self.root;
        let script_path = root.join(".git/hooks/post-commit");
        let mut hook = || {
            let mut cmd = command(bin, root);
            cmd.args(["hook", "post-commit"]);
            timed(cmd)
        };
        // The same with git configured to sync what it writes: then the line is synced too.
        let mut synced = || {
            let mut cmd = command(bin, root);
            cmd.args(["hook", "post-commit"])
                .env("GIT_CONFIG_COUNT", "1")
                .env("GIT_CONFIG_KEY_0", "core.fsync")
                .env("GIT_CONFIG_VALUE_0", "committed");
            timed(cmd)
        };
        let mut script = || {
            let mut cmd = command(Path::new("sh"), root);
            cmd.arg(&script_path).env("MAJORDOMUS_BIN", bin);
            timed(cmd)
        };
        let mut rev_parse = || {
            let mut cmd = command(Path::new("git"), root);
            cmd.args(["rev-parse", "HEAD"]);
            timed(cmd)
        };
        let mut sh_rev_parse = || {
            let mut cmd = command(Path::new("sh"), root);
            cmd.args(["-c", "exec git rev-parse HEAD"]);
            timed(cmd)
        };
        let mut version = || {
            let mut cmd = command(bin, root);
            cmd.arg("--version");
            timed(cmd)
        };
        let mut spawn_floor = || timed(command(Path::new("true"), root));
        let stats = sample_interleaved(
            runs,
            &mut [
                &mut hook,
                &mut synced,
                &mut script,
                &mut rev_parse,
                &mut sh_rev_parse,
                &mut version,
                &mut spawn_floor,
            ],
        )?;
        let [
            hook,
            synced,
            script,
            rev_parse,
            sh_rev_parse,
            version,
            spawn_floor,
        ] = stats[..]
        else {
            unreachable!("one row per command");
        };

        let ctx = Ctx::open(root, Clock::System)?;
        let mut steps = vec![
            (
                "open the repository (gix discover)",
                sample(runs, || {
                    let start = Instant::now();
                    let _ctx = Ctx::open(root, Clock::System)?;
                    Ok(start.elapsed())
                })?,
            ),
            (
                "read the open episode (state/episode.json)",
                sample(runs, || {
                    let start = Instant::now();
                    let open = ctx.episode()?;
                    assert!(open.is_some());
                    Ok(start.elapsed())
                })?,
            ),
            (
                "HEAD id and subject (gix)",
                sample(runs, || {
                    let start = Instant::now();
                    ctx.repo.head_subject()?;
                    Ok(start.elapsed())
                })?,
            ),
        ];
        let episode = ctx.episode()?.ok_or("no open episode")?;
        for (name, durability) in [
            (
                "append commit.recorded (lock, tail read, write), as the hook does by default",
                Durability::Written,
            ),
            (
                "append commit.recorded (lock, tail read, write, fdatasync), with core.fsync",
                Durability::Synced,
            ),
        ] {
            steps.push((
                name,
                sample(runs, || {
                    let start = Instant::now();
                    ctx.append_with(
                        durability,
                        Some(&episode.id),
                        None,
                        &majordomus::model::event::CommitRecorded {
                            sha: "0".repeat(40),
                            subject: "bench".into(),
                        },
                    )?;
                    Ok(start.elapsed())
                })?,
            ));
        }
        steps.push((
            "whole hook (library, repository already open)",
            sample(runs, || {
                let start = Instant::now();
                majordomus::hooks::post_commit(&ctx, Default::default())?;
                Ok(start.elapsed())
            })?,
        ));
        Ok((
            HookRows {
                hook,
                synced,
                script,
                rev_parse,
                sh_rev_parse,
                version,
                spawn_floor,
            },
            steps,
        ))
    }
}

fn render_check(out: &mut String, rows: &[CheckRow], runs: usize) {
    let _ = writeln!(
        out,
        "`knowledge check`, 4 references a record, {COMMITS} commits (median / p90 of {runs} runs):\n"
    );
    let _ = writeln!(
        out,
        "| records | library `check(&ctx)` | process `majordomus knowledge check` | git `cat-file --batch-check` + read files | library / git | process / git |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} / {} | {} / {} | {} / {} | {:.2}x | {:.2}x |",
            r.records,
            ms(r.library.median),
            ms(r.library.p90),
            ms(r.process.median),
            ms(r.process.p90),
            ms(r.baseline.median),
            ms(r.baseline.p90),
            ratio(r.library.median, r.baseline.median),
            ratio(r.process.median, r.baseline.median),
        );
    }
    if let [small, large] = rows {
        let _ = writeln!(
            out,
            "| growth {}→{} ({:.0}x records) | {:.2}x | {:.2}x | {:.2}x | | |",
            small.records,
            large.records,
            large.records as f64 / small.records as f64,
            ratio(large.library.median, small.library.median),
            ratio(large.process.median, small.process.median),
            ratio(large.baseline.median, small.baseline.median),
        );
        let worst = rows
            .iter()
            .map(|r| ratio(r.process.median, r.baseline.median))
            .fold(0.0, f64::max);
        let _ = writeln!(
            out,
            "\nTarget `knowledge check` within 2x of git's batch lookup + reading the files: {} (worst process / git {worst:.2}x).",
            if worst <= 2.0 { "met" } else { "MISSED" }
        );
    }
}

fn render_hook(out: &mut String, r: &HookRows, lines: usize, runs: usize) {
    let _ = writeln!(
        out,
        "\n`hook post-commit` with an open episode and a {lines}-line ledger (median / p90 of {runs} runs):\n"
    );
    let _ = writeln!(out, "| process | median | p90 | / `git rev-parse HEAD` |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for (name, s) in [
        ("`majordomus hook post-commit`", r.hook),
        (
            "`majordomus hook post-commit` with `core.fsync=committed` (the line synced)",
            r.synced,
        ),
        (
            "`sh .git/hooks/post-commit` (the installed script, as git runs it)",
            r.script,
        ),
        ("`git rev-parse HEAD`", r.rev_parse),
        (
            "`sh -c 'exec git rev-parse HEAD'` (a hook script that only asks git)",
            r.sh_rev_parse,
        ),
        (
            "`majordomus --version` (process start, no repository)",
            r.version,
        ),
        ("`true` (spawn floor)", r.spawn_floor),
    ] {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.2}x |",
            ms(s.median),
            ms(s.p90),
            ratio(s.median, r.rev_parse.median)
        );
    }
    let hook = ratio(r.hook.median, r.rev_parse.median);
    let script = ratio(r.script.median, r.rev_parse.median);
    let _ = writeln!(
        out,
        "\nTarget `majordomus hook post-commit` within 1.5x of `git rev-parse HEAD`: {} ({hook:.2}x).\nTarget the installed script within 2x of `git rev-parse HEAD`: {} ({script:.2}x; against a script that only asks git: {:.2}x).",
        if hook <= 1.5 { "met" } else { "MISSED" },
        if script <= 2.0 { "met" } else { "MISSED" },
        ratio(r.script.median, r.sh_rev_parse.median)
    );
}

fn render_steps(out: &mut String, steps: &[(&'static str, Stats)]) {
    let _ = writeln!(out, "| step | median | p90 |");
    let _ = writeln!(out, "|---|---:|---:|");
    for (name, s) in steps {
        let _ = writeln!(out, "| {name} | {} | {} |", ms(s.median), ms(s.p90));
    }
}
