//! Installing and removing the git hook scripts (SPEC §8): a marked block in each hook that
//! is already there, our own script where there is none, and a refusal naming the exact
//! line to add by hand where neither keeps the existing hook safe.
//!
//! The existing hook is never renamed: it keeps running under its own name (the same
//! `$0`, which dispatchers such as husky's runner read), with its exit status and its
//! stdin. Install plans every hook before it touches one, so it is never partial, and
//! uninstall removes exactly the bytes install added.

use std::ops::Range;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::HooksRequest;
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::store::{StoreError, write_atomic};

/// The git hook scripts, embedded from `hooks/`: written where no hook is. Each `exec`s
/// majordomus, so git waits for one process, not a shell and its child.
pub const SCRIPTS: [(&str, &str); 3] = [
    ("post-commit", include_str!("../../hooks/post-commit")),
    ("pre-push", include_str!("../../hooks/pre-push")),
    ("post-rewrite", include_str!("../../hooks/post-rewrite")),
];

/// The marked blocks, embedded from `hooks/block/`: what goes into a hook that is already
/// there. No `exec` of majordomus (the rest of the hook must run), and git's stdin kept
/// for that rest.
pub const BLOCKS: [(&str, &str); 3] = [
    ("post-commit", include_str!("../../hooks/block/post-commit")),
    ("pre-push", include_str!("../../hooks/block/pre-push")),
    (
        "post-rewrite",
        include_str!("../../hooks/block/post-rewrite"),
    ),
];

/// Hooks earlier versions installed and this one no longer uses: `hooks install` takes
/// ours out of them (the outbox drains at episode boundaries, never at checkout or merge).
pub const RETIRED: [&str; 2] = ["post-checkout", "post-merge"];

/// The line that marks a whole script as ours.
const MARKER: &str = "# majordomus-hook:";
/// The first line of the block install puts into an existing hook.
pub const BLOCK_START: &str = "# >>> majordomus >>>";
/// The last line of that block.
pub const BLOCK_END: &str = "# <<< majordomus <<<";
/// Where versions before 0.2 kept a hook that was there before (renamed, which changed
/// its `$0`); install puts such a hook back under its own name.
pub const CHAINED_SUFFIX: &str = ".pre-majordomus";

/// Where the pre-commit framework keeps the hook it found when it installed its own, and
/// runs it from its script (with the hook's arguments; for pre-push also git's stdin).
pub const LEGACY_SUFFIX: &str = ".legacy";

/// The line husky v5–v8 hook files start with (after `#!`): it runs the file again under
/// `sh -e` with `husky_skip_init` set, and exits 0 under `HUSKY=0`.
pub const HUSKY8_LINE: &str = ". \"$(dirname -- \"$0\")/_/husky.sh\"";

/// The interpreters a marked block (POSIX sh) can go into.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// What install or uninstall did to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HookAction {
    /// Our script written where no hook was.
    Installed,
    /// Our block added to the hook that was there; it runs first, then that hook.
    Chained,
    /// An install by an earlier version (the existing hook renamed to
    /// `<name>.pre-majordomus`) undone: that hook is back under its own name, with our block.
    Upgraded,
    /// Our script or block rewritten to this version's.
    Updated,
    /// Already installed as it is.
    Unchanged,
    /// The hook already calls `majordomus hook <name>` (wired by hand); left as it is.
    Wired,
    /// Our script removed.
    Removed,
    /// Our block removed (or the renamed hook put back): the file is as it was.
    Restored,
    /// Nothing there.
    Absent,
    /// Not ours; left alone.
    Foreign,
}

impl HookAction {
    pub fn name(self) -> &'static str {
        match self {
            HookAction::Installed => "installed",
            HookAction::Chained => "chained",
            HookAction::Upgraded => "upgraded",
            HookAction::Updated => "updated",
            HookAction::Unchanged => "unchanged",
            HookAction::Wired => "wired",
            HookAction::Removed => "removed",
            HookAction::Restored => "restored",
            HookAction::Absent => "absent",
            HookAction::Foreign => "foreign",
        }
    }
}

/// A tool that writes git hooks of its own, recognised so the report can say how it
/// treats the file majordomus edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HookManager {
    /// husky v9: `core.hooksPath=.husky/_`, whose shims run `.husky/<hook>`.
    Husky,
    /// husky v8 (and 5–7): `core.hooksPath=.husky`, whose files source `.husky/_/husky.sh`,
    /// which runs the file again under `sh -e` and skips it under `HUSKY=0`.
    #[serde(rename = "husky-v8")]
    Husky8,
    /// lefthook: a hook script that calls `lefthook run <hook>`.
    Lefthook,
    /// pre-commit: the script `pre-commit install` generates.
    PreCommit,
}

