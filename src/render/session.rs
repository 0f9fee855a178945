//! Episodes and authored records as a person reads them.

use std::fmt::Write as _;

use crate::authored::Recorded;
use crate::model::Event;
use crate::ops::Report;
use crate::session::{
    BoundarySource, Closed, EpisodeContext, EpisodeList, Recomposed, Snapshot, Started,
};
use crate::store::outbox::Drained;

fn short(id: Option<&str>) -> &str {
    id.map(|i| &i[..i.len().min(12)]).unwrap_or("unborn")
}

/// What a drain moved and what it left, one line each.
pub(super) fn drained_lines(drained: &Drained) -> String {
    let mut out = String::new();
    if !drained.sessions.is_empty() || !drained.candidates.is_empty() {
        let _ = writeln!(
            out,
            "moved {} session record(s) and {} candidate(s) from the outbox into .ai/repo/",
            drained.sessions.len(),
            drained.candidates.len()
        );
    }
    for left in &drained.left {
        let _ = writeln!(out, "left {} in the outbox: {}", left.file, left.reason);
    }
    out
}

impl Report for Started {
    fn text(&self) -> String {
        let ep = &self.episode;
        let mut human = String::new();
        if let Some(drained) = &self.drained {
            human.push_str(&drained_lines(drained));
        }
        if let Some(aside) = &self.set_aside {
            let _ = writeln!(human, "moved the unreadable episode state aside to {aside}");
        }
        if let Some(old) = &self.replaced {
            let _ = writeln!(human, "closed episode {} -> {}", old.episode, old.path);
        }
        if self.already_open {
            let _ = write!(
                human,
                "episode {} is already open (opened {}); nothing new was opened\n\
                 (use --replace to close it and open another)\n",
                ep.id, ep.opened
            );
        } else {
            let _ = writeln!(
                human,
                "opened episode {} (provider {}, branch {}, HEAD {})\nsnapshot: {}",
                ep.id,
                ep.provider,
                ep.branch.as_deref().unwrap_or("(detached)"),
                short(ep.head_at_open.as_deref()),
                self.snapshot
            );
        }
        human
    }

    fn note(&self) -> Option<String> {
        super::notes([
            super::redacted_note(&self.redacted),
            super::index_note(self.index_rebuilt.as_ref()),
            self.journal
                .as_ref()
                .and_then(crate::journal::BoundaryPublish::warning),
        ])
    }
}

impl Report for EpisodeContext {
    fn text(&self) -> String {
        self.text.clone()
    }
    fn note(&self) -> Option<String> {
        super::notes([
            super::skipped_note(self.skipped.len()),
            super::index_note(self.index_rebuilt.as_ref()),
        ])
    }
}

impl Report for EpisodeList {
    fn text(&self) -> String {
        let mut out = format!("{} episode(s), newest first\n", self.episodes.len());
        for e in &self.episodes {
            let _ = write!(out, "- {}", e.id);
            if e.open {
                out.push_str(" [open]");
            }
            if let Some(writer) = &e.writer {
                let _ = write!(out, " [writer {writer}]");
            }
            if let Some(provider) = &e.provider {
                let _ = write!(out, " ({provider}");
                if let Some(branch) = &e.branch {
                    let _ = write!(out, ", {branch}");
                }
                out.push(')');
            }
            match (&e.closed, e.outcome) {
                (Some(at), Some(_)) if e.empty => {
                    let _ = write!(out, " closed {at}, empty");
                }
                (Some(at), Some(outcome)) => {
                    let _ = write!(out, " closed {at}, {}", outcome.name());
                }
                _ if e.open => {}
                // Another writer's episode may be open there still: its journal holds what
                // it published at its last episode boundary or push.
                _ if e.writer.is_some() => out.push_str(" not closed at its writer's last publish"),
                _ => out.push_str(" never closed"),
            }
            out.push('\n');
            match (&e.record, &e.record_error) {
                (Some(path), None) => {
                    let _ = writeln!(out, "  record: {path}");
                }
                (Some(path), Some(error)) => {
                    let _ = writeln!(out, "  record: {path} (unreadable: {error})");
                }
                (None, _) if e.empty => {
                    out.push_str("  record: none (it closed empty: no commit, no authored line)\n");
                }
                (None, _) if e.closed.is_some() => {
                    out.push_str("  record: not in this work tree (committed on another branch, closed in another clone or worktree, or never committed)\n");
                }
                _ => {}
            }
        }
        out
    }

