//! The mesh server's routes under `/api/v1/mesh/` (SPEC §7, docs/MESH.md): thin handlers
//! over [`crate::mesh::hub::Hub`], which holds the linked runtimes and the review requests
//! in memory. Every mesh request, reads included, needs the server's token.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{ApiError, AppState, read_body};
use crate::error::Class;
use crate::mesh::hub::{Hub, HubRefusal};
use crate::mesh::wire::{AnswerBody, KeyBody, LinkBody, RequestBody};

/// The hub and the moment the server started (the hub's clock is milliseconds since).
#[derive(Debug)]
pub struct MeshState {
    hub: Mutex<Hub>,
    epoch: Instant,
}

impl MeshState {
    pub fn new(window_seconds: u64) -> MeshState {
        MeshState {
            hub: Mutex::new(Hub::new(window_seconds)),
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn with<T>(&self, f: impl FnOnce(&mut Hub, u64) -> T) -> T {
        let now = self.now();
        let mut hub = self.hub.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut hub, now)
    }
}

impl From<HubRefusal> for ApiError {
    fn from(r: HubRefusal) -> ApiError {
        let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::CONFLICT);
        let class = if status == StatusCode::BAD_REQUEST {
            Class::Usage
        } else {
            Class::Refused
        };
        ApiError::surface(status, class, r.rule, r.message, &r.fix)
    }
}

fn json<T: Serialize>(value: &T) -> Response {
    axum::Json(serde_json::to_value(value).expect("mesh bodies serialise")).into_response()
}

async fn body<T: DeserializeOwned>(raw: axum::body::Body) -> Result<T, ApiError> {
    let bytes = read_body(raw).await?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::surface(
            StatusCode::BAD_REQUEST,
            Class::Usage,
            "request.valid",
            format!("the body does not read: {e}"),
            "docs/MESH.md lists each mesh route's body",
        )
    })
}

fn shared(state: &AppState) -> &Arc<MeshState> {
    &state.mesh
}

/// Every mesh request needs the token, reads included; said in the mesh's words.
fn authorize(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    state.authorize(headers, None).map_err(|mut e| {
        if e.report.rule == "http.token" {
            e.report.message = if headers.contains_key(axum::http::header::AUTHORIZATION) {
                "the token is not this server's".to_owned()
            } else {
                "every mesh request, reads included, needs the server's token".to_owned()
            };
            e.report.fix = Some(
                "set MAJORDOMUS_SERVER_TOKEN to the token majordomus serve printed (or its --token-file's)"
                    .to_owned(),
            );
        }
        e
    })
}

async fn link(
    State(state): State<AppState>,
    headers: HeaderMap,
    raw: axum::body::Body,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let request: LinkBody = body(raw).await?;
    let wall = crate::model::time::rfc3339(time::OffsetDateTime::now_utc());
    let linked = shared(&state).with(|hub, now| hub.link(request, now, &wall))?;
    Ok(json(&linked))
}

async fn runtimes(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    Ok(json(&shared(&state).with(|hub, now| hub.runtimes(now))))
}

async fn unlink(
    State(state): State<AppState>,
    Path(runtime): Path<String>,
    headers: HeaderMap,
    raw: axum::body::Body,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let request: KeyBody = body(raw).await?;
    let done = shared(&state).with(|hub, now| hub.unlink(&runtime, &request.key, now))?;
    Ok(json(&done))
}

async fn waiting(
    State(state): State<AppState>,
    Path(runtime): Path<String>,
    headers: HeaderMap,
    raw: axum::body::Body,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let request: KeyBody = body(raw).await?;
    let waiting = shared(&state).with(|hub, now| hub.waiting(&runtime, &request.key, now))?;
    Ok(json(&waiting))
}

async fn submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    raw: axum::body::Body,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let request: RequestBody = body(raw).await?;
    let id = super::new_token().map_err(|e| ApiError::from_report(e.report()))?;
    let submitted = shared(&state).with(|hub, now| hub.submit(id, request, now))?;
    Ok((
        StatusCode::CREATED,
        axum::Json(serde_json::to_value(submitted).expect("serialises")),
    )
        .into_response())
}

async fn request(
    State(state): State<AppState>,
    Path(request): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    Ok(json(
        &shared(&state).with(|hub, now| hub.request(&request, now))?,
    ))
}

async fn answer(
    State(state): State<AppState>,
    Path(request): Path<String>,
    headers: HeaderMap,
    raw: axum::body::Body,
) -> Result<Response, ApiError> {
    authorize(&state, &headers)?;
    let answer: AnswerBody = body(raw).await?;
    Ok(json(
        &shared(&state).with(|hub, now| hub.answer(&request, answer, now))?,
    ))
}

/// The mesh routes, to merge into a router with [`AppState`].
pub fn routes() -> Router<AppState> {
    use axum::routing::{get, post};
    let api = crate::mesh::API;
    Router::new()
        .route(&format!("{api}/runtimes"), post(link).get(runtimes))
        .route(&format!("{api}/runtimes/{{runtime}}/unlink"), post(unlink))
        .route(
            &format!("{api}/runtimes/{{runtime}}/waiting"),
            post(waiting),
        )
        .route(&format!("{api}/requests"), post(submit))
        .route(&format!("{api}/requests/{{request}}"), get(request))
        .route(&format!("{api}/requests/{{request}}/answer"), post(answer))
}
