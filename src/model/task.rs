//! Tasks (SPEC §4): what a task names, how its binding answered, and how it ended.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::event::TaskStatus;
use super::intent::BindingStatus;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    Active,
    Completed,
    Blocked,
}

impl TaskState {
    pub fn name(self) -> &'static str {
        match self {
            TaskState::Active => "active",
            TaskState::Completed => "completed",
            TaskState::Blocked => "blocked",
        }
    }
}

impl From<TaskStatus> for TaskState {
    fn from(status: TaskStatus) -> TaskState {
        match status {
            TaskStatus::Completed => TaskState::Completed,
            TaskStatus::Blocked => TaskState::Blocked,
        }
    }
}

/// `.ai/local/state/tasks/<task>.json`: names and pins, never the intent itself (the
/// binding is derived at every ask, SPEC §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TaskRecord {
    /// `t-<YYYYMMDD>-<4 hex>`.
    pub id: String,
    pub description: String,
    /// The episode that started it.
    pub episode: String,
    /// The task's scope: paths and globs (its issue's paths when an issue is named).
    pub scope: Vec<String>,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub exemption: Option<String>,
    pub because: Option<String>,
    /// How the binding answered at start (`None`: it was not asked).
    pub binding: Option<BindingStatus>,
    pub plan_revision: Option<String>,
    pub evidence_standing: Option<String>,
    /// HEAD when the task started: its commits are the ones after it.
    pub head_at_start: Option<String>,
    pub started: String,
    pub state: TaskState,
    pub finished: Option<String>,
    pub reason: Option<String>,
    /// Files the task's commits changed outside its scope (said at finish, advisory).
    #[serde(default)]
    pub outside_scope: Vec<String>,
}

/// `t-<YYYYMMDD>-<4 hex>`: the day it started and four hex of a digest over `entropy`.
pub fn task_id(day: &str, entropy: &[u8]) -> String {
    let mut seed = day.as_bytes().to_vec();
    seed.extend_from_slice(entropy);
    format!("t-{day}-{}", &super::ids::sha256_hex(&seed)[..4])
}

/// True when `path` lies in `scope`: a scope entry names the path, a directory above it,
/// or a glob matching it. An empty scope covers everything.
pub fn in_scope(scope: &[String], path: &str) -> bool {
    if scope.is_empty() {
        return true;
    }
    scope.iter().any(|entry| {
        let entry = entry.trim_end_matches('/');
        if entry.is_empty() || entry == "." {
            return true;
        }
        if path == entry || path.starts_with(&format!("{entry}/")) {
            return true;
        }
        globset::GlobBuilder::new(entry)
            .literal_separator(true)
            .build()
            .is_ok_and(|g| {
                let m = g.compile_matcher();
                m.is_match(path) || path.match_indices('/').any(|(i, _)| m.is_match(&path[..i]))
            })
    })
}

/// Where two scopes meet, when they do: the first pair of entries (one of `a`, one of
/// `b`) whose literal directories lie on one line (one at or under the other); an empty
/// scope (the whole repository) meets every scope. Advisory, so coarse: a glob counts by
/// its literal directory.
pub fn scopes_overlap(a: &[String], b: &[String]) -> Option<(String, String)> {
    let whole = |s: &[String]| s.is_empty();
    let shown = |s: &[String]| {
        if s.is_empty() {
            "the whole repository".to_owned()
        } else {
            s.join(", ")
        }
    };
    if whole(a) || whole(b) {
        return Some((shown(a), shown(b)));
    }
    let literal = |entry: &str| {
        let cut = entry.find(['*', '?', '[', '{']).map_or(entry, |i| {
            entry[..i].rsplit_once('/').map_or("", |(d, _)| d)
        });
        cut.trim_end_matches('/')
            .trim_start_matches("./")
            .to_owned()
    };
    let on_line = |x: &str, y: &str| {
        x.is_empty()
            || y.is_empty()
            || x == "."
            || y == "."
            || x == y
            || x.starts_with(&format!("{y}/"))
            || y.starts_with(&format!("{x}/"))
    };
    for x in a {
        for y in b {
            if on_line(&literal(x), &literal(y)) {
                return Some((x.clone(), y.clone()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_meet_on_one_line_of_directories() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            scopes_overlap(&s(&["src/parser/"]), &s(&["src/"])),
            Some(("src/parser/".into(), "src/".into()))
        );
        assert!(scopes_overlap(&s(&["src/parser/"]), &s(&["src/lexer/", "docs/"])).is_none());
        assert!(scopes_overlap(&s(&["src/**/*.rs"]), &s(&["src/a/b.rs"])).is_some());
        assert!(scopes_overlap(&s(&["src/parser.rs"]), &s(&["src/parser.rs.bak"])).is_none());
        assert!(scopes_overlap(&[], &s(&["docs/"])).is_some());
        assert!(scopes_overlap(&s(&["*.md"]), &s(&["src/"])).is_some());
    }

    #[test]
    fn ids_have_the_task_shape() {
        let id = task_id("20261130", b"x");
        assert!(crate::model::ids::IdKind::Task.accepts(&id), "{id}");
        assert_ne!(id, task_id("20261130", b"y"));
    }

    #[test]
    fn scope_covers_paths_directories_and_globs() {
        let scope = vec![
            "src/".to_owned(),
            "docs/*.md".to_owned(),
            "Cargo.toml".to_owned(),
        ];
        for covered in ["src/a.rs", "src/x/y.rs", "docs/A.md", "Cargo.toml"] {
            assert!(in_scope(&scope, covered), "{covered}");
        }
        for outside in ["docs/x/A.md", "tests/a.rs", "Cargo.lock", "srcx/a.rs"] {
            assert!(!in_scope(&scope, outside), "{outside}");
        }
        assert!(in_scope(&[], "anything"));
    }
}
