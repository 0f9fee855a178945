//! `majordomus doctor` and `majordomus watch`.

use std::fmt::Write as _;

use clap::Args;

use super::error::code;
use super::{CliError, Output};
use crate::Ctx;
use crate::doctor::{DoctorReport, doctor};
use crate::knowledge::Severity;

/// Run every rule of the standard package, grouped (exit 10 on a blocking finding).
///
/// Rules: knowledge observed (freshness), knowledge integrity, candidates reviewed,
/// ledger health, outbox empty, provider events.
///
/// Example:
///   majordomus doctor
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DoctorArgs {}

/// Rerun doctor until something needs attention (exit 10 blocking, 11 advisory).
///
/// Examples:
///   majordomus watch
///   majordomus watch --interval 300
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct WatchArgs {
    /// Seconds between runs.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub interval: u64,
    /// Stop after this many clean runs (exit 0); 0 watches until a finding.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_runs: u64,
}

pub fn render(report: &DoctorReport) -> String {
    let mut out = String::new();
    for rule in &report.rules {
        let blocking = rule
            .findings
            .iter()
            .any(|f| f.severity == Severity::Blocking);
        let tag = match rule.status {
            "pass" => "ok  ",
            "skipped" => "skip",
            _ if blocking => "FAIL",
            _ => "WARN",
        };
        let _ = writeln!(out, "{tag} {}", rule.rule);
        if let Some(note) = &rule.note {
            let _ = writeln!(out, "     {note}");
        }
        for f in &rule.findings {
            let sev = match f.severity {
                Severity::Blocking => "BLOCK",
                Severity::Advisory => "WARN",
            };
            let _ = writeln!(out, "     {sev} {} [{}] {}", f.file, f.rule, f.message);
            let _ = writeln!(out, "       fix: {}", f.fix);
        }
    }
    let _ = writeln!(
        out,
        "doctor: {} blocking, {} advisory finding(s)",
        report.blocking, report.advisory
    );
    out
}

pub fn run(ctx: &Ctx, _args: &DoctorArgs) -> Result<Output, CliError> {
    let report = doctor(ctx)?;
    let mut out = Output::ok(render(&report), &report);
    if report.blocking > 0 {
        out.code = code::BLOCKING;
    }
    Ok(out)
}

pub fn watch(ctx: &Ctx, args: &WatchArgs) -> Result<Output, CliError> {
    let mut runs = 0u64;
    loop {
        let report = doctor(ctx)?;
        runs += 1;
        let code = if report.blocking > 0 {
            Some(code::BLOCKING)
        } else if report.advisory > 0 {
            Some(code::ADVISORY)
        } else {
            None
        };
        if code.is_some() || (args.max_runs > 0 && runs >= args.max_runs) {
            let mut out = Output::ok(render(&report), &report);
            out.code = code.unwrap_or(0);
            return Ok(out);
        }
        std::thread::sleep(std::time::Duration::from_secs(args.interval));
    }
}
