//! Rule packages (SPEC §5.5): the declarations `doctor` runs (`id`, `severity`,
//! `description`, `drift`, `needs_policy`, `exceptions`), parsed strictly, and what changed between two
//! versions of a package. Which declared id has a check is the doctor's business.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::verdict::Severity;

/// The standard package shipped in `share/standard/rules/` and built into the binary.
pub const STANDARD_RULES: &str = include_str!("../../share/standard/rules/majordomus.yaml");

/// The standard package's file name, in `share/standard/rules/` and in the vendored copy.
pub const STANDARD_FILE: &str = "majordomus.yaml";

/// The project rule whose check is `reasoning check`, and the one rule that reads
/// `exceptions`.
pub const ADVISORS_ARE_OPTIONAL: &str = "project.advisors-are-optional";

/// One rule as a package declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleDecl {
    pub id: String,
    pub severity: Severity,
    pub description: String,
    /// `watch` reruns it.
    #[serde(default)]
    pub drift: bool,
    /// It reads the policy, so it cannot run while the policy is unreadable.
    #[serde(default)]
    pub needs_policy: bool,
    /// Files the rule's check leaves out, each with why: for
    /// `project.advisors-are-optional`, the code whose job is to name agent clients (the
    /// setup that installs their hooks, the hooks they call).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<RuleException>,
}

/// A declared exception to a rule: a path (a file, a directory, or a glob) and the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleException {
    pub path: String,
    pub because: String,
}

/// A rule file: `rules: [...]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Package {
    pub rules: Vec<RuleDecl>,
}

/// The file as written: `rules:` may be empty (a file whose last rule was removed).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PackageFile {
    rules: Option<Vec<RuleDecl>>,
}

/// Why a rule file was not accepted; each names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackageError {
    #[error(
        "{file}: unknown key `{key}`{at} (a rule has id, severity, description, drift, needs_policy, exceptions)"
    )]
    UnknownKey {
        file: String,
        key: String,
        at: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("{file}: rule `{id}` is declared twice in this file")]
    DuplicateId { file: String, id: String },
}

impl PackageError {
    /// The file the error names.
    pub fn file(&self) -> &str {
        match self {
            PackageError::UnknownKey { file, .. }
            | PackageError::Invalid { file, .. }
            | PackageError::DuplicateId { file, .. } => file,
        }
    }

    /// What is wrong, without the file's name (for a finding that names the file).
    pub fn reason(&self) -> String {
        let text = self.to_string();
        text.strip_prefix(&format!("{}: ", self.file()))
            .unwrap_or(&text)
            .to_owned()
    }
}

impl Package {
    /// Parses a rule file strictly: unknown keys, missing fields, wrong types and an id
    /// declared twice are refused, naming `file`.
    pub fn parse(text: &str, file: &str) -> Result<Package, PackageError> {
        // A file of nothing but comments declares no rule.
        if text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            return Ok(Package::default());
        }
        let parsed: PackageFile = yaml_serde::from_str(text).map_err(|e| {
            let message = e.to_string();
            match unknown_field(&message) {
                Some(key) => PackageError::UnknownKey {
                    file: file.to_owned(),
                    key,
                    at: e
                        .location()
                        .map(|l| format!(" at line {}", l.line()))
                        .unwrap_or_default(),
                },
                None => PackageError::Invalid {
                    file: file.to_owned(),
                    message,
                },
            }
        })?;
        let package = Package {
            rules: parsed.rules.unwrap_or_default(),
        };
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = package.rules.iter().find(|r| !seen.insert(r.id.as_str())) {
            return Err(PackageError::DuplicateId {
                file: file.to_owned(),
                id: twice.id.clone(),
            });
        }
        for rule in &package.rules {
            let invalid = |message: String| PackageError::Invalid {
                file: file.to_owned(),
                message,
            };
            if !rule.exceptions.is_empty() && rule.id != ADVISORS_ARE_OPTIONAL {
                // Silently ignored, an exception would look like it excused something.
                return Err(invalid(format!(
                    "rule `{}`: `exceptions` is read only by {ADVISORS_ARE_OPTIONAL}",
                    rule.id
                )));
            }
            if let Some(e) = rule
                .exceptions
                .iter()
                .find(|e| e.path.trim().is_empty() || e.because.trim().is_empty())
            {
                return Err(invalid(format!(
                    "rule `{}`: an exception names a path and says why (`because`); got path {:?}, because {:?}",
                    rule.id, e.path, e.because
                )));
            }
        }
        Ok(package)
    }

    /// The package built into this binary.
    pub fn standard() -> Package {
        Package::parse(STANDARD_RULES, STANDARD_FILE).expect("the shipped rule package parses")
    }

    pub fn rule(&self, id: &str) -> Option<&RuleDecl> {
        self.rules.iter().find(|r| r.id == id)
    }
}

/// The key serde named in an `unknown field `x`, expected ...` message.
fn unknown_field(message: &str) -> Option<String> {
    let rest = message.split("unknown field `").nth(1)?;
    Some(rest.split('`').next()?.to_owned())
}

