//! Retention (SPEC §3, `ledger.retention_days`): which ledger lines a prune keeps. Pure:
//! the lines, the cutoff and the open episode in, one keep flag per line out.
//!
//! A line older than the cutoff goes, unless it is:
//! - a line that cannot be read, or whose time cannot (its age is unknown);
//! - a `ledger.pruned` line (the ledger's own account of what it lost);
//! - a line of an open episode (opened and never closed, or the one open now), of an
//!   episode not yet derived (no `knowledge.derived` names it), or of an episode with any
//!   line at or after the cutoff (an episode goes whole or not at all);
//! - the asking line of a question no `question.resolved` answers;
//! - the answer of a question whose asking line stays;
//! - a `task.started` or `task.finished` line of a task a kept line names.

use std::collections::{HashMap, HashSet};

use time::OffsetDateTime;

use super::event::{Event, LedgerLine, QuestionAsked, QuestionResolved};

#[derive(Debug, Default)]
struct EpisodeFacts {
    opened: bool,
    closed: bool,
    derived: bool,
    /// Some line of it is at or after the cutoff, or has no readable time.
    recent: bool,
}

/// One flag per line of `lines` (`None`: unreadable): `true` keeps it.
pub fn plan(
    lines: &[Option<LedgerLine>],
    cutoff: OffsetDateTime,
    open_episode: Option<&str>,
) -> Vec<bool> {
    let old = |line: &LedgerLine| crate::model::time::parse(&line.ts).is_some_and(|ts| ts < cutoff);
    let mut episodes: HashMap<&str, EpisodeFacts> = HashMap::new();
    let mut resolved: HashSet<String> = HashSet::new();
    for line in lines.iter().flatten() {
        if let Some(session) = line.session.as_deref() {
            let facts = episodes.entry(session).or_default();
            match line.event {
                Event::SessionOpened => facts.opened = true,
                Event::SessionClosed => facts.closed = true,
                Event::KnowledgeDerived => facts.derived = true,
                _ => {}
            }
            facts.recent |= !old(line);
        }
        if let Some(r) = line.payload::<QuestionResolved>() {
            resolved.insert(r.id);
        }
    }

    let protected_episode = |session: &str| {
        let facts = &episodes[session];
        let open = Some(session) == open_episode || (facts.opened && !facts.closed);
        // (An episode opened and not closed is open; one closed is derived or not.)
        let underived = facts.closed && !facts.derived;
        open || underived || facts.recent
    };
    let mut keep: Vec<bool> = lines
        .iter()
        .map(|line| {
            let Some(line) = line else { return true };
            line.event == Event::LedgerPruned
                || !old(line)
                || line.session.as_deref().is_some_and(protected_episode)
                || line
                    .payload::<QuestionAsked>()
                    .is_some_and(|q| !resolved.contains(&q.id))
        })
        .collect();

    // A question whose asking line stays keeps its answers.
    let asked: HashSet<String> = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .filter_map(|(l, _)| l.as_ref()?.payload::<QuestionAsked>().map(|q| q.id))
        .collect();
    for (line, k) in lines.iter().zip(keep.iter_mut()) {
        if let Some(r) = line
            .as_ref()
            .and_then(LedgerLine::payload::<QuestionResolved>)
        {
            *k |= asked.contains(&r.id);
        }
    }
    // A task a kept line names keeps its start and finish.
    let tasks: HashSet<&str> = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .filter_map(|(l, _)| l.as_ref()?.task.as_deref())
        .collect();
    for (line, k) in lines.iter().zip(keep.iter_mut()) {
        if let Some(line) = line
            && matches!(line.event, Event::TaskStarted | Event::TaskFinished)
            && line.task.as_deref().is_some_and(|t| tasks.contains(t))
        {
            *k = true;
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::datetime;

    fn line(
        day: u8,
        event: Event,
        session: Option<&str>,
        task: Option<&str>,
        data: serde_json::Value,
    ) -> Option<LedgerLine> {
        Some(LedgerLine {
            seq: 0,
            ts: format!("2026-11-{day:02}T10:00:00Z"),
            event,
            session: session.map(str::to_owned),
            task: task.map(str::to_owned),
            data,
        })
    }

    fn episode(day: u8, id: &str, derived: bool, closed: bool) -> Vec<Option<LedgerLine>> {
        let mut out = vec![
            line(day, Event::SessionOpened, Some(id), None, json!({})),
            line(
                day,
                Event::CheckpointRecorded,
                Some(id),
                None,
                json!({"text": "c"}),
            ),
        ];
        if derived {
            out.push(line(
                day,
                Event::KnowledgeDerived,
                Some(id),
                None,
                json!({}),
            ));
        }
        if closed {
            out.push(line(day, Event::SessionClosed, Some(id), None, json!({})));
        }
        out
    }

    #[test]
    fn keeps_exactly_what_it_must() {
        let mut lines = Vec::new();
        let mut expect = Vec::new();
        let mut add = |ls: Vec<Option<LedgerLine>>, keep: bool| {
            expect.extend(std::iter::repeat_n(keep, ls.len()));
            lines.extend(ls);
        };
        // Old, closed, derived: pruned whole.
        add(episode(1, "old-derived", true, true), false);
        // Old, closed, never derived: kept.
        add(episode(1, "old-underived", false, true), true);
        // Old and never closed: open, kept.
        add(episode(1, "old-open", false, false), true);
        // Old, derived, but the episode open now: kept.
        add(episode(1, "open-now", true, true), true);
        // Derived, started old and ended recent: kept whole.
        let mut straddling = episode(1, "straddling", true, false);
        straddling.push(line(
            20,
            Event::SessionClosed,
            Some("straddling"),
            None,
            json!({}),
        ));
        add(straddling, true);
        // No episode: an old decision goes, a recent one stays, an unreadable line stays.
        add(
            vec![line(
                1,
                Event::DecisionRecorded,
                None,
                None,
                json!({"text": "d"}),
            )],
            false,
        );
        add(
            vec![line(
                20,
                Event::DecisionRecorded,
                None,
                None,
                json!({"text": "d"}),
            )],
            true,
        );
        add(vec![None], true);
        // Questions: an open old one stays; an answered old one goes; an old question
        // answered recently goes, its recent answer stays.
        add(
            vec![line(
                1,
                Event::QuestionAsked,
                None,
                None,
                json!({"id": "q-open", "text": "?"}),
            )],
            true,
        );
        add(
            vec![line(
                1,
                Event::QuestionAsked,
                None,
                None,
                json!({"id": "q-done", "text": "?"}),
            )],
            false,
        );
        add(
            vec![line(
                2,
                Event::QuestionResolved,
                None,
                None,
                json!({"id": "q-done", "question": "?", "answer": "!"}),
            )],
            false,
        );
        add(
            vec![line(
                1,
                Event::QuestionAsked,
                None,
                None,
                json!({"id": "q-late", "text": "?"}),
            )],
            false,
        );
        add(
            vec![line(
                20,
                Event::QuestionResolved,
                None,
                None,
                json!({"id": "q-late", "question": "?", "answer": "!"}),
            )],
            true,
        );
        // A task started long ago that a recent decision names keeps its start and finish.
        add(
            vec![line(
                1,
                Event::TaskStarted,
                None,
                Some("t-kept"),
                json!({"description": "x"}),
            )],
            true,
        );
        add(
            vec![line(
                1,
                Event::TaskFinished,
                None,
                Some("t-kept"),
                json!({"status": "completed"}),
            )],
            true,
        );
        add(
            vec![line(
                1,
                Event::TaskStarted,
                None,
                Some("t-gone"),
                json!({"description": "x"}),
            )],
            false,
        );
        add(
            vec![line(
                20,
                Event::DecisionRecorded,
                None,
                Some("t-kept"),
                json!({"text": "d"}),
            )],
            true,
        );
        // The ledger's account of earlier prunes stays.
        add(
            vec![line(
                1,
                Event::LedgerPruned,
                None,
                None,
                json!({"lines": 3, "before": "x"}),
            )],
            true,
        );
        // A line with no readable time stays.
        let mut timeless = line(1, Event::DecisionRecorded, None, None, json!({"text": "d"}));
        if let Some(l) = &mut timeless {
            l.ts = "sometime".into();
        }
        add(vec![timeless], true);

        let keep = plan(&lines, datetime!(2026-11-10 0:00 UTC), Some("open-now"));
        for (i, (got, want)) in keep.iter().zip(&expect).enumerate() {
            assert_eq!(got, want, "line {i}: {:?}", lines[i]);
        }
    }
}
