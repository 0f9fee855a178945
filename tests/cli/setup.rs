//! `majordomus setup <client>`: the client's files edited in place (every byte of what
//! was there kept, comments included), idempotent, `--dry-run` as a diff that writes
//! nothing, `--remove` back to the original byte for byte, and the wiring it writes
//! actually running.

use serde_json::Value;

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
        ".cursor/mcp.json",
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
        "updated .claude/settings.json: hooks.SessionStart[] added, hooks.SessionEnd[] added, hooks.PreCompact[] added\nupdated .mcp.json: mcpServers.majordomus added\n"
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
    let settings_text = repo.read(".claude/settings.json");
    assert!(
        settings_text.starts_with(
            "{\n    \"permissions\": {\"allow\": [\"Bash(cargo test:*)\"], \"deny\": []},\n"
        ),
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
    let diff = json["files"][1]["diff"].as_str().expect("a diff");
    std::fs::write(repo.base().join("m.json"), MCP_JSON).expect("write");
    std::fs::write(repo.base().join("m.diff"), diff).expect("write");
    let patched = repo.sh_in(repo.base(), "patch -s m.json -o - < m.diff");
    if patched.status.success() {
        assert_eq!(
            String::from_utf8_lossy(&patched.stdout),
            repo.read(".mcp.json")
        );
    } else {
        eprintln!(
            "SKIPPED: applying the diff: patch(1) failed: {}",
            String::from_utf8_lossy(&patched.stderr)
        );
    }
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
