//! Knowledge at the episode boundary (SPEC §5): derive, promote and reject, check,
//! candidates and status, stale knowledge (verified records whose targets moved), the end
//! of a verified record's life (supersede, retire), and the record and graph reads (show,
//! edges).

pub mod batch;
pub mod check;
pub mod derive;
pub mod end;
pub mod graph;
pub mod queue;
pub mod reverify;
pub mod review;
pub mod stale;
pub mod verified;

pub use crate::model::knowledge::Act;
pub use batch::{ReviewRequest, Reviewed, review};
pub use check::{CheckReport, CheckRequest, Finding, PushedRef, Severity, check, check_pushed};
pub use derive::{DeriveReport, DeriveRequest, derive};
pub use end::{Ended, EndedRecord, RetireRequest, SupersedeRequest, retire, supersede};
pub use graph::{EdgesRequest, KnowledgeGraph, ShowRequest, ShownRecord, edges, show};
pub use queue::{
    CandidateListing, CandidateState, CandidatesRequest, KnowledgeStatus, StatusRequest,
    candidates, status,
};
pub use reverify::{Reverified, ReverifyRequest, reverify};
pub use review::{PromoteRequest, RejectRequest, promote, reject};
pub use stale::{StaleReport, stale};
pub use verified::{VerifiedEntry, VerifiedListing, VerifiedRequest, verified};
