//! `majordomus.client-hooks` (advisory): the agent-client hooks `setup` wrote can run.
//! Codex runs a project's `.codex/` only in a project the user trusted
//! (`[projects."<root>"] trust_level = "trusted"` in `$CODEX_HOME/config.toml`), and a
//! project hook only once the user trusted that hook: Codex then records
//! `[hooks.state."<root>/.codex/hooks.json:<event>:<group>:<handler>"]` with its
//! `trusted_hash` there (`enabled = false` when the user turned it off). Until then the
//! hook does not run and nothing says so.
//!
//! Read from files only: doctor does not compute Codex's hash of a hook, so a hook changed
//! by hand after it was trusted (Codex: "modified", and it asks again) passes here; the
//! rule's note says how many it took on trust (docs/MCP.md).
//!
//! Only a user who runs Codex is warned: once `.codex/` is committed, every teammate's
//! doctor reads it, and one who never used Codex on this machine (no Codex home:
//! `$CODEX_HOME`, else `~/.codex`) gets one informational finding, never a warning.

use std::path::{Path, PathBuf};

use super::{Input, Inputs, Outcome, Rule};
use crate::error::Error;

pub(super) const RULE: Rule = Rule {
    id: "majordomus.client-hooks",
    reads: &[Input::Files],
    check: run,
};

fn run(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    let found = check(inputs.ctx.layout.root());
    out.note = found.note();
    for blocked in found.blocked {
        if found.runs_codex {
            out.find(&blocked.file, blocked.message, blocked.fix);
        } else {
            out.inform(&blocked.file, blocked.message, blocked.fix);
        }
    }
    Ok(())
}

/// One thing that keeps the wired hooks from running.
struct Blocked {
    pub file: String,
    pub message: String,
    pub fix: String,
}

/// What doctor found: the blocked hooks, and how many had their trust recorded.
#[derive(Default)]
struct Found {
    pub blocked: Vec<Blocked>,
    pub trusted: usize,
    /// This machine's user runs Codex (its home exists): what blocks the hooks is a
    /// warning; else one informational finding says so.
    pub runs_codex: bool,
}

impl Found {
    /// What the rule says when it took hooks on their recorded trust.
    fn note(&self) -> Option<String> {
        (self.trusted > 0).then(|| {
            format!(
                "Codex's config records trust for {} majordomus hook(s); whether its hash still matches each hook as .codex/hooks.json now has it, doctor cannot tell (Codex then says \"Hooks need review\")",
                self.trusted
            )
        })
    }
}

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
fn codex_home() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")))
}

/// `PreToolUse` as Codex's hook keys name it: `pre_tool_use`.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The keys of the majordomus hooks in `.codex/hooks.json` (as Codex names them), with
/// their events.
fn wired(root: &Path, hooks: &serde_json::Value) -> Vec<(String, String)> {
    let file = root.join(".codex/hooks.json");
    let mut out = Vec::new();
    for (event, groups) in hooks["hooks"].as_object().into_iter().flatten() {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let command = handler["command"].as_str().unwrap_or_default();
                if command.contains("majordomus") && command.contains("--provider codex") {
                    out.push((
                        format!("{}:{}:{g}:{h}", file.display(), snake(event)),
                        event.clone(),
                    ));
                }
            }
        }
    }
    out
}

