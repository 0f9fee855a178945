//! `majordomus watch`: a driver that reruns `doctor` until something needs attention.

use clap::Args;

use super::Output;
use crate::doctor::DoctorRequest;
use crate::model::Verdict;
use crate::{Ctx, Error};

/// Rerun doctor's drift rules until one needs attention (exit 10 blocking, 11 advisory).
///
/// The drift rules are knowledge observed (freshness) and knowledge integrity; the review
/// queue (candidates reviewed) is doctor's alone, so a full queue never fails watch.
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

pub fn run(ctx: &Ctx, args: &WatchArgs) -> Result<Output, Error> {
    let mut runs = 0u64;
    loop {
        let mut out = crate::cli::call(ctx, "doctor", DoctorRequest { drift_only: true })?;
        runs += 1;
        if out.verdict != Verdict::Pass || (args.max_runs > 0 && runs >= args.max_runs) {
            out.watching = true;
            return Ok(out);
        }
        std::thread::sleep(std::time::Duration::from_secs(args.interval));
    }
}
