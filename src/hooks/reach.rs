//! Whether git reaches majordomus from each of its hooks (SPEC §8), as `doctor` and `env`
//! say it: the file git runs for the hook (honouring `core.hooksPath`), followed through
//! the managers that run other files (husky's runner, husky v8's `husky.sh`, the
//! pre-commit framework's `<hook>.legacy`, lefthook's configuration), counting the places
//! that call majordomus. Once is right; none means a manager replaced or bypassed the
//! block (or the hooks directory is missing in this work tree); twice means a hook runs
//! majordomus twice per git call.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::install::{
    BLOCK_START, LEGACY_SUFFIX, SCRIPTS, calls_majordomus, direct_binary, find_block_start,
    is_executable, is_husky_shim, is_ours, sources_husky_sh,
};
use crate::Ctx;

/// How git reaches majordomus from one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Reach {
    /// Once per git call.
    Reached,
    /// Twice per git call.
    Twice,
    /// Not at all, while majordomus is installed in this repository.
    NotReached,
    /// Not at all, and nothing of majordomus is installed (`hooks install` never ran).
    NotInstalled,
}

impl Reach {
    pub fn name(self) -> &'static str {
        match self {
            Reach::Reached => "reached",
            Reach::Twice => "reached twice",
            Reach::NotReached => "not reached",
            Reach::NotInstalled => "not installed",
        }
    }
}

/// One git hook: how git reaches majordomus from it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HookReach {
    pub hook: String,
    pub reach: Reach,
    /// The file git runs for this hook (relative to the work tree when inside it).
    pub runs: String,
    /// The files that call majordomus when git runs the hook, in order.
    pub via: Vec<String>,
    /// Why it is not reached, or reached twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What makes it reached once (a command, or what to do by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The git hooks of this work tree, as git runs them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HooksState {
    /// The hooks directory git uses here (honours `core.hooksPath`).
    pub dir: String,
    /// Some hook of majordomus is installed (in the directory git uses, in git's own
    /// hooks directory, in husky's files or where pre-commit moved it).
    pub installed: bool,
    pub hooks: Vec<HookReach>,
}

impl HooksState {
    /// The hooks that are not reached once, while majordomus is installed.
    pub fn problems(&self) -> impl Iterator<Item = &HookReach> {
        self.hooks
            .iter()
            .filter(|h| matches!(h.reach, Reach::Twice | Reach::NotReached))
    }
}

/// What following one file found.
#[derive(Default)]
struct Followed {
    /// The files calling majordomus.
    calls: Vec<PathBuf>,
    /// Why a file on the way stops git from reaching majordomus (and its fix).
    problem: Option<(String, String)>,
    /// Why majordomus runs twice (and its fix).
    twice: Option<(String, String)>,
}

/// How git reaches majordomus from each of its hooks in this work tree.
pub fn reach(ctx: &Ctx) -> HooksState {
    let dir = ctx.repo.hooks_dir();
    let display = |p: &Path| ctx.layout.display(p);
    let missing_dir = if dir.is_dir() {
        husky8_missing_here(ctx, &dir)
    } else {
        Some(missing_dir(ctx, &dir))
    };
    let mut installed = false;
    let mut hooks = Vec::new();
    for (name, _) in SCRIPTS {
        let runs = dir.join(name);
        let followed = match &missing_dir {
            Some(problem) => Followed {
                problem: Some(problem.clone()),
                ..Followed::default()
            },
            None => follow(ctx, &dir, &runs, name),
        };
        let elsewhere = ours_elsewhere(ctx, &dir, name);
        installed |= !followed.calls.is_empty() || !elsewhere.is_empty();
        let via: Vec<String> = followed.calls.iter().map(|p| display(p)).collect();
        let (reach, reason, fix) = match followed.calls.len() {
            1 => (Reach::Reached, None, None),
            0 => {
                let (reason, fix) = followed.problem.clone().unwrap_or_else(|| {
                    let bypassed = match elsewhere.first() {
                        Some(ours) => format!(
                            "; majordomus is in {}, which git does not run for it",
                            display(ours)
                        ),
                        None => String::new(),
                    };
                    (
                        format!(
                            "git runs {} for {name}, which does not call majordomus (a hook manager replaced or bypassed it){bypassed}",
                            display(&runs)
                        ),
                        "majordomus hooks install".to_owned(),
                    )
                });
                (Reach::NotReached, Some(reason), Some(fix))
            }
            _ => {
                let (reason, fix) = followed.twice.clone().unwrap_or_else(|| {
                    (
                        format!("majordomus is called from {} on every {name}", via.join(" and ")),
                        format!("remove one of the calls by hand: keep the block majordomus hooks install writes ({BLOCK_START})"),
                    )
                });
                (Reach::Twice, Some(reason), Some(fix))
            }
        };
        hooks.push(HookReach {
            hook: name.to_owned(),
            reach,
            runs: display(&runs),
            via,
            reason,
            fix,
        });
    }
    if !installed {
        for hook in &mut hooks {
            if hook.reach == Reach::NotReached {
                hook.reach = Reach::NotInstalled;
                hook.reason = None;
                hook.fix = Some("majordomus hooks install".to_owned());
            }
        }
    }
    HooksState {
        dir: display(&dir),
        installed,
        hooks,
    }
}

