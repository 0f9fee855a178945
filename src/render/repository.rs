//! Repository-level reads as a person reads them: init, history, briefing, context, env,
//! doctor, rules vendor update.

use std::fmt::Write as _;

use crate::briefing::Briefing;
use crate::context::RepositoryContext;
use crate::doctor::{DoctorReport, RuleStatus};
use crate::env::EnvReport;
use crate::history::History;
use crate::init::Initialised;
use crate::knowledge::Severity;
use crate::model::Verdict;
use crate::ops::Report;
use crate::rules::{Previous, VendorUpdated};
use crate::store::WriteOutcome;

impl Report for Initialised {
    fn text(&self) -> String {
        let mut human = format!("initialised {}\n", self.root);
        for path in &self.created {
            let _ = writeln!(human, "  created  {path}");
        }
        for path in &self.existing {
            let _ = writeln!(human, "  kept     {path}");
        }
        human.push_str(match self.gitignore {
            WriteOutcome::Written => "  .gitignore: added .ai/local/\n",
            _ => "  .gitignore: already ignores .ai/local/\n",
        });
        // Each step runs as printed (SPEC §0): the commit only while there is one to make
        // (`-m`, so no editor opens), then the hooks, then the first episode.
        if !self.uncommitted.is_empty() {
            human.push_str("next: git add .ai .gitignore && git commit -m \"majordomus: init\"\n");
        }
        human.push_str("next: majordomus hooks install\n");
        human.push_str("next: majordomus session start\n");
        human
    }
}

impl Report for History {
    fn text(&self) -> String {
        let mut human = String::new();
        if self.lines.is_empty() {
            human.push_str("no ledger lines match\n");
        }
        for line in &self.lines {
            let _ = write!(
                human,
                "#{} {} {} session={}",
                line.seq,
                line.ts,
                line.event,
                line.session.as_deref().unwrap_or("null")
            );
            if let Some(task) = &line.task {
                let _ = write!(human, " task={task}");
            }
            if let Some(writer) = &line.writer {
                let _ = write!(human, " writer={writer}");
                if let Some(branch) = &line.writer_branch {
                    let _ = write!(human, " branch={branch}");
                }
            }
            let _ = writeln!(human, " {}", line.data);
        }
        for w in &self.worktrees {
            let branch = w
                .branch
                .as_deref()
                .map(|b| format!(" on {b}"))
                .unwrap_or_default();
            let _ = writeln!(human, "\n== worktree {}{branch}", w.worktree);
            if let Some(why) = &w.unreadable {
                let _ = writeln!(human, "unreadable: {why}");
                continue;
            }
            if w.lines.is_empty() {
                human.push_str("no ledger lines match\n");
            }
            for line in &w.lines {
                let _ = write!(
                    human,
                    "#{} {} {} session={}",
                    line.seq,
                    line.ts,
                    line.event,
                    line.session.as_deref().unwrap_or("null")
                );
                if let Some(task) = &line.task {
                    let _ = write!(human, " task={task}");
                }
                let _ = writeln!(human, " {}", line.data);
            }
            if w.skipped > 0 {
                let _ = writeln!(human, "({} line(s) there could not be read)", w.skipped);
            }
        }
        human
    }

    fn note(&self) -> Option<String> {
        let pruned = self.pruned.as_ref().map(|p| {
            format!(
                "note: lines before {} were pruned by retention ({} line(s); ledger.retention_days)",
                p.before, p.lines
            )
        });
        let skipped = (!self.skipped.is_empty()).then(|| {
            let places: Vec<String> = self
                .skipped
                .iter()
                .map(|s| match s.line {
                    Some(n) => format!("line {n}: {}", s.reason),
                    None => format!("byte {}: {}", s.offset, s.reason),
                })
                .collect();
            format!(
                "note: skipped {} unreadable ledger line(s): {}",
                places.len(),
                places.join("; ")
            )
        });
        super::notes([
            pruned,
            skipped,
            super::index_note(self.index_rebuilt.as_ref()),
            super::journal::findings_note(&self.journal_findings),
        ])
    }
}

fn policy_note(error: &Option<String>) -> Option<String> {
    error.as_ref().map(|e| {
        format!("note: the policy cannot be read, so the defaults were used ({e}); majordomus doctor says more")
    })
}

