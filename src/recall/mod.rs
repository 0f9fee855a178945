//! Recall (SPEC §11), the reader of the memory: `majordomus recall` searches curated
//! knowledge and candidates, decisions, answered questions, checkpoints, session records,
//! handovers and reasoning conclusions, ranked by the work at hand and explained; `show`
//! reads one hit whole. The same search serves the briefing's "What the repository
//! knows", `task start`, `session context`, and the near-duplicate note of `decision` and
//! `question`. The index behind it is derived (`sync`); the ranking is `model::recall`.

pub mod search;
pub mod sync;

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal, UsageError};
use crate::model::ids::IdKind;
use crate::model::inject::{Label, Shape, fence};
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::recall::{
    HAND_LINK_FACTOR, HandSource, HitStatus, LinkKind, NEAR_DUPLICATE, PathHow, PathVia,
    content_terms, dir_damping, query_terms, similarity,
};
use crate::store::recall::{Column, literal_prefix};

pub use search::{Query, QueryPath};

/// What a hit is: knowledge (curated or candidate), a decision, an answered question, a
/// checkpoint, a session record, a handover, a reasoning conclusion.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecallKind {
    // A knowledge record: curated (verified) or a candidate.
    Knowledge,
    // A decision from the ledger.
    Decision,
    // An answered question.
    Question,
    // A checkpoint.
    Checkpoint,
    // A closed episode's session record.
    Session,
    // A derived handover.
    Handover,
    // A reasoning conclusion.
    Conclusion,
}

impl RecallKind {
    pub const ALL: [RecallKind; 7] = [
        RecallKind::Knowledge,
        RecallKind::Decision,
        RecallKind::Question,
        RecallKind::Checkpoint,
        RecallKind::Session,
        RecallKind::Handover,
        RecallKind::Conclusion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RecallKind::Knowledge => "knowledge",
            RecallKind::Decision => "decision",
            RecallKind::Question => "question",
            RecallKind::Checkpoint => "checkpoint",
            RecallKind::Session => "session",
            RecallKind::Handover => "handover",
            RecallKind::Conclusion => "conclusion",
        }
    }

    pub fn from_name(name: &str) -> Option<RecallKind> {
        RecallKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// `recall`: what to look for; with nothing, the most recently verified knowledge.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    /// Words (terms, never syntax).
    #[serde(default)]
    pub query: Option<String>,
    /// Files or directories.
    #[serde(default)]
    pub path: Vec<String>,
    /// Rank by this task.
    #[serde(default)]
    pub task: Option<String>,
    /// Rank by this issue.
    #[serde(default)]
    pub issue: Option<String>,
    /// Only these kinds.
    #[serde(default)]
    pub kind: Vec<RecallKind>,
    /// Only these statuses.
    #[serde(default)]
    pub status: Vec<HitStatus>,
    /// Only hits from episodes on this branch.
    #[serde(default)]
    pub branch: Option<String>,
    /// Only hits since this (RFC 3339 or a date).
    #[serde(default)]
    #[schemars(schema_with = "crate::model::time::since_schema")]
    pub since: Option<String>,
    /// Hits to show (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<usize>,
    /// Superseded records too.
    #[serde(default)]
    pub all: bool,
    /// Rank by the work at hand.
    #[serde(default)]
    pub at_hand: bool,
    /// Only records that reach a path asked about exactly (cite it, or their episode
    /// changed it): edit-time recall, which shows nothing else, reads no directory's list.
    /// Never part of a request from a surface.
    #[serde(skip)]
    pub exact_paths: bool,
    /// One pass over four times the hits asked for (the best lexical matches by what they
    /// could score, each path's best rows), not the usual pool of at least
    /// [`search::LEXICAL_POOL`] read deeper until no record beyond it could rank: a hook at
    /// the moment of work, which asks for few hits and must answer within its budget. Its
    /// hits are the best of what that pass read (`total_exact` false when records were left
    /// unread); `recall` ranks them all. Never part of a request from a surface.
    #[serde(skip)]
    pub lean_pool: bool,
    /// Records left out, as `context.shown` names them (`kind:id`), and every record of
    /// this episode (`leave_out_episode`): a moment's hits are those a session was not
    /// shown yet, ranked in one search. Never part of a request from a surface.
    #[serde(skip)]
    pub leave_out: Vec<String>,
    /// Files the agent's tools touched this episode, weighed as the work at hand weighs
    /// them (`HandSource::Touched`); in a `lean_pool` search they lift the records found
    /// and add none of their own (a prompt's words find, the files being worked on rank).
    /// Never part of a request from a surface.
    #[serde(skip)]
    pub touched: Vec<String>,
    #[serde(skip)]
    pub leave_out_episode: Option<String>,
}

