//! The open episode's own record (`.ai/local/state/episode.json`) and git's view of it.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::event::Rewrite;

/// What `session start` records about the episode it opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeState {
    pub id: String,
    pub provider: String,
    /// Branch at open; `None` when HEAD was detached.
    pub branch: Option<String>,
    /// HEAD at open; `None` when the branch was unborn.
    pub head_at_open: Option<String>,
    pub opened: String,
    /// Byte offset of this episode's `session.opened` line, where its ledger window starts.
    pub ledger_offset: u64,
}

/// One commit as git shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CommitSummary {
    pub id: String,
    pub subject: String,
    /// Committer time, RFC 3339 UTC.
    pub time: String,
    /// Paths the commit changed, sorted: against its first parent; for a commit of an
    /// episode that is a merge, only the paths that differ from every parent (the merge's
    /// own resolution, never what it brought in).
    pub paths: Vec<String>,
}

/// A commit of git's `HEAD ^<HEAD at open>` walk: its id, parents and committer time
/// (seconds since the epoch). What attribution reads; no paths yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkedCommit {
    pub id: String,
    pub parents: Vec<String>,
    pub time: i64,
}

/// The work whose own commits are wanted: an episode (open, or closed as its record says)
/// or a task, with the episode's hook lines.
#[derive(Debug, Clone, Copy)]
pub struct EpisodeSpan<'a> {
    /// HEAD now, or the `head` of a closed episode's record.
    pub head: Option<&'a str>,
    /// The branch at `head` (whose upstream counts, and which may be the trunk itself).
    pub branch: Option<&'a str>,
    /// HEAD when the episode (or task) opened.
    pub head_at_open: Option<&'a str>,
    /// When the episode (or task) opened, in seconds since the epoch.
    pub opened: Option<i64>,
    /// Where the trunk and the upstream are read.
    pub boundaries: BoundariesAt,
    /// The episode's `commit.recorded` shas, in ledger order.
    pub recorded: &'a [String],
    /// The episode's `commit.rewritten` pairs, in ledger order.
    pub rewrites: &'a [Rewrite],
}

/// Where the trunk and the upstream stand for an attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundariesAt {
    /// As they are now (an open episode: its context, its close).
    Now,
    /// As their reflogs say they stood at this moment (seconds since the epoch; a closed
    /// episode's `closed`); a reference with no reflog is read as it is now.
    Logged(i64),
}

/// An episode's own commits, oldest first, each with its own paths; and how many commits
/// since its HEAD at open are not its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnCommits {
    pub commits: Vec<CommitSummary>,
    pub elsewhere: usize,
}

/// What [`attribute_commits`] reads: git since the HEAD at open, and the episode's hook
/// lines.
#[derive(Debug, Clone, Copy)]
pub struct CommitEvidence<'a> {
    /// Every commit reachable from HEAD and not from the HEAD at open (git's
    /// `HEAD ^<head_at_open>`), oldest first.
    pub since_open: &'a [WalkedCommit],
    /// Those of `since_open` the trunk or the branch's upstream also reaches: someone
    /// else's work the branch took in, never the episode's by git's word alone.
    pub beyond: &'a HashSet<String>,
    /// HEAD: where the first-parent line starts.
    pub head: Option<&'a str>,
    /// When the episode (or the task) opened, in seconds since the epoch.
    pub opened: Option<i64>,
    /// The `commit.recorded` shas of the episode, in ledger order.
    pub recorded: &'a [String],
    /// The `<old> <new>` pairs of the episode's `commit.rewritten` lines, in ledger order.
    pub rewrites: &'a [Rewrite],
}

/// The episode's own commits, and how many of git's `HEAD ^<head_at_open>` are not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attributed {
    /// The own commits' ids: those of `since_open` in its order, then the recorded ones
    /// the walk did not reach (made on another branch, say), in ledger order. A recorded
    /// commit git no longer has is still named here; summarising it drops it.
    pub own: Vec<String>,
    /// Commits of `since_open` that are not the episode's.
    pub elsewhere: usize,
}

