//! Knowledge at the episode boundary (SPEC §5): derive, promote and reject, check,
//! candidates and status.

pub mod check;
pub mod derive;
pub mod queue;
pub mod review;

use std::path::PathBuf;

use serde::Serialize;

use crate::Ctx;
use crate::error::Error;
use crate::model::knowledge::KnowledgeRecord;
use crate::store::outbox::{Outbox, Shelf, list_markdown};
use crate::store::{StoreError, frontmatter};

pub use check::{CheckReport, Finding, Severity, check};
pub use derive::{DeriveOptions, DeriveReport, derive};
pub use queue::{CandidateListing, KnowledgeStatus, candidates, status};
pub use review::{promote, reject};

/// Where a record file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
        if let Some((yaml, body)) = frontmatter::split(&self.text)
            && let Some(record) = crate::model::knowledge::parse_front_fast(yaml)
        {
            return Ok((record, body));
        }
        frontmatter::parse::<KnowledgeRecord>(&self.text)
    }
}

/// Every record file of the store, candidates, curated and the outbox, in that order.
pub fn stored_files(ctx: &Ctx) -> Result<Vec<StoredFile>, Error> {
    let outbox = Outbox::new(&ctx.layout);
    let mut names = Vec::new();
    for (place, dir) in [
        (Place::Candidates, ctx.layout.candidates_dir()),
        (Place::Curated, ctx.layout.curated_dir()),
        (Place::Outbox, outbox.shelf(Shelf::Candidates)),
    ] {
        for name in list_markdown(&dir)? {
            names.push((place, dir.join(&name), name));
        }
    }
    // Reading thousands of small files is embarrassingly parallel.
    let layout = &ctx.layout;
    map_parallel(names, |(place, path, name)| {
        let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
        Ok(StoredFile {
            place,
            rel: layout.display(&path),
            stem: name.trim_end_matches(".md").to_owned(),
            path,
            text,
        })
    })
    .into_iter()
    .collect()
}

/// `f` over `items` on the machine's cores (in order); sequential for small inputs.
pub fn map_parallel<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    const SEQUENTIAL_BELOW: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if items.len() < SEQUENTIAL_BELOW || threads < 2 {
        return items.into_iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut chunks: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        chunks.push(items.by_ref().take(per).collect());
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || chunk.into_iter().map(f).collect::<Vec<U>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker of map_parallel panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::map_parallel;

    #[test]
    fn map_parallel_keeps_order() {
        for n in [0, 3, 255, 256, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let doubled = map_parallel(items, |i| i * 2);
            assert_eq!(doubled, (0..n).map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
