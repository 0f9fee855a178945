//! The memory at the moment of work (SPEC §8, docs/RECALL.md): `hook prompt` puts the
//! records a prompt's words and the work at hand rank above the floor before the model,
//! and nothing when none clears it; `hook edit` records the files an editing tool touches
//! (`agent.touched`) and puts what is verified or decided about them before the model,
//! once a file a session; every record put before the model is logged (`context.shown`),
//! never shown twice, listed by `recall --shown`, and said by the episode's context and
//! record. The prompt is a query: it is written nowhere.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{TestRepo, knowledge_record};

const CURATED: &str = ".ai/repo/knowledge/curated";

/// A word no record holds, to find the prompt wherever it might have been written.
const MARKER: &str = "zebraquokka";

/// A repository with an earlier episode's decision about `src/parser.rs`, a verified record
/// citing `src/store.rs` and one citing `src/cache.rs` that changed since (stale), then an
/// open episode started from the CLI (no briefing logged) and the recall index built.
fn seeded() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.commit("src/parser.rs", "pub fn parse() {}\n", "Add the parser");
    repo.commit("src/store.rs", "pub fn store() {}\n", "Add the store");
    repo.commit("src/cache.rs", "pub fn cache() {}\n", "Add the cache");
    repo.commit("CHANGELOG.md", "# Changes\n", "Add the changelog");
    repo.start_episode();
    repo.run(&[
        "decision",
        "Parsing stays strict: the parser rejects input it cannot place",
        "--file",
        "src/parser.rs",
    ])
    .success();
    repo.run(&["session", "close"]).success();
    verified(
        &repo,
        1,
        "src/store.rs",
        "The store writes every file through one atomic writer",
    );
    verified(
        &repo,
        2,
        "src/cache.rs",
        "The cache is keyed by the object id, never by the path",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Verify the store and the cache"]);
    repo.commit("src/cache.rs", "pub fn cache(_: u8) {}\n", "Key the cache");
    repo.start_episode();
    repo.run(&["recall", "store"]).success();
    repo
}

/// A verified knowledge record `n` citing `file`, titled `title`.
fn verified(repo: &TestRepo, n: u32, file: &str, title: &str) {
    let id = format!("20261130T100000Z-0a0b0c-{n:012x}");
    let record = knowledge_record(&id, "verified", &[&format!("file:{file}")], "", "A claim.")
        .replace(
            "title: The ledger is append-only",
            &format!("title: {title}"),
        );
    repo.write(&format!("{CURATED}/{id}.md"), &record);
}