impl HookManager {
    pub fn name(self) -> &'static str {
        match self {
            HookManager::Husky => "husky",
            HookManager::Husky8 => "husky v8",
            HookManager::Lefthook => "lefthook",
            HookManager::PreCommit => "pre-commit",
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HookChange {
    pub hook: String,
    pub action: HookAction,
    /// The file the hook lives in (relative to the work tree when inside it). With husky
    /// that is `.husky/<hook>`, the file husky's runner calls.
    pub path: String,
    /// The tool that manages this hook, when one was recognised.
    pub manager: Option<HookManager>,
    /// A hook earlier versions installed that this one no longer uses.
    pub retired: bool,
    /// Where the hook starts the majordomus binary directly (`#!<binary> hook-script`):
    /// that binary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HooksReport {
    /// The hooks directory git uses (honours `core.hooksPath`).
    pub dir: String,
    pub hooks: Vec<HookChange>,
    /// What the user should know about a hook manager's files.
    pub notes: Vec<String>,
}

/// Installs the hooks into the directory git uses. A hook that is there keeps running
/// under its own name: our call goes into it as a marked block. Refuses, before touching
/// anything, where that cannot be done safely. Idempotent.
pub fn install(ctx: &Ctx, _request: HooksRequest) -> Result<HooksReport, Error> {
    let place = Place::find(ctx);
    let mut plans = Vec::new();
    for (name, script) in SCRIPTS {
        plans.push(place.plan_install(name, script)?);
    }
    for name in RETIRED {
        let plan = place.plan_uninstall(name, true)?;
        if !plan.steps.is_empty() {
            plans.push(plan);
        }
    }
    place.apply(plans)
}

/// Removes our scripts and blocks, restoring each hook byte for byte (content and mode);
/// also undoes an install by an earlier version.
pub fn uninstall(ctx: &Ctx, _request: HooksRequest) -> Result<HooksReport, Error> {
    let place = Place::find(ctx);
    let mut plans = Vec::new();
    for name in SCRIPTS.map(|(name, _)| name) {
        plans.push(place.plan_uninstall(name, false)?);
    }
    for name in RETIRED {
        let plan = place.plan_uninstall(name, true)?;
        if !plan.steps.is_empty() {
            plans.push(plan);
        }
    }
    place.apply(plans)
}

/// Where the hooks live: git's hooks directory, and the directory of the files that run
/// (the same, except under husky).
struct Place<'a> {
    ctx: &'a Ctx,
    dir: PathBuf,
    /// husky v9: the directory of the user's hook files (`.husky/`), run by `_/h`.
    husky: Option<PathBuf>,
    /// husky v8: `dir` is `.husky`, whose files source `_/husky.sh`.
    husky8: bool,
    /// Where a hook of our own starts this binary directly (`#!<binary> hook-script`)
    /// instead of through `sh`: git's own hooks directory (never shared, never committed).
    direct: Option<PathBuf>,
}

/// One file operation of a plan.
#[derive(Debug)]
enum Step {
    Write {
        path: PathBuf,
        bytes: Vec<u8>,
        mode: u32,
    },
    Rename {
        from: PathBuf,
        to: PathBuf,
    },
    Remove {
        path: PathBuf,
    },
}

/// What install or uninstall will do to one hook.
struct Plan {
    change: HookChange,
    steps: Vec<Step>,
}

/// A hook file as found.
enum Found {
    Missing,
    Symlink,
    /// A whole script of ours (carries the marker line).
    Ours(String),
    /// Anyone else's file, with its mode.
    Foreign(Vec<u8>, u32),
}

impl Found {
    fn read(path: &Path) -> Result<Found, Error> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(StoreError::io(path, e).into()),
        };
        if meta.file_type().is_symlink() {
            return Ok(Found::Symlink);
        }
        let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
        if is_ours(&bytes) {
            return Ok(Found::Ours(String::from_utf8_lossy(&bytes).into_owned()));
        }
        Ok(Found::Foreign(bytes, mode_of(&meta)))
    }
}

/// The argument git's direct hooks start majordomus with (`#!<binary> hook-script`): the
/// kernel runs `<binary> hook-script <hook file> <git's arguments>`, no shell in between.
pub const DIRECT: &str = "hook-script";

/// The binary a direct hook of ours starts: the one running, as the kernel names it,
/// when its path fits a `#!` line (no white space, short enough for every kernel).
fn this_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let text = exe.to_str()?;
    let fits = text.len() + DIRECT.len() + 4 <= 127
        && !text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control());
    fits.then_some(exe)
}

