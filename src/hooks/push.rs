//! The pre-push secret scan (SPEC §8): every blob the pushed commits add or change under
//! `.ai/repo/` (session records, intents, rules, knowledge), read once, in every commit the
//! push sends, not only its tip. A secret added in one commit and removed in the next is
//! still in the history the push sends, so the fix rewrites the commit that added it.

use std::collections::{BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::Serialize;

use crate::Ctx;
use crate::error::Error;
use crate::git::AddedBlob;
use crate::knowledge::{Finding, PushedRef, Severity};
use crate::timing::Phase;

/// Where the tracked memory lives in a tree: everything under it is scanned.
pub const SCANNED_PREFIX: &str = ".ai/repo/";

/// The rule of a secret found in what a push sends.
pub const PUSH_SECRET: &str = "push.secret";

/// What the scan read: the cost of a push is what it sends.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct PushScan {
    /// Commits the push sends (reachable from the pushed refs, from no remote-tracking
    /// ref and not from the remote's old tips).
    pub commits: usize,
    /// Blobs under `.ai/repo/` those commits add or change, each read once.
    pub blobs: usize,
}

/// What a push sends under `.ai/repo/`, scanned.
pub struct Scanned {
    pub scan: PushScan,
    /// One finding per file, naming the oldest pushed commit that brought a secret shape
    /// into it.
    pub secrets: Vec<Finding>,
    /// The paths under `.ai/repo/` the pushed commits add or change: the records the push
    /// carries.
    pub carried: BTreeSet<String>,
}

/// Scans what `refs` send, in one traversal of the pushed commits.
pub fn scan(ctx: &Ctx, refs: &[PushedRef]) -> Result<Scanned, Error> {
    let mut phase = Phase::start("pre-push.scan");
    let pushed: Vec<&PushedRef> = refs.iter().filter(|r| !r.is_deletion()).collect();
    let tips: Vec<String> = pushed.iter().map(|r| r.local_sha.clone()).collect();
    let old: Vec<String> = pushed.iter().map(|r| r.remote_sha.clone()).collect();
    let sent = ctx.repo.pushed_blobs_under(&tips, &old, SCANNED_PREFIX)?;
    let mut found: HashMap<String, Finding> = HashMap::new();
    for blob in &sent.blobs {
        if found.contains_key(&blob.path) {
            continue;
        }
        let bytes = ctx.repo.read_blob(&blob.blob)?;
        let shapes = crate::model::redact::find_shapes(&String::from_utf8_lossy(&bytes));
        if !shapes.is_empty() {
            found.insert(blob.path.clone(), finding(blob, &shapes));
        }
    }
    let scan = PushScan {
        commits: sent.commits,
        blobs: sent.blobs.len(),
    };
    phase.count("commits", scan.commits);
    phase.count("blobs", scan.blobs);
    let mut secrets: Vec<Finding> = found.into_values().collect();
    secrets.sort();
    let carried = sent.blobs.into_iter().map(|b| b.path).collect();
    Ok(Scanned {
        scan,
        secrets,
        carried,
    })
}

/// The finding for a secret shape in `blob`, with the way to take it out of history.
fn finding(blob: &AddedBlob, shapes: &[&str]) -> Finding {
    let short = &blob.commit[..blob.commit.len().min(12)];
    let rebase = match &blob.parent {
        Some(parent) => format!(
            "git rebase -i --autostash --empty=drop {}",
            &parent[..parent.len().min(12)]
        ),
        None => "git rebase -i --autostash --empty=drop --root".to_owned(),
    };
    let subject = crate::model::redact::redact(&blob.subject).text;
    Finding {
        file: blob.path.clone(),
        rule: PUSH_SECRET.to_owned(),
        severity: Severity::Blocking,
        message: format!(
            "carries a secret shape ({}) brought in by commit {short} \"{subject}\", which this push sends (a later commit that removes it leaves it in history)",
            shapes.join(", "),
        ),
        fix: format!(
            "rotate the secret (it was written to disk and into git's objects) and rewrite the commit that added it: {rebase}, on the line of commit {short} change `pick` to `edit` (to `drop` if the commit holds nothing else, and skip to the push), take the secret out of {path}, git commit -a --amend --no-edit --allow-empty, git rebase --continue (where a later commit conflicts on {path}, keep it without the secret: git add {path}, git rebase --continue); then push again",
            path = blob.path
        ),
        informational: false,
    }
}
