//! Knowledge results as a person reads them.

use std::fmt::Write as _;

use crate::knowledge::batch::Reviewed;
use crate::knowledge::check::{CheckReport, Severity};
use crate::knowledge::derive::DeriveReport;
use crate::knowledge::end::{Ended, EndedRecord};
use crate::knowledge::graph::{EdgeState, KnowledgeGraph, ShownRecord};
use crate::knowledge::queue::{CandidateListing, KnowledgeStatus, Moment};
use crate::knowledge::reverify::Reverified;
use crate::knowledge::review::{Promoted, Rejected};
use crate::knowledge::verified::VerifiedListing;
use crate::model::Verdict;
use crate::ops::Report;

impl Report for DeriveReport {
    fn text(&self) -> String {
        let mut out = String::new();
        let verb = if self.dry_run {
            "would derive"
        } else {
            "derived"
        };
        let _ = writeln!(
            out,
            "{verb} episode {} into {}: {} written, {} unchanged, {} skipped, {} already reviewed",
            self.episode,
            self.target.name(),
            self.written.len(),
            self.unchanged.len(),
            self.skipped.len(),
            self.reviewed.len()
        );
        if self.nothing_to_write {
            out.push_str("nothing to write\n");
        }
        if self.planted_readme {
            out.push_str(if self.dry_run {
                "would plant .ai/repo/knowledge/candidates/README.md\n"
            } else {
                "planted .ai/repo/knowledge/candidates/README.md\n"
            });
        }
        for p in &self.written {
            let _ = writeln!(out, "  wrote {p}");
        }
        for s in &self.skipped {
            let _ = writeln!(
                out,
                "  skipped ledger line #{} ({}): {}",
                s.seq, s.event, s.reason
            );
        }
        for rv in &self.reviewed {
            let state = match rv.state {
                crate::knowledge::derive::ReviewState::Promoted => "promoted",
                crate::knowledge::derive::ReviewState::Superseded => "superseded",
                crate::knowledge::derive::ReviewState::Tracked => "already tracked",
            };
            let _ = writeln!(out, "  left alone {} ({state})", rv.id);
        }
        out
    }

    fn note(&self) -> Option<String> {
        super::index_note(self.index_rebuilt.as_ref())
    }
}

impl Report for Promoted {
    fn text(&self) -> String {
        let mut out = format!("promoted {} -> {} (verified)\n", self.id, self.path);
        for d in &self.duplicates {
            let _ = writeln!(
                out,
                "rejected {d} (folded with it: a near duplicate, superseded by {})",
                self.id
            );
        }
        if let Some(by) = &self.promoted_by {
            let _ = writeln!(
                out,
                "  promoted by {by}: no episode is open, so the knowledge.promoted line records the promoter"
            );
        }
        for r in &self.rewritten {
            let _ = writeln!(
                out,
                "  commit:{} was rewritten; the record names its successor commit:{}",
                r.old, r.new
            );
        }
        if !self.redacted.is_empty() {
            let _ = writeln!(
                out,
                "  removed from the evidence: {}",
                self.redacted.join(", ")
            );
        }
        for f in &self.warnings {
            let sev = match f.severity {
                Severity::Blocking => "BLOCK",
                Severity::Advisory => "WARN",
            };
            let _ = writeln!(
                out,
                "warning: {sev} [{}] {}\n  fix: {}",
                f.rule, f.message, f.fix
            );
        }
        superseded_lines(&mut out, &self.superseded);
        let _ = writeln!(
            out,
            "next: git add -A .ai/repo/knowledge && git commit -m \"Verify knowledge {}\"",
            self.id
        );
        out
    }
    fn note(&self) -> Option<String> {
        super::notes([
            super::resumed_note(self.resumed.as_deref()),
            super::instruction_note(&self.instruction_shapes),
        ])
    }
}

impl Report for Reverified {
    fn text(&self) -> String {
        let mut out = format!(
            "re-verified {} at {} ({})\n",
            self.id,
            short(&self.head),
            self.path
        );
        if self.was_stale {
            let _ = writeln!(
                out,
                "  it was stale: {} changed since it was verified",
                self.changed.join(", ")
            );
        } else {
            let _ = writeln!(
                out,
                "  it was not stale: its cited files are as they were when it was verified"
            );
        }
        let _ = writeln!(out, "  appended under # Evidence: {}", self.appended);
        if !self.redacted.is_empty() {
            let _ = writeln!(
                out,
                "  removed from the evidence: {}",
                self.redacted.join(", ")
            );
        }
        if self.was_stale {
            out.push_str("  doctor names it re-verified and waiting for its commit until the next line is run (HEAD still holds it as verified before its files changed)\n");
        }
        let _ = writeln!(
            out,
            "next: git add {} && git commit -m \"Re-verify knowledge {}\"",
            self.path, self.id
        );
        out
    }
}

