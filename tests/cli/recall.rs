//! Recall (SPEC §11): the search and its ranking (terms, paths, links, status, recency),
//! the reader where agents look (the briefing, `hook session-start`, `task start`,
//! `session context`, near duplicates), `show`, the index (derived, incremental, rebuilt
//! when corrupt, never loaded by the post-commit hook), the same hits on every surface,
//! and every refusal with a fix that works.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{TestRepo, knowledge_record};
use crate::http::Served;
use crate::mcp::Mcp;

const CANDIDATES: &str = ".ai/repo/knowledge/candidates";
const CURATED: &str = ".ai/repo/knowledge/curated";
const INDEX: &str = ".ai/local/state/recall.sqlite";

/// One episode: opened, `decision` recorded, `files` committed, closed (which derives its
/// candidates). Returns the episode id and the id of the decision's candidate.
fn episode(repo: &TestRepo, decision: &str, files: &[(&str, &str)]) -> (String, String) {
    let episode = repo.start_episode();
    repo.run(&["decision", decision]).success();
    for (path, contents) in files {
        repo.commit(path, contents, &format!("Change {path}"));
    }
    repo.run(&["session", "close"]).success();
    let id = candidate_titled(repo, &episode, decision);
    (episode, id)
}

/// The candidate of `episode` whose title is `title`.
fn candidate_titled(repo: &TestRepo, episode: &str, title: &str) -> String {
    for dir in [CANDIDATES, ".ai/local/state/outbox/candidates"] {
        for id in repo.record_ids(dir) {
            if id.starts_with(episode)
                && repo
                    .read(&format!("{dir}/{id}.md"))
                    .contains(&format!("title: {title}\n"))
            {
                return id;
            }
        }
    }
    panic!("no candidate of {episode} titled {title}")
}

fn promote(repo: &TestRepo, id: &str) {
    repo.run_with_stdin(
        &["knowledge", "promote", id],
        "tests/recall.rs exercises it end to end",
    )
    .success();
}

/// The hits of `majordomus recall ARGS --format json`, as `(kind, id, status)`.
fn hits(repo: &TestRepo, args: &[&str]) -> Vec<(String, String, String)> {
    hits_in(repo, repo.root(), args)
}

fn hits_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Vec<(String, String, String)> {
    let mut all = vec!["recall", "--format", "json"];
    all.extend_from_slice(args);
    let run = repo.run_in(dir, &all).success();
    triples(&run.json()["hits"])
}

fn triples(hits: &Value) -> Vec<(String, String, String)> {
    hits.as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            (
                h["kind"].as_str().expect("kind").to_owned(),
                h["id"].as_str().expect("id").to_owned(),
                h["status"].as_str().expect("status").to_owned(),
            )
        })
        .collect()
}

fn ids(hits: &[(String, String, String)]) -> Vec<&str> {
    hits.iter().map(|(_, id, _)| id.as_str()).collect()
}

/// Three episodes in three areas, each decision promoted: the parser, the ledger, the
/// docs. Returns the three knowledge ids in that order.
fn three_areas(repo: &mut TestRepo) -> [String; 3] {
    repo.now("2026-11-27T10:00:00Z");
    let (_, parser) = episode(
        repo,
        "The parser reports errors with line and column",
        &[
            ("src/parser/mod.rs", "pub fn parse() {}\n"),
            ("src/parser/error.rs", "pub struct Error;\n"),
        ],
    );
    repo.now("2026-11-28T10:00:00Z");
    let (_, ledger) = episode(
        repo,
        "Ledger appends take the file lock, one write per line",
        &[("src/store/ledger.rs", "pub fn append() {}\n")],
    );
    repo.now("2026-11-29T10:00:00Z");
    let (_, docs) = episode(
        repo,
        "User docs are written for a newcomer",
        &[("docs/GUIDE.md", "# Guide\n")],
    );
    for id in [&parser, &ledger, &docs] {
        promote(repo, id);
    }
    repo.now("2026-11-30T10:00:00Z");
    [parser, ledger, docs]
}

#[test]
fn recall_finds_a_decision_by_its_words_and_says_why_and_how_to_read_it() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    let run = repo.run(&["recall", "ledger lock"]).success();
    insta::assert_snapshot!("recall_words", repo.redact(run.stdout()));
    let json = repo
        .run(&["recall", "ledger lock", "--format", "json"])
        .success()
        .json();
    let first = &json["hits"][0];
    assert_eq!(first["id"], ledger.as_str());
    assert_eq!(first["kind"], "knowledge");
    assert_eq!(first["status"], "verified");
    assert_eq!(first["branch"], "main");
    assert_eq!(first["why"][0]["signal"], "terms");
    assert_eq!(first["why"][0]["detail"], "ledger, lock");
    assert_eq!(
        first["read"]["command"],
        format!("majordomus show knowledge:{ledger}").as_str()
    );
    assert_eq!(
        first["read"]["uri"],
        format!("majordomus://knowledge/{ledger}").as_str()
    );
    // The command a hit names reads it whole.
    let shown = repo
        .run(&["show", &format!("knowledge:{ledger}")])
        .success();
    assert!(
        shown.stdout().contains("Ledger appends take the file lock"),
        "{shown}"
    );
    assert!(shown.stdout().contains("# Evidence"), "{shown}");
}

#[test]
fn a_path_ranks_its_area_first_and_an_exact_path_beats_a_directory() {
    let mut repo = TestRepo::initialised();
    let [parser, ledger, docs] = three_areas(&mut repo);
    let found = hits(
        &repo,
        &["--path", "src/store/ledger.rs", "--kind", "knowledge"],
    );
    assert_eq!(ids(&found), [ledger.as_str()], "{found:?}");
    // A directory reaches both source areas, the docs not at all.
    let found = hits(&repo, &["--path", "src", "--kind", "knowledge"]);
    let found = ids(&found);
    assert!(found.contains(&parser.as_str()) && found.contains(&ledger.as_str()));
    assert!(!found.contains(&docs.as_str()), "{found:?}");
    // A file beside one the parser episode changed reaches it, below the exact file.
    let found = hits(
        &repo,
        &[
            "--path",
            "src/parser/lexer.rs",
            "--path",
            "src/store/ledger.rs",
            "--kind",
            "knowledge",
        ],
    );
    assert_eq!(ids(&found), [ledger.as_str(), parser.as_str()], "{found:?}");
    let json = repo
        .run(&[
            "recall",
            "--path",
            "src/parser/lexer.rs",
            "--format",
            "json",
        ])
        .success()
        .json();
    let why = json["hits"][0]["why"][0]["detail"].as_str().expect("why");
    assert!(
        why.starts_with("near src/parser/lexer.rs (its episode changed src/parser/"),
        "{why}"
    );
    // A record citing the directory itself, against the record whose episode changed the
    // very file: asked about the file, the file's record leads; asked about the
    // directory, the directory's record leads. An exact path always beats its directory.
    let directory = curated_citing(&repo, 1, "src/store", "The store keeps one file a kind");
    let found = hits(
        &repo,
        &["--path", "src/store/ledger.rs", "--kind", "knowledge"],
    );
    assert_eq!(
        ids(&found),
        [ledger.as_str(), directory.as_str()],
        "{found:?}"
    );
    let found = hits(&repo, &["--path", "src/store", "--kind", "knowledge"]);
    assert_eq!(
        ids(&found),
        [directory.as_str(), ledger.as_str()],
        "{found:?}"
    );
}

#[test]
fn a_path_typed_in_a_subdirectory_is_taken_from_there() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    let sub = repo.path("src/store");
    let found = hits_in(&repo, &sub, &["--path", "ledger.rs", "--kind", "knowledge"]);
    assert_eq!(ids(&found), [ledger.as_str()]);
}

