//! Crash safety (docs/RELIABILITY.md). Each writing command is killed with `SIGKILL`
//! (through the `MAJORDOMUS_FAULT` test hook) at every step of every write it makes: at
//! each, every file holds its old or its new bytes (never half written), the ledger holds a
//! prefix of the lines the whole run appends (a torn tail only when killed mid-line) and no
//! line names a file that is not there; a rerun finishes the work and says what it found;
//! the temp files a killed writer left are gone after the rerun's writes or `doctor`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Run, TestRepo};

const SIGKILL: i32 = 9;
const WRITER_STEPS: &[&str] = &[
    "after-temp-write",
    "after-fsync",
    "before-rename",
    "after-rename",
];
const LEDGER_STEPS: &[&str] = &["before-line", "mid-line", "after-line"];
/// Every site of the hook with its steps.
const SITES: &[(&str, &[&str])] = &[
    ("write", WRITER_STEPS),
    ("new", WRITER_STEPS),
    ("derived", WRITER_STEPS),
    ("ledger", LEDGER_STEPS),
];
const LEDGER: &str = ".ai/local/ledger.jsonl";
/// Events a rerun must never append a second time for the same thing.
const ONCE: &[&str] = &[
    "session.closed",
    "knowledge.promoted",
    "knowledge.rejected",
    "knowledge.superseded",
    "knowledge.retired",
    "task.finished",
    "handover.derived",
    "reasoning.recorded",
];

/// A temp file name of the atomic writer: `.tmp.<name>.<pid>`.
fn is_temp(name: &str) -> bool {
    name.strip_prefix(".tmp.")
        .and_then(|rest| rest.rsplit_once('.'))
        .is_some_and(|(target, pid)| {
            !target.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
        })
}

/// The store as files on disk.
#[derive(Debug, Clone)]
struct State {
    /// Every file under the root but `.git/`, the ledger, its index and temp files.
    files: BTreeMap<String, Vec<u8>>,
    /// The ledger's complete lines as written.
    lines: Vec<String>,
    /// Bytes after the ledger's last newline (a torn line).
    torn: String,
    /// Temp files anywhere under the root (the index's folder included).
    temps: Vec<String>,
}

impl State {
    fn of(repo: &TestRepo) -> State {
        fn walk(
            dir: &Path,
            root: &Path,
            files: &mut BTreeMap<String, Vec<u8>>,
            temps: &mut Vec<String>,
        ) {
            for entry in std::fs::read_dir(dir).expect("list a directory") {
                let entry = entry.expect("directory entry");
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let rel = path
                    .strip_prefix(root)
                    .expect("under the root")
                    .to_string_lossy()
                    .into_owned();
                if name == ".git" {
                    continue;
                }
                if entry.file_type().expect("file type").is_dir() {
                    walk(&path, root, files, temps);
                } else if is_temp(&name) {
                    temps.push(rel);
                } else if rel != LEDGER
                    && name != "ledger-index.json"
                    && !rel.contains("/ledger-index/")
                {
                    files.insert(rel, std::fs::read(&path).expect("read a file"));
                }
            }
        }
        let mut files = BTreeMap::new();
        let mut temps = Vec::new();
        walk(repo.root(), repo.root(), &mut files, &mut temps);
        temps.sort();
        let text = repo.ledger_text();
        let (complete, torn) = match text.rfind('\n') {
            Some(i) => (&text[..=i], &text[i + 1..]),
            None => ("", text.as_str()),
        };
        State {
            files,
            lines: complete.lines().map(str::to_owned).collect(),
            torn: torn.to_owned(),
            temps,
        }
    }

    /// The ledger's readable lines, parsed.
    fn parsed(&self) -> Vec<Value> {
        self.lines
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    fn text(&self, rel: &str) -> Option<&str> {
        self.files
            .get(rel)
            .map(|b| std::str::from_utf8(b).expect("UTF-8"))
    }
}

/// What one killed run left, and what it had appended to the ledger.
struct Crashed {
    fault: String,
    state: State,
    appended: Vec<Value>,
}

impl Crashed {
    fn appended(&self, event: &str) -> bool {
        self.appended.iter().any(|l| l["event"] == event)
    }
}

/// Checks the rerun after a crash: its exit code and what it reports.
type RerunCheck = Box<dyn Fn(&Crashed, &Run)>;

/// One writing command and what its rerun after a crash must say.
struct Scenario {
    args: Vec<String>,
    stdin: String,
    rerun: RerunCheck,
    /// Sites at which the command must have been killed at least once.
    must_reach: &'static [&'static str],
}