/// The first 12 hex digits of a commit id.
fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

impl Report for Rejected {
    fn text(&self) -> String {
        let by = self
            .superseded_by
            .as_deref()
            .map(|b| format!(", superseded by {b}"))
            .unwrap_or_default();
        let mut out = format!("rejected {} ({}){by}\n", self.id, self.path);
        for f in &self.folded {
            let _ = writeln!(
                out,
                "rejected {f} (folded with it: a near duplicate, the same reason)"
            );
        }
        if !self.redacted.is_empty() {
            let _ = writeln!(
                out,
                "  removed from the reason: {}",
                self.redacted.join(", ")
            );
        }
        out
    }
    fn note(&self) -> Option<String> {
        super::resumed_note(self.resumed.as_deref())
    }
}

impl Report for Reviewed {
    fn text(&self) -> String {
        let mut out = format!(
            "reviewed {} candidate(s): {} promoted, {} rejected\n",
            self.promoted.len() + self.rejected.len(),
            self.promoted.len(),
            self.rejected.len()
        );
        for p in &self.promoted {
            let _ = writeln!(out, "  promote {} {} -> {}", p.id, p.title, p.path);
        }
        if let Some(by) = &self.promoted_by {
            let _ = writeln!(
                out,
                "  promoted by {by}: no episode is open, so each knowledge.promoted line records the promoter"
            );
        }
        for r in &self.rejected {
            let why = match (&r.duplicate_of, &r.superseded_by) {
                (Some(of), _) => format!(" (duplicate of {of})"),
                (None, Some(by)) => format!(" (superseded by {by})"),
                (None, None) => String::new(),
            };
            let _ = writeln!(out, "  reject {} {}{why}", r.id, r.title);
        }
        superseded_lines(&mut out, &self.superseded);
        if !self.redacted.is_empty() {
            let _ = writeln!(out, "  removed from the text: {}", self.redacted.join(", "));
        }
        for f in &self.warnings {
            let sev = match f.severity {
                Severity::Blocking => "BLOCK",
                Severity::Advisory => "WARN",
            };
            let _ = writeln!(
                out,
                "warning: {sev} {} [{}] {}\n  fix: {}",
                f.file, f.rule, f.message, f.fix
            );
        }
        if let Some(c) = &self.commit {
            let _ = writeln!(
                out,
                "committed {} on {}: {} ({} path(s))",
                short(&c.id),
                c.branch,
                self.message.lines().next().unwrap_or_default(),
                c.paths.len()
            );
        }
        if let Some(next) = &self.next {
            let _ = writeln!(out, "next: {next}");
        }
        out
    }
    fn note(&self) -> Option<String> {
        let shaped: Vec<&str> = self
            .promoted
            .iter()
            .filter(|p| !p.instruction_shapes.is_empty())
            .map(|p| p.id.as_str())
            .collect();
        (!shaped.is_empty()).then(|| {
            format!(
                "instruction-shaped text in {} now verified: it is neutralised wherever it is injected (docs/HOSTILE.md)",
                shaped.join(", ")
            )
        })
    }
}

/// One line per record a promotion superseded.
fn superseded_lines(out: &mut String, superseded: &[EndedRecord]) {
    for r in superseded {
        let by = r.superseded_by.as_deref().unwrap_or("-");
        let _ = writeln!(
            out,
            "  superseded {} {} (by {by}; {})",
            r.id, r.title, r.path
        );
    }
}

impl Report for Ended {
    fn text(&self) -> String {
        let mut out = match &self.by {
            Some(by) => format!(
                "superseded {} record(s) by {by}, decided by {} at {}\n",
                self.records.len(),
                self.decided_by,
                self.at
            ),
            None => format!(
                "retired {} record(s), decided by {} at {}\n",
                self.records.len(),
                self.decided_by,
                self.at
            ),
        };
        for r in &self.records {
            let _ = writeln!(out, "  {} {} ({})", r.id, r.title, r.path);
        }
        if !self.redacted.is_empty() {
            let _ = writeln!(
                out,
                "  removed from the reason: {}",
                self.redacted.join(", ")
            );
        }
        out.push_str(
            "  no longer claimed: never put before a model again; `majordomus recall --all` still lists it\n",
        );
        if let Some(c) = &self.commit {
            let _ = writeln!(
                out,
                "committed {} on {}: {} ({} path(s))",
                short(&c.id),
                c.branch,
                self.message.lines().next().unwrap_or_default(),
                c.paths.len()
            );
        }
        if let Some(next) = &self.next {
            let _ = writeln!(out, "next: {next}");
        }
        out
    }
    fn note(&self) -> Option<String> {
        super::resumed_note(self.resumed.as_deref())
    }
}

