//! `majordomus serve`: a driver that serves the registry as a JSON API on 127.0.0.1, and
//! the cockpit's pages beside it.

use std::io::Write as _;
use std::path::Path;

use clap::Args;

use super::Output;
use crate::model::Verdict;
use crate::ops::Registry;
use crate::store::StoreError;
use crate::{Ctx, Error};

/// Serve HTTP on 127.0.0.1: JSON under /api/v1/, the cockpit at /cockpit.
///
/// Prints `listening on http://127.0.0.1:<port>` and this run's token, then serves until
/// interrupted. Open http://127.0.0.1:<port>/cockpit in a browser for the cockpit: the
/// working context, episodes, the knowledge review queue with its promote and reject
/// forms, the graph, history, doctor, tasks and reasoning; no JavaScript needed
/// (docs/COCKPIT.md). Reads are GET (query parameters), writes are POST (a JSON body) and
/// need `Authorization: Bearer <token>` from the same origin (e.g. `curl -H
/// "Authorization: Bearer <token>" -d '{"text": "..."}'
/// http://127.0.0.1:7777/api/v1/decisions`). The OpenAPI document is at
/// /api/v1/openapi.json; docs/HTTP.md lists the routes.
///
/// Examples:
///   majordomus serve
///   majordomus serve --port 0
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 7777, value_name = "P")]
    pub port: u16,
}

pub fn run(ctx: Ctx, args: &ServeArgs) -> Result<Output, Error> {
    let dir = ctx.repo.workdir().to_path_buf();
    drop(ctx);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| StoreError::io(Path::new("tokio runtime"), e))?;
    runtime.block_on(async move {
        let bound = crate::http::bind(Registry::standard(), dir, args.port).await?;
        {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "listening on http://{}", bound.addr);
            let _ = writeln!(stdout, "token {}", bound.token);
            let _ = stdout.flush();
        }
        bound.serve(Some(crate::cockpit::pages())).await
    })?;
    Ok(Output {
        human: String::new(),
        json: serde_json::Value::Null,
        note: None,
        verdict: Verdict::Pass,
        watching: false,
    })
}
