//! `session recompose`: a closed episode's session record composed again with the
//! episode's own commits (SPEC §3.2), for a record written before that rule; what
//! `doctor`'s `majordomus.session-commits` names as its fix.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Redactions;
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::compose::{SessionRecord, recompose_record};
use crate::model::episode::{BoundariesAt, EpisodeSpan};
use crate::model::ids::IdKind;
use crate::model::{EpisodeWindow, GitSinceOpen};
use crate::store::index::LineQuery;
use crate::store::outbox::{Outbox, Shelf};
use crate::store::{KnowledgeLock, StoreError, WriteOutcome, frontmatter, write_atomic};

/// `session.recompose`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecomposeRequest {
    /// The closed episode whose record to compose again (`YYYYMMDDTHHMMSSZ-<6 hex>`).
    pub episode: String,
}

/// What `session recompose` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Recomposed {
    pub episode: String,
    /// The record, relative to the repository root (tracked, or in the trunk's outbox).
    pub path: String,
    pub write: WriteOutcome,
    /// The commits the record lists now, oldest first.
    pub commits: Vec<String>,
    /// The files those commits changed.
    pub changed_files: Vec<String>,
    /// Commits the record listed and no longer does.
    pub removed: Vec<String>,
    /// Commits the record lists now and did not.
    pub added: Vec<String>,
    /// Where the trunk and the upstream were read: `reflog` (as they stood when the
    /// episode closed) or `now` (this clone has no reflog for them, or none that old).
    pub boundaries: BoundarySource,
    /// Secret shapes and control characters removed from commit subjects and paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
}

/// Where [`recompose`] read the trunk and the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BoundarySource {
    /// As each reference's reflog says it stood at the record's `closed` (a reference
    /// without a reflog as it is now).
    Reflog,
    /// As they are now: the record's `closed` does not read as a time.
    Now,
}

/// Composes the record of closed episode `episode` again: its commits are the episode's
/// own, from this clone's ledger (what the hooks recorded, followed through its rewrites)
/// and git (the record's `head` as HEAD, the trunk and upstream as their reflogs say they
/// stood at its `closed`); its `changed_files`, Commits, Files and Outcome follow. Written
/// through the atomic writer; `unchanged` when the bytes are the same.
pub fn recompose(ctx: &Ctx, request: RecomposeRequest) -> Result<Recomposed, Error> {
    let id = request.episode;
    Refusal::check_id(IdKind::Episode, &id)?;
    let index = ctx.index()?;
    if index.episode(&id)?.is_none() {
        return Err(Refusal::RecomposeUnknownEpisode { id }.into());
    }
    if ctx.episode()?.is_some_and(|open| open.id == id) {
        return Err(Refusal::EpisodeStillOpen { id }.into());
    }
    // A drain moves records out of the outbox under this lock.
    let _lock = KnowledgeLock::acquire(&ctx.layout)?;
    let outbox = Outbox::new(&ctx.layout);
    let path = [
        ctx.layout.session_record(&id)?,
        ctx.layout
            .episode_file_in(&outbox.shelf(Shelf::Sessions), &id)?,
    ]
    .into_iter()
    .find(|p| p.is_file())
    .ok_or_else(|| Refusal::NoSessionRecord { id: id.clone() })?;
    let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
    let (record, body) =
        frontmatter::parse::<SessionRecord>(&text).map_err(|message| StoreError::Malformed {
            path: path.clone(),
            message,
        })?;

    let lines = index.lines(&LineQuery {
        session: Some(&id),
        ..LineQuery::default()
    })?;
    let window = EpisodeWindow::from_lines(&id, &lines);
    let recorded = window.recorded_shas();
    let closed =
        crate::model::time::parse(&record.closed).map(time::OffsetDateTime::unix_timestamp);
    let own = ctx.repo.own_commits(&EpisodeSpan {
        head: record.head.as_deref(),
        branch: record.branch.as_deref(),
        head_at_open: record.head_at_open.as_deref(),
        opened: crate::model::time::parse(&record.opened).map(time::OffsetDateTime::unix_timestamp),
        boundaries: closed.map_or(BoundariesAt::Now, BoundariesAt::Logged),
        recorded: &recorded,
        rewrites: &window.commits_rewritten,
    })?;

    // Subjects and paths are copied into a tracked file: redacted as the close does.
    let mut redacted = Redactions::default();
    let mut commits = own.commits;
    for commit in &mut commits {
        commit.subject = redacted.clean(&commit.subject);
    }
    let mut git = GitSinceOpen::new(record.head.clone(), record.branch.clone(), commits, false);
    git.changed_files.retain(|f| !f.starts_with(".ai/"));
    for file in &mut git.changed_files {
        *file = redacted.clean(file);
    }
    git.elsewhere = own.elsewhere;
    let (new_record, new_body) = recompose_record(&record, body, &git, super::max_items(ctx));
    let write = write_atomic(
        &path,
        frontmatter::render(&new_record, &new_body).as_bytes(),
    )?;
    let removed = record
        .commits
        .iter()
        .filter(|c| !new_record.commits.contains(c))
        .cloned()
        .collect();
    let added = new_record
        .commits
        .iter()
        .filter(|c| !record.commits.contains(c))
        .cloned()
        .collect();
    Ok(Recomposed {
        episode: id,
        path: ctx.layout.display(&path),
        write,
        commits: new_record.commits,
        changed_files: new_record.changed_files,
        removed,
        added,
        boundaries: if closed.is_some() {
            BoundarySource::Reflog
        } else {
            BoundarySource::Now
        },
        redacted: redacted.shapes(),
    })
}
