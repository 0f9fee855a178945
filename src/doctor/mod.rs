//! `majordomus doctor` (SPEC §5.5): the effective rule set (the vendored package plus
//! project rules, `crate::rules`), each rule run by the check this build has for its id,
//! grouped, exit 10 on a blocking finding; `watch` reruns the drift rules.

mod fold;
mod rules;

pub use fold::{Folded, RuleFinding};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{Finding, Severity};
use crate::model::Verdict;
use crate::rules::DeclaredRule;
use crate::store::index::IndexRebuilt;
use crate::timing::Phase;
use rules::{Input, Inputs, Outcome, Rule};

/// `doctor`: every rule, or (for `watch`) only the rules that watch drift.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DoctorRequest {
    /// Only the drift rules, as `watch` runs them (never the review queue).
    #[serde(default)]
    pub drift_only: bool,
}

/// The built-in first result: the rule set itself reads and every rule has a check.
pub const RULE_SET: &str = "majordomus.rule-set";

/// How one rule came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleStatus {
    Pass,
    Fail,
    Skipped,
}

/// One rule's outcome.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RuleResult {
    pub rule: String,
    pub severity: Severity,
    pub description: String,
    /// The file that declares it, relative to the root (`built-in` for the rule set).
    pub declared_in: String,
    pub status: RuleStatus,
    /// Why the rule was skipped, or a fact worth saying when it passed.
    pub note: Option<String>,
    /// Its findings; one a rule repeats over several files is folded into one (`folded`).
    pub findings: Vec<RuleFinding>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DoctorReport {
    pub rules: Vec<RuleResult>,
    pub blocking: usize,
    /// Advisory findings that ask for something (`watch` stops on them, exit 11).
    pub advisory: usize,
    /// Advisory findings whose fix says nothing needs doing (a squash merge replaced a
    /// commit a record names): reported, never a reason for `watch` to stop.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub informational: usize,
    /// Set when this run rebuilt the ledger index (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<IndexRebuilt>,
}

impl DoctorReport {
    /// Blocking findings fail doctor (exit 10); advisory ones stop `watch` (exit 11).
    pub fn verdict(&self) -> Verdict {
        if self.blocking > 0 {
            Verdict::Blocking
        } else if self.advisory > 0 {
            Verdict::Advisory
        } else {
            Verdict::Pass
        }
    }
}

