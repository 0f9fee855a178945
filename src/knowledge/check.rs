//! `knowledge check` (SPEC §5.3): integrity of every record under `candidates/` and
//! `curated/`. Ledger references looked up in the ledger index, one batched object lookup,
//! one HEAD-tree traversal: cost grows with the store, never with records × references.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::Verdict;
use crate::model::knowledge::{KNOWLEDGE_SCHEMA, KnowledgeRecord, Markers, Status};
use crate::store::frontmatter;
use crate::store::outbox::{Outbox, Shelf, list_markdown};
use crate::store::records::{Place, StoredFile, map_records, stored_files};

/// `knowledge.check` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocking,
    Advisory,
}

/// One integrity finding: file, rule, what is wrong and what would satisfy the rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Finding {
    pub file: String,
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    pub fix: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckReport {
    pub records: usize,
    pub findings: Vec<Finding>,
    /// Set when resolving `session:` and `task:` references rebuilt the ledger index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<crate::store::index::IndexRebuilt>,
}

impl CheckReport {
    /// Blocking findings refuse (exit 3, a refused push); advisory ones only inform.
    pub fn verdict(&self) -> Verdict {
        if self.blocking() > 0 {
            Verdict::Refused
        } else if self.findings.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Advisory
        }
    }

    pub fn blocking(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Blocking)
            .count()
    }
}

/// What the references of the store may resolve against, gathered once.
struct Resolver {
    sessions: HashSet<String>,
    tasks: HashSet<String>,
    issues: HashSet<String>,
    commits: HashSet<String>,
    head_paths: HashSet<String>,
    knowledge: HashSet<String>,
}

/// Splits `kind:target` (`file:` targets may end in `:<line>`).
fn split_ref(reference: &str) -> Option<(&str, &str)> {
    let (kind, target) = reference.split_once(':')?;
    Some((kind, target))
}

fn file_target(target: &str) -> &str {
    match target.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => path,
        _ => target,
    }
}