/// Our hook for git's own hooks directory: a `#!` line that starts this binary directly
/// (git waits for one process, which reads the hook's name from the file it is given),
/// the marker line, and what it is.
pub fn direct_script(name: &str, binary: &Path) -> String {
    format!(
        "#!{} {DIRECT}\n{MARKER} {name}\n# Written by `majordomus hooks install` where no {name} hook was: git starts majordomus directly\n# (the line above; no shell in between). `majordomus hooks uninstall` deletes it; rerun install after moving majordomus.\n",
        binary.display()
    )
}

/// The binary a direct hook of ours starts, if `text` is one.
pub(crate) fn direct_binary(text: &str) -> Option<PathBuf> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    let binary = first.strip_suffix(&format!(" {DIRECT}"))?;
    Some(PathBuf::from(binary))
}

/// Whole scripts of ours carry the marker line; a block alone never does.
pub(crate) fn is_ours(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|t| t.lines().any(|l| l.starts_with(MARKER)))
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o755
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| StoreError::io(path, e))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<(), StoreError> {
    Ok(())
}

impl<'a> Place<'a> {
    fn find(ctx: &'a Ctx) -> Place<'a> {
        let dir = ctx.repo.hooks_dir();
        let husky = husky_user_dir(&dir);
        let husky8 = husky.is_none() && is_husky8_dir(&dir);
        let direct = (cfg!(unix) && dir == ctx.repo.default_hooks_dir())
            .then(this_binary)
            .flatten();
        Place {
            ctx,
            dir,
            husky,
            husky8,
            direct,
        }
    }

    fn display(&self, path: &Path) -> String {
        self.ctx.layout.display(path)
    }

    /// The file git's hook runs: the hook itself, or under husky `.husky/<name>`.
    fn target(&self, name: &str) -> PathBuf {
        match &self.husky {
            Some(user) => user.join(name),
            None => self.dir.join(name),
        }
    }

    fn change(
        &self,
        name: &str,
        action: HookAction,
        path: &Path,
        manager: Option<HookManager>,
    ) -> HookChange {
        HookChange {
            hook: name.to_owned(),
            action,
            path: self.display(path),
            manager,
            retired: RETIRED.contains(&name),
            starts: None,
        }
    }

    fn refuse(&self, name: &str, path: &Path, reason: String, fix: String) -> Error {
        let in_dir = self.dir.join(name);
        let chained = self.dir.join(format!("{name}{CHAINED_SUFFIX}"));
        // Mid-upgrade the hook still sits renamed beside ours: put it back first.
        let upgrading = chained.exists() && matches!(Found::read(&in_dir), Ok(Found::Ours(_)));
        let fix = if upgrading {
            format!(
                "put {} back with `majordomus hooks uninstall`, then {fix}",
                self.display(&chained)
            )
        } else {
            fix
        };
        Refusal::HookNeedsHand {
            hook: name.to_owned(),
            path: self.display(path),
            reason,
            fix,
        }
        .into()
    }

    fn plan_install(&self, name: &str, script: &str) -> Result<Plan, Error> {
        let block = block_of(name);
        let in_dir = self.dir.join(name);
        let chained = self.dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let mut steps = Vec::new();
        // An install by an earlier version: ours at <name>, theirs renamed beside it.
        let mut found = Found::read(&in_dir)?;
        let upgrading = matches!(found, Found::Ours(_)) && chained.exists();
        if upgrading {
            found = Found::read(&chained)?;
            steps.push(Step::Rename {
                from: chained.clone(),
                to: in_dir.clone(),
            });
        }
        let mut manager = None;
        if self.husky.is_some() {
            manager = Some(HookManager::Husky);
            let shim = matches!(&found, Found::Foreign(bytes, _) if is_husky_shim(bytes));
            if !shim {
                return Err(self.refuse(
                    name,
                    &in_dir,
                    "is not husky's shim in husky's generated directory".into(),
                    format!(
                        "npx husky (rewrites {}), then majordomus hooks install",
                        self.display(&self.dir)
                    ),
                ));
            }
            found = Found::read(&self.target(name))?;
        } else if self.husky8 {
            manager = Some(HookManager::Husky8);
        }
        let mut target = self.target(name);
        // pre-commit in front: majordomus goes into `<name>.legacy`, which pre-commit runs
        // first with the hook's arguments (and, for pre-push, git's stdin), and which
        // `pre-commit install` keeps. post-rewrite's `.legacy` gets no stdin from
        // pre-commit: there the block goes into pre-commit's script.
        if let Found::Foreign(bytes, _) = &found
            && std::str::from_utf8(bytes)
                .is_ok_and(|t| manager_of(t) == Some(HookManager::PreCommit))
        {
            manager = Some(HookManager::PreCommit);
            let text = String::from_utf8_lossy(bytes).into_owned();
            let legacy = self.dir.join(format!("{name}{LEGACY_SUFFIX}"));
            let legacy_found = Found::read(&legacy)?;
            if name == "post-rewrite" {
                // Ours out of `.legacy` (it would run without git's pairs), into the script.
                match &legacy_found {
                    Found::Ours(_) => {
                        steps.push(Step::Remove { path: legacy });
                    }
                    Found::Foreign(lbytes, lmode) => {
                        if let Ok(ltext) = std::str::from_utf8(lbytes)
                            && let Ok(Some(range)) = find_block(ltext)
                        {
                            steps.push(Step::Write {
                                path: legacy,
                                bytes: remove_range(ltext, range).into_bytes(),
                                mode: *lmode,
                            });
                        }
                    }
                    Found::Missing | Found::Symlink => {}
                }
            } else if legacy_runs(&legacy_found) {
                // The script of pre-commit never carries ours as well (that ran twice).
                if let Ok(Some(range)) = find_block(&text) {
                    let mode = match &found {
                        Found::Foreign(_, mode) => *mode,
                        _ => 0o755,
                    };
                    steps.push(Step::Write {
                        path: target.clone(),
                        bytes: remove_range(&text, range).into_bytes(),
                        mode,
                    });
                }
                target = legacy;
                found = legacy_found;
            }
        }
        // Our own hook: in git's own hooks directory a `#!` line that starts this binary
        // (no shell in front of majordomus); elsewhere (shared or committed directories,
        // husky's files) the shipped script, which finds majordomus on each machine.
        let direct = self
            .direct
            .as_ref()
            .filter(|_| target.parent() == Some(self.dir.as_path()));
        let own_script = match direct {
            Some(binary) => direct_script(name, binary),
            None if self.husky8 => husky8_script(script),
            None => script.to_owned(),
        };
        let (action, write) = match found {
            Found::Missing => (HookAction::Installed, Some((own_script.clone(), 0o755))),
            Found::Ours(text) if text == own_script && is_executable(&target) => {
                (HookAction::Unchanged, None)
            }
            Found::Ours(_) => (HookAction::Updated, Some((own_script.clone(), 0o755))),
            Found::Symlink => {
                // The file it links to may serve several hooks (a dispatcher reading
                // `$0`): a block there would run for all of them. Wired by hand is fine.
                let shared = std::fs::read_to_string(&target).unwrap_or_default();
                if calls_majordomus(&shared, name) {
                    (HookAction::Wired, None)
                } else {
                    let to = std::fs::read_link(&target)
                        .map(|p| p.display().to_string())
                        .unwrap_or_default();
                    return Err(self.refuse(
                        name,
                        &target,
                        format!("is a symbolic link (to {to}), which other hooks may share"),
                        format!(
                            "add `majordomus hook {name} \"$@\"` to {to} where it runs the {name} hook, then rerun majordomus hooks install (docs/HOOKS.md#wiring-a-hook-by-hand)"
                        ),
                    ));
                }
            }
            Found::Foreign(bytes, mode) => {
                let Ok(text) = String::from_utf8(bytes) else {
                    return Err(self.refuse(
                        name,
                        &target,
                        "is not a text file".into(),
                        by_hand(name, &self.display(&target)),
                    ));
                };
                manager = manager.or_else(|| manager_of(&text));
                let bare = match find_block(&text) {
                    Ok(Some(range)) => remove_range(&text, range),
                    Ok(None) => text.clone(),
                    Err(()) => {
                        return Err(self.refuse(
                            name,
                            &target,
                            format!("has `{BLOCK_START}` without `{BLOCK_END}`"),
                            format!(
                                "remove the incomplete majordomus block from {} by hand, then majordomus hooks install",
                                self.display(&target)
                            ),
                        ));
                    }
                };
                let had_block = bare != text;
                if !had_block && calls_majordomus(&text, name) {
                    (HookAction::Wired, None)
                } else {
                    // husky's runner runs its files with `sh -e`, whatever their first line.
                    if self.husky.is_none()
                        && let Err(interpreter) = shell_of(&text)
                    {
                        return Err(self.refuse(
                            name,
                            &target,
                            format!("is not a shell script (it runs {interpreter})"),
                            by_hand(name, &self.display(&target)),
                        ));
                    }
                    let wanted = insert_block(&bare, block);
                    let action = if wanted == text {
                        HookAction::Unchanged
                    } else if had_block {
                        HookAction::Updated
                    } else {
                        HookAction::Chained
                    };
                    let write = (wanted != text).then_some((wanted, mode));
                    (action, write)
                }
            }
        };
        // Taking ours out of another file (pre-commit's script, a `.legacy`) is an update.
        let action = match action {
            _ if upgrading => HookAction::Upgraded,
            HookAction::Unchanged if !steps.is_empty() => HookAction::Updated,
            action => action,
        };
        let starts = direct
            .filter(|_| own_script_is(&target, &write, &own_script))
            .map(|b| b.display().to_string());
        if let Some((text, mode)) = write {
            steps.push(Step::Write {
                path: target.clone(),
                bytes: text.into_bytes(),
                mode,
            });
        }
        let mut change = self.change(name, action, &target, manager);
        change.starts = starts;
        Ok(Plan { change, steps })
    }

    /// Takes ours out of one hook: our script, our block, and an earlier version's rename.
    fn plan_uninstall(&self, name: &str, retiring: bool) -> Result<Plan, Error> {
        let in_dir = self.dir.join(name);
        let chained = self.dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let mut steps = Vec::new();
        let mut action = None;
        let in_dir_found = Found::read(&in_dir)?;
        if let Found::Ours(_) = in_dir_found {
            if chained.exists() {
                steps.push(Step::Rename {
                    from: chained,
                    to: in_dir.clone(),
                });
                action = Some(HookAction::Restored);
            } else {
                steps.push(Step::Remove {
                    path: in_dir.clone(),
                });
                action = Some(HookAction::Removed);
            }
        }
        let target = self.target(name);
        let mut shown = in_dir.clone();
        let mut manager = self
            .husky
            .as_ref()
            .map(|_| HookManager::Husky)
            .or(self.husky8.then_some(HookManager::Husky8));
        if action.is_none() || target != in_dir {
            let found = Found::read(&target)?;
            let here = match found {
                Found::Missing => HookAction::Absent,
                Found::Symlink => HookAction::Foreign,
                Found::Ours(_) => {
                    steps.push(Step::Remove {
                        path: target.clone(),
                    });
                    HookAction::Removed
                }
                Found::Foreign(bytes, mode) => match String::from_utf8(bytes) {
                    Err(_) => HookAction::Foreign,
                    Ok(text) => {
                        manager = manager.or_else(|| manager_of(&text));
                        match find_block(&text) {
                            Ok(Some(range)) => {
                                steps.push(Step::Write {
                                    path: target.clone(),
                                    bytes: remove_range(&text, range).into_bytes(),
                                    mode,
                                });
                                HookAction::Restored
                            }
                            Ok(None) => HookAction::Foreign,
                            Err(()) if retiring => HookAction::Foreign,
                            Err(()) => {
                                return Err(self.refuse(
                                    name,
                                    &target,
                                    format!("has `{BLOCK_START}` without `{BLOCK_END}`"),
                                    format!(
                                        "remove the incomplete majordomus block from {} by hand",
                                        self.display(&target)
                                    ),
                                ));
                            }
                        }
                    }
                },
            };
            action = Some(match (action, here) {
                (Some(before), HookAction::Absent | HookAction::Foreign) => before,
                (Some(_), _) => {
                    shown = target;
                    HookAction::Restored
                }
                (None, here) => {
                    shown = target;
                    here
                }
            });
        }
        let mut action = action.expect("one of the branches above decided");
        // What the pre-commit framework moved aside (`<name>.legacy`, which it runs) may be
        // ours: removed, or our block taken out of it.
        let legacy = self.dir.join(format!("{name}{LEGACY_SUFFIX}"));
        let from_legacy = match Found::read(&legacy)? {
            Found::Ours(_) => {
                steps.push(Step::Remove {
                    path: legacy.clone(),
                });
                Some(HookAction::Removed)
            }
            Found::Foreign(bytes, mode) => match std::str::from_utf8(&bytes).map(find_block) {
                Ok(Ok(Some(range))) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    steps.push(Step::Write {
                        path: legacy.clone(),
                        bytes: remove_range(&text, range).into_bytes(),
                        mode,
                    });
                    Some(HookAction::Restored)
                }
                _ => None,
            },
            Found::Missing | Found::Symlink => None,
        };
        if let Some(done) = from_legacy
            && matches!(action, HookAction::Absent | HookAction::Foreign)
        {
            action = done;
            shown = legacy;
            manager = manager.or(Some(HookManager::PreCommit));
        }
        Ok(Plan {
            change: self.change(name, action, &shown, manager),
            steps,
        })
    }

