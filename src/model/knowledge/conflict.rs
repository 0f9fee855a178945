//! A record git left with merge-conflict markers (a promote on one branch, a reject on
//! another): each side read back whole, so that a check names the two acts instead of a
//! schema error (docs/KNOWLEDGE.md, "Conflicts").

/// One side of a conflicted record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// What git wrote after the marker: the branch or commit (`HEAD`, `feature`), its
    /// `:<path>` left out.
    pub label: String,
    /// The `status:` of the record as this side has it, when its front matter says one.
    pub status: Option<String>,
}

impl Side {
    /// The act that left this side's status: promoted, rejected, or still pending.
    pub fn act(&self) -> &'static str {
        match self.status.as_deref() {
            Some("verified") => "promoted",
            Some("superseded") => "rejected",
            Some("candidate") => "left pending",
            _ => "changed",
        }
    }

    /// `promoted on feature (status: verified)`.
    pub fn describe(&self) -> String {
        match &self.status {
            Some(status) => format!("{} on {} (status: {status})", self.act(), self.label),
            None => format!("{} on {}", self.act(), self.label),
        }
    }
}

/// The two sides of a conflicted record: ours (the checked-out branch) and theirs (the
/// branch merged in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub ours: Side,
    pub theirs: Side,
}

/// The sides of `text` when it holds git's conflict markers (`<<<<<<<`, `=======`,
/// `>>>>>>>`, and diff3's `|||||||` base, left out), else `None`.
pub fn conflict_of(text: &str) -> Option<Conflict> {
    #[derive(PartialEq)]
    enum In {
        Both,
        Ours,
        Base,
        Theirs,
    }
    let mut at = In::Both;
    let (mut ours, mut theirs) = (String::new(), String::new());
    let (mut ours_label, mut theirs_label) = (None, None);
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("<<<<<<<") {
            if at != In::Both {
                return None;
            }
            ours_label.get_or_insert_with(|| label(rest));
            at = In::Ours;
            continue;
        }
        if line.starts_with("|||||||") && at == In::Ours {
            at = In::Base;
            continue;
        }
        if line.starts_with("=======") && (at == In::Ours || at == In::Base) {
            at = In::Theirs;
            continue;
        }
        if let Some(rest) = line.strip_prefix(">>>>>>>")
            && at == In::Theirs
        {
            theirs_label.get_or_insert_with(|| label(rest));
            at = In::Both;
            continue;
        }
        for (side, keep) in [(&mut ours, In::Ours), (&mut theirs, In::Theirs)] {
            if at == In::Both || at == keep {
                side.push_str(line);
                side.push('\n');
            }
        }
    }
    if at != In::Both {
        return None;
    }
    Some(Conflict {
        ours: Side {
            label: ours_label?,
            status: status_of(&ours),
        },
        theirs: Side {
            label: theirs_label?,
            status: status_of(&theirs),
        },
    })
}

/// `HEAD:.ai/repo/...` as `HEAD`; an empty label as `one side`.
fn label(rest: &str) -> String {
    let rest = rest.trim();
    let name = rest.split_once(':').map_or(rest, |(name, _)| name).trim();
    if name.is_empty() {
        "one side".to_owned()
    } else {
        name.to_owned()
    }
}

/// The `status:` of a record's front matter.
fn status_of(text: &str) -> Option<String> {
    let front = text.strip_prefix("---\n")?;
    let front = &front[..front.find("\n---")?];
    front
        .lines()
        .find_map(|l| l.strip_prefix("status:"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MERGED: &str = "---\nid: x\nschema: knowledge/v1\n<<<<<<< HEAD:.ai/repo/knowledge/candidates/x.md\nstatus: superseded\n=======\nstatus: verified\n>>>>>>> feature:.ai/repo/knowledge/curated/x.md\ntitle: t\n---\nclaim\n\n<<<<<<< HEAD:.ai/repo/knowledge/candidates/x.md\n# Rejected\n\nno\n=======\n# Evidence\n\nholds\n>>>>>>> feature:.ai/repo/knowledge/curated/x.md\n";

    #[test]
    fn a_promote_merged_with_a_reject_names_both_acts() {
        let c = conflict_of(MERGED).expect("a conflict");
        assert_eq!(c.ours.describe(), "rejected on HEAD (status: superseded)");
        assert_eq!(
            c.theirs.describe(),
            "promoted on feature (status: verified)"
        );
    }

    #[test]
    fn a_diff3_base_is_neither_side() {
        let text = "---\nid: x\n<<<<<<< ours\nstatus: verified\n||||||| base\nstatus: candidate\n=======\nstatus: superseded\n>>>>>>> theirs\n---\nbody\n";
        let c = conflict_of(text).expect("a conflict");
        assert_eq!(c.ours.status.as_deref(), Some("verified"));
        assert_eq!(c.theirs.status.as_deref(), Some("superseded"));
        assert_eq!(
            (c.ours.label.as_str(), c.theirs.label.as_str()),
            ("ours", "theirs")
        );
    }

    #[test]
    fn markers_only_in_the_body_leave_the_status_as_both_sides_have_it() {
        let text =
            "---\nid: x\nstatus: verified\n---\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n";
        let c = conflict_of(text).expect("a conflict");
        assert_eq!(c.ours.describe(), "promoted on HEAD (status: verified)");
        assert_eq!(c.theirs.describe(), "promoted on other (status: verified)");
    }

    #[test]
    fn no_markers_or_a_broken_hunk_is_no_conflict() {
        assert_eq!(
            conflict_of("---\nid: x\nstatus: verified\n---\nbody\n"),
            None
        );
        assert_eq!(
            conflict_of("---\n<<<<<<< HEAD\nstatus: verified\n---\n"),
            None
        );
        // A line of equals signs in prose is no marker outside a hunk.
        assert_eq!(
            conflict_of("---\nstatus: verified\n---\nTitle\n=======\n"),
            None
        );
    }
}
