//! The binding (SPEC §6): one read-only derivation of which intent a piece of work
//! serves, whether it is maintenance or exempt, or why it may not start; with its pins.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{Plan, PlanInput};
use super::paths::reaches_any;
use super::pins::{Served, evidence_standing, plan_revision};
use super::{Intent, IntentStatus, Issue, IssueStatus};
use crate::model::policy::Exemption;

/// What the worker named: `intent binding` / `task start` flags.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BindingRequest {
    /// `--issue`.
    pub issue: Option<String>,
    /// `--intent`.
    pub intent: Option<String>,
    /// `--scope`: repository-relative paths; a directory ends in `/`.
    pub scope: Vec<String>,
    /// `--exempt`: a declared exemption class.
    pub exempt: Option<String>,
    /// `--because`: the exemption's reason.
    pub because: Option<String>,
    /// Files the task's commits changed (`task finish`, pre-push); those outside the
    /// scope are said in the note, never refused.
    pub changed: Vec<String>,
    /// Whether a stale critique refuses (`intent.binding: required`); otherwise
    /// `critique_stale` is reported on an answer that still binds.
    pub critique_stale_refuses: bool,
}

/// The answer of the binding.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Binding {
    pub status: BindingStatus,
    /// Why it is refused. An answer that is not refused lists only what is reported
    /// without refusing: `critique_stale` unless the policy is `required`.
    pub causes: Vec<Cause>,
    /// The named issue, or the one open issue the scope reaches.
    pub issue: Option<String>,
    /// The served intent (or the one named, when refused).
    pub intent: Option<String>,
    /// The exemption class asked for.
    pub exemption: Option<String>,
    /// sha256 over the served plan; absent when refused.
    pub plan_revision: Option<String>,
    /// sha256 over the served criteria's evidence; absent when refused.
    pub evidence_standing: Option<String>,
    /// The task's scope: the given scope, else the named work's paths.
    pub scope: Vec<String>,
    /// Changed files outside `scope` (advisory).
    pub outside_scope: Vec<String>,
    /// What happened and, when refused, what would fix it.
    pub note: String,
}

impl Binding {
    /// The answer in a few lines: status, what it serves or why it is refused, the pins.
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let b = self;
        let mut out = String::new();
        let status = match b.status {
            BindingStatus::Bound => "bound",
            BindingStatus::Maintenance => "maintenance",
            BindingStatus::Exempt => "exempt",
            BindingStatus::Refused => "refused",
        };
        let _ = write!(out, "binding: {status}");
        if let Some(issue) = &b.issue {
            let _ = write!(out, ", issue {issue}");
        }
        if let Some(intent) = &b.intent {
            let _ = write!(out, ", intent {intent}");
        }
        if let Some(class) = &b.exemption {
            let _ = write!(out, ", exemption {class}");
        }
        out.push('\n');
        if !b.causes.is_empty() {
            let causes: Vec<&str> = b.causes.iter().map(|c| c.as_str()).collect();
            let _ = writeln!(out, "causes: {}", causes.join(", "));
        }
        if !b.note.is_empty() {
            let _ = writeln!(out, "note: {}", b.note);
        }
        if let (Some(plan), Some(evidence)) = (&b.plan_revision, &b.evidence_standing) {
            let _ = writeln!(
                out,
                "pins: plan_revision {}, evidence_standing {}",
                &plan[..plan.len().min(12)],
                &evidence[..evidence.len().min(12)]
            );
        }
        if !b.outside_scope.is_empty() {
            let _ = writeln!(out, "outside the scope: {}", b.outside_scope.join(", "));
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BindingStatus {
    /// The work serves an intent.
    Bound,
    /// The work lies under milestone paths no intent names; no exemption needed.
    Maintenance,
    /// A declared exemption with a reason.
    Exempt,
    /// The work may not start under this answer; see `causes`.
    Refused,
}

/// Why a binding is refused, in the order answers list them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    NoPlan,
    PlanUnreadable,
    UnknownIssue,
    IssueDone,
    IntentNotCritiqued,
    CritiqueBlocking,
    CritiqueStale,
    PathsOutsidePlan,
    NothingNamed,
    UnknownIntent,
    IntentRetired,
    IntentHasNoOpenWork,
    IssueOutsideIntent,
    AmbiguousIntent,
    UnknownExemption,
    ExemptionWithoutReason,
    ExemptionNamesWork,
}

impl Cause {
    /// Every cause, in answer order.
    pub const ALL: [Cause; 17] = [
        Cause::NoPlan,
        Cause::PlanUnreadable,
        Cause::UnknownIssue,
        Cause::IssueDone,
        Cause::IntentNotCritiqued,
        Cause::CritiqueBlocking,
        Cause::CritiqueStale,
        Cause::PathsOutsidePlan,
        Cause::NothingNamed,
        Cause::UnknownIntent,
        Cause::IntentRetired,
        Cause::IntentHasNoOpenWork,
        Cause::IssueOutsideIntent,
        Cause::AmbiguousIntent,
        Cause::UnknownExemption,
        Cause::ExemptionWithoutReason,
        Cause::ExemptionNamesWork,
    ];

