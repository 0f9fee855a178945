//! Refusals in the browser's language. An operation's error speaks to a terminal (evidence
//! "on stdin", `--by`, `Authorization: Bearer`, a command to run); the cockpit shows the
//! same refusal — its class and its rule unchanged — with a message and a fix a person at a
//! form can act on: which box to fill, which page lists what to pick.

use crate::error::ErrorReport;

/// What a command-line flag is called on the cockpit's forms.
const FIELDS: [(&str, &str); 10] = [
    ("--by ", "Replaced by "),
    ("--path ", "Path "),
    ("--task ", "Task "),
    ("--issue ", "Issue "),
    ("--intent ", "Intent "),
    ("--scope ", "Scope "),
    ("--limit ", "Limit "),
    ("--since ", "Since "),
    ("--event ", "Event "),
    ("--session ", "Episode "),
];

/// `report` as the cockpit shows it: the same class and rule, the message and the fix
/// reworded for a form where the operation's words are a terminal's.
pub fn for_browser(report: &ErrorReport) -> ErrorReport {
    let mut message = report.message.clone();
    for (flag, field) in FIELDS {
        if let Some(rest) = message.strip_prefix(flag) {
            message = format!("{field}{rest}");
        }
    }
    let fix = |text: &str| Some(text.to_owned());
    let (message, fix) = match report.rule.as_str() {
        "knowledge.evidence" if report.message.contains("stdin") => (
            message.replace(
                "promotion needs evidence on stdin",
                "promotion needs evidence, and the Evidence box is empty",
            ),
            fix(
                "Write the evidence in the Evidence box: what shows the claim holds (a test, a file, a command and its output), then press Promote.",
            ),
        ),
        "knowledge.evidence" => (
            message,
            fix(
                "Replace the text in angle brackets with what shows the claim holds (a test, a file, a command and its output), then press Promote.",
            ),
        ),
        "knowledge.transcript-marker" => (
            message,
            fix(
                "Write it in your own words, without chat role labels or template tokens, then submit again.",
            ),
        ),
        "record.text" if report.message.starts_with("reason:") => (
            String::from("The Reason box is empty."),
            fix("Write in the Reason box why the candidate does not hold, then press Reject."),
        ),
        // Supersede and retire (a verified record's page).
        "record.text" if report.message.contains("a reason is needed") => (
            if report.message.contains("placeholder") {
                String::from("The Reason box holds only a template placeholder.")
            } else {
                String::from("The Reason box is empty.")
            },
            fix(
                "Write in the Reason box why the record no longer holds, then press Supersede or Retire.",
            ),
        ),
        "knowledge.replacement" if report.message.contains("itself superseded") => (
            message,
            fix(
                "Give in Replaced by the record that superseded it (its page names it): a verified record replaces this one.",
            ),
        ),
        // A retired record replaces nothing, and nothing it named does either.
        "knowledge.replacement" if report.message.contains("itself retired") => (
            message,
            fix(
                "That record was retired: nothing replaces anything through it. Give in Replaced by the id of a verified record the Graph page lists, or press Retire if nothing replaces this one.",
            ),
        ),
        "knowledge.replacement" if report.message.contains("a candidate;") => (
            message,
            fix(
                "Promote that candidate first, ticking this record in its promote form (it supersedes it in the same act).",
            ),
        ),
        "knowledge.replacement" if report.message.contains("cannot supersede itself") => (
            message,
            fix("Give another record in Replaced by, or press Retire: nothing replaces it."),
        ),
        "knowledge.replacement" if report.message.contains("no such verified record") => (
            message,
            fix("Give in Replaced by the id of a verified record the Graph page lists."),
        ),
        "knowledge.replacement" => (
            message,
            fix("Leave Replaced by empty, or give the id of a record the Graph page lists."),
        ),
        "knowledge.verified-only" => (message, fix("Reject it on its card in the review queue.")),
        "knowledge.known-id" => (
            message,
            fix(
                "Pick a candidate from the review queue: it may have been promoted or rejected since this page was loaded.",
            ),
        ),
        "knowledge.selection-required" => (
            String::from("No row is checked, and the whole filtered queue is not chosen."),
            fix(
                "Check the rows to decide on the review queue, or choose the whole filtered queue, then press Promote or Reject.",
            ),
        ),
        "knowledge.selection-empty" => (
            String::from("No candidate matches these filters."),
            fix("Change or clear the filters on the review queue."),
        ),
        "knowledge.already-promoted" | "knowledge.superseded" => (
            message,
            fix("Nothing to do: the record's page shows where it is now."),
        ),
        "id.shape" => (
            message,
            fix(
                "Use an id as the cockpit lists it: the review queue and the Graph page list knowledge ids, the Episodes page episode ids, the Tasks page task ids.",
            ),
        ),
        "task.known" => (
            message,
            fix("Pick a task the Tasks page lists, or leave Task empty."),
        ),
        "recall.path" => (
            message,
            fix("Give paths inside this repository, relative to its root, or leave Paths empty."),
        ),
        "recall.issue" => (
            message,
            fix("Give an issue the plan names (the Tasks page lists them), or leave Issue empty."),
        ),
        "request.valid" if report.message.starts_with("class ") => (message, report.fix.clone()),
        "request.valid" => (message, fix("Choose one of the values the form offers.")),
        "http.token" => (
            if report.message.contains("not this run's") {
                String::from("This form carries the token of another run of majordomus serve.")
            } else {
                String::from("This form carries no token of this run of majordomus serve.")
            },
            fix(
                "Reload the page (the server may have been restarted since it was loaded) and submit the form again.",
            ),
        ),
        "http.same-origin" => (
            message,
            fix(
                "Submit the form from this server's own pages (open the cockpit at the address majordomus serve printed).",
            ),
        ),
        "http.body-limit" => (
            String::from("The form's text is too long for one request."),
            fix(
                "Shorten the text; put a long explanation in a file under version control and name the file.",
            ),
        ),
        _ => (message, report.fix.clone()),
    };
    ErrorReport {
        class: report.class,
        rule: report.rule.clone(),
        message,
        fix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Class, Error, Refusal};

    /// Words of a terminal that a form's reader cannot act on.
    const TERMINAL: [&str; 4] = ["stdin", "Bearer", "--", "majordomus knowledge"];

    fn browser(error: Error) -> ErrorReport {
        for_browser(&error.report())
    }

    #[test]
    fn the_human_acts_refusals_name_the_form_and_keep_their_rule() {
        let id = "20261130T100000Z-abcdef-000000000001".to_owned();
        for (error, rule) in [
            (
                Error::from(Refusal::EvidenceRequired {
                    id: id.clone(),
                    fix: None,
                }),
                "knowledge.evidence",
            ),
            (
                Refusal::EvidencePlaceholder {
                    id: id.clone(),
                    placeholder: "<what shows this holds>".into(),
                    act: "promote",
                    fix: None,
                }
                .into(),
                "knowledge.evidence",
            ),
            (Refusal::EmptyText { what: "reason" }.into(), "record.text"),
            (
                Refusal::UnknownReplacement { id: id.clone() }.into(),
                "knowledge.replacement",
            ),
            (
                Refusal::UnknownKnowledge { id: id.clone() }.into(),
                "knowledge.known-id",
            ),
            (
                Refusal::IdShape {
                    kind: "knowledge",
                    id: "x".into(),
                    example: "20261130T100000Z-abcdef-000000000001",
                }
                .into(),
                "id.shape",
            ),
            (
                Refusal::AlreadyPromoted {
                    id: id.clone(),
                    fix: None,
                }
                .into(),
                "knowledge.already-promoted",
            ),
            (
                crate::model::knowledge::EndError::Reason {
                    act: crate::model::knowledge::EndAct::Retire,
                    why: "it is empty",
                    fix: format!(
                        "by hand: ... majordomus knowledge retire {id} --reason \"<why>\""
                    ),
                }
                .into(),
                "record.text",
            ),
            (
                crate::model::knowledge::EndError::Candidate {
                    id: id.clone(),
                    fix: format!("majordomus knowledge reject {id} --reason x"),
                }
                .into(),
                "knowledge.verified-only",
            ),
            (
                crate::model::knowledge::EndError::ReplacementEnded {
                    by: id.clone(),
                    how: crate::model::knowledge::EndedHow::SupersededBy("y".into()),
                    fix: format!("printf '%s\\n' x | majordomus knowledge supersede a --by {id}"),
                }
                .into(),
                "knowledge.replacement",
            ),
            (
                crate::model::knowledge::EndError::ReplacementEnded {
                    by: id.clone(),
                    how: crate::model::knowledge::EndedHow::Retired,
                    fix: "majordomus knowledge verified".into(),
                }
                .into(),
                "knowledge.replacement",
            ),
            (
                crate::model::knowledge::EndError::Itself {
                    id: id.clone(),
                    fix: format!("majordomus knowledge retire {id} --reason x"),
                }
                .into(),
                "knowledge.replacement",
            ),
        ] {
            let shown = browser(error);
            assert_eq!(shown.rule, rule);
            assert_eq!(shown.class, Class::Refused);
            let fix = shown.fix.as_deref().expect("a fix");
            for word in TERMINAL {
                assert!(!shown.message.contains(word), "{rule}: {}", shown.message);
                assert!(!fix.contains(word), "{rule}: {fix}");
            }
        }
        let evidence = browser(
            Refusal::EvidenceRequired {
                id: id.clone(),
                fix: None,
            }
            .into(),
        );
        assert_eq!(
            evidence.message,
            format!("knowledge {id}: promotion needs evidence, and the Evidence box is empty")
        );
        assert!(
            evidence
                .fix
                .as_deref()
                .is_some_and(|f| f.starts_with("Write the evidence in the Evidence box"))
        );
        let by = browser(Refusal::UnknownReplacement { id: id.clone() }.into());
        assert!(by.message.starts_with("Replaced by "), "{}", by.message);
    }

    #[test]
    fn the_guards_speak_of_the_page_not_of_headers() {
        let token = ErrorReport {
            class: Class::Refused,
            rule: "http.token".into(),
            message: "a state-changing request needs the token `majordomus serve` printed".into(),
            fix: Some(
                "send `Authorization: Bearer <token>` with the token majordomus serve printed at start"
                    .into(),
            ),
        };
        let shown = for_browser(&token);
        assert_eq!(shown.rule, "http.token");
        assert!(!shown.fix.as_deref().unwrap_or_default().contains("Bearer"));
        assert!(
            shown
                .fix
                .as_deref()
                .unwrap_or_default()
                .starts_with("Reload the page")
        );
    }

    #[test]
    fn a_filter_is_named_as_its_field() {
        let since = browser(
            crate::error::UsageError::InvalidSince {
                value: "yesterday".into(),
            }
            .into(),
        );
        assert_eq!(since.rule, "history.since");
        assert_eq!(since.message, "Since yesterday: not a timestamp");
    }

    #[test]
    fn an_error_it_does_not_know_passes_as_it_is() {
        let report = ErrorReport {
            class: Class::Failed,
            rule: "io".into(),
            message: "disk full".into(),
            fix: None,
        };
        assert_eq!(for_browser(&report), report);
    }
}
