//! `knowledge check` (SPEC §5.3): integrity of every record under `candidates/` and
//! `curated/`, in the work tree or in the tree of a pushed commit. Ledger references are
//! looked up in the ledger index, commits in one batched object lookup, paths in one tree
//! traversal: cost grows with the store, never with records × references.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::model::event::CommitRewritten;
use crate::model::knowledge::{
    KNOWLEDGE_SCHEMA, KnowledgeRecord, Markers, Status, evidence_section,
};
use crate::model::{Event, Verdict};
use crate::store::frontmatter;
use crate::store::outbox::{Outbox, Shelf, list_markdown};
use crate::store::records::{Place, StoredFile, map_records, stored_files_checked};
use crate::timing::Phase;

/// Where the knowledge store lives in a tree.
pub const KNOWLEDGE_PREFIX: &str = ".ai/repo/knowledge";
const SESSIONS_PREFIX: &str = ".ai/repo/sessions";

/// `knowledge.check` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeCheckRequest")]
pub struct CheckRequest {}

pub use crate::model::verdict::Severity;

/// One integrity finding: file, rule, what is wrong and what would satisfy the rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Finding {
    pub file: String,
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    pub fix: String,
    /// An advisory that asks nothing of anyone (its fix says nothing needs doing): said
    /// so a reader knows what happened, never a reason for `watch` to stop (exit 11).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
}

/// How much a finding of the check weighs: [`Severity`], and the advisory that needs
/// nothing done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Weight {
    Blocking,
    Advisory,
    /// Advisory, and nothing needs doing ([`Finding::informational`]).
    Informational,
}

impl Weight {
    fn severity(self) -> Severity {
        match self {
            Weight::Blocking => Severity::Blocking,
            Weight::Advisory | Weight::Informational => Severity::Advisory,
        }
    }
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

/// What a set of records is judged against: where `file:`/`test:` targets resolve, and
/// which records the change being judged adds or modifies.
pub(crate) struct Judged {
    pub files: Vec<StoredFile>,
    /// The commit whose tree `file:`/`test:` targets must be in; HEAD's when `None`.
    pub paths_at: Option<String>,
    /// The tree the change lands on: each record's blob there, under a name for
    /// messages. `None`: nothing upstream, every record is part of the change.
    pub baseline: Option<(String, HashMap<String, String>)>,
    /// The session records (path, text) that excuse a rewritten commit.
    pub session_records: Vec<(String, String)>,
}

/// What references may resolve against, gathered once from the ledger and the session
/// records.
#[derive(Debug, Default)]
pub(crate) struct Known {
    pub sessions: HashSet<String>,
    pub tasks: HashSet<String>,
    pub issues: HashSet<String>,
    /// commit → the session record whose `commits:` lists it.
    pub recorded_commits: HashMap<String, String>,
    /// A rewritten commit → its successor and how git rewrote it (`post-rewrite`).
    pub rewrites: HashMap<String, (String, String)>,
}

impl Known {
    /// The final successor of a rewritten commit (following amend-then-rebase chains).
    pub fn successor(&self, commit: &str) -> Option<(&str, &str)> {
        let mut at = self.rewrites.get(commit)?;
        let mut hops = 0;
        while let Some(next) = self.rewrites.get(&at.0) {
            hops += 1;
            if hops > 64 {
                break;
            }
            at = next;
        }
        Some((at.0.as_str(), at.1.as_str()))
    }
}

/// The two sides of a record git left with conflict markers, ours named by the branch
/// checked out (git names it `HEAD`).
pub(crate) fn conflict_in(ctx: &Ctx, text: &str) -> Option<crate::model::knowledge::Conflict> {
    let mut conflict = crate::model::knowledge::conflict_of(text)?;
    if conflict.ours.label == "HEAD"
        && let Ok(head) = ctx.repo.head()
        && let Some(branch) = head.branch
    {
        conflict.ours.label = branch;
    }
    Some(conflict)
}

/// A knowledge record git left with conflict markers, as the briefing and `knowledge
/// status` name it: the file, both acts, and the fix `knowledge check` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ConflictedRecord {
    /// Relative to the root.
    pub file: String,
    pub message: String,
    pub fix: String,
}

/// The knowledge records of the work tree that hold git's conflict markers (read from
/// every record: what `knowledge status` counts).
pub fn conflicted_records(ctx: &Ctx) -> Result<Vec<ConflictedRecord>, Error> {
    let mut out = Vec::new();
    for file in crate::store::records::stored_files(&ctx.layout)? {
        if file.place == Place::Outbox {
            continue;
        }
        if let Some(conflict) = conflict_in(ctx, &file.text) {
            out.push(conflicted(&file.rel, &conflict));
        }
    }
    Ok(out)
}

