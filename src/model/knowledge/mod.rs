//! Knowledge records (`knowledge/v1`, SPEC §5): the record (here), the front-matter fast
//! path (`fast`), transcript markers (`markers`) and the deterministic derivation from an
//! episode's ledger lines (`derive`, §5.1). Pure: no files, no git, no clock.

mod concern;
mod conflict;
mod derive;
mod end;
mod fast;
mod fold;
mod markers;
mod review;
pub mod sources;

pub use concern::{
    Concern, Held, NEIGHBOUR, cited_paths, concern_similarity, concern_terms, concerns,
};
pub use conflict::{Conflict, Side, conflict_of};
pub use derive::{
    Derived, EpisodeEvidence, SkippedSource, candidate_id, canonical_source, derive_candidates,
};
pub use end::{
    BY_HAND, EndAct, EndError, EndedHow, SUPERSEDED_HEADING, WHY_ENDED, WHY_REJECTED, Why,
    ended_alike, ended_body, ended_paragraph, reject_command, reject_fix, retire_command,
    retire_fix, supersede_command, supersede_fix,
};
pub use fast::parse_front_fast;
pub use fold::{Claim, Fold, claim_of, fold};
pub use markers::Markers;
pub use review::{Act, ReviewError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const KNOWLEDGE_SCHEMA: &str = "knowledge/v1";

/// The placeholder `text` is, when it is nothing but template placeholders (`<what shows
/// this holds ...>`, one a line): a template pasted as it stands is not evidence.
pub fn placeholder(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.clone().next()?;
    lines
        .all(|l| {
            l.len() >= 2
                && l.starts_with('<')
                && l.ends_with('>')
                && !l[1..l.len() - 1].contains(['<', '>'])
        })
        .then_some(first)
}

/// The text of a record body's `# Evidence` section (from its heading line to the next
/// `# ` heading or the end), trimmed; `None` when there is no such section or it is empty.
pub fn evidence_section(body: &str) -> Option<&str> {
    let mut offset = 0;
    let mut start = None;
    for line in body.split_inclusive('\n') {
        let heading = line.trim_end();
        match start {
            None if heading == "# Evidence" => start = Some(offset + line.len()),
            Some(from) if heading.starts_with("# ") => {
                return Some(body[from..offset].trim()).filter(|t| !t.is_empty());
            }
            _ => {}
        }
        offset += line.len();
    }
    start
        .map(|from| body[from..].trim())
        .filter(|t| !t.is_empty())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Fact,
    Convention,
    Constraint,
    Memory,
    Lesson,
}

/// The schema of an optional class request field: one of [`Class::NAMES`], or null (any).
pub fn class_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = Class::NAMES.iter().map(|n| (*n).into()).collect();
    names.push(serde_json::Value::Null);
    schemars::json_schema!({"type": ["string", "null"], "enum": names})
}

impl Class {
    pub const NAMES: [&'static str; 5] = ["fact", "convention", "constraint", "memory", "lesson"];

    pub fn name(self) -> &'static str {
        match self {
            Class::Fact => "fact",
            Class::Convention => "convention",
            Class::Constraint => "constraint",
            Class::Memory => "memory",
            Class::Lesson => "lesson",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        match name {
            "fact" => Some(Class::Fact),
            "convention" => Some(Class::Convention),
            "constraint" => Some(Class::Constraint),
            "memory" => Some(Class::Memory),
            "lesson" => Some(Class::Lesson),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "RecordStatus")]
pub enum Status {
    Candidate,
    Verified,
    Superseded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "KnowledgeStance")]
pub enum Stance {
    Observed,
    Inferred,
    Decided,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Extracted,
    Authored,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeProvenance")]
pub struct Provenance {
    pub origin: Origin,
    #[serde(default)]
    pub derived_from: Vec<String>,
}

/// The front matter of a knowledge record; unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeRecord {
    pub id: String,
    pub schema: String,
    pub class: Class,
    pub status: Status,
    pub stance: Stance,
    pub title: String,
    pub date: String,
    pub provenance: Provenance,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<Vec<String>>,
}

#[cfg(test)]
mod evidence_section_tests {
    use super::evidence_section;

    #[test]
    fn the_evidence_section_runs_to_the_next_heading() {
        assert_eq!(
            evidence_section("Claim.\n\n# Evidence\n\nthe test passes\n\n# Rejected\n\nno\n"),
            Some("the test passes")
        );
        assert_eq!(
            evidence_section("Claim.\n\n# Evidence\n\na\nb\n"),
            Some("a\nb")
        );
        assert_eq!(evidence_section("Claim.\n\n# Evidence\n\n"), None);
        assert_eq!(
            evidence_section("Claim.\n\n# Evidence\n# Rejected\nno\n"),
            None
        );
        assert_eq!(
            evidence_section("Claim: # Evidence is not a heading.\n"),
            None
        );
    }
}

#[cfg(test)]
mod placeholder_tests {
    use super::placeholder;

    #[test]
    fn a_template_placeholder_is_not_evidence() {
        assert_eq!(
            placeholder("<what shows this holds: a test>\n"),
            Some("<what shows this holds: a test>")
        );
        assert_eq!(placeholder("  <a>\n\n<b>  "), Some("<a>"));
        assert_eq!(placeholder("tests/parser.rs passes"), None);
        assert_eq!(placeholder("<b>bold</b> in the docs"), None);
        assert_eq!(placeholder("see <this> and that"), None);
        assert_eq!(placeholder(""), None);
    }
}