    /// Carries out every plan (all of them were made before any file was touched).
    fn apply(&self, plans: Vec<Plan>) -> Result<HooksReport, Error> {
        let mut hooks = Vec::new();
        for plan in plans {
            for step in plan.steps {
                match step {
                    Step::Write { path, bytes, mode } => {
                        write_atomic(&path, &bytes)?;
                        set_mode(&path, mode)?;
                    }
                    Step::Rename { from, to } => {
                        std::fs::rename(&from, &to).map_err(|e| StoreError::io(&from, e))?;
                    }
                    Step::Remove { path } => {
                        std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
                    }
                }
            }
            hooks.push(plan.change);
        }
        let notes = notes(&hooks, self.husky.as_deref().map(|d| self.display(d)));
        Ok(HooksReport {
            dir: self.dir.display().to_string(),
            hooks,
            notes,
        })
    }
}

/// What a user should know after install or uninstall touched a manager's file.
fn notes(hooks: &[HookChange], husky: Option<String>) -> Vec<String> {
    let touched = |m: HookManager| {
        hooks.iter().any(|h| {
            h.manager == Some(m)
                && matches!(
                    h.action,
                    HookAction::Installed
                        | HookAction::Chained
                        | HookAction::Upgraded
                        | HookAction::Updated
                        | HookAction::Unchanged
                )
        })
    };
    let mut notes = Vec::new();
    if let Some(user) = husky
        && touched(HookManager::Husky)
    {
        notes.push(format!(
            "husky runs the hook files in {user}/: majordomus is a marked block there (commit them to share it; a teammate without majordomus skips the block)"
        ));
    }
    if touched(HookManager::Lefthook) {
        notes.push(
            "lefthook rewrites its hook scripts when its configuration changes, dropping the block: rerun majordomus hooks install then, or wire majordomus in lefthook.yml (docs/HOOKS.md, \"Each layout\")"
                .into(),
        );
    }
    if touched(HookManager::Husky8) {
        notes.push(
            "husky v8 runs the hook files in .husky/: majordomus is a marked block after their husky.sh line, so it runs once and HUSKY=0 skips it (commit them to share it; a teammate without majordomus skips the block)"
                .into(),
        );
    }
    let pre_commit = |legacy: bool| {
        hooks.iter().any(|h| {
            h.manager == Some(HookManager::PreCommit)
                && h.path.ends_with(LEGACY_SUFFIX) == legacy
                && matches!(
                    h.action,
                    HookAction::Installed
                        | HookAction::Chained
                        | HookAction::Updated
                        | HookAction::Unchanged
                )
        })
    };
    if pre_commit(true) {
        notes.push(
            "pre-commit runs <hook>.legacy before its own hooks: majordomus is there, which `pre-commit install` keeps (`pre-commit install -f` deletes it: rerun majordomus hooks install then; docs/HOOKS.md, \"Each layout\")"
                .into(),
        );
    }
    if pre_commit(false) {
        notes.push(
            "`pre-commit install` rewrites its hook scripts, dropping the block: rerun majordomus hooks install after it (docs/HOOKS.md, \"Each layout\")"
                .into(),
        );
    }
    notes
}