impl Report for VerifiedListing {
    fn text(&self) -> String {
        let stale = self.records.iter().filter(|r| !r.stale.is_empty()).count();
        let mut out = format!("{} verified record(s)", self.records.len());
        if stale > 0 {
            let _ = write!(out, ", {stale} stale");
        }
        if self.ended > 0 {
            let _ = write!(
                out,
                "; {} superseded or retired (no longer claimed, not listed)",
                self.ended
            );
        }
        out.push('\n');
        for r in &self.records {
            let _ = write!(
                out,
                "- {} {}: {} (verified {}, {})",
                r.id,
                r.class.name(),
                r.title,
                r.verified_at,
                r.verified_from.name()
            );
            if !r.stale.is_empty() {
                let _ = write!(out, " [stale: {}]", r.stale.join(", "));
            }
            out.push('\n');
        }
        for u in &self.unreadable {
            let _ = writeln!(out, "- unreadable: {u} (see `majordomus knowledge check`)");
        }
        out
    }
}

impl Report for CheckReport {
    fn verdict(&self) -> Verdict {
        CheckReport::verdict(self)
    }

    fn text(&self) -> String {
        let mut out = String::new();
        if self.findings.is_empty() {
            let _ = writeln!(
                out,
                "knowledge check: {} record(s), no findings",
                self.records
            );
            return out;
        }
        let blocking = self.blocking();
        let _ = writeln!(
            out,
            "knowledge check: {} record(s), {blocking} blocking, {} advisory finding(s)",
            self.records,
            self.findings.len() - blocking
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
        out
    }

    fn note(&self) -> Option<String> {
        super::index_note(self.index_rebuilt.as_ref())
    }
}

impl Report for CandidateListing {
    fn text(&self) -> String {
        let mut human = format!("{} candidate(s) awaiting review", self.candidates.len());
        if self.items != self.candidates.len() {
            let _ = write!(
                human,
                " as {} review item(s): near duplicates fold under the newest",
                self.items
            );
        }
        human.push('\n');
        let by_id: std::collections::HashMap<&str, &crate::knowledge::queue::CandidateEntry> =
            self.candidates.iter().map(|c| (c.id.as_str(), c)).collect();
        // An item shows where its oldest candidate waits: the queue is oldest first.
        let mut shown = std::collections::HashSet::new();
        for c in self.candidates.iter().filter_map(|c| {
            let head = c.folded_under.as_deref().unwrap_or(&c.id);
            shown
                .insert(head)
                .then(|| by_id.get(head).copied())
                .flatten()
        }) {
            let _ = write!(
                human,
                "- {} [{}] {}: {} ({}; queued {}, {})",
                c.id,
                c.state.name(),
                c.class.name(),
                c.title,
                c.date,
                c.queued_at,
                c.queued_from.name()
            );
            if !c.folded.is_empty() {
                let _ = write!(human, " [+{} folded]", c.folded.len());
            }
            human.push('\n');
            if let Some(v) = &c.restates {
                let _ = writeln!(human, "    restates verified {v}");
            }
            for v in &c.concerns {
                let _ = writeln!(
                    human,
                    "    concerns the same files as verified {} ({}; {}% alike): {} — restate, replace or keep both? replace: echo \"<evidence>\" | majordomus knowledge promote {} --supersedes {}",
                    v.id,
                    v.files.join(", "),
                    (v.similarity * 100.0).round(),
                    v.title,
                    c.id,
                    v.id
                );
            }
            for f in &c.folded {
                let title = by_id.get(f.as_str()).map_or("", |e| e.title.as_str());
                let _ = writeln!(human, "    folded: {f}: {title}");
            }
        }
        for u in &self.unreadable {
            let _ = writeln!(
                human,
                "- unreadable: {u} (see `majordomus knowledge check`)"
            );
        }
        human
    }
}

impl Report for KnowledgeStatus {
    fn text(&self) -> String {
        let moment = |m: &Option<Moment>| match m {
            Some(m) => format!("{} at {}", m.episode.as_deref().unwrap_or("-"), m.ts),
            None => "never".to_owned(),
        };
        let mut human = String::new();
        let _ = writeln!(human, "last closed: {}", moment(&self.last_closed));
        let _ = writeln!(human, "last derived: {}", moment(&self.last_derived));
        let _ = writeln!(
            human,
            "freshness: {}",
            match (&self.last_closed, self.fresh) {
                (None, _) => "nothing to judge yet (no episode has closed)",
                (Some(_), true) => "fresh (the last closed episode has been derived)",
                (Some(_), false) => "stale (the last closed episode has not been derived)",
            }
        );
        let _ = writeln!(
            human,
            "queue: {} pending ({} untracked), {} curated",
            self.pending, self.untracked, self.curated
        );
        for c in &self.conflicted {
            let _ = writeln!(
                human,
                "conflicted: {} [knowledge.conflict] {}\n  fix: {}",
                c.file, c.message, c.fix
            );
        }
        if let (Some(id), Some(at), Some(from), Some(minutes), Some(days)) = (
            &self.oldest,
            &self.oldest_queued_at,
            self.oldest_queued_from,
            self.oldest_age_minutes,
            self.oldest_age_days,
        ) {
            let waited = if days > 0 {
                format!("{days} day(s)")
            } else {
                format!("{minutes} minute(s)")
            };
            let _ = writeln!(
                human,
                "oldest candidate: {id}, waiting {waited} since {at}, measured from {}",
                from.said()
            );
        }
        let _ = writeln!(
            human,
            "outbox: {}",
            if self.outbox.is_empty() {
                "empty".to_owned()
            } else {
                format!(
                    "{} session record(s), {} candidate(s) waiting to leave the trunk",
                    self.outbox.sessions.len(),
                    self.outbox.candidates.len()
                )
            }
        );
        human
    }

