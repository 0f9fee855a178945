//! `MAJORDOMUS_TIMING=1`: how long each phase of a command took, with its counters, on
//! stderr, one line a phase (`timing: derive.read_ledger 3.2ms lines=1234`). Unset, a
//! phase costs one atomic load and prints nothing; stdout is never touched.

use std::borrow::Cow;
use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns timing on (any value but empty and `0`).
pub const TIMING_VAR: &str = "MAJORDOMUS_TIMING";

/// Whether this process prints timings (the variable is read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(TIMING_VAR).is_some_and(|v| !v.is_empty() && v != "0"))
}

/// One timed phase: started when made, printed when dropped (or [`Phase::end`]).
#[must_use = "a phase is timed until its guard is dropped"]
#[derive(Debug)]
pub struct Phase {
    running: Option<Box<Running>>,
}

#[derive(Debug)]
struct Running {
    name: Cow<'static, str>,
    start: Instant,
    counters: Vec<(&'static str, u64)>,
}

impl Phase {
    /// Starts timing the phase `name` (dotted: `<command>.<phase>`).
    pub fn start(name: &'static str) -> Phase {
        Phase::start_with(|| Cow::Borrowed(name))
    }

    /// Starts timing a phase whose name is built only when timing is on.
    pub fn start_with<N: Into<Cow<'static, str>>>(name: impl FnOnce() -> N) -> Phase {
        Phase {
            running: enabled().then(|| {
                Box::new(Running {
                    name: name().into(),
                    start: Instant::now(),
                    counters: Vec::new(),
                })
            }),
        }
    }

    /// Adds the counter `key=value` to the phase's line.
    pub fn count(&mut self, key: &'static str, value: impl TryInto<u64>) {
        if let Some(running) = &mut self.running {
            running
                .counters
                .push((key, value.try_into().unwrap_or(u64::MAX)));
        }
    }

    /// Ends the phase now.
    pub fn end(self) {}
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            let line = running.line(running.start.elapsed().as_secs_f64() * 1000.0);
            // One write per line, so phases of processes sharing a stderr do not interleave.
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }
}

impl Running {
    fn line(&self, millis: f64) -> String {
        let mut line = format!("timing: {} {millis:.1}ms", self.name);
        for (key, value) in &self.counters {
            line.push_str(&format!(" {key}={value}"));
        }
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_reads_as_one_line_with_its_counters() {
        let running = Running {
            name: Cow::Borrowed("derive.read_ledger"),
            start: Instant::now(),
            counters: vec![("lines", 1234), ("episodes", 2)],
        };
        assert_eq!(
            running.line(3.24),
            "timing: derive.read_ledger 3.2ms lines=1234 episodes=2\n"
        );
    }
}
