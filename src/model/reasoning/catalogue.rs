//! The advisor catalogue (`advisors.yaml`): who may be consulted, how, and for what. Its
//! order is the repository's preference.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use yaml_serde::Value;

/// The catalogue majordomus ships (`share/advisors.yaml`); `.ai/repo/advisors.yaml`
/// replaces it whole.
pub const SHIPPED_CATALOGUE: &str = include_str!("../../../share/advisors.yaml");

/// How an advisor is reached.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Adapter {
    /// A child process: the prompt on stdin, the answer on stdout.
    Process,
    /// Scripted answers for tests, read from `$MAJORDOMUS_ADVISOR_FIXTURES/<id>.json`.
    Fixture,
    /// A linked runtime offering reviews, reached through the mesh server. Discovered,
    /// never listed in the catalogue.
    Mesh,
}

impl Adapter {
    pub fn name(self) -> &'static str {
        match self {
            Adapter::Process => "process",
            Adapter::Fixture => "fixture",
            Adapter::Mesh => "mesh",
        }
    }
}

/// One catalogue entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Advisor {
    /// Stable id, used in records.
    pub id: String,
    pub title: String,
    pub adapter: Adapter,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Presence on `PATH` means installed (process adapter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// The variable whose presence means configured; its value is never read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// Runs on this machine (offline mode admits only these).
    #[serde(default)]
    pub local: bool,
    pub capabilities: Vec<String>,
}

impl Advisor {
    /// Offers `capability`.
    pub fn offers(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }
}

/// The parsed catalogue, in declaration order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Catalogue {
    pub advisors: Vec<Advisor>,
}

impl Catalogue {
    pub fn get(&self, id: &str) -> Option<&Advisor> {
        self.advisors.iter().find(|a| a.id == id)
    }
}

/// Why a catalogue file was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogueError {
    #[error("{file}: line {line}, column {column}: malformed YAML: {message}")]
    Malformed {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: unknown key `{key}`")]
    UnknownKey { file: String, key: String },
    #[error("{file}: `{key}` is missing")]
    MissingKey { file: String, key: String },
    #[error("{file}: `{key}` must be {expected}")]
    InvalidValue {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: advisor id `{id}` is declared twice")]
    DuplicateId { file: String, id: String },
}

impl CatalogueError {
    /// The rule that refused, as shown in `error.rule`; `None` for malformed YAML.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            CatalogueError::Malformed { .. } => None,
            CatalogueError::UnknownKey { .. } => Some("advisors.known-keys"),
            CatalogueError::MissingKey { .. } | CatalogueError::InvalidValue { .. } => {
                Some("advisors.value")
            }
            CatalogueError::DuplicateId { .. } => Some("advisors.unique-id"),
        }
    }

    /// What would make the file acceptable.
    pub fn fix(&self) -> String {
        match self {
            CatalogueError::Malformed { file, line, .. } => {
                format!("correct the YAML at {file} line {line}")
            }
            CatalogueError::UnknownKey { file, key } => format!(
                "remove `{key}` from {file} (an advisor's keys: {})",
                ADVISOR_KEYS.join(", ")
            ),
            CatalogueError::MissingKey { file, key } => format!("add `{key}` to {file}"),
            CatalogueError::InvalidValue { file, key, .. } => {
                format!("set `{key}` in {file} to an accepted value (docs/REASONING.md)")
            }
            CatalogueError::DuplicateId { file, id } => {
                format!("give one of the advisors `{id}` in {file} another id")
            }
        }
    }
}

/// The keys an advisor entry may have.
pub const ADVISOR_KEYS: [&str; 10] = [
    "id",
    "title",
    "adapter",
    "provider",
    "model",
    "executable",
    "args",
    "credential",
    "local",
    "capabilities",
];

/// Ids that mean something else where advisor ids appear (positions, `favours`).
const RESERVED_IDS: [&str; 2] = ["executor", "none"];

/// True for an advisor id: lower-case letters, digits and `-`, starting with a letter or
/// digit, at most 64 characters, and not `executor` or `none`.
pub fn is_advisor_id(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && !RESERVED_IDS.contains(&text)
}

/// True for a capability name: lower-case letters, digits, `_` and `-`, starting with a
/// letter, at most 64 characters.
pub fn is_capability(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_' || *c == b'-')
}

