//! The binding's two pins: `plan_revision` over what the served plan says, and
//! `evidence_standing` over the state of the served criteria's evidence.
//!
//! Both hash a canonical JSON form (fixed field order, no formatting, no comments) so a
//! pin depends on content only and is the same in every clone. Neither covers issue
//! statuses or titles, so `plan start` and closing an issue move no pin.

use serde::Serialize;

use super::{Intent, Issue};
use crate::model::ids::sha256_hex;

/// One served intent and the issues the binding resolved under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Served<'p> {
    pub intent: &'p Intent,
    pub issues: Vec<&'p Issue>,
}

#[derive(Serialize)]
struct PlanForm<'a> {
    id: &'a str,
    statement: &'a str,
    invariants: &'a [String],
    non_goals: &'a [String],
    criteria: Vec<CriterionForm<'a>>,
    issues: Vec<IssueForm<'a>>,
    findings: Vec<FindingForm<'a>>,
}

#[derive(Serialize)]
struct CriterionForm<'a> {
    id: &'a str,
    text: &'a str,
    evidence: &'a [String],
}

#[derive(Serialize)]
struct IssueForm<'a> {
    id: &'a str,
    serves: Vec<&'a str>,
}

#[derive(Serialize)]
struct FindingForm<'a> {
    id: &'a str,
    blocking: bool,
    text: &'a str,
    resolution: &'a str,
}

#[derive(Serialize)]
struct StandingForm<'a> {
    intent: &'a str,
    criterion: &'a str,
    evidence: Vec<(&'a str, Option<String>)>,
}

/// sha256 hex over the served intents' statement, invariants, non-goals and criteria,
/// the resolved issues with what each serves, and every critique finding with its
/// resolution. Intents are taken in id order, issues in id order, `serves` as a set.
pub fn plan_revision(served: &[Served]) -> String {
    let mut forms: Vec<PlanForm> = served
        .iter()
        .map(|s| {
            let mut issues: Vec<IssueForm> = s
                .issues
                .iter()
                .map(|i| {
                    let mut serves: Vec<&str> = i.serves.iter().map(String::as_str).collect();
                    serves.sort_unstable();
                    serves.dedup();
                    IssueForm { id: &i.id, serves }
                })
                .collect();
            issues.sort_by(|a, b| a.id.cmp(b.id));
            issues.dedup_by(|a, b| a.id == b.id);
            PlanForm {
                id: &s.intent.id,
                statement: &s.intent.statement,
                invariants: &s.intent.invariants,
                non_goals: &s.intent.non_goals,
                criteria: s
                    .intent
                    .criteria
                    .iter()
                    .map(|c| CriterionForm {
                        id: &c.id,
                        text: &c.text,
                        evidence: &c.evidence,
                    })
                    .collect(),
                issues,
                findings: s
                    .intent
                    .critiques
                    .iter()
                    .flat_map(|c| &c.findings)
                    .map(|f| FindingForm {
                        id: &f.id,
                        blocking: f.blocking,
                        text: &f.text,
                        resolution: f.resolution.as_deref().unwrap_or(""),
                    })
                    .collect(),
            }
        })
        .collect();
    forms.sort_by(|a, b| a.id.cmp(b.id));
    pin("majordomus plan_revision v1", &forms)
}

/// The revision a critique of `intent` records and is compared against (SPEC §6): the
/// `plan_revision` form over the whole intent (every issue, as `intent binding --intent`
/// resolves them) with no critique findings, so a critique's own findings, and their
/// resolutions, never make it stale. Anything else `plan_revision` covers moves it.
pub fn critique_revision(intent: &Intent) -> String {
    let unreviewed = Intent {
        critiques: Vec::new(),
        ..intent.clone()
    };
    plan_revision(&[Served {
        intent: &unreviewed,
        issues: unreviewed.issues.iter().collect(),
    }])
}

