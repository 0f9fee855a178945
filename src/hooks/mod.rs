//! Hooks, the entry points (SPEC §8): what each `majordomus hook <name>` does, and
//! (in `install`) putting the git hook scripts in place. Hooks only ever touch `.ai/`.

mod failures;
mod install;
mod push;
mod reach;
mod rewrite;

pub use failures::{AcknowledgeRequest, Acknowledged, acknowledge};
pub use install::{
    BLOCK_END, BLOCK_START, BLOCKS, CHAINED_SUFFIX, DIRECT, HookAction, HookChange, HookManager,
    HooksReport, RETIRED, SCRIPTS, direct_script, install, uninstall,
};
pub use push::{PUSH_SECRET, PushScan, SCANNED_PREFIX};
pub use reach::{HookReach, HooksState, Reach, reach};
pub use rewrite::{PostRewriteRequest, RewriteOutcome, post_rewrite};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{CheckReport, DeriveReport, DeriveRequest, Severity};
use crate::model::Verdict;
use crate::model::event::{CommitRecorded, ProviderEventFailed};
use crate::store::ledger::Durability;

/// `hooks.install`, `hooks.uninstall` and `hook.post-commit` take nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HooksRequest {}

/// `hook.pre-push`: what git passes the hook.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrePushRequest {
    /// The remote's name and URL (git's two arguments).
    #[serde(default)]
    pub args: Vec<String>,
    /// The refs being pushed (git's stdin, one per line).
    #[serde(default)]
    pub refs: Vec<crate::knowledge::PushedRef>,
}

/// A provider hook: the agent client's name and the JSON payload it wrote on stdin.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderRequest {
    /// The agent client (e.g. `claude-code`, `gemini-cli`).
    pub provider: String,
    /// The payload the client wrote on stdin (may be empty).
    #[serde(default)]
    pub payload: String,
    /// The payload's bytes were not all UTF-8: each U+FFFD in `payload` may stand for bytes
    /// that were not, so a field holding one is refused, never read (set by the CLI, which
    /// reads the bytes; never part of a request).
    #[serde(skip)]
    pub not_utf8: bool,
}

/// Why a hook did nothing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SteppedAside {
    pub reason: String,
}

/// A hook steps aside in an uninitialised repository and while git is in the middle of
/// a rebase, merge, cherry-pick, revert, am or bisect (post-commit records a cherry-pick's
/// and a revert's commits: see [`steps_aside`]).
pub fn step_aside(ctx: &Ctx) -> Option<SteppedAside> {
    steps_aside(ctx, false)
}

/// Like [`step_aside`], but a cherry-pick or a revert does not make the hook step aside
/// when `picks_count` (post-commit: git runs it for each commit they make while their
/// state is still on disk, and each is a new commit of the branch; a rebase's picks are
/// rewrites, which post-rewrite records).
fn steps_aside(ctx: &Ctx, picks_count: bool) -> Option<SteppedAside> {
    if !ctx.layout.is_initialised() {
        return Some(SteppedAside {
            reason: "repository not initialised".into(),
        });
    }
    ctx.repo
        .operation_in_progress()
        .filter(|op| !(picks_count && op.picking))
        .map(|op| SteppedAside {
            reason: format!("git is in the middle of: {}", op.name),
        })
}

/// What a git hook did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "did", rename_all = "kebab-case")]
pub enum GitHookOutcome {
    SteppedAside(SteppedAside),
    CommitRecorded {
        sha: String,
        subject: String,
        session: String,
    },
    NoOpenEpisode,
    Checked {
        #[serde(flatten)]
        report: CheckReport,
        /// What the secret scan of the pushed commits read.
        scanned: PushScan,
        /// Advisory findings about records this push does not carry, left out (`knowledge
        /// check` and `doctor` still list them).
        #[serde(default, skip_serializing_if = "is_zero")]
        not_carried: usize,
        /// The journal pushed beside this push, when sharing is on and the push goes to
        /// the journal's remote (SPEC §12).
        #[serde(skip_serializing_if = "Option::is_none")]
        journal: Option<Box<crate::journal::JournalPush>>,
    },
}

