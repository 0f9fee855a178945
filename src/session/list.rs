//! `session list`: every episode the ledger knows, and every episode of the other writers'
//! journals this clone has (SPEC §12, each marked with its writer), newest first, with
//! where its session record is now (tracked, or waiting in the trunk's outbox) and the
//! record read back.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::compose::SessionRecord;
use crate::model::event::{Outcome, SessionClosed, SessionOpened};
use crate::store::frontmatter;
use crate::store::index::{LedgerIndex, LineQuery};
use crate::store::outbox::{Outbox, Shelf};

/// `session.list` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRequest {}

/// One episode of the ledger.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EpisodeEntry {
    pub id: String,
    /// When it opened (its `session.opened` line), if the ledger still holds it.
    pub opened: Option<String>,
    pub provider: Option<String>,
    pub branch: Option<String>,
    /// When it closed, and how.
    pub closed: Option<String>,
    pub outcome: Option<Outcome>,
    /// It closed empty: no commit, no authored line, so no record (SPEC §3.2).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub empty: bool,
    /// It is the open episode.
    pub open: bool,
    /// Where its session record is now, relative to the root: `.ai/repo/sessions/` or the
    /// outbox. Found by the episode's id, never by a path a ledger line names.
    pub record: Option<String>,
    /// The record's front matter and body, read back.
    pub front: Option<SessionRecord>,
    pub body: Option<String>,
    /// Why the record could not be read, when it exists and does not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_error: Option<String>,
    /// The writer whose journal holds it, when it is another writer's episode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
}

/// Every episode of the ledger, newest first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EpisodeList {
    pub episodes: Vec<EpisodeEntry>,
    /// Journal commits and lines skipped reading the other writers' journals.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub journal_findings: Vec<crate::journal::JournalFinding>,
}

/// Lists the episodes from the ledger's `session.opened` and `session.closed` lines (one
/// indexed read each), each with its record read by id.
pub fn list(ctx: &Ctx, _request: ListRequest) -> Result<EpisodeList, Error> {
    let index = ctx.index()?;
    let open = ctx.episode()?.map(|e| e.id);
    let mut by_id: BTreeMap<String, EpisodeEntry> = BTreeMap::new();
    fill(&mut by_id, &index, None)?;
    // The other writers' episodes: an id this ledger already has stays this ledger's.
    let journals = crate::journal::journals(ctx)?;
    for journal in &journals.journals {
        fill(&mut by_id, &journal.index(ctx)?, Some(&journal.writer))?;
    }
    let outbox = Outbox::new(&ctx.layout);
    for e in by_id.values_mut() {
        e.open = e.writer.is_none() && open.as_deref() == Some(e.id.as_str());
        for path in [
            ctx.layout.session_record(&e.id)?,
            ctx.layout
                .episode_file_in(&outbox.shelf(Shelf::Sessions), &e.id)?,
        ] {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            e.record = Some(ctx.layout.display(&path));
            match frontmatter::parse::<SessionRecord>(&text) {
                Ok((front, body)) => {
                    e.front = Some(front);
                    e.body = Some(body.to_owned());
                }
                Err(message) => e.record_error = Some(message),
            }
            break;
        }
    }
    // Episode ids begin with their opening time: reverse id order is newest first.
    Ok(EpisodeList {
        episodes: by_id.into_values().rev().collect(),
        journal_findings: journals.findings,
    })
}

/// The episodes one ledger's `session.opened` and `session.closed` lines name (one
/// indexed read each), added to `by_id` as `writer`'s; an episode already listed by
/// another ledger is left as it is.
fn fill(
    by_id: &mut BTreeMap<String, EpisodeEntry>,
    index: &LedgerIndex,
    writer: Option<&str>,
) -> Result<(), Error> {
    let mine = |by_id: &BTreeMap<String, EpisodeEntry>, id: &str| {
        by_id.get(id).is_none_or(|e| e.writer.as_deref() == writer)
    };
    fn entry<'a>(
        by_id: &'a mut BTreeMap<String, EpisodeEntry>,
        id: &str,
        writer: Option<&str>,
    ) -> Option<&'a mut EpisodeEntry> {
        // An id of the wrong shape (a forged line) is not an episode: never a path.
        crate::store::StoreError::check_id(crate::model::ids::IdKind::Episode, id).ok()?;
        Some(by_id.entry(id.to_owned()).or_insert_with(|| EpisodeEntry {
            id: id.to_owned(),
            opened: None,
            provider: None,
            branch: None,
            closed: None,
            outcome: None,
            empty: false,
            open: false,
            record: None,
            front: None,
            body: None,
            record_error: None,
            writer: writer.map(str::to_owned),
        }))
    }
    for line in index.lines(&LineQuery {
        event: Some(crate::model::Event::SessionOpened),
        ..Default::default()
    })? {
        if let (Some(id), Some(p)) = (&line.session, line.payload::<SessionOpened>())
            && mine(by_id, id)
            && let Some(e) = entry(by_id, id, writer)
        {
            e.opened = Some(line.ts.clone());
            e.provider = Some(p.provider);
            e.branch = p.branch;
        }
    }
    for line in index.lines(&LineQuery {
        event: Some(crate::model::Event::SessionClosed),
        ..Default::default()
    })? {
        if let (Some(id), Some(p)) = (&line.session, line.payload::<SessionClosed>())
            && mine(by_id, id)
            && let Some(e) = entry(by_id, id, writer)
        {
            e.closed = Some(line.ts.clone());
            e.outcome = Some(p.outcome);
            e.empty = p.empty;
        }
    }
    Ok(())
}
