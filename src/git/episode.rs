//! What the attribution of an episode's commits reads from git (SPEC §3.2): the commits
//! since the HEAD at open and which of them the trunk or the upstream reaches, where those
//! references stood at a moment (their reflogs), and commit times and reachability for
//! `doctor`'s check of the records written before.

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;

use super::{GitError, Repo};
use crate::model::episode::{
    BoundariesAt, CommitEvidence, EpisodeSpan, OwnCommits, WalkedCommit, attribute_commits,
    oldest_first,
};

/// Git since the HEAD at open, as [`crate::model::episode::attribute_commits`] reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpisodeHistory {
    /// `tip ^<base>`, oldest first, each with its parents and committer time.
    pub since_open: Vec<WalkedCommit>,
    /// Those of `since_open` a boundary (the trunk, the upstream) reaches too.
    pub beyond: HashSet<String>,
}

/// Where a reference stood at a moment, as its reflog says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefAt {
    /// The reflog covers the moment: the commit the reference named then (`None`: it did
    /// not exist yet, or had been deleted).
    Logged(Option<String>),
    /// No reflog, or an empty one: this clone cannot say.
    NotLogged,
}

/// A reference's reflog: each change's time, and the value before and after it, oldest
/// first.
#[derive(Debug, Clone, Default)]
pub struct RefLog {
    entries: Vec<(i64, Option<gix::ObjectId>, Option<gix::ObjectId>)>,
}

impl RefLog {
    /// The value in effect at `at`: the newest change made before it (a change in the very
    /// second of `at` may have come just after it: times have seconds only, so it is not
    /// counted). Before the first change the reflog knows, the value is known only when
    /// that change created the ref (it did not exist): a reflog that begins later (a clone
    /// made after `at`, a remote-tracking ref first logged at a later fetch, an expired
    /// log) does not say what the ref held at `at`. A reflog's times only grow (git
    /// appends each change as it makes it), so this is a binary search.
    pub fn at(&self, at: i64) -> RefAt {
        let Some(first) = self.entries.first() else {
            return RefAt::NotLogged;
        };
        match self.entries.partition_point(|(time, _, _)| *time < at) {
            0 if first.1.is_none() => RefAt::Logged(None),
            0 => RefAt::NotLogged,
            n => RefAt::Logged(self.entries[n - 1].2.map(|id| id.to_string())),
        }
    }
}

fn non_null(id: gix::ObjectId) -> Option<gix::ObjectId> {
    (!id.is_null()).then_some(id)
}

impl Repo {
    /// The span's own commits (SPEC §3.2, [`attribute_commits`]): git since its HEAD at open
    /// (two walks), the trunk and the upstream where `span.boundaries` says, each own
    /// commit summarised with its own paths (a merge's: those that differ from every
    /// parent), oldest first.
    pub fn own_commits(&self, span: &EpisodeSpan<'_>) -> Result<OwnCommits, GitError> {
        let mut tips: Vec<String> = Vec::new();
        let hooked = !span.recorded.is_empty() || !span.rewrites.is_empty();
        for reference in self.boundary_refs(span.branch, hooked)? {
            let tip = match span.boundaries {
                BoundariesAt::Now => self.ref_now(&reference)?,
                BoundariesAt::Logged(at) => match self.ref_at(&reference, at)? {
                    RefAt::Logged(tip) => tip,
                    RefAt::NotLogged => self.ref_now(&reference)?,
                },
            };
            tips.extend(tip);
        }
        let history = match span.head {
            Some(head) => self.episode_history(head, span.head_at_open, &tips)?,
            None => EpisodeHistory::default(),
        };
        let attributed = attribute_commits(&CommitEvidence {
            since_open: &history.since_open,
            beyond: &history.beyond,
            head: span.head,
            opened: span.opened,
            recorded: span.recorded,
            rewrites: span.rewrites,
        });
        let mut commits = self.commits_by_id(attributed.own.iter().map(String::as_str))?;
        oldest_first(&mut commits);
        Ok(OwnCommits {
            commits,
            elsewhere: attributed.elsewhere,
        })
    }