impl Scenario {
    fn new(args: &[&str], stdin: &str, rerun: impl Fn(&Crashed, &Run) + 'static) -> Scenario {
        let mut all = vec!["--format".to_owned(), "json".to_owned()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        Scenario {
            args: all,
            stdin: stdin.to_owned(),
            rerun: Box::new(rerun),
            must_reach: &["write", "ledger", "derived"],
        }
    }

    fn run(&self, repo: &TestRepo, fault: Option<&str>) -> Run {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = fault.map(|f| ("MAJORDOMUS_FAULT", f)).into_iter().collect();
        repo.run_env(&args, &env, &self.stdin)
    }
}

/// The kills of one scenario, by site and step.
#[derive(Debug, Default)]
struct Kills(BTreeMap<(&'static str, &'static str), usize>);

impl Kills {
    /// The kills at `site`, all its steps together.
    fn at_site(&self, site: &str) -> usize {
        self.0
            .iter()
            .filter(|((s, _), _)| *s == site)
            .map(|(_, n)| n)
            .sum()
    }
}

/// Kills `scenario`'s command, run against copies of `template`, at every step of every
/// site the hook knows, the nth arrival for n = 1, 2, ... until the command runs whole;
/// checks each crash, its rerun, and `doctor` after it. Every step of every site the
/// scenario must reach is killed at least once (a step never reached is a step the claim
/// "killed at every step" does not cover). Returns the kills by site and step.
fn crash_at_every_step(template: &TestRepo, scenario: &Scenario) -> Kills {
    let old = State::of(template);
    assert!(
        old.temps.is_empty(),
        "the template has temp files: {:?}",
        old.temps
    );
    let clean = template.copy();
    let whole = scenario.run(&clean, None);
    assert_eq!(
        whole.code(),
        0,
        "the command fails without a fault: {whole}"
    );
    let new = State::of(&clean);
    assert!(
        new.temps.is_empty(),
        "a whole run leaves temp files: {:?}",
        new.temps
    );
    assert!(new.torn.is_empty());

    let mut kills = Kills::default();
    for (site, steps) in SITES {
        for step in *steps {
            for nth in 1.. {
                let repo = template.copy();
                let fault = format!("{site}:{step}:{nth}");
                let run = scenario.run(&repo, Some(&fault));
                if run.signal() != Some(SIGKILL) {
                    // The process never reached this arrival: it ran whole, as the clean run.
                    assert_eq!(run.code(), 0, "{fault}: {run}");
                    assert_eq!(
                        State::of(&repo).files,
                        new.files,
                        "{fault}: a whole run differs"
                    );
                    break;
                }
                *kills.0.entry((*site, *step)).or_insert(0) += 1;
                let crashed = Crashed {
                    appended: check_crashed(
                        &fault,
                        &old,
                        &State::of(&repo),
                        &new,
                        *step == "mid-line",
                    ),
                    state: State::of(&repo),
                    fault,
                };
                check_rerun(template, &repo, scenario, &crashed, &new);
            }
        }
    }
    for site in scenario.must_reach {
        let (_, steps) = SITES
            .iter()
            .find(|(s, _)| s == site)
            .unwrap_or_else(|| panic!("no site {site}"));
        for step in *steps {
            assert!(
                kills.0.get(&(*site, *step)).is_some_and(|n| *n > 0),
                "the command was never killed at {site}:{step}: {kills:?}"
            );
        }
    }
    kills
}

/// The state a kill left: each file old or new, the ledger a prefix of the whole run's,
/// torn only mid-line, no appended line naming a missing file. Returns the lines the
/// killed run appended.
fn check_crashed(
    fault: &str,
    old: &State,
    crashed: &State,
    new: &State,
    mid_line: bool,
) -> Vec<Value> {
    let paths: std::collections::BTreeSet<&String> = old
        .files
        .keys()
        .chain(new.files.keys())
        .chain(crashed.files.keys())
        .collect();
    for path in paths {
        let now = crashed.files.get(path);
        assert!(
            now == old.files.get(path) || now == new.files.get(path),
            "{fault}: {path} holds neither its old nor its new bytes:\n{}",
            now.map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_else(|| "(absent)".into())
        );
    }
    assert!(
        crashed.lines.len() <= new.lines.len()
            && crashed.lines[..] == new.lines[..crashed.lines.len()],
        "{fault}: the ledger is not a prefix of what the whole run appends:\n{}",
        crashed.lines.join("\n")
    );
    if mid_line {
        let next = &new.lines[crashed.lines.len()];
        assert!(
            !crashed.torn.is_empty() && next.starts_with(&crashed.torn),
            "{fault}: a kill mid-line leaves the start of the line: {:?}",
            crashed.torn
        );
    } else {
        assert_eq!(crashed.torn, "", "{fault}: a torn ledger line");
    }
    // A temp file is named for the file its writer was writing: one the whole run writes
    // (or the derived index).
    for temp in &crashed.temps {
        let name = temp.rsplit('/').next().expect("a name");
        let target = Path::new(temp)
            .with_file_name(&name[".tmp.".len()..name.rfind('.').expect("pid")])
            .to_string_lossy()
            .into_owned();
        assert!(
            new.files.contains_key(&target)
                || target.ends_with("ledger-index.json")
                || target.contains("/ledger-index/"),
            "{fault}: {temp} is the temp file of {target}, which the whole run does not write"
        );
    }
    let appended: Vec<Value> = crashed.parsed()[old.lines.len()..].to_vec();
    for line in &appended {
        for file in files_named(line) {
            assert!(
                crashed.files.contains_key(&file),
                "{fault}: ledger line {line} names {file}, which is not there"
            );
        }
        match line["event"].as_str() {
            Some("knowledge.rejected" | "knowledge.superseded" | "knowledge.retired") => {
                let path = line["data"]["path"].as_str().expect("path");
                assert!(
                    crashed
                        .text(path)
                        .is_some_and(|t| t.contains("status: superseded")),
                    "{fault}: {line} before {path} says superseded"
                );
            }
            Some("task.finished") => {
                let task = line["task"].as_str().expect("task");
                let record = crashed
                    .text(&format!(".ai/local/state/tasks/{task}.json"))
                    .expect("task record");
                assert!(
                    !record.contains("\"state\": \"active\""),
                    "{fault}: {line} while the task record says active"
                );
            }
            _ => {}
        }
    }
    appended
}

/// The files a ledger line says are there.
fn files_named(line: &Value) -> Vec<String> {
    let data = &line["data"];
    let string = |v: &Value| v.as_str().map(str::to_owned);
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(string).collect())
            .unwrap_or_default()
    };
    match line["event"].as_str().unwrap_or_default() {
        // An episode that closed empty names no record (`record: ""`).
        "session.closed" => string(&data["record"])
            .filter(|r| !r.is_empty())
            .into_iter()
            .collect(),
        "knowledge.derived" => names(&data["paths"]),
        "knowledge.promoted"
        | "knowledge.rejected"
        | "knowledge.superseded"
        | "knowledge.retired"
        | "handover.derived"
        | "reasoning.recorded" => string(&data["path"]).into_iter().collect(),
        "task.finished" => vec![format!(
            ".ai/local/state/completed/{}.md",
            line["task"].as_str().expect("task")
        )],
        "outbox.drained" => names(&data["sessions"])
            .into_iter()
            .map(|n| format!(".ai/repo/sessions/{n}"))
            .chain(
                names(&data["candidates"])
                    .into_iter()
                    .map(|n| format!(".ai/repo/knowledge/candidates/{n}")),
            )
            .collect(),
        _ => Vec::new(),
    }
}

