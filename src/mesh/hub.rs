//! The mesh server's state (SPEC §7, docs/MESH.md): the linked runtimes and the review
//! requests between them, held in memory by `majordomus serve`. Pure: every call takes
//! the moment it happens (`now`, monotonic milliseconds), so the heartbeat window, the
//! deadlines and the first-answer-wins rule are tested without a clock or a socket.
//!
//! What it refuses, each with its rule: a link, heartbeat or poll whose key is not the
//! runtime's (`mesh.runtime-key`: an id is claimed by whoever linked it first, until its
//! heartbeat is older than the window or it unlinks); a request to a runtime that is gone
//! or offers no reviews (`mesh.runtime-gone`); an answer to a request that does not exist
//! (`mesh.request-unknown`), that was sent to another runtime (`mesh.not-addressed`), that
//! is already answered (`mesh.answered`) or past its deadline (`mesh.expired`); an answer
//! that is not one (`mesh.answer-valid`).

use std::collections::BTreeMap;

use super::wire::{
    AnswerBody, LinkBody, Linked, RequestBody, RequestState, RequestView, RuntimeView, Runtimes,
    Submitted, Unlinked, Waiting, WaitingRequest,
};
use crate::model::reasoning::transport::{self, Answer, Failure};

/// A heartbeat older than this many seconds means the runtime is gone (the default of
/// `serve --heartbeat-window`).
pub const DEFAULT_WINDOW_SECONDS: u64 = 30;

/// The longest a request may wait for its answer.
pub const MAX_DEADLINE_MS: u64 = 15 * 60 * 1000;

/// How long an answered or expired request is kept for its asker to read.
const KEEP_MS: u64 = 10 * 60 * 1000;

/// The most requests waiting for one runtime (a flood from one asker cannot grow the
/// server without bound).
const MAX_WAITING_PER_RUNTIME: usize = 64;

/// What the hub refused, with its HTTP status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HubRefusal {
    pub status: u16,
    pub rule: &'static str,
    pub message: String,
    pub fix: String,
}

fn refuse(status: u16, rule: &'static str, message: String, fix: &str) -> HubRefusal {
    HubRefusal {
        status,
        rule,
        message,
        fix: fix.to_owned(),
    }
}

#[derive(Debug, Clone)]
struct Runtime {
    key: String,
    offers: Vec<String>,
    label: String,
    source: Option<String>,
    linked_at: String,
    heartbeat: u64,
}

#[derive(Debug, Clone)]
enum State {
    Waiting,
    Answered {
        answer: Answer,
        source: String,
        at: u64,
    },
    Failed {
        failure: Failure,
        at: u64,
    },
}

#[derive(Debug, Clone)]
struct Request {
    to: String,
    from: Option<String>,
    question: String,
    created: u64,
    deadline: u64,
    state: State,
}

/// The mesh server's state.
#[derive(Debug, Clone)]
pub struct Hub {
    window_ms: u64,
    runtimes: BTreeMap<String, Runtime>,
    requests: BTreeMap<String, Request>,
}

impl Hub {
    pub fn new(window_seconds: u64) -> Hub {
        Hub {
            window_ms: window_seconds.max(1).saturating_mul(1000),
            runtimes: BTreeMap::new(),
            requests: BTreeMap::new(),
        }
    }

    pub fn window_seconds(&self) -> u64 {
        self.window_ms / 1000
    }

    fn live(&self, runtime: &Runtime, now: u64) -> bool {
        now.saturating_sub(runtime.heartbeat) <= self.window_ms
    }

    /// The runtime `id` if `key` is its key.
    fn owned(&mut self, id: &str, key: &str) -> Result<&mut Runtime, HubRefusal> {
        match self.runtimes.get_mut(id) {
            Some(r) if same_secret(&r.key, key) => Ok(r),
            Some(_) => Err(refuse(
                403,
                "mesh.runtime-key",
                format!("runtime {id}: the key is not the one it linked with"),
                "answer as the runtime this checkout linked (majordomus mesh link), with its own key",
            )),
            None => Err(refuse(
                404,
                "mesh.runtime-unknown",
                format!("runtime {id} is not linked to this server"),
                "majordomus mesh link --offers reviews",
            )),
        }
    }

