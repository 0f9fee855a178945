//! `majordomus mesh link|unlink|status|requests|answer` (docs/MESH.md). `mesh link` is a
//! driver: it links through the registry, then keeps the link alive (a heartbeat, and
//! with `--answer-with` the requests answered by the command) until interrupted, and
//! unlinks on the way out.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Subcommand;

use super::Output;
use crate::mesh::{Answerer, LinkOutcome, LinkRequest, MeshAnswerRequest, MeshRequest};
use crate::ops::{Registry, Report};
use crate::{Ctx, Error};

/// Peer runtimes as advisors, through a shared server (docs/MESH.md).
///
/// `majordomus serve` is the server; MAJORDOMUS_SERVER_URL and MAJORDOMUS_SERVER_TOKEN
/// name it to every checkout. A linked runtime offering reviews is an advisor of every
/// other checkout's plans (adapter mesh); it answers by its command or through its agent.
#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum MeshCommand {
    /// Link this checkout's runtime, offering reviews; stays linked until interrupted.
    ///
    /// Heartbeats every third of the server's window. With --answer-with, each review
    /// request runs CMD through sh: the question on stdin, one JSON answer on stdout
    /// ({"conclusion": ..., "stance": ...}, the process adapter's contract), killed at
    /// the request's deadline. Without it, the agent answers through the MCP tools
    /// majordomus_mesh_requests and majordomus_mesh_answer. Ctrl-C (or SIGTERM) unlinks.
    ///
    /// Examples:
    ///   majordomus mesh link --offers reviews --answer-with ./review.sh --source team-reviewer/model-a
    ///   majordomus mesh link --offers reviews
    ///   majordomus mesh link --offers reviews --once
    #[command(verbatim_doc_comment)]
    Link {
        /// What this runtime offers (reviews).
        #[arg(long, value_delimiter = ',', required = true, value_name = "WHAT")]
        offers: Vec<String>,
        /// The command that answers review requests (run with sh -c).
        #[arg(long, value_name = "CMD")]
        answer_with: Option<String>,
        /// What answers behind this runtime: adapter and model (e.g. `team-reviewer/model-a`). Reviews
        /// are counted by source: two runtimes declaring one source are one review.
        #[arg(long, value_name = "SOURCE")]
        source: Option<String>,
        /// How other checkouts see it (default: the worktree's directory and the host).
        #[arg(long, value_name = "TEXT")]
        label: Option<String>,
        /// Link (or renew the heartbeat) once and exit.
        #[arg(long)]
        once: bool,
    },
    /// Unlink this checkout's runtime; requests waiting for it fail as unavailable.
    ///
    /// Example:
    ///   majordomus mesh unlink
    #[command(verbatim_doc_comment)]
    Unlink,
    /// The server, its linked runtimes (live or gone) and what they offer.
    ///
    /// Examples:
    ///   majordomus mesh status
    ///   majordomus mesh status --format json
    #[command(verbatim_doc_comment)]
    Status,
    /// Review requests waiting for this runtime.
    ///
    /// Example:
    ///   majordomus mesh requests
    #[command(verbatim_doc_comment)]
    Requests,
    /// Answer a review request waiting for this runtime; the first answer counts.
    ///
    /// Example:
    ///   majordomus mesh answer 3f0c9a1d5e7b2c4a8f6e1d3b5a7c9e0f --conclusion "Use the merge record"
    #[command(verbatim_doc_comment)]
    Answer {
        /// The request's id, as mesh requests lists it.
        request: String,
        /// Your answer in one paragraph.
        #[arg(long)]
        conclusion: String,
        /// supports, opposes, alternative or uncertain (relative to the asker's hypothesis).
        #[arg(long, value_parser = parse_stance)]
        stance: Option<crate::model::reasoning::record::Stance>,
        /// An assumption the hypothesis rests on (repeatable).
        #[arg(long = "assumption", value_name = "TEXT")]
        assumptions: Vec<String>,
        /// A risk (repeatable).
        #[arg(long = "risk", value_name = "TEXT")]
        risks: Vec<String>,
        /// An action to take (repeatable).
        #[arg(long = "action", value_name = "TEXT")]
        actions: Vec<String>,
        /// An experiment whose result would falsify the hypothesis (repeatable).
        #[arg(long = "falsifier", value_name = "TEXT")]
        falsifiers: Vec<String>,
        /// low, medium or high.
        #[arg(long, value_parser = parse_confidence)]
        confidence: Option<crate::model::reasoning::record::Confidence>,
        /// What answered (adapter and model).
        #[arg(long)]
        source: Option<String>,
    },
}