    /// The spelling in answers and ledger lines.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::NoPlan => "no_plan",
            Cause::PlanUnreadable => "plan_unreadable",
            Cause::UnknownIssue => "unknown_issue",
            Cause::IssueDone => "issue_done",
            Cause::IntentNotCritiqued => "intent_not_critiqued",
            Cause::CritiqueBlocking => "critique_blocking",
            Cause::CritiqueStale => "critique_stale",
            Cause::PathsOutsidePlan => "paths_outside_plan",
            Cause::NothingNamed => "nothing_named",
            Cause::UnknownIntent => "unknown_intent",
            Cause::IntentRetired => "intent_retired",
            Cause::IntentHasNoOpenWork => "intent_has_no_open_work",
            Cause::IssueOutsideIntent => "issue_outside_intent",
            Cause::AmbiguousIntent => "ambiguous_intent",
            Cause::UnknownExemption => "unknown_exemption",
            Cause::ExemptionWithoutReason => "exemption_without_reason",
            Cause::ExemptionNamesWork => "exemption_names_work",
        }
    }
}

/// Derives the binding of `ask` against `plan`. `exemptions` are the policy's declared
/// classes (`intent.exemptions`); `evidence` returns the blob id at HEAD of a
/// repository path, `None` when it has none.
pub fn bind(
    plan: &PlanInput,
    ask: &BindingRequest,
    exemptions: &[Exemption],
    evidence: &dyn Fn(&str) -> Option<String>,
) -> Binding {
    let mut draft = Draft {
        issue: ask.issue.clone(),
        intent: ask.intent.clone(),
        scope: ask.scope.clone(),
        stale_refuses: ask.critique_stale_refuses,
        ..Draft::default()
    };
    if let Some(class) = &ask.exempt {
        judge_exemption(plan, ask, class, exemptions, &mut draft);
        return draft.finish(BindingStatus::Exempt, ask, evidence);
    }
    let plan = match plan {
        PlanInput::NoPlan => {
            draft.refuse(
                Cause::NoPlan,
                "no plan: .ai/repo/intents/ declares no intent; declare the work in \
                 .ai/repo/intents/<id>.yaml, or ask with --exempt CLASS --because REASON \
                 if no intent serves it",
            );
            return draft.finish(BindingStatus::Refused, ask, evidence);
        }
        PlanInput::Unreadable(errors) => {
            draft.refuse(Cause::PlanUnreadable, unreadable_sentence(errors));
            return draft.finish(BindingStatus::Refused, ask, evidence);
        }
        PlanInput::Plan(plan) => plan,
    };
    let status = match (&ask.issue, &ask.intent) {
        (Some(issue), _) => bind_issue(plan, issue, ask, &mut draft),
        (None, Some(intent)) => bind_intent(plan, intent, ask, &mut draft),
        (None, None) if !ask.scope.is_empty() => bind_paths(plan, &ask.scope, &mut draft),
        (None, None) => {
            draft.refuse(
                Cause::NothingNamed,
                "nothing named: name the issue (--issue ID), the intent (--intent ID) or \
                 the paths (--scope PATH), or ask with --exempt CLASS --because REASON",
            );
            BindingStatus::Refused
        }
    };
    draft.finish(status, ask, evidence)
}

