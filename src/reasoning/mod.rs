//! Reasoning (SPEC §7): the one writer of typed records, the computed plan, advisors as
//! optional state, consulting them as child processes (`consult`), and the reads (status,
//! explain, advisors, check). Records live under `.ai/local/state/reasoning/<task>/`.

pub mod check;
mod consult;

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use check::{CheckRequest, ReasoningCheck, check};
pub use consult::{ConsultOutcome, ConsultRequest, consult};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::event::ReasoningRecorded;
use crate::model::reasoning::availability::{
    self, Conditions, Disabled, Presence, parse_cooldown_override,
};
use crate::model::reasoning::catalogue::SHIPPED_CATALOGUE;
use crate::model::reasoning::plan::{self, ModeInputs, ResolvedMode};
use crate::model::reasoning::record::{Confidence, Materiality, RecordKind};
use crate::model::reasoning::validate::{self, Redaction, WriteContext};
use crate::model::reasoning::{
    Advisor, Assessment, Catalogue, PlanDecision, Provenance, ReasoningStatus, Record, Snapshot,
    StoredRecord,
};
use crate::store::WriteOutcome;

/// Where the records of the current work go: the active task, else the open episode.
#[derive(Debug, Clone)]
pub(crate) struct Work {
    /// `<task>` or `_episode-<id>`.
    pub folder: String,
    pub episode: Option<String>,
}

/// The folder records of this work go in (SPEC §7: the active task, `--task`, or
/// `_episode-<id>`).
pub(crate) fn work(ctx: &Ctx, task: Option<&str>) -> Result<Work, Error> {
    let episode = ctx.episode()?;
    if let Some(task) = task {
        known_work(ctx, task)?;
        return Ok(Work {
            folder: task.to_owned(),
            episode: episode.map(|e| e.id),
        });
    }
    let episode = episode.ok_or(Refusal::NoOpenEpisode)?;
    let active = crate::store::tasks::active(&ctx.layout, &episode.id)?;
    Ok(Work {
        folder: crate::store::reasoning::folder(
            active.as_ref().map(|t| t.id.as_str()),
            &episode.id,
        ),
        episode: Some(episode.id),
    })
}

/// The work an assessment's plan and consultations go to: `--task`, else the active task
/// or open episode when the assessment is there, else the folder of the task or episode
/// that recorded it (a session that ended, a task finished): an assessment is found
/// wherever this checkout recorded it.
pub(crate) fn work_of(ctx: &Ctx, task: Option<&str>, assessment: &str) -> Result<Work, Error> {
    let here = work(ctx, task);
    if task.is_some() {
        return here;
    }
    let found_here = match &here {
        Ok(w) => crate::store::reasoning::read_folder(&ctx.layout, &w.folder)?
            .iter()
            .any(|r| r.id == assessment),
        Err(Error::Refused(Refusal::NoOpenEpisode)) => false,
        Err(_) => return here,
    };
    if found_here {
        return here;
    }
    let all = crate::store::reasoning::read_all(&ctx.layout)?;
    match all.iter().find(|r| r.id == assessment) {
        Some(r) => Ok(Work {
            folder: r.task.clone(),
            episode: ctx.episode()?.map(|e| e.id),
        }),
        None => here,
    }
}

