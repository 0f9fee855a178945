//! The eight reasoning record kinds (SPEC §7), their enums, evidence references and the
//! stored envelope with its computed id.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ids::sha256_hex;
use crate::model::policy::ReasoningMode;

/// The capability an assessment requests when it names none.
pub const DEFAULT_CAPABILITY: &str = "independent_reasoning";

/// How much an uncertainty matters, in increasing order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Materiality {
    Trivial,
    Low,
    Material,
    High,
    Critical,
}

impl fmt::Display for Materiality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Materiality {
    pub const ALL: [Materiality; 5] = [
        Materiality::Trivial,
        Materiality::Low,
        Materiality::Material,
        Materiality::High,
        Materiality::Critical,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Materiality::Trivial => "trivial",
            Materiality::Low => "low",
            Materiality::Material => "material",
            Materiality::High => "high",
            Materiality::Critical => "critical",
        }
    }

    /// `material`, `high` or `critical`: evidence first, and a validation plan at the end.
    pub fn is_material(self) -> bool {
        self >= Materiality::Material
    }
}

/// How sure the executor (or an advisor) is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// An advisor's position relative to the executor's hypothesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "AdvisorStance")]
pub enum Stance {
    Supports,
    Opposes,
    Alternative,
    Uncertain,
}

impl Stance {
    pub fn name(self) -> &'static str {
        match self {
            Stance::Supports => "supports",
            Stance::Opposes => "opposes",
            Stance::Alternative => "alternative",
            Stance::Uncertain => "uncertain",
        }
    }

    /// `opposes` or `alternative`: a position that diverges from the hypothesis.
    pub fn diverges(self) -> bool {
        matches!(self, Stance::Opposes | Stance::Alternative)
    }
}

/// How an exchange with an advisor failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Timeout,
    RateLimited,
    AuthFailed,
    Malformed,
    Empty,
    Unavailable,
    Cancelled,
    Error,
}

impl FailureKind {
    pub const ALL: [FailureKind; 8] = [
        FailureKind::Timeout,
        FailureKind::RateLimited,
        FailureKind::AuthFailed,
        FailureKind::Malformed,
        FailureKind::Empty,
        FailureKind::Unavailable,
        FailureKind::Cancelled,
        FailureKind::Error,
    ];

    pub fn name(self) -> &'static str {
        ConsultationStatus::from(self).name()
    }
}

/// A consultation's outcome: `completed`, or one of the typed failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsultationStatus {
    Completed,
    Timeout,
    RateLimited,
    AuthFailed,
    Malformed,
    Empty,
    Unavailable,
    Cancelled,
    Error,
}

impl ConsultationStatus {
    pub fn name(self) -> &'static str {
        match self {
            ConsultationStatus::Completed => "completed",
            ConsultationStatus::Timeout => "timeout",
            ConsultationStatus::RateLimited => "rate_limited",
            ConsultationStatus::AuthFailed => "auth_failed",
            ConsultationStatus::Malformed => "malformed",
            ConsultationStatus::Empty => "empty",
            ConsultationStatus::Unavailable => "unavailable",
            ConsultationStatus::Cancelled => "cancelled",
            ConsultationStatus::Error => "error",
        }
    }

    /// The failure, or `None` for `completed`.
    pub fn failure(self) -> Option<FailureKind> {
        Some(match self {
            ConsultationStatus::Completed => return None,
            ConsultationStatus::Timeout => FailureKind::Timeout,
            ConsultationStatus::RateLimited => FailureKind::RateLimited,
            ConsultationStatus::AuthFailed => FailureKind::AuthFailed,
            ConsultationStatus::Malformed => FailureKind::Malformed,
            ConsultationStatus::Empty => FailureKind::Empty,
            ConsultationStatus::Unavailable => FailureKind::Unavailable,
            ConsultationStatus::Cancelled => FailureKind::Cancelled,
            ConsultationStatus::Error => FailureKind::Error,
        })
    }
}

