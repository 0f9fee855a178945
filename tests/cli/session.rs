//! Episodes: `session start`, the derived working context (`session context`) and the
//! composed closed record (`session close`).

use crate::common::{EPISODE_ID, NOW, TestRepo, section, sections, split_record};

/// What `busy_episode` recorded, to check against what majordomus composes.
struct Busy {
    episode: String,
    head_at_open: String,
    commit: String,
    resolved: String,
    open: String,
}

/// An episode with a decision, a question and its answer, an open question, a commit made
/// with git, a checkpoint, and an untracked file left in the work tree.
fn busy_episode(repo: &mut TestRepo) -> Busy {
    let head_at_open = repo.head();
    repo.run(&["session", "start", "--provider", "example-agent"])
        .success();
    let episode = repo.episode_id();
    repo.now("2026-11-30T10:05:00Z");
    repo.run(&["decision", "All git reads go through gix"])
        .success();
    repo.now("2026-11-30T10:06:00Z");
    let resolved = repo
        .run(&["question", "Which lock guards the ledger?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.now("2026-11-30T10:07:00Z");
    repo.run(&[
        "question",
        "resolve",
        &resolved,
        "An exclusive lock on the ledger file itself",
    ])
    .success();
    repo.now("2026-11-30T10:08:00Z");
    let open = repo
        .run(&["question", "Does the ledger need retention on CI?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.now("2026-11-30T10:10:00Z");
    let commit = repo.commit(
        "src/lib.rs",
        "//! The library root.\n",
        "Add the library root",
    );
    repo.now("2026-11-30T10:12:00Z");
    repo.run(&["checkpoint", "Library root committed; parser next"])
        .success();
    repo.write("scratch.txt", "not committed\n");
    repo.now("2026-11-30T10:15:00Z");
    Busy {
        episode,
        head_at_open,
        commit,
        resolved,
        open,
    }
}

#[track_caller]
fn assert_has_line(text: &str, line: &str) {
    assert!(
        text.lines().any(|l| l == line),
        "missing line {line:?} in:\n{text}"
    );
}

// --- start -----------------------------------------------------------------------------

#[test]
fn start_records_the_episode_and_writes_the_opening_snapshot() {
    let repo = TestRepo::initialised();
    let head = repo.head();
    let run = repo
        .run(&["session", "start", "--provider", "example-agent"])
        .success();

    let state = repo.episode_state().expect("episode.json written");
    let id = state["id"].as_str().expect("id").to_owned();
    assert!(
        EPISODE_ID.is_match(&id) && id.len() == 23,
        "episode id shape: {id}"
    );
    assert!(
        id.starts_with("20261130T100000Z-"),
        "id carries the open time: {id}"
    );
    assert_eq!(state["provider"], "example-agent");
    assert_eq!(state["branch"], "main");
    assert_eq!(state["head_at_open"], head.as_str());
    assert_eq!(state["opened"], NOW);

    let snapshot_rel = format!(".ai/local/session-contexts/{id}.md");
    assert_eq!(
        run.stdout(),
        format!(
            "opened episode {id} (provider example-agent, branch main, HEAD {})\nsnapshot: {snapshot_rel}\n",
            &head[..12]
        )
    );
    let snapshot = repo.read(&snapshot_rel);
    assert!(snapshot.ends_with('\n'), "{snapshot:?}");
    let (keys, front, body) = split_record(&snapshot);
    assert_eq!(
        keys,
        ["id", "schema", "provider", "branch", "head", "opened"]
    );
    assert_eq!(front["id"], id.as_str());
    assert_eq!(front["schema"], "session-context/v1");
    assert_eq!(front["head"], head.as_str());
    assert!(body.contains("## Open questions (0)"), "{snapshot}");
    insta::assert_snapshot!("start_opening_snapshot", repo.redact(&snapshot));

    let opened = repo.ledger_events("session.opened");
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0]["session"], id.as_str());
    assert_eq!(opened[0]["ts"], NOW);
    assert_eq!(opened[0]["data"]["provider"], "example-agent");
    assert_eq!(opened[0]["data"]["branch"], "main");
    assert_eq!(opened[0]["data"]["head"], head.as_str());
}

#[test]
fn start_without_provider_records_cli() {
    let repo = TestRepo::initialised();
    let json = repo
        .run(&["--format", "json", "session", "start"])
        .success()
        .json();
    assert_eq!(json["episode"]["provider"], "cli");
    assert_eq!(json["already_open"], false);
    assert!(json["replaced"].is_null());
    assert_eq!(
        json["snapshot"],
        format!(
            ".ai/local/session-contexts/{}.md",
            json["episode"]["id"].as_str().expect("id")
        )
    );
}

#[test]
fn start_in_an_unborn_repository_records_no_head() {
    let repo = TestRepo::unborn();
    repo.run(&["init"]).success();
    let run = repo.run(&["session", "start"]).success();
    assert!(run.stdout().contains("HEAD unborn"), "{run}");
    let state = repo.episode_state().expect("episode open");
    assert!(state["head_at_open"].is_null());

    repo.commit("a.txt", "a\n", "First commit");
    let context = repo.run(&["session", "context"]).success();
    assert_has_line(context.stdout(), "- HEAD at open: (unborn: no commit yet)");
    assert!(context.stdout().contains(" First commit\n"), "{context}");
}

#[test]
fn start_twice_prints_the_open_episode_and_opens_nothing() {
    let mut repo = TestRepo::initialised();
    let id = repo.start_episode();
    let ledger = repo.ledger_text();
    repo.now("2026-11-30T10:30:00Z");

    let run = repo.run(&["session", "start"]).success();
    assert!(run.stdout().contains(&id), "{run}");
    assert!(run.stdout().contains("already open"), "{run}");
    assert_eq!(repo.episode_id(), id);
    assert_eq!(repo.ledger_text(), ledger, "a second start appended");
    assert_eq!(repo.ledger_events("session.opened").len(), 1);

    let json = repo
        .run(&["--format", "json", "session", "start"])
        .success()
        .json();
    assert_eq!(json["already_open"], true);
    assert_eq!(json["episode"]["id"], id.as_str());
}

#[test]
fn start_replace_closes_the_open_episode_and_opens_another() {
    let mut repo = TestRepo::initialised();
    let old = repo.start_episode();
    repo.run(&["decision", "Decided in the old episode"])
        .success();
    repo.now("2026-11-30T11:00:00Z");

    let run = repo.run(&["session", "start", "--replace"]).success();
    let new = repo.episode_id();
    assert_ne!(new, old);
    assert!(new.starts_with("20261130T110000Z-"), "{new}");
    let old_record = format!(".ai/repo/sessions/{old}.md");
    assert!(
        run.stdout().starts_with(&format!(
            "closed episode {old} -> {old_record}\nopened episode {new} "
        )),
        "{run}"
    );
    let record = repo.read(&old_record);
    assert!(
        record.contains("- 2026-11-30T10:00:00Z Decided in the old episode"),
        "{record}"
    );
    assert!(!repo.exists(&format!(".ai/repo/sessions/{new}.md")));

    let events: Vec<(String, String)> = repo
        .ledger()
        .iter()
        .map(|l| {
            (
                l["event"].as_str().expect("event").to_owned(),
                l["session"].as_str().unwrap_or("null").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("session.opened".to_owned(), old.clone()),
            ("decision.recorded".to_owned(), old.clone()),
            // The replaced episode is closed like any other: derived, then closed.
            ("knowledge.derived".to_owned(), old.clone()),
            ("session.closed".to_owned(), old.clone()),
            ("session.opened".to_owned(), new.clone()),
        ]
    );
}

#[test]
fn the_opening_briefing_lists_open_questions_within_its_budget() {
    let repo = TestRepo::initialised();
    // 18: the practice takes five lines, the legend that says how to read quoted records
    // one.
    repo.write_policy("session:\n  briefing_budget_lines: 18\n");
    let mut asked = Vec::new();
    for n in 0..6 {
        asked.push(
            repo.run(&["question", &format!("Open question {n}?")])
                .success()
                .stdout()
                .trim()
                .to_owned(),
        );
    }
    repo.run(&["question", "resolve", &asked[0], "Answered"])
        .success();

    let briefing = repo.run(&["briefing"]).success();
    let text = briefing.stdout();
    assert!(text.lines().count() <= 18, "over budget:\n{text}");
    assert_has_line(text, "## Open questions (5)");
    assert!(
        !text.contains(&asked[0]),
        "a resolved question is listed:\n{text}"
    );
    assert!(
        text.contains(&format!(
            "- {}: [open] ⟪Open question 1?⟫ (asked {NOW})",
            asked[1]
        )),
        "{text}"
    );
    assert_has_line(
        text,
        "- ... 4 more: `majordomus history --event question.asked`",
    );

    // The opening snapshot of the next episode is this briefing, frozen.
    let id = repo.start_episode();
    let snapshot = repo.read(&format!(".ai/local/session-contexts/{id}.md"));
    let (_, _, body) = split_record(&snapshot);
    assert_eq!(body, text);
    let json = repo.run(&["--format", "json", "briefing"]).success().json();
    assert_eq!(json["budget_lines"], 18);
    assert_eq!(json["open_questions"].as_array().map(Vec::len), Some(5));
}

#[test]
fn every_briefing_opens_with_the_practice_and_the_mcp_instructions_point_at_it() {
    let repo = TestRepo::initialised();
    let practice = [
        "## How to work here",
        "- Before deciding an area, ask what is known there (majordomus_recall with its files or words); record each decision with the files it concerns (majordomus_decision_record).",
        "- On a material uncertainty: record an assessment with its evidence (majordomus_reasoning_record), let the plan choose optional advisors or the local review (majordomus_reasoning_consult), settle a disagreement by an experiment, record the conclusion, and continue.",
        "- A missing advisor is a reported state, never a reason to stop.",
        "",
    ];
    // An empty store, then one with a decision to quote: the same opening lines.
    let empty = repo.run(&["briefing"]).success();
    repo.start_episode();
    repo.run(&["decision", "Parsing stays strict"]).success();
    let busy = repo.run(&["briefing"]).success();
    for run in [&empty, &busy] {
        let opening: Vec<&str> = run.stdout().lines().take(practice.len()).collect();
        assert_eq!(opening, practice, "{run}");
    }
    // Inside the line budget: the practice counts against it, the lists share the rest.
    repo.write_policy("session:\n  briefing_budget_lines: 20\n");
    for n in 0..30 {
        repo.run(&["question", &format!("Open question {n}?")])
            .success();
    }
    let tight = repo.run(&["briefing"]).success();
    assert!(
        tight.stdout().starts_with(majordomus::briefing::PRACTICE),
        "{tight}"
    );
    assert!(
        tight.stdout().lines().count() <= 20,
        "over budget:\n{tight}"
    );
    // The server's instructions send the agent to it.
    assert!(
        majordomus::mcp::INSTRUCTIONS.contains("\"How to work here\""),
        "{}",
        majordomus::mcp::INSTRUCTIONS
    );
}

// --- context ---------------------------------------------------------------------------

#[test]
fn context_composes_the_episode_git_and_the_ledger_window() {
    let mut repo = TestRepo::initialised();
    let busy = busy_episode(&mut repo);
    let run = repo.run(&["session", "context"]).success();
    let text = run.stdout();

    assert_has_line(
        text,
        &format!("# Working context of episode {}", busy.episode),
    );
    assert_has_line(text, "- provider: example-agent");
    assert_has_line(text, "- opened: 2026-11-30T10:00:00Z");
    assert_has_line(text, "- branch at open: main");
    assert_has_line(text, &format!("- HEAD at open: {}", busy.head_at_open));
    assert_has_line(text, "- branch: main (unchanged)");
    assert_has_line(text, &format!("- HEAD: {}", busy.commit));
    assert_has_line(
        text,
        "- working tree: dirty (uncommitted or untracked changes); `git status --porcelain` lists 1:",
    );
    assert_has_line(text, "  - ?? scratch.txt");
    assert_has_line(text, "- commits since open (1):");
    assert_has_line(
        text,
        &format!("  - {} Add the library root", &busy.commit[..12]),
    );
    assert_has_line(text, "- files changed (1):");
    assert_has_line(text, "  - src/lib.rs");
    assert_has_line(text, "## Decisions (1)");
    assert_has_line(
        text,
        "- 2026-11-30T10:05:00Z [unverified] ⟪All git reads go through gix⟫",
    );
    assert_has_line(text, "## Questions (1 open, 1 resolved)");
    assert_has_line(
        text,
        &format!(
            "- resolved {}: [unverified] ⟪Which lock guards the ledger?⟫ -> [unverified] ⟪An exclusive lock on the ledger file itself⟫",
            busy.resolved
        ),
    );
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "- open {}: [unverified] ⟪Does the ledger need retention on CI?⟫",
            busy.open
        ))),
        "{text}"
    );
    assert_has_line(text, "## Checkpoints (1)");
    assert_has_line(
        text,
        "- 2026-11-30T10:12:00Z [unverified] ⟪Library root committed; parser next⟫",
    );
    assert_eq!(run.stderr(), "", "{run}");
    insta::assert_snapshot!("context_busy_episode", repo.redact(text));

    let json = repo
        .run(&["--format", "json", "session", "context"])
        .success()
        .json();
    assert_eq!(json["episode"]["id"], busy.episode.as_str());
    assert_eq!(json["git"]["commits"][0]["id"], busy.commit.as_str());
    assert_eq!(json["git"]["dirty"], true);
    assert_eq!(
        json["window"]["decisions"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(json["text"], text);
}

#[test]
fn context_is_composed_again_at_every_read() {
    let mut repo = TestRepo::initialised();
    let busy = busy_episode(&mut repo);
    let snapshot_path = format!(".ai/local/session-contexts/{}.md", busy.episode);
    let frozen = repo.read(&snapshot_path);
    let first = repo.run(&["session", "context"]).success();
    assert!(first.stdout().contains("- working tree: dirty"), "{first}");

    std::fs::remove_file(repo.path("scratch.txt")).expect("remove scratch file");
    repo.now("2026-11-30T10:20:00Z");
    let second_commit = repo.commit("src/parser.rs", "", "Add the parser");
    repo.run(&["decision", "Parser is hand-written"]).success();

    let second = repo.run(&["session", "context"]).success();
    let text = second.stdout();
    assert_has_line(text, "- working tree: clean");
    assert_has_line(text, "- commits since open (2):");
    assert_has_line(
        text,
        &format!("  - {} Add the library root", &busy.commit[..12]),
    );
    assert_has_line(
        text,
        &format!("  - {} Add the parser", &second_commit[..12]),
    );
    assert_has_line(text, "## Decisions (2)");
    // The opening snapshot is the one frozen thing: it still shows the briefing at open,
    // before the episode asked its open question.
    assert_eq!(repo.read(&snapshot_path), frozen);
    assert!(frozen.contains("## Open questions (0)"), "{frozen}");
    let briefing = repo.run(&["briefing"]).success();
    assert!(
        briefing.stdout().contains("## Open questions (1)"),
        "{briefing}"
    );
}

#[test]
fn context_shows_a_branch_that_moved() {
    let mut repo = TestRepo::initialised();
    repo.start_episode();
    repo.git(&["checkout", "-q", "-b", "feature/parser"]);
    repo.now("2026-11-30T10:10:00Z");
    repo.commit("parser.rs", "", "Start the parser");
    let run = repo.run(&["session", "context"]).success();
    assert_has_line(run.stdout(), "- branch: feature/parser (moved from main)");
    assert_has_line(run.stdout(), "- branch at open: main");
}

#[test]
fn context_of_an_empty_episode_names_the_commands_that_fill_it() {
    let repo = TestRepo::initialised();
    let head = repo.head();
    repo.start_episode();
    let run = repo.run(&["session", "context"]).success();
    let text = run.stdout();
    for command in [
        "majordomus decision",
        "majordomus question",
        "majordomus checkpoint",
    ] {
        assert!(text.contains(command), "{command} not named:\n{text}");
    }
    let parts = sections(text);
    for (title, hint) in [
        ("Decisions (0)", "majordomus decision"),
        ("Questions (0 open, 0 resolved)", "majordomus question"),
        ("Checkpoints (0)", "majordomus checkpoint"),
    ] {
        let lines = section(&parts, title);
        assert_eq!(lines.len(), 1, "{title}: {lines:?}");
        assert!(
            lines[0].starts_with("- none in this episode yet; ") && lines[0].contains(hint),
            "{title}: {lines:?}"
        );
    }
    assert_has_line(text, &format!("- HEAD: {head} (unchanged)"));
    assert_has_line(text, "- working tree: clean");
    insta::assert_snapshot!("context_empty_episode", repo.redact(text));
}

#[test]
fn context_path_prints_the_opening_snapshot_path() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    let expected = format!(".ai/local/session-contexts/{id}.md");
    let run = repo.run(&["session", "context", "--path"]).success();
    assert_eq!(run.stdout(), format!("{expected}\n"));
    assert!(repo.exists(&expected));
    let json = repo
        .run(&["--format", "json", "session", "context", "--path"])
        .success()
        .json();
    assert_eq!(json, serde_json::json!({ "path": expected }));
}