impl GitHookOutcome {
    /// A check with blocking findings refuses the push; nothing else a git hook does
    /// refuses anything.
    pub fn verdict(&self) -> Verdict {
        match self {
            GitHookOutcome::Checked { report, .. } => report.verdict(),
            _ => Verdict::Pass,
        }
    }
}

/// `hook post-commit`: `commit.recorded` for the open episode. Kept lean: it runs on
/// every commit (no policy parse, no ledger read beyond its tail). The line is as durable
/// as the commit it records: synced only when git syncs loose objects (`core.fsync`),
/// which it does not by default (docs/PERFORMANCE.md).
pub fn post_commit(ctx: &Ctx, _request: HooksRequest) -> Result<GitHookOutcome, Error> {
    if let Some(aside) = steps_aside(ctx, true) {
        return Ok(GitHookOutcome::SteppedAside(aside));
    }
    let Some(episode) = ctx.episode()? else {
        return Ok(GitHookOutcome::NoOpenEpisode);
    };
    let Some((sha, subject)) = ctx.repo.head_subject()? else {
        return Ok(GitHookOutcome::NoOpenEpisode);
    };
    let subject = crate::model::redact::redact(&subject).text;
    let durability = if ctx.repo.syncs_loose_objects() {
        Durability::Synced
    } else {
        Durability::Written
    };
    ctx.append_with(
        durability,
        Some(&episode.id),
        None,
        &CommitRecorded {
            sha: sha.clone(),
            subject: subject.clone(),
        },
    )?;
    Ok(GitHookOutcome::CommitRecorded {
        sha,
        subject,
        session: episode.id,
    })
}

/// `hook pre-push`: `knowledge check` of what is pushed, and the secret scan of every
/// commit it sends; a blocking finding refuses the push.
pub fn pre_push(ctx: &Ctx, request: PrePushRequest) -> Result<GitHookOutcome, Error> {
    if let Some(aside) = step_aside(ctx) {
        return Ok(GitHookOutcome::SteppedAside(aside));
    }
    let push::Scanned {
        scan: scanned,
        secrets,
        carried,
    } = push::scan(ctx, &request.refs)?;
    let mut report = crate::knowledge::check_pushed(
        ctx,
        &request.refs,
        request.args.first().map(String::as_str),
    )?;
    // A record the scan found a secret in is said once, with the fix that takes it out of
    // history ("edit the file" would push it inside history).
    report
        .findings
        .retain(|f| f.rule != "knowledge.secret" || !secrets.iter().any(|s| s.file == f.file));
    // An advisory about a record this push does not carry was said by the push that
    // carried it (and `knowledge check` and doctor say it still): each push says only its
    // own. Blocking findings stay, whatever they are about.
    let before = report.findings.len();
    report.findings.retain(|f| {
        f.severity == Severity::Blocking
            || !f.file.starts_with(SCANNED_PREFIX)
            || carried.contains(&f.file)
    });
    let not_carried = before - report.findings.len();
    report.findings.extend(secrets);
    report.findings.sort();
    report.findings.extend(scope_notes(ctx, &request.refs)?);
    // The journal goes only beside a push the user's own checks let through, and only to
    // the journal's remote (git's first argument); it never refuses the push.
    let journal = if report.verdict() == crate::model::Verdict::Refused {
        None
    } else {
        crate::journal::at_pre_push(ctx, request.args.first().map(String::as_str)).map(Box::new)
    };
    Ok(GitHookOutcome::Checked {
        report,
        scanned,
        not_carried,
        journal,
    })
}