fn prompt_payload(repo: &TestRepo, prompt: &str) -> String {
    json!({
        "session_id": "s1",
        "cwd": repo.root(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
    .to_string()
}

fn edit_payload(repo: &TestRepo, tool: &str, file: &str) -> String {
    json!({
        "session_id": "s1",
        "cwd": repo.root(),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": repo.root().join(file), "old_string": "a", "new_string": "b"},
    })
    .to_string()
}

/// What `hook NAME --provider claude-code` printed for `payload`: the context Claude Code
/// adds, or `None` when it printed nothing.
fn claude(repo: &TestRepo, name: &str, payload: &str) -> Option<String> {
    let run = repo
        .run_with_stdin(&["hook", name, "--provider", "claude-code"], payload)
        .success();
    if run.stdout().is_empty() {
        return None;
    }
    let out: Value = serde_json::from_str(run.stdout())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout()));
    let specific = &out["hookSpecificOutput"];
    let event = if name == "prompt" {
        "UserPromptSubmit"
    } else {
        "PreToolUse"
    };
    assert_eq!(specific["hookEventName"], event, "{out}");
    // Context only: never a permission decision.
    assert!(specific.get("permissionDecision").is_none(), "{out}");
    Some(
        specific["additionalContext"]
            .as_str()
            .expect("additionalContext")
            .to_owned(),
    )
}

/// What `hook prompt --provider claude-code --format json` did for `prompt`.
fn prompt_json(repo: &TestRepo, prompt: &str) -> Value {
    repo.run_with_stdin(
        &[
            "--format",
            "json",
            "hook",
            "prompt",
            "--provider",
            "claude-code",
        ],
        &prompt_payload(repo, prompt),
    )
    .success()
    .json()
}

/// Every file under `dir` whose bytes hold `needle` (the repository, its .git, HOME).
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("list a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn a_prompt_gets_the_records_above_the_floor_once_and_nothing_below_it() {
    let repo = seeded();
    let asked = format!("Why is the parser so strict about its input? {MARKER}");
    let context = claude(&repo, "prompt", &prompt_payload(&repo, &asked))
        .expect("the decision about the parser clears the floor");
    assert!(
        context.contains("Parsing stays strict: the parser rejects input it cannot place"),
        "{context}"
    );
    assert!(context.contains("never instructions"), "{context}");
    // Nothing about the store or the cache: the prompt is not about them.
    assert!(!context.contains("atomic writer"), "{context}");
    assert!(!context.contains("object id"), "{context}");
    let lines = context.lines().filter(|l| l.starts_with("- ")).count();
    assert!((1..=5).contains(&lines), "{context}");

    // Logged as shown, by id, for this episode.
    let shown = repo.ledger_events("context.shown");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0]["data"]["where"], "prompt");
    assert_eq!(shown[0]["session"], repo.episode_id().as_str());
    let ids: Vec<&str> = shown[0]["data"]["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    // The decision, or the candidate its episode derived from it (one record, not both).
    assert_eq!(ids.len(), 1, "{ids:?}");

    // The same prompt again: the records were shown, nothing is put before the model twice.
    assert_eq!(
        claude(&repo, "prompt", &prompt_payload(&repo, &asked)),
        None
    );
    let again = prompt_json(&repo, &asked);
    assert!(
        again["already_shown"].as_u64().expect("count") >= 1,
        "{again}"
    );
    assert_eq!(again["shown"], json!([]), "{again}");
    // What was shown is counted, not blamed: it was never weighed against the floor again.
    assert!(
        again["nothing"].as_str().is_some_and(|n| n
            .starts_with("no record not shown yet cleared the relevance floor (")
            && n.ends_with("shown earlier this session and not weighed again)")),
        "{again}"
    );
    assert_eq!(repo.ledger_events("context.shown").len(), 1);

    // A prompt about nothing the memory holds: nothing at all.
    assert_eq!(
        claude(
            &repo,
            "prompt",
            &prompt_payload(&repo, "Tidy the wording of the changelog headings")
        ),
        None
    );
    let below = prompt_json(&repo, "Tidy the wording of the changelog headings");
    assert_eq!(
        below["nothing"], "no record cleared the relevance floor",
        "{below}"
    );

    // The prompt is a query: in no file of the repository, its .git or HOME.
    assert_eq!(files_holding(repo.base(), MARKER), Vec::<String>::new());
}

#[test]
fn one_shared_word_is_under_the_floor_and_a_named_file_clears_it() {
    let repo = seeded();
    // "strict" alone: one of the prompt's five content words.
    assert_eq!(
        claude(
            &repo,
            "prompt",
            &prompt_payload(&repo, "Make the release notes less strict in tone please")
        ),
        None
    );
    // Naming the file the decision cites clears the floor without its words.
    let context = claude(
        &repo,
        "prompt",
        &prompt_payload(&repo, "Look at src/parser.rs and rename things"),
    )
    .expect("a named file the decision cites");
    assert!(context.contains("Parsing stays strict"), "{context}");
}