#[test]
fn context_without_an_open_episode_is_refused() {
    let repo = TestRepo::initialised();
    for args in [
        &["session", "context"][..],
        &["session", "context", "--path"][..],
    ] {
        let run = repo.run(args);
        run.assert_human_error(3, "no episode is open");
        assert!(
            run.stderr().contains("fix: majordomus session start"),
            "{run}"
        );
    }
    repo.run(&["--format", "json", "session", "context"])
        .json_error(3, "session.open-episode");
}

// --- close -----------------------------------------------------------------------------

#[test]
fn close_writes_the_record_composed_from_the_episode() {
    let mut repo = TestRepo::initialised();
    let busy = busy_episode(&mut repo);
    repo.now("2026-11-30T10:30:00Z");
    let summary = "Wired the library root.\n\nThe ledger lock question is settled.\n";
    let run = repo
        .run_with_stdin(&["session", "close"], summary)
        .success();

    let rel = format!(".ai/repo/sessions/{}.md", busy.episode);
    assert!(
        run.stdout().starts_with(&format!(
            "closed episode {} (committed)\nrecord: {rel} (written)\n",
            busy.episode
        )),
        "{run}"
    );
    let text = repo.read(&rel);
    assert!(text.ends_with('\n'), "{text:?}");
    assert!(
        run.stdout().contains(&text),
        "the output shows the record: {run}"
    );
    assert!(
        run.stdout().contains(&format!(
            "{text}\nderived episode {} into candidates: ",
            busy.episode
        )),
        "after the record, the output says what was derived: {run}"
    );

    let (keys, front, body) = split_record(&text);
    assert_eq!(
        keys,
        [
            "id",
            "schema",
            "provider",
            "branch",
            "head_at_open",
            "head",
            "opened",
            "closed",
            "commits",
            "changed_files",
            "tasks",
            "outcome"
        ]
    );
    assert_eq!(front["id"], busy.episode.as_str());
    assert_eq!(front["schema"], "session/v1");
    assert_eq!(front["provider"], "example-agent");
    assert_eq!(front["branch"], "main");
    assert_eq!(front["head_at_open"], busy.head_at_open.as_str());
    assert_eq!(front["head"], busy.commit.as_str());
    assert_eq!(front["opened"], "2026-11-30T10:00:00Z");
    assert_eq!(front["closed"], "2026-11-30T10:30:00Z");
    assert_eq!(front["commits"], serde_json::json!([busy.commit]));
    assert_eq!(front["changed_files"], serde_json::json!(["src/lib.rs"]));
    assert_eq!(front["tasks"], serde_json::json!([]));
    assert_eq!(front["outcome"], "committed");

    let parts = sections(&body);
    assert_eq!(
        section(&parts, "Summary"),
        [
            "Wired the library root.",
            "The ledger lock question is settled."
        ]
    );
    assert_eq!(
        section(&parts, "Decisions"),
        ["- 2026-11-30T10:05:00Z All git reads go through gix"]
    );
    let questions = section(&parts, "Questions");
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert!(questions[0].starts_with(&format!("- resolved {}: ", busy.resolved)));
    assert!(questions[1].starts_with(&format!("- open {}: ", busy.open)));
    assert_eq!(
        section(&parts, "Checkpoints"),
        ["- 2026-11-30T10:12:00Z Library root committed; parser next"]
    );
    assert_eq!(
        section(&parts, "Commits"),
        [format!(
            "- {} Add the library root (2026-11-30T10:10:00Z)",
            &busy.commit[..12]
        )]
    );
    assert_eq!(
        section(&parts, "Files"),
        [
            "- src/lib.rs",
            "- the working tree had uncommitted or untracked changes at close"
        ]
    );
    assert!(section(&parts, "Outcome")[0].starts_with("committed: 1 commit(s) touching 1 file(s); 1 decision(s); 2 question(s), 1 open; 1 checkpoint(s)"));
    insta::assert_snapshot!("close_busy_record", repo.redact(&text));

    // After the close: the ledger ends with it, the episode is gone, closing again refuses.
    let last = repo.ledger().pop().expect("ledger lines");
    assert_eq!(last["event"], "session.closed");
    assert_eq!(last["session"], busy.episode.as_str());
    assert_eq!(last["ts"], "2026-11-30T10:30:00Z");
    assert_eq!(last["data"]["record"], rel.as_str());
    assert_eq!(last["data"]["outcome"], "committed");
    assert!(repo.episode_state().is_none(), "episode.json still there");
    let again = repo.run_with_stdin(&["session", "close"], "more");
    again.assert_human_error(3, "no episode is open");
    repo.run(&["--format", "json", "session", "close"])
        .json_error(3, "session.open-episode");
    assert_eq!(repo.ledger_events("session.closed").len(), 1);
}