/// Hits shown when the request names no limit.
pub const DEFAULT_LIMIT: usize = 10;
/// The most hits one request shows.
pub const MAX_LIMIT: usize = 1000;
/// Paths one request ranks by (the work at hand may have more: the rest are counted).
pub const MAX_PATHS: usize = 200;

/// Why a hit ranked, one signal each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Reason {
    /// `terms`, `path`, `task`, `issue`, `intent`, `status`, `replaces` or `recency`.
    pub signal: String,
    pub detail: String,
}

/// How to read a hit whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReadHint {
    /// The command that prints it.
    pub command: String,
    /// The MCP resource that serves it.
    pub uri: String,
}

/// One hit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    /// One line of it: a title, a decision, a question and its answer.
    pub line: String,
    /// The day of its evidence (knowledge) or when it was recorded.
    pub date: String,
    pub episode: Option<String>,
    /// The branch its episode ran on (`None`: detached, or unknown here).
    pub branch: Option<String>,
    pub task: Option<String>,
    /// The writer whose journal it came from (another clone's or worktree's, fetched
    /// through git: SPEC §12); absent for this checkout's ledger and tracked records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
    /// Relevance × status, as ranked.
    pub score: f64,
    /// Why it ranked: matched terms, matched paths, same task, issue or intent, status.
    pub why: Vec<Reason>,
    pub read: ReadHint,
    /// The record that replaced it (superseded hits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Instruction-shaped text in `line` (`role-label`, `prompt-tag` ...: docs/HOSTILE.md),
    /// neutralised wherever the line is put before a model; absent when none. `line` stays
    /// as recorded: JSON is data for programs, and one that shows it to a model fences it
    /// ([`crate::model::inject::fence`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instruction_shapes: Vec<Shape>,
    /// What the hooks at the moment of work weigh it by (not shown: `why` says it).
    #[serde(skip)]
    pub weighed: Weighed,
}

impl Hit {
    /// Who stands behind the hit: its status and kind, and for what no person verified,
    /// its episode, branch and writer.
    pub fn label(&self) -> Label<'_> {
        Label {
            status: self.status.name(),
            kind: Some(self.kind.name()),
            episode: self.episode.as_deref(),
            branch: self.branch.as_deref(),
            writer: self.writer.as_deref(),
        }
    }
}

/// What prompt-time and edit-time recall check a hit against their floors by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weighed {
    /// The query terms it holds.
    pub terms: Vec<String>,
    /// Its lexical relevance over the best match's (0 to 1).
    pub lexical_share: f64,
    /// The paths asked about that it reaches exactly (cites, or its episode changed).
    pub exact: Vec<String>,
}

/// A path a recall ranked by, where it came from and what it weighed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WeighedPath {
    pub path: String,
    /// Where it came from: asked, uncommitted, own_commit (with how many commits back),
    /// branch, scope, handover.
    pub from: HandSource,
    /// What a record reaching it is worth is multiplied by this.
    pub weight: f64,
}

/// What a recall ranked by, as resolved from the request.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct RecallContext {
    pub paths: Vec<String>,
    /// The same paths, each with where it came from and its weight, strongest first.
    pub weighed: Vec<WeighedPath>,
    /// Paths of the work at hand left out past [`MAX_PATHS`].
    pub paths_left_out: usize,
    pub task: Option<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    /// Where the work at hand came from (`--at-hand`), in words.
    pub at_hand: Vec<String>,
}

/// `recall`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Recall {
    pub query: String,
    /// The distinct terms searched for.
    pub terms: Vec<String>,
    /// Distinct terms past the limit of terms, not searched.
    pub terms_left_out: usize,
    pub context: RecallContext,
    pub hits: Vec<Hit>,
    /// Hits in all, before the limit: exact when `total_exact`, else at least this many
    /// (a path or words that reach more records than a search needs to read).
    pub total: usize,
    pub total_exact: bool,
    pub limit: usize,
    /// When hits were left out: the command that lists them all.
    pub more: Option<String>,
    /// Set when this read built the index anew (and why), or built one in memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<String>,
    /// Other worktrees of this clone whose open episode's active task works where the
    /// paths asked about are (SPEC §12): what is being done there now, not yet recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<crate::worktrees::Worktree>,
    /// Records the request matched that it leaves out as shown already
    /// (`RecallRequest::leave_out`): a moment's `already_shown`.
    #[serde(skip)]
    pub shown_left_out: usize,
}

