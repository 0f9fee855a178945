//! The journal (SPEC §12): this checkout's ledger published as commits on its own ref,
//! `refs/majordomus/journal/<writer>`, carried by the user's own `git fetch` and pushed
//! beside the user's push; the other writers' journals read back for every merged read.
//! docs/JOURNAL.md says what leaves the machine.

mod prune;
mod publish;
mod push;
mod read;
mod restore;
pub mod state;
pub mod writers;

pub use prune::{PruneRequest, Pruned, prune};
pub use publish::{Published, publish as publish_pending};
pub use push::{JournalPush, at_pre_push};
pub use read::{ForeignJournal, JournalFinding, Journals, journals, journals_dir, read_all};
pub use restore::{RestoreRequest, Restored, restore};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, ErrorReport};
use crate::model::journal::{self, JournalError};
use crate::model::policy::with_journal_share;
use crate::store::{StoreError, WriteOutcome, write_atomic};
use state::{PublishedMark, PushRecord};

/// The remote `journal enable` uses when none is named.
pub const DEFAULT_REMOTE: &str = "origin";

/// `journal.enable`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableRequest {
    /// The remote the journal travels through (default: origin).
    #[serde(default)]
    pub remote: Option<String>,
    /// Publish the lines written before this enable too (by default only later ones).
    #[serde(default)]
    pub include_history: bool,
}

/// What `journal enable` set.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Enabled {
    pub writer: String,
    pub reference: String,
    pub remote: String,
    /// The fetch refspec, and whether this run added it to the remote's config.
    pub refspec: String,
    pub refspec_added: bool,
    /// `.ai/repo/policy.yaml` (`journal.share: true`).
    pub policy: WriteOutcome,
    /// Lines up to this seq are never published (0: `--include-history`, or an empty
    /// ledger at enable).
    pub enabled_after: u64,
    pub include_history: bool,
    /// The push that carries the journal beside it, as it works on this branch: `git push`
    /// where the branch has an upstream, else `git push -u <remote> <branch>` (a plain
    /// push fails there: "has no upstream branch"); none on a detached HEAD.
    pub push: Option<String>,
}

/// `journal.disable`, `journal.status` and `journal.publish` take nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JournalRequest {}

/// What `journal disable` changed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Disabled {
    pub policy: WriteOutcome,
    /// The remote whose fetch refspec was removed, when there was one.
    pub remote: Option<String>,
    pub refspec_removed: bool,
    /// Nothing is deleted from any remote: this command does that, when asked by hand.
    pub remove_from_remote: Option<String>,
}

/// This writer's journal, as `journal status` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JournalStatus {
    /// `journal.share` in the policy.
    pub share: bool,
    /// `journal enable` ran in this worktree (it has a remote).
    pub enabled: bool,
    pub writer: Option<String>,
    pub reference: Option<String>,
    pub remote: Option<String>,
    /// The remote's config carries the fetch refspec.
    pub refspec: bool,
    /// What the journal holds now.
    pub published: Option<PublishedState>,
    /// Lines a publish would add now.
    pub pending: u64,
    /// Lines up to this seq are never published.
    pub enabled_after: u64,
    /// The last journal push (a failed one is retried at the next push).
    pub push: Option<PushRecord>,
    /// The other writers' journals this clone has.
    pub fetched: Vec<ForeignJournal>,
    /// What reading them skipped.
    pub findings: Vec<JournalFinding>,
}

/// The tip of this writer's journal.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PublishedState {
    pub commit: String,
    pub lines: u64,
    pub first_seq: u64,
    pub last_seq: u64,
    pub last_ts: String,
}

/// Turns sharing on: `journal.share: true` in the tracked policy, the fetch refspec on the
/// remote, and the enable point (lines before it stay on this machine unless
/// `--include-history`).
pub fn enable(ctx: &Ctx, request: EnableRequest) -> Result<Enabled, Error> {
    let remote = request
        .remote
        .clone()
        .unwrap_or_else(|| DEFAULT_REMOTE.to_owned());
    if !journal::is_remote_name(&remote) {
        return Err(JournalError::RemoteName { remote }.into());
    }
    let known = ctx.repo.remote_names();
    if !known.contains(&remote) {
        return Err(JournalError::UnknownRemote { remote, known }.into());
    }
    let writer = state::writer_or_new(ctx)?;
    let _lock = state::Lock::acquire(ctx)?;
    let policy = set_share(ctx, true)?;
    let refspec = journal::fetch_refspec(&remote);
    let mut refspec_added = false;
    if let Some((path, bytes)) = ctx
        .repo
        .config_with_fetch_refspec(&remote, &refspec, true)?
    {
        write_atomic(&path, &bytes)?;
        refspec_added = true;
    }
    let mut st = state::read(ctx)?;
    let reference = journal::local_ref(&writer);
    if st.remote.is_none() || request.include_history {
        let (last, end) = ctx.ledger().last_seq()?;
        let tip = ctx.repo.ref_target(&reference)?;
        if request.include_history {
            st.enabled_after = 0;
            st.published = None;
        } else {
            st.enabled_after = last;
            st.published = Some(PublishedMark {
                seq: last,
                offset: end,
                commit: tip.unwrap_or_default(),
            });
        }
    }
    st.remote = Some(remote.clone());
    state::write(ctx, &st)?;
    let push = push_command(ctx, &remote)?;
    Ok(Enabled {
        writer,
        reference,
        remote,
        refspec,
        refspec_added,
        policy,
        enabled_after: st.enabled_after,
        include_history: request.include_history,
        push,
    })
}

