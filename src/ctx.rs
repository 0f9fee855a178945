//! The context every operation runs in: the repository, its store layout and the clock.

use std::path::Path;

use time::OffsetDateTime;

use crate::error::{Error, Refusal, UsageError};
use crate::git::Repo;
use crate::model::{EpisodeState, LineDraft, Payload, Policy};
use crate::model::{Event, LedgerLine};
use crate::store::index::{IndexRebuilt, LedgerIndex, LineQuery};
use crate::store::ledger::Skipped;
use crate::store::ledger::{Appended, Durability};
use crate::store::{Layout, Ledger};

/// Where "now" comes from. Only the ledger's `ts` and record times read it; nothing
/// derived depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    System,
    Fixed(OffsetDateTime),
}

impl Clock {
    /// `MAJORDOMUS_NOW` (RFC 3339) pins the clock, for tests and reproducible demos.
    pub fn from_env() -> Result<Clock, Error> {
        match std::env::var("MAJORDOMUS_NOW") {
            Ok(text) if !text.is_empty() => crate::model::time::parse(&text)
                .map(Clock::Fixed)
                .ok_or_else(|| UsageError::InvalidClock { value: text }.into()),
            _ => Ok(Clock::System),
        }
    }

    pub fn now(self) -> OffsetDateTime {
        match self {
            Clock::System => OffsetDateTime::now_utc(),
            Clock::Fixed(at) => at,
        }
    }
}

/// A repository opened for one operation.
#[derive(Debug)]
pub struct Ctx {
    pub repo: Repo,
    pub layout: Layout,
    pub clock: Clock,
    /// Where the `fixture` advisor adapter finds its scripts (`MAJORDOMUS_ADVISOR_FIXTURES`
    /// when the repository is opened; the demo sets its own).
    pub advisor_fixtures: Option<std::path::PathBuf>,
    /// A reasoning mode pinned by the program driving the library, over the environment
    /// and the policy (the demo pins `standard`). `None` everywhere else.
    pub reasoning_mode: Option<crate::model::policy::ReasoningMode>,
    /// The caller is an agent's tool surface (MCP): what a read puts before the model is
    /// logged for the open episode (`context.shown`, SPEC §8). `false` for a person's CLI,
    /// HTTP and cockpit reads.
    pub agent: bool,
}

impl Ctx {
    /// Opens the repository containing `dir`.
    pub fn open(dir: &Path, clock: Clock) -> Result<Ctx, Error> {
        let repo = Repo::discover(dir)?;
        let layout = Layout::new(repo.workdir());
        Ok(Ctx {
            repo,
            layout,
            clock,
            advisor_fixtures: std::env::var_os("MAJORDOMUS_ADVISOR_FIXTURES")
                .filter(|v| !v.is_empty())
                .map(std::path::PathBuf::from),
            reasoning_mode: None,
            agent: false,
        })
    }

    /// Opens the repository containing `dir` reading only its own git configuration
    /// (see [`Repo::discover_isolated`]).
    pub fn open_isolated(dir: &Path, clock: Clock) -> Result<Ctx, Error> {
        let repo = Repo::discover_isolated(dir)?;
        let layout = Layout::new(repo.workdir());
        Ok(Ctx {
            repo,
            layout,
            clock,
            advisor_fixtures: std::env::var_os("MAJORDOMUS_ADVISOR_FIXTURES")
                .filter(|v| !v.is_empty())
                .map(std::path::PathBuf::from),
            reasoning_mode: None,
            agent: false,
        })
    }

    /// Now, formatted as the ledger writes it.
    pub fn now(&self) -> String {
        crate::model::time::rfc3339(self.clock.now())
    }

    pub fn ledger(&self) -> Ledger {
        Ledger::new(self.layout.ledger())
    }

    /// The ledger's index, brought up to the ledger's end (extended with new lines, or
    /// rebuilt when missing or stale: see [`LedgerIndex::rebuilt`]).
    pub fn index(&self) -> Result<LedgerIndex, Error> {
        Ok(LedgerIndex::open(&self.layout)?)
    }

