//! `majordomus.session-commits` (advisory): no tracked session record lists a commit that
//! cannot be its episode's own (SPEC §3.2). A record written before that rule may list what
//! a rebase onto a moved trunk or a merge of it brought in; each such record is named with
//! those commits and why, and the command that composes it again.
//!
//! A listed commit cannot be the episode's when it was committed before the episode opened,
//! when the trunk held it as the trunk stood then (its reflog's entry in effect at
//! `opened`; a trunk ref without a reflog is not judged), or, where this clone's ledger has
//! the episode's hook lines, when it is not among the commits the rule lists (what
//! `session recompose` would write). Cheapest first, and never a walk of history: the
//! times are one lookup per listed commit, each reachability walk stops at the record's own
//! commits' time, and the attribution runs only for a record that lists a commit its hooks
//! did not record.

use std::collections::{HashMap, HashSet};

use super::{Input, Inputs, Outcome, Rule};
use crate::Ctx;
use crate::error::Error;
use crate::git::RefAt;
use crate::model::compose::SessionRecord;
use crate::model::episode::{BoundariesAt, EpisodeSpan, recorded_successors};
use crate::model::event::{CommitRecorded, CommitRewritten, Event};
use crate::model::ids::IdKind;
use crate::store::frontmatter;
use crate::store::index::{LedgerIndex, LineQuery};

pub(super) const RULE: Rule = Rule {
    id: "majordomus.session-commits",
    reads: &[Input::Records, Input::LedgerIndex, Input::Git],
    check: run,
};

fn run(inputs: &Inputs<'_>, out: &mut Outcome) -> Result<(), Error> {
    for claimed in check(inputs.ctx, inputs.index())? {
        out.find(&claimed.file, claimed.message, claimed.fix);
    }
    Ok(())
}

/// Why a listed commit cannot be the episode's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    BeforeOpen,
    OnTrunkAtOpen,
    NotOwn,
}

impl Reason {
    fn says(self) -> &'static str {
        match self {
            Reason::BeforeOpen => "committed before the episode opened",
            Reason::OnTrunkAtOpen => "on the trunk when the episode opened",
            Reason::NotOwn => "not its own by its hook lines in this ledger and git",
        }
    }
}

/// One finding: the record, what it claims, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Claimed {
    pub file: String,
    pub message: String,
    pub fix: String,
}

/// Every tracked session record that lists a commit that cannot be its episode's.
fn check(ctx: &Ctx, index: &LedgerIndex) -> Result<Vec<Claimed>, Error> {
    let records = tracked_records(ctx)?;
    let times = ctx.repo.commit_times(
        records
            .iter()
            .flat_map(|(_, r)| r.commits.iter().map(String::as_str)),
    )?;
    // The trunk's reflogs, read once for every record.
    let mut trunk_logs = Vec::new();
    for reference in ctx.repo.boundary_refs(None, false)? {
        trunk_logs.extend(ctx.repo.ref_log(&reference)?);
    }
    let open = ctx.episode()?.map(|e| e.id);
    let mut out = Vec::new();
    for (file, record) in &records {
        if open.as_deref() == Some(record.id.as_str()) {
            continue;
        }
        let opened =
            crate::model::time::parse(&record.opened).map(time::OffsetDateTime::unix_timestamp);
        let mut claimed: Vec<(&str, Reason)> = Vec::new();
        // Committed before the episode opened.
        let mut left: Vec<&str> = Vec::new();
        for commit in &record.commits {
            match (times.get(commit), opened) {
                (Some(t), Some(open)) if *t < open => claimed.push((commit, Reason::BeforeOpen)),
                (Some(_), _) => left.push(commit),
                // A commit this clone does not have is not judged.
                (None, _) => {}
            }
        }
        // On the trunk as it stood when the episode opened.
        if let Some(open) = opened
            && !left.is_empty()
        {
            let tips: Vec<String> = trunk_logs
                .iter()
                .filter_map(|log| match log.at(open) {
                    RefAt::Logged(tip) => tip,
                    RefAt::NotLogged => None,
                })
                .collect();
            let since = left.iter().filter_map(|c| times.get(*c)).min().copied();
            if let Some(since) = since
                && !tips.is_empty()
            {
                let wanted: HashSet<String> = left.iter().map(|c| (*c).to_owned()).collect();
                let reached = ctx.repo.reached_since(&tips, since, &wanted)?;
                left.retain(|c| {
                    let on_trunk = reached.contains(*c);
                    if on_trunk {
                        claimed.push((c, Reason::OnTrunkAtOpen));
                    }
                    !on_trunk
                });
            }
        }
        // Whether this ledger knows the episode: asked only of a record with something left
        // to judge or something to name.
        if left.is_empty() && claimed.is_empty() {
            continue;
        }
        let known = index.episode(&record.id)?.is_some();
        if known && !left.is_empty() {
            for commit in not_own(ctx, index, record, &left)? {
                claimed.push((commit, Reason::NotOwn));
            }
        }
        if claimed.is_empty() {
            continue;
        }
        // In the record's order.
        let position: HashMap<&str, usize> = record
            .commits
            .iter()
            .enumerate()
            .map(|(n, c)| (c.as_str(), n))
            .collect();
        claimed.sort_by_key(|(c, _)| position.get(c).copied());
        let listed: Vec<String> = claimed
            .iter()
            .map(|(c, why)| format!("{} ({})", &c[..c.len().min(12)], why.says()))
            .collect();
        let fix = if known {
            format!("majordomus session recompose {}", record.id)
        } else {
            let ids: Vec<&str> = claimed.iter().map(|(c, _)| *c).collect();
            format!(
                "by hand: this clone's ledger does not know episode {id}; remove {} from `commits:` in {file} (and from `changed_files:` the paths only they changed), or run `majordomus session recompose {id}` in the clone whose ledger holds it",
                ids.join(", "),
                id = record.id
            )
        };
        out.push(Claimed {
            file: file.clone(),
            message: format!(
                "session record of episode {} lists {} commit(s) that are not the episode's own: {}",
                record.id,
                claimed.len(),
                listed.join("; ")
            ),
            fix,
        });
    }
    Ok(out)
}