impl Report for Briefing {
    fn text(&self) -> String {
        self.text.clone()
    }
    fn note(&self) -> Option<String> {
        super::notes([
            policy_note(&self.policy_error),
            super::index_note(self.index_rebuilt.as_ref()),
            self.recall_rebuilt.as_ref().map(|r| format!("note: {r}")),
        ])
    }
}

impl Report for RepositoryContext {
    fn text(&self) -> String {
        self.text.clone()
    }
    fn note(&self) -> Option<String> {
        super::notes([
            policy_note(&self.briefing.policy_error),
            super::index_note(
                self.briefing
                    .index_rebuilt
                    .as_ref()
                    .or(self.knowledge.index_rebuilt.as_ref()),
            ),
        ])
    }
}

impl Report for EnvReport {
    fn text(&self) -> String {
        let v = &self.versions;
        let mut human = format!(
            "majordomus {} (gix {}, ledger {}, {})\n",
            v.majordomus, v.gix, v.ledger_format, v.session_schema
        );
        let _ = writeln!(human, "root: {}", self.root);
        let _ = writeln!(
            human,
            "initialised: {}",
            if self.initialised {
                "yes"
            } else {
                "no (run `majordomus init`)"
            }
        );
        let head = &self.head;
        let _ = writeln!(
            human,
            "branch: {}",
            head.branch.as_deref().unwrap_or("(detached HEAD)")
        );
        let _ = writeln!(
            human,
            "HEAD: {}",
            head.id.as_deref().unwrap_or("(unborn: no commit yet)")
        );
        match &self.trunk {
            Some(t) => {
                let from = match &t.remote {
                    Some(r) => format!("refs/remotes/{r}/HEAD"),
                    None => "git config majordomus.trunk".to_owned(),
                };
                let _ = writeln!(
                    human,
                    "trunk: {} (from {from}){}",
                    t.branch,
                    if self.on_trunk { ", checked out" } else { "" }
                );
            }
            None => {
                let _ = writeln!(
                    human,
                    "trunk: none (no remote HEAD; `git remote set-head origin -a` or `git config majordomus.trunk <branch>`)"
                );
            }
        }
        match &self.episode {
            Some(ep) => {
                let _ = writeln!(human, "episode: {} (opened {})", ep.id, ep.opened);
            }
            None => human.push_str("episode: none open\n"),
        }
        let _ = writeln!(
            human,
            "ledger: {} ({} bytes)",
            self.ledger.path, self.ledger.bytes
        );
        if let Some(advisors) = &self.advisors {
            let _ = writeln!(human, "advisors: {advisors}");
        }
        let hooks = &self.hooks;
        if !hooks.installed {
            let _ = writeln!(
                human,
                "hooks: not installed in {} (majordomus hooks install)",
                hooks.dir
            );
        } else if hooks.problems().next().is_none() {
            let _ = writeln!(human, "hooks: {} (each reached once)", hooks.dir);
        } else {
            let _ = writeln!(human, "hooks: {}", hooks.dir);
            for h in &hooks.hooks {
                match (&h.reason, &h.fix) {
                    (Some(reason), Some(fix)) if h.reach != crate::hooks::Reach::Reached => {
                        let _ = writeln!(
                            human,
                            "  {} {}: {reason}\n    fix: {fix}",
                            h.hook,
                            h.reach.name()
                        );
                    }
                    _ => {
                        let _ = writeln!(human, "  {} {}", h.hook, h.reach.name());
                    }
                }
            }
        }
        if self.clock_pinned {
            human.push_str("clock: pinned by MAJORDOMUS_NOW\n");
        }
        human
    }
}

