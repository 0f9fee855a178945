//! Mesh peers (SPEC §7, docs/MESH.md): linked runtimes offering reviews are advisors,
//! discovered from the shared server `MAJORDOMUS_SERVER_URL` names (`majordomus serve`,
//! routes under `/api/v1/mesh/`, [`hub`] holds its state). This checkout's runtime links
//! with a stable id and its own key (kept under `.ai/local/state/mesh/`), heartbeats, and
//! answers review requests by its command or through its agent (the MCP tools
//! `majordomus_mesh_requests`, `majordomus_mesh_answer`).
//!
//! Network code stays here: [`client`] is the crate's only HTTP client and talks only to
//! the server it is given. Reasoning asks [`peers`] who is live and [`ask`] for one
//! answer; it never sees a socket.

pub mod client;
pub mod hub;
pub mod wire;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::mesh::ClientError;
pub use crate::model::mesh::{MeshError, OFFERS};
use crate::model::reasoning::record::{Confidence, FailureKind, Stance};
use crate::model::reasoning::transport::{Answer, Failure};
use crate::model::reasoning::{Adapter, Advisor};
use crate::process::failure;
use crate::store::StoreError;
use client::Server;
use wire::{
    AnswerBody, KeyBody, LinkBody, Linked, RequestBody, RequestState, RequestView, RuntimeView,
    Runtimes, Submitted, Unlinked, Waiting,
};

/// The capabilities a runtime offering `reviews` serves as an advisor.
pub const REVIEW_CAPABILITIES: [&str; 2] = ["independent_reasoning", "code_review"];

/// The mesh routes' prefix.
pub const API: &str = "/api/v1/mesh";

/// The server named by `MAJORDOMUS_SERVER_URL` (with `MAJORDOMUS_SERVER_TOKEN`), if any.
pub fn server() -> Result<Option<Server>, MeshError> {
    let url = std::env::var("MAJORDOMUS_SERVER_URL")
        .ok()
        .filter(|u| !u.trim().is_empty());
    let token = std::env::var("MAJORDOMUS_SERVER_TOKEN").ok();
    url.map(|u| Server::parse(&u, token).map_err(MeshError::from))
        .transpose()
}

fn required_server() -> Result<Server, MeshError> {
    server()?.ok_or(MeshError::NoServer)
}

/// True for a runtime id: an advisor id (lower-case letters, digits, `-`), at most 64.
pub fn is_runtime_id(text: &str) -> bool {
    crate::model::reasoning::catalogue::is_advisor_id(text)
}

/// A declared source as it is counted: trimmed, control characters removed, at most 80
/// characters.
pub fn clean_source(text: &str) -> String {
    text.trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(80)
        .collect()
}

fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}

/// This checkout's runtime id: the worktree's directory name and 8 hex of sha256 over the
/// host name and the worktree's path. Stable across runs; distinct per worktree and host.
pub fn runtime_id(ctx: &Ctx) -> String {
    use sha2::{Digest, Sha256};
    let dir = ctx.repo.workdir();
    let path = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut slug: String = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    slug = slug
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.truncate(24);
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "runtime" } else { slug };
    let mut hash = Sha256::new();
    hash.update(hostname().as_bytes());
    hash.update([0]);
    hash.update(path.to_string_lossy().as_bytes());
    let hex: String = hash.finalize()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{slug}-{hex}")
}

/// `.ai/local/state/mesh/`: this checkout's runtime key and its link.
fn dir(ctx: &Ctx) -> PathBuf {
    ctx.layout.state_dir().join("mesh")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Identity {
    runtime: String,
    key: String,
}

/// The link this checkout holds, as `mesh link` recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LinkState {
    pub server: String,
    pub runtime: String,
    pub offers: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub source: Option<String>,
    /// The command that answers (`--answer-with`); none: the agent answers.
    #[serde(default)]
    pub answer_with: Option<String>,
    /// The `mesh link` process keeping the link alive (none: `--once`).
    #[serde(default)]
    pub holder: Option<u32>,
}

/// Whether process `pid` is running.
fn running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        i32::try_from(pid)
            .is_ok_and(|pid| nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok())
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

