//! `/cockpit/review`: the knowledge review queue (`knowledge.candidates`) and the human act
//! on each candidate — a promote form (evidence) and a reject form (reason), posted with
//! the run's token and answered by a redirect back to the queue saying what happened.

use std::fmt::Write as _;

use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, Uri};
use axum::response::Redirect;

use super::html::{badge, empty, encode, escape, knowledge_link, label};
use super::{Form, Page, PageError, param, query};
use crate::http::{ApiError, AppState};
use crate::knowledge::{CandidateState, CandidatesRequest, PromoteRequest, RejectRequest};
use crate::model::knowledge::Class;

const QUEUE: &str = "/cockpit/review";

/// What the last act did, from the redirect's query (typed, never free text).
enum Flash {
    Promoted(String),
    Rejected(String),
}

impl Flash {
    fn from_query(pairs: &[(String, String)]) -> Option<Flash> {
        param(pairs, "promoted")
            .map(Flash::Promoted)
            .or_else(|| param(pairs, "rejected").map(Flash::Rejected))
    }

    fn render(&self) -> String {
        match self {
            Flash::Promoted(id) => format!(
                "<p class=\"flash\" role=\"status\">Promoted {}: it is curated knowledge now, in <code>.ai/repo/knowledge/curated/</code>.</p>",
                knowledge_link(id)
            ),
            Flash::Rejected(id) => format!(
                "<p class=\"flash\" role=\"status\">Rejected {}: it stays, marked superseded.</p>",
                knowledge_link(id)
            ),
        }
    }
}

/// The promote and reject forms of candidate `id`, with the run's `token` hidden in each.
pub fn acts(id: &str, token: &str) -> String {
    let target = escape(&encode(id));
    let token = escape(token);
    let mut classes = String::from("<option value=\"\">keep the derived class</option>");
    for name in Class::NAMES {
        let _ = write!(classes, "<option value=\"{name}\">{name}</option>");
    }
    format!(
        "<div class=\"acts\">\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/promote\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"evidence-{target}\">Evidence</label>\
         <textarea id=\"evidence-{target}\" name=\"evidence\" required placeholder=\"What shows the claim holds: a test, a file, a command and its output\"></textarea>\
         <label for=\"class-{target}\">Class</label>\
         <select id=\"class-{target}\" name=\"class\">{classes}</select>\
         <button type=\"submit\" class=\"promote\">Promote</button>\
         </form>\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/reject\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"reason-{target}\">Reason</label>\
         <input type=\"text\" id=\"reason-{target}\" name=\"reason\" required placeholder=\"Why it is rejected\">\
         <label for=\"by-{target}\">Replaced by (optional)</label>\
         <input type=\"text\" id=\"by-{target}\" name=\"by\" placeholder=\"a knowledge id\">\
         <button type=\"submit\" class=\"reject\">Reject</button>\
         </form></div>"
    )
}

pub async fn page(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let listing = state
        .run(|ctx| crate::knowledge::candidates(ctx, CandidatesRequest::default()))
        .await?;
    let mut out = String::new();
    if let Some(flash) = Flash::from_query(&query(uri.query())) {
        out.push_str(&flash.render());
    }
    let _ = write!(
        out,
        "<p>{} candidate(s) await review. Promoting needs evidence; rejecting needs a reason. Both are human acts: no agent surface offers them.</p>",
        listing.candidates.len()
    );
    if listing.candidates.is_empty() {
        out.push_str(&empty("The queue is empty."));
    }
    for c in &listing.candidates {
        let state_badge = match c.state {
            CandidateState::Tracked => badge("good", "tracked"),
            CandidateState::Untracked => badge("warn", "untracked"),
            CandidateState::Outbox | CandidateState::Branch => badge("quiet", c.state.name()),
        };
        let _ = write!(
            out,
            "<article class=\"candidate\"><h2>{}</h2><p>{} · {} · {} {state_badge}</p><p class=\"muted\"><code>{}</code></p>{}</article>",
            escape(&c.title),
            knowledge_link(&c.id),
            label(&c.class),
            escape(&c.date),
            escape(&c.path),
            acts(&c.id, state.token()),
        );
    }
    if !listing.unreadable.is_empty() {
        out.push_str("<h2>Unreadable files</h2><p>These are not records (<code>majordomus knowledge check</code> says why):</p><ul>");
        for f in &listing.unreadable {
            let _ = write!(out, "<li><code>{}</code></li>", escape(f));
        }
        out.push_str("</ul>");
    }
    Ok(Page::new("/review", "Review queue", &out))
}

/// The error page of a refused act, linking back to the queue.
fn refused(error: impl Into<PageError>) -> PageError {
    error
        .into()
        .back(QUEUE.to_owned(), "Back to the review queue")
}

/// `POST /cockpit/knowledge/{id}/promote`: `knowledge.promote` with the form's evidence.
pub async fn promote(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let class = match form.field("class") {
        None => None,
        Some(name) => Some(Class::from_name(name).ok_or_else(|| {
            refused(ApiError::surface(
                StatusCode::BAD_REQUEST,
                crate::error::Class::Usage,
                "request.valid",
                format!("class {name:?} is not a knowledge class"),
                "choose fact, convention, constraint, memory or lesson, or keep the derived class",
            ))
        })?),
    };
    let request = PromoteRequest {
        id,
        class,
        evidence: form.field("evidence").unwrap_or_default().to_owned(),
    };
    let promoted = state
        .run(move |ctx| crate::knowledge::promote(ctx, request))
        .await
        .map_err(refused)?;
    Ok(Redirect::to(&format!(
        "{QUEUE}?promoted={}",
        encode(&promoted.id)
    )))
}

/// `POST /cockpit/knowledge/{id}/reject`: `knowledge.reject` with the form's reason.
pub async fn reject(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let request = RejectRequest {
        id,
        reason: form.field("reason").unwrap_or_default().to_owned(),
        by: form.field("by").map(str::to_owned),
    };
    let rejected = state
        .run(move |ctx| crate::knowledge::reject(ctx, request))
        .await
        .map_err(refused)?;
    Ok(Redirect::to(&format!(
        "{QUEUE}?rejected={}",
        encode(&rejected.id)
    )))
}
