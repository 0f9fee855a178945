//! `majordomus setup <client>`: the client's files edited in place (every byte of what
//! was there kept, comments included), idempotent, `--dry-run` as a diff that writes
//! nothing, `--remove` back to the original byte for byte, and the wiring it writes
//! actually running.

use serde_json::{Value, json};

use crate::common::TestRepo;

/// A hand-formatted `.claude/settings.json` with the user's own hooks and settings.
const CLAUDE_SETTINGS: &str = r#"{
    "permissions": {"allow": ["Bash(cargo test:*)"], "deny": []},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo welcome"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
    },
    "model": "opus"
}
"#;

const MCP_JSON: &str =
    "{\n\t\"mcpServers\": {\n\t\t\"docs\": {\"command\": \"docs-mcp\", \"args\": []}\n\t}\n}\n";

/// Gemini CLI settings may carry comments.
const GEMINI_SETTINGS: &str = r#"{
  // theme first, as the user likes it
  "theme": "GitHub",
  "mcpServers": {
    "github": { "command": "gh-mcp" } /* keep */
  }
}
"#;

const CODEX_CONFIG: &str = "# my codex settings\nmodel = \"o3\"  # fast enough\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n";

/// The files setup may touch, with their text (absent ones left out).
fn client_files(repo: &TestRepo) -> Vec<(String, String)> {
    [
        ".claude/settings.json",
        ".mcp.json",
        ".gemini/settings.json",
        ".codex/config.toml",
        ".codex/hooks.json",
        ".cursor/mcp.json",
        ".cursor/hooks.json",
    ]
    .iter()
    .filter(|p| repo.exists(p))
    .map(|p| ((*p).to_owned(), repo.read(p)))
    .collect()
}

