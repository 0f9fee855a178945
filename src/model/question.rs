//! Questions folded from ledger lines: each asked question with its answer, if any.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::event::{LedgerLine, QuestionAsked, QuestionResolved};

/// A question as the whole ledger knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LedgerQuestion {
    pub id: String,
    pub text: String,
    /// The episode that asked it.
    pub session: Option<String>,
    pub asked: String,
    pub answer: Option<String>,
}

/// Questions accumulated from ledger lines, in asking order, with answers.
#[derive(Debug, Default)]
pub struct QuestionBook {
    questions: Vec<LedgerQuestion>,
    index: HashMap<String, usize>,
}

impl QuestionBook {
    /// Takes in one ledger line (other events are ignored).
    pub fn visit(&mut self, line: &LedgerLine) {
        if let Some(asked) = line.payload::<QuestionAsked>() {
            self.index.insert(asked.id.clone(), self.questions.len());
            self.questions.push(LedgerQuestion {
                id: asked.id,
                text: asked.text,
                session: line.session.clone(),
                asked: line.ts.clone(),
                answer: None,
            });
        } else if let Some(resolved) = line.payload::<QuestionResolved>()
            && let Some(&i) = self.index.get(&resolved.id)
        {
            self.questions[i].answer = Some(resolved.answer);
        }
    }

    /// The question `id`, if the ledger asked it.
    pub fn get(&self, id: &str) -> Option<&LedgerQuestion> {
        self.index.get(id).map(|&i| &self.questions[i])
    }

    pub fn into_questions(self) -> Vec<LedgerQuestion> {
        self.questions
    }

    /// The questions still open, in asking order.
    pub fn into_open(self) -> Vec<LedgerQuestion> {
        self.questions
            .into_iter()
            .filter(|q| q.answer.is_none())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::LineDraft;

    #[test]
    fn answers_pair_with_their_questions() {
        let mut book = QuestionBook::default();
        let lines = [
            LineDraft::new(
                "t1".into(),
                Some("E".into()),
                None,
                &QuestionAsked {
                    id: "q-1".into(),
                    text: "why?".into(),
                    files: Vec::new(),
                },
            ),
            LineDraft::new(
                "t2".into(),
                Some("E".into()),
                None,
                &QuestionAsked {
                    id: "q-2".into(),
                    text: "how?".into(),
                    files: Vec::new(),
                },
            ),
            LineDraft::new(
                "t3".into(),
                None,
                None,
                &QuestionResolved {
                    id: "q-1".into(),
                    question: "why?".into(),
                    answer: "speed".into(),
                    files: Vec::new(),
                },
            ),
        ];
        for (seq, draft) in lines.into_iter().enumerate() {
            book.visit(&draft.with_seq(seq as u64 + 1));
        }
        assert_eq!(
            book.get("q-1").and_then(|q| q.answer.as_deref()),
            Some("speed")
        );
        let open = book.into_open();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].id, "q-2");
    }
}