    fn note(&self) -> Option<String> {
        super::journal::findings_note(&self.journal_findings)
    }
}

impl Report for Snapshot {
    fn text(&self) -> String {
        format!("{}\n", self.path)
    }
}

impl Report for Closed {
    fn text(&self) -> String {
        if self.empty {
            let mut out = format!(
                "closed episode {} empty: no commit, no authored line, no summary, so no record was written (docs/SESSIONS.md)\n",
                self.episode
            );
            if let Some(drained) = &self.drained {
                out.push_str(&drained_lines(drained));
            }
            if let Some(pruned) = &self.pruned {
                let _ = writeln!(
                    out,
                    "pruned {} ledger line(s) older than {} (ledger.retention_days)",
                    pruned.lines, pruned.before
                );
            }
            if self.drained.as_ref().is_some_and(|d| !d.is_empty()) {
                let _ = writeln!(
                    out,
                    "next: git add .ai/repo/sessions .ai/repo/knowledge/candidates && git commit -m \"majordomus: records from the outbox\""
                );
            }
            return out;
        }
        let mut out = format!(
            "closed episode {} ({})\nrecord: {} ({})\n",
            self.episode,
            self.record.outcome,
            self.path,
            match self.write {
                crate::store::WriteOutcome::Written => "written",
                crate::store::WriteOutcome::Unchanged => "unchanged",
                crate::store::WriteOutcome::Exists => "exists",
            },
        );
        if self.outboxed {
            out.push_str(
                "on the trunk or a detached HEAD: the record and candidates wait in \
                 .ai/local/state/outbox/ until the next episode boundary on another branch\n",
            );
        }
        if let Some(drained) = &self.drained {
            out.push_str(&drained_lines(drained));
        }
        out.push('\n');
        out.push_str(&self.text);
        out.push('\n');
        match (&self.derived, &self.resumed) {
            (Some(report), _) => out.push_str(&report.text()),
            (None, Some(_)) => out.push_str(
                "knowledge: as the interrupted close left it (it derives before session.closed)\n",
            ),
            (None, None) => {
                out.push_str("knowledge not derived (session.knowledge_on_end: false)\n")
            }
        }
        if let Some(pruned) = &self.pruned {
            let _ = writeln!(
                out,
                "pruned {} ledger line(s) older than {} (ledger.retention_days)",
                pruned.lines, pruned.before
            );
        }
        // On a branch the record and its candidates are in the tree, new: one commit
        // shares them (on the trunk they wait in the outbox, untracked by design).
        let wrote = self.write == crate::store::WriteOutcome::Written
            || self.derived.as_ref().is_some_and(|d| !d.written.is_empty())
            || self.drained.as_ref().is_some_and(|d| !d.is_empty());
        if !self.outboxed && wrote {
            let _ = writeln!(
                out,
                "next: git add .ai/repo/sessions .ai/repo/knowledge/candidates && git commit -m \"majordomus: episode {}\"",
                self.episode
            );
        }
        out
    }
    fn note(&self) -> Option<String> {
        super::notes([
            super::resumed_note(self.resumed.as_deref()),
            super::redacted_note(&self.redacted),
            super::skipped_note(self.skipped.len()),
            super::index_note(self.index_rebuilt.as_ref()),
            self.journal
                .as_ref()
                .and_then(crate::journal::BoundaryPublish::warning),
        ])
    }
}

impl Report for Recomposed {
    fn text(&self) -> String {
        let mut out = format!(
            "recomposed {} ({}): {} commit(s) touching {} file(s)\n",
            self.path,
            match self.write {
                crate::store::WriteOutcome::Written => "written",
                crate::store::WriteOutcome::Unchanged => "unchanged",
                crate::store::WriteOutcome::Exists => "exists",
            },
            self.commits.len(),
            self.changed_files.len()
        );
        for (label, ids) in [
            ("no longer listed", &self.removed),
            ("now listed", &self.added),
        ] {
            if !ids.is_empty() {
                let ids: Vec<&str> = ids.iter().map(|i| &i[..i.len().min(12)]).collect();
                let _ = writeln!(out, "{label}: {}", ids.join(", "));
            }
        }
        out.push_str(match self.boundaries {
            BoundarySource::Reflog => {
                "the trunk and the upstream as their reflogs say they stood when the episode closed\n"
            }
            BoundarySource::Now => "the trunk and the upstream as they are now\n",
        });
        out
    }