    /// The references whose commits are not an episode's by git's word alone: the trunk
    /// (`refs/heads/<trunk>` and its remote-tracking copy) unless `branch` is the trunk,
    /// and `branch`'s upstream unless that is the branch's own copy on a remote (where
    /// the episode's pushed work lives). On the trunk with the episode's hooks on record
    /// (`hooked`: it has `commit.recorded` or `commit.rewritten` lines), its own commits
    /// are recorded wherever they went, so the trunk's remote-tracking copy bounds the walk
    /// too: a teammate's commits a pull brought in are not the episode's. Full names,
    /// those that exist or not.
    pub fn boundary_refs(
        &self,
        branch: Option<&str>,
        hooked: bool,
    ) -> Result<Vec<String>, GitError> {
        let mut refs: Vec<String> = Vec::new();
        if let Some(trunk) = self.trunk()? {
            let on_trunk = branch == Some(trunk.branch.as_str());
            if !on_trunk {
                refs.push(format!("refs/heads/{}", trunk.branch));
            }
            if !on_trunk || hooked {
                match &trunk.remote {
                    Some(remote) => refs.push(format!("refs/remotes/{remote}/{}", trunk.branch)),
                    None if !on_trunk => {
                        refs.extend(self.upstream(&trunk.branch).map(|(name, _)| name))
                    }
                    None => refs.extend(
                        self.upstream(&trunk.branch)
                            .filter(|(name, _)| *name != format!("refs/heads/{}", trunk.branch))
                            .map(|(name, _)| name),
                    ),
                }
            }
        }
        if let Some(branch) = branch
            && let Some((name, own_copy)) = self.upstream(branch)
            && !own_copy
            && !refs.contains(&name)
        {
            refs.push(name);
        }
        Ok(refs)
    }

    /// Whether a plain `git push` on `branch` knows where to push: the branch has a
    /// remote configured (`branch.<name>.remote`), or git is told to set one up itself
    /// (`push.autoSetupRemote`). Without either, git refuses ("has no upstream branch").
    pub fn pushes_plainly(&self, branch: &str) -> bool {
        let config = self.repo.config_snapshot();
        config
            .string(format!("branch.{branch}.remote").as_str())
            .is_some()
            || config.boolean("push.autoSetupRemote") == Some(true)
    }