/// A line's identity without its `seq`.
fn key(line: &Value) -> String {
    json!([line["event"], line["session"], line["task"], line["data"]]).to_string()
}

/// Reruns the command after a crash: it ends as the whole run did (every file, no line
/// lost, no once-only line twice), says what it found, and `doctor` removes what temp files
/// are left, naming them.
fn check_rerun(
    template: &TestRepo,
    repo: &TestRepo,
    scenario: &Scenario,
    crashed: &Crashed,
    new: &State,
) {
    let fault = &crashed.fault;
    let rerun = scenario.run(repo, None);
    assert_ne!(
        rerun.signal(),
        Some(SIGKILL),
        "{fault}: the rerun was killed"
    );
    (scenario.rerun)(crashed, &rerun);
    let after = State::of(repo);
    assert_eq!(
        after.files.keys().collect::<Vec<_>>(),
        new.files.keys().collect::<Vec<_>>(),
        "{fault}: after the rerun"
    );
    for (path, bytes) in &new.files {
        assert!(
            after.files[path] == *bytes,
            "{fault}: after the rerun {path} differs from the whole run's"
        );
    }
    // Every line the whole run appended is there; a once-only one exactly once.
    let lines = after.parsed();
    let unreadable = after.lines.len() - lines.len();
    assert_eq!(
        unreadable,
        usize::from(fault.contains("mid-line")),
        "{fault}: unreadable lines"
    );
    let seqs: Vec<u64> = lines
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    // A torn line takes no seq: the next append numbers on from the last whole line.
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "{fault}: seq has a gap or a repeat"
    );
    let count = |lines: &[Value], k: &str| lines.iter().filter(|l| key(l) == k).count();
    let base = State::of(template).lines.len();
    let whole: Vec<Value> = new.parsed()[base..].to_vec();
    for line in &whole {
        let k = key(line);
        let (want, have) = (count(&whole, &k), count(&lines, &k));
        let event = line["event"].as_str().expect("event");
        if ONCE.contains(&event) {
            assert_eq!(have, want, "{fault}: {event} lines after the rerun: {k}");
        } else {
            assert!(
                lines.iter().filter(|l| l["event"] == event).count()
                    >= whole.iter().filter(|l| l["event"] == event).count(),
                "{fault}: {event} lost"
            );
        }
    }
    assert_eq!(after.torn, "", "{fault}: the rerun left a torn line");
    // Every file the whole run's lines account for is accounted for by a line of the same
    // event: nothing was moved, written or promoted without the ledger hearing of it.
    for line in &whole {
        let event = &line["event"];
        for file in files_named(line) {
            assert!(
                lines
                    .iter()
                    .any(|l| l["event"] == *event && files_named(l).contains(&file)),
                "{fault}: no {event} line names {file} after the rerun"
            );
        }
    }

    // Temp files the rerun's writes did not sweep: doctor removes them and names each.
    let doctor = repo.run(&["--format", "json", "doctor"]);
    let report = doctor.json();
    let rule = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.temp-files")
        .expect("the temp-files rule ran")
        .clone();
    for temp in &after.temps {
        assert!(
            rule["note"]
                .as_str()
                .is_some_and(|n| n.contains(temp.as_str())),
            "{fault}: doctor does not name the temp file it removed, {temp}: {rule}"
        );
    }
    assert_eq!(
        State::of(repo).temps,
        Vec::<String>::new(),
        "{fault}: temp files after doctor"
    );
}