/// A prompt naming code no record mentions is about another project only when this
/// repository's source does not hold it either (docs/RECALL.md, "Another project's
/// words"): an identifier committed in `src/writer.rs` is the repository's own, and the
/// record the prompt's other words find is shown; one the source does not hold silences
/// the prompt, naming it. The identifiers are read at a `recall` or a briefing, after a
/// commit only from the files it changed.
#[test]
fn code_the_repositorys_source_holds_is_its_own_though_no_record_mentions_it() {
    let repo = seeded();
    repo.commit(
        "src/writer.rs",
        "pub fn rename_atomically_into_place() {}\n",
        "Add the writer",
    );
    let asked = |name: &str| {
        format!("Should `{name}` be how the store writes every file through one atomic writer?")
    };
    // Before a read brings the identifiers to HEAD, the hook reads them as they were.
    let before = prompt_json(&repo, &asked("rename_atomically_into_place"));
    assert!(
        before["nothing"]
            .as_str()
            .is_some_and(|n| n.contains("rename_atomically_into_place")),
        "{before}"
    );
    let read = repo
        .run_env(&["recall", "store"], &[("MAJORDOMUS_TIMING", "1")], "")
        .success();
    assert!(
        read.stderr().contains("recall.code") && read.stderr().contains("read=1"),
        "{}",
        read.stderr()
    );
    let ours = prompt_json(&repo, &asked("rename_atomically_into_place"));
    let shown = refs(&ours["shown"]);
    assert_eq!(shown.len(), 1, "{ours}");
    assert_eq!(shown[0].0, "knowledge", "{ours}");
    let theirs = prompt_json(&repo, &asked("zodParseEverything"));
    assert_eq!(
        theirs["nothing"],
        "the prompt names what this repository's memory never mentions (zodParseEverything): it is about something else",
        "{theirs}"
    );
    // A second read at the same HEAD reads no file again.
    let again = repo
        .run_env(&["recall", "store"], &[("MAJORDOMUS_TIMING", "1")], "")
        .success();
    assert!(
        !again.stderr().contains("recall.code"),
        "{}",
        again.stderr()
    );
}

/// A briefing or a `recall` judges every verified record no read has judged yet, once
/// (`recall.warm`, docs/RECALL.md): the edit that reaches one then finds it judged by the
/// index and walks no history; a second `recall` at the same state judges nothing again.
#[test]
fn a_verified_record_is_judged_once_before_the_moment_that_reaches_it() {
    let repo = seeded();
    // Forget the judgements the seeding's read made, as a fresh index would hold none.
    std::fs::remove_file(repo.root().join(".ai/local/state/recall.sqlite"))
        .expect("remove the index");
    let timing = [("MAJORDOMUS_TIMING", "1")];
    let read = repo.run_env(&["recall", "cache"], &timing, "").success();
    assert!(
        read.stderr().contains("recall.warm") && read.stderr().contains("records=2"),
        "{}",
        read.stderr()
    );
    let again = repo.run_env(&["recall", "cache"], &timing, "").success();
    assert!(
        !again.stderr().contains("recall.warm"),
        "{}",
        again.stderr()
    );
    let edit = repo
        .run_env(
            &["hook", "edit", "--provider", "claude-code"],
            &timing,
            &edit_payload(&repo, "Edit", "src/store.rs"),
        )
        .success();
    assert!(
        edit.stdout().contains("The store writes every file"),
        "{}",
        edit.stdout()
    );
    assert!(
        edit.stderr().contains("recall.judge ") && !edit.stderr().contains("recall.judge.walk"),
        "{}",
        edit.stderr()
    );
}

/// The records a JSON result's `shown` (or a `context.shown` line's records) names, as
/// `(kind, id)`.
fn refs(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|r| r.as_str().or_else(|| r["id"].as_str()).expect("kind:id"))
        .map(|r| {
            let (kind, id) = r.split_once(':').expect("kind:id");
            (kind.to_owned(), id.to_owned())
        })
        .collect()
}

