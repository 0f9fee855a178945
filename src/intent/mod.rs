//! Intents and the binding (SPEC §6): `intent binding` (read-only, derived at every ask),
//! `plan start` (an issue moves to `active` through the same check) and `intent validate`.
//! Nothing about an intent is stored beyond names and pins.

use std::cell::RefCell;
use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::knowledge::{Finding, Severity};
use crate::model::intent::{
    Binding, BindingRequest, BindingStatus, IssueStatus, PlanInput, bind, critique_again,
    set_issue_status,
};
use crate::model::policy::Binding as BindingPolicy;
use crate::model::{Verdict, redact};
use crate::store::{WriteOutcome, write_atomic};

/// `intent.binding`: what a task would serve. Every field is a question asked.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BindingAsk {
    /// The issue the work serves.
    #[serde(default)]
    pub issue: Option<String>,
    /// The intent the work serves.
    #[serde(default)]
    pub intent: Option<String>,
    /// Paths the work touches.
    #[serde(default)]
    pub scope: Vec<String>,
    /// A declared exemption class, with `because`.
    #[serde(default)]
    pub exempt: Option<String>,
    /// Why the exemption applies.
    #[serde(default)]
    pub because: Option<String>,
}

impl BindingAsk {
    /// True when the ask names something: `--issue`, `--intent`, `--exempt` or
    /// `--because` (a flag given is a question asked, SPEC §6). A scope alone is the
    /// task's own property, not a question.
    pub fn names_anything(&self) -> bool {
        self.issue.is_some()
            || self.intent.is_some()
            || self.exempt.is_some()
            || self.because.is_some()
    }

    /// What it names, as `task.started` and `task.refused` record it: `issue`, `intent`,
    /// `scope`, `exempt` (empty: nothing).
    pub fn named(&self) -> Vec<String> {
        [
            ("issue", self.issue.is_some()),
            ("intent", self.intent.is_some()),
            ("scope", !self.scope.is_empty()),
            ("exempt", self.exempt.is_some()),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| name.to_owned())
        .collect()
    }
}

/// The refused share of the task starts this ledger asked the binding about (seed 003's
/// number to watch; docs/INTENTS.md, "The refused share").
pub fn refused_share(ctx: &Ctx) -> Result<crate::model::intent::refused::RefusedShare, Error> {
    let index = ctx.index()?;
    let mut lines = Vec::new();
    for event in [
        crate::model::Event::TaskStarted,
        crate::model::Event::TaskRefused,
    ] {
        lines.extend(index.lines(&crate::store::index::LineQuery {
            event: Some(event),
            ..Default::default()
        })?);
    }
    Ok(crate::model::intent::refused::RefusedShare::of(&lines))
}

/// Asks the binding now: the plan read strictly, the blob ids at HEAD of the evidence it
/// serves, scope directories marked as such.
pub fn ask(ctx: &Ctx, ask: &BindingAsk, changed: &[String]) -> Result<Binding, Error> {
    let plan = crate::store::plan::read_plan(&ctx.layout)?;
    let policy = ctx.policy()?;
    let scope = ask
        .scope
        .iter()
        .map(|p| {
            let p = p.trim_start_matches("./");
            if !p.ends_with('/') && ctx.layout.root().join(p).is_dir() {
                format!("{p}/")
            } else {
                p.to_owned()
            }
        })
        .collect();
    let request = BindingRequest {
        issue: ask.issue.clone(),
        intent: ask.intent.clone(),
        scope,
        exempt: ask.exempt.clone(),
        because: ask
            .because
            .as_deref()
            .map(|b| redact::redact(b).text)
            .filter(|b| !b.trim().is_empty()),
        changed: changed.to_vec(),
        critique_stale_refuses: policy.intent.binding == BindingPolicy::Required,
    };
    let exemptions = &policy.intent.exemptions;
    // The binding is pure and cheap; reading blob ids is not. A first pass learns which
    // evidence the served criteria cite, so only those paths are looked up at HEAD (the
    // pins depend on nothing else), never every file the whole plan cites.
    let cited = RefCell::new(BTreeSet::new());
    bind(&plan, &request, exemptions, &|path| {
        cited.borrow_mut().insert(path.to_owned());
        None
    });
    let cited = cited.into_inner();
    let evidence = ctx
        .repo
        .blob_ids_at(None, cited.iter().map(String::as_str))?;
    Ok(bind(&plan, &request, exemptions, &|path| {
        evidence.get(path).cloned()
    }))
}

/// `majordomus intent binding`: the answer, derived now; nothing is written.
pub fn binding(ctx: &Ctx, request: BindingAsk) -> Result<Binding, Error> {
    ask(ctx, &request, &[])
}

/// Whether an answer stops the start it was asked for (SPEC §6): a question asked
/// explicitly (a flag given) is answered under every policy; under `required` every
/// refusal stops; under `advisory` an implicit refusal is reported and the start goes on.
pub fn stops(policy: BindingPolicy, explicit: bool, binding: &Binding) -> bool {
    binding.status == BindingStatus::Refused && (explicit || policy == BindingPolicy::Required)
}

/// The refusal that stops a start.
pub fn refusal(binding: &Binding) -> Refusal {
    Refusal::Binding {
        causes: binding
            .causes
            .iter()
            .map(|c| c.as_str().to_owned())
            .collect(),
        note: binding.note.clone(),
    }
}

/// `plan.start`: the issue to move to `active`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStartRequest {
    /// The issue id.
    pub issue: String,
}

/// What `plan start` did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanStarted {
    pub issue: String,
    /// The intent file edited, relative to the root.
    pub file: String,
    /// `written`, or `unchanged` when the issue was already active.
    pub write: WriteOutcome,
    /// The binding the start was checked against.
    pub binding: Binding,
}