impl From<FailureKind> for ConsultationStatus {
    fn from(kind: FailureKind) -> Self {
        match kind {
            FailureKind::Timeout => ConsultationStatus::Timeout,
            FailureKind::RateLimited => ConsultationStatus::RateLimited,
            FailureKind::AuthFailed => ConsultationStatus::AuthFailed,
            FailureKind::Malformed => ConsultationStatus::Malformed,
            FailureKind::Empty => ConsultationStatus::Empty,
            FailureKind::Unavailable => ConsultationStatus::Unavailable,
            FailureKind::Cancelled => ConsultationStatus::Cancelled,
            FailureKind::Error => ConsultationStatus::Error,
        }
    }
}

/// A validation's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "ValidationOutcome")]
pub enum Outcome {
    Pass,
    Fail,
}

/// Who holds a position in a disagreement: the executor or an advisor (by id).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Holder {
    Executor,
    Advisor(String),
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Executor => f.write_str("executor"),
            Holder::Advisor(id) => f.write_str(id),
        }
    }
}

impl From<Holder> for String {
    fn from(holder: Holder) -> String {
        holder.to_string()
    }
}

impl TryFrom<String> for Holder {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        match text.as_str() {
            "executor" => Ok(Holder::Executor),
            "" => Err("a holder is `executor` or an advisor id".to_owned()),
            _ => Ok(Holder::Advisor(text)),
        }
    }
}

impl JsonSchema for Holder {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Holder".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "minLength": 1,
            "description": "`executor` or an advisor id"
        })
    }
}

/// The position a resolution favours: the executor's, an advisor's (by id), or none.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Favours {
    Executor,
    Advisor(String),
    None,
}

impl fmt::Display for Favours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Favours::Executor => f.write_str("executor"),
            Favours::Advisor(id) => f.write_str(id),
            Favours::None => f.write_str("none"),
        }
    }
}

impl From<Favours> for String {
    fn from(favours: Favours) -> String {
        favours.to_string()
    }
}

impl TryFrom<String> for Favours {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        match text.as_str() {
            "executor" => Ok(Favours::Executor),
            "none" => Ok(Favours::None),
            "" => Err("`favours` is `executor`, an advisor id or `none`".to_owned()),
            _ => Ok(Favours::Advisor(text)),
        }
    }
}

impl JsonSchema for Favours {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Favours".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "minLength": 1,
            "description": "`executor`, an advisor id, or `none`"
        })
    }
}

/// The kinds an evidence reference may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvidenceKind {
    File,
    Test,
    Adr,
    Rule,
    Commit,
    Command,
    Observation,
}

impl EvidenceKind {
    pub const ALL: [EvidenceKind; 7] = [
        EvidenceKind::File,
        EvidenceKind::Test,
        EvidenceKind::Adr,
        EvidenceKind::Rule,
        EvidenceKind::Commit,
        EvidenceKind::Command,
        EvidenceKind::Observation,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EvidenceKind::File => "file",
            EvidenceKind::Test => "test",
            EvidenceKind::Adr => "adr",
            EvidenceKind::Rule => "rule",
            EvidenceKind::Commit => "commit",
            EvidenceKind::Command => "command",
            EvidenceKind::Observation => "observation",
        }
    }
}

/// Why a string is not an evidence reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceProblem {
    #[error("a reference is one line; a copy of evidence is never a reference")]
    MultiLine,
    #[error("it has no `<kind>:` prefix")]
    NoKind,
    #[error("`{0}` is not an evidence kind")]
    UnknownKind(String),
    #[error("the target after `{0}:` is empty")]
    EmptyTarget(&'static str),
    #[error("`{0}` is not a line number (file:<path>[:<line>], line from 1)")]
    BadLine(String),
    #[error("`{0}` is not a commit id (7 to 64 hex digits)")]
    BadCommit(String),
    #[error("a command reference says what it showed: `command:<cmd> => <what it showed>`")]
    CommandWithoutResult,
}

/// An evidence reference, `<kind>:<target>` (SPEC §7). Deserialising does not check the
/// shape; [`EvidenceRef::check`] does, and the writer calls it on every reference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EvidenceRef(pub String);