    /// Links a runtime, or renews its heartbeat. An id is held by the key that linked it
    /// while its heartbeat is within the window; a gone runtime's id may be taken again.
    pub fn link(&mut self, body: LinkBody, now: u64, wall: &str) -> Result<Linked, HubRefusal> {
        if !super::is_runtime_id(&body.runtime) {
            return Err(refuse(
                400,
                "mesh.runtime-id",
                format!("{:?} is not a runtime id", body.runtime),
                "link with majordomus mesh link, which derives the id",
            ));
        }
        if body.key.len() < 16 {
            return Err(refuse(
                400,
                "mesh.runtime-key",
                "a runtime key has at least 16 characters".to_owned(),
                "link with majordomus mesh link, which makes the key",
            ));
        }
        let window = self.window_ms;
        match self.runtimes.get_mut(&body.runtime) {
            Some(r) if same_secret(&r.key, &body.key) => {
                r.heartbeat = now;
                r.offers = body.offers;
                r.label = body.label;
                r.source = body.source;
            }
            Some(r) if now.saturating_sub(r.heartbeat) <= window => {
                return Err(refuse(
                    403,
                    "mesh.runtime-key",
                    format!(
                        "runtime {} is linked by another key and its heartbeat is live",
                        body.runtime
                    ),
                    "link from the checkout that owns this runtime id, or wait until its heartbeat is older than the window",
                ));
            }
            _ => {
                self.runtimes.insert(
                    body.runtime.clone(),
                    Runtime {
                        key: body.key,
                        offers: body.offers,
                        label: body.label,
                        source: body.source,
                        linked_at: wall.to_owned(),
                        heartbeat: now,
                    },
                );
            }
        }
        let r = &self.runtimes[&body.runtime];
        Ok(Linked {
            runtime: body.runtime.clone(),
            offers: r.offers.clone(),
            linked_at: r.linked_at.clone(),
            window_seconds: self.window_seconds(),
            heartbeat_seconds: (self.window_seconds() / 3).max(1),
        })
    }

    /// Removes a runtime; requests waiting for it fail as `unavailable`.
    pub fn unlink(&mut self, id: &str, key: &str, now: u64) -> Result<Unlinked, HubRefusal> {
        self.owned(id, key)?;
        self.runtimes.remove(id);
        let mut failed = 0;
        for request in self.requests.values_mut() {
            if request.to == id && matches!(request.state, State::Waiting) && request.deadline > now
            {
                request.state = State::Failed {
                    failure: Failure {
                        kind: crate::model::reasoning::record::FailureKind::Unavailable,
                        retry_after_seconds: None,
                        diagnostic: Some(format!("runtime {id} unlinked before it answered")),
                    },
                    at: now,
                };
                failed += 1;
            }
        }
        Ok(Unlinked {
            runtime: id.to_owned(),
            failed_requests: failed,
        })
    }

    /// Every runtime the server knows, live or not, by id.
    pub fn runtimes(&mut self, now: u64) -> Runtimes {
        self.sweep(now);
        Runtimes {
            window_seconds: self.window_seconds(),
            runtimes: self
                .runtimes
                .iter()
                .map(|(id, r)| RuntimeView {
                    runtime: id.clone(),
                    offers: r.offers.clone(),
                    label: r.label.clone(),
                    source: r.source.clone(),
                    linked_at: r.linked_at.clone(),
                    heartbeat_age_seconds: now.saturating_sub(r.heartbeat) / 1000,
                    live: self.live(r, now),
                    waiting: self
                        .requests
                        .values()
                        .filter(|q| &q.to == id && matches!(q.state, State::Waiting))
                        .filter(|q| q.deadline > now)
                        .count(),
                })
                .collect(),
        }
    }

    /// Sends a review request to a live runtime offering reviews; `id` is the request's
    /// (random) id.
    pub fn submit(
        &mut self,
        id: String,
        body: RequestBody,
        now: u64,
    ) -> Result<Submitted, HubRefusal> {
        self.sweep(now);
        let live = self
            .runtimes
            .get(&body.to)
            .filter(|r| self.live(r, now) && r.offers.iter().any(|o| o == "reviews"));
        if live.is_none() {
            return Err(refuse(
                409,
                "mesh.runtime-gone",
                format!(
                    "runtime {} is not linked, offers no reviews, or its heartbeat is older than {} s",
                    body.to,
                    self.window_seconds()
                ),
                "majordomus mesh status",
            ));
        }
        if body.question.trim().is_empty() {
            return Err(refuse(
                400,
                "mesh.question",
                "the review request has no question".to_owned(),
                "send the question the plan's consult builds",
            ));
        }
        let waiting = self
            .requests
            .values()
            .filter(|q| q.to == body.to && matches!(q.state, State::Waiting))
            .count();
        if waiting >= MAX_WAITING_PER_RUNTIME {
            return Err(refuse(
                429,
                "mesh.queue-full",
                format!("{waiting} requests already wait for runtime {}", body.to),
                "consult again later",
            ));
        }
        let deadline_ms = body.deadline_ms.clamp(1, MAX_DEADLINE_MS);
        self.requests.insert(
            id.clone(),
            Request {
                to: body.to.clone(),
                from: body.from,
                question: body.question,
                created: now,
                deadline: now + deadline_ms,
                state: State::Waiting,
            },
        );
        Ok(Submitted {
            request: id,
            to: body.to,
            deadline_ms,
        })
    }