/// Which commits are the episode's own (SPEC §3.2):
///
/// - (a) every commit the hooks recorded for it (`commit.recorded`), followed through the
///   `commit.rewritten` pairs to what it became ([`recorded_successors`]): an amend lists
///   the amended commit once, a rebase the rebased one;
/// - (b) where no hook recorded them, the commits of HEAD's first-parent line walked back
///   from HEAD until a commit the HEAD at open, the trunk or the upstream reaches (`beyond`,
///   or not in `since_open`), less a commit committed before the episode opened and a
///   commit a recorded rebase moved the work onto (below a rewrite's successor, neither a
///   successor itself nor the episode's by (a)).
///
/// Commits off the first-parent line (what a merge brought in) are the episode's only by
/// (a); a merge the episode made is on the line and is its own. A rebase onto a moved
/// trunk, a trunk merged in or a cherry-pick therefore never adds another author's commit.
pub fn attribute_commits(evidence: &CommitEvidence<'_>) -> Attributed {
    let recorded = recorded_successors(evidence.recorded, evidence.rewrites);
    let recorded_set: HashSet<&str> = recorded.iter().map(String::as_str).collect();
    let walked: HashMap<&str, &WalkedCommit> = evidence
        .since_open
        .iter()
        .map(|c| (c.id.as_str(), c))
        .collect();
    let candidate = |id: &str| walked.contains_key(id) && !evidence.beyond.contains(id);

    // What a recorded rebase moved the work onto: everything the walk holds below a
    // rewrite's successor that is neither a successor nor recorded.
    let successors: HashSet<&str> = evidence.rewrites.iter().map(|r| r.new.as_str()).collect();
    let mut below: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = evidence
        .since_open
        .iter()
        .filter(|c| successors.contains(c.id.as_str()))
        .flat_map(|c| c.parents.iter().map(String::as_str))
        .collect();
    while let Some(id) = stack.pop() {
        if let Some(c) = walked.get(id)
            && below.insert(id)
        {
            stack.extend(c.parents.iter().map(String::as_str));
        }
    }
    let moved_onto =
        |id: &str| below.contains(id) && !successors.contains(id) && !recorded_set.contains(id);

    // HEAD's first-parent line, back to what the HEAD at open, the trunk or the upstream
    // reaches.
    let mut line: HashSet<&str> = HashSet::new();
    let mut at = evidence.head;
    while let Some(id) = at {
        if !candidate(id) || !line.insert(id) {
            break;
        }
        at = walked[id].parents.first().map(String::as_str);
    }
    let before_open = |c: &WalkedCommit| evidence.opened.is_some_and(|open| c.time < open);
    let fallback =
        |c: &WalkedCommit| line.contains(c.id.as_str()) && !before_open(c) && !moved_onto(&c.id);

    let mut own: Vec<String> = Vec::new();
    let mut listed: HashSet<&str> = HashSet::new();
    for c in evidence.since_open {
        if (recorded_set.contains(c.id.as_str()) || fallback(c)) && listed.insert(&c.id) {
            own.push(c.id.clone());
        }
    }
    let elsewhere = evidence.since_open.len() - own.len();
    for id in &recorded {
        if listed.insert(id) {
            own.push(id.clone());
        }
    }
    Attributed { own, elsewhere }
}

/// Each recorded commit followed through the rewrite pairs to what it became, in ledger
/// order, de-duplicated: the commits no pair rewrote further, reached from it (several
/// hops: an amend, then a rebase; git may list the rebase's pair before the amend's). A
/// chain that comes back on itself ends at the last successor the ledger names in it.
pub fn recorded_successors(recorded: &[String], rewrites: &[Rewrite]) -> Vec<String> {
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for pair in rewrites.iter().filter(|p| p.old != p.new) {
        let news = next.entry(pair.old.as_str()).or_default();
        if !news.contains(&pair.new.as_str()) {
            news.push(pair.new.as_str());
        }
    }
    let mut out: Vec<String> = Vec::new();
    for sha in recorded {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut order: Vec<&str> = Vec::new();
        let mut stack = vec![sha.as_str()];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            order.push(id);
            if let Some(news) = next.get(id) {
                stack.extend(news.iter().rev());
            }
        }
        let mut finals: Vec<&str> = order
            .iter()
            .copied()
            .filter(|id| !next.contains_key(id))
            .collect();
        if finals.is_empty()
            && let Some(last) = rewrites
                .iter()
                .rev()
                .find(|p| p.old != p.new && seen.contains(p.old.as_str()))
        {
            finals.push(&last.new);
        }
        for id in finals {
            if !out.iter().any(|o| o == id) {
                out.push(id.to_owned());
            }
        }
    }
    out
}

/// Orders an episode's commits oldest first by committer time, keeping the given order
/// (git's walk, then the ledger's) between commits of the same second.
pub fn oldest_first(commits: &mut [CommitSummary]) {
    commits.sort_by_key(|c| super::time::parse(&c.time).map(time::OffsetDateTime::unix_timestamp));
}

