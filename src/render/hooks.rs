//! Hook results as git and agent clients show them: git hooks speak on stderr (so git's
//! own output stays as it was), a session-start hook prints the briefing on stdout (the
//! agent client adds it to the agent's context).

use std::fmt::Write as _;

use crate::hooks::{
    Acknowledged, GitHookOutcome, HooksReport, ProviderOutcome, ProviderRun, RewriteOutcome,
};
use crate::model::Verdict;
use crate::ops::Report;

impl Report for HooksReport {
    fn text(&self) -> String {
        let mut human = format!("hooks directory: {}\n", self.dir);
        for h in &self.hooks {
            let mut line = format!("  {:<14} {:<10} {}", h.hook, h.action.name(), h.path);
            if let Some(binary) = &h.starts {
                let _ = write!(line, " (starts {binary})");
            }
            if let Some(manager) = h.manager {
                let _ = write!(line, " ({})", manager.name());
            }
            if h.retired {
                line.push_str(" (no longer used by majordomus)");
            }
            let _ = writeln!(human, "{line}");
        }
        for note in &self.notes {
            let _ = writeln!(human, "note: {note}");
        }
        human
    }
}

/// Silent, like post-commit: the JSON form says what was recorded.
impl Report for RewriteOutcome {
    fn text(&self) -> String {
        String::new()
    }
}

impl Report for GitHookOutcome {
    fn verdict(&self) -> Verdict {
        GitHookOutcome::verdict(self)
    }

    fn text(&self) -> String {
        String::new()
    }

    fn note(&self) -> Option<String> {
        let said = match self {
            // Silent: stepping aside and recording a commit must not change what git
            // prints (the JSON form still says what happened).
            GitHookOutcome::SteppedAside(_)
            | GitHookOutcome::CommitRecorded { .. }
            | GitHookOutcome::NoOpenEpisode => String::new(),
            GitHookOutcome::Checked {
                report,
                scanned,
                journal,
                ..
            } => {
                let warning = journal
                    .as_deref()
                    .and_then(crate::journal::JournalPush::warning)
                    .map(|w| format!("{w}\n"))
                    .unwrap_or_default();
                let scan = format!(
                    "pre-push: the push sends {} commit(s); {} file version(s) under .ai/repo/ scanned for secrets\n",
                    scanned.commits, scanned.blobs
                );
                if report.blocking() > 0 {
                    format!(
                        "{scan}{}majordomus: push refused: fix the blocking findings above, then push again\n",
                        report.text()
                    )
                } else if report.findings.is_empty() {
                    warning
                } else {
                    format!("{scan}{}{warning}", report.text())
                }
            }
        };
        (!said.is_empty()).then(|| said.trim_end().to_owned())
    }
}

impl Report for ProviderRun {
    fn text(&self) -> String {
        self.outcome.text()
    }

    /// What of the payload could not be read, then what the hook did.
    fn note(&self) -> Option<String> {
        let unread = self.payload_failed.as_ref().map(|e| {
            format!(
                "majordomus: {} hook: {e} (recorded as provider.event.failed)",
                self.hook.name()
            )
        });
        match (unread, self.outcome.note()) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        }
    }
}

impl Report for ProviderOutcome {
    fn text(&self) -> String {
        match self {
            ProviderOutcome::Started {
                episode, briefing, ..
            } => format!("majordomus episode {episode}\n\n{briefing}"),
            // Exactly what the client reads (its context field), nothing else.
            ProviderOutcome::Recalled(recalled) => recalled.output.clone(),
            _ => String::new(),
        }
    }

    fn note(&self) -> Option<String> {
        match self {
            ProviderOutcome::Failed { hook, error } => Some(format!(
                "majordomus: {hook} hook failed (recorded as provider.event.failed): {error}"
            )),
            ProviderOutcome::Closed {
                episode,
                empty: true,
                ..
            } => Some(format!(
                "majordomus: closed episode {episode} empty: no commit, no authored line, so no record and no handover were written (docs/SESSIONS.md)"
            )),
            ProviderOutcome::Closed {
                episode,
                record,
                handover,
                handover_error,
                ..
            } => {
                let mut note = format!("majordomus: closed episode {episode} -> {record}");
                match (handover, handover_error) {
                    (Some(h), _) => note.push_str(&format!("; handover {h}")),
                    (None, Some(e)) => note.push_str(&format!("; no handover: {e}")),
                    (None, None) => {}
                }
                Some(note)
            }
            _ => None,
        }
    }
}

impl Report for Acknowledged {
    fn text(&self) -> String {
        match self.through {
            None => "no provider hook failure to acknowledge\n".to_owned(),
            Some(through) => {
                let mut out = format!(
                    "acknowledged {} provider hook failure(s) up to #{through}; doctor no longer shows them (history still does)\n",
                    self.cleared
                );
                if self.left > 0 {
                    out.push_str(&format!(
                        "{} later failure(s) still shown: majordomus doctor\n",
                        self.left
                    ));
                }
                out
            }
        }
    }
}
