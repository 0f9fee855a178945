//! The journal's results as a person reads them: enable, disable, status, publish,
//! restore, prune.

use std::fmt::Write as _;

use crate::journal::{Disabled, Enabled, JournalStatus, Pruned, Published, Restored};
use crate::ops::Report;
use crate::store::WriteOutcome;

impl Report for Enabled {
    fn text(&self) -> String {
        let mut out = format!(
            "journal sharing on: writer {} publishes {} through {}\n",
            self.writer, self.reference, self.remote
        );
        let _ = writeln!(
            out,
            "  policy   .ai/repo/policy.yaml: journal.share: true ({})",
            outcome(self.policy)
        );
        let _ = writeln!(
            out,
            "  fetch    remote.{}.fetch {} ({})",
            self.remote,
            self.refspec,
            if self.refspec_added {
                "added"
            } else {
                "already there"
            }
        );
        if self.include_history {
            out.push_str(
                "  history  every line of the ledger is published, the earlier ones too\n",
            );
        } else if self.enabled_after > 0 {
            let _ = writeln!(
                out,
                "  history  lines up to #{} stay on this machine (--include-history publishes them)",
                self.enabled_after
            );
        } else {
            out.push_str(
                "  history  the ledger had no line yet: every line from now on is published\n",
            );
        }
        // A policy that already said so (pulled from a teammate) has nothing to commit.
        if self.policy == WriteOutcome::Written {
            out.push_str("next: git add .ai/repo/policy.yaml && git commit -m \"majordomus: share the journal\"\n");
        }
        match &self.push {
            Some(push) => {
                let _ = writeln!(
                    out,
                    "next: {push} (the pre-push hook of majordomus hooks install pushes the journal beside it)"
                );
            }
            None => out.push_str("the journal goes beside your next push of a branch (a detached HEAD has none to push)\n"),
        }
        out
    }
}

impl Report for Disabled {
    fn text(&self) -> String {
        let mut out = format!(
            "journal sharing off: .ai/repo/policy.yaml journal.share: false ({})\n",
            outcome(self.policy)
        );
        if let Some(remote) = &self.remote {
            let _ = writeln!(
                out,
                "  fetch    remote.{remote}.fetch refspec {}",
                if self.refspec_removed {
                    "removed"
                } else {
                    "was not there"
                }
            );
        }
        out.push_str("  nothing was deleted, here or on any remote\n");
        if let Some(command) = &self.remove_from_remote {
            let _ = writeln!(out, "  to delete the published journal: {command}");
        }
        out
    }
}

impl Report for JournalStatus {
    fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "sharing: {} (policy journal.share: {}; this worktree: {})",
            if self.share && self.enabled {
                "on"
            } else {
                "off"
            },
            self.share,
            if self.enabled {
                "enabled"
            } else {
                "not enabled"
            }
        );
        match (&self.writer, &self.reference) {
            (Some(writer), Some(reference)) => {
                let _ = writeln!(out, "writer: {writer} ({reference})");
            }
            _ => out.push_str("writer: none yet (made at the first publish)\n"),
        }
        if let Some(remote) = &self.remote {
            let _ = writeln!(
                out,
                "remote: {remote} (fetch refspec {})",
                if self.refspec { "present" } else { "missing" }
            );
        }
        match &self.published {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "published: {} line(s), #{}..#{}, last {} (commit {})",
                    p.lines,
                    p.first_seq,
                    p.last_seq,
                    p.last_ts,
                    &p.commit[..p.commit.len().min(12)]
                );
            }
            None => out.push_str("published: nothing\n"),
        }
        let _ = writeln!(out, "pending: {} line(s)", self.pending);
        if let Some(push) = &self.push {
            let _ = writeln!(
                out,
                "last push: {} to {} at {} (commit {}){}",
                if push.ok { "ok" } else { "FAILED" },
                push.remote,
                push.at,
                &push.commit[..push.commit.len().min(12)],
                match (&push.error, push.ok) {
                    (Some(e), false) => format!(": {e} (retried at the next push)"),
                    _ => String::new(),
                }
            );
        }
        if self.fetched.is_empty() {
            out.push_str("fetched: no other writer's journal\n");
        } else {
            let _ = writeln!(out, "fetched: {} writer(s)", self.fetched.len());
            for j in &self.fetched {
                let _ = writeln!(
                    out,
                    "  {} {} line(s), last {}, branch {} ({})",
                    j.writer,
                    j.lines,
                    j.last_ts.as_deref().unwrap_or("-"),
                    j.branch.as_deref().unwrap_or("-"),
                    j.reference
                );
            }
        }
        out
    }

    fn note(&self) -> Option<String> {
        findings_note(&self.findings)
    }
}

