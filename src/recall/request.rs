//! What a recall asks ([`RecallRequest`]), its limits, and the command line that runs it
//! (what the briefing, a cut list and a refusal's fix print).

use schemars::JsonSchema;
use serde::Deserialize;

use super::RecallKind;
use crate::model::recall::HitStatus;

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
    /// One pass over the usual pools (each path's best rows, the best lexical matches), not
    /// read deeper: the briefing, which runs at every session start and re-entry and shows a
    /// screenful. Its hits are the best of what that pass read (`total_exact` false when
    /// records were left unread); `recall` ranks them all. Unlike `lean_pool`, the files
    /// the agent touched read their own lists. Never part of a request from a surface.
    #[serde(skip)]
    pub one_pass: bool,
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
    /// A prompt's words (each its terms): the files they came with lift the records
    /// found (`model::recall::signal::history`). Never part of a request from a surface.
    #[serde(skip)]
    pub history: Vec<Vec<String>>,
    /// A prompt's words written as code (each its compound term): which of them are
    /// identifiers in the repository's code (`Recall::code_known`;
    /// `model::recall::code`). Never part of a request from a surface.
    #[serde(skip)]
    pub code_asked: Vec<String>,
}

/// Hits shown when the request names no limit.
pub const DEFAULT_LIMIT: usize = 10;
/// The most hits one request shows.
pub const MAX_LIMIT: usize = 1000;
/// Paths one request ranks by (the work at hand may have more: the rest are counted).
pub const MAX_PATHS: usize = 200;

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
