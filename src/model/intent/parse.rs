//! Strict reading of intent files and `milestones.yaml` into a [`Plan`]: unknown keys,
//! missing fields, wrong types and inconsistent references are refused, each error naming
//! the file and the key path.

use std::collections::HashMap;

use rayon::prelude::*;
use yaml_serde::{Mapping, Value};

use super::paths::check_glob;
use super::{Criterion, Critique, Finding, Intent, IntentStatus, Issue, IssueStatus, Milestone};

/// The file under `.ai/repo/intents/` that lists maintenance paths, not an intent.
pub const MILESTONES_FILE: &str = "milestones.yaml";
/// The milestones file's stem: `milestones.yaml` or `milestones.yml`.
const MILESTONES_STEM: &str = "milestones";

/// One file of the intents directory as the caller read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// The path as errors should name it, e.g. `.ai/repo/intents/auth.yaml`.
    pub path: String,
    pub text: String,
}

/// What the binding judges: the plan, or why there is none to judge.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanInput {
    /// No intents directory, or one holding no intent and no milestones.
    NoPlan,
    /// At least one file could not be read as SPEC §6 describes; one error per file.
    Unreadable(Vec<PlanError>),
    Plan(Plan),
}

/// Every intent (sorted by id) and every milestone's maintenance paths.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub intents: Vec<Intent>,
    pub milestones: Vec<Milestone>,
}

