//! Status (SPEC §11): where a record stands — verified, candidate, stale, superseded — and
//! what that multiplies its relevance by.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a hit stands: verified (a person promoted it), candidate (not reviewed yet),
/// stale (verified, but a file it cites changed since), superseded (rejected or replaced).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum HitStatus {
    // A person promoted it (curated knowledge; a decision or answer whose record was
    // promoted; a conclusion whose validation passed).
    Verified,
    // Not reviewed by a person (yet).
    Candidate,
    // Verified, but a file it cites changed since it was verified.
    Stale,
    // Rejected or replaced.
    Superseded,
}

impl HitStatus {
    pub const NAMES: [&'static str; 4] = ["verified", "candidate", "stale", "superseded"];

    pub fn name(self) -> &'static str {
        match self {
            HitStatus::Verified => "verified",
            HitStatus::Candidate => "candidate",
            HitStatus::Stale => "stale",
            HitStatus::Superseded => "superseded",
        }
    }

    pub fn from_name(name: &str) -> Option<HitStatus> {
        match name {
            "verified" => Some(HitStatus::Verified),
            "candidate" => Some(HitStatus::Candidate),
            "stale" => Some(HitStatus::Stale),
            "superseded" => Some(HitStatus::Superseded),
            _ => None,
        }
    }

    /// What status multiplies relevance by.
    pub fn factor(self) -> f64 {
        match self {
            HitStatus::Verified => 1.0,
            HitStatus::Candidate => 0.8,
            HitStatus::Stale => 0.6,
            HitStatus::Superseded => 0.4,
        }
    }
}
