//! The operation registry (SPEC §10): `majordomus schema`, every CLI command mapped to an
//! operation, every write operation runnable from a JSON request (as MCP and HTTP will
//! call it), and the import graph of `src/` kept acyclic.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::common::TestRepo;
use crate::help::leaf_commands;

fn schema_json() -> Value {
    TestRepo::unversioned()
        .run(&["--format", "json", "schema"])
        .success()
        .json()
}

#[test]
fn every_operation_has_object_schemas_and_a_unique_name() {
    let schema = schema_json();
    let operations = schema["operations"].as_array().expect("a list");
    assert!(operations.len() >= 20, "{schema}");
    let mut names = BTreeSet::new();
    for op in operations {
        let name = op["name"].as_str().expect("a name");
        assert!(names.insert(name), "{name} is listed twice");
        assert!(
            op["summary"].as_str().is_some_and(|s| s.len() > 10),
            "{name} has no summary"
        );
        for key in ["writes", "human_act"] {
            assert!(op[key].is_boolean(), "{name}.{key}");
        }
        for key in ["request", "result"] {
            assert_eq!(
                op[key]["type"], "object",
                "{name}.{key} is not an object schema"
            );
            assert_eq!(
                op[key]["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{name}.{key}"
            );
        }
    }
    let human_acts: BTreeSet<&str> = operations
        .iter()
        .filter(|o| o["human_act"] == true)
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(
        human_acts,
        BTreeSet::from([
            "hooks.acknowledge",
            "knowledge.promote",
            "knowledge.reject",
            "knowledge.retire",
            "knowledge.reverify",
            "knowledge.review",
            "knowledge.supersede",
            "session.recompose"
        ])
    );
    for op in operations.iter().filter(|o| o["human_act"] == true) {
        assert_eq!(op["writes"], true, "a human act writes");
    }
}

#[test]
fn every_command_maps_to_an_operation_and_back() {
    let schema = schema_json();
    let by_cli: BTreeMap<String, Vec<String>> = schema["operations"]
        .as_array()
        .expect("a list")
        .iter()
        .fold(BTreeMap::new(), |mut map, op| {
            map.entry(op["cli"].as_str().expect("cli").to_owned())
                .or_default()
                .push(op["name"].as_str().expect("name").to_owned());
            map
        });
    let leaves: BTreeSet<String> = leaf_commands().iter().map(|c| c.join(" ")).collect();
    for leaf in &leaves {
        if majordomus::cli::DRIVERS.contains(&leaf.as_str()) {
            assert!(
                !by_cli.contains_key(leaf),
                "driver {leaf} maps to an operation"
            );
            continue;
        }
        // `question` asks; its subcommand `resolve` is a leaf of its own.
        assert!(
            by_cli.contains_key(leaf),
            "command `majordomus {leaf}` has no operation in the registry"
        );
    }
    let parents: BTreeSet<String> = ["question".to_owned()].into();
    for cli in by_cli.keys() {
        assert!(
            leaves.contains(cli) || parents.contains(cli),
            "operation says it runs as `majordomus {cli}`, which is no command"
        );
    }
}

#[test]
fn schema_of_one_operation_and_an_unknown_one() {
    let dir = TestRepo::unversioned();
    let one = dir
        .run(&[
            "--format",
            "json",
            "schema",
            "--operation",
            "decision.record",
        ])
        .success()
        .json();
    let ops = one["operations"].as_array().expect("a list");
    assert_eq!(ops.len(), 1);
    assert_eq!(ops[0]["request"]["required"], json!(["text"]));
    let human = dir
        .run(&["schema", "--operation", "decision.record"])
        .success();
    assert!(human.stdout().contains("request schema:"), "{human}");
    let unknown = dir.run(&["--format", "json", "schema", "--operation", "decision.make"]);
    let error = unknown.json_error(2, "request.operation");
    assert_eq!(error["fix"], "majordomus schema");
    // The fix works.
    dir.run(&["schema"]).success();
}

/// The `seq` of the newest ledger line of `event`.
fn last_seq(repo: &TestRepo, event: &str) -> Option<u64> {
    repo.ledger_events(event)
        .last()
        .and_then(|l| l["seq"].as_u64())
}

#[test]
fn every_write_operation_runs_from_a_json_request_and_lands_in_the_ledger() {
    use majordomus::ops::Registry;
    use majordomus::{Clock, Ctx};

    let repo = TestRepo::new();
    let registry = Registry::standard();
    let now =
        Clock::Fixed(time::OffsetDateTime::from_unix_timestamp(1_796_032_800).expect("a time"));
    let ctx = || Ctx::open_isolated(repo.root(), now).expect("open the test repository");
    let call = |name: &str, request: Value| {
        registry
            .invoke(&ctx(), name, request)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };

    call("init", json!({}));
    assert!(repo.exists(".ai/repo/policy.yaml"));
    repo.git(&["add", ".ai", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "majordomus: init"]);

    let started = call("session.start", json!({"provider": "json"}));
    assert_eq!(started.value["episode"]["provider"], "json");
    assert!(last_seq(&repo, "session.opened").is_some());

    let decided = call(
        "decision.record",
        json!({"text": "Decided through the registry"}),
    );
    assert_eq!(
        Some(decided.value["seq"].as_u64().expect("seq")),
        last_seq(&repo, "decision.recorded")
    );
    let asked = call(
        "question.ask",
        json!({"text": "Asked through the registry?"}),
    );
    let qid = asked.value["id"].as_str().expect("an id").to_owned();
    let answered = call("question.resolve", json!({"id": qid, "answer": "Yes"}));
    assert_eq!(
        Some(answered.value["seq"].as_u64().expect("seq")),
        last_seq(&repo, "question.resolved")
    );
    let checkpoint = call(
        "checkpoint.record",
        json!({"text": "Checkpointed through the registry"}),
    );
    assert_eq!(
        Some(checkpoint.value["seq"].as_u64().expect("seq")),
        last_seq(&repo, "checkpoint.recorded")
    );

    call("knowledge.derive", json!({"dry_run": false}));
    assert_eq!(repo.ledger_events("knowledge.derived").len(), 1);

    let closed = call(
        "session.close",
        json!({"summary": "Closed through the registry"}),
    );
    let record = closed.value["path"]
        .as_str()
        .expect("a record path")
        .to_owned();
    assert!(repo.read(&record).contains("Closed through the registry"));
    assert!(last_seq(&repo, "session.closed").is_some());

    let listing = call("knowledge.candidates", json!({}));
    let ids: Vec<String> = listing.value["candidates"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{}", listing.value);
    call(
        "knowledge.promote",
        json!({"id": ids[0], "evidence": "tests/cli/registry.rs runs it"}),
    );
    assert_eq!(
        repo.ledger_events("knowledge.promoted")[0]["data"]["id"],
        ids[0].as_str()
    );
    call(
        "knowledge.reject",
        json!({"id": ids[1], "reason": "only a test"}),
    );
    assert_eq!(
        repo.ledger_events("knowledge.rejected")[0]["data"]["id"],
        ids[1].as_str()
    );

    call("hooks.install", json!({}));
    assert!(
        repo.read(".git/hooks/post-commit")
            .contains("majordomus-hook: post-commit")
    );
    call("hooks.uninstall", json!({}));
    assert!(!repo.exists(".git/hooks/post-commit"));

    call(
        "hook.session-start",
        json!({"provider": "agent", "payload": "{}"}),
    );
    let episode = repo.ledger_events("session.opened").pop().expect("opened");
    assert_eq!(episode["data"]["provider"], "agent");
    repo.commit("src/lib.rs", "//! lib\n", "Add the library");
    call("hook.post-commit", json!({}));
    assert_eq!(repo.ledger_events("commit.recorded").len(), 1);
    call("hook.compact", json!({"provider": "agent"}));
    call(
        "hook.session-end",
        json!({"provider": "agent", "payload": ""}),
    );
    assert_eq!(repo.ledger_events("session.closed").len(), 2);

    // A request the operation does not accept is a usage error naming the field.
    let err = registry
        .invoke(&ctx(), "decision.record", json!({"txt": "typo"}))
        .expect_err("refused");
    assert_eq!(err.class(), majordomus::Class::Usage);
    assert!(err.to_string().contains("txt"), "{err}");
}

/// `crate::<module>` imports between the top-level modules of `src/`, outside tests.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        modules.insert(name, path);
    }
    let mut graph = BTreeMap::new();
    for (name, path) in &modules {
        let mut files = Vec::new();
        let mut stack = vec![path.clone()];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                for e in std::fs::read_dir(&p).expect("dir") {
                    stack.push(e.expect("entry").path());
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                files.push(p);
            }
        }
        let mut edges = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let module: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if modules.contains_key(&module) && module != *name {
                    edges.insert(module);
                }
            }
            // `use crate::{a, b}` groups.
            for (i, _) in code.match_indices("crate::{") {
                let group = &code[i + "crate::{".len()..];
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split([',', ' ', '\n']) {
                    let module = item.split("::").next().unwrap_or_default().trim();
                    if modules.contains_key(module) && module != name {
                        edges.insert(module.to_owned());
                    }
                }
            }
        }
        graph.insert(name.clone(), edges);
    }
    graph
}

