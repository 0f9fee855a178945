//! Injected memory is data, never instructions (docs/SECURITY.md, "Injected memory is
//! data"): every text of the hostile set ([`HOSTILE_TEXTS`], docs/HOSTILE.md) is written
//! through each authored write, which flags it, then read back through every path that puts
//! records before a model: the briefing (`briefing`, `hook session-start`), `hook edit`,
//! `hook prompt`, `recall` and `session context`. Wherever it shows, it is inside a labelled
//! quote, with nothing instruction-shaped left outside a mark.

use std::thread;

use majordomus::model::inject::hostile::{HOSTILE_TEXTS, HostileText};
use majordomus::model::inject::{
    MARK_CLOSE, MARK_OPEN, QUOTE_CLOSE, QUOTE_OPEN, Shape, names, shapes,
};
use serde_json::{Value, json};

use crate::common::{TestRepo, knowledge_record};

/// The file every record cites (the edit hook is asked about it).
const TARGET: &str = "src/hostile.rs";
/// Words every hostile record ends with: the prompt asks for them, and each line that
/// shows a record is found by them.
const MARKER: &str = "zanzibar quokka";
const CURATED: &str = ".ai/repo/knowledge/curated";

/// The text written for `case`: its hostile text, then the marker.
fn written(case: &HostileText) -> String {
    format!("{} {MARKER}", case.text)
}