/// The hooks directory git uses does not exist here: what to say and how to mend it. In a
/// linked worktree a relative `core.hooksPath` names a directory of this work tree, which
/// an ignored directory (husky's `.husky/_`) is missing from: a copy of the main work
/// tree's mends it.
fn missing_dir(ctx: &Ctx, dir: &Path) -> (String, String) {
    let display = ctx.layout.display(dir);
    let setting = ctx.repo.hooks_path_setting();
    let Some(setting) = setting else {
        return (
            format!("git's hooks directory {display} does not exist, so git runs no hook"),
            "majordomus hooks install".to_owned(),
        );
    };
    let said = format!(
        "core.hooksPath is `{}`, and {} does not exist in this work tree, so git runs no hook here and nothing is recorded",
        setting.display(),
        dir.display()
    );
    if setting.is_relative()
        && let Some(main) = ctx.repo.main_worktree()
    {
        let theirs = main.join(&setting);
        if theirs.is_dir() {
            let parent = dir.parent().unwrap_or(dir);
            return (
                format!(
                    "{said} (a directory git ignores, present in the main work tree {})",
                    main.display()
                ),
                format!(
                    "mkdir -p {} && cp -R {} {}",
                    sh_quote(parent),
                    sh_quote(&theirs),
                    sh_quote(dir)
                ),
            );
        }
    }
    (said, "majordomus hooks install".to_owned())
}

/// husky v8 in a linked worktree: `core.hooksPath=.husky` names this work tree's
/// `.husky/`, whose tracked hook files are here, but husky's `_/husky.sh` is git-ignored and
/// is not: every husky hook stops at its `husky.sh` line (the team's included), so no
/// commit gets as far as majordomus. A copy of the main work tree's `_` mends it.
fn husky8_missing_here(ctx: &Ctx, dir: &Path) -> Option<(String, String)> {
    let setting = ctx.repo.hooks_path_setting()?;
    let main = ctx.repo.main_worktree()?;
    let theirs = main.join(&setting).join("_");
    let ours = dir.join("_");
    if !setting.is_relative()
        || !theirs.join("husky.sh").is_file()
        || ours.join("husky.sh").is_file()
    {
        return None;
    }
    Some((
        format!(
            "husky's {} is git-ignored and missing in this work tree, so every husky hook here stops at its husky.sh line before majordomus (present in the main work tree {})",
            ours.join("husky.sh").display(),
            main.display()
        ),
        format!(
            "mkdir -p {} && cp -R {} {}",
            sh_quote(dir),
            sh_quote(&theirs),
            sh_quote(&ours)
        ),
    ))
}

