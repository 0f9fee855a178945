//! `/cockpit/recall`: search what the repository knows (`recall`) through a GET form:
//! words, paths, a task, an issue, kinds and statuses; each hit with its status, why it
//! ranked and a link to read it whole (knowledge opens its record page).

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::Uri;

use super::html::{badge, empty, episode_link, error_block, escape, knowledge_link};
use super::{Page, PageError, param, query};
use crate::http::{ApiError, AppState};
use crate::model::recall::HitStatus;
use crate::recall::{RecallKind, RecallRequest};

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let pairs = query(uri.query());
    let many = |name: &str| -> Vec<String> {
        pairs
            .iter()
            .filter(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
            .collect()
    };
    let request = RecallRequest {
        query: param(&pairs, "q"),
        path: many("path")
            .iter()
            .flat_map(|p| p.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .collect(),
        task: param(&pairs, "task"),
        issue: param(&pairs, "issue"),
        kind: many("kind")
            .iter()
            .filter_map(|k| RecallKind::from_name(k))
            .collect(),
        status: many("status")
            .iter()
            .filter_map(|s| HitStatus::from_name(s))
            .collect(),
        all: param(&pairs, "all").is_some(),
        at_hand: param(&pairs, "at_hand").is_some(),
        limit: Some(50),
        ..RecallRequest::default()
    };
    let mut out = form(&request);
    let found = {
        let request = request.clone();
        state
            .call(move |ops| ops.call::<_, crate::recall::Recall>("recall", request))
            .await
    };
    let recall = match found {
        Ok(r) => r,
        Err(report) => {
            let status = ApiError::from_report(report.clone()).status;
            out.push_str(&error_block(&report));
            let mut page = Page::new("/recall", "Recall", &out);
            page.status = status;
            return Ok(page);
        }
    };
    let _ = write!(
        out,
        "<p>{} of {} hit(s).</p>",
        recall.hits.len(),
        recall.total
    );
    if !recall.context.at_hand.is_empty() {
        let _ = write!(
            out,
            "<p class=\"muted\">Ranked by the work at hand: {}.</p>",
            escape(&recall.context.at_hand.join("; "))
        );
    }
    if recall.hits.is_empty() {
        out.push_str(&empty("Nothing matches."));
    }
    out.push_str("<ol class=\"hits\">");
    for hit in &recall.hits {
        let tone = match hit.status {
            HitStatus::Verified => "good",
            HitStatus::Candidate => "quiet",
            HitStatus::Stale => "warn",
            HitStatus::Superseded => "bad",
        };
        let id = match hit.kind {
            RecallKind::Knowledge => knowledge_link(&hit.id),
            _ => format!("<code>{}</code>", escape(&hit.id)),
        };
        let why: Vec<String> = hit
            .why
            .iter()
            .map(|r| format!("{}: {}", escape(&r.signal), escape(&r.detail)))
            .collect();
        let episode = hit
            .episode
            .as_deref()
            .map(|e| format!(" · episode {}", episode_link(e)))
            .unwrap_or_default();
        let branch = hit
            .branch
            .as_deref()
            .map(|b| format!(" on <code>{}</code>", escape(b)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<li>{} <span class=\"muted\">{}</span> {id}<br>{}<br><span class=\"muted\">{}{episode}{branch}</span><br><span class=\"muted\">why — {}</span><br><code>{}</code></li>",
            badge(tone, hit.status.name()),
            escape(hit.kind.name()),
            escape(&hit.line),
            escape(&hit.date),
            why.join("; "),
            escape(&hit.read.command),
        );
    }
    out.push_str("</ol>");
    if let Some(more) = &recall.more {
        let _ = write!(
            out,
            "<p class=\"muted\">{} more: <code>{}</code></p>",
            recall.total - recall.hits.len(),
            escape(more)
        );
    }
    Ok(Page::new("/recall", "Recall", &out))
}

/// The GET form, filled with the search in use.
fn form(request: &RecallRequest) -> String {
    let mut kinds = String::new();
    for kind in RecallKind::ALL {
        let checked = if request.kind.contains(&kind) {
            " checked"
        } else {
            ""
        };
        let _ = write!(
            kinds,
            "<label><input type=\"checkbox\" name=\"kind\" value=\"{0}\"{checked}> {0}</label> ",
            kind.name()
        );
    }
    let mut statuses = String::new();
    for status in HitStatus::NAMES {
        let checked = if request.status.iter().any(|s| s.name() == status) {
            " checked"
        } else {
            ""
        };
        let _ = write!(
            statuses,
            "<label><input type=\"checkbox\" name=\"status\" value=\"{status}\"{checked}> {status}</label> "
        );
    }
    let flag = |on: bool| if on { " checked" } else { "" };
    format!(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/recall\">\
         <div><label for=\"q\">Words</label><input type=\"search\" id=\"q\" name=\"q\" value=\"{}\" placeholder=\"what to look for\"></div>\
         <div><label for=\"path\">Paths</label><input type=\"text\" id=\"path\" name=\"path\" value=\"{}\" placeholder=\"src/parser.rs src/lexer/\"></div>\
         <div><label for=\"task\">Task</label><input type=\"text\" id=\"task\" name=\"task\" value=\"{}\" placeholder=\"t-YYYYMMDD-xxxx\"></div>\
         <div><label for=\"issue\">Issue</label><input type=\"text\" id=\"issue\" name=\"issue\" value=\"{}\"></div>\
         <div>{kinds}</div><div>{statuses}\
         <label><input type=\"checkbox\" name=\"all\" value=\"1\"{}> superseded too</label> \
         <label><input type=\"checkbox\" name=\"at_hand\" value=\"1\"{}> by the work at hand</label></div>\
         <div><button type=\"submit\">Search</button> <a href=\"/cockpit/recall\">clear</a></div>\
         </form>",
        escape(request.query.as_deref().unwrap_or_default()),
        escape(&request.path.join(" ")),
        escape(request.task.as_deref().unwrap_or_default()),
        escape(request.issue.as_deref().unwrap_or_default()),
        flag(request.all),
        flag(request.at_hand),
    )
}