/// The answer under construction: causes with their sentences, what resolved, remarks.
#[derive(Default)]
struct Draft<'p> {
    causes: Vec<(Cause, String)>,
    summary: String,
    remarks: Vec<String>,
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<String>,
    served: Vec<Served<'p>>,
    scope: Vec<String>,
    /// `critique_stale` refuses (`required`) or is reported.
    stale_refuses: bool,
    /// Causes reported on an answer that still binds.
    reported: Vec<(Cause, String)>,
}

impl<'p> Draft<'p> {
    fn refuse(&mut self, cause: Cause, sentence: impl Into<String>) {
        self.causes.push((cause, sentence.into()));
    }

    /// Refuses work on an intent that is retired or whose plan was not critiqued or has
    /// blocking findings.
    fn judge_intent(&mut self, intent: &Intent) {
        let id = &intent.id;
        if intent.status == IntentStatus::Retired {
            self.refuse(
                Cause::IntentRetired,
                format!("intent `{id}` is retired; name work of an active intent"),
            );
        }
        if !intent.is_critiqued() {
            self.refuse(
                Cause::IntentNotCritiqued,
                format!(
                    "intent `{id}` has no critique; critique its plan and record it under \
                     `critiques:` in {} before work begins",
                    intent_file(id)
                ),
            );
        }
        if let Some(reviewed) = intent.stale_critique() {
            let sentence = format!(
                "intent `{id}`'s latest critique is stale: it reviewed plan revision {} and \
                 the plan has changed since; {}",
                &reviewed[..reviewed.len().min(12)],
                critique_again(intent)
            );
            if self.stale_refuses {
                self.refuse(Cause::CritiqueStale, sentence);
            } else if !self.reported.iter().any(|(_, s)| *s == sentence) {
                self.reported.push((Cause::CritiqueStale, sentence));
            }
        }
        let blocking = intent.blocking_findings();
        if !blocking.is_empty() {
            self.refuse(
                Cause::CritiqueBlocking,
                format!(
                    "intent `{id}` has blocking critique findings {}; give each a \
                     `resolution:` in {}",
                    quoted(&blocking),
                    intent_file(id)
                ),
            );
        }
    }