    fn note(&self) -> Option<String> {
        super::index_note(self.index_rebuilt.as_ref())
    }
}

impl Report for ShownRecord {
    fn text(&self) -> String {
        let r = &self.record;
        let mut out = String::new();
        let _ = writeln!(out, "{} ({})", r.id, self.path);
        let _ = writeln!(out, "title: {}", r.title);
        let _ = writeln!(
            out,
            "class: {}, status: {}, stance: {}, date: {}",
            r.class.name(),
            format!("{:?}", r.status).to_lowercase(),
            format!("{:?}", r.stance).to_lowercase(),
            r.date
        );
        if let Some(stale) = &self.stale {
            let moved: Vec<String> = stale
                .targets
                .iter()
                .map(|t| format!("{} {}", t.path, t.change.verb()))
                .collect();
            let _ = writeln!(
                out,
                "stale: {} since it was verified in {}: re-verify it (majordomus knowledge reverify {}), or retire or supersede it",
                moved.join(", "),
                stale.verified_in.short(),
                r.id
            );
        }
        if !self.references.is_empty() {
            out.push_str("references:\n");
        }
        for reference in &self.references {
            let _ = writeln!(
                out,
                "  {} {} {}",
                if reference.resolves { "ok  " } else { "MISS" },
                reference.edge_type.name(),
                reference.reference
            );
        }
        out.push('\n');
        out.push_str(self.body.trim_start_matches('\n'));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }

    fn note(&self) -> Option<String> {
        let missing = self.references.iter().filter(|r| !r.resolves).count();
        (missing > 0).then(|| {
            format!(
                "note: {missing} reference(s) do not resolve (majordomus knowledge check says why)"
            )
        })
    }
}

impl Report for KnowledgeGraph {
    fn text(&self) -> String {
        let mut out = format!(
            "{} record(s), {} edge(s)\n",
            self.nodes.len(),
            self.edges.len()
        );
        for edge in &self.edges {
            let state = match edge.state {
                EdgeState::Resolved => "",
                EdgeState::Dangling => " (dangling)",
                EdgeState::External => " (external)",
                EdgeState::Malformed => " (malformed)",
            };
            let relation = edge
                .relation
                .as_deref()
                .map(|r| format!(" {r}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} -{}{}-> {}{state}",
                edge.from,
                edge.edge_type.name(),
                relation,
                edge.to
            );
        }
        for u in &self.unreadable {
            let _ = writeln!(out, "unreadable: {u} (see `majordomus knowledge check`)");
        }
        out
    }
}