    /// Refuses unless `.ai/repo/policy.yaml` exists.
    pub fn require_initialised(&self) -> Result<(), Error> {
        if self.layout.is_initialised() {
            Ok(())
        } else {
            Err(Refusal::NotInitialised {
                root: self.layout.root().display().to_string(),
            }
            .into())
        }
    }

    /// The effective policy: defaults, overridden by `.ai/repo/policy.yaml`.
    pub fn policy(&self) -> Result<Policy, Error> {
        let path = self.layout.policy();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Policy::parse(&text, &self.layout.display(&path))?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Policy::default()),
            Err(e) => Err(crate::store::StoreError::io(&path, e).into()),
        }
    }

    /// The effective policy for a reader: a policy that cannot be read or is refused
    /// yields the defaults and the error, so read-only commands keep reading (SPEC §8:
    /// doctor reports a bad policy instead of refusing). I/O failures still fail.
    pub fn policy_lenient(&self) -> Result<(Policy, Option<Error>), Error> {
        match self.policy() {
            Ok(policy) => Ok((policy, None)),
            Err(e @ Error::Policy(_)) => Ok((Policy::default(), Some(e))),
            Err(e) => Err(e),
        }
    }

    /// Where an episode boundary writes its record and candidates: the tracked folders on
    /// a named branch that is not the trunk; the outbox on the trunk and on a detached
    /// HEAD, which is neither the trunk nor another branch (SPEC §5.7).
    pub fn writes_to_outbox(&self) -> Result<bool, Error> {
        Ok(self.repo.head()?.branch.is_none() || self.repo.on_trunk()?)
    }

    /// The open episode, if any (`.ai/local/state/episode.json`).
    pub fn episode(&self) -> Result<Option<EpisodeState>, Error> {
        Ok(crate::store::episode::read(&self.layout)?)
    }

    /// The open episode, or the refusal `session.open-episode`.
    pub fn require_episode(&self) -> Result<EpisodeState, Error> {
        self.episode()?.ok_or_else(|| Refusal::NoOpenEpisode.into())
    }

    /// Appends one ledger line stamped now, carrying `payload` (synced).
    pub fn append<P: Payload>(
        &self,
        session: Option<&str>,
        task: Option<&str>,
        payload: &P,
    ) -> Result<Appended, Error> {
        self.append_with(Durability::Synced, session, task, payload)
    }

    /// [`Ctx::append`], synced or not.
    pub fn append_with<P: Payload>(
        &self,
        durability: Durability,
        session: Option<&str>,
        task: Option<&str>,
        payload: &P,
    ) -> Result<Appended, Error> {
        let draft = LineDraft::new(
            self.now(),
            session.map(str::to_owned),
            task.map(str::to_owned),
            payload,
        );
        Ok(self.ledger().append_with(draft, durability)?)
    }
}

/// An episode's ledger lines, what was skipped reading them, and whether the index had to
/// be rebuilt to find them.
pub(crate) struct Window {
    pub(crate) lines: Vec<LedgerLine>,
    pub(crate) skipped: Vec<Skipped>,
    pub(crate) index_rebuilt: Option<IndexRebuilt>,
}

/// Reads the episode's ledger window from the offset of its `session.opened` line; when
/// that offset no longer points at it (the ledger was replaced or pruned), finds the
/// episode's lines through the ledger index.
pub(crate) fn read_window(ctx: &Ctx, episode: &EpisodeState) -> Result<Window, Error> {
    let ledger = ctx.ledger();
    if ledger.is_line_start(episode.ledger_offset)? {
        let mut lines = Vec::new();
        let mut first = None;
        let skipped = ledger.scan(episode.ledger_offset, |line| {
            if first.is_none() {
                first = Some((line.event, line.session.clone()));
            }
            if line.session.as_deref() == Some(episode.id.as_str()) {
                lines.push(line);
            }
        })?;
        if first == Some((Event::SessionOpened, Some(episode.id.clone()))) {
            return Ok(Window {
                lines,
                skipped,
                index_rebuilt: None,
            });
        }
    }
    let index = ctx.index()?;
    Ok(Window {
        lines: index.lines(&LineQuery {
            session: Some(&episode.id),
            ..LineQuery::default()
        })?,
        skipped: index.skipped()?.lines,
        index_rebuilt: index.rebuilt().cloned(),
    })
}

