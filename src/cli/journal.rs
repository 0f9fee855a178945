//! `majordomus journal enable|disable|status|publish|restore|prune`.

use clap::Subcommand;

use super::Output;
use crate::journal::{EnableRequest, JournalRequest, PruneRequest, RestoreRequest};
use crate::{Ctx, Error};

/// Share this checkout's ledger with the team through git (docs/JOURNAL.md).
///
/// Each writer (a clone's worktree) publishes its ledger lines as commits on its own ref,
/// refs/majordomus/journal/<writer>; `git fetch` brings the others' journals, and history,
/// session list and knowledge check read them. Off until `journal enable`.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum JournalCommand {
    /// Share this checkout's ledger through git: policy journal.share, the remote's fetch refspec, the enable point.
    ///
    /// Lines written before this enable stay on this machine unless --include-history.
    /// Publishing happens at session start and close and in the pre-push hook, which
    /// pushes this writer's ref beside your push (git push --no-verify).
    ///
    /// Examples:
    ///   majordomus journal enable
    ///   majordomus journal enable --remote upstream --include-history
    #[command(verbatim_doc_comment)]
    Enable {
        /// The remote the journal travels through.
        #[arg(long, value_name = "REMOTE", default_value = "origin")]
        remote: String,
        /// Publish the lines written before this enable too.
        #[arg(long)]
        include_history: bool,
    },
    /// Stop sharing: policy journal.share false, the fetch refspec removed; nothing is deleted.
    ///
    /// Nothing is deleted; the output names the command that deletes the published ref.
    ///
    /// Example:
    ///   majordomus journal disable
    #[command(verbatim_doc_comment)]
    Disable,
    /// This writer's journal and every fetched writer's.
    ///
    /// Examples:
    ///   majordomus journal status
    ///   majordomus journal status --format json
    #[command(verbatim_doc_comment)]
    Status,
    /// Publish the ledger lines not yet in this writer's journal ref, as one segment.
    ///
    /// Example:
    ///   majordomus journal publish
    #[command(verbatim_doc_comment)]
    Publish,
    /// Rebuild this checkout's ledger from its own journal, byte for byte.
    ///
    /// For a ledger that is gone (after git clean -fdx, say). A ledger holding lines the
    /// journal does not have is left alone unless --force, which keeps them, merged by seq.
    /// On a new machine, --writer <id> restores that writer's fetched journal and adopts
    /// its id.
    ///
    /// Examples:
    ///   majordomus journal restore
    ///   git fetch origin && majordomus journal restore --writer 0123456789abcdef
    #[command(verbatim_doc_comment)]
    Restore {
        /// Keep the ledger's lines the journal does not have, merged by seq.
        #[arg(long)]
        force: bool,
        /// Restore this writer's journal and adopt its id (16 hex digits).
        #[arg(long, value_name = "ID")]
        writer: Option<String>,
    },
    /// Drop published segments older than ledger.retention_days from this writer's ref (dry run unless apply).
    ///
    /// --apply rewrites this writer's own ref without them; the next push force-updates
    /// that ref (and only it) on the remote.
    ///
    /// Examples:
    ///   majordomus journal prune
    ///   majordomus journal prune --apply
    #[command(verbatim_doc_comment)]
    Prune {
        /// Rewrite the ref (by default only say what would go).
        #[arg(long)]
        apply: bool,
    },
}

pub fn run(ctx: &Ctx, command: &JournalCommand) -> Result<Output, Error> {
    Ok(match command {
        JournalCommand::Enable {
            remote,
            include_history,
        } => crate::cli::call(
            ctx,
            "journal.enable",
            EnableRequest {
                remote: Some(remote.clone()),
                include_history: *include_history,
            },
        )?,
        JournalCommand::Disable => crate::cli::call(ctx, "journal.disable", JournalRequest {})?,
        JournalCommand::Status => crate::cli::call(ctx, "journal.status", JournalRequest {})?,
        JournalCommand::Publish => crate::cli::call(ctx, "journal.publish", JournalRequest {})?,
        JournalCommand::Restore { force, writer } => crate::cli::call(
            ctx,
            "journal.restore",
            RestoreRequest {
                force: *force,
                writer: writer.clone(),
            },
        )?,
        JournalCommand::Prune { apply } => {
            crate::cli::call(ctx, "journal.prune", PruneRequest { apply: *apply })?
        }
    })
}
