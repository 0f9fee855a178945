//! The HTTP surface (SPEC §9): `majordomus serve`, JSON under `/api/v1/` generated from
//! the registry (GET for reads, POST for writes), its OpenAPI document, and room for
//! pages beside the API ([`router`] takes an extra router). Binds 127.0.0.1 only.
//!
//! Guards: every request must name this server in `Host` (a DNS-rebinding page cannot
//! reach it); a write needs the per-run token (`Authorization: Bearer`, or a form's
//! `token` field through [`AppState::authorize`]) and must not come from another origin.
//! Reads need no token: only this machine can connect, and a foreign page can neither
//! pass the Host check nor read a cross-origin answer.

pub mod mesh;
pub mod openapi;
pub mod request;
pub mod routes;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::error::{Class, Error, ErrorReport};
use crate::ops::{Caller, Invoked, Registry};
use crate::store::StoreError;
use crate::{Clock, Ctx};
use routes::{Method, Route};

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// What every handler shares: the registry, the repository, the token and the origin.
#[derive(Clone)]
pub struct AppState {
    registry: Arc<Registry>,
    dir: Arc<PathBuf>,
    token: Arc<str>,
    port: u16,
    /// The mesh server's state (linked runtimes, review requests).
    mesh: Arc<mesh::MeshState>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("dir", &self.dir)
            .field("port", &self.port)
            .finish()
    }
}

/// An error as HTTP answers it: a status and `{"error": {code, class, rule, message, fix}}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub report: ErrorReport,
}

