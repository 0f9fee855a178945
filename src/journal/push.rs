//! The journal's part of the pre-push hook (SPEC §12): when sharing is on and the push
//! goes to the journal's remote, once the user's own checks passed, publish what is
//! pending and push this writer's ref beside the user's push. A failed journal push never
//! fails the user's push: it is reported, recorded, and retried at the next push.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use super::publish::{self, Published};
use super::state::{self, PushRecord};
use crate::Ctx;
use crate::error::ErrorReport;
use crate::model::journal;

/// How long the journal's push may take before it is stopped (the user's push waits on it).
const DEADLINE: Duration = Duration::from_secs(60);

/// What the pre-push hook did with the journal.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JournalPush {
    pub remote: String,
    pub reference: String,
    /// The publish before the push.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<Published>,
    /// Why the publish did not go through (the push still sends what was published).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publish_error: Option<ErrorReport>,
    /// The journal commit pushed (or tried); `None`: nothing to push.
    pub commit: Option<String>,
    /// `true` pushed, `false` failed (retried next time), `None`: the remote already had it.
    pub pushed: Option<bool>,
    /// What git said when the push failed (redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub millis: u64,
}

impl JournalPush {
    /// The lines said on stderr when something did not go through.
    pub fn warning(&self) -> Option<String> {
        let mut lines = Vec::new();
        if let Some(e) = &self.publish_error {
            lines.push(format!("warning: journal not published: {}", e.message));
            if let Some(fix) = &e.fix {
                lines.push(format!("fix: {fix}"));
            }
        }
        if self.pushed == Some(false) {
            lines.push(format!(
                "warning: journal push to {} failed (your push goes on; the next push retries it): {}",
                self.remote,
                self.error.as_deref().unwrap_or("git push failed")
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// Publishes and pushes this writer's journal when sharing is on here and `remote` (git's
/// first pre-push argument) is the journal's remote; `None` otherwise. Never fails.
pub fn at_pre_push(ctx: &Ctx, remote: Option<&str>) -> Option<JournalPush> {
    let (policy, _) = ctx.policy_lenient().ok()?;
    if !policy.journal.share {
        return None;
    }
    let st = state::read(ctx).ok()?;
    let journal_remote = st.remote.clone()?;
    if remote != Some(journal_remote.as_str()) {
        return None;
    }
    let writer = state::writer(ctx).ok().flatten();
    let (published, publish_error) = match publish::publish(ctx) {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e.report())),
    };
    let writer = writer.or_else(|| state::writer(ctx).ok().flatten())?;
    let reference = journal::local_ref(&writer);
    let mut out = JournalPush {
        remote: journal_remote.clone(),
        reference: reference.clone(),
        published,
        publish_error,
        commit: None,
        pushed: None,
        error: None,
        millis: 0,
    };
    let tip = ctx.repo.ref_target(&reference).ok().flatten()?;
    out.commit = Some(tip.clone());
    let st = state::read(ctx).ok()?;
    if !st.force_push
        && st
            .push
            .as_ref()
            .is_some_and(|p| p.ok && p.commit == tip && p.remote == journal_remote)
    {
        return Some(out);
    }
    let pushed = crate::git::push_ref(
        ctx.repo.workdir(),
        &journal_remote,
        &reference,
        st.force_push,
        DEADLINE,
    );
    out.pushed = Some(pushed.ok);
    out.millis = pushed.millis;
    out.error = (!pushed.ok).then(|| crate::model::redact::redact(&pushed.stderr).text);
    // The record is kept under the lock, so a publish meanwhile is not overwritten.
    if let Ok(_lock) = state::Lock::acquire(ctx)
        && let Ok(mut st) = state::read(ctx)
    {
        st.push = Some(PushRecord {
            commit: tip,
            remote: journal_remote,
            ok: pushed.ok,
            at: ctx.now(),
            error: out.error.clone(),
        });
        if pushed.ok {
            st.force_push = false;
        }
        let _ = state::write_after_publish(ctx, &st);
    }
    Some(out)
}
