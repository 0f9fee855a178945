//! `majordomus setup <client>`: wires an agent client to this repository (its session
//! hooks, the MCP server, and where the client has a project setting for it, the tools an
//! agent may call unasked) by editing the client's project files in place: only our
//! entries are inserted or removed, every other byte stays; a second run changes nothing;
//! `remove` takes out exactly what was added. What only the user can do (approve the
//! server, trust the folder or the hooks) is said, with the command or the click.

mod diff;
mod json;
mod toml;

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::store::StoreError;
use json::Entry;

/// `setup`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetupRequest {
    /// The agent client to wire.
    pub client: Client,
    /// Show the change as a diff and write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Take out what setup added instead.
    #[serde(default)]
    pub remove: bool,
    /// Write no tool permissions: every majordomus tool call then asks first (and a
    /// headless run, which cannot ask, goes without).
    #[serde(default)]
    pub no_permissions: bool,
    /// The MCP tools an agent may call without asking (those that only read, or only add
    /// to the memory), filled in by the registry entry; never part of a request.
    #[serde(skip)]
    pub unasked: Vec<String>,
}

/// The agent clients setup knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    /// `.claude/settings.json` (hooks) and `.mcp.json` (the MCP server).
    ClaudeCode,
    /// `.gemini/settings.json` (hooks and the MCP server).
    GeminiCli,
    /// `.codex/config.toml` (the MCP server) and `.codex/hooks.json` (hooks).
    Codex,
    /// `.cursor/mcp.json` (the MCP server) and `.cursor/hooks.json` (hooks).
    Cursor,
}

impl Client {
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::GeminiCli => "gemini-cli",
            Client::Codex => "codex",
            Client::Cursor => "cursor",
        }
    }
}

/// Every file setup writes for a client ([`crate::model::wiring::WIRING`]).
pub use crate::model::wiring::WIRING;

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    Created,
    Updated,
    /// Removing our entries left nothing of the file: it was setup's, and is gone.
    Deleted,
    Unchanged,
}

/// What happened to one entry of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryAction {
    Added,
    Removed,
    /// Already there as setup writes it.
    Present,
    /// Not there: nothing to remove.
    Absent,
    /// Something the user wrote holds the place; left alone (see `note`).
    Kept,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntryChange {
    /// Where in the file: `mcpServers.majordomus`, `hooks.SessionStart[]`.
    pub entry: String,
    pub action: EntryAction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileChange {
    /// Relative to the repository root.
    pub path: String,
    pub action: FileAction,
    pub entries: Vec<EntryChange>,
    /// The unified diff of the change (empty when unchanged).
    pub diff: String,
}

/// Something only the user can do for the wiring to work: the client asks a person.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UserStep {
    /// What waits for it.
    pub what: String,
    /// The click to make (the client's own words), and the command that does the same.
    pub how: String,
    /// The command `how` names, to run as it is (in a POSIX shell, in this repository, as
    /// the user who runs the client); absent where only the client's own dialog does it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SetupReport {
    pub client: Client,
    pub dry_run: bool,
    pub remove: bool,
    pub files: Vec<FileChange>,
    /// What still needs the user once the files are written (nothing after `remove`).
    pub needs_user: Vec<UserStep>,
    /// The files setup wrote that HEAD does not hold as they are now: what the `next:`
    /// line commits (empty: nothing to commit, or a dry run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
}

/// How an entry edit went (shared by the JSON and TOML editors).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Added,
    Removed,
    Present,
    Absent,
    Kept(String),
}

/// Why a file's text cannot be edited in place, and what to do about it when the
/// general fix (correct the file by hand) is not the one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct EditError {
    message: String,
    fix: Option<String>,
}

impl EditError {
    fn new(message: impl Into<String>) -> EditError {
        EditError {
            message: message.into(),
            fix: None,
        }
    }
}

/// How a client's file is edited.
enum Edits {
    /// JSON entries; `frame` (Cursor's `"version": 1`) is added first when missing and
    /// taken out only with the last of the entries (other hooks may need it).
    Json {
        entries: Vec<Entry>,
        frame: Option<Entry>,
    },
    /// A TOML table (the MCP server), in setup's marked block.
    Toml(toml::Server),
}

struct Planned {
    path: &'static str,
    edits: Edits,
}