impl JsonSchema for EvidenceRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EvidenceRef".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(file|test|adr|rule|commit|command|observation):.+",
            "description": "`<kind>:<target>`: file:<path>[:<line>], test:<name>, adr:<id>, rule:<id>, commit:<hex>, command:<cmd> => <what it showed>, observation:<what was seen>"
        })
    }
}

impl EvidenceRef {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The reference's kind when its shape is valid.
    pub fn check(&self) -> Result<EvidenceKind, EvidenceProblem> {
        let text = self.0.as_str();
        if text.contains(['\n', '\r']) {
            return Err(EvidenceProblem::MultiLine);
        }
        let (name, target) = text.split_once(':').ok_or(EvidenceProblem::NoKind)?;
        let kind = EvidenceKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| EvidenceProblem::UnknownKind(name.to_owned()))?;
        let target = target.trim();
        if target.is_empty() {
            return Err(EvidenceProblem::EmptyTarget(kind.name()));
        }
        match kind {
            EvidenceKind::File => {
                // A colon in a file target introduces the line; a path with a colon of its
                // own would be ambiguous, so it is refused as a bad line.
                if let Some((path, line)) = target.rsplit_once(':') {
                    let valid = !path.trim().is_empty()
                        && !line.is_empty()
                        && line.bytes().all(|b| b.is_ascii_digit())
                        && line.parse::<u32>().is_ok_and(|n| n > 0);
                    if !valid {
                        return Err(EvidenceProblem::BadLine(line.to_owned()));
                    }
                }
            }
            EvidenceKind::Commit => {
                let hex = target.bytes().all(|b| b.is_ascii_hexdigit());
                if !hex || !(7..=64).contains(&target.len()) {
                    return Err(EvidenceProblem::BadCommit(target.to_owned()));
                }
            }
            EvidenceKind::Command => match target.split_once("=>") {
                Some((cmd, showed)) if !cmd.trim().is_empty() && !showed.trim().is_empty() => {}
                _ => return Err(EvidenceProblem::CommandWithoutResult),
            },
            EvidenceKind::Test | EvidenceKind::Adr | EvidenceKind::Rule => {}
            EvidenceKind::Observation => {}
        }
        Ok(kind)
    }
}

fn default_capabilities() -> Vec<String> {
    vec![DEFAULT_CAPABILITY.to_owned()]
}

/// What the executor is unsure about, how much it matters, and the evidence so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Assessment {
    /// One line: what is uncertain.
    pub subject: String,
    pub materiality: Materiality,
    pub confidence: Confidence,
    /// The executor's current answer.
    pub hypothesis: String,
    #[serde(default)]
    pub facts: Vec<String>,
    #[serde(default)]
    pub assumptions: Vec<String>,
    #[serde(default)]
    pub questions: Vec<String>,
    #[serde(default)]
    pub evidence: Vec<EvidenceRef>,
    /// Capabilities asked of advisors; `[independent_reasoning]` when omitted.
    #[serde(default = "default_capabilities")]
    pub capabilities: Vec<String>,
    /// Review again although a standing conclusion answers the same subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_evidence: Option<bool>,
}

/// An advisor the plan left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotSelected {
    pub advisor: String,
    pub reason: String,
}

/// One assumption of the local review and the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewedAssumption {
    pub assumption: String,
    /// Evidence references behind the assumption, to be filled by the executor.
    #[serde(default)]
    pub evidence: Vec<EvidenceRef>,
}

/// The structured local review a material plan with no advisor carries instead. The plan
/// fills the hypothesis and assumptions from the assessment; `null` fields are the
/// executor's to fill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LocalReview {
    pub hypothesis: String,
    pub strongest_alternative: Option<String>,
    pub assumptions: Vec<ReviewedAssumption>,
    pub falsifier: Option<String>,
    pub smallest_discriminating_experiment: Option<String>,
    pub conclusion: Option<String>,
}