    /// What waits for runtime `id` (its key proves who asks); a poll renews its heartbeat.
    pub fn waiting(&mut self, id: &str, key: &str, now: u64) -> Result<Waiting, HubRefusal> {
        self.sweep(now);
        self.owned(id, key)?.heartbeat = now;
        Ok(Waiting {
            runtime: id.to_owned(),
            requests: self
                .requests
                .iter()
                .filter(|(_, q)| q.to == id && matches!(q.state, State::Waiting))
                .filter(|(_, q)| q.deadline > now)
                .map(|(rid, q)| WaitingRequest {
                    request: rid.clone(),
                    from: q.from.clone(),
                    question: q.question.clone(),
                    deadline_ms_left: q.deadline - now,
                    waited_ms: now - q.created,
                })
                .collect(),
        })
    }

    /// The first answer to a request wins; the runtime answering must be the one it was
    /// sent to, with its key.
    pub fn answer(
        &mut self,
        request: &str,
        body: AnswerBody,
        now: u64,
    ) -> Result<RequestView, HubRefusal> {
        let Some(q) = self.requests.get(request) else {
            return Err(refuse(
                404,
                "mesh.request-unknown",
                format!("review request {request} does not exist on this server"),
                "answer a request majordomus mesh requests lists",
            ));
        };
        if q.to != body.runtime {
            return Err(refuse(
                403,
                "mesh.not-addressed",
                format!(
                    "review request {request} was sent to runtime {}, not {}",
                    q.to, body.runtime
                ),
                "answer only the requests majordomus mesh requests lists for this runtime",
            ));
        }
        let to = q.to.clone();
        self.owned(&to, &body.key)?.heartbeat = now;
        let q = self.requests.get_mut(request).expect("looked up above");
        match q.state {
            State::Waiting if q.deadline <= now => {
                return Err(refuse(
                    409,
                    "mesh.expired",
                    format!("review request {request} passed its deadline before this answer"),
                    "answer the requests still waiting (majordomus mesh requests)",
                ));
            }
            State::Waiting => {}
            _ => {
                return Err(refuse(
                    409,
                    "mesh.answered",
                    format!(
                        "review request {request} is already answered; the first answer counts"
                    ),
                    "answer the requests still waiting (majordomus mesh requests)",
                ));
            }
        }
        let state = match (body.answer, body.failure) {
            (Some(answer), None) => {
                let answer = transport::normalise_answer(&serde_json::Value::Object(answer))
                    .map_err(|f| {
                        refuse(
                            400,
                            "mesh.answer-valid",
                            format!(
                                "the answer is {}: {}",
                                f.kind.name(),
                                f.diagnostic.unwrap_or_default()
                            ),
                            "send {\"conclusion\": \"...\", \"stance\": \"supports|opposes|alternative|uncertain\", ...}",
                        )
                    })?;
                let source = body
                    .source
                    .filter(|s| !s.trim().is_empty())
                    .or_else(|| self.runtimes.get(&to).and_then(|r| r.source.clone()))
                    .unwrap_or_else(|| format!("runtime:{to}"));
                State::Answered {
                    answer,
                    source: super::clean_source(&source),
                    at: now,
                }
            }
            (None, Some(failure)) => State::Failed { failure, at: now },
            _ => {
                return Err(refuse(
                    400,
                    "mesh.answer-valid",
                    "an answer has exactly one of `answer` and `failure`".to_owned(),
                    "send {\"answer\": {\"conclusion\": \"...\", ...}} or {\"failure\": {\"kind\": \"error\"}}",
                ));
            }
        };
        let q = self.requests.get_mut(request).expect("looked up above");
        q.state = state;
        Ok(view(request, q, now))
    }

