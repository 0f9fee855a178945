//! The index answers what a full scan answers, extends by the new bytes only, and
//! rebuilds whenever it cannot vouch for itself.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use serde_json::json;

use super::*;
use crate::model::question::QuestionBook;

/// A small deterministic generator (xorshift64*), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    layout: Layout,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let layout = Layout::new(dir.path());
        Fixture { _dir: dir, layout }
    }

    fn ledger_path(&self) -> PathBuf {
        self.layout.ledger()
    }

    /// Appends raw text to the ledger, as a crash or another writer might leave it.
    fn append_raw(&self, text: &str) {
        std::fs::create_dir_all(self.layout.local_dir()).expect("mkdir");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.ledger_path())
            .expect("open ledger");
        f.write_all(text.as_bytes()).expect("write");
    }

    fn open(&self) -> LedgerIndex {
        LedgerIndex::open(&self.layout).expect("open the index")
    }

    fn scan(&self) -> (Vec<LedgerLine>, Vec<Skipped>) {
        let all = Ledger::new(self.ledger_path()).read_all().expect("scan");
        (all.lines, all.skipped)
    }
}

fn line(
    seq: u64,
    ts: &str,
    event: Event,
    session: Option<&str>,
    task: Option<&str>,
    data: serde_json::Value,
) -> String {
    let line = LedgerLine {
        seq,
        ts: ts.to_owned(),
        event,
        session: session.map(str::to_owned),
        task: task.map(str::to_owned),
        data,
    };
    let mut text = serde_json::to_string(&line).expect("serialises");
    text.push('\n');
    text
}

/// `n` random lines: episodes opening and closing, decisions under tasks, questions asked
/// and resolved across episodes, derivations naming candidates, provider failures,
/// lines stamped with no episode, a few unreadable and blank lines, and times that mostly
/// rise but sometimes step back.
fn random_ledger(rng: &mut Rng, n: u64, first_seq: u64) -> String {
    let mut out = String::new();
    let mut seq = first_seq;
    let mut minute = 0u64;
    let mut asked: Vec<String> = Vec::new();
    let mut tasks: Vec<String> = Vec::new();
    for _ in 0..n {
        seq += 1;
        minute += rng.below(3);
        let back = if rng.below(20) == 0 { 7 } else { 0 };
        let m = minute.saturating_sub(back);
        let ts = format!(
            "2026-{:02}-{:02}T{:02}:{:02}:00Z",
            1 + (m / 1440 / 28) % 12,
            1 + (m / 1440) % 28,
            (m / 60) % 24,
            m % 60
        );
        let ep = format!(
            "20260101T0000{:02}Z-{:06x}",
            rng.below(40) % 60,
            rng.below(40)
        );
        let session = (rng.below(8) != 0).then_some(ep.as_str());
        let roll = rng.below(100);
        let text = match roll {
            0..=1 => {
                seq -= 1;
                if roll == 0 {
                    "this is not json\n".to_owned()
                } else {
                    "\n".to_owned()
                }
            }
            2..=9 => line(
                seq,
                &ts,
                Event::SessionOpened,
                session,
                None,
                json!({"provider": "t", "branch": "main", "head": null}),
            ),
            10..=15 => line(
                seq,
                &ts,
                Event::SessionClosed,
                session,
                None,
                if rng.below(6) == 0 {
                    json!({"weird": 1})
                } else {
                    json!({"record": "r", "commits": 0, "outcome": "no-commits", "knowledge_on_end": rng.below(2) == 0})
                },
            ),
            16..=30 => {
                let task = tasks
                    .get(rng.below(tasks.len() as u64 + 1) as usize)
                    .cloned();
                line(
                    seq,
                    &ts,
                    Event::DecisionRecorded,
                    session,
                    task.as_deref(),
                    json!({"text": "d"}),
                )
            }
            31..=40 => {
                let id = format!("q-{:010x}", rng.next() & 0xff_ffff_ffff);
                asked.push(id.clone());
                line(
                    seq,
                    &ts,
                    Event::QuestionAsked,
                    session,
                    None,
                    json!({"id": id, "text": format!("why {seq}?")}),
                )
            }
            41..=48 if !asked.is_empty() => {
                let id = asked[rng.below(asked.len() as u64) as usize].clone();
                line(
                    seq,
                    &ts,
                    Event::QuestionResolved,
                    session,
                    None,
                    json!({"id": id, "question": "?", "answer": format!("a{seq}")}),
                )
            }
            49..=58 => line(
                seq,
                &ts,
                Event::CheckpointRecorded,
                session,
                None,
                json!({"text": "c"}),
            ),
            59..=64 => {
                let id = format!("t-20261130-{:04x}", rng.below(30));
                tasks.push(id.clone());
                line(
                    seq,
                    &ts,
                    Event::TaskStarted,
                    session,
                    Some(&id),
                    json!({"description": "x", "scope": []}),
                )
            }
            65..=68 if !tasks.is_empty() => {
                let id = tasks[rng.below(tasks.len() as u64) as usize].clone();
                line(
                    seq,
                    &ts,
                    Event::TaskFinished,
                    session,
                    Some(&id),
                    json!({"status": if rng.below(2) == 0 { "completed" } else { "blocked" }, "reason": null}),
                )
            }
            69..=76 => {
                let paths: Vec<String> = (0..rng.below(3))
                    .map(|_| format!(".ai/repo/knowledge/candidates/c-{}.md", rng.below(25)))
                    .collect();
                line(
                    seq,
                    &ts,
                    Event::KnowledgeDerived,
                    session,
                    None,
                    json!({"episode": ep, "target": "candidates", "written": 0, "unchanged": 0, "skipped": 0, "reviewed": 0, "paths": paths, "note": "written"}),
                )
            }
            77..=80 => line(
                seq,
                &ts,
                Event::ProviderEventFailed,
                session,
                None,
                json!({"hook": "session-start", "provider": "p", "error": format!("e{seq}")}),
            ),
            81..=82 => line(
                seq,
                &ts,
                Event::LedgerPruned,
                None,
                None,
                json!({"lines": seq, "before": ts}),
            ),
            83 => line(
                seq,
                "not a time",
                Event::CommitRecorded,
                session,
                None,
                json!({"sha": "s", "subject": "x"}),
            ),
            _ => line(
                seq,
                &ts,
                Event::CommitRecorded,
                session,
                None,
                json!({"sha": "s", "subject": "x"}),
            ),
        };
        out.push_str(&text);
    }
    out
}