fn store_err(path: &std::path::Path, e: impl std::fmt::Display) -> Error {
    StoreError::io(path, std::io::Error::other(e.to_string())).into()
}

/// This checkout's runtime id and key (the key is made once and kept).
fn identity(ctx: &Ctx) -> Result<Identity, Error> {
    let path = dir(ctx).join("runtime.json");
    let runtime = runtime_id(ctx);
    if let Ok(text) = std::fs::read_to_string(&path)
        && let Ok(id) = serde_json::from_str::<Identity>(&text)
        && id.runtime == runtime
        && id.key.len() >= 16
    {
        return Ok(id);
    }
    let id = Identity {
        runtime,
        key: crate::store::random_hex()?,
    };
    let bytes = serde_json::to_vec_pretty(&id).map_err(|e| store_err(&path, e))?;
    crate::store::atomic::write_atomic(&path, &bytes)?;
    Ok(id)
}

/// The link this checkout holds, if any.
pub fn link_state(ctx: &Ctx) -> Option<LinkState> {
    let text = std::fs::read_to_string(dir(ctx).join("link.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// What a runtime offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Offer {
    /// It answers review requests: an advisor of the other checkouts' plans.
    Reviews,
}

impl Offer {
    pub fn name(self) -> &'static str {
        match self {
            Offer::Reviews => "reviews",
        }
    }

    /// The offer named `name` (`--offers`).
    pub fn parse(name: &str) -> Result<Offer, MeshError> {
        match name.trim() {
            "reviews" => Ok(Offer::Reviews),
            other => Err(MeshError::UnknownOffer {
                offer: other.to_owned(),
            }),
        }
    }
}

/// `mesh.link`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkRequest {
    /// What this runtime offers (`reviews`).
    #[schemars(length(min = 1))]
    pub offers: Vec<Offer>,
    /// How others see it (default: the worktree's directory and the host).
    #[serde(default)]
    pub label: Option<String>,
    /// What answers behind it, adapter and model (e.g. `team-reviewer/model-a`); reviews are counted
    /// by source.
    #[serde(default)]
    pub source: Option<String>,
    /// The command that answers review requests (the process adapter's contract).
    #[serde(default)]
    pub answer_with: Option<String>,
    /// The process that keeps the link alive (`mesh link` in the foreground); set by that
    /// driver, never by a request.
    #[serde(skip)]
    #[schemars(skip)]
    pub holder: Option<u32>,
}

/// What `mesh link` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LinkOutcome {
    pub server: String,
    #[serde(flatten)]
    pub linked: Linked,
    pub label: String,
    pub source: Option<String>,
    pub answer_with: Option<String>,
}

/// The source a command answers as by default: `command:<its program's name>`.
fn command_source(command: &str) -> String {
    let program = command.split_whitespace().next().unwrap_or("command");
    let name = program.rsplit('/').next().unwrap_or(program);
    format!("command:{name}")
}

/// `majordomus mesh link`: links this checkout's runtime to the server (or renews its
/// heartbeat) and records the link.
pub fn link(ctx: &Ctx, request: LinkRequest) -> Result<LinkOutcome, Error> {
    let mut offers: Vec<String> = request.offers.iter().map(|o| o.name().to_owned()).collect();
    offers.dedup();
    if offers.is_empty() {
        return Err(MeshError::UnknownOffer {
            offer: "(none)".into(),
        }
        .into());
    }
    let server = required_server()?;
    let id = identity(ctx)?;
    // One link per checkout: a second `mesh link` beside a running one would take over
    // its heartbeat and its source.
    if let Some(pid) = link_state(ctx).and_then(|l| l.holder)
        && Some(pid) != request.holder
        && running(pid)
    {
        return Err(MeshError::AlreadyLinked {
            runtime: id.runtime,
            pid,
        }
        .into());
    }
    let label = request
        .label
        .map(|l| clean_source(&l))
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| {
            let dir = ctx.repo.workdir();
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let host = hostname();
            if host.is_empty() {
                name
            } else {
                format!("{name} on {host}")
            }
        });
    let source = request
        .source
        .map(|s| clean_source(&s))
        .filter(|s| !s.is_empty())
        .or_else(|| request.answer_with.as_deref().map(command_source));
    let linked: Linked = server
        .post(
            &format!("{API}/runtimes"),
            &LinkBody {
                runtime: id.runtime.clone(),
                key: id.key.clone(),
                offers: offers.clone(),
                label: label.clone(),
                source: source.clone(),
            },
        )
        .map_err(MeshError::from)?;
    let state = LinkState {
        server: server.url.clone(),
        runtime: id.runtime.clone(),
        offers,
        label: label.clone(),
        source: source.clone(),
        answer_with: request.answer_with.clone(),
        holder: request.holder,
    };
    let path = dir(ctx).join("link.json");
    let bytes = serde_json::to_vec_pretty(&state).map_err(|e| store_err(&path, e))?;
    crate::store::atomic::write_atomic(&path, &bytes)?;
    Ok(LinkOutcome {
        server: server.url,
        linked,
        label,
        source,
        answer_with: request.answer_with,
    })
}

