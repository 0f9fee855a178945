//! `reasoning check` (SPEC §7): in a repository that declares
//! `project.advisors-are-optional`, no provider-independent file names a catalogue
//! advisor, executable, vendor or model, and no CI workflow or gate (hook managers
//! included) names a model credential. Every tracked file is provider-independent but the
//! documentation, the catalogues, the rule files and the exceptions the rule declares
//! (the setup and hook code whose job is to name agent clients), each with its reason.
//! For adopters (who do not declare it) the checks do not run, and it says so.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{Finding, Severity};
use crate::model::Verdict;
use crate::model::rules::RuleException;

/// The project rule that makes advisors optional by construction.
pub const ADVISORS_ARE_OPTIONAL: &str = crate::model::rules::ADVISORS_ARE_OPTIONAL;

/// `reasoning.check` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ReasoningCheckRequest")]
pub struct CheckRequest {}

/// A declared exception and the tracked files it left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ExceptionUse {
    pub path: String,
    pub because: String,
    /// Tracked files it covers (an exception that covers none is said, never an error).
    pub files: usize,
}

/// What `reasoning check` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReasoningCheck {
    /// The repository declares `project.advisors-are-optional`.
    pub declared: bool,
    /// Provider-independent files read (CI and gate files not counted).
    pub sources: usize,
    /// CI workflow and gate files read (hook managers' files included).
    pub ci_files: usize,
    /// The rule's declared exceptions, with how many files each left out.
    pub exceptions: Vec<ExceptionUse>,
    pub findings: Vec<Finding>,
    /// Why the checks did not run (adopters).
    pub note: Option<String>,
}

impl ReasoningCheck {
    pub fn verdict(&self) -> Verdict {
        if self
            .findings
            .iter()
            .any(|f| f.severity == Severity::Blocking)
        {
            Verdict::Refused
        } else {
            Verdict::Pass
        }
    }
}

/// True when the effective rule set (the vendored package and the project's rule files,
/// as `doctor` reads them) declares the rule `id`.
pub fn declares(ctx: &Ctx, id: &str) -> Result<bool, Error> {
    Ok(crate::rules::rule_set(ctx)?
        .rules
        .iter()
        .any(|r| r.decl.id == id))
}

/// CI workflows and the gates a commit or push passes: where a model credential must never
/// be named. Hook managers' files are gates like a workflow (they run on every commit).
fn is_gate(path: &str) -> bool {
    const DIRECTORIES: [&str; 10] = [
        ".github/workflows/",
        ".github/actions/",
        ".circleci/",
        ".buildkite/",
        ".ci/",
        ".woodpecker/",
        // Hook managers: husky, lefthook's script folder, a `core.hooksPath` folder.
        ".husky/",
        ".lefthook/",
        ".githooks/",
        ".git-hooks/",
    ];
    const FILES: [&str; 20] = [
        ".gitlab-ci.yml",
        "azure-pipelines.yml",
        "Jenkinsfile",
        ".travis.yml",
        "bitbucket-pipelines.yml",
        ".drone.yml",
        ".woodpecker.yml",
        "appveyor.yml",
        ".appveyor.yml",
        // Hook managers: the pre-commit framework, lefthook, overcommit, simple-git-hooks.
        ".pre-commit-config.yaml",
        ".pre-commit-config.yml",
        ".pre-commit-hooks.yaml",
        "lefthook.yml",
        "lefthook.yaml",
        ".lefthook.yml",
        ".lefthook.yaml",
        "lefthook-local.yml",
        "lefthook-local.yaml",
        ".overcommit.yml",
        ".simple-git-hooks.json",
    ];
    DIRECTORIES.iter().any(|d| path.starts_with(d)) || FILES.contains(&path)
}

