//! Links, a signal (SPEC §11): what a record shares with the work asked about — the same
//! task, issue or intent — each kind counted once, by its best weight. Why: `same <kind>
//! <id>`.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Signals, Why};

/// What a record shares with the work asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Task,
    Issue,
    Intent,
}

impl LinkKind {
    pub fn weight(self) -> f64 {
        match self {
            LinkKind::Task => 2.0,
            LinkKind::Issue => 1.5,
            LinkKind::Intent => 1.0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Task => "task",
            LinkKind::Issue => "issue",
            LinkKind::Intent => "intent",
        }
    }
}

impl Signals {
    pub fn link(&self) -> f64 {
        let mut best: Vec<(LinkKind, f64)> = Vec::new();
        for (kind, _, weight) in &self.links {
            match best.iter_mut().find(|(k, _)| k == kind) {
                Some((_, w)) if *w < *weight => *w = *weight,
                Some(_) => {}
                None => best.push((*kind, *weight)),
            }
        }
        best.iter().map(|(_, w)| w).sum()
    }

    /// Why it ranked by links: each link it shares, `same <kind> <id>`.
    pub fn link_why(&self) -> Vec<Why> {
        self.links
            .iter()
            .map(|(kind, value, _)| Why {
                signal: kind.name(),
                detail: format!("same {} {value}", kind.name()),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::HAND_LINK_FACTOR;
    use super::*;

    #[test]
    fn links_count_each_kind_once_by_its_best_weight() {
        let s = Signals {
            links: vec![
                (
                    LinkKind::Task,
                    "t".into(),
                    LinkKind::Task.weight() * HAND_LINK_FACTOR,
                ),
                (LinkKind::Task, "t".into(), LinkKind::Task.weight()),
                (LinkKind::Issue, "i".into(), LinkKind::Issue.weight()),
            ],
            ..Signals::default()
        };
        assert!((s.link() - 3.5).abs() < 1e-12);
    }
}
