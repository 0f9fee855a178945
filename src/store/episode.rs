//! The open episode's state file (`.ai/local/state/episode.json`): read, written, removed,
//! and set aside when it cannot be read.

use super::{Layout, StoreError, WriteOutcome, write_atomic};
use crate::model::EpisodeState;
use crate::model::ids::IdKind;

/// The open episode, if any; an unreadable file is `StoreError::EpisodeUnreadable`.
pub fn read(layout: &Layout) -> Result<Option<EpisodeState>, StoreError> {
    let path = layout.episode_state();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(&path, e)),
    };
    let episode: EpisodeState =
        serde_json::from_str(&text).map_err(|e| StoreError::EpisodeUnreadable {
            path: layout.display(&path),
            message: e.to_string(),
        })?;
    // The id stamps every write of the episode and names its files (SPEC §0): a file
    // whose id does not have the shape of one is not an episode this checkout opened.
    if !IdKind::Episode.accepts(&episode.id) {
        return Err(StoreError::EpisodeUnreadable {
            path: layout.display(&path),
            message: format!(
                "id {} does not have the shape of an episode id (like {})",
                crate::model::ids::shown(&episode.id),
                IdKind::Episode.example()
            ),
        });
    }
    Ok(Some(episode))
}

/// Records `episode` as the open one.
pub fn write(layout: &Layout, episode: &EpisodeState) -> Result<WriteOutcome, StoreError> {
    let state = serde_json::to_vec_pretty(episode).expect("episode state serialises");
    write_atomic(&layout.episode_state(), &state)
}

/// Forgets the open episode (it closed).
pub fn remove(layout: &Layout) -> Result<(), StoreError> {
    let path = layout.episode_state();
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io(&path, e)),
    }
}

/// Moves an unreadable state file aside as `episode.json.unreadable-<stamp>` (never
/// deleted: it may be the only trace of which episode was open); returns its new path.
pub fn set_aside(layout: &Layout, stamp: &str) -> Result<String, StoreError> {
    let path = layout.episode_state();
    let mut aside = path.with_file_name(format!("episode.json.unreadable-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = path.with_file_name(format!("episode.json.unreadable-{stamp}-{n}"));
    }
    std::fs::rename(&path, &aside).map_err(|e| StoreError::io(&path, e))?;
    Ok(layout.display(&aside))
}