impl ApiError {
    /// An operation's error: usage 400, refused 409, failed 500 (SPEC §10).
    pub fn from_report(report: ErrorReport) -> ApiError {
        let status = match report.class {
            Class::Usage => StatusCode::BAD_REQUEST,
            Class::Refused => StatusCode::CONFLICT,
            Class::Failed => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError { status, report }
    }

    /// An error of the HTTP surface itself (auth, size, routing).
    pub(crate) fn surface(
        status: StatusCode,
        class: Class,
        rule: &str,
        message: String,
        fix: &str,
    ) -> ApiError {
        ApiError {
            status,
            report: ErrorReport {
                class,
                rule: rule.to_owned(),
                message,
                fix: Some(fix.to_owned()),
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({
            "error": {
                "code": self.status.as_u16(),
                "class": self.report.class,
                "rule": self.report.rule,
                "message": self.report.message,
                "fix": self.report.fix,
            }
        });
        (self.status, axum::Json(body)).into_response()
    }
}

impl AppState {
    /// The state of a server for the repository containing `dir`, on `port`.
    pub fn new(registry: Registry, dir: PathBuf, token: String, port: u16) -> AppState {
        AppState {
            registry: Arc::new(registry),
            dir: Arc::new(dir),
            token: token.into(),
            port,
            mesh: Arc::new(mesh::MeshState::new(
                crate::mesh::hub::DEFAULT_WINDOW_SECONDS,
            )),
        }
    }

    /// The same state with the mesh's heartbeat window set.
    pub fn with_heartbeat_window(mut self, seconds: u64) -> AppState {
        self.mesh = Arc::new(mesh::MeshState::new(seconds));
        self
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// This run's token, for the hidden field of a page's form.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The origins this server answers as.
    fn origins(&self) -> [String; 2] {
        [
            format!("http://127.0.0.1:{}", self.port),
            format!("http://localhost:{}", self.port),
        ]
    }

    /// Runs `operation` on the blocking pool: the repository opened for this request,
    /// the clock from `MAJORDOMUS_NOW`, writes stamped with the open episode.
    pub async fn invoke(&self, operation: &str, request: Value) -> Result<Invoked, ErrorReport> {
        let registry = Arc::clone(&self.registry);
        let operation = operation.to_owned();
        self.run(move |ctx| registry.invoke(ctx, &operation, request))
            .await
    }

    /// Runs `read` on the blocking pool with the repository opened for this request and
    /// this server's registry: how a page calls operations (each through its entry, as
    /// an API request runs it) and renders their typed results.
    pub async fn call<T, F>(&self, read: F) -> Result<T, ErrorReport>
    where
        T: Send + 'static,
        F: FnOnce(Caller<'_>) -> Result<T, Error> + Send + 'static,
    {
        let registry = Arc::clone(&self.registry);
        self.run(move |ctx| {
            read(Caller {
                ctx,
                registry: &registry,
            })
        })
        .await
    }

    /// Runs `read` on the blocking pool with the repository opened for this request (the
    /// clock from `MAJORDOMUS_NOW`), for a page that calls the library's operations and
    /// renders their typed results.
    pub async fn run<T, F>(&self, read: F) -> Result<T, ErrorReport>
    where
        T: Send + 'static,
        F: FnOnce(&Ctx) -> Result<T, Error> + Send + 'static,
    {
        let dir = Arc::clone(&self.dir);
        let outcome = tokio::task::spawn_blocking(move || -> Result<T, Error> {
            let ctx = Ctx::open(&dir, Clock::from_env()?)?;
            read(&ctx)
        })
        .await;
        match outcome {
            Ok(result) => result.map_err(|e| e.report()),
            Err(join) => Err(Error::from(StoreError::io(
                Path::new("request"),
                std::io::Error::other(join.to_string()),
            ))
            .report()),
        }
    }

    /// Refuses a state-changing request unless it comes from this server's origin (or
    /// names none, like a command-line client) and carries the token, in the
    /// `Authorization: Bearer` header or as `form_token` (a form's hidden field).
    pub fn authorize(&self, headers: &HeaderMap, form_token: Option<&str>) -> Result<(), ApiError> {
        let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
        let cross = |origin: &str| !self.origins().iter().any(|o| o == origin);
        let forbidden = |what: String| {
            ApiError::surface(
                StatusCode::FORBIDDEN,
                Class::Refused,
                "http.same-origin",
                what,
                "send state-changing requests from this server's own pages, or without Origin (curl, scripts)",
            )
        };
        if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
            && !matches!(site, "same-origin" | "none")
        {
            return Err(forbidden(format!(
                "Sec-Fetch-Site: {site}: a request from another site"
            )));
        }
        if let Some(origin) = text(header::ORIGIN) {
            if cross(origin) {
                return Err(forbidden(format!("Origin {origin} is not this server")));
            }
        } else if let Some(referer) = text(header::REFERER) {
            let same = self
                .origins()
                .iter()
                .any(|o| referer == o || referer.starts_with(&format!("{o}/")));
            if !same {
                return Err(forbidden(format!("Referer {referer} is not this server")));
            }
        }
        let bearer = text(header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        match bearer.or(form_token) {
            Some(token) if crate::mesh::hub::same_secret(token.trim(), &self.token) => Ok(()),
            given => Err(ApiError::surface(
                StatusCode::UNAUTHORIZED,
                Class::Refused,
                "http.token",
                if given.is_some() {
                    "the token is not this run's".to_owned()
                } else {
                    "a state-changing request needs the token `majordomus serve` printed".to_owned()
                },
                "send `Authorization: Bearer <token>` with the token majordomus serve printed at start",
            )),
        }
    }
}

/// Refuses a request whose `Host` is not this server (DNS rebinding).
async fn host_check(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let allowed = [
        format!("127.0.0.1:{}", state.port),
        format!("localhost:{}", state.port),
    ];
    if !allowed.iter().any(|a| a == host) {
        return ApiError::surface(
            StatusCode::FORBIDDEN,
            Class::Refused,
            "http.host",
            format!("Host {host:?} is not this server"),
            "address the server as http://127.0.0.1:<port>",
        )
        .into_response();
    }
    next.run(request).await
}

/// The query string's pairs, decoded.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A body read whole, refused beyond [`BODY_LIMIT`].
pub(crate) async fn read_body(body: Body) -> Result<axum::body::Bytes, ApiError> {
    axum::body::to_bytes(body, BODY_LIMIT).await.map_err(|_| {
        ApiError::surface(
            StatusCode::PAYLOAD_TOO_LARGE,
            Class::Usage,
            "http.body-limit",
            format!("the request body exceeds {BODY_LIMIT} bytes"),
            "send a smaller body (records are short claims, not documents)",
        )
    })
}

fn usage(rule: &str, message: String, fix: &str) -> ApiError {
    ApiError::surface(StatusCode::BAD_REQUEST, Class::Usage, rule, message, fix)
}

/// Serves one route: the request object from the path and the query (GET) or the body
/// (POST), the operation run, its result as JSON with its verdict in a header.
async fn serve_route(
    state: AppState,
    route: Route,
    schema: Arc<Value>,
    request: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path();
    let params: Vec<(&str, String)> = route
        .match_path(path)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, raw)| {
            let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
            (name, decoded.into_owned())
        })
        .collect();
    let object: Map<String, Value> = match route.method {
        Method::Get => request::from_query(&schema, &query_pairs(parts.uri.query())),
        Method::Post => {
            state.authorize(&parts.headers, None)?;
            let bytes = read_body(body).await?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                Map::new()
            } else {
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(Value::Object(map)) => map,
                    Ok(_) => {
                        return Err(usage(
                            "request.valid",
                            "the body is not a JSON object".into(),
                            "send the request as a JSON object (GET /api/v1/openapi.json has its schema)",
                        ));
                    }
                    Err(e) => {
                        return Err(usage(
                            "request.valid",
                            format!("the body is not JSON: {e}"),
                            "send the request as a JSON object (GET /api/v1/openapi.json has its schema)",
                        ));
                    }
                }
            }
        }
    };
    let invoked = state
        .invoke(route.operation, request::with_path(object, &params))
        .await
        .map_err(ApiError::from_report)?;
    let verdict = serde_json::to_value(invoked.verdict).expect("a verdict serialises");
    let mut response = axum::Json(invoked.value).into_response();
    if let Some(v) = verdict.as_str().and_then(|v| HeaderValue::from_str(v).ok()) {
        response.headers_mut().insert("x-majordomus-verdict", v);
    }
    Ok(response)
}

async fn not_found(request: Request) -> ApiError {
    ApiError::surface(
        StatusCode::NOT_FOUND,
        Class::Usage,
        "http.route",
        format!(
            "{} {}: no such route",
            request.method(),
            request.uri().path()
        ),
        "GET /api/v1/openapi.json lists every route",
    )
}

async fn wrong_method(request: Request) -> ApiError {
    ApiError::surface(
        StatusCode::METHOD_NOT_ALLOWED,
        Class::Usage,
        "http.method",
        format!(
            "{} {}: reads are GET, writes are POST",
            request.method(),
            request.uri().path()
        ),
        "GET /api/v1/openapi.json lists every route with its method",
    )
}

/// The application: the API routes of the registry, `/api/v1/openapi.json`, `pages`
/// beside them (the cockpit), and the Host guard over all of it.
pub fn router(state: AppState, pages: Option<Router<AppState>>) -> Router {
    let mut app: Router<AppState> = Router::new();
    for route in routes::routes(&state.registry) {
        let path = route.path.clone();
        let method = route.method;
        // The request schema types query parameters; generated once, not per request.
        let schema = Arc::new(
            state
                .registry
                .get(route.operation)
                .expect("a route names a registered operation")
                .request_schema(),
        );
        let handler = move |State(state): State<AppState>, request: Request| {
            let route = route.clone();
            let schema = Arc::clone(&schema);
            async move { serve_route(state, route, schema, request).await }
        };
        app = app.route(
            &path,
            match method {
                Method::Get => axum::routing::get(handler),
                Method::Post => axum::routing::post(handler),
            },
        );
    }
    let document = Arc::new(openapi::openapi(&state.registry));
    app = app.route(
        &format!("{}/openapi.json", routes::API),
        axum::routing::get(move || {
            let document = Arc::clone(&document);
            async move { axum::Json(document.as_ref().clone()) }
        }),
    );
    app = app.merge(mesh::routes());
    if let Some(pages) = pages {
        app = app.merge(pages);
    }
    app.fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(middleware::from_fn_with_state(state.clone(), host_check))
        .with_state(state)
}

/// 32 hex digits from the system's random source.
pub fn new_token() -> Result<String, Error> {
    Ok(crate::store::random_hex()?)
}

/// A server bound to its port, not yet serving.
#[derive(Debug)]
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// The `--listen` address's listener: the mesh routes only.
    mesh_listener: Option<tokio::net::TcpListener>,
    state: AppState,
    /// Where it listens (always 127.0.0.1).
    pub addr: SocketAddr,
    /// Where the mesh routes are served beside it (`--listen`).
    pub mesh_addr: Option<SocketAddr>,
    /// This run's token (or the token file's).
    pub token: String,
}

/// How `serve` was asked to run.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// The port on 127.0.0.1 (0: a free port).
    pub port: u16,
    /// The token (a token file's); `None`: a new one for this run.
    pub token: Option<String>,
    /// An address serving the mesh routes only, to a team.
    pub listen: Option<SocketAddr>,
    /// The mesh heartbeat window in seconds.
    pub heartbeat_window: u64,
}

