//! The checks doctor has, one file each: what each reads and the findings it returns, and
//! [`RULES`], the registry `doctor()` runs a declared rule id through (docs/RULES.md, "Adding
//! a rule").

mod advisors_available;
mod advisors_optional;
mod candidates_reviewed;
mod client_hooks;
mod hooks_reached;
mod intent_validated;
mod journal_pushed;
mod journal_restorable;
mod knowledge_integrity;
mod knowledge_observed;
mod knowledge_stale;
mod ledger_health;
mod outbox_empty;
mod policy_valid;
mod provider_events;
mod records_visible;
mod review_recorded;
mod session_commits;
mod temp_files;

use time::OffsetDateTime;

use crate::Ctx;
use crate::error::Error;
use crate::hooks::HooksState;
use crate::knowledge::{Finding, Severity};
use crate::model::Policy;
use crate::store::index::LedgerIndex;

/// Every check this build has, in the order doctor names them (`rules.known`). A rule id a
/// package or project file declares runs only if it is one of these.
pub(crate) static RULES: &[&Rule] = &[
    &policy_valid::RULE,
    &knowledge_observed::RULE,
    &knowledge_integrity::RULE,
    &candidates_reviewed::RULE,
    &ledger_health::RULE,
    &outbox_empty::RULE,
    &provider_events::RULE,
    &knowledge_stale::RULE,
    &intent_validated::RULE,
    &advisors_optional::RULE,
    &temp_files::RULE,
    &hooks_reached::RULE,
    &session_commits::RULE,
    &records_visible::RULE,
    &client_hooks::RULE,
    &journal_pushed::RULE,
    &journal_restorable::RULE,
    &advisors_available::RULE,
    &review_recorded::RULE,
];

/// The check for rule id `id`, if this build has one.
pub(crate) fn for_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

/// One check: the id a rule file declares it by, what it reads, and the function that
/// returns its findings.
pub(crate) struct Rule {
    /// The rule id (`majordomus.<what holds>`).
    pub id: &'static str,
    /// What it reads. Doctor reads the shared inputs ([`Input::LedgerIndex`],
    /// [`Input::GitHooks`]) once, and only when a rule it runs declares them; a rule reads
    /// the others itself.
    pub reads: &'static [Input],
    /// Judges the repository into `out`.
    pub check: fn(&Inputs<'_>, &mut Outcome) -> Result<(), Error>,
}

/// What a rule reads: the shared inputs doctor reads for it, and what it reads itself
/// (said so the cost of a rule, which runs in hooks, is visible where it is declared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    /// `.ai/repo/policy.yaml` (read once, always: `policy-valid` reports it).
    Policy,
    /// The ledger's index (`.ai/local/index/`): folds and lookups over the ledger.
    LedgerIndex,
    /// How git reaches majordomus from its hooks (`hooks::reach`: `core.hooksPath`, the
    /// hook files and the managers in front of them).
    GitHooks,
    /// The records under `.ai/repo/` (knowledge, sessions, intents).
    Records,
    /// Git's objects, refs and index (through gix).
    Git,
    /// Files of the work tree outside the records (`.ai/local/`, agent-client configs).
    Files,
}

/// What doctor read for the rules it runs: each shared input at most once.
pub(crate) struct Inputs<'a> {
    pub ctx: &'a Ctx,
    pub now: OffsetDateTime,
    /// The policy, or its defaults while it cannot be read (`policy_error`).
    pub policy: &'a Policy,
    pub policy_error: Option<&'a Error>,
    pub(super) index: Option<&'a LedgerIndex>,
    pub(super) hooks: Option<&'a HooksState>,
}

impl Inputs<'_> {
    /// The ledger index, for a rule that declares [`Input::LedgerIndex`].
    pub fn index(&self) -> &LedgerIndex {
        self.index
            .expect("doctor reads the ledger index for every rule that declares it")
    }

    /// The git hooks' reach, for a rule that declares [`Input::GitHooks`].
    pub fn hooks(&self) -> &HooksState {
        self.hooks
            .expect("doctor reads the git hooks for every rule that declares them")
    }
}

/// What one rule found, said and counted.
pub(crate) struct Outcome {
    /// The rule id findings carry.
    pub rule: String,
    /// The severity the rule is declared with.
    pub severity: Severity,
    pub findings: Vec<Finding>,
    /// Why it was skipped, or a fact worth saying when it passed.
    pub note: Option<String>,
    /// The rule did not judge (and says why in its note).
    pub skipped: bool,
    /// Counters for the rule's timing phase, said before its findings' count.
    pub counts: Vec<(&'static str, usize)>,
}

impl Outcome {
    pub(super) fn new(rule: &str, severity: Severity) -> Outcome {
        Outcome {
            rule: rule.to_owned(),
            severity,
            findings: Vec::new(),
            note: None,
            skipped: false,
            counts: Vec::new(),
        }
    }

    /// A finding of this rule, at its declared severity.
    pub fn find(&mut self, file: &str, message: String, fix: String) {
        self.findings.push(Finding {
            informational: false,
            file: file.to_owned(),
            rule: self.rule.clone(),
            severity: self.severity,
            message,
            fix,
        });
    }

    /// An informational finding of this rule: said, advisory, never a reason for `watch` to
    /// stop; its fix says nothing needs doing.
    pub fn inform(&mut self, file: &str, message: String, fix: String) {
        self.findings.push(Finding {
            informational: true,
            file: file.to_owned(),
            rule: self.rule.clone(),
            severity: Severity::Advisory,
            message,
            fix,
        });
    }

    /// Findings another operation returned, at this rule's declared severity (a project
    /// may make the rule advisory).
    pub fn find_at_severity(&mut self, findings: Vec<Finding>) {
        let severity = self.severity;
        self.findings
            .extend(findings.into_iter().map(|f| Finding { severity, ..f }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rules::Package;

    #[test]
    fn every_rule_of_the_standard_package_has_one_check() {
        for decl in &Package::standard().rules {
            assert!(for_id(&decl.id).is_some(), "no check for {}", decl.id);
        }
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len(), "a rule id is registered twice");
    }
}
