//! `majordomus hook post-commit|pre-push|post-rewrite`: the hooks git runs.

use clap::Args;

use crate::cli::Output;
use crate::hooks::{HooksRequest, PostRewriteRequest, PrePushRequest};
use crate::knowledge::PushedRef;
use crate::{Ctx, Error};

/// Arguments git passes to the hook (pre-push: the remote's name and URL).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct GitArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub args: Vec<String>,
}

pub fn post_commit(ctx: &Ctx) -> Result<Output, Error> {
    crate::cli::call(ctx, "hook.post-commit", HooksRequest {})
}

pub fn pre_push(ctx: &Ctx, args: &GitArgs) -> Result<Output, Error> {
    let request = PrePushRequest {
        args: args.args.clone(),
        refs: PushedRef::parse_lines(&crate::cli::read_stdin_lossy().0),
    };
    crate::cli::call(ctx, "hook.pre-push", request)
}

/// `hook post-rewrite`: git's first argument (`amend` or `rebase`) and its pairs on stdin.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PostRewriteArgs {
    /// What rewrote the commits, as git passes it: amend or rebase.
    #[arg(value_name = "BY")]
    pub by: Option<String>,
}

pub fn post_rewrite(ctx: &Ctx, args: &PostRewriteArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "hook.post-rewrite",
        PostRewriteRequest {
            by: args.by.clone().unwrap_or_default(),
            stdin: crate::cli::read_stdin_lossy().0,
        },
    )
}