/// `majordomus recall`.
pub fn recall(ctx: &Ctx, request: RecallRequest) -> Result<Recall, Error> {
    let (mut found, rebuilt) =
        sync::with_index(ctx, |opened| recall_in(ctx, &mut opened.db, &request))?;
    found.index_rebuilt = rebuilt;
    if !found.context.paths.is_empty() {
        found.elsewhere = crate::worktrees::others(ctx)
            .into_iter()
            .filter(|w| {
                w.episode
                    .as_ref()
                    .and_then(|e| e.task.as_ref())
                    .is_some_and(|t| {
                        crate::model::task::scopes_overlap(&found.context.paths, &t.scope).is_some()
                    })
            })
            .collect();
    }
    Ok(found)
}

/// [`recall`] over an index already open and current (the briefing runs several).
pub fn recall_in(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    request: &RecallRequest,
) -> Result<Recall, Error> {
    db.hold();
    let found = recall_held(ctx, db, request);
    db.release();
    found
}

fn recall_held(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    request: &RecallRequest,
) -> Result<Recall, Error> {
    let (query, context) = resolve(ctx, db, request)?;
    let outcome = run_fresh(ctx, db, &query)?;
    let hits = hits(ctx, db, &outcome, &query)?;
    let more = (outcome.total > hits.len()).then(|| {
        let mut all = request.clone();
        all.limit = Some(outcome.total.min(MAX_LIMIT));
        command(&all)
    });
    Ok(Recall {
        query: request.query.clone().unwrap_or_default(),
        terms: query.terms.clone(),
        terms_left_out: query_terms(request.query.as_deref().unwrap_or("")).1,
        context,
        hits,
        total: outcome.total,
        total_exact: outcome.exact,
        limit: query.limit,
        more,
        index_rebuilt: None,
        elsewhere: Vec::new(),
        shown_left_out: outcome.left_out,
    })
}

/// The search, with the files of the hits it shows checked against their stamps: a file
/// edited in place (its folder unchanged) is re-read and the search run again, once.
fn run_fresh(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    query: &Query,
) -> Result<search::Outcome, Error> {
    let outcome = search::search(ctx, db, query)?;
    let files: Vec<String> = outcome
        .found
        .iter()
        .filter_map(|f| f.doc.source.strip_prefix("file:").map(str::to_owned))
        .collect();
    if sync::refresh_files(ctx, db, &files)? {
        return search::search(ctx, db, query);
    }
    Ok(outcome)
}