/// JSON with `//` and `/* */` comments stripped (for the Gemini file).
fn parse_jsonc(text: &str) -> Value {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(['/', '"']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with("//") {
            rest = &rest[rest.find('\n').unwrap_or(rest.len())..];
        } else if rest.starts_with("/*") {
            rest = &rest[rest.find("*/").map_or(rest.len(), |e| e + 2)..];
        } else if rest.starts_with('"') {
            let end = 1 + rest[1..].find('"').expect("closing quote");
            out.push_str(&rest[..=end]);
            rest = &rest[end + 1..];
        } else {
            out.push('/');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn claude_code_merges_into_hand_formatted_files_and_comes_out_byte_for_byte() {
    let repo = TestRepo::initialised();
    repo.write(".claude/settings.json", CLAUDE_SETTINGS);
    repo.write(".mcp.json", MCP_JSON);

    let run = repo.run(&["setup", "claude-code"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "updated .claude/settings.json: hooks.SessionStart[] added, hooks.SessionEnd[] added, hooks.PreCompact[] added, hooks.UserPromptSubmit[] added, hooks.PreToolUse[] added, permissions.allow[] (41 majordomus tools) added\nupdated .mcp.json: mcpServers.majordomus added\nstill needs you:\n- Claude Code honours this project's settings (the permissions.allow of .claude/settings.json) and uses the server of .mcp.json only once you trusted the workspace and approved the server (until then `claude -p` refuses the majordomus tool calls and `claude` asks first): run `claude` here and choose \"Yes, I trust this folder\", then \"Use this MCP server\"; or run `f=~/.claude.json; [ -s \"$f\" ] || echo '{{}}' > \"$f\"; jq --arg p {} '.projects[$p].hasTrustDialogAccepted = true | .projects[$p].enabledMcpjsonServers = ((.projects[$p].enabledMcpjsonServers // []) - [\"majordomus\"] + [\"majordomus\"])' \"$f\" > \"$f.majordomus\" && mv \"$f.majordomus\" \"$f\"`\nnext: git add -A -- .claude/settings.json .mcp.json && git commit -m \"majordomus: wire claude-code\" -- .claude/settings.json .mcp.json\n",
            repo.root().display()
        )
    );
    let settings: Value = serde_json::from_str(&repo.read(".claude/settings.json")).expect("JSON");
    assert_eq!(settings["model"], "opus");
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "say done"
    );
    let start = settings["hooks"]["SessionStart"].as_array().expect("list");
    assert_eq!(start.len(), 2, "the user's group stays first: {settings}");
    assert_eq!(start[0]["hooks"][0]["command"], "echo welcome");
    assert_eq!(
        start[1]["hooks"][0]["command"],
        "majordomus hook session-start --provider claude-code"
    );
    assert_eq!(
        settings["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "majordomus hook compact --provider claude-code"
    );
    assert_eq!(
        settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        "majordomus hook prompt --provider claude-code"
    );
    assert_eq!(
        settings["hooks"]["PreToolUse"][0],
        serde_json::json!({"matcher": "Edit|Write|MultiEdit|NotebookEdit",
            "hooks": [{"type": "command", "command": "majordomus hook edit --provider claude-code", "timeout": 30}]})
    );
    let allowed = settings["permissions"]["allow"].as_array().expect("a list");
    assert_eq!(
        allowed[0], "Bash(cargo test:*)",
        "the user's rule stays first"
    );
    assert!(
        allowed.contains(&Value::from("mcp__majordomus__majordomus_recall"))
            && !allowed.contains(&Value::from("mcp__majordomus__majordomus_plan_start")),
        "{allowed:?}"
    );
    let settings_text = repo.read(".claude/settings.json");
    // The tools join the user's one-line list on its line.
    let permissions = settings_text.lines().nth(1).expect("a second line");
    assert!(
        settings_text.starts_with(
            "{\n    \"permissions\": {\"allow\": [\"Bash(cargo test:*)\", \"mcp__majordomus__"
        ) && permissions.ends_with("\"], \"deny\": []},"),
        "the user's lines keep their form:\n{settings_text}"
    );
    let mcp: Value = serde_json::from_str(&repo.read(".mcp.json")).expect("JSON");
    assert_eq!(mcp["mcpServers"]["docs"]["command"], "docs-mcp");
    assert_eq!(
        mcp["mcpServers"]["majordomus"],
        serde_json::json!({"command": "majordomus", "args": ["mcp"]})
    );
    assert!(
        repo.read(".mcp.json")
            .contains("\n\t\t\"majordomus\": {\n\t\t\t\"command\""),
        "tabs, as the file indents: {}",
        repo.read(".mcp.json")
    );

    // Idempotent: nothing changes, not even a modification time.
    let before = repo.files();
    let again = repo.run(&["setup", "claude-code"]).success();
    assert!(
        again
            .stdout()
            .contains("unchanged .mcp.json: mcpServers.majordomus present"),
        "{again}"
    );
    assert_eq!(repo.files(), before, "a second run wrote something");

    let removed = repo.run(&["setup", "claude-code", "--remove"]).success();
    assert!(
        removed.stdout().contains("mcpServers.majordomus removed"),
        "{removed}"
    );
    assert_eq!(repo.read(".claude/settings.json"), CLAUDE_SETTINGS);
    assert_eq!(repo.read(".mcp.json"), MCP_JSON);
    let twice = repo.run(&["setup", "claude-code", "--remove"]).success();
    assert!(
        twice
            .stdout()
            .contains("unchanged .mcp.json: mcpServers.majordomus absent"),
        "{twice}"
    );
}

#[test]
fn files_setup_creates_are_deleted_by_remove() {
    let repo = TestRepo::initialised();
    let before = repo.files();
    let created = repo
        .run(&["--format", "json", "setup", "cursor"])
        .success()
        .json();
    assert_eq!(created["files"][0]["path"], ".cursor/mcp.json");
    assert_eq!(created["files"][0]["action"], "created");
    let mcp: Value = serde_json::from_str(&repo.read(".cursor/mcp.json")).expect("JSON");
    assert_eq!(
        mcp["mcpServers"]["majordomus"]["args"],
        serde_json::json!(["mcp"])
    );
    repo.run(&["setup", "claude-code"]).success();
    assert!(repo.exists(".claude/settings.json") && repo.exists(".mcp.json"));

    let removed = repo
        .run(&["--format", "json", "setup", "cursor", "--remove"])
        .success()
        .json();
    assert_eq!(removed["files"][0]["action"], "deleted");
    repo.run(&["setup", "claude-code", "--remove"]).success();
    assert_eq!(repo.files(), before, "everything setup made is gone");
    assert!(!repo.exists(".cursor") && !repo.exists(".claude"));
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let repo = TestRepo::initialised();
    repo.write(".mcp.json", MCP_JSON);
    let before = repo.files();
    let run = repo.run(&["setup", "claude-code", "--dry-run"]).success();
    assert_eq!(repo.files(), before, "a dry run wrote something");
    let out = run.stdout();
    assert!(
        out.starts_with("would create .claude/settings.json: hooks.SessionStart[] added"),
        "{run}"
    );
    assert!(
        out.contains("--- /dev/null\n+++ b/.claude/settings.json\n"),
        "{run}"
    );
    assert!(out.contains("--- a/.mcp.json\n+++ b/.mcp.json\n"), "{run}");
    assert!(out.contains("-\t\t\"docs\": {\"command\": \"docs-mcp\", \"args\": []}\n+\t\t\"docs\": {\"command\": \"docs-mcp\", \"args\": []},\n+\t\t\"majordomus\": {\n"), "{run}");
    assert!(out.ends_with("dry run: nothing was written\n"), "{run}");

    // The diff is the change: applied with patch, it gives what setup writes.
    let json = repo
        .run(&["--format", "json", "setup", "claude-code", "--dry-run"])
        .success()
        .json();
    assert_eq!(repo.files(), before);
    repo.run(&["setup", "claude-code"]).success();
    assert_eq!(json["files"][1]["path"], ".mcp.json", "{json}");
    let diff = json["files"][1]["diff"].as_str().expect("a diff");
    std::fs::write(repo.base().join("m.json"), MCP_JSON).expect("write");
    std::fs::write(repo.base().join("m.diff"), diff).expect("write");
    let patched = repo.sh_in(repo.base(), "patch -s m.json -o - < m.diff");
    assert!(
        patched.status.success(),
        "patch(1) cannot apply the printed diff: {}",
        String::from_utf8_lossy(&patched.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&patched.stdout),
        repo.read(".mcp.json")
    );
}

#[test]
fn gemini_cli_keeps_comments_and_other_servers() {
    let repo = TestRepo::initialised();
    repo.write(".gemini/settings.json", GEMINI_SETTINGS);
    repo.run(&["setup", "gemini-cli"]).success();
    let text = repo.read(".gemini/settings.json");
    assert!(
        text.starts_with("{\n  // theme first, as the user likes it\n  \"theme\": \"GitHub\",\n"),
        "{text}"
    );
    assert!(text.contains("/* keep */"), "{text}");
    let settings = parse_jsonc(&text);
    assert_eq!(settings["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(
        settings["mcpServers"]["majordomus"]["command"],
        "majordomus"
    );
    let start = &settings["hooks"]["SessionStart"][0]["hooks"][0];
    assert_eq!(start["timeout"], 30000, "milliseconds");
    assert!(
        start["command"]
            .as_str()
            .is_some_and(|c| c.contains("hook session-start --provider gemini-cli")),
        "{start}"
    );
    assert!(settings["hooks"]["PreCompress"].is_array(), "{settings}");
    repo.run(&["setup", "gemini-cli"]).success();
    assert_eq!(repo.read(".gemini/settings.json"), text, "idempotent");
    repo.run(&["setup", "gemini-cli", "--remove"]).success();
    assert_eq!(repo.read(".gemini/settings.json"), GEMINI_SETTINGS);
}

#[test]
fn codex_appends_a_marked_table_and_removes_it() {
    let repo = TestRepo::initialised();
    repo.write(".codex/config.toml", CODEX_CONFIG);
    let dry = repo.run(&["setup", "codex", "--dry-run"]).success();
    assert!(
        dry.stdout()
            .contains("+[mcp_servers.majordomus]\n+command = \"majordomus\"\n+args = [\"mcp\"]\n"),
        "{dry}"
    );
    assert_eq!(repo.read(".codex/config.toml"), CODEX_CONFIG);
    repo.run(&["setup", "codex"]).success();
    let text = repo.read(".codex/config.toml");
    assert!(text.starts_with(CODEX_CONFIG), "{text}");
    assert!(
        text.ends_with("\n[mcp_servers.majordomus]\ncommand = \"majordomus\"\nargs = [\"mcp\"]\n# majordomus setup: end\n"),
        "{text}"
    );
    repo.run(&["setup", "codex"]).success();
    assert_eq!(repo.read(".codex/config.toml"), text, "idempotent");
    // The user's own table of that name is never touched.
    let own = "[mcp_servers.majordomus]\ncommand = \"/opt/bin/majordomus\"\nargs = [\"mcp\"]\n";
    let other = TestRepo::initialised();
    other.write(".codex/config.toml", own);
    let kept = other.run(&["setup", "codex"]).success();
    assert!(kept.stdout().contains("kept"), "{kept}");
    assert_eq!(other.read(".codex/config.toml"), own);

    repo.run(&["setup", "codex", "--remove"]).success();
    assert_eq!(repo.read(".codex/config.toml"), CODEX_CONFIG);
}

#[test]
fn a_file_that_is_not_json_is_refused_and_left_alone() {
    let repo = TestRepo::initialised();
    repo.write(".mcp.json", "{\"mcpServers\": {,}}\n");
    let run = repo.run(&["--format", "json", "setup", "claude-code"]);
    let error = run.json_error(3, "setup.file");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains(".mcp.json")),
        "{error}"
    );
    assert_eq!(repo.read(".mcp.json"), "{\"mcpServers\": {,}}\n");
}

#[test]
fn the_hooks_setup_writes_run() {
    let repo = TestRepo::initialised();
    repo.run(&["setup", "claude-code"]).success();
    let files = client_files(&repo);
    let settings: Value = serde_json::from_str(&files[0].1).expect("JSON");
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command")
        .to_owned();
    let payload = format!(
        "{{\"session_id\": \"s1\", \"hook_event_name\": \"SessionStart\", \"cwd\": \"{}\"}}",
        repo.root().display()
    );
    let subdir = repo.path("docs");
    std::fs::create_dir_all(&subdir).expect("a subdirectory");
    let out = repo.sh_in(&subdir, &format!("echo '{payload}' | {command}"));
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("majordomus episode "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(repo.episode_state().is_some(), "the hook opened an episode");
}

/// The command of `settings.hooks.<event>`'s first hook, in either shape: Claude Code's
/// (Codex, Gemini CLI: `[{hooks: [{command}]}]`) or Cursor's flat `[{command}]`.
fn hook_command(settings: &Value, event: &str) -> String {
    let first = &settings["hooks"][event][0];
    first["hooks"][0]["command"]
        .as_str()
        .or_else(|| first["command"].as_str())
        .unwrap_or_else(|| panic!("no {event} hook: {settings}"))
        .to_owned()
}

/// Runs a hook `command` in `dir` with `payload` on its stdin, as the client does; returns
/// its stdout.
fn run_hook(repo: &TestRepo, dir: &std::path::Path, command: &str, payload: &Value) -> String {
    let file = repo.base().join("payload.json");
    std::fs::write(&file, payload.to_string()).expect("write the payload");
    // The client gives the payload to the shell, so every command of a pipeline sees it.
    let out = repo.sh_in(dir, &format!("{{ {command}; }} < '{}'", file.display()));
    assert!(out.status.success(), "{command}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// An inline `mcp_servers = { ... }` cannot take a `[mcp_servers.majordomus]` after it
/// (TOML forbids it; Codex would not start): refused, nothing written, and the fix works
/// as it reads.
#[test]
fn codex_refuses_an_inline_server_table_with_a_fix_that_works() {
    let repo = TestRepo::initialised();
    let inline = "model = \"o3\"\nmcp_servers = { docs = { command = \"docs-mcp\" } }\n";
    repo.write(".codex/config.toml", inline);
    let before = repo.files();
    let error = repo
        .run(&["--format", "json", "setup", "codex"])
        .json_error(3, "setup.file");
    assert_eq!(repo.files(), before, "a refusal writes nothing");
    let message = error["message"].as_str().expect("a message");
    assert!(
        message
            .starts_with(".codex/config.toml: `mcp_servers = { ... }` (line 2) is an inline table"),
        "{message}"
    );
    let entry = "majordomus = { command = \"majordomus\", args = [\"mcp\"] }";
    assert_eq!(
        error["fix"],
        format!(
            "add `{entry}` inside `mcp_servers = {{ ... }}` on line 2 of .codex/config.toml (setup then finds it present), or write each server of it as a `[mcp_servers.<name>]` table and rerun majordomus setup codex"
        )
    );
    let human = repo.run(&["setup", "codex"]);
    human.assert_human_error(3, "is an inline table");

    // The fix's first way: the entry inside the inline table; setup finds it present and
    // wires the hooks.
    let fixed = inline.replace(" } }", &format!(" }}, {entry} }}"));
    repo.write(".codex/config.toml", &fixed);
    let report = repo
        .run(&["--format", "json", "setup", "codex"])
        .success()
        .json();
    assert_eq!(report["files"][0]["action"], "unchanged", "{report}");
    assert_eq!(
        report["files"][0]["entries"][0]["action"], "present",
        "{report}"
    );
    assert_eq!(repo.read(".codex/config.toml"), fixed);
    assert_eq!(report["files"][1]["path"], ".codex/hooks.json", "{report}");
    assert_eq!(report["files"][1]["action"], "created", "{report}");

    // Its second way: the servers as tables; setup appends its block after them.
    let other = TestRepo::initialised();
    let tables = "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    other.write(".codex/config.toml", tables);
    other.run(&["setup", "codex"]).success();
    assert!(other.read(".codex/config.toml").starts_with(tables));
    assert!(
        other
            .read(".codex/config.toml")
            .contains("\n[mcp_servers.majordomus]\ncommand = \"majordomus\"\n")
    );
}

/// The server already there in any TOML form is found: `present` when it is setup's own
/// (`command` and `args` as setup writes them), `kept` otherwise; the file is not touched.
#[test]
fn codex_finds_an_inline_majordomus_entry_present_or_kept() {
    for (before, action) in [
        (
            "mcp_servers = { majordomus = { command = \"majordomus\", args = [\"mcp\"] } }\n",
            "present",
        ),
        (
            "[mcp_servers]\nmajordomus = { command = \"majordomus\", args = [\"mcp\"] }\n",
            "present",
        ),
        (
            "mcp_servers = { majordomus = { command = \"/opt/bin/majordomus\", args = [\"mcp\"] }, docs = { command = \"d\" } }\n",
            "kept",
        ),
        (
            "[mcp_servers]\nmajordomus = { command = \"majordomus\", args = [\"mcp\", \"--verbose\"] }\n",
            "kept",
        ),
    ] {
        let repo = TestRepo::initialised();
        repo.write(".codex/config.toml", before);
        let report = repo
            .run(&["--format", "json", "setup", "codex"])
            .success()
            .json();
        assert_eq!(
            report["files"][0]["entries"][0]["action"], action,
            "{before}: {report}"
        );
        assert_eq!(repo.read(".codex/config.toml"), before, "untouched");
        // --remove leaves what the user wrote.
        let removed = repo
            .run(&["--format", "json", "setup", "codex", "--remove"])
            .success()
            .json();
        assert_eq!(
            removed["files"][0]["entries"][0]["action"], "kept",
            "{removed}"
        );
        assert_eq!(
            repo.read(".codex/config.toml"),
            before,
            "untouched by --remove"
        );
        assert!(
            !repo.exists(".codex/hooks.json"),
            "setup's hooks file went with --remove"
        );
    }
}

/// A file that is not TOML, or a `mcp_servers` that is not a table, is refused.
#[test]
fn codex_refuses_a_file_that_is_not_toml_and_writes_nothing() {
    for (text, needle) in [
        ("model = \n", "not TOML at line 1"),
        (
            "mcp_servers = \"none\"\n",
            "`mcp_servers` (line 1) is not a table",
        ),
    ] {
        let repo = TestRepo::initialised();
        repo.write(".codex/config.toml", text);
        let error = repo
            .run(&["--format", "json", "setup", "codex"])
            .json_error(3, "setup.file");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains(needle)),
            "{text}: {error}"
        );
        assert_eq!(
            error["fix"],
            "correct .codex/config.toml by hand (or move it aside), then rerun majordomus setup codex"
        );
        assert_eq!(repo.read(".codex/config.toml"), text);
        assert!(
            !repo.exists(".codex/hooks.json"),
            "a refusal writes nothing"
        );
        // The fix as printed: moved aside, setup runs.
        repo.sh_in(
            repo.root(),
            "mv .codex/config.toml .codex/config.toml.aside",
        );
        repo.run(&["setup", "codex"]).success();
    }
}

/// Codex's `.codex/hooks.json` has Claude Code's shape, SessionEnd's timeout at Codex's
/// 3 s; its session-start opens the episode and prints the briefing as plain text.
#[test]
fn codex_hooks_open_and_close_the_episode() {
    let repo = TestRepo::initialised();
    let report = repo
        .run(&["--format", "json", "setup", "codex"])
        .success()
        .json();
    assert_eq!(report["files"][1]["path"], ".codex/hooks.json");
    let hooks: Value = serde_json::from_str(&repo.read(".codex/hooks.json")).expect("JSON");
    assert_eq!(
        hooks["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3,
        "{hooks}"
    );
    assert_eq!(hooks["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 30);
    assert_eq!(
        hooks["hooks"]["SessionStart"][0]["hooks"][0]["type"],
        "command"
    );
    let payload = |event: &str| {
        serde_json::json!({
            "session_id": "019a-codex", "hook_event_name": event, "source": "startup",
            "cwd": repo.root(), "model": "gpt-5", "transcript_path": null
        })
    };
    let said = run_hook(
        &repo,
        repo.base(),
        &hook_command(&hooks, "SessionStart"),
        &payload("SessionStart"),
    );
    let episode = repo.episode_state().expect("the hook opened an episode");
    assert_eq!(episode["provider"], "codex");
    assert!(
        said.starts_with(&format!(
            "majordomus episode {}\n",
            episode["id"].as_str().expect("id")
        )),
        "{said}"
    );
    run_hook(
        &repo,
        repo.base(),
        &hook_command(&hooks, "SessionEnd"),
        &payload("SessionEnd"),
    );
    assert!(repo.episode_state().is_none(), "the hook closed it");
    assert_eq!(repo.ledger_events("session.closed").len(), 1);
}

/// Cursor's `.cursor/hooks.json` (`version: 1`, flat `{command, timeout}` lists): its
/// payload has no `cwd`, so the hooks find the repository in `workspace_roots`, from any
/// directory; sessionStart answers JSON whose `additional_context` is the briefing.
#[test]
fn cursor_hooks_find_the_repository_in_workspace_roots() {
    let repo = TestRepo::initialised();
    repo.run(&["setup", "cursor"]).success();
    let hooks: Value = serde_json::from_str(&repo.read(".cursor/hooks.json")).expect("JSON");
    assert_eq!(hooks["version"], 1, "{hooks}");
    for event in ["sessionStart", "sessionEnd", "preCompact"] {
        assert_eq!(hooks["hooks"][event][0]["timeout"], 30, "{event}: {hooks}");
    }
    let payload = |event: &str| {
        serde_json::json!({
            "conversation_id": "c0ffee", "generation_id": "g1", "hook_event_name": event,
            "workspace_roots": [repo.root()], "cursor_version": "2.0.77",
            "session_id": "c0ffee", "is_background_agent": false, "composer_mode": "agent"
        })
    };
    // Outside the repository: only the payload names it.
    let said = run_hook(
        &repo,
        repo.base(),
        &hook_command(&hooks, "sessionStart"),
        &payload("sessionStart"),
    );
    let answer: Value = serde_json::from_str(&said).unwrap_or_else(|e| panic!("{e}: {said}"));
    assert_eq!(answer["continue"], true, "{answer}");
    let context = answer["additional_context"].as_str().expect("the briefing");
    assert!(context.contains("## What the repository knows"), "{said}");
    let episode = repo.episode_state().expect("the hook opened an episode");
    assert_eq!(episode["provider"], "cursor");
    let opened = repo.ledger_events("session.opened");
    assert_eq!(opened.len(), 1);

    run_hook(
        &repo,
        repo.base(),
        &hook_command(&hooks, "preCompact"),
        &payload("preCompact"),
    );
    assert_eq!(
        repo.ledger_events("checkpoint.recorded").len(),
        1,
        "the compact checkpoint"
    );
    run_hook(
        &repo,
        repo.base(),
        &hook_command(&hooks, "sessionEnd"),
        &payload("sessionEnd"),
    );
    assert!(repo.episode_state().is_none(), "the hook closed it");
    assert_eq!(
        repo.ledger_events("provider.event.failed"),
        Vec::<Value>::new()
    );
}

/// Gemini CLI runs PreCompress before every turn: a compact with nothing changed since
/// the last one writes nothing (no ledger line, no file), and a change is checkpointed.
#[test]
fn a_compact_with_nothing_changed_since_the_last_writes_nothing() {
    let repo = TestRepo::initialised();
    repo.run(&["setup", "gemini-cli"]).success();
    let settings = parse_jsonc(&repo.read(".gemini/settings.json"));
    let payload = |event: &str| {
        serde_json::json!({
            "session_id": "gem-1", "hook_event_name": event, "cwd": repo.root(),
            "timestamp": "2026-11-30T10:00:00Z", "trigger": "auto"
        })
    };
    run_hook(
        &repo,
        repo.root(),
        &hook_command(&settings, "SessionStart"),
        &payload("SessionStart"),
    );
    let compact = hook_command(&settings, "PreCompress");
    run_hook(&repo, repo.root(), &compact, &payload("PreCompress"));
    let checkpoints = repo.ledger_events("checkpoint.recorded");
    assert_eq!(checkpoints.len(), 1, "the first compact checkpoints");
    let (ledger, files) = (repo.ledger_text(), repo.files());

    for _ in 0..2 {
        run_hook(&repo, repo.root(), &compact, &payload("PreCompress"));
        assert_eq!(
            repo.ledger_text(),
            ledger,
            "a second compact appended a line"
        );
        assert_eq!(repo.files(), files, "a second compact wrote a file");
    }

    // A change in the work tree, or a ledger line since, is checkpointed again.
    repo.write("notes.txt", "a change\n");
    run_hook(&repo, repo.root(), &compact, &payload("PreCompress"));
    let checkpoints = repo.ledger_events("checkpoint.recorded");
    assert_eq!(checkpoints.len(), 2, "{checkpoints:?}");
    assert!(
        checkpoints[1]["data"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("compact: ") && t.contains("notes.txt")),
        "{checkpoints:?}"
    );
    run_hook(&repo, repo.root(), &compact, &payload("PreCompress"));
    assert_eq!(repo.ledger_events("checkpoint.recorded").len(), 2);
    repo.run(&["decision", "Notes stay in notes.txt"]).success();
    run_hook(&repo, repo.root(), &compact, &payload("PreCompress"));
    assert_eq!(repo.ledger_events("checkpoint.recorded").len(), 3);
}

/// The prompt and edit hooks setup writes run as each client calls them: the edit hook (on
/// the event and matcher setup chose) records the edited file as `agent.touched`, and the
/// prompt hook answers.
#[test]
fn the_recall_hooks_setup_writes_run() {
    // (client, its settings file, prompt event, edit event, matcher, edit payload)
    let cases = [
        (
            "claude-code",
            ".claude/settings.json",
            Some("UserPromptSubmit"),
            "PreToolUse",
            Some("Edit|Write|MultiEdit|NotebookEdit"),
            serde_json::json!({"tool_name": "Edit", "tool_input": {"file_path": "src/lib.rs"}}),
        ),
        (
            "codex",
            ".codex/hooks.json",
            Some("UserPromptSubmit"),
            "PreToolUse",
            Some("apply_patch|Bash"),
            serde_json::json!({"tool_name": "apply_patch", "tool_input": {"command":
                "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch\n"}}),
        ),
        (
            "gemini-cli",
            ".gemini/settings.json",
            Some("BeforeAgent"),
            "AfterTool",
            Some("write_file|replace"),
            serde_json::json!({"tool_name": "write_file", "tool_input": {"file_path": "src/lib.rs"}}),
        ),
        (
            "cursor",
            ".cursor/hooks.json",
            None,
            "afterFileEdit",
            None,
            serde_json::json!({"file_path": "src/lib.rs"}),
        ),
    ];
    for (client, file, prompt, edit, matcher, mut payload) in cases {
        let repo = TestRepo::initialised();
        repo.write("src/lib.rs", "pub fn a() {}\n");
        // An earlier episode decided something a prompt's words find.
        repo.start_episode();
        repo.run(&["decision", DECIDED]).success();
        repo.run(&["session", "close"]).success();
        repo.run(&["setup", client]).success();
        let settings = parse_jsonc(&repo.read(file));
        let group = &settings["hooks"][edit][0];
        assert_eq!(group["matcher"].as_str(), matcher, "{client}: {settings}");
        let command = hook_command(&settings, edit);
        assert_eq!(
            command,
            format!("majordomus hook edit --provider {client}"),
            "{client}"
        );
        repo.start_episode();
        payload["hook_event_name"] = Value::from(edit);
        payload["cwd"] = Value::from(repo.root().display().to_string());
        run_hook(&repo, repo.root(), &command, &payload);
        let touched = repo.ledger_events("agent.touched");
        assert_eq!(touched.len(), 1, "{client}: {}", repo.ledger_text());
        assert_eq!(
            touched[0]["data"]["paths"],
            serde_json::json!(["src/lib.rs"])
        );
        assert_eq!(touched[0]["data"]["provider"], client);
        if let Some(event) = prompt {
            let command = hook_command(&settings, event);
            assert_eq!(
                command,
                format!("majordomus hook prompt --provider {client}")
            );
            // The recall index is built by a read (a briefing, a recall).
            repo.run(&["recall", "lexer"]).success();
            let payload = serde_json::json!({"hook_event_name": event,
                "prompt": "Why does the lexer reject tab characters in indentation?",
                "cwd": repo.root().display().to_string()});
            let out = run_hook(&repo, repo.root(), &command, &payload);
            // What the client reads: the earlier decision, in its context field, under the
            // event the payload named; and the showing is on record.
            let read: Value = serde_json::from_str(&out).unwrap_or_else(|e| {
                panic!("{client}: the prompt hook printed no JSON ({e}): {out:?}")
            });
            assert_eq!(
                read["hookSpecificOutput"]["hookEventName"], event,
                "{client}: {out}"
            );
            let context = read["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_else(|| panic!("{client}: no additionalContext: {out}"));
            assert!(
                context.starts_with("majordomus recalled for this prompt")
                    && context.contains(DECIDED),
                "{client}: {context}"
            );
            let shown = repo.ledger_events("context.shown");
            assert!(
                shown.iter().any(|l| l["data"]["where"] == "prompt"),
                "{client}: {}",
                repo.ledger_text()
            );
            assert!(
                !repo
                    .ledger_text()
                    .contains("tab characters in indentation?"),
                "{client}: the prompt was stored"
            );
        }
    }
}

/// The decision the recall-hook test's prompt finds.
const DECIDED: &str = "The lexer rejects tab characters in indentation";

/// The findings of `rule` in a `doctor --format json` run.
fn rule_findings(repo: &TestRepo, rule: &str) -> (Value, Vec<Value>) {
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let result = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == rule)
        .unwrap_or_else(|| panic!("{rule} did not run: {doctor:#}"))
        .clone();
    let findings = result["findings"].as_array().cloned().unwrap_or_default();
    (result, findings)
}

/// Codex runs the hooks setup wrote only in a trusted project and once the user trusted
/// each hook: doctor says when either is missing from Codex's config, with the fix, and
/// passes once Codex's config records both (as Codex writes them: tests/cli/clients.rs
/// checks the keys against Codex itself).
#[test]
fn doctor_says_when_codex_cannot_run_the_hooks_setup_wrote() {
    const RULE: &str = "majordomus.client-hooks";
    let repo = TestRepo::initialised();
    let (result, findings) = rule_findings(&repo, RULE);
    assert_eq!(result["status"], "pass", "no Codex wiring, nothing to say");
    assert!(findings.is_empty());

    repo.run(&["setup", "codex"]).success();
    let root = repo.root().display().to_string();
    // A teammate who never ran Codex (no ~/.codex): one finding, information only.
    let (result, findings) = rule_findings(&repo, RULE);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["informational"], true, "{findings:#?}");
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("so this machine's user does not run Codex")),
        "{findings:#?}"
    );
    assert_eq!(result["status"], "fail", "{result:#}");
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    assert_eq!(
        (doctor["advisory"].clone(), doctor["informational"].clone()),
        (json!(0), json!(1)),
        "{doctor:#}"
    );
    let human = repo.run(&["doctor"]).success();
    assert!(
        human.stdout().contains(
            "     INFO .codex/hooks.json [majordomus.client-hooks] this repository wires Codex"
        ),
        "{human}"
    );

    // A user who runs Codex here: what keeps the hooks from running is a warning.
    repo.write_home(
        ".codex/config.toml",
        "check_for_update_on_startup = false\n",
    );
    let (result, findings) = rule_findings(&repo, RULE);
    assert_eq!(result["status"], "fail", "{result:#}");
    assert_eq!(result["severity"], "advisory");
    assert_eq!(findings.len(), 2, "{findings:#?}");
    let project = &findings[0];
    assert_eq!(project["file"], ".codex/config.toml");
    let fix = project["fix"].as_str().expect("a fix");
    let table = format!("[projects.{}]", serde_json::json!(root));
    // setup's own step, word for word.
    let setup = repo
        .run(&["--format", "json", "setup", "codex"])
        .success()
        .json();
    assert_eq!(setup["needs_user"][0]["how"], fix, "{setup:#}");
    assert!(
        fix.starts_with("choose \"Trust and continue\" when `codex` asks \"Trust this folder?\" at its first start here; or run `")
            && fix.contains(&format!("grep -qxF '{table}'")),
        "{fix}"
    );
    let hooks = &findings[1];
    assert_eq!(hooks["file"], ".codex/hooks.json");
    let message = hooks["message"].as_str().expect("a message");
    assert!(
        message.contains("records no trust for 5 of them (PreCompact, PreToolUse, SessionEnd, SessionStart, UserPromptSubmit)"),
        "{message}"
    );
    assert!(
        hooks["fix"]
            .as_str()
            .is_some_and(|f| f.contains("\"Trust all and continue\"")),
        "{hooks:#}"
    );

    // The project's trust, by the fix's command run as printed.
    let command = fix
        .split_once("; or run `")
        .and_then(|(_, c)| c.strip_suffix('`'))
        .expect("the fix's command");
    repo.run_printed(command);
    let (_, findings) = rule_findings(&repo, RULE);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["file"], ".codex/hooks.json");
    let mut config = repo.read_home(".codex/config.toml");
    assert!(
        config.ends_with(&format!("\n{table}\ntrust_level = \"trusted\"\n")),
        "{config}"
    );
    // A table the user set otherwise is theirs to change: said, by hand.
    repo.write_home(
        ".codex/config.toml",
        &config.replace("trust_level = \"trusted\"", "trust_level = \"untrusted\""),
    );
    let (_, findings) = rule_findings(&repo, RULE);
    assert_eq!(
        findings[0]["fix"],
        format!(
            "set `trust_level = \"trusted\"` under `{table}` in {}/.codex/config.toml (by hand: it was set to \"untrusted\")",
            repo.base().join("home").display()
        ),
        "{findings:#?}"
    );
    repo.write_home(".codex/config.toml", &config);

    // What Codex records when the user trusts the hooks: a hash per hook, by its key.
    let keys = [
        "session_start",
        "session_end",
        "pre_compact",
        "user_prompt_submit",
    ];
    for event in keys {
        config.push_str(&format!(
            "\n[hooks.state.\"{root}/.codex/hooks.json:{event}:0:0\"]\ntrusted_hash = \"sha256:0123\"\n"
        ));
    }
    repo.write_home(".codex/config.toml", &config);
    let (_, findings) = rule_findings(&repo, RULE);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("for 1 of them (PreToolUse)")),
        "{findings:#?}"
    );
    config.push_str(&format!(
        "\n[hooks.state.\"{root}/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:4567\"\nenabled = false\n"
    ));
    repo.write_home(".codex/config.toml", &config);
    let (_, findings) = rule_findings(&repo, RULE);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert!(
        findings[0]["message"].as_str().is_some_and(|m| m
            .contains("1 majordomus hook(s) turned off")
            && m.contains("PreToolUse")),
        "{findings:#?}"
    );
    repo.write_home(
        ".codex/config.toml",
        &config.replace("enabled = false\n", "enabled = true\n"),
    );
    let (result, findings) = rule_findings(&repo, RULE);
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(result["status"], "pass");
    assert!(
        result["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("Codex's config records trust for 5 majordomus hook(s)")),
        "{result:#}"
    );
}

#[test]
fn in_a_linked_worktree_claude_codes_trust_is_named_by_the_main_work_tree() {
    let repo = TestRepo::initialised();
    repo.git(&["worktree", "add", "-q", "../linked", "-b", "linked"]);
    let linked = repo.root().parent().expect("a parent").join("linked");
    let run = repo.run_in(&linked, &["setup", "claude-code"]).success();
    let main = repo.root().canonicalize().expect("the main work tree");
    assert!(
        run.stdout().contains(&format!(
            "jq --arg p {} '.projects[$p].hasTrustDialogAccepted = true | ",
            main.display()
        )) && run
            .stdout()
            .contains("` (Claude Code keys a linked worktree's trust by its main work tree)\n"),
        "{run}"
    );
}

/// `setup claude` is `setup claude-code` (and `setup gemini` is `setup gemini-cli`); setup
/// ends with the commit line, as `init` does, while there is something to commit, and that
/// line works as printed, for wiring and for `--remove`.
#[test]
fn setup_takes_the_short_names_and_ends_with_a_commit_that_works_as_printed() {
    for (name, client) in [
        ("claude", "claude-code"),
        ("gemini", "gemini-cli"),
        ("codex", "codex"),
        ("cursor", "cursor"),
    ] {
        let repo = TestRepo::initialised();
        // A change of the user's own, staged: the commit takes only setup's files.
        repo.write("notes.txt", "mine\n");
        repo.git(&["add", "notes.txt"]);
        let run = repo.run(&["setup", name]).success();
        let json = repo
            .run(&["--format", "json", "setup", name, "--dry-run"])
            .success()
            .json();
        assert_eq!(json["client"], client, "{json}");
        let next = crate::common::next_lines(run.stdout());
        assert_eq!(next.len(), 1, "{name}: {run}");
        assert!(
            next[0].starts_with("git add -A -- ")
                && next[0].contains(&format!("git commit -m \"majordomus: wire {client}\" -- ")),
            "{name}: {run}"
        );
        assert!(
            run.stdout().ends_with(&format!("next: {}\n", next[0])),
            "{run}"
        );
        repo.run_printed(&next[0]);
        assert_eq!(
            repo.git(&["status", "--porcelain"]),
            "A  notes.txt",
            "{name}"
        );
        // Nothing left to commit: no commit line.
        let again = repo.run(&["setup", name]).success();
        assert!(
            crate::common::next_lines(again.stdout()).is_empty(),
            "{again}"
        );
        // Removing it: the commit of the removal works as printed too.
        let removed = repo.run(&["setup", name, "--remove"]).success();
        let next = crate::common::next_lines(removed.stdout());
        assert_eq!(next.len(), 1, "{name}: {removed}");
        assert!(
            next[0].contains(&format!("\"majordomus: unwire {client}\"")),
            "{removed}"
        );
        repo.run_printed(&next[0]);
        assert_eq!(
            repo.git(&["status", "--porcelain"]),
            "A  notes.txt",
            "{name}"
        );
        assert_eq!(
            repo.git(&["ls-tree", "-r", "--name-only", "HEAD"])
                .lines()
                .filter(|p| p.starts_with(".claude")
                    || p.starts_with(".gemini")
                    || p.starts_with(".codex")
                    || p.starts_with(".cursor")
                    || *p == ".mcp.json")
                .count(),
            0,
            "{name}"
        );
    }
}

/// The files `setup` writes for the clients are majordomus's wiring, not the work: left
/// uncommitted, they put nothing at hand (and no record "near" them before the model).
#[test]
fn the_wiring_setup_writes_is_not_the_work_at_hand() {
    let repo = TestRepo::initialised();
    repo.commit("CHANGES.md", "# Changes\n", "Add the changelog");
    crate::recall::curated_citing(&repo, 1, "CHANGES.md", "The changelog lists every release");
    for client in ["claude-code", "gemini-cli", "codex", "cursor"] {
        repo.run(&["setup", client]).success();
    }
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    assert_eq!(json["context"]["at_hand"], json!([]), "{json}");
    assert_eq!(json["context"]["weighed"], json!([]), "{json}");
    // A file of the work beside them is at hand.
    repo.write("src/lib.rs", "pub fn f() {}\n");
    let json = repo
        .run(&["recall", "--at-hand", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        json["context"]["at_hand"],
        json!(["1 uncommitted change(s)"]),
        "{json}"
    );
}
