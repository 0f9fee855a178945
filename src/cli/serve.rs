//! `majordomus serve`: a driver that serves the registry as a JSON API on 127.0.0.1, and
//! the cockpit's pages beside it.

use std::io::Write as _;
use std::path::Path;

use clap::Args;

use super::Output;
use crate::http::ServeOptions;
use crate::model::Verdict;
use crate::ops::Registry;
use crate::store::StoreError;
use crate::{Ctx, Error, UsageError};

/// The token a `--token-file` holds: its text trimmed, at least 16 characters.
fn read_token(path: &Path) -> Result<String, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| StoreError::io(path, e))?;
    let token = text.trim().to_owned();
    if token.len() < 16 || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UsageError::Arguments(format!(
            "--token-file {}: a token is one line of at least 16 characters without spaces",
            path.display()
        ))
        .into());
    }
    Ok(token)
}

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
/// It is also the mesh server (docs/MESH.md): linked runtimes (majordomus mesh link)
/// answer each other's review requests through /api/v1/mesh/, every request with the
/// token. --listen serves those routes, and only those, to a team (with --token-file).
///
/// Examples:
///   majordomus serve
///   majordomus serve --port 0
///   majordomus serve --port 7788 --listen 0.0.0.0:7789 --token-file ~/.majordomus-token
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 7777, value_name = "P")]
    pub port: u16,
    /// Read the token from this file instead of making one per run (required with
    /// --listen; the mesh's runtimes name it in MAJORDOMUS_SERVER_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<std::path::PathBuf>,
    /// Also serve the mesh routes (only those) on ADDR, e.g. 0.0.0.0:7788, for a team's
    /// runtimes; needs --token-file. Put TLS in front (docs/SECURITY.md).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::SocketAddr>,
    /// Seconds after its last heartbeat that a linked runtime is gone.
    #[arg(long, default_value_t = crate::mesh::hub::DEFAULT_WINDOW_SECONDS, value_name = "S")]
    pub heartbeat_window: u64,
}

pub fn run(ctx: Ctx, args: &ServeArgs) -> Result<Output, Error> {
    let dir = ctx.repo.workdir().to_path_buf();
    drop(ctx);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| StoreError::io(Path::new("tokio runtime"), e))?;
    let token = match &args.token_file {
        Some(path) => Some(read_token(path)?),
        None if args.listen.is_some() => {
            return Err(UsageError::ListenWithoutTokenFile.into());
        }
        None => None,
    };
    let options = ServeOptions {
        port: args.port,
        token,
        listen: args.listen,
        heartbeat_window: args.heartbeat_window,
    };
    runtime.block_on(async move {
        let bound = crate::http::bind_with(Registry::standard(), dir, options).await?;
        {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "listening on http://{}", bound.addr);
            if let Some(mesh) = bound.mesh_addr {
                let _ = writeln!(stdout, "mesh routes also on http://{mesh}/api/v1/mesh/");
            }
            if args.token_file.is_some() {
                let _ = writeln!(
                    stdout,
                    "token from {}",
                    args.token_file
                        .as_deref()
                        .unwrap_or(Path::new(""))
                        .display()
                );
            } else {
                let _ = writeln!(stdout, "token {}", bound.token);
            }
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