#[test]
fn close_json_reports_the_record() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Records are composed at close"])
        .success();
    let json = repo
        .run_with_stdin(&["--format", "json", "session", "close"], "Nothing much.\n")
        .success()
        .json();
    assert_eq!(json["episode"], id.as_str());
    assert_eq!(json["path"], format!(".ai/repo/sessions/{id}.md"));
    assert_eq!(json["write"], "written");
    assert_eq!(json["record"]["schema"], "session/v1");
    assert_eq!(json["record"]["outcome"], "no-commits");
    assert_eq!(
        json["text"],
        repo.read(&format!(".ai/repo/sessions/{id}.md"))
    );
    // Off the trunk: the record is tracked, nothing waited in the outbox, and the close
    // derived the decision into a candidate (SPEC §5.1).
    assert_eq!(json["outboxed"], false);
    assert_eq!(json["drained"], serde_json::Value::Null);
    assert_eq!(json["derived"]["episode"], id.as_str());
    let written = json["derived"]["written"].as_array().expect("written");
    assert_eq!(written.len(), 1, "{json}");
    let candidate = written[0].as_str().expect("a path");
    assert!(
        candidate.starts_with(&format!(".ai/repo/knowledge/candidates/{id}-")),
        "{candidate}"
    );
    assert!(
        repo.read(candidate).contains("\nclass: convention\n"),
        "{candidate}"
    );
}

/// An episode where nothing was recorded, closed with `stdin`: its id and what the close
/// printed.
fn close_empty_episode(stdin: Option<&str>) -> (TestRepo, String, String) {
    let repo = TestRepo::initialised();
    // An episode before it that derived, so doctor judges freshness.
    repo.start_episode();
    repo.run(&["decision", "Parsing stays strict"]).success();
    repo.run_without_stdin(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "the first episode"]);
    let id = repo.start_episode();
    let out = match stdin {
        Some(input) => repo.run_with_stdin(&["session", "close"], input),
        None => repo.run_without_stdin(&["session", "close"]),
    }
    .success()
    .stdout()
    .to_owned();
    (repo, id, out)
}