/// The command the client runs for a provider hook: no `-C`, since a provider hook
/// opens the repository of its payload's `cwd` when started elsewhere.
fn hook_command(hook: &str, client: Client) -> String {
    format!("majordomus hook {hook} --provider {}", client.name())
}

/// A JSON string literal.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// Codex's `[mcp_servers.majordomus]`.
const CODEX_SERVER: toml::Server = toml::Server {
    table: "mcp_servers",
    key: "majordomus",
    command: "majordomus",
    args: &["mcp"],
};

/// The session-start command for clients that read a hook's stdout as JSON: majordomus's
/// `--format json` answer, its `briefing` turned by `jq` into the shape the client reads.
fn json_start(client: Client, shape: &str) -> String {
    format!(
        "majordomus --format json hook session-start --provider {} | jq -c '{shape}'",
        client.name()
    )
}

fn json_entries(entries: Vec<Entry>) -> Edits {
    Edits::Json {
        entries,
        frame: None,
    }
}

fn mcp_server() -> Entry {
    Entry::Member {
        path: vec!["mcpServers".into()],
        key: "majordomus".into(),
        value: r#"{"command": "majordomus", "args": ["mcp"]}"#.into(),
    }
}

/// A matcher group with one command handler, `fields` (JSON members) before the command
/// and `timeout` after it.
fn hook(event: &str, fields: &str, command: String, timeout: u32) -> Entry {
    matched(event, None, fields, command, timeout)
}