#[test]
fn module_imports_form_a_dag() {
    let graph = import_graph();
    assert!(
        graph.contains_key("session") && graph.contains_key("model"),
        "{graph:?}"
    );
    // Depth-first search for a back edge, naming the cycle when one exists.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = path.iter().position(|n| n == node) {
            panic!(
                "import cycle between src/ modules: {} -> {node}",
                path[at..].join(" -> ")
            );
        }
        path.push(node.to_owned());
        for next in &graph[node] {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(node.to_owned());
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
    // The layers the architecture promises.
    assert!(
        graph["model"].is_empty(),
        "model imports {:?}",
        graph["model"]
    );
    for leaf in ["git", "store"] {
        for above in ["session", "knowledge", "ops", "cli", "render"] {
            assert!(!graph[leaf].contains(above), "{leaf} imports {above}");
        }
    }
    for capability in [
        "authored",
        "knowledge",
        "briefing",
        "doctor",
        "hooks",
        "session",
    ] {
        for surface in ["cli", "ops", "render"] {
            assert!(
                !graph[capability].contains(surface),
                "{capability} imports the surface {surface}"
            );
        }
    }
}

/// A command line of each operation the registry refuses in an uninitialised repository,
/// with what it reads on stdin: a valid request in every other respect.
const NEEDS_INIT: &[(&str, &[&str], &str)] = &[
    ("session.start", &["session", "start"], ""),
    ("session.context", &["session", "context"], ""),
    ("session.snapshot", &["session", "context", "--path"], ""),
    ("session.list", &["session", "list"], ""),
    ("session.close", &["session", "close"], ""),
    (
        "session.recompose",
        &["session", "recompose", "20261130T100000Z-abcdef"],
        "",
    ),
    ("decision.record", &["decision", "text"], ""),
    ("question.ask", &["question", "text?"], ""),
    (
        "question.resolve",
        &["question", "resolve", "q-0123456789", "yes"],
        "",
    ),
    ("checkpoint.record", &["checkpoint", "text"], ""),
    ("task.start", &["task", "start", "a task"], ""),
    ("task.finish", &["task", "finish"], ""),
    ("task.list", &["task", "list"], ""),
    ("intent.binding", &["intent", "binding"], ""),
    ("intent.validate", &["intent", "validate"], ""),
    ("plan.start", &["plan", "start", "issue-1"], ""),
    ("handover.derive", &["handover", "--derive"], ""),
    ("handover.resolve", &["handover", "--resolve"], ""),
    (
        "reasoning.record",
        &["reasoning", "record"],
        r#"{"kind": "assessment"}"#,
    ),
    ("reasoning.advisors", &["reasoning", "advisors"], ""),
    (
        "reasoning.plan",
        &["reasoning", "plan", "--materiality", "low"],
        "",
    ),
    (
        "reasoning.plan-assessment",
        &[
            "reasoning",
            "plan",
            "--assessment",
            "assessment-0123456789ab",
        ],
        "",
    ),
    (
        "reasoning.consult",
        &[
            "reasoning",
            "consult",
            "--assessment",
            "assessment-0123456789ab",
        ],
        "",
    ),
    ("reasoning.status", &["reasoning", "status"], ""),
    (
        "mesh.link",
        &["mesh", "link", "--offers", "reviews", "--once"],
        "",
    ),
    ("mesh.unlink", &["mesh", "unlink"], ""),
    ("mesh.status", &["mesh", "status"], ""),
    ("mesh.requests", &["mesh", "requests"], ""),
    (
        "mesh.answer",
        &[
            "mesh",
            "answer",
            "0123456789abcdef0123456789abcdef",
            "--conclusion",
            "x",
        ],
        "",
    ),
    (
        "reasoning.explain",
        &["reasoning", "explain", "conclusion-0123456789ab"],
        "",
    ),
    ("reasoning.check", &["reasoning", "check"], ""),
    ("recall", &["recall", "words"], ""),
    ("recall.show", &["show", "knowledge:k-1"], ""),
    ("recall.shown", &["recall", "--shown"], ""),
    ("worktrees", &["worktrees"], ""),
    ("history", &["history"], ""),
    ("briefing", &["briefing"], ""),
    ("context", &["context"], ""),
    ("knowledge.derive", &["knowledge", "derive"], ""),
    (
        "knowledge.promote",
        &["knowledge", "promote", "k-1"],
        "evidence",
    ),
    (
        "knowledge.reject",
        &["knowledge", "reject", "k-1", "--reason", "no"],
        "",
    ),
    (
        "knowledge.review",
        &["knowledge", "promote", "k-1", "k-2", "--commit"],
        "evidence",
    ),
    ("knowledge.reverify", &["knowledge", "reverify", "k-1"], ""),
    (
        "knowledge.supersede",
        &["knowledge", "supersede", "k-1", "--by", "k-2"],
        "why",
    ),
    (
        "knowledge.retire",
        &["knowledge", "retire", "k-1", "--reason", "no"],
        "",
    ),
    ("knowledge.verified", &["knowledge", "verified"], ""),
    ("knowledge.check", &["knowledge", "check"], ""),
    ("knowledge.candidates", &["knowledge", "candidates"], ""),
    ("knowledge.status", &["knowledge", "status"], ""),
    ("knowledge.show", &["knowledge", "show", "k-1"], ""),
    ("knowledge.edges", &["knowledge", "edges"], ""),
    ("doctor", &["doctor"], ""),
    ("rules.vendor-update", &["rules", "vendor", "update"], ""),
    ("journal.enable", &["journal", "enable"], ""),
    ("journal.disable", &["journal", "disable"], ""),
    ("journal.status", &["journal", "status"], ""),
    ("journal.publish", &["journal", "publish"], ""),
    ("journal.restore", &["journal", "restore"], ""),
    ("journal.prune", &["journal", "prune"], ""),
    ("hooks.install", &["hooks", "install"], ""),
    ("hooks.acknowledge", &["hooks", "acknowledge"], ""),
];

