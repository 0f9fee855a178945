//! A report's verdict: what its findings mean for whoever asked. Surfaces map it to their
//! own signals (an exit code, an HTTP status) in one place each.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing needs attention.
    Pass,
    /// Something deserves a look; nothing is refused (`watch` stops on it).
    Advisory,
    /// A rule is broken and must be mended (doctor's blocking findings).
    Blocking,
    /// A gate said no: a check with blocking findings, a refused push.
    Refused,
}

/// How much a finding weighs: blocking (a rule is broken; doctor exits 10, a check
/// refuses) or advisory (worth a look; only `watch` stops on it).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocking,
    Advisory,
}