/// The files the work at hand counts of those the agent's editing tools touched in
/// `episode` (`agent.touched`): the [`TOUCHED_AT_HAND`] most recently touched, newest
/// first (docs/RECALL.md). Each path asked about is weighed against every record it
/// reaches, so an episode that touched hundreds of files must not make every read cost
/// hundreds of paths.
pub fn touched(ctx: &Ctx, episode: &EpisodeState) -> Result<Vec<String>, Error> {
    /// What [`touched`] reads of a line: its episode, its event, the paths it names.
    #[derive(serde::Deserialize)]
    struct Touched {
        session: Option<String>,
        event: Event,
        #[serde(default)]
        data: TouchedPaths,
    }
    #[derive(Default, serde::Deserialize)]
    struct TouchedPaths {
        #[serde(default)]
        paths: Vec<String>,
    }
    let Some(pieces) = window_pieces(ctx, episode, &[Event::AgentTouched]) else {
        return Ok(touched_in(&read_window(ctx, episode)?.lines));
    };
    let lines: Vec<Touched> = pieces
        .iter()
        // A torn or unreadable line is skipped, as every reader skips it.
        .filter_map(|piece| serde_json::from_slice::<Touched>(piece).ok())
        .filter(|l| {
            l.event == Event::AgentTouched && l.session.as_deref() == Some(episode.id.as_str())
        })
        .collect();
    Ok(most_recent(
        lines
            .into_iter()
            .rev()
            .flat_map(|l| l.data.paths.into_iter().rev()),
    ))
}

/// The lines of `episode`'s window that may be of one of `events` (their event's name is
/// in their bytes), read from the offset of its `session.opened` line as they are: one
/// pass over the window's bytes, no line parsed, so a long episode costs its reader what
/// it wants of it (the caller parses those and checks each one's episode and event).
/// `None` when that offset does not start the episode's window (the ledger was replaced:
/// the caller reads the window as every other reader does, [`read_window`]).
pub(crate) fn window_pieces(
    ctx: &Ctx,
    episode: &EpisodeState,
    events: &[Event],
) -> Option<Vec<Vec<u8>>> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    #[derive(serde::Deserialize)]
    struct Opened {
        session: Option<String>,
        event: Event,
    }
    let mut file = std::fs::File::open(ctx.layout.ledger()).ok()?;
    if !ctx.ledger().is_line_start(episode.ledger_offset).ok()? {
        return None;
    }
    file.seek(SeekFrom::Start(episode.ledger_offset)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let mut pieces = bytes.split(|&b| b == b'\n');
    let first: Opened = serde_json::from_slice(pieces.next()?).ok()?;
    if first.event != Event::SessionOpened || first.session.as_deref() != Some(&episode.id) {
        return None;
    }
    let names: Vec<&[u8]> = events.iter().map(|e| e.name().as_bytes()).collect();
    Some(
        pieces
            .filter(|piece| {
                names
                    .iter()
                    .any(|name| piece.windows(name.len()).any(|w| w == *name))
            })
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// [`touched`] of an episode's lines already read.
pub(crate) fn touched_in(lines: &[LedgerLine]) -> Vec<String> {
    most_recent(
        lines
            .iter()
            .rev()
            .filter(|l| l.event == Event::AgentTouched)
            .filter_map(|l| l.payload::<crate::model::event::AgentTouched>())
            .flat_map(|t| t.paths.into_iter().rev()),
    )
}

/// The first [`TOUCHED_AT_HAND`] distinct paths of `newest_first`: the files the work at
/// hand counts of those an episode touched.
pub(crate) fn most_recent(newest_first: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut recent: Vec<String> = Vec::new();
    for path in newest_first {
        if !recent.contains(&path) {
            recent.push(path);
        }
        if recent.len() == TOUCHED_AT_HAND {
            break;
        }
    }
    recent
}

/// How many of the files the agent touched the work at hand counts (the most recent).
pub const TOUCHED_AT_HAND: usize = 8;