#[test]
fn what_the_briefing_showed_is_not_put_before_the_model_again() {
    let repo = seeded();
    let asked = "Why is the parser so strict about its input?";
    // With nothing shown yet, the prompt brings the parser's claim: the earlier episode's
    // decision, or the candidate derived from it (one claim, one id under either kind).
    let control = prompt_json(&repo, asked);
    let claim = refs(&control["shown"])
        .into_iter()
        .find(|(kind, _)| kind == "decision" || kind == "knowledge")
        .map(|(_, id)| id)
        .unwrap_or_else(|| panic!("the prompt shows the parser's claim: {control}"));
    repo.run(&["session", "close"]).success();

    // A new session: the session-start hook's briefing shows the decision (this branch's
    // unsettled decisions) and counts the candidate derived from it as that decision (one
    // claim, quoted once), and logs it as shown.
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        &json!({"session_id": "s2", "cwd": repo.root(), "hook_event_name": "SessionStart"})
            .to_string(),
    )
    .success();
    let text = repo.run(&["briefing"]).success().stdout().to_owned();
    assert!(
        text.contains("Decisions on main, not yet promoted or rejected (1)")
            && text.contains("(1 of them: the decisions above, not repeated)")
            && text.matches(claim.as_str()).count() == 1,
        "the briefing shows the decision once, its candidate counted as it:\n{text}"
    );
    let briefed = repo.ledger_events("context.shown");
    let briefed = briefed.last().expect("the briefing's line");
    assert_eq!(briefed["data"]["where"], "briefing");
    let briefed: Vec<(String, String)> = refs(&briefed["data"]["records"])
        .into_iter()
        .filter(|(_, id)| *id == claim)
        .collect();
    assert_eq!(briefed.len(), 1, "one claim, logged once: {briefed:?}");

    // The same prompt now: the claim does not come back, under any kind.
    let run = prompt_json(&repo, asked);
    let again: Vec<(String, String)> = refs(&run["shown"])
        .into_iter()
        .filter(|(_, id)| *id == claim)
        .collect();
    assert!(again.is_empty(), "shown again as {again:?}: {run}");
    assert!(
        run["already_shown"].as_u64().expect("already_shown") >= 1,
        "the prompt matched the claim and left it out as shown: {run}"
    );

    // `recall --shown` counts the claim once, though the briefing listed it twice.
    let listed = repo
        .run(&["--format", "json", "recall", "--shown"])
        .success()
        .json();
    let entries = listed["entries"].as_array().expect("entries");
    let mut records: Vec<String> = entries
        .iter()
        .flat_map(|e| refs(&e["records"]))
        .filter(|(_, id)| *id == claim)
        .map(|(kind, id)| format!("{kind}:{id}"))
        .collect();
    records.dedup();
    assert_eq!(records.len(), 1, "one claim, listed once: {listed}");
}

