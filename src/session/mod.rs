//! Episodes (SPEC §3): start, derived working context (§3.1), composed close (§3.2), a
//! closed record composed again with the episode's own commits (`recompose`), and the
//! ledger's retention at close.

mod list;
mod recompose;
mod retention;

pub use list::{EpisodeEntry, EpisodeList, ListRequest, list};
pub use recompose::{BoundarySource, RecomposeRequest, Recomposed, recompose};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::derive::{DeriveReport, derive_episode};
use crate::model::LedgerLine;
use crate::model::compose::{self, EpisodeSources, SessionRecord};
use crate::model::event::{LedgerPruned, OutboxDrained, SessionClosed, SessionOpened};
use crate::model::redact::redact;
use crate::model::{EpisodeState, EpisodeWindow, Event, GitSinceOpen, LineDraft, ids};
use crate::store::index::IndexRebuilt;
use crate::store::ledger::Skipped;
use crate::store::outbox::{Drained, Outbox, Shelf};
use crate::store::{
    KnowledgeLock, StateLock, StoreError, WriteOutcome, frontmatter, write_atomic, write_new,
};

/// Provider recorded when `--provider` is not given.
pub const DEFAULT_PROVIDER: &str = "cli";

/// `session.start`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartRequest {
    /// Who works in it; default `cli`.
    #[serde(default)]
    pub provider: Option<String>,
    /// Close the open episode first.
    #[serde(default)]
    pub replace: bool,
    /// The agent client's conversation the episode serves (`conversation_key`), set by the
    /// session-start hook; never part of a request from a surface.
    #[serde(skip)]
    pub conversation: Option<String>,
}

/// `session.context` and `session.snapshot` take nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpisodeRequest {}

/// `session.close`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseRequest {
    /// The episode's summary.
    #[serde(default)]
    pub summary: Option<String>,
}

/// What `session start` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Started {
    pub episode: EpisodeState,
    /// The opening snapshot, relative to the repository root.
    pub snapshot: String,
    /// An episode was already open; nothing new was opened.
    pub already_open: bool,
    /// The episode `--replace` closed first.
    pub replaced: Option<Closed>,
    /// What this boundary moved out of the outbox.
    pub drained: Option<Drained>,
    /// Where an unreadable episode state was moved by `--replace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_aside: Option<String>,
    /// The briefing the opening snapshot carries (empty when nothing was opened).
    #[serde(skip)]
    pub briefing: String,
    /// The records that briefing shows.
    #[serde(skip)]
    pub shown: Vec<crate::model::event::ShownItem>,
    /// Set when composing the briefing rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
    /// The journal's publish at this boundary, when sharing is on (SPEC §12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<crate::journal::BoundaryPublish>,
    /// Secret shapes and control characters removed from the branch name and provider
    /// before they were recorded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
}

/// The opening snapshot of the open episode.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OpeningSnapshot")]
pub struct Snapshot {
    /// Relative to the repository root.
    pub path: String,
}

/// What `session close` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Closed {
    pub episode: String,
    /// The session record, relative to the repository root.
    pub path: String,
    pub write: WriteOutcome,
    pub record: SessionRecord,
    /// The whole record file as written.
    pub text: String,
    /// Ledger lines skipped while reading the episode's window.
    pub skipped: Vec<Skipped>,
    /// The record went to the trunk outbox instead of `.ai/repo/sessions/`.
    pub outboxed: bool,
    /// Knowledge derivation run by the close (`session.knowledge_on_end`).
    pub derived: Option<DeriveReport>,
    /// What this boundary moved out of the outbox.
    pub drained: Option<Drained>,
    /// What `ledger.retention_days` pruned from the ledger after the close.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned: Option<LedgerPruned>,
    /// Set when reading the episode's lines rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
    /// What an earlier, interrupted close of this episode had done, when this run only
    /// finished it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
    /// Secret shapes and control characters removed before the record was written (from
    /// the summary, branch names, file paths and commit subjects).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// The journal's publish at this boundary, when sharing is on (SPEC §12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<crate::journal::BoundaryPublish>,
    /// It closed empty (SPEC §3.2): no commit, no authored line and no summary, so no
    /// record was written (`path` and `text` are empty, `record` is what it would have
    /// said) and nothing was derived.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub empty: bool,
}

/// The working context of the open episode, composed at this read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EpisodeContext {
    pub episode: EpisodeState,
    pub git: GitSinceOpen,
    pub window: EpisodeWindow,
    pub skipped: Vec<Skipped>,
    /// What the repository knows about the files the episode changed (SPEC §11).
    pub knowledge: crate::recall::Relevant,
    pub text: String,
    /// Set when reading the episode's lines rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

