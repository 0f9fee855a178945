//! The refused share of task starts (seed 003's number to watch): of the starts that named
//! no work (no issue, no intent, no exemption: a scope alone, or nothing), how many the
//! intent binding refused; and of the refused starts, how many named no work. Read from
//! the ledger's `task.started` lines that carry `named` and its `task.refused` lines.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::event::{TaskRefused, TaskStarted};
use crate::model::{Event, LedgerLine};

/// What a start names that is work (a scope alone names paths, not the work they serve).
const WORK: [&str; 3] = ["issue", "intent", "exempt"];

/// The task starts the binding was asked about, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RefusedShare {
    /// Starts the binding was asked about (started, or stopped by a refusal).
    pub asked: usize,
    /// Of those, the ones it refused (stopped, or started past it under `advisory`).
    pub refused: usize,
    /// Of those asked, the ones that named no issue, intent or exemption.
    pub naming_nothing: usize,
    /// Refused and naming nothing: the share to watch is this over `naming_nothing`.
    pub naming_nothing_refused: usize,
}

impl RefusedShare {
    /// Counts `lines` (any events; only `task.started` with `named` and `task.refused`
    /// count).
    pub fn of<'a>(lines: impl IntoIterator<Item = &'a LedgerLine>) -> RefusedShare {
        let mut share = RefusedShare::default();
        for line in lines {
            let (refused, named) = match line.event {
                Event::TaskStarted => {
                    let Some(started) = line.payload::<TaskStarted>() else {
                        continue;
                    };
                    let Some(named) = started.named else {
                        continue;
                    };
                    (started.binding.as_deref() == Some("refused"), named)
                }
                Event::TaskRefused => {
                    let Some(refused) = line.payload::<TaskRefused>() else {
                        continue;
                    };
                    (true, refused.named)
                }
                _ => continue,
            };
            let nothing = !named.iter().any(|n| WORK.contains(&n.as_str()));
            share.asked += 1;
            share.refused += usize::from(refused);
            share.naming_nothing += usize::from(nothing);
            share.naming_nothing_refused += usize::from(nothing && refused);
        }
        share
    }

    /// One line as a person reads it; `None` when no start was asked.
    pub fn summary(&self) -> Option<String> {
        fn percent(part: usize, whole: usize) -> String {
            (part * 100 + whole / 2)
                .checked_div(whole)
                .map_or_else(|| "-".to_owned(), |p| format!("{p}%"))
        }
        (self.asked > 0).then(|| {
            format!(
                "refused starts: {} of {} start(s) naming no issue, intent or exemption were refused ({}); {} of {} refused start(s) named none ({}); {} start(s) asked",
                self.naming_nothing_refused,
                self.naming_nothing,
                percent(self.naming_nothing_refused, self.naming_nothing),
                self.naming_nothing_refused,
                self.refused,
                percent(self.naming_nothing_refused, self.refused),
                self.asked
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64, event: &str, data: serde_json::Value) -> LedgerLine {
        serde_json::from_value(serde_json::json!({
            "seq": seq, "ts": "2026-11-30T10:00:00Z", "event": event,
            "session": null, "task": null, "data": data,
        }))
        .expect("a line")
    }

    #[test]
    fn counts_the_starts_asked_and_the_refused_that_named_nothing() {
        let lines = [
            // Not asked (no `named`): not counted.
            line(
                1,
                "task.started",
                serde_json::json!({"description": "a", "scope": []}),
            ),
            line(
                2,
                "task.started",
                serde_json::json!({"description": "b", "scope": ["src"], "binding": "bound", "named": ["scope"]}),
            ),
            line(
                3,
                "task.started",
                serde_json::json!({"description": "c", "scope": [], "binding": "refused", "named": []}),
            ),
            line(
                4,
                "task.refused",
                serde_json::json!({"description": "d", "causes": ["nothing_named"], "named": []}),
            ),
            line(
                5,
                "task.refused",
                serde_json::json!({"description": "e", "causes": ["unknown_issue"], "named": ["issue"]}),
            ),
            line(6, "decision.recorded", serde_json::json!({"text": "x"})),
        ];
        let share = RefusedShare::of(&lines);
        assert_eq!(
            share,
            RefusedShare {
                asked: 4,
                refused: 3,
                naming_nothing: 3,
                naming_nothing_refused: 2,
            }
        );
        assert_eq!(
            share.summary().as_deref(),
            Some(
                "refused starts: 2 of 3 start(s) naming no issue, intent or exemption were refused (67%); 2 of 3 refused start(s) named none (67%); 4 start(s) asked"
            )
        );
        assert_eq!(RefusedShare::of(&lines[..1]).summary(), None);
    }
}
