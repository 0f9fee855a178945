//! `/cockpit/tasks`: every task (`task.list`), the plan's validation (`intent.validate`),
//! and the binding asked through a GET form (`intent.binding`).

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::Uri;

use super::html::{badge, empty, episode_link, error_block, escape, label, or_dash, table};
use super::{Page, PageError, param, query};
use crate::http::AppState;
use crate::intent::{BindingAsk, ValidateRequest};
use crate::model::intent::Binding;
use crate::model::task::TaskState;
use crate::task::TaskListRequest;

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let pairs = query(uri.query());
    let ask = BindingAsk {
        issue: param(&pairs, "issue"),
        intent: param(&pairs, "intent"),
        scope: pairs
            .iter()
            .filter(|(k, v)| k == "scope" && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
            .collect(),
        exempt: param(&pairs, "exempt"),
        because: param(&pairs, "because"),
    };
    let asked = ask.names_anything() || !ask.scope.is_empty();
    let form = binding_form(&ask);
    let (tasks, validation, binding) = state
        .call(move |ops| {
            let tasks: crate::task::TaskList = ops.call("task.list", TaskListRequest {})?;
            // The plan's validation and the binding are shown beside the tasks: their
            // errors (an unreadable plan) are said there, not instead of the page.
            let validation = ops
                .call::<_, crate::intent::IntentValidation>("intent.validate", ValidateRequest {})
                .map_err(|e| e.report());
            let binding = asked.then(|| {
                ops.call::<_, Binding>("intent.binding", ask)
                    .map_err(|e| e.report())
            });
            Ok((tasks, validation, binding))
        })
        .await?;

    let mut out = String::from("<h2>Tasks</h2>");
    if tasks.tasks.is_empty() {
        out.push_str(&empty(
            "No task started in this checkout (majordomus task start).",
        ));
    } else {
        let rows: Vec<Vec<String>> = tasks
            .tasks
            .iter()
            .rev()
            .map(|t| {
                let state = match t.state {
                    TaskState::Active if tasks.active.as_deref() == Some(&t.id) => {
                        badge("good", "active")
                    }
                    TaskState::Active => badge("quiet", "active"),
                    TaskState::Completed => badge("good", "completed"),
                    TaskState::Blocked => badge("bad", "blocked"),
                };
                let serves = match (&t.issue, &t.intent, &t.exemption) {
                    (Some(issue), _, _) => format!("issue <code>{}</code>", escape(issue)),
                    (None, Some(intent), _) => format!("intent <code>{}</code>", escape(intent)),
                    (None, None, Some(exempt)) => format!("exempt: {}", escape(exempt)),
                    (None, None, None) => String::from("—"),
                };
                vec![
                    format!(
                        "<code id=\"task-{}\">{}</code>",
                        escape(&super::html::encode(&t.id)),
                        escape(&t.id)
                    ),
                    escape(&t.description),
                    state,
                    serves,
                    t.binding
                        .as_ref()
                        .map_or_else(|| String::from("not asked"), label),
                    episode_link(&t.episode),
                    escape(&t.started),
                    or_dash(t.reason.as_deref()),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "id", "task", "state", "serves", "binding", "episode", "started", "reason",
            ],
            &rows,
        ));
    }

    out.push_str("<h2>Plan validation</h2>");
    match validation {
        Ok(v) => {
            let _ = write!(out, "<p>{} intent(s) declared.</p>", v.intents);
            if v.findings.is_empty() {
                out.push_str(&empty("No findings: no work began without a critique."));
            } else {
                let rows: Vec<Vec<String>> = v
                    .findings
                    .iter()
                    .map(|f| {
                        vec![
                            format!("<code>{}</code>", escape(&f.file)),
                            escape(&f.message),
                            format!("<code>{}</code>", escape(&f.fix)),
                            label(&f.severity),
                        ]
                    })
                    .collect();
                out.push_str(&table(&["file", "finding", "fix", "severity"], &rows));
            }
        }
        Err(report) => out.push_str(&error_block(&report)),
    }

    out.push_str("<h2>Binding</h2><p>What a task would serve, asked now from the plan.</p>");
    out.push_str(&form);
    match binding {
        Some(Ok(binding)) => out.push_str(&render_binding(&binding)),
        Some(Err(report)) => out.push_str(&error_block(&report)),
        None => {}
    }
    Ok(Page::new("/tasks", "Tasks and intents", &out))
}

fn binding_form(ask: &BindingAsk) -> String {
    let value = |v: &Option<String>| escape(v.as_deref().unwrap_or_default());
    format!(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/tasks\">\
         <div><label for=\"issue\">Issue</label><input type=\"text\" id=\"issue\" name=\"issue\" value=\"{}\"></div>\
         <div><label for=\"intent\">Intent</label><input type=\"text\" id=\"intent\" name=\"intent\" value=\"{}\"></div>\
         <div><label for=\"scope\">Scope (a path)</label><input type=\"text\" id=\"scope\" name=\"scope\" value=\"{}\"></div>\
         <div><button type=\"submit\">Ask the binding</button></div>\
         </form>",
        value(&ask.issue),
        value(&ask.intent),
        escape(ask.scope.first().map(String::as_str).unwrap_or_default()),
    )
}

fn render_binding(binding: &Binding) -> String {
    let mut out = format!(
        "<p>Status: {}</p><pre>{}</pre>",
        label(&binding.status),
        escape(&binding.summary())
    );
    if !binding.outside_scope.is_empty() {
        out.push_str("<p>Changed outside the scope:</p><ul>");
        for f in &binding.outside_scope {
            let _ = write!(out, "<li><code>{}</code></li>", escape(f));
        }
        out.push_str("</ul>");
    }
    out
}
