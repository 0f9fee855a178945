//! What can go wrong with the mesh (SPEC §7, docs/MESH.md): an exchange with the server,
//! and a mesh operation. Each error names its class, rule and fix.

/// What a mesh runtime offers; `reviews` is the one there is.
pub const OFFERS: [&str; 1] = ["reviews"];

/// Every rule the hub refuses by.
pub const RULES: [&str; 11] = [
    "mesh.runtime-key",
    "mesh.runtime-unknown",
    "mesh.runtime-id",
    "mesh.runtime-gone",
    "mesh.question",
    "mesh.queue-full",
    "mesh.request-unknown",
    "mesh.not-addressed",
    "mesh.expired",
    "mesh.answered",
    "mesh.answer-valid",
];

/// Why an exchange with the server failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The URL is not one this client speaks.
    #[error("MAJORDOMUS_SERVER_URL={url}: {why}")]
    Url { url: String, why: String },
    /// Nothing answered: connection refused, timeout, reset.
    #[error("{url} is unreachable: {why}")]
    Unreachable { url: String, why: String },
    /// The server answered with an error.
    #[error("{url}: {message}")]
    Refused {
        url: String,
        status: u16,
        rule: String,
        message: String,
        fix: Option<String>,
    },
    /// The server answered with something that is not the expected JSON.
    #[error("{url}: the answer does not read: {why}")]
    Garbled { url: String, why: String },
}

/// Why a mesh operation failed. Each names its class, rule and fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeshError {
    #[error("MAJORDOMUS_SERVER_URL is not set: no mesh server is named")]
    NoServer,
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("this checkout's runtime ({runtime}) is not linked")]
    NotLinked { runtime: String },
    #[error(
        "this checkout's runtime ({runtime}) is already linked by `majordomus mesh link` (pid {pid}), which is running"
    )]
    AlreadyLinked { runtime: String, pid: u32 },
    #[error("--offers {offer}: a runtime offers {}", OFFERS.join(", "))]
    UnknownOffer { offer: String },
    #[error("{what}: {problem}")]
    Invalid { what: String, problem: String },
}

impl MeshError {
    /// The request was wrong (exit 2): only an offer the CLI cannot read.
    pub fn usage(&self) -> bool {
        matches!(self, MeshError::UnknownOffer { .. })
    }

    /// A rule said no, here or on the server, or the environment names no usable
    /// server (exit 3); anything else failed (exit 1).
    pub fn refused(&self) -> bool {
        matches!(
            self,
            MeshError::NoServer
                | MeshError::Invalid { .. }
                | MeshError::NotLinked { .. }
                | MeshError::AlreadyLinked { .. }
                | MeshError::Client(ClientError::Url { .. } | ClientError::Refused { .. })
        )
    }

    pub fn rule(&self) -> &'static str {
        match self {
            MeshError::NoServer | MeshError::Client(ClientError::Url { .. }) => "mesh.server",
            MeshError::Client(ClientError::Unreachable { .. }) => "mesh.unreachable",
            MeshError::Client(ClientError::Garbled { .. }) => "mesh.protocol",
            MeshError::Client(ClientError::Refused { rule, .. }) => RULES
                .iter()
                .find(|r| *r == rule)
                .copied()
                .unwrap_or(match rule.as_str() {
                    "http.token" => "http.token",
                    "http.host" => "http.host",
                    _ => "mesh.refused",
                }),
            MeshError::NotLinked { .. } => "mesh.linked",
            MeshError::AlreadyLinked { .. } => "mesh.linked-once",
            MeshError::UnknownOffer { .. } => "mesh.offers",
            MeshError::Invalid { .. } => "mesh.answer-valid",
        }
    }

    pub fn fix(&self) -> Option<String> {
        Some(match self {
            MeshError::NoServer => "start `majordomus serve` and set MAJORDOMUS_SERVER_URL and MAJORDOMUS_SERVER_TOKEN to the address and token it prints (docs/MESH.md)".to_owned(),
            MeshError::Client(ClientError::Url { .. }) => {
                "set MAJORDOMUS_SERVER_URL to http://<host>:<port> (docs/MESH.md)".to_owned()
            }
            MeshError::Client(ClientError::Unreachable { .. }) => {
                "start the server (majordomus serve), or correct MAJORDOMUS_SERVER_URL".to_owned()
            }
            MeshError::Client(ClientError::Garbled { .. }) => {
                "point MAJORDOMUS_SERVER_URL at a majordomus serve of the same version".to_owned()
            }
            MeshError::Client(ClientError::Refused { fix, status, .. }) => match (fix, status) {
                (_, 401) => {
                    "set MAJORDOMUS_SERVER_TOKEN to the token the server printed (or its token file's)"
                        .to_owned()
                }
                (Some(fix), _) => fix.clone(),
                (None, _) => "majordomus mesh status".to_owned(),
            },
            MeshError::NotLinked { .. } => "majordomus mesh link --offers reviews".to_owned(),
            MeshError::AlreadyLinked { .. } => {
                "majordomus mesh unlink".to_owned()
            }
            MeshError::UnknownOffer { .. } => "majordomus mesh link --offers reviews".to_owned(),
            MeshError::Invalid { .. } => {
                "give the answer a conclusion (and a stance: supports, opposes, alternative or uncertain)".to_owned()
            }
        })
    }
}
