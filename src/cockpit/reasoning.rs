//! `/cockpit/reasoning`: the reasoning of the work (`reasoning.status`) — assessments,
//! conclusions, disagreements, consultations, and the timeline of every record.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::Uri;

use super::html::{badge, empty, escape, label, or_dash, table};
use super::{Page, PageError, param, query};
use crate::http::AppState;
use crate::model::reasoning::status::AssessmentState;
use crate::reasoning::StatusRequest;

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let task = param(&query(uri.query()), "task");
    let report = {
        let task = task.clone();
        state
            .call(move |ops| {
                ops.call::<_, crate::reasoning::Status>("reasoning.status", StatusRequest { task })
            })
            .await?
    };
    let s = &report.status;
    let mut out = format!(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/reasoning\">\
         <div><label for=\"task\">Task</label><input type=\"text\" id=\"task\" name=\"task\" value=\"{}\" placeholder=\"default: the active task or the open episode\"></div>\
         <div><button type=\"submit\">Show</button></div></form>\
         <p class=\"muted\">Records of {}. {} token(s) reported by the advisors.</p>",
        escape(task.as_deref().unwrap_or_default()),
        report.folder.as_deref().map_or_else(
            || String::from("every task of this checkout"),
            |f| format!("<code>{}</code>", escape(f))
        ),
        s.tokens.total(),
    );

    out.push_str("<h2>Assessments</h2>");
    if s.assessments.is_empty() {
        out.push_str(&empty("No assessment recorded."));
    } else {
        let rows: Vec<Vec<String>> = s
            .assessments
            .iter()
            .map(|a| {
                let state = match a.state {
                    AssessmentState::Validated => badge("good", "validated"),
                    AssessmentState::Concluded => badge("good", "concluded"),
                    AssessmentState::Disputed => badge("bad", "disputed"),
                    AssessmentState::Planned => badge("warn", "planned"),
                    AssessmentState::Open => badge("quiet", "open"),
                };
                vec![
                    format!("<code>{}</code>", escape(&a.id)),
                    escape(&a.subject),
                    label(&a.materiality),
                    state,
                    escape(&a.conclusions.join(", ")),
                ]
            })
            .collect();
        out.push_str(&table(
            &["id", "subject", "materiality", "state", "conclusions"],
            &rows,
        ));
    }

    out.push_str("<h2>Conclusions</h2>");
    if s.conclusions.is_empty() {
        out.push_str(&empty("No conclusion recorded."));
    } else {
        let rows: Vec<Vec<String>> = s
            .conclusions
            .iter()
            .map(|c| {
                vec![
                    format!("<code>{}</code>", escape(&c.id)),
                    escape(&c.decision),
                    format!(
                        "{} independent ({})",
                        c.independent_review_count,
                        escape(&c.reviewed_by.join(", "))
                    ),
                    c.validation
                        .as_ref()
                        .map_or_else(|| String::from("not validated"), label),
                    or_dash(c.superseded_by.as_deref()),
                ]
            })
            .collect();
        out.push_str(&table(
            &["id", "decision", "reviews", "validation", "superseded by"],
            &rows,
        ));
    }

    out.push_str("<h2>Disagreements</h2>");
    if s.disagreements.is_empty() {
        out.push_str(&empty("None."));
    } else {
        let rows: Vec<Vec<String>> = s
            .disagreements
            .iter()
            .map(|d| {
                vec![
                    format!("<code>{}</code>", escape(&d.id)),
                    escape(&d.question),
                    escape(&d.holders.join(", ")),
                    if d.resolved {
                        badge("good", "resolved")
                    } else {
                        badge("bad", "unresolved")
                    },
                ]
            })
            .collect();
        out.push_str(&table(&["id", "question", "holders", "state"], &rows));
    }

    out.push_str("<h2>Consultations</h2>");
    if s.consultations.is_empty() {
        out.push_str(&empty("None."));
    } else {
        let rows: Vec<Vec<String>> = s
            .consultations
            .iter()
            .map(|c| {
                vec![
                    format!("<code>{}</code>", escape(&c.id)),
                    escape(&c.advisor),
                    label(&c.status),
                    c.stance.as_ref().map_or_else(|| String::from("—"), label),
                    format!("{} ms", c.duration_ms),
                ]
            })
            .collect();
        out.push_str(&table(
            &["id", "advisor", "status", "stance", "duration"],
            &rows,
        ));
    }

    out.push_str("<h2>Timeline</h2>");
    if s.timeline.is_empty() {
        out.push_str(&empty("No reasoning records for this work."));
    } else {
        out.push_str("<ol class=\"timeline\">");
        for entry in &s.timeline {
            let _ = write!(
                out,
                "<li><span class=\"muted\">{}</span> {} <code>{}</code> {}</li>",
                escape(&entry.recorded_at),
                label(&entry.kind),
                escape(&entry.id),
                escape(&entry.summary)
            );
        }
        out.push_str("</ol>");
    }
    Ok(Page::new("/reasoning", "Reasoning", &out))
}
