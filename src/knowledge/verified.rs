//! `knowledge verified` (SPEC §5.2): the records a person verified and that are still
//! claimed — what `knowledge supersede` and `knowledge retire` select from — oldest verified
//! first, each marked stale when its cited files moved since.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::LedgerLine;
use crate::model::event::KnowledgePromoted;
use crate::model::knowledge::{Class, Status, cited_paths};
use crate::store::index::LineQuery;
use crate::store::records::{Place, stored_files};

/// `knowledge.verified`: the filters of the listing (none: every verified record).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeVerifiedRequest")]
pub struct VerifiedRequest {
    /// Only the records of this episode: their id begins with it, or they derive from
    /// `session:<it>`.
    #[serde(default)]
    pub episode: Option<String>,
    /// Only the records of this class.
    #[serde(default)]
    #[schemars(schema_with = "crate::model::knowledge::class_schema")]
    pub class: Option<Class>,
    /// Only those verified longer ago than this span (30m, 12h, 7d, 2w).
    #[serde(default)]
    #[schemars(regex(pattern = r"^[0-9]{1,6}[mhdw]$"))]
    pub older_than: Option<String>,
    /// Only the stale ones: a cited file changed since the commit that verified it.
    #[serde(default)]
    pub stale: bool,
}

impl VerifiedRequest {
    /// Whether any filter narrows the listing.
    pub fn narrows(&self) -> bool {
        self.episode.is_some() || self.class.is_some() || self.older_than.is_some() || self.stale
    }

    /// The filters as `knowledge verified` options, each quoted for sh.
    pub fn options(&self) -> String {
        let mut out = String::new();
        let mut push = |flag: &str, value: Option<&str>| {
            out.push_str(&format!(" --{flag}"));
            if let Some(v) = value {
                out.push(' ');
                out.push_str(&crate::model::shell::quote(v));
            }
        };
        if let Some(e) = &self.episode {
            push("episode", Some(e));
        }
        if let Some(c) = self.class {
            push("class", Some(c.name()));
        }
        if let Some(o) = &self.older_than {
            push("older-than", Some(o));
        }
        if self.stale {
            push("stale", None);
        }
        out
    }
}

/// What a record's verification time was measured from: the first of these there is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VerifiedFrom {
    /// The first `knowledge.promoted` line of this ledger naming it.
    Promoted,
    /// The commit that added its file under `curated/` (promoted in another clone).
    Added,
    /// Its `date` (neither).
    Date,
}

impl VerifiedFrom {
    pub fn name(self) -> &'static str {
        match self {
            VerifiedFrom::Promoted => "promoted",
            VerifiedFrom::Added => "added",
            VerifiedFrom::Date => "date",
        }
    }
}

/// One verified record.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerifiedEntry {
    pub id: String,
    pub title: String,
    pub class: Class,
    pub date: String,
    /// The record, from the repository root.
    pub path: String,
    /// When it was verified (RFC 3339), and what that was measured from.
    pub verified_at: String,
    pub verified_from: VerifiedFrom,
    /// The episode it was derived in (the start of its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episode: Option<String>,
    /// The files it cites (`file:`/`test:`), sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// When stale: each cited file that moved since it was verified, and how
    /// (`src/a.rs changed`). Absent when fresh or not judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<String>,
    #[serde(skip)]
    derived_from: Vec<String>,
}

/// `knowledge.verified`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "KnowledgeVerified")]
pub struct VerifiedListing {
    /// Oldest verified first (`verified_at`), then by id.
    pub records: Vec<VerifiedEntry>,
    /// Records in `curated/` that are superseded or retired: no longer claimed, not listed.
    pub ended: usize,
    /// Files under `curated/` that could not be read as records (see `knowledge check`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
}

