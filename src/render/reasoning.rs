//! Reasoning results as a person reads them.

use std::fmt::Write as _;

use crate::knowledge::Severity;
use crate::model::Verdict;
use crate::model::reasoning::{PlanDecision, Provenance, Record, StoredRecord};
use crate::ops::Report;
use crate::reasoning::{Advisors, ConsultOutcome, Planned, ReasoningCheck, Status, Written};

fn record_line(r: &StoredRecord) -> String {
    let what = match &r.record {
        Record::Assessment(a) => format!("assessment: {} ({})", a.subject, a.materiality.name()),
        Record::Plan(p) => format!(
            "plan: {} selected within a budget of {}",
            if p.selected.is_empty() {
                "nobody".to_owned()
            } else {
                p.selected.join(", ")
            },
            p.budget
        ),
        Record::Consultation(c) => format!(
            "consultation: {} {}{}{}",
            c.advisor,
            c.status.name(),
            c.stance
                .map(|s| format!(", {}", s.name()))
                .unwrap_or_default(),
            c.source
                .as_deref()
                .map(|s| format!(" (source: {s})"))
                .unwrap_or_default()
        ),
        Record::Disagreement(d) => format!("disagreement: {}", d.question),
        Record::Resolution(x) => format!("resolution: {} showed {}", x.experiment, x.result),
        Record::Conclusion(c) => format!(
            "conclusion: {} (reviewed by {} advisor(s), {} independent source(s))",
            c.decision,
            c.reviewed_by.len(),
            c.independent_review_count
        ),
        Record::Validation(v) => format!("validation: {} {:?}", v.check, v.outcome).to_lowercase(),
        Record::Attempt(a) => format!("attempt: {}", a.tried),
    };
    format!("{} {what}", r.id)
}

impl Report for Written {
    fn text(&self) -> String {
        format!(
            "{} {}\n  -> {}{}\n",
            if self.unchanged {
                "already recorded"
            } else {
                "recorded"
            },
            record_line(&self.record),
            self.path,
            if self.record.redacted.is_empty() {
                String::new()
            } else {
                format!(" (removed: {})", self.record.redacted.join(", "))
            }
        )
    }
    fn note(&self) -> Option<String> {
        super::resumed_note(self.resumed.as_deref())
    }
}

impl Report for Advisors {
    fn text(&self) -> String {
        let mut out = format!(
            "mode {} ({:?}); catalogue {}\n",
            crate::model::reasoning::plan::mode_name(self.mode.mode),
            self.mode.source,
            self.catalogue
        )
        .to_lowercase();
        if self.advisors.is_empty() {
            out.push_str(
                "no advisors in the catalogue: reasoning runs as a structured local review\n",
            );
        }
        for a in &self.advisors {
            let _ = writeln!(
                out,
                "- {} ({}, {}{}): {} [{}]",
                a.advisor.id,
                a.advisor.title,
                match (a.advisor.adapter, &a.advisor.model) {
                    (crate::model::reasoning::Adapter::Mesh, Some(source)) => {
                        format!("mesh peer, answers as {source}")
                    }
                    (crate::model::reasoning::Adapter::Mesh, None) => "mesh peer".to_owned(),
                    (adapter, _) => adapter.name().to_owned(),
                },
                if a.advisor.local { ", local" } else { "" },
                a.availability.status.name(),
                a.advisor.capabilities.join(", ")
            );
            let _ = writeln!(out, "  {}", a.availability.reason);
        }
        if let Some(mesh) = &self.mesh {
            let _ = match &mesh.problem {
                Some(problem) => writeln!(
                    out,
                    "mesh {}: no peers listed ({problem}); plans decide without them",
                    mesh.server
                ),
                None => writeln!(
                    out,
                    "mesh {}: {} live peer{} offering reviews{}",
                    mesh.server,
                    mesh.peers,
                    if mesh.peers == 1 { "" } else { "s" },
                    if mesh.gone > 0 {
                        format!(" ({} gone: no heartbeat within the window)", mesh.gone)
                    } else {
                        String::new()
                    }
                ),
            };
        }
        for c in &self.capacity {
            let _ = writeln!(
                out,
                "capacity {}: {} advisor(s) offer it, {} admissible now",
                c.capability, c.offered_by, c.admissible
            );
        }
        out
    }
}

