//! `majordomus decision`.

use clap::Args;

use super::{CliError, Output};
use crate::Ctx;
use crate::authored::{self, Recorded};

/// Record a decision in the ledger, stamped with the open episode.
///
/// Decisions show in the episode's working context and closed record, and become
/// knowledge candidates when the episode closes.
///
/// Examples:
///   majordomus decision "All git access goes through gix; no git subprocess"
///   majordomus decision "Parse YAML with yaml_serde" --task t-20261130-1a2b
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DecisionArgs {
    /// The decision, one statement.
    pub text: String,
    /// The task the decision belongs to.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
}

pub fn run(ctx: &Ctx, args: &DecisionArgs) -> Result<Output, CliError> {
    let recorded = authored::record_decision(ctx, &args.text, args.task.as_deref())?;
    Ok(recorded_output("decision", recorded))
}

/// The common rendering of an authored write.
pub(super) fn recorded_output(kind: &str, recorded: Recorded) -> Output {
    let human = match &recorded.session {
        Some(ep) => format!("recorded {kind} #{} in episode {ep}\n", recorded.seq),
        None => format!(
            "recorded {kind} #{} with no open episode (session: null)\n",
            recorded.seq
        ),
    };
    let note = recorded
        .session
        .is_none()
        .then(|| "note: no episode is open; `majordomus session start` opens one".to_owned());
    Output::ok(human, recorded).with_note(note)
}