/// Runs every rule over the store.
pub fn check(ctx: &Ctx, _request: CheckRequest) -> Result<CheckReport, Error> {
    ctx.require_initialised()?;
    let files: Vec<StoredFile> = stored_files(&ctx.layout)?
        .into_iter()
        .filter(|f| f.place != Place::Outbox)
        .collect();
    let markers = Markers::standard();
    let mut findings = Vec::new();
    let mut parsed: Vec<(&StoredFile, KnowledgeRecord, String)> = Vec::new();
    let outcomes = map_records(&files, |file: &StoredFile| {
        (file, file.parse().map(|(r, body)| (r, body.to_owned())))
    });
    for (file, outcome) in outcomes {
        match outcome {
            Ok((record, body)) => parsed.push((file, record, body)),
            Err(message) => findings.push(Finding {
                file: file.rel.clone(),
                rule: "knowledge.schema".into(),
                severity: Severity::Blocking,
                message: format!("not a valid knowledge/v1 record: {message}"),
                fix:
                    "restore the front matter keys of docs/KNOWLEDGE.md (unknown keys are refused)"
                        .into(),
            }),
        }
    }

    // Gather every reference once, then resolve them in batches.
    let mut commit_refs: Vec<&str> = Vec::new();
    let mut path_refs: Vec<&str> = Vec::new();
    let mut ledger_refs = LedgerRefs::default();
    for (_, record, _) in &parsed {
        for r in &record.provenance.derived_from {
            match split_ref(r) {
                Some(("commit", sha)) => commit_refs.push(sha),
                Some(("file" | "test", target)) => path_refs.push(file_target(target)),
                Some(("session", id)) => ledger_refs.sessions.push(id),
                Some(("task" | "decision", id)) => ledger_refs.tasks.push(id),
                _ => {}
            }
        }
    }
    let (resolver, index_rebuilt) = episodes_and_tasks(ctx, &ledger_refs)?;
    let resolver = Resolver {
        knowledge: files.iter().map(|f| f.stem.clone()).collect(),
        commits: ctx.repo.existing_commits(commit_refs.iter().copied())?,
        head_paths: ctx.repo.existing_head_paths(path_refs.iter().copied())?,
        ..resolver
    };
    let baseline = ctx.repo.baseline_blobs(".ai/repo/knowledge/")?;

    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (file, record, body) in &parsed {
        let mut find = |rule: &'static str, severity: Severity, message: String, fix: String| {
            findings.push(Finding {
                file: file.rel.clone(),
                rule: rule.to_owned(),
                severity,
                message,
                fix,
            })
        };
        let blocking = Severity::Blocking;
        if record.schema != KNOWLEDGE_SCHEMA {
            find(
                "knowledge.schema",
                blocking,
                format!("schema is `{}`", record.schema),
                format!("set `schema: {KNOWLEDGE_SCHEMA}`"),
            );
        }
        if record.id != file.stem {
            find(
                "knowledge.id-file",
                blocking,
                format!(
                    "id `{}` differs from the file name `{}.md`",
                    record.id, file.stem
                ),
                format!("rename the file to {}.md or correct the id", record.id),
            );
        }
        if let Some(other) = seen.insert(record.id.as_str(), file.rel.as_str()) {
            find(
                "knowledge.id-unique",
                blocking,
                format!("id `{}` is also used by {other}", record.id),
                "keep one record per id (a promoted candidate must leave candidates/)".into(),
            );
        }
        if record.status == Status::Verified && record.provenance.derived_from.is_empty() {
            find(
                "knowledge.provenance",
                blocking,
                "a verified record without provenance.derived_from".into(),
                "name what it was derived from (session:, commit:, file:, ...)".into(),
            );
        }
        if file.place == Place::Candidates && record.status == Status::Verified {
            find(
                "knowledge.candidate-verified",
                blocking,
                "a file under candidates/ claims `status: verified`".into(),
                format!(
                    "majordomus knowledge promote {} (with evidence on stdin)",
                    record.id
                ),
            );
        }
        if record.status == Status::Superseded
            && record.superseded_by.is_none()
            && !body.lines().any(|l| l == "# Rejected")
        {
            find(
                "knowledge.superseded-reason",
                blocking,
                "superseded without `superseded_by` or a `# Rejected` reason".into(),
                format!(
                    "majordomus knowledge reject {} --reason \"<why>\"",
                    record.id
                ),
            );
        }
        if let Some(by) = &record.superseded_by
            && !resolver.knowledge.contains(by)
        {
            find(
                "knowledge.ref-resolves",
                blocking,
                format!("superseded_by `{by}` names no record"),
                "name an existing knowledge id".into(),
            );
        }
        for (what, text) in [("title", record.title.as_str()), ("body", body.as_str())] {
            if let Some(marker) = markers.find(text) {
                find(
                    "knowledge.transcript-marker",
                    blocking,
                    format!("the {what} carries the transcript marker `{marker}`"),
                    "state one claim about the repository; never quote a conversation".into(),
                );
            }
        }
        for r in &record.provenance.derived_from {
            check_ref(ctx, r, file, &resolver, baseline.as_ref(), &mut find);
        }
        for r in record.relations.iter().flatten() {
            // `<relation>:<knowledge id>` or a bare id; ids never contain `:`.
            let target = r.rsplit(':').next().unwrap_or(r);
            if !resolver.knowledge.contains(target) {
                find(
                    "knowledge.ref-resolves",
                    blocking,
                    format!("relation `{r}` names no knowledge record"),
                    "name an existing knowledge id, or remove the relation".into(),
                );
            }
        }
    }
    findings.sort();
    Ok(CheckReport {
        records: files.len(),
        findings,
        index_rebuilt,
    })
}