/// An episode closed empty (SPEC §3.2): no record anywhere, the ledger says so, `session
/// list` shows it, the tree is as it was, and doctor does not ask for its derivation.
#[track_caller]
fn assert_closed_empty(repo: &mut TestRepo, id: &str, out: &str) {
    assert_eq!(
        out,
        format!(
            "closed episode {id} empty: no commit, no authored line, no summary, so no record was written (docs/SESSIONS.md)\n"
        )
    );
    assert!(!repo.path(&format!(".ai/repo/sessions/{id}.md")).exists());
    let outbox = repo.path(&format!(".ai/local/state/outbox/sessions/{id}.md"));
    assert!(!outbox.exists());
    let closed = repo.ledger_events("session.closed");
    assert_eq!(closed.len(), 2);
    let closed = &closed[1];
    assert_eq!(closed["session"], id);
    assert_eq!(closed["data"]["empty"], true, "{closed}");
    assert_eq!(closed["data"]["record"], "", "{closed}");
    assert_eq!(closed["data"]["commits"], 0, "{closed}");
    // Nothing derived, nothing written under .ai/repo/.
    let derived = repo.ledger_events("knowledge.derived");
    assert_eq!(
        derived.len(),
        1,
        "only the first episode derived: {derived:?}"
    );
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ai/repo"]), "");
    let list = repo.run(&["session", "list"]).success().stdout().to_owned();
    assert!(
        list.contains(&format!(
            "- {id} (cli, main) closed 2026-11-30T10:00:00Z, empty\n"
        )),
        "{list}"
    );
    assert!(
        list.contains("  record: none (it closed empty: no commit, no authored line)\n"),
        "{list}"
    );
    let json = repo
        .run(&["--format", "json", "session", "list"])
        .success()
        .json();
    let entry = json["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .find(|e| e["id"] == id)
        .expect("the empty episode listed");
    assert_eq!(entry["empty"], true, "{json}");
    // Doctor counts it as closed and asks nothing of it: an hour later, no derivation is
    // missing.
    let doctor = repo
        .now("2026-12-01T10:00:00Z")
        .run(&["--format", "json", "doctor"])
        .json();
    let observed = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.knowledge-observed")
        .expect("the freshness rule");
    assert_eq!(observed["status"], "pass", "{observed}");
}

#[test]
fn an_empty_episode_writes_no_record_and_the_ledger_says_so() {
    let (mut repo, id, out) = close_empty_episode(None);
    assert_closed_empty(&mut repo, &id, &out);
}

#[test]
fn close_with_empty_stdin_is_the_same_as_no_summary() {
    for stdin in ["", "  \n\n"] {
        let (mut repo, id, out) = close_empty_episode(Some(stdin));
        assert_closed_empty(&mut repo, &id, &out);
    }
}

#[test]
fn an_episode_with_a_summary_a_commit_or_an_authored_line_writes_its_record() {
    type Fill = fn(&TestRepo);
    let fills: [(&str, Fill); 4] = [
        ("summary", |_| {}),
        ("commit", |repo| {
            repo.commit("src/lib.rs", "pub fn one() {}\n", "one");
        }),
        ("checkpoint", |repo| {
            repo.run(&["checkpoint", "halfway"]).success();
        }),
        ("question", |repo| {
            repo.run(&["question", "Why is the parser strict?"])
                .success();
        }),
    ];
    for (what, fill) in fills {
        let repo = TestRepo::initialised();
        let id = repo.start_episode();
        fill(&repo);
        let out = if what == "summary" {
            repo.run_with_stdin(&["session", "close"], "We looked and changed nothing.\n")
        } else {
            repo.run_without_stdin(&["session", "close"])
        }
        .success()
        .stdout()
        .to_owned();
        assert!(
            out.starts_with(&format!("closed episode {id} (")),
            "{what}: {out}"
        );
        assert!(
            repo.path(&format!(".ai/repo/sessions/{id}.md")).exists(),
            "{what}"
        );
        let closed = repo.ledger_events("session.closed");
        assert!(
            closed[0]["data"].get("empty").is_none(),
            "{what}: {}",
            closed[0]
        );
    }
}

#[test]
fn close_refuses_a_record_section_without_a_writer() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Kept across the refusal"]).success();
    repo.write_policy("session: {record_sections: [summary, notes]}\n");
    let ledger = repo.ledger_text();

    let run = repo.run_with_stdin(&["session", "close"], "A summary.\n");
    run.assert_human_error(3, "`notes`");
    assert!(
        run.stderr()
            .lines()
            .any(|l| l.starts_with("fix: ") && l.contains("notes")),
        "{run}"
    );
    let error = repo
        .run_with_stdin(&["--format", "json", "session", "close"], "A summary.\n")
        .json_error(3, "policy.record-section-writer");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("notes")),
        "{error}"
    );

    assert!(
        !repo.exists(&format!(".ai/repo/sessions/{id}.md")),
        "a record was written"
    );
    assert_eq!(repo.episode_id(), id, "the episode did not stay open");
    assert_eq!(repo.ledger_text(), ledger, "the refusal appended");

    // Fixing the policy lets the same episode close.
    repo.write_policy("session: {record_sections: [summary, decisions]}\n");
    repo.run_with_stdin(&["session", "close"], "A summary.\n")
        .success();
    let record = repo.read(&format!(".ai/repo/sessions/{id}.md"));
    assert!(record.contains("Kept across the refusal"), "{record}");
}

#[test]
fn close_writes_only_the_policy_sections_in_their_order() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Not a section of this record"])
        .success();
    repo.write_policy("session:\n  record_sections: [commits, summary]\n");
    repo.run_with_stdin(&["session", "close"], "Short.\n")
        .success();
    let text = repo.read(&format!(".ai/repo/sessions/{id}.md"));
    let (_, _, body) = split_record(&text);
    let parts = sections(&body);
    let titles: Vec<&str> = parts.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(titles, ["Commits", "Summary"]);
    assert_eq!(section(&parts, "Summary"), ["Short."]);
    assert!(!body.contains("Not a section of this record"), "{body}");
}