async fn listen_on(address: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), Error> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| StoreError::io(Path::new(&address.to_string()), e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| StoreError::io(Path::new(&address.to_string()), e))?;
    Ok((listener, addr))
}

/// Binds 127.0.0.1:`port` (0: a free port) for the repository containing `dir`.
pub async fn bind(registry: Registry, dir: PathBuf, port: u16) -> Result<Bound, Error> {
    bind_with(
        registry,
        dir,
        ServeOptions {
            port,
            heartbeat_window: crate::mesh::hub::DEFAULT_WINDOW_SECONDS,
            ..ServeOptions::default()
        },
    )
    .await
}

/// Binds as `options` say: 127.0.0.1:`port` for everything, and the `--listen` address
/// for the mesh routes only.
pub async fn bind_with(
    registry: Registry,
    dir: PathBuf,
    options: ServeOptions,
) -> Result<Bound, Error> {
    let (listener, addr) = listen_on(SocketAddr::from((Ipv4Addr::LOCALHOST, options.port))).await?;
    let (mesh_listener, mesh_addr) = match options.listen {
        Some(address) => {
            let (l, a) = listen_on(address).await?;
            (Some(l), Some(a))
        }
        None => (None, None),
    };
    let token = match options.token {
        Some(t) => t,
        None => new_token()?,
    };
    let state = AppState::new(registry, dir, token.clone(), addr.port())
        .with_heartbeat_window(options.heartbeat_window.max(1));
    Ok(Bound {
        listener,
        mesh_listener,
        state,
        addr,
        mesh_addr,
        token,
    })
}