/// A path as one `sh` word.
fn sh_quote(path: &Path) -> String {
    let text = path.display().to_string();
    if text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:@%".contains(&b))
    {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Follows the file git runs for hook `name`.
fn follow(ctx: &Ctx, dir: &Path, runs: &Path, name: &str) -> Followed {
    let mut out = Followed::default();
    let display = |p: &Path| ctx.layout.display(p);
    if std::fs::symlink_metadata(runs).is_err() {
        return out;
    }
    let text = std::fs::read_to_string(runs).unwrap_or_default();
    // A direct hook of ours starts the binary it names: git cannot run it once that is gone.
    if let Some(binary) = direct_binary(&text)
        && is_ours(text.as_bytes())
        && !is_executable(&binary)
    {
        out.problem = Some((
            format!(
                "{} starts {}, which is gone, so git cannot run it (a push fails with `cannot run {}`)",
                display(runs),
                binary.display(),
                display(runs)
            ),
            "majordomus hooks install".to_owned(),
        ));
        return out;
    }
    if !is_executable(runs) {
        if is_ours(text.as_bytes()) {
            out.problem = Some((
                format!(
                    "{} is not executable, so git does not run it",
                    display(runs)
                ),
                "majordomus hooks install".to_owned(),
            ));
        } else if find_block_start(&text).is_some() || calls_majordomus(&text, name) {
            out.problem = Some((
                format!(
                    "{} is not executable, so git does not run it (nor the rest of that hook)",
                    display(runs)
                ),
                format!("chmod +x {}", sh_quote(runs)),
            ));
        }
        return out;
    }
    // husky v9: the shim runs `.husky/<name>` through husky's runner (`sh -e`, no
    // executable bit needed), which skips it under HUSKY=0.
    if dir.file_name().is_some_and(|n| n == "_")
        && dir.join("h").is_file()
        && is_husky_shim(text.as_bytes())
        && let Some(user) = dir.parent()
    {
        let file = user.join(name);
        if let Ok(text) = std::fs::read_to_string(&file) {
            file_calls(ctx, &file, &text, name, &mut out);
        }
        return out;
    }
    file_calls(ctx, runs, &text, name, &mut out);
    // The pre-commit framework runs `<name>.legacy` first, when it is executable.
    if text.contains("File generated by pre-commit") || text.contains("INSTALL_PYTHON") {
        let legacy = runs.with_file_name(format!("{name}{LEGACY_SUFFIX}"));
        let mut inner = Followed::default();
        if is_executable(&legacy) {
            let text = std::fs::read_to_string(&legacy).unwrap_or_default();
            file_calls(ctx, &legacy, &text, name, &mut inner);
        }
        if !inner.calls.is_empty() && name == "post-rewrite" {
            out.problem = Some((
                format!(
                    "pre-commit runs {} without git's stdin, so majordomus gets no rewritten commits",
                    display(&legacy)
                ),
                "majordomus hooks install".to_owned(),
            ));
        } else if !inner.calls.is_empty() {
            if !out.calls.is_empty() {
                out.twice = Some((
                    format!(
                        "majordomus is in pre-commit's {} and in {}, which pre-commit runs too",
                        display(runs),
                        display(&legacy)
                    ),
                    "majordomus hooks install".to_owned(),
                ));
            }
            out.calls.extend(inner.calls);
            out.problem = out.problem.or(inner.problem);
        }
    }
    // lefthook: a command in its configuration that runs majordomus.
    if text.contains("lefthook") && out.calls.is_empty() {
        for config in [
            "lefthook.yml",
            ".lefthook.yml",
            "lefthook.yaml",
            ".lefthook.yaml",
            "lefthook-local.yml",
            ".lefthook-local.yml",
        ] {
            let path = ctx.layout.root().join(config);
            if std::fs::read_to_string(&path).is_ok_and(|t| calls_majordomus(&t, name)) {
                out.calls.push(path);
                break;
            }
        }
    }
    out
}

/// The calls of majordomus in one hook file's text: our script, our block, or a call
/// wired by hand; and husky v8's `husky.sh` line, which makes a block before it run twice
/// and stops the hook where `husky.sh` is missing.
fn file_calls(ctx: &Ctx, file: &Path, text: &str, name: &str, out: &mut Followed) {
    let display = |p: &Path| ctx.layout.display(p);
    let husky_line = text.lines().position(sources_husky_sh);
    if let Some(at) = husky_line {
        let husky_sh = file.parent().map(|d| d.join("_").join("husky.sh"));
        let block_or_call = is_ours(text.as_bytes())
            || find_block_start(text).is_some()
            || calls_majordomus(text, name);
        if block_or_call && husky_sh.as_deref().is_some_and(|p| !p.is_file()) {
            let husky_sh = husky_sh.unwrap_or_default();
            let fix = match (ctx.repo.main_worktree(), husky_sh.parent()) {
                (Some(main), Some(here)) => {
                    let rel = here.strip_prefix(ctx.layout.root()).unwrap_or(here);
                    let theirs = main.join(rel);
                    if theirs.join("husky.sh").is_file() {
                        format!(
                            "mkdir -p {} && cp -R {} {}",
                            sh_quote(here.parent().unwrap_or(here)),
                            sh_quote(&theirs),
                            sh_quote(here)
                        )
                    } else {
                        "npx husky install".to_owned()
                    }
                }
                _ => "npx husky install".to_owned(),
            };
            out.problem = Some((
                format!(
                    "{} sources {}, which does not exist here, so the hook stops before majordomus",
                    display(file),
                    display(&husky_sh)
                ),
                fix,
            ));
            return;
        }
        // husky v8's husky.sh runs the file again (husky 9's is a stub that only warns).
        let reruns = husky_sh
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .is_some_and(|t| t.contains("husky_skip_init"));
        if let Some(block) = find_block_start(text)
            && reruns
            && text[..block].lines().count() <= at
        {
            out.calls.push(file.to_owned());
            out.calls.push(file.to_owned());
            out.twice = Some((
                format!(
                    "the majordomus block in {} comes before husky's husky.sh line, which runs the file again: it runs twice, and HUSKY=0 does not skip it",
                    display(file)
                ),
                "majordomus hooks install".to_owned(),
            ));
            return;
        }
    }
    if is_ours(text.as_bytes()) || find_block_start(text).is_some() || calls_majordomus(text, name)
    {
        out.calls.push(file.to_owned());
    }
}

/// Files of majordomus for hook `name` that git does not run from `dir`: git's own hooks
/// directory, husky's files and pre-commit's `.legacy`, where they are not on the way.
fn ours_elsewhere(ctx: &Ctx, dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut places = vec![
        ctx.repo.default_hooks_dir().join(name),
        ctx.repo
            .default_hooks_dir()
            .join(format!("{name}{LEGACY_SUFFIX}")),
        ctx.layout.root().join(".husky").join(name),
    ];
    if let Some(main) = ctx.repo.main_worktree()
        && let Some(setting) = ctx.repo.hooks_path_setting()
        && setting.is_relative()
    {
        places.push(main.join(&setting).join(name));
        places.push(main.join(".husky").join(name));
    }
    places.retain(|p| !p.starts_with(dir) || !dir.is_dir());
    places.sort();
    places.dedup();
    places
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                is_ours(t.as_bytes())
                    || find_block_start(&t).is_some()
                    || calls_majordomus(&t, name)
            })
        })
        .collect()
}