/// The request, checked and resolved into what the search ranks by.
fn resolve(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    request: &RecallRequest,
) -> Result<(Query, RecallContext), Error> {
    let text = request.query.as_deref().unwrap_or("");
    check_size("recall query", text, TEXT_LIMIT)?;
    let limit = match request.limit {
        None => DEFAULT_LIMIT,
        Some(n) if (1..=MAX_LIMIT).contains(&n) => n,
        Some(n) => {
            return Err(UsageError::InvalidLimit {
                value: n,
                max: MAX_LIMIT,
            }
            .into());
        }
    };
    let since = match &request.since {
        Some(t) => Some(
            crate::model::time::parse(t)
                .ok_or_else(|| UsageError::InvalidSince { value: t.clone() })?,
        ),
        None => None,
    };
    let (terms, _) = query_terms(text);
    let mut context = RecallContext::default();
    let mut paths: Vec<QueryPath> = Vec::new();
    let asked = |path: String| QueryPath {
        path,
        source: HandSource::Asked,
    };
    for raw in &request.path {
        check_size("--path", raw, 4096)?;
        match normalise_path(ctx, raw) {
            Ok(Some(p)) => paths.push(asked(p)),
            Ok(None) => {}
            Err(()) => {
                let mut without = request.clone();
                without.path.retain(|p| p != raw);
                return Err(Refusal::RecallPathOutside {
                    path: raw.clone(),
                    fix: command(&without),
                }
                .into());
            }
        }
    }
    let mut links: Vec<(LinkKind, String, f64)> = Vec::new();
    let index_error = |e: crate::store::recall::IndexError| -> Error {
        crate::store::StoreError::Malformed {
            path: e.path.into(),
            message: e.message,
        }
        .into()
    };
    if let Some(task) = &request.task {
        Refusal::check_id(IdKind::Task, task)?;
        let (scope, issue, intent) = match db.reader().task(task).map_err(index_error)? {
            Some(row) => (row.scope, row.issue, row.intent),
            None => match crate::store::tasks::read(&ctx.layout, task)? {
                Some(record) => (record.scope, record.issue, record.intent),
                None if !db
                    .reader()
                    .docs_where(Column::Task, std::slice::from_ref(task))
                    .map_err(index_error)?
                    .is_empty() =>
                {
                    (Vec::new(), None, None)
                }
                None => {
                    let mut without = request.clone();
                    without.task = None;
                    return Err(Refusal::RecallUnknownTask {
                        id: task.clone(),
                        fix: command(&without),
                    }
                    .into());
                }
            },
        };
        links.push((LinkKind::Task, task.clone(), LinkKind::Task.weight()));
        paths.extend(scope.iter().map(|s| asked(literal_prefix(s))));
        if let Some(i) = issue.clone() {
            links.push((LinkKind::Issue, i, LinkKind::Issue.weight()));
        }
        if let Some(i) = intent.clone() {
            links.push((LinkKind::Intent, i, LinkKind::Intent.weight()));
        }
        context.task = Some(task.clone());
        context.issue = issue;
        context.intent = intent;
    }
    if let Some(issue) = &request.issue {
        let plan = crate::store::plan::read_plan(&ctx.layout)?;
        let planned = match &plan {
            crate::model::intent::PlanInput::Plan(p) => p
                .intents
                .iter()
                .flat_map(|i| i.issues.iter().map(move |x| (i, x)))
                .find(|(_, x)| &x.id == issue)
                .map(|(i, x)| (i.id.clone(), x.paths.clone())),
            _ => None,
        };
        let known = planned.is_some() || db.reader().knows_issue(issue).map_err(index_error)?;
        if !known {
            let mut names: BTreeSet<String> = db
                .reader()
                .issues()
                .map_err(index_error)?
                .into_iter()
                .collect();
            if let crate::model::intent::PlanInput::Plan(p) = &plan {
                names.extend(
                    p.intents
                        .iter()
                        .flat_map(|i| i.issues.iter().map(|x| x.id.clone())),
                );
            }
            let mut without = request.clone();
            without.issue = None;
            return Err(Refusal::RecallUnknownIssue {
                issue: issue.clone(),
                known: names.into_iter().take(12).collect(),
                fix: command(&without),
            }
            .into());
        }
        if !links
            .iter()
            .any(|(k, v, _)| *k == LinkKind::Issue && v == issue)
        {
            links.push((LinkKind::Issue, issue.clone(), LinkKind::Issue.weight()));
        }
        if let Some((intent, issue_paths)) = planned {
            paths.extend(issue_paths.iter().map(|p| asked(literal_prefix(p))));
            if !links.iter().any(|(k, _, _)| *k == LinkKind::Intent) {
                links.push((LinkKind::Intent, intent.clone(), LinkKind::Intent.weight()));
                context.intent.get_or_insert(intent);
            }
        }
        context.issue.get_or_insert(issue.clone());
    }
    for raw in &request.touched {
        if let Ok(Some(path)) = normalise_path(ctx, raw) {
            paths.push(QueryPath {
                path,
                source: HandSource::Touched,
            });
        }
    }
    if request.at_hand {
        let hand = at_hand(ctx, db)?;
        for (kind, value) in hand.links {
            if !links.iter().any(|(k, _, _)| *k == kind) {
                match kind {
                    LinkKind::Task => context.task.get_or_insert(value.clone()),
                    LinkKind::Issue => context.issue.get_or_insert(value.clone()),
                    LinkKind::Intent => context.intent.get_or_insert(value.clone()),
                };
                links.push((kind, value, kind.weight() * HAND_LINK_FACTOR));
            }
        }
        paths.extend(hand.paths);
        context.at_hand = hand.said;
    }
    // One of each, the first (the strongest: what was asked, then the work at hand in its
    // order of weight) kept; the empty path (the whole repository) ranks nothing apart.
    let mut seen = BTreeSet::new();
    paths.retain(|p| !p.path.is_empty() && seen.insert(p.path.clone()));
    if paths.len() > MAX_PATHS {
        context.paths_left_out = paths.len() - MAX_PATHS;
        paths.truncate(MAX_PATHS);
    }
    context.paths = paths.iter().map(|p| p.path.clone()).collect();
    context.weighed = paths
        .iter()
        .map(|p| WeighedPath {
            path: p.path.clone(),
            from: p.source,
            weight: (p.source.weight() * 1e3).round() / 1e3,
        })
        .collect();
    let mut statuses = request.status.clone();
    statuses.sort();
    statuses.dedup();
    let mut kinds = request.kind.clone();
    kinds.sort();
    kinds.dedup();
    Ok((
        Query {
            terms,
            paths,
            links,
            kinds,
            statuses,
            branch: request.branch.clone(),
            since,
            all: request.all,
            limit,
            exact_paths: request.exact_paths,
            lean_pool: request.lean_pool,
            leave_out: request
                .leave_out
                .iter()
                .filter_map(|r| {
                    let (kind, id) = r.split_once(':')?;
                    Some((RecallKind::from_name(kind)?, id.to_owned()))
                })
                .collect(),
            leave_out_episode: request.leave_out_episode.clone(),
        },
        context,
    ))
}