/// How many records `session context` shows of what the repository knows.
pub const CONTEXT_KNOWLEDGE: usize = 5;

/// Front matter of the opening snapshot.
#[derive(Debug, Serialize)]
struct SnapshotFront<'a> {
    id: &'a str,
    schema: &'static str,
    provider: &'a str,
    branch: Option<&'a str>,
    head: Option<&'a str>,
    opened: &'a str,
}

/// Opens an episode: records HEAD, branch and time, writes the opening snapshot once
/// and appends `session.opened`. An open episode is returned as is unless `replace`.
pub fn start(ctx: &Ctx, request: StartRequest) -> Result<Started, Error> {
    let policy = ctx.policy()?;
    let _lock = StateLock::acquire(&ctx.layout)?;
    let mut replaced = None;
    let mut set_aside = None;
    let open = match ctx.episode() {
        Ok(open) => open,
        Err(Error::Store(StoreError::EpisodeUnreadable { .. })) if request.replace => {
            let stamp = crate::model::time::stamp(ctx.clock.now());
            set_aside = Some(crate::store::episode::set_aside(&ctx.layout, &stamp)?);
            None
        }
        Err(e) => return Err(e),
    };
    if let Some(open) = open {
        if !request.replace {
            return Ok(Started {
                snapshot: ctx.layout.display(&ctx.layout.snapshot(&open.id)?),
                episode: open,
                already_open: true,
                replaced: None,
                drained: None,
                set_aside: None,
                briefing: String::new(),
                shown: Vec::new(),
                index_rebuilt: None,
                redacted: Vec::new(),
                journal: None,
            });
        }
        replaced = Some(close_locked(ctx, None)?);
    }
    let drained = drain_outbox(ctx)?;
    let head = ctx.repo.head()?;
    let opened_at = ctx.clock.now();
    let entropy = format!(
        "{}\n{}\n{:?}\n{}",
        std::process::id(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos(),
        head.id,
        ctx.layout.root().display()
    );
    let id = ids::episode_id(opened_at, entropy.as_bytes());
    // The branch name and the provider are copied into the ledger, the snapshot and the
    // tracked session record: a secret or a terminal escape in either must not travel.
    let mut redacted = Redactions::default();
    let provider = request
        .provider
        .map(|p| redacted.clean(&p).trim().to_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| DEFAULT_PROVIDER.to_owned());
    let branch = head.branch.as_deref().map(|b| redacted.clean(b));
    let opened = crate::model::time::rfc3339(opened_at);
    let appended = ctx.ledger().append(LineDraft::new(
        opened.clone(),
        Some(id.clone()),
        None,
        &SessionOpened {
            provider: provider.clone(),
            branch: branch.clone(),
            head: head.id.clone(),
            conversation: request.conversation.clone(),
        },
    ))?;
    let episode = EpisodeState {
        id,
        provider,
        branch,
        head_at_open: head.id,
        opened,
        ledger_offset: appended.offset,
    };
    crate::store::episode::write(&ctx.layout, &episode)?;

    let briefing = crate::briefing::briefing(ctx, crate::briefing::BriefingRequest::default())?;
    let front = SnapshotFront {
        id: &episode.id,
        schema: "session-context/v1",
        provider: &episode.provider,
        branch: episode.branch.as_deref(),
        head: episode.head_at_open.as_deref(),
        opened: &episode.opened,
    };
    let snapshot_path = ctx.layout.snapshot(&episode.id)?;
    write_new(
        &snapshot_path,
        frontmatter::render(&front, &briefing.text).as_bytes(),
    )?;
    // An episode boundary: the journal takes the lines so far (SPEC §12).
    let journal = crate::journal::at_boundary(ctx, &policy);
    Ok(Started {
        snapshot: ctx.layout.display(&snapshot_path),
        episode,
        already_open: false,
        replaced,
        drained,
        set_aside,
        shown: briefing.shown(),
        briefing: briefing.text,
        index_rebuilt: briefing.index_rebuilt,
        redacted: redacted.shapes(),
        journal,
    })
}

/// At an episode boundary on a named branch that is not the trunk, moves the outbox into
/// the tracked folders unchanged and appends `outbox.drained`; on the trunk, on a
/// detached HEAD, or with an empty outbox, nothing.
///
/// The tracked copies are written first, then `outbox.drained`, then the outbox copies
/// go: a crash leaves each file in the outbox, in its tracked folder or in both (the same
/// bytes), and the next boundary finishes the move. Under the knowledge lock, so two
/// boundaries never move one file at once.
pub fn drain_outbox(ctx: &Ctx) -> Result<Option<Drained>, Error> {
    let outbox = Outbox::new(&ctx.layout);
    if outbox.contents()?.is_empty() || ctx.writes_to_outbox()? {
        return Ok(None);
    }
    let _lock = KnowledgeLock::acquire(&ctx.layout)?;
    // Another boundary may have drained it while this one waited.
    if outbox.contents()?.is_empty() {
        return Ok(None);
    }
    let drained = outbox.copy_out(&ctx.layout, crate::knowledge::derive::is_superseded)?;
    let session = ctx.episode()?.map(|e| e.id);
    ctx.append(
        session.as_deref(),
        None,
        &OutboxDrained {
            sessions: drained.sessions.clone(),
            candidates: drained.candidates.clone(),
            left: drained.left.iter().map(|l| l.file.clone()).collect(),
        },
    )?;
    outbox.remove_moved(&drained)?;
    Ok(Some(drained))
}

pub(crate) use crate::ctx::{Window, read_window};

/// Items per list of a record or context: the policy's, or its default while the policy
/// does not read (the working context never needs the policy to be right).
fn max_items(ctx: &Ctx) -> usize {
    let max = ctx.policy().map_or_else(
        |_| {
            crate::model::Policy::default()
                .session
                .record_section_max_items
        },
        |p| p.session.record_section_max_items,
    );
    usize::try_from(max).unwrap_or(usize::MAX)
}

/// What redaction removed across several strings, and each string cleaned.
#[derive(Debug, Default)]
struct Redactions(std::collections::BTreeSet<&'static str>);

impl Redactions {
    /// `text` with secret shapes and terminal control characters removed; what was
    /// removed is remembered.
    fn clean(&mut self, text: &str) -> String {
        let cleaned = redact(text);
        self.0.extend(cleaned.shapes);
        cleaned.text
    }

    fn shapes(&self) -> Vec<String> {
        self.0.iter().map(|s| (*s).to_owned()).collect()
    }
}

/// Git now against git at open, as records may show it: commit subjects, file paths and
/// the branch name redacted (each is copied into the working context and the tracked
/// session record, a secret or a terminal escape in one must not travel with it).
fn git_since_open(
    ctx: &Ctx,
    episode: &EpisodeState,
    window: &EpisodeWindow,
    redacted: &mut Redactions,
) -> Result<GitSinceOpen, Error> {
    let head = ctx.repo.head()?;
    let crate::model::episode::OwnCommits {
        mut commits,
        elsewhere,
    } = crate::knowledge::derive::open_episode_commits(ctx, episode, window)?;
    for commit in &mut commits {
        commit.subject = redacted.clean(&commit.subject);
    }
    // The work tree as `git status --porcelain` lists it. The memory's own files (records
    // drained into the work tree, candidates) are listed, and are not the work: neither a
    // dirty tree nor a changed file of the episode.
    let mut working_tree = ctx.repo.status_entries()?;
    let dirty = working_tree.iter().any(|e| !e.path.starts_with(".ai/"));
    for entry in &mut working_tree {
        entry.path = redacted.clean(&entry.path);
        entry.from = entry.from.as_deref().map(|f| redacted.clean(f));
    }
    let branch = head.branch.as_deref().map(|b| redacted.clean(b));
    let mut git = GitSinceOpen::new(head.id, branch, commits, dirty);
    git.working_tree = working_tree;
    git.changed_files.retain(|f| !f.starts_with(".ai/"));
    for file in &mut git.changed_files {
        *file = redacted.clean(file);
    }
    git.elsewhere = elsewhere;
    Ok(git)
}

/// The episode as records show it: an episode state written before branch names were
/// redacted (or by hand) is redacted here too.
fn shown_episode(episode: &EpisodeState, redacted: &mut Redactions) -> EpisodeState {
    EpisodeState {
        provider: redacted.clean(&episode.provider),
        branch: episode.branch.as_deref().map(|b| redacted.clean(b)),
        ..episode.clone()
    }
}

/// Composes the open episode's working context from its three sources.
pub fn context(ctx: &Ctx, _request: EpisodeRequest) -> Result<EpisodeContext, Error> {
    let episode = ctx.require_episode()?;
    let read = read_window(ctx, &episode)?;
    let window = EpisodeWindow::from_lines(&episode.id, &read.lines);
    let mut redacted = Redactions::default();
    let git = git_since_open(ctx, &episode, &window, &mut redacted)?;
    let episode = shown_episode(&episode, &mut redacted);
    let mut text = compose::compose_context(
        EpisodeSources {
            episode: &episode,
            git: &git,
            window: &window,
        },
        max_items(ctx),
    );
    let files: Vec<String> = git
        .changed_files
        .iter()
        .filter(|f| !f.starts_with(".ai/"))
        .cloned()
        .collect();
    let knowledge = if files.is_empty() {
        crate::recall::Relevant::default()
    } else {
        crate::recall::relevant_knowledge(
            ctx,
            crate::recall::RecallRequest {
                path: files,
                ..Default::default()
            },
            CONTEXT_KNOWLEDGE,
        )?
    };
    text.push('\n');
    if git.changed_files.is_empty() {
        text.push_str("## What the repository knows about these files\n- no file changed in this episode yet; `majordomus recall --at-hand` ranks by the work at hand\n");
    } else {
        text.push_str(&knowledge.lines("## What the repository knows about these files"));
    }
    Ok(EpisodeContext {
        episode,
        git,
        window,
        skipped: read.skipped,
        knowledge,
        text,
        index_rebuilt: read.index_rebuilt,
    })
}

/// The opening snapshot of the open episode (relative path).
pub fn snapshot(ctx: &Ctx, _request: EpisodeRequest) -> Result<Snapshot, Error> {
    let episode = ctx.require_episode()?;
    Ok(Snapshot {
        path: ctx.layout.display(&ctx.layout.snapshot(&episode.id)?),
    })
}

/// Closes the open episode: composes and writes its record, then appends `session.closed`.
/// Never refuses for missing prose.
pub fn close(ctx: &Ctx, request: CloseRequest) -> Result<Closed, Error> {
    if let Some(summary) = &request.summary {
        crate::model::input::check_size("summary", summary, crate::model::input::INPUT_LIMIT)?;
    }
    let _lock = StateLock::acquire(&ctx.layout)?;
    close_locked(ctx, request.summary.as_deref())
}

/// `close` for a caller that holds the state lock.
fn close_locked(ctx: &Ctx, summary: Option<&str>) -> Result<Closed, Error> {
    let policy = ctx.policy()?;
    let episode = ctx.require_episode()?;
    let drained = drain_outbox(ctx)?;
    let Window {
        lines,
        skipped,
        index_rebuilt,
    } = read_window(ctx, &episode)?;
    // A close killed after its `session.closed` line (and before it forgot the episode)
    // is finished, not repeated: a second line would close the episode twice.
    if let Some(line) = lines.iter().rev().find(|l| l.event == Event::SessionClosed) {
        return finish_interrupted_close(ctx, &policy, episode, line, drained, skipped);
    }
    let window = EpisodeWindow::from_lines(&episode.id, &lines);
    let mut redacted = Redactions::default();
    let git = git_since_open(ctx, &episode, &window, &mut redacted)?;
    let shown = shown_episode(&episode, &mut redacted);
    let closed_at = ctx.now();
    let summary = summary.map(|s| redacted.clean(s));
    let summary = summary.as_deref();
    let (record, body) = compose::compose_record(
        EpisodeSources {
            episode: &shown,
            git: &git,
            window: &window,
        },
        &closed_at,
        summary,
        &policy.session.record_sections,
        usize::try_from(policy.session.record_section_max_items).unwrap_or(usize::MAX),
    );
    // No commit, no authored line, no summary: nothing a record would hold that the
    // ledger does not, so none is written and the tree stays clean (SPEC §3.2). A hook's
    // own checkpoint (how the work looked at the end, or at a compaction) is not authored:
    // an agent session that did nothing leaves no file to commit (SPEC §8).
    let empty = record.commits.is_empty()
        && summary.is_none_or(|s| s.trim().is_empty())
        && !lines.iter().any(LedgerLine::authored);
    if empty {
        return close_empty(
            ctx,
            &policy,
            episode,
            record,
            drained,
            skipped,
            index_rebuilt,
        );
    }
    let text = frontmatter::render(&record, &body);
    // On the trunk (and on a detached HEAD) the record waits in the outbox so the tree
    // stays clean (SPEC §5.7).
    let outboxed = ctx.writes_to_outbox()?;
    let path = if outboxed {
        ctx.layout.episode_file_in(
            &Outbox::new(&ctx.layout).shelf(Shelf::Sessions),
            &episode.id,
        )?
    } else {
        ctx.layout.session_record(&episode.id)?
    };
    let write = write_atomic(&path, text.as_bytes())?;
    let display = ctx.layout.display(&path);
    let derived = if policy.session.knowledge_on_end {
        Some(derive_episode(
            ctx,
            &episode.id,
            &lines,
            &git.commits,
            false,
        )?)
    } else {
        None
    };
    ctx.append(
        Some(&episode.id),
        None,
        &SessionClosed {
            record: display.clone(),
            commits: record.commits.len(),
            outcome: record.outcome,
            knowledge_on_end: policy.session.knowledge_on_end,
            empty: false,
        },
    )?;
    crate::store::episode::remove(&ctx.layout)?;
    let pruned = retention::prune(ctx, &policy)?;
    let journal = crate::journal::at_boundary(ctx, &policy);
    Ok(Closed {
        journal,
        episode: episode.id,
        path: display,
        write,
        record,
        text,
        skipped,
        outboxed,
        derived,
        drained,
        pruned,
        index_rebuilt,
        resumed: None,
        redacted: redacted.shapes(),
        empty: false,
    })
}

/// Closes an episode that did nothing a record would hold: `session.closed` with `empty`,
/// no record, nothing derived.
fn close_empty(
    ctx: &Ctx,
    policy: &crate::model::Policy,
    episode: EpisodeState,
    record: SessionRecord,
    drained: Option<Drained>,
    skipped: Vec<Skipped>,
    index_rebuilt: Option<IndexRebuilt>,
) -> Result<Closed, Error> {
    ctx.append(
        Some(&episode.id),
        None,
        &SessionClosed {
            record: String::new(),
            commits: 0,
            outcome: record.outcome,
            knowledge_on_end: policy.session.knowledge_on_end,
            empty: true,
        },
    )?;
    crate::store::episode::remove(&ctx.layout)?;
    let pruned = retention::prune(ctx, policy)?;
    let journal = crate::journal::at_boundary(ctx, policy);
    Ok(Closed {
        journal,
        episode: episode.id,
        path: String::new(),
        write: WriteOutcome::Unchanged,
        record,
        text: String::new(),
        skipped,
        outboxed: false,
        derived: None,
        drained,
        pruned,
        index_rebuilt,
        resumed: None,
        redacted: Vec::new(),
        empty: true,
    })
}

/// Finishes a close that was killed after appending `line` (its `session.closed`): the
/// record it names was written before that line, so only forgetting the episode (and the
/// retention pass) is left.
fn finish_interrupted_close(
    ctx: &Ctx,
    policy: &crate::model::Policy,
    episode: EpisodeState,
    line: &LedgerLine,
    drained: Option<Drained>,
    skipped: Vec<Skipped>,
) -> Result<Closed, Error> {
    let closed = line
        .payload::<SessionClosed>()
        .ok_or_else(|| StoreError::Malformed {
            path: ctx.layout.ledger(),
            message: format!("line {}: session.closed without its data", line.seq),
        })?;
    let (record, text) = if closed.empty {
        // What the close that was interrupted would have said: nothing but the episode.
        let record = SessionRecord {
            id: episode.id.clone(),
            schema: compose::SESSION_SCHEMA.into(),
            provider: episode.provider.clone(),
            branch: episode.branch.clone(),
            head_at_open: episode.head_at_open.clone(),
            head: episode.head_at_open.clone(),
            opened: episode.opened.clone(),
            closed: line.ts.clone(),
            commits: Vec::new(),
            changed_files: Vec::new(),
            tasks: Vec::new(),
            outcome: closed.outcome,
            touched_files: Vec::new(),
            shown_records: 0,
            shown_verified: 0,
        };
        (record, String::new())
    } else {
        let path = ctx.layout.root().join(&closed.record);
        let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
        let (record, _) = frontmatter::parse::<SessionRecord>(&text).map_err(|message| {
            StoreError::Malformed {
                path: path.clone(),
                message,
            }
        })?;
        (record, text)
    };
    crate::store::episode::remove(&ctx.layout)?;
    let pruned = retention::prune(ctx, policy)?;
    let journal = crate::journal::at_boundary(ctx, policy);
    Ok(Closed {
        journal,
        outboxed: closed
            .record
            .starts_with(&ctx.layout.display(&ctx.layout.outbox_dir())),
        resumed: Some(format!(
            "an earlier close of {} was interrupted after its session.closed line (#{}): its record {} stands; this run forgot the open episode",
            episode.id, line.seq, closed.record
        )),
        episode: episode.id,
        path: closed.record,
        write: WriteOutcome::Unchanged,
        record,
        text,
        skipped,
        derived: None,
        drained,
        pruned,
        index_rebuilt: None,
        redacted: Vec::new(),
        empty: closed.empty,
    })
}