#[test]
fn an_edit_records_the_file_once_and_gets_what_is_verified_or_decided_about_it() {
    let repo = seeded();
    let context = claude(&repo, "edit", &edit_payload(&repo, "Edit", "src/store.rs"))
        .expect("the verified record citing the store");
    assert!(context.contains("src/store.rs"), "{context}");
    assert!(
        context.contains("[verified knowledge")
            && context.contains("The store writes every file through one atomic writer"),
        "{context}"
    );
    assert!(!context.contains("Parsing stays strict"), "{context}");
    let touched = repo.ledger_events("agent.touched");
    assert_eq!(touched.len(), 1, "{touched:?}");
    assert_eq!(
        touched[0]["data"],
        json!({"paths": ["src/store.rs"], "tool": "Edit", "provider": "claude-code"})
    );
    let shown = repo.ledger_events("context.shown");
    assert_eq!(shown.last().expect("shown")["data"]["where"], "edit");
    assert_eq!(
        shown.last().expect("shown")["data"]["files"],
        json!(["src/store.rs"])
    );

    // The same file again, by another tool: neither recorded nor shown twice.
    assert_eq!(
        claude(&repo, "edit", &edit_payload(&repo, "Write", "src/store.rs")),
        None
    );
    assert_eq!(repo.ledger_events("agent.touched").len(), 1);

    // A decided file: the decision, as decided.
    let decided = claude(
        &repo,
        "edit",
        &edit_payload(&repo, "MultiEdit", "src/parser.rs"),
    )
    .expect("the decision citing the parser");
    assert!(decided.contains("Parsing stays strict"), "{decided}");

    // A file the cited record no longer holds true for: marked stale, with why.
    let stale = claude(&repo, "edit", &edit_payload(&repo, "Edit", "src/cache.rs"))
        .expect("the stale record citing the cache");
    assert!(stale.contains("[stale"), "{stale}");
    assert!(stale.contains("keyed by the object id"), "{stale}");

    // A file nothing is known about: recorded, nothing shown.
    assert_eq!(
        claude(&repo, "edit", &edit_payload(&repo, "Edit", "CHANGELOG.md")),
        None
    );
    let paths: Vec<Value> = repo
        .ledger_events("agent.touched")
        .iter()
        .map(|t| t["data"]["paths"][0].clone())
        .collect();
    assert_eq!(
        paths,
        [
            json!("src/store.rs"),
            json!("src/parser.rs"),
            json!("src/cache.rs"),
            json!("CHANGELOG.md")
        ]
    );
}

#[test]
fn what_is_no_edit_records_nothing_and_loads_no_index() {
    let repo = seeded();
    // The recall index built, then replaced by bytes no index reads as one: a hook that
    // opened it would rebuild it (its bytes change) or fail (a provider.event.failed line).
    // (The ledger index's manifest stays: a hook peeks at it for failures to clear, and an
    // unreadable one is, rightly, rebuilt.)
    repo.run(&["recall", "parser"]).success();
    let garbage = [(".ai/local/state/recall.sqlite", "not a recall index\n")];
    for (path, bytes) in garbage {
        assert!(repo.exists(path), "{path} was not built");
        repo.write(path, bytes);
    }
    let before = repo.ledger_text();
    let timed = |args: &[&str], payload: &str| {
        let run = repo
            .run_env(args, &[("MAJORDOMUS_TIMING", "1")], payload)
            .success();
        assert_eq!(run.stdout(), "", "{}", run.stderr());
        run.stderr().to_owned()
    };
    // A read, a shell: not an edit.
    for tool in ["Read", "Bash", "Grep"] {
        let stderr = timed(
            &["hook", "edit", "--provider", "claude-code"],
            &edit_payload(&repo, tool, "src/store.rs"),
        );
        assert!(!stderr.contains("recall"), "{tool}: {stderr}");
        assert!(!stderr.contains("index"), "{tool}: {stderr}");
    }
    // A prompt with nothing to rank by (filler words only, or none).
    for prompt in ["", "ok, thanks!", "yes, do it"] {
        let stderr = timed(
            &["hook", "prompt", "--provider", "claude-code"],
            &prompt_payload(&repo, prompt),
        );
        assert!(!stderr.contains("recall"), "{prompt:?}: {stderr}");
        assert!(!stderr.contains("index"), "{prompt:?}: {stderr}");
    }
    // The index was not opened: it is the bytes it was made, and nothing failed.
    for (path, bytes) in garbage {
        let now = std::fs::read(repo.path(path)).expect("the index file");
        assert!(
            now == bytes.as_bytes(),
            "{path} was opened: it is {} bytes now",
            now.len()
        );
    }
    assert_eq!(repo.ledger_text(), before, "a line was appended");
    // A payload that is no JSON: ignored (and recorded), never failing the client.
    repo.run_with_stdin(&["hook", "edit", "--provider", "claude-code"], "not json")
        .success();
    let after = repo.ledger_text();
    let added = &after[before.len()..];
    assert!(!added.contains("agent.touched"), "{added}");
    assert!(!added.contains("context.shown"), "{added}");
    // The control: a prompt that has words to rank by does open the recall index, and
    // finds it is none (rebuilt): what the checks above would have seen.
    let run = repo
        .run_env(
            &["hook", "prompt", "--provider", "claude-code"],
            &[("MAJORDOMUS_TIMING", "1")],
            &prompt_payload(&repo, "how does the store write files?"),
        )
        .success();
    assert!(run.stderr().contains("recall"), "{run}");
    let now = std::fs::read(repo.path(garbage[0].0)).expect("the index file");
    assert!(now != garbage[0].1.as_bytes(), "the prompt never opened it");
}

