//! The process adapter's contract (SPEC §7), one implementation for a catalogue
//! advisor's executable and a mesh runtime's `--answer-with` command: the question on
//! stdin, one JSON answer (or `{"failure": {...}}`) on stdout, a deadline, cancellation,
//! and typed failures. The child runs in its own process group; past the deadline, or
//! when cancelled, the whole group is killed.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::model::reasoning::record::FailureKind;
use crate::model::reasoning::transport::{self, Answer, Failure};

/// A typed failure with its diagnostic.
pub(crate) fn failure(kind: FailureKind, diagnostic: impl Into<String>) -> Failure {
    Failure {
        kind,
        retry_after_seconds: None,
        diagnostic: Some(diagnostic.into()),
    }
}

/// What an exchange cut short by a signal is.
pub(crate) fn cancelled_failure() -> Failure {
    failure(
        FailureKind::Cancelled,
        "cancelled by a signal before it answered (a process advisor's group is killed)",
    )
}

/// The `process` adapter's contract (a catalogue advisor's executable, or a mesh
/// runtime's `--answer-with` command): the question on stdin, one JSON answer (or
/// `{"failure": {...}}`) on stdout. It runs in its own process group; past the deadline,
/// or when `cancelled()`, the whole group is killed.
pub fn run_command(
    executable: &str,
    args: &[String],
    question: &str,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
) -> Result<Answer, Failure> {
    let mut command = Command::new(executable);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Err(failure(
                FailureKind::Unavailable,
                format!("{executable}: {e}"),
            ));
        }
    };
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let question = question.to_owned();
    let writer = std::thread::spawn(move || {
        // A child that never reads its stdin must not stall the consult.
        let _ = stdin.write_all(question.as_bytes());
    });
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline || cancelled() => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let Some(status) = status else {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        let err = err_reader.join().unwrap_or_default();
        let _ = out_reader.join();
        if cancelled() {
            return Err(cancelled_failure());
        }
        let diagnostic =
            transport::diagnostic(&String::from_utf8_lossy(&err)).unwrap_or_else(|| {
                "no answer within the deadline; the process group was killed".into()
            });
        return Err(failure(FailureKind::Timeout, diagnostic));
    };
    let _ = writer.join();
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let stdout = String::from_utf8_lossy(&out);
    let diagnostic = transport::diagnostic(&String::from_utf8_lossy(&err));
    if !status.success() {
        let kind = match status.code() {
            Some(126 | 127) => FailureKind::Unavailable,
            _ => FailureKind::Error,
        };
        return Err(Failure {
            kind,
            retry_after_seconds: None,
            diagnostic: Some(
                diagnostic.unwrap_or_else(|| format!("{executable} exited with {status}")),
            ),
        });
    }
    // An adapter may report a typed failure itself (rate limit, authentication).
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(stdout.trim())
        && let Some(f) = value.get("failure")
    {
        return Err(
            serde_json::from_value::<Failure>(f.clone()).unwrap_or_else(|_| {
                failure(
                    FailureKind::Malformed,
                    "the adapter's failure object does not read",
                )
            }),
        );
    }
    transport::parse_answer(&stdout).map_err(|mut f| {
        if f.diagnostic.is_none() {
            f.diagnostic = diagnostic;
        }
        f
    })
}

/// Kills the whole process group of a child that outlived its deadline (its own children
/// included), so nothing it started keeps running.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        if let Ok(pid) = i32::try_from(pid) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