/// sha256 hex over each served criterion's evidence refs, each paired with the state of
/// its target: for `file:` and `test:` refs the blob id `evidence` returns for the path
/// (an optional `:line` suffix stripped; `missing` when it returns none); other kinds
/// contribute the ref text alone. A criterion is served when a resolved issue serves it.
pub fn evidence_standing(served: &[Served], evidence: &dyn Fn(&str) -> Option<String>) -> String {
    let mut sorted: Vec<&Served> = served.iter().collect();
    sorted.sort_by(|a, b| a.intent.id.cmp(&b.intent.id));
    let mut forms = Vec::new();
    for s in sorted {
        for criterion in &s.intent.criteria {
            if !s.issues.iter().any(|i| i.serves.contains(&criterion.id)) {
                continue;
            }
            forms.push(StandingForm {
                intent: &s.intent.id,
                criterion: &criterion.id,
                evidence: criterion
                    .evidence
                    .iter()
                    .map(|r| (r.as_str(), evidence_state(r, evidence)))
                    .collect(),
            });
        }
    }
    pin("majordomus evidence_standing v1", &forms)
}

/// The blob id behind a `file:`/`test:` ref, `missing` when there is none; `None` for
/// other kinds, whose text is their whole state.
fn evidence_state(reference: &str, evidence: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let target = reference
        .strip_prefix("file:")
        .or_else(|| reference.strip_prefix("test:"))?;
    let path = match target.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => path,
        _ => target,
    };
    Some(evidence(path).unwrap_or_else(|| "missing".to_owned()))
}

