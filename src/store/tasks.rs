//! Task records on disk: `.ai/local/state/tasks/<task>.json` and the completion notes
//! under `.ai/local/state/completed/`.

use super::{Layout, StoreError, WriteOutcome, write_atomic};
use crate::model::task::TaskRecord;

/// Writes (or rewrites) a task's record.
pub fn write(layout: &Layout, task: &TaskRecord) -> Result<WriteOutcome, StoreError> {
    let path = layout.task_record(&task.id)?;
    let mut bytes = serde_json::to_vec_pretty(task).expect("task records serialise");
    bytes.push(b'\n');
    write_atomic(&path, &bytes)
}

/// The task `id`, if this checkout has its record.
pub fn read(layout: &Layout, id: &str) -> Result<Option<TaskRecord>, StoreError> {
    let path = layout.task_record(id)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(&path, e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| StoreError::Malformed {
            path,
            message: e.to_string(),
        })
}

/// Every task record of this checkout, oldest first (ids start with the day; ties by id).
pub fn list(layout: &Layout) -> Result<Vec<TaskRecord>, StoreError> {
    let dir = layout.tasks_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&dir, e)),
    };
    let mut tasks = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(&dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".json") else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if let Some(task) = read(layout, id)? {
            tasks.push(task);
        }
    }
    tasks.sort_by(|a, b| (&a.started, &a.id).cmp(&(&b.started, &b.id)));
    Ok(tasks)
}

/// The active task of `episode`, if any (at most one, SPEC §4).
pub fn active(layout: &Layout, episode: &str) -> Result<Option<TaskRecord>, StoreError> {
    Ok(list(layout)?
        .into_iter()
        .find(|t| t.episode == episode && t.state == crate::model::task::TaskState::Active))
}
