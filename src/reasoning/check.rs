//! `reasoning check` (SPEC §7): in a repository that declares
//! `project.advisors-are-optional`, no provider-independent source names a catalogue
//! advisor, executable, vendor or model, and no CI workflow or gate names a model
//! credential. For adopters (who do not declare it) the checks do not run, and it says so.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{Finding, Severity};
use crate::model::Verdict;

/// The project rule that makes advisors optional by construction.
pub const ADVISORS_ARE_OPTIONAL: &str = "project.advisors-are-optional";

/// `reasoning.check` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {}

/// What `reasoning check` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReasoningCheck {
    /// The repository declares `project.advisors-are-optional`.
    pub declared: bool,
    /// Provider-independent sources read.
    pub sources: usize,
    /// CI workflow and gate files read.
    pub ci_files: usize,
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

/// CI workflows and gates: where a model credential must never be named.
fn is_ci_file(path: &str) -> bool {
    path.starts_with(".github/workflows/")
        || path.starts_with(".circleci/")
        || path.starts_with(".buildkite/")
        || path.starts_with(".ci/")
        || matches!(
            path,
            ".gitlab-ci.yml" | "azure-pipelines.yml" | "Jenkinsfile" | ".travis.yml"
        )
}

/// Provider-independent sources: the code and the repository's memory, but not the
/// catalogues (whose job is to name advisors) nor documentation.
fn is_independent_source(path: &str) -> bool {
    (path.starts_with("src/") || path.starts_with(".ai/repo/"))
        && !path.ends_with("advisors.yaml")
        && !path.starts_with(".ai/repo/rules/")
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

/// `majordomus reasoning check`.
pub fn check(ctx: &Ctx, _request: CheckRequest) -> Result<ReasoningCheck, Error> {
    ctx.require_initialised()?;
    if !declares(ctx, ADVISORS_ARE_OPTIONAL)? {
        return Ok(ReasoningCheck {
            declared: false,
            sources: 0,
            ci_files: 0,
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
    let mut findings = Vec::new();
    let mut sources = 0;
    let mut ci_files = 0;
    for path in ctx.repo.tracked_files_under("")? {
        let ci = is_ci_file(&path);
        let independent = is_independent_source(&path);
        if !ci && !independent {
            continue;
        }
        let full = ctx.layout.root().join(&path);
        let Ok(text) = std::fs::read_to_string(&full) else {
            continue;
        };
        if ci {
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
                                "edit {path}: refer to a capability (e.g. independent_reasoning) instead of `{needle}`; advisors belong in advisors.yaml"
                            ),
                        });
                    }
                }
            }
            if ci {
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
                            fix: format!("edit {path}: remove `{credential}` from the workflow"),
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
        findings,
        note: None,
    })
}