/// Documentation: prose about the product, which may name what it supports. The
/// repository's memory under `.ai/repo/` is not documentation, whatever its extension.
fn is_documentation(path: &str) -> bool {
    if path.starts_with(".ai/") {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let upper = name.to_ascii_uppercase();
    path.starts_with("docs/")
        || path.starts_with("doc/")
        || [".md", ".markdown", ".rst", ".adoc"]
            .iter()
            .any(|ext| name.to_ascii_lowercase().ends_with(ext))
        || [
            "LICENSE",
            "LICENCE",
            "COPYING",
            "NOTICE",
            "CHANGELOG",
            "AUTHORS",
        ]
        .iter()
        .any(|stem| upper == *stem || upper.starts_with(&format!("{stem}.")))
}

/// What names advisors by design: a catalogue, and the rule files (which may list the
/// exceptions by name).
fn names_advisors_by_design(path: &str) -> bool {
    path.rsplit('/').next() == Some("advisors.yaml") || path.starts_with(".ai/repo/rules/")
}

/// Whole-word occurrences of `needle` in `line`.
fn names(line: &str, needle: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    line.match_indices(needle).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + needle.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The declared exceptions of `project.advisors-are-optional` in the effective rule set.
fn declared_exceptions(ctx: &Ctx) -> Result<Vec<RuleException>, Error> {
    Ok(crate::rules::rule_set(ctx)?
        .rules
        .into_iter()
        .filter(|r| r.decl.id == ADVISORS_ARE_OPTIONAL)
        .flat_map(|r| r.decl.exceptions)
        .collect())
}

/// `majordomus reasoning check`.
pub fn check(ctx: &Ctx, _request: CheckRequest) -> Result<ReasoningCheck, Error> {
    if !declares(ctx, ADVISORS_ARE_OPTIONAL)? {
        return Ok(ReasoningCheck {
            declared: false,
            sources: 0,
            ci_files: 0,
            exceptions: Vec::new(),
            findings: Vec::new(),
            note: Some(format!(
                "this repository does not declare {ADVISORS_ARE_OPTIONAL}: as an adopter's, its sources and CI are not checked for advisor names or model credentials"
            )),
        });
    }
    let (catalogue, _) = super::catalogue(ctx)?;
    let mut needles: Vec<(&'static str, String)> = Vec::new();
    let mut credentials: Vec<String> = Vec::new();
    for advisor in &catalogue.advisors {
        needles.push(("advisor", advisor.id.clone()));
        needles.extend(advisor.executable.clone().map(|e| ("executable", e)));
        needles.extend(advisor.provider.clone().map(|p| ("vendor", p)));
        needles.extend(advisor.model.clone().map(|m| ("model", m)));
        credentials.extend(advisor.credential.clone());
    }
    needles.retain(|(_, n)| n.len() >= 3);
    needles.sort();
    needles.dedup();
    let mut exceptions: Vec<ExceptionUse> = declared_exceptions(ctx)?
        .into_iter()
        .map(|e| ExceptionUse {
            path: e.path,
            because: e.because,
            files: 0,
        })
        .collect();
    let mut findings = Vec::new();
    let mut sources = 0;
    let mut ci_files = 0;
    for path in ctx.repo.tracked_files_under("")? {
        let gate = is_gate(&path);
        // A gate is never excepted: CI never contacts a model, whatever else it may name.
        let excepted = exceptions
            .iter_mut()
            .find(|e| crate::model::task::in_scope(std::slice::from_ref(&e.path), &path));
        let independent =
            !is_documentation(&path) && !names_advisors_by_design(&path) && excepted.is_none();
        if let Some(e) = excepted {
            e.files += 1;
        }
        if !gate && !independent {
            continue;
        }
        let full = ctx.layout.root().join(&path);
        // A binary file, or one deleted from the work tree, has no line to name anything.
        let Ok(text) = std::fs::read_to_string(&full) else {
            continue;
        };
        if gate {
            ci_files += 1;
        } else {
            sources += 1;
        }
        for (number, line) in text.lines().enumerate() {
            if independent {
                for (kind, needle) in &needles {
                    if names(line, needle) {
                        findings.push(Finding {
                            informational: false,
                            file: format!("{path}:{}", number + 1),
                            rule: "reasoning.provider-independent".into(),
                            severity: Severity::Blocking,
                            message: format!(
                                "names the catalogue {kind} `{needle}`; advisors are optional, so provider-independent code and memory never name one"
                            ),
                            fix: format!(
                                "edit {path}: refer to a capability (e.g. independent_reasoning) instead of `{needle}`; advisors belong in advisors.yaml (code whose job is to name agent clients is listed under the rule's `exceptions` with why: docs/RULES.md)"
                            ),
                        });
                    }
                }
            }
            if gate {
                for credential in &credentials {
                    if names(line, credential) {
                        findings.push(Finding {
                            informational: false,
                            file: format!("{path}:{}", number + 1),
                            rule: "reasoning.ci-credential".into(),
                            severity: Severity::Blocking,
                            message: format!(
                                "names the model credential `{credential}`; CI and gates never contact a model"
                            ),
                            fix: format!("edit {path}: remove `{credential}` from it"),
                        });
                    }
                }
            }
        }
    }
    findings.sort();
    Ok(ReasoningCheck {
        declared: true,
        sources,
        ci_files,
        exceptions,
        findings,
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_managers_are_gates_like_ci() {
        for gate in [
            ".github/workflows/ci.yml",
            ".husky/pre-commit",
            ".husky/_/husky.sh",
            ".pre-commit-config.yaml",
            "lefthook.yml",
            ".lefthook/pre-push/check.sh",
            ".githooks/pre-push",
            ".gitlab-ci.yml",
        ] {
            assert!(is_gate(gate), "{gate}");
        }
        for other in [
            "src/ci.rs",
            "hooks/pre-push",
            "docs/.husky.md",
            "x/lefthook.yml",
        ] {
            assert!(!is_gate(other), "{other}");
        }
    }

    #[test]
    fn documentation_is_prose_outside_the_memory() {
        for doc in [
            "docs/A.txt",
            "README.md",
            "src/README.md",
            "LICENSE",
            "CHANGELOG.md",
        ] {
            assert!(is_documentation(doc), "{doc}");
        }
        for source in [
            "src/lib.rs",
            "tests/cli/setup.rs",
            ".ai/repo/knowledge/curated/x.md",
            "fixtures/field.sh",
            "Cargo.toml",
        ] {
            assert!(!is_documentation(source), "{source}");
        }
        assert!(names_advisors_by_design("share/advisors.yaml"));
        assert!(names_advisors_by_design(".ai/repo/advisors.yaml"));
        assert!(!names_advisors_by_design("src/my-advisors.yaml"));
    }

    #[test]
    fn names_are_whole_words() {
        assert!(names("run oracle now", "oracle"));
        assert!(!names("oracle-cli", "oracle"));
        assert!(!names("oracle_key", "oracle"));
        assert!(names("provider: oracle-cli", "oracle-cli"));
    }
}