/// Refuses a `--task` that is neither a task id nor `_episode-<episode id>` (`id.shape`),
/// and one this checkout never started: a task no `task.started` line of this ledger
/// names (`task.known`), an episode no `session.opened` line names (`knowledge.episode`).
/// `_episode-<id>` of a closed episode is work of this checkout like any other.
fn known_work(ctx: &Ctx, task: &str) -> Result<(), Error> {
    use crate::model::ids::IdKind;
    let index = ctx.index()?;
    match task.strip_prefix("_episode-") {
        Some(episode) => {
            Refusal::check_id(IdKind::Episode, episode)?;
            if index.opened_episodes([episode])?.is_empty() {
                return Err(Refusal::UnknownEpisode {
                    id: episode.to_owned(),
                }
                .into());
            }
        }
        None => {
            Refusal::check_id(IdKind::Task, task)?;
            if index.task(task)?.is_none() {
                return Err(Refusal::UnknownTask {
                    id: task.to_owned(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// The work to read: `--task`, else the active task or open episode, else (nothing open)
/// every record of this checkout.
fn read_scope(ctx: &Ctx, task: Option<&str>) -> Result<(Option<String>, Vec<StoredRecord>), Error> {
    match work(ctx, task) {
        Ok(w) => {
            let records = crate::store::reasoning::read_folder(&ctx.layout, &w.folder)?;
            Ok((Some(w.folder), records))
        }
        Err(Error::Refused(Refusal::NoOpenEpisode)) => {
            Ok((None, crate::store::reasoning::read_all(&ctx.layout)?))
        }
        Err(e) => Err(e),
    }
}

/// The catalogue: `.ai/repo/advisors.yaml` when the repository has one, else the
/// shipped `share/advisors.yaml`; with where it came from.
pub(crate) fn catalogue(ctx: &Ctx) -> Result<(Catalogue, String), Error> {
    let path = ctx.layout.repo_dir().join("advisors.yaml");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let file = ctx.layout.display(&path);
            let parsed = Catalogue::parse(&text, &file).map_err(|e| Refusal::Reasoning {
                rule: e.rule().unwrap_or("advisors.readable"),
                message: e.to_string(),
                fix: e.fix(),
            })?;
            Ok((parsed, file))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((
            Catalogue::parse(SHIPPED_CATALOGUE, "share/advisors.yaml")
                .expect("the shipped catalogue parses"),
            "share/advisors.yaml (shipped)".to_owned(),
        )),
        Err(e) => Err(crate::store::StoreError::io(&path, e).into()),
    }
}

/// The advisors a plan chooses from now: the catalogue in its order, then the live mesh
/// peers the server lists (none when no server is named or it cannot be read).
#[derive(Debug, Clone)]
pub(crate) struct Roster {
    /// The catalogue with the peers after it.
    pub advisors: Catalogue,
    /// Where the catalogue came from.
    pub source: String,
    pub mesh: crate::mesh::Peers,
}

pub(crate) fn roster(ctx: &Ctx) -> Result<Roster, Error> {
    let (mut advisors, source) = catalogue(ctx)?;
    let mesh = crate::mesh::peers(ctx);
    for peer in &mesh.advisors {
        // A catalogue id wins; a peer cannot stand in for a listed advisor.
        if advisors.get(&peer.id).is_none() {
            advisors.advisors.push(peer.clone());
        }
    }
    Ok(Roster {
        advisors,
        source,
        mesh,
    })
}

/// The mesh as `reasoning advisors` reports it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MeshSummary {
    /// The server `MAJORDOMUS_SERVER_URL` names.
    pub server: String,
    /// Live peers offering reviews (other than this checkout's runtime).
    pub peers: usize,
    /// Peers the server still lists whose heartbeat is older than its window.
    pub gone: usize,
    /// Why the server could not be read, when it could not: its peers are then absent.
    pub problem: Option<String>,
}

impl Roster {
    fn summary(&self) -> Option<MeshSummary> {
        match (&self.mesh.server, &self.mesh.problem) {
            (None, None) => None,
            (server, problem) => Some(MeshSummary {
                server: server.clone().unwrap_or_else(|| "(invalid)".to_owned()),
                peers: self.mesh.advisors.len(),
                gone: self.mesh.gone,
                problem: problem.clone(),
            }),
        }
    }
}

/// The environment reasoning reads (never a credential's value).
#[derive(Debug, Clone)]
pub(crate) struct Environment {
    pub mode: ResolvedMode,
    pub disabled: Disabled,
    pub cooldown_override: Option<u64>,
}

pub(crate) fn environment(ctx: &Ctx) -> Result<Environment, Error> {
    let env = |name: &str| std::env::var(name).ok();
    let policy = ctx.policy()?;
    let declared = policy.declared.iter().any(|k| k == "reasoning.mode");
    let mode = match ctx.reasoning_mode {
        Some(mode) => Ok(ResolvedMode {
            mode,
            source: plan::ModeSource::Pinned,
        }),
        None => plan::resolve_mode(ModeInputs {
            env_mode: env("MAJORDOMUS_REASONING_MODE").as_deref(),
            ci: env("CI").as_deref(),
            policy: declared.then_some(policy.reasoning.mode),
        }),
    }
    .map_err(|e| Refusal::Reasoning {
        rule: e.rule(),
        message: e.to_string(),
        fix: format!("set {} to {} (or unset it)", e.variable, e.expected),
    })?;
    let cooldown_override = parse_cooldown_override(
        env("MAJORDOMUS_REASONING_COOLDOWN_SECONDS").as_deref(),
    )
    .map_err(|e| Refusal::Reasoning {
        rule: e.rule(),
        message: e.to_string(),
        fix: format!("set {} to {} (or unset it)", e.variable, e.expected),
    })?;
    Ok(Environment {
        mode,
        disabled: Disabled::parse(env("MAJORDOMUS_ADVISORS_DISABLE").as_deref()),
        cooldown_override,
    })
}

/// Whether `executable` is on `PATH` (a path with a separator is checked as it is).
fn on_path(executable: &str) -> bool {
    let runnable = |p: &Path| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            p.is_file()
        }
    };
    if executable.contains('/') {
        return runnable(Path::new(executable));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| runnable(&dir.join(executable))))
}

/// What is installed and configured for `advisor`. A credential counts as configured when
/// its variable is *set*; its value is never read into anything majordomus keeps.
pub(crate) fn presence(advisor: &Advisor) -> Presence {
    Presence {
        executable_on_path: advisor.executable.as_deref().is_some_and(on_path),
        credential_set: advisor
            .credential
            .as_deref()
            .is_some_and(|name| std::env::var_os(name).is_some()),
    }
}

/// Every advisor's availability now (the circuit reads every record of this checkout).
pub(crate) fn snapshot(
    ctx: &Ctx,
    catalogue: &Catalogue,
    env: &Environment,
) -> Result<Snapshot, Error> {
    let records = crate::store::reasoning::read_all(&ctx.layout)?;
    Ok(snapshot_of(ctx, catalogue, env, &records))
}

/// Every advisor's availability now, from `records` (every record of this checkout).
fn snapshot_of(
    ctx: &Ctx,
    catalogue: &Catalogue,
    env: &Environment,
    records: &[StoredRecord],
) -> Snapshot {
    availability::snapshot(
        catalogue,
        presence,
        &Conditions {
            mode: env.mode.mode,
            disabled: &env.disabled,
            cooldown_override: env.cooldown_override,
            now: ctx.clock.now(),
        },
        records,
    )
}

fn redaction(text: &str) -> Redaction {
    let r = crate::model::redact::redact(text);
    Redaction {
        text: r.text,
        shapes: r.shapes.iter().map(|s| (*s).to_owned()).collect(),
    }
}

/// Stores an accepted record and appends `reasoning.recorded` (once: a record already
/// stored with this id is `unchanged`).
pub(crate) fn store(ctx: &Ctx, accepted: validate::Accepted) -> Result<Written, Error> {
    let record = accepted.record;
    let path = crate::store::reasoning::path(&ctx.layout, &record.task, &record.id)?;
    let rel = ctx.layout.display(&path);
    let unchanged = accepted.unchanged || path.exists();
    let append = || {
        let task = (!record.task.starts_with("_episode-")).then_some(record.task.as_str());
        ctx.append(
            record.episode.as_deref(),
            task,
            &ReasoningRecorded {
                id: record.id.clone(),
                kind: kind_name(record.kind()).to_owned(),
                path: rel.clone(),
            },
        )
    };
    let mut resumed = None;
    if !unchanged {
        let (_, outcome) = crate::store::reasoning::write(&ctx.layout, &record)?;
        if outcome == WriteOutcome::Written {
            append()?;
        }
    } else if path.exists() && !recorded(ctx, &record)? {
        // The file, then its line: a writer killed between them left the record without
        // its `reasoning.recorded`.
        append()?;
        resumed = Some(format!(
            "{rel} was stored by an earlier run that was interrupted before its reasoning.recorded line; this run appended it"
        ));
    }
    Ok(Written {
        path: rel,
        unchanged,
        record,
        resumed,
    })
}

/// Whether a `reasoning.recorded` line of the record's episode names it.
fn recorded(ctx: &Ctx, record: &StoredRecord) -> Result<bool, Error> {
    let lines = ctx.index()?.lines(&crate::store::index::LineQuery {
        session: record.episode.as_deref(),
        event: Some(crate::model::Event::ReasoningRecorded),
        ..Default::default()
    })?;
    Ok(lines
        .iter()
        .filter(|l| l.session == record.episode)
        .filter_map(crate::model::LedgerLine::payload::<ReasoningRecorded>)
        .any(|r| r.id == record.id))
}

fn kind_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Assessment => "assessment",
        RecordKind::Plan => "plan",
        RecordKind::Consultation => "consultation",
        RecordKind::Disagreement => "disagreement",
        RecordKind::Resolution => "resolution",
        RecordKind::Conclusion => "conclusion",
        RecordKind::Validation => "validation",
        RecordKind::Attempt => "attempt",
    }
}