/// `majordomus plan start <issue>`: sets the issue's `status: active` in its intent file,
/// editing only that value (comments and formatting stay byte for byte), after the same
/// binding check `task start` makes. Naming the issue is a question asked: a refusal
/// stops it under every policy.
pub fn plan_start(ctx: &Ctx, request: PlanStartRequest) -> Result<PlanStarted, Error> {
    let asked = BindingAsk {
        issue: Some(request.issue.clone()),
        ..BindingAsk::default()
    };
    let answer = ask(ctx, &asked, &[])?;
    let policy = ctx.policy()?;
    if stops(policy.intent.binding, true, &answer) {
        return Err(refusal(&answer).into());
    }
    let PlanInput::Plan(plan) = crate::store::plan::read_plan(&ctx.layout)? else {
        return Err(refusal(&answer).into());
    };
    let (intent, _) = plan.issue(&request.issue).ok_or_else(|| refusal(&answer))?;
    let path = ctx.layout.intents_dir().join(format!("{}.yaml", intent.id));
    let path = if path.exists() {
        path
    } else {
        ctx.layout.intents_dir().join(format!("{}.yml", intent.id))
    };
    let file = ctx.layout.display(&path);
    let text =
        std::fs::read_to_string(&path).map_err(|e| crate::store::StoreError::io(&path, e))?;
    let edited =
        set_issue_status(&text, &file, &request.issue, IssueStatus::Active).map_err(|e| {
            Refusal::PlanEdit {
                message: e.to_string(),
            }
        })?;
    let write = write_atomic(&path, edited.as_bytes())?;
    Ok(PlanStarted {
        issue: request.issue,
        file,
        write,
        binding: answer,
    })
}

/// `intent.validate` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateRequest {}

/// What `intent validate` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct IntentValidation {
    pub intents: usize,
    pub findings: Vec<Finding>,
    /// The task starts this ledger asked the binding about, and how many it refused, by
    /// whether they named any work (information, never a finding).
    pub refused_starts: crate::model::intent::refused::RefusedShare,
}

impl IntentValidation {
    /// Blocking findings refuse (exit 3); the plan not being there is not a finding.
    pub fn verdict(&self) -> Verdict {
        if self
            .findings
            .iter()
            .any(|f| f.severity == Severity::Blocking)
        {
            Verdict::Refused
        } else if self.findings.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Advisory
        }
    }
}

/// `majordomus intent validate`: an unreadable plan, intents whose work began (an issue
/// `active` or `done`) without a critique, blocking critique findings still open on an
/// intent with work under way, and stale critiques (blocking under `required`, advisory
/// otherwise).
pub fn validate(ctx: &Ctx, _request: ValidateRequest) -> Result<IntentValidation, Error> {
    let mut findings = Vec::new();
    let plan = match crate::store::plan::read_plan(&ctx.layout)? {
        PlanInput::NoPlan => {
            return Ok(IntentValidation {
                intents: 0,
                findings,
                refused_starts: refused_share(ctx)?,
            });
        }
        PlanInput::Unreadable(errors) => {
            for e in &errors {
                let message = e.to_string();
                let file = message.split(':').next().unwrap_or_default().to_owned();
                findings.push(Finding {
                    informational: false,
                    file,
                    rule: "intent.readable".into(),
                    severity: Severity::Blocking,
                    message,
                    fix: "correct the file (docs/INTENTS.md lists every key); majordomus intent validate rechecks it".into(),
                });
            }
            return Ok(IntentValidation {
                intents: 0,
                findings,
                refused_starts: refused_share(ctx)?,
            });
        }
        PlanInput::Plan(plan) => plan,
    };
    // A stale critique refuses where the binding refuses it: under `required`.
    let required = ctx.policy()?.intent.binding == BindingPolicy::Required;
    for intent in &plan.intents {
        let file = format!(".ai/repo/intents/{}.yaml", intent.id);
        let started: Vec<&str> = intent
            .issues
            .iter()
            .filter(|i| i.status != IssueStatus::Open)
            .map(|i| i.id.as_str())
            .collect();
        if !started.is_empty() && !intent.is_critiqued() {
            findings.push(Finding {
                informational: false,
                file: file.clone(),
                rule: "intent.critiqued".into(),
                severity: Severity::Blocking,
                message: format!(
                    "intent {}: work began ({}) without a critique",
                    intent.id,
                    started.join(", ")
                ),
                fix: format!(
                    "add a critique to {file} (critiques: [{{commit, plan_revision, findings: [...]}}]) before more work starts"
                ),
            });
        }
        if let Some(reviewed) = intent.stale_critique() {
            findings.push(Finding {
                informational: false,
                file: file.clone(),
                rule: "intent.critique-stale".into(),
                severity: if required {
                    Severity::Blocking
                } else {
                    Severity::Advisory
                },
                message: format!(
                    "intent {}: the latest critique is stale: it reviewed plan revision {} and the plan has changed since",
                    intent.id,
                    &reviewed[..reviewed.len().min(12)]
                ),
                fix: critique_again(intent),
            });
        }
        let blocking = intent.blocking_findings();
        if !blocking.is_empty() && !started.is_empty() {
            findings.push(Finding {
                informational: false,
                file: file.clone(),
                rule: "intent.critique-open".into(),
                severity: Severity::Blocking,
                message: format!(
                    "intent {}: blocking critique finding(s) still open ({}) while work is under way",
                    intent.id,
                    blocking.join(", ")
                ),
                fix: format!("resolve them in {file}: set each finding's `resolution`"),
            });
        }
    }
    findings.sort();
    Ok(IntentValidation {
        intents: plan.intents.len(),
        findings,
        refused_starts: refused_share(ctx)?,
    })
}
