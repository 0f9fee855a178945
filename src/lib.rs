//! majordomus: a git-native memory for a repository worked on by coding agents and people.
//!
//! Every surface (CLI, hooks, later MCP and HTTP) is a projection of this library API:
//! each operation takes a [`Ctx`] and plain options and returns a typed value.
#![forbid(unsafe_code)]

pub mod authored;
pub mod briefing;
pub mod cli;
pub mod context;
pub mod ctx;
pub mod doctor;
pub mod env;
pub mod error;
pub mod git;
pub mod history;
pub mod hooks;
pub mod init;
pub mod knowledge;
pub mod model;
pub mod session;
pub mod store;

pub use ctx::{Clock, Ctx};
pub use error::{Error, Refusal};