    /// `branch`'s upstream as a full reference name (a remote-tracking ref, or a local
    /// branch for `branch.<name>.remote = .`), and whether it is the branch's own copy (the
    /// same branch on a remote, or the branch itself).
    fn upstream(&self, branch: &str) -> Option<(String, bool)> {
        let config = self.repo.config_snapshot();
        let remote = config.string(format!("branch.{branch}.remote").as_str())?;
        let merge = config.string(format!("branch.{branch}.merge").as_str())?;
        let merge = merge.to_str_lossy().into_owned();
        let own = merge == format!("refs/heads/{branch}");
        if remote.as_bytes() == b"." {
            return Some((merge, own));
        }
        let name = gix::refs::FullName::try_from(format!("refs/heads/{branch}")).ok()?;
        let tracking = self
            .repo
            .branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)?
            .ok()?;
        Some((tracking.as_bstr().to_str_lossy().into_owned(), own))
    }

    /// The commit `reference` (a full name) names now; `None` when it does not exist.
    pub fn ref_now(&self, reference: &str) -> Result<Option<String>, GitError> {
        let Some(mut r) = self.repo.try_find_reference(reference)? else {
            return Ok(None);
        };
        Ok(r.peel_to_id().ok().map(|id| id.detach().to_string()))
    }

    /// The commit `reference` named at `at` (seconds since the epoch), as its reflog says.
    pub fn ref_at(&self, reference: &str, at: i64) -> Result<RefAt, GitError> {
        Ok(self
            .ref_log(reference)?
            .map_or(RefAt::NotLogged, |log| log.at(at)))
    }

    /// Every change of `reference`'s reflog, oldest first; `None` without one (read once,
    /// asked [`RefLog::at`] many times).
    pub fn ref_log(&self, reference: &str) -> Result<Option<RefLog>, GitError> {
        // A deleted reference's reflog goes with it.
        let Some(found) = self.repo.try_find_reference(reference)? else {
            return Ok(None);
        };
        let mut platform = found.log_iter();
        let Some(lines) = platform.all().map_err(|source| GitError::Io {
            path: self.repo.common_dir().join("logs").join(reference),
            source,
        })?
        else {
            return Ok(None);
        };
        let mut log = RefLog::default();
        // A line that does not parse is passed over: the reflog is evidence, never fatal.
        for line in lines.flatten() {
            let Ok(time) = line.signature.time() else {
                continue;
            };
            log.entries.push((
                time.seconds,
                non_null(line.previous_oid()),
                non_null(line.new_oid()),
            ));
        }
        Ok(Some(log))
    }

    /// `tip ^<base>` with parents and times (one walk), and which of those commits the
    /// `boundaries` (commit ids) also reach (one more walk, hiding them). Empty when the
    /// tip is not in this clone.
    pub fn episode_history(
        &self,
        tip: &str,
        base: Option<&str>,
        boundaries: &[String],
    ) -> Result<EpisodeHistory, GitError> {
        let present = |text: &str| {
            gix::ObjectId::from_hex(text.as_bytes())
                .ok()
                .filter(|id| self.repo.has_object(id))
        };
        let Some(tip) = present(tip) else {
            return Ok(EpisodeHistory::default());
        };
        let base: Vec<gix::ObjectId> = base.and_then(present).into_iter().collect();
        let mut since_open = Vec::new();
        for info in self
            .repo
            .rev_walk([tip])
            .with_hidden(base.iter().copied())
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()?
        {
            let info = info?;
            let time = match info.commit_time {
                Some(time) => time,
                None => self.repo.find_commit(info.id)?.committer()?.seconds(),
            };
            since_open.push(WalkedCommit {
                id: info.id.to_string(),
                parents: info.parent_ids.iter().map(ToString::to_string).collect(),
                time,
            });
        }
        since_open.reverse();
        let hidden: Vec<gix::ObjectId> = boundaries
            .iter()
            .filter_map(|b| present(b))
            .filter(|b| !base.contains(b))
            .collect();
        let mut beyond = HashSet::new();
        if !hidden.is_empty() && !since_open.is_empty() {
            let mut inside = HashSet::new();
            for info in self
                .repo
                .rev_walk([tip])
                .with_hidden(base.iter().chain(&hidden).copied())
                .all()?
            {
                inside.insert(info?.id.to_string());
            }
            beyond = since_open
                .iter()
                .filter(|c| !inside.contains(&c.id))
                .map(|c| c.id.clone())
                .collect();
        }
        Ok(EpisodeHistory { since_open, beyond })
    }

    /// The committer time (seconds) of each of `ids` present in this clone.
    pub fn commit_times<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashMap<String, i64>, GitError> {
        let mut out = HashMap::new();
        for text in ids {
            let Ok(id) = gix::ObjectId::from_hex(text.as_bytes()) else {
                continue;
            };
            let Ok(commit) = self.repo.find_commit(id) else {
                continue;
            };
            out.insert(text.to_owned(), commit.committer()?.seconds());
        }
        Ok(out)
    }

    /// Of `wanted`, those reachable from `tips` through commits no older than `since`
    /// (seconds): one walk from every tip, newest first, that stops below `since`, so it
    /// reads only what was committed since then, never the history behind it.
    pub fn reached_since(
        &self,
        tips: &[String],
        since: i64,
        wanted: &HashSet<String>,
    ) -> Result<HashSet<String>, GitError> {
        let tips: Vec<gix::ObjectId> = tips
            .iter()
            .filter_map(|t| gix::ObjectId::from_hex(t.as_bytes()).ok())
            .filter(|id| self.repo.has_object(id))
            .collect();
        let mut out = HashSet::new();
        if tips.is_empty() || wanted.is_empty() {
            return Ok(out);
        }
        for info in self
            .repo
            .rev_walk(tips)
            .sorting(gix::revision::walk::Sorting::ByCommitTimeCutoff {
                order: gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
                seconds: since,
            })
            .all()?
        {
            let id = info?.id.to_string();
            if wanted.contains(&id) {
                out.insert(id);
                if out.len() == wanted.len() {
                    break;
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_hex(format!("{n:040x}").as_bytes()).expect("hex")
    }

    #[test]
    fn a_reflog_says_where_the_ref_stood_at_a_moment() {
        let log = RefLog {
            entries: vec![(100, None, Some(id(1))), (200, Some(id(1)), Some(id(2)))],
        };
        assert_eq!(log.at(50), RefAt::Logged(None), "before it existed");
        // A change in the very second of the moment may have come after it.
        assert_eq!(log.at(100), RefAt::Logged(None));
        assert_eq!(log.at(101), RefAt::Logged(Some(id(1).to_string())));
        assert_eq!(log.at(200), RefAt::Logged(Some(id(1).to_string())));
        assert_eq!(log.at(300), RefAt::Logged(Some(id(2).to_string())));
        // A log that starts later than the moment (a clone made since, a remote-tracking
        // ref first logged at a later fetch): what the ref held then is not known.
        let log = RefLog {
            entries: vec![(100, Some(id(7)), Some(id(8)))],
        };
        assert_eq!(log.at(50), RefAt::NotLogged);
        assert_eq!(log.at(150), RefAt::Logged(Some(id(8).to_string())));
        assert_eq!(RefLog::default().at(50), RefAt::NotLogged);
    }
}
