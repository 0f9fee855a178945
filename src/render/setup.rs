//! `setup`'s result as a person reads it: what each file became, what still needs the
//! user, and the diff when it was a dry run.

use std::fmt::Write as _;

use crate::ops::Report;
use crate::setup::{EntryAction, FileAction, SetupReport};

impl Report for SetupReport {
    fn text(&self) -> String {
        let mut out = String::new();
        for file in &self.files {
            let verb = match (file.action, self.dry_run) {
                (FileAction::Created, false) => "created",
                (FileAction::Updated, false) => "updated",
                (FileAction::Deleted, false) => "deleted",
                (FileAction::Created, true) => "would create",
                (FileAction::Updated, true) => "would update",
                (FileAction::Deleted, true) => "would delete",
                (FileAction::Unchanged, _) => "unchanged",
            };
            let entries: Vec<String> = file
                .entries
                .iter()
                .map(|e| {
                    let action = match e.action {
                        EntryAction::Added => "added",
                        EntryAction::Removed => "removed",
                        EntryAction::Present => "present",
                        EntryAction::Absent => "absent",
                        EntryAction::Kept => "kept",
                    };
                    format!("{} {action}", e.entry)
                })
                .collect();
            let _ = writeln!(out, "{verb} {}: {}", file.path, entries.join(", "));
            for e in &file.entries {
                if let Some(note) = &e.note {
                    let _ = writeln!(out, "  note: {note}");
                }
            }
        }
        if !self.needs_user.is_empty() {
            out.push_str("still needs you:\n");
            for step in &self.needs_user {
                let _ = writeln!(out, "- {}: {}", step.what, step.how);
            }
        }
        if self.dry_run {
            for file in &self.files {
                out.push_str(&file.diff);
            }
            out.push_str("dry run: nothing was written\n");
        }
        // As `init` does: the commit that shares the wiring with the team, while there is
        // one to make (`-A`: a file `--remove` deleted is staged as deleted).
        if !self.uncommitted.is_empty() {
            let paths: Vec<String> = self
                .uncommitted
                .iter()
                .map(|p| crate::model::shell::quote(p).into_owned())
                .collect();
            let _ = writeln!(
                out,
                "next: git add -A -- {paths} && git commit -m \"majordomus: {} {}\" -- {paths}",
                if self.remove { "unwire" } else { "wire" },
                self.client.name(),
                paths = paths.join(" ")
            );
        }
        out
    }
}