/// Runs every rule of the effective set (for `watch`, its drift rules), after the rule
/// set's own result: unreadable rule files and ids with no check are blocking findings,
/// named by file. Each rule runs through its entry in [`rules::RULES`]; what several rules
/// read (the ledger index, the git hooks) is read once, and only when a rule that runs
/// declares it.
pub fn doctor(ctx: &Ctx, request: DoctorRequest) -> Result<DoctorReport, Error> {
    let _total = Phase::start("doctor.total");
    let (policy, policy_error) = ctx.policy_lenient()?;
    let set = crate::rules::rule_set(ctx)?;
    let mut set_findings = set.findings;
    let mut runnable: Vec<(&Rule, DeclaredRule)> = Vec::new();
    let advisors_optional = set
        .rules
        .iter()
        .any(|r| r.decl.id == crate::reasoning::check::ADVISORS_ARE_OPTIONAL);
    for rule in set.rules {
        match rules::for_id(&rule.decl.id) {
            Some(check) => runnable.push((check, rule)),
            None => set_findings.push(unknown_rule(&rule)),
        }
    }
    runnable.retain(|(_, rule)| !request.drift_only || rule.decl.drift);
    let reads = |input: Input| {
        runnable.iter().any(|(check, rule)| {
            check.reads.contains(&input) && !(rule.decl.needs_policy && policy_error.is_some())
        })
    };

    // What the rules need from the ledger comes from its index: folds and lookups.
    let index = if reads(Input::LedgerIndex) {
        let mut phase = Phase::start("doctor.index");
        let index = ctx.index()?;
        phase.count("lines", index.read().lines);
        phase.end();
        Some(index)
    } else {
        None
    };
    let hooks = reads(Input::GitHooks).then(|| {
        let _phase = Phase::start("doctor.hooks");
        crate::hooks::reach(ctx)
    });
    let inputs = Inputs {
        ctx,
        now: ctx.clock.now(),
        policy: &policy,
        policy_error: policy_error.as_ref(),
        index: index.as_ref(),
        hooks: hooks.as_ref(),
    };
    let mut results = vec![RuleResult {
        rule: RULE_SET.to_owned(),
        severity: Severity::Blocking,
        description: "The rule set reads: the vendored package and every project rule file parse, no id is declared in two project files, and majordomus has a check for every rule they declare.".to_owned(),
        declared_in: "built-in".to_owned(),
        status: if set_findings.is_empty() {
            RuleStatus::Pass
        } else {
            RuleStatus::Fail
        },
        note: (!set.notes.is_empty()).then(|| set.notes.join("; ")),
        findings: set_findings.into_iter().map(RuleFinding::from).collect(),
    }];
    for (check, rule) in runnable {
        let decl = rule.decl;
        let mut phase = Phase::start_with(|| {
            format!(
                "doctor.{}",
                decl.id.strip_prefix("majordomus.").unwrap_or(&decl.id)
            )
        });
        let declared_in = rule.file;
        let replaced = rule.replaces.map(|package| {
            format!("declared in {declared_in}, replacing the declaration in {package}")
        });
        if decl.needs_policy && policy_error.is_some() {
            results.push(RuleResult {
                rule: decl.id,
                severity: decl.severity,
                description: decl.description,
                declared_in,
                status: RuleStatus::Skipped,
                note: Some(
                    "skipped: it reads the policy, which cannot be read (see majordomus.policy-valid)"
                        .to_owned(),
                ),
                findings: Vec::new(),
            });
            continue;
        }
        let mut outcome = Outcome::new(&decl.id, decl.severity);
        (check.check)(&inputs, &mut outcome)?;
        for (key, count) in &outcome.counts {
            phase.count(key, *count);
        }
        phase.count("findings", outcome.findings.len());
        phase.end();
        let note = match (outcome.note, replaced) {
            (Some(n), Some(r)) => Some(format!("{n}; {r}")),
            (n, r) => n.or(r),
        };
        let status = if outcome.skipped {
            RuleStatus::Skipped
        } else if outcome.findings.is_empty() {
            RuleStatus::Pass
        } else {
            RuleStatus::Fail
        };
        results.push(RuleResult {
            rule: decl.id,
            severity: decl.severity,
            description: decl.description,
            declared_in,
            status,
            note,
            findings: fold::fold(outcome.findings),
        });
    }
    if !advisors_optional && !request.drift_only {
        results.push(RuleResult {
            rule: crate::reasoning::check::ADVISORS_ARE_OPTIONAL.to_owned(),
            severity: Severity::Advisory,
            description: "Advisors are optional by construction: no provider-independent source names an advisor, adapter, executable, vendor or model, and no CI file names a model credential.".to_owned(),
            declared_in: "not declared".to_owned(),
            status: RuleStatus::Skipped,
            note: Some(
                "skipped: this repository does not declare it (an adopter), so reasoning check's source and CI checks do not run; declare it in .ai/repo/rules/project/<file>.yaml to run them (docs/REASONING.md)".to_owned(),
            ),
            findings: Vec::new(),
        });
    }
    let count = |sev: Severity, informational: bool| {
        results
            .iter()
            .flat_map(|r| &r.findings)
            .filter(|f| f.finding.severity == sev && f.finding.informational == informational)
            .count()
    };
    Ok(DoctorReport {
        blocking: count(Severity::Blocking, false) + count(Severity::Blocking, true),
        advisory: count(Severity::Advisory, false),
        informational: count(Severity::Advisory, true),
        rules: results,
        index_rebuilt: index.as_ref().and_then(|i| i.rebuilt().cloned()),
    })
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `rules.known` finding for a declared rule this build has no check for.
fn unknown_rule(rule: &DeclaredRule) -> Finding {
    let id = &rule.decl.id;
    let version = env!("CARGO_PKG_VERSION");
    let vendored = rule.file.starts_with(".ai/repo/rules/vendor/");
    let fix = if vendored {
        // The other way out (a majordomus of the version that vendored it) is in the
        // message.
        "majordomus rules vendor update".to_owned()
    } else {
        format!(
            "remove rule `{id}` from {}, or update majordomus to a version that checks it",
            rule.file
        )
    };
    Finding {
        informational: false,
        file: rule.file.clone(),
        rule: "rules.known".to_owned(),
        severity: Severity::Blocking,
        message: format!(
            "rule `{id}`: majordomus {version} has no check for it, so it cannot be run (known rules: {}){}",
            rules::RULES
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>()
                .join(", "),
            if vendored {
                "; vendor this version's package, or update majordomus to the version that vendored it"
            } else {
                ""
            }
        ),
        fix,
    }
}