/// Why a plan file was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("{file}: line {line}, column {column}: malformed YAML: {message}")]
    Malformed {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {key}: unknown key")]
    UnknownKey { file: String, key: String },
    #[error("{file}: {key}: missing required field")]
    MissingField { file: String, key: String },
    #[error("{file}: {key}: must be {expected}")]
    InvalidValue {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: id: `{id}` must equal the file name's stem `{stem}`")]
    IdNotFileStem {
        file: String,
        id: String,
        stem: String,
    },
    #[error("{file}: {key}: `{id}` repeats {first}")]
    DuplicateId {
        file: String,
        key: String,
        id: String,
        first: String,
    },
    #[error("{file}: {key}: `{criterion}` names no criterion of this intent")]
    DanglingServes {
        file: String,
        key: String,
        criterion: String,
    },
    #[error("{file}: {key}: `{glob}` is not a valid glob: {message}")]
    BadGlob {
        file: String,
        key: String,
        glob: String,
        message: String,
    },
    #[error("{file}: {key}: issue `{id}` is also declared in {other}")]
    IssueInTwoIntents {
        file: String,
        key: String,
        id: String,
        other: String,
    },
}

/// From this many files on, the plan's files parse in parallel.
const PARALLEL_FROM: usize = 64;

/// One file, parsed on its own.
enum Parsed {
    Intent(Result<Intent, PlanError>),
    Milestones(Result<Vec<Milestone>, PlanError>),
}

impl PlanInput {
    /// Reads the plan from the files of `.ai/repo/intents/` (`None`: no such directory).
    /// Every file but [`MILESTONES_FILE`] is an intent named by its stem.
    pub fn read(files: Option<&[PlanFile]>) -> PlanInput {
        let Some(files) = files else {
            return PlanInput::NoPlan;
        };
        if files.is_empty() {
            return PlanInput::NoPlan;
        }
        let mut files: Vec<&PlanFile> = files.iter().collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        // Parsing YAML is nearly all a binding costs; each file parses on its own, so a
        // large plan spreads over the cores. The checks across files follow, in order.
        let parse = |file: &&PlanFile| {
            if stem(file_name(&file.path)) == MILESTONES_STEM {
                Parsed::Milestones(parse_milestones(&file.text, &file.path))
            } else {
                Parsed::Intent(parse_intent(&file.text, &file.path))
            }
        };
        let parsed: Vec<Parsed> = if files.len() < PARALLEL_FROM {
            files.iter().map(parse).collect()
        } else {
            files.par_iter().map(parse).collect()
        };
        let mut plan = Plan::default();
        let mut errors = Vec::new();
        let mut declared: HashMap<String, String> = HashMap::new();
        let mut intent_files: HashMap<String, String> = HashMap::new();
        for (file, parsed) in files.into_iter().zip(parsed) {
            let intent = match parsed {
                Parsed::Milestones(Ok(milestones)) => {
                    plan.milestones.extend(milestones);
                    continue;
                }
                Parsed::Intent(Ok(intent)) => intent,
                Parsed::Milestones(Err(e)) | Parsed::Intent(Err(e)) => {
                    errors.push(e);
                    continue;
                }
            };
            // `auth.yaml` beside `auth.yml`: one intent in two files, each named.
            if let Some(first) = intent_files.get(&intent.id) {
                errors.push(PlanError::DuplicateId {
                    file: file.path.clone(),
                    key: "id".to_owned(),
                    id: intent.id.clone(),
                    first: format!("the intent of {first}"),
                });
                continue;
            }
            intent_files.insert(intent.id.clone(), file.path.clone());
            let twice = intent.issues.iter().enumerate().find_map(|(i, issue)| {
                declared
                    .get(&issue.id)
                    .map(|other| PlanError::IssueInTwoIntents {
                        file: file.path.clone(),
                        key: format!("issues[{i}].id"),
                        id: issue.id.clone(),
                        other: other.clone(),
                    })
            });
            if let Some(e) = twice {
                errors.push(e);
                continue;
            }
            for issue in &intent.issues {
                declared.insert(issue.id.clone(), file.path.clone());
            }
            plan.intents.push(intent);
        }
        if !errors.is_empty() {
            return PlanInput::Unreadable(errors);
        }
        plan.intents.sort_by(|a, b| a.id.cmp(&b.id));
        PlanInput::Plan(plan)
    }
}

impl Plan {
    pub fn intent(&self, id: &str) -> Option<&Intent> {
        self.intents.iter().find(|i| i.id == id)
    }

    /// The issue with this id and the intent that declares it.
    pub fn issue(&self, id: &str) -> Option<(&Intent, &Issue)> {
        self.intents.iter().find_map(|intent| {
            intent
                .issues
                .iter()
                .find(|i| i.id == id)
                .map(|i| (intent, i))
        })
    }
}

/// Parses one intent file; `file` names it in errors and its stem must equal the `id`.
pub fn parse_intent(text: &str, file: &str) -> Result<Intent, PlanError> {
    let intent = parse_intent_content(text, file)?;
    let stem = stem(file_name(file));
    if intent.id != stem {
        return Err(PlanError::IdNotFileStem {
            file: file.to_owned(),
            id: intent.id,
            stem: stem.to_owned(),
        });
    }
    Ok(intent)
}

/// Parses `milestones.yaml`: `milestones: [{id, paths[]}]`.
pub fn parse_milestones(text: &str, file: &str) -> Result<Vec<Milestone>, PlanError> {
    let text = without_bom(text);
    let r = Reader { file };
    let root = r.document(text)?;
    let map = r.fields(&root, "", &["milestones"], "a mapping with `milestones`")?;
    let list = r.sequence(r.required(map, "", "milestones")?, "milestones")?;
    let mut milestones: Vec<Milestone> = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let at = format!("milestones[{i}]");
        let m = r.fields(
            item,
            &at,
            &["id", "paths"],
            "a mapping with `id` and `paths`",
        )?;
        let id = r.name(r.required(m, &at, "id")?, &join(&at, "id"))?;
        r.unique(milestones.iter().map(|m| &m.id), &id, &at, "milestones")?;
        let paths = r.globs(r.required(m, &at, "paths")?, &join(&at, "paths"))?;
        milestones.push(Milestone { id, paths });
    }
    Ok(milestones)
}

