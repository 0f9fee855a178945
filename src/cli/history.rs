//! `majordomus history`.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;
use crate::history::{self, HistoryFilter};

/// Read the ledger, oldest first, optionally filtered.
///
/// Examples:
///   majordomus history
///   majordomus history --event decision.recorded
///   majordomus history --session 20261130T101500Z-1a2b3c --since 2026-11-30
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct HistoryArgs {
    /// Only lines of this event (e.g. decision.recorded, question.asked).
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
    /// Only lines stamped with this episode id.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only lines at or after this time (RFC 3339, or YYYY-MM-DD).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
}

pub fn run(ctx: &Ctx, args: &HistoryArgs) -> Result<Output, CliError> {
    let found = history::history(
        ctx,
        &HistoryFilter {
            event: args.event.clone(),
            session: args.session.clone(),
            since: args.since.clone(),
        },
    )?;
    let mut human = String::new();
    if found.lines.is_empty() {
        human.push_str("no ledger lines match\n");
    }
    for line in &found.lines {
        let _ = write!(
            human,
            "#{} {} {} session={}",
            line.seq,
            line.ts,
            line.event,
            line.session.as_deref().unwrap_or("null")
        );
        if let Some(task) = &line.task {
            let _ = write!(human, " task={task}");
        }
        let _ = writeln!(human, " {}", line.data);
    }
    let note = (!found.skipped.is_empty()).then(|| {
        let places: Vec<String> = found
            .skipped
            .iter()
            .map(|s| match s.line {
                Some(n) => format!("line {n}: {}", s.reason),
                None => format!("byte {}: {}", s.offset, s.reason),
            })
            .collect();
        format!(
            "note: skipped {} unreadable ledger line(s): {}",
            places.len(),
            places.join("; ")
        )
    });
    Ok(Output::ok(human, found).with_note(note))
}