/// The fix for a hook majordomus cannot edit: the exact line to add.
fn by_hand(name: &str, file: &str) -> String {
    format!(
        "add this line to {file} as its first command, then rerun majordomus hooks install: majordomus hook {name} \"$@\" (in another language, run that command with the hook's arguments and stdin; docs/HOOKS.md#wiring-a-hook-by-hand)"
    )
}

/// The shipped block for `name`, its end marker's newline included.
fn block_of(name: &str) -> &'static str {
    BLOCKS
        .iter()
        .find(|(hook, _)| *hook == name)
        .map(|(_, block)| *block)
        .expect("every installed hook has a block")
}

/// Where the marked block sits in `text`: from its start marker (at the start of a line)
/// through its end marker's line and newline; or, when the end marker ends the file
/// without a newline, from the newline before the start marker (install added that
/// newline after a first line that had none). `Err` when a start has no end.
fn find_block(text: &str) -> Result<Option<Range<usize>>, ()> {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        match start {
            None if bare == BLOCK_START => start = Some(offset),
            Some(s) if bare == BLOCK_END => {
                let end = offset + line.len();
                return Ok(Some(if line.ends_with('\n') || s == 0 {
                    s..end
                } else {
                    s - 1..end
                }));
            }
            _ => {}
        }
        offset += line.len();
    }
    match start {
        Some(_) => Err(()),
        None => Ok(None),
    }
}