/// True for a variable name as a credential names it (`[A-Za-z_][A-Za-z0-9_]*`).
fn is_variable_name(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

impl Catalogue {
    /// Parses a catalogue's text strictly; `file` names it in errors, keys are named by
    /// path (`advisors[2].credential`).
    pub fn parse(text: &str, file: &str) -> Result<Catalogue, CatalogueError> {
        let root: Value = yaml_serde::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            CatalogueError::Malformed {
                file: file.to_owned(),
                line,
                column,
                message: e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            }
        })?;
        let reader = Reader { file };
        let top = match &root {
            Value::Null => return Ok(Catalogue::default()),
            Value::Mapping(map) => map,
            _ => return Err(reader.invalid("(top level)", "a mapping with `advisors`")),
        };
        let mut entries: &[Value] = &[];
        for (key, value) in top {
            match key.as_str() {
                Some("advisors") => match value {
                    Value::Sequence(items) => entries = items,
                    Value::Null => {}
                    _ => return Err(reader.invalid("advisors", "a list of advisors")),
                },
                _ => return Err(reader.unknown(&key_name(key))),
            }
        }
        let mut advisors: Vec<Advisor> = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let advisor = reader.advisor(entry, &format!("advisors[{index}]"))?;
            if advisors.iter().any(|a| a.id == advisor.id) {
                return Err(CatalogueError::DuplicateId {
                    file: file.to_owned(),
                    id: advisor.id,
                });
            }
            advisors.push(advisor);
        }
        Ok(Catalogue { advisors })
    }
}

fn key_name(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        other => yaml_serde::to_string(other)
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "(non-string key)".to_owned()),
    }
}

struct Reader<'a> {
    file: &'a str,
}