/// Git now against git at open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GitSinceOpen {
    pub head: Option<String>,
    pub branch: Option<String>,
    /// The episode's own commits ([`attribute_commits`]), oldest first.
    pub commits: Vec<CommitSummary>,
    /// Union of the commits' paths, sorted.
    pub changed_files: Vec<String>,
    /// Working tree has tracked or untracked changes outside the memory's own files
    /// under `.ai/` (what `working_tree` lists, those left out).
    pub dirty: bool,
    /// Every path `git status --porcelain` names, in its order and with its two-letter
    /// code (`.ai/` included: listed, not counted as dirty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub working_tree: Vec<PathStatus>,
    /// Commits between the HEAD at open and HEAD that are not the episode's: what a
    /// rebase moved it onto or a merge brought in ([`attribute_commits`]).
    pub elsewhere: usize,
}

impl GitSinceOpen {
    /// Builds the view; `changed_files` is computed from the commits.
    pub fn new(
        head: Option<String>,
        branch: Option<String>,
        commits: Vec<CommitSummary>,
        dirty: bool,
    ) -> Self {
        let mut changed_files: Vec<String> = commits
            .iter()
            .flat_map(|c| c.paths.iter().cloned())
            .collect();
        changed_files.sort();
        changed_files.dedup();
        GitSinceOpen {
            head,
            branch,
            commits,
            changed_files,
            dirty,
            working_tree: Vec::new(),
            elsewhere: 0,
        }
    }
}

