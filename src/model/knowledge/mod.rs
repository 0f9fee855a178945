//! Knowledge records (`knowledge/v1`, SPEC §5): the record (here), the front-matter fast
//! path (`fast`), transcript markers (`markers`) and the deterministic derivation from an
//! episode's ledger lines (`derive`, §5.1). Pure: no files, no git, no clock.

mod derive;
mod fast;
mod markers;

pub use derive::{
    Derived, EpisodeEvidence, SkippedSource, candidate_id, canonical_source, derive_candidates,
};
pub use fast::parse_front_fast;
pub use markers::Markers;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const KNOWLEDGE_SCHEMA: &str = "knowledge/v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Fact,
    Convention,
    Constraint,
    Memory,
    Lesson,
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
pub enum Status {
    Candidate,
    Verified,
    Superseded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
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