/// SPEC §6 scope: when the push carries HEAD and the open episode's active task has a
/// scope, each file its commits changed outside that scope is said (advisory: it never
/// refuses a push, work outside a scope is allowed and only made visible).
fn scope_notes(
    ctx: &Ctx,
    refs: &[crate::knowledge::PushedRef],
) -> Result<Vec<crate::knowledge::Finding>, Error> {
    let head = ctx.repo.head()?.id;
    if !refs
        .iter()
        .any(|r| head.as_deref() == Some(r.local_sha.as_str()))
    {
        return Ok(Vec::new());
    }
    let Some(crate::task::OutsideScope { task, scope, files }) =
        crate::task::pushed_outside_scope(ctx)?
    else {
        return Ok(Vec::new());
    };
    Ok(files
        .into_iter()
        .map(|path| crate::knowledge::Finding {
            informational: false,
            // One task at a time, and a task needs a description: the command finishes
            // this one and starts the file's own (SPEC §0: a fix runs as printed).
            fix: scope_fix(&task, &path),
            file: path,
            rule: "task.scope".to_owned(),
            severity: crate::knowledge::Severity::Advisory,
            message: format!(
                "changed by task {task} outside its scope ({}); pushed anyway (if it belongs to the task, nothing needs doing)",
                scope.join(", ")
            ),
        })
        .collect())
}

/// The command that moves `path` to a task of its own: `task start` needs a description
/// and no active task, so the active one is finished first.
fn scope_fix(task: &str, path: &str) -> String {
    use crate::model::shell::quote;
    format!(
        "majordomus task finish && majordomus task start {} --scope {}",
        quote(&format!("Work on {path} (outside the scope of {task})")),
        quote(path)
    )
}

/// A provider hook (agent client session start, session end, pre-compact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderHook {
    SessionStart,
    SessionEnd,
    Compact,
    /// The user's prompt submitted: prompt-time recall.
    Prompt,
    /// Before (or, where the client cannot add context before, after) a file-editing tool:
    /// edit-time recall and `agent.touched`.
    Edit,
}

impl ProviderHook {
    pub fn name(self) -> &'static str {
        match self {
            ProviderHook::SessionStart => "session-start",
            ProviderHook::SessionEnd => "session-end",
            ProviderHook::Compact => "compact",
            ProviderHook::Prompt => "prompt",
            ProviderHook::Edit => "edit",
        }
    }
}

/// A provider hook's run: what it did, and what of its payload it could not read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProviderRun {
    #[serde(flatten)]
    pub outcome: ProviderOutcome,
    /// The payload, or fields of it, that could not be read (not JSON, a field of the wrong
    /// type, a field that is not UTF-8): recorded as `provider.event.failed` and said on
    /// stderr; the hook still did its job without them (SPEC §8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_failed: Option<String>,
    /// The hook that ran.
    #[serde(skip)]
    pub hook: ProviderHook,
}

/// What a provider hook did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "did", rename_all = "kebab-case")]
pub enum ProviderOutcome {
    SteppedAside(SteppedAside),
    Started {
        episode: String,
        already_open: bool,
        /// The briefing, printed for the agent client to add to its context.
        briefing: String,
    },
    /// Session end: the automatic checkpoint, the close (which derives), the handover.
    Closed {
        episode: String,
        record: String,
        /// The automatic checkpoint's ledger `seq`.
        checkpoint: Option<u64>,
        /// The derived handover, relative to the root.
        handover: Option<String>,
        /// Why the handover could not be derived (reported, never retried).
        #[serde(skip_serializing_if = "Option::is_none")]
        handover_error: Option<String>,
        /// The session did nothing a record would hold (no commit, no authored line: the
        /// automatic checkpoint does not count), so no record and no handover were written
        /// (SPEC §3.2, §8).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        empty: bool,
    },
    /// Compaction: a checkpoint unless `session.checkpoint_on_compact: false`, derivation
    /// unless `session.knowledge_on_compact: false`, independently.
    Compacted {
        checkpoint: Option<u64>,
        derived: Option<DeriveReport>,
        /// Nothing changed since the last compact of this episode (no ledger line, the
        /// same HEAD, dirty paths and task): nothing was written.
        unchanged: bool,
    },
    NoOpenEpisode,
    /// Prompt-time or edit-time recall: what was put before the model, if anything.
    Recalled(crate::moment::Recalled),
    /// The hook failed; recorded as `provider.event.failed`. Never blocks the provider.
    Failed {
        hook: String,
        error: String,
    },
}

