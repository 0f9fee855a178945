//! The mesh's results as a person reads them: link, unlink, status, requests, answer.

use std::fmt::Write as _;

use crate::mesh::wire::{RequestState, RequestView};
use crate::mesh::{LinkOutcome, MeshRequests, MeshStatus, UnlinkOutcome};
use crate::model::Verdict;
use crate::ops::Report;

impl Report for LinkOutcome {
    fn text(&self) -> String {
        let mut out = format!(
            "linked runtime {} to {} offering {}\n",
            self.linked.runtime,
            self.server,
            self.linked.offers.join(", ")
        );
        let _ = writeln!(out, "  label     {}", self.label);
        let _ = writeln!(
            out,
            "  source    {}",
            self.source
                .as_deref()
                .unwrap_or("(undeclared: counted as this runtime alone)")
        );
        let _ = writeln!(
            out,
            "  answers   {}",
            match &self.answer_with {
                Some(command) =>
                    format!("by running `{command}` (question on stdin, JSON answer on stdout)"),
                None => "through its agent: majordomus_mesh_requests, then majordomus_mesh_answer"
                    .to_owned(),
            }
        );
        let _ = writeln!(
            out,
            "  heartbeat every {} s; gone after {} s without one",
            self.linked.heartbeat_seconds, self.linked.window_seconds
        );
        out
    }
}

impl Report for UnlinkOutcome {
    fn verdict(&self) -> Verdict {
        if self.unlinked {
            Verdict::Pass
        } else {
            Verdict::Advisory
        }
    }

    fn text(&self) -> String {
        match (&self.server, self.unlinked, &self.problem) {
            (Some(server), true, _) => format!(
                "unlinked runtime {} from {server}{}\n",
                self.runtime,
                if self.failed_requests > 0 {
                    format!(
                        "; {} waiting request(s) failed as unavailable",
                        self.failed_requests
                    )
                } else {
                    String::new()
                }
            ),
            (_, _, problem) => format!(
                "forgot this checkout's link (runtime {}); the server was not told: {}\n  it drops the runtime once its heartbeat is older than the window\n",
                self.runtime,
                problem.as_deref().unwrap_or("no server")
            ),
        }
    }
}

impl Report for MeshStatus {
    fn verdict(&self) -> Verdict {
        if self.problem.is_some() {
            Verdict::Advisory
        } else {
            Verdict::Pass
        }
    }

    fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "server    {}",
            self.server
                .as_deref()
                .unwrap_or("(none: MAJORDOMUS_SERVER_URL is not set)")
        );
        if let Some(problem) = &self.problem {
            let _ = writeln!(out, "problem   {problem}");
        }
        let _ = writeln!(
            out,
            "this      {} ({})",
            self.runtime,
            match (&self.link, self.holder_running) {
                (Some(link), Some(false)) => format!(
                    "link recorded, but its `majordomus mesh link` (pid {}) is not running: no heartbeat; link again, or majordomus mesh unlink",
                    link.holder.unwrap_or_default()
                ),
                (Some(link), _) => format!(
                    "linked, offers {}, answers {}",
                    link.offers.join(", "),
                    match &link.answer_with {
                        Some(c) => format!("by `{c}`"),
                        None => "through its agent".to_owned(),
                    }
                ),
                (None, _) => "not linked".to_owned(),
            }
        );
        if let Some(window) = self.window_seconds {
            let _ = writeln!(
                out,
                "runtimes  {} (gone after {window} s without a heartbeat)",
                self.runtimes.len()
            );
        }
        for r in &self.runtimes {
            let _ = writeln!(
                out,
                "- {}{} [{}] offers {}; source {}; heartbeat {} s ago{}{}",
                r.runtime,
                if r.runtime == self.runtime {
                    " (this)"
                } else {
                    ""
                },
                if r.live { "live" } else { "gone" },
                r.offers.join(", "),
                r.source.as_deref().unwrap_or("(undeclared)"),
                r.heartbeat_age_seconds,
                if r.waiting > 0 {
                    format!("; {} request(s) waiting", r.waiting)
                } else {
                    String::new()
                },
                if r.label.is_empty() {
                    String::new()
                } else {
                    format!("\n  {}", r.label)
                }
            );
        }
        out
    }
}

impl Report for MeshRequests {
    fn text(&self) -> String {
        if self.waiting.requests.is_empty() {
            return format!(
                "no review request waits for runtime {} ({})\n",
                self.waiting.runtime, self.server
            );
        }
        let mut out = format!(
            "{} review request(s) wait for runtime {}. Answer each with the majordomus_mesh_answer tool: the JSON object a question asks for is that tool's arguments (conclusion, stance, assumptions, risks, actions, falsifiers, confidence), with the request's id (CLI: majordomus mesh answer <request> --conclusion ...)\n",
            self.waiting.requests.len(),
            self.waiting.runtime
        );
        for q in &self.waiting.requests {
            let _ = writeln!(
                out,
                "\n## request {} (from {}; {} s left)\n{}",
                q.request,
                q.from.as_deref().unwrap_or("an unnamed runtime"),
                q.deadline_ms_left / 1000,
                q.question.trim_end()
            );
        }
        out
    }
}

impl Report for RequestView {
    fn text(&self) -> String {
        match self.state {
            RequestState::Answered => format!(
                "answered review request {} (the asker records it as a consultation; source {})\n",
                self.request,
                self.source.as_deref().unwrap_or("(undeclared)")
            ),
            RequestState::Failed => format!("review request {} failed\n", self.request),
            RequestState::Waiting => format!("review request {} still waits\n", self.request),
            RequestState::Expired => format!("review request {} expired\n", self.request),
        }
    }
}