impl Reader<'_> {
    fn invalid(&self, key: &str, expected: &str) -> CatalogueError {
        CatalogueError::InvalidValue {
            file: self.file.to_owned(),
            key: key.to_owned(),
            expected: expected.to_owned(),
        }
    }

    fn unknown(&self, key: &str) -> CatalogueError {
        CatalogueError::UnknownKey {
            file: self.file.to_owned(),
            key: key.to_owned(),
        }
    }

    fn missing(&self, key: &str) -> CatalogueError {
        CatalogueError::MissingKey {
            file: self.file.to_owned(),
            key: key.to_owned(),
        }
    }

    fn advisor(&self, entry: &Value, at: &str) -> Result<Advisor, CatalogueError> {
        let map = entry
            .as_mapping()
            .ok_or_else(|| self.invalid(at, "a mapping of advisor keys"))?;
        for key in map.keys() {
            let name = key_name(key);
            if !ADVISOR_KEYS.contains(&name.as_str()) {
                return Err(self.unknown(&format!("{at}.{name}")));
            }
        }
        let path = |name: &str| format!("{at}.{name}");
        let get = |name: &str| map.get(name).filter(|v| !v.is_null());
        let text = |name: &str| -> Result<Option<String>, CatalogueError> {
            match get(name) {
                None => Ok(None),
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
                Some(_) => Err(self.invalid(&path(name), "a non-empty string")),
            }
        };
        let required = |name: &str| text(name)?.ok_or_else(|| self.missing(&path(name)));
        let list = |name: &str| -> Result<Option<Vec<String>>, CatalogueError> {
            match get(name) {
                None => Ok(None),
                Some(Value::Sequence(items)) => items
                    .iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.clone()),
                        _ => Err(self.invalid(&path(name), "a list of strings")),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(_) => Err(self.invalid(&path(name), "a list of strings")),
            }
        };

        let id = required("id")?;
        if !is_advisor_id(&id) {
            return Err(self.invalid(
                &path("id"),
                "an id of lower-case letters, digits and `-` (not `executor` or `none`)",
            ));
        }
        let adapter = match required("adapter")?.as_str() {
            "process" => Adapter::Process,
            "fixture" => Adapter::Fixture,
            // Mesh peers are discovered from the server, never listed.
            _ => {
                return Err(self.invalid(
                    &path("adapter"),
                    "one of process, fixture (mesh peers are discovered through MAJORDOMUS_SERVER_URL, never listed)",
                ));
            }
        };
        let executable = text("executable")?;
        if adapter == Adapter::Process && executable.is_none() {
            return Err(self.missing(&path("executable")));
        }
        let credential = text("credential")?;
        if credential.as_deref().is_some_and(|c| !is_variable_name(c)) {
            return Err(self.invalid(&path("credential"), "an environment variable name"));
        }
        let local = match get("local") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(self.invalid(&path("local"), "true or false")),
        };
        let capabilities =
            list("capabilities")?.ok_or_else(|| self.missing(&path("capabilities")))?;
        if capabilities.is_empty() || !capabilities.iter().all(|c| is_capability(c)) {
            return Err(self.invalid(
                &path("capabilities"),
                "a non-empty list of capability names (e.g. independent_reasoning)",
            ));
        }
        Ok(Advisor {
            title: required("title")?,
            adapter,
            provider: text("provider")?,
            model: text("model")?,
            executable,
            args: list("args")?.unwrap_or_default(),
            credential,
            local,
            capabilities,
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
advisors:
  - id: second-opinion            # stable id, used in records
    title: Second opinion
    adapter: process
    provider: example-vendor
    model: example-model
    executable: example-cli
    args: ["--json"]
    credential: EXAMPLE_API_KEY
    local: false
    capabilities: [independent_reasoning, code_review]
  - id: scripted
    title: Scripted
    adapter: fixture
    capabilities: [independent_reasoning]
"#;

    #[test]
    fn parses_the_spec_example() {
        let c = Catalogue::parse(EXAMPLE, "advisors.yaml").unwrap();
        assert_eq!(c.advisors.len(), 2);
        let a = &c.advisors[0];
        assert_eq!(a.id, "second-opinion");
        assert_eq!(a.adapter, Adapter::Process);
        assert_eq!(a.executable.as_deref(), Some("example-cli"));
        assert_eq!(a.args, vec!["--json"]);
        assert_eq!(a.credential.as_deref(), Some("EXAMPLE_API_KEY"));
        assert!(!a.local);
        assert!(a.offers("code_review"));
        let f = &c.advisors[1];
        assert_eq!(f.adapter, Adapter::Fixture);
        assert_eq!(f.executable, None);
        assert!(f.args.is_empty());
    }

    #[test]
    fn unknown_keys_are_named_with_their_path() {
        let text = EXAMPLE.replace(
            "    local: false\n",
            "    local: false\n    temperature: 1\n",
        );
        let err = Catalogue::parse(&text, ".ai/repo/advisors.yaml").unwrap_err();
        assert_eq!(
            err,
            CatalogueError::UnknownKey {
                file: ".ai/repo/advisors.yaml".into(),
                key: "advisors[0].temperature".into()
            }
        );
        assert_eq!(err.rule(), Some("advisors.known-keys"));
        assert!(err.to_string().contains(".ai/repo/advisors.yaml"));

        let err = Catalogue::parse("advisers: []\n", "a.yaml").unwrap_err();
        assert!(matches!(err, CatalogueError::UnknownKey { key, .. } if key == "advisers"));
    }

    #[test]
    fn ids_are_unique_and_id_shaped() {
        let twice = format!(
            "{EXAMPLE}{}",
            "  - {id: scripted, title: T, adapter: fixture, capabilities: [x]}\n"
        );
        let err = Catalogue::parse(&twice, "a.yaml").unwrap_err();
        assert_eq!(err.rule(), Some("advisors.unique-id"));

        for bad in ["Second", "a b", "executor", "none", "../x", "-x"] {
            let text = format!(
                "advisors:\n  - {{id: '{bad}', title: T, adapter: fixture, capabilities: [x]}}\n"
            );
            let err = Catalogue::parse(&text, "a.yaml").unwrap_err();
            assert!(
                matches!(&err, CatalogueError::InvalidValue { key, .. } if key == "advisors[0].id"),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn values_are_checked() {
        let cases = [
            (
                "{id: a, title: T, adapter: mesh, capabilities: [x]}",
                "advisors[0].adapter",
            ),
            (
                "{id: a, title: T, adapter: process, capabilities: [x]}",
                "advisors[0].executable",
            ),
            (
                "{id: a, adapter: fixture, capabilities: [x]}",
                "advisors[0].title",
            ),
            (
                "{id: a, title: T, adapter: fixture}",
                "advisors[0].capabilities",
            ),
            (
                "{id: a, title: T, adapter: fixture, capabilities: []}",
                "advisors[0].capabilities",
            ),
            (
                "{id: a, title: T, adapter: fixture, capabilities: [x], local: yes}",
                "advisors[0].local",
            ),
            (
                "{id: a, title: T, adapter: fixture, capabilities: [x], credential: 'A B'}",
                "advisors[0].credential",
            ),
            (
                "{id: a, title: T, adapter: fixture, capabilities: [x], args: '--json'}",
                "advisors[0].args",
            ),
        ];
        for (entry, key) in cases {
            let err = Catalogue::parse(&format!("advisors:\n  - {entry}\n"), "a.yaml").unwrap_err();
            let named = match &err {
                CatalogueError::InvalidValue { key, .. }
                | CatalogueError::MissingKey { key, .. } => key,
                other => panic!("{entry}: {other:?}"),
            };
            assert_eq!(named, key, "{entry}");
            assert_eq!(err.rule(), Some("advisors.value"));
        }
        let err = Catalogue::parse("advisors: [\n", "a.yaml").unwrap_err();
        assert!(matches!(err, CatalogueError::Malformed { .. }));
        assert_eq!(
            Catalogue::parse("", "a.yaml").unwrap(),
            Catalogue::default()
        );
    }

    #[test]
    fn the_shipped_catalogue_is_valid_and_optional() {
        let c = Catalogue::parse(SHIPPED_CATALOGUE, "share/advisors.yaml").unwrap();
        assert!((3..=4).contains(&c.advisors.len()));
        assert!(c.advisors.iter().all(|a| a.adapter == Adapter::Process));
        assert!(c.advisors.iter().any(|a| a.local && a.credential.is_none()));
        assert!(c.advisors.iter().all(|a| a.offers("independent_reasoning")));
    }
}
