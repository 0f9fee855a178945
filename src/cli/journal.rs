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
    /// Turn sharing on: policy journal.share: true, a fetch refspec on the remote.
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
    /// Turn sharing off: policy journal.share: false, the fetch refspec removed.
    ///
    /// Nothing is deleted; the output names the command that deletes the published ref.
    ///
    /// Example:
    ///   majordomus journal disable
    #[command(verbatim_doc_comment)]
    Disable,
    /// What is published, pending and fetched, per writer.
    ///
    /// Examples:
    ///   majordomus journal status
    ///   majordomus journal status --format json
    #[command(verbatim_doc_comment)]
    Status,
    /// Publish the pending lines now (episode boundaries and pre-push do it by themselves).
    ///
    /// Example:
    ///   majordomus journal publish
    #[command(verbatim_doc_comment)]
    Publish,
    /// Rebuild this checkout's ledger from its own journal (after git clean -fdx).
    ///
    /// The lines come back byte for byte. A ledger holding lines the journal does not have
    /// is left alone unless --force, which keeps them, merged by seq. On a new machine,
    /// --writer <id> restores that writer's fetched journal and adopts its id.
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
    /// Drop published segments older than ledger.retention_days (dry run by default).
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
        } => Output::report(&crate::journal::enable(
            ctx,
            EnableRequest {
                remote: Some(remote.clone()),
                include_history: *include_history,
            },
        )?),
        JournalCommand::Disable => {
            Output::report(&crate::journal::disable(ctx, JournalRequest {})?)
        }
        JournalCommand::Status => Output::report(&crate::journal::status(ctx, JournalRequest {})?),
        JournalCommand::Publish => {
            Output::report(&crate::journal::publish(ctx, JournalRequest {})?)
        }
        JournalCommand::Restore { force, writer } => Output::report(&crate::journal::restore(
            ctx,
            RestoreRequest {
                force: *force,
                writer: writer.clone(),
            },
        )?),
        JournalCommand::Prune { apply } => {
            Output::report(&crate::journal::prune(ctx, PruneRequest { apply: *apply })?)
        }
    })
}