    fn finish(
        self,
        status: BindingStatus,
        ask: &BindingRequest,
        evidence: &dyn Fn(&str) -> Option<String>,
    ) -> Binding {
        let outside_scope: Vec<String> = if self.scope.is_empty() {
            Vec::new()
        } else {
            ask.changed
                .iter()
                .filter(|file| !reaches_any(file.trim_end_matches('/'), &self.scope))
                .cloned()
                .collect()
        };
        let mut remarks = self.remarks;
        let mut causes = self.causes;
        let refused = !causes.is_empty();
        if !refused {
            for (cause, sentence) in self.reported {
                remarks.push(format!("reported, not refused: {sentence}"));
                causes.push((cause, sentence));
            }
        }
        if !outside_scope.is_empty() {
            remarks.push(format!(
                "changed outside the scope (advisory): {}",
                outside_scope.join(", ")
            ));
        }
        causes.sort_by_key(|(cause, _)| *cause);
        let sentences: Vec<&str> = if refused {
            causes.iter().map(|(_, s)| s.as_str()).collect()
        } else {
            vec![self.summary.as_str()]
        };
        let note = sentences
            .into_iter()
            .chain(remarks.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("; ");
        let mut ids: Vec<Cause> = causes.iter().map(|(cause, _)| *cause).collect();
        ids.dedup();
        Binding {
            status: if refused {
                BindingStatus::Refused
            } else {
                status
            },
            causes: ids,
            issue: self.issue,
            intent: self.intent,
            exemption: self.exemption,
            plan_revision: (!refused).then(|| plan_revision(&self.served)),
            evidence_standing: (!refused).then(|| evidence_standing(&self.served, evidence)),
            scope: self.scope,
            outside_scope,
            note: if refused {
                format!("refused: {note}")
            } else {
                note
            },
        }
    }
}

/// An exemption: a declared class, a reason, and no named work beside it.
fn judge_exemption(
    plan: &PlanInput,
    ask: &BindingRequest,
    class: &str,
    exemptions: &[Exemption],
    draft: &mut Draft,
) {
    draft.exemption = Some(class.to_owned());
    if ask.issue.is_some() || ask.intent.is_some() {
        draft.refuse(
            Cause::ExemptionNamesWork,
            "an exemption cannot stand beside named work: drop --exempt to bind the named \
             issue or intent, or drop --issue/--intent if no intent serves this work",
        );
    }
    let declared = exemptions.iter().find(|e| e.class == class);
    if declared.is_none() {
        let classes: Vec<&str> = exemptions.iter().map(|e| e.class.as_str()).collect();
        draft.refuse(
            Cause::UnknownExemption,
            if classes.is_empty() {
                format!(
                    "`{class}` is not a declared exemption class and the policy declares \
                     none; declare it under intent.exemptions in .ai/repo/policy.yaml"
                )
            } else {
                format!(
                    "`{class}` is not a declared exemption class; use one of {} or declare \
                     it under intent.exemptions in .ai/repo/policy.yaml",
                    quoted(&classes)
                )
            },
        );
    }
    let reason = ask.because.as_deref().map(str::trim).unwrap_or("");
    if reason.is_empty() {
        draft.refuse(
            Cause::ExemptionWithoutReason,
            "an exemption needs a reason: add --because \"<why no intent serves this work>\"",
        );
    }
    if let PlanInput::Unreadable(errors) = plan {
        draft.refuse(Cause::PlanUnreadable, unreadable_sentence(errors));
    }
    if let Some(declared) = declared {
        draft.summary = format!(
            "exempt as `{class}` ({}) because {reason}; no intent is served",
            declared.description
        );
    }
}

fn bind_issue<'p>(
    plan: &'p Plan,
    id: &str,
    ask: &BindingRequest,
    draft: &mut Draft<'p>,
) -> BindingStatus {
    let named = ask.intent.as_deref().map(|name| (name, plan.intent(name)));
    if let Some((name, None)) = named {
        draft.refuse(Cause::UnknownIntent, unknown_intent_sentence(plan, name));
    }
    let Some((intent, issue)) = plan.issue(id) else {
        draft.refuse(
            Cause::UnknownIssue,
            format!("no intent declares issue `{id}`; name an issue of .ai/repo/intents/*.yaml"),
        );
        return BindingStatus::Refused;
    };
    if let Some((name, Some(_))) = named
        && name != intent.id
    {
        draft.refuse(
            Cause::IssueOutsideIntent,
            format!(
                "issue `{id}` belongs to intent `{}`, not `{name}`; name --intent {} or \
                 drop --intent",
                intent.id, intent.id
            ),
        );
    }
    draft.judge_intent(intent);
    if issue.status == IssueStatus::Done {
        draft.refuse(
            Cause::IssueDone,
            format!(
                "issue `{id}` is done; name open work, or reopen it (status: open) in {}",
                intent_file(&intent.id)
            ),
        );
    }
    if ask.intent.is_none() {
        draft.intent = Some(intent.id.clone());
    }
    draft.served = vec![Served {
        intent,
        issues: vec![issue],
    }];
    if ask.scope.is_empty() {
        draft.scope = issue.paths.clone();
    } else {
        let outside: Vec<&str> = ask
            .scope
            .iter()
            .filter(|p| !reaches_any(p, &issue.paths))
            .map(String::as_str)
            .collect();
        if !outside.is_empty() {
            draft.remarks.push(format!(
                "the scope names {} outside issue `{id}`'s paths (said, not refused)",
                outside.join(", ")
            ));
        }
    }
    draft.summary = format!(
        "bound to issue `{id}` of intent `{}`{}",
        intent.id,
        serves_clause(issue)
    );
    BindingStatus::Bound
}