fn decision_lines(d: &PlanDecision) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "mode {}, budget {}: selected {}",
        crate::model::reasoning::plan::mode_name(d.mode),
        d.budget,
        if d.selected.is_empty() {
            "nobody".to_owned()
        } else {
            d.selected.join(", ")
        }
    );
    for n in &d.not_selected {
        let _ = writeln!(out, "  not {}: {}", n.advisor, n.reason);
    }
    if let Some(r) = &d.reuses {
        let _ = writeln!(out, "reuses the standing conclusion {r}");
    }
    if d.local_review.is_some() {
        out.push_str(LOCAL_REVIEW);
    }
    out
}

/// What a material plan that selected nobody asks of the executor.
const LOCAL_REVIEW: &str = "nobody selected for a material question: record a structured local review \
     (hypothesis and strongest alternative, assumptions with evidence, falsifier, \
     smallest discriminating experiment, conclusion)\n";

impl Report for Planned {
    fn text(&self) -> String {
        let mut out = String::new();
        if self.dry_run {
            out.push_str("dry run (nothing recorded)\n");
        }
        if let Some(p) = &self.plan {
            out.push_str(&p.text());
        }
        out.push_str(&decision_lines(&self.decision));
        out
    }
}

impl Report for ConsultOutcome {
    fn text(&self) -> String {
        let mut out = self.plan.text();
        // A plan that asked nobody says why, and what to do instead, here too: the consult
        // is what an agent reads.
        if let Record::Plan(p) = &self.plan.record.record
            && p.selected.is_empty()
        {
            for n in &p.not_selected {
                let _ = writeln!(out, "  not {}: {}", n.advisor, n.reason);
            }
            if let Some(r) = &p.reuses {
                let _ = writeln!(out, "reuses the standing conclusion {r}");
            }
            if p.local_review.is_some() {
                out.push_str(LOCAL_REVIEW);
            }
        }
        for c in &self.consultations {
            out.push_str(&c.text());
            if let Record::Consultation(x) = &c.record.record {
                if let Some(conclusion) = &x.conclusion {
                    let _ = writeln!(out, "  says: {conclusion}");
                }
                if let Some(d) = &x.diagnostic {
                    let _ = writeln!(out, "  diagnostic: {d}");
                }
            }
        }
        if let Some(d) = &self.disagreement {
            out.push_str(&d.text());
            out.push_str(
                "  a conclusion is refused until a resolution with evidence settles it (a majority never does)\n",
            );
        }
        out
    }
}

impl Report for Status {
    fn text(&self) -> String {
        let mut out = match &self.folder {
            Some(f) => format!("reasoning of {f}\n"),
            None => "reasoning of this checkout\n".to_owned(),
        };
        out.push_str(&self.status.summary());
        out
    }
}

impl Report for Provenance {
    fn text(&self) -> String {
        let mut out = String::new();
        if let Some(a) = &self.assessment {
            let _ = writeln!(out, "{}", record_line(a));
        }
        for r in self
            .plans
            .iter()
            .chain(&self.consultations)
            .chain(&self.disagreements)
            .chain(&self.resolutions)
            .chain(&self.attempts)
        {
            let _ = writeln!(out, "  {}", record_line(r));
        }
        let _ = writeln!(out, "{}", record_line(&self.conclusion));
        for v in &self.validations {
            let _ = writeln!(out, "  {}", record_line(v));
        }
        out
    }
}

impl Report for ReasoningCheck {
    fn verdict(&self) -> Verdict {
        ReasoningCheck::verdict(self)
    }
    fn text(&self) -> String {
        if let Some(note) = &self.note {
            return format!("reasoning check: not run: {note}\n");
        }
        let mut out = format!(
            "reasoning check: {} source(s), {} CI and gate file(s), {} finding(s)\n",
            self.sources,
            self.ci_files,
            self.findings.len()
        );
        for e in &self.exceptions {
            let _ = writeln!(
                out,
                "except {} ({} file(s)): {}",
                e.path, e.files, e.because
            );
        }
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
        out
    }
}
