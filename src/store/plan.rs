//! The plan's files as they lie on disk: `.ai/repo/intents/*.yaml` (intents and
//! `milestones.yaml`), read for the pure parser in `model::intent`.

use super::{Layout, StoreError};
use crate::model::intent::{PlanFile, PlanInput};

/// The files of `.ai/repo/intents/` (`*.yaml`, sorted); `None` when the directory does
/// not exist.
pub fn plan_files(layout: &Layout) -> Result<Option<Vec<PlanFile>>, StoreError> {
    let dir = layout.intents_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(&dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(&dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.ends_with(".yaml") || name.ends_with(".yml")) || name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // A file that is not UTF-8 is still a file of the plan: the parser names it.
        let bytes = std::fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        files.push(PlanFile {
            path: layout.display(&path),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Some(files))
}

/// The plan, parsed strictly: no plan, an unreadable one (every broken file named), or
/// the intents and milestones.
pub fn read_plan(layout: &Layout) -> Result<PlanInput, StoreError> {
    Ok(PlanInput::read(plan_files(layout)?.as_deref()))
}