impl Report for DoctorReport {
    fn verdict(&self) -> Verdict {
        DoctorReport::verdict(self)
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for rule in &self.rules {
            let blocking = rule
                .findings
                .iter()
                .any(|f| f.finding.severity == Severity::Blocking);
            let tag = match rule.status {
                RuleStatus::Pass => "ok  ",
                RuleStatus::Skipped => "skip",
                RuleStatus::Fail if blocking => "FAIL",
                RuleStatus::Fail => "WARN",
            };
            let _ = writeln!(out, "{tag} {}", rule.rule);
            if let Some(note) = &rule.note {
                let _ = writeln!(out, "     {note}");
            }
            // One fix line per distinct fix: the findings that share one (every failure
            // `hooks acknowledge --through N` clears) are listed together, then it.
            let mut fixes: Vec<&str> = Vec::new();
            for folded in &rule.findings {
                if !fixes.contains(&folded.finding.fix.as_str()) {
                    fixes.push(&folded.finding.fix);
                }
            }
            for fix in fixes {
                for folded in rule.findings.iter().filter(|f| f.finding.fix == fix) {
                    let f = &folded.finding;
                    let sev = match f.severity {
                        Severity::Blocking => "BLOCK",
                        Severity::Advisory if f.informational => "INFO",
                        Severity::Advisory => "WARN",
                    };
                    let _ = writeln!(out, "     {sev} {} [{}] {}", f.file, f.rule, folded.said());
                }
                let _ = writeln!(out, "       fix: {fix}");
            }
        }
        let _ = write!(
            out,
            "doctor: {} blocking, {} advisory finding(s)",
            self.blocking, self.advisory
        );
        if self.informational > 0 {
            let _ = write!(
                out,
                ", {} informational (nothing needs doing)",
                self.informational
            );
        }
        out.push('\n');
        out
    }

    fn note(&self) -> Option<String> {
        super::index_note(self.index_rebuilt.as_ref())
    }
}

impl Report for VendorUpdated {
    fn text(&self) -> String {
        let mut out = match (self.write, &self.previous) {
            (WriteOutcome::Unchanged, _) => format!(
                "{}: unchanged (already the package of majordomus {})\n",
                self.file, self.version
            ),
            (_, Previous::Missing) => format!(
                "{}: vendored the package of majordomus {}\n",
                self.file, self.version
            ),
            (_, Previous::Unreadable) => format!(
                "{}: replaced an unreadable copy with the package of majordomus {}\n",
                self.file, self.version
            ),
            (_, Previous::Readable) => format!(
                "{}: updated to the package of majordomus {}\n",
                self.file, self.version
            ),
        };
        if let Some(error) = &self.previous_error {
            let _ = writeln!(out, "  the previous copy did not parse: {error}");
        }
        for (what, ids) in [
            ("added", &self.changes.added),
            ("removed", &self.changes.removed),
            ("changed", &self.changes.changed),
        ] {
            for id in ids {
                let _ = writeln!(out, "  {what:<8} {id}");
            }
        }
        if self.write == WriteOutcome::Written {
            let _ = writeln!(
                out,
                "next: git add {} && git commit -m \"Vendor the majordomus {} rules\"",
                crate::model::shell::quote(&self.file),
                env!("CARGO_PKG_VERSION")
            );
            out.push_str("  (every clone then checks against it)\n");
        }
        out
    }
}

impl Report for crate::worktrees::WorktreesList {
    fn text(&self) -> String {
        use crate::model::inject::{Label, fence};
        use std::fmt::Write as _;
        let mut out = String::new();
        if self.worktrees.is_empty() {
            out.push_str("no other worktree (`git worktree add` makes one)\n");
        }
        for w in &self.worktrees {
            out.push_str(&crate::worktrees::line(w));
            out.push('\n');
            let Some(e) = &w.episode else { continue };
            // What the episode's agent wrote is quoted as data (docs/SECURITY.md).
            let open = Label {
                status: "open",
                ..Label::default()
            };
            for q in &e.open_questions {
                let _ = writeln!(
                    out,
                    "  open question {}: {}",
                    q.id,
                    fence(&open, &q.text).text
                );
            }
            if e.open_questions_total > e.open_questions.len() {
                let _ = writeln!(
                    out,
                    "  ... {} more open question(s)",
                    e.open_questions_total - e.open_questions.len()
                );
            }
            // The newest is on the worktree's line already.
            let candidate = Label {
                status: "candidate",
                ..Label::default()
            };
            for d in e.decisions.iter().skip(1) {
                let _ = writeln!(out, "  decided: {}", fence(&candidate, d).text);
            }
            if e.decisions_total > e.decisions.len() {
                let _ = writeln!(
                    out,
                    "  ... {} earlier decision(s): `majordomus history --event decision.recorded --session {} --all-worktrees`",
                    e.decisions_total - e.decisions.len(),
                    e.id
                );
            }
        }
        out
    }
}
