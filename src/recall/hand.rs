//! The work at hand (SPEC §11): what the briefing and `--at-hand` rank by, strongest first
//! — the uncommitted changes, the files the agent edited, the branch's own commits, the
//! rest of the branch, the task, the last handover — each path with where it came from
//! (what it weighs: `model::recall::HandSource`), each source said in words.

use super::QueryPath;
use crate::Ctx;
use crate::error::Error;
use crate::model::recall::{HandSource, LinkKind};
use crate::store::recall::literal_prefix;

/// The work at hand: what the briefing ranks by.
#[derive(Debug, Clone, Default)]
pub struct AtHand {
    /// Strongest first, each path once.
    pub paths: Vec<QueryPath>,
    pub links: Vec<(LinkKind, String)>,
    /// Each source, in words (for the briefing's and recall's context line).
    pub said: Vec<String>,
}

impl AtHand {
    /// Adds the paths of `files` not already at hand, from `source`; how many were new.
    fn claim(&mut self, files: impl IntoIterator<Item = String>, source: HandSource) -> usize {
        let mut added = 0;
        for path in files {
            // majordomus's own files, and the clients' wiring setup wrote, are not the work.
            if path.is_empty()
                || path.starts_with(".ai/")
                || crate::model::wiring::WIRING.contains(&path.as_str())
                || self.paths.iter().any(|p| p.path == path)
            {
                continue;
            }
            self.paths.push(QueryPath { path, source });
            added += 1;
        }
        added
    }
}

/// Own commits of a branch weighed one by one (older ones count as the rest of the branch).
const OWN_COMMITS_WEIGHED: usize = 32;