/// The knowledge records a merge, rebase or cherry-pick under way left unmerged with
/// conflict markers: only while git is in the middle of one, and read from the index's
/// unmerged paths (what the briefing can afford at every session start).
pub fn conflicted_in_progress(ctx: &Ctx) -> Result<Vec<ConflictedRecord>, Error> {
    if ctx.repo.operation_in_progress().is_none() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for rel in ctx.repo.unmerged_under(&format!("{KNOWLEDGE_PREFIX}/"))? {
        if !rel.ends_with(".md") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(ctx.layout.root().join(&rel)) else {
            continue;
        };
        if let Some(conflict) = conflict_in(ctx, &text) {
            out.push(conflicted(&rel, &conflict));
        }
    }
    Ok(out)
}

fn conflicted(rel: &str, conflict: &crate::model::knowledge::Conflict) -> ConflictedRecord {
    let finding = conflict_finding_at(rel, conflict);
    ConflictedRecord {
        file: finding.file,
        message: finding.message,
        fix: finding.fix,
    }
}

/// A record git left with conflict markers: the two acts named, and how to keep one.
fn conflict_finding(file: &StoredFile, conflict: &crate::model::knowledge::Conflict) -> Finding {
    conflict_finding_at(&file.rel, conflict)
}

/// [`conflict_finding`] of the record at `path` (relative to the root).
fn conflict_finding_at(path: &str, conflict: &crate::model::knowledge::Conflict) -> Finding {
    Finding {
        file: path.to_owned(),
        rule: "knowledge.conflict".into(),
        severity: Severity::Blocking,
        message: format!(
            "a merge left both acts in it: {} and {}",
            conflict.ours.describe(),
            conflict.theirs.describe()
        ),
        fix: format!(
            "keep one act: `git checkout --ours -- {path}` ({} on {}) or `git checkout --theirs -- {path}` ({} on {}), then `git add {path}`",
            conflict.ours.act(),
            conflict.ours.label,
            conflict.theirs.act(),
            conflict.theirs.label
        ),
        informational: false,
    }
}

/// Runs every rule over the work tree's store, `file:`/`test:` against HEAD.
pub fn check(ctx: &Ctx, _request: CheckRequest) -> Result<CheckReport, Error> {
    let _total = Phase::start("check.total");
    let mut phase = Phase::start("check.read_records");
    let (files, unreadable) = stored_files_checked(&ctx.layout)?;
    let files: Vec<StoredFile> = files
        .into_iter()
        .filter(|f| f.place != Place::Outbox)
        .collect();
    // A record that is not text is a finding of the check, not an I/O error (SPEC §0).
    let unreadable: Vec<Finding> = unreadable
        .into_iter()
        .filter(|f| f.place != Place::Outbox)
        .map(|f| Finding {
            message: format!(
                "not a valid knowledge/v1 record: not UTF-8 text ({})",
                f.reason
            ),
            file: f.rel,
            rule: "knowledge.schema".into(),
            severity: Severity::Blocking,
            fix: "save the file as UTF-8 text, or restore it from git".into(),
            informational: false,
        })
        .collect();
    let session_records = work_tree_session_records(ctx)?;
    phase.count("records", files.len());
    phase.count("session_records", session_records.len());
    phase.end();
    let mut phase = Phase::start("check.baseline");
    let baseline = ctx.repo.baseline_blobs(&format!("{KNOWLEDGE_PREFIX}/"))?;
    phase.count("blobs", baseline.as_ref().map_or(0, |(_, b)| b.len()));
    phase.end();
    let judged = Judged {
        files,
        paths_at: None,
        baseline,
        session_records,
    };
    let mut report = judge(ctx, &judged)?;
    let sources = sources_findings(ctx)?;
    if !unreadable.is_empty() || !sources.is_empty() {
        report.findings.extend(unreadable);
        report.findings.extend(sources);
        report.findings.sort();
    }
    Ok(report)
}

/// What `sources.yaml` declares that majordomus does not do, each an informational
/// finding: the file is descriptive (its `path:` is never a pathspec), so nothing needs
/// doing, but a reader of it should not believe otherwise.
fn sources_findings(ctx: &Ctx) -> Result<Vec<Finding>, Error> {
    use crate::model::knowledge::sources::{SOURCES_FILE, undone};
    let path = ctx.layout.root().join(SOURCES_FILE);
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(crate::store::StoreError::io(&path, e).into()),
    };
    Ok(undone(&text)
        .into_iter()
        .map(|message| Finding {
            file: SOURCES_FILE.to_owned(),
            rule: "knowledge.sources".to_owned(),
            severity: Severity::Advisory,
            message,
            fix: format!(
                "nothing needs doing (sources.yaml is descriptive); to make it say what majordomus does, edit {SOURCES_FILE} back to the folders docs/KNOWLEDGE.md lists"
            ),
            informational: true,
        })
        .collect())
}