fn refusal(r: validate::RecordRefusal) -> Error {
    Refusal::Reasoning {
        rule: r.rule(),
        message: r.to_string(),
        fix: r.fix(),
    }
    .into()
}

/// `reasoning.record`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordRequest {
    /// A JSON object: `kind` and that kind's fields (SPEC §7).
    #[schemars(schema_with = "record_schema")]
    pub record: serde_json::Value,
    /// Default: the active task, else the episode.
    #[serde(default)]
    pub task: Option<String>,
}

/// A record is typed `object` in the request schema (SPEC §9), so that a client builds
/// one (the MCP Inspector sends an untyped field as a string); the writer names what a
/// record of its kind lacks.
fn record_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "required": ["kind"]})
}

/// A stored reasoning record, `id` at the top level.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Written {
    #[serde(flatten)]
    pub record: StoredRecord,
    /// The record's file, relative to the root.
    pub path: String,
    /// A record with this id (the same content) was already stored.
    pub unchanged: bool,
    /// What an earlier, interrupted run had stored, when this run only finished it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
}

/// `majordomus reasoning record`: validates, computes what is computed, redacts secret
/// shapes and control characters from every string, stores one file, appends
/// `reasoning.recorded`. Every refusal names its rule.
pub fn record(ctx: &Ctx, request: RecordRequest) -> Result<Written, Error> {
    let size = serde_json::to_string(&request.record)
        .expect("JSON values serialise")
        .len();
    if size > crate::model::input::INPUT_LIMIT {
        return Err(crate::model::input::TooLarge {
            what: "reasoning record".into(),
            bytes: size,
            limit: crate::model::input::INPUT_LIMIT,
        }
        .into());
    }
    let work = work(ctx, request.task.as_deref())?;
    let records = crate::store::reasoning::read_folder(&ctx.layout, &work.folder)?;
    let checkout = crate::store::reasoning::read_all(&ctx.layout)?;
    let context = WriteContext {
        task: &work.folder,
        episode: work.episode.as_deref(),
        now: ctx.clock.now(),
        records: &records,
        checkout: &checkout,
        redact: &redaction,
    };
    // Every surface's caller: consultations are `consult`'s to write.
    let accepted =
        validate::validate(&request.record, validate::Author::Caller, &context).map_err(refusal)?;
    store(ctx, accepted)
}