    /// A request as its asker reads it. One still waiting for a runtime that is gone (its
    /// heartbeat older than the window) fails as `unavailable`: it will not be answered.
    pub fn request(&mut self, request: &str, now: u64) -> Result<RequestView, HubRefusal> {
        self.sweep(now);
        let gone = self.requests.get(request).is_some_and(|q| {
            matches!(q.state, State::Waiting)
                && q.deadline > now
                && !self.runtimes.get(&q.to).is_some_and(|r| self.live(r, now))
        });
        if gone && let Some(q) = self.requests.get_mut(request) {
            q.state = State::Failed {
                failure: Failure {
                    kind: crate::model::reasoning::record::FailureKind::Unavailable,
                    retry_after_seconds: None,
                    diagnostic: Some(format!(
                        "runtime {} went away (no heartbeat for {} s) before it answered",
                        q.to,
                        self.window_ms / 1000
                    )),
                },
                at: now,
            };
        }
        self.requests
            .get(request)
            .map(|q| view(request, q, now))
            .ok_or_else(|| {
                refuse(
                    404,
                    "mesh.request-unknown",
                    format!("review request {request} does not exist on this server"),
                    "send the request again (majordomus reasoning consult)",
                )
            })
    }

    /// Forgets what nobody will read again: requests settled or expired long ago, and
    /// runtimes gone for ten windows.
    fn sweep(&mut self, now: u64) {
        self.requests.retain(|_, q| {
            let settled = match q.state {
                State::Waiting => q.deadline,
                State::Answered { at, .. } | State::Failed { at, .. } => at,
            };
            now.saturating_sub(settled) <= KEEP_MS
        });
        let forget = self.window_ms.saturating_mul(10);
        self.runtimes
            .retain(|_, r| now.saturating_sub(r.heartbeat) <= forget);
    }
}

fn view(id: &str, q: &Request, now: u64) -> RequestView {
    let (state, answer, failure, source) = match &q.state {
        State::Waiting if q.deadline <= now => (RequestState::Expired, None, None, None),
        State::Waiting => (RequestState::Waiting, None, None, None),
        State::Answered { answer, source, .. } => (
            RequestState::Answered,
            Some(answer.clone()),
            None,
            Some(source.clone()),
        ),
        State::Failed { failure, .. } => (RequestState::Failed, None, Some(failure.clone()), None),
    };
    RequestView {
        request: id.to_owned(),
        to: q.to.clone(),
        state,
        answer,
        failure,
        source,
    }
}

