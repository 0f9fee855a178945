//! `/cockpit/doctor`: every rule of the effective set (`doctor`), grouped as doctor groups
//! them — failing blocking, failing advisory, passing, skipped — each with its findings.

use std::fmt::Write as _;

use axum::extract::State;

use super::html::{badge, empty, escape, label, table};
use super::{Page, PageError};
use crate::doctor::{DoctorRequest, RuleResult, RuleStatus};
use crate::http::AppState;
use crate::model::verdict::Severity;

/// Whether a rule belongs to a group of the page.
type Belongs = fn(&RuleResult) -> bool;

pub async fn page(State(state): State<AppState>) -> Result<Page, PageError> {
    let report = state
        .call(|ops| ops.call::<_, crate::doctor::DoctorReport>("doctor", DoctorRequest::default()))
        .await?;
    let mut out = String::new();
    let _ = write!(
        out,
        "<p>{} rule(s): {} blocking finding(s), {} advisory. {}</p>",
        report.rules.len(),
        report.blocking,
        report.advisory,
        match (report.blocking, report.advisory) {
            (0, 0) => badge("good", "pass"),
            (0, _) => badge("warn", "advisory"),
            _ => badge("bad", "blocking"),
        }
    );
    let groups: [(&str, Belongs); 4] = [
        ("Failing: blocking", |r| {
            r.status == RuleStatus::Fail && r.severity == Severity::Blocking
        }),
        ("Failing: advisory", |r| {
            r.status == RuleStatus::Fail && r.severity == Severity::Advisory
        }),
        ("Passing", |r| r.status == RuleStatus::Pass),
        ("Skipped", |r| r.status == RuleStatus::Skipped),
    ];
    for (title, belongs) in groups {
        let rules: Vec<&RuleResult> = report.rules.iter().filter(|r| belongs(r)).collect();
        let _ = write!(out, "<h2>{} ({})</h2>", escape(title), rules.len());
        if rules.is_empty() {
            out.push_str(&empty("None."));
        }
        for rule in rules {
            out.push_str(&render_rule(rule));
        }
    }
    Ok(Page::new("/doctor", "Doctor", &out))
}

fn render_rule(rule: &RuleResult) -> String {
    let status = match rule.status {
        RuleStatus::Pass => badge("good", "pass"),
        RuleStatus::Fail if rule.severity == Severity::Blocking => badge("bad", "fail"),
        RuleStatus::Fail => badge("warn", "fail"),
        RuleStatus::Skipped => badge("quiet", "skipped"),
    };
    let mut out = format!(
        "<h3><code>{}</code> {status} <span class=\"muted\">{}</span></h3><p>{}</p><p class=\"muted\">declared in <code>{}</code></p>",
        escape(&rule.rule),
        label(&rule.severity),
        escape(&rule.description),
        escape(&rule.declared_in),
    );
    if let Some(note) = &rule.note {
        let _ = write!(out, "<p>{}</p>", escape(note));
    }
    if !rule.findings.is_empty() {
        let rows: Vec<Vec<String>> = rule
            .findings
            .iter()
            .map(|folded| {
                let f = &folded.finding;
                vec![
                    file_cell(&f.file, &f.rule),
                    escape(&folded.said()),
                    format!("<code>{}</code>", escape(&f.fix)),
                    label(&f.severity),
                ]
            })
            .collect();
        out.push_str(&table(&["file", "finding", "fix", "severity"], &rows));
    }
    out
}

/// A finding's file: a knowledge record links to its page, where a stale one is decided
/// (re-verified, superseded or retired) and a candidate reviewed.
fn file_cell(file: &str, rule: &str) -> String {
    let id = file
        .strip_prefix(".ai/repo/knowledge/curated/")
        .or_else(|| file.strip_prefix(".ai/repo/knowledge/candidates/"))
        .and_then(|f| f.strip_suffix(".md"))
        .filter(|id| crate::model::ids::IdKind::Knowledge.accepts(id));
    match id {
        Some(id) => {
            let anchor = if rule == "majordomus.knowledge-stale" {
                "#decide"
            } else {
                ""
            };
            format!(
                "<a href=\"/cockpit/knowledge/{}{anchor}\"><code>{}</code></a>",
                escape(&super::html::encode(id)),
                escape(file)
            )
        }
        None => format!("<code>{}</code>", escape(file)),
    }
}