impl Bound {
    /// Serves the API (and `pages`) until the process ends; on the `--listen` address,
    /// the mesh routes only (no Host check there: every mesh request needs the token).
    pub async fn serve(self, pages: Option<Router<AppState>>) -> Result<(), Error> {
        let app = router(self.state.clone(), pages);
        let addr = self.addr;
        let local = async move {
            axum::serve(self.listener, app)
                .await
                .map_err(|e| Error::from(StoreError::io(Path::new(&addr.to_string()), e)))
        };
        match (self.mesh_listener, self.mesh_addr) {
            (Some(listener), Some(mesh_addr)) => {
                let mesh_app = mesh::routes()
                    .fallback(not_found)
                    .method_not_allowed_fallback(wrong_method)
                    .with_state(self.state);
                let team = async move {
                    axum::serve(listener, mesh_app).await.map_err(|e| {
                        Error::from(StoreError::io(Path::new(&mesh_addr.to_string()), e))
                    })
                };
                let team = tokio::spawn(team);
                let served = local.await;
                team.abort();
                served
            }
            _ => local.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::mesh::hub::same_secret;

    #[test]
    fn the_token_matches_only_itself() {
        let token = "b09903bbef1f368767d0b0466054c08d";
        assert!(same_secret(token, token));
        assert!(!same_secret("b09903bbef1f368767d0b0466054c08e", token));
        assert!(!same_secret("b09903bbef1f368767d0b0466054c08", token));
        assert!(!same_secret("", token));
        assert!(!same_secret(&format!("{token}0"), token));
    }
}