/// Which advisors to consult, computed by the writer (never supplied).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    pub assessment: String,
    pub mode: ReasoningMode,
    pub budget: u8,
    pub selected: Vec<String>,
    pub not_selected: Vec<NotSelected>,
    /// Each advisor's availability at the moment of planning.
    pub availability: super::availability::Snapshot,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuses: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_review: Option<LocalReview>,
}

/// Tokens an adapter reported for one exchange.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

impl Usage {
    pub fn total(self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// One advisor's normalised answer, or its typed failure, under a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Consultation {
    pub plan: String,
    pub advisor: String,
    pub status: ConsultationStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<Stance>,
    #[serde(default)]
    pub assumptions: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(default)]
    pub actions: Vec<String>,
    #[serde(default)]
    pub falsifiers: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The last line of the adapter's standard error, control characters removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
    /// With `rate_limited`: how long the advisor asked to be left alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
    /// What answered behind a mesh peer (its adapter and model, as the peer declares it):
    /// reviews are counted by source, so two peers answering through one adapter and
    /// model are one review. Absent for a catalogue advisor, which is its own source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Consultation {
    /// What this consultation counts as in `independent_review_count`: its source, else
    /// its advisor.
    pub fn counted_source(&self) -> String {
        match &self.source {
            Some(source) => format!("source:{source}"),
            None => format!("advisor:{}", self.advisor),
        }
    }
}

/// One side of a disagreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Position {
    pub holder: Holder,
    /// The completed consultation an advisor's position comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consultation: Option<String>,
    pub stance: Stance,
    pub claim: String,
}

/// Positions that diverge on one assessment, and the question whose answer decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Disagreement {
    pub assessment: String,
    #[serde(default)]
    pub positions: Vec<Position>,
    #[serde(default)]
    pub divergent_assumptions: Vec<String>,
    pub question: String,
}

/// The experiment that settled a disagreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Resolution {
    pub disagreement: String,
    pub experiment: String,
    pub result: String,
    pub favours: Favours,
    #[serde(default)]
    pub evidence: Vec<EvidenceRef>,
}

/// A conclusion as the caller gives it; the review fields are computed by the writer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConclusionInput {
    pub assessment: String,
    pub decision: String,
    pub rationale: String,
    #[serde(default)]
    pub evidence: Vec<EvidenceRef>,
    /// Ids of the consultations weighed.
    #[serde(default)]
    pub consultations: Vec<String>,
    #[serde(default)]
    pub rejected_alternatives: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_plan: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
}

/// The decision on an assessment, with its review computed from the cited consultations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Conclusion {
    pub assessment: String,
    pub decision: String,
    pub rationale: String,
    #[serde(default)]
    pub evidence: Vec<EvidenceRef>,
    #[serde(default)]
    pub consultations: Vec<String>,
    #[serde(default)]
    pub rejected_alternatives: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_plan: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// Distinct advisors of the cited completed consultations, sorted.
    #[serde(default)]
    pub reviewed_by: Vec<String>,
    /// Distinct sources of the cited completed consultations (a mesh peer's declared
    /// source, else the advisor): two peers behind one adapter and model are one review.
    #[serde(default)]
    pub independent_review_count: usize,
}

impl Conclusion {
    /// The stored conclusion of `input`, reviewed by `reviewed_by` (sorted and deduplicated
    /// here).
    pub fn from_input(
        input: ConclusionInput,
        mut reviewed_by: Vec<String>,
        reviews: Vec<(String, String)>,
    ) -> Conclusion {
        reviewed_by.sort();
        reviewed_by.dedup();
        let independent = independent_reviews(&reviews);
        Conclusion {
            assessment: input.assessment,
            decision: input.decision,
            rationale: input.rationale,
            evidence: input.evidence,
            consultations: input.consultations,
            rejected_alternatives: input.rejected_alternatives,
            risks: input.risks,
            validation_plan: input.validation_plan,
            supersedes: input.supersedes,
            independent_review_count: independent,
            reviewed_by,
        }
    }
}