/// The push that works as printed on the branch checked out (to `remote`, the journal's);
/// `None` on a detached HEAD, which has no branch to push.
fn push_command(ctx: &Ctx, remote: &str) -> Result<Option<String>, Error> {
    use crate::model::shell::quote;
    Ok(ctx.repo.head()?.branch.map(|branch| {
        if ctx.repo.pushes_plainly(&branch) {
            "git push".to_owned()
        } else {
            format!("git push -u {} {}", quote(remote), quote(&branch))
        }
    }))
}

/// `journal.share` set in `.ai/repo/policy.yaml`, everything else kept.
fn set_share(ctx: &Ctx, share: bool) -> Result<WriteOutcome, Error> {
    let path = ctx.layout.policy();
    let text = std::fs::read_to_string(&path).map_err(|e| StoreError::io(&path, e))?;
    let new = with_journal_share(&text, share);
    let parsed = crate::model::Policy::parse(&new, &ctx.layout.display(&path))?;
    if parsed.journal.share != share {
        return Err(StoreError::Malformed {
            path,
            message: "journal.share did not read back as set; edit it by hand".into(),
        }
        .into());
    }
    Ok(write_atomic(&path, new.as_bytes())?)
}

/// Turns sharing off: `journal.share: false`, the fetch refspec removed. Nothing is
/// deleted, here or on the remote.
pub fn disable(ctx: &Ctx, _request: JournalRequest) -> Result<Disabled, Error> {
    let _lock = state::Lock::acquire(ctx)?;
    let policy = set_share(ctx, false)?;
    let mut st = state::read(ctx)?;
    let remote = st.remote.take();
    let mut refspec_removed = false;
    if let Some(remote) = &remote
        && let Some((path, bytes)) =
            ctx.repo
                .config_with_fetch_refspec(remote, &journal::fetch_refspec(remote), false)?
    {
        write_atomic(&path, &bytes)?;
        refspec_removed = true;
    }
    state::write(ctx, &st)?;
    let writer = state::writer(ctx)?;
    let remove_from_remote = match (&remote, &writer) {
        (Some(remote), Some(writer))
            if st
                .push
                .as_ref()
                .is_some_and(|p| p.ok && &p.remote == remote) =>
        {
            Some(format!(
                "git push {remote} --delete {}",
                journal::local_ref(writer)
            ))
        }
        _ => None,
    };
    Ok(Disabled {
        policy,
        remote,
        refspec_removed,
        remove_from_remote,
    })
}

/// This writer's journal and the others this clone has.
pub fn status(ctx: &Ctx, _request: JournalRequest) -> Result<JournalStatus, Error> {
    let (policy, _) = ctx.policy_lenient()?;
    let st = state::read(ctx)?;
    let writer = state::writer(ctx)?;
    let reference = writer.as_deref().map(journal::local_ref);
    let mut published = None;
    let mut last_seq = 0;
    if let (Some(writer), Some(reference)) = (&writer, &reference)
        && let Some(tip) = ctx.repo.ref_target(reference)?
    {
        let meta = publish::tip_meta(ctx, &tip, writer, reference)?;
        last_seq = meta.last_seq;
        published = Some(PublishedState {
            commit: tip,
            lines: meta.lines,
            first_seq: meta.first_seq,
            last_seq: meta.last_seq,
            last_ts: meta.last_ts,
        });
    }
    let enabled = st.remote.is_some();
    let pending = if enabled && policy.journal.share {
        let after = last_seq.max(st.enabled_after);
        let tip = published
            .as_ref()
            .map(|p| p.commit.clone())
            .unwrap_or_default();
        let mark = st.published.as_ref().filter(|m| m.commit == tip);
        let cutoff = publish::retention_cutoff(ctx, policy.ledger.retention_days);
        let (lines, _) = publish::lines_after(ctx, mark, after)?;
        lines
            .iter()
            .filter(|l| {
                cutoff.is_none_or(|c| crate::model::time::parse(&l.ts).is_none_or(|t| t >= c))
            })
            .count() as u64
    } else {
        0
    };
    let refspec = st
        .remote
        .as_deref()
        .is_some_and(|r| ctx.repo.has_fetch_refspec(r, &journal::fetch_refspec(r)));
    let read = journals(ctx)?;
    Ok(JournalStatus {
        share: policy.journal.share,
        enabled,
        writer,
        reference,
        remote: st.remote.clone(),
        refspec,
        published,
        pending,
        enabled_after: st.enabled_after,
        push: st.push,
        fetched: read.journals,
        findings: read.findings,
    })
}

/// `journal publish`: this writer's pending lines, now (what episode boundaries and the
/// pre-push hook do by themselves).
pub fn publish(ctx: &Ctx, _request: JournalRequest) -> Result<Published, Error> {
    publish::publish(ctx)
}

/// What an episode boundary's publish did, when sharing is on: never an error for the
/// boundary (a refused publish is reported here and on stderr).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BoundaryPublish {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<Published>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
}

impl BoundaryPublish {
    /// The line said on stderr, when the publish did not go through.
    pub fn warning(&self) -> Option<String> {
        self.error.as_ref().map(|e| {
            let mut text = format!("warning: journal not published: {}", e.message);
            if let Some(fix) = &e.fix {
                text.push_str(&format!("\nfix: {fix}"));
            }
            text
        })
    }
}

/// Publishes at an episode boundary (session start and close) when sharing is on here;
/// `None` when it is off. Never fails the boundary.
pub fn at_boundary(ctx: &Ctx, policy: &crate::model::Policy) -> Option<BoundaryPublish> {
    if !policy.journal.share {
        return None;
    }
    match state::read(ctx) {
        Ok(st) if st.remote.is_none() => return None,
        _ => {}
    }
    Some(match publish::publish_under(ctx, policy) {
        Ok(published) => BoundaryPublish {
            published: Some(published),
            error: None,
        },
        Err(e) => BoundaryPublish {
            published: None,
            error: Some(e.report()),
        },
    })
}