/// `mesh.unlink` and `mesh.status` take nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshRequest {}

/// What `mesh unlink` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnlinkOutcome {
    pub runtime: String,
    /// The server told; `None` when no server is named.
    pub server: Option<String>,
    /// The server removed it (false: it did not know it, or could not be reached).
    pub unlinked: bool,
    pub failed_requests: usize,
    /// Why the server was not told, when it was not.
    pub problem: Option<String>,
}

/// `majordomus mesh unlink`: removes the runtime from the server (requests waiting for it
/// fail as `unavailable`) and forgets the link here, even when the server cannot be
/// reached (its heartbeat then stops and the window removes it).
pub fn unlink(ctx: &Ctx, _request: MeshRequest) -> Result<UnlinkOutcome, Error> {
    let id = identity(ctx)?;
    let link = dir(ctx).join("link.json");
    let server = server()?;
    let mut outcome = UnlinkOutcome {
        runtime: id.runtime.clone(),
        server: server.as_ref().map(|s| s.url.clone()),
        unlinked: false,
        failed_requests: 0,
        problem: None,
    };
    match &server {
        None => outcome.problem = Some(MeshError::NoServer.to_string()),
        Some(s) => match s.post::<_, Unlinked>(
            &format!("{API}/runtimes/{}/unlink", id.runtime),
            &KeyBody {
                key: id.key.clone(),
            },
        ) {
            Ok(u) => {
                outcome.unlinked = true;
                outcome.failed_requests = u.failed_requests;
            }
            Err(e) => outcome.problem = Some(e.to_string()),
        },
    }
    match std::fs::remove_file(&link) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io(&link, e).into()),
    }
    Ok(outcome)
}

/// What `mesh status` shows.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MeshStatus {
    /// The server `MAJORDOMUS_SERVER_URL` names.
    pub server: Option<String>,
    /// Why it could not be read, when it could not.
    pub problem: Option<String>,
    /// This checkout's runtime id.
    pub runtime: String,
    /// This checkout's link, as recorded.
    pub link: Option<LinkState>,
    /// The link's `mesh link` process is running (`None`: a `--once` link, or none).
    pub holder_running: Option<bool>,
    pub window_seconds: Option<u64>,
    /// Every runtime the server knows.
    pub runtimes: Vec<RuntimeView>,
}

/// `majordomus mesh status`: the server, its linked runtimes and what they offer, and
/// this checkout's link. A server that cannot be reached is reported, not an error.
pub fn status(ctx: &Ctx, _request: MeshRequest) -> Result<MeshStatus, Error> {
    let link = link_state(ctx);
    let server = server()?;
    let mut status = MeshStatus {
        server: server.as_ref().map(|s| s.url.clone()),
        problem: None,
        runtime: runtime_id(ctx),
        holder_running: link.as_ref().and_then(|l| l.holder).map(running),
        link,
        window_seconds: None,
        runtimes: Vec::new(),
    };
    match &server {
        None => status.problem = Some(MeshError::NoServer.to_string()),
        Some(s) => match s
            .clone()
            .quick(Duration::from_secs(2))
            .get::<Runtimes>(&format!("{API}/runtimes"))
        {
            Ok(r) => {
                status.window_seconds = Some(r.window_seconds);
                status.runtimes = r.runtimes;
            }
            Err(e) => status.problem = Some(e.to_string()),
        },
    }
    Ok(status)
}

