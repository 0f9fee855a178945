//! `majordomus doctor` (SPEC §5.5): the effective rule set (the vendored package plus
//! project rules, `crate::rules`), each rule run by the check this build has for its id,
//! grouped, exit 10 on a blocking finding; `watch` reruns the drift rules.

mod client_hooks;
mod session_commits;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{CandidatesRequest, CheckRequest, Finding, Severity};
use crate::model::Verdict;
use crate::rules::DeclaredRule;
use crate::store::atomic::{sweep_tree, swept_by_this_process};
use crate::store::index::IndexRebuilt;
use crate::store::outbox::Outbox;
use crate::timing::Phase;

/// `doctor`: every rule, or (for `watch`) only the rules that watch drift.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DoctorRequest {
    /// Only the drift rules (knowledge observed and integrity), as `watch` runs them:
    /// never the review queue, so a full queue does not fail `watch`.
    #[serde(default)]
    pub drift_only: bool,
}

/// The built-in first result: the rule set itself reads and every rule has a check.
pub const RULE_SET: &str = "majordomus.rule-set";

/// The checks this build has: a rule id runs only if it names one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    PolicyValid,
    KnowledgeObserved,
    KnowledgeIntegrity,
    CandidatesReviewed,
    LedgerHealth,
    OutboxEmpty,
    ProviderEvents,
    KnowledgeStale,
    IntentValidated,
    AdvisorsOptional,
    TempFiles,
    HooksReached,
    SessionCommits,
    RecordsVisible,
    ClientHooks,
}

impl Check {
    const ALL: [Check; 15] = [
        Check::PolicyValid,
        Check::KnowledgeObserved,
        Check::KnowledgeIntegrity,
        Check::CandidatesReviewed,
        Check::LedgerHealth,
        Check::OutboxEmpty,
        Check::ProviderEvents,
        Check::KnowledgeStale,
        Check::IntentValidated,
        Check::AdvisorsOptional,
        Check::TempFiles,
        Check::HooksReached,
        Check::SessionCommits,
        Check::RecordsVisible,
        Check::ClientHooks,
    ];

