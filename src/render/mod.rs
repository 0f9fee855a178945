//! How each operation result reads to a person: the [`Report`] of every result type (its
//! text, its note and its verdict). Shared by every surface that shows text: the CLI,
//! the demo, and MCP's text content.
//!
//! [`Report`]: crate::ops::Report

mod hooks;
mod journal;
mod knowledge;
mod mesh;
mod plan;
mod reasoning;
mod recall;
pub use recall::hit_lines;
mod repository;
mod session;
mod setup;

/// The note every read that skipped ledger lines carries.
fn skipped_note(count: usize) -> Option<String> {
    (count > 0)
        .then(|| format!("note: {count} unreadable ledger line(s) skipped (torn or malformed)"))
}

/// The note a result carries when reading it rebuilt the ledger index.
fn index_note(rebuilt: Option<&crate::store::index::IndexRebuilt>) -> Option<String> {
    use crate::store::index::RebuildReason;
    rebuilt.map(|r| {
        let verb = match r.reason {
            RebuildReason::Missing => "built",
            _ => "rebuilt",
        };
        format!(
            "note: {verb} the ledger index (.ai/local/state/ledger-index.json): {}; read {} line(s)",
            r.detail, r.lines
        )
    })
}

/// The note of a write that removed secret shapes or control characters before writing.
fn redacted_note(redacted: &[String]) -> Option<String> {
    (!redacted.is_empty()).then(|| {
        format!(
            "note: removed before writing (secret shapes): {}",
            redacted.join(", ")
        )
    })
}

/// The note of a write whose text holds instruction-shaped text: written as said, and
/// neutralised wherever it is injected.
fn instruction_note(shapes: &[crate::model::inject::Shape]) -> Option<String> {
    (!shapes.is_empty()).then(|| {
        format!(
            "note: instruction-shaped text ({}): kept as written; quoted as data and neutralised wherever majordomus shows it to a model",
            crate::model::inject::names(shapes)
        )
    })
}

/// The note of a write that finished what an interrupted (killed) run of it left.
fn resumed_note(resumed: Option<&str>) -> Option<String> {
    resumed.map(|r| format!("note: resumed: {r}"))
}

/// Several notes as one (each on its own line), or none.
fn notes(parts: impl IntoIterator<Item = Option<String>>) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}
