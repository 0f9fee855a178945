//! Recall results as a person (and an agent reading text) reads them.

use std::fmt::Write as _;

use crate::model::inject::{LEGEND, names, quote};
use crate::ops::Report;
use crate::recall::{Hit, Recall, Shown};

/// One hit: a numbered head line (its status, kind and id, and the instruction shapes
/// neutralised in it), its line of text quoted as data, where it comes from, why it
/// ranked and how to read it whole.
pub fn hit_lines(out: &mut String, n: usize, hit: &Hit, indent: &str) {
    let quoted = quote(&hit.line);
    let _ = write!(
        out,
        "{indent}{n}. [{}] {} {}",
        hit.status.name(),
        hit.kind.name(),
        hit.id
    );
    if !quoted.shapes.is_empty() {
        let _ = write!(out, " · neutralised: {}", names(&quoted.shapes));
    }
    out.push('\n');
    let _ = writeln!(out, "{indent}   {}", quoted.text);
    let mut place = vec![hit.date.clone()];
    if let Some(e) = &hit.episode {
        match &hit.branch {
            Some(b) => place.push(format!("episode {e} on {b}")),
            None => place.push(format!("episode {e}")),
        }
    }
    if let Some(t) = &hit.task {
        place.push(format!("task {t}"));
    }
    if let Some(w) = &hit.writer {
        place.push(format!("from the journal of writer {w}"));
    }
    let _ = writeln!(out, "{indent}   {}", place.join(" · "));
    let why: Vec<String> = hit
        .why
        .iter()
        .map(|r| match r.signal.as_str() {
            "terms" => format!("terms {}", r.detail),
            "path" => format!("path {}", r.detail),
            _ => r.detail.clone(),
        })
        .collect();
    let _ = writeln!(out, "{indent}   why: {}", why.join("; "));
    let _ = writeln!(
        out,
        "{indent}   read: {}  ({})",
        hit.read.command, hit.read.uri
    );
}

impl Report for Recall {
    fn text(&self) -> String {
        let mut out = String::new();
        let asked = if self.query.trim().is_empty() {
            String::new()
        } else {
            format!(" for \"{}\"", self.query.trim().replace('\n', " "))
        };
        let at_least = if self.total_exact { "" } else { "at least " };
        let _ = writeln!(
            out,
            "{} of {at_least}{} hit(s){asked}",
            self.hits.len(),
            self.total
        );
        let mut by = Vec::new();
        if !self.context.paths.is_empty() {
            let shown: Vec<&str> = self
                .context
                .paths
                .iter()
                .take(5)
                .map(String::as_str)
                .collect();
            let more = self.context.paths.len() + self.context.paths_left_out - shown.len();
            if more > 0 {
                by.push(format!("paths {} and {more} more", shown.join(", ")));
            } else {
                by.push(format!("paths {}", shown.join(", ")));
            }
        }
        for (what, value) in [
            ("task", &self.context.task),
            ("issue", &self.context.issue),
            ("intent", &self.context.intent),
        ] {
            if let Some(v) = value {
                by.push(format!("{what} {v}"));
            }
        }
        if !by.is_empty() {
            let _ = writeln!(out, "ranked by {}", by.join("; "));
        }
        for said in &self.context.at_hand {
            let _ = writeln!(out, "  at hand: {said}");
        }
        if self.terms_left_out > 0 {
            let _ = writeln!(
                out,
                "  {} more distinct term(s) of the query were not searched (at most {} are)",
                self.terms_left_out,
                crate::model::recall::MAX_QUERY_TERMS
            );
        }
        if self.hits.is_empty() {
            out.push_str(if self.total == 0 && self.query.trim().is_empty() {
                "nothing recorded matches; decisions, answers and promoted knowledge appear here as they are recorded\n"
            } else {
                "nothing matches\n"
            });
        }
        if !self.hits.is_empty() {
            let _ = writeln!(out, "{LEGEND}");
        }
        for (i, hit) in self.hits.iter().enumerate() {
            out.push('\n');
            hit_lines(&mut out, i + 1, hit, "");
        }
        if let Some(more) = &self.more {
            let _ = writeln!(
                out,
                "\n{at_least}{} more: {more}",
                self.total - self.hits.len()
            );
        }
        if !self.elsewhere.is_empty() {
            out.push_str("\nBeing worked on now in other worktrees (not recorded yet):\n");
            for w in &self.elsewhere {
                out.push_str(&crate::worktrees::line(w));
                out.push('\n');
            }
        }
        out
    }

    fn note(&self) -> Option<String> {
        self.index_rebuilt.as_ref().map(|r| format!("note: {r}"))
    }
}

impl Report for Shown {
    fn text(&self) -> String {
        let mut out = format!(
            "{} {} [{}] · {} · {}\n",
            self.kind.name(),
            self.id,
            self.status.name(),
            self.source,
            self.date
        );
        if let Some(d) = &self.derived {
            let _ = writeln!(out, "knowledge record: {d} (majordomus show knowledge:{d})");
        }
        out.push('\n');
        out.push_str(self.text.trim_end());
        out.push('\n');
        out
    }
}

impl Report for crate::moment::ShownReport {
    fn text(&self) -> String {
        use std::fmt::Write as _;
        let Some(session) = &self.session else {
            return "no episode yet: nothing was shown to an agent\n".into();
        };
        let mut out = format!(
            "What the memory put before the model in episode {session}{}\n",
            if self.open { " (open)" } else { "" }
        );
        let _ = writeln!(out, "{}", self.summary.line());
        for entry in &self.entries {
            let place = match (&entry.tool, entry.files.is_empty()) {
                (Some(tool), _) => format!("{} {tool}", entry.place.name()),
                (None, false) => format!("{} {}", entry.place.name(), entry.files.join(", ")),
                (None, true) => entry.place.name().to_owned(),
            };
            let _ = writeln!(out, "\n#{} {} {place}", entry.seq, entry.ts);
            for record in &entry.records {
                let line = self
                    .lines
                    .get(&record.id)
                    .map(|l| format!(" {l}"))
                    .unwrap_or_default();
                let _ = writeln!(out, "- [{}] {}{line}", record.status.name(), record.id);
            }
        }
        out
    }
}