#[test]
fn close_leaves_no_temporary_files() {
    let mut repo = TestRepo::initialised();
    busy_episode(&mut repo);
    repo.run_with_stdin(&["session", "close"], "Done.\n")
        .success();
    let leftovers: Vec<String> = repo
        .all_files()
        .into_keys()
        .filter(|p| p.contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn concurrent_starts_open_one_episode() {
    let repo = TestRepo::initialised();
    let runs = repo.run_concurrently(8, &["--format", "json", "session", "start"]);
    let opened: Vec<String> = repo
        .ledger_events("session.opened")
        .iter()
        .map(|l| l["session"].as_str().expect("session").to_owned())
        .collect();
    assert_eq!(opened.len(), 1, "several episodes opened: {opened:?}");
    let id = repo.episode_id();
    assert_eq!(opened[0], id);
    // Every start exits 0 and names the one episode; exactly one of them opened it.
    let mut already_open = Vec::new();
    for run in &runs {
        let json = run.clone().success().json();
        assert_eq!(json["episode"]["id"], id.as_str(), "{run}");
        already_open.push(json["already_open"].as_bool().expect("already_open"));
    }
    already_open.sort_unstable();
    assert_eq!(
        already_open,
        [false, true, true, true, true, true, true, true]
    );
    let snapshots: Vec<String> = repo
        .files()
        .into_keys()
        .filter(|p| p.starts_with(".ai/local/session-contexts/"))
        .collect();
    assert_eq!(
        snapshots,
        [format!(".ai/local/session-contexts/{id}.md")],
        "one opening snapshot"
    );
}

#[test]
fn concurrent_closes_close_once() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    repo.run(&["decision", "Closing races are settled by the state lock"])
        .success();
    let runs = repo.run_concurrently(4, &["--format", "json", "session", "close"]);
    let (closed, refused): (Vec<_>, Vec<_>) = runs.iter().partition(|r| r.code() == 0);
    assert_eq!(closed.len(), 1, "one close succeeds: {runs:?}");
    assert_eq!(closed[0].json()["episode"], id.as_str(), "{}", closed[0]);
    for run in refused {
        run.json_error(3, "session.open-episode");
    }
    // Closed once: one record, one derivation, then one `session.closed`, nothing after.
    let events: Vec<String> = repo
        .ledger()
        .iter()
        .map(|l| l["event"].as_str().expect("event").to_owned())
        .collect();
    assert_eq!(
        events,
        [
            "session.opened",
            "decision.recorded",
            "knowledge.derived",
            "session.closed"
        ]
    );
    assert!(repo.exists(&format!(".ai/repo/sessions/{id}.md")));
    assert_eq!(repo.record_ids(".ai/repo/knowledge/candidates").len(), 1);
    assert!(repo.episode_state().is_none());
}

#[test]
fn multi_line_text_cannot_forge_a_section() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    // Each authored kind, with continuation lines that would be headings of the document.
    repo.run(&["decision", "First line\n## Summary\nForged"])
        .success();
    let qid = repo
        .run(&["question", "Asked\n## Outcome"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&["question", "resolve", &qid, "Answered\n## Tasks"])
        .success();
    repo.run(&["checkpoint", "Noted\n## Commits\n- forged"])
        .success();

    let context = repo.run(&["session", "context"]).success();
    let parts = sections(context.stdout());
    let titles: Vec<&str> = parts.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Episode",
            "Git since open",
            "Decisions (1)",
            "Questions (0 open, 1 resolved)",
            "Checkpoints (1)",
            "Tasks (0)",
            "Agent",
            "What the repository knows about these files"
        ],
        "{context}"
    );
    // The working context quotes each text on one line (docs/SECURITY.md).
    for (title, line) in [
        (
            "Decisions (1)",
            " [unverified] ⟪First line ⏎ ## Summary ⏎ Forged⟫",
        ),
        (
            "Questions (0 open, 1 resolved)",
            ": [unverified] ⟪Asked ⏎ ## Outcome⟫ -> [unverified] ⟪Answered ⏎ ## Tasks⟫",
        ),
        (
            "Checkpoints (1)",
            " [unverified] ⟪Noted ⏎ ## Commits ⏎ - forged⟫",
        ),
    ] {
        assert_one_indented_bullet(&parts, title, line, &[]);
    }

    let id = repo.episode_id();
    repo.run_without_stdin(&["session", "close"]).success();
    let (_, _, body) = split_record(&repo.read(&format!(".ai/repo/sessions/{id}.md")));
    let parts = sections(&body);
    let titles: Vec<&str> = parts.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Summary",
            "Decisions",
            "Questions",
            "Checkpoints",
            "Commits",
            "Files",
            "Tasks",
            "Agent",
            "Outcome"
        ],
        "{body}"
    );
    assert_one_indented_bullet(
        &parts,
        "Decisions",
        " First line",
        &["## Summary", "Forged"],
    );
    assert_one_indented_bullet(
        &parts,
        "Questions",
        ": Asked",
        &["## Outcome -> Answered", "## Tasks"],
    );
    assert_one_indented_bullet(&parts, "Checkpoints", " Noted", &["## Commits", "- forged"]);
}

/// Section `title` holds one bullet whose first line ends with `first` and whose
/// continuation lines are `rest`, each indented under the bullet, so none of them reads as
/// a heading or a bullet of its own.
#[track_caller]
fn assert_one_indented_bullet(
    parts: &[(String, Vec<String>)],
    title: &str,
    first: &str,
    rest: &[&str],
) {
    let lines = section(parts, title);
    assert!(
        lines[0].starts_with("- ") && lines[0].ends_with(first),
        "{title}: {lines:?}"
    );
    let indented: Vec<String> = rest.iter().map(|l| format!("  {l}")).collect();
    assert_eq!(lines[1..], indented, "{title}");
}

#[test]
fn a_record_of_twenty_thousand_checkpoints_keeps_the_newest_and_names_the_rest() {
    let repo = TestRepo::initialised();
    let id = repo.start_episode();
    let seq = repo.last_seq();
    let mut text = String::new();
    for n in 1..=20_000u64 {
        text.push_str(&crate::common::ledger_line(
            seq + n,
            NOW,
            "checkpoint.recorded",
            Some(&id),
            None,
            &serde_json::json!({ "text": format!("checkpoint {n}") }),
        ));
    }
    repo.append_ledger(&text);

    let context = repo.run(&["session", "context"]).success();
    assert!(
        context.stdout().contains("## Checkpoints (20000)"),
        "{context}"
    );
    assert!(
        context.stdout().contains(&format!(
            "\n- … 19800 more: majordomus history --session {id} --event checkpoint.recorded\n"
        )),
        "{context}"
    );

    repo.run_without_stdin(&["session", "close"]).success();
    let record = repo.read(&format!(".ai/repo/sessions/{id}.md"));
    assert!(record.len() < 20_000, "{} bytes", record.len());
    let (_, _, body) = split_record(&record);
    let all = sections(&body);
    let checkpoints = section(&all, "Checkpoints");
    assert_eq!(checkpoints.len(), 201);
    assert_eq!(checkpoints[0], format!("- {NOW} checkpoint 19801"));
    assert_eq!(checkpoints[199], format!("- {NOW} checkpoint 20000"));
    let more =
        format!("- … 19800 more: majordomus history --session {id} --event checkpoint.recorded");
    assert_eq!(checkpoints[200], more);
    assert!(
        section(&all, "Outcome")[0].contains("20000 checkpoint(s)"),
        "{body}"
    );

    // The command it names works and lists every one.
    let command = more.split_once(": majordomus ").expect("a command").1;
    let mut args = vec!["--format", "json"];
    args.extend(command.split(' '));
    let listed = repo.run(&args).success().json();
    assert_eq!(listed["lines"].as_array().map(Vec::len), Some(20_000));
}

#[test]
fn list_names_every_episode_newest_first_with_its_record_found_by_id() {
    let mut repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.now("2026-11-30T10:00:00Z");
    let first = repo.start_episode();
    repo.commit("a.txt", "a\n", "Add a");
    repo.run_with_stdin(&["session", "close"], "First.")
        .success();
    repo.now("2026-11-30T11:00:00Z");
    let second = repo.start_episode();
    // A forged line whose session is a path is no episode, and never becomes one.
    repo.append_ledger(
        "{\"seq\":99,\"ts\":\"2026-11-30T11:00:01Z\",\"event\":\"session.closed\",\"session\":\"../../x\",\"data\":{\"record\":\"../../../etc/passwd\",\"commits\":0,\"outcome\":\"committed\"}}\n",
    );

    let json = repo
        .run(&["--format", "json", "session", "list"])
        .success()
        .json();
    let episodes = json["episodes"].as_array().expect("episodes");
    let ids: Vec<&str> = episodes.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids, [second.as_str(), first.as_str()], "{json}");
    assert_eq!(episodes[0]["open"], true);
    assert!(episodes[0]["record"].is_null(), "{json}");
    assert_eq!(episodes[1]["outcome"], "committed");
    assert_eq!(
        episodes[1]["record"],
        format!(".ai/repo/sessions/{first}.md")
    );
    assert_eq!(episodes[1]["front"]["id"], first.as_str());
    assert!(
        episodes[1]["body"]
            .as_str()
            .is_some_and(|b| b.contains("First.")),
        "{json}"
    );

    let run = repo.run(&["session", "list"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "2 episode(s), newest first\n- {second} [open] (cli, work)\n- {first} (cli, work) closed 2026-11-30T10:00:00Z, committed\n  record: .ai/repo/sessions/{first}.md\n"
        )
    );
}

// --- Trust at the seams (step 10) -------------------------------------------------------

