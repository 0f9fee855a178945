//! `/cockpit/history`: the ledger (`history`), filtered by event, episode and time through
//! a GET form; the newest lines first.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::Uri;

use super::html::{empty, episode_link, error_block, escape, or_dash, table};
use super::{Page, PageError, param, query};
use crate::history::HistoryRequest;
use crate::http::{ApiError, AppState};
use crate::model::Event;

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let pairs = query(uri.query());
    let request = HistoryRequest {
        event: param(&pairs, "event").into_iter().collect(),
        session: param(&pairs, "session"),
        since: param(&pairs, "since"),
        ..HistoryRequest::default()
    };
    let mut out = filters(&request);
    let read = {
        let request = request.clone();
        state
            .call(move |ops| ops.call::<_, crate::history::History>("history", request))
            .await
    };
    let history = match read {
        Ok(history) => history,
        Err(report) => {
            // A filter that does not parse: the form stays, with the error beside it.
            let status = ApiError::from_report(report.clone()).status;
            out.push_str(&error_block(&report));
            let mut page = Page::new("/history", "History", &out);
            page.status = status;
            return Ok(page);
        }
    };
    let _ = write!(out, "<p>{} line(s), newest first.</p>", history.lines.len());
    if !history.writers.is_empty() {
        let _ = write!(
            out,
            "<p class=\"muted\">Merged with {} other writer(s)' journal(s) this clone fetched (<code>majordomus journal status</code>): each of their lines names its writer and branch.</p>",
            history.writers.len()
        );
    }
    if let Some(pruned) = &history.pruned {
        let _ = write!(
            out,
            "<p class=\"muted\">Retention pruned {} older line(s) (before {}).</p>",
            pruned.lines,
            escape(&pruned.before)
        );
    }
    if history.lines.is_empty() {
        out.push_str(&empty("No ledger line matches."));
    } else {
        let rows: Vec<Vec<String>> = history
            .lines
            .iter()
            .rev()
            .map(|line| {
                vec![
                    writer_cell(line),
                    line.seq.to_string(),
                    escape(&line.ts),
                    format!("<code>{}</code>", escape(line.event.name())),
                    line.session
                        .as_deref()
                        .map_or_else(|| String::from("—"), episode_link),
                    or_dash(line.task.as_deref()),
                    format!("<code>{}</code>", escape(&line.data.to_string())),
                ]
            })
            .collect();
        out.push_str(&table(
            &["writer", "seq", "time", "event", "episode", "task", "data"],
            &rows,
        ));
    }
    if !history.journal_findings.is_empty() {
        let _ = write!(
            out,
            "<p class=\"muted\">{} journal commit(s) or line(s) were skipped reading the other writers' journals; <code>majordomus journal status</code> names them.</p>",
            history.journal_findings.len()
        );
    }
    if !history.skipped.is_empty() {
        let _ = write!(
            out,
            "<p class=\"muted\">{} line(s) could not be read (torn or unreadable); <code>majordomus doctor</code> says more.</p>",
            history.skipped.len()
        );
    }
    Ok(Page::new("/history", "History", &out))
}

/// Whose line it is: this checkout's, or another writer's (its id and branch).
fn writer_cell(line: &crate::history::HistoryLine) -> String {
    match &line.writer {
        None => "<span class=\"muted\">this checkout</span>".to_owned(),
        Some(writer) => format!(
            "<code>{}</code>{}",
            escape(writer),
            line.writer_branch
                .as_deref()
                .map(|b| format!(" on {}", escape(b)))
                .unwrap_or_default()
        ),
    }
}

/// The GET form, filled with the filters in use.
fn filters(request: &HistoryRequest) -> String {
    let mut events = String::from("<option value=\"\">every event</option>");
    for event in Event::ALL {
        let name = event.name();
        let selected = if request.event.iter().any(|e| e == name) {
            " selected"
        } else {
            ""
        };
        let _ = write!(events, "<option value=\"{name}\"{selected}>{name}</option>");
    }
    format!(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/history\">\
         <div><label for=\"event\">Event</label><select id=\"event\" name=\"event\">{events}</select></div>\
         <div><label for=\"session\">Episode</label><input type=\"text\" id=\"session\" name=\"session\" value=\"{}\" placeholder=\"an episode id\"></div>\
         <div><label for=\"since\">Since</label><input type=\"text\" id=\"since\" name=\"since\" value=\"{}\" placeholder=\"YYYY-MM-DD or RFC 3339\"></div>\
         <div><button type=\"submit\">Filter</button> <a href=\"/cockpit/history\">clear</a></div>\
         </form>",
        escape(request.session.as_deref().unwrap_or_default()),
        escape(request.since.as_deref().unwrap_or_default()),
    )
}