/// [`hook`], its group limited to the tools `matcher` (a regular expression) names.
fn matched(
    event: &str,
    matcher: Option<&str>,
    fields: &str,
    command: String,
    timeout: u32,
) -> Entry {
    let matcher = matcher.map_or_else(String::new, |m| format!(r#""matcher": {}, "#, quoted(m)));
    Entry::Element {
        path: vec!["hooks".into(), event.into()],
        value: format!(
            r#"{{{matcher}"hooks": [{{{fields}"type": "command", "command": {}, "timeout": {timeout}}}]}}"#,
            quoted(&command)
        ),
        marker: command,
    }
}

/// The editing tools of Claude Code, as its hook matcher names them (`EDIT_TOOLS` in
/// src/model/moment.rs).
const CLAUDE_EDITS: &str = "Edit|Write|MultiEdit|NotebookEdit";
/// Gemini CLI's editing tools.
const GEMINI_EDITS: &str = "write_file|replace";
/// Codex's editing tool, and its shell: Codex (0.171) names an `apply_patch` the model
/// runs in the shell `Bash` in its hooks (`hook edit` passes over any other command).
const CODEX_EDITS: &str = "apply_patch|Bash";

/// The tools an agent may call unasked, as a client's list of them.
fn tool_list(path: &[&str], tools: Vec<String>) -> Entry {
    Entry::Strings {
        path: path.iter().map(|p| (*p).to_owned()).collect(),
        values: tools,
        label: "majordomus tools",
    }
}

/// What setup writes for `client` (docs/MCP.md shows the same, docs/HOOKS.md explains the
/// hooks); `unasked` the tools an agent may call without asking, where the client has a
/// project setting for them (none with `--no-permissions`).
fn plan(client: Client, unasked: &[String]) -> Vec<Planned> {
    match client {
        Client::ClaudeCode => {
            // Claude Code's timeouts are in seconds.
            let claude = |event: &str, name: &str| hook(event, "", hook_command(name, client), 30);
            let mut settings = vec![
                claude("SessionStart", "session-start"),
                claude("SessionEnd", "session-end"),
                claude("PreCompact", "compact"),
                // Prompt-time and edit-time recall: `additionalContext` before the model
                // reads the prompt, and before it reads the edit's result.
                claude("UserPromptSubmit", "prompt"),
                matched(
                    "PreToolUse",
                    Some(CLAUDE_EDITS),
                    "",
                    hook_command("edit", client),
                    30,
                ),
            ];
            if !unasked.is_empty() {
                // An MCP tool is `mcp__<server>__<tool>` in Claude Code's rules.
                settings.push(tool_list(
                    &["permissions", "allow"],
                    unasked
                        .iter()
                        .map(|t| format!("mcp__majordomus__{t}"))
                        .collect(),
                ));
            }
            vec![
                Planned {
                    path: ".claude/settings.json",
                    edits: json_entries(settings),
                },
                Planned {
                    path: ".mcp.json",
                    edits: json_entries(vec![mcp_server()]),
                },
            ]
        }
        Client::GeminiCli => {
            // Gemini CLI reads a hook's stdout as JSON: the briefing reaches the model as
            // `additionalContext` (docs/HOOKS.md, "Wiring Gemini CLI").
            let start = json_start(
                client,
                r#"{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: (.briefing // "")}}"#,
            );
            let end = format!("{} 2>/dev/null", hook_command("session-end", client));
            let compact = hook_command("compact", client);
            // Gemini CLI's timeouts are in milliseconds.
            let gemini = |event: &str, name: &str, command: String| {
                hook(
                    event,
                    &format!(r#""name": {}, "#, quoted(name)),
                    command,
                    30000,
                )
            };
            let mut settings = vec![
                gemini("SessionStart", "majordomus-session-start", start),
                gemini("SessionEnd", "majordomus-session-end", end),
                gemini("PreCompress", "majordomus-compact", compact),
                // Prompt-time recall before the model reads the prompt; edit-time recall
                // after the edit (BeforeTool cannot add to the model's context, AfterTool's
                // `additionalContext` reaches the next request).
                gemini(
                    "BeforeAgent",
                    "majordomus-prompt",
                    hook_command("prompt", client),
                ),
                matched(
                    "AfterTool",
                    Some(GEMINI_EDITS),
                    r#""name": "majordomus-edit", "#,
                    hook_command("edit", client),
                    30000,
                ),
                mcp_server(),
            ];
            if !unasked.is_empty() {
                // Gemini CLI has no project setting for one tool (workspace policies are
                // off in 0.61, `tools.allowed` is deprecated and warns at every start):
                // the server's `trust` allows every tool it offers, and `includeTools`
                // offers only those.
                settings.push(Entry::Member {
                    path: vec!["mcpServers".into(), "majordomus".into()],
                    key: "trust".into(),
                    value: "true".into(),
                });
                settings.push(tool_list(
                    &["mcpServers", "majordomus", "includeTools"],
                    unasked.to_vec(),
                ));
            }
            vec![Planned {
                path: ".gemini/settings.json",
                edits: json_entries(settings),
            }]
        }
        Client::Codex => {
            // Codex's hooks.json has Claude Code's shape; plain stdout of SessionStart
            // reaches the model. Timeouts are in seconds, and Codex clamps SessionEnd's
            // to 3 (and warns at every start when it is set higher). No permissions:
            // Codex asks for an MCP tool only when its annotations say it is destructive
            // or reaches beyond the repository, which is the line `unasked` draws.
            let codex = |event: &str, name: &str, timeout: u32| {
                hook(event, "", hook_command(name, client), timeout)
            };
            vec![
                Planned {
                    path: ".codex/config.toml",
                    edits: Edits::Toml(CODEX_SERVER),
                },
                Planned {
                    path: ".codex/hooks.json",
                    edits: json_entries(vec![
                        codex("SessionStart", "session-start", 30),
                        codex("SessionEnd", "session-end", 3),
                        codex("PreCompact", "compact", 30),
                        codex("UserPromptSubmit", "prompt", 30),
                        matched(
                            "PreToolUse",
                            Some(CODEX_EDITS),
                            "",
                            hook_command("edit", client),
                            30,
                        ),
                    ]),
                },
            ]
        }
        Client::Cursor => {
            // Cursor's hooks.json: `"version": 1`, then per event a flat list of
            // `{command, timeout}` (seconds). Its sessionStart reads JSON from stdout:
            // `additional_context` reaches the model.
            let cursor = |event: &str, command: String| Entry::Element {
                path: vec!["hooks".into(), event.into()],
                value: format!(r#"{{"command": {}, "timeout": 30}}"#, quoted(&command)),
                marker: command,
            };
            vec![
                Planned {
                    path: ".cursor/mcp.json",
                    edits: json_entries(vec![mcp_server()]),
                },
                Planned {
                    path: ".cursor/hooks.json",
                    edits: Edits::Json {
                        entries: vec![
                            cursor(
                                "sessionStart",
                                json_start(
                                    client,
                                    r#"{additional_context: (.briefing // ""), continue: true}"#,
                                ),
                            ),
                            cursor("sessionEnd", hook_command("session-end", client)),
                            cursor("preCompact", hook_command("compact", client)),
                            // Capture only: Cursor cannot add context after an edit.
                            cursor("afterFileEdit", hook_command("edit", client)),
                        ],
                        frame: Some(Entry::Member {
                            path: Vec::new(),
                            key: "version".into(),
                            value: "1".into(),
                        }),
                    },
                },
            ]
        }
    }
}

/// Wires `request.client` (or, with `remove`, unwires it); with `dry_run` only says how.
/// Every file is edited in memory first: a file that cannot be edited refuses the whole
/// setup before anything is written.
pub fn setup(ctx: &Ctx, request: SetupRequest) -> Result<SetupReport, Error> {
    let root = ctx.layout.root();
    let unasked: &[String] = if request.no_permissions {
        &[]
    } else {
        &request.unasked
    };
    let mut changes = Vec::new();
    for planned in plan(request.client, unasked) {
        let path = root.join(planned.path);
        let before = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(StoreError::io(&path, e).into()),
        };
        let change = edit(request.client, planned, before.as_deref(), request.remove)?;
        changes.push((path, before, change));
    }
    let mut files = Vec::new();
    let mut after_write: Vec<(String, Option<String>)> = Vec::new();
    for (path, before, change) in changes {
        if !request.dry_run && change.after.as_deref() != before.as_deref() {
            write(root, &path, change.after.as_deref())?;
        }
        after_write.push((change.file.path.clone(), change.after.clone()));
        files.push(change.file);
    }
    // What a commit would take: each file as setup leaves it, against HEAD.
    let uncommitted = if request.dry_run {
        Vec::new()
    } else {
        let at_head = ctx
            .repo
            .blob_ids_at(None, after_write.iter().map(|(p, _)| p.as_str()))?;
        let mut out = Vec::new();
        for (rel, text) in &after_write {
            let now = match text {
                Some(text) => Some(ctx.repo.blob_id(text.as_bytes())?),
                None => None,
            };
            if now.as_ref() != at_head.get(rel) {
                out.push(rel.clone());
            }
        }
        out
    };
    let needs_user = if request.remove {
        Vec::new()
    } else {
        // Claude Code keys a linked worktree's trust by its main work tree.
        let trusted = ctx.repo.main_worktree();
        user_steps(request.client, root, trusted.as_deref(), unasked.is_empty())
    };
    Ok(SetupReport {
        client: request.client,
        dry_run: request.dry_run,
        remove: request.remove,
        files,
        needs_user,
        uncommitted,
    })
}

/// The command that records in Claude Code's `~/.claude.json` what its two dialogs do for
/// `key` (a work tree): the workspace trusted (`hasTrustDialogAccepted`) and the server of
/// `.mcp.json` approved (`enabledMcpjsonServers`, which Claude Code moves into the
/// project's git-ignored `.claude/settings.local.json` at its next start); the file created
/// when missing, every other key kept (jq, as setup's hooks use).
fn claude_trust_command(key: &Path) -> String {
    use crate::model::shell::quote;
    format!(
        "f=~/.claude.json; [ -s \"$f\" ] || echo '{{}}' > \"$f\"; jq --arg p {} '.projects[$p].hasTrustDialogAccepted = true | .projects[$p].enabledMcpjsonServers = ((.projects[$p].enabledMcpjsonServers // []) - [\"majordomus\"] + [\"majordomus\"])' \"$f\" > \"$f.majordomus\" && mv \"$f.majordomus\" \"$f\"",
        quote(&key.display().to_string())
    )
}

/// The command that trusts `root` in Gemini CLI's `~/.gemini/trustedFolders.json` (what
/// its "Trust folder" choice records), every other folder kept.
fn gemini_trust_command(root: &Path) -> String {
    use crate::model::shell::quote;
    format!(
        "mkdir -p ~/.gemini && f=~/.gemini/trustedFolders.json && {{ [ -s \"$f\" ] || echo '{{}}' > \"$f\"; }} && jq --arg p {} '.[$p] = \"TRUST_FOLDER\"' \"$f\" > \"$f.majordomus\" && mv \"$f.majordomus\" \"$f\"",
        quote(&root.display().to_string())
    )
}

/// `[projects."<root>"]`, the table Codex keeps a project's trust in (the key a TOML basic
/// string, as JSON writes it).
pub(crate) fn codex_project_table(root: &Path) -> String {
    format!("[projects.{}]", quoted(&root.display().to_string()))
}

/// The step that makes Codex read `.codex/` in `root`: trusting the project (what its
/// "Trust this folder?" records in `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`);
/// the command appends the table unless the file has it already.
pub(crate) fn codex_project_step(root: &Path) -> UserStep {
    use crate::model::shell::quote;
    let table = codex_project_table(root);
    let command = format!(
        "d=\"${{CODEX_HOME:-$HOME/.codex}}\"; mkdir -p \"$d\" && {{ grep -qxF {t} \"$d/config.toml\" 2>/dev/null || printf '\\n%s\\ntrust_level = \"trusted\"\\n' {t} >> \"$d/config.toml\"; }}",
        t = quote(&table)
    );
    UserStep {
        what: "Codex reads .codex/ (the server, the hooks) only in a trusted project".to_owned(),
        how: format!(
            "choose \"Trust and continue\" when `codex` asks \"Trust this folder?\" at its first start here; or run `{command}`"
        ),
        command: Some(command),
    }
}

/// The step that lets Codex run the hooks setup wrote: only its own dialog records a
/// hook's trust (a hash of it).
pub(crate) fn codex_hooks_step() -> UserStep {
    UserStep {
        what: "Codex runs a hook only once you trusted it (until then: no briefing, no episode, no record, and nothing says so)".to_owned(),
        how: "run `codex` here and choose \"Trust all and continue\" when it says \"Hooks need review\" (or trust them in /hooks)".to_owned(),
        command: None,
    }
}

/// What only the user can do for `client` wired in `root`; `asks` when no tool may be
/// called unasked (`--no-permissions`). Each step's way is the client's own dialog, and
/// where a command does the same, that command (`tests/cli/clients.rs` runs each, as
/// printed, against the pinned client).
fn user_steps(client: Client, root: &Path, main: Option<&Path>, asks: bool) -> Vec<UserStep> {
    let step = |what: &str, how: String, command: Option<String>| UserStep {
        what: what.to_owned(),
        how,
        command,
    };
    let rerun = format!("majordomus setup {}", client.name());
    let allow = |what: &str| {
        step(
            what,
            format!(
                "answer each prompt, or run `{rerun}` (without --no-permissions: it allows them)"
            ),
            Some(rerun.clone()),
        )
    };
    let mut steps = Vec::new();
    match client {
        Client::ClaudeCode => {
            // Claude Code keys a linked worktree's trust by its main work tree.
            let key = main.unwrap_or(root);
            let command = claude_trust_command(key);
            let worktree = if main.is_some_and(|m| m != root) {
                " (Claude Code keys a linked worktree's trust by its main work tree)"
            } else {
                ""
            };
            steps.push(step(
                "Claude Code honours this project's settings (the permissions.allow of .claude/settings.json) and uses the server of .mcp.json only once you trusted the workspace and approved the server (until then `claude -p` refuses the majordomus tool calls and `claude` asks first)",
                format!(
                    "run `claude` here and choose \"Yes, I trust this folder\", then \"Use this MCP server\"; or run `{command}`{worktree}"
                ),
                Some(command),
            ));
            if asks {
                steps.push(allow(
                    "Claude Code asks before each majordomus tool call, and refuses them to `claude -p`",
                ));
            }
        }
        Client::GeminiCli => {
            let folder = root.file_name().map_or_else(
                || root.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let command = gemini_trust_command(root);
            steps.push(step(
                "Gemini CLI reads .gemini/settings.json (the hooks, the server) only in a trusted folder (in any other it loads no majordomus tool, runs no hook and says nothing)",
                format!(
                    "run `gemini` here and choose \"Trust folder ({folder})\"; or run `{command}`; or, for one headless run, start it as `GEMINI_CLI_TRUST_WORKSPACE=true gemini -p ...`"
                ),
                Some(command),
            ));
            if asks {
                steps.push(allow(
                    "Gemini CLI asks before each majordomus tool call, and offers none of them to `gemini -p`",
                ));
            }
        }
        Client::Codex => {
            steps.push(codex_project_step(root));
            let mut hooks = codex_hooks_step();
            hooks
                .how
                .push_str("; `majordomus doctor` says when they are not");
            steps.push(hooks);
        }
        Client::Cursor => {}
    }
    steps
}

struct Edited {
    file: FileChange,
    after: Option<String>,
}

/// The file's text after adding (or removing) every entry of `planned`.
fn edit(
    client: Client,
    planned: Planned,
    before: Option<&str>,
    remove: bool,
) -> Result<Edited, Error> {
    let refuse = |e: EditError| Refusal::SetupFile {
        path: planned.path.to_owned(),
        message: e.message,
        fix: e.fix.unwrap_or_else(|| {
            format!(
                "correct {} by hand (or move it aside), then rerun majordomus setup {}",
                planned.path,
                client.name()
            )
        }),
    };
    // What a file setup creates starts as; removing everything gives it back.
    let empty = match planned.edits {
        Edits::Json { .. } => "{}\n",
        Edits::Toml(_) => "",
    };
    let start = before.filter(|t| !t.trim().is_empty()).unwrap_or(empty);
    let mut text = start.to_owned();
    let mut entries = Vec::new();
    let mut record = |entry: String, outcome: Outcome| {
        let (action, note) = match outcome {
            Outcome::Added => (EntryAction::Added, None),
            Outcome::Removed => (EntryAction::Removed, None),
            Outcome::Present => (EntryAction::Present, None),
            Outcome::Absent => (EntryAction::Absent, None),
            Outcome::Kept(note) => (EntryAction::Kept, Some(note)),
        };
        entries.push(EntryChange {
            entry,
            action,
            note,
        });
    };
    match &planned.edits {
        Edits::Json {
            entries: list,
            frame,
        } => {
            if let (Some(frame), false) = (frame, remove) {
                let (edited, outcome) = json::add(&text, frame).map_err(refuse)?;
                text = edited;
                record(frame.describe(), outcome);
            }
            // Taken out last first: an entry inside another (the server's `trust`) goes
            // before the one holding it.
            let mut outcomes = Vec::new();
            let order: Vec<&Entry> = if remove {
                list.iter().rev().collect()
            } else {
                list.iter().collect()
            };
            for entry in order {
                let (edited, outcome) = if remove {
                    json::remove(&text, entry)
                } else {
                    json::add(&text, entry)
                }
                .map_err(refuse)?;
                text = edited;
                outcomes.push((entry.describe(), outcome));
            }
            if remove {
                outcomes.reverse();
            }
            for (entry, outcome) in outcomes {
                record(entry, outcome);
            }
            if let (Some(frame), true) = (frame, remove) {
                // The frame goes only when nothing but it is left.
                let (edited, outcome) = json::remove(&text, frame).map_err(refuse)?;
                if outcome != Outcome::Removed || edited.trim() == "{}" {
                    text = edited;
                    record(frame.describe(), outcome);
                } else {
                    record(
                        frame.describe(),
                        Outcome::Kept("the file's other entries need it".to_owned()),
                    );
                }
            }
        }
        Edits::Toml(server) => {
            let (edited, outcome) = if remove {
                toml::remove(&text, server)
            } else {
                toml::add(&text, server, planned.path)
            }
            .map_err(refuse)?;
            text = edited;
            record(server.describe(), outcome);
        }
    }
    let removed_any = entries.iter().any(|e| e.action == EntryAction::Removed);
    let after = if text == start {
        before.map(str::to_owned)
    } else if removed_any && text == empty {
        // Nothing but what setup wrote was in it: the file was setup's.
        None
    } else {
        Some(text)
    };
    let action = match (before, after.as_deref()) {
        (b, a) if b == a => FileAction::Unchanged,
        (None, Some(_)) => FileAction::Created,
        (Some(_), None) => FileAction::Deleted,
        _ => FileAction::Updated,
    };
    Ok(Edited {
        file: FileChange {
            path: planned.path.to_owned(),
            action,
            entries,
            diff: diff::unified(planned.path, before, after.as_deref()),
        },
        after,
    })
}

/// Writes `text` to `path` atomically, or deletes the file (and its directory, when that
/// leaves it empty) when there is nothing left.
fn write(root: &Path, path: &Path, text: Option<&str>) -> Result<(), Error> {
    match text {
        Some(text) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
            }
            crate::store::write_atomic(path, text.as_bytes())?;
        }
        None => {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(StoreError::io(path, e).into());
                }
                _ => {}
            }
            if let Some(dir) = path.parent()
                && dir != root
            {
                // Only an empty directory goes; anything else in it stays.
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod wiring_tests {
    use super::*;

    #[test]
    fn wiring_names_every_file_setup_writes() {
        for client in [
            Client::ClaudeCode,
            Client::GeminiCli,
            Client::Codex,
            Client::Cursor,
        ] {
            for planned in plan(client, &[]) {
                assert!(WIRING.contains(&planned.path), "{}", planned.path);
            }
        }
    }
}