    /// The rule id a package declares it by.
    fn id(self) -> &'static str {
        match self {
            Check::PolicyValid => "majordomus.policy-valid",
            Check::KnowledgeObserved => "majordomus.knowledge-observed",
            Check::KnowledgeIntegrity => "majordomus.knowledge-integrity",
            Check::CandidatesReviewed => "majordomus.candidates-reviewed",
            Check::LedgerHealth => "majordomus.ledger-health",
            Check::OutboxEmpty => "majordomus.outbox-empty",
            Check::ProviderEvents => "majordomus.provider-events",
            Check::KnowledgeStale => "majordomus.knowledge-stale",
            Check::IntentValidated => "majordomus.intent-validated",
            Check::AdvisorsOptional => crate::reasoning::check::ADVISORS_ARE_OPTIONAL,
            Check::TempFiles => "majordomus.temp-files",
            Check::HooksReached => "majordomus.hooks-reached",
            Check::SessionCommits => "majordomus.session-commits",
            Check::RecordsVisible => "majordomus.records-visible",
            Check::ClientHooks => "majordomus.client-hooks",
        }
    }

    fn for_rule(id: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.id() == id)
    }
}

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
    pub findings: Vec<Finding>,
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
/// named by file.
pub fn doctor(ctx: &Ctx, request: DoctorRequest) -> Result<DoctorReport, Error> {
    let _total = Phase::start("doctor.total");
    let (policy, policy_error) = ctx.policy_lenient()?;
    let set = crate::rules::rule_set(ctx)?;
    let mut set_findings = set.findings;
    let mut runnable: Vec<(Check, DeclaredRule)> = Vec::new();
    let advisors_optional = set
        .rules
        .iter()
        .any(|r| r.decl.id == crate::reasoning::check::ADVISORS_ARE_OPTIONAL);
    for rule in set.rules {
        match Check::for_rule(&rule.decl.id) {
            Some(check) => runnable.push((check, rule)),
            None => set_findings.push(unknown_rule(&rule)),
        }
    }

    // What the rules need from the ledger comes from its index: folds and lookups.
    let mut phase = Phase::start("doctor.index");
    let index = ctx.index()?;
    phase.count("lines", index.read().lines);
    phase.end();
    let now = ctx.clock.now();
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
        findings: set_findings,
    }];
    for (check, rule) in runnable {
        let decl = rule.decl;
        if request.drift_only && !decl.drift {
            continue;
        }
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
        let mut findings = Vec::new();
        let mut note = None;
        let mut skipped_rule = false;
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
                findings,
            });
            continue;
        }
        let mut finding = |file: &str, message: String, fix: String| {
            findings.push(Finding {
                informational: false,
                file: file.to_owned(),
                rule: decl.id.clone(),
                severity: decl.severity,
                message,
                fix,
            })
        };
        match check {
            Check::PolicyValid => {
                if let Some(e) = &policy_error {
                    let report = e.report();
                    findings.push(Finding {
                        informational: false,
                        file: ".ai/repo/policy.yaml".to_owned(),
                        rule: "policy.valid".to_owned(),
                        severity: Severity::Blocking,
                        message: format!("{} [{}]", report.message, report.rule),
                        fix: report.fix.unwrap_or_else(|| {
                            "correct .ai/repo/policy.yaml (docs/POLICY.md)".to_owned()
                        }),
                    });
                }
            }
            Check::KnowledgeObserved => {
                if !index.any_episode_derived() {
                    skipped_rule = true;
                    note = Some(
                        "skipped: this ledger has no knowledge.derived line at all, so freshness is not judged"
                            .to_owned(),
                    );
                } else if let Some(last) = index.last_episode_closed()
                    && let Some(episode) = &last.episode
                    // An episode that closed empty had nothing to derive (SPEC §3.2).
                    && !last.empty
                {
                    let age = crate::model::time::parse(&last.ts)
                        .map(|t| (now - t).whole_minutes())
                        .unwrap_or(0);
                    let derive_on = last.knowledge_on_end.unwrap_or(true);
                    let derived = index.episode(episode)?.is_some_and(|e| e.derived);
                    let fix = format!("majordomus knowledge derive --episode {episode}");
                    match derived {
                        false if age > policy.session.freshness.stale_minutes as i64 => finding(
                            ".ai/local/ledger.jsonl",
                            format!(
                                "episode {episode} closed {age} minutes ago and no knowledge.derived names it (stale after {} minutes)",
                                policy.session.freshness.stale_minutes
                            ),
                            fix,
                        ),
                        // The close ran with derivation on and still nothing derived it
                        // (a crash between record and derive, or an older version).
                        false if policy.session.knowledge_on_end && derive_on => finding(
                            ".ai/local/ledger.jsonl",
                            format!(
                                "episode {episode} closed with session.knowledge_on_end on, but its close path did not derive"
                            ),
                            fix,
                        ),
                        _ => {}
                    }
                }
            }
            Check::KnowledgeIntegrity => {
                for f in crate::knowledge::check(ctx, CheckRequest {})?.findings {
                    findings.push(f);
                }
            }
            Check::CandidatesReviewed => {
                let keys = [
                    "knowledge.candidates_max_files",
                    "knowledge.candidate_max_age_minutes",
                ];
                if !keys.iter().any(|k| policy.declared.iter().any(|d| d == k)) {
                    note = Some(format!(
                        "the policy declares neither {} nor {}; the defaults ({} files, {} minutes) apply",
                        keys[0],
                        keys[1],
                        policy.knowledge.candidates_max_files,
                        policy.knowledge.candidate_max_age_minutes
                    ));
                }
                let listing = crate::knowledge::candidates(ctx, CandidatesRequest::default())?;
                let max = policy.knowledge.candidates_max_files as usize;
                if listing.candidates.len() > max {
                    finding(
                        ".ai/repo/knowledge/candidates/",
                        format!(
                            "{} candidates pending, more than knowledge.candidates_max_files ({max})",
                            listing.candidates.len()
                        ),
                        "review them: majordomus knowledge promote <id> / reject <id> --reason"
                            .into(),
                    );
                }
                let limit = policy.knowledge.candidate_max_age_minutes as i64;
                // Aged as the review queue is (SPEC §5.2: `knowledge::queue_starts`): the
                // first knowledge.derived naming it, else the commit that added it, else
                // its date.
                for c in &listing.candidates {
                    if let Some(at) = crate::model::time::parse(&c.queued_at) {
                        let age = (now - at).whole_minutes();
                        if age > limit {
                            finding(
                                &c.path,
                                format!(
                                    "awaiting review for {age} minutes (limit {limit}), measured from {}",
                                    c.queued_from.said()
                                ),
                                format!("majordomus knowledge promote {} or reject it", c.id),
                            );
                        }
                    }
                    if c.state == crate::knowledge::CandidateState::Untracked {
                        finding(
                            &c.path,
                            "git does not track this candidate".into(),
                            format!("git add {}", c.path),
                        );
                    }
                }
            }
            Check::LedgerHealth => {
                let skipped = index.skipped()?;
                for s in &skipped.lines {
                    let place = s
                        .line
                        .map(|n| format!("line {n}"))
                        .unwrap_or_else(|| format!("byte {}", s.offset));
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!("{place}: {}", s.reason),
                        "nothing to do: unreadable lines are skipped; a torn tail is ended by the next append".into(),
                    );
                }
                let unlisted = skipped.total.saturating_sub(skipped.lines.len() as u64);
                if unlisted > 0 {
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!("{unlisted} more unreadable line(s) after these"),
                        "majordomus history --format json lists every skipped line".into(),
                    );
                }
            }
            Check::OutboxEmpty => {
                let contents = Outbox::new(&ctx.layout).contents()?;
                if !contents.is_empty() {
                    finding(
                        ".ai/local/state/outbox/",
                        format!(
                            "the trunk outbox holds {} session record(s) and {} candidate(s)",
                            contents.sessions.len(),
                            contents.candidates.len()
                        ),
                        "switch to a working branch and start an episode there (majordomus session start): the boundary moves them into .ai/repo/".into(),
                    );
                }
            }
            Check::ProviderEvents => {
                let (failures, total) = index.provider_failures();
                let unlisted = total.saturating_sub(failures.len() as u64);
                if unlisted > 0 {
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!(
                            "{unlisted} earlier provider hook failure(s) besides the newest {}",
                            failures.len()
                        ),
                        "majordomus history --event provider.event.failed".into(),
                    );
                }
                // The recorded error is the message; running a provider hook by hand
                // prints nothing of it. Once read, an acknowledgement clears it (as does
                // a later run of the same hook that succeeds).
                let newest = failures.iter().map(|f| f.seq).max().unwrap_or_default();
                for failed in &failures {
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!(
                            "#{} {}: provider hook {} ({}) failed: {}",
                            failed.seq, failed.ts, failed.hook, failed.provider, failed.error
                        ),
                        format!("majordomus hooks acknowledge --through {newest}"),
                    );
                }
            }
            Check::KnowledgeStale => {
                let report = crate::knowledge::stale(ctx)?;
                if !report.not_judged.is_empty() {
                    let listed: Vec<String> = report
                        .not_judged
                        .iter()
                        .map(|n| format!("{} ({})", n.file, n.reason))
                        .collect();
                    note = Some(format!(
                        "{} verified record(s) not judged: {}",
                        listed.len(),
                        listed.join("; ")
                    ));
                }
                for record in &report.stale {
                    let (message, fix) = stale_finding(record);
                    finding(&record.file, message, fix);
                }
            }
            Check::AdvisorsOptional => {
                let report =
                    crate::reasoning::check::check(ctx, crate::reasoning::check::CheckRequest {})?;
                let excepted: usize = report.exceptions.iter().map(|e| e.files).sum();
                note = Some(format!(
                    "{} provider-independent source(s) and {} CI and gate file(s) read; {excepted} file(s) under {} declared exception(s)",
                    report.sources,
                    report.ci_files,
                    report.exceptions.len()
                ));
                // The declared severity decides, as for every project rule.
                for f in report.findings {
                    findings.push(Finding {
                        severity: decl.severity,
                        ..f
                    });
                }
            }
            Check::IntentValidated => {
                let validation = crate::intent::validate(ctx, crate::intent::ValidateRequest {})?;
                if validation.intents == 0 && validation.findings.is_empty() {
                    note = Some(
                        "no plan: .ai/repo/intents/ declares no intent, so there is nothing to validate"
                            .to_owned(),
                    );
                }
                // The declared severity decides (a project may make this rule advisory).
                for f in validation.findings {
                    findings.push(Finding {
                        severity: decl.severity,
                        ..f
                    });
                }
            }
            Check::HooksReached => {
                let state = crate::hooks::reach(ctx);
                if !state.installed {
                    note = Some(format!(
                        "no git hook of majordomus is installed in {} (majordomus hooks install installs them)",
                        state.dir
                    ));
                }
                for hook in state.problems() {
                    finding(
                        &hook.runs,
                        format!(
                            "{} {}: {}",
                            hook.hook,
                            hook.reach.name(),
                            hook.reason.as_deref().unwrap_or_default()
                        ),
                        hook.fix.clone().unwrap_or_default(),
                    );
                }
            }
            Check::RecordsVisible => {
                // One finding a rule: the paths it hides, and the one fix.
                let ignored = ctx.repo.ignored(crate::store::skeleton::RECORD_PATHS)?;
                let mut by_rule: Vec<(&crate::git::Ignored, Vec<&str>)> = Vec::new();
                for hidden in &ignored {
                    match by_rule.iter_mut().find(|(first, _)| {
                        (&first.pattern, &first.source, first.line)
                            == (&hidden.pattern, &hidden.source, hidden.line)
                    }) {
                        Some((_, paths)) => paths.push(&hidden.path),
                        None => by_rule.push((hidden, vec![&hidden.path])),
                    }
                }
                for (first, paths) in by_rule {
                    let refusal = crate::init::ignored_refusal(first, "majordomus doctor");
                    let message = if paths.len() == 1 {
                        refusal.to_string()
                    } else {
                        refusal
                            .to_string()
                            .replacen(
                                &first.path,
                                &format!("{} record paths ({})", paths.len(), paths.join(", ")),
                                1,
                            )
                            .replacen(" is ignored by", " are ignored by", 1)
                    };
                    finding(&first.path, message, refusal.fix().unwrap_or_default());
                }
            }
            Check::SessionCommits => {
                for claimed in session_commits::check(ctx, &index)? {
                    finding(&claimed.file, claimed.message, claimed.fix);
                }
            }
            Check::ClientHooks => {
                let found = client_hooks::check(ctx.layout.root());
                note = found.note();
                for blocked in found.blocked {
                    finding(&blocked.file, blocked.message, blocked.fix);
                }
            }
            Check::TempFiles => {
                // Housekeeping, not a finding: what a killed writer left is removed here.
                let mut swept = sweep_tree(&ctx.layout.root().join(".ai"));
                // This run's own writes (the index's) may have swept some first.
                swept.removed.extend(swept_by_this_process());
                swept.removed.sort();
                swept.removed.dedup();
                let names = |paths: &[std::path::PathBuf]| {
                    paths
                        .iter()
                        .map(|p| ctx.layout.display(p))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let mut said = Vec::new();
                if !swept.removed.is_empty() {
                    said.push(format!(
                        "removed {} stale temp file(s) a killed writer left: {}",
                        swept.removed.len(),
                        names(&swept.removed)
                    ));
                }
                if !swept.live.is_empty() {
                    said.push(format!(
                        "left {} temp file(s) of writers still running: {}",
                        swept.live.len(),
                        names(&swept.live)
                    ));
                }
                if !said.is_empty() {
                    note = Some(said.join("; "));
                }
                phase.count("removed", swept.removed.len());
            }
        }
        phase.count("findings", findings.len());
        phase.end();
        let note = match (note, replaced) {
            (Some(n), Some(r)) => Some(format!("{n}; {r}")),
            (n, r) => n.or(r),
        };
        let status = if skipped_rule {
            RuleStatus::Skipped
        } else if findings.is_empty() {
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
            findings,
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
            .filter(|f| f.severity == sev && f.informational == informational)
            .count()
    };
    Ok(DoctorReport {
        blocking: count(Severity::Blocking, false) + count(Severity::Blocking, true),
        advisory: count(Severity::Advisory, false),
        informational: count(Severity::Advisory, true),
        rules: results,
        index_rebuilt: index.rebuilt().cloned(),
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
            Check::ALL.map(Check::id).join(", "),
            if vendored {
                "; vendor this version's package, or update majordomus to the version that vendored it"
            } else {
                ""
            }
        ),
        fix,
    }
}

/// What a stale record's finding says, and the command that re-verifies it once a person
/// checked it (a curated record cannot be promoted again).
fn stale_finding(record: &crate::knowledge::stale::StaleRecord) -> (String, String) {
    let moved: Vec<String> = record
        .targets
        .iter()
        .map(|t| {
            if t.commits.is_empty() {
                format!("{} {}", t.path, t.change.verb())
            } else {
                let by: Vec<String> = t.commits.iter().map(|c| c.short()).collect();
                format!("{} {} by {}", t.path, t.change.verb(), by.join(", "))
            }
        })
        .collect();
    let message = format!(
        "verified record {} was verified in {}; since then {}: if its claim still holds for them as they are now, re-verify it; if not, supersede it (docs/KNOWLEDGE.md, \"Stale knowledge\")",
        record.id,
        record.verified_in.short(),
        moved.join("; ")
    );
    let fix = format!("majordomus knowledge reverify {}", record.id);
    (message, fix)
}