/// The verified records of `curated/`, filtered, oldest verified first.
pub fn verified(ctx: &Ctx, request: VerifiedRequest) -> Result<VerifiedListing, Error> {
    let older_than = match request.older_than.as_deref() {
        None => None,
        Some(text) => Some(crate::model::time::parse_span(text).ok_or_else(|| {
            crate::model::knowledge::ReviewError::OlderThan {
                value: text.to_owned(),
            }
        })?),
    };
    if let Some(episode) = request.episode.as_deref() {
        crate::error::Refusal::check_id(crate::model::ids::IdKind::Episode, episode)?;
    }
    let mut listing = VerifiedListing {
        records: Vec::new(),
        ended: 0,
        unreadable: Vec::new(),
    };
    for file in stored_files(&ctx.layout)? {
        if file.place != Place::Curated {
            continue;
        }
        let Ok((record, _)) = file.parse() else {
            listing.unreadable.push(file.rel.clone());
            continue;
        };
        if record.status != Status::Verified {
            listing.ended += 1;
            continue;
        }
        listing.records.push(VerifiedEntry {
            episode: super::queue::episode_of(&record.id).map(str::to_owned),
            files: cited_paths(&record.provenance.derived_from),
            stale: Vec::new(),
            derived_from: record.provenance.derived_from.clone(),
            verified_at: String::new(),
            verified_from: VerifiedFrom::Date,
            id: record.id,
            title: record.title,
            class: record.class,
            date: record.date,
            path: file.rel.clone(),
        });
    }
    let keep = |v: &VerifiedEntry| {
        request.class.is_none_or(|class| v.class == class)
            && request.episode.as_deref().is_none_or(|e| {
                v.episode.as_deref() == Some(e)
                    || v.derived_from
                        .iter()
                        .any(|r| r.strip_prefix("session:") == Some(e))
            })
    };
    listing.records.retain(keep);
    verified_times(ctx, &mut listing.records)?;
    if let Some(span) = older_than {
        let now = ctx.clock.now();
        listing.records.retain(|v| {
            crate::model::time::parse(&v.verified_at).is_some_and(|at| now - at > span)
        });
    }
    if !listing.records.is_empty() {
        let stale: HashMap<String, Vec<String>> = super::stale(ctx)?
            .stale
            .into_iter()
            .map(|s| {
                let moved = s
                    .targets
                    .iter()
                    .map(|t| format!("{} {}", t.path, t.change.verb()))
                    .collect();
                (s.id, moved)
            })
            .collect();
        for v in &mut listing.records {
            if let Some(moved) = stale.get(&v.id) {
                v.stale.clone_from(moved);
            }
        }
    }
    if request.stale {
        listing.records.retain(|v| !v.stale.is_empty());
    }
    listing.records.sort_by_cached_key(|v| {
        let at = crate::model::time::parse(&v.verified_at);
        (at.is_none(), at, v.id.clone())
    });
    Ok(listing)
}

/// When each record was verified: the first `knowledge.promoted` line naming it, else the
/// commit that added its file, else its `date`.
fn verified_times(ctx: &Ctx, records: &mut [VerifiedEntry]) -> Result<(), Error> {
    if records.is_empty() {
        return Ok(());
    }
    let mut promoted: HashMap<String, String> = HashMap::new();
    for line in ctx.index()?.lines(&LineQuery {
        event: Some(crate::model::Event::KnowledgePromoted),
        ..LineQuery::default()
    })? {
        if let Some(p) = LedgerLine::payload::<KnowledgePromoted>(&line) {
            promoted.entry(p.id).or_insert(line.ts.clone());
        }
    }
    let added = ctx.repo.added_at(
        None,
        records
            .iter()
            .filter(|v| !promoted.contains_key(&v.id))
            .map(|v| v.path.as_str()),
    )?;
    for v in records {
        (v.verified_at, v.verified_from) = match (promoted.get(&v.id), added.get(&v.path)) {
            (Some(ts), _) => (ts.clone(), VerifiedFrom::Promoted),
            (None, Some(ts)) => (ts.clone(), VerifiedFrom::Added),
            (None, None) => (
                crate::model::time::parse(&v.date)
                    .map_or_else(|| v.date.clone(), crate::model::time::rfc3339),
                VerifiedFrom::Date,
            ),
        };
    }
    Ok(())
}
