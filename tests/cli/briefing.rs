//! The briefing's byte budgets (SPEC §5.6; issue "Step 17 of 19", item 3): whatever the
//! store holds, the briefing an agent client injects stays under what the clients cut
//! (8,000 bytes), and with nothing at hand it lists no record by recency and stays under
//! 2,048 bytes; every list it cuts says how many it left out and the command that lists
//! them, and every quoted text is whole or cut at a word with `…`.

use serde_json::{Value, json};

use crate::common::{TestRepo, knowledge_record, ledger_line};

const CURATED: &str = ".ai/repo/knowledge/curated";
const CANDIDATES: &str = ".ai/repo/knowledge/candidates";

/// A text of `words` words, none cut.
fn long_text(what: &str, words: usize) -> String {
    (0..words)
        .map(|i| format!("{what}{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The worst store the issue names: 10,000 verified records (each citing `src/hub.rs`, with
/// a long title), 50 open questions, 200 candidates no episode of this checkout derived
/// (listed as unassigned), and a handover with long next actions.
fn worst_store() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.commit("src/hub.rs", "pub fn hub() {}\n", "Add the hub");
    let curated = repo.root().join(CURATED);
    std::fs::create_dir_all(&curated).expect("curated/");
    let title = long_text("claimword", 60);
    for n in 0..10_000u32 {
        let id = format!("20261130T100000Z-0a0b0c-{n:012x}");
        let record = knowledge_record(&id, "verified", &["file:src/hub.rs"], "", &title).replace(
            "title: The ledger is append-only",
            &format!("title: Record {n} {title}"),
        );
        std::fs::write(curated.join(format!("{id}.md")), record).expect("a record");
    }
    let candidates = repo.root().join(CANDIDATES);
    std::fs::create_dir_all(&candidates).expect("candidates/");
    for n in 0..200u32 {
        let id = format!("20261129T100000Z-0d0e0f-{n:012x}");
        let record = knowledge_record(
            &id,
            "candidate",
            &["session:20261129T100000Z-0d0e0f"],
            "",
            &title,
        )
        .replace(
            "title: The ledger is append-only",
            &format!("title: Candidate {n} {title}"),
        );
        std::fs::write(candidates.join(format!("{id}.md")), record).expect("a candidate");
    }
    let mut lines = String::new();
    for n in 0..50u64 {
        lines.push_str(&ledger_line(
            n + 1,
            "2026-11-30T10:00:00Z",
            "question.asked",
            None,
            None,
            &json!({"id": format!("q-{n:010x}"), "text": format!("Question {n}: {}", long_text("why", 80))}),
        ));
    }
    repo.append_ledger(&lines);
    let handovers = repo.root().join(".ai/local/state/handovers");
    std::fs::create_dir_all(&handovers).expect("handovers/");
    std::fs::write(
        handovers.join("20261129T100000Z-0d0e0f.md"),
        format!(
            "# Handover\n\n## Next Action\n- {}\n- {}\n- {}\n",
            long_text("next", 300),
            long_text("then", 300),
            long_text("after", 300)
        ),
    )
    .expect("a handover");
    repo
}

/// Every `⟪…⟫` quote of `text` is whole or ends with `…` after a whole word.
fn quotes_whole_or_cut_at_a_word(text: &str) {
    for quote in text.split('⟪').skip(1) {
        let quote = quote.split('⟫').next().expect("a closed quote");
        // The legend's own `⟪…⟫`.
        if quote == "…" {
            continue;
        }
        if let Some(kept) = quote.strip_suffix('…') {
            assert!(
                !kept.ends_with(' ') && kept.split(' ').all(|w| !w.is_empty()),
                "cut inside a word: {quote}"
            );
        }
    }
}

#[test]
fn the_worst_store_briefs_within_8000_bytes_and_says_what_it_left_out() {
    let repo = worst_store();
    // Something at hand: the file every record cites is being edited.
    repo.write("src/hub.rs", "pub fn hub() { /* edited */ }\n");
    let json: Value = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert!(text.len() <= 8000, "{} bytes:\n{text}", text.len());
    assert!(
        text.contains("ranked by the work at hand: 1 uncommitted change(s)"),
        "{text}"
    );
    // Each list shows some and says how many more, with the command that lists them.
    let shown = json["knowledge"]["hits"].as_array().expect("hits").len();
    assert!(shown >= 1, "{text}");
    let command = json["knowledge"]["command"].as_str().expect("command");
    assert!(text.contains(&format!("more: `{command}`")), "{text}");
    assert!(text.contains("## Open questions (50)"), "{text}");
    assert!(
        text.contains("more: `majordomus history --event question.asked`"),
        "{text}"
    );
    assert!(
        text.contains("## Candidates awaiting review (200)"),
        "{text}"
    );
    assert!(
        text.contains("more unassigned (this checkout does not know their episodes): `majordomus knowledge candidates`"),
        "{text}"
    );
    quotes_whole_or_cut_at_a_word(text);
    // What the session-start hook hands the client is the same text, under what any client
    // cuts; and everything it names is logged as shown, nothing it left out.
    repo.start_episode();
    let run = repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        &json!({"session_id": "s1", "cwd": repo.root(), "hook_event_name": "SessionStart"})
            .to_string(),
    );
    // Claude Code adds a session-start hook's stdout to the model's context as it is.
    let context = run.success().stdout().to_owned();
    assert!(context.len() <= 8000, "{} bytes", context.len());
    let logged = repo.ledger_events("context.shown");
    let logged = logged.last().expect("the briefing's line");
    for record in logged["data"]["records"].as_array().expect("records") {
        let id = record["id"].as_str().expect("id");
        let id = id.split_once(':').expect("kind:id").1;
        assert!(
            context.contains(id),
            "{id} logged as shown but not in the context"
        );
    }
}

#[test]
fn with_nothing_at_hand_the_briefing_lists_no_record_by_recency_within_2048_bytes() {
    let repo = worst_store();
    let json: Value = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert_eq!(json["at_hand"], json!([]), "{text}");
    assert!(text.len() <= 2048, "{} bytes:\n{text}", text.len());
    assert_eq!(json["knowledge"]["hits"], json!([]), "{text}");
    // The practice, the questions, the review line, the counts and the command.
    assert!(text.starts_with("## How to work here\n"), "{text}");
    assert!(text.contains("## Open questions (50)"), "{text}");
    assert!(
        text.contains("## What the repository knows (10000)"),
        "{text}"
    );
    let command = json["knowledge"]["command"].as_str().expect("command");
    assert!(
        text.contains(&format!("`{command}` lists them, newest first")),
        "{text}"
    );
    assert!(
        text.contains("## Candidates awaiting review (200)"),
        "{text}"
    );
    assert!(
        text.contains("review: `majordomus knowledge candidates --branch main`"),
        "{text}"
    );
    quotes_whole_or_cut_at_a_word(text);
}

/// A decision of this branch not yet reviewed, and the candidate derived from it, are one
/// claim (SPEC §8): the briefing quotes it once, under the decisions, and counts the
/// candidate without naming it again; a long decision's candidate is titled whole or cut at
/// a word with `…`, never mid-word.
#[test]
fn a_decision_and_its_candidate_are_quoted_once() {
    let repo = TestRepo::initialised();
    repo.commit("src/merge.rs", "pub fn merge() {}\n", "Add the merger");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let long = "StringMerger in src/merge.rs never emits a merged string longer than the line limit that StringSplitter cannot split again; merge only when the result is splittable";
    repo.run(&["session", "start"]).success();
    repo.run(&["decision", long, "--file", "src/merge.rs"])
        .success();
    repo.run(&[
        "decision",
        "Merged strings keep their quotes",
        "--file",
        "src/merge.rs",
    ])
    .success();
    repo.run(&["session", "close"]).success();
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let ids: Vec<String> = listing["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{listing}");
    let title = listing["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find_map(|c| {
            c["title"]
                .as_str()
                .filter(|t| t.starts_with("StringMerger"))
        })
        .expect("the long decision's candidate")
        .to_owned();
    assert_eq!(title, long, "a title of 164 bytes is whole");
    repo.run(&["session", "start"]).success();
    let text = repo.run(&["briefing"]).success().stdout().to_owned();
    for id in &ids {
        assert_eq!(text.matches(id.as_str()).count(), 1, "{id} twice:\n{text}");
    }
    assert!(
        text.contains("(2 of them: the decisions above, not repeated)"),
        "{text}"
    );
    assert_eq!(
        text.matches("StringSplitter cannot split again").count(),
        1,
        "{text}"
    );
}