#[test]
fn superseded_is_hidden_unless_all_and_never_above_its_replacement() {
    let repo = TestRepo::initialised();
    let (_, old) = episode(
        &repo,
        "Parse the policy with serde_yaml",
        &[("src/policy.rs", "// v1\n")],
    );
    let (_, new) = episode(
        &repo,
        "Parse the policy with yaml_serde, the maintained fork",
        &[("src/policy.rs", "// v2\n")],
    );
    repo.run(&[
        "knowledge",
        "reject",
        &old,
        "--reason",
        "serde_yaml is unmaintained",
        "--by",
        &new,
    ])
    .success();
    // The old record matches the query better ("serde_yaml" is only its word) ...
    let found = hits(&repo, &["serde_yaml policy"]);
    assert!(!ids(&found).contains(&old.as_str()), "{found:?}");
    // ... and with --all it is shown, below the record that replaced it, and names it.
    let json = repo
        .run(&["recall", "serde_yaml policy", "--all", "--format", "json"])
        .success()
        .json();
    let order: Vec<&str> = json["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|h| h["kind"] == "knowledge")
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    let (at_new, at_old) = (
        order
            .iter()
            .position(|i| *i == new)
            .expect("the replacement"),
        order
            .iter()
            .position(|i| *i == old)
            .expect("the superseded record"),
    );
    assert!(at_new < at_old, "{order:?}");
    let superseded = json["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .find(|h| h["id"] == old.as_str())
        .expect("old");
    assert_eq!(superseded["status"], "superseded");
    assert_eq!(superseded["superseded_by"], new.as_str());
}

/// A curated record citing `file`, committed with the file.
pub(crate) fn curated_citing(repo: &TestRepo, n: u32, file: &str, title: &str) -> String {
    let id = format!("20261130T100000Z-0a0b0c-{n:012x}");
    let record = knowledge_record(&id, "verified", &[&format!("file:{file}")], "", "A claim.")
        .replace(
            "title: The ledger is append-only",
            &format!("title: {title}"),
        );
    repo.write(&format!("{CURATED}/{id}.md"), &record);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Verify {id}")]);
    id
}

#[test]
fn a_stale_record_ranks_below_its_fresh_peer_and_is_marked() {
    let repo = TestRepo::initialised();
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.commit("src/b.rs", "b\n", "Add b");
    let a = curated_citing(&repo, 1, "src/a.rs", "Retries back off exponentially");
    let b = curated_citing(&repo, 2, "src/b.rs", "Retries back off exponentially");
    // Equal otherwise (one day, no promotion time), the greater id decides: b first.
    let found = hits(&repo, &["retries"]);
    assert_eq!(ids(&found), [b.as_str(), a.as_str()]);
    // src/b.rs changes after b was verified: b is stale, below a, and says why.
    repo.commit("src/b.rs", "b changed\n", "Change b");
    let json = repo
        .run(&["recall", "retries", "--format", "json"])
        .success()
        .json();
    let found = triples(&json["hits"]);
    assert_eq!(
        found,
        [
            ("knowledge".to_owned(), a.clone(), "verified".to_owned()),
            ("knowledge".to_owned(), b.clone(), "stale".to_owned())
        ]
    );
    let why: Vec<&str> = json["hits"][1]["why"]
        .as_array()
        .expect("why")
        .iter()
        .map(|r| r["detail"].as_str().expect("detail"))
        .collect();
    assert!(
        why.iter()
            .any(|w| w.starts_with("stale: src/b.rs changed since it was verified in ")),
        "{why:?}"
    );
    // Only the stale ones, and only the fresh ones.
    assert_eq!(
        ids(&hits(&repo, &["retries", "--status", "stale"])),
        [b.as_str()]
    );
    assert_eq!(
        ids(&hits(&repo, &["retries", "--status", "verified"])),
        [a.as_str()]
    );
}

#[test]
fn two_copies_of_one_store_give_the_same_order_whatever_built_their_index() {
    let mut repo = TestRepo::initialised();
    // This copy's index is built piece by piece: a recall after every step.
    repo.now("2026-11-27T10:00:00Z");
    let (_, first) = episode(
        &repo,
        "Hooks never block a provider",
        &[("src/hooks.rs", "x\n")],
    );
    repo.run(&["recall", "hooks"]).success();
    repo.now("2026-11-28T10:00:00Z");
    let (_, second) = episode(&repo, "Hooks record commits", &[("src/hooks.rs", "y\n")]);
    repo.run(&["recall", "hooks"]).success();
    promote(&repo, &first);
    repo.run(&["recall", "hooks"]).success();
    repo.run(&[
        "knowledge",
        "reject",
        &second,
        "--reason",
        "covered by the first",
    ])
    .success();
    repo.run(&["recall", "hooks", "--path", "src/hooks.rs"])
        .success();
    // The copy's index is removed: it is built in one go from the same store.
    let copy = repo.copy();
    std::fs::remove_file(copy.path(INDEX)).expect("remove the copy's index");
    for args in [
        vec!["hooks"],
        vec!["hooks", "--all"],
        vec!["--path", "src/hooks.rs", "--all"],
        vec![],
        vec![
            "record commits provider",
            "--kind",
            "decision",
            "--kind",
            "knowledge",
        ],
    ] {
        let mut all = vec!["recall", "--format", "json"];
        all.extend(args.iter().copied());
        let here = repo.run(&all).success().json();
        let there = copy.run(&all).success().json();
        assert_eq!(here["hits"], there["hits"], "{args:?}");
        assert_eq!(here["total"], there["total"], "{args:?}");
    }
}

#[test]
fn a_fresh_clone_without_a_ledger_recalls_by_path() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory"]);
    repo.git_in(repo.base(), &["clone", "-q", "repo", "clone"]);
    let clone = repo.base().join("clone");
    assert!(!clone.join(".ai/local/ledger.jsonl").exists());
    let found = hits_in(
        &repo,
        &clone,
        &["--path", "src/store/ledger.rs", "--kind", "knowledge"],
    );
    assert_eq!(ids(&found), [ledger.as_str()], "{found:?}");
    // The episode's branch comes from its session record.
    let json = repo
        .run_in(
            &clone,
            &[
                "recall",
                "--path",
                "src/store/ledger.rs",
                "--format",
                "json",
            ],
        )
        .success()
        .json();
    assert_eq!(json["hits"][0]["branch"], "main");
}

#[test]
fn cli_mcp_and_http_return_the_same_hits() {
    let mut repo = TestRepo::initialised();
    three_areas(&mut repo);
    let cli = repo
        .run(&[
            "recall",
            "parser errors",
            "--path",
            "src/parser",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert!(!cli["hits"].as_array().expect("hits").is_empty());

    let mut mcp = Mcp::start(&repo);
    let result = mcp.call(
        "majordomus_recall",
        json!({"query": "parser errors", "path": ["src/parser"]}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["hits"], cli["hits"]);
    // A hit's URI reads it whole.
    let uri = cli["hits"][0]["read"]["uri"]
        .as_str()
        .expect("uri")
        .to_owned();
    let read = mcp.request("resources/read", json!({ "uri": uri }));
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("The parser reports errors"), "{read}");
    let templates = mcp.request("resources/templates/list", json!({}));
    let listed: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .expect("templates")
        .iter()
        .map(|t| t["uriTemplate"].as_str().expect("uriTemplate"))
        .collect();
    assert!(
        listed.contains(&"majordomus://knowledge/{id}"),
        "{listed:?}"
    );
    assert!(listed.contains(&"majordomus://decision/{id}"), "{listed:?}");
    // An unknown record is an unknown resource.
    let missing = mcp.request(
        "resources/read",
        json!({"uri": "majordomus://knowledge/20261130T100000Z-0a0b0c-000000000000"}),
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    mcp.close();

    let served = Served::start(&repo);
    let answer = served.get("/api/v1/recall?query=parser%20errors&path=src/parser");
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.json()["hits"], cli["hits"]);
    let first = cli["hits"][0]["kind"].as_str().expect("kind").to_owned()
        + ":"
        + cli["hits"][0]["id"].as_str().expect("id");
    let shown = served.get(&format!("/api/v1/recall/show?reference={first}"));
    assert_eq!(shown.status(), 200);
    // The cockpit's search page shows the same first hit.
    let page = served.get("/cockpit/recall?q=parser+errors&path=src/parser");
    assert_eq!(page.status(), 200);
    let html = String::from_utf8_lossy(&page.body).into_owned();
    assert!(
        html.contains(cli["hits"][0]["id"].as_str().expect("id")),
        "{html}"
    );
}

#[test]
fn a_corrupt_index_is_rebuilt_and_said_and_the_answer_is_the_same() {
    let mut repo = TestRepo::initialised();
    three_areas(&mut repo);
    let before = repo
        .run(&["recall", "ledger", "--format", "json"])
        .success()
        .json();
    std::fs::write(repo.path(INDEX), b"this is not a database, not even close").expect("corrupt");
    let run = repo.run(&["recall", "ledger"]).success();
    assert!(
        run.stderr().contains("the recall index could not be read"),
        "{run}"
    );
    assert!(run.stderr().contains("rebuilt"), "{run}");
    let after = repo
        .run(&["recall", "ledger", "--format", "json"])
        .success()
        .json();
    assert_eq!(before["hits"], after["hits"]);
    // A missing index is built, and said.
    std::fs::remove_file(repo.path(INDEX)).expect("remove");
    let run = repo.run(&["recall", "ledger"]).success();
    assert!(run.stderr().contains("built the recall index"), "{run}");
    // One that cannot be written is built in memory for the read; the read still answers.
    std::fs::remove_file(repo.path(INDEX)).expect("remove");
    std::fs::create_dir_all(repo.path(INDEX)).expect("a directory in its place");
    let run = repo
        .run(&["recall", "ledger", "--format", "json"])
        .success();
    assert_eq!(run.json()["hits"], before["hits"]);
    assert!(
        run.json()["index_rebuilt"]
            .as_str()
            .is_some_and(|s| s.contains("in memory")),
        "{run}"
    );
}

/// Damages the full-text segments of the index in place (what opening and an update
/// never read; only a search does).
fn damage_full_text(repo: &TestRepo) {
    let conn = rusqlite::Connection::open(repo.path(INDEX)).expect("open the index");
    let damaged = conn
        .execute("UPDATE fts_data SET block = x'0000ffff' WHERE id > 10", [])
        .expect("damage");
    assert!(damaged > 0, "the index has full-text segments to damage");
}

#[test]
fn an_index_that_fails_during_a_search_is_rebuilt_and_the_search_answers() {
    let mut repo = TestRepo::initialised();
    three_areas(&mut repo);
    let before = repo
        .run(&["recall", "ledger", "--format", "json"])
        .success()
        .json();
    assert!(before.get("index_rebuilt").is_none(), "{before}");

    damage_full_text(&repo);
    let run = repo
        .run(&["recall", "ledger", "--format", "json"])
        .success();
    let after = run.json();
    assert_eq!(before["hits"], after["hits"]);
    assert!(
        after["index_rebuilt"]
            .as_str()
            .is_some_and(|s| s.contains("could not be read") && s.ends_with("rebuilt")),
        "{after}"
    );
    // Said on stderr in the human form; the next read finds a sound index.
    damage_full_text(&repo);
    let run = repo.run(&["recall", "ledger"]).success();
    assert!(
        run.stderr().contains("the recall index could not be read"),
        "{run}"
    );
    let quiet = repo.run(&["recall", "ledger"]).success();
    assert!(quiet.stderr().is_empty(), "{quiet}");

    // The briefing (what the session-start hook injects) reads through the same path and
    // answers whatever its reads touch.
    damage_full_text(&repo);
    let briefing = repo.run(&["--format", "json", "briefing"]).success().json();
    assert_eq!(briefing["knowledge"]["total"], 3, "{briefing}");
}

#[test]
fn query_text_is_terms_never_syntax() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, docs] = three_areas(&mut repo);
    let none: Option<&str> = None;
    // Each query's terms as searched, and its first knowledge hit: syntax is split away or
    // searched for as words; a query with no words lists the most recently verified.
    for (query, terms, first) in [
        ("\"ledger", json!(["ledger"]), Some(ledger.as_str())),
        (
            "ledger AND lock",
            json!(["ledger", "and", "lock"]),
            Some(&ledger),
        ),
        ("ledg*", json!(["ledg"]), none),
        ("title:ledger", json!(["title", "ledger"]), Some(&ledger)),
        ("ledger^2", json!(["ledger"]), Some(&ledger)),
        ("ledger~", json!(["ledger"]), Some(&ledger)),
        ("ledger\tlock", json!(["ledger", "lock"]), Some(&ledger)),
        (
            "NEAR(ledger lock)",
            json!(["near", "ledger", "lock"]),
            Some(&ledger),
        ),
        ("-ledger", json!(["ledger"]), Some(&ledger)),
        ("' OR 1=1 --", json!(["or"]), none),
        ("*", json!([]), Some(&docs)),
        ("\"\"\"", json!([]), Some(&docs)),
        ("((((", json!([]), Some(&docs)),
        (
            "ledger\u{7}\u{1b}[31m",
            json!(["ledger", "31m"]),
            Some(&ledger),
        ),
    ] {
        // After `--` a query that starts with a dash is a query, as for every command.
        let run = repo.run(&[
            "recall",
            "--kind",
            "knowledge",
            "--format",
            "json",
            "--",
            query,
        ]);
        assert_eq!(run.code(), 0, "{query:?}: {run}");
        let json = run.json();
        assert_eq!(json["terms"], terms, "{query:?}");
        let found = triples(&json["hits"]);
        assert_eq!(
            found.first().map(|(_, id, _)| id.as_str()),
            first,
            "{query:?}: {found:?}"
        );
    }
    // The words of a query are searched for: "AND" is a word like any other (the parser's
    // record says "line and column"), below the record holding all three.
    let json = repo
        .run(&[
            "recall",
            "ledger AND lock",
            "--kind",
            "knowledge",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert_eq!(json["terms"], json!(["ledger", "and", "lock"]));
    let found = triples(&json["hits"]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        json["hits"][0]["line"]
            .as_str()
            .is_some_and(|l| l.starts_with("Ledger appends")),
        "{json}"
    );
    // 64 KiB of text answers; one byte more is refused by the input limit.
    let long: String = "ledger lock appends ".repeat(64 * 1024 / 20 + 1);
    let long = &long[..64 * 1024];
    let run = repo.run(&["recall", long, "--format", "json"]).success();
    assert!(run.json()["terms_left_out"].as_u64().is_some());
    let over = format!("{long}x");
    repo.run(&["recall", &over, "--format", "json"])
        .json_error(3, "input.size");
}

#[test]
fn every_refusal_names_its_rule_and_a_fix_that_works_as_printed() {
    let mut repo = TestRepo::initialised();
    three_areas(&mut repo);
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["recall", "ledger", "--task", "t-20261130-ffff"],
            3,
            "task.known",
        ),
        (&["recall", "ledger", "--task", "../x"], 3, "id.shape"),
        (
            &["recall", "ledger", "--issue", "no-such-issue"],
            3,
            "recall.issue",
        ),
        (
            &["recall", "ledger", "--path", "../outside.rs"],
            3,
            "recall.path",
        ),
        (&["recall", "ledger", "--limit", "0"], 2, "recall.limit"),
    ];
    for (args, code, rule) in cases {
        let mut json_args = args.to_vec();
        json_args.extend(["--format", "json"]);
        let error = repo.run(&json_args).json_error(code, rule);
        let fix = error["fix"].as_str().expect("a fix").to_owned();
        if fix.starts_with("majordomus ") {
            let out = repo.sh_in(repo.root(), &fix);
            assert!(out.status.success(), "{rule}: `{fix}` fails: {out:?}");
        }
    }
    // An absolute path outside the repository, too.
    repo.run(&["recall", "--path", "/etc/passwd", "--format", "json"])
        .json_error(3, "recall.path");
    repo.run(&["recall", "--kind", "bogus"]).expect_code(2);
    repo.run(&["show", "knowledge:nope", "--format", "json"])
        .json_error(3, "recall.known");
    repo.run(&["show", "nonsense", "--format", "json"])
        .json_error(3, "recall.known");
}

#[test]
fn with_nothing_given_the_most_recently_verified_knowledge_is_listed() {
    let mut repo = TestRepo::initialised();
    let [parser, ledger, docs] = three_areas(&mut repo);
    let found = hits(&repo, &[]);
    assert_eq!(
        ids(&found),
        [docs.as_str(), ledger.as_str(), parser.as_str()]
    );
    assert!(
        found
            .iter()
            .all(|(k, _, s)| k == "knowledge" && s == "verified")
    );
    let run = repo.run(&["recall", "--limit", "2"]).success();
    assert!(
        run.stdout().contains("1 more: majordomus recall --limit 3"),
        "{run}"
    );
}

/// An origin whose default branch is `main`, then `feature` checked out.
fn on_a_branch(repo: &TestRepo) {
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "feature"]);
}