/// Everything [`parse_intent`] checks except the file stem (the `plan start` edit checks
/// its result without knowing the file's name): the typed fast path when it can vouch for
/// the file, else the strict reader, which names what is wrong.
pub(super) fn parse_intent_content(text: &str, file: &str) -> Result<Intent, PlanError> {
    let text = without_bom(text);
    match super::fast::parse_intent(text) {
        Some(intent) => Ok(intent),
        None => parse_intent_strictly(text, file),
    }
}

/// The strict reader: the file as a YAML value tree, walked key by key so every error
/// names the file and the key path.
pub(super) fn parse_intent_strictly(text: &str, file: &str) -> Result<Intent, PlanError> {
    let r = Reader { file };
    let root = r.document(text)?;
    let map = r.fields(
        &root,
        "",
        &[
            "id",
            "status",
            "statement",
            "invariants",
            "non_goals",
            "criteria",
            "issues",
            "critiques",
        ],
        "a mapping with id, status, statement, criteria and issues",
    )?;
    let id = r.name(r.required(map, "", "id")?, "id")?;
    let status = match r.required(map, "", "status")?.as_str() {
        Some("active") => IntentStatus::Active,
        Some("retired") => IntentStatus::Retired,
        _ => return Err(r.invalid("status", "one of active, retired")),
    };
    let statement = r.name(r.required(map, "", "statement")?, "statement")?;
    let invariants = r.optional_strings(map, "invariants")?;
    let non_goals = r.optional_strings(map, "non_goals")?;

    let mut criteria: Vec<Criterion> = Vec::new();
    for (i, item) in r
        .sequence(r.required(map, "", "criteria")?, "criteria")?
        .iter()
        .enumerate()
    {
        let at = format!("criteria[{i}]");
        let c = r.fields(
            item,
            &at,
            &["id", "text", "evidence"],
            "a criterion mapping",
        )?;
        let id = r.name(r.required(c, &at, "id")?, &join(&at, "id"))?;
        r.unique(criteria.iter().map(|c| &c.id), &id, &at, "criteria")?;
        criteria.push(Criterion {
            text: r.name(r.required(c, &at, "text")?, &join(&at, "text"))?,
            evidence: r.optional_strings(c, &join(&at, "evidence"))?,
            id,
        });
    }

    let mut issues: Vec<Issue> = Vec::new();
    for (i, item) in r
        .sequence(r.required(map, "", "issues")?, "issues")?
        .iter()
        .enumerate()
    {
        let at = format!("issues[{i}]");
        let m = r.fields(
            item,
            &at,
            &["id", "title", "status", "paths", "serves", "milestone"],
            "an issue mapping",
        )?;
        let id = r.name(r.required(m, &at, "id")?, &join(&at, "id"))?;
        r.unique(issues.iter().map(|i| &i.id), &id, &at, "issues")?;
        let title = r.name(r.required(m, &at, "title")?, &join(&at, "title"))?;
        let status = match r.required(m, &at, "status")?.as_str() {
            Some("open") => IssueStatus::Open,
            Some("active") => IssueStatus::Active,
            Some("done") => IssueStatus::Done,
            _ => return Err(r.invalid(&join(&at, "status"), "one of open, active, done")),
        };
        let paths = r.globs(r.required(m, &at, "paths")?, &join(&at, "paths"))?;
        let serves_key = join(&at, "serves");
        let serves = r.strings(r.required(m, &at, "serves")?, &serves_key)?;
        for (j, criterion) in serves.iter().enumerate() {
            if !criteria.iter().any(|c| &c.id == criterion) {
                return Err(PlanError::DanglingServes {
                    file: file.to_owned(),
                    key: format!("{serves_key}[{j}]"),
                    criterion: criterion.clone(),
                });
            }
        }
        let milestone = match optional(m, "milestone") {
            Some(v) => Some(r.name(v, &join(&at, "milestone"))?),
            None => None,
        };
        issues.push(Issue {
            id,
            title,
            status,
            paths,
            serves,
            milestone,
        });
    }

    let mut critiques = Vec::new();
    let listed = match optional(map, "critiques") {
        Some(v) => r.sequence(v, "critiques")?.as_slice(),
        None => &[],
    };
    for (i, item) in listed.iter().enumerate() {
        let at = format!("critiques[{i}]");
        let c = r.fields(
            item,
            &at,
            &["commit", "plan_revision", "findings"],
            "a critique mapping",
        )?;
        let text_of = |name: &str| -> Result<Option<String>, PlanError> {
            optional(c, name)
                .map(|v| r.name(v, &join(&at, name)))
                .transpose()
        };
        let commit = text_of("commit")?;
        let plan_revision = text_of("plan_revision")?;
        let mut findings: Vec<Finding> = Vec::new();
        let listed = match optional(c, "findings") {
            Some(v) => r.sequence(v, &join(&at, "findings"))?.as_slice(),
            None => &[],
        };
        for (j, item) in listed.iter().enumerate() {
            let at = format!("{at}.findings[{j}]");
            let f = r.fields(
                item,
                &at,
                &["id", "blocking", "text", "resolution"],
                "a finding mapping",
            )?;
            let id = r.name(r.required(f, &at, "id")?, &join(&at, "id"))?;
            r.unique(findings.iter().map(|f| &f.id), &id, &at, "findings")?;
            let blocking = r
                .required(f, &at, "blocking")?
                .as_bool()
                .ok_or_else(|| r.invalid(&join(&at, "blocking"), "true or false"))?;
            let text = r.name(r.required(f, &at, "text")?, &join(&at, "text"))?;
            let resolution = match optional(f, "resolution") {
                Some(v) => Some(r.string(v, &join(&at, "resolution"))?),
                None => None,
            };
            findings.push(Finding {
                id,
                blocking,
                text,
                resolution,
            });
        }
        critiques.push(Critique {
            commit,
            plan_revision,
            findings,
        });
    }

    Ok(Intent {
        id,
        status,
        statement,
        invariants,
        non_goals,
        criteria,
        issues,
        critiques,
    })
}