/// Panics unless `run` exited 0; returns its JSON.
#[track_caller]
fn ok(crashed: &Crashed, run: &Run) -> Value {
    assert_eq!(run.code(), 0, "{}: rerun {run}", crashed.fault);
    run.json()
}

/// An episode with two decisions and a commit, open.
fn worked_episode() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "Crash tests kill the writer at every step"])
        .success();
    repo.run(&["decision", "A rerun finishes what a killed run began"])
        .success();
    repo.commit("src/lib.rs", "pub fn crash() {}\n", "Add the library");
    repo
}

/// [`worked_episode`], closed: its candidates await review. Returns the first one's id.
fn closed_episode() -> (TestRepo, String) {
    let repo = worked_episode();
    repo.run(&["session", "close"]).success();
    let id = repo.record_ids(".ai/repo/knowledge/candidates")[0].clone();
    (repo, id)
}

#[test]
fn session_close_killed_at_every_step() {
    let template = worked_episode();
    let episode = template.episode_id();
    let mut scenario = Scenario::new(
        &["session", "close"],
        "What the episode did.\n",
        |crashed, run| {
            let json = ok(crashed, run);
            if crashed.appended("session.closed") {
                assert!(
                    json["resumed"]
                        .as_str()
                        .is_some_and(|r| r.contains("interrupted")),
                    "{}: the rerun says it finished a close: {json}",
                    crashed.fault
                );
            } else {
                assert!(json.get("resumed").is_none(), "{}: {json}", crashed.fault);
                // The record the killed run wrote is found as it is.
                let record = json["path"].as_str().expect("path");
                let expect = if crashed.state.files.contains_key(record) {
                    "unchanged"
                } else {
                    "written"
                };
                assert_eq!(json["write"], expect, "{}", crashed.fault);
            }
        },
    );
    // The close reads its window from the ledger itself: it writes no index.
    scenario.must_reach = &["write", "ledger"];
    let kills = crash_at_every_step(&template, &scenario);
    // The record and two candidates, each at four steps; two lines at three.
    assert_eq!(kills.at_site("write"), 12, "{kills:?}");
    assert_eq!(kills.at_site("ledger"), 6, "{kills:?}");
    assert!(!template.exists(&format!(".ai/repo/sessions/{episode}.md")));
}

#[test]
fn knowledge_derive_killed_at_every_step() {
    let template = worked_episode();
    let scenario = Scenario::new(&["knowledge", "derive"], "", |crashed, run| {
        let json = ok(crashed, run);
        // What the killed run had already written is reported unchanged, the rest written.
        for path in json["written"].as_array().expect("written") {
            let path = path.as_str().expect("path");
            assert!(
                !crashed.state.files.contains_key(path),
                "{}: {path}",
                crashed.fault
            );
        }
        for path in json["unchanged"].as_array().expect("unchanged") {
            let path = path.as_str().expect("path");
            assert!(
                crashed.state.files.contains_key(path),
                "{}: {path}",
                crashed.fault
            );
        }
    });
    crash_at_every_step(&template, &scenario);
}

#[test]
fn knowledge_promote_killed_at_every_step() {
    let (template, id) = closed_episode();
    let candidate = format!(".ai/repo/knowledge/candidates/{id}.md");
    let curated = format!(".ai/repo/knowledge/curated/{id}.md");
    let (cand, cur) = (candidate.clone(), curated.clone());
    let mut scenario = Scenario::new(
        &["knowledge", "promote", &id],
        "tests/cli/crash.rs kills promote at every step\n",
        move |crashed, run| {
            let files = &crashed.state.files;
            if files.contains_key(&cur) && files.contains_key(&cand) {
                // Killed between the curated record and the candidate's removal.
                let json = ok(crashed, run);
                let resumed = json["resumed"].as_str().unwrap_or_default();
                assert!(resumed.contains("interrupted"), "{}: {json}", crashed.fault);
                assert_eq!(
                    resumed.contains("appended its knowledge.promoted line"),
                    !crashed.appended("knowledge.promoted"),
                    "{}: {json}",
                    crashed.fault
                );
            } else if files.contains_key(&cur) {
                // Killed after the promotion was whole (in a later derived write).
                run.json_error(3, "knowledge.already-promoted");
            } else {
                let json = ok(crashed, run);
                assert!(json.get("resumed").is_none(), "{}: {json}", crashed.fault);
            }
        },
    );
    scenario.must_reach = &["write", "ledger"];
    crash_at_every_step(&template, &scenario);
    assert!(template.exists(&candidate) && !template.exists(&curated));
}