/// The work at hand, strongest first (SPEC §11): the uncommitted changes (staged and
/// unstaged); the branch's own commits since it forked from its parent (its creation in
/// the reflog, else its upstream, else the merge base with the trunk), newest weighing
/// most — on the trunk, the open episode's commits; the rest of the branch against the
/// trunk; the active task of the open episode, else the newest task of an episode on
/// this branch (its scope, issue and intent); the last handover's episode's files.
pub fn at_hand(ctx: &Ctx, db: &mut crate::store::recall::RecallDb) -> Result<AtHand, Error> {
    let mut hand = AtHand::default();
    let open = ctx.episode()?;
    let head = ctx.repo.head()?;
    let trunk = ctx.repo.trunk()?;

    // What is being edited now.
    let mut phase = crate::timing::Phase::start("recall.at-hand.status");
    let uncommitted = uncommitted(ctx, db)?;
    phase.count("paths", uncommitted.len());
    phase.end();
    let phase = crate::timing::Phase::start("recall.at-hand.commits");
    let changed = hand.claim(uncommitted, HandSource::Uncommitted);
    if changed > 0 {
        hand.said.push(format!("{changed} uncommitted change(s)"));
    }
    // What the agent's editing tools touched this episode (`agent.touched`) and git no
    // longer shows as a change (committed since, or put back).
    if let Some(ep) = &open {
        let touched_phase = crate::timing::Phase::start("recall.at-hand.touched");
        let touched = crate::ctx::touched(ctx, ep)?;
        touched_phase.end();
        let n = hand.claim(touched, HandSource::Touched);
        if n > 0 {
            let more = if changed > 0 { " more" } else { "" };
            hand.said
                .push(format!("{n}{more} file(s) the agent edited this episode"));
        }
    }

    // The branch's own commits, newest first.
    if let Some(branch) = &head.branch {
        let on_trunk = trunk.as_ref().is_some_and(|t| t.branch == *branch);
        let mut references = Vec::new();
        if let Some(t) = &trunk {
            references.push(format!("refs/heads/{}", t.branch));
            if let Some(remote) = &t.remote {
                references.push(format!("refs/remotes/{remote}/{}", t.branch));
            }
        }
        let since = open.as_ref().and_then(|e| e.head_at_open.clone());
        let own = ctx.repo.branch_commits(
            &references,
            on_trunk,
            since.as_deref(),
            OWN_COMMITS_WEIGHED,
        )?;
        if let Some(own) = own {
            let mut files = 0;
            // Commits of the memory's own files alone (`.ai/`) are not the work's: they
            // take no place in the order.
            let work = own
                .commits
                .iter()
                .filter(|c| c.paths.iter().any(|p| !p.starts_with(".ai/")));
            for (i, commit) in work.enumerate() {
                files += hand.claim(commit.paths.iter().cloned(), HandSource::OwnCommit(i));
            }
            if files > 0 {
                let whose = if on_trunk {
                    format!(
                        "the open episode's {} commit(s) on {branch}",
                        own.commits.len()
                    )
                } else {
                    let from = match &own.fork {
                        crate::git::ForkPoint::Created { from: Some(f) } if f != "HEAD" => {
                            format!(" since it was created from {f}")
                        }
                        crate::git::ForkPoint::Created { .. } => " since it was created".into(),
                        crate::git::ForkPoint::Upstream { name } => {
                            format!(" not yet in {name}")
                        }
                        _ => String::new(),
                    };
                    format!("{branch}'s own {} commit(s){from}", own.commits.len())
                };
                hand.said.push(format!(
                    "{files} file(s) of {whose} (the newest weighs most)"
                ));
            }
        }
        // The rest of the branch against the trunk (a parent branch's work, older own
        // commits).
        if !on_trunk
            && let Some(t) = &trunk
            && let Some(changed) = ctx.repo.changed_since_fork(&references)?
        {
            let n = hand.claim(changed, HandSource::Branch);
            if n > 0 {
                hand.said.push(format!(
                    "{n} more file(s) {branch} changed against {}",
                    t.branch
                ));
            }
        }
    }

    phase.end();
    // The active task; with none, the newest task of an episode on this branch (a task
    // finished on the trunk says nothing about the work a new branch is doing).
    let active = match &open {
        Some(ep) => crate::store::tasks::active(&ctx.layout, &ep.id)?,
        None => None,
    };
    let here = head
        .branch
        .as_ref()
        .map(|b| crate::model::redact::redact(b).text);
    let task = match active {
        Some(t) => Some((t, "active")),
        None => {
            let tasks = crate::store::tasks::list(&ctx.layout)?;
            let episodes: Vec<String> = tasks
                .iter()
                .map(|t| t.episode.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let places = db.reader().episodes(&episodes).unwrap_or_default();
            let on_branch = |t: &crate::model::task::TaskRecord| match places.get(&t.episode) {
                Some(p) => p.branch.is_some() && p.branch == here,
                // An episode the index has not placed yet: the open one, on this branch.
                None => open.as_ref().is_some_and(|ep| ep.id == t.episode),
            };
            tasks
                .into_iter()
                .filter(on_branch)
                .max_by(|a, b| a.started.cmp(&b.started).then_with(|| a.id.cmp(&b.id)))
                .map(|t| (t, "last"))
        }
    };
    if let Some((t, which)) = task {
        let mut said = format!("{which} task {}", t.id);
        if !t.scope.is_empty() {
            said.push_str(&format!(" (scope {})", t.scope.join(", ")));
        }
        hand.links.push((LinkKind::Task, t.id.clone()));
        if let Some(issue) = &t.issue {
            said.push_str(&format!(", issue {issue}"));
            hand.links.push((LinkKind::Issue, issue.clone()));
        }
        if let Some(intent) = &t.intent {
            hand.links.push((LinkKind::Intent, intent.clone()));
        }
        hand.claim(t.scope.iter().map(|s| literal_prefix(s)), HandSource::Scope);
        hand.said.push(said);
    }

    if let Some(newest) = newest_handover(ctx)? {
        let files = db.reader().episode_files(&newest).unwrap_or_default();
        let n = hand.claim(files, HandSource::Handover);
        if n > 0 {
            hand.said.push(format!(
                "{n} file(s) of the last handover's episode {newest}"
            ));
        }
    }
    Ok(hand)
}

/// New files (untracked, not ignored) weighed as uncommitted changes, at most.
const UNTRACKED_WEIGHED: usize = 64;

/// The files changed and not committed, staged or not, and the new files git neither
/// tracks nor ignores, outside `.ai/`, sorted. The index is read (through gix) when it
/// or HEAD changed since the last read, and what it says is kept in the recall index;
/// otherwise each tracked file's stat is compared with what the index said of it, and a
/// file whose stat moved is hashed: a store of 100,000 records is 100,000 entries of the
/// index that a read of it costs every time.
fn uncommitted(ctx: &Ctx, db: &mut crate::store::recall::RecallDb) -> Result<Vec<String>, Error> {
    let phase = crate::timing::Phase::start("recall.at-hand.key");
    let key = ctx.repo.index_key()?;
    phase.end();
    let phase = crate::timing::Phase::start("recall.at-hand.kept");
    let kept = db.reader().index_state(&key).ok().flatten();
    phase.end();
    let state = match kept {
        Some(state) => state,
        None => {
            let state = ctx.repo.index_state(".ai/")?;
            // Not kept, the next read reads the index again: nothing else is lost.
            let _ = db.write(|w| w.set_index_state(&key, &state));
            state
        }
    };
    let mut out = state.staged.clone();
    let phase = crate::timing::Phase::start("recall.at-hand.unstaged");
    out.extend(ctx.repo.unstaged(&state.tracked, state.written));
    phase.end();
    let phase = crate::timing::Phase::start("recall.at-hand.untracked");
    // What the directories held at their last read, while the index, HEAD and the root
    // `.gitignore` are what they were: a directory whose time is unchanged is not read.
    let ignore = std::fs::metadata(ctx.layout.root().join(".gitignore"))
        .ok()
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{t}:{}", m.len())
        })
        .unwrap_or_default();
    let dirs_key = format!("{key}|{ignore}");
    let kept: Option<std::collections::HashMap<String, crate::git::SeenDir>> = db
        .reader()
        .meta("worktree.dirs")
        .ok()
        .flatten()
        .and_then(|v| {
            v.split_once('\n')
                .map(|(k, j)| (k.to_owned(), j.to_owned()))
        })
        .filter(|(k, _)| *k == dirs_key)
        .and_then(|(_, json)| serde_json::from_str(&json).ok());
    let mut seen = kept.clone().unwrap_or_default();
    out.extend(
        ctx.repo
            .untracked_near(&state.tracked, ".ai/", UNTRACKED_WEIGHED, &mut seen)?,
    );
    if kept.as_ref() != Some(&seen)
        && let Ok(json) = serde_json::to_string(&seen)
    {
        // Not kept, the next read reads the directories again: nothing else is lost.
        let _ = db.write(|w| w.set_meta("worktree.dirs", &format!("{dirs_key}\n{json}")));
    }
    phase.end();
    out.sort();
    out.dedup();
    Ok(out)
}