/// The last component of a `/`-separated path.
/// `text` without a leading UTF-8 byte order mark (some editors write one; it is not YAML).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A plan file's name without its extension: `.yaml`, or `.yml`, which YAML tools write
/// as often (a `.yml` intent is read like a `.yaml` one, never made a plan-wide error).
fn stem(name: &str) -> &str {
    name.strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"))
        .unwrap_or(name)
}

/// `at.name`, or `name` at the top level.
fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

/// A present, non-null value.
fn optional<'v>(map: &'v Mapping, name: &str) -> Option<&'v Value> {
    map.get(name).filter(|v| !v.is_null())
}

/// Walks a parsed document, naming `file` and the key path in every error.
struct Reader<'a> {
    file: &'a str,
}

impl Reader<'_> {
    fn document(&self, text: &str) -> Result<Value, PlanError> {
        yaml_serde::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            PlanError::Malformed {
                file: self.file.to_owned(),
                line,
                column,
                // The position is already in the message's suffix.
                message: e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            }
        })
    }

    fn invalid(&self, key: &str, expected: &str) -> PlanError {
        PlanError::InvalidValue {
            file: self.file.to_owned(),
            key: if key.is_empty() {
                "(top level)".to_owned()
            } else {
                key.to_owned()
            },
            expected: expected.to_owned(),
        }
    }

    /// A mapping whose keys are all in `allowed`.
    fn fields<'v>(
        &self,
        value: &'v Value,
        at: &str,
        allowed: &[&str],
        expected: &str,
    ) -> Result<&'v Mapping, PlanError> {
        let map = value
            .as_mapping()
            .ok_or_else(|| self.invalid(at, expected))?;
        for key in map.keys() {
            let name = match key.as_str() {
                Some(k) if allowed.contains(&k) => continue,
                Some(k) => k.to_owned(),
                None => yaml_serde::to_string(key)
                    .map(|s| s.trim_end().to_owned())
                    .unwrap_or_else(|_| "(a non-text key)".to_owned()),
            };
            return Err(PlanError::UnknownKey {
                file: self.file.to_owned(),
                key: join(at, &name),
            });
        }
        Ok(map)
    }

    fn required<'v>(&self, map: &'v Mapping, at: &str, name: &str) -> Result<&'v Value, PlanError> {
        map.get(name).ok_or_else(|| PlanError::MissingField {
            file: self.file.to_owned(),
            key: join(at, name),
        })
    }

    /// Any string, empty included.
    fn string(&self, value: &Value, key: &str) -> Result<String, PlanError> {
        match value {
            Value::String(s) => Ok(s.clone()),
            Value::Number(_) | Value::Bool(_) => {
                let shown = yaml_serde::to_string(value).unwrap_or_default();
                Err(self.invalid(
                    key,
                    &format!("a string (quote it: \"{}\")", shown.trim_end()),
                ))
            }
            _ => Err(self.invalid(key, "a string")),
        }
    }

    /// A string with something in it: ids, titles, statements.
    fn name(&self, value: &Value, key: &str) -> Result<String, PlanError> {
        let s = self.string(value, key)?;
        if s.trim().is_empty() {
            return Err(self.invalid(key, "a non-empty string"));
        }
        Ok(s)
    }

    fn sequence<'v>(&self, value: &'v Value, key: &str) -> Result<&'v Vec<Value>, PlanError> {
        value
            .as_sequence()
            .ok_or_else(|| self.invalid(key, "a list"))
    }

    fn strings(&self, value: &Value, key: &str) -> Result<Vec<String>, PlanError> {
        let list = value
            .as_sequence()
            .ok_or_else(|| self.invalid(key, "a list of strings"))?;
        list.iter()
            .enumerate()
            .map(|(i, v)| self.name(v, &format!("{key}[{i}]")))
            .collect()
    }

    fn optional_strings(&self, map: &Mapping, key: &str) -> Result<Vec<String>, PlanError> {
        let name = key.rsplit('.').next().unwrap_or(key);
        match optional(map, name) {
            Some(v) => self.strings(v, key),
            None => Ok(Vec::new()),
        }
    }

    /// A list of globs that compile.
    fn globs(&self, value: &Value, key: &str) -> Result<Vec<String>, PlanError> {
        let globs = self.strings(value, key)?;
        for (i, glob) in globs.iter().enumerate() {
            if let Err(e) = check_glob(glob) {
                return Err(PlanError::BadGlob {
                    file: self.file.to_owned(),
                    key: format!("{key}[{i}]"),
                    glob: glob.clone(),
                    message: e.kind().to_string(),
                });
            }
        }
        Ok(globs)
    }

    /// Refuses `id` when an earlier entry of the list `list` (at `at`) has it.
    fn unique<'i>(
        &self,
        mut earlier: impl Iterator<Item = &'i String>,
        id: &str,
        at: &str,
        list: &str,
    ) -> Result<(), PlanError> {
        match earlier.position(|e| e == id) {
            Some(first) => {
                let prefix = at
                    .rsplit_once('.')
                    .map(|(p, _)| format!("{p}."))
                    .unwrap_or_default();
                Err(PlanError::DuplicateId {
                    file: self.file.to_owned(),
                    key: join(at, "id"),
                    id: id.to_owned(),
                    first: format!("{prefix}{list}[{first}].id"),
                })
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH: &str = "\
id: auth
status: active
statement: Users sign in once.
criteria:
  - id: c1
    text: Login works.
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
    status: done
    paths: [src/logout.rs]
    serves: [c2]
    milestone: m1
  - id: tokens
    title: Tokens
    status: active
    paths: []
    serves: [c1, c2]
critiques:
  - commit: abc123
    findings:
      - id: f1
        blocking: true
        text: Rate limits?
";

    const FILE: &str = ".ai/repo/intents/auth.yaml";

    #[test]
    fn a_large_plan_reads_as_a_small_one_does() {
        let intent = |n: usize, issue: &str| PlanFile {
            path: format!(".ai/repo/intents/i{n:03}.yaml"),
            text: format!(
                "id: i{n:03}\nstatus: active\nstatement: s\ncriteria:\n  - id: c\n    text: t\nissues:\n  - id: {issue}\n    title: t\n    status: open\n    paths: [src/{n}/**]\n    serves: [c]\n"
            ),
        };
        let mut files: Vec<PlanFile> = (0..PARALLEL_FROM + 6)
            .rev()
            .map(|n| intent(n, &format!("issue-{n}")))
            .collect();
        files.push(PlanFile {
            path: format!(".ai/repo/intents/{MILESTONES_FILE}"),
            text: "milestones:\n  - id: m\n    paths: [build/**]\n".into(),
        });
        let PlanInput::Plan(plan) = PlanInput::read(Some(&files)) else {
            panic!("the plan reads");
        };
        assert_eq!(plan.intents.len(), PARALLEL_FROM + 6);
        assert!(plan.intents.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(plan.milestones.len(), 1);

        // Errors come in file order, and the second declaration of an issue is the one
        // named, however the files were parsed.
        files[3] = intent(PARALLEL_FROM + 2, "issue-1");
        files[5].text = "id: [".into();
        let PlanInput::Unreadable(errors) = PlanInput::read(Some(&files)) else {
            panic!("the plan is unreadable");
        };
        let named: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(named.len(), 2, "{named:?}");
        assert!(
            named[0].starts_with(&format!(
                ".ai/repo/intents/i{:03}.yaml: line",
                PARALLEL_FROM
            )),
            "{named:?}"
        );
        assert_eq!(
            named[1],
            format!(
                ".ai/repo/intents/i{:03}.yaml: issues[0].id: issue `issue-1` is also declared in .ai/repo/intents/i001.yaml",
                PARALLEL_FROM + 2
            )
        );
    }

    fn error(text: &str) -> String {
        parse_intent(text, FILE).expect_err("refused").to_string()
    }

    #[test]
    fn a_complete_intent_parses() {
        let intent = parse_intent(AUTH, FILE).expect("parses");
        assert_eq!(intent.id, "auth");
        assert_eq!(intent.status, IntentStatus::Active);
        assert!(intent.invariants.is_empty() && intent.non_goals.is_empty());
        assert_eq!(intent.criteria[1].evidence, ["file:src/logout.rs"]);
        assert_eq!(intent.issues[1].milestone.as_deref(), Some("m1"));
        assert_eq!(intent.issues[2].status, IssueStatus::Active);
        assert!(intent.is_critiqued());
        assert_eq!(intent.blocking_findings(), ["f1"]);
        assert!(intent.has_open_work());
    }

    #[test]
    fn optional_fields_may_be_null() {
        let text = AUTH.replace("critiques:\n", "invariants:\nnon_goals: ~\ncritiques:\n");
        let intent = parse_intent(&text, FILE).expect("parses");
        assert!(intent.invariants.is_empty());
    }

    #[test]
    fn malformed_yaml_names_line_and_column() {
        let text = AUTH.replace("    title: Logout\n", "    title: [Logout\n");
        let message = error(&text);
        assert!(
            message.starts_with(".ai/repo/intents/auth.yaml: line ") && message.contains("column"),
            "{message}"
        );
        assert!(message.contains("malformed YAML"), "{message}");
    }

    #[test]
    fn unknown_keys_are_refused_by_key_path() {
        assert_eq!(
            error(&format!("{AUTH}owner: me\n")),
            ".ai/repo/intents/auth.yaml: owner: unknown key"
        );
        assert_eq!(
            error(&AUTH.replace(
                "    serves: [c1, c2]\n",
                "    serves: [c1, c2]\n    owner: me\n"
            )),
            ".ai/repo/intents/auth.yaml: issues[2].owner: unknown key"
        );
        assert_eq!(
            error(&AUTH.replace(
                "        text: Rate limits?\n",
                "        text: Rate limits?\n        severity: high\n"
            )),
            ".ai/repo/intents/auth.yaml: critiques[0].findings[0].severity: unknown key"
        );
    }

    #[test]
    fn missing_required_fields_are_named() {
        assert_eq!(
            error(&AUTH.replace("    serves: [c1, c2]\n", "")),
            ".ai/repo/intents/auth.yaml: issues[2].serves: missing required field"
        );
        assert_eq!(
            error(&AUTH.replace("statement: Users sign in once.\n", "")),
            ".ai/repo/intents/auth.yaml: statement: missing required field"
        );
        assert_eq!(
            error(&AUTH.replace("        blocking: true\n", "")),
            ".ai/repo/intents/auth.yaml: critiques[0].findings[0].blocking: missing required field"
        );
        assert_eq!(
            error(&AUTH.replace("  - id: c1\n    text: Login works.\n", "  - id: c1\n")),
            ".ai/repo/intents/auth.yaml: criteria[0].text: missing required field"
        );
    }

    #[test]
    fn wrong_values_say_what_is_expected() {
        assert_eq!(
            error(&AUTH.replace("status: open", "status: started")),
            ".ai/repo/intents/auth.yaml: issues[0].status: must be one of open, active, done"
        );
        assert_eq!(
            error(&AUTH.replace("status: active\nstatement", "status: paused\nstatement")),
            ".ai/repo/intents/auth.yaml: status: must be one of active, retired"
        );
        assert_eq!(
            error(&AUTH.replace("serves: [c1]", "serves: c1")),
            ".ai/repo/intents/auth.yaml: issues[0].serves: must be a list of strings"
        );
        assert_eq!(
            error(&AUTH.replace("- id: login", "- id: 42")),
            ".ai/repo/intents/auth.yaml: issues[0].id: must be a string (quote it: \"42\")"
        );
        assert_eq!(
            error(&AUTH.replace("title: Login form", "title: ''")),
            ".ai/repo/intents/auth.yaml: issues[0].title: must be a non-empty string"
        );
        assert_eq!(
            error(&AUTH.replace("blocking: true", "blocking: yes please")),
            ".ai/repo/intents/auth.yaml: critiques[0].findings[0].blocking: must be true or false"
        );
        assert_eq!(
            error(""),
            ".ai/repo/intents/auth.yaml: (top level): must be a mapping with id, status, statement, criteria and issues"
        );
    }

    #[test]
    fn the_id_must_be_the_file_stem() {
        assert_eq!(
            error(&AUTH.replace("id: auth", "id: authn")),
            ".ai/repo/intents/auth.yaml: id: `authn` must equal the file name's stem `auth`"
        );
    }

    #[test]
    fn ids_are_unique_within_their_list() {
        assert_eq!(
            error(&AUTH.replace("- id: tokens", "- id: login")),
            ".ai/repo/intents/auth.yaml: issues[2].id: `login` repeats issues[0].id"
        );
        assert_eq!(
            error(&AUTH.replace("- id: c2", "- id: c1")),
            ".ai/repo/intents/auth.yaml: criteria[1].id: `c1` repeats criteria[0].id"
        );
    }

    #[test]
    fn serves_names_criteria_of_the_same_intent() {
        assert_eq!(
            error(&AUTH.replace("serves: [c1, c2]", "serves: [c1, c9]")),
            ".ai/repo/intents/auth.yaml: issues[2].serves[1]: `c9` names no criterion of this intent"
        );
    }

    #[test]
    fn globs_must_compile() {
        let message = error(&AUTH.replace("[\"src/auth/**\"]", "[\"src/[auth\"]"));
        assert!(
            message.starts_with(
                ".ai/repo/intents/auth.yaml: issues[0].paths[0]: `src/[auth` is not a valid glob: "
            ),
            "{message}"
        );
    }

    #[test]
    fn milestones_are_strict_too() {
        let file = ".ai/repo/intents/milestones.yaml";
        let ok = parse_milestones("milestones:\n  - id: m1\n    paths: [ci/**]\n", file)
            .expect("parses");
        assert_eq!(
            ok,
            [Milestone {
                id: "m1".into(),
                paths: vec!["ci/**".into()]
            }]
        );
        let refused = |text: &str| {
            parse_milestones(text, file)
                .expect_err("refused")
                .to_string()
        };
        assert_eq!(
            refused("milestones:\n  - id: m1\n"),
            ".ai/repo/intents/milestones.yaml: milestones[0].paths: missing required field"
        );
        assert_eq!(
            refused("milestones:\n  - id: m1\n    paths: []\n    due: soon\n"),
            ".ai/repo/intents/milestones.yaml: milestones[0].due: unknown key"
        );
        assert_eq!(
            refused("milestones: []\nowner: me\n"),
            ".ai/repo/intents/milestones.yaml: owner: unknown key"
        );
        assert_eq!(
            refused("milestones:\n  - {id: m1, paths: []}\n  - {id: m1, paths: []}\n"),
            ".ai/repo/intents/milestones.yaml: milestones[1].id: `m1` repeats milestones[0].id"
        );
    }

    fn file(path: &str, text: &str) -> PlanFile {
        PlanFile {
            path: path.to_owned(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn no_directory_or_an_empty_one_is_no_plan() {
        assert_eq!(PlanInput::read(None), PlanInput::NoPlan);
        assert_eq!(PlanInput::read(Some(&[])), PlanInput::NoPlan);
    }

    #[test]
    fn one_broken_file_makes_the_plan_unreadable() {
        let files = [
            file(FILE, AUTH),
            file(".ai/repo/intents/web.yaml", "id: web\nstatus: active\n"),
            file(".ai/repo/intents/milestones.yaml", "milestones: 3\n"),
        ];
        let PlanInput::Unreadable(errors) = PlanInput::read(Some(&files)) else {
            panic!("unreadable");
        };
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                ".ai/repo/intents/milestones.yaml: milestones: must be a list",
                ".ai/repo/intents/web.yaml: statement: missing required field",
            ]
        );
    }

    #[test]
    fn an_issue_id_names_one_issue_in_the_whole_plan() {
        let web = AUTH
            .replace("id: auth", "id: web")
            .replace("- id: logout", "- id: signout")
            .replace("- id: tokens", "- id: cookies");
        let files = [file(FILE, AUTH), file(".ai/repo/intents/web.yaml", &web)];
        let PlanInput::Unreadable(errors) = PlanInput::read(Some(&files)) else {
            panic!("unreadable");
        };
        assert_eq!(
            errors[0].to_string(),
            ".ai/repo/intents/web.yaml: issues[0].id: issue `login` is also declared in .ai/repo/intents/auth.yaml"
        );
    }

    #[test]
    fn a_readable_plan_sorts_intents_by_id() {
        let web = AUTH
            .replace("id: auth", "id: web")
            .replace("- id: login", "- id: page")
            .replace("- id: logout", "- id: signout")
            .replace("- id: tokens", "- id: cookies");
        let files = [
            file(".ai/repo/intents/web.yaml", &web),
            file(FILE, AUTH),
            file(
                ".ai/repo/intents/milestones.yaml",
                "milestones: [{id: m1, paths: [ops/**]}]\n",
            ),
        ];
        let PlanInput::Plan(plan) = PlanInput::read(Some(&files)) else {
            panic!("readable");
        };
        let ids: Vec<&str> = plan.intents.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["auth", "web"]);
        assert_eq!(plan.milestones[0].id, "m1");
        assert_eq!(plan.issue("page").map(|(i, _)| i.id.as_str()), Some("web"));
    }
}
