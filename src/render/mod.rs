//! How each operation result reads to a person: the [`Report`] of every result type (its
//! text, its note and its verdict). Shared by every surface that shows text: the CLI,
//! the demo, and MCP's text content.
//!
//! [`Report`]: crate::ops::Report

mod hooks;
mod knowledge;
mod plan;
mod repository;
mod session;
mod setup;

/// The note every read that skipped ledger lines carries.
fn skipped_note(count: usize) -> Option<String> {
    (count > 0)
        .then(|| format!("note: {count} unreadable ledger line(s) skipped (torn or malformed)"))
}