fn bind_intent<'p>(
    plan: &'p Plan,
    id: &str,
    ask: &BindingRequest,
    draft: &mut Draft<'p>,
) -> BindingStatus {
    let Some(intent) = plan.intent(id) else {
        draft.refuse(Cause::UnknownIntent, unknown_intent_sentence(plan, id));
        return BindingStatus::Refused;
    };
    draft.judge_intent(intent);
    if !intent.has_open_work() {
        draft.refuse(
            Cause::IntentHasNoOpenWork,
            format!(
                "intent `{id}` has no open or active issue; add the work as an issue in {}, \
                 or name another intent",
                intent_file(id)
            ),
        );
    }
    let open: Vec<&Issue> = intent
        .issues
        .iter()
        .filter(|i| i.status != IssueStatus::Done)
        .collect();
    if ask.scope.is_empty() {
        for path in open.iter().flat_map(|i| &i.paths) {
            if !draft.scope.contains(path) {
                draft.scope.push(path.clone());
            }
        }
    } else {
        let reached: Vec<&Issue> = open
            .iter()
            .copied()
            .filter(|i| ask.scope.iter().any(|p| reaches_any(p, &i.paths)))
            .collect();
        if let [only] = reached.as_slice() {
            draft.issue = Some(only.id.clone());
        }
        let outside: Vec<&str> = ask
            .scope
            .iter()
            .filter(|p| !intent.issues.iter().any(|i| reaches_any(p, &i.paths)))
            .map(String::as_str)
            .collect();
        if !outside.is_empty() {
            draft.remarks.push(format!(
                "the scope names {} outside every issue of intent `{id}` (said, not refused)",
                outside.join(", ")
            ));
        }
    }
    draft.served = vec![Served {
        intent,
        issues: intent.issues.iter().collect(),
    }];
    draft.summary = match &draft.issue {
        Some(issue) => format!("bound to intent `{id}`; the scope reaches its issue `{issue}`"),
        None => format!("bound to intent `{id}`"),
    };
    BindingStatus::Bound
}

