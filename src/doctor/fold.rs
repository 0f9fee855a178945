//! Folding: one finding a rule repeats over many files becomes one finding with the count,
//! the files and one fix (docs/RULES.md, "Folded findings").

use schemars::JsonSchema;
use serde::Serialize;

use crate::knowledge::Finding;
use crate::model::shell::quote;

/// Commands that take a directory for the untracked files under it: findings whose fix is
/// one of them applied to the finding's own file fold into one applied to their common
/// directory.
const DIRECTORY_COMMANDS: &[&str] = &["git add "];

/// One finding of a rule; when it folds several, `folded` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RuleFinding {
    #[serde(flatten)]
    pub finding: Finding,
    /// Present when this finding stands for several of the same rule, message and fix
    /// shape: then `file` is their common directory and `fix` covers them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded: Option<Folded>,
}

/// The findings one folded finding stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Folded {
    /// How many findings it folds (at least 2).
    pub count: usize,
    /// Their files, in the order the rule found them.
    pub files: Vec<String>,
}

impl RuleFinding {
    /// The message, followed by the files it folds (named under its directory).
    pub fn said(&self) -> String {
        let Some(folded) = &self.folded else {
            return self.finding.message.clone();
        };
        let names: Vec<&str> = folded
            .files
            .iter()
            .map(|f| {
                Some(self.finding.file.as_str())
                    .filter(|dir| dir.ends_with('/'))
                    .and_then(|dir| f.strip_prefix(dir))
                    .unwrap_or(f)
            })
            .collect();
        format!(
            "{} ({} files: {})",
            self.finding.message,
            folded.count,
            names.join(", ")
        )
    }
}

impl From<Finding> for RuleFinding {
    fn from(finding: Finding) -> RuleFinding {
        RuleFinding {
            finding,
            folded: None,
        }
    }
}

/// `findings` with every group of two or more that share their rule, severity, message and
/// a directory command as fix (`git add <its file>`) folded into one, where the group's
/// first finding stood.
pub(super) fn fold(findings: Vec<Finding>) -> Vec<RuleFinding> {
    let mut out: Vec<(RuleFinding, Option<&'static str>)> = Vec::new();
    for finding in findings {
        let command = DIRECTORY_COMMANDS
            .iter()
            .copied()
            .find(|c| finding.fix.strip_prefix(c) == Some(finding.file.as_str()));
        let same = command.and_then(|command| {
            out.iter_mut().find(|(f, c)| {
                *c == Some(command)
                    && (
                        &f.finding.rule,
                        f.finding.severity,
                        f.finding.informational,
                        &f.finding.message,
                    ) == (
                        &finding.rule,
                        finding.severity,
                        finding.informational,
                        &finding.message,
                    )
            })
        });
        match same {
            Some((first, _)) => first
                .folded
                .get_or_insert_with(|| Folded {
                    count: 1,
                    files: vec![first.finding.file.clone()],
                })
                .files
                .push(finding.file),
            None => out.push((finding.into(), command)),
        }
    }
    out.into_iter()
        .map(|(mut f, command)| {
            if let (Some(folded), Some(command)) = (&mut f.folded, command) {
                folded.count = folded.files.len();
                let dir = common_dir(&folded.files);
                if dir.is_empty() {
                    // Nothing narrower than the work tree holds them all: name each.
                    let each: Vec<_> = folded.files.iter().map(|p| quote(p)).collect();
                    f.finding.file = ".".to_owned();
                    f.finding.fix = format!("{command}{}", each.join(" "));
                } else {
                    f.finding.fix = format!("{command}{}", quote(&dir));
                    f.finding.file = format!("{dir}/");
                }
            }
            f
        })
        .collect()
}

/// The deepest directory (`a/b`, no trailing slash) holding every one of `files`; empty
/// when only the work tree does.
fn common_dir(files: &[String]) -> String {
    let mut common: Option<Vec<&str>> = None;
    for file in files {
        let mut parts: Vec<&str> = file.trim_end_matches('/').split('/').collect();
        parts.pop();
        common = Some(match common {
            None => parts,
            Some(c) => c
                .into_iter()
                .zip(parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Severity;

    fn finding(file: &str, message: &str, fix: &str) -> Finding {
        Finding {
            file: file.to_owned(),
            rule: "majordomus.candidates-reviewed".to_owned(),
            severity: Severity::Advisory,
            message: message.to_owned(),
            fix: fix.to_owned(),
            informational: false,
        }
    }

    fn untracked(file: &str) -> Finding {
        finding(
            file,
            "git does not track this candidate",
            &format!("git add {file}"),
        )
    }

    #[test]
    fn untracked_files_fold_into_one_add_of_their_directory_where_the_first_stood() {
        let dir = ".ai/repo/knowledge/candidates";
        let aged = finding(&format!("{dir}/a.md"), "awaiting review", "promote a");
        let folded = fold(vec![
            aged.clone(),
            untracked(&format!("{dir}/a.md")),
            untracked(&format!("{dir}/b.md")),
            untracked(&format!("{dir}/c.md")),
        ]);
        assert_eq!(folded.len(), 2);
        assert_eq!(folded[0], RuleFinding::from(aged));
        let f = &folded[1];
        assert_eq!(f.finding.file, format!("{dir}/"));
        assert_eq!(f.finding.fix, format!("git add {dir}"));
        assert_eq!(f.folded.as_ref().map(|f| f.count), Some(3));
        assert_eq!(
            f.said(),
            "git does not track this candidate (3 files: a.md, b.md, c.md)"
        );
    }

    #[test]
    fn one_finding_and_other_fix_shapes_stay_as_they_are() {
        let one = vec![untracked("a/b.md")];
        assert_eq!(
            fold(one.clone()),
            one.into_iter().map(RuleFinding::from).collect::<Vec<_>>()
        );
        let ids = vec![
            finding("a/1.md", "stale", "majordomus knowledge reverify 1"),
            finding("a/2.md", "stale", "majordomus knowledge reverify 2"),
        ];
        assert_eq!(fold(ids).len(), 2);
    }

    #[test]
    fn files_in_sibling_directories_fold_into_their_parent_and_at_the_root_each_is_named() {
        let f = fold(vec![
            untracked(".ai/repo/sessions/s.md"),
            untracked(".ai/repo/knowledge/candidates/c.md"),
        ]);
        assert_eq!(f[0].finding.fix, "git add .ai/repo");
        let f = fold(vec![untracked("a.md"), untracked("b/c.md")]);
        assert_eq!(f[0].finding.fix, "git add a.md b/c.md");
        assert_eq!(f[0].finding.file, ".");
    }
}
