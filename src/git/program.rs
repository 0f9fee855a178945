//! The one place majordomus runs the git program: the journal's push (SPEC §12). gix
//! reads and writes everything else, but has no push; the user's `git` does, with the
//! user's remotes, credentials and transports. docs/ARCHITECTURE.md says the same.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How the journal's push went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushOutcome {
    pub ok: bool,
    /// git's exit status (`None`: it did not start, or was stopped).
    pub status: Option<i32>,
    /// What git said on stderr (at most 4 KiB, the end kept), for the report.
    pub stderr: String,
    /// It ran past its deadline and was stopped.
    pub timed_out: bool,
    pub millis: u64,
}

/// Pushes `reference` to the same name on `remote`, fast-forward only unless `force`
/// (`+<ref>:<ref>`, after `journal prune --apply` rewrote it):
/// `git push --no-verify <remote> <ref>:<ref>`, run in `workdir`. `--no-verify` keeps the
/// nested push out of the pre-push hook that runs it (no recursion); `GIT_TERMINAL_PROMPT=0`
/// and a closed stdin keep it from waiting on a credential prompt, and `deadline` stops it
/// if it hangs anyway. Never fails: every outcome is a value.
pub fn push_ref(
    workdir: &Path,
    remote: &str,
    reference: &str,
    force: bool,
    deadline: Duration,
) -> PushOutcome {
    let started = Instant::now();
    let spawned = Command::new("git")
        .current_dir(workdir)
        .args(["push", "--no-verify", "--quiet", remote])
        .arg(format!(
            "{}{reference}:{reference}",
            if force { "+" } else { "" }
        ))
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return PushOutcome {
                ok: false,
                status: None,
                stderr: format!("could not run git: {e}"),
                timed_out: false,
                millis: elapsed(started),
            };
        }
    };
    // stderr is drained beside the wait, so a chatty git never blocks on a full pipe.
    let reader = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= deadline => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let bytes = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    let tail = &bytes[bytes.len().saturating_sub(4096)..];
    let mut stderr = String::from_utf8_lossy(tail).trim().to_owned();
    if timed_out {
        stderr = format!("stopped after {} s: {stderr}", deadline.as_secs());
    }
    PushOutcome {
        ok: !timed_out && status.is_some_and(|s| s.success()),
        status: status.and_then(|s| s.code()),
        stderr,
        timed_out,
        millis: elapsed(started),
    }
}

fn elapsed(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