/// The session records of the work tree and the outbox, as `(path, text)`.
pub(crate) fn work_tree_session_records(ctx: &Ctx) -> Result<Vec<(String, String)>, Error> {
    let mut session_records = Vec::new();
    let outbox = Outbox::new(&ctx.layout);
    for dir in [ctx.layout.sessions_dir(), outbox.shelf(Shelf::Sessions)] {
        for name in list_markdown(&dir)? {
            let path = dir.join(&name);
            if let Ok(text) = std::fs::read_to_string(&path) {
                session_records.push((ctx.layout.display(&path), text));
            }
        }
    }
    Ok(session_records)
}

/// One ref `git push` is about to update, as git writes it on the pre-push hook's stdin:
/// `<local ref> <local sha> <remote ref> <remote sha>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushedRef {
    pub local_ref: String,
    /// All zeros when the push deletes the remote ref.
    pub local_sha: String,
    pub remote_ref: String,
    /// All zeros when the remote ref does not exist yet.
    pub remote_sha: String,
}

fn is_zero(sha: &str) -> bool {
    !sha.is_empty() && sha.bytes().all(|b| b == b'0')
}

impl PushedRef {
    /// The refs of git's pre-push stdin; lines that are not four fields are skipped.
    pub fn parse_lines(text: &str) -> Vec<PushedRef> {
        text.lines()
            .filter_map(|line| {
                let mut f = line.split_whitespace();
                let r = PushedRef {
                    local_ref: f.next()?.to_owned(),
                    local_sha: f.next()?.to_owned(),
                    remote_ref: f.next()?.to_owned(),
                    remote_sha: f.next()?.to_owned(),
                };
                f.next().is_none().then_some(r)
            })
            .collect()
    }

    /// The push deletes the remote ref: nothing is pushed, nothing to judge.
    pub fn is_deletion(&self) -> bool {
        is_zero(&self.local_sha)
    }
}

/// Judges what a push sends (SPEC §8): for each pushed ref, the knowledge records in the
/// tree of the pushed commit, `file:`/`test:` against that tree, and as "the change" the
/// records that differ from what the remote ref holds (or, for a new remote ref, from the
/// remote's trunk). The work tree, untracked and uncommitted files play no part;
/// deletions pass.
pub fn check_pushed(
    ctx: &Ctx,
    refs: &[PushedRef],
    remote: Option<&str>,
) -> Result<CheckReport, Error> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut records = 0;
    let mut index_rebuilt = None;
    let mut judged_commits = HashSet::new();
    for pushed in refs.iter().filter(|r| !r.is_deletion()) {
        let Some(commit) = ctx.repo.resolve_commit(&pushed.local_sha)? else {
            continue;
        };
        if !judged_commits.insert(commit.clone()) {
            continue;
        }
        let prefix = format!("{KNOWLEDGE_PREFIX}/");
        let remote_commit = if is_zero(&pushed.remote_sha) {
            None
        } else {
            ctx.repo.resolve_commit(&pushed.remote_sha)?
        };
        let baseline = match remote_commit {
            Some(base) => Some((
                format!("{} ({})", pushed.remote_ref, &base[..12]),
                ctx.repo
                    .files_under_at(&base, &prefix)?
                    .into_iter()
                    .map(|f| (f.path, f.blob))
                    .collect(),
            )),
            None => match (ctx.repo.trunk()?, remote) {
                (Some(trunk), Some(remote)) => {
                    let name = format!("refs/remotes/{remote}/{}", trunk.branch);
                    ctx.repo
                        .blobs_under_ref(&name, &prefix)?
                        .map(|blobs| (name, blobs))
                }
                _ => None,
            },
        };
        let judged = Judged {
            files: records_at(ctx, &commit)?,
            paths_at: Some(commit.clone()),
            baseline,
            session_records: session_records_at(ctx, &commit)?,
        };
        let report = judge(ctx, &judged)?;
        records += report.records;
        findings.extend(report.findings);
        index_rebuilt = index_rebuilt.or(report.index_rebuilt);
    }
    findings.sort();
    findings.dedup();
    Ok(CheckReport {
        records,
        findings,
        index_rebuilt,
    })
}

