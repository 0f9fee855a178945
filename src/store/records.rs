//! Knowledge record files as they lie on disk: candidates, curated and the trunk outbox,
//! listed and read (in parallel when there are many).

use std::path::PathBuf;

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use super::outbox::{Outbox, Shelf, list_markdown};
use super::{Layout, StoreError, frontmatter};
use crate::model::knowledge::{KnowledgeRecord, parse_front_fast};

/// Where a record file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    Candidates,
    Curated,
    /// `.ai/local/state/outbox/candidates/` (derived on the trunk).
    Outbox,
}

/// A record file as found on disk.
#[derive(Debug, Clone)]
pub struct StoredFile {
    pub place: Place,
    pub path: PathBuf,
    /// Relative to the repository root.
    pub rel: String,
    /// File name without `.md`.
    pub stem: String,
    pub text: String,
}

impl StoredFile {
    /// The front matter and body, or why they do not parse.
    pub fn parse(&self) -> Result<(KnowledgeRecord, &str), String> {
        parse_record(&self.text)
    }
}

/// A knowledge record's front matter and body: the fast path for the plain shape
/// majordomus writes, the YAML parser for anything else.
pub fn parse_record(text: &str) -> Result<(KnowledgeRecord, &str), String> {
    if let Some((yaml, body)) = frontmatter::split(text)
        && let Some(record) = parse_front_fast(yaml)
    {
        return Ok((record, body));
    }
    frontmatter::parse::<KnowledgeRecord>(text)
}

/// Below this many files a sequential read beats spreading it over threads.
const SEQUENTIAL_BELOW: usize = 256;

/// A record file that is there but is not UTF-8 text: for a check, a finding.
#[derive(Debug, Clone)]
pub struct UnreadableFile {
    pub place: Place,
    /// Relative to the repository root.
    pub rel: String,
    pub reason: String,
}

/// Every record file of the store, candidates, curated and the outbox, in that order.
pub fn stored_files(layout: &Layout) -> Result<Vec<StoredFile>, StoreError> {
    read_stored(layout)?
        .into_iter()
        .map(|read| {
            read.map_err(|bad| {
                StoreError::io(
                    &layout.root().join(&bad.rel),
                    std::io::Error::new(std::io::ErrorKind::InvalidData, bad.reason),
                )
            })
        })
        .collect()
}

/// [`stored_files`] for a check: a file that is not UTF-8 is set apart (a finding of the
/// check, SPEC §0) instead of failing the whole read.
pub fn stored_files_checked(
    layout: &Layout,
) -> Result<(Vec<StoredFile>, Vec<UnreadableFile>), StoreError> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for read in read_stored(layout)? {
        match read {
            Ok(file) => files.push(file),
            Err(bad) => unreadable.push(bad),
        }
    }
    Ok((files, unreadable))
}

fn read_stored(layout: &Layout) -> Result<Vec<Result<StoredFile, UnreadableFile>>, StoreError> {
    let outbox = Outbox::new(layout);
    let mut names = Vec::new();
    for (place, dir) in [
        (Place::Candidates, layout.candidates_dir()),
        (Place::Curated, layout.curated_dir()),
        (Place::Outbox, outbox.shelf(Shelf::Candidates)),
    ] {
        for name in list_markdown(&dir)? {
            names.push((place, dir.join(&name), name));
        }
    }
    let read = |(place, path, name): (Place, PathBuf, String)| {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Ok(Err(UnreadableFile {
                    place,
                    rel: layout.display(&path),
                    reason: e.to_string(),
                }));
            }
            Err(e) => return Err(StoreError::io(&path, e)),
        };
        Ok(Ok(StoredFile {
            place,
            rel: layout.display(&path),
            stem: name.trim_end_matches(".md").to_owned(),
            path,
            text,
        }))
    };
    // Reading thousands of small files is embarrassingly parallel.
    if names.len() < SEQUENTIAL_BELOW {
        names.into_iter().map(read).collect()
    } else {
        names.into_par_iter().map(read).collect()
    }
}

/// `f` over `items`, in order: on every core when there are many, else sequentially.
pub fn map_records<'a, T: Sync, U: Send>(
    items: &'a [T],
    f: impl Fn(&'a T) -> U + Sync + Send,
) -> Vec<U> {
    if items.len() < SEQUENTIAL_BELOW {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}
