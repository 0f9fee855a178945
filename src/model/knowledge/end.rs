//! The end of a verified record's life (SPEC §5.2): superseded by another record, or retired
//! with a reason. What the act writes into the record (`# Superseded`: who, when, why) and
//! how it is refused. Pure: the orchestration is `knowledge::end`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::shell::quote;

/// How a verified record leaves what is claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EndAct {
    /// Replaced by another record, which it names (`superseded_by`).
    Supersede,
    /// No longer holds, and nothing replaces it.
    Retire,
}

impl EndAct {
    pub fn name(self) -> &'static str {
        match self {
            EndAct::Supersede => "supersede",
            EndAct::Retire => "retire",
        }
    }

    /// The past tense, as results and sections say it.
    pub fn done(self) -> &'static str {
        match self {
            EndAct::Supersede => "superseded",
            EndAct::Retire => "retired",
        }
    }
}

/// The heading of the section the act appends to the record.
pub const SUPERSEDED_HEADING: &str = "# Superseded";

/// The paragraph under `# Superseded`: what happened, when, by whom (and in which episode),
/// and why. `by` is the replacing record (none: retired).
pub fn ended_paragraph(
    by: Option<&str>,
    at: &str,
    who: &str,
    episode: Option<&str>,
    reason: &str,
) -> String {
    let what = match by {
        Some(by) => format!("Superseded by {by}"),
        None => "Retired".to_owned(),
    };
    let within = episode
        .map(|e| format!(" in episode {e}"))
        .unwrap_or_default();
    format!("{what} at {at} by {who}{within}: {reason}")
}

/// The body of a record after the act: its body as it was, then `# Superseded` and the
/// paragraph.
pub fn ended_body(body: &str, paragraph: &str) -> String {
    format!(
        "{}\n\n{SUPERSEDED_HEADING}\n\n{paragraph}\n",
        body.trim_end_matches('\n')
    )
}

/// The reason an act was given, as a printed fix says it: the reason itself, or — when
/// none was given, or only a template placeholder — the placeholder a person replaces by
/// hand (the fix then starts with [`BY_HAND`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why<'a> {
    Given(&'a str),
    Missing,
}

/// How a fix that holds a placeholder starts.
pub const BY_HAND: &str = "by hand: replace the text in angle brackets, then run: ";

/// The placeholder of a supersede's or a retire's reason.
pub const WHY_ENDED: &str = "<why it no longer holds>";

/// The placeholder of a rejection's reason.
pub const WHY_REJECTED: &str = "<why it does not hold>";

/// The paragraph `ended_paragraph` wrote for this act, when `body` ends with one: the act
/// (superseded by `by`, or retired) and `reason` as given. Returns who it names.
pub fn ended_alike(body: &str, by: Option<&str>, reason: &str) -> Option<String> {
    let (_, paragraph) = body.rsplit_once(&format!("\n{SUPERSEDED_HEADING}\n\n"))?;
    let what = match by {
        Some(by) => format!("Superseded by {by} at "),
        None => "Retired at ".to_owned(),
    };
    let rest = paragraph
        .strip_suffix('\n')
        .unwrap_or(paragraph)
        .strip_prefix(&what)?
        .strip_suffix(reason)?
        .strip_suffix(": ")?;
    // `<at> by <who>[ in episode <id>]`: the time holds no space.
    let (_, who) = rest.split_once(" by ")?;
    let who = match who.rsplit_once(" in episode ") {
        Some((who, episode)) if !episode.is_empty() && !episode.contains(' ') => who,
        _ => who,
    };
    (!who.is_empty()).then(|| who.to_owned())
}

/// How a record already out of what is claimed got there, as said in a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndedHow {
    SupersededBy(String),
    Retired,
    Rejected,
}

impl EndedHow {
    fn said(&self) -> String {
        match self {
            EndedHow::SupersededBy(by) => format!("superseded by {by}"),
            EndedHow::Retired => "retired".into(),
            EndedHow::Rejected => "rejected".into(),
        }
    }
}