/// Every answer of `index` against the same answer computed from a full scan.
fn assert_matches_scan(fx: &Fixture, index: &LedgerIndex) {
    let (lines, skipped) = fx.scan();

    let mut book = QuestionBook::default();
    for l in &lines {
        book.visit(l);
    }
    let all_questions = book.into_questions();
    let open: Vec<_> = all_questions
        .iter()
        .filter(|q| q.answer.is_none())
        .cloned()
        .collect();
    assert_eq!(index.open_questions(), open, "open questions");
    for q in &all_questions {
        // A question asked twice under one id answers as its last asking.
        let last = all_questions.iter().rev().find(|o| o.id == q.id);
        assert_eq!(
            index.question(&q.id).expect("question").as_ref(),
            last,
            "question {}",
            q.id
        );
    }
    assert_eq!(index.question("q-nope").expect("question"), None);

    let closed = |l: &LedgerLine| ClosedMoment {
        episode: l.session.clone(),
        ts: l.ts.clone(),
        knowledge_on_end: l.payload::<SessionClosed>().map(|c| c.knowledge_on_end),
        empty: l.payload::<SessionClosed>().is_some_and(|c| c.empty),
    };
    let last_closed = lines
        .iter()
        .rev()
        .find(|l| l.event == Event::SessionClosed)
        .map(closed);
    assert_eq!(index.last_closed(), last_closed.as_ref());
    let last_episode_closed = lines
        .iter()
        .rev()
        .find(|l| {
            l.event == Event::SessionClosed
                && l.session.is_some()
                && l.payload::<SessionClosed>().is_some()
        })
        .map(closed);
    assert_eq!(index.last_episode_closed(), last_episode_closed.as_ref());
    let last_derived = lines
        .iter()
        .rev()
        .find(|l| l.event == Event::KnowledgeDerived)
        .map(|l| Moment {
            episode: l.session.clone(),
            ts: l.ts.clone(),
        });
    assert_eq!(index.last_derived(), last_derived.as_ref());
    assert_eq!(
        index.any_episode_derived(),
        lines
            .iter()
            .any(|l| l.event == Event::KnowledgeDerived && l.session.is_some())
    );

    let failures: Vec<u64> = lines
        .iter()
        .filter(|l| l.event == Event::ProviderEventFailed)
        .map(|l| l.seq)
        .collect();
    let (kept, total) = index.provider_failures();
    assert_eq!(total, failures.len() as u64);
    let newest: Vec<u64> = failures
        .iter()
        .rev()
        .take(MAX_FAILURES)
        .rev()
        .copied()
        .collect();
    assert_eq!(kept.iter().map(|f| f.seq).collect::<Vec<_>>(), newest);

    let from_index = index.skipped().expect("skipped");
    assert_eq!(from_index.lines, skipped, "skipped lines");
    assert_eq!(from_index.total, skipped.len() as u64);

    // Episodes, tasks, candidates.
    let mut episodes: BTreeMap<String, EpisodeEntry> = BTreeMap::new();
    let mut offsets = Vec::new();
    {
        // Offsets of readable lines, in order, to name `opened`.
        let text = std::fs::read(fx.ledger_path()).expect("read");
        let mut at = 0u64;
        for piece in text.split_inclusive(|&b| b == b'\n') {
            if piece.last() == Some(&b'\n')
                && serde_json::from_slice::<LedgerLine>(&piece[..piece.len() - 1]).is_ok()
            {
                offsets.push(at);
            }
            at += piece.len() as u64;
        }
    }
    assert_eq!(offsets.len(), lines.len());
    for (l, at) in lines.iter().zip(&offsets) {
        let Some(s) = &l.session else { continue };
        if !matches!(
            l.event,
            Event::SessionOpened | Event::SessionClosed | Event::KnowledgeDerived
        ) {
            continue;
        }
        let e = episodes.entry(s.clone()).or_insert_with(|| EpisodeEntry {
            id: s.clone(),
            opened: None,
            closed: None,
            derived: false,
        });
        match l.event {
            Event::SessionOpened => {
                e.opened.get_or_insert(*at);
            }
            Event::SessionClosed => e.closed = Some(closed(l)),
            _ => e.derived = true,
        }
    }
    let mut ids: BTreeSet<String> = lines.iter().filter_map(|l| l.session.clone()).collect();
    ids.insert("20260101T000000Z-ffffff".into());
    for id in &ids {
        assert_eq!(
            index.episode(id).expect("episode").as_ref(),
            episodes.get(id),
            "episode {id}"
        );
    }
    let opened: HashSet<String> = episodes
        .values()
        .filter(|e| e.opened.is_some())
        .map(|e| e.id.clone())
        .collect();
    assert_eq!(
        index
            .opened_episodes(ids.iter().map(String::as_str))
            .expect("opened"),
        opened
    );

    let mut tasks: BTreeMap<String, TaskEntry> = BTreeMap::new();
    for l in &lines {
        let Some(t) = &l.task else { continue };
        match l.event {
            Event::TaskStarted => {
                tasks.entry(t.clone()).or_insert_with(|| TaskEntry {
                    id: t.clone(),
                    episode: l.session.clone(),
                    started: l.ts.clone(),
                    status: None,
                });
            }
            Event::TaskFinished => {
                if let (Some(e), Some(f)) = (tasks.get_mut(t), l.payload::<TaskFinished>()) {
                    e.status = Some(f.status);
                }
            }
            _ => {}
        }
    }
    let task_ids: BTreeSet<String> = lines
        .iter()
        .filter_map(|l| l.task.clone())
        .chain(["t-none".to_owned()])
        .collect();
    for t in &task_ids {
        assert_eq!(
            index.task(t).expect("task").as_ref(),
            tasks.get(t),
            "task {t}"
        );
    }
    assert_eq!(
        index
            .started_tasks(task_ids.iter().map(String::as_str))
            .expect("tasks"),
        tasks.keys().cloned().collect::<HashSet<_>>()
    );

    for n in 0..26 {
        let name = format!("c-{n}.md");
        let first = lines
            .iter()
            .find(|l| {
                l.payload::<KnowledgeDerived>()
                    .is_some_and(|d| d.paths.iter().any(|p| file_name(p) == name))
            })
            .map(|l| l.ts.clone());
        assert_eq!(
            index.first_derived(&name).expect("derived"),
            first,
            "{name}"
        );
    }
    let pruned: Vec<LedgerPruned> = lines
        .iter()
        .filter_map(LedgerLine::payload::<LedgerPruned>)
        .collect();
    assert_eq!(index.pruned().expect("pruned"), pruned);

    // Filtered reads.
    let times: Vec<OffsetDateTime> = [
        "2026-01-01",
        "2026-01-01T05:00:00Z",
        "2026-01-02T10:00:00Z",
        "2026-01-03",
        "2027-01-01",
    ]
    .iter()
    .filter_map(|t| crate::model::time::parse(t))
    .collect();
    let some_sessions: Vec<&String> = ids.iter().take(6).collect();
    let mut queries: Vec<LineQuery<'_>> = Vec::new();
    for s in &some_sessions {
        queries.push(LineQuery {
            session: Some(s),
            ..LineQuery::default()
        });
        queries.push(LineQuery {
            session: Some(s),
            event: Some(Event::DecisionRecorded),
            ..LineQuery::default()
        });
        queries.push(LineQuery {
            session: Some(s),
            since: Some(times[2]),
            ..LineQuery::default()
        });
    }
    for e in Event::ALL {
        queries.push(LineQuery {
            event: Some(e),
            ..LineQuery::default()
        });
        queries.push(LineQuery {
            event: Some(e),
            since: Some(times[1]),
            ..LineQuery::default()
        });
    }
    for t in &times {
        queries.push(LineQuery {
            since: Some(*t),
            ..LineQuery::default()
        });
    }
    for q in &queries {
        let expected: Vec<&LedgerLine> = lines
            .iter()
            .filter(|l| q.event.is_none_or(|e| e == l.event))
            .filter(|l| q.session.is_none_or(|s| l.session.as_deref() == Some(s)))
            .filter(|l| {
                q.since
                    .is_none_or(|t| crate::model::time::parse(&l.ts).is_some_and(|ts| ts >= t))
            })
            .collect();
        let got = index.lines(q).expect("lines");
        assert_eq!(got.iter().collect::<Vec<_>>(), expected, "{q:?}");
    }
}