/// How many independent reviews `(advisor, source)` pairs are: two reviews are one when
/// they share an advisor (one runtime answering twice, under two sources) or a source (two
/// peers behind one adapter and model), and so on transitively: the number of groups.
pub fn independent_reviews(reviews: &[(String, String)]) -> usize {
    let mut group: Vec<usize> = (0..reviews.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for i in 0..reviews.len() {
        for j in 0..i {
            if reviews[i].0 == reviews[j].0 || reviews[i].1 == reviews[j].1 {
                let (a, b) = (root(&mut group, i), root(&mut group, j));
                group[a] = b;
            }
        }
    }
    (0..reviews.len())
        .filter(|&i| root(&mut group, i) == i)
        .count()
}

#[cfg(test)]
mod review_count_tests {
    use super::independent_reviews;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, s)| ((*a).to_owned(), (*s).to_owned()))
            .collect()
    }

    #[test]
    fn reviews_are_counted_by_advisor_and_source_together() {
        assert_eq!(independent_reviews(&[]), 0);
        // Two catalogue advisors: two.
        assert_eq!(
            independent_reviews(&pairs(&[("a", "advisor:a"), ("b", "advisor:b")])),
            2
        );
        // Two peers behind one model: one.
        assert_eq!(
            independent_reviews(&pairs(&[("p", "source:m"), ("q", "source:m")])),
            1
        );
        // One peer answering twice under two sources: one.
        assert_eq!(
            independent_reviews(&pairs(&[("p", "source:m"), ("p", "source:n")])),
            1
        );
        // Chained: p~q by source, q~r by advisor... and s alone.
        assert_eq!(
            independent_reviews(&pairs(&[
                ("p", "source:m"),
                ("q", "source:m"),
                ("q", "source:n"),
                ("s", "source:o"),
            ])),
            2
        );
    }
}

/// A check run against a conclusion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Validation {
    pub conclusion: String,
    pub check: String,
    pub command: String,
    pub outcome: Outcome,
}

/// Something tried that failed, and what it changed in the hypothesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attempt {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assessment: Option<String>,
    pub tried: String,
    pub failure: String,
    pub invalidated_assumption: String,
    pub updated_hypothesis: String,
}

/// The kinds, as the `kind` field spells them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    Assessment,
    Plan,
    Consultation,
    Disagreement,
    Resolution,
    Conclusion,
    Validation,
    Attempt,
}

impl RecordKind {
    pub const ALL: [RecordKind; 8] = [
        RecordKind::Assessment,
        RecordKind::Plan,
        RecordKind::Consultation,
        RecordKind::Disagreement,
        RecordKind::Resolution,
        RecordKind::Conclusion,
        RecordKind::Validation,
        RecordKind::Attempt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Assessment => "assessment",
            RecordKind::Plan => "plan",
            RecordKind::Consultation => "consultation",
            RecordKind::Disagreement => "disagreement",
            RecordKind::Resolution => "resolution",
            RecordKind::Conclusion => "conclusion",
            RecordKind::Validation => "validation",
            RecordKind::Attempt => "attempt",
        }
    }

    pub fn from_name(name: &str) -> Option<RecordKind> {
        RecordKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A record's body, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    Assessment(Assessment),
    Plan(Plan),
    Consultation(Consultation),
    Disagreement(Disagreement),
    Resolution(Resolution),
    Conclusion(Conclusion),
    Validation(Validation),
    Attempt(Attempt),
}

impl Record {
    pub fn kind(&self) -> RecordKind {
        match self {
            Record::Assessment(_) => RecordKind::Assessment,
            Record::Plan(_) => RecordKind::Plan,
            Record::Consultation(_) => RecordKind::Consultation,
            Record::Disagreement(_) => RecordKind::Disagreement,
            Record::Resolution(_) => RecordKind::Resolution,
            Record::Conclusion(_) => RecordKind::Conclusion,
            Record::Validation(_) => RecordKind::Validation,
            Record::Attempt(_) => RecordKind::Attempt,
        }
    }
}

