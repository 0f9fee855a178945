//! `majordomus hook post-commit|pre-push|post-checkout|post-merge`.

use clap::Args;

use crate::cli::Output;
use crate::hooks::{GitHookRequest, HooksRequest, PrePushRequest};
use crate::knowledge::PushedRef;
use crate::{Ctx, Error};

/// Arguments git passes to the hook (pre-push: the remote's name and URL; post-checkout:
/// its branch flag).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct GitArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub args: Vec<String>,
}

impl GitArgs {
    fn request(&self) -> GitHookRequest {
        GitHookRequest {
            args: self.args.clone(),
        }
    }
}

pub fn post_commit(ctx: &Ctx) -> Result<Output, Error> {
    Ok(Output::report(&crate::hooks::post_commit(
        ctx,
        HooksRequest {},
    )?))
}

pub fn pre_push(ctx: &Ctx, args: &GitArgs) -> Result<Output, Error> {
    let request = PrePushRequest {
        args: args.args.clone(),
        refs: PushedRef::parse_lines(&crate::cli::read_stdin()),
    };
    Ok(Output::report(&crate::hooks::pre_push(ctx, request)?))
}

pub fn post_checkout(ctx: &Ctx, args: &GitArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::hooks::post_checkout(
        ctx,
        args.request(),
    )?))
}

pub fn post_merge(ctx: &Ctx, args: &GitArgs) -> Result<Output, Error> {
    Ok(Output::report(&crate::hooks::post_merge(
        ctx,
        args.request(),
    )?))
}
