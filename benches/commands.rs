//! Whole-process command benchmark (SPEC §3, "reads cost what they show"): each command a
//! reader or an agent runs, as the process it is (the release `majordomus` binary,
//! spawned), on ledgers of 1 000, 100 000 and 1 000 000 lines, beside `git rev-parse HEAD`
//! measured in the same run. A command that reads through the ledger index should cost
//! the same at every size; an unfiltered `history` (it prints everything) is the contrast.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench commands
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench commands      # 1k and 10k lines, few runs
//! MAJORDOMUS_BENCH_SIZES=1000,1000000 cargo bench -j2 --bench commands
//! MAJORDOMUS_BENCH_DIR=/mnt/disk cargo bench -j2 --bench commands  # where the repositories go
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus                         # another binary
//! ```
#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use majordomus::model::{Event, LedgerLine};

/// Lines of one synthetic episode: opened, 6 decisions, 3 questions asked and resolved,
/// 5 checkpoints, knowledge.derived, closed.
const LINES_PER_EPISODE: u64 = 20;
/// The task every synthetic ledger starts (in its first episode), for `decision --task`.
const TASK: &str = "t-2026-11-30-beef";

#[derive(Debug, Clone)]
struct Settings {
    sizes: Vec<u64>,
    quick: bool,
    bin: PathBuf,
}

impl Settings {
    fn from_env() -> Settings {
        let quick =
            std::env::var("MAJORDOMUS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let sizes = match std::env::var("MAJORDOMUS_BENCH_SIZES") {
            Ok(text) if !text.trim().is_empty() => {
                text.split(',')
                    .map(|s| {
                        s.trim().replace('_', "").parse::<u64>().expect(
                            "MAJORDOMUS_BENCH_SIZES is a comma-separated list of line counts",
                        )
                    })
                    .collect()
            }
            _ if quick => vec![1_000, 10_000],
            _ => vec![1_000, 100_000, 1_000_000],
        };
        let bin = std::env::var_os("MAJORDOMUS_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_majordomus")));
        Settings { sizes, quick, bin }
    }

    fn runs(&self) -> usize {
        if self.quick { 5 } else { 21 }
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    assert!(!samples.is_empty(), "a measurement needs at least one run");
    samples.sort();
    let n = samples.len();
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2
    }
}

fn show(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1_000.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.2} s", ms / 1e3)
    }
}

fn show_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

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

/// Writes `lines` ledger lines in episodes of [`LINES_PER_EPISODE`], in exactly the format
/// `Ledger::append` writes (the same `LedgerLine` serialised), times two days before now.
fn write_synthetic_ledger(path: &Path, lines: u64) {
    std::fs::create_dir_all(path.parent().expect("the ledger has a directory"))
        .expect("create .ai/local");
    let mut out = BufWriter::with_capacity(
        1 << 20,
        File::create(path).expect("create the synthetic ledger"),
    );
    let mut seq = 0u64;
    let mut episode = 0u64;
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
            let line = LedgerLine {
                seq,
                ts: ts.clone(),
                event,
                session: Some(id.clone()),
                task,
                data,
            };
            serde_json::to_writer(&mut out, &line).expect("write a ledger line");
            out.write_all(b"\n").expect("write a ledger line");
        }
        episode += 1;
    }
    out.flush().expect("flush the synthetic ledger");
}

/// One repository with a synthetic ledger, and how to run commands in it.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    bin: PathBuf,
}

