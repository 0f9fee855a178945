//! `majordomus hooks install|uninstall`.

use clap::Subcommand;

use super::Output;
use crate::hooks::HooksRequest;
use crate::{Ctx, Error};

/// Install or remove the git hooks (post-commit, pre-push, post-rewrite); acknowledge
/// recorded provider hook failures.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum HooksCommand {
    /// Install the git hooks into the directory git uses, keeping what was there.
    ///
    /// The directory git uses is the one core.hooksPath names, when set. Where no hook is,
    /// majordomus writes its own: in .git/hooks a file whose first line starts this binary
    /// directly (#!<binary> hook-script; rerun install after moving majordomus), elsewhere
    /// a sh script. Where one is, it adds a marked block
    /// (# >>> majordomus >>> ... # <<< majordomus <<<) after its first line: the hook
    /// keeps its name, its exit status and git's stdin. Under husky v9 the block goes into
    /// .husky/<hook>, the file husky runs; under husky v8 after its husky.sh line (it runs
    /// once, and HUSKY=0 skips it); behind the pre-commit framework into <hook>.legacy,
    /// which pre-commit runs first. A hook majordomus cannot edit safely (not a shell
    /// script, a symbolic link) is refused (exit 3) with the exact line to add by hand.
    /// Also undoes an install by an earlier version and removes its post-checkout and
    /// post-merge hooks. Idempotent. `majordomus doctor` says when a hook is no longer
    /// reached.
    ///
    /// Examples:
    ///   majordomus hooks install
    ///   ./target/debug/majordomus hooks install   # the hooks start this build
    #[command(verbatim_doc_comment)]
    Install,
    /// Remove the git hooks: every hook file as it was before install, byte for byte.
    ///
    /// Both its content and its mode come back.
    ///
    /// Example:
    ///   majordomus hooks uninstall
    #[command(verbatim_doc_comment)]
    Uninstall,
    /// Acknowledge the recorded provider hook failures doctor shows, up to a ledger seq (a human act).
    ///
    /// They stop being doctor findings and stay in the ledger (history lists them). A
    /// later run of the same hook that succeeds clears its failures by itself.
    ///
    /// Examples:
    ///   majordomus hooks acknowledge --through 42
    ///   majordomus hooks acknowledge
    #[command(verbatim_doc_comment)]
    Acknowledge {
        /// Only the failures up to this ledger seq (the newest doctor showed); default:
        /// every failure recorded so far.
        #[arg(long, value_name = "SEQ")]
        through: Option<u64>,
    },
}

pub fn run(ctx: &Ctx, command: &HooksCommand) -> Result<Output, Error> {
    Ok(match command {
        HooksCommand::Install => crate::cli::call(ctx, "hooks.install", HooksRequest {})?,
        HooksCommand::Uninstall => crate::cli::call(ctx, "hooks.uninstall", HooksRequest {})?,
        HooksCommand::Acknowledge { through } => crate::cli::call(
            ctx,
            "hooks.acknowledge",
            crate::hooks::AcknowledgeRequest { through: *through },
        )?,
    })
}
