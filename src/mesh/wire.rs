//! The mesh protocol's bodies: what a runtime, an asker and the server send each other
//! under `/api/v1/mesh/` (docs/MESH.md lists the routes).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::reasoning::transport::{Answer, Failure};

/// `POST /api/v1/mesh/runtimes`: link a runtime, or renew its heartbeat.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkBody {
    pub runtime: String,
    /// The runtime's own secret: it proves who heartbeats, polls and answers.
    pub key: String,
    pub offers: Vec<String>,
    pub label: String,
    /// What answers behind the runtime (adapter and model), as it declares it.
    #[serde(default)]
    pub source: Option<String>,
}

/// The server's answer to a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Linked {
    pub runtime: String,
    pub offers: Vec<String>,
    pub linked_at: String,
    /// A heartbeat older than this is a runtime gone.
    pub window_seconds: u64,
    /// How often the runtime should heartbeat.
    pub heartbeat_seconds: u64,
}

/// `POST /api/v1/mesh/runtimes/{runtime}/unlink` and `.../waiting`: the runtime's key.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyBody {
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Unlinked {
    pub runtime: String,
    /// Requests that waited for it, now failed as `unavailable`.
    pub failed_requests: usize,
}

/// One runtime as `GET /api/v1/mesh/runtimes` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RuntimeView {
    pub runtime: String,
    pub offers: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub source: Option<String>,
    pub linked_at: String,
    pub heartbeat_age_seconds: u64,
    /// Its heartbeat is within the window.
    pub live: bool,
    /// Review requests waiting for it.
    pub waiting: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Runtimes {
    pub window_seconds: u64,
    pub runtimes: Vec<RuntimeView>,
}

/// `POST /api/v1/mesh/requests`: a review request to one runtime.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestBody {
    pub to: String,
    /// The asking runtime's id (informational).
    #[serde(default)]
    pub from: Option<String>,
    /// The distilled question, already redacted.
    pub question: String,
    pub deadline_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Submitted {
    pub request: String,
    pub to: String,
    pub deadline_ms: u64,
}

/// A request waiting for the runtime that polls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WaitingRequest {
    pub request: String,
    #[serde(default)]
    pub from: Option<String>,
    pub question: String,
    pub deadline_ms_left: u64,
    pub waited_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Waiting {
    pub runtime: String,
    pub requests: Vec<WaitingRequest>,
}

/// `POST /api/v1/mesh/requests/{request}/answer`: the answering runtime, its key, and
/// exactly one of an answer (the consultation's fields) and a typed failure.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    pub runtime: String,
    pub key: String,
    #[serde(default)]
    pub answer: Option<Map<String, Value>>,
    #[serde(default)]
    pub failure: Option<Failure>,
    /// What answered (adapter and model), when it differs from what the link declared.
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequestState {
    Waiting,
    Answered,
    Failed,
    Expired,
}

/// A request as its asker reads it (`GET /api/v1/mesh/requests/{request}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RequestView {
    pub request: String,
    pub to: String,
    pub state: RequestState,
    #[serde(default)]
    pub answer: Option<Answer>,
    #[serde(default)]
    pub failure: Option<Failure>,
    /// What answered, with `answered`.
    #[serde(default)]
    pub source: Option<String>,
}
