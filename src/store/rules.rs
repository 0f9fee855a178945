//! Rule files as they lie on disk: the vendored standard package and the project's rule
//! files (`.ai/repo/rules/project/*.yaml`), read for the strict parser in `model::rules`.

use super::{Layout, StoreError};

/// A rule file: its path relative to the root and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFile {
    pub path: String,
    pub text: String,
}

/// The vendored package, `None` when nothing is vendored.
pub fn vendored(layout: &Layout) -> Result<Option<RuleFile>, StoreError> {
    let path = layout.vendored_rules();
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(RuleFile {
            path: layout.display(&path),
            // A file that is not UTF-8 is still the vendored package: the parser names it.
            text: String::from_utf8_lossy(&bytes).into_owned(),
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io(&path, e)),
    }
}

/// The project's rule files (`*.yaml` and `*.yml`, sorted by name); none when the folder
/// does not exist.
pub fn project_files(layout: &Layout) -> Result<Vec<RuleFile>, StoreError> {
    let dir = layout.project_rules_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
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
        let bytes = std::fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        files.push(RuleFile {
            path: layout.display(&path),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}
