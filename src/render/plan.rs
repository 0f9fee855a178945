//! Tasks, the binding and the plan as a person reads them.

use std::fmt::Write as _;

use crate::intent::{IntentValidation, PlanStarted};
use crate::knowledge::Severity;
use crate::model::Verdict;
use crate::model::intent::{Binding, BindingStatus};
use crate::model::task::TaskRecord;
use crate::ops::Report;
use crate::task::{TaskFinishOutcome, TaskList, TaskStartOutcome};

/// The binding in a few lines: status, what it serves or why it is refused, the pins.
pub(super) fn binding_lines(b: &Binding) -> String {
    b.summary()
}

impl Report for Binding {
    /// A refused answer is a gate saying no (exit 3), so a script can ask before it starts.
    fn verdict(&self) -> Verdict {
        if self.status == BindingStatus::Refused {
            Verdict::Refused
        } else {
            Verdict::Pass
        }
    }
    fn text(&self) -> String {
        binding_lines(self)
    }
}

fn task_line(t: &TaskRecord) -> String {
    let mut line = format!("{} [{}] {}", t.id, t.state.name(), t.description);
    if let Some(issue) = &t.issue {
        let _ = write!(line, " (issue {issue})");
    } else if let Some(class) = &t.exemption {
        let _ = write!(line, " (exempt: {class})");
    }
    if let Some(reason) = &t.reason {
        let _ = write!(line, ": {reason}");
    }
    line
}

impl Report for TaskStartOutcome {
    fn text(&self) -> String {
        let mut out = format!(
            "started task {} in episode {}: {}\n",
            self.task.id, self.task.episode, self.task.description
        );
        if !self.task.scope.is_empty() {
            let _ = writeln!(out, "scope: {}", self.task.scope.join(", "));
        }
        if let Some(b) = &self.binding {
            out.push_str(&binding_lines(b));
        }
        for o in &self.overlaps {
            let _ = writeln!(
                out,
                "overlaps: task {} in the worktree {} works where this one will ({}); `majordomus worktrees` says what it is doing",
                o.task, o.worktree, o.entries
            );
        }
        out.push('\n');
        out.push_str(
            &self
                .knowledge
                .lines("What the repository knows about this task"),
        );
        out
    }
    fn note(&self) -> Option<String> {
        super::notes([
            self.advisory.as_ref().map(|a| format!("note: {a}")),
            self.knowledge_error
                .as_ref()
                .map(|e| format!("note: what the repository knows could not be read: {e}")),
            self.knowledge
                .index_rebuilt
                .as_ref()
                .map(|r| format!("note: {r}")),
        ])
    }
}

impl Report for TaskFinishOutcome {
    fn text(&self) -> String {
        let mut out = format!(
            "finished task {} ({}) -> {}\n",
            self.task.id,
            self.task.state.name(),
            self.note_path
        );
        let _ = writeln!(out, "{} commit(s) since it started", self.commits.len());
        out
    }
    fn note(&self) -> Option<String> {
        super::notes([
            super::resumed_note(self.resumed.as_deref()),
            (!self.outside_scope.is_empty()).then(|| {
                format!(
                    "note: the task's commits changed files outside its scope ({}): {}",
                    self.task.scope.join(", "),
                    self.outside_scope.join(", ")
                )
            }),
        ])
    }
}

impl Report for TaskList {
    fn text(&self) -> String {
        if self.tasks.is_empty() {
            return "no tasks yet; `majordomus task start \"<what the task is>\"` starts one\n"
                .to_owned();
        }
        let mut out = String::new();
        for t in &self.tasks {
            let marker = if self.active.as_deref() == Some(t.id.as_str()) {
                "* "
            } else {
                "  "
            };
            let _ = writeln!(out, "{marker}{}", task_line(t));
        }
        out
    }
}

impl Report for PlanStarted {
    fn text(&self) -> String {
        let verb = match self.write {
            crate::store::WriteOutcome::Unchanged => "was already active in",
            _ => "is now active in",
        };
        format!(
            "issue {} {verb} {}\n{}",
            self.issue,
            self.file,
            binding_lines(&self.binding)
        )
    }
}

impl Report for IntentValidation {
    fn verdict(&self) -> Verdict {
        IntentValidation::verdict(self)
    }
    fn text(&self) -> String {
        let mut out = format!(
            "intent validate: {} intent(s), {} finding(s)\n",
            self.intents,
            self.findings.len()
        );
        for f in &self.findings {
            let sev = match f.severity {
                Severity::Blocking => "BLOCK",
                Severity::Advisory => "WARN",
            };
            let _ = writeln!(
                out,
                "{sev} {} [{}] {}\n  fix: {}",
                f.file, f.rule, f.message, f.fix
            );
        }
        if let Some(line) = self.refused_starts.summary() {
            let _ = writeln!(out, "{line}");
        }
        out
    }
}

impl Report for crate::handover::Handover {
    fn text(&self) -> String {
        let verb = match self.write {
            crate::store::WriteOutcome::Unchanged => "unchanged",
            _ => "written",
        };
        format!("handover {} ({verb})\n\n{}", self.path, self.text)
    }
    fn note(&self) -> Option<String> {
        super::resumed_note(self.resumed.as_deref())
    }
}

impl Report for crate::handover::Resolution {
    /// SPEC §4: unchanged passes, `unknown` is never a pass (refused, exit 3), and a moved
    /// plan or evidence is advisory (exit 11: the CLI lets `--resolve` stop on it).
    fn verdict(&self) -> Verdict {
        match self.answer {
            crate::model::intent::Answer::Unchanged => Verdict::Pass,
            crate::model::intent::Answer::Unknown => Verdict::Refused,
            crate::model::intent::Answer::EvidenceMoved
            | crate::model::intent::Answer::PlanChanged => Verdict::Advisory,
        }
    }
    fn text(&self) -> String {
        let answer = match self.answer {
            crate::model::intent::Answer::Unchanged => "unchanged",
            crate::model::intent::Answer::EvidenceMoved => "evidence_moved",
            crate::model::intent::Answer::PlanChanged => "plan_changed",
            crate::model::intent::Answer::Unknown => "unknown",
        };
        format!("{answer}: {}\n({})\n", self.reason, self.file)
    }
}