#[test]
fn knowledge_reject_killed_at_every_step() {
    let (template, id) = closed_episode();
    let mut scenario = Scenario::new(
        &[
            "knowledge",
            "reject",
            &id,
            "--reason",
            "Not a convention of this project",
        ],
        "",
        |crashed, run| {
            if crashed.appended("knowledge.rejected") {
                // The rejection was whole: the candidate is superseded, the line there.
                run.json_error(3, "knowledge.superseded");
                return;
            }
            let json = ok(crashed, run);
            let id = json["id"].as_str().expect("id");
            let rewritten = crashed
                .state
                .text(&format!(".ai/repo/knowledge/candidates/{id}.md"))
                .is_some_and(|t| t.contains("status: superseded"));
            assert_eq!(
                json.get("resumed").is_some(),
                rewritten,
                "{}: {json}",
                crashed.fault
            );
        },
    );
    scenario.must_reach = &["write", "ledger"];
    crash_at_every_step(&template, &scenario);
}

#[test]
fn outbox_drain_killed_at_every_step() {
    // On the trunk an episode parks its record and candidates in the outbox; a second is
    // opened there; on a working branch its close drains the outbox first.
    let template = TestRepo::initialised();
    template.add_origin();
    template.start_episode();
    template
        .run(&["decision", "Trunk records wait in the outbox"])
        .success();
    template.run(&["session", "close"]).success();
    let parked = template.record_ids(".ai/local/state/outbox/candidates");
    assert_eq!(parked.len(), 1);
    template.start_episode();
    // (A checkpoint: an episode with nothing authored closes empty and writes no record.)
    template
        .run(&["checkpoint", "Opened on the trunk"])
        .success();
    template.git(&["checkout", "-q", "-b", "work"]);
    let mut scenario = Scenario::new(&["session", "close"], "", |crashed, run| {
        let json = ok(crashed, run);
        let parked: Vec<&String> = crashed
            .state
            .files
            .keys()
            .filter(|p| p.starts_with(".ai/local/state/outbox/"))
            .collect();
        if parked.is_empty() {
            assert!(json["drained"].is_null(), "{}: {json}", crashed.fault);
        } else {
            // It moves what is still parked, whatever the killed run had copied.
            let moved = json["drained"]["sessions"]
                .as_array()
                .expect("sessions")
                .len()
                + json["drained"]["candidates"]
                    .as_array()
                    .expect("candidates")
                    .len();
            assert_eq!(moved, parked.len(), "{}: {json}", crashed.fault);
        }
    });
    scenario.must_reach = &["write", "ledger"];
    let kills = crash_at_every_step(&template, &scenario);
    // The drain's two copies and the second episode's record, each at four steps; three
    // lines (outbox.drained, knowledge.derived, session.closed) at three.
    assert_eq!(kills.at_site("write"), 12, "{kills:?}");
    assert_eq!(kills.at_site("ledger"), 9, "{kills:?}");
}

#[test]
fn task_finish_killed_at_every_step() {
    let template = worked_episode();
    template
        .run(&["task", "start", "Kill task finish at every step"])
        .success();
    template.commit("src/task.rs", "pub fn task() {}\n", "Work on the task");
    let mut scenario = Scenario::new(&["task", "finish"], "", |crashed, run| {
        let record_finished = crashed.state.files.iter().any(|(p, b)| {
            p.starts_with(".ai/local/state/tasks/")
                && !String::from_utf8_lossy(b).contains("\"state\": \"active\"")
        });
        if crashed.appended("task.finished") {
            run.json_error(3, "task.active");
        } else if record_finished {
            let json = ok(crashed, run);
            assert!(
                json["resumed"]
                    .as_str()
                    .is_some_and(|r| r.contains("task.finished")),
                "{}: {json}",
                crashed.fault
            );
        } else {
            let json = ok(crashed, run);
            assert!(json.get("resumed").is_none(), "{}: {json}", crashed.fault);
        }
    });
    scenario.must_reach = &["write", "ledger"];
    crash_at_every_step(&template, &scenario);
}

#[test]
fn handover_derive_killed_at_every_step() {
    let template = worked_episode();
    template
        .run(&["task", "start", "Hand the crash tests over"])
        .success();
    let scenario = Scenario::new(&["handover", "--derive"], "", |crashed, run| {
        let json = ok(crashed, run);
        let path = json["path"].as_str().expect("path");
        let written = crashed.state.files.contains_key(path);
        assert_eq!(
            json["write"],
            if written { "unchanged" } else { "written" },
            "{}",
            crashed.fault
        );
        assert_eq!(
            json.get("resumed").is_some(),
            written && !crashed.appended("handover.derived"),
            "{}: {json}",
            crashed.fault
        );
    });
    crash_at_every_step(&template, &scenario);
}