#[test]
fn the_files_the_agent_touched_are_the_work_at_hand() {
    let repo = seeded();
    claude(&repo, "edit", &edit_payload(&repo, "Edit", "src/store.rs"));
    let recalled = repo
        .run(&["--format", "json", "recall", "--at-hand"])
        .success()
        .json();
    assert_eq!(
        recalled["context"]["weighed"],
        json!([{"path": "src/store.rs", "from": {"source": "touched"}, "weight": 1.0}]),
        "{recalled}"
    );
    assert_eq!(
        recalled["context"]["at_hand"],
        json!(["1 file(s) the agent edited this episode"]),
        "{recalled}"
    );
    assert_eq!(
        recalled["hits"][0]["line"], "The store writes every file through one atomic writer",
        "{recalled}"
    );
    assert_eq!(
        recalled["hits"][0]["why"][0]["detail"],
        "src/store.rs (it cites it; the agent edited it this episode)",
        "{recalled}"
    );
    // Edited on disk too: the uncommitted change counts first, and the touched file no more.
    repo.write("src/store.rs", "pub fn store(_: u8) {}\n");
    claude(&repo, "edit", &edit_payload(&repo, "Edit", "src/cache.rs"));
    let recalled = repo
        .run(&["--format", "json", "recall", "--at-hand"])
        .success()
        .json();
    assert_eq!(
        recalled["context"]["at_hand"],
        json!([
            "1 uncommitted change(s)",
            "1 more file(s) the agent edited this episode"
        ]),
        "{recalled}"
    );
}

#[test]
fn the_episode_says_what_the_memory_told_the_agent() {
    let repo = seeded();
    claude(
        &repo,
        "prompt",
        &prompt_payload(&repo, "Why is the parser so strict about its input?"),
    )
    .expect("shown");
    claude(&repo, "edit", &edit_payload(&repo, "Edit", "src/store.rs")).expect("shown");
    let episode = repo.episode_id();

    // recall --shown: each showing, its records and their status then.
    let listed = repo.run(&["recall", "--shown"]).success();
    let text = listed.stdout();
    assert!(text.contains("prompt"), "{text}");
    assert!(text.contains("edit"), "{text}");
    assert!(text.contains("src/store.rs"), "{text}");
    let json = repo
        .run(&["--format", "json", "recall", "--shown"])
        .success()
        .json();
    assert_eq!(json["session"], episode.as_str(), "{json}");
    assert_eq!(json["open"], true, "{json}");
    let places: Vec<&str> = json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["where"].as_str().expect("where"))
        .collect();
    assert_eq!(places, ["prompt", "edit"], "{json}");
    assert!(
        json["summary"]["verified"].as_u64().expect("verified") >= 1,
        "{json}"
    );

    // The working context and the closed record say it.
    let context = repo.run(&["session", "context"]).success();
    let agent = context
        .stdout()
        .split("\n## Agent\n")
        .nth(1)
        .expect("an Agent section")
        .split("\n## ")
        .next()
        .expect("its body")
        .to_owned();
    assert!(agent.contains("src/store.rs"), "{agent}");
    assert!(
        agent.contains(&format!("majordomus recall --shown --session {episode}")),
        "{agent}"
    );
    // (An episode that only touched files and was shown records closes empty, with no
    // record: SPEC §3.2. This one checkpointed.)
    repo.run(&["checkpoint", "Looked at the parser and the store"])
        .success();
    repo.run(&["session", "close"]).success();
    let record = repo.read(&format!(".ai/repo/sessions/{episode}.md"));
    assert!(
        record.contains("touched_files:\n- src/store.rs\n"),
        "{record}"
    );
    assert!(record.contains("shown_records: "), "{record}");
    assert!(record.contains("\n## Agent\n"), "{record}");

    // After close, --session names it; the newest episode is the default.
    let closed = repo
        .run(&[
            "--format",
            "json",
            "recall",
            "--shown",
            "--session",
            &episode,
        ])
        .success()
        .json();
    assert_eq!(closed["open"], false, "{closed}");
    assert_eq!(closed["entries"].as_array().expect("entries").len(), 2);
}