/// The linked server and this runtime's identity, or why there is none.
fn linked(ctx: &Ctx) -> Result<(Server, Identity), Error> {
    let server = required_server()?;
    let id = identity(ctx)?;
    if link_state(ctx).is_none() {
        return Err(MeshError::NotLinked {
            runtime: id.runtime,
        }
        .into());
    }
    Ok((server, id))
}

/// What waits for this runtime.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MeshRequests {
    pub server: String,
    #[serde(flatten)]
    pub waiting: Waiting,
}

/// `majordomus mesh requests`: the review requests waiting for this checkout's runtime
/// (polling renews its heartbeat).
pub fn requests(ctx: &Ctx, _request: MeshRequest) -> Result<MeshRequests, Error> {
    let (server, id) = linked(ctx)?;
    let waiting = poll(&server, &id.runtime, &id.key)?;
    Ok(MeshRequests {
        server: server.url,
        waiting,
    })
}

fn poll(server: &Server, runtime: &str, key: &str) -> Result<Waiting, MeshError> {
    Ok(server.post(
        &format!("{API}/runtimes/{runtime}/waiting"),
        &KeyBody {
            key: key.to_owned(),
        },
    )?)
}

/// `mesh.answer`: this runtime's answer to one waiting request (the consultation's fields).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshAnswerRequest {
    /// The request's id, as `mesh requests` lists it.
    #[schemars(length(min = 1))]
    pub request: String,
    /// Your answer in one paragraph.
    #[schemars(length(min = 1))]
    pub conclusion: String,
    /// Relative to the asker's hypothesis.
    #[serde(default)]
    pub stance: Option<Stance>,
    #[serde(default)]
    pub assumptions: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(default)]
    pub actions: Vec<String>,
    /// Experiments whose result would falsify the hypothesis.
    #[serde(default)]
    pub falsifiers: Vec<String>,
    #[serde(default)]
    pub confidence: Option<Confidence>,
    /// What answered (client and model, e.g. `team-reviewer/model-a`); reviews are counted by source.
    #[serde(default)]
    pub source: Option<String>,
}

/// `majordomus mesh answer`: sends this runtime's answer to a request waiting for it; the
/// first answer counts. Every string is redacted before it leaves the machine.
pub fn answer(ctx: &Ctx, request: MeshAnswerRequest) -> Result<RequestView, Error> {
    let (server, id) = linked(ctx)?;
    let clean = |s: &str| crate::model::redact::redact(s).text;
    let list =
        |v: &[String]| serde_json::Value::from(v.iter().map(|s| clean(s)).collect::<Vec<_>>());
    let mut answer = serde_json::Map::new();
    answer.insert("conclusion".into(), clean(&request.conclusion).into());
    if let Some(s) = request.stance {
        answer.insert("stance".into(), s.name().into());
    }
    answer.insert("assumptions".into(), list(&request.assumptions));
    answer.insert("risks".into(), list(&request.risks));
    answer.insert("actions".into(), list(&request.actions));
    answer.insert("falsifiers".into(), list(&request.falsifiers));
    if let Some(c) = request.confidence {
        answer.insert(
            "confidence".into(),
            serde_json::to_value(c).expect("a confidence serialises"),
        );
    }
    // Checked here too, so an agent learns what is wrong before anything is sent.
    crate::model::reasoning::transport::normalise_answer(&serde_json::Value::Object(
        answer.clone(),
    ))
    .map_err(|f| MeshError::Invalid {
        what: "the answer".into(),
        problem: format!("{}: {}", f.kind.name(), f.diagnostic.unwrap_or_default()),
    })?;
    let body = AnswerBody {
        runtime: id.runtime.clone(),
        key: id.key,
        answer: Some(answer),
        failure: None,
        source: request.source.map(|s| clean_source(&s)),
    };
    Ok(send_answer(&server, &request.request, &body)?)
}

fn send_answer(
    server: &Server,
    request: &str,
    body: &AnswerBody,
) -> Result<RequestView, MeshError> {
    if !request
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        || request.len() != 32
    {
        return Err(ClientError::Refused {
            url: server.url.clone(),
            status: 404,
            rule: "mesh.request-unknown".into(),
            message: format!("{request:?} is not a review request id"),
            fix: Some("answer a request majordomus mesh requests lists".into()),
        }
        .into());
    }
    Ok(server.post(&format!("{API}/requests/{request}/answer"), body)?)
}

