//! An episode's ledger window: the authored records and tasks stamped with its id.

use schemars::JsonSchema;
use serde::Serialize;

use super::event::{
    AgentTouched, CheckpointRecorded, CommitRecorded, ContextShown, DecisionRecorded, Event,
    LedgerLine, QuestionAsked, QuestionResolved, ShownWhere, TaskFinished, TaskStarted, TaskStatus,
};

/// What the ledger holds for one episode, in ledger order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct EpisodeWindow {
    pub episode: String,
    pub decisions: Vec<Decision>,
    pub questions: Vec<Question>,
    pub checkpoints: Vec<Checkpoint>,
    pub tasks: Vec<Task>,
    /// `commit.recorded` lines (written by the post-commit hook).
    pub commits_recorded: Vec<RecordedCommit>,
    /// The `<old> <new>` pairs of `commit.rewritten` lines (the post-rewrite hook), in
    /// ledger order.
    pub commits_rewritten: Vec<super::event::Rewrite>,
    /// Files the agent's editing tools touched (`agent.touched`), sorted: the working set
    /// before any commit.
    pub touched: Vec<String>,
    /// What hooks and tools put before the model (`context.shown`), in ledger order.
    pub shown: Vec<ShownEntry>,
}

/// One `context.shown` line.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ShownEntry {
    pub seq: u64,
    pub ts: String,
    #[serde(rename = "where")]
    pub place: ShownWhere,
    pub records: Vec<super::event::ShownItem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Decision {
    pub seq: u64,
    pub ts: String,
    pub text: String,
    pub task: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Checkpoint {
    pub seq: u64,
    pub ts: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Task {
    pub id: String,
    pub description: String,
    pub started: String,
    /// How it ended, once finished.
    pub status: Option<TaskStatus>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
        match line.event {
            Event::DecisionRecorded => {
                let Some(d) = line.payload::<DecisionRecorded>() else {
                    return;
                };
                self.decisions.push(Decision {
                    seq: line.seq,
                    ts: line.ts.clone(),
                    text: d.text,
                    task: line.task_id().map(str::to_owned),
                })
            }
            Event::QuestionAsked => {
                let Some(q) = line.payload::<QuestionAsked>() else {
                    return;
                };
                self.questions.push(Question {
                    id: q.id,
                    text: q.text,
                    asked: Some(line.ts.clone()),
                    answer: None,
                    resolved: None,
                    task: line.task_id().map(str::to_owned),
                })
            }
            Event::QuestionResolved => {
                let Some(r) = line.payload::<QuestionResolved>() else {
                    return;
                };
                let resolved = Some(line.ts.clone());
                match self.questions.iter_mut().find(|q| q.id == r.id) {
                    Some(q) => {
                        q.answer = Some(r.answer);
                        q.resolved = resolved;
                    }
                    None => self.questions.push(Question {
                        id: r.id,
                        text: r.question,
                        asked: None,
                        answer: Some(r.answer),
                        resolved,
                        task: line.task_id().map(str::to_owned),
                    }),
                }
            }
            Event::CheckpointRecorded => {
                let Some(c) = line.payload::<CheckpointRecorded>() else {
                    return;
                };
                self.checkpoints.push(Checkpoint {
                    seq: line.seq,
                    ts: line.ts.clone(),
                    text: c.text,
                })
            }
            Event::TaskStarted => {
                let (Some(t), Some(id)) = (line.payload::<TaskStarted>(), line.task_id()) else {
                    return;
                };
                self.tasks.push(Task {
                    id: id.to_owned(),
                    description: t.description,
                    started: line.ts.clone(),
                    status: None,
                    reason: None,
                })
            }
            Event::TaskFinished => {
                let (Some(f), Some(id)) = (line.payload::<TaskFinished>(), line.task_id()) else {
                    return;
                };
                if let Some(task) = self.tasks.iter_mut().find(|t| t.id == id) {
                    task.status = Some(f.status);
                    task.reason = f.reason;
                }
            }
            Event::CommitRecorded => {
                let Some(c) = line.payload::<CommitRecorded>() else {
                    return;
                };
                self.commits_recorded.push(RecordedCommit {
                    sha: c.sha,
                    subject: c.subject,
                })
            }
            Event::CommitRewritten => {
                let Some(r) = line.payload::<super::event::CommitRewritten>() else {
                    return;
                };
                self.commits_rewritten.extend(r.pairs);
            }
            Event::AgentTouched => {
                let Some(t) = line.payload::<AgentTouched>() else {
                    return;
                };
                for path in t.paths {
                    if let Err(at) = self.touched.binary_search(&path) {
                        self.touched.insert(at, path);
                    }
                }
            }
            Event::ContextShown => {
                let Some(c) = line.payload::<ContextShown>() else {
                    return;
                };
                self.shown.push(ShownEntry {
                    seq: line.seq,
                    ts: line.ts.clone(),
                    place: c.place,
                    records: c.records,
                    files: c.files,
                    tool: c.tool,
                });
            }
            _ => {}
        }
    }

    /// The `commit.recorded` shas (the post-commit hook), in ledger order.
    pub fn recorded_shas(&self) -> Vec<String> {
        self.commits_recorded
            .iter()
            .map(|c| c.sha.clone())
            .collect()
    }

    /// What the hooks saw this episode commit, followed through its rewrites to what each
    /// commit became ([`super::episode::recorded_successors`]).
    pub fn recorded_successors(&self) -> Vec<String> {
        super::episode::recorded_successors(&self.recorded_shas(), &self.commits_rewritten)
    }

    /// Every record shown to the model this episode (`kind:id`), once each.
    pub fn shown_ids(&self) -> std::collections::BTreeSet<&str> {
        self.shown
            .iter()
            .flat_map(|s| s.records.iter().map(|r| r.id.as_str()))
            .collect()
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
    fn recorded_commits_follow_amends_and_rebases_to_what_they_became() {
        let none =
            EpisodeWindow::from_lines("a", &[line(1, Event::SessionOpened, "a", None, json!({}))]);
        assert!(none.recorded_successors().is_empty());
        let lines = vec![
            line(1, Event::SessionOpened, "a", None, json!({})),
            line(
                2,
                Event::CommitRecorded,
                "a",
                None,
                json!({"sha": "c1", "subject": "s"}),
            ),
            // The rebase of the amended commit is listed before the amend itself.
            line(
                3,
                Event::CommitRewritten,
                "a",
                None,
                json!({"by": "rebase", "pairs": [{"old": "c2", "new": "c3"}]}),
            ),
            line(
                4,
                Event::CommitRewritten,
                "a",
                None,
                json!({"by": "amend", "pairs": [{"old": "c1", "new": "c2"}]}),
            ),
            line(
                5,
                Event::CommitRewritten,
                "a",
                None,
                json!({"by": "rebase", "pairs": [{"old": "x", "new": "y"}]}),
            ),
        ];
        let window = EpisodeWindow::from_lines("a", &lines);
        assert_eq!(window.recorded_shas(), ["c1"]);
        assert_eq!(window.commits_rewritten.len(), 3);
        assert_eq!(window.recorded_successors(), ["c3"]);
    }

    #[test]
    fn window_keeps_only_its_episode_and_pairs_questions() {
        let lines = vec![
            line(1, Event::SessionOpened, "a", None, json!({})),
            line(
                2,
                Event::DecisionRecorded,
                "a",
                Some("t-20261130-0001"),
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
                Some("t-20261130-0001"),
                json!({"description": "do it"}),
            ),
            line(
                10,
                Event::TaskFinished,
                "a",
                Some("t-20261130-0001"),
                json!({"status": "blocked", "reason": "no disk"}),
            ),
        ];
        let w = EpisodeWindow::from_lines("a", &lines);
        assert_eq!(w.decisions.len(), 1);
        assert_eq!(w.decisions[0].task.as_deref(), Some("t-20261130-0001"));
        assert_eq!(w.questions.len(), 3);
        assert_eq!(w.questions[0].answer.as_deref(), Some("because"));
        assert!(w.questions[1].is_open());
        assert_eq!(w.questions[2].asked, None);
        assert_eq!(w.open_questions().count(), 1);
        assert_eq!(w.checkpoints[0].text, "half way");
        assert_eq!(w.tasks[0].status, Some(TaskStatus::Blocked));
        assert_eq!(w.tasks[0].reason.as_deref(), Some("no disk"));
    }
}