/// A record as the caller gives it to the writer: every kind but `plan` (the writer's)
/// and `consultation` (`consult`'s, from an adapter's answer), and a conclusion without
/// its computed review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecordInput {
    Assessment(Assessment),
    Disagreement(Disagreement),
    Resolution(Resolution),
    Conclusion(ConclusionInput),
    Validation(Validation),
    Attempt(Attempt),
}

/// Fields every stored record carries that the writer computes; a caller supplying one is
/// refused.
pub const COMPUTED_FIELDS: [&str; 7] = [
    "id",
    "task",
    "episode",
    "recorded_at",
    "redacted",
    "reviewed_by",
    "independent_review_count",
];

/// A record as stored in `<id>.json`: the body and what the writer computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StoredRecord {
    /// `<kind>-<first 12 hex of sha256 over the canonical record>`.
    pub id: String,
    pub task: String,
    pub episode: Option<String>,
    /// RFC 3339, UTC, whole seconds.
    pub recorded_at: String,
    /// Names of the secret shapes removed from the record's strings.
    #[serde(default)]
    pub redacted: Vec<String>,
    #[serde(flatten)]
    pub record: Record,
}

impl StoredRecord {
    /// Builds the stored record and computes its id.
    pub fn new(
        record: Record,
        task: &str,
        episode: Option<&str>,
        recorded_at: String,
        redacted: Vec<String>,
    ) -> StoredRecord {
        let mut stored = StoredRecord {
            id: String::new(),
            task: task.to_owned(),
            episode: episode.map(str::to_owned),
            recorded_at,
            redacted,
            record,
        };
        stored.id = stored.computed_id();
        stored
    }

    pub fn kind(&self) -> RecordKind {
        self.record.kind()
    }

    /// The id this record's content gives: sha256 over the JSON with sorted keys, without
    /// `id` and `recorded_at` (so the same record written twice has one id).
    pub fn computed_id(&self) -> String {
        let mut value = serde_json::to_value(self).expect("a record always serialises");
        if let Value::Object(map) = &mut value {
            map.remove("id");
            map.remove("recorded_at");
        }
        let mut canonical = String::new();
        write_canonical(&value, &mut canonical);
        format!(
            "{}-{}",
            self.kind().name(),
            &sha256_hex(canonical.as_bytes())[..12]
        )
    }

    /// `recorded_at` as a time, for ordering; `None` if it does not parse.
    pub fn recorded_time(&self) -> Option<time::OffsetDateTime> {
        crate::model::time::parse(&self.recorded_at)
    }
}

