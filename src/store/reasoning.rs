//! Reasoning records on disk: `.ai/local/state/reasoning/<task>/<id>.json`, one JSON file a
//! record (task = a task id, or `_episode-<episode id>` for work outside a task).

use std::path::PathBuf;

use super::{Layout, StoreError, WriteOutcome, write_new};
use crate::model::ids::IdKind;
use crate::model::reasoning::StoredRecord;

/// The folder name of the records of `task`, or of `episode` when there is no task.
pub fn folder(task: Option<&str>, episode: &str) -> String {
    match task {
        Some(t) => t.to_owned(),
        None => format!("_episode-{episode}"),
    }
}

/// Refuses a folder name that is neither a task id nor `_episode-<episode id>`.
fn check_folder(name: &str) -> Result<(), StoreError> {
    match name.strip_prefix("_episode-") {
        Some(episode) => StoreError::check_id(IdKind::Episode, episode),
        None => StoreError::check_id(IdKind::Task, name),
    }
}

/// The file a record is stored in.
pub fn path(layout: &Layout, folder: &str, id: &str) -> Result<PathBuf, StoreError> {
    check_folder(folder)?;
    StoreError::check_id(IdKind::Reasoning, id)?;
    Ok(layout
        .reasoning_dir()
        .join(folder)
        .join(format!("{id}.json")))
}

/// Stores a record; a record is never rewritten (its id is its content).
pub fn write(
    layout: &Layout,
    record: &StoredRecord,
) -> Result<(PathBuf, WriteOutcome), StoreError> {
    let path = path(layout, &record.task, &record.id)?;
    let mut bytes = serde_json::to_vec_pretty(record).expect("records serialise");
    bytes.push(b'\n');
    let outcome = write_new(&path, &bytes)?;
    Ok((path, outcome))
}

/// The records of one folder, ordered by `recorded_at` then id.
pub fn read_folder(layout: &Layout, folder: &str) -> Result<Vec<StoredRecord>, StoreError> {
    check_folder(folder)?;
    let dir = layout.reasoning_dir().join(folder);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&dir, e)),
    };
    let mut records = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(&dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
        let record: StoredRecord =
            serde_json::from_str(&text).map_err(|e| StoreError::Malformed {
                path: path.clone(),
                message: e.to_string(),
            })?;
        records.push(record);
    }
    records.sort_by(|a, b| (&a.recorded_at, &a.id).cmp(&(&b.recorded_at, &b.id)));
    Ok(records)
}

/// Every folder of records, sorted.
pub fn folders(layout: &Layout) -> Result<Vec<String>, StoreError> {
    let dir = layout.reasoning_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&dir, e)),
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| check_folder(n).is_ok())
        .collect();
    out.sort();
    Ok(out)
}

/// Every record of this checkout (the availability circuit reads them all).
pub fn read_all(layout: &Layout) -> Result<Vec<StoredRecord>, StoreError> {
    let mut all = Vec::new();
    for folder in folders(layout)? {
        all.extend(read_folder(layout, &folder)?);
    }
    Ok(all)
}