#[test]
fn the_record_redacts_branch_names_paths_and_subjects_in_every_copy() {
    let repo = TestRepo::initialised();
    let token = ["ghp_", "1234567890abcdefghijABCDEFGHIJ123456"].concat();
    repo.git(&["checkout", "-q", "-b", &format!("fix/{token}")]);
    let started = repo
        .run(&["--format", "json", "session", "start"])
        .success()
        .json();
    assert_eq!(started["redacted"], serde_json::json!(["github-token"]));
    let episode = repo.episode_id();
    // A path with a terminal escape and a bell, a path carrying the token, a subject too.
    repo.commit("notes/a\u{1b}[31mred\u{7}.txt", "x\n", "Add the notes");
    repo.commit(
        &format!("keys/{token}.txt"),
        "k\n",
        &format!("Keep {token}"),
    );
    let context = repo.run(&["session", "context"]).success();
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(
        closed["redacted"],
        serde_json::json!(["control-characters", "github-token"]),
        "{closed}"
    );
    let record = repo.read(&format!(".ai/repo/sessions/{episode}.md"));
    let snapshot = repo.read(&format!(".ai/local/session-contexts/{episode}.md"));
    let ledger = repo.ledger_text();
    for (what, text) in [
        ("the session record", record.as_str()),
        ("the opening snapshot", snapshot.as_str()),
        ("the ledger", ledger.as_str()),
        ("the working context", context.stdout()),
    ] {
        assert!(!text.contains(&token), "{what} carries the token:\n{text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{what} carries a control character:\n{text:?}"
        );
    }
    let (_, front, body) = split_record(&record);
    assert_eq!(front["branch"], "fix/[redacted: github-token]");
    assert_eq!(
        front["changed_files"],
        serde_json::json!(["keys/[redacted: github-token].txt", "notes/ared.txt"])
    );
    let sections = sections(&body);
    assert_eq!(
        section(&sections, "Files"),
        ["- keys/[redacted: github-token].txt", "- notes/ared.txt"]
    );
    assert!(
        section(&sections, "Commits")
            .iter()
            .any(|l| l.contains("Keep [redacted: github-token]")),
        "{body}"
    );
    assert!(
        snapshot.contains("branch: 'fix/[redacted: github-token]'"),
        "{snapshot}"
    );
    let opened = &repo.ledger_events("session.opened")[0];
    assert_eq!(opened["data"]["branch"], "fix/[redacted: github-token]");
    // Every file majordomus wrote is clean of both, whatever its kind.
    let files = repo.all_files();
    assert!(
        files.contains_key(".ai/local/state/ledger-index.json"),
        "the scan covers the ledger index"
    );
    for (path, (bytes, _)) in files {
        if path.starts_with(".ai/") {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(&token), "{path} carries the token");
        }
    }
}

#[test]
fn a_forged_episode_id_is_unreadable_state_and_nothing_is_stamped_with_it() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    let state = repo.read(".ai/local/state/episode.json");
    repo.write(
        ".ai/local/state/episode.json",
        &state.replace(&episode, "../../x"),
    );
    let lines = repo.ledger().len();
    for command in [
        &["decision", "Stamped with what?"][..],
        &["checkpoint", "Here"][..],
        &["question", "Who opened this?"][..],
        &["session", "close"][..],
    ] {
        let mut json = vec!["--format", "json"];
        json.extend(command);
        let error = repo.run(&json).json_error(1, "state.episode-unreadable");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("does not have the shape of an episode id")),
            "{error}"
        );
    }
    assert_eq!(
        repo.ledger().len(),
        lines,
        "a line was stamped with the forged id"
    );
    assert!(!repo.ledger_text().contains("../../x"));
    // The printed fix works as printed: the file is set aside and a new episode opens.
    let run = repo.run(&["decision", "Stamped with what?"]);
    assert_eq!(run.code(), 1, "{run}");
    let fixes = crate::common::fix_lines(run.stderr());
    assert_eq!(fixes, ["majordomus session start --replace"]);
    repo.run_printed("majordomus session start --replace");
    let decided = repo
        .run(&["--format", "json", "decision", "Stamped now"])
        .success()
        .json();
    let open = repo.episode_id();
    assert_eq!(decided["session"], open.as_str());
    assert!(EPISODE_ID.is_match(&open) && open != episode);
}