/// `reasoning.advisors` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvisorsRequest {}

/// One advisor of the catalogue, with its availability now.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AdvisorEntry {
    #[serde(flatten)]
    pub advisor: Advisor,
    pub availability: crate::model::reasoning::Availability,
}

/// The catalogue and every advisor's state.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Advisors {
    pub mode: ResolvedMode,
    /// Where the catalogue came from.
    pub catalogue: String,
    /// The catalogue's advisors, then the live mesh peers (adapter `mesh`).
    pub advisors: Vec<AdvisorEntry>,
    /// The mesh server, when `MAJORDOMUS_SERVER_URL` names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshSummary>,
    /// For each capability an advisor offers, by name: how many offer it and how many of
    /// them a plan may select now.
    pub capacity: Vec<Capacity>,
}

/// One capability's capacity: the advisors that offer it, and those admissible now
/// (`available` or `recovering`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Capacity {
    pub capability: String,
    /// Advisors that offer it.
    pub offered_by: usize,
    /// Of those, the ones a plan may select now.
    pub admissible: usize,
}

/// The capacity of every capability `advisors` offer, by capability name.
pub fn capacity(advisors: &[AdvisorEntry]) -> Vec<Capacity> {
    let mut by_name: std::collections::BTreeMap<&str, Capacity> = Default::default();
    for a in advisors {
        for capability in &a.advisor.capabilities {
            let c = by_name
                .entry(capability.as_str())
                .or_insert_with(|| Capacity {
                    capability: capability.clone(),
                    offered_by: 0,
                    admissible: 0,
                });
            c.offered_by += 1;
            c.admissible += usize::from(a.availability.status.is_admissible());
        }
    }
    by_name.into_values().collect()
}