impl Fixture {
    fn command(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@majordomus.invalid")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@majordomus.invalid")
            .env_remove("MAJORDOMUS_NOW")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `program ARGS` and returns its stdout; panics unless it exits with one of `ok`.
    fn output(&self, program: &Path, args: &[&str], ok: &[i32]) -> String {
        let out = self
            .command(program, args)
            .output()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
        let code = out.status.code().unwrap_or(-1);
        assert!(
            ok.contains(&code),
            "{} {} exited {code}:\n{}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn git(&self, args: &[&str]) -> String {
        self.output(Path::new("git"), args, &[0])
    }

    fn majordomus(&self, args: &[&str]) -> String {
        self.output(&self.bin, args, &[0])
    }

    /// One timed run of `program ARGS`, output discarded.
    fn time(&self, program: &Path, args: &[&str], ok: &[i32]) -> Duration {
        let mut cmd = self.command(program, args);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let start = Instant::now();
        let status = cmd.status().expect("spawn");
        let took = start.elapsed();
        let code = status.code().unwrap_or(-1);
        assert!(
            ok.contains(&code),
            "{} {} exited {code}",
            program.display(),
            args.join(" ")
        );
        took
    }
}

fn fixture(settings: &Settings, lines: u64) -> Fixture {
    let mut builder = tempfile::Builder::new();
    builder.prefix("majordomus-bench-");
    let dir = match std::env::var_os("MAJORDOMUS_BENCH_DIR") {
        Some(base) => builder.tempdir_in(base),
        None => builder.tempdir(),
    }
    .expect("create a temporary directory");
    let root = dir.path().to_owned();
    let fx = Fixture {
        _dir: dir,
        root,
        bin: settings.bin.clone(),
    };
    fx.git(&["init", "-q", "-b", "main"]);
    std::fs::write(fx.root.join("README.md"), "# bench\n").expect("write README");
    fx.git(&["add", "README.md"]);
    fx.git(&["commit", "-q", "-m", "Initial commit"]);
    fx.majordomus(&["init"]);
    fx.git(&["add", ".ai", ".gitignore"]);
    fx.git(&["commit", "-q", "-m", "majordomus: init"]);
    write_synthetic_ledger(&fx.root.join(".ai/local/ledger.jsonl"), lines);
    fx
}

/// One measured row: a command and its median at each size.
struct Row {
    what: String,
    medians: Vec<(u64, Duration)>,
}

const GIT: &str = "`git rev-parse HEAD`";

/// A repository at one ledger size, ready for the commands: the index built, an episode
/// open with a decision, a question, a checkpoint and a commit.
struct Sized {
    lines: u64,
    fx: Fixture,
    episode: String,
    since: String,
}

fn prepare(settings: &Settings, lines: u64, notes: &mut Vec<String>) -> Sized {
    let started = Instant::now();
    let fx = fixture(settings, lines);
    let ledger_bytes =
        std::fs::metadata(fx.root.join(".ai/local/ledger.jsonl")).map_or(0, |m| m.len());
    eprintln!(
        "  {} lines: fixture in {} ({:.1} MB ledger)",
        show_count(lines),
        show(started.elapsed()),
        ledger_bytes as f64 / 1e6
    );
    // The first read builds the index from the whole ledger (once).
    let build = fx.time(&fx.bin, &["briefing"], &[0]);
    let index_bytes: u64 = std::fs::read_dir(fx.root.join(".ai/local/state/ledger-index"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    notes.push(format!(
        "{} lines ({:.1} MB ledger): the first read built the index in {} ({:.1} MB of segments)",
        show_count(lines),
        ledger_bytes as f64 / 1e6,
        show(build),
        index_bytes as f64 / 1e6
    ));
    fx.majordomus(&["session", "start"]);
    let episode = {
        let state = std::fs::read_to_string(fx.root.join(".ai/local/state/episode.json"))
            .expect("episode.json");
        let value: serde_json::Value = serde_json::from_str(&state).expect("episode JSON");
        value["id"].as_str().expect("episode id").to_owned()
    };
    fx.majordomus(&["decision", "Benchmarks spawn the release binary"]);
    fx.majordomus(&["question", "Does every read stay flat?"]);
    fx.majordomus(&["checkpoint", "fixture built"]);
    std::fs::write(fx.root.join("lib.rs"), "pub fn answer() -> u32 { 42 }\n").expect("write");
    fx.git(&["add", "lib.rs"]);
    fx.git(&["commit", "-q", "-m", "Add the answer"]);
    let since = majordomus::model::time::rfc3339(time::OffsetDateTime::now_utc());
    Sized {
        lines,
        fx,
        episode,
        since,
    }
}

/// What one measured run is, in a repository of one size: `setup` (not timed) returns
/// the arguments, then the command runs and is timed; it may exit with one of `ok`.
struct Case {
    what: &'static str,
    program: fn(&Sized) -> PathBuf,
    args: fn(&Sized) -> Vec<String>,
    ok: &'static [i32],
    /// Runs at the largest size at most (for the linear contrast).
    max_runs: Option<usize>,
}

fn majordomus_bin(s: &Sized) -> PathBuf {
    s.fx.bin.clone()
}

fn git_bin(_: &Sized) -> PathBuf {
    PathBuf::from("git")
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

fn cases() -> Vec<Case> {
    let case = |what, args: fn(&Sized) -> Vec<String>| Case {
        what,
        program: majordomus_bin,
        args,
        ok: &[0],
        max_runs: None,
    };
    vec![
        Case {
            what: GIT,
            program: git_bin,
            args: |_| words(&["rev-parse", "HEAD"]),
            ok: &[0],
            max_runs: None,
        },
        case("`majordomus --version` (process start)", |_| {
            words(&["--version"])
        }),
        case("`briefing`", |_| words(&["briefing"])),
        case("`context`", |_| words(&["context"])),
        case("`session context`", |_| words(&["session", "context"])),
        Case {
            ok: &[0, 10],
            ..case("`doctor`", |_| words(&["doctor"]))
        },
        case("`knowledge check`", |_| words(&["knowledge", "check"])),
        case("`knowledge status`", |_| words(&["knowledge", "status"])),
        case("`history --session <the open episode>`", |s| {
            words(&["history", "--session", &s.episode])
        }),
        case("`history --event task.started`", |_| {
            words(&["history", "--event", "task.started"])
        }),
        case("`history --since <the bench's start>`", |s| {
            words(&["history", "--since", &s.since])
        }),
        case(
            "`hook session-start` (episode already open: the briefing)",
            |_| words(&["hook", "session-start", "--provider", "bench"]),
        ),
        case("`hook pre-push`", |_| words(&["hook", "pre-push"])),
        case("`hook post-commit` (one append)", |_| {
            words(&["hook", "post-commit"])
        }),
        case("`decision --task <a task of the first episode>`", |_| {
            words(&["decision", "Measured again", "--task", TASK])
        }),
        case("`question resolve`", |s| {
            // A new open question each run (asked untimed, here), then its answer timed.
            let asked =
                s.fx.majordomus(&["--format", "json", "question", "Open again?"]);
            let id = serde_json::from_str::<serde_json::Value>(&asked).expect("JSON")["id"]
                .as_str()
                .expect("a question id")
                .to_owned();
            words(&["question", "resolve", &id, "measured"])
        }),
        Case {
            max_runs: Some(3),
            ..case("`history` (unfiltered: prints every line)", |_| {
                words(&["history"])
            })
        },
    ]
}

/// Times every case at every size, the sizes interleaved run by run, so a machine that
/// slows down for a while slows every size alike.
fn measure(settings: &Settings, sized: &[Sized], rows: &mut Vec<Row>) {
    let runs = settings.runs();
    // Opening and closing an episode, alternately (the episode the other cases use is
    // closed first and reopened after): each start finds the close's lines new and
    // extends the index by them.
    let mut starts: Vec<Vec<Duration>> = vec![Vec::new(); sized.len()];
    let mut closes: Vec<Vec<Duration>> = vec![Vec::new(); sized.len()];
    for _ in 0..runs {
        for (i, s) in sized.iter().enumerate() {
            closes[i].push(s.fx.time(&s.fx.bin, &["session", "close"], &[0]));
            starts[i].push(s.fx.time(&s.fx.bin, &["session", "start"], &[0]));
        }
    }
    for (what, samples) in [("`session start`", starts), ("`session close`", closes)] {
        rows.push(Row {
            what: what.to_owned(),
            medians: sized
                .iter()
                .zip(samples)
                .map(|(s, v)| (s.lines, median(v)))
                .collect(),
        });
    }
    for case in cases() {
        eprintln!("  {}", case.what);
        let n = case.max_runs.map_or(runs, |m| m.min(runs));
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); sized.len()];
        for _ in 0..n {
            for (i, s) in sized.iter().enumerate() {
                let args = (case.args)(s);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                samples[i].push(s.fx.time(&(case.program)(s), &args, case.ok));
            }
        }
        rows.push(Row {
            what: case.what.to_owned(),
            medians: sized
                .iter()
                .zip(samples)
                .map(|(s, v)| (s.lines, median(v)))
                .collect(),
        });
    }
    // Git and the bare process start first, as the yardsticks.
    rows.sort_by_key(|r| match r.what.as_str() {
        GIT => 0,
        w if w.starts_with("`majordomus --version") => 1,
        _ => 2,
    });
}

fn main() {
    let settings = Settings::from_env();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    eprintln!(
        "majordomus command bench: sizes {:?}{}, binary {}",
        settings.sizes,
        if settings.quick { " (quick)" } else { "" },
        settings.bin.display()
    );
    let mut notes = Vec::new();
    let sized: Vec<Sized> = settings
        .sizes
        .iter()
        .map(|&lines| prepare(&settings, lines, &mut notes))
        .collect();
    let mut rows = Vec::new();
    measure(&settings, &sized, &mut rows);

    println!(
        "majordomus {} command bench, {cores} cores, median of {} runs per cell (whole processes, sizes interleaved run by run)",
        env!("CARGO_PKG_VERSION"),
        settings.runs()
    );
    println!();
    let sizes = &settings.sizes;
    let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
    let mut header = "| command |".to_owned();
    let mut rule = "| --- |".to_owned();
    for s in sizes {
        header.push_str(&format!(" {} lines |", show_count(*s)));
        rule.push_str(" ---: |");
    }
    header.push_str(&format!(
        " {} / {} | / git at {} |",
        show_count(last),
        show_count(first),
        show_count(last)
    ));
    rule.push_str(" ---: | ---: |");
    println!("{header}");
    println!("{rule}");
    let at = |row: &Row, lines: u64| {
        row.medians
            .iter()
            .find(|(l, _)| *l == lines)
            .map(|(_, d)| *d)
    };
    let git = rows.iter().find(|r| r.what == GIT).map(|r| at(r, last));
    for row in &rows {
        let mut line = format!("| {} |", row.what);
        for s in sizes {
            line.push_str(&format!(
                " {} |",
                at(row, *s).map_or_else(|| "-".to_owned(), show)
            ));
        }
        let growth = match (at(row, first), at(row, last)) {
            (Some(a), Some(b)) => format!("{:.2}x", b.as_secs_f64() / a.as_secs_f64()),
            _ => "-".to_owned(),
        };
        let vs_git = match (git.flatten(), at(row, last)) {
            (Some(g), Some(b)) => format!("{:.1}x", b.as_secs_f64() / g.as_secs_f64()),
            _ => "-".to_owned(),
        };
        println!("{line} {growth} | {vs_git} |");
    }
    println!();
    for note in notes {
        println!("- {note}");
    }
}