/// What the last `hook compact` saw ([`crate::store::Layout::compact_mark`]): the episode,
/// the ledger's last `seq` after it wrote, the work state its checkpoint describes, and the
/// policy it ran under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct CompactMark {
    episode: String,
    seq: u64,
    work: String,
    checkpoint: bool,
    knowledge: bool,
}

impl CompactMark {
    /// The mark, when there is one that reads (a missing or unreadable one is no mark: the
    /// hook then does its work and writes a new one).
    fn read(ctx: &Ctx) -> Option<CompactMark> {
        let bytes = std::fs::read(ctx.layout.compact_mark()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn write(&self, ctx: &Ctx) -> Result<(), Error> {
        let mut bytes = serde_json::to_vec(self).expect("a mark serialises");
        bytes.push(b'\n');
        crate::store::write_atomic_derived(&ctx.layout.compact_mark(), &bytes)?;
        Ok(())
    }
}

/// The fields majordomus reads from a provider's JSON payload (all optional).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProviderPayload {
    pub session_id: Option<String>,
    pub event: Option<String>,
    /// The directory the agent works in: its repository is the one the hook records into
    /// (a linked worktree's, whatever the client exports as its project directory).
    pub cwd: Option<String>,
    /// The whole payload (the moments of work read the prompt, the tool and its input
    /// from it; the prompt is never stored).
    #[serde(skip)]
    pub json: serde_json::Value,
}

/// The payload fields majordomus reads that must be JSON strings (a `null` is an absent
/// field).
const STRING_FIELDS: &[&str] = &[
    "session_id",
    "sessionId",
    "conversation_id",
    "hook_event_name",
    "hookEventName",
    "cwd",
    "prompt",
    "tool_name",
    "file_path",
];

/// The fields of an editing tool's `tool_input` majordomus reads, each a string.
const TOOL_INPUT_STRINGS: &[&str] = &[
    "file_path",
    "notebook_path",
    "absolute_path",
    "filePath",
    "path",
    "command",
];

/// A JSON value's type, as a problem names it.
fn type_name(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Takes out of `value` each field majordomus reads that has the wrong JSON type, and
/// (when the payload's bytes were not all UTF-8) each string field holding U+FFFD, which
/// may stand for bytes that were not UTF-8: a path is never recorded mangled. Returns what
/// was taken out and why, one problem a field.
fn refuse_unreadable_fields(value: &mut serde_json::Value, not_utf8: bool) -> Vec<String> {
    use serde_json::Value;
    let mut problems = Vec::new();
    let Value::Object(map) = value else {
        return problems;
    };
    let mut wrong = |name: String, found: &Value, want: &str| {
        problems.push(format!(
            "payload field `{name}` is {}, not {want}: ignored",
            type_name(found)
        ));
    };
    for key in STRING_FIELDS {
        if let Some(found) = map.get(*key)
            && !matches!(found, Value::String(_) | Value::Null)
        {
            wrong((*key).to_owned(), found, "a string");
            map.remove(*key);
        }
    }
    if let Some(found) = map.get("workspace_roots")
        && !matches!(found, Value::Null)
        && !found
            .as_array()
            .is_some_and(|roots| roots.iter().all(Value::is_string))
    {
        wrong("workspace_roots".to_owned(), found, "an array of strings");
        map.remove("workspace_roots");
    }
    match map.get_mut("tool_input") {
        Some(Value::Object(input)) => {
            for key in TOOL_INPUT_STRINGS {
                if let Some(found) = input.get(*key)
                    && !matches!(found, Value::String(_) | Value::Null)
                {
                    wrong(format!("tool_input.{key}"), found, "a string");
                    input.remove(*key);
                }
            }
        }
        Some(Value::String(_) | Value::Null) | None => {}
        Some(found) => {
            let found = found.clone();
            wrong("tool_input".to_owned(), &found, "an object");
            map.remove("tool_input");
        }
    }
    if not_utf8 {
        let mut mangled = Vec::new();
        for (key, field) in map.iter() {
            mangled_strings(key, field, &mut mangled);
        }
        for path in mangled {
            problems.push(format!(
                "payload field `{path}` is not UTF-8: ignored (majordomus reads and records paths and text as UTF-8)"
            ));
            remove_path(value, &path);
        }
    }
    problems
}

/// The dotted paths (`tool_input.file_path`, `workspace_roots.0`) of the strings under
/// `value` that hold U+FFFD, or whose key does.
fn mangled_strings(path: &str, value: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    if path.contains('\u{fffd}') {
        out.push(path.to_owned());
        return;
    }
    match value {
        Value::String(s) if s.contains('\u{fffd}') => out.push(path.to_owned()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                mangled_strings(&format!("{path}.{i}"), item, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                mangled_strings(&format!("{path}.{key}"), item, out);
            }
        }
        _ => {}
    }
}

/// Takes the field at a dotted `path` out of `value` (an array element becomes `null`, so
/// the others keep their places).
fn remove_path(value: &mut serde_json::Value, path: &str) {
    use serde_json::Value;
    let mut parts: Vec<&str> = path.split('.').collect();
    let Some(last) = parts.pop() else {
        return;
    };
    let mut at = value;
    for part in parts {
        let next = match at {
            Value::Object(map) => map.get_mut(part),
            Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => return,
        }
    }
    match at {
        Value::Object(map) => {
            map.remove(last);
        }
        Value::Array(items) => {
            if let Some(item) = last.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                *item = Value::Null;
            }
        }
        _ => {}
    }
}

impl ProviderPayload {
    /// Reads what clients send: Claude Code, Gemini CLI and Codex (`session_id`,
    /// `hook_event_name`, `cwd`), Cursor (`conversation_id`, `hook_event_name`,
    /// `workspace_roots`: no `cwd`, so the first workspace root is the directory) and any
    /// other JSON object. Empty input is fine. A field it reads that has the wrong type, or
    /// (`not_utf8`: the bytes were not all UTF-8) a string field that was not UTF-8, is
    /// left out, and said in the problems returned beside the payload.
    pub fn parse(input: &str, not_utf8: bool) -> Result<(ProviderPayload, Vec<String>), String> {
        if input.trim().is_empty() {
            return Ok((ProviderPayload::default(), Vec::new()));
        }
        let mut value: serde_json::Value =
            serde_json::from_str(input).map_err(|e| format!("stdin is not JSON: {e}"))?;
        let problems = refuse_unreadable_fields(&mut value, not_utf8);
        let field = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        let payload = ProviderPayload {
            session_id: field("session_id")
                .or_else(|| field("sessionId"))
                .or_else(|| field("conversation_id")),
            event: field("hook_event_name").or_else(|| field("hookEventName")),
            cwd: field("cwd").filter(|c| !c.is_empty()).or_else(|| {
                value
                    .get("workspace_roots")
                    .and_then(|roots| roots.get(0))
                    .and_then(|root| root.as_str())
                    .filter(|root| !root.is_empty())
                    .map(str::to_owned)
            }),
            json: value,
        };
        Ok((payload, problems))
    }
}

/// The directory a provider payload names (`cwd`), if it names one: the hook works in
/// that repository (SPEC §8).
pub fn payload_cwd(payload: &str, not_utf8: bool) -> Option<std::path::PathBuf> {
    ProviderPayload::parse(payload, not_utf8)
        .ok()
        .and_then(|(p, _)| p.cwd)
        .map(std::path::PathBuf::from)
}

/// `hook.session-start`: open an episode, print the briefing.
pub fn session_start(ctx: &Ctx, request: ProviderRequest) -> Result<ProviderRun, Error> {
    Ok(provider(ctx, ProviderHook::SessionStart, &request))
}

/// `hook.session-end`: a checkpoint, then close the episode (record, candidates) and derive
/// its handover.
pub fn session_end(ctx: &Ctx, request: ProviderRequest) -> Result<ProviderRun, Error> {
    Ok(provider(ctx, ProviderHook::SessionEnd, &request))
}

/// `hook.prompt`: prompt-time recall (SPEC §8): the records the prompt's words and the work
/// at hand rank above the floor, at most five, in the client's context field.
pub fn prompt(ctx: &Ctx, request: ProviderRequest) -> Result<ProviderRun, Error> {
    Ok(provider(ctx, ProviderHook::Prompt, &request))
}

/// `hook.edit`: edit-time recall and capture (SPEC §8): the files an editing tool is about
/// recorded as `agent.touched`, and what is verified or decided about them, once a session.
pub fn edit(ctx: &Ctx, request: ProviderRequest) -> Result<ProviderRun, Error> {
    Ok(provider(ctx, ProviderHook::Edit, &request))
}

/// `hook.compact`: before the provider compacts its conversation, a checkpoint
/// (`session.checkpoint_on_compact`) and the knowledge derived so far
/// (`session.knowledge_on_compact`), each independently.
pub fn compact(ctx: &Ctx, request: ProviderRequest) -> Result<ProviderRun, Error> {
    Ok(provider(ctx, ProviderHook::Compact, &request))
}

/// Runs a provider hook. Never fails: a failure is appended to the ledger as
/// `provider.event.failed` (when the ledger is writable) and returned as `Failed`.
fn provider(ctx: &Ctx, hook: ProviderHook, request: &ProviderRequest) -> ProviderRun {
    let provider = request.provider.as_str();
    // A payload that cannot be read is ignored and recorded, and so is a field of it that
    // has the wrong type or is not UTF-8; the hook still does its job (session-start still
    // opens the episode).
    let (payload, payload_error) = match ProviderPayload::parse(&request.payload, request.not_utf8)
    {
        Ok((payload, problems)) if problems.is_empty() => (payload, None),
        Ok((payload, problems)) => (payload, Some(problems.join("; "))),
        Err(e) => (
            ProviderPayload::default(),
            Some(format!("payload ignored: {e}")),
        ),
    };
    let outcome = run_recorded(ctx, hook, provider, &payload, payload_error.as_deref());
    ProviderRun {
        outcome,
        payload_failed: payload_error,
        hook,
    }
}

/// [`provider`] once the payload is read: `payload_error` says what of it could not be.
fn run_recorded(
    ctx: &Ctx,
    hook: ProviderHook,
    provider: &str,
    payload: &ProviderPayload,
    payload_error: Option<&str>,
) -> ProviderOutcome {
    // The payload's `cwd` names the repository the agent works in.
    let phase = crate::timing::Phase::start("hook.cwd");
    let switched = payload
        .cwd
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|cwd| Ctx::open(cwd, ctx.clock).ok())
        .filter(|other| other.layout.root() != ctx.layout.root());
    phase.end();
    let ctx = switched.as_ref().unwrap_or(ctx);
    if let Some(aside) = step_aside(ctx) {
        return ProviderOutcome::SteppedAside(aside);
    }
    let clean_payload = payload_error.is_none();
    if let Some(error) = payload_error {
        record_failure(ctx, hook, provider, error);
    }
    match run_provider(ctx, hook, provider, payload) {
        Ok(outcome) => {
            // A run that read its payload and did its whole job clears this hook's earlier
            // failures: doctor's warning has done its work (docs/HOOKS.md).
            let whole = !matches!(
                outcome,
                ProviderOutcome::Closed {
                    handover_error: Some(_),
                    ..
                } | ProviderOutcome::SteppedAside(_)
            );
            if clean_payload && whole {
                failures::clear_after_success(ctx, hook, provider);
            }
            outcome
        }
        Err(error) => {
            let error = record_failure(ctx, hook, provider, &error.to_string());
            ProviderOutcome::Failed {
                hook: hook.name().to_owned(),
                error,
            }
        }
    }
}