/// The note of the journal commits and lines a read skipped.
pub(crate) fn findings_note(findings: &[crate::journal::JournalFinding]) -> Option<String> {
    (!findings.is_empty()).then(|| {
        findings
            .iter()
            .map(|f| format!("note: {} skipped: {} [{}]", f.reference, f.message, f.rule))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

impl Report for Published {
    fn text(&self) -> String {
        match (self.first_seq, self.last_seq, &self.commit) {
            (Some(first), Some(last), Some(commit)) => format!(
                "published {} line(s), #{first}..#{last}, on {} (commit {})\n",
                self.lines,
                self.reference,
                &commit[..commit.len().min(12)]
            ),
            _ => format!("nothing to publish on {}\n", self.reference),
        }
    }

    fn note(&self) -> Option<String> {
        (self.older_than_retention > 0).then(|| {
            format!(
                "note: {} line(s) older than ledger.retention_days were not published",
                self.older_than_retention
            )
        })
    }
}

impl Report for Restored {
    fn text(&self) -> String {
        let mut out = format!(
            "restored {} line(s) of writer {} from {} (commit {}) into .ai/local/ledger.jsonl ({})\n",
            self.lines,
            self.writer,
            self.reference,
            &self.commit[..self.commit.len().min(12)],
            outcome(self.write)
        );
        if self.kept > 0 {
            let _ = writeln!(
                out,
                "  kept {} line(s) the journal did not have, merged by seq",
                self.kept
            );
        }
        if let Some(id) = &self.reopened {
            let _ = writeln!(
                out,
                "episode {id} was open at the journal's last publish: it is the open episode again (`majordomus session close` closes it)"
            );
        }
        if let Some(id) = &self.left_unclosed {
            let _ = writeln!(
                out,
                "episode {id} was open at the journal's last publish, but another episode is open now: {id} stays unclosed (it lists as never closed; its lines stay in the ledger and `majordomus history --session {id}` reads them)"
            );
        }
        out
    }

    fn note(&self) -> Option<String> {
        (self.unreadable > 0).then(|| {
            format!(
                "note: {} journal line(s) did not read as ledger lines and were left out",
                self.unreadable
            )
        })
    }
}

impl Report for Pruned {
    fn text(&self) -> String {
        let Some(cutoff) = &self.cutoff else {
            return "nothing to prune: ledger.retention_days keeps everything\n".to_owned();
        };
        let mut out = if self.segments.is_empty() {
            format!("nothing to prune: no published segment is wholly older than {cutoff}\n")
        } else if self.applied {
            format!(
                "pruned {} segment(s) ({} line(s)) older than {cutoff}; kept {}; {} now names {}\n",
                self.segments.len(),
                self.lines,
                self.kept,
                self.reference.as_deref().unwrap_or("-"),
                self.commit
                    .as_deref()
                    .map_or("-", |c| &c[..c.len().min(12)])
            )
        } else {
            format!(
                "would prune {} segment(s) ({} line(s)) older than {cutoff}; would keep {}\n",
                self.segments.len(),
                self.lines,
                self.kept
            )
        };
        for segment in &self.segments {
            let _ = writeln!(out, "  {segment}");
        }
        if !self.applied && !self.segments.is_empty() {
            out.push_str("next: majordomus journal prune --apply (rewrites this writer's own ref; the next push force-updates it on the remote)\n");
        }
        out
    }
}

fn outcome(write: WriteOutcome) -> &'static str {
    match write {
        WriteOutcome::Written => "written",
        WriteOutcome::Unchanged => "unchanged",
        WriteOutcome::Exists => "exists",
    }
}