/// The Codex hooks of `root` that cannot run, from `.codex/hooks.json` and Codex's
/// config in its home.
fn check(root: &Path) -> Found {
    let mut found = Found::default();
    let Ok(text) = std::fs::read_to_string(root.join(".codex/hooks.json")) else {
        return found;
    };
    let Ok(hooks) = serde_json::from_str::<serde_json::Value>(&text) else {
        // `setup` refuses a file it cannot read, and Codex says so at its start.
        return found;
    };
    let ours = wired(root, &hooks);
    if ours.is_empty() {
        return found;
    }
    let Some(home) = codex_home() else {
        return found;
    };
    if !home.is_dir() {
        // A teammate who never ran Codex here: the repository's `.codex/` is not theirs to
        // trust. Said once, as information.
        found.blocked.push(Blocked {
            file: ".codex/hooks.json".to_owned(),
            message: format!(
                "this repository wires Codex (.codex/: the majordomus server and {} hook(s)), which Codex runs only in a project and for hooks its user trusted; no Codex home here ({}), so this machine's user does not run Codex",
                ours.len(),
                home.display()
            ),
            fix: "nothing to do unless you start using Codex here; then trust the project and its hooks when `codex` asks at its first start, and majordomus doctor checks them".to_owned(),
        });
        return found;
    }
    found.runs_codex = true;
    let config_path = home.join("config.toml");
    let config = std::fs::read_to_string(&config_path)
        .ok()
        .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok());
    let shown = config_path.display().to_string();
    let root_key = root.display().to_string();
    let item = |path: &[&str]| -> Option<toml_edit::Item> {
        let mut item = config.as_ref()?.as_item();
        for key in path {
            item = item.get(key)?;
        }
        Some(item.clone())
    };
    let trust_level = item(&["projects", &root_key, "trust_level"]);
    let level = trust_level.as_ref().and_then(|i| i.as_str());
    if level != Some("trusted") {
        // setup's own step, word for word; a table that says otherwise is the user's
        // choice, changed by hand (the step's command adds the table only when missing).
        let table = crate::setup::codex_project_table(root);
        let (said, fix) = match (&trust_level, level) {
            (None, _) => (
                format!("{shown} does not trust {root_key}"),
                crate::setup::codex_project_step(root).how,
            ),
            (Some(_), Some(other)) => (
                format!("{shown} marks {root_key} `trust_level = \"{other}\"`"),
                format!(
                    "set `trust_level = \"trusted\"` under `{table}` in {shown} (by hand: it was set to \"{other}\")"
                ),
            ),
            (Some(_), None) => (
                format!("{shown} has `{table}` with no trust_level `trusted`"),
                format!("set `trust_level = \"trusted\"` under `{table}` in {shown}"),
            ),
        };
        found.blocked.push(Blocked {
            file: ".codex/config.toml".to_owned(),
            message: format!(
                "Codex reads this project's .codex/ (the majordomus server, its {} hook(s)) only in a trusted project, and {said}",
                ours.len()
            ),
            fix,
        });
    }
    let mut untrusted = Vec::new();
    let mut disabled = Vec::new();
    for (key, event) in &ours {
        let state = item(&["hooks", "state", key]);
        let hash = state
            .as_ref()
            .and_then(|s| s.get("trusted_hash"))
            .and_then(|h| h.as_str().map(str::to_owned));
        let enabled = state
            .as_ref()
            .and_then(|s| s.get("enabled"))
            .and_then(toml_edit::Item::as_bool);
        if enabled == Some(false) {
            disabled.push(event.clone());
        } else if hash.is_none_or(|h| h.is_empty()) {
            untrusted.push(event.clone());
        } else {
            found.trusted += 1;
        }
    }
    if !untrusted.is_empty() {
        found.blocked.push(Blocked {
            file: ".codex/hooks.json".to_owned(),
            message: format!(
                "Codex runs none of these majordomus hooks until you trusted them, and {shown} records no trust for {} of them ({}): no briefing, no episode, no record, and Codex does not say so",
                untrusted.len(),
                untrusted.join(", ")
            ),
            fix: crate::setup::codex_hooks_step().how,
        });
    }
    if !disabled.is_empty() {
        found.blocked.push(Blocked {
            file: ".codex/hooks.json".to_owned(),
            message: format!(
                "Codex has {} majordomus hook(s) turned off in {shown} ({})",
                disabled.len(),
                disabled.join(", ")
            ),
            fix: "run `codex` here and turn them on in /hooks".to_owned(),
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::snake;

    #[test]
    fn events_are_named_as_codex_keys_them() {
        assert_eq!(snake("PreToolUse"), "pre_tool_use");
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake("SessionStart"), "session_start");
    }
}