#[test]
fn an_episode_the_ledger_does_not_know_is_refused_with_the_command_that_lists_them() {
    let repo = seeded();
    let error = repo
        .run(&[
            "--format",
            "json",
            "recall",
            "--shown",
            "--session",
            "20261130T101500Z-1a2b3c",
        ])
        .json_error(3, "knowledge.episode");
    let fix = error["fix"].as_str().expect("a fix");
    assert_eq!(fix, "majordomus session list");
    repo.run_printed(fix);
    // --session only with --shown.
    repo.run(&["recall", "--session", "x"]).expect_code(2);
}

#[test]
fn each_client_reads_the_context_where_it_looks() {
    let repo = seeded();
    let asked = "Why is the parser so strict about its input?";
    let run = |provider: &str, payload: Value| {
        repo.run_with_stdin(
            &["hook", "prompt", "--provider", provider],
            &payload.to_string(),
        )
        .success()
        .stdout()
        .to_owned()
    };
    // Codex: Claude Code's shape.
    let codex: Value = serde_json::from_str(&run(
        "codex",
        json!({"cwd": repo.root(), "hook_event_name": "UserPromptSubmit", "prompt": asked}),
    ))
    .expect("codex JSON");
    assert_eq!(
        codex["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert!(
        codex["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("context")
            .contains("Parsing stays strict")
    );
    repo.run(&["session", "close"]).success();
    repo.start_episode();
    // Gemini CLI: BeforeAgent.
    let gemini: Value = serde_json::from_str(&run(
        "gemini-cli",
        json!({"cwd": repo.root(), "hook_event_name": "BeforeAgent", "prompt": asked}),
    ))
    .expect("gemini JSON");
    assert_eq!(gemini["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    assert!(
        gemini["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("context")
            .contains("Parsing stays strict")
    );
    repo.run(&["session", "close"]).success();
    repo.start_episode();
    // A client majordomus does not know: the text itself.
    let plain = run("agent", json!({"cwd": repo.root(), "prompt": asked}));
    assert!(
        plain.starts_with("majordomus recalled for this prompt"),
        "{plain}"
    );
    assert!(plain.contains("Parsing stays strict"), "{plain}");
    // Cursor cannot add context to a prompt: it prints nothing, and logs nothing shown.
    repo.run(&["session", "close"]).success();
    repo.start_episode();
    let shown_before = repo.ledger_events("context.shown").len();
    assert_eq!(
        run(
            "cursor",
            json!({"cwd": repo.root(), "hook_event_name": "beforeSubmitPrompt", "prompt": asked})
        ),
        ""
    );
    assert_eq!(repo.ledger_events("context.shown").len(), shown_before);
}

#[test]
fn what_an_agent_reads_through_a_tool_is_logged_and_not_injected_again_while_a_persons_read_is_not()
{
    let repo = seeded();
    // A person's recall (CLI) logs nothing.
    repo.run(&["recall", "parser strict"]).success();
    assert_eq!(repo.ledger_events_if_any("context.shown").len(), 0);

    let mut mcp = crate::mcp::Mcp::start(&repo);
    let answered = mcp.call("majordomus_recall", json!({"query": "parser strict input"}));
    assert_eq!(answered["isError"], false, "{answered}");
    mcp.close();
    let shown = repo.ledger_events("context.shown");
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0]["data"]["where"], "tool");
    assert_eq!(shown[0]["data"]["tool"], "recall");
    assert_eq!(shown[0]["session"], repo.episode_id().as_str());

    // The prompt about the same thing: the agent has it already.
    let asked = "Why is the parser so strict about its input?";
    assert_eq!(claude(&repo, "prompt", &prompt_payload(&repo, asked)), None);
    let again = prompt_json(&repo, asked);
    assert!(
        again["already_shown"].as_u64().expect("count") >= 1,
        "{again}"
    );
}

/// What `hook session-start` printed for a conversation `session_id` (Claude Code adds it to
/// the model's context as it is).
fn session_start(repo: &TestRepo, session_id: &str, source: &str) -> String {
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        &json!({"session_id": session_id, "cwd": repo.root(), "hook_event_name": "SessionStart", "source": source})
            .to_string(),
    )
    .success()
    .stdout()
    // After the line naming the episode.
    .split_once("\n\n")
    .map(|(_, briefing)| briefing.to_owned())
    .unwrap_or_default()
}

fn session_end(repo: &TestRepo, session_id: &str) {
    repo.run_with_stdin(
        &["hook", "session-end", "--provider", "claude-code"],
        &json!({"session_id": session_id, "cwd": repo.root(), "hook_event_name": "SessionEnd", "reason": "exit"})
            .to_string(),
    )
    .success();
}

#[test]
fn a_resumed_conversation_is_not_briefed_again_with_what_it_holds() {
    let repo = seeded();
    repo.run(&["session", "close"]).success();
    let first = session_start(&repo, "conversation-1", "startup");
    assert!(first.starts_with("## How to work here"), "{first}");
    let briefed = repo.ledger_events("context.shown");
    let held = refs(&briefed.last().expect("the briefing's line")["data"]["records"]);
    assert!(!held.is_empty(), "{briefed:?}");
    session_end(&repo, "conversation-1");

    // `claude --continue` / `--resume`: the same conversation, a new episode.
    let resumed = session_start(&repo, "conversation-1", "resume");
    assert!(
        resumed.starts_with(&format!(
            "Resumed conversation: how to work here and the {} record(s) it was shown earlier are not repeated.",
            held.len()
        )),
        "{resumed}"
    );
    assert!(!resumed.contains("## How to work here"), "{resumed}");
    for (_, id) in &held {
        assert!(
            !resumed.contains(&format!("{id}: [")) && !resumed.contains(&format!(":{id}`")),
            "{id} briefed again:\n{resumed}"
        );
    }
    // On record in the new episode: what the conversation holds, so no hook shows it again.
    let lines = repo.ledger_events("context.shown");
    let carried = lines
        .iter()
        .rev()
        .find(|l| l["data"]["where"] == "resumed")
        .expect("a resumed line");
    assert_eq!(refs(&carried["data"]["records"]), held);
    let run = prompt_json(&repo, "Why is the parser so strict about its input?");
    assert!(
        refs(&run["shown"])
            .iter()
            .all(|(_, id)| !held.iter().any(|(_, h)| h == id)),
        "{run}"
    );
    session_end(&repo, "conversation-1");

    // After a compaction the conversation lost what it was shown: briefed in full again.
    let compacted = session_start(&repo, "conversation-1", "compact");
    assert!(compacted.starts_with("## How to work here"), "{compacted}");
    session_end(&repo, "conversation-1");
    // Another conversation holds nothing.
    let other = session_start(&repo, "conversation-2", "startup");
    assert!(other.starts_with("## How to work here"), "{other}");
    for (_, id) in &held {
        assert!(other.contains(id.as_str()), "{id} missing:\n{other}");
    }
}