#[test]
fn the_briefing_ranks_the_branchs_area_first_and_names_its_cut_with_a_working_command() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, docs] = three_areas(&mut repo);
    // Many verified records that do compete: each cites a file beside the one the branch
    // changes (src/store/), so the budget cannot show them all; and records about the
    // docs, which are not relevant to this branch at all.
    repo.commit("src/store/index.rs", "pub fn index() {}\n", "Add the index");
    for n in 0..12 {
        curated_citing(
            &repo,
            100 + n,
            "src/store/index.rs",
            &format!("Index rule {n}"),
        );
        curated_citing(&repo, 200 + n, "docs/GUIDE.md", &format!("Guide rule {n}"));
    }
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory", "--allow-empty"]);
    on_a_branch(&repo);
    repo.commit(
        "src/store/ledger.rs",
        "pub fn append_fast() {}\n",
        "Faster appends",
    );
    repo.write_policy("session:\n  briefing_budget_lines: 20\n");
    let run = repo.run(&["briefing", "--format", "json"]).success();
    let json = run.json();
    let text = json["text"].as_str().expect("text");
    assert!(text.lines().count() <= 20, "{text}");
    // The record about the very file the branch changed leads.
    assert_eq!(
        json["knowledge"]["hits"][0]["id"],
        ledger.as_str(),
        "{text}"
    );
    assert!(
        text.contains("ranked by the work at hand: 1 file(s) of feature's own 1 commit(s)"),
        "{text}"
    );
    // The twelve records beside it and the ledger's are what is relevant (13); the docs
    // are not, and the cut says how many it left out, with the command that lists them.
    let total = json["knowledge"]["total"].as_u64().expect("total");
    assert_eq!(total, 13, "{text}");
    assert_eq!(json["knowledge"]["total_exact"], true);
    let shown = json["knowledge"]["hits"].as_array().expect("hits").len() as u64;
    assert!((1..total).contains(&shown), "the budget cuts: {text}");
    let command = json["knowledge"]["command"].as_str().expect("command");
    assert!(
        text.contains(&format!("- ... {} more: `{command}`", total - shown)),
        "{text}"
    );
    let out = repo.sh_in(repo.root(), &format!("{command} --format json"));
    assert!(out.status.success(), "{command}: {out:?}");
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let listed = ids(&triples(&listed["hits"]))
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    assert_eq!(listed.len() as u64, total);
    assert_eq!(listed[0], ledger);
    assert!(!listed.contains(&docs), "{listed:?}");
    let briefed: Vec<&str> = json["knowledge"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        &listed[..briefed.len()],
        briefed.as_slice(),
        "the same order"
    );
}