/// The episode of the newest handover file (episode ids sort by opening time).
fn newest_handover(ctx: &Ctx) -> Result<Option<String>, Error> {
    Ok(last_handover(ctx)?.map(|(episode, _)| episode))
}

/// How many handover files, newest first, [`last_handover`] weighs before it gives up: each is
/// a ledger-index lookup, and a briefing costs what it shows, not what the clone holds.
const HANDOVERS_WEIGHED: usize = 64;

/// The newest handover a worker here continues from (SPEC §8): of an episode opened on the
/// branch checked out (a detached HEAD: of one opened detached) that did not close empty,
/// among the newest [`HANDOVERS_WEIGHED`] files. Its episode id and its path. A handover of
/// an episode this ledger does not place (its lines pruned, or another clone's file) is
/// not from this branch as far as anything here shows.
pub fn last_handover(ctx: &Ctx) -> Result<Option<(String, std::path::PathBuf)>, Error> {
    let dir = ctx.layout.handovers_dir();
    let mut episodes: Vec<String> = crate::store::outbox::list_markdown(&dir)?
        .into_iter()
        .filter_map(|n| n.strip_suffix(".md").map(str::to_owned))
        .filter(|e| crate::model::ids::is_episode_id(e))
        .collect();
    if episodes.is_empty() {
        return Ok(None);
    }
    // Episode ids sort by opening time: the newest last.
    episodes.sort_unstable();
    episodes.reverse();
    episodes.truncate(HANDOVERS_WEIGHED);
    // Branches are recorded redacted (`session.opened`): compared in the same form.
    let here = ctx
        .repo
        .head()?
        .branch
        .map(|b| crate::model::redact::redact(&b).text);
    let index = ctx.index()?;
    let opened = index.opened_branches(episodes.iter().map(String::as_str))?;
    for episode in episodes {
        let Some(branch) = opened.get(&episode) else {
            continue;
        };
        if *branch != here {
            continue;
        }
        // An idle session's handover (written before idle sessions closed without one)
        // hands nothing over.
        if index
            .episode(&episode)?
            .and_then(|e| e.closed)
            .is_some_and(|c| c.empty)
        {
            continue;
        }
        let path = dir.join(format!("{episode}.md"));
        return Ok(Some((episode, path)));
    }
    Ok(None)
}