/// A path as the index keeps it: relative to the root, `/`-separated, no `.` or `..`;
/// `Ok(None)` for the root itself; `Err` for a path outside the repository.
pub(crate) fn normalise_path(ctx: &Ctx, raw: &str) -> Result<Option<String>, ()> {
    let root = ctx.layout.root();
    let path = std::path::Path::new(raw);
    let relative = if path.is_absolute() {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        match canonical
            .strip_prefix(root)
            .or_else(|_| path.strip_prefix(root))
        {
            Ok(rest) => rest.to_string_lossy().into_owned(),
            Err(_) => return Err(()),
        }
    } else {
        raw.to_owned()
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(());
                }
            }
            p => parts.push(p),
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

/// A path typed in `dir` (the current directory, or `-C`), as the repository root sees
/// it: a relative path inside a subdirectory is taken from there, like git does; an
/// absolute or `..`-escaping path is left for the request's check.
pub fn from_directory(ctx: &Ctx, dir: &std::path::Path, path: &str) -> String {
    let p = std::path::Path::new(path);
    if p.is_absolute() {
        return path.to_owned();
    }
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match dir.strip_prefix(ctx.layout.root()) {
        Ok(sub) if !sub.as_os_str().is_empty() => {
            format!("{}/{path}", sub.to_string_lossy().trim_end_matches('/'))
        }
        _ => path.to_owned(),
    }
}

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
            if path.is_empty()
                || path.starts_with(".ai/")
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
        let n = hand.claim(crate::ctx::touched(ctx, ep)?, HandSource::Touched);
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

/// The episode of this branch's last handover ([`last_handover`]).
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

/// The hits of an outcome, each with why it ranked and how to read it.
fn hits(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    outcome: &search::Outcome,
    query: &Query,
) -> Result<Vec<Hit>, Error> {
    let _ = (ctx, db);
    Ok(outcome
        .found
        .iter()
        .map(|f| {
            let mut why = Vec::new();
            if !f.signals.terms.is_empty() {
                why.push(Reason {
                    signal: "terms".into(),
                    detail: f.signals.terms.join(", "),
                });
            }
            for m in f.signals.best_paths() {
                why.push(Reason {
                    signal: "path".into(),
                    detail: path_reason(m),
                });
            }
            for (kind, value, _) in &f.signals.links {
                why.push(Reason {
                    signal: kind.name().into(),
                    detail: format!("same {} {value}", kind.name()),
                });
            }
            match f.status {
                HitStatus::Stale => {
                    let moved: Vec<String> = f
                        .moved
                        .iter()
                        .map(|(p, change)| format!("{p} {change}"))
                        .collect();
                    let since = f
                        .verified_in
                        .as_ref()
                        .map(|(c, _)| {
                            format!(" since it was verified in {}", &c[..c.len().min(12)])
                        })
                        .unwrap_or_default();
                    why.push(Reason {
                        signal: "status".into(),
                        detail: format!(
                            "stale: {}{since}; re-verify or reject it",
                            moved.join(", ")
                        ),
                    });
                }
                HitStatus::Superseded => why.push(Reason {
                    signal: "status".into(),
                    detail: match &f.doc.superseded_by {
                        Some(by) => format!("superseded by {by}"),
                        None => "rejected".into(),
                    },
                }),
                _ => {}
            }
            if let Some(replaced) = &f.replaces {
                why.push(Reason {
                    signal: "replaces".into(),
                    detail: format!("it superseded {replaced}, which ranked"),
                });
            }
            if why.is_empty() {
                why.push(Reason {
                    signal: "recency".into(),
                    detail: format!("recorded {}", f.doc.date),
                });
            }
            let _ = query;
            Hit {
                kind: f.kind,
                id: f.doc.key.clone(),
                status: f.status,
                line: f.doc.line.clone(),
                date: f.doc.date.clone(),
                branch: f.doc.branch.clone(),
                episode: f.doc.episode.clone(),
                task: f.doc.task.clone(),
                writer: f.doc.source.strip_prefix("journal:").map(str::to_owned),
                score: f.score as f64 / 1e6,
                why,
                read: read_hint(f.kind, &f.doc.key),
                superseded_by: (f.status == HitStatus::Superseded)
                    .then(|| f.doc.superseded_by.clone())
                    .flatten(),
                instruction_shapes: crate::model::inject::shapes(&f.doc.line),
                weighed: Weighed {
                    terms: f.signals.terms.clone(),
                    lexical_share: f.signals.lexical() / crate::model::recall::LEXICAL_MAX,
                    exact: f
                        .signals
                        .paths
                        .iter()
                        .filter(|m| m.how == PathHow::Exact && m.via != PathVia::Scope)
                        .map(|m| m.query.clone())
                        .collect(),
                },
            }
        })
        .collect())
}

