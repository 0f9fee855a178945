//! Knowledge at the episode boundary (SPEC §5): derive, promote and reject, check,
//! candidates and status, and stale knowledge (verified records whose targets moved).

pub mod check;
pub mod derive;
pub mod queue;
pub mod review;
pub mod stale;

pub use check::{CheckReport, CheckRequest, Finding, PushedRef, Severity, check, check_pushed};
pub use derive::{DeriveReport, DeriveRequest, derive};
pub use queue::{
    CandidateListing, CandidateState, CandidatesRequest, KnowledgeStatus, StatusRequest,
    candidates, status,
};
pub use review::{PromoteRequest, RejectRequest, promote, reject};
pub use stale::{StaleReport, stale};