/// Whether the hook file at `target` ends up as our own script `own` (written now, or
/// already there).
fn own_script_is(target: &Path, write: &Option<(String, u32)>, own: &str) -> bool {
    match write {
        Some((text, _)) => text == own,
        None => std::fs::read_to_string(target).is_ok_and(|t| t == own),
    }
}

/// Whether pre-commit runs a `<name>.legacy` found like this (or one install writes):
/// nothing there yet, ours, or an executable shell script our block can join.
fn legacy_runs(found: &Found) -> bool {
    match found {
        Found::Missing | Found::Ours(_) => true,
        Found::Foreign(bytes, mode) => {
            mode & 0o111 != 0 && std::str::from_utf8(bytes).is_ok_and(|t| shell_of(t).is_ok())
        }
        Found::Symlink => false,
    }
}

/// Whether git would run the file at `path` (it ignores a hook that is not executable).
pub(crate) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Our script as a husky v8 hook file: husky's line after `#!`, so husky runs it once, and
/// not at all under `HUSKY=0`, like every other hook of the team.
fn husky8_script(script: &str) -> String {
    let rest = script.split_once('\n').map_or("", |(_, rest)| rest);
    format!("#!/usr/bin/env sh\n{HUSKY8_LINE}\n{rest}")
}

/// husky v5–v8 keep `core.hooksPath=.husky`, with `husky.sh` in `.husky/_`.
fn is_husky8_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n != "_") && dir.join("_").join("husky.sh").is_file()
}

