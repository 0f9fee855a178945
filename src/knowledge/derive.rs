//! `knowledge derive` (SPEC §5.1): the episode's ledger lines and commits to candidates,
//! deterministically; a rerun over the same evidence writes nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::event::{DeriveNote, DeriveTarget, KnowledgeDerived};
use crate::model::ids::IdKind;
use crate::model::knowledge::{
    EpisodeEvidence, KnowledgeRecord, Markers, SkippedSource, Status, derive_candidates,
};
use crate::model::{CommitSummary, LedgerLine};
use crate::store::index::{IndexRebuilt, LineQuery};
use crate::store::outbox::{Outbox, Shelf};
use crate::store::skeleton;
use crate::store::{KnowledgeLock, StoreError, WriteOutcome, frontmatter, write_atomic};
use crate::timing::Phase;

/// `knowledge.derive`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeDeriveRequest")]
pub struct DeriveRequest {
    /// Default: the open episode, else the last closed one.
    #[serde(default)]
    pub episode: Option<String>,
    /// Say what would be written; write nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// Why the deriver left a candidate alone: a person already acted on it, or it is
/// already where it belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReviewState {
    Promoted,
    Superseded,
    /// Already tracked under candidates/ (a derivation on the trunk leaves it there).
    Tracked,
}

/// A candidate the deriver left alone because a person already acted on it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reviewed {
    pub id: String,
    pub state: ReviewState,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeriveReport {
    pub episode: String,
    /// The tracked candidates, or the outbox (on the trunk).
    pub target: DeriveTarget,
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
    pub skipped: Vec<SkippedSource>,
    pub reviewed: Vec<Reviewed>,
    /// The candidates README was planted by this run.
    pub planted_readme: bool,
    pub dry_run: bool,
    pub nothing_to_write: bool,
    /// Set when finding the episode's lines rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// Derives for the episode the request names (see [`DeriveRequest::episode`]).
pub fn derive(ctx: &Ctx, request: DeriveRequest) -> Result<DeriveReport, Error> {
    let _total = Phase::start("derive.total");
    ctx.policy()?;
    // The open episode is read before the ledger: a close running at the same time appends
    // its `session.closed` line before it removes the episode's state, so an episode no
    // longer open here is closed in the ledger read after (read the other way round, the
    // ledger could predate the close and the state postdate it: neither open nor closed).
    let open = match &request.episode {
        Some(_) => None,
        None => ctx.episode()?,
    };
    let mut phase = Phase::start("derive.index");
    let index = ctx.index()?;
    phase.count("lines", index.read().lines);
    phase.end();
    let episode = match &request.episode {
        Some(id) => {
            Refusal::check_id(IdKind::Episode, id)?;
            id.clone()
        }
        None => match open {
            Some(open) => open.id,
            // The newest `session.closed` episode in the ledger.
            None => index
                .last_closed()
                .and_then(|c| c.episode.clone())
                .ok_or(Refusal::NoEpisodeToDerive)?,
        },
    };
    let mut phase = Phase::start("derive.read_ledger");
    let lines = index.lines(&LineQuery {
        session: Some(&episode),
        ..LineQuery::default()
    })?;
    phase.count("lines", lines.len());
    phase.end();
    if lines.is_empty() {
        return Err(Refusal::UnknownEpisode { id: episode }.into());
    }
    let mut phase = Phase::start("derive.commits");
    let commits = episode_commits(ctx, &episode, &lines)?;
    phase.count("commits", commits.len());
    phase.end();
    let mut report = derive_episode(ctx, &episode, &lines, &commits, request.dry_run)?;
    report.index_rebuilt = index.rebuilt().cloned();
    Ok(report)
}

/// The newest `session.closed` episode in the ledger.
pub(crate) fn last_closed_episode(ctx: &Ctx) -> Result<Option<String>, Error> {
    Ok(ctx.index()?.last_closed().and_then(|c| c.episode.clone()))
}

/// The open episode's own commits (SPEC §3.2, [`crate::git::Repo::own_commits`]): what it
/// committed, as its hooks recorded it and HEAD's first-parent line shows it, against the
/// trunk and the upstream as they are now; with how many commits since its HEAD at open
/// are someone else's (a rebase moved it onto them, a merge brought them in).
pub(crate) fn open_episode_commits(
    ctx: &Ctx,
    episode: &crate::model::EpisodeState,
    window: &crate::model::EpisodeWindow,
) -> Result<crate::model::episode::OwnCommits, Error> {
    let head = ctx.repo.head()?;
    let recorded = window.recorded_shas();
    Ok(ctx.repo.own_commits(&crate::model::episode::EpisodeSpan {
        head: head.id.as_deref(),
        branch: head.branch.as_deref(),
        head_at_open: episode.head_at_open.as_deref(),
        opened: crate::model::time::parse(&episode.opened)
            .map(time::OffsetDateTime::unix_timestamp),
        boundaries: crate::model::episode::BoundariesAt::Now,
        recorded: &recorded,
        rewrites: &window.commits_rewritten,
    })?)
}

/// The episode's commits: from git since its open HEAD while it is open, else from its
/// session record (tracked or in the outbox).
pub(crate) fn episode_commits(
    ctx: &Ctx,
    episode: &str,
    lines: &[LedgerLine],
) -> Result<Vec<CommitSummary>, Error> {
    if let Some(open) = ctx.episode()?
        && open.id == episode
    {
        let window = crate::model::EpisodeWindow::from_lines(&open.id, lines);
        return Ok(open_episode_commits(ctx, &open, &window)?.commits);
    }
    let outbox = Outbox::new(&ctx.layout);
    for path in [
        ctx.layout.session_record(episode)?,
        ctx.layout
            .episode_file_in(&outbox.shelf(Shelf::Sessions), episode)?,
    ] {
        if let Ok(text) = std::fs::read_to_string(&path) {
            let (record, _) = frontmatter::parse::<crate::model::compose::SessionRecord>(&text)
                .map_err(|message| StoreError::Malformed {
                    path: path.clone(),
                    message,
                })?;
            return Ok(ctx
                .repo
                .commits_by_id(record.commits.iter().map(String::as_str))?);
        }
    }
    // No record: the commits the hooks recorded for it, as they became.
    let recorded = crate::model::EpisodeWindow::from_lines(episode, lines).recorded_successors();
    Ok(ctx
        .repo
        .commits_by_id(recorded.iter().map(String::as_str))?)
}

/// True when the record at `path` exists and is `superseded`.
pub(crate) fn is_superseded(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| {
        frontmatter::parse::<KnowledgeRecord>(&text)
            .is_ok_and(|(record, _)| record.status == Status::Superseded)
    })
}

