//! `majordomus handover --derive | --resolve [FILE]`.

use clap::Args;

use super::Output;
use crate::handover::{DeriveRequest, ResolveRequest};
use crate::{Ctx, Error};

/// Write an episode's handover: what is done, what comes next.
///
/// `--derive` writes .ai/local/state/handovers/<episode>.md: the task's issue, intent or
/// exemption with the two pins (plan_revision, evidence_standing) in its front matter, then
/// the sections of `handover.sections` (Done, Next Action, Open Questions, Reasoning,
/// Knowledge). The session-end hook derives it after the close.
///
/// The pins are the task's own, from its `task.started` line: what the work began under,
/// so a plan or evidence change made during the task shows when the handover is resolved.
///
/// `--resolve` re-asks the binding with the handover's names (a maintenance task's: its
/// scope) and answers `unchanged`, `evidence_moved`, `plan_changed` (wins when both moved)
/// or `unknown`, with why. The exit code tells them apart: 0 unchanged, 3 unknown, 11
/// evidence_moved or plan_changed (the plan or its evidence moved under the work).
///
/// Examples:
///   majordomus handover --derive
///   majordomus handover --resolve
///   majordomus handover --resolve .ai/local/state/handovers/20261130T101500Z-1a2b3c.md --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
#[command(group(clap::ArgGroup::new("act").required(true).args(["derive", "resolve"])))]
pub struct HandoverArgs {
    /// Write the handover of the open episode (else the last closed one).
    #[arg(long)]
    pub derive: bool,
    /// With --derive: the episode to hand over.
    #[arg(long, value_name = "ID", requires = "derive")]
    pub episode: Option<String>,
    /// Whether a handover's plan or evidence moved since.
    ///
    /// FILE is the handover to resolve (default: the newest).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    pub resolve: Option<String>,
}

pub fn run(ctx: &Ctx, args: &HandoverArgs) -> Result<Output, Error> {
    match &args.resolve {
        Some(file) => {
            let mut out = crate::cli::call(
                ctx,
                "handover.resolve",
                ResolveRequest {
                    file: Some(file.clone()).filter(|f| !f.is_empty()),
                },
            )?;
            // A moved plan or evidence exits 11 here as under `watch`: a script resolving
            // a handover must be able to stop on it (SPEC §4).
            out.watching = true;
            Ok(out)
        }
        None => crate::cli::call(
            ctx,
            "handover.derive",
            DeriveRequest {
                episode: args.episode.clone(),
            },
        ),
    }
}