/// Whether `line` runs husky's `husky.sh` (any husky v5–v8 spelling of the line).
pub(crate) fn sources_husky_sh(line: &str) -> bool {
    let line = line.trim();
    (line.starts_with(". ") || line.starts_with("source ")) && line.contains("_/husky.sh")
}

/// Where the block goes in `text`: the end of the line that sources husky's `husky.sh`
/// (before it, the block would run twice: husky runs the file again), else the end of the
/// `#!` line; `None` when it goes first. `Some(len)` with no newline at the end: the
/// line ends the file without one.
fn block_position(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if sources_husky_sh(line) {
            return Some(offset + line.len());
        }
        offset += line.len();
    }
    if !text.starts_with("#!") {
        return None;
    }
    Some(text.find('\n').map_or(text.len(), |i| i + 1))
}

/// Where our block's start marker line begins in `text`, if it has one.
pub(crate) fn find_block_start(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == BLOCK_START {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

fn remove_range(text: &str, range: Range<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..range.start]);
    out.push_str(&text[range.end..]);
    out
}

/// `text` with `block` after its `#!` line (so the block runs first, whatever the hook
/// does after it: `exec`, `exit`), or after husky v8's `husky.sh` line (so it runs once,
/// and not under `HUSKY=0`), or first when it has neither. Exactly undone by
/// [`find_block`] + [`remove_range`].
fn insert_block(text: &str, block: &str) -> String {
    match block_position(text) {
        None => format!("{block}{text}"),
        Some(at) if at == text.len() && !text.ends_with('\n') => {
            format!("{text}\n{}", block.trim_end_matches('\n'))
        }
        Some(at) => format!("{}{block}{}", &text[..at], &text[at..]),
    }
}

/// Ok when git runs this hook with a shell our block is written for: a `#!` naming one
/// (directly or through `env`), or no `#!` line, which git runs with `sh`. Else the
/// interpreter it names.
fn shell_of(text: &str) -> Result<(), String> {
    let Some(first) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return Ok(());
    };
    let mut words = first.split_whitespace();
    let mut program = words.next().unwrap_or_default();
    if program.rsplit('/').next() == Some("env") {
        program = words.find(|w| !w.starts_with('-')).unwrap_or_default();
    }
    let name = program.rsplit('/').next().unwrap_or_default();
    if SHELLS.contains(&name) {
        Ok(())
    } else {
        Err(first.trim().to_owned())
    }
}

/// A hook that already calls `majordomus hook <name>` (wired by hand, in any language):
/// a line that is not a comment naming `majordomus`, then `hook`, then the hook.
pub(crate) fn calls_majordomus(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        if line.trim_start().starts_with('#') {
            return false;
        }
        let Some(rest) = line.find("majordomus").map(|i| &line[i..]) else {
            return false;
        };
        rest.find("hook")
            .is_some_and(|i| rest[i + "hook".len()..].contains(name))
    })
}

fn manager_of(text: &str) -> Option<HookManager> {
    if text.contains("lefthook") {
        Some(HookManager::Lefthook)
    } else if text.contains("INSTALL_PYTHON") || text.contains("File generated by pre-commit") {
        Some(HookManager::PreCommit)
    } else {
        None
    }
}

/// husky v9 keeps `core.hooksPath=.husky/_`: a generated directory holding the runner `h`
/// and a shim per hook that sources it; the runner runs `.husky/<hook>`. Returns `.husky`.
fn husky_user_dir(dir: &Path) -> Option<PathBuf> {
    let generated = dir.file_name().is_some_and(|n| n == "_") && dir.join("h").is_file();
    generated
        .then(|| dir.parent().map(Path::to_path_buf))
        .flatten()
}