#[test]
fn the_briefing_cuts_say_how_many_and_the_command_lists_exactly_them() {
    let repo = TestRepo::initialised();
    for n in 0..30 {
        curated_citing(&repo, n, "src/a.rs", &format!("Rule {n} of module a"));
    }
    repo.write_policy("session:\n  briefing_budget_lines: 20\n");
    // The work at hand: an uncommitted edit of the file all 30 cite.
    repo.write("src/a.rs", "pub fn a() {}\n");
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert!(text.lines().count() <= 20, "{text}");
    let shown = json["knowledge"]["hits"].as_array().expect("hits").len();
    assert!((1..30).contains(&shown), "{text}");
    let command = json["knowledge"]["command"].as_str().expect("command");
    assert!(
        text.contains(&format!("- ... {} more: `{command}`", 30 - shown)),
        "{text}"
    );
    let out = repo.sh_in(repo.root(), &format!("{command} --format json"));
    assert!(out.status.success(), "{out:?}");
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let listed: Vec<&str> = listed["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    assert_eq!(listed.len(), 30);
    let briefed: Vec<&str> = json["knowledge"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    assert_eq!(&listed[..shown], briefed.as_slice(), "the same order");
}

#[test]
fn the_session_start_hook_gives_the_model_the_areas_knowledge_first() {
    let mut repo = TestRepo::initialised();
    let [parser, _, _] = three_areas(&mut repo);
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory", "--allow-empty"]);
    on_a_branch(&repo);
    repo.commit(
        "src/parser/mod.rs",
        "pub fn parse_fast() {}\n",
        "Faster parsing",
    );
    let payload =
        json!({"session_id": "s1", "hook_event_name": "SessionStart", "cwd": repo.root()});
    let run = repo
        .run_with_stdin(
            &["hook", "session-start", "--provider", "example-agent"],
            &payload.to_string(),
        )
        .success();
    let text = run.stdout();
    let section = text
        .split("## What the repository knows")
        .nth(1)
        .unwrap_or_else(|| panic!("no section:\n{text}"));
    let first = section
        .lines()
        .find(|l| l.starts_with("- ["))
        .unwrap_or_else(|| panic!("no record:\n{text}"));
    assert!(first.contains("The parser reports errors"), "{text}");
    assert!(first.contains(&parser), "{text}");
}

#[test]
fn task_start_returns_what_the_repository_knows_about_its_scope() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    repo.start_episode();
    let json = repo
        .run(&[
            "task",
            "start",
            "Batch appends",
            "--scope",
            "src/store/",
            "--format",
            "json",
        ])
        .success()
        .json();
    let hits = triples(&json["knowledge"]["hits"]);
    assert_eq!(ids(&hits)[0], ledger.as_str(), "{json}");
    let text = repo.run(&["task", "finish"]).success();
    drop(text);
    let run = repo
        .run(&[
            "task",
            "start",
            "More batching",
            "--scope",
            "src/store/ledger.rs",
        ])
        .success();
    assert!(
        run.stdout()
            .contains("What the repository knows about this task (1)"),
        "{run}"
    );
    assert!(
        run.stdout().contains("Ledger appends take the file lock"),
        "{run}"
    );
}

#[test]
fn session_context_shows_what_the_repository_knows_about_the_files_changed() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    repo.start_episode();
    repo.commit(
        "src/store/ledger.rs",
        "pub fn append2() {}\n",
        "Append again",
    );
    let json = repo
        .run(&["session", "context", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        json["knowledge"]["hits"][0]["id"],
        ledger.as_str(),
        "{json}"
    );
    let text = json["text"].as_str().expect("text");
    assert!(
        text.contains("## What the repository knows about these files (1)"),
        "{text}"
    );
}

#[test]
fn a_decision_or_question_names_the_record_it_nearly_repeats() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    repo.start_episode();
    let run = repo
        .run(&[
            "decision",
            "Ledger appends take the file lock, one write a line",
        ])
        .success();
    assert!(
        run.stderr().contains(&format!(
            "note: this nearly repeats verified knowledge {ledger}"
        )),
        "{run}"
    );
    let json = repo
        .run(&[
            "decision",
            "Ledger appends take the file lock",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert_eq!(json["near_duplicates"][0]["id"], ledger.as_str());
    // Something else is no near duplicate.
    let json = repo
        .run(&[
            "decision",
            "The cockpit needs no JavaScript",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert!(json.get("near_duplicates").is_none(), "{json}");
    // A question already open is named; the question itself is not its own duplicate.
    let first = repo
        .run(&[
            "question",
            "Should the index live under state?",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert!(first.get("near_duplicates").is_none(), "{first}");
    let again = repo
        .run(&[
            "question",
            "Should the index live under state",
            "--format",
            "json",
        ])
        .success()
        .json();
    assert_eq!(again["near_duplicates"][0]["id"], first["id"]);
    assert_eq!(again["near_duplicates"][0]["kind"], "question");
}

#[test]
fn show_reads_every_kind_whole() {
    let repo = TestRepo::initialised();
    let episode = repo.start_episode();
    repo.run(&["task", "start", "Show every kind"]).success();
    repo.run(&["decision", "Show reads each kind"]).success();
    let qid = repo
        .run(&["question", "Does show read answers?"])
        .success()
        .stdout()
        .trim()
        .to_owned();
    repo.run(&["question", "resolve", &qid, "Yes, with the question"])
        .success();
    repo.run(&["checkpoint", "Show is half done"]).success();
    let assessment = repo
        .run_with_stdin(
            &["reasoning", "record", "--format", "json"],
            &json!({
                "kind": "assessment", "subject": "How should show read a conclusion?",
                "materiality": "low", "confidence": "high",
                "hypothesis": "Show reads the reasoning record whole",
                "evidence": ["file:src/show.rs"],
            })
            .to_string(),
        )
        .success()
        .json()["id"]
        .as_str()
        .expect("an assessment id")
        .to_owned();
    repo.run_with_stdin(
        &["reasoning", "record", "--format", "json"],
        &json!({
            "kind": "conclusion", "assessment": assessment,
            "decision": "Show prints the conclusion's record",
            "rationale": "one reader for every kind",
            "evidence": ["file:src/show.rs"],
            "consultations": [], "validation_plan": "show it",
        })
        .to_string(),
    )
    .success();
    repo.commit("src/show.rs", "x\n", "Add show");
    repo.run(&["task", "finish"]).success();
    repo.run_with_stdin(&["session", "close"], "Built show.")
        .success();
    repo.run(&["handover", "--derive", "--episode", &episode])
        .success();
    // Every kind is a hit, and each hit's read command prints it whole.
    for kind in [
        "knowledge",
        "decision",
        "question",
        "checkpoint",
        "session",
        "handover",
        "conclusion",
    ] {
        let found = hits(&repo, &["show", "--kind", kind, "--limit", "50"]);
        assert!(!found.is_empty(), "no {kind} hit");
        for (k, id, _) in &found {
            assert_eq!(k, kind);
            let command = format!("majordomus show {k}:{id}");
            let out = repo.sh_in(repo.root(), &command);
            assert!(out.status.success(), "{command}: {out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains(&format!("{k} {id}")), "{command}: {text}");
        }
    }
    let decisions = hits(&repo, &["show", "--kind", "decision"]);
    assert_eq!(decisions.len(), 1);
    let out = repo
        .run(&["show", &format!("decision:{}", decisions[0].1)])
        .success();
    assert!(out.stdout().contains("Show reads each kind"), "{out}");
    assert!(out.stdout().contains("knowledge record: "), "{out}");
    let conclusion = hits(&repo, &["show", "--kind", "conclusion"]);
    let out = repo
        .run(&["show", &format!("conclusion:{}", conclusion[0].1)])
        .success();
    assert!(
        out.stdout().contains("Show prints the conclusion's record"),
        "{out}"
    );
}

#[test]
fn an_edit_in_place_is_seen_by_the_next_read() {
    let repo = TestRepo::initialised();
    let id = curated_citing(&repo, 1, "src/a.rs", "Retries back off exponentially");
    assert_eq!(ids(&hits(&repo, &["retries"])), [id.as_str()]);
    // Rewrite the file's bytes in place (an editor that truncates and writes): the folder
    // itself does not change.
    let path = repo.path(&format!("{CURATED}/{id}.md"));
    let text = std::fs::read_to_string(&path).expect("read").replace(
        "Retries back off exponentially",
        "Timeouts double on every attempt",
    );
    {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .expect("open in place");
        file.write_all(text.as_bytes()).expect("write in place");
    }
    assert!(hits(&repo, &["exponentially"]).is_empty());
    assert_eq!(ids(&hits(&repo, &["timeouts"])), [id.as_str()]);
}

#[test]
fn the_post_commit_hook_never_opens_the_recall_index() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    // Session start read it for the briefing; with it gone, a commit must not bring it back.
    assert!(repo.exists(INDEX));
    std::fs::remove_file(repo.path(INDEX)).expect("remove the index");
    repo.commit("src/x.rs", "x\n", "Add x");
    repo.run(&["hook", "post-commit"]).success();
    assert_eq!(repo.ledger_events("commit.recorded").len(), 1);
    assert!(
        !repo.exists(INDEX),
        "the post-commit hook opened the recall index"
    );
}

#[test]
fn an_issue_and_a_task_rank_what_serves_them() {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/intents/parsing.yaml",
        "id: parsing\nstatus: active\nstatement: Parse everything\ncriteria:\n  - id: fast\n    text: It is fast\nissues:\n  - id: parser-speed\n    title: Speed up the parser\n    status: open\n    paths: [\"src/parser/**\"]\n    serves: [fast]\ncritiques:\n  - commit: abc\n    plan_revision: x\n    findings: []\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Plan"]);
    let episode = repo.start_episode();
    let task = repo
        .run(&[
            "task",
            "start",
            "Speed up",
            "--issue",
            "parser-speed",
            "--format",
            "json",
        ])
        .success()
        .json()["task"]["id"]
        .as_str()
        .expect("task id")
        .to_owned();
    repo.run(&["decision", "Inline the hot lexer loop"])
        .success();
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();
    let _ = episode;
    let json = repo
        .run(&[
            "recall",
            "--issue",
            "parser-speed",
            "--kind",
            "knowledge",
            "--format",
            "json",
        ])
        .success()
        .json();
    let first = &json["hits"][0];
    assert!(
        first["why"]
            .as_array()
            .expect("why")
            .iter()
            .any(|r| r["detail"] == "same issue parser-speed"),
        "{json}"
    );
    let json = repo
        .run(&["recall", "--task", &task, "--format", "json"])
        .success()
        .json();
    assert!(!json["hits"].as_array().expect("hits").is_empty());
    assert_eq!(json["context"]["issue"], "parser-speed");
}

/// Found in the field (docs/FIELD.md, step 9): a task finished in an earlier episode on
/// the trunk, and trunk commits not pushed yet, ranked a new branch's briefing by work that
/// is not the branch's.
#[test]
fn a_new_branch_is_ranked_by_its_own_changes_not_the_trunks_last_task_or_unpushed_commits() {
    let mut repo = TestRepo::initialised();
    // The origin is cloned before the work below: the trunk's commits are not pushed.
    repo.add_origin();
    let [_, ledger, _] = three_areas(&mut repo);
    repo.start_episode();
    repo.run(&["task", "start", "A docs pass", "--scope", "docs/"])
        .success();
    repo.commit("docs/GUIDE.md", "# Guide\n\nMore.\n", "Docs pass");
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory", "--allow-empty"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.commit(
        "src/store/ledger.rs",
        "pub fn append_fast() {}\n",
        "Faster appends",
    );
    repo.run(&["session", "start"]).success();
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert!(
        text.contains(
            "ranked by the work at hand: 1 file(s) of feature's own 1 commit(s) since it was created (the newest weighs most)\n"
        ),
        "{text}"
    );
    assert!(!text.contains("last task"), "{text}");
    assert_eq!(
        json["knowledge"]["hits"][0]["id"],
        ledger.as_str(),
        "{text}"
    );
    // A task of an episode on this branch is the work at hand again once it exists.
    repo.run(&["task", "start", "Appends", "--scope", "src/store/"])
        .success();
    repo.run(&["task", "finish"]).success();
    let again = repo.run(&["briefing"]).success();
    assert!(
        again
            .stdout()
            .contains("(the newest weighs most); last task t-"),
        "{}",
        again.stdout()
    );
}

#[test]
fn a_decision_reference_naming_a_task_reads_as_that_tasks_decisions() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let started = repo
        .run(&["task", "start", "Appends", "--format", "json"])
        .success()
        .json();
    let task = started["task"]["id"].as_str().expect("task").to_owned();
    repo.run(&["decision", "Appends take the file lock"])
        .success();
    repo.run(&["decision", "One write per line"]).success();
    let shown = repo.run(&["show", &format!("decision:{task}")]).success();
    let text = shown.stdout();
    assert!(text.contains("2 decision(s) of task"), "{text}");
    let first = text.find("Appends take the file lock").expect("first");
    let second = text.find("One write per line").expect("second");
    assert!(first < second, "{text}");
    // Each names the command that reads it alone, and that command works.
    let one = text
        .lines()
        .find_map(|l| l.split("(majordomus show ").nth(1))
        .and_then(|rest| rest.strip_suffix(')'))
        .expect("a show command");
    repo.run(&["show", one]).success();
    // A task that has no decision is still an unknown record.
    repo.run(&["show", "decision:t-20261130-ffff", "--format", "json"])
        .json_error(3, "recall.known");
}

#[test]
fn several_words_need_no_quotes() {
    let mut repo = TestRepo::initialised();
    let [_, ledger, _] = three_areas(&mut repo);
    let quoted = hits(&repo, &["ledger lock"]);
    let bare = hits(&repo, &["ledger", "lock"]);
    assert_eq!(quoted, bare);
    assert_eq!(ids(&bare)[0], ledger.as_str());
}

/// Knowledge records titled `title`, `n` of them from `from`, in `dir` with `status`.
fn records_titled(repo: &TestRepo, dir: &str, status: &str, from: u32, n: u32, title: &str) {
    for i in from..from + n {
        let id = format!("20261130T100000Z-0a0b0c-{i:012x}");
        let record = knowledge_record(&id, status, &[], "", "A claim.").replace(
            "title: The ledger is append-only",
            &format!("title: {title}"),
        );
        repo.write(&format!("{dir}/{id}.md"), &record);
    }
}

#[test]
fn hits_beyond_the_first_pool_of_matches_rank_exactly_as_if_every_match_were_weighed() {
    // 300 verified records match "widget" slightly better than 30 others do (a title one
    // word shorter), but each cites a file that changed after it was verified: stale, they
    // score 0.6 of what the 30 fresh ones do. The first read cannot know that before it
    // judges them, so its first pool of 200 best matches holds stale records only; a search
    // that ranked only its first pool would show them. Once judged at this HEAD, a read
    // weighs each match by what it could still score, and one pool settles it.
    let repo = TestRepo::initialised();
    repo.commit("src/w.rs", "w\n", "Add w");
    repo.commit("src/v.rs", "v\n", "Add v");
    // Each cites one file (the same length of text); the 300 cite the one that changes.
    let citing = |i: u32, file: &str, title: &str| {
        let id = format!("20261130T100000Z-0a0b0c-{i:012x}");
        let record = knowledge_record(&id, "verified", &[&format!("file:{file}")], "", "A claim.")
            .replace(
                "title: The ledger is append-only",
                &format!("title: {title}"),
            );
        repo.write(&format!("{CURATED}/{id}.md"), &record);
    };
    for i in 0..300u32 {
        citing(i, "src/w.rs", "Widget alpha beta gamma");
    }
    for i in 1000..1030u32 {
        citing(i, "src/v.rs", "Widget alpha beta gamma delta");
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Verify them"]);
    repo.commit("src/w.rs", "w changed\n", "Change w");
    let timed = |args: &[&str]| {
        let mut all = vec!["recall"];
        all.extend_from_slice(args);
        all.extend(["--format", "json"]);
        let run = repo
            .run_env(&all, &[("MAJORDOMUS_TIMING", "1")], "")
            .success();
        let line = run
            .stderr()
            .lines()
            .find(|l| l.starts_with("timing: recall.search "))
            .unwrap_or_else(|| panic!("no recall.search phase in {}", run.stderr()))
            .to_owned();
        (
            triples(&run.json()["hits"]),
            run.json()["total"].clone(),
            line,
        )
    };
    let (shown, total, line) = timed(&["widget", "--limit", "10"]);
    assert_eq!(shown.len(), 10);
    assert!(
        shown.iter().all(|(kind, id, status)| kind == "knowledge"
            && status == "verified"
            && id.as_str() >= "20261130T100000Z-0a0b0c-0000000003e8"),
        "{shown:?}"
    );
    assert_eq!(total, 330);
    // It took a second, larger pool to be sure (and the hits are those of weighing all).
    assert!(line.contains(" passes=2"), "{line}");
    let everything = hits(&repo, &["widget", "--limit", "400"]);
    assert_eq!(everything.len(), 330);
    assert_eq!(shown, everything[..10]);
    assert!(everything[30..].iter().all(|(_, _, s)| s == "stale"));
    // Judged at this HEAD, the stale ones are weighed as such: one pool, the same hits.
    let (again, _, line) = timed(&["widget", "--limit", "10"]);
    assert!(line.contains(" passes=1"), "{line}");
    assert_eq!(again, shown);
    // A query whose first pool settles it takes one pass.
    let (more, _, line) = timed(&["widget", "delta", "--limit", "10"]);
    assert!(line.contains(" passes=1"), "{line}");
    assert_eq!(more, everything[..10]);
}

#[test]
fn a_candidate_is_weighed_by_what_it_could_score_before_it_is_read() {
    // 300 candidates match "widget" slightly better than 30 verified records do; a
    // candidate scores 0.8 of a verified record's relevance, so the verified come first,
    // and the first pool, which weighs each match by its status, holds them.
    let repo = TestRepo::initialised();
    records_titled(
        &repo,
        CANDIDATES,
        "candidate",
        0,
        300,
        "Widget alpha beta gamma",
    );
    records_titled(
        &repo,
        CURATED,
        "verified",
        1000,
        30,
        "Widget alpha beta gamma delta",
    );
    let run = repo
        .run_env(
            &["recall", "widget", "--limit", "10", "--format", "json"],
            &[("MAJORDOMUS_TIMING", "1")],
            "",
        )
        .success();
    let shown = triples(&run.json()["hits"]);
    assert!(
        shown
            .iter()
            .all(|(kind, _, status)| kind == "knowledge" && status == "verified"),
        "{shown:?}"
    );
    assert_eq!(run.json()["total"], 330);
    assert!(
        run.stderr()
            .lines()
            .any(|l| l.starts_with("timing: recall.search ") && l.contains(" passes=1")),
        "{}",
        run.stderr()
    );
    let everything = hits(&repo, &["widget", "--limit", "400"]);
    assert_eq!(shown, everything[..10]);
}

/// A decision whose candidate is indexed is one claim: the search reads the record of a
/// line folded into it (and of no other line) and shows the record once, by words and by
/// paths alike; asked for decisions alone, the line itself is shown.
#[test]
fn a_decision_whose_record_is_indexed_is_one_hit_by_words_and_by_paths() {
    let repo = TestRepo::initialised();
    let (_, folded) = episode(
        &repo,
        "cache the parsed manifest beside the lockfile",
        &[("src/manifest.rs", "pub fn parse() {}\n")],
    );
    // A second episode's decision in the same file, the episode still open (no candidate
    // derived yet): the line has no indexed record to fold into.
    repo.start_episode();
    repo.run(&["decision", "parse the manifest lazily on first use"])
        .success();
    repo.commit(
        "src/manifest.rs",
        "pub fn parse() { /* lazily */ }\n",
        "Parse lazily",
    );
    // By words both lines match: the folded one is its record, the other a decision. By
    // path only the closed episode reaches the file (its session record lists it).
    for (args, unfolded) in [(&["manifest"][..], 1), (&["--path", "src/manifest.rs"], 0)] {
        let found = hits(&repo, args);
        let records: Vec<_> = found.iter().filter(|(_, id, _)| *id == folded).collect();
        assert_eq!(records.len(), 1, "{args:?}: the record once, in {found:?}");
        assert_eq!(records[0].0, "knowledge", "{args:?}: {found:?}");
        let decisions: Vec<_> = found.iter().filter(|(k, _, _)| k == "decision").collect();
        assert_eq!(
            decisions.len(),
            unfolded,
            "{args:?}: only the line without a record is a decision hit: {found:?}"
        );
    }
    let decisions = hits(&repo, &["manifest", "--kind", "decision"]);
    assert_eq!(decisions.len(), 2, "{decisions:?}");
}

// --- The work at hand (step 13) -----------------------------------------------------------

/// A curated record citing `file`, dated `date` and titled `title`, committed.
fn curated_dated(repo: &TestRepo, n: u32, file: &str, title: &str, date: &str) -> String {
    let id = format!("20261130T100000Z-0a0b0c-{n:012x}");
    let record = knowledge_record(&id, "verified", &[&format!("file:{file}")], "", "A claim.")
        .replace(
            "title: The ledger is append-only",
            &format!("title: {title}"),
        )
        .replace("date: 2026-11-30", &format!("date: {date}"));
    repo.write(&format!("{CURATED}/{id}.md"), &record);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", &format!("Verify {id}")]);
    id
}

fn briefed_ids(json: &Value) -> Vec<String> {
    json["knowledge"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn uncommitted_changes_lead_the_briefing_on_the_trunk() {
    let mut repo = TestRepo::initialised();
    let [parser, ledger, docs] = three_areas(&mut repo);
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "Memory", "--allow-empty"]);
    // Nothing at hand: no record is listed by recency (SPEC §5.6); the command that lists
    // them, newest first, is (the docs were promoted last).
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    assert_eq!(json["at_hand"], json!([]));
    assert!(briefed_ids(&json).is_empty(), "{}", json["text"]);
    let command = json["knowledge"]["command"].as_str().expect("command");
    let text = json["text"].as_str().expect("text");
    assert!(
        text.contains(&format!("nothing at hand to rank by (no uncommitted change, no commit of this branch's own, no task, no files of the last handover): `{command}` lists them, newest first")),
        "{text}"
    );
    assert!(text.len() <= 2048, "{} bytes: {text}", text.len());
    let out = repo.sh_in(repo.root(), &format!("{command} --format json"));
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(listed["hits"][0]["id"], json!(docs), "{listed}");
    // An edit in progress, not committed: the parser's record leads, and the line says why.
    repo.write("src/parser/error.rs", "pub struct Error { line: u32 }\n");
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert!(
        text.contains("ranked by the work at hand: 1 uncommitted change(s)\n"),
        "{text}"
    );
    assert_eq!(briefed_ids(&json), std::slice::from_ref(&parser), "{text}");
    let why = json["knowledge"]["hits"][0]["why"][0]["detail"]
        .as_str()
        .expect("why");
    assert_eq!(
        why,
        "src/parser/error.rs (its episode changed it; uncommitted change)"
    );
    // Staged counts the same: a staged edit and an unstaged one both lead.
    repo.git(&["add", "src/parser/error.rs"]);
    repo.write("src/store/ledger.rs", "pub fn append() { /* faster */ }\n");
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let mut both = briefed_ids(&json);
    both.sort();
    let mut expected = vec![parser.clone(), ledger.clone()];
    expected.sort();
    assert_eq!(both, expected, "{}", json["text"]);
    // `recall --at-hand` ranks by the same, and says so.
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        json["context"]["at_hand"],
        json!(["2 uncommitted change(s)"])
    );
    assert_eq!(
        json["context"]["weighed"][0],
        json!({"path": "src/parser/error.rs", "from": {"source": "uncommitted"}, "weight": 1.0})
    );
}

#[test]
fn a_stacked_branchs_own_file_leads_whatever_the_records_ages() {
    let repo = TestRepo::initialised();
    repo.git(&["config", "majordomus.trunk", "main"]);
    repo.commit("src/a.rs", "a\n", "Add a");
    repo.commit("src/b.rs", "b\n", "Add b");
    // The record about the stacked branch's own file is the older one, by a month.
    let own = curated_dated(&repo, 1, "src/b.rs", "B keeps its cache warm", "2026-10-01");
    let parent = curated_dated(&repo, 2, "src/a.rs", "A retries with backoff", "2026-11-29");
    repo.git(&["checkout", "-q", "-b", "feature-a"]);
    repo.commit("src/a.rs", "a, retrying\n", "Retry in a");
    // Stacked on the unmerged feature-a.
    repo.git(&["checkout", "-q", "-b", "feature-b", "feature-a"]);
    repo.commit("src/b.rs", "b, warm\n", "Warm b");
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let text = json["text"].as_str().expect("text");
    assert_eq!(briefed_ids(&json), [own.clone(), parent.clone()], "{text}");
    assert!(
        text.contains(
            "ranked by the work at hand: 1 file(s) of feature-b's own 1 commit(s) since it was created from feature-a (the newest weighs most)"
        ),
        "{text}"
    );
    let whys: Vec<&str> = json["knowledge"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["why"][0]["detail"].as_str().expect("why"))
        .collect();
    assert_eq!(
        whys,
        [
            "src/b.rs (it cites it; this branch's last commit)",
            "src/a.rs (it cites it; changed on this branch before its own commits)"
        ]
    );
    // A second own commit: the newest weighs most, the older own commit still above the
    // parent branch's work.
    repo.commit("src/c.rs", "c\n", "Add c");
    let newest = curated_dated(&repo, 3, "src/c.rs", "C is new", "2026-09-01");
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    assert_eq!(
        briefed_ids(&json),
        [newest, own, parent],
        "{}",
        json["text"]
    );
}

/// The whole order of the work at hand, end to end, as one ordering: what is changed and
/// not committed, then the branch's own commits, then the rest of the branch against the
/// trunk (a parent branch's work), then what the work does not touch; each record's age
/// against it (the most recently verified would lead with nothing at hand).
#[test]
fn the_work_at_hand_ranks_uncommitted_then_own_commits_then_the_rest_then_the_others() {
    let repo = TestRepo::initialised();
    repo.git(&["config", "majordomus.trunk", "main"]);
    for f in ["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs"] {
        repo.commit(f, "x\n", &format!("Add {f}"));
    }
    // The older the record, the higher the work at hand must put it.
    let uncommitted = curated_dated(&repo, 1, "src/c.rs", "C keeps its buffer", "2026-09-01");
    let own = curated_dated(&repo, 2, "src/b.rs", "B keeps its cache warm", "2026-10-01");
    let rest = curated_dated(&repo, 3, "src/a.rs", "A retries with backoff", "2026-11-01");
    let other = curated_dated(&repo, 4, "src/d.rs", "D logs every call", "2026-11-29");
    repo.git(&["checkout", "-q", "-b", "feature-a"]);
    repo.commit("src/a.rs", "a, retrying\n", "Retry in a");
    repo.git(&["checkout", "-q", "-b", "feature-b", "feature-a"]);
    repo.commit("src/b.rs", "b, warm\n", "Warm b");
    repo.write("src/c.rs", "c, buffered\n");

    let at_hand = [uncommitted.clone(), own.clone(), rest.clone()];
    let json = repo.run(&["briefing", "--format", "json"]).success().json();
    let briefed = briefed_ids(&json);
    assert_eq!(briefed[..3], at_hand, "{}", json["text"]);
    if let Some(at) = briefed.iter().position(|id| *id == other) {
        assert_eq!(at, 3, "{}", json["text"]);
    }
    let whys: Vec<&str> = json["knowledge"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .take(3)
        .map(|h| h["why"][0]["detail"].as_str().expect("why"))
        .collect();
    assert_eq!(
        whys,
        [
            "src/c.rs (it cites it; uncommitted change)",
            "src/b.rs (it cites it; this branch's last commit)",
            "src/a.rs (it cites it; changed on this branch before its own commits)"
        ]
    );
    // `recall --at-hand` ranks the same way.
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    let recalled: Vec<String> = json["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(recalled[..3], at_hand, "{json:#}");
    assert!(
        recalled
            .iter()
            .position(|id| *id == other)
            .is_none_or(|at| at == 3),
        "{json:#}"
    );
}

#[test]
fn newest_first_means_the_newest_timestamp_within_one_day() {
    let mut repo = TestRepo::initialised();
    let mut promoted = Vec::new();
    // Three decisions promoted one day at 09:00, 13:00 and 17:30, in an order their ids do
    // not have (the episodes opened in another order).
    for (opened, title) in [
        ("2026-11-30T08:00:00Z", "Second promoted"),
        ("2026-11-30T08:10:00Z", "Last promoted"),
        ("2026-11-30T08:20:00Z", "First promoted"),
    ] {
        repo.now(opened);
        let (_, id) = episode(&repo, title, &[]);
        promoted.push(id);
    }
    for (at, id) in [
        ("2026-11-30T09:00:00Z", &promoted[2]),
        ("2026-11-30T13:00:00Z", &promoted[0]),
        ("2026-11-30T17:30:00Z", &promoted[1]),
    ] {
        repo.now(at);
        promote(&repo, id);
    }
    let listed = hits(&repo, &[]);
    assert_eq!(
        ids(&listed),
        [
            promoted[1].as_str(),
            promoted[0].as_str(),
            promoted[2].as_str()
        ],
        "newest promotion first"
    );
    // Records with nothing but a date: the newer day first, then within a day the
    // greater id (ids begin with their episode's opening time).
    let repo = TestRepo::initialised();
    let old = curated_dated(&repo, 1, "src/x.rs", "Old day", "2026-11-28");
    let a = curated_dated(&repo, 2, "src/x.rs", "Same day, smaller id", "2026-11-29");
    let b = curated_dated(&repo, 3, "src/x.rs", "Same day, greater id", "2026-11-29");
    assert_eq!(
        ids(&hits(&repo, &[])),
        [b.as_str(), a.as_str(), old.as_str()]
    );
    // The same tie-break in a ranking: equal scores, the newer first.
    assert_eq!(
        ids(&hits(&repo, &["--path", "src/x.rs"])),
        [b.as_str(), a.as_str(), old.as_str()]
    );
}

#[test]
fn a_file_beside_one_in_a_flat_directory_weighs_little_and_says_so() {
    let repo = TestRepo::initialised();
    // A flat directory of 17 modules (click keeps its whole source in one directory) and a
    // small one of two.
    for n in 0..17 {
        repo.write(&format!("src/flat/m{n:02}.rs"), "x\n");
    }
    repo.write("src/small/one.rs", "x\n");
    repo.write("src/small/two.rs", "x\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Sources"]);
    let flat = curated_citing(&repo, 1, "src/flat/m01.rs", "Flat neighbour");
    let small = curated_citing(&repo, 2, "src/small/one.rs", "Small neighbour");
    let exact = curated_citing(&repo, 3, "src/flat/m07.rs", "The very module");
    let json = repo
        .run(&[
            "recall",
            "--path",
            "src/flat/m07.rs",
            "--path",
            "src/small/two.rs",
            "--format",
            "json",
        ])
        .success()
        .json();
    let found = triples(&json["hits"]);
    assert_eq!(
        ids(&found),
        [exact.as_str(), small.as_str(), flat.as_str()],
        "{json}"
    );
    let score = |i: usize| json["hits"][i]["score"].as_f64().expect("score");
    // Exact 3; beside in a directory of two: 0.6; beside in one of 17: 0.6 × 4/17.
    assert!((score(0) - 3.0).abs() < 1e-6, "{json}");
    assert!((score(1) - 0.6).abs() < 1e-6, "{json}");
    assert!((score(2) - 0.6 * 4.0 / 17.0).abs() < 1e-6, "{json}");
    assert_eq!(
        json["hits"][2]["why"][0]["detail"],
        "near src/flat/m07.rs (it cites src/flat/m01.rs; src/flat holds 17 files: weight ×0.24)"
    );
}

#[test]
fn a_path_every_record_reaches_is_read_best_first_not_whole() {
    // 300 verified records cite one file; the search reads the best of them (and says how
    // many there are at least), and its hits are those of ranking all 300.
    let repo = TestRepo::initialised();
    repo.commit("src/hub.rs", "x\n", "Add the hub");
    for n in 0..300u32 {
        let id = format!("20261130T100000Z-0a0b0c-{n:012x}");
        let day = 1 + n % 28;
        let record = knowledge_record(&id, "verified", &["file:src/hub.rs"], "", "A claim.")
            .replace("date: 2026-11-30", &format!("date: 2026-11-{day:02}"));
        repo.write(&format!("{CURATED}/{id}.md"), &record);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Records"]);
    let run = repo
        .run_env(
            &[
                "recall",
                "--path",
                "src/hub.rs",
                "--limit",
                "5",
                "--format",
                "json",
            ],
            &[("MAJORDOMUS_TIMING", "1")],
            "",
        )
        .success();
    let timing = run.stderr();
    let line = timing
        .lines()
        .find(|l| l.starts_with("timing: recall.paths "))
        .unwrap_or_else(|| panic!("no recall.paths phase in {timing}"));
    let rows: usize = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("rows="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(rows < 300, "read every record: {line}");
    let json = run.json();
    let shown = triples(&json["hits"]);
    assert_eq!(json["total_exact"], false);
    assert!(json["total"].as_u64().expect("total") >= 5);
    let everything = hits(&repo, &["--path", "src/hub.rs", "--limit", "300"]);
    assert_eq!(everything.len(), 300);
    assert_eq!(shown, everything[..5]);
    // The newest day first among equals.
    let first = repo
        .run(&["show", &format!("knowledge:{}", shown[0].1)])
        .success();
    assert!(first.stdout().contains("date: 2026-11-28"), "{first}");
}

#[test]
fn a_new_file_is_at_hand_and_an_ignored_one_is_not() {
    let repo = TestRepo::initialised();
    repo.write(".gitignore", ".ai/local/\ntarget/\n*.log\n");
    repo.commit("src/parser/mod.rs", "pub fn parse() {}\n", "Add the parser");
    let parser = curated_citing(&repo, 1, "src/parser/lexer.rs", "The lexer keeps spans");
    // Ignored: a build directory, a log; neither is the work at hand.
    repo.write("target/debug/out.rs", "x\n");
    repo.write("src/parser/trace.log", "x\n");
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    assert_eq!(json["context"]["at_hand"], json!([]), "{json}");
    // A new file beside a tracked one, and one in a new directory: both at hand.
    repo.write("src/parser/lexer.rs", "pub fn lex() {}\n");
    repo.write("src/cli/args.rs", "pub struct Args;\n");
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        json["context"]["at_hand"],
        json!(["2 uncommitted change(s)"]),
        "{json}"
    );
    let paths: Vec<&str> = json["context"]["weighed"]
        .as_array()
        .expect("weighed")
        .iter()
        .map(|w| w["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, ["src/cli/args.rs", "src/parser/lexer.rs"]);
    assert_eq!(triples(&json["hits"])[0].1, parser);
}

#[test]
fn the_briefing_says_a_record_is_stale_before_why_it_ranked() {
    let repo = TestRepo::initialised();
    repo.git(&["config", "majordomus.trunk", "main"]);
    repo.commit("src/a.rs", "a\n", "Add a");
    curated_citing(&repo, 1, "src/a.rs", "A retries with backoff");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.commit("src/a.rs", "a, changed\n", "Change a");
    let text = repo.run(&["briefing"]).success().stdout().to_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("- [stale] ⟪A retries with backoff⟫"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(" — why: stale: src/a.rs changed since it was verified in "),
        "{line}"
    );
    assert!(
        line.contains("; src/a.rs (it cites it; this branch's last commit);"),
        "{line}"
    );
}
