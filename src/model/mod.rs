//! Pure types and logic: events, policy, ids, episode windows, questions, knowledge records
//! and the composition of context and records. No filesystem, no git, no clock (time is a
//! parameter).

pub mod cited;
pub mod compose;
pub mod episode;
pub mod event;
pub mod ids;
pub mod inject;
pub mod input;
pub mod intent;
pub mod journal;
pub mod knowledge;
pub mod mesh;
pub mod moment;
pub mod policy;
pub mod question;
pub mod reasoning;
pub mod recall;
pub mod redact;
pub mod retention;
pub mod rules;
pub mod shell;
pub mod task;
pub mod time;
pub mod verdict;
pub mod window;
pub mod wiring;
pub mod worktree;

pub use episode::{CommitSummary, EpisodeState, GitSinceOpen};
pub use event::{Event, LedgerLine, LineDraft, Payload};
pub use policy::Policy;
pub use verdict::Verdict;
pub use window::EpisodeWindow;
