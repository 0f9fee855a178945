//! Intents and the binding (SPEC §6): the plan's records, their strict parsing, the one
//! binding derivation with its two pins, the handover answer and the `plan start` edit.
//!
//! Everything here is pure. The caller lists `.ai/repo/intents/`, reads the files and the
//! blob ids at HEAD, and hands text and a lookup in; nothing here touches the filesystem,
//! git or the clock.
//!
//! # Decisions where SPEC §6 is silent
//!
//! - **The plan.** No intents directory, or one holding neither an intent file nor
//!   `milestones.yaml`, is `no_plan`. Any file that does not parse makes the whole plan
//!   unreadable (`plan_unreadable`, one error per broken file, each naming the file and
//!   the key path): a binding judged against part of a plan could pass where the whole
//!   would refuse. Beyond the schema the parser refuses: an `id` other than the file
//!   stem, repeated criterion, issue or finding ids, a `serves` entry naming no criterion
//!   of the same intent, a glob that does not compile, and one issue id declared in two
//!   intents (`--issue` must name one issue). Required text and ids must be non-empty
//!   strings; optional fields may be absent or null. An issue's `milestone` needs no entry
//!   in `milestones.yaml` (the file only lists maintenance paths).
//! - **Paths.** Globs compile with `literal_separator` (`*` stays inside one directory,
//!   `**` crosses them), as `.gitignore` readers expect. A scope path *reaches* a glob when
//!   the glob matches it or, taken as a directory, the glob could match something below
//!   it: `docs` reaches `docs/auth/**`. So a wide scope reaches every issue beneath it.
//! - **Which causes combine.** The binding reports every cause it can establish, so one
//!   answer says everything that needs fixing (ambiguity is reported together with the
//!   reached intents' missing or blocking critiques). Causes that need an object which
//!   does not exist stop there: an unknown issue has no status to judge. `no_plan` and
//!   `plan_unreadable` stand alone, except beside an exemption's own causes.
//! - **Exemptions** are judged on their own: a declared class, a reason, no `--issue` or
//!   `--intent` beside them. A scope may accompany an exemption (it is the task's scope).
//!   With no plan an exemption still holds (no intent can be served); an unreadable plan
//!   refuses it too, since unknown is never pass.
//! - **Named work and scope.** A named issue's scope is its `paths` unless a scope is
//!   given. Given scope paths that reach none of the named issue's globs are said in the
//!   `note`, never refused: the design rejects refusing a scope outside the named issue
//!   (issue scopes omit generated projections a change must regenerate). Only paths alone
//!   that fall outside the whole plan are `paths_outside_plan`.
//! - **Paths alone** reach the issues whose globs they reach (any status), and the issues
//!   naming a milestone whose paths they reach. Retired intents claim no paths; a scope
//!   reaching only a retired intent's issues is `intent_retired`. More than one intent
//!   reached is `ambiguous_intent` (the note names the candidate issues). One intent
//!   reached binds to it; the `issue` is named when exactly one reached issue is not done;
//!   only done issues reached is `issue_done`. Paths reaching only milestones that no
//!   issue names are `maintenance`; paths reaching nothing are `paths_outside_plan`.
//! - **Pins.** `plan_revision` covers the served intents with their *resolved issues*:
//!   the named issue; every issue of a named intent; the issues paths alone reached. The
//!   resolved set never depends on statuses, so `plan start` moves no pin. `maintenance`
//!   and `exempt` serve no intent and pin the empty plan (so a handover written under
//!   maintenance answers `plan_changed` once an intent claims its paths); a refusal pins
//!   nothing. Evidence a callback cannot resolve contributes `missing`.

pub mod binding;
pub mod edit;
mod fast;
pub mod handover;
pub mod parse;
mod paths;
pub mod pins;
pub mod refused;

use schemars::JsonSchema;
use serde::Serialize;

pub use binding::{Binding, BindingRequest, BindingStatus, Cause, bind, critique_again};
pub use edit::{EditError, set_issue_status};
pub use handover::{Answer, HandoverAnswer, resolve_handover};
pub use parse::{Plan, PlanError, PlanFile, PlanInput, parse_intent, parse_milestones};
pub use pins::{critique_revision, evidence_standing, plan_revision};

/// One intent: `.ai/repo/intents/<id>.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Intent {
    pub id: String,
    pub status: IntentStatus,
    pub statement: String,
    pub invariants: Vec<String>,
    pub non_goals: Vec<String>,
    pub criteria: Vec<Criterion>,
    pub issues: Vec<Issue>,
    pub critiques: Vec<Critique>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntentStatus {
    Active,
    Retired,
}

/// An acceptance criterion and the references that evidence it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Criterion {
    pub id: String,
    pub text: String,
    pub evidence: Vec<String>,
}

/// A unit of planned work: where it happens and which criteria it serves.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Issue {
    pub id: String,
    pub title: String,
    pub status: IssueStatus,
    pub paths: Vec<String>,
    pub serves: Vec<String>,
    pub milestone: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IssueStatus {
    Open,
    Active,
    Done,
}

impl IssueStatus {
    /// The spelling in an intent file.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueStatus::Open => "open",
            IssueStatus::Active => "active",
            IssueStatus::Done => "done",
        }
    }
}

/// A critique of the plan, written at a commit.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Critique {
    pub commit: Option<String>,
    pub plan_revision: Option<String>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Finding {
    pub id: String,
    pub blocking: bool,
    pub text: String,
    pub resolution: Option<String>,
}

impl Finding {
    /// A finding blocks while it is blocking and has no resolution.
    pub fn blocks(&self) -> bool {
        self.blocking
            && self
                .resolution
                .as_deref()
                .is_none_or(|r| r.trim().is_empty())
    }
}

/// A milestone with the maintenance paths `milestones.yaml` lists for it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Milestone {
    pub id: String,
    pub paths: Vec<String>,
}

impl Intent {
    /// Critiqued: at least one critique.
    pub fn is_critiqued(&self) -> bool {
        !self.critiques.is_empty()
    }

    /// The ids of findings that block (blocking and unresolved), in file order.
    pub fn blocking_findings(&self) -> Vec<&str> {
        self.critiques
            .iter()
            .flat_map(|c| &c.findings)
            .filter(|f| f.blocks())
            .map(|f| f.id.as_str())
            .collect()
    }

    /// The revision the latest critique reviewed, when the plan has moved since: the last
    /// critique carries a `plan_revision` and it differs from [`critique_revision`] now.
    /// A critique without a `plan_revision` (written before critiques carried one) is
    /// never stale: there is nothing to compare.
    pub fn stale_critique(&self) -> Option<&str> {
        let reviewed = self.critiques.last()?.plan_revision.as_deref()?;
        (reviewed != critique_revision(self)).then_some(reviewed)
    }

    /// True when some issue is open or active.
    pub fn has_open_work(&self) -> bool {
        self.issues.iter().any(|i| i.status != IssueStatus::Done)
    }
}