/// Why a record reached a path, in words: how, where the path came from (the work at
/// hand), and, where a directory stands between them, what that left of the weight.
fn path_reason(m: &crate::model::recall::PathMatch) -> String {
    let mut out = match (m.via, m.how) {
        (PathVia::Reference, PathHow::Exact) => format!("{} (it cites it", m.query),
        (PathVia::Reference, PathHow::Prefix) => format!("{} (it cites {}", m.query, m.path),
        (PathVia::Reference, PathHow::Near) => {
            format!("near {} (it cites {}", m.query, m.path)
        }
        (PathVia::Episode, PathHow::Exact) => format!("{} (its episode changed it", m.query),
        (PathVia::Episode, PathHow::Prefix) => {
            format!("{} (its episode changed {}", m.query, m.path)
        }
        (PathVia::Episode, PathHow::Near) => {
            format!("near {} (its episode changed {}", m.query, m.path)
        }
        (PathVia::Scope, PathHow::Near) => {
            format!("near {} (its task's scope {}", m.query, m.path)
        }
        (PathVia::Scope, _) => format!("{} (its task's scope {}", m.query, m.path),
    };
    if m.dir_files > crate::model::recall::DIR_FREE {
        let dir = match m.how {
            PathHow::Near => crate::store::recall::parent_dir(&m.query),
            _ => m.path.as_str(),
        };
        let dir = if dir.is_empty() {
            "the repository"
        } else {
            dir
        };
        let files = if m.dir_files >= 10_000 {
            "10,000 or more".to_owned()
        } else {
            m.dir_files.to_string()
        };
        out.push_str(&format!(
            "; {dir} holds {files} files: weight ×{:.2}",
            dir_damping(m.dir_files)
        ));
    }
    if m.source != HandSource::Asked {
        out.push_str(&format!("; {}", m.source.said()));
    }
    out.push(')');
    out
}

/// How to read a hit whole.
pub fn read_hint(kind: RecallKind, id: &str) -> ReadHint {
    ReadHint {
        command: format!("majordomus show {}:{id}", kind.name()),
        uri: format!("majordomus://{}/{id}", kind.name()),
    }
}

/// The command line that runs `request` (what the briefing and a cut list print).
pub fn command(request: &RecallRequest) -> String {
    let mut out = vec!["majordomus".to_owned(), "recall".to_owned()];
    if let Some(q) = request.query.as_deref().filter(|q| !q.trim().is_empty()) {
        out.push(quote(q));
    }
    for p in &request.path {
        out.push("--path".into());
        out.push(quote(p));
    }
    if let Some(t) = &request.task {
        out.push("--task".into());
        out.push(quote(t));
    }
    if let Some(i) = &request.issue {
        out.push("--issue".into());
        out.push(quote(i));
    }
    for k in &request.kind {
        out.push("--kind".into());
        out.push(k.name().into());
    }
    for s in &request.status {
        out.push("--status".into());
        out.push(s.name().into());
    }
    if let Some(b) = &request.branch {
        out.push("--branch".into());
        out.push(quote(b));
    }
    if let Some(s) = &request.since {
        out.push("--since".into());
        out.push(quote(s));
    }
    if request.at_hand {
        out.push("--at-hand".into());
    }
    if request.all {
        out.push("--all".into());
    }
    if let Some(l) = request.limit {
        out.push("--limit".into());
        out.push(l.to_string());
    }
    out.join(" ")
}

/// `text` as one shell word: as it is when it is plain, else in single quotes.
pub fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:@=+,%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What `task start` and `session context` show: the knowledge relevant to some work,
/// with the command that lists it all.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Relevant {
    pub hits: Vec<Hit>,
    pub total: usize,
    /// The command that lists them all.
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<String>,
}

