//! A request checked and resolved into what the search ranks by: its limit and date, the
//! paths asked (inside the repository), the task's and issue's links and paths, the files
//! the agent touched, the work at hand; and, for the result, what it ranked by.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;

use super::hand::at_hand;
use super::request::{DEFAULT_LIMIT, MAX_LIMIT, MAX_PATHS, RecallRequest, command};
use super::{Query, QueryPath, RecallKind};
use crate::Ctx;
use crate::error::{Error, Refusal, UsageError};
use crate::model::ids::IdKind;
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::recall::{HAND_LINK_FACTOR, HandSource, LinkKind, query_terms};
use crate::store::recall::{Column, literal_prefix};

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

/// The request, checked and resolved into what the search ranks by.
pub(super) fn resolve(
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
            one_pass: request.one_pass,
            leave_out: request
                .leave_out
                .iter()
                .filter_map(|r| {
                    let (kind, id) = r.split_once(':')?;
                    Some((RecallKind::from_name(kind)?, id.to_owned()))
                })
                .collect(),
            leave_out_episode: request.leave_out_episode.clone(),
            history: request.history.clone(),
            code_asked: request.code_asked.clone(),
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
