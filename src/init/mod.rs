//! `majordomus init`: the `.ai/` skeleton, idempotent, never overwriting a file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::error::Refusal;
use crate::git::Ignored;
use crate::store::skeleton::{FILES, GITIGNORE_LINE, RECORD_PATHS, REINCLUDE_LINES};
use crate::store::{StoreError, WriteOutcome, write_atomic, write_new};

/// `init` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitRequest {}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Initialised {
    /// The work tree root.
    pub root: String,
    /// Files this run created, relative to the root.
    pub created: Vec<String>,
    /// Skeleton files that were already there and were left alone.
    pub existing: Vec<String>,
    /// `written` when `.ai/local/` was added to `.gitignore`, else `unchanged`.
    pub gitignore: WriteOutcome,
    /// Skeleton files and `.gitignore` as HEAD does not have them yet: what the first
    /// `next:` step commits (empty: nothing to commit, the step is left out).
    pub uncommitted: Vec<String>,
}

/// Creates the skeleton from `share/skeleton/` and ignores `.ai/local/`. Refuses, before
/// writing anything, when git's ignore rules hide a path records are written to.
pub fn init(ctx: &Ctx, _request: InitRequest) -> Result<Initialised, Error> {
    if let Some(first) = ctx.repo.ignored(RECORD_PATHS)?.into_iter().next() {
        return Err(ignored_refusal(&first, "majordomus init").into());
    }
    let mut created = Vec::new();
    let mut existing = Vec::new();
    for (rel, contents) in FILES {
        let path = ctx.layout.root().join(rel);
        match write_new(&path, contents.as_bytes())? {
            WriteOutcome::Written => created.push((*rel).to_owned()),
            _ => existing.push((*rel).to_owned()),
        }
    }
    let local = ctx.layout.local_dir();
    std::fs::create_dir_all(&local).map_err(|e| StoreError::io(&local, e))?;

    let path = ctx.layout.gitignore();
    let current = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(StoreError::io(&path, e).into()),
    };
    let ignored = current.lines().any(|l| {
        let l = l.trim();
        l == GITIGNORE_LINE || l == "/.ai/local/" || l == ".ai/local" || l == "/.ai/local"
    });
    let gitignore = if ignored {
        WriteOutcome::Unchanged
    } else {
        let mut next = current;
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(GITIGNORE_LINE);
        next.push('\n');
        write_atomic(&path, next.as_bytes())?
    };
    // The next steps print `git add .ai .gitignore && git commit`, which fails with
    // nothing to commit: it is printed only while HEAD lacks a file of the skeleton.
    let gitignore_rel = ".gitignore";
    let wanted: Vec<&str> = FILES
        .iter()
        .map(|(rel, _)| *rel)
        .chain([gitignore_rel])
        .collect();
    let at_head = ctx.repo.existing_paths_at(None, wanted.iter().copied())?;
    let uncommitted = wanted
        .into_iter()
        .filter(|rel| {
            !at_head.contains(*rel) || (*rel == gitignore_rel && gitignore == WriteOutcome::Written)
        })
        .map(str::to_owned)
        .collect();
    Ok(Initialised {
        root: ctx.layout.root().display().to_string(),
        created,
        existing,
        gitignore,
        uncommitted,
    })
}

/// Where `ignored` comes from, and how to put the record paths back for git, then `then`:
/// the lines that re-include `.ai/repo/` appended to the root `.gitignore` (which wins over
/// `.git/info/exclude` and `core.excludesFile`, and over an earlier line of itself); a rule
/// in a `.gitignore` under `.ai/` wins over the root's, so that line goes by hand.
pub fn ignored_refusal(ignored: &Ignored, then: &str) -> Refusal {
    let rule_file = match &ignored.source {
        Some(file) => format!("{file}:{}", ignored.line),
        None => "a rule given outside any file".to_owned(),
    };
    let nested = ignored
        .source
        .as_deref()
        .filter(|f| f.starts_with(".ai/") && f.ends_with(".gitignore"));
    let fix = match nested {
        Some(file) => format!(
            "by hand: delete line {} (`{}`) of {file}, then run: {then}",
            ignored.line, ignored.pattern
        ),
        None => format!(
            "printf '%s\\n' {} >> .gitignore && {then}",
            REINCLUDE_LINES
                .iter()
                .map(|l| format!("'{l}'"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    Refusal::RecordsIgnored {
        path: ignored.path.clone(),
        pattern: ignored.pattern.clone(),
        rule_file,
        fix,
    }
}