#[test]
fn reasoning_record_killed_at_every_step() {
    let template = worked_episode();
    let record = json!({
        "kind": "assessment",
        "subject": "Does a killed writer leave half a record?",
        "materiality": "low",
        "confidence": "medium",
        "hypothesis": "The writer links a whole temp file or nothing",
    })
    .to_string();
    let mut scenario = Scenario::new(&["reasoning", "record"], &record, |crashed, run| {
        let json = ok(crashed, run);
        let path = json["path"].as_str().expect("path");
        let stored = crashed.state.files.contains_key(path);
        assert_eq!(json["unchanged"], stored, "{}: {json}", crashed.fault);
        assert_eq!(
            json.get("resumed").is_some(),
            stored && !crashed.appended("reasoning.recorded"),
            "{}: {json}",
            crashed.fault
        );
    });
    scenario.must_reach = &["new", "ledger"];
    crash_at_every_step(&template, &scenario);
}

/// Three verified records, committed, no episode open: two to end, one replacing them.
fn verified_records() -> (TestRepo, [String; 3]) {
    use crate::lifecycle::{project, verified};
    let repo = project();
    let a = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let b = verified(
        &repo,
        "Trace ids are random",
        "src/trace.rs",
        "src/trace.rs: ids",
    );
    let new = verified(
        &repo,
        "Trace spans and ids are gone",
        "src/pricing.rs",
        "src/pricing.rs: no spans",
    );
    (repo, [a, b, new])
}