/// Why `knowledge supersede`, `knowledge retire` or `promote --supersedes` cannot be done as
/// asked. Nothing has been written when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndError {
    #[error(
        "knowledge id {} does not have the shape of one (like {example})",
        crate::model::ids::shown(id)
    )]
    Shape { id: String, example: &'static str },
    #[error("knowledge {id}: no such verified record in curated/")]
    Unknown { id: String },
    #[error(
        "knowledge {id}: a candidate claims nothing yet, so it is not superseded or retired: reject it instead"
    )]
    Candidate { id: String, fix: String },
    #[error("knowledge {id}: already {}", how.said())]
    Ended { id: String, how: EndedHow },
    #[error("--by {by}: no such verified record to replace it")]
    ReplacementUnknown { by: String },
    #[error(
        "--by {by}: a candidate; a verified record is replaced by a verified one: promote it, superseding {}",
        old.join(", ")
    )]
    ReplacementCandidate { by: String, old: Vec<String> },
    #[error("--by {by}: itself {}", how.said())]
    ReplacementEnded {
        by: String,
        how: EndedHow,
        fix: String,
    },
    #[error("knowledge {id}: a record cannot supersede itself")]
    Itself { id: String, fix: String },
    #[error("knowledge {}: a reason is needed: {why}", act.name())]
    Reason {
        act: EndAct,
        why: &'static str,
        fix: String,
    },
    #[error(
        "ids and a selection (--all-listed, --episode, --class, --older-than, --stale) together: say one"
    )]
    Mixed,
    #[error(
        "nothing selected: give verified record ids, or --all-listed (with filters to narrow it)"
    )]
    NoSelection { filters: String },
    #[error("the selection is empty: `knowledge verified{filters}` lists no record")]
    Empty { filters: String },
    #[error(
        "--supersedes takes one candidate to promote (it names the record that replaces what it supersedes)"
    )]
    SupersedesOne,
}

impl EndError {
    /// The rule that refused.
    pub fn rule(&self) -> &'static str {
        match self {
            EndError::Shape { .. } => "id.shape",
            EndError::Unknown { .. } => "knowledge.known-id",
            EndError::Candidate { .. } => "knowledge.verified-only",
            EndError::Ended { .. } => "knowledge.superseded",
            EndError::ReplacementUnknown { .. }
            | EndError::ReplacementCandidate { .. }
            | EndError::ReplacementEnded { .. }
            | EndError::Itself { .. } => "knowledge.replacement",
            EndError::Reason { .. } => "record.text",
            EndError::Mixed => "knowledge.selection-mixed",
            EndError::NoSelection { .. } => "knowledge.selection-required",
            EndError::Empty { .. } => "knowledge.selection-empty",
            EndError::SupersedesOne => "knowledge.review-field",
        }
    }

    /// What would get past it: a command that works as printed, or what to do by hand.
    pub fn fix(&self) -> String {
        match self {
            // What an act takes is a verified record: the listing of those.
            EndError::Shape { .. }
            | EndError::Unknown { .. }
            | EndError::ReplacementUnknown { .. }
            | EndError::Empty { .. } => "majordomus knowledge verified".into(),
            EndError::Candidate { fix, .. }
            | EndError::ReplacementEnded { fix, .. }
            | EndError::Itself { fix, .. }
            | EndError::Reason { fix, .. } => fix.clone(),
            EndError::Ended { id, how } => match how {
                EndedHow::SupersededBy(by) => format!("majordomus knowledge show {by}"),
                _ => format!("majordomus knowledge show {id}"),
            },
            EndError::ReplacementCandidate { by, old } => format!(
                "by hand: replace the text in angle brackets, then run: echo \"<what shows this holds: a test, a file, a command and its output>\" | majordomus knowledge promote {by}{}",
                old.iter()
                    .map(|o| format!(" --supersedes {o}"))
                    .collect::<String>()
            ),
            EndError::Mixed => {
                "by hand: give the ids alone, or --all-listed with its filters alone".into()
            }
            EndError::NoSelection { filters } => format!("majordomus knowledge verified{filters}"),
            EndError::SupersedesOne => {
                "by hand: promote the replacing candidate alone with --supersedes, then the others"
                    .into()
            }
        }
    }
}

/// The command that supersedes `ids` by `by` with `reason` on stdin, as a fix prints it.
pub fn supersede_command(ids: &[String], by: &str, reason: &str) -> String {
    format!(
        "printf '%s\\n' {} | majordomus knowledge supersede {} --by {by}",
        quote(reason),
        ids.join(" ")
    )
}