/// husky's shim: `#!/usr/bin/env sh` and one line sourcing `h` beside it
/// (`. "$(dirname "$0")/h"` in 9.1, `. "${0%/*}/h"` in 9.0).
pub(crate) fn is_husky_shim(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let mut commands = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    matches!((commands.next(), commands.next()), (Some(line), None) if line.starts_with(". ") && line.ends_with("/h\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "# >>> majordomus >>>\ncall\n# <<< majordomus <<<\n";

    #[track_caller]
    fn round_trip(original: &str) -> String {
        let with = insert_block(original, BLOCK);
        let range = find_block(&with)
            .expect("complete")
            .expect("the block is found");
        assert_eq!(remove_range(&with, range), original, "{with:?}");
        with
    }

    #[test]
    fn the_block_goes_after_the_shebang_and_comes_out_byte_for_byte() {
        assert_eq!(
            round_trip("#!/bin/sh\nexec lefthook run pre-push \"$@\"\n"),
            format!("#!/bin/sh\n{BLOCK}exec lefthook run pre-push \"$@\"\n")
        );
        assert_eq!(round_trip("npm test\n"), format!("{BLOCK}npm test\n"));
        assert_eq!(round_trip("npm test"), format!("{BLOCK}npm test"));
        assert_eq!(round_trip(""), BLOCK);
        assert_eq!(
            round_trip("#!/bin/sh"),
            "#!/bin/sh\n# >>> majordomus >>>\ncall\n# <<< majordomus <<<"
        );
        round_trip("#!/bin/sh\n");
        round_trip("#!/bin/sh\r\necho hi\r\n");
        round_trip("#!/bin/sh\n\n\nexit 1");
    }

    #[test]
    fn an_unterminated_block_is_refused() {
        assert_eq!(
            find_block("#!/bin/sh\n# >>> majordomus >>>\necho\n"),
            Err(())
        );
        assert_eq!(find_block("#!/bin/sh\necho\n"), Ok(None));
    }

    #[test]
    fn every_shipped_script_and_block_calls_its_hook() {
        for ((name, script), (block_name, block)) in SCRIPTS.into_iter().zip(BLOCKS) {
            assert_eq!(name, block_name);
            assert!(script.starts_with("#!/bin/sh\n"), "{name}");
            assert!(is_ours(script.as_bytes()), "{name}");
            let call = format!("exec \"${{MAJORDOMUS_BIN:-majordomus}}\" hook {name} \"$@\"\n");
            assert!(script.ends_with(&call), "{name}");
            assert_eq!(find_block(block), Ok(Some(0..block.len())), "{name}");
            assert!(
                !is_ours(block.as_bytes()),
                "{name}: a block never marks a file as ours"
            );
            assert!(
                !block.contains("exec \""),
                "{name}: a block never replaces the hook"
            );
            assert!(block.contains(&format!("hook {name} \"$@\"")), "{name}");
        }
    }

    #[test]
    fn shells_are_told_from_other_interpreters() {
        for ok in [
            "#!/bin/sh\n",
            "#!/usr/bin/env bash\n",
            "#!/usr/bin/env -S bash -e\n",
            "#! /bin/bash -eu\n",
            "npm test\n",
            "",
        ] {
            assert_eq!(shell_of(ok), Ok(()), "{ok:?}");
        }
        assert_eq!(
            shell_of("#!/usr/bin/env python3\nimport sys\n"),
            Err("/usr/bin/env python3".into())
        );
        assert_eq!(shell_of("#!/usr/bin/node\n"), Err("/usr/bin/node".into()));
    }

    #[test]
    fn husky_shims_of_both_v9_releases_are_recognised() {
        assert!(is_husky_shim(
            b"#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\""
        ));
        assert!(is_husky_shim(b"#!/usr/bin/env sh\n. \"${0%/*}/h\"\n"));
        assert!(!is_husky_shim(
            b"#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\nexit 1\n"
        ));
        assert!(!is_husky_shim(b"#!/bin/sh\nnpm test\n"));
    }

    #[test]
    fn a_hand_wired_call_is_recognised_and_a_comment_is_not() {
        assert!(calls_majordomus(
            "#!/bin/sh\nmajordomus hook pre-push \"$@\"\n",
            "pre-push"
        ));
        assert!(!calls_majordomus(
            "#!/bin/sh\n# majordomus hook pre-push\n",
            "pre-push"
        ));
        assert!(!calls_majordomus(
            "#!/bin/sh\nmajordomus hook post-commit\n",
            "pre-push"
        ));
        assert!(calls_majordomus(
            "subprocess.run([\"majordomus\", \"hook\", \"pre-push\", *sys.argv[1:]])\n",
            "pre-push"
        ));
    }
}