/// What the rerun of an act ending `ids` says after a crash: refused as already done when
/// the killed run had appended every line (`event`), else done, saying it resumed when
/// the killed run had ended a record already.
fn ended_rerun(ids: Vec<String>, event: &'static str) -> impl Fn(&Crashed, &Run) + 'static {
    move |crashed, run| {
        let lines = crashed
            .appended
            .iter()
            .filter(|l| l["event"] == event)
            .count();
        if lines == ids.len() {
            run.json_error(3, "knowledge.superseded");
            return;
        }
        let json = ok(crashed, run);
        let ended: Vec<&String> = ids
            .iter()
            .filter(|id| {
                crashed
                    .state
                    .text(&format!(".ai/repo/knowledge/curated/{id}.md"))
                    .is_some_and(|t| t.contains("status: superseded"))
            })
            .collect();
        let resumed = json["resumed"].as_str().unwrap_or_default();
        assert_eq!(
            !resumed.is_empty(),
            !ended.is_empty(),
            "{}: {json}",
            crashed.fault
        );
        // A record ended without its line gets the line, and is said to.
        assert_eq!(
            resumed.contains("which this run appended"),
            ended.len() > lines,
            "{}: {json}",
            crashed.fault
        );
        assert_eq!(
            json["records"].as_array().map(Vec::len),
            Some(ids.len()),
            "{}: {json}",
            crashed.fault
        );
    }
}

#[test]
fn knowledge_supersede_killed_at_every_step() {
    let (template, [a, b, new]) = verified_records();
    let mut scenario = Scenario::new(
        &["knowledge", "supersede", &a, &b, "--by", &new],
        "The trace module was removed\n",
        ended_rerun(vec![a.clone(), b.clone()], "knowledge.superseded"),
    );
    scenario.must_reach = &["write", "ledger"];
    let kills = crash_at_every_step(&template, &scenario);
    // Two records, each at four steps; two lines at three.
    assert_eq!(kills.0[&("write", "after-rename")], 2, "{kills:?}");
    assert_eq!(kills.0[&("ledger", "after-line")], 2, "{kills:?}");
}

#[test]
fn knowledge_retire_killed_at_every_step() {
    let (template, [a, b, _]) = verified_records();
    let mut scenario = Scenario::new(
        &[
            "knowledge",
            "retire",
            &a,
            &b,
            "--reason",
            "The trace module was removed",
        ],
        "",
        ended_rerun(vec![a.clone(), b.clone()], "knowledge.retired"),
    );
    scenario.must_reach = &["write", "ledger"];
    let kills = crash_at_every_step(&template, &scenario);
    assert_eq!(kills.0[&("write", "after-rename")], 2, "{kills:?}");
    assert_eq!(kills.0[&("ledger", "after-line")], 2, "{kills:?}");
}

#[test]
fn knowledge_retire_all_listed_killed_at_every_step() {
    // The selection form: a rerun lists what is still verified, and finds what the killed
    // run ended without its line.
    let (template, ids) = verified_records();
    let mut scenario = Scenario::new(
        &[
            "knowledge",
            "retire",
            "--all-listed",
            "--reason",
            "The trace module was removed",
        ],
        "",
        move |crashed, run| {
            let lines = crashed
                .appended
                .iter()
                .filter(|l| l["event"] == "knowledge.retired")
                .count();
            if lines == 3 {
                // All three listed were retired, lines and all: nothing is listed now.
                run.json_error(3, "knowledge.selection-empty");
                return;
            }
            let json = ok(crashed, run);
            let resumed = json["resumed"].as_str().unwrap_or_default();
            let unlined = ids
                .iter()
                .filter(|id| {
                    crashed
                        .state
                        .text(&format!(".ai/repo/knowledge/curated/{id}.md"))
                        .is_some_and(|t| t.contains("status: superseded"))
                })
                .count()
                > lines;
            assert_eq!(
                resumed.contains("which this run appended"),
                unlined,
                "{}: {json}",
                crashed.fault
            );
        },
    );
    scenario.must_reach = &["write", "ledger"];
    crash_at_every_step(&template, &scenario);
}

#[test]
fn knowledge_promote_supersedes_killed_at_every_step() {
    let (template, [a, b, _]) = verified_records();
    let id = crate::lifecycle::decided(&template, "Trace spans are kept nowhere", "src/trace.rs");
    let candidate = format!(".ai/repo/knowledge/candidates/{id}.md");
    let curated = format!(".ai/repo/knowledge/curated/{id}.md");
    let (cand, cur) = (candidate.clone(), curated.clone());
    let mut scenario = Scenario::new(
        &[
            "knowledge",
            "promote",
            &id,
            "--supersedes",
            &a,
            "--supersedes",
            &b,
        ],
        "src/trace.rs is gone\n",
        move |crashed, run| {
            let files = &crashed.state.files;
            let superseded = crashed
                .appended
                .iter()
                .filter(|l| l["event"] == "knowledge.superseded")
                .count();
            if files.contains_key(&cur) && files.contains_key(&cand) {
                // Killed between the curated record and the candidate's removal.
                let json = ok(crashed, run);
                let resumed = json["resumed"].as_str().unwrap_or_default();
                assert!(resumed.contains("interrupted"), "{}: {json}", crashed.fault);
                assert_eq!(json["superseded"].as_array().map(Vec::len), Some(2));
            } else if files.contains_key(&cur) && superseded == 2 {
                // Killed after the act was whole (in a later derived write).
                run.json_error(3, "knowledge.already-promoted");
            } else if files.contains_key(&cur) {
                // Promoted; what it supersedes not all done: the rerun finishes it.
                let json = ok(crashed, run);
                let resumed = json["resumed"].as_str().unwrap_or_default();
                assert!(
                    resumed.contains("was promoted already"),
                    "{}: {json}",
                    crashed.fault
                );
                assert_eq!(json["superseded"].as_array().map(Vec::len), Some(2));
            } else {
                let json = ok(crashed, run);
                assert!(json.get("resumed").is_none(), "{}: {json}", crashed.fault);
            }
        },
    );
    scenario.must_reach = &["write", "ledger"];
    crash_at_every_step(&template, &scenario);
}

#[test]
fn a_review_promoting_with_supersedes_killed_after_the_promotion_is_finished_by_its_fix() {
    let (repo, [a, b, _]) = verified_records();
    let id = crate::lifecycle::decided(&repo, "Trace spans are kept nowhere", "src/trace.rs");
    let args = [
        "knowledge",
        "promote",
        id.as_str(),
        "--supersedes",
        a.as_str(),
        "--supersedes",
        b.as_str(),
        "--commit",
    ];
    // Killed before the second record's line: the promotion is whole, `a` superseded
    // with its line, `b` superseded without.
    let promoted = repo.ledger_events("knowledge.promoted").len();
    let run = repo.run_env(
        &args,
        &[("MAJORDOMUS_FAULT", "ledger:before-line:3")],
        "src/trace.rs is gone\n",
    );
    assert_eq!(run.signal(), Some(SIGKILL), "{run}");
    assert_eq!(repo.ledger_events("knowledge.promoted").len(), promoted + 1);
    assert_eq!(repo.ledger_events("knowledge.superseded").len(), 1);
    assert!(
        repo.read(&format!(".ai/repo/knowledge/curated/{b}.md"))
            .contains("status: superseded")
    );
    // The review is refused as promoted already; its fix finishes the act, as printed.
    let rerun = repo.run_with_stdin(&args, "src/trace.rs is gone\n");
    assert_eq!(rerun.code(), 3, "{rerun}");
    let fixes = crate::common::fix_lines(rerun.stderr());
    assert_eq!(
        fixes,
        [format!(
            "majordomus knowledge promote {id} --supersedes {a} --supersedes {b} </dev/null"
        )]
    );
    let out = repo.sh_printed(&fixes[0]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("note: resumed:"),
        "{out:?}"
    );
    let lines = repo.ledger_events("knowledge.superseded");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["data"]["id"], b.as_str());
    assert_eq!(repo.ledger_events("knowledge.promoted").len(), promoted + 1);
    repo.run(&["knowledge", "check"]).success();
    // Nothing is left: the review is refused with nothing to finish.
    let again = repo.run_with_stdin(
        &[&["--format", "json"][..], &args].concat(),
        "src/trace.rs is gone\n",
    );
    let error = again.json_error(3, "knowledge.already-promoted");
    assert_eq!(error["fix"], format!("majordomus knowledge show {id}"));
}