/// The knowledge records in commit `commit`'s tree, as files to judge.
pub(crate) fn records_at(ctx: &Ctx, commit: &str) -> Result<Vec<StoredFile>, Error> {
    let mut out = Vec::new();
    for file in ctx.repo.files_under_at(commit, KNOWLEDGE_PREFIX)? {
        let place = if file
            .path
            .starts_with(&format!("{KNOWLEDGE_PREFIX}/candidates/"))
        {
            Place::Candidates
        } else if file
            .path
            .starts_with(&format!("{KNOWLEDGE_PREFIX}/curated/"))
        {
            Place::Curated
        } else {
            continue;
        };
        let name = file.path.rsplit('/').next().unwrap_or_default();
        if !name.ends_with(".md") || name == "README.md" || name.starts_with('.') {
            continue;
        }
        let bytes = ctx.repo.read_blob(&file.blob)?;
        out.push(StoredFile {
            place,
            path: std::path::PathBuf::from(&file.path),
            stem: name.trim_end_matches(".md").to_owned(),
            rel: file.path,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    Ok(out)
}

/// The session records in commit `commit`'s tree, as `(path, text)`.
pub(crate) fn session_records_at(ctx: &Ctx, commit: &str) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for file in ctx.repo.files_under_at(commit, SESSIONS_PREFIX)? {
        if !file.path.ends_with(".md") || file.path.ends_with("/README.md") {
            continue;
        }
        let bytes = ctx.repo.read_blob(&file.blob)?;
        out.push((file.path, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(out)
}

/// Runs every rule over `judged`.
pub(crate) fn judge(ctx: &Ctx, judged: &Judged) -> Result<CheckReport, Error> {
    let files = &judged.files;
    let mut phase = Phase::start("check.parse");
    let markers = Markers::standard();
    let mut findings = Vec::new();
    let mut parsed: Vec<(&StoredFile, KnowledgeRecord, String)> = Vec::new();
    // The secret scan reads every byte of every record: it runs here, on every core with
    // the parse, in one automaton pass per record (never a search per anchor).
    let mut secrets: HashMap<&str, Vec<&'static str>> = HashMap::new();
    let outcomes = map_records(files, |file: &StoredFile| {
        (
            file,
            file.parse().map(|(r, body)| (r, body.to_owned())),
            crate::model::redact::find_shapes_bulk(&file.text),
        )
    });
    for (file, outcome, shapes) in outcomes {
        match outcome {
            Ok((record, body)) => {
                if !shapes.is_empty() {
                    secrets.insert(file.rel.as_str(), shapes);
                }
                parsed.push((file, record, body));
            }
            Err(message) => {
                if let Some(conflict) = conflict_in(ctx, &file.text) {
                    findings.push(conflict_finding(file, &conflict));
                    if !shapes.is_empty() {
                        findings.push(secret_finding(file, &shapes));
                    }
                    continue;
                }
                findings.push(Finding {
                    file: file.rel.clone(),
                    rule: "knowledge.schema".into(),
                    severity: Severity::Blocking,
                    message: format!("not a valid knowledge/v1 record: {message}"),
                    fix: "restore the front matter keys of docs/KNOWLEDGE.md (unknown keys are refused)"
                        .into(),
                    informational: false,
                });
                // A record that does not parse is still pushed: its secret is found too.
                if !shapes.is_empty() {
                    findings.push(secret_finding(file, &shapes));
                }
            }
        }
    }

    phase.count("records", parsed.len());
    phase.end();
    let mut phase = Phase::start("check.resolve");
    phase.count(
        "references",
        parsed
            .iter()
            .map(|(_, record, _)| record.provenance.derived_from.len())
            .sum::<usize>(),
    );
    let (resolver, index_rebuilt) = Resolver::gather(
        ctx,
        files,
        parsed.iter().map(|(_, record, _)| record),
        judged.paths_at.as_deref(),
        &judged.session_records,
    )?;

    phase.end();
    let mut phase = Phase::start("check.judge");
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (file, record, body) in &parsed {
        let changed = match &judged.baseline {
            None => true,
            Some((_, blobs)) => match blobs.get(&file.rel) {
                None => true,
                Some(blob) => ctx.repo.blob_id(file.text.as_bytes())? != *blob,
            },
        };
        let upstream = judged.baseline.as_ref().map(|(name, _)| name.as_str());
        let mut find = |rule: &'static str, weight: Weight, message: String, fix: String| {
            findings.push(Finding {
                file: file.rel.clone(),
                rule: rule.to_owned(),
                severity: weight.severity(),
                message,
                fix,
                informational: weight == Weight::Informational,
            })
        };
        let blocking = Weight::Blocking;
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
            // A curated record beside a pending candidate of the same id is a promotion
            // killed before it removed the candidate: promote finishes it.
            let pending_copy = |rel: &str| {
                parsed.iter().any(|(f, r, _)| {
                    f.rel == rel && f.place != Place::Curated && r.status != Status::Superseded
                })
            };
            let curated_at = |rel: &str| {
                files
                    .iter()
                    .any(|f| f.rel == rel && f.place == Place::Curated)
            };
            let interrupted_promotion = judged.paths_at.is_none()
                && ((curated_at(other) && pending_copy(&file.rel))
                    || (curated_at(&file.rel) && pending_copy(other)));
            find(
                "knowledge.id-unique",
                blocking,
                if interrupted_promotion {
                    format!(
                        "id `{}` is also used by {other}: an interrupted promotion, which promoting again finishes (it removes the candidate copy)",
                        record.id
                    )
                } else {
                    format!("id `{}` is also used by {other}", record.id)
                },
                if interrupted_promotion {
                    format!("majordomus knowledge promote {}", record.id)
                } else {
                    "keep one record per id (a promoted candidate must leave candidates/)".into()
                },
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
            // Promote takes the record's own `# Evidence` when nothing is on stdin; without
            // one, the evidence must be written (docs/KNOWLEDGE.md, "Promote").
            if evidence_section(body).is_some() {
                find(
                    "knowledge.candidate-verified",
                    blocking,
                    "a file under candidates/ claims `status: verified`: promote it, its `# Evidence` section the evidence".into(),
                    format!("majordomus knowledge promote {}", record.id),
                );
            } else {
                find(
                    "knowledge.candidate-verified",
                    blocking,
                    "a file under candidates/ claims `status: verified` with no `# Evidence` section: promote it, with the evidence on stdin".into(),
                    crate::error::Refusal::EvidenceRequired {
                        id: record.id.clone(),
                        fix: None,
                    }
                    .fix()
                    .expect("evidence required has a fix"),
                );
            }
        }
        if record.status == Status::Superseded
            && record.superseded_by.is_none()
            && !body
                .lines()
                .any(|l| l == "# Rejected" || l == crate::model::knowledge::SUPERSEDED_HEADING)
        {
            // A candidate: `knowledge reject` writes the `# Rejected` reason it lacks. A
            // curated record is no candidate (reject refuses it) and no longer verified
            // (retire refuses it): its reason is written by hand.
            let fix = if file.place == Place::Curated {
                format!(
                    "by hand: add to the end of {} a `{}` section saying why it no longer holds, or name the record that replaces it in its front matter as `superseded_by: <its id>`",
                    file.rel,
                    crate::model::knowledge::SUPERSEDED_HEADING
                )
            } else {
                crate::model::knowledge::reject_fix(
                    &record.id,
                    None,
                    crate::model::knowledge::Why::Missing,
                )
            };
            find(
                "knowledge.superseded-reason",
                blocking,
                "superseded without `superseded_by`, a `# Rejected` or a `# Superseded` reason"
                    .into(),
                fix,
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
        if let Some(shapes) = secrets.get(file.rel.as_str()) {
            let secret = secret_finding(file, shapes);
            find("knowledge.secret", blocking, secret.message, secret.fix);
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
        // A rejected (or superseded) record is no longer claimed: what it named may
        // dangle, and nothing about it is a finding (rejection is the way out of a record
        // gone wrong; a finding whose fix is "reject the record" would never go away).
        if record.status == Status::Superseded {
            continue;
        }
        // Nor does a candidate claim anything yet: a file it cites that is gone is
        // advisory, its fix the rejection (or the file restored) (SPEC §5.2); only
        // verified records block.
        let pending = record.status == Status::Candidate && file.place != Place::Curated;
        let mut find_ref = |rule: &'static str, weight: Weight, message: String, fix: String| {
            find(rule, weight, message, fix)
        };
        if pending {
            let (paths, rest): (Vec<&String>, Vec<&String>) = record
                .provenance
                .derived_from
                .iter()
                .partition(|r| r.starts_with("file:") || r.starts_with("test:"));
            for r in paths {
                if let Some(target) = r.split_once(':').map(|(_, t)| t)
                    && !resolver.resolves(r)
                {
                    let path = file_target(target);
                    find_ref(
                        "knowledge.ref-resolves",
                        Weight::Advisory,
                        format!(
                            "`{r}` does not resolve against {}: a candidate claims nothing yet, so this blocks nothing; reject it, or restore {path} if the claim still holds",
                            resolver.paths_at
                        ),
                        crate::model::knowledge::reject_command(
                            &record.id,
                            None,
                            &format!("cites {path}, which is gone"),
                        ),
                    );
                }
            }
            for r in rest {
                check_ref(r, file, &resolver, changed, upstream, &mut find_ref);
            }
        } else {
            for r in &record.provenance.derived_from {
                check_ref(r, file, &resolver, changed, upstream, &mut find_ref);
            }
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
    phase.count("findings", findings.len());
    phase.end();
    Ok(CheckReport {
        records: files.len(),
        findings,
        index_rebuilt,
    })
}

/// The blocking `knowledge.secret` finding of a record carrying `shapes`.
fn secret_finding(file: &StoredFile, shapes: &[&'static str]) -> Finding {
    Finding {
        file: file.rel.clone(),
        rule: "knowledge.secret".into(),
        severity: Severity::Blocking,
        message: format!("the record carries a secret shape ({})", shapes.join(", ")),
        fix: format!(
            "edit {}: remove the secret (and rotate it: it has been written to disk)",
            file.rel
        ),
        informational: false,
    }
}

/// What the references of the judged records resolve against, gathered once.
pub(crate) struct Resolver {
    knowledge: HashSet<String>,
    commits: HashSet<String>,
    paths: HashSet<String>,
    /// How the tree the paths were looked up in is named in messages.
    paths_at: String,
    known: Known,
    shallow: bool,
}

impl Resolver {
    /// Gathers every reference of `records` once and resolves them in batches: commits
    /// against the object database, `file:`/`test:` against the tree of `paths_at`
    /// (HEAD's when `None`), the rest against the ledger and `session_records`.
    pub(crate) fn gather<'a>(
        ctx: &Ctx,
        files: &[StoredFile],
        records: impl Iterator<Item = &'a KnowledgeRecord>,
        paths_at: Option<&str>,
        session_records: &[(String, String)],
    ) -> Result<(Resolver, Option<crate::store::index::IndexRebuilt>), Error> {
        let mut commit_refs: Vec<&str> = Vec::new();
        let mut path_refs: Vec<&str> = Vec::new();
        let mut ledger_refs = LedgerRefs::default();
        for record in records {
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
        let (known, index_rebuilt) = known_references(ctx, &ledger_refs, session_records)?;
        // A rewritten commit's successor is looked up in the same batch: whether it exists
        // decides what the reference is (rewritten, or gone with its successor).
        let successors: Vec<&str> = commit_refs
            .iter()
            .filter_map(|c| known.successor(c).map(|(new, _)| new))
            .collect();
        let commits = ctx
            .repo
            .existing_commits(commit_refs.iter().copied().chain(successors))?;
        let resolver = Resolver {
            knowledge: files.iter().map(|f| f.stem.clone()).collect(),
            commits,
            paths: ctx
                .repo
                .existing_paths_at(paths_at, path_refs.iter().copied())?,
            paths_at: match paths_at {
                Some(c) => format!("the tree of {}", &c[..c.len().min(12)]),
                None => "HEAD's tree".to_owned(),
            },
            known,
            shallow: ctx.repo.is_shallow()?,
        };
        Ok((resolver, index_rebuilt))
    }

    /// Whether a knowledge record with this id is among the files gathered.
    pub(crate) fn knows_record(&self, id: &str) -> bool {
        self.knowledge.contains(id)
    }

    /// Whether a `provenance.derived_from` entry resolves: a kind check knows and a
    /// target this clone has (a placeholder, a rewritten or missing commit do not).
    pub(crate) fn resolves(&self, reference: &str) -> bool {
        let Some((kind, target)) = split_ref(reference) else {
            return false;
        };
        match kind {
            "session" => self.known.sessions.contains(target),
            "task" | "decision" => self.known.tasks.contains(target),
            "issue" => self.known.issues.contains(target),
            "file" | "test" => self.paths.contains(file_target(target)),
            "commit" => self.commits.contains(target),
            _ => false,
        }
    }
}

fn check_ref(
    reference: &str,
    file: &StoredFile,
    resolver: &Resolver,
    changed: bool,
    upstream: Option<&str>,
    find: &mut impl FnMut(&'static str, Weight, String, String),
) {
    let blocking = Weight::Blocking;
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
            match file.place {
                Place::Candidates => format!(
                    "majordomus knowledge reject {} --reason \"names a placeholder, not evidence\"",
                    file.stem
                ),
                _ => format!(
                    "edit {}: remove `{reference}` and name the task, session or commit the claim comes from",
                    file.rel
                ),
            },
        );
        return;
    }
    let dangling = |against: &str, fix: &str| {
        (
            format!("`{reference}` does not resolve against {against}"),
            fix.to_owned(),
        )
    };
    let known = &resolver.known;
    let problem = match kind {
        "session" if !known.sessions.contains(target) => Some(dangling(
            "the ledger or the session records",
            "name an episode this clone's ledger or .ai/repo/sessions/ knows",
        )),
        "task" | "decision" if !known.tasks.contains(target) => Some((
            format!(
                "`{reference}` does not resolve against the tasks of the ledger or the session records"
            ),
            match file.place {
                Place::Candidates => format!(
                    "majordomus knowledge reject {} --reason \"names a task this repository never started\"",
                    file.stem
                ),
                _ => format!(
                    "edit {}: remove `{reference}` or name a task a session record lists",
                    file.rel
                ),
            },
        )),
        "issue" if !known.issues.contains(target) => Some(dangling(
            "the issues of .ai/repo/intents/",
            "name an issue declared in .ai/repo/intents/*.yaml",
        )),
        "file" | "test" if !resolver.paths.contains(file_target(target)) => Some((
            format!(
                "`{reference}` does not resolve against {}",
                resolver.paths_at
            ),
            format!(
                "edit {}: point `{reference}` at a path that exists, or reject the record",
                file.rel
            ),
        )),
        "commit" if !resolver.commits.contains(target) => {
            commit_missing(reference, target, file, resolver, changed, upstream, find);
            None
        }
        "commit" => {
            commit_rewritten(reference, target, file, resolver, find);
            None
        }
        "session" | "task" | "decision" | "issue" | "file" | "test" => None,
        _ => Some((
            format!("`{reference}` has an unknown kind `{kind}`"),
            "use session:, task:, decision:, commit:, issue:, file: or test:".to_owned(),
        )),
    };
    if let Some((message, fix)) = problem {
        find("knowledge.ref-resolves", blocking, message, fix);
    }
}

/// A `commit:` target this object database still has but git rewrote (`post-rewrite`
/// recorded it: an amend or a rebase, before git collects the old object): the reference
/// is stale, its successor is named (SPEC §8). `false` when no rewrite is recorded.
fn commit_rewritten(
    reference: &str,
    target: &str,
    file: &StoredFile,
    resolver: &Resolver,
    find: &mut impl FnMut(&'static str, Weight, String, String),
) -> bool {
    let Some((successor, by)) = resolver.known.successor(target) else {
        return false;
    };
    if !resolver.commits.contains(successor) {
        return false;
    }
    find(
        "knowledge.commit-rewritten",
        Weight::Advisory,
        format!(
            "`{reference}` was rewritten by {by} into {successor} (the old commit is still in this clone until git collects it)"
        ),
        rewritten_fix(reference, successor, file),
    );
    true
}

/// What mends a reference to a rewritten commit whose successor this clone has.
fn rewritten_fix(reference: &str, successor: &str, file: &StoredFile) -> String {
    match file.place {
        Place::Candidates => format!(
            "majordomus knowledge promote {} writes `commit:{successor}` in place of `{reference}` when it verifies the record; or edit {} to name it",
            file.stem, file.rel
        ),
        _ => format!(
            "edit {}: replace `{reference}` with `commit:{successor}`",
            file.rel
        ),
    }
}

/// A `commit:` target this object database lacks (SPEC §5.3). History rewriting is
/// normal, not corruption: a commit git rewrote into one this clone has (`post-rewrite`
/// recorded its successor) is advisory; in a shallow clone a missing commit is "not in
/// this shallow clone" (it may lie beyond the boundary: nothing here can tell, so it is
/// never called rewritten there); a commit whose successor is gone too, or one a tracked
/// session record lists (a squash merge, a rebase that dropped it), is advisory; with
/// no excuse it blocks only in a record the change being judged adds or modifies.
fn commit_missing(
    reference: &str,
    target: &str,
    file: &StoredFile,
    resolver: &Resolver,
    changed: bool,
    upstream: Option<&str>,
    find: &mut impl FnMut(&'static str, Weight, String, String),
) {
    let known = &resolver.known;
    if let Some((successor, by)) = known.successor(target)
        && resolver.commits.contains(successor)
    {
        find(
            "knowledge.commit-rewritten",
            Weight::Advisory,
            format!("`{reference}` was rewritten by {by} into {successor}"),
            rewritten_fix(reference, successor, file),
        );
        return;
    }
    if resolver.shallow {
        let listed = known
            .recorded_commits
            .get(target)
            .map(|record| format!("; the session record {record} lists it"))
            .unwrap_or_default();
        find(
            "knowledge.commit-shallow",
            Weight::Advisory,
            format!(
                "`{reference}` is not in this shallow clone (it may lie beyond its boundary){listed}"
            ),
            "git fetch --unshallow".into(),
        );
        return;
    }
    if let Some((successor, by)) = known.successor(target) {
        find(
            "knowledge.commit-rewritten",
            Weight::Advisory,
            format!(
                "`{reference}` was rewritten by {by} into {successor}, which this clone no longer has either"
            ),
            format!("edit {}: remove `{reference}`", file.rel),
        );
        return;
    }
    if let Some(record) = known.recorded_commits.get(target) {
        find(
            "knowledge.commit-rewritten",
            Weight::Informational,
            format!(
                "`{reference}` is not in this clone; the session record {record} lists it, so history was rewritten (a squash merge or a rebase) and {record} keeps its subject"
            ),
            format!(
                "nothing needs doing; to point at the commit that replaced it, edit {} by hand",
                file.rel
            ),
        );
        return;
    }
    match (changed, upstream) {
        (false, Some(name)) => find(
            "knowledge.commit-missing",
            Weight::Advisory,
            format!(
                "`{reference}` is not in this clone, and no session record or rewrite explains it; the record is already in {name} unchanged, so this change does not add it"
            ),
            format!(
                "nothing blocks; to mend it, edit {}: remove `{reference}` or name a commit `git log --oneline` lists",
                file.rel
            ),
        ),
        _ => find(
            "knowledge.commit-missing",
            Weight::Blocking,
            format!(
                "`{reference}` is not in this clone, and this change adds or modifies the record"
            ),
            format!(
                "edit {}: remove `{reference}` or name a commit `git log --oneline` lists",
                file.rel
            ),
        ),
    }
}

/// The `session:` and `task:`/`decision:` targets the records name.
#[derive(Debug, Default)]
pub(crate) struct LedgerRefs<'a> {
    pub sessions: Vec<&'a str>,
    pub tasks: Vec<&'a str>,
}

/// Episodes, tasks and rewrites this clone knows, of those the records name: looked up in
/// the ledger index (never a scan of the whole ledger), plus the session records given (so
/// a fresh clone without a ledger still resolves them), plus the issues declared in
/// intents.
pub(crate) fn known_references(
    ctx: &Ctx,
    refs: &LedgerRefs<'_>,
    session_records: &[(String, String)],
) -> Result<(Known, Option<crate::store::index::IndexRebuilt>), Error> {
    let index = ctx.index()?;
    let mut known = Known {
        sessions: index.opened_episodes(refs.sessions.iter().copied())?,
        tasks: index.started_tasks(refs.tasks.iter().copied())?,
        ..Known::default()
    };
    for line in index.lines(&crate::store::index::LineQuery {
        event: Some(Event::CommitRewritten),
        ..Default::default()
    })? {
        if let Some(rewritten) = line.payload::<CommitRewritten>() {
            for pair in rewritten.pairs {
                known
                    .rewrites
                    .insert(pair.old, (pair.new, rewritten.by.clone()));
            }
        }
    }
    for (path, text) in session_records {
        let name = path.rsplit('/').next().unwrap_or(path);
        known
            .sessions
            .insert(name.trim_end_matches(".md").to_owned());
        if let Ok((record, _)) = frontmatter::parse::<crate::model::compose::SessionRecord>(text) {
            known.tasks.extend(record.tasks);
            for commit in record.commits {
                known
                    .recorded_commits
                    .entry(commit)
                    .or_insert_with(|| path.clone());
            }
        }
    }
    // What this ledger and the session records do not know may be another writer's
    // (SPEC §12): looked up in the journals this clone has, only for the ids still missing.
    let sessions: Vec<&str> = refs
        .sessions
        .iter()
        .copied()
        .filter(|s| !known.sessions.contains(*s))
        .collect();
    let tasks: Vec<&str> = refs
        .tasks
        .iter()
        .copied()
        .filter(|t| !known.tasks.contains(*t))
        .collect();
    if !sessions.is_empty() || !tasks.is_empty() {
        for journal in crate::journal::journals(ctx)?.journals {
            let theirs = journal.index(ctx)?;
            known
                .sessions
                .extend(theirs.opened_episodes(sessions.iter().copied())?);
            known
                .tasks
                .extend(theirs.started_tasks(tasks.iter().copied())?);
        }
    }
    let intents = ctx.layout.repo_dir().join("intents");
    if let Ok(entries) = std::fs::read_dir(&intents) {
        for entry in entries.filter_map(Result::ok) {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            if let Ok(value) = yaml_serde::from_str::<yaml_serde::Value>(&text)
                && let Some(list) = value.get("issues").and_then(|v| v.as_sequence())
            {
                known.issues.extend(
                    list.iter()
                        .filter_map(|i| i.get("id").and_then(|v| v.as_str()).map(str::to_owned)),
                );
            }
        }
    }
    Ok((known, index.rebuilt().cloned()))
}