#[test]
fn the_working_tree_is_listed_as_git_status_porcelain_lists_it() {
    let repo = TestRepo::initialised();
    repo.write(".gitignore", ".ai/local/\nbuild/\n");
    for name in [
        "modified.txt",
        "staged.txt",
        "deleted.txt",
        "renamed.txt",
        "both.txt",
    ] {
        repo.write(name, &format!("{name}\n"));
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Files to change"]);
    repo.start_episode();
    let context = |repo: &TestRepo| repo.run(&["session", "context"]).success();
    assert!(
        context(&repo).stdout().contains("- working tree: clean\n"),
        "{}",
        context(&repo)
    );
    repo.write("untracked.txt", "new\n");
    repo.write("modified.txt", "changed\n");
    repo.write("staged.txt", "changed\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("both.txt", "staged\n");
    repo.git(&["add", "both.txt"]);
    repo.write("both.txt", "and then changed\n");
    repo.git(&["rm", "-q", "deleted.txt"]);
    repo.git(&["mv", "renamed.txt", "moved.txt"]);
    repo.write("build/out.o", "ignored\n");
    repo.write("fresh/dir/file.txt", "untracked directory\n");
    let porcelain: Vec<String> = repo
        .git(&["status", "--porcelain"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(
        porcelain.iter().all(|l| !l.contains("build/")),
        "{porcelain:?}"
    );
    let text = context(&repo);
    let listed: Vec<String> = text
        .stdout()
        .lines()
        .skip_while(|l| !l.starts_with("- working tree:"))
        .skip(1)
        .take_while(|l| l.starts_with("  - "))
        .map(|l| l["  - ".len()..].to_owned())
        .collect();
    assert_eq!(listed, porcelain, "{text}");
    assert!(
        text.stdout().contains(&format!(
            "- working tree: dirty (uncommitted or untracked changes); `git status --porcelain` lists {}:",
            porcelain.len()
        )),
        "{text}"
    );
    // The memory's own files are listed as git lists them, and do not make the tree dirty.
    repo.git(&["reset", "-q", "--hard"]);
    repo.git(&["clean", "-qfd"]);
    repo.write(".ai/repo/sessions/notes.md", "a person's note\n");
    let text = context(&repo);
    assert!(
        text.stdout().contains(
            "- working tree: clean outside .ai/ (only files under .ai/ changed); `git status --porcelain` lists 1:\n  - ?? .ai/repo/sessions/notes.md (under .ai/: not counted as work)\n"
        ),
        "{text}"
    );
    let json = repo
        .run(&["--format", "json", "session", "context"])
        .success()
        .json();
    assert_eq!(json["git"]["dirty"], false);
    assert_eq!(
        json["git"]["working_tree"],
        serde_json::json!([{"code": "??", "path": ".ai/repo/sessions/notes.md"}])
    );
}

// --- which commits a record lists (SPEC §3.2, docs/SESSIONS.md) ---------------------------

/// Runs `git ARGS` in the work tree through majordomus's hooks when they are installed
/// (`MAJORDOMUS_BIN` names this build); panics unless git succeeds; stdout, trimmed.
fn git_hooked(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo
        .git_command_in(repo.root(), args)
        .env("MAJORDOMUS_BIN", crate::common::bin())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("spawn git");
    assert!(
        out.status.success(),
        "git {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Writes `path` and commits it through the hooks (when installed); the new commit's id.
fn commit_hooked(repo: &TestRepo, path: &str, contents: &str, message: &str) -> String {
    repo.write(path, contents);
    git_hooked(repo, &["add", "--", path]);
    git_hooked(repo, &["commit", "-q", "-m", message]);
    repo.head()
}

/// A repository whose trunk is `main` (an origin), with majordomus's git hooks installed
/// or not, working on branch `feature`.
fn on_a_feature_branch(hooks: bool) -> TestRepo {
    let repo = TestRepo::initialised();
    repo.add_origin();
    if hooks {
        repo.run(&["hooks", "install"]).success();
    }
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo
}

/// Someone else's commit of `path` on `branch` of the origin (made in a clone of their own,
/// where no hook of this clone runs), fetched here; its id.
fn pushed_by_someone_else(repo: &TestRepo, branch: &str, path: &str, contents: &str) -> String {
    let theirs = repo.base().join("theirs");
    if !theirs.exists() {
        repo.git_in(repo.base(), &["clone", "-q", "origin.git", "theirs"]);
    }
    repo.git_in(&theirs, &["fetch", "-q", "origin"]);
    repo.git_in(
        &theirs,
        &["checkout", "-q", "-B", branch, &format!("origin/{branch}")],
    );
    std::fs::write(theirs.join(path), contents).expect("write their file");
    repo.git_in(&theirs, &["add", "--", path]);
    repo.git_in(&theirs, &["commit", "-q", "-m", &format!("Their {path}")]);
    repo.git_in(&theirs, &["push", "-q", "origin", branch]);
    let id = repo.git_in(&theirs, &["rev-parse", "HEAD"]);
    repo.git(&["fetch", "-q", "origin"]);
    id
}

/// The record's `commits` and `changed_files`, as its front matter lists them.
#[track_caller]
fn listed(repo: &TestRepo, record: &str) -> (Vec<String>, Vec<String>) {
    let (_, front, _) = split_record(&repo.read(record));
    let strings = |key: &str| -> Vec<String> {
        front[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {front}"))
            .iter()
            .map(|v| v.as_str().expect("a string").to_owned())
            .collect()
    };
    (strings("commits"), strings("changed_files"))
}

fn record_of(episode: &str) -> String {
    format!(".ai/repo/sessions/{episode}.md")
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The episode commits `mine.txt`; the trunk gets someone else's commit meanwhile; the
/// episode rebases onto it. The record lists the rebased commit and nothing of the trunk's.
fn rebased_onto_a_moved_trunk(hooks: bool) {
    let mut repo = on_a_feature_branch(hooks);
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    let mine = commit_hooked(&repo, "mine.txt", "m\n", "My work");
    repo.now("2026-11-30T10:02:00Z");
    let theirs = pushed_by_someone_else(&repo, "main", "trunk.txt", "t\n");
    repo.now("2026-11-30T10:03:00Z");
    git_hooked(&repo, &["rebase", "-q", "origin/main"]);
    let rebased = repo.head();
    assert_ne!(rebased, mine, "the rebase rewrote the commit");
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]), theirs);
    if hooks {
        assert_eq!(repo.ledger_events("commit.recorded").len(), 1);
        assert_eq!(repo.ledger_events("commit.rewritten").len(), 1);
    }
    let closed = repo
        .run(&["--format", "json", "session", "close"])
        .success()
        .json();
    assert_eq!(
        listed(&repo, &record_of(&episode)),
        (strings(&[&rebased]), strings(&["mine.txt"])),
        "hooks: {hooks}"
    );
    let text = closed["text"].as_str().expect("text");
    assert!(!text.contains("Their trunk.txt"), "{text}");
    assert_has_line(
        text,
        "- not listed: 1 commit(s) since the HEAD at open that this episode did not make (a rebase moved it onto them, or a merge brought them in)",
    );
}

#[test]
fn a_rebase_onto_a_moved_trunk_lists_only_the_rebased_commit_with_hooks() {
    rebased_onto_a_moved_trunk(true);
}

#[test]
fn a_rebase_onto_a_moved_trunk_lists_only_the_rebased_commit_without_hooks() {
    rebased_onto_a_moved_trunk(false);
}

/// The branch changed `shared.txt` before the episode; during it the episode commits
/// `mine.txt` and the trunk gets someone else's `shared.txt` and `trunk.txt`; the episode
/// merges the trunk in and resolves the conflict. The record lists its commit and its
/// merge; the files are its own and the merge's resolution, never the trunk's.
fn trunk_merged_in(hooks: bool) {
    let mut repo = on_a_feature_branch(hooks);
    repo.commit("shared.txt", "ours\n", "Our shared file");
    repo.now("2026-11-30T10:01:00Z");
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:02:00Z");
    let mine = commit_hooked(&repo, "mine.txt", "m\n", "My work");
    repo.now("2026-11-30T10:03:00Z");
    pushed_by_someone_else(&repo, "main", "trunk.txt", "t\n");
    pushed_by_someone_else(&repo, "main", "shared.txt", "theirs\n");
    repo.now("2026-11-30T10:04:00Z");
    let merge = repo
        .git_command_in(repo.root(), &["merge", "-q", "--no-edit", "origin/main"])
        .env("MAJORDOMUS_BIN", crate::common::bin())
        .output()
        .expect("spawn git merge");
    assert!(!merge.status.success(), "the merge stops on the conflict");
    repo.write("shared.txt", "ours and theirs\n");
    git_hooked(&repo, &["add", "shared.txt"]);
    git_hooked(&repo, &["commit", "-q", "--no-edit"]);
    let merged = repo.head();
    assert_eq!(repo.git(&["rev-parse", "HEAD^1"]), mine);
    // With the hooks installed they ran: post-commit recorded this clone's two commits (the
    // work, and the merge's resolution git committed through the hooks) for the episode,
    // and none of the trunk's; without them, nothing did.
    let recorded: Vec<(String, String)> = repo
        .ledger_events_if_any("commit.recorded")
        .iter()
        .map(|l| {
            (
                l["session"].as_str().unwrap_or_default().to_owned(),
                l["data"]["sha"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = if hooks {
        vec![
            (episode.clone(), mine.clone()),
            (episode.clone(), merged.clone()),
        ]
    } else {
        Vec::new()
    };
    assert_eq!(recorded, expected, "hooks: {hooks}");
    repo.run(&["session", "close"]).success();
    assert_eq!(
        listed(&repo, &record_of(&episode)),
        (
            strings(&[&mine, &merged]),
            strings(&["mine.txt", "shared.txt"])
        ),
        "hooks: {hooks}"
    );
}

#[test]
fn a_trunk_merged_in_adds_only_the_merge_and_its_resolution_with_hooks() {
    trunk_merged_in(true);
}

#[test]
fn a_trunk_merged_in_adds_only_the_merge_and_its_resolution_without_hooks() {
    trunk_merged_in(false);
}

#[test]
fn a_clean_merge_of_the_trunk_names_none_of_its_files() {
    let mut repo = on_a_feature_branch(false);
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    let mine = commit_hooked(&repo, "mine.txt", "m\n", "My work");
    pushed_by_someone_else(&repo, "main", "trunk.txt", "t\n");
    repo.now("2026-11-30T10:02:00Z");
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "origin/main"]);
    let merged = repo.head();
    repo.run(&["session", "close"]).success();
    assert_eq!(
        listed(&repo, &record_of(&episode)),
        (strings(&[&mine, &merged]), strings(&["mine.txt"]))
    );
}

#[test]
fn a_cherry_pick_lists_the_new_commit_and_nothing_else_of_its_branch() {
    for hooks in [true, false] {
        let mut repo = on_a_feature_branch(hooks);
        repo.git(&["push", "-q", "origin", "main:topic"]);
        pushed_by_someone_else(&repo, "topic", "one.txt", "1\n");
        let two = pushed_by_someone_else(&repo, "topic", "two.txt", "2\n");
        repo.now("2026-11-30T10:01:00Z");
        let episode = repo.start_episode();
        repo.now("2026-11-30T10:02:00Z");
        git_hooked(&repo, &["cherry-pick", &two]);
        let picked = repo.head();
        assert_ne!(picked, two);
        if hooks {
            assert_eq!(repo.ledger_events("commit.recorded").len(), 1);
        }
        repo.run(&["session", "close"]).success();
        assert_eq!(
            listed(&repo, &record_of(&episode)),
            (strings(&[&picked]), strings(&["two.txt"])),
            "hooks: {hooks}"
        );
    }
}

#[test]
fn an_amended_commit_is_listed_once_as_amended() {
    for hooks in [true, false] {
        let mut repo = on_a_feature_branch(hooks);
        let episode = repo.start_episode();
        repo.now("2026-11-30T10:01:00Z");
        let first = commit_hooked(&repo, "mine.txt", "m\n", "My work");
        repo.now("2026-11-30T10:02:00Z");
        repo.write("more.txt", "more\n");
        git_hooked(&repo, &["add", "more.txt"]);
        git_hooked(
            &repo,
            &["commit", "-q", "--amend", "-m", "My work, amended"],
        );
        let amended = repo.head();
        assert_ne!(amended, first);
        if hooks {
            // post-commit saw both, post-rewrite the pair.
            assert_eq!(repo.ledger_events("commit.recorded").len(), 2);
            assert_eq!(repo.ledger_events("commit.rewritten").len(), 1);
        }
        repo.run(&["session", "close"]).success();
        assert_eq!(
            listed(&repo, &record_of(&episode)),
            (strings(&[&amended]), strings(&["mine.txt", "more.txt"])),
            "hooks: {hooks}"
        );
    }
}

#[test]
fn an_episode_on_the_trunk_lists_both_its_commits_even_once_pushed() {
    for hooks in [true, false] {
        let mut repo = TestRepo::initialised();
        repo.add_origin();
        if hooks {
            repo.run(&["hooks", "install"]).success();
        }
        let episode = repo.start_episode();
        repo.now("2026-11-30T10:01:00Z");
        let a = commit_hooked(&repo, "a.txt", "a\n", "First on the trunk");
        repo.now("2026-11-30T10:02:00Z");
        let b = commit_hooked(&repo, "b.txt", "b\n", "Second on the trunk");
        // Pushed: origin/main (the trunk, and main's upstream) holds both now.
        repo.git(&["push", "-q", "origin", "main"]);
        repo.run(&["session", "close"]).success();
        // On the trunk the record waits in the outbox.
        assert_eq!(
            listed(
                &repo,
                &format!(".ai/local/state/outbox/sessions/{episode}.md")
            ),
            (strings(&[&a, &b]), strings(&["a.txt", "b.txt"])),
            "hooks: {hooks}"
        );
    }
}

#[test]
fn a_teammates_commit_pulled_onto_the_trunk_is_not_the_episodes() {
    // With the hooks on, an episode on the trunk commits, pulls a teammate's commit (a
    // fast-forward after a rebase of its own onto it is not needed: it pulls first), and
    // commits again: its record lists its two commits, not the teammate's, whose file is
    // not among its changed files.
    let mut repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    let first = commit_hooked(&repo, "mine.txt", "m\n", "My first");
    repo.git(&["push", "-q", "origin", "main"]);
    repo.now("2026-11-30T10:02:00Z");
    let theirs = pushed_by_someone_else(&repo, "main", "theirs.txt", "t\n");
    git_hooked(&repo, &["merge", "-q", "--ff-only", "origin/main"]);
    assert_eq!(
        repo.head(),
        theirs,
        "a fast-forward onto the teammate's commit"
    );
    repo.now("2026-11-30T10:03:00Z");
    let second = commit_hooked(&repo, "mine2.txt", "m2\n", "My second");
    repo.run(&["session", "close"]).success();
    assert_eq!(
        listed(
            &repo,
            &format!(".ai/local/state/outbox/sessions/{episode}.md")
        ),
        (
            strings(&[&first, &second]),
            strings(&["mine.txt", "mine2.txt"])
        )
    );
}

#[test]
fn a_commit_the_hooks_did_not_see_on_the_branch_is_still_listed_once_pushed() {
    let mut repo = on_a_feature_branch(false);
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    let before = commit_hooked(&repo, "before.txt", "b\n", "Before the hooks");
    repo.run(&["hooks", "install"]).success();
    repo.now("2026-11-30T10:02:00Z");
    let after = commit_hooked(&repo, "after.txt", "a\n", "After the hooks");
    let recorded: Vec<String> = repo
        .ledger_events("commit.recorded")
        .iter()
        .map(|l| l["data"]["sha"].as_str().expect("sha").to_owned())
        .collect();
    assert_eq!(
        recorded,
        std::slice::from_ref(&after),
        "only the second was recorded"
    );
    // Published: the branch's upstream is its own copy on the origin, which holds both.
    repo.git(&["push", "-q", "-u", "origin", "feature"]);
    repo.run(&["session", "close"]).success();
    assert_eq!(
        listed(&repo, &record_of(&episode)),
        (
            strings(&[&before, &after]),
            strings(&["after.txt", "before.txt"])
        )
    );
}

// --- session recompose --------------------------------------------------------------------

#[test]
fn recompose_refuses_what_it_cannot_compose_and_each_fix_runs() {
    let repo = TestRepo::initialised();
    // Not an episode id.
    repo.run(&["--format", "json", "session", "recompose", "../x"])
        .json_error(3, "id.shape");
    // An id this ledger never saw.
    let error = repo
        .run(&[
            "--format",
            "json",
            "session",
            "recompose",
            "20261130T100000Z-abcdef",
        ])
        .json_error(3, "session.known-episode");
    repo.run_printed(error["fix"].as_str().expect("fix"));
    // Still open.
    let episode = repo.start_episode();
    repo.run(&["decision", "Recompose waits for the close"])
        .success();
    let error = repo
        .run(&["--format", "json", "session", "recompose", &episode])
        .json_error(3, "session.closed");
    assert_eq!(error["fix"], "majordomus session close");
    repo.run_printed(error["fix"].as_str().expect("fix"));
    repo.run(&["session", "recompose", &episode]).success();
    // Closed, and its record committed on another branch: not in this work tree.
    repo.git(&["checkout", "-q", "-b", "elsewhere"]);
    let elsewhere = repo.start_episode();
    repo.run(&["decision", "Recorded on another branch"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the episode"]);
    repo.git(&["checkout", "-q", "main"]);
    let error = repo
        .run(&["--format", "json", "session", "recompose", &elsewhere])
        .json_error(3, "session.record");
    let fix = error["fix"].as_str().expect("fix");
    assert_eq!(fix, "majordomus session list");
    let listing = repo.run_printed(fix);
    assert!(
        listing.contains(&format!("- {elsewhere}"))
            && listing.contains("record: not in this work tree"),
        "{listing}"
    );
}

#[test]
fn recompose_of_a_record_that_lists_its_own_commits_is_unchanged() {
    let mut repo = on_a_feature_branch(true);
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    commit_hooked(&repo, "mine.txt", "m\n", "My work");
    repo.run_with_stdin(&["session", "close"], "Did the work.")
        .success();
    let before = repo.read(&record_of(&episode));
    let run = repo
        .run(&["--format", "json", "session", "recompose", &episode])
        .success()
        .json();
    assert_eq!(run["write"], "unchanged", "{run}");
    assert_eq!(run["removed"], serde_json::json!([]));
    assert_eq!(run["boundaries"], "reflog");
    assert_eq!(repo.read(&record_of(&episode)), before);
}

#[test]
fn close_on_a_branch_ends_with_the_commit_that_shares_the_record_and_it_works() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "work"]);
    let episode = repo.start_episode();
    repo.run(&["decision", "Keep the parser strict"]).success();
    let run = repo.run(&["session", "close"]).success();
    let last = run.stdout().trim_end().lines().last().expect("a line");
    let next = last.strip_prefix("next: ").expect("a next: line last");
    assert_eq!(
        next,
        format!(
            "git add .ai/repo/sessions .ai/repo/knowledge/candidates && git commit -m \"majordomus: episode {episode}\""
        )
    );
    repo.run_printed(next);
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ai/repo"]), "");
    assert!(
        repo.git(&["show", "--stat", "--format=%s", "HEAD"])
            .contains(&format!(".ai/repo/sessions/{episode}.md")),
    );

    // On the trunk the record waits in the outbox: nothing to commit, no such line.
    repo.git(&["checkout", "-q", "main"]);
    repo.start_episode();
    repo.run(&["decision", "Keep the lexer small"]).success();
    let run = repo.run(&["session", "close"]).success();
    assert!(!run.stdout().contains("next: git add"), "{run}");
}
