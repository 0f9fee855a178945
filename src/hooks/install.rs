//! Installing and removing the git hook scripts (SPEC §8), chaining what was there.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use super::HooksRequest;
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::store::{StoreError, WriteOutcome, write_atomic};

/// The git hook scripts, embedded from `hooks/`.
pub const SCRIPTS: [(&str, &str); 4] = [
    ("post-commit", include_str!("../../hooks/post-commit")),
    ("pre-push", include_str!("../../hooks/pre-push")),
    ("post-checkout", include_str!("../../hooks/post-checkout")),
    ("post-merge", include_str!("../../hooks/post-merge")),
];

/// The line that marks a script as ours.
const MARKER: &str = "# majordomus-hook:";
/// Suffix under which a hook that was there before is kept and chained.
pub const CHAINED_SUFFIX: &str = ".pre-majordomus";

/// What install or uninstall did to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HookAction {
    /// Installed where nothing was.
    Installed,
    /// An existing hook kept and run first.
    Chained,
    /// Already installed as it is.
    Unchanged,
    /// Ours, removed.
    Removed,
    /// Ours removed and the chained hook put back.
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
            HookAction::Unchanged => "unchanged",
            HookAction::Removed => "removed",
            HookAction::Restored => "restored",
            HookAction::Absent => "absent",
            HookAction::Foreign => "foreign",
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HookChange {
    pub hook: String,
    pub action: HookAction,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HooksReport {
    /// The hooks directory git uses (honours `core.hooksPath`).
    pub dir: String,
    pub hooks: Vec<HookChange>,
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.lines().any(|l| l.starts_with(MARKER)))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| StoreError::io(path, e))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), StoreError> {
    Ok(())
}

/// Installs the scripts into the hooks directory git uses. An existing foreign hook is
/// kept as `<name>.pre-majordomus` and run first, never replaced silently. Idempotent.
pub fn install(ctx: &Ctx, _request: HooksRequest) -> Result<HooksReport, Error> {
    ctx.require_initialised()?;
    let dir = ctx.repo.hooks_dir();
    // Refuse before touching anything, so an install is never partial.
    for (name, _) in SCRIPTS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        if path.exists() && !is_ours(&path) && chained.exists() {
            return Err(Refusal::HookChainOccupied {
                hook: name.to_owned(),
                path: chained.display().to_string(),
            }
            .into());
        }
    }
    let mut hooks = Vec::new();
    for (name, script) in SCRIPTS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let mut action = HookAction::Installed;
        if path.exists() && !is_ours(&path) {
            std::fs::rename(&path, &chained).map_err(|e| StoreError::io(&path, e))?;
            action = HookAction::Chained;
        }
        if write_atomic(&path, script.as_bytes())? == WriteOutcome::Unchanged {
            action = HookAction::Unchanged;
        }
        make_executable(&path)?;
        hooks.push(HookChange {
            hook: name.to_owned(),
            action,
        });
    }
    Ok(HooksReport {
        dir: dir.display().to_string(),
        hooks,
    })
}

/// Removes our scripts and puts back any hook they chained.
pub fn uninstall(ctx: &Ctx, _request: HooksRequest) -> Result<HooksReport, Error> {
    let dir = ctx.repo.hooks_dir();
    let mut hooks = Vec::new();
    for (name, _) in SCRIPTS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let action = if !path.exists() {
            HookAction::Absent
        } else if !is_ours(&path) {
            HookAction::Foreign
        } else {
            std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
            if chained.exists() {
                std::fs::rename(&chained, &path).map_err(|e| StoreError::io(&chained, e))?;
                HookAction::Restored
            } else {
                HookAction::Removed
            }
        };
        hooks.push(HookChange {
            hook: name.to_owned(),
            action,
        });
    }
    Ok(HooksReport {
        dir: dir.display().to_string(),
        hooks,
    })
}
