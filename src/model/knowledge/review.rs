//! What a batch review (SPEC §5.2) acts with and how it is refused: pure data, the
//! orchestration is `knowledge::batch`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a review does to the candidates it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Act {
    Promote,
    Reject,
}

impl Act {
    pub fn name(self) -> &'static str {
        match self {
            Act::Promote => "promote",
            Act::Reject => "reject",
        }
    }
}

/// Why a review cannot be done as asked. Nothing has been written when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    #[error("--older-than {value:?}: not a span like 30m, 12h, 7d or 2w")]
    OlderThan { value: String },
    #[error(
        "ids and a selection (--all-listed, --episode, --branch, --class, --older-than) together: say one"
    )]
    Mixed,
    #[error("nothing selected: give candidate ids, or --all-listed (with filters to narrow it)")]
    NoSelection { filters: String, act: Act },
    #[error("{field}: only `knowledge {}` takes it", act.name())]
    Field { field: &'static str, act: Act },
    #[error("--by and --duplicate-of together: a rejected record is superseded by one record")]
    ByAndDuplicate,
    #[error("the selection is empty: `knowledge candidates{filters}` lists no candidate")]
    Empty { filters: String },
    #[error("--commit: HEAD is detached, and a review commit goes on a branch")]
    Detached,
    #[error("--commit: git has no committer identity (user.name, user.email)")]
    NoIdentity,
    #[error(
        "--commit: the index holds staged changes of its own to {}; the review commit would carry or drop them",
        paths.join(", ")
    )]
    Staged { paths: Vec<String> },
}

impl ReviewError {
    /// A value that does not parse (usage), rather than a rule saying no.
    pub fn usage(&self) -> bool {
        // A selection the schema cannot rule out (no ids and no `all_listed`, both, a field
        // of the other act) is refused, not malformed: a schema-valid request never
        // answers 400 (docs/HTTP.md).
        matches!(self, ReviewError::OlderThan { .. })
    }

    /// The rule that refused.
    pub fn rule(&self) -> &'static str {
        match self {
            ReviewError::OlderThan { .. } => "knowledge.older-than",
            ReviewError::Mixed => "knowledge.selection-mixed",
            ReviewError::NoSelection { .. } => "knowledge.selection-required",
            ReviewError::Field { .. } | ReviewError::ByAndDuplicate => "knowledge.review-field",
            ReviewError::Empty { .. } => "knowledge.selection-empty",
            ReviewError::Detached => "knowledge.commit-branch",
            ReviewError::NoIdentity => "knowledge.commit-identity",
            ReviewError::Staged { .. } => "knowledge.commit-staged",
        }
    }

    /// What would get past it.
    pub fn fix(&self) -> Option<String> {
        Some(match self {
            ReviewError::OlderThan { .. } => {
                "by hand: give --older-than a whole number and a unit: 30m, 12h, 7d or 2w".into()
            }
            ReviewError::Mixed => {
                "by hand: give the ids alone, or --all-listed with its filters alone".into()
            }
            ReviewError::NoSelection { filters, .. } => {
                format!("majordomus knowledge candidates{filters}")
            }
            ReviewError::Field { .. } => "by hand: leave it out".into(),
            ReviewError::ByAndDuplicate => "by hand: give one of --by and --duplicate-of".into(),
            ReviewError::Empty { .. } => "majordomus knowledge candidates".into(),
            ReviewError::Detached => {
                "by hand: git switch <branch>, then run the review again (or leave out --commit)"
                    .into()
            }
            ReviewError::NoIdentity => {
                "git config user.name \"Your Name\" && git config user.email you@example.com".into()
            }
            ReviewError::Staged { paths } => format!(
                "git restore --staged -- {}",
                paths
                    .iter()
                    .map(|p| crate::model::shell::quote(p).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        })
    }
}