pub fn run(ctx: &Ctx, command: &MeshCommand) -> Result<Output, Error> {
    Ok(match command {
        MeshCommand::Link {
            offers,
            answer_with,
            source,
            label,
            once,
        } => {
            let offers = offers
                .iter()
                .map(|o| crate::mesh::Offer::parse(o))
                .collect::<Result<Vec<_>, _>>()?;
            let request = LinkRequest {
                offers,
                label: label.clone(),
                source: source.clone(),
                answer_with: answer_with.clone(),
                holder: None,
            };
            if *once {
                return crate::cli::call(ctx, "mesh.link", request);
            }
            return stay_linked(
                ctx,
                LinkRequest {
                    holder: Some(std::process::id()),
                    ..request
                },
            );
        }
        MeshCommand::Unlink => crate::cli::call(ctx, "mesh.unlink", MeshRequest {})?,
        MeshCommand::Status => crate::cli::call(ctx, "mesh.status", MeshRequest {})?,
        MeshCommand::Requests => crate::cli::call(ctx, "mesh.requests", MeshRequest {})?,
        MeshCommand::Answer {
            request,
            conclusion,
            stance,
            assumptions,
            risks,
            actions,
            falsifiers,
            confidence,
            source,
        } => crate::cli::call(
            ctx,
            "mesh.answer",
            MeshAnswerRequest {
                request: request.clone(),
                conclusion: conclusion.clone(),
                stance: *stance,
                assumptions: assumptions.clone(),
                risks: risks.clone(),
                actions: actions.clone(),
                falsifiers: falsifiers.clone(),
                confidence: *confidence,
                source: source.clone(),
            },
        )?,
    })
}

fn parse_stance(text: &str) -> Result<crate::model::reasoning::record::Stance, String> {
    serde_json::from_value(serde_json::Value::from(text.trim().to_ascii_lowercase()))
        .map_err(|_| "one of supports, opposes, alternative, uncertain".to_owned())
}

fn parse_confidence(text: &str) -> Result<crate::model::reasoning::record::Confidence, String> {
    serde_json::from_value(serde_json::Value::from(text.trim().to_ascii_lowercase()))
        .map_err(|_| "one of low, medium, high".to_owned())
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Links, then heartbeats (and answers with the command) until SIGINT, SIGTERM or
/// SIGHUP; then unlinks. A server that goes away is reported and retried, never fatal.
fn stay_linked(ctx: &Ctx, request: LinkRequest) -> Result<Output, Error> {
    let registry = Registry::shared();
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    let handlers: Vec<_> = [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ]
    .iter()
    .filter_map(|s| signal_hook::flag::register(*s, Arc::clone(&stop)).ok())
    .collect();
    let linked: LinkOutcome = registry.call(ctx, "mesh.link", request.clone())?;
    say(linked.text().trim_end());
    say("linked until interrupted (Ctrl-C unlinks)");
    let beat = Duration::from_secs(linked.linked.heartbeat_seconds.max(1));
    let answerer = match &request.answer_with {
        Some(command) => Some(Answerer::new(ctx, command)?),
        None => None,
    };
    let in_flight: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let mut next_beat = Instant::now() + beat;
    let mut failing = false;
    while !stop.load(Ordering::SeqCst) {
        if crate::mesh::link_state(ctx).is_none() {
            // `mesh unlink` ran elsewhere: the link is over, not to be renewed.
            say("this checkout's link was removed (majordomus mesh unlink); stopping");
            break;
        }
        if Instant::now() >= next_beat {
            next_beat = Instant::now() + beat;
            match registry.call::<_, LinkOutcome>(ctx, "mesh.link", request.clone()) {
                Ok(_) if failing => {
                    failing = false;
                    say("heartbeat: the server answers again");
                }
                Ok(_) => {}
                Err(e) if !failing => {
                    failing = true;
                    say(&format!("heartbeat failed: {e} (retrying)"));
                }
                Err(_) => {}
            }
        }
        if let Some(answerer) = &answerer
            && let Ok(waiting) = answerer.poll()
        {
            for q in waiting.requests {
                if !in_flight
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(q.request.clone())
                {
                    continue;
                }
                let answerer = answerer.clone();
                let in_flight = Arc::clone(&in_flight);
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    say(&format!(
                        "request {} from {}: running the command",
                        q.request,
                        q.from.as_deref().unwrap_or("an unnamed runtime")
                    ));
                    let done = answerer.answer(&q, &|| stop.load(Ordering::SeqCst));
                    match done {
                        Ok(view) => say(&format!(
                            "request {}: {}",
                            q.request,
                            view.text().trim_end()
                        )),
                        Err(e) => say(&format!("request {}: not answered: {e}", q.request)),
                    }
                    // Kept in the set: an answered request is never run twice.
                    let _ = &in_flight;
                });
            }
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    #[cfg(unix)]
    for id in handlers {
        signal_hook::low_level::unregister(id);
    }
    crate::cli::call(ctx, "mesh.unlink", MeshRequest {})
}
