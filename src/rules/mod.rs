//! The rule set `doctor` runs (SPEC §5.5): the vendored standard package
//! (`.ai/repo/rules/vendor/majordomus.yaml`, or the package built into the binary when
//! nothing is vendored) plus the project's rule files (`.ai/repo/rules/project/*.yaml`);
//! and `rules vendor update`, which refreshes the vendored copy from the binary.
//!
//! A project file uses the package's format. A project rule whose id the package also
//! declares replaces that declaration (a project may make a rule blocking, say); an id
//! declared in two project files is a finding, and the first file (by name) wins.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{Finding, Severity};
use crate::model::rules::{Package, PackageChanges, RuleDecl, STANDARD_RULES, changes};
use crate::store::rules::{RuleFile, project_files, vendored};
use crate::store::{WriteOutcome, write_atomic};

/// Where the package part of the rule set came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum PackageSource {
    /// The vendored copy, tracked in the repository.
    Vendored { file: String },
    /// The package built into this binary: nothing is vendored, or the vendored copy
    /// cannot be read.
    Embedded,
}

/// One rule of the effective set and the file that declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredRule {
    pub decl: RuleDecl,
    /// The file that declares it, relative to the root (`share/standard/rules/...` for
    /// the built-in package).
    pub file: String,
    /// The package file whose declaration of the same id this one replaces.
    pub replaces: Option<String>,
}

/// The effective rule set, with what is wrong with its files.
#[derive(Debug, Clone)]
pub struct RuleSet {
    pub rules: Vec<DeclaredRule>,
    pub package: PackageSource,
    /// Unreadable files (`rules.readable`) and ids declared in two project files
    /// (`rules.unique`): blocking.
    pub findings: Vec<Finding>,
    /// Facts worth saying: where the package came from, how it differs from the binary's.
    pub notes: Vec<String>,
}

/// Where the built-in package is named in messages.
const EMBEDDED_NAME: &str = "share/standard/rules/majordomus.yaml (built into majordomus)";

/// Reads the effective rule set: the vendored package (the built-in one when nothing is
/// vendored or the copy cannot be read, and said) and the project's rule files.
pub fn rule_set(ctx: &Ctx) -> Result<RuleSet, Error> {
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let standard = Package::standard();
    let (package, source, package_file) = match vendored(&ctx.layout)? {
        None => {
            notes.push(format!(
                "nothing is vendored ({} is missing): ran the package built into majordomus {}; `majordomus rules vendor update` vendors it",
                ctx.layout.display(&ctx.layout.vendored_rules()),
                env!("CARGO_PKG_VERSION")
            ));
            (standard, PackageSource::Embedded, EMBEDDED_NAME.to_owned())
        }
        Some(file) => match Package::parse(&file.text, &file.path) {
            Ok(package) => {
                let drift = changes(&package, &standard);
                if !drift.is_empty() {
                    notes.push(format!(
                        "the vendored package differs from the one built into majordomus {} ({}): `majordomus rules vendor update` brings it to this version",
                        env!("CARGO_PKG_VERSION"),
                        describe(&drift, "this version")
                    ));
                }
                let source = PackageSource::Vendored {
                    file: file.path.clone(),
                };
                (package, source, file.path)
            }
            Err(e) => {
                findings.push(unreadable(
                    &file,
                    e.reason(),
                    "majordomus rules vendor update".into(),
                ));
                notes.push(format!(
                    "the vendored package cannot be read: ran the package built into majordomus {} instead",
                    env!("CARGO_PKG_VERSION")
                ));
                (standard, PackageSource::Embedded, EMBEDDED_NAME.to_owned())
            }
        },
    };
    let mut rules: Vec<DeclaredRule> = package
        .rules
        .into_iter()
        .map(|decl| DeclaredRule {
            decl,
            file: package_file.clone(),
            replaces: None,
        })
        .collect();
    let package_ids = rules.len();
    for file in project_files(&ctx.layout)? {
        let project = match Package::parse(&file.text, &file.path) {
            Ok(p) => p,
            Err(e) => {
                findings.push(unreadable(
                    &file,
                    e.reason(),
                    format!(
                        "correct {} (a rule has id, severity, description and optional drift, needs_policy, exceptions: docs/RULES.md), or remove it",
                        file.path
                    ),
                ));
                continue;
            }
        };
        for decl in project.rules {
            let at = rules.iter().position(|r| r.decl.id == decl.id);
            match at {
                Some(n) if n < package_ids && rules[n].replaces.is_none() => {
                    let replaced = std::mem::replace(&mut rules[n].file, file.path.clone());
                    rules[n].decl = decl;
                    rules[n].replaces = Some(replaced);
                }
                Some(n) => findings.push(Finding {
                    informational: false,
                    file: file.path.clone(),
                    rule: "rules.unique".into(),
                    severity: Severity::Blocking,
                    message: format!(
                        "rule `{}` is already declared in {}; the first declaration is the one run",
                        decl.id, rules[n].file
                    ),
                    fix: format!(
                        "declare `{}` in one project file only: remove it from {}",
                        decl.id, file.path
                    ),
                }),
                None => rules.push(DeclaredRule {
                    decl,
                    file: file.path.clone(),
                    replaces: None,
                }),
            }
        }
    }
    Ok(RuleSet {
        rules,
        package: source,
        findings,
        notes,
    })
}