/// What differs between two packages, by rule id (each list sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PackageChanges {
    /// Rules the new package declares and the old does not.
    pub added: Vec<String>,
    /// Rules the old package declares and the new does not.
    pub removed: Vec<String>,
    /// Rules both declare, with a different severity, description, drift or needs_policy.
    pub changed: Vec<String>,
}

impl PackageChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The rules `new` adds, removes and changes against `old`.
pub fn changes(old: &Package, new: &Package) -> PackageChanges {
    let old: BTreeMap<&str, &RuleDecl> = old.rules.iter().map(|r| (r.id.as_str(), r)).collect();
    let new: BTreeMap<&str, &RuleDecl> = new.rules.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = PackageChanges::default();
    for (id, rule) in &new {
        match old.get(id) {
            None => out.added.push((*id).to_owned()),
            Some(before) if before != rule => out.changed.push((*id).to_owned()),
            Some(_) => {}
        }
    }
    out.removed = old
        .keys()
        .filter(|id| !new.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = ".ai/repo/rules/project/team.yaml";

    #[test]
    fn the_standard_package_parses() {
        let package = Package::standard();
        assert!(package.rule("majordomus.knowledge-integrity").is_some());
        assert!(
            package
                .rules
                .iter()
                .all(|r| r.id.starts_with("majordomus."))
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_file_and_key() {
        let text = "rules:\n  - id: majordomus.ledger-health\n    severity: advisory\n    description: x\n    sevrity: blocking\n";
        let err = Package::parse(text, FILE).expect_err("refused");
        assert_eq!(
            err,
            PackageError::UnknownKey {
                file: FILE.into(),
                key: "sevrity".into(),
                at: " at line 5".into()
            }
        );
        assert!(err.to_string().starts_with(FILE), "{err}");
        let err = Package::parse("rule: []\n", FILE).expect_err("refused");
        assert!(
            matches!(&err, PackageError::UnknownKey { key, .. } if key == "rule"),
            "{err}"
        );
    }

    #[test]
    fn missing_fields_bad_values_and_repeats_are_refused() {
        let err = Package::parse("rules:\n  - id: a\n    severity: advisory\n", FILE)
            .expect_err("refused");
        assert!(err.to_string().contains("description"), "{err}");
        let err = Package::parse(
            "rules:\n  - id: a\n    severity: loud\n    description: x\n",
            FILE,
        )
        .expect_err("refused");
        assert!(err.to_string().contains("loud"), "{err}");
        let err = Package::parse("rules: [\n", FILE).expect_err("refused");
        assert!(err.to_string().starts_with(FILE), "{err}");
        let err = Package::parse(
            "rules:\n  - {id: a, severity: advisory, description: x}\n  - {id: a, severity: blocking, description: y}\n",
            FILE,
        )
        .expect_err("refused");
        assert_eq!(
            err,
            PackageError::DuplicateId {
                file: FILE.into(),
                id: "a".into()
            }
        );
    }

    #[test]
    fn exceptions_belong_to_advisors_are_optional_and_say_why() {
        let text = "rules:\n  - id: project.advisors-are-optional\n    severity: blocking\n    description: x\n    exceptions:\n      - {path: src/setup/, because: setup names the clients whose hooks it installs}\n";
        let package = Package::parse(text, FILE).expect("parses");
        assert_eq!(
            package.rules[0].exceptions,
            vec![RuleException {
                path: "src/setup/".into(),
                because: "setup names the clients whose hooks it installs".into()
            }]
        );
        let err = Package::parse(
            &text.replace(
                "because: setup names the clients whose hooks it installs",
                "because: \"\"",
            ),
            FILE,
        )
        .expect_err("an exception says why");
        assert!(err.to_string().contains("says why"), "{err}");
        let err = Package::parse(
            "rules:\n  - id: majordomus.ledger-health\n    severity: advisory\n    description: x\n    exceptions: [{path: src/, because: b}]\n",
            FILE,
        )
        .expect_err("no other rule reads exceptions");
        assert!(
            err.to_string()
                .contains("read only by project.advisors-are-optional"),
            "{err}"
        );
    }

    #[test]
    fn changes_are_named_by_id() {
        let old = Package::parse(
            "rules:\n  - {id: a, severity: advisory, description: x}\n  - {id: b, severity: advisory, description: x}\n  - {id: c, severity: advisory, description: x}\n",
            FILE,
        )
        .expect("parses");
        let new = Package::parse(
            "rules:\n  - {id: d, severity: advisory, description: x}\n  - {id: b, severity: blocking, description: x}\n  - {id: c, severity: advisory, description: x}\n",
            FILE,
        )
        .expect("parses");
        assert_eq!(
            Package::parse("# nothing yet\n", FILE),
            Ok(Package::default())
        );
        assert_eq!(Package::parse("rules:\n", FILE), Ok(Package::default()));
        assert_eq!(
            changes(&old, &new),
            PackageChanges {
                added: vec!["d".into()],
                removed: vec!["a".into()],
                changed: vec!["b".into()],
            }
        );
        assert!(changes(&new, &new).is_empty());
    }
}
