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
    let mut out = Vec::new();
    for (place, dir) in [
        (Place::Candidates, ctx.layout.candidates_dir()),
        (Place::Curated, ctx.layout.curated_dir()),
        (Place::Outbox, outbox.shelf(Shelf::Candidates)),
    ] {
        for name in list_markdown(&dir)? {
            let path = dir.join(&name);
            let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
            out.push(StoredFile {
                place,
                rel: ctx.layout.display(&path),
                stem: name.trim_end_matches(".md").to_owned(),
                path,
                text,
            });
        }
    }
    Ok(out)
}