/// The initialised check is the registry's: every operation it declares needing an
/// initialised repository is refused there with exit 3 and `repository.initialised`, from
/// the CLI and from MCP alike, before anything else about the request is looked at (an MCP
/// call with no arguments at all is refused the same), and nothing is written.
#[test]
fn every_operation_that_needs_init_is_refused_in_one_place() {
    let schema = schema_json();
    let operations = schema["operations"].as_array().expect("a list");
    let needing: BTreeSet<&str> = operations
        .iter()
        .filter(|o| o["initialised"] == true)
        .filter_map(|o| o["name"].as_str())
        .collect();
    let listed: BTreeSet<&str> = NEEDS_INIT.iter().map(|(name, _, _)| *name).collect();
    assert_eq!(listed, needing, "NEEDS_INIT lists every such operation");
    // What runs anywhere: init itself, env, the wiring that needs no .ai/, and the hooks,
    // which step aside.
    let anywhere: BTreeSet<&str> = operations
        .iter()
        .filter(|o| o["initialised"] == false)
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(
        anywhere,
        BTreeSet::from([
            "init",
            "env",
            "hooks.uninstall",
            "setup",
            "hook.post-commit",
            "hook.pre-push",
            "hook.post-rewrite",
            "hook.session-start",
            "hook.session-end",
            "hook.compact",
            "hook.prompt",
            "hook.edit",
        ])
    );

    let repo = TestRepo::new();
    for (name, args, stdin) in NEEDS_INIT {
        let mut json_args = vec!["--format", "json"];
        json_args.extend_from_slice(args);
        let run = repo.run_with_stdin(&json_args, stdin);
        let error = run.json_error(3, "repository.initialised");
        assert_eq!(error["fix"], "majordomus init", "{name}: {run}");
        let human = repo.run_with_stdin(args, stdin);
        assert_eq!(human.code(), 3, "{name}: {human}");
        assert_eq!(
            human.stderr().lines().nth(1),
            Some("fix: majordomus init"),
            "{name}: {human}"
        );
    }

    // Over MCP, every tool of an operation that needs init, called with no arguments.
    let registry = majordomus::ops::Registry::standard();
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let listed = mcp.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    assert!(tools.len() > 20, "{listed}");
    for tool in &tools {
        let tool = tool["name"].as_str().expect("a name");
        let operation = registry
            .iter()
            .find(|op| majordomus::mcp::tool_name(op) == tool)
            .unwrap_or_else(|| panic!("tool {tool} is no operation"));
        let result = mcp.call(tool, json!({}));
        if operation.anywhere {
            continue;
        }
        assert_eq!(result["isError"], true, "{tool}: {result}");
        assert_eq!(
            result["structuredContent"]["error"]["rule"], "repository.initialised",
            "{tool}: {result}"
        );
    }
    mcp.close();
    assert!(!repo.exists(".ai"), "a refused operation wrote .ai/");
}

/// Every printed `fix:` works when run exactly as printed: a fix that starts as a command
/// (`"majordomus ...`) is only the command, with no explanation in parentheses after it
/// (sh would read it as a subshell). Scans every string literal in `src/`.
#[test]
fn no_fix_that_is_a_command_trails_an_explanation() {
    let command = regex::Regex::new(r#""majordomus [a-z][^"]*? \([^"]*""#).expect("a regex");
    // Literals that are not fixes: the version line `env` prints, a worktree's state.
    let not_fixes = [
        "majordomus {} (gix {}",
        "majordomus is not set up there (no .ai/)",
    ];
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut found = Vec::new();
    let mut scanned = 0;
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("dir") {
                stack.push(entry.expect("entry").path());
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for m in command.find_iter(line) {
                scanned += 1;
                if !not_fixes.iter().any(|s| m.as_str().contains(s)) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, m.as_str()));
                }
            }
        }
    }
    assert!(scanned >= 1, "the scan reads the literal it exempts");
    assert!(
        found.is_empty(),
        "fixes with an explanation after the command:\n{}",
        found.join("\n")
    );
}