impl Relevant {
    /// The lines `task start` and `session context` show: a heading with the count, a
    /// line a hit, and the command that lists the rest.
    pub fn lines(&self, heading: &str) -> String {
        use std::fmt::Write as _;
        let mut out = format!("{heading} ({})\n", self.total);
        if self.hits.is_empty() {
            out.push_str("- nothing recorded about these files yet\n");
        }
        for hit in &self.hits {
            let _ = writeln!(
                out,
                "- {} — read: `{}`",
                fence(&hit.label(), &hit.line).text,
                hit.read.command
            );
        }
        if self.total > self.hits.len() {
            let _ = writeln!(
                out,
                "- ... {} more: `{}`",
                self.total - self.hits.len(),
                self.command
            );
        }
        out
    }
}

/// The knowledge `request` finds (its kind set to knowledge), at most `limit`.
pub fn relevant_knowledge(
    ctx: &Ctx,
    mut request: RecallRequest,
    limit: usize,
) -> Result<Relevant, Error> {
    request.kind = vec![RecallKind::Knowledge];
    request.limit = Some(limit);
    let found = recall(ctx, request.clone())?;
    request.limit = (found.total > limit).then(|| found.total.min(MAX_LIMIT));
    Ok(Relevant {
        hits: found.hits,
        total: found.total,
        command: command(&request),
        index_rebuilt: found.index_rebuilt,
    })
}

/// An existing record a new one nearly repeats.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NearDuplicate {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    pub line: String,
    /// How alike, 0–1 (the Jaccard index of their content words), two decimals.
    pub similarity: f64,
    pub read: ReadHint,
}

/// Verified knowledge and open questions (but `except`) that `text` nearly repeats
/// (advisory: at least [`NEAR_DUPLICATE`] alike), most alike first.
pub fn near_duplicates(
    ctx: &Ctx,
    text: &str,
    except: Option<&str>,
) -> Result<Vec<NearDuplicate>, Error> {
    let mine = content_terms(text);
    if mine.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<NearDuplicate> = Vec::new();
    let terms: Vec<&String> = mine.iter().collect();
    let query: String = terms
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let ((found, rows, texts, open), _) = sync::with_index(ctx, |opened| {
        let found = recall_in(
            ctx,
            &mut opened.db,
            &RecallRequest {
                query: Some(query.clone()),
                kind: vec![RecallKind::Knowledge],
                status: vec![HitStatus::Verified, HitStatus::Stale],
                limit: Some(5),
                ..RecallRequest::default()
            },
        )?;
        let ids: Vec<String> = found.hits.iter().map(|h| h.id.clone()).collect();
        let rows = opened
            .db
            .reader()
            .docs_where(Column::Key, &ids)
            .unwrap_or_default();
        let texts = opened
            .db
            .reader()
            .texts(&rows.iter().map(|r| r.id).collect::<Vec<_>>())
            .unwrap_or_default();
        let open = opened.db.reader().open_questions().unwrap_or_default();
        Ok((found, rows, texts, open))
    })?;
    for hit in &found.hits {
        let Some(row) = rows
            .iter()
            .find(|r| r.key == hit.id && r.kind == "knowledge")
        else {
            continue;
        };
        // The claim, not the evidence a promotion appended under `# Evidence`.
        let text = texts.get(&row.id).map_or("", String::as_str);
        let claim = text.split("\n# ").next().unwrap_or(text);
        let s = similarity(&mine, &content_terms(claim))
            .max(similarity(&mine, &content_terms(&row.line)));
        if s >= NEAR_DUPLICATE {
            out.push(NearDuplicate {
                kind: hit.kind,
                id: hit.id.clone(),
                status: hit.status,
                line: hit.line.clone(),
                similarity: (s * 100.0).round() / 100.0,
                read: hit.read.clone(),
            });
        }
    }
    for (id, question) in open.iter().filter(|(id, _)| Some(id.as_str()) != except) {
        let s = similarity(&mine, &content_terms(question));
        if s >= NEAR_DUPLICATE {
            out.push(NearDuplicate {
                kind: RecallKind::Question,
                id: id.clone(),
                status: HitStatus::Candidate,
                line: format!("open: {}", sync::one_line(question)),
                similarity: (s * 100.0).round() / 100.0,
                read: ReadHint {
                    command: format!("majordomus question resolve {id} \"<answer>\""),
                    uri: format!("majordomus://question/{id}"),
                },
            });
        }
    }
    out.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(out)
}

/// `recall.show`: one hit, whole.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowRequest {
    /// `<kind>:<id>`, as a hit names it.
    pub reference: String,
}

/// One record, whole.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Shown {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    /// Where it lives: a file relative to the root, or `ledger` (with its offset).
    pub source: String,
    pub episode: Option<String>,
    pub task: Option<String>,
    pub date: String,
    /// The knowledge record a ledger line derived, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived: Option<String>,
    pub text: String,
}