#[test]
fn answers_match_a_full_scan_while_extending_and_after_a_rebuild() {
    for seed in [1u64, 7, 2026] {
        let fx = Fixture::new();
        let mut rng = Rng(seed);
        let mut seq = 0;
        // Grown in uneven steps, so the index extends and merges segments many times.
        for step in [1u64, 3, 40, 2, 700, 5, 1500, 1, 300] {
            let text = random_ledger(&mut rng, step, seq);
            seq += text.lines().filter(|l| l.starts_with('{')).count() as u64;
            fx.append_raw(&text);
            let index = fx.open();
            assert!(
                index.rebuilt().is_none() || seq <= step,
                "only the first open builds"
            );
            assert_eq!(
                index.covered(),
                std::fs::metadata(fx.ledger_path()).expect("len").len()
            );
        }
        let index = fx.open();
        assert!(index.manifest.segments.len() > 1, "several segments");
        assert_matches_scan(&fx, &index);
        // A torn tail is reported, not indexed.
        fx.append_raw(r#"{"seq":99999,"ts":"2026"#);
        assert_matches_scan(&fx, &fx.open());

        std::fs::remove_file(fx.layout.ledger_index()).expect("delete the manifest");
        let rebuilt = fx.open();
        assert_eq!(
            rebuilt.rebuilt().map(|r| r.reason),
            Some(RebuildReason::Missing)
        );
        assert_eq!(rebuilt.manifest.segments.len(), 1);
        assert_matches_scan(&fx, &rebuilt);
    }
}

fn decision(seq: u64, session: &str) -> String {
    line(
        seq,
        "2026-11-30T10:00:00Z",
        Event::DecisionRecorded,
        Some(session),
        None,
        json!({"text": format!("decision {seq}")}),
    )
}

#[test]
fn a_grown_ledger_is_read_from_where_the_index_ended() {
    let fx = Fixture::new();
    let text: String = (1..=100).map(|n| decision(n, "A")).collect();
    fx.append_raw(&text);
    let first = fx.open();
    assert_eq!(
        first.rebuilt().map(|r| r.reason),
        Some(RebuildReason::Missing)
    );
    assert_eq!(
        first.read(),
        IndexRead {
            from: 0,
            to: text.len() as u64,
            lines: 100
        }
    );

    let again = fx.open();
    assert!(again.rebuilt().is_none());
    assert_eq!(again.read().lines, 0, "a fresh index reads nothing");

    let more: String = (101..=103).map(|n| decision(n, "B")).collect();
    fx.append_raw(&more);
    let grown = fx.open();
    assert!(grown.rebuilt().is_none());
    assert_eq!(
        grown.read(),
        IndexRead {
            from: text.len() as u64,
            to: (text.len() + more.len()) as u64,
            lines: 3
        }
    );
    assert_eq!(
        grown
            .lines(&LineQuery {
                session: Some("B"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len(),
        3
    );
    assert_eq!(
        grown
            .lines(&LineQuery {
                session: Some("A"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len(),
        100
    );
}

#[test]
fn an_index_it_cannot_vouch_for_is_rebuilt() {
    let fx = Fixture::new();
    let text: String = (1..=50).map(|n| decision(n, "A")).collect();
    fx.append_raw(&text);
    fx.open();

    // The manifest cut short.
    let manifest = std::fs::read(fx.layout.ledger_index()).expect("manifest");
    std::fs::write(fx.layout.ledger_index(), &manifest[..manifest.len() / 2]).expect("truncate");
    assert_eq!(
        fx.open().rebuilt().map(|r| r.reason),
        Some(RebuildReason::Unreadable)
    );

    // A segment the manifest names, cut short.
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(fx.layout.ledger_index()).expect("manifest"))
            .expect("a manifest");
    let seg = fx
        .layout
        .ledger_index_dir()
        .join(&manifest.segments[0].file);
    let bytes = std::fs::read(&seg).expect("segment");
    std::fs::write(&seg, &bytes[..bytes.len() - 3]).expect("truncate");
    let index = fx.open();
    assert_eq!(
        index.rebuilt().map(|r| r.reason),
        Some(RebuildReason::Unreadable)
    );
    assert_eq!(
        index
            .lines(&LineQuery {
                session: Some("A"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len(),
        50
    );

    // A different ledger of the same length: only the last line tells.
    let other: String = (1..=50).map(|n| decision(n, "B")).collect();
    assert_eq!(other.len(), text.len());
    std::fs::write(fx.ledger_path(), &other).expect("replace the ledger");
    let index = fx.open();
    assert_eq!(
        index.rebuilt().map(|r| r.reason),
        Some(RebuildReason::Stale)
    );
    assert_eq!(
        index
            .lines(&LineQuery {
                session: Some("B"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len(),
        50
    );
    assert!(
        index
            .lines(&LineQuery {
                session: Some("A"),
                ..LineQuery::default()
            })
            .expect("lines")
            .is_empty()
    );

    // A shorter ledger.
    std::fs::write(fx.ledger_path(), &other[..other.len() / 2]).expect("truncate the ledger");
    let index = fx.open();
    assert_eq!(
        index.rebuilt().map(|r| r.reason),
        Some(RebuildReason::Stale)
    );
    assert!(
        index
            .lines(&LineQuery {
                session: Some("B"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len()
            < 50
    );
}

#[test]
fn no_ledger_is_an_empty_index_and_writes_nothing() {
    let fx = Fixture::new();
    let index = fx.open();
    assert!(index.rebuilt().is_none());
    assert!(index.open_questions().is_empty());
    assert!(!fx.layout.ledger_index().exists());
}

#[test]
fn a_rewrite_rebuilds_the_index_and_numbers_the_trailer_after_the_last_line() {
    let fx = Fixture::new();
    let text: String = (1..=10)
        .map(|n| decision(n, if n <= 6 { "A" } else { "B" }))
        .collect();
    fx.append_raw(&text);
    fx.open();
    let rewritten = LedgerIndex::rewrite_ledger(
        &fx.layout,
        |lines| {
            lines
                .iter()
                .map(|l| {
                    l.as_ref()
                        .is_some_and(|l| l.session.as_deref() == Some("B"))
                })
                .collect()
        },
        |dropped| {
            LineDraft::new(
                "2026-12-01T00:00:00Z".into(),
                None,
                None,
                &LedgerPruned {
                    lines: dropped,
                    before: "2026-11-30T11:00:00Z".into(),
                },
            )
        },
        "2026-11-30T11:00:00Z",
    )
    .expect("rewrite");
    assert_eq!(
        rewritten,
        Rewritten {
            dropped: 6,
            kept: 4,
            trailer: Some(11)
        }
    );
    let index = fx.open();
    assert!(index.rebuilt().is_none(), "the rewrite rebuilt the index");
    assert_eq!(index.retention_checked(), Some("2026-11-30T11:00:00Z"));
    let (lines, _) = fx.scan();
    assert_eq!(
        lines.iter().map(|l| l.seq).collect::<Vec<_>>(),
        [7, 8, 9, 10, 11]
    );
    assert_eq!(index.pruned().expect("pruned")[0].lines, 6);
    assert_eq!(
        index
            .lines(&LineQuery {
                session: Some("A"),
                ..LineQuery::default()
            })
            .expect("lines"),
        []
    );
    assert_eq!(
        index
            .lines(&LineQuery {
                session: Some("B"),
                ..LineQuery::default()
            })
            .expect("lines")
            .len(),
        4
    );
}