/// The live runtimes offering reviews, other than this checkout's, as advisors; and
/// what stopped the scan, if anything did. No server named: no peers, no problem.
#[derive(Debug, Clone, Default)]
pub struct Peers {
    pub server: Option<String>,
    pub problem: Option<String>,
    pub advisors: Vec<Advisor>,
    /// Runtimes offering reviews the server still lists whose heartbeat is older than
    /// the window.
    pub gone: usize,
}

/// Reads the server's linked runtimes: the live ones offering `reviews` become advisors
/// with adapter `mesh` (id: the runtime id; model: what answers behind it).
pub fn peers(ctx: &Ctx) -> Peers {
    let server = match server() {
        Ok(Some(s)) => s,
        Ok(None) => return Peers::default(),
        Err(e) => {
            return Peers {
                server: None,
                problem: Some(e.to_string()),
                advisors: Vec::new(),
                gone: 0,
            };
        }
    };
    let own = runtime_id(ctx);
    // A plan waits at most two seconds for the list (a hung server is a problem reported,
    // not a plan held up).
    let listing = server.clone().quick(Duration::from_secs(2));
    match listing.get::<Runtimes>(&format!("{API}/runtimes")) {
        Ok(r) => Peers {
            server: Some(server.url.clone()),
            problem: None,
            gone: r
                .runtimes
                .iter()
                .filter(|p| !p.live && p.runtime != own && p.offers.iter().any(|o| o == "reviews"))
                .count(),
            advisors: r
                .runtimes
                .into_iter()
                .filter(|p| p.live && p.runtime != own && p.offers.iter().any(|o| o == "reviews"))
                .filter(|p| is_runtime_id(&p.runtime))
                .map(|p| Advisor {
                    id: p.runtime,
                    title: clean_source(&p.label),
                    adapter: Adapter::Mesh,
                    provider: Some(server.url.clone()),
                    model: p.source.map(|s| clean_source(&s)),
                    executable: None,
                    args: Vec::new(),
                    credential: None,
                    local: false,
                    capabilities: REVIEW_CAPABILITIES
                        .iter()
                        .map(|c| (*c).to_owned())
                        .collect(),
                })
                .collect(),
        },
        Err(e) => Peers {
            server: Some(server.url.clone()),
            problem: Some(e.to_string()),
            advisors: Vec::new(),
            gone: 0,
        },
    }
}

/// Sends a review request to peer `runtime` and waits for its first answer, until
/// `deadline` or `cancelled()`. The answer comes with its source (what answered behind
/// the peer). Every failure is typed: a server down or a peer gone is `unavailable`, no
/// answer in time is `timeout`.
pub fn ask(
    from: &str,
    runtime: &str,
    question: &str,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Answer, String), Failure> {
    let server = match server() {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Err(failure(
                FailureKind::Unavailable,
                MeshError::NoServer.to_string(),
            ));
        }
        Err(e) => return Err(failure(FailureKind::Unavailable, e.to_string())),
    };
    // Every exchange ends by the deadline: a server that accepts and never answers
    // costs the consult no more than its own time.
    let within = || {
        let left = deadline.saturating_duration_since(Instant::now());
        server
            .clone()
            .quick(left.clamp(Duration::from_millis(50), Duration::from_secs(5)))
    };
    let lost = |e: ClientError| match e {
        ClientError::Unreachable { .. } if Instant::now() >= deadline => failure(
            FailureKind::Timeout,
            format!("peer {runtime} did not answer within the deadline ({e})"),
        ),
        ClientError::Refused { status: 409, .. } | ClientError::Unreachable { .. } => {
            failure(FailureKind::Unavailable, e.to_string())
        }
        e => failure(FailureKind::Error, e.to_string()),
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let submitted: Submitted = within()
        .post(
            &format!("{API}/requests"),
            &RequestBody {
                to: runtime.to_owned(),
                from: Some(from.to_owned()),
                question: question.to_owned(),
                deadline_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1),
            },
        )
        .map_err(lost)?;
    loop {
        if cancelled() {
            return Err(failure(
                FailureKind::Cancelled,
                "cancelled by a signal before the peer answered",
            ));
        }
        if Instant::now() >= deadline {
            return Err(failure(
                FailureKind::Timeout,
                format!("peer {runtime} did not answer within the deadline"),
            ));
        }
        let view: RequestView = within()
            .get(&format!("{API}/requests/{}", submitted.request))
            .map_err(lost)?;
        match view.state {
            RequestState::Waiting => {}
            RequestState::Answered => {
                let answer = view
                    .answer
                    .ok_or_else(|| failure(FailureKind::Malformed, "answered without an answer"))?;
                let source = view.source.unwrap_or_else(|| format!("runtime:{runtime}"));
                return Ok((answer, source));
            }
            RequestState::Failed => {
                return Err(view.failure.unwrap_or_else(|| {
                    failure(FailureKind::Error, "the peer failed without saying why")
                }));
            }
            RequestState::Expired => {
                return Err(failure(
                    FailureKind::Timeout,
                    format!("peer {runtime} did not answer within the deadline"),
                ));
            }
        }
        std::thread::sleep(
            deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100)),
        );
    }
}