/// Paths alone: the intents they reach decide.
fn bind_paths<'p>(plan: &'p Plan, scope: &[String], draft: &mut Draft<'p>) -> BindingStatus {
    let active: Vec<&Intent> = plan
        .intents
        .iter()
        .filter(|i| i.status == IntentStatus::Active)
        .collect();
    let named_milestones: BTreeSet<&str> = active
        .iter()
        .flat_map(|i| &i.issues)
        .filter_map(|i| i.milestone.as_deref())
        .collect();
    let reaches_issue = |path: &str, issue: &Issue| {
        reaches_any(path, &issue.paths)
            || issue.milestone.as_deref().is_some_and(|m| {
                plan.milestones
                    .iter()
                    .any(|ms| ms.id == m && reaches_any(path, &ms.paths))
            })
    };

    // (intent index in `active`, issue) pairs, in plan order.
    let mut reached: Vec<(usize, &Issue)> = Vec::new();
    let mut maintenance: Vec<(&str, &str)> = Vec::new();
    let mut retired: Vec<(&str, &str)> = Vec::new();
    let mut outside: Vec<&str> = Vec::new();
    for path in scope {
        let mut hit = false;
        for (n, intent) in active.iter().enumerate() {
            for issue in intent.issues.iter().filter(|i| reaches_issue(path, i)) {
                hit = true;
                if !reached.iter().any(|(_, i)| i.id == issue.id) {
                    reached.push((n, issue));
                }
            }
        }
        if hit {
            continue;
        }
        if let Some(m) = plan
            .milestones
            .iter()
            .find(|m| !named_milestones.contains(m.id.as_str()) && reaches_any(path, &m.paths))
        {
            maintenance.push((path, &m.id));
        } else if let Some(intent) = plan.intents.iter().find(|i| {
            i.status == IntentStatus::Retired
                && i.issues.iter().any(|issue| reaches_issue(path, issue))
        }) {
            retired.push((path, &intent.id));
        } else {
            outside.push(path);
        }
    }
    reached.sort_by_key(|(n, _)| *n);

    if !outside.is_empty() {
        draft.refuse(
            Cause::PathsOutsidePlan,
            format!(
                "no issue or milestone of the plan claims {}; name the issue the work \
                 serves, add the paths to an issue or to a milestone in \
                 .ai/repo/intents/milestones.yaml, or ask with --exempt CLASS --because \
                 REASON",
                outside.join(", ")
            ),
        );
    }
    for (path, intent) in &retired {
        draft.refuse(
            Cause::IntentRetired,
            format!(
                "{path} is claimed only by intent `{intent}`, which is retired; name work \
                 of an active intent or claim the path in one"
            ),
        );
    }
    let mut intents: Vec<usize> = reached.iter().map(|(n, _)| *n).collect();
    intents.dedup();
    match intents.as_slice() {
        [] => {}
        [n] => {
            let intent = active[*n];
            draft.intent = Some(intent.id.clone());
            draft.judge_intent(intent);
            let issues: Vec<&Issue> = reached.iter().map(|(_, i)| *i).collect();
            let open: Vec<&str> = issues
                .iter()
                .filter(|i| i.status != IssueStatus::Done)
                .map(|i| i.id.as_str())
                .collect();
            match open.as_slice() {
                [] => {
                    let done: Vec<&str> = issues.iter().map(|i| i.id.as_str()).collect();
                    draft.refuse(
                        Cause::IssueDone,
                        format!(
                            "the scope reaches only done issues {} of intent `{}`; name \
                             open work, or reopen one (status: open) in {}",
                            quoted(&done),
                            intent.id,
                            intent_file(&intent.id)
                        ),
                    );
                }
                [only] => {
                    draft.issue = Some((*only).to_owned());
                    draft.summary = format!(
                        "bound to issue `{only}` of intent `{}` by its paths",
                        intent.id
                    );
                }
                several => {
                    draft.summary = format!(
                        "bound to intent `{}`: the scope reaches its issues {}; name one with \
                         --issue to pin it",
                        intent.id,
                        quoted(several)
                    );
                }
            }
            draft.served = vec![Served { intent, issues }];
        }
        several => {
            let candidates: Vec<String> = several
                .iter()
                .map(|n| {
                    let ids: Vec<&str> = reached
                        .iter()
                        .filter(|(m, _)| m == n)
                        .map(|(_, i)| i.id.as_str())
                        .collect();
                    format!("`{}` (issues {})", active[*n].id, quoted(&ids))
                })
                .collect();
            draft.refuse(
                Cause::AmbiguousIntent,
                format!(
                    "the scope reaches intents {}; name the issue the work serves with \
                     --issue",
                    candidates.join(", ")
                ),
            );
            for n in several {
                draft.judge_intent(active[*n]);
            }
        }
    }
    if !maintenance.is_empty() {
        let listed: Vec<String> = maintenance
            .iter()
            .map(|(path, m)| format!("{path} (milestone `{m}`)"))
            .collect();
        let sentence = format!(
            "{} lie under milestones no intent names: maintenance, no exemption needed",
            listed.join(", ")
        );
        if intents.is_empty() {
            draft.summary = format!("maintenance: {sentence}");
            return BindingStatus::Maintenance;
        }
        draft.remarks.push(sentence);
    }
    BindingStatus::Bound
}

fn unreadable_sentence(errors: &[super::PlanError]) -> String {
    let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!(
        "the plan cannot be read ({}); fix the file and ask again",
        listed.join("; ")
    )
}

fn unknown_intent_sentence(plan: &Plan, id: &str) -> String {
    let known: Vec<&str> = plan.intents.iter().map(|i| i.id.as_str()).collect();
    if known.is_empty() {
        format!("no intent `{id}`: .ai/repo/intents/ declares none")
    } else {
        format!("no intent `{id}`; name one of {}", quoted(&known))
    }
}

fn serves_clause(issue: &Issue) -> String {
    if issue.serves.is_empty() {
        String::new()
    } else {
        let ids: Vec<&str> = issue.serves.iter().map(String::as_str).collect();
        format!(" (serves {})", quoted(&ids))
    }
}

fn quoted(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fix for a stale critique: critique the plan again and record it with the revision
/// it reviewed, given in full so the fix works as printed.
pub fn critique_again(intent: &Intent) -> String {
    format!(
        "critique the plan again and record it as a new entry under `critiques:` in {} \
         with `plan_revision: {}` and its findings",
        intent_file(&intent.id),
        super::critique_revision(intent)
    )
}

fn intent_file(id: &str) -> String {
    format!(".ai/repo/intents/{id}.yaml")
}

#[cfg(test)]
mod tests;
