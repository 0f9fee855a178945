//! The one mapping of outcomes to SPEC §0 exit codes: an error's class, a report's verdict.

use crate::Class;
use crate::model::Verdict;

pub const OK: u8 = 0;
pub const ERROR: u8 = 1;
pub const USAGE: u8 = 2;
pub const REFUSED: u8 = 3;
pub const BLOCKING: u8 = 10;
pub const ADVISORY: u8 = 11;

/// The exit code of an error of this class.
pub fn for_class(class: Class) -> u8 {
    match class {
        Class::Usage => USAGE,
        Class::Refused => REFUSED,
        Class::Failed => ERROR,
    }
}

/// The exit code of a failure of this class, by the command that failed: a command whose
/// operation never fails its caller (a provider hook, `Operation::never_fails`: an agent
/// client must never be blocked by majordomus, docs/HOOKS.md) exits 0 on any failure,
/// a usage error in how it was wired included, and says the failure on stderr; every
/// other command exits by the class. This is the one place that policy is applied.
pub fn for_failure(class: Class, never_fails: bool) -> u8 {
    if never_fails { OK } else { for_class(class) }
}

/// The exit code of a result with this verdict; advisory findings exit 11 only under
/// `watch`, whose job is to stop on them.
pub fn for_verdict(verdict: Verdict, watching: bool) -> u8 {
    match verdict {
        Verdict::Pass => OK,
        Verdict::Advisory if watching => ADVISORY,
        Verdict::Advisory => OK,
        Verdict::Blocking => BLOCKING,
        Verdict::Refused => REFUSED,
    }
}
