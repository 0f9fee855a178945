//! The work at hand (SPEC §11), what weighs the other signals: where each path asked about
//! came from — what the request named, the uncommitted changes, the branch's own commits
//! (newest weighing most), the rest of the branch, the task's scope, the last handover's
//! files — multiplies what a record reaching it is worth, and the links of the work at
//! hand weigh less than links asked for by name. Why: where the path came from, in words
//! (after the path's own why).

use schemars::JsonSchema;
use serde::Serialize;

/// Where a path of the work at hand came from, strongest first (SPEC §11): what the
/// request named, the uncommitted changes, the branch's own commits (newest weighing
/// most), the rest of the branch against the trunk, the task's scope, the last handover's
/// files. Its weight multiplies what a record reaching the path is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "source", content = "rank")]
pub enum HandSource {
    /// Named by the request (`--path`).
    Asked,
    /// Changed in the work tree or the index, not committed.
    Uncommitted,
    /// Edited by the agent's tools in the open episode (`agent.touched`), committed or not.
    Touched,
    /// Changed by one of the branch's own commits since it forked from its parent (or,
    /// on the trunk, the open episode's): 0 for the newest.
    OwnCommit(usize),
    /// Changed on the branch against the trunk, before its own commits (a parent
    /// branch's work).
    Branch,
    /// The active or last task's scope.
    Scope,
    /// A file of the last handover's episode.
    Handover,
    /// A file a prompt's words came with (`signal::history`): its weight in thousandths.
    Words(u16),
}

impl HandSource {
    /// What a path from here weighs: 1 for what was asked or is being edited now, then
    /// less the further the work is from now.
    pub fn weight(self) -> f64 {
        match self {
            HandSource::Asked | HandSource::Uncommitted | HandSource::Touched => 1.0,
            // 0.8 for the newest commit, then towards 0.5: 0.71, 0.65, 0.6 ...
            HandSource::OwnCommit(i) => {
                OWN_COMMIT_FLOOR
                    + (OWN_COMMIT_NEWEST - OWN_COMMIT_FLOOR)
                        * OWN_COMMIT_DECAY.powi(i.min(64) as i32)
            }
            HandSource::Branch => 0.4,
            HandSource::Scope => 0.4,
            HandSource::Handover => 0.25,
            HandSource::Words(thousandths) => f64::from(thousandths) / 1000.0,
        }
    }

    /// In words, for a hit's why.
    pub fn said(self) -> String {
        match self {
            HandSource::Asked => "asked".into(),
            HandSource::Uncommitted => "uncommitted change".into(),
            HandSource::Touched => "the agent edited it this episode".into(),
            HandSource::OwnCommit(0) => "this branch's last commit".into(),
            HandSource::OwnCommit(i) => format!("this branch's own commit {} back", i),
            HandSource::Branch => "changed on this branch before its own commits".into(),
            HandSource::Scope => "the task's scope".into(),
            HandSource::Handover => "the last handover's episode".into(),
            HandSource::Words(_) => "the prompt's words came with it".into(),
        }
    }
}

/// What the newest of the branch's own commits weighs ([`HandSource::OwnCommit`]).
pub const OWN_COMMIT_NEWEST: f64 = 0.8;
/// What an old own commit weighs at least.
pub const OWN_COMMIT_FLOOR: f64 = 0.5;
/// Each older own commit keeps this share of the newer one's weight above the floor.
pub const OWN_COMMIT_DECAY: f64 = 0.7;

/// What links of the work at hand (its task, issue, intent) weigh, against the same links
/// asked for by name (`--task`, `--issue`): they come after the files being touched.
pub const HAND_LINK_FACTOR: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::super::tests::m;
    use super::super::{PathHow, PathMatch, PathVia, Signals};
    use super::*;

    #[test]
    fn the_work_at_hand_weighs_the_edit_first_then_the_branchs_newest_commits() {
        let order = [
            HandSource::Uncommitted,
            HandSource::OwnCommit(0),
            HandSource::OwnCommit(1),
            HandSource::OwnCommit(5),
            HandSource::Branch,
            HandSource::Handover,
        ];
        for pair in order.windows(2) {
            assert!(pair[0].weight() > pair[1].weight(), "{pair:?}");
        }
        assert_eq!(HandSource::Asked.weight(), 1.0);
        assert!((HandSource::OwnCommit(0).weight() - OWN_COMMIT_NEWEST).abs() < 1e-12);
        assert!(HandSource::OwnCommit(1000).weight() >= OWN_COMMIT_FLOOR);
        assert!(HandSource::OwnCommit(1000).weight() > HandSource::Branch.weight());
        // A record about the file being edited outranks one about five files of the
        // branch's older work (the decay keeps breadth from beating strength).
        let edit = Signals {
            paths: vec![PathMatch {
                source: HandSource::Uncommitted,
                ..m("src/edit.rs", PathVia::Reference, PathHow::Exact)
            }],
            ..Signals::default()
        };
        let broad = Signals {
            paths: (0..5)
                .map(|i| PathMatch {
                    query: format!("src/old{i}.rs"),
                    source: HandSource::Branch,
                    ..m("x", PathVia::Reference, PathHow::Exact)
                })
                .collect(),
            ..Signals::default()
        };
        assert!(
            edit.path() > broad.path(),
            "{} {}",
            edit.path(),
            broad.path()
        );
    }
}