fn pin<T: Serialize>(tag: &str, form: &T) -> String {
    let mut bytes = tag.as_bytes().to_vec();
    bytes.push(b'\n');
    serde_json::to_writer(&mut bytes, form).expect("the canonical forms are plain strings");
    sha256_hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intent::parse::parse_intent;

    const AUTH: &str = "\
id: auth
status: active
statement: Users sign in once.
invariants: [No password is stored in clear.]
non_goals: [SSO]
criteria:
  - id: c1
    text: Login works.
    evidence: [\"file:src/auth.rs:12\", \"test:tests/auth.rs\", \"commit:abc123\"]
  - id: c2
    text: Logout works.
    evidence: [\"file:src/logout.rs\"]
issues:
  - id: login
    title: Login form
    status: open
    paths: [\"src/auth/**\"]
    serves: [c1]
  - id: logout
    title: Logout
    status: open
    paths: [\"src/logout.rs\"]
    serves: [c2]
critiques:
  - commit: abc123
    findings:
      - id: f1
        blocking: true
        text: Rate limits?
        resolution: Added to c1.
";

    fn auth(edit: impl Fn(&str) -> String) -> Intent {
        parse_intent(&edit(AUTH), "auth.yaml").expect("the fixture parses")
    }

    fn login(intent: &Intent) -> Served<'_> {
        Served {
            intent,
            issues: vec![&intent.issues[0]],
        }
    }

    fn blobs(path: &str) -> Option<String> {
        Some(format!("blob-of-{path}"))
    }

    #[test]
    fn plan_revision_ignores_statuses_titles_formatting_and_other_issues() {
        let base = auth(str::to_owned);
        let pinned = plan_revision(&[login(&base)]);
        for edit in [
            AUTH.replacen("status: open", "status: done", 1),
            AUTH.replace("title: Login form", "title: The login form"),
            AUTH.replace(
                "paths: [\"src/auth/**\"]",
                "paths: [\"src/auth/**\", \"web/**\"]",
            ),
            AUTH.replace("serves: [c2]", "serves: [c1, c2]"),
            AUTH.replace(
                "statement: Users sign in once.",
                "statement: 'Users sign in once.'  # why",
            ),
            format!("# a comment\n{AUTH}\n"),
        ] {
            let edited = auth(|_| edit.clone());
            assert_eq!(plan_revision(&[login(&edited)]), pinned, "{edit}");
        }
    }

    #[test]
    fn plan_revision_moves_with_what_the_plan_says() {
        let base = auth(str::to_owned);
        let pinned = plan_revision(&[login(&base)]);
        for (what, from, to) in [
            ("statement", "Users sign in once.", "Users sign in twice."),
            (
                "criterion",
                "text: Logout works.",
                "text: Logout always works.",
            ),
            ("evidence ref", "test:tests/auth.rs", "test:tests/login.rs"),
            ("invariant", "No password", "No token"),
            ("non-goal", "[SSO]", "[SSO, LDAP]"),
            ("resolution", "Added to c1.", "Won't fix."),
            ("blocking", "blocking: true", "blocking: false"),
            ("served", "serves: [c1]", "serves: [c1, c2]"),
        ] {
            let edited = auth(|t| t.replace(from, to));
            assert_ne!(plan_revision(&[login(&edited)]), pinned, "{what}");
        }
        let unresolved = auth(|t| t.replace("        resolution: Added to c1.\n", ""));
        assert_ne!(
            plan_revision(&[login(&unresolved)]),
            pinned,
            "resolution removed"
        );
    }

    #[test]
    fn evidence_standing_follows_blob_ids_of_served_criteria_only() {
        let base = auth(str::to_owned);
        let pinned = evidence_standing(&[login(&base)], &blobs);
        assert_eq!(evidence_standing(&[login(&base)], &blobs), pinned);

        let moved = |path: &str| {
            Some(if path == "src/auth.rs" {
                "new-blob".to_owned()
            } else {
                format!("blob-of-{path}")
            })
        };
        assert_ne!(evidence_standing(&[login(&base)], &moved), pinned);

        let gone = |path: &str| (path != "tests/auth.rs").then(|| format!("blob-of-{path}"));
        assert_ne!(evidence_standing(&[login(&base)], &gone), pinned);

        // c2 is not served by `login`: its evidence does not count.
        let other = |path: &str| {
            Some(if path == "src/logout.rs" {
                "new-blob".to_owned()
            } else {
                format!("blob-of-{path}")
            })
        };
        assert_eq!(evidence_standing(&[login(&base)], &other), pinned);
    }

    #[test]
    fn evidence_lookups_strip_the_line_and_skip_other_kinds() {
        let asked = std::cell::RefCell::new(Vec::new());
        let base = auth(str::to_owned);
        evidence_standing(&[login(&base)], &|path: &str| {
            asked.borrow_mut().push(path.to_owned());
            None
        });
        assert_eq!(*asked.borrow(), ["src/auth.rs", "tests/auth.rs"]);
    }

    #[test]
    fn critique_revision_ignores_findings_and_moves_with_the_plan() {
        let base = auth(str::to_owned);
        let pinned = critique_revision(&base);
        for edit in [
            AUTH.replace("resolution: Added to c1.", "resolution: Won't fix."),
            AUTH.replace("blocking: true", "blocking: false"),
            AUTH.replace("commit: abc123", "commit: def456\n    plan_revision: x"),
            format!(
                "{AUTH}  - commit: def\n    findings: [{{id: f2, blocking: true, text: Why?}}]\n"
            ),
            AUTH.replacen("status: open", "status: active", 1),
        ] {
            let edited = auth(|_| edit.clone());
            assert_eq!(critique_revision(&edited), pinned, "{edit}");
        }
        for (from, to) in [
            ("text: Logout works.", "text: Logout always works."),
            (
                "statement: Users sign in once.",
                "statement: Users sign in twice.",
            ),
            ("serves: [c2]", "serves: [c1, c2]"),
        ] {
            let edited = auth(|t| t.replace(from, to));
            assert_ne!(critique_revision(&edited), pinned, "{from}");
        }
    }

    #[test]
    fn pins_are_stable_across_runs() {
        let base = auth(str::to_owned);
        insta::assert_snapshot!(plan_revision(&[login(&base)]), @"987920a7817d96288af2744b43dd06fb2df3692319dc5cf7f740399f5d43f229");
        insta::assert_snapshot!(plan_revision(&[]), @"86398008e56f0bf4e7e2702c8025227e8281b628e7a73b4b79c5dcdf3e5f1202");
    }
}