fn check_ref(
    ctx: &Ctx,
    reference: &str,
    file: &StoredFile,
    resolver: &Resolver,
    baseline: Option<&(String, HashMap<String, String>)>,
    find: &mut impl FnMut(&'static str, Severity, String, String),
) {
    let blocking = Severity::Blocking;
    let Some((kind, target)) = split_ref(reference) else {
        find(
            "knowledge.ref-resolves",
            blocking,
            format!("`{reference}` is not `<kind>:<target>`"),
            "use session:, task:, decision:, commit:, issue:, file: or test:".into(),
        );
        return;
    };
    if matches!((kind, target), ("decision", "none") | ("task", "none")) || kind == "question" {
        find(
            "knowledge.ref-placeholder",
            blocking,
            format!("`{reference}` is a placeholder, not evidence"),
            "remove it; name the task, session or commit the claim comes from".into(),
        );
        return;
    }
    let dangling = |against: &str, fix: &str| {
        (
            format!("`{reference}` does not resolve against {against}"),
            fix.to_owned(),
        )
    };
    let problem = match kind {
        "session" if !resolver.sessions.contains(target) => Some(dangling(
            "the ledger or the session records",
            "name an episode this clone's ledger or .ai/repo/sessions/ knows",
        )),
        "task" | "decision" if !resolver.tasks.contains(target) => Some(dangling(
            "the tasks of the ledger or the session records",
            "name a task of a session record or of this clone's ledger",
        )),
        "issue" if !resolver.issues.contains(target) => Some(dangling(
            "the issues of .ai/repo/intents/",
            "name an issue declared in .ai/repo/intents/*.yaml",
        )),
        "file" | "test" if !resolver.head_paths.contains(file_target(target)) => Some(dangling(
            "HEAD's tree",
            "name a path that exists in HEAD's tree",
        )),
        "commit" if !resolver.commits.contains(target) => {
            commit_missing(ctx, reference, file, baseline, find);
            None
        }
        "session" | "task" | "decision" | "issue" | "file" | "test" | "commit" => None,
        _ => Some((
            format!("`{reference}` has an unknown kind `{kind}`"),
            "use session:, task:, decision:, commit:, issue:, file: or test:".to_owned(),
        )),
    };
    if let Some((message, fix)) = problem {
        find("knowledge.ref-resolves", blocking, message, fix);
    }
}

/// A `commit:` target missing from this clone: blocking when the pending change adds or
/// modifies the record, advisory when the record is already upstream as it is (the commit
/// was lost to a squash merge, a rebase or a shallow clone).
fn commit_missing(
    ctx: &Ctx,
    reference: &str,
    file: &StoredFile,
    baseline: Option<&(String, HashMap<String, String>)>,
    find: &mut impl FnMut(&'static str, Severity, String, String),
) {
    let upstream = baseline.and_then(|(name, blobs)| {
        let blob = blobs.get(&file.rel)?;
        let here = ctx.repo.blob_id(file.text.as_bytes()).ok()?;
        (*blob == here).then_some(name.as_str())
    });
    match upstream {
        Some(name) => find(
            "knowledge.commit-missing",
            Severity::Advisory,
            format!(
                "`{reference}` is not in this clone; the record is already in {name} unchanged, so the commit was likely lost to a squash merge, a rebase or a shallow clone"
            ),
            "fetch the history (git fetch --unshallow) or point the reference at the commit that replaced it".into(),
        ),
        None => find(
            "knowledge.commit-missing",
            Severity::Blocking,
            format!(
                "`{reference}` is not in this clone, and this change adds or modifies the record"
            ),
            "reference a commit that exists (git log), or remove the reference".into(),
        ),
    }
}

/// The `session:` and `task:`/`decision:` targets the records name.
#[derive(Default)]
struct LedgerRefs<'a> {
    sessions: Vec<&'a str>,
    tasks: Vec<&'a str>,
}

/// Episodes and tasks known to this clone, of those the records name: looked up in the
/// ledger index, plus the tracked session records (so a fresh clone without a ledger
/// still resolves them), plus the issues declared in intents.
fn episodes_and_tasks(
    ctx: &Ctx,
    refs: &LedgerRefs<'_>,
) -> Result<(Resolver, Option<crate::store::index::IndexRebuilt>), Error> {
    let index = ctx.index()?;
    let mut sessions = index.opened_episodes(refs.sessions.iter().copied())?;
    let mut tasks = index.started_tasks(refs.tasks.iter().copied())?;
    let outbox = Outbox::new(&ctx.layout);
    for dir in [ctx.layout.sessions_dir(), outbox.shelf(Shelf::Sessions)] {
        for name in list_markdown(&dir)? {
            let Ok(text) = std::fs::read_to_string(dir.join(&name)) else {
                continue;
            };
            sessions.insert(name.trim_end_matches(".md").to_owned());
            if let Ok((record, _)) =
                frontmatter::parse::<crate::model::compose::SessionRecord>(&text)
            {
                tasks.extend(record.tasks);
            }
        }
    }
    let mut issues = HashSet::new();
    let intents = ctx.layout.repo_dir().join("intents");
    if let Ok(entries) = std::fs::read_dir(&intents) {
        for entry in entries.filter_map(Result::ok) {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            if let Ok(value) = yaml_serde::from_str::<yaml_serde::Value>(&text)
                && let Some(list) = value.get("issues").and_then(|v| v.as_sequence())
            {
                issues.extend(
                    list.iter()
                        .filter_map(|i| i.get("id").and_then(|v| v.as_str()).map(str::to_owned)),
                );
            }
        }
    }
    Ok((
        Resolver {
            sessions,
            tasks,
            issues,
            commits: HashSet::new(),
            head_paths: HashSet::new(),
            knowledge: HashSet::new(),
        },
        index.rebuilt().cloned(),
    ))
}