/// Compact JSON with the keys of every object sorted, whatever the map's own order.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// True when `text` has the shape of a reasoning record id, `<kind>-<12 hex>`, of `kind`
/// (any kind when `None`).
pub fn is_record_id(text: &str, kind: Option<RecordKind>) -> bool {
    let Some((name, hex)) = text.rsplit_once('-') else {
        return false;
    };
    let kind_ok = match kind {
        Some(k) => k.name() == name,
        None => RecordKind::from_name(name).is_some(),
    };
    kind_ok && hex.len() == 12 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A subject as reuse compares it: lower case, punctuation removed, whitespace collapsed.
pub fn normalise_subject(subject: &str) -> String {
    let cleaned: String = subject
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c.is_whitespace() {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .to_lowercase();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<EvidenceKind, EvidenceProblem> {
        EvidenceRef(text.to_owned()).check()
    }

    #[test]
    fn evidence_references_have_their_shape() {
        assert_eq!(check("file:src/lib.rs"), Ok(EvidenceKind::File));
        assert_eq!(check("file:src/lib.rs:42"), Ok(EvidenceKind::File));
        assert_eq!(
            check("test:ledger::appends_under_lock"),
            Ok(EvidenceKind::Test)
        );
        assert_eq!(check("adr:0098"), Ok(EvidenceKind::Adr));
        assert_eq!(
            check("rule:project.advisors-are-optional"),
            Ok(EvidenceKind::Rule)
        );
        assert_eq!(check("commit:ab2b27e"), Ok(EvidenceKind::Commit));
        assert_eq!(
            check("command:cargo test -j2 => 12 passed, 0 failed"),
            Ok(EvidenceKind::Command)
        );
        assert_eq!(
            check("observation:reflog saw it 94 s later"),
            Ok(EvidenceKind::Observation)
        );

        assert_eq!(check("src/lib.rs"), Err(EvidenceProblem::NoKind));
        assert_eq!(
            check("url:x"),
            Err(EvidenceProblem::UnknownKind("url".into()))
        );
        assert_eq!(check("test: "), Err(EvidenceProblem::EmptyTarget("test")));
        assert_eq!(
            check("file:src/lib.rs:0"),
            Err(EvidenceProblem::BadLine("0".into()))
        );
        assert_eq!(
            check("file:src/lib.rs:1-9"),
            Err(EvidenceProblem::BadLine("1-9".into()))
        );
        assert_eq!(
            check("commit:HEAD"),
            Err(EvidenceProblem::BadCommit("HEAD".into()))
        );
        assert_eq!(
            check("command:cargo test"),
            Err(EvidenceProblem::CommandWithoutResult)
        );
        assert_eq!(
            check("command:cargo test =>  "),
            Err(EvidenceProblem::CommandWithoutResult)
        );
        assert_eq!(check("observation:a\nb"), Err(EvidenceProblem::MultiLine));
    }

    #[test]
    fn ids_are_content_hashes_without_id_and_time() {
        let body = Record::Validation(Validation {
            conclusion: "conclusion-0123456789ab".into(),
            check: "suite".into(),
            command: "cargo test".into(),
            outcome: Outcome::Pass,
        });
        let a = StoredRecord::new(
            body.clone(),
            "t",
            None,
            "2026-01-01T00:00:00Z".into(),
            vec![],
        );
        let b = StoredRecord::new(
            body.clone(),
            "t",
            None,
            "2027-01-01T00:00:00Z".into(),
            vec![],
        );
        let c = StoredRecord::new(body, "u", None, "2026-01-01T00:00:00Z".into(), vec![]);
        assert_eq!(a.id, b.id);
        assert_ne!(a.id, c.id);
        assert!(a.id.starts_with("validation-"));
        assert!(is_record_id(&a.id, Some(RecordKind::Validation)));
        assert!(!is_record_id(&a.id, Some(RecordKind::Plan)));
        assert!(!is_record_id("validation-0123", None));
        assert!(!is_record_id("../x-0123456789ab", None));
    }

    #[test]
    fn stored_records_round_trip_with_kind_and_id_at_top() {
        let body = Record::Attempt(Attempt {
            assessment: None,
            tried: "t".into(),
            failure: "f".into(),
            invalidated_assumption: "a".into(),
            updated_hypothesis: "h".into(),
        });
        let stored = StoredRecord::new(body, "t", Some("e"), "2026-01-01T00:00:00Z".into(), vec![]);
        let text = serde_json::to_string(&stored).unwrap();
        assert!(text.starts_with("{\"id\":\"attempt-"), "{text}");
        assert!(text.contains("\"kind\":\"attempt\""), "{text}");
        let back: StoredRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, stored);
        assert_eq!(back.computed_id(), stored.id);
    }

    #[test]
    fn subjects_normalise() {
        assert_eq!(
            normalise_subject("  Date the landing by   the FORGE's merge record?  "),
            "date the landing by the forge s merge record"
        );
        assert_eq!(normalise_subject("a,b"), normalise_subject("A  b"));
    }

    #[test]
    fn holders_and_favours_read_as_strings() {
        let h: Holder = serde_json::from_str("\"executor\"").unwrap();
        assert_eq!(h, Holder::Executor);
        let f: Favours = serde_json::from_str("\"second-opinion\"").unwrap();
        assert_eq!(f, Favours::Advisor("second-opinion".into()));
        assert_eq!(serde_json::to_string(&Favours::None).unwrap(), "\"none\"");
        assert!(serde_json::from_str::<Favours>("\"\"").is_err());
    }
}