/// A runtime answering by its command: what each answering thread needs (no `Ctx`).
#[derive(Debug, Clone)]
pub struct Answerer {
    server: Server,
    runtime: String,
    key: String,
    command: String,
}

impl Answerer {
    /// This checkout's linked runtime, answering by `command`.
    pub fn new(ctx: &Ctx, command: &str) -> Result<Answerer, Error> {
        let (server, id) = linked(ctx)?;
        Ok(Answerer {
            server,
            runtime: id.runtime,
            key: id.key,
            command: command.to_owned(),
        })
    }

    /// What waits for this runtime (a poll renews its heartbeat).
    pub fn poll(&self) -> Result<Waiting, MeshError> {
        poll(&self.server, &self.runtime, &self.key)
    }

    /// Answers one request by running the command (`sh -c`) under the process adapter's
    /// contract — the question on stdin, one JSON answer or `{"failure": {...}}` on
    /// stdout, killed at the deadline — and sends what it produced, answer or typed
    /// failure, redacted.
    pub fn answer(
        &self,
        request: &wire::WaitingRequest,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<RequestView, MeshError> {
        let deadline = Instant::now() + Duration::from_millis(request.deadline_ms_left);
        let args = vec!["-c".to_owned(), self.command.clone()];
        let outcome =
            crate::process::run_command("sh", &args, &request.question, deadline, cancelled);
        let clean = |s: &str| crate::model::redact::redact(s).text;
        let (answer, failure) = match outcome {
            Ok(a) => {
                let mut value = serde_json::to_value(&a).expect("answers serialise");
                redact_value(&mut value, &clean);
                let mut map = value.as_object().cloned().unwrap_or_default();
                map.retain(|_, v| !v.is_null());
                (Some(map), None)
            }
            Err(mut f) => {
                f.diagnostic = f.diagnostic.map(|d| clean(&d));
                (None, Some(f))
            }
        };
        send_answer(
            &self.server,
            &request.request,
            &AnswerBody {
                runtime: self.runtime.clone(),
                key: self.key.clone(),
                answer,
                failure,
                source: None,
            },
        )
    }
}

fn redact_value(value: &mut serde_json::Value, clean: &dyn Fn(&str) -> String) {
    match value {
        serde_json::Value::String(s) => *s = clean(s),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, clean)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, clean)),
        _ => {}
    }
}

/// The briefing's line when review requests wait for this checkout's linked runtime; none
/// when it is not linked or the server cannot be read within half a second each for
/// connecting and answering (a session must not wait on the mesh).
pub fn briefing_line(ctx: &Ctx) -> Option<String> {
    let link = link_state(ctx)?;
    let server = server().ok()??.quick(Duration::from_millis(500));
    let id = identity(ctx).ok()?;
    let waiting = poll(&server, &id.runtime, &id.key).ok()?;
    let n = waiting.requests.len();
    (n > 0).then(|| {
        format!(
            "mesh: {n} review request{} wait{} for this runtime ({}) — read with majordomus_mesh_requests, answer with majordomus_mesh_answer",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            link.runtime
        )
    })
}