    fn note(&self) -> Option<String> {
        super::redacted_note(&self.redacted)
    }
}

impl Recorded {
    /// What kind of record the line is, as the CLI names it.
    pub fn kind(&self) -> &'static str {
        match self.event {
            Event::DecisionRecorded => "decision",
            Event::QuestionAsked => "question",
            Event::QuestionResolved => "answer",
            Event::CheckpointRecorded => "checkpoint",
            other => other.name(),
        }
    }
}

impl Report for Recorded {
    fn text(&self) -> String {
        let mut out = match &self.session {
            // The seq is the line's number in the ledger, which every event takes: said as
            // such, never as `#3`, which reads as a count of decisions.
            Some(ep) => format!(
                "recorded {} (ledger seq {}) in episode {ep}\n",
                self.kind(),
                self.seq
            ),
            None => format!(
                "recorded {} (ledger seq {}) with no open episode (session: null)\n",
                self.kind(),
                self.seq
            ),
        };
        if !self.files.is_empty() {
            let cited: Vec<String> = self
                .files
                .iter()
                .map(|f| format!("{}{}", f.path, f.via.said()))
                .collect();
            out.push_str(&format!("cites {}\n", cited.join(", ")));
        }
        out
    }
    fn note(&self) -> Option<String> {
        super::notes([
            super::redacted_note(&self.redacted),
            super::instruction_note(&self.instruction_shapes),
            self.session.is_none().then(|| {
                format!(
                    "note: no episode is open, so no episode's close derives a candidate from this {kind} and it will not reach the review queue (recall finds it as it is); to put it up for review, record it in an episode: `majordomus session start`, then the same `majordomus {kind}` command again",
                    kind = match self.event {
                        Event::QuestionResolved => "question resolve",
                        _ => self.kind(),
                    }
                )
            }),
            super::index_note(self.index_rebuilt.as_ref()),
            (!self.near_duplicates.is_empty()).then(|| {
                self.near_duplicates
                    .iter()
                    .map(|d| {
                        let what = match d.kind {
                            crate::recall::RecallKind::Question => "open question".to_owned(),
                            kind => format!("{} {}", d.status.name(), kind.name()),
                        };
                        // A verified record it nearly repeats about the same files may be
                        // one it replaces (a value changed): the same choice as a concern.
                        let choice = self
                            .concerns
                            .iter()
                            .find(|c| c.id == d.id)
                            .map(|c| {
                                format!(
                                    " — it concerns the same files ({}): restate, replace or keep both? To {}",
                                    c.files.join(", "),
                                    replace_note(self.candidate.as_deref(), &c.id)
                                )
                            })
                            .unwrap_or_default();
                        format!(
                            "note: this nearly repeats {what} {} ({}% alike): {}{choice} — {}",
                            d.id,
                            (d.similarity * 100.0).round(),
                            crate::model::inject::quote(&d.line).text,
                            d.read.command
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            concerns_note(&self.concerns, &self.near_duplicates, self.candidate.as_deref()),
        ])
    }
}

/// How a note offers to replace the verified record `id` by this decision. Outside an
/// episode no close derives a candidate: the note says so, not a command.
fn replace_note(candidate: Option<&str>, id: &str) -> String {
    match candidate {
        Some(candidate) => format!(
            "replace it when this decision's candidate is reviewed: `echo \"<evidence>\" | majordomus knowledge promote {candidate} --supersedes {id}`"
        ),
        None => "replace it by hand: `majordomus knowledge supersede` (docs/KNOWLEDGE.md)".into(),
    }
}

/// The verified records a decision concerns the same files as, one note each (those it
/// nearly repeats are said already): the person decides.
fn concerns_note(
    concerns: &[crate::recall::Concerned],
    near: &[crate::recall::NearDuplicate],
    candidate: Option<&str>,
) -> Option<String> {
    let replace = |id: &str| replace_note(candidate, id);
    let lines: Vec<String> = concerns
        .iter()
        .filter(|c| !near.iter().any(|n| n.id == c.id))
        .map(|c| {
            format!(
                "note: concerns the same files as {} knowledge {} ({}; {}% alike): {} — restate, replace or keep both? To {}; read it: {}",
                c.status.name(),
                c.id,
                c.files.join(", "),
                (c.similarity * 100.0).round(),
                crate::model::inject::quote(&c.line).text,
                replace(&c.id),
                c.read.command
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