/// Appends `provider.event.failed` (best effort: the ledger may be what failed) and
/// returns the error as recorded.
fn record_failure(ctx: &Ctx, hook: ProviderHook, provider: &str, error: &str) -> String {
    let error = crate::model::redact::redact(error).text;
    let session = ctx.episode().ok().flatten().map(|e| e.id);
    let _ = ctx.append(
        session.as_deref(),
        None,
        &ProviderEventFailed {
            hook: hook.name().to_owned(),
            provider: provider.to_owned(),
            error: error.clone(),
        },
    );
    error
}

fn run_provider(
    ctx: &Ctx,
    hook: ProviderHook,
    provider: &str,
    payload: &ProviderPayload,
) -> Result<ProviderOutcome, Error> {
    let moment = crate::moment::MomentPayload {
        provider,
        event: payload.event.as_deref(),
        json: &payload.json,
    };
    match hook {
        ProviderHook::Prompt => Ok(ProviderOutcome::Recalled(crate::moment::prompt(
            ctx, &moment,
        )?)),
        ProviderHook::Edit => Ok(ProviderOutcome::Recalled(crate::moment::edit(
            ctx, &moment,
        )?)),
        ProviderHook::SessionStart => {
            // The client's conversation: a resumed one (`claude --continue`, Codex's and
            // Gemini CLI's resume, or the same session id opening again) keeps what it was
            // shown in its earlier episodes (SPEC §8). A compaction or a clear leaves the
            // conversation without it: that one is briefed again.
            let conversation = payload
                .session_id
                .as_deref()
                .filter(|id| !id.trim().is_empty())
                .map(|id| crate::model::event::conversation_key(provider, id));
            let source = payload.json.get("source").and_then(|s| s.as_str());
            let held = match (&conversation, source) {
                (Some(key), source)
                    if !matches!(source, Some("compact" | "clear"))
                        && crate::model::moment::resume_keeps_turns(provider) =>
                {
                    let _held = crate::timing::Phase::start("hook.held");
                    held_by(ctx, key)?
                }
                _ => Vec::new(),
            };
            let session = crate::timing::Phase::start("hook.session");
            let started = crate::session::start(
                ctx,
                crate::session::StartRequest {
                    provider: Some(provider.to_owned()),
                    replace: false,
                    conversation: conversation.clone(),
                },
            )?;
            session.end();
            let resumed = crate::timing::Phase::start("hook.resumed");
            // What the earlier episodes showed, on record in this one (the episode that was
            // open already has it).
            let carried: Vec<crate::model::event::ShownItem> = held
                .iter()
                .filter(|(episode, _)| *episode != started.episode.id)
                .map(|(_, item)| item.clone())
                .collect();
            crate::moment::log_shown(
                ctx,
                &started.episode.id,
                crate::model::event::ShownWhere::Resumed,
                carried,
                Vec::new(),
                None,
            )?;
            resumed.end();
            // Composed once: the snapshot's briefing, unless the episode was already open
            // or the conversation holds some of it.
            let (briefing, shown) = if started.already_open || !held.is_empty() {
                let b = crate::briefing::briefing(
                    ctx,
                    crate::briefing::BriefingRequest {
                        held: held.into_iter().map(|(_, item)| item.id).collect(),
                    },
                )?;
                let shown = b.shown();
                (b.text, shown)
            } else {
                (started.briefing, started.shown)
            };
            // What the client hands the model, on record (SPEC §8).
            let _logged = crate::timing::Phase::start("hook.logged");
            crate::moment::log_shown(
                ctx,
                &started.episode.id,
                crate::model::event::ShownWhere::Briefing,
                shown,
                Vec::new(),
                None,
            )?;
            Ok(ProviderOutcome::Started {
                episode: started.episode.id,
                already_open: started.already_open,
                briefing,
            })
        }
        ProviderHook::SessionEnd => {
            if ctx.episode()?.is_none() {
                return Ok(ProviderOutcome::NoOpenEpisode);
            }
            // How the work looked, then the close (which derives), then the handover.
            let checkpoint = crate::handover::end_checkpoint(ctx, "session end")?;
            let closed = crate::session::close(ctx, crate::session::CloseRequest::default())?;
            // A session that did nothing closed empty: no record, and no handover (the next
            // briefing's "Last handover" stays the last one that handed something over).
            let (handover, handover_error) = if closed.empty {
                (None, None)
            } else {
                match crate::handover::derive(
                    ctx,
                    crate::handover::DeriveRequest {
                        episode: Some(closed.episode.clone()),
                    },
                ) {
                    Ok(h) => (Some(h.path), None),
                    Err(e) => (None, Some(e.to_string())),
                }
            };
            Ok(ProviderOutcome::Closed {
                episode: closed.episode,
                record: closed.path,
                checkpoint,
                handover,
                handover_error,
                empty: closed.empty,
            })
        }
        ProviderHook::Compact => {
            let policy = ctx.policy()?;
            let Some(open) = ctx.episode()? else {
                return Ok(ProviderOutcome::NoOpenEpisode);
            };
            // Some clients compact (Gemini CLI runs PreCompress before every turn): when
            // nothing changed since the last compact, its checkpoint and derivation would
            // say the same again, so nothing is written.
            let state = crate::handover::work_state(ctx, &open.id)?;
            let mark = |seq| CompactMark {
                episode: open.id.clone(),
                seq,
                work: state.text.clone(),
                checkpoint: policy.session.checkpoint_on_compact,
                knowledge: policy.session.knowledge_on_compact,
            };
            let ledger = ctx.ledger();
            if CompactMark::read(ctx).as_ref() == Some(&mark(ledger.last_seq()?.0)) {
                return Ok(ProviderOutcome::Compacted {
                    checkpoint: None,
                    derived: None,
                    unchanged: true,
                });
            }
            let checkpoint = if policy.session.checkpoint_on_compact {
                Some(
                    ctx.append(
                        Some(&open.id),
                        state.task.as_deref(),
                        &crate::model::event::CheckpointRecorded {
                            text: crate::model::redact::redact(&format!("compact: {}", state.text))
                                .text,
                            files: Vec::new(),
                            automatic: true,
                        },
                    )?
                    .seq,
                )
            } else {
                None
            };
            let derived = if policy.session.knowledge_on_compact {
                Some(crate::knowledge::derive(
                    ctx,
                    DeriveRequest {
                        episode: Some(open.id.clone()),
                        dry_run: false,
                    },
                )?)
            } else {
                None
            };
            mark(ledger.last_seq()?.0).write(ctx)?;
            Ok(ProviderOutcome::Compacted {
                checkpoint,
                derived,
                unchanged: false,
            })
        }
    }
}

/// What the conversation `key` was shown in its episodes so far (the open one included),
/// each record once, with the episode that showed it first.
fn held_by(ctx: &Ctx, key: &str) -> Result<Vec<(String, crate::model::event::ShownItem)>, Error> {
    let index = ctx.index()?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for episode in index.conversation_episodes(key)? {
        for item in index.shown_in(&episode)? {
            if seen.insert(item.id.clone()) {
                out.push((episode.clone(), item));
            }
        }
    }
    Ok(out)
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}
