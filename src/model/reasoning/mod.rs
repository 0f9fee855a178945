//! Reasoning (SPEC §7), the pure model: typed records, the writer's validation, the advisor
//! catalogue, availability and its circuit, the plan, the pure half of consulting, and the
//! status report. No filesystem, no processes, no clock, no environment: time and
//! environment values are parameters.

pub mod availability;
pub mod catalogue;
pub mod plan;
pub mod record;
pub mod status;
pub mod transport;
pub mod validate;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

pub use availability::{AdvisorAvailability, Availability, Snapshot, Status};
pub use catalogue::{Adapter, Advisor, Catalogue, CatalogueError};
pub use plan::{PlanDecision, PlanInputs, ResolvedMode};
pub use record::{
    Assessment, Attempt, Conclusion, ConclusionInput, Consultation, ConsultationStatus,
    Disagreement, EvidenceRef, FailureKind, Materiality, Plan, Record, RecordInput, RecordKind,
    Resolution, StoredRecord, Validation,
};
pub use status::{Provenance, ReasoningStatus};
pub use validate::{Accepted, RecordRefusal, Redaction, WriteContext};
