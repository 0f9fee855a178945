//! An episode's ledger window: the authored records and tasks stamped with its id.

use serde::Serialize;

use super::event::{Event, LedgerLine};

/// What the ledger holds for one episode, in ledger order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EpisodeWindow {
    pub episode: String,
    pub decisions: Vec<Decision>,
    pub questions: Vec<Question>,
    pub checkpoints: Vec<Checkpoint>,
    pub tasks: Vec<Task>,
    /// `commit.recorded` lines (written by the post-commit hook).
    pub commits_recorded: Vec<RecordedCommit>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub seq: u64,
    pub ts: String,
    pub text: String,
    pub task: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    pub id: String,
    pub text: String,
    /// When it was asked; `None` when asked in an earlier episode and resolved in this one.
    pub asked: Option<String>,
    pub answer: Option<String>,
    pub resolved: Option<String>,
    pub task: Option<String>,
}

impl Question {
    pub fn is_open(&self) -> bool {
        self.answer.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checkpoint {
    pub seq: u64,
    pub ts: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    pub id: String,
    pub description: String,
    pub started: String,
    /// `completed` or `blocked` once finished.
    pub status: Option<String>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedCommit {
    pub sha: String,
    pub subject: String,
}

impl EpisodeWindow {
    /// Builds the window from ledger lines; lines stamped with another episode are ignored.
    pub fn from_lines<'a>(episode: &str, lines: impl IntoIterator<Item = &'a LedgerLine>) -> Self {
        let mut window = EpisodeWindow {
            episode: episode.to_owned(),
            ..EpisodeWindow::default()
        };
        for line in lines {
            if line.session.as_deref() != Some(episode) {
                continue;
            }
            window.push(line);
        }
        window
    }

    fn push(&mut self, line: &LedgerLine) {
        let text = |key: &str| line.data_str(key).unwrap_or_default().to_owned();
        match line.event {
            Event::DecisionRecorded => self.decisions.push(Decision {
                seq: line.seq,
                ts: line.ts.clone(),
                text: text("text"),
                task: line.task.clone(),
            }),
            Event::QuestionAsked => self.questions.push(Question {
                id: text("id"),
                text: text("text"),
                asked: Some(line.ts.clone()),
                answer: None,
                resolved: None,
                task: line.task.clone(),
            }),
            Event::QuestionResolved => {
                let id = text("id");
                let answer = Some(text("answer"));
                let resolved = Some(line.ts.clone());
                match self.questions.iter_mut().find(|q| q.id == id) {
                    Some(q) => {
                        q.answer = answer;
                        q.resolved = resolved;
                    }
                    None => self.questions.push(Question {
                        id,
                        text: text("question"),
                        asked: None,
                        answer,
                        resolved,
                        task: line.task.clone(),
                    }),
                }
            }
            Event::CheckpointRecorded => self.checkpoints.push(Checkpoint {
                seq: line.seq,
                ts: line.ts.clone(),
                text: text("text"),
            }),
            Event::TaskStarted => self.tasks.push(Task {
                id: line.task.clone().unwrap_or_default(),
                description: text("description"),
                started: line.ts.clone(),
                status: None,
                reason: None,
            }),
            Event::TaskFinished => {
                let id = line.task.clone().unwrap_or_default();
                if let Some(task) = self.tasks.iter_mut().find(|t| t.id == id) {
                    task.status = line.data_str("status").map(str::to_owned);
                    task.reason = line.data_str("reason").map(str::to_owned);
                }
            }
            Event::CommitRecorded => self.commits_recorded.push(RecordedCommit {
                sha: text("sha"),
                subject: text("subject"),
            }),
            _ => {}
        }
    }

    /// Open questions asked in this episode.
    pub fn open_questions(&self) -> impl Iterator<Item = &Question> {
        self.questions.iter().filter(|q| q.is_open())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(
        seq: u64,
        event: Event,
        session: &str,
        task: Option<&str>,
        data: serde_json::Value,
    ) -> LedgerLine {
        LedgerLine {
            seq,
            ts: format!("2026-11-30T10:00:{seq:02}Z"),
            event,
            session: Some(session.to_owned()),
            task: task.map(str::to_owned),
            data,
        }
    }

    #[test]
    fn window_keeps_only_its_episode_and_pairs_questions() {
        let lines = vec![
            line(1, Event::SessionOpened, "a", None, json!({})),
            line(
                2,
                Event::DecisionRecorded,
                "a",
                Some("t-1"),
                json!({"text": "use gix"}),
            ),
            line(
                3,
                Event::DecisionRecorded,
                "b",
                None,
                json!({"text": "other episode"}),
            ),
            line(
                4,
                Event::QuestionAsked,
                "a",
                None,
                json!({"id": "q-1", "text": "why?"}),
            ),
            line(
                5,
                Event::QuestionAsked,
                "a",
                None,
                json!({"id": "q-2", "text": "how?"}),
            ),
            line(
                6,
                Event::QuestionResolved,
                "a",
                None,
                json!({"id": "q-1", "question": "why?", "answer": "because"}),
            ),
            line(
                7,
                Event::QuestionResolved,
                "a",
                None,
                json!({"id": "q-0", "question": "old?", "answer": "yes"}),
            ),
            line(
                8,
                Event::CheckpointRecorded,
                "a",
                None,
                json!({"text": "half way"}),
            ),
            line(
                9,
                Event::TaskStarted,
                "a",
                Some("t-1"),
                json!({"description": "do it"}),
            ),
            line(
                10,
                Event::TaskFinished,
                "a",
                Some("t-1"),
                json!({"status": "blocked", "reason": "no disk"}),
            ),
        ];
        let w = EpisodeWindow::from_lines("a", &lines);
        assert_eq!(w.decisions.len(), 1);
        assert_eq!(w.decisions[0].task.as_deref(), Some("t-1"));
        assert_eq!(w.questions.len(), 3);
        assert_eq!(w.questions[0].answer.as_deref(), Some("because"));
        assert!(w.questions[1].is_open());
        assert_eq!(w.questions[2].asked, None);
        assert_eq!(w.open_questions().count(), 1);
        assert_eq!(w.checkpoints[0].text, "half way");
        assert_eq!(w.tasks[0].status.as_deref(), Some("blocked"));
        assert_eq!(w.tasks[0].reason.as_deref(), Some("no disk"));
    }
}
