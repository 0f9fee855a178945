//! The crash test hook: `MAJORDOMUS_FAULT=<site>:<step>[:<nth>[:stop]]` makes the process
//! kill itself with `SIGKILL` at one step of the atomic writer or of the ledger append, so
//! tests can show what a crash at that step leaves behind; with `stop` it stops itself
//! (`SIGSTOP`) there instead, until a `SIGCONT`, so a test can run another process at that
//! exact point (docs/RELIABILITY.md).
//!
//! Sites: `write` ([`write_atomic`](super::write_atomic)), `derived`
//! ([`write_atomic_derived`](super::write_atomic_derived)), `new`
//! ([`write_new`](super::write_new)) and `ledger` ([`Ledger::append`](super::Ledger::append)).
//! Steps of the writers: `after-temp-write`, `after-fsync`, `before-rename`, `after-rename`
//! (for `new` the "rename" is the hard link that publishes the file; `derived` never
//! fsyncs, so its `after-fsync` is the same moment as `after-temp-write`). Steps of the
//! ledger: `before-line`, `mid-line` (half the line's bytes written; stopped, nothing of
//! it), `after-line`. `nth` (default 1) picks the nth time the process reaches that site and
//! step.
//!
//! The variable is read once per process; unset, each step costs one atomic load.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that arms the hook.
pub const FAULT_VAR: &str = "MAJORDOMUS_FAULT";

/// Which writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    Write,
    Derived,
    New,
    Ledger,
}

/// Which step of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    AfterTempWrite,
    AfterFsync,
    BeforeRename,
    AfterRename,
    BeforeLine,
    MidLine,
    AfterLine,
}

impl Site {
    fn parse(text: &str) -> Option<Site> {
        Some(match text {
            "write" => Site::Write,
            "derived" => Site::Derived,
            "new" => Site::New,
            "ledger" => Site::Ledger,
            _ => return None,
        })
    }
}

impl Step {
    fn parse(text: &str) -> Option<Step> {
        Some(match text {
            "after-temp-write" => Step::AfterTempWrite,
            "after-fsync" => Step::AfterFsync,
            "before-rename" => Step::BeforeRename,
            "after-rename" => Step::AfterRename,
            "before-line" => Step::BeforeLine,
            "mid-line" => Step::MidLine,
            "after-line" => Step::AfterLine,
            _ => return None,
        })
    }

    /// The steps that exist at `site`.
    fn belongs_to(self, site: Site) -> bool {
        let ledger_step = matches!(self, Step::BeforeLine | Step::MidLine | Step::AfterLine);
        ledger_step == (site == Site::Ledger)
    }
}

/// What the armed arrival does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `SIGKILL`: the process dies there.
    Kill,
    /// `SIGSTOP`: the process waits there for a `SIGCONT`.
    Stop,
}

/// An armed fault: the `nth` arrival at `site`/`step` does `action`.
#[derive(Debug)]
struct Fault {
    site: Site,
    step: Step,
    nth: u64,
    action: Action,
    arrivals: AtomicU64,
}

impl Fault {
    /// Counts an arrival at `site`/`step`; its action when it is the nth at the armed one.
    fn arrive(&self, site: Site, step: Step) -> Option<Action> {
        (self.site == site
            && self.step == step
            && self.arrivals.fetch_add(1, Ordering::Relaxed) + 1 == self.nth)
            .then_some(self.action)
    }
}

/// Parses `<site>:<step>[:<nth>[:stop]]`.
fn parse(spec: &str) -> Option<Fault> {
    let mut parts = spec.trim().split(':');
    let site = Site::parse(parts.next()?)?;
    let step = Step::parse(parts.next()?)?;
    let nth = match parts.next() {
        Some(n) => n.parse::<u64>().ok().filter(|n| *n > 0)?,
        None => 1,
    };
    let action = match parts.next() {
        None => Action::Kill,
        Some("stop") => Action::Stop,
        Some(_) => return None,
    };
    if parts.next().is_some() || !step.belongs_to(site) {
        return None;
    }
    Some(Fault {
        site,
        step,
        nth,
        action,
        arrivals: AtomicU64::new(0),
    })
}

fn armed() -> Option<&'static Fault> {
    static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
    FAULT
        .get_or_init(|| {
            let spec = std::env::var(FAULT_VAR).ok().filter(|s| !s.is_empty())?;
            let fault = parse(&spec);
            if fault.is_none() {
                // A test hook, not an interface: a spec that does not parse must not pass
                // silently for a crash that never happened.
                eprintln!(
                    "majordomus: {FAULT_VAR}={spec:?} is not <site>:<step>[:<nth>[:stop]] (docs/RELIABILITY.md); ignored"
                );
            }
            fault
        })
        .as_ref()
}

/// The action due at this arrival at `site`/`step`, when it is the one the armed fault
/// names; the caller does what a crash should leave half done, then [`crash`]es (or
/// [`stop`]s).
pub(crate) fn fires(site: Site, step: Step) -> Option<Action> {
    armed().and_then(|f| f.arrive(site, step))
}

/// Kills (or stops) the process at `site`/`step` when the armed fault names this arrival.
pub(crate) fn point(site: Site, step: Step) {
    match fires(site, step) {
        Some(Action::Kill) => crash(),
        Some(Action::Stop) => stop(),
        None => {}
    }
}

/// `SIGSTOP` to this process: it waits here, holding whatever it holds, until `SIGCONT`.
pub(crate) fn stop() {
    use nix::sys::signal::{Signal, kill};
    let _ = kill(nix::unistd::getpid(), Signal::SIGSTOP);
}

/// `SIGKILL` to this process: no destructor, no buffered write, no exit handler runs, as
/// in a power cut of the process (the kernel still has what was written).
pub(crate) fn crash() -> ! {
    use nix::sys::signal::{Signal, kill};
    let _ = kill(nix::unistd::getpid(), Signal::SIGKILL);
    // SIGKILL cannot be caught or blocked; should the call itself fail, die anyway.
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spec_and_refuses_mismatched_steps() {
        let f = parse("write:before-rename").expect("parses");
        assert_eq!(
            (f.site, f.step, f.nth),
            (Site::Write, Step::BeforeRename, 1)
        );
        assert_eq!(f.action, Action::Kill);
        let f = parse("ledger:mid-line:3").expect("parses");
        assert_eq!((f.site, f.step, f.nth), (Site::Ledger, Step::MidLine, 3));
        let f = parse("write:after-rename:2:stop").expect("parses");
        assert_eq!((f.nth, f.action), (2, Action::Stop));
        for bad in [
            "",
            "write",
            "write:before-line",
            "ledger:after-rename",
            "disk:after-rename",
            "new:after-rename:0",
            "new:after-rename:x",
            "new:after-rename:1:2",
            "new:after-rename:1:pause",
            "new:after-rename:1:stop:x",
        ] {
            assert!(parse(bad).is_none(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn counts_arrivals_to_the_nth() {
        let f = parse("new:after-fsync:2").expect("parses");
        let hit = |site, step| f.arrive(site, step);
        assert_eq!(hit(Site::New, Step::AfterFsync), None);
        assert_eq!(
            hit(Site::Write, Step::AfterFsync),
            None,
            "another site does not count"
        );
        assert_eq!(hit(Site::New, Step::AfterFsync), Some(Action::Kill));
        assert_eq!(hit(Site::New, Step::AfterFsync), None, "only the nth");
    }
}
