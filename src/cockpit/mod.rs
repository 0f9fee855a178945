//! The cockpit (SPEC §9): server-rendered pages at `/cockpit`, served by `majordomus serve`
//! beside the JSON API. Every page calls the library's operations and renders their typed
//! results; the one write is the human act (promote, reject; re-verify, supersede, retire
//! a verified record), a form carrying the run's token. No JavaScript: plain links, GET forms for filters, POST forms answered by a
//! redirect (303) back to the page with what happened.

mod context;
mod doctor;
mod episodes;
mod flash;
mod history;
pub mod html;
mod knowledge;
mod lifecycle;
mod reasoning;
mod recall;
mod review;
mod tasks;
mod words;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::error::{Class, ErrorReport};
use crate::http::{ApiError, AppState};
use html::ROOT;

/// The stylesheet, served at `/cockpit/style.css`.
const STYLE: &str = include_str!("style.css");

/// What a page's response says beside its body: never cached (it is derived at every
/// read), never framed (a framing page could trick a click on Promote), no scripts, forms
/// only to this server.
const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("cache-control", "no-store"),
    (
        "content-security-policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
];

/// A rendered page (status 200 unless said otherwise).
#[derive(Debug)]
pub struct Page {
    status: StatusCode,
    html: String,
}

impl Page {
    /// `body` in the frame, with `current` marked in the nav.
    pub fn new(current: &str, title: &str, body: &str) -> Page {
        Page {
            status: StatusCode::OK,
            html: html::page(current, title, body),
        }
    }
}

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            self.html,
        )
            .into_response();
        for (name, value) in SECURITY_HEADERS {
            response
                .headers_mut()
                .insert(name, HeaderValue::from_static(value));
        }
        response
    }
}

/// A page that could not be shown: an operation's error (usage 400, refused 409, failed
/// 500) or a guard's refusal (401, 403), as a readable page with the rule and the fix.
#[derive(Debug)]
pub struct PageError {
    error: ApiError,
    /// Where to go back to, as `(path, label)`.
    back: Option<(String, &'static str)>,
    /// Markup shown after the error (the refused form again, with what was typed).
    after: Option<String>,
}

impl PageError {
    fn back(mut self, path: String, label: &'static str) -> PageError {
        self.back = Some((path, label));
        self
    }

    fn with(mut self, html: String) -> PageError {
        self.after = Some(html);
        self
    }
}

impl From<ApiError> for PageError {
    fn from(error: ApiError) -> PageError {
        PageError {
            error,
            back: None,
            after: None,
        }
    }
}

impl From<ErrorReport> for PageError {
    fn from(report: ErrorReport) -> PageError {
        ApiError::from_report(report).into()
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let title = match self.error.report.class {
            Class::Usage => "Not understood",
            Class::Refused => "Refused",
            Class::Failed => "Failed",
        };
        let mut body = html::error_block(&self.error.report);
        if let Some((path, label)) = &self.back {
            body.push_str(&format!(
                "<p><a href=\"{}\">{}</a></p>",
                html::escape(path),
                html::escape(label)
            ));
        }
        if let Some(after) = &self.after {
            body.push_str(after);
        }
        // The nav marks the page it goes back to; none when there is none (never Context,
        // whose path is the empty one).
        let current = self
            .back
            .as_ref()
            .and_then(|(path, _)| path.strip_prefix(ROOT))
            .unwrap_or("-");
        let mut page = Page::new(current, title, &body);
        page.status = self.error.status;
        page.into_response()
    }
}

/// A form's fields, decoded, from a POST body of at most [`crate::http::BODY_LIMIT`].
#[derive(Debug)]
struct Form {
    headers: HeaderMap,
    fields: Vec<(String, String)>,
}

impl Form {
    async fn read(request: Request) -> Result<Form, ApiError> {
        let (parts, body) = request.into_parts();
        let bytes = crate::http::read_body(body).await?;
        let fields = form_urlencoded::parse(&bytes)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Ok(Form {
            headers: parts.headers,
            fields,
        })
    }

    /// The field `name`, when given and not blank.
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.trim().is_empty())
    }
}

/// A query string's pairs, decoded.
pub(crate) fn query(request_query: Option<&str>) -> Vec<(String, String)> {
    form_urlencoded::parse(request_query.unwrap_or_default().as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The query parameter `name`, when given and not blank.
fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from(STYLE),
    )
        .into_response()
}

/// The cockpit's routes, for [`crate::http::router`] to serve beside the API.
pub fn pages() -> Router<AppState> {
    Router::new()
        .route(ROOT, get(context::page))
        .route(&format!("{ROOT}/style.css"), get(style))
        .route(&format!("{ROOT}/episodes"), get(episodes::page))
        .route(&format!("{ROOT}/review"), get(review::page))
        .route(&format!("{ROOT}/review"), post(review::batch))
        .route(&format!("{ROOT}/review/{{id}}"), get(review::card))
        .route(
            &format!("{ROOT}/knowledge/{{id}}/promote"),
            post(review::promote),
        )
        .route(
            &format!("{ROOT}/knowledge/{{id}}/reject"),
            post(review::reject),
        )
        .route(
            &format!("{ROOT}/knowledge/{{id}}/reverify"),
            post(lifecycle::reverify),
        )
        .route(
            &format!("{ROOT}/knowledge/{{id}}/supersede"),
            post(lifecycle::supersede),
        )
        .route(
            &format!("{ROOT}/knowledge/{{id}}/retire"),
            post(lifecycle::retire),
        )
        .route(&format!("{ROOT}/knowledge/{{id}}"), get(knowledge::show))
        .route(&format!("{ROOT}/graph"), get(knowledge::graph))
        .route(&format!("{ROOT}/history"), get(history::page))
        .route(&format!("{ROOT}/recall"), get(recall::page))
        .route(&format!("{ROOT}/doctor"), get(doctor::page))
        .route(&format!("{ROOT}/tasks"), get(tasks::page))
        .route(&format!("{ROOT}/reasoning"), get(reasoning::page))
}
