//! majordomus: a git-native memory for a repository worked on by coding agents and people.
//!
//! Every surface (CLI, hooks, MCP, HTTP) is a projection of this library's operation
//! registry ([`ops::Registry`]): each operation takes a [`Ctx`] and a request and returns
//! a typed value. `docs/ARCHITECTURE.md` draws the layers.
#![forbid(unsafe_code)]

pub mod authored;
pub mod briefing;
pub mod cli;
pub mod cockpit;
pub mod context;
pub mod ctx;
pub mod doctor;
pub mod env;
pub mod error;
pub mod git;
pub mod handover;
pub mod history;
pub mod hooks;
pub mod http;
pub mod init;
pub mod intent;
pub mod journal;
pub mod knowledge;
pub mod mcp;
pub mod mesh;
pub mod model;
pub mod moment;
pub mod ops;
pub mod process;
pub mod reasoning;
pub mod recall;
pub mod render;
pub mod rules;
pub mod session;
pub mod setup;
pub mod store;
pub mod task;
pub mod timing;
pub mod worktrees;

pub use ctx::{Clock, Ctx};
pub use error::{Class, Error, Refusal, UsageError};
