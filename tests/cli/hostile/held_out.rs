//! A held-out set of prompt injections (tests/cli/fixtures/injections-held-out.json: 64
//! texts written after public collections, each cited there), never seen by the scanner's
//! own test set: each is a verified record, read back through what puts records before a
//! model (`recall`, `hook prompt`, `hook edit`, the briefing), and judged here
//! without the scanner: wherever a text shows, it is inside the fence `⟪…⟫` after a label
//! that says it was neutralised, and none of its instruction-shaped phrases (its `cues`,
//! written down with the text before any run) stands outside a mark `⟦…⟧`.

use serde_json::{Value, json};

use crate::common::{TestRepo, knowledge_record};

const CURATED: &str = ".ai/repo/knowledge/curated";

/// One held-out text and the phrases of it that must never stand unmarked.
struct HeldOut {
    source: String,
    text: String,
    cues: Vec<String>,
}

/// The texts of the fixture's set `set` (`first`, `second`: see its `history`).
fn held_out(set: &str) -> Vec<HeldOut> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/fixtures/injections-held-out.json");
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the fixture"))
            .expect("the fixture is JSON");
    let sources = fixture["sources"].as_object().expect("sources");
    fixture[set]
        .as_array()
        .expect("a set of texts")
        .iter()
        .map(|t| {
            let source = t["source"].as_str().expect("a source").to_owned();
            assert!(sources.contains_key(&source), "{source} is not cited");
            HeldOut {
                source,
                text: t["text"].as_str().expect("a text").to_owned(),
                cues: t["cues"]
                    .as_array()
                    .expect("cues")
                    .iter()
                    .map(|c| c.as_str().expect("a cue").to_owned())
                    .collect(),
            }
        })
        .collect()
}

/// The words that find text `n` (and no other): its title's first line ends with them.
fn marker(n: usize) -> String {
    format!("heldout{n:02}x quokka")
}

/// Record `n`'s title: the text, its marker at the end of its first line (a record's line
/// is its title's first line: what the paths below show).
fn title(n: usize, text: &str) -> String {
    match text.split_once('\n') {
        Some((first, rest)) => format!("{first} {}\n{rest}", marker(n)),
        None => format!("{text} {}", marker(n)),
    }
}

/// The file record `n` cites (the edit hook is asked about it).
fn target(n: usize) -> String {
    format!("src/held_{n:02}.rs")
}