/// Derives one episode from lines already read (the close path passes its window).
pub fn derive_episode(
    ctx: &Ctx,
    episode: &str,
    lines: &[LedgerLine],
    commits: &[CommitSummary],
    dry_run: bool,
) -> Result<DeriveReport, Error> {
    // Look and write under the knowledge lock: a promotion or rejection between this
    // run's look and its write would otherwise be undone.
    let _lock = (!dry_run)
        .then(|| KnowledgeLock::acquire(&ctx.layout))
        .transpose()?;
    let mut phase = Phase::start("derive.write");
    let on_trunk = ctx.writes_to_outbox()?;
    let outbox = Outbox::new(&ctx.layout);
    let dir = if on_trunk {
        outbox.shelf(Shelf::Candidates)
    } else {
        ctx.layout.candidates_dir()
    };
    let evidence = EpisodeEvidence {
        commits: commits
            .iter()
            .map(|c| (c.id.clone(), c.paths.clone()))
            .collect(),
    };
    let (derived, skipped) = derive_candidates(episode, lines, &evidence, &Markers::standard());

    let mut report = DeriveReport {
        episode: episode.to_owned(),
        target: if on_trunk {
            DeriveTarget::Outbox
        } else {
            DeriveTarget::Candidates
        },
        written: Vec::new(),
        unchanged: Vec::new(),
        skipped,
        reviewed: Vec::new(),
        planted_readme: false,
        dry_run,
        nothing_to_write: false,
        index_rebuilt: None,
    };
    if !on_trunk {
        let readme = ctx.layout.candidates_dir().join("README.md");
        if !readme.exists() {
            report.planted_readme = true;
            if !dry_run {
                let (_, text) = skeleton::FILES
                    .iter()
                    .find(|(p, _)| p.ends_with("candidates/README.md"))
                    .expect("the skeleton carries the candidates README");
                crate::store::write_new(&readme, text.as_bytes())?;
            }
        }
    }
    // The candidates in the order they were derived (their source lines' order): the
    // `knowledge.derived` line keeps it, and the review queue orders what one second
    // derived by it.
    let mut in_order: Vec<String> = Vec::new();
    for candidate in derived {
        let id = &candidate.record.id;
        if ctx
            .layout
            .record_in(&ctx.layout.curated_dir(), id)?
            .exists()
        {
            report.reviewed.push(Reviewed {
                id: id.clone(),
                state: ReviewState::Promoted,
            });
            continue;
        }
        let path = ctx.layout.record_in(&dir, id)?;
        // A rejection stands wherever it lives: the tracked candidates or the outbox.
        let superseded = [
            ctx.layout.record_in(&ctx.layout.candidates_dir(), id)?,
            ctx.layout.record_in(&outbox.shelf(Shelf::Candidates), id)?,
        ]
        .iter()
        .any(|p| is_superseded(p));
        if superseded {
            report.reviewed.push(Reviewed {
                id: id.clone(),
                state: ReviewState::Superseded,
            });
            continue;
        }
        // On the trunk, a candidate already tracked stays where it is: an outbox copy
        // would list it twice.
        if on_trunk
            && ctx
                .layout
                .record_in(&ctx.layout.candidates_dir(), id)?
                .exists()
        {
            report.reviewed.push(Reviewed {
                id: id.clone(),
                state: ReviewState::Tracked,
            });
            continue;
        }
        let text = frontmatter::render(&candidate.record, &format!("{}\n", candidate.body));
        let rel = ctx.layout.display(&path);
        let outcome = if dry_run {
            match std::fs::read(&path) {
                Ok(bytes) if bytes == text.as_bytes() => WriteOutcome::Unchanged,
                _ => WriteOutcome::Written,
            }
        } else {
            write_atomic(&path, text.as_bytes())?
        };
        in_order.push(rel.clone());
        match outcome {
            WriteOutcome::Unchanged => report.unchanged.push(rel),
            _ => report.written.push(rel),
        }
    }
    report.nothing_to_write = report.written.is_empty() && !report.planted_readme;
    phase.count("written", report.written.len());
    phase.count("unchanged", report.unchanged.len());
    phase.count("skipped", report.skipped.len());
    phase.count("reviewed", report.reviewed.len());
    phase.end();
    if !dry_run {
        let _phase = Phase::start("derive.append");
        let paths = in_order;
        ctx.append(
            Some(episode),
            None,
            &KnowledgeDerived {
                episode: episode.to_owned(),
                target: report.target,
                written: report.written.len(),
                unchanged: report.unchanged.len(),
                skipped: report.skipped.len(),
                reviewed: report.reviewed.len(),
                paths,
                note: if report.nothing_to_write {
                    DeriveNote::NothingToWrite
                } else {
                    DeriveNote::Written
                },
            },
        )?;
    }
    Ok(report)
}