/// Of `listed`, the commits the rule would not list for `record`'s episode, judged from its
/// hook lines in this ledger and git as `session recompose` judges them; nothing when the
/// ledger holds no hook line of the episode, or when the hooks recorded every one of them.
fn not_own<'a>(
    ctx: &Ctx,
    index: &LedgerIndex,
    record: &SessionRecord,
    listed: &[&'a str],
) -> Result<Vec<&'a str>, Error> {
    let of = |event: Event| {
        index.lines(&LineQuery {
            session: Some(&record.id),
            event: Some(event),
            ..LineQuery::default()
        })
    };
    let recorded: Vec<String> = of(Event::CommitRecorded)?
        .iter()
        .filter_map(|l| l.payload::<CommitRecorded>())
        .map(|c| c.sha)
        .collect();
    let rewrites: Vec<_> = of(Event::CommitRewritten)?
        .iter()
        .filter_map(|l| l.payload::<CommitRewritten>())
        .flat_map(|r| r.pairs)
        .collect();
    if recorded.is_empty() && rewrites.is_empty() {
        return Ok(Vec::new());
    }
    let successors = recorded_successors(&recorded, &rewrites);
    if listed.iter().all(|c| successors.iter().any(|s| s == c)) {
        return Ok(Vec::new());
    }
    let closed =
        crate::model::time::parse(&record.closed).map(time::OffsetDateTime::unix_timestamp);
    let own = ctx.repo.own_commits(&EpisodeSpan {
        head: record.head.as_deref(),
        branch: record.branch.as_deref(),
        head_at_open: record.head_at_open.as_deref(),
        opened: crate::model::time::parse(&record.opened).map(time::OffsetDateTime::unix_timestamp),
        boundaries: closed.map_or(BoundariesAt::Now, BoundariesAt::Logged),
        recorded: &recorded,
        rewrites: &rewrites,
    })?;
    Ok(listed
        .iter()
        .copied()
        .filter(|c| !own.commits.iter().any(|o| o.id == *c))
        .collect())
}

/// The session records under `.ai/repo/sessions/` that read and list a commit, by file
/// name, with their path relative to the root. One that does not read, or whose id is not
/// an episode id (it would be printed in a command), is passed over: nothing here can say
/// what it lists.
fn tracked_records(ctx: &Ctx) -> Result<Vec<(String, SessionRecord)>, Error> {
    let dir = ctx.layout.sessions_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(crate::store::StoreError::io(&dir, e).into()),
    };
    let mut paths: Vec<std::path::PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok((record, _)) = frontmatter::parse::<SessionRecord>(&text)
            && !record.commits.is_empty()
            && IdKind::Episode.accepts(&record.id)
        {
            out.push((ctx.layout.display(&path), record));
        }
    }
    Ok(out)
}
