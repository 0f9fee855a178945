//! `majordomus doctor` (SPEC §5.5): the standard rule package, grouped, exit 10 on a
//! blocking finding; `watch` reruns it.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::knowledge::{CandidatesRequest, CheckRequest, Finding, Severity};
use crate::model::Verdict;
use crate::store::atomic::{sweep_tree, swept_by_this_process};
use crate::store::index::{IndexRebuilt, file_name};
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

/// The rule package shipped in `share/standard/rules/`.
pub const STANDARD_RULES: &str = include_str!("../../share/standard/rules/majordomus.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDecl {
    id: String,
    severity: Severity,
    description: String,
    /// `watch` reruns it.
    #[serde(default)]
    drift: bool,
    /// It reads the policy, so it cannot run while the policy is unreadable.
    #[serde(default)]
    needs_policy: bool,
}

#[derive(Debug, Clone, Deserialize)]
struct Package {
    rules: Vec<RuleDecl>,
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
    pub status: RuleStatus,
    /// Why the rule was skipped, or a fact worth saying when it passed.
    pub note: Option<String>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DoctorReport {
    pub rules: Vec<RuleResult>,
    pub blocking: usize,
    pub advisory: usize,
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

/// Runs every rule of the standard package.
pub fn doctor(ctx: &Ctx, request: DoctorRequest) -> Result<DoctorReport, Error> {
    let _total = Phase::start("doctor.total");
    ctx.require_initialised()?;
    let (policy, policy_error) = ctx.policy_lenient()?;
    let package: Package =
        yaml_serde::from_str(STANDARD_RULES).expect("the shipped rule package parses");

    // What the rules need from the ledger comes from its index: folds and lookups.
    let mut phase = Phase::start("doctor.index");
    let index = ctx.index()?;
    phase.count("lines", index.read().lines);
    phase.end();
    let now = ctx.clock.now();
    let mut results = Vec::new();
    for decl in package.rules {
        if request.drift_only && !decl.drift {
            continue;
        }
        let mut phase = Phase::start_with(|| {
            format!(
                "doctor.{}",
                decl.id.strip_prefix("majordomus.").unwrap_or(&decl.id)
            )
        });
        let mut findings = Vec::new();
        let mut note = None;
        let mut skipped_rule = false;
        if decl.needs_policy && policy_error.is_some() {
            results.push(RuleResult {
                rule: decl.id,
                severity: decl.severity,
                description: decl.description,
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
                file: file.to_owned(),
                rule: decl.id.clone(),
                severity: decl.severity,
                message,
                fix,
            })
        };
        match decl.id.as_str() {
            "majordomus.policy-valid" => {
                if let Some(e) = &policy_error {
                    let report = e.report();
                    findings.push(Finding {
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
            "majordomus.knowledge-observed" => {
                if !index.any_episode_derived() {
                    skipped_rule = true;
                    note = Some(
                        "skipped: this ledger has no knowledge.derived line at all, so freshness is not judged"
                            .to_owned(),
                    );
                } else if let Some(last) = index.last_episode_closed()
                    && let Some(episode) = &last.episode
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
            "majordomus.knowledge-integrity" => {
                for f in crate::knowledge::check(ctx, CheckRequest {})?.findings {
                    findings.push(f);
                }
            }
            "majordomus.candidates-reviewed" => {
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
                // Candidates are keyed by file name: a candidate derived on the trunk is
                // named by its outbox path in the ledger and lives under candidates/ after
                // the drain.
                let mut derived_paths: HashMap<String, String> = HashMap::new();
                for c in &listing.candidates {
                    let name = file_name(&c.path);
                    if let Some(ts) = index.first_derived(name)? {
                        derived_paths.insert(name.to_owned(), ts);
                    }
                }
                // Candidates this ledger never derived (a teammate's, say) are aged from
                // the commit that added them: one walk, stopping once all are placed.
                let added = ctx.repo.added_at(
                    listing
                        .candidates
                        .iter()
                        .filter(|c| !derived_paths.contains_key(file_name(&c.path)))
                        .map(|c| c.path.as_str()),
                )?;
                for c in &listing.candidates {
                    let (since, source) =
                        match (derived_paths.get(file_name(&c.path)), added.get(&c.path)) {
                            (Some(ts), _) => (ts.clone(), "the oldest knowledge.derived naming it"),
                            (None, Some(ts)) => (ts.clone(), "the commit that added it"),
                            (None, None) => (
                                c.date.clone(),
                                "its date (no knowledge.derived names it, no commit added it)",
                            ),
                        };
                    if let Some(at) = crate::model::time::parse(&since) {
                        let age = (now - at).whole_minutes();
                        if age > limit {
                            finding(
                                &c.path,
                                format!(
                                    "awaiting review for {age} minutes (limit {limit}), measured from {source}"
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
            "majordomus.ledger-health" => {
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
            "majordomus.outbox-empty" => {
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
            "majordomus.provider-events" => {
                let (failures, total) = index.provider_failures();
                let unlisted = total.saturating_sub(failures.len() as u64);
                if unlisted > 0 {
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!(
                            "{unlisted} earlier provider hook failure(s) besides the newest {}",
                            failures.len()
                        ),
                        "majordomus history --event provider.event.failed lists them all".into(),
                    );
                }
                for failed in &failures {
                    finding(
                        ".ai/local/ledger.jsonl",
                        format!(
                            "#{} {}: provider hook {} failed: {}",
                            failed.seq, failed.ts, failed.hook, failed.error
                        ),
                        "see docs/HOOKS.md; rerun the hook by hand to see the error".into(),
                    );
                }
            }
            "majordomus.temp-files" => {
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
            other => unreachable!("the shipped rule package names rule {other}, which has no code"),
        }
        phase.count("findings", findings.len());
        phase.end();
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
            status,
            note,
            findings,
        });
    }
    let count = |sev: Severity| {
        results
            .iter()
            .flat_map(|r| &r.findings)
            .filter(|f| f.severity == sev)
            .count()
    };
    Ok(DoctorReport {
        blocking: count(Severity::Blocking),
        advisory: count(Severity::Advisory),
        rules: results,
        index_rebuilt: index.rebuilt().cloned(),
    })
}