/// Compares two secrets (a runtime's key, the server's token) in time that does not
/// depend on where they first differ: a caller timing its guesses learns nothing.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reasoning::record::FailureKind;
    use serde_json::json;

    const KEY_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const KEY_C: &str = "cccccccccccccccccccccccccccccccc";

    fn link(hub: &mut Hub, id: &str, key: &str, now: u64) -> Result<Linked, HubRefusal> {
        hub.link(
            LinkBody {
                runtime: id.into(),
                key: key.into(),
                offers: vec!["reviews".into()],
                label: id.into(),
                source: Some("command:review".into()),
            },
            now,
            "2026-12-06T10:00:00Z",
        )
    }

    fn ask(hub: &mut Hub, id: &str, to: &str, now: u64) -> Result<Submitted, HubRefusal> {
        hub.submit(
            id.into(),
            RequestBody {
                to: to.into(),
                from: Some("asker-00000000".into()),
                question: "Is the reflog enough?".into(),
                deadline_ms: 5_000,
            },
            now,
        )
    }

    fn answer(runtime: &str, key: &str) -> AnswerBody {
        AnswerBody {
            runtime: runtime.into(),
            key: key.into(),
            answer: json!({"conclusion": "Use the forge", "stance": "opposes"})
                .as_object()
                .cloned(),
            failure: None,
            source: None,
        }
    }

    #[test]
    fn a_runtime_is_live_within_the_window_and_gone_after() {
        let mut hub = Hub::new(2);
        link(&mut hub, "wt-b-0000000b", KEY_B, 0).unwrap();
        assert!(hub.runtimes(2_000).runtimes[0].live);
        assert!(!hub.runtimes(2_001).runtimes[0].live);
        assert_eq!(
            ask(&mut hub, "r1", "wt-b-0000000b", 2_001)
                .unwrap_err()
                .rule,
            "mesh.runtime-gone"
        );
        // A poll is a heartbeat.
        hub.waiting("wt-b-0000000b", KEY_B, 2_500).unwrap();
        assert!(ask(&mut hub, "r1", "wt-b-0000000b", 3_000).is_ok());
    }

    #[test]
    fn an_id_is_held_by_its_key_while_live() {
        let mut hub = Hub::new(2);
        link(&mut hub, "wt-b-0000000b", KEY_B, 0).unwrap();
        assert_eq!(
            link(&mut hub, "wt-b-0000000b", KEY_C, 1_000)
                .unwrap_err()
                .rule,
            "mesh.runtime-key"
        );
        assert_eq!(
            hub.waiting("wt-b-0000000b", KEY_C, 1_000).unwrap_err().rule,
            "mesh.runtime-key"
        );
        // Gone: the id may be taken again.
        assert!(link(&mut hub, "wt-b-0000000b", KEY_C, 5_000).is_ok());
    }

    #[test]
    fn the_first_answer_of_the_runtime_asked_wins_and_forgeries_are_refused() {
        let mut hub = Hub::new(30);
        link(&mut hub, "wt-b-0000000b", KEY_B, 0).unwrap();
        link(&mut hub, "wt-c-0000000c", KEY_C, 0).unwrap();
        ask(&mut hub, "r1", "wt-b-0000000b", 10).unwrap();
        let pending = hub.waiting("wt-b-0000000b", KEY_B, 20).unwrap();
        assert_eq!(pending.requests.len(), 1);
        assert!(
            hub.waiting("wt-c-0000000c", KEY_C, 20)
                .unwrap()
                .requests
                .is_empty()
        );

        let rule = |r: Result<RequestView, HubRefusal>| r.unwrap_err().rule;
        assert_eq!(
            rule(hub.answer("r9", answer("wt-b-0000000b", KEY_B), 30)),
            "mesh.request-unknown"
        );
        assert_eq!(
            rule(hub.answer("r1", answer("wt-c-0000000c", KEY_C), 30)),
            "mesh.not-addressed"
        );
        assert_eq!(
            rule(hub.answer("r1", answer("wt-b-0000000b", KEY_C), 30)),
            "mesh.runtime-key"
        );
        let mut empty = answer("wt-b-0000000b", KEY_B);
        empty.answer = json!({"stance": "supports"}).as_object().cloned();
        assert_eq!(rule(hub.answer("r1", empty, 30)), "mesh.answer-valid");

        let done = hub
            .answer("r1", answer("wt-b-0000000b", KEY_B), 40)
            .unwrap();
        assert_eq!(done.state, RequestState::Answered);
        assert_eq!(done.source.as_deref(), Some("command:review"));
        assert_eq!(
            rule(hub.answer("r1", answer("wt-b-0000000b", KEY_B), 50)),
            "mesh.answered"
        );
        assert_eq!(
            hub.request("r1", 60).unwrap().answer.unwrap().conclusion,
            "Use the forge"
        );
    }

    #[test]
    fn deadlines_expire_and_unlinking_fails_what_waits() {
        let mut hub = Hub::new(30);
        link(&mut hub, "wt-b-0000000b", KEY_B, 0).unwrap();
        ask(&mut hub, "r1", "wt-b-0000000b", 0).unwrap();
        assert_eq!(
            hub.request("r1", 5_001).unwrap().state,
            RequestState::Expired
        );
        assert_eq!(
            hub.answer("r1", answer("wt-b-0000000b", KEY_B), 5_001)
                .unwrap_err()
                .rule,
            "mesh.expired"
        );
        ask(&mut hub, "r2", "wt-b-0000000b", 6_000).unwrap();
        assert_eq!(
            hub.unlink("wt-b-0000000b", KEY_B, 6_100)
                .unwrap()
                .failed_requests,
            1
        );
        let failed = hub.request("r2", 6_200).unwrap();
        assert_eq!(failed.state, RequestState::Failed);
        assert_eq!(failed.failure.unwrap().kind, FailureKind::Unavailable);
        assert!(hub.runtimes(6_300).runtimes.is_empty());
    }

    #[test]
    fn a_request_to_a_runtime_that_goes_silent_fails_unavailable() {
        let mut hub = Hub::new(2);
        link(&mut hub, "wt-b-0000000b", KEY_B, 0).unwrap();
        ask(&mut hub, "r1", "wt-b-0000000b", 1_000).unwrap();
        assert_eq!(
            hub.request("r1", 1_500).unwrap().state,
            RequestState::Waiting
        );
        let gone = hub.request("r1", 2_500).unwrap();
        assert_eq!(gone.state, RequestState::Failed);
        assert_eq!(gone.failure.unwrap().kind, FailureKind::Unavailable);
    }
}