/// A repository where `promote` was killed after writing the curated record: both files
/// are there. Returns it with the candidate id.
fn promotion_killed_before_its_line() -> (TestRepo, String) {
    let (repo, id) = closed_episode();
    let run = repo.run_env(
        &["knowledge", "promote", &id],
        &[("MAJORDOMUS_FAULT", "ledger:before-line")],
        "tests/cli/crash.rs\n",
    );
    assert_eq!(run.signal(), Some(SIGKILL), "{run}");
    assert!(repo.exists(&format!(".ai/repo/knowledge/curated/{id}.md")));
    assert!(repo.exists(&format!(".ai/repo/knowledge/candidates/{id}.md")));
    (repo, id)
}

#[test]
fn check_names_an_interrupted_promotion_and_its_fix_finishes_it() {
    let (repo, id) = promotion_killed_before_its_line();
    let check = repo.run(&["--format", "json", "knowledge", "check"]);
    assert_eq!(check.code(), 3, "{check}");
    let findings = check.json()["findings"].clone();
    let unique: Vec<&Value> = findings
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "knowledge.id-unique")
        .collect();
    assert_eq!(unique.len(), 1, "{findings}");
    let fix = unique[0]["fix"].as_str().expect("fix");
    assert_eq!(fix, format!("majordomus knowledge promote {id}"));
    assert!(
        unique[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("an interrupted promotion, which promoting again finishes")),
        "{findings}"
    );

    // The printed fix works exactly as printed (no evidence on stdin: the first run's
    // stands).
    let out = repo.sh_in(repo.root(), &format!("{fix} </dev/null"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: resumed: an earlier promotion")
            && stderr.contains("appended its knowledge.promoted line"),
        "{stderr}"
    );
    assert!(!repo.exists(&format!(".ai/repo/knowledge/candidates/{id}.md")));
    let promoted = repo.ledger_events("knowledge.promoted");
    assert_eq!(promoted.len(), 1);
    assert_eq!(promoted[0]["data"]["id"], id.as_str());
    repo.run(&["knowledge", "check"]).success();
    // And a third run finds nothing left to do.
    repo.run(&["--format", "json", "knowledge", "promote", &id])
        .json_error(3, "knowledge.already-promoted");
}

#[test]
fn a_killed_writers_temp_file_is_removed_by_the_next_write_in_its_directory() {
    let (repo, id) = closed_episode();
    let run = repo.run_env(
        &["knowledge", "promote", &id],
        &[("MAJORDOMUS_FAULT", "write:before-rename")],
        "tests/cli/crash.rs\n",
    );
    assert_eq!(run.signal(), Some(SIGKILL), "{run}");
    let left = State::of(&repo).temps;
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(&format!(".ai/repo/knowledge/curated/.tmp.{id}.md.")),
        "{left:?}"
    );
    // The rerun writes in that folder: its first write there sweeps the dead writer's file.
    repo.run_with_stdin(&["knowledge", "promote", &id], "tests/cli/crash.rs\n")
        .success();
    assert_eq!(State::of(&repo).temps, Vec::<String>::new());
    assert!(repo.exists(&format!(".ai/repo/knowledge/curated/{id}.md")));
}

#[test]
fn doctor_removes_stale_temp_files_and_leaves_a_running_writers() {
    let repo = TestRepo::initialised();
    // A writer that is gone: a child started and reaped. One that runs: this test.
    let mut child = std::process::Command::new("true").spawn().expect("spawn");
    let dead = child.id();
    child.wait().expect("reap");
    let stale = format!(".ai/repo/knowledge/candidates/.tmp.x.md.{dead}");
    let deep = format!(".ai/local/state/reasoning/_episode-x/.tmp.r.json.{dead}");
    let live = format!(".ai/repo/sessions/.tmp.y.md.{}", std::process::id());
    for rel in [&stale, &deep, &live] {
        repo.write(rel, "half a fil");
    }
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let rule = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.temp-files")
        .expect("the rule ran")
        .clone();
    assert_eq!(rule["status"], "pass", "{rule}");
    assert_eq!(rule["findings"], json!([]));
    assert_eq!(
        rule["note"],
        format!(
            "removed 2 stale temp file(s) a killed writer left: {deep}, {stale}; left 1 temp file(s) of writers still running: {live}"
        ),
    );
    assert!(!repo.exists(&stale) && !repo.exists(&deep) && repo.exists(&live));
    // Human output says it too.
    let human = repo.run(&["doctor"]).success();
    assert!(
        human.stdout().contains(
            "ok   majordomus.temp-files\n     left 1 temp file(s) of writers still running"
        ),
        "{human}"
    );
}

#[test]
fn a_malformed_fault_spec_is_said_and_ignored() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let run = repo.run_env(
        &["decision", "Not killed"],
        &[("MAJORDOMUS_FAULT", "write:before-line")],
        "",
    );
    assert_eq!(run.code(), 0, "{run}");
    assert!(
        run.stderr()
            .contains("MAJORDOMUS_FAULT=\"write:before-line\" is not <site>:<step>[:<nth>[:stop]]"),
        "{run}"
    );
    assert_eq!(repo.ledger_events("decision.recorded").len(), 1);
}