fn id(n: usize) -> String {
    format!("20261130T100000Z-0a0b0c-{:012x}", n + 1)
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

/// Lower case, the fence's own stand-ins for `<`, `>` and a line break read back, every
/// run of white space one space: how a cue is looked for.
fn plain(text: &str) -> String {
    let text = text
        .replace(" ⏎ ", "\n")
        .replace('‹', "<")
        .replace('›', ">")
        .to_lowercase();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `quoted` without what its marks `⟦…⟧` hold, and how many marks it has.
fn unmarked(quoted: &str) -> (String, usize) {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut marks = 0;
    for c in quoted.chars() {
        match c {
            '⟦' => {
                depth += 1;
                marks += 1;
                // A mark stands between the words around it.
                out.push(' ');
            }
            '⟧' => {
                depth = depth.saturating_sub(1);
                out.push(' ');
            }
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    (out, marks)
}

/// What is wrong with how `path` showed text `n` in `output`: each line naming its marker
/// shows it inside one quote, after a label saying it was neutralised, with no cue outside
/// a mark and nothing of it outside the quote.
fn judge(n: usize, case: &HeldOut, path: &str, output: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |what: String| {
        problems.push(format!("#{n} ({}) {path}: {what}", case.source));
    };
    let marker = marker(n);
    // The lines that show the record (not those that repeat the query: `hits for "..."`,
    // `recall '...'`), each with the one above it (recall's list puts a hit's label on
    // its head line).
    let all: Vec<&str> = output.lines().collect();
    let lines: Vec<(&str, &str)> = all
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.contains(&marker)
                && !l.contains(&format!("\"{marker}\""))
                && !l.contains(&format!("'{marker}'"))
        })
        .map(|(i, l)| (if i > 0 { all[i - 1] } else { "" }, *l))
        .collect();
    if lines.is_empty() {
        fail(format!("not shown:\n{output}"));
    }
    for (above, line) in lines {
        let Some(open) = line.find('⟪') else {
            fail(format!("outside any quote: {line}"));
            continue;
        };
        let Some(len) = line[open..].find('⟫') else {
            fail(format!("a quote that does not close: {line}"));
            continue;
        };
        let quoted = &line[open + '⟪'.len_utf8()..open + len];
        let outside = format!("{}{}", &line[..open], &line[open + len + '⟫'.len_utf8()..]);
        if !quoted.contains(&marker) {
            fail(format!("the text is not the quote's: {line}"));
        }
        if outside.contains(&marker) {
            fail(format!("the text stands outside its quote: {line}"));
        }
        let label = if line[..open].trim().is_empty() {
            above
        } else {
            &line[..open]
        };
        // What of the text this line shows (a record's line is its first line: a cue on a
        // later line does not reach the model here).
        let whole = plain(&quoted.replace(['⟦', '⟧'], " "));
        let shown: Vec<&String> = case
            .cues
            .iter()
            .filter(|c| whole.contains(&plain(c)))
            .collect();
        if shown.is_empty() {
            continue;
        }
        if !label.contains("neutralised: ") {
            fail(format!("no label saying it was neutralised: {line}"));
        }
        let (free, marks) = unmarked(quoted);
        if marks == 0 {
            fail(format!("nothing marked: {line}"));
        }
        let free = plain(&free);
        for cue in &case.cues {
            if free.contains(&plain(cue)) {
                fail(format!("`{cue}` stands outside a mark: {line}"));
            }
        }
        // Nothing instruction-shaped of the text outside the quote either.
        let around = plain(&outside);
        for cue in &case.cues {
            if around.contains(&plain(cue)) {
                fail(format!("`{cue}` stands outside the quote: {line}"));
            }
        }
    }
    problems
}

/// Every held-out text as a verified record a person wrote (its title the text, then its
/// marker; citing its own file), committed.
fn repository(cases: &[HeldOut]) -> TestRepo {
    let repo = TestRepo::initialised();
    for (n, case) in cases.iter().enumerate() {
        repo.write(&target(n), "fn held() {}\n");
        let title = serde_json::to_string(&title(n, &case.text)).expect("a string serialises");
        let record = knowledge_record(
            &id(n),
            "verified",
            &[&format!("file:{}", target(n))],
            "",
            "A claim.",
        )
        .replace(
            "title: The ledger is append-only",
            &format!("title: {title}"),
        );
        repo.write(&format!("{CURATED}/{}.md", id(n)), &record);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Verify the held-out records by hand"]);
    repo
}

/// The payload of a provider hook in `repo`.
fn payload(repo: &TestRepo, rest: Value) -> String {
    let mut payload = json!({"cwd": repo.root(), "session_id": "held-out"});
    if let (Some(map), Value::Object(rest)) = (payload.as_object_mut(), rest) {
        map.extend(rest);
    }
    payload.to_string()
}

/// The second set: written after the scanner's last change and run on it as it was.
#[test]
fn every_held_out_injection_reaches_the_model_only_fenced_with_its_instructions_marked() {
    fenced_and_marked(&held_out("second"));
}

/// The first set, which the scanner's general rules were extended after (its history).
#[test]
fn every_injection_of_the_first_set_reaches_the_model_only_fenced_and_marked() {
    fenced_and_marked(&held_out("first"));
}

fn fenced_and_marked(cases: &[HeldOut]) {
    assert!(cases.len() >= 60, "{} texts", cases.len());
    let repo = repository(cases);
    let mut problems = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        // What `recall` prints (the MCP tool's text is the same operation's).
        let recall = repo.run(&["recall", &marker(n), "--limit", "3"]).success();
        problems.extend(judge(n, case, "recall", recall.stdout()));
        // The moments of work, each in an episode of its own (what one showed, the next
        // would not show again in the same session).
        repo.start_episode();
        let prompt = repo
            .run_with_stdin(
                &["hook", "prompt", "--provider", "claude-code"],
                &payload(
                    &repo,
                    json!({"hook_event_name": "UserPromptSubmit",
                           "prompt": format!("what do we know about {}?", marker(n))}),
                ),
            )
            .success();
        problems.extend(judge(n, case, "hook prompt", &readable(prompt.stdout())));
        repo.run_without_stdin(&["session", "close"]).success();
        repo.start_episode();
        let edit = repo
            .run_with_stdin(
                &["hook", "edit", "--provider", "claude-code"],
                &payload(
                    &repo,
                    json!({"hook_event_name": "PreToolUse", "tool_name": "Edit",
                           "tool_input": {"file_path": repo.root().join(target(n))}}),
                ),
            )
            .success();
        problems.extend(judge(n, case, "hook edit", &readable(edit.stdout())));
        repo.run_without_stdin(&["session", "close"]).success();
    }
    // The briefing shows what its budget holds (with work at hand: an edit of the files the
    // records cite; with nothing at hand it lists no record): each of those the same way.
    for n in 0..cases.len() {
        repo.write(&target(n), &format!("// held-out case {n}, edited\n"));
    }
    let briefing = repo.run(&["briefing"]).success();
    let mut briefed = 0;
    for (n, case) in cases.iter().enumerate() {
        if briefing.stdout().contains(&marker(n)) {
            briefed += 1;
            problems.extend(judge(n, case, "briefing", briefing.stdout()));
        }
    }
    assert!(briefed > 0, "{briefing}");
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