/// `majordomus show <kind>:<id>`.
pub fn show(ctx: &Ctx, request: ShowRequest) -> Result<Shown, Error> {
    check_size("reference", &request.reference, 1024)?;
    let unknown = || -> Error {
        Refusal::UnknownRecord {
            reference: request.reference.clone(),
        }
        .into()
    };
    let (kind, id) = request.reference.split_once(':').ok_or_else(unknown)?;
    let kind = RecallKind::from_name(kind).ok_or_else(unknown)?;
    let opened = sync::open(ctx)?;
    let r = opened.db.reader();
    let rows = r
        .docs_where(Column::Key, &[id.to_owned()])
        .unwrap_or_default();
    let row = rows.into_iter().find(|d| d.kind == kind.name());
    // A knowledge record's provenance names the decisions of a task as `decision:<task>`
    // (SPEC §5): that reference reads as the task's decisions, in ledger order.
    if row.is_none() && kind == RecallKind::Decision && IdKind::Task.accepts(id) {
        let mut decisions: Vec<_> = r
            .docs_where(Column::Task, &[id.to_owned()])
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.kind == RecallKind::Decision.name())
            .collect();
        decisions.sort_by(|a, b| (a.offset, &a.key).cmp(&(b.offset, &b.key)));
        if let Some(first) = decisions.first() {
            let ids: Vec<i64> = decisions.iter().map(|d| d.id).collect();
            let mut texts = r.texts(&ids).unwrap_or_default();
            let text = decisions
                .iter()
                .map(|d| {
                    format!(
                        "- {} {} (majordomus show decision:{})\n",
                        d.date,
                        texts.remove(&d.id).unwrap_or_default().trim(),
                        d.key
                    )
                })
                .collect::<String>();
            return Ok(Shown {
                kind,
                id: id.to_owned(),
                status: HitStatus::from_name(&first.status).unwrap_or(HitStatus::Candidate),
                source: format!("ledger ({} decision(s) of task {id})", decisions.len()),
                episode: first.episode.clone(),
                task: Some(id.to_owned()),
                date: first.date.clone(),
                derived: None,
                text,
            });
        }
    }
    let row = row.ok_or_else(unknown)?;
    let derived = row
        .derives
        .as_ref()
        .and_then(|k| r.docs_where(Column::Key, std::slice::from_ref(k)).ok())
        .and_then(|rows| rows.into_iter().find(|d| d.kind == "knowledge"));
    let status = HitStatus::from_name(
        derived
            .as_ref()
            .map_or(row.status.as_str(), |d| d.status.as_str()),
    )
    .unwrap_or(HitStatus::Candidate);
    let text = match row.source.strip_prefix("file:") {
        Some(rel) => {
            let path = ctx.layout.root().join(rel);
            std::fs::read_to_string(&path).map_err(|e| crate::store::StoreError::io(&path, e))?
        }
        None => r
            .texts(&[row.id])
            .unwrap_or_default()
            .remove(&row.id)
            .unwrap_or_default(),
    };
    let source = match row.offset {
        Some(offset) if row.source == "ledger" => format!("ledger (byte {offset})"),
        Some(offset) if row.source.starts_with("journal:") => format!(
            "journal of writer {} (byte {offset} of {})",
            row.source.trim_start_matches("journal:"),
            ctx.layout
                .display(&crate::journal::journals_dir(ctx).join(format!(
                    "{}.jsonl",
                    row.source.trim_start_matches("journal:")
                )))
        ),
        _ => row.source.trim_start_matches("file:").to_owned(),
    };
    Ok(Shown {
        kind,
        id: row.key.clone(),
        status,
        source,
        episode: row.episode.clone(),
        task: row.task.clone(),
        date: row.date.clone(),
        derived: derived.map(|d| d.key),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_renders_as_the_command_that_runs_it() {
        let request = RecallRequest {
            query: Some("parser's error".into()),
            path: vec!["src/a b.rs".into(), "src/c.rs".into()],
            kind: vec![RecallKind::Knowledge],
            status: vec![HitStatus::Verified, HitStatus::Stale],
            at_hand: true,
            limit: Some(23),
            ..RecallRequest::default()
        };
        assert_eq!(
            command(&request),
            r"majordomus recall 'parser'\''s error' --path 'src/a b.rs' --path src/c.rs --kind knowledge --status verified --status stale --at-hand --limit 23"
        );
        assert_eq!(command(&RecallRequest::default()), "majordomus recall");
    }
}