/// One line of `git status --porcelain`: `XY path` (`XY from -> path` for a rename).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PathStatus {
    /// The two columns: the index against HEAD, the work tree against the index
    /// (`M `, ` M`, `A `, ` D`, `R `, `??`, ...).
    pub code: String,
    /// Repository-relative, `/`-separated; an untracked directory ends in `/`.
    pub path: String,
    /// Where a rename or copy came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl PathStatus {
    /// The line as `git status --porcelain` prints it.
    pub fn porcelain(&self) -> String {
        match &self.from {
            Some(from) => format!("{} {from} -> {}", self.code, self.path),
            None => format!("{} {}", self.code, self.path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30T10:00:00Z, when the episodes of these tests open.
    const OPEN: i64 = 1_796_032_800;

    fn commit(id: &str, minutes: i64, parents: &[&str]) -> WalkedCommit {
        WalkedCommit {
            id: id.into(),
            parents: parents.iter().map(|p| (*p).to_owned()).collect(),
            time: OPEN + minutes * 60,
        }
    }

    fn shas(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|i| (*i).to_owned()).collect()
    }

    fn pair(old: &str, new: &str) -> Rewrite {
        Rewrite {
            old: old.into(),
            new: new.into(),
        }
    }

    /// The attribution of `walk` from `head`, with `beyond` reached by the trunk.
    fn own(
        walk: &[WalkedCommit],
        beyond: &[&str],
        head: &str,
        recorded: &[&str],
        rewrites: &[Rewrite],
    ) -> (Vec<String>, usize) {
        let beyond: HashSet<String> = beyond.iter().map(|b| (*b).to_owned()).collect();
        let recorded = shas(recorded);
        let a = attribute_commits(&CommitEvidence {
            since_open: walk,
            beyond: &beyond,
            head: Some(head),
            opened: Some(OPEN),
            recorded: &recorded,
            rewrites,
        });
        (a.own, a.elsewhere)
    }

    #[test]
    fn a_rebase_onto_a_moved_trunk_lists_only_the_rebased_work() {
        // Open at o with e1 made on it; the trunk got t (during the episode); the rebase
        // wrote e1' on t.
        let walk = [commit("t", 5, &["o"]), commit("e1'", 6, &["t"])];
        // With the hooks: e1 recorded, e1 -> e1' rewritten.
        assert_eq!(
            own(&walk, &["t"], "e1'", &["e1"], &[pair("e1", "e1'")]),
            (shas(&["e1'"]), 1)
        );
        // Without: the first-parent line stops at what the trunk reaches.
        assert_eq!(own(&walk, &["t"], "e1'", &[], &[]), (shas(&["e1'"]), 1));
    }

    #[test]
    fn a_trunk_merged_in_adds_the_merge_and_nothing_it_brought() {
        let walk = [
            commit("e1", 1, &["o"]),
            commit("t1", 2, &["o"]),
            commit("t2", 3, &["t1"]),
            commit("m", 4, &["e1", "t2"]),
        ];
        let expected = (shas(&["e1", "m"]), 2);
        assert_eq!(own(&walk, &["t1", "t2"], "m", &[], &[]), expected);
        assert_eq!(own(&walk, &["t1", "t2"], "m", &["e1"], &[]), expected);
        // No trunk known: still only the first-parent line.
        assert_eq!(own(&walk, &[], "m", &[], &[]), expected);
        // A merged commit the hooks saw the episode make (on another branch) is its own.
        assert_eq!(
            own(&walk, &["t1", "t2"], "m", &["e1", "t1"], &[]),
            (shas(&["e1", "t1", "m"]), 1)
        );
    }

    #[test]
    fn a_cherry_pick_lists_the_new_commit_only() {
        let walk = [commit("e1", 1, &["o"]), commit("p'", 2, &["e1"])];
        let expected = (shas(&["e1", "p'"]), 0);
        assert_eq!(own(&walk, &[], "p'", &["e1", "p'"], &[]), expected);
        assert_eq!(own(&walk, &[], "p'", &[], &[]), expected);
    }

    #[test]
    fn an_amend_lists_the_amended_commit_once() {
        let walk = [commit("c2", 2, &["o"])];
        // post-commit records both, post-rewrite the pair.
        assert_eq!(
            own(&walk, &[], "c2", &["c1", "c2"], &[pair("c1", "c2")]),
            (shas(&["c2"]), 0)
        );
        assert_eq!(own(&walk, &[], "c2", &[], &[]), (shas(&["c2"]), 0));
    }

    #[test]
    fn on_the_trunk_every_commit_since_open_is_the_episodes() {
        // The caller passes no trunk there: the trunk is the branch itself.
        let walk = [commit("a", 1, &["o"]), commit("b", 2, &["a"])];
        assert_eq!(own(&walk, &[], "b", &[], &[]), (shas(&["a", "b"]), 0));
        assert_eq!(own(&walk, &[], "b", &["b"], &[]), (shas(&["a", "b"]), 0));
    }

    #[test]
    fn a_commit_the_hook_missed_on_the_line_is_still_listed() {
        let walk = [commit("e1", 1, &["o"]), commit("e2", 2, &["e1"])];
        assert_eq!(
            own(&walk, &[], "e2", &["e2"], &[]),
            (shas(&["e1", "e2"]), 0)
        );
    }

    #[test]
    fn a_rebase_onto_a_moved_parent_branch_leaves_it_out_when_recorded() {
        // The parent branch got p (not the trunk, not the upstream); the rebase moved e1
        // onto it.
        let walk = [commit("p", 3, &["o"]), commit("e1'", 4, &["p"])];
        assert_eq!(
            own(&walk, &[], "e1'", &["e1"], &[pair("e1", "e1'")]),
            (shas(&["e1'"]), 1)
        );
        // Without hooks nothing tells p apart (docs/SESSIONS.md names this limit).
        assert_eq!(own(&walk, &[], "e1'", &[], &[]), (shas(&["p", "e1'"]), 0));
    }

    #[test]
    fn a_commit_from_before_the_open_is_not_the_episodes() {
        let walk = [commit("old", -30, &["o"]), commit("e", 1, &["old"])];
        assert_eq!(own(&walk, &[], "e", &[], &[]), (shas(&["e"]), 1));
        // In the second the episode opened it is.
        let walk = [commit("a", 0, &["o"])];
        assert_eq!(own(&walk, &[], "a", &[], &[]), (shas(&["a"]), 0));
    }

    #[test]
    fn a_recorded_commit_off_heads_history_is_listed_after_the_walk() {
        let walk = [commit("e1", 1, &["o"])];
        assert_eq!(
            own(&walk, &[], "e1", &["x", "e1"], &[]),
            (shas(&["e1", "x"]), 0)
        );
    }

    #[test]
    fn successors_follow_every_hop_in_any_order_and_end_a_cycle() {
        // The rebase of the amended commit listed before the amend.
        let rewrites = [pair("c2", "c3"), pair("c1", "c2"), pair("x", "y")];
        assert_eq!(
            recorded_successors(&shas(&["c1"]), &rewrites),
            shas(&["c3"])
        );
        // A squash: two commits became one.
        assert_eq!(
            recorded_successors(&shas(&["a", "b"]), &[pair("a", "s"), pair("b", "s")]),
            shas(&["s"])
        );
        // A pair that comes back (a reset, then the same rewrite again).
        assert_eq!(
            recorded_successors(&shas(&["a"]), &[pair("a", "b"), pair("b", "a")]),
            shas(&["a"])
        );
        assert_eq!(recorded_successors(&shas(&["a"]), &[]), shas(&["a"]));
    }

    #[test]
    fn oldest_first_keeps_the_given_order_within_a_second() {
        let summary = |id: &str, time: &str| CommitSummary {
            id: id.into(),
            subject: id.into(),
            time: time.into(),
            paths: Vec::new(),
        };
        let mut commits = vec![
            summary("b", "2026-11-30T10:05:00Z"),
            summary("c", "2026-11-30T10:05:00Z"),
            summary("a", "2026-11-30T10:01:00Z"),
        ];
        oldest_first(&mut commits);
        let ids: Vec<&str> = commits.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }
}
