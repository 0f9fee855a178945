//! Ledger and working-context benchmarks: append latency, windowed read against a full
//! scan, and `session context` composition (with the whole-ledger briefing beside it),
//! each at several ledger sizes.
//!
//! Plain `std::time::Instant`, no harness: every measurement is repeated and reported as
//! median and p90 in markdown tables (docs/PERFORMANCE.md explains the figures).
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo bench -j2 --bench ledger
//! MAJORDOMUS_BENCH_QUICK=1 cargo bench -j2 --bench ledger      # small sizes, a smoke run
//! MAJORDOMUS_BENCH_SIZES=10000,1000000 cargo bench -j2 --bench ledger
//! MAJORDOMUS_BENCH_DIR=/mnt/disk cargo bench -j2 --bench ledger  # where the temp repos go
//! ```
#![forbid(unsafe_code)]

mod common;

use common::{Stats, committed_now};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use majordomus::git::Repo;
use majordomus::model::{Event, LedgerLine, LineDraft};
use majordomus::session::{self, StartRequest};
use majordomus::store::Ledger;
use majordomus::{Clock, Ctx, authored};

/// Lines of one synthetic episode: opened, 6 decisions, 3 questions asked and resolved,
/// 6 checkpoints, closed.
const LINES_PER_EPISODE: u64 = 20;

/// Row names, in the order the table prints them.
const APPEND: &str = "append one line (lock, tail seq, write, fsync)";
const WINDOW: &str = "windowed read of one episode (`Ledger::scan` from its offset)";
const CONTEXT: &str = "`session::context` composition";
const FULL_SCAN: &str = "full scan (`Ledger::read_all`)";
const BRIEFING: &str = "`briefing::briefing` (open questions from the ledger index)";

/// How many times each measurement runs at one ledger size.
#[derive(Debug, Clone, Copy)]
struct Runs {
    appends: usize,
    window: usize,
    full_scan: usize,
    context: usize,
}

#[derive(Debug, Clone)]
struct Settings {
    sizes: Vec<u64>,
    quick: bool,
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
            _ => vec![10_000, 100_000, 1_000_000],
        };
        Settings { sizes, quick }
    }

    fn runs(&self, lines: u64) -> Runs {
        if self.quick {
            return Runs {
                appends: 50,
                window: 20,
                full_scan: 3,
                context: 10,
            };
        }
        Runs {
            appends: 1000,
            window: 200,
            // A full scan of a million lines takes seconds; fewer runs say the same.
            full_scan: if lines >= 1_000_000 { 5 } else { 20 },
            context: 100,
        }
    }
}

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

fn repeat(runs: usize, mut f: impl FnMut()) -> Stats {
    Stats::of((0..runs).map(|_| time(&mut f).0).collect())
}

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.3} s", us / 1e6)
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
        1 + (n / 86_400) % 12,
        1 + (n / 86_400) % 28,
        seconds / 3600,
        (seconds / 60) % 60,
        seconds % 60,
        n & 0xff_ffff
    )
}

/// Writes `lines` ledger lines in bulk, in episodes of [`LINES_PER_EPISODE`] lines, with
/// the exact line format `Ledger::append` writes (it serialises the same `LedgerLine`).
fn write_synthetic_ledger(path: &Path, lines: u64) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create the ledger's directory");
    }
    let mut out = BufWriter::with_capacity(
        1 << 20,
        File::create(path).expect("create the synthetic ledger"),
    );
    let mut seq = 0u64;
    let mut episode = 0u64;
    while seq < lines {
        let id = episode_id(episode);
        let ts = format!(
            "2026-11-30T10:{:02}:{:02}Z",
            (episode / 60) % 60,
            episode % 60
        );
        for k in 0..LINES_PER_EPISODE {
            if seq >= lines {
                break;
            }
            seq += 1;
            let question = format!("q-{:010x}", episode * 4 + k % 3);
            let (event, data) = match k {
                0 => (
                    Event::SessionOpened,
                    serde_json::json!({
                        "provider": "bench",
                        "branch": "main",
                        "head": "0123456789abcdef0123456789abcdef01234567",
                    }),
                ),
                1..=6 => (
                    Event::DecisionRecorded,
                    serde_json::json!({ "text": format!("decision {k} of episode {episode}: keep the ledger append-only") }),
                ),
                7..=9 => (
                    Event::QuestionAsked,
                    serde_json::json!({ "id": question, "text": format!("question {k} of episode {episode}?") }),
                ),
                10..=12 => (
                    Event::QuestionResolved,
                    serde_json::json!({
                        "id": question,
                        "question": format!("question {k} of episode {episode}?"),
                        "answer": "yes, measured",
                    }),
                ),
                13..=18 => (
                    Event::CheckpointRecorded,
                    serde_json::json!({ "text": format!("checkpoint {k} of episode {episode}") }),
                ),
                _ => (
                    Event::SessionClosed,
                    serde_json::json!({
                        "record": format!(".ai/repo/sessions/{id}.md"),
                        "commits": 0,
                        "outcome": "no-commits",
                    }),
                ),
            };
            let line = LedgerLine {
                seq,
                ts: ts.clone(),
                event,
                session: Some(id.clone()),
                task: None,
                data,
            };
            serde_json::to_writer(&mut out, &line).expect("write a ledger line");
            out.write_all(b"\n").expect("write a ledger line");
        }
        episode += 1;
    }
    out.flush().expect("flush the synthetic ledger");
}