/// `majordomus reasoning advisors`: the catalogue in preference order, each advisor's
/// availability (a pure function of presence, mode, the disabled list, recorded
/// consultations and the clock).
pub fn advisors(ctx: &Ctx, _request: AdvisorsRequest) -> Result<Advisors, Error> {
    let roster = roster(ctx)?;
    let catalogue = &roster.advisors;
    let env = environment(ctx)?;
    let snap = snapshot(ctx, catalogue, &env)?;
    let advisors: Vec<AdvisorEntry> = catalogue
        .advisors
        .iter()
        .map(|a| AdvisorEntry {
            advisor: a.clone(),
            availability: snap
                .get(&a.id)
                .cloned()
                .expect("the snapshot covers the catalogue"),
        })
        .collect();
    Ok(Advisors {
        mode: env.mode,
        catalogue: roster.source.clone(),
        capacity: capacity(&advisors),
        advisors,
        mesh: roster.summary(),
    })
}

/// `reasoning.plan`: the dry run, from a materiality and capabilities (nothing is stored).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRequest {
    /// The materiality to plan for.
    pub materiality: Materiality,
    /// The capabilities asked (default `independent_reasoning`).
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// The executor's confidence (high lowers the budget by one).
    #[serde(default)]
    pub confidence: Option<Confidence>,
}

/// `reasoning.plan-assessment`: the plan of a recorded assessment, which is stored
/// (plans are written only by the writer).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanAssessmentRequest {
    /// The recorded assessment to plan.
    pub assessment: String,
    /// Default: the active task, else the episode.
    #[serde(default)]
    pub task: Option<String>,
}

/// What `reasoning plan` decided.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Planned {
    pub decision: PlanDecision,
    /// The stored plan (with `--assessment`).
    pub plan: Option<Written>,
    pub dry_run: bool,
}

/// The assessment `id` among `records`.
pub(crate) fn find_assessment<'r>(
    records: &'r [StoredRecord],
    id: &str,
) -> Result<&'r Assessment, Error> {
    records
        .iter()
        .find_map(|r| match &r.record {
            Record::Assessment(a) if r.id == id => Some(a),
            _ => None,
        })
        .ok_or_else(|| {
            Refusal::Reasoning {
                rule: "reasoning.known-record",
                message: format!("assessment {id}: no such assessment in this task"),
                fix: "majordomus reasoning status".to_owned(),
            }
            .into()
        })
}

/// Computes (and with an assessment, stores) a plan. Reuse looks for a standing
/// conclusion on the same subject across every task and episode of this checkout, and the
/// circuit reads every record, so both read the whole store once.
pub(crate) fn make_plan(
    ctx: &Ctx,
    work: &Work,
    records: &[StoredRecord],
    assessment_id: &str,
    catalogue: &Catalogue,
) -> Result<Written, Error> {
    let assessment = find_assessment(records, assessment_id)?;
    let env = environment(ctx)?;
    let checkout = crate::store::reasoning::read_all(&ctx.layout)?;
    let snap = snapshot_of(ctx, catalogue, &env, &checkout);
    let plan = plan::plan(
        assessment_id,
        &plan::PlanInputs {
            assessment,
            mode: env.mode.mode,
            catalogue,
            availability: &snap,
            records: &checkout,
        },
    );
    let context = WriteContext {
        task: &work.folder,
        episode: work.episode.as_deref(),
        now: ctx.clock.now(),
        records,
        checkout: &checkout,
        redact: &redaction,
    };
    let accepted = validate::seal(Record::Plan(plan), &context).map_err(refusal)?;
    store(ctx, accepted)
}

/// `majordomus reasoning plan --assessment`: plans a recorded assessment and stores the
/// plan.
pub fn plan_assessment(ctx: &Ctx, request: PlanAssessmentRequest) -> Result<Planned, Error> {
    let work = work_of(ctx, request.task.as_deref(), &request.assessment)?;
    let records = crate::store::reasoning::read_folder(&ctx.layout, &work.folder)?;
    let roster = roster(ctx)?;
    let written = make_plan(ctx, &work, &records, &request.assessment, &roster.advisors)?;
    let Record::Plan(p) = &written.record.record else {
        unreachable!("make_plan stores a plan");
    };
    let decision = PlanDecision {
        mode: p.mode,
        budget: p.budget,
        selected: p.selected.clone(),
        not_selected: p.not_selected.clone(),
        availability: p.availability.clone(),
        reuses: p.reuses.clone(),
        local_review: p.local_review.clone(),
    };
    Ok(Planned {
        decision,
        plan: Some(written),
        dry_run: false,
    })
}