fn unreadable(file: &RuleFile, message: String, fix: String) -> Finding {
    Finding {
        informational: false,
        file: file.path.clone(),
        rule: "rules.readable".into(),
        severity: Severity::Blocking,
        message,
        fix,
    }
}

/// `rules added a, b; removed c; changed d` against `what`.
fn describe(c: &PackageChanges, what: &str) -> String {
    let mut parts = Vec::new();
    for (verb, ids) in [
        ("adds", &c.added),
        ("removes", &c.removed),
        ("changes", &c.changed),
    ] {
        if !ids.is_empty() {
            parts.push(format!("{what} {verb} {}", ids.join(", ")));
        }
    }
    parts.join("; ")
}

/// `rules.vendor-update` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VendorUpdateRequest {}

/// What the vendored copy was before the update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Previous {
    /// Nothing was vendored.
    Missing,
    /// A package that parsed.
    Readable,
    /// A file that did not parse (its rules cannot be compared).
    Unreadable,
}

/// What `rules vendor update` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VendorUpdated {
    /// The vendored file, relative to the root.
    pub file: String,
    /// `written`, or `unchanged` when it already held the binary's package.
    pub write: WriteOutcome,
    /// The majordomus version whose package is now vendored.
    pub version: String,
    pub previous: Previous,
    /// Why the previous copy could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_error: Option<String>,
    /// Rules added, removed and changed, by id, against the previous copy (none when it
    /// could not be read).
    #[serde(flatten)]
    pub changes: PackageChanges,
}

/// `majordomus rules vendor update`: writes the package built into this binary to
/// `.ai/repo/rules/vendor/majordomus.yaml` (through the atomic writer; `unchanged` when it
/// already holds it) and says which rules that adds, removes and changes.
pub fn vendor_update(ctx: &Ctx, _request: VendorUpdateRequest) -> Result<VendorUpdated, Error> {
    let path = ctx.layout.vendored_rules();
    let standard = Package::standard();
    let (previous, previous_error, changes) = match vendored(&ctx.layout)? {
        None => (
            Previous::Missing,
            None,
            changes(&Package { rules: Vec::new() }, &standard),
        ),
        Some(file) => match Package::parse(&file.text, &file.path) {
            Ok(old) => (Previous::Readable, None, changes(&old, &standard)),
            // Nothing to compare against: the report says the copy was unreadable.
            Err(e) => (
                Previous::Unreadable,
                Some(e.reason()),
                PackageChanges::default(),
            ),
        },
    };
    let write = write_atomic(&path, STANDARD_RULES.as_bytes())?;
    Ok(VendorUpdated {
        file: ctx.layout.display(&path),
        write,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        previous,
        previous_error,
        changes,
    })
}