/// A real repository: a commit, the majordomus skeleton committed, a synthetic ledger
/// of `lines` lines, then an episode opened at its end with a few authored records and a
/// commit, as `session context` would find it mid-episode.
struct Fixture {
    _dir: tempfile::TempDir,
    ctx: Ctx,
    episode: String,
    offset: u64,
    ledger_bytes: u64,
}

fn fixture(lines: u64) -> Fixture {
    let mut builder = tempfile::Builder::new();
    builder.prefix("majordomus-bench-");
    let dir = match std::env::var_os("MAJORDOMUS_BENCH_DIR") {
        Some(base) => builder.tempdir_in(base),
        None => builder.tempdir(),
    }
    .expect("create a temporary directory");
    let root = dir.path();
    let repo = Repo::init(root).expect("git init");
    repo.commit_files(
        &[("README.md", b"# bench\n".as_slice())],
        "Initial commit",
        1_764_000_000,
        &majordomus::git::Identity {
            name: "bench".into(),
            email: "bench@majordomus.invalid".into(),
        },
    )
    .expect("first commit");
    drop(repo);

    let ctx = Ctx::open(root, Clock::System).expect("open the repository");
    majordomus::init::init(&ctx, Default::default()).expect("majordomus init");
    let mut tracked: Vec<(String, Vec<u8>)> = Vec::new();
    for rel in majordomus::store::skeleton::FILES
        .iter()
        .map(|(path, _)| *path)
        .chain([".gitignore"])
    {
        let bytes = std::fs::read(root.join(rel)).expect("read a skeleton file");
        tracked.push((rel.to_owned(), bytes));
    }
    let files: Vec<(&str, &[u8])> = tracked
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    ctx.repo
        .commit_files(
            &files,
            "majordomus: init",
            1_764_000_060,
            &majordomus::git::Identity {
                name: "bench".into(),
                email: "bench@majordomus.invalid".into(),
            },
        )
        .expect("commit the skeleton");

    write_synthetic_ledger(&ctx.layout.ledger(), lines);

    let started = session::start(&ctx, StartRequest::default()).expect("session start");
    let episode = started.episode.id.clone();
    let offset = started.episode.ledger_offset;
    authored::record_decision(
        &ctx,
        authored::DecisionRequest {
            text: "Benchmarks use plain Instant, no harness".into(),
            task: None,
            files: Vec::new(),
            base: None,
        },
    )
    .expect("decision");
    authored::record_decision(
        &ctx,
        authored::DecisionRequest {
            text: "Synthetic ledgers are written in bulk".into(),
            task: None,
            files: Vec::new(),
            base: None,
        },
    )
    .expect("decision");
    let asked = authored::ask_question(
        &ctx,
        authored::QuestionRequest {
            text: "Does context stay flat at a million lines?".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("question");
    authored::ask_question(
        &ctx,
        authored::QuestionRequest {
            text: "Is the append latency dominated by fsync?".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("question");
    let qid = asked.id.expect("a question has an id");
    authored::resolve_question(
        &ctx,
        authored::ResolveRequest {
            id: qid.clone(),
            answer: "Measured below".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("resolve");
    authored::record_checkpoint(
        &ctx,
        authored::CheckpointRequest {
            text: "fixture built".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("checkpoint");
    ctx.repo
        .commit_files(
            &[("src/lib.rs", b"pub fn answer() -> u32 { 42 }\n".as_slice())],
            "Add the answer",
            // Committed now, after the episode opened: an earlier commit time would
            // make it work the episode did not do (model::episode::attribute_commits).
            committed_now(),
            &majordomus::git::Identity {
                name: "bench".into(),
                email: "bench@majordomus.invalid".into(),
            },
        )
        .expect("commit during the episode");
    authored::record_checkpoint(
        &ctx,
        authored::CheckpointRequest {
            text: "committed the answer".into(),
            files: Vec::new(),
            base: None,
        },
    )
    .expect("checkpoint");
    let ledger_bytes = ctx.ledger().len().expect("ledger size");
    Fixture {
        _dir: dir,
        ctx,
        episode,
        offset,
        ledger_bytes,
    }
}

struct Row {
    what: &'static str,
    lines: u64,
    stats: Stats,
}

fn measure(lines: u64, runs: Runs, rows: &mut Vec<Row>) -> u64 {
    let (built, fx) = time(|| fixture(lines));
    eprintln!(
        "  {} lines: fixture built in {} ({} MB ledger)",
        show_count(lines),
        show(built),
        fx.ledger_bytes / 1_000_000
    );
    let ledger: Ledger = fx.ctx.ledger();

    // The episode's own ledger window, from the offset episode.json remembers.
    let mut seen = 0usize;
    let window = repeat(runs.window, || {
        seen = 0;
        ledger
            .scan(fx.offset, |line| {
                if line.session.as_deref() == Some(fx.episode.as_str()) {
                    seen += 1;
                }
            })
            .expect("windowed scan");
    });
    assert_eq!(seen, 8, "the window holds the episode's own eight lines");
    rows.push(Row {
        what: WINDOW,
        lines,
        stats: window,
    });

    // `session context`: git now against git at open, plus the window, composed.
    let context = repeat(runs.context, || {
        let composed = session::context(&fx.ctx, Default::default()).expect("session context");
        assert_eq!(composed.window.decisions.len(), 2);
        assert_eq!(composed.git.commits.len(), 1);
    });
    rows.push(Row {
        what: CONTEXT,
        lines,
        stats: context,
    });

    // The whole ledger, as a reader without the offset would have to read it.
    let full = repeat(runs.full_scan, || {
        let all = ledger.read_all().expect("full scan");
        assert!(all.lines.len() as u64 > lines);
    });
    rows.push(Row {
        what: FULL_SCAN,
        lines,
        stats: full,
    });

    // The briefing (also what `session start` pays to write the opening snapshot) reads
    // the open questions from the ledger index; its first run builds the index.
    let briefing = repeat(runs.full_scan, || {
        let b = majordomus::briefing::briefing(&fx.ctx, Default::default()).expect("briefing");
        assert!(!b.open_questions.is_empty());
    });
    rows.push(Row {
        what: BRIEFING,
        lines,
        stats: briefing,
    });

    // Appends last: they lengthen the ledger (and the window the scans above read).
    let mut samples = Vec::with_capacity(runs.appends);
    for n in 0..runs.appends {
        let draft = LineDraft {
            ts: "2026-11-30T12:00:00Z".to_owned(),
            event: Event::CheckpointRecorded,
            session: Some(fx.episode.clone()),
            task: None,
            data: serde_json::json!({ "text": format!("append {n}") }),
        };
        let (took, appended) = time(|| ledger.append(draft).expect("append"));
        assert!(appended.seq > lines);
        samples.push(took);
    }
    rows.push(Row {
        what: APPEND,
        lines,
        stats: Stats::of(samples),
    });
    fx.ledger_bytes
}

fn main() {
    let settings = Settings::from_env();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    eprintln!(
        "majordomus ledger bench: sizes {:?}{}",
        settings.sizes,
        if settings.quick { " (quick)" } else { "" }
    );
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    for &lines in &settings.sizes {
        let size = measure(lines, settings.runs(lines), &mut rows);
        bytes.push((lines, size));
    }

    println!(
        "majordomus {} ledger bench, {cores} cores",
        env!("CARGO_PKG_VERSION")
    );
    println!();
    println!("| measurement | ledger lines | ledger size | runs | median | p90 |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let order = [APPEND, WINDOW, CONTEXT, FULL_SCAN, BRIEFING];
    for what in order {
        for row in rows.iter().filter(|r| r.what == what) {
            let size = bytes
                .iter()
                .find(|(l, _)| *l == row.lines)
                .map_or(0, |(_, b)| *b);
            println!(
                "| {} | {} | {:.1} MB | {} | {} | {} |",
                row.what,
                show_count(row.lines),
                size as f64 / 1e6,
                row.stats.runs,
                show(row.stats.median),
                show(row.stats.p90)
            );
        }
    }

    // The same medians side by side: what must stay flat next to what grows.
    println!();
    println!("| ledger lines | append | windowed read | session context | full scan | briefing |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for &lines in &settings.sizes {
        let median = |what: &str| {
            rows.iter()
                .find(|r| r.lines == lines && r.what == what)
                .map_or_else(|| "-".to_owned(), |r| show(r.stats.median))
        };
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            show_count(lines),
            median(APPEND),
            median(WINDOW),
            median(CONTEXT),
            median(FULL_SCAN),
            median(BRIEFING)
        );
    }
}