/// Every string of a hook's JSON output, or the output itself when it is not JSON.
fn readable(stdout: &str) -> String {
    fn strings(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(stdout) {
        Ok(value) => {
            let mut out = String::new();
            strings(&value, &mut out);
            out
        }
        Err(_) => stdout.to_owned(),
    }
}

/// `text` without its marked spans (`⟦…⟧`).
fn unmarked(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in text.chars() {
        match c {
            MARK_OPEN => inside = true,
            MARK_CLOSE => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// The quoted texts of `line` (`⟪…⟫`), each with where its quote opens.
fn quotes(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    let mut at = 0;
    while let Some(open) = rest.find(QUOTE_OPEN) {
        let inner = &rest[open + QUOTE_OPEN.len_utf8()..];
        let Some(close) = inner.find(QUOTE_CLOSE) else {
            break;
        };
        out.push((at + open, &inner[..close]));
        let skip = open + QUOTE_OPEN.len_utf8() + close + QUOTE_CLOSE.len_utf8();
        at += skip;
        rest = &rest[skip..];
    }
    out
}

/// What is wrong with how `path` showed `case`'s record in `output` (nothing: it showed it
/// at least once, and each time inside a quote after a label naming its shapes, with
/// nothing instruction-shaped left unmarked; the raw text appears nowhere).
fn check(case: &HostileText, path: &str, output: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |what: String| problems.push(format!("{}: {path}: {what}", case.name));
    if output.contains(case.text) {
        fail(format!("the raw text is shown:\n{output}"));
    }
    let left = shapes(&unmarked(output));
    if left.contains(&Shape::HiddenCharacters) {
        fail(format!("a hidden character is shown:\n{output}"));
    }
    // A line and the one above it (recall's list labels a hit on its head line).
    let all: Vec<&str> = output.lines().collect();
    let query = format!("\"{MARKER}\"");
    let lines: Vec<(&str, &str)> = all
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(MARKER) && !l.contains(&query))
        .map(|(i, l)| (if i > 0 { all[i - 1] } else { "" }, *l))
        .collect();
    if lines.is_empty() {
        fail(format!("the record is not shown:\n{output}"));
    }
    let want = names(case.shapes);
    for (above, line) in lines {
        let quoted = quotes(line);
        let Some((open, _)) = quoted.iter().find(|(_, q)| q.contains(MARKER)) else {
            fail(format!("shown outside a quote: {line}"));
            continue;
        };
        if line.matches(MARKER).count() != 1 {
            fail(format!("shown more than once on a line: {line}"));
        }
        let before = &line[..*open];
        let label = match before.rfind('[') {
            Some(start) => &before[start..],
            None if before.trim().is_empty() && above.contains('[') => above,
            None => {
                fail(format!("no label before the quote: {line}"));
                continue;
            }
        };
        for shape in case.shapes {
            if !label.contains("neutralised: ") || !label.contains(shape.name()) {
                fail(format!("the label does not name {want}: {line}"));
                break;
            }
        }
        for (_, inner) in &quoted {
            let left = shapes(&unmarked(inner));
            if !left.is_empty() {
                fail(format!("{} left unmarked in ⟪{inner}⟫", names(&left)));
            }
        }
    }
    problems
}

/// What is wrong with how a write reported `case` (JSON `instruction_shapes`).
fn check_flag(case: &HostileText, write: &str, json: &Value) -> Vec<String> {
    let want: Vec<&str> = case.shapes.iter().map(|s| s.name()).collect();
    if json["instruction_shapes"] == json!(want) {
        Vec::new()
    } else {
        vec![format!(
            "{}: {write} flagged {} instead of {want:?}",
            case.name, json["instruction_shapes"]
        )]
    }
}

/// A verified record whose title is `title`, citing [`TARGET`], as a person's promotion
/// (or an edit by hand) leaves it in the tree.
fn curated(repo: &TestRepo, title: &str) {
    let id = "20261130T100000Z-0a0b0c-000000000001";
    let quoted = serde_json::to_string(title).expect("a string serialises");
    let record = knowledge_record(id, "verified", &[&format!("file:{TARGET}")], "", "A claim.")
        .replace(
            "title: The ledger is append-only",
            &format!("title: {quoted}"),
        );
    repo.write(&format!("{CURATED}/{id}.md"), &record);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Verify by hand"]);
}

/// The payload of a provider hook in this repository.
fn payload(repo: &TestRepo, rest: Value) -> String {
    let mut payload = json!({"cwd": repo.root(), "session_id": "hostile"});
    if let (Some(map), Value::Object(rest)) = (payload.as_object_mut(), rest) {
        map.extend(rest);
    }
    payload.to_string()
}

/// Writes `case` through every authored write and reads it through every injection path;
/// returns what went wrong, and whether `knowledge promote` verified it (derivation may
/// refuse a text shaped like a transcript, and then there is nothing to promote).
fn walk(case: &HostileText) -> (Vec<String>, bool) {
    let mut problems = Vec::new();
    let text = written(case);
    let mut repo = TestRepo::initialised();
    repo.commit(TARGET, "fn main() {}\n", "Add the target");

    // Written as said, and flagged.
    repo.start_episode();
    let decision = repo
        .run(&["--format", "json", "decision", &text, "--file", TARGET])
        .success()
        .json();
    problems.extend(check_flag(case, "decision", &decision));
    let asked = repo
        .run(&["--format", "json", "question", &text, "--file", TARGET])
        .success()
        .json();
    problems.extend(check_flag(case, "question", &asked));
    let to_answer = repo
        .run(&[
            "--format",
            "json",
            "question",
            "Which rule holds for the target?",
            "--file",
            TARGET,
        ])
        .success()
        .json();
    let qid = to_answer["id"].as_str().expect("a question id").to_owned();
    let answer = repo
        .run(&["--format", "json", "question", "resolve", &qid, &text])
        .success()
        .json();
    problems.extend(check_flag(case, "question resolve", &answer));
    let checkpoint = repo.run(&["checkpoint", &text]).success();
    let note = format!("instruction-shaped text ({})", names(case.shapes));
    if !checkpoint.stderr().contains(&note) {
        problems.push(format!(
            "{}: checkpoint did not say `{note}`: {checkpoint}",
            case.name
        ));
    }
    let recorded = repo.ledger_events("decision.recorded");
    if recorded.last().map(|l| &l["data"]["text"]) != Some(&json!(text)) {
        problems.push(format!(
            "{}: the ledger does not hold the text as said: {recorded:?}",
            case.name
        ));
    }

    // Read while the episode runs.
    let context = repo.run(&["session", "context"]).success();
    problems.extend(check(case, "session context", context.stdout()));
    repo.run_without_stdin(&["session", "close"]).success();

    // Promoted by a person, when derivation made a candidate of it.
    let candidates = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let mut promoted = false;
    if let Some(id) = candidates["candidates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str())
        .next()
    {
        let verified = repo
            .run_with_stdin(
                &["--format", "json", "knowledge", "promote", id],
                "Checked by hand against src/hostile.rs.",
            )
            .success()
            .json();
        problems.extend(check_flag(case, "knowledge promote", &verified));
        promoted = true;
    }
    // And verified by hand (a person edited the tree).
    curated(&repo, &text);

    // Each path in an episode of its own: what one showed, the next would not show again
    // in the same session.
    // Before an edit of the file the records cite.
    repo.now("2026-11-30T11:00:00Z");
    repo.start_episode();
    let edit = repo
        .run_with_stdin(
            &["hook", "edit", "--provider", "claude-code"],
            &payload(
                &repo,
                json!({"hook_event_name": "PreToolUse", "tool_name": "Edit",
                       "tool_input": {"file_path": repo.root().join(TARGET)}}),
            ),
        )
        .success();
    problems.extend(check(case, "hook edit", &readable(edit.stdout())));
    repo.run_without_stdin(&["session", "close"]).success();

    // A prompt naming the records' words.
    repo.now("2026-11-30T12:00:00Z");
    repo.start_episode();
    let prompt = repo
        .run_with_stdin(
            &["hook", "prompt", "--provider", "claude-code"],
            &payload(
                &repo,
                json!({"hook_event_name": "UserPromptSubmit",
                       "prompt": format!("what do we know about {MARKER}?")}),
            ),
        )
        .success();
    problems.extend(check(case, "hook prompt", &readable(prompt.stdout())));
    let recall = repo.run(&["recall", MARKER, "--limit", "20"]).success();
    problems.extend(check(case, "recall", recall.stdout()));
    repo.run_without_stdin(&["session", "close"]).success();

    // The session start: the hook, then the command.
    repo.now("2026-11-30T13:00:00Z");
    let start = repo
        .run_with_stdin(
            &["hook", "session-start", "--provider", "claude-code"],
            &payload(
                &repo,
                json!({"hook_event_name": "SessionStart", "source": "startup"}),
            ),
        )
        .success();
    problems.extend(check(case, "hook session-start", &readable(start.stdout())));
    let briefing = repo.run(&["briefing"]).success();
    problems.extend(check(case, "briefing", briefing.stdout()));
    (problems, promoted)
}

#[test]
fn every_hostile_text_is_flagged_on_write_and_fenced_and_neutralised_on_every_path() {
    assert!(HOSTILE_TEXTS.len() >= 30, "{}", HOSTILE_TEXTS.len());
    // Two workers: each case is a repository of its own.
    let results: Vec<(Vec<String>, bool)> = thread::scope(|scope| {
        let workers: Vec<_> = HOSTILE_TEXTS
            .chunks(HOSTILE_TEXTS.len().div_ceil(2))
            .map(|chunk| scope.spawn(move || chunk.iter().map(walk).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker finishes"))
            .collect()
    });
    let problems: Vec<String> = results.iter().flat_map(|(p, _)| p.clone()).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Derivation drops some shapes (a transcript's role label) before any person sees
    // them; most reach review, and those were flagged when promoted.
    let promoted = results.iter().filter(|(_, p)| *p).count();
    assert!(
        promoted * 2 >= HOSTILE_TEXTS.len(),
        "only {promoted} of {} reached promotion",
        HOSTILE_TEXTS.len()
    );
}