/// The command that retires `ids` with `reason`, as a fix prints it.
pub fn retire_command(ids: &[String], reason: &str) -> String {
    format!(
        "majordomus knowledge retire {} --reason {}",
        ids.join(" "),
        quote(reason)
    )
}

/// [`supersede_command`] with the reason given, else the same act by hand with
/// [`WHY_ENDED`] on stdin.
pub fn supersede_fix(ids: &[String], by: &str, why: Why<'_>) -> String {
    match why {
        Why::Given(reason) => supersede_command(ids, by, reason),
        Why::Missing => format!(
            "{BY_HAND}echo \"{WHY_ENDED}\" | majordomus knowledge supersede {} --by {by}",
            ids.join(" ")
        ),
    }
}

/// [`retire_command`] with the reason given, else the same act by hand with
/// [`WHY_ENDED`].
pub fn retire_fix(ids: &[String], why: Why<'_>) -> String {
    match why {
        Why::Given(reason) => retire_command(ids, reason),
        Why::Missing => format!(
            "{BY_HAND}majordomus knowledge retire {} --reason \"{WHY_ENDED}\"",
            ids.join(" ")
        ),
    }
}

/// [`reject_command`] with the reason given, else the same act by hand with
/// [`WHY_REJECTED`].
pub fn reject_fix(id: &str, by: Option<&str>, why: Why<'_>) -> String {
    match why {
        Why::Given(reason) => reject_command(id, by, reason),
        Why::Missing => {
            let by = by.map(|b| format!(" --by {b}")).unwrap_or_default();
            format!("{BY_HAND}majordomus knowledge reject {id}{by} --reason \"{WHY_REJECTED}\"")
        }
    }
}

/// The command that rejects the candidate `id` (replaced by `by`, when given) with
/// `reason`, as a fix prints it.
pub fn reject_command(id: &str, by: Option<&str>, reason: &str) -> String {
    let by = by.map(|b| format!(" --by {b}")).unwrap_or_default();
    format!(
        "majordomus knowledge reject {id}{by} --reason {}",
        quote(reason)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_says_who_when_and_why() {
        let p = ended_paragraph(
            Some("B"),
            "2026-12-06T05:20:00Z",
            "Ada <ada@example.invalid>",
            Some("E"),
            "async now",
        );
        assert_eq!(
            p,
            "Superseded by B at 2026-12-06T05:20:00Z by Ada <ada@example.invalid> in episode E: async now"
        );
        assert_eq!(
            ended_body("Claim.\n\n# Evidence\n\nx\n\n", &p),
            format!("Claim.\n\n# Evidence\n\nx\n\n# Superseded\n\n{p}\n")
        );
        assert_eq!(
            ended_paragraph(None, "T", "W", None, "gone"),
            "Retired at T by W: gone"
        );
    }

    #[test]
    fn an_ended_record_says_who_ended_it_and_how() {
        let p = ended_paragraph(Some("B"), "T", "Ada <a@x>", Some("E-1"), "async now");
        let body = ended_body("Claim.", &p);
        assert_eq!(
            ended_alike(&body, Some("B"), "async now").as_deref(),
            Some("Ada <a@x>")
        );
        assert_eq!(ended_alike(&body, Some("C"), "async now"), None);
        assert_eq!(ended_alike(&body, None, "async now"), None);
        assert_eq!(ended_alike(&body, Some("B"), "now"), None);
        let body = ended_body("Claim.", &ended_paragraph(None, "T", "W", None, "a\nb"));
        assert_eq!(ended_alike(&body, None, "a\nb").as_deref(), Some("W"));
        assert_eq!(ended_alike("Claim.\n", None, "a"), None);
    }

    #[test]
    fn printed_commands_quote_what_a_shell_would_split() {
        assert_eq!(
            supersede_command(&["A".into()], "B", "it's async"),
            "printf '%s\\n' 'it'\\''s async' | majordomus knowledge supersede A --by B"
        );
        assert_eq!(
            retire_command(&["A".into(), "C".into()], "gone"),
            "majordomus knowledge retire A C --reason gone"
        );
        assert_eq!(
            reject_command("A", Some("B"), "no longer"),
            "majordomus knowledge reject A --by B --reason 'no longer'"
        );
    }
}