/// `majordomus reasoning plan --materiality`: the dry run; reads the catalogue and the
/// advisors' availability, writes nothing.
pub fn plan(ctx: &Ctx, request: PlanRequest) -> Result<Planned, Error> {
    let materiality = request.materiality;
    let capabilities = if request.capabilities.is_empty() {
        vec!["independent_reasoning".to_owned()]
    } else {
        request.capabilities
    };
    let assessment = Assessment {
        subject: "(dry run)".to_owned(),
        materiality,
        confidence: request.confidence.unwrap_or(Confidence::Medium),
        hypothesis: String::new(),
        facts: Vec::new(),
        assumptions: Vec::new(),
        questions: Vec::new(),
        evidence: Vec::new(),
        capabilities,
        new_evidence: Some(true),
    };
    let roster = roster(ctx)?;
    let catalogue = &roster.advisors;
    let env = environment(ctx)?;
    let snap = snapshot(ctx, catalogue, &env)?;
    let decision = plan::decide(&plan::PlanInputs {
        assessment: &assessment,
        mode: env.mode.mode,
        catalogue,
        availability: &snap,
        records: &[],
    });
    Ok(Planned {
        decision,
        plan: None,
        dry_run: true,
    })
}

/// `reasoning.status` / `reasoning.check` read scope.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ReasoningStatusRequest")]
pub struct StatusRequest {
    /// Default: the active task, else the open episode, else every record.
    #[serde(default)]
    pub task: Option<String>,
}

/// The reasoning report of the work.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "ReasoningReport")]
pub struct Status {
    /// The records' folder (`None`: every record of this checkout).
    pub folder: Option<String>,
    #[serde(flatten)]
    pub status: ReasoningStatus,
}

/// `majordomus reasoning status`: each assessment's state, consultations, disagreements and
/// resolutions, conclusions with their computed review and validation, a timeline, tokens.
pub fn status(ctx: &Ctx, request: StatusRequest) -> Result<Status, Error> {
    let (folder, records) = read_scope(ctx, request.task.as_deref())?;
    Ok(Status {
        folder,
        status: crate::model::reasoning::status::status(&records),
    })
}

/// `reasoning.explain`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    /// The conclusion id.
    pub conclusion: String,
}

/// `majordomus reasoning explain <conclusion>`: the whole provenance chain.
pub fn explain(ctx: &Ctx, request: ExplainRequest) -> Result<Provenance, Error> {
    let records = crate::store::reasoning::read_all(&ctx.layout)?;
    crate::model::reasoning::status::explain(&request.conclusion, &records).map_err(|e| {
        Refusal::Reasoning {
            rule: e.rule(),
            message: e.to_string(),
            fix: e.fix(),
        }
        .into()
    })
}

impl Advisors {
    /// The mode, where it came from, and each advisor's status, on one line (`env`, and
    /// doctor's `majordomus.advisors-available`).
    pub fn line(&self) -> String {
        let states: Vec<String> = self
            .advisors
            .iter()
            .map(|a| format!("{} {}", a.advisor.id, a.availability.status.name()))
            .collect();
        format!(
            "mode {} ({}); {}",
            crate::model::reasoning::plan::mode_name(self.mode.mode),
            mode_source_name(self.mode.source),
            if states.is_empty() {
                "no advisors in the catalogue".to_owned()
            } else {
                states.join(", ")
            }
        )
    }
}

/// Where the mode came from, as a person reads it.
pub fn mode_source_name(source: plan::ModeSource) -> &'static str {
    match source {
        plan::ModeSource::Environment => "MAJORDOMUS_REASONING_MODE",
        plan::ModeSource::Ci => "CI is set",
        plan::ModeSource::Policy => "policy",
        plan::ModeSource::Default => "default",
        plan::ModeSource::Pinned => "pinned by the caller",
    }
}
