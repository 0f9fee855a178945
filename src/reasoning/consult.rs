//! `reasoning consult`: the plan, then the selected advisors' adapters run concurrently as
//! child processes (the crate has no network code) under one deadline; a child that
//! outlives it is killed with its whole process group. SIGINT, SIGTERM or SIGHUP while
//! advisors run cancels them the same way: what answered is recorded, the rest as
//! `cancelled`, and the consult ends with exit 1 naming what was kept. Outcomes are
//! recorded in plan order, and diverging stances record the disagreement.

use std::sync::Arc;

use crate::process::{cancelled_failure, failure, run_command};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Written, make_plan, refusal, store};
use crate::Ctx;
use crate::error::Error;
use crate::model::reasoning::record::FailureKind;
use crate::model::reasoning::transport::{self, Answer, Failure};
use crate::model::reasoning::validate::{self, WriteContext};
use crate::model::reasoning::{Adapter, Advisor, ConsultationStatus, Record};

/// `reasoning.consult`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsultRequest {
    /// The assessment to consult on.
    pub assessment: String,
    /// What to ask beyond the assessment itself.
    #[serde(default)]
    pub question: Option<String>,
    /// Seconds every advisor has, together (default 90).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// A prior answer to show the advisors, marked as an opinion.
    #[serde(default)]
    pub prior_opinion: Option<String>,
    #[serde(default)]
    pub task: Option<String>,
}

/// What `reasoning consult` recorded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ConsultOutcome {
    pub plan: Written,
    /// One per selected advisor, in plan order.
    pub consultations: Vec<Written>,
    /// Recorded when the completed consultations' stances diverge: a conclusion is
    /// refused until a resolution with evidence settles it.
    pub disagreement: Option<Written>,
}

/// `majordomus reasoning consult --assessment <id>`.
pub fn consult(ctx: &Ctx, request: ConsultRequest) -> Result<ConsultOutcome, Error> {
    let work = super::work_of(ctx, request.task.as_deref(), &request.assessment)?;
    let records = crate::store::reasoning::read_folder(&ctx.layout, &work.folder)?;
    let roster = super::roster(ctx)?;
    let catalogue = &roster.advisors;
    let plan = make_plan(ctx, &work, &records, &request.assessment, catalogue)?;
    let Record::Plan(p) = &plan.record.record else {
        unreachable!("make_plan stores a plan");
    };
    let assessment = super::find_assessment(&records, &request.assessment)?.clone();
    let question = transport::question(
        &assessment,
        request.question.as_deref(),
        request.prior_opinion.as_deref(),
    );
    // What leaves the machine for a mesh peer carries no secret shape.
    let redacted_question = crate::model::redact::redact(&question).text;
    let own_runtime = crate::mesh::runtime_id(ctx);
    // The same plan (one stored in the same second) already consulted: refused before
    // anybody is asked, so no advisor or peer answers for nothing.
    let stored = crate::store::reasoning::read_folder(&ctx.layout, &work.folder)?;
    if let Some((existing, advisor)) = stored.iter().find_map(|r| match &r.record {
        Record::Consultation(c) if c.plan == plan.record.id && p.selected.contains(&c.advisor) => {
            Some((r.id.clone(), c.advisor.clone()))
        }
        _ => None,
    }) {
        return Err(refusal(
            crate::model::reasoning::validate::RecordRefusal::AlreadyConsulted {
                plan: plan.record.id.clone(),
                advisor,
                assessment: request.assessment.clone(),
                existing,
            },
        ));
    }
    let deadline = Instant::now() + Duration::from_secs(request.timeout.unwrap_or(90));
    let cancel = Cancel::watch_signals();
    let selected: Vec<Advisor> = p
        .selected
        .iter()
        .filter_map(|id| catalogue.advisors.iter().find(|a| &a.id == id).cloned())
        .collect();
    // Concurrently, each under the same deadline; outcomes come back in plan order.
    type Outcome = (Advisor, Result<Answer, Failure>, Option<String>, u64);
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = selected
            .iter()
            .map(|advisor| {
                let question = &question;
                let redacted_question = &redacted_question;
                let own_runtime = own_runtime.as_str();
                let fixtures = ctx.advisor_fixtures.as_deref();
                let cancel = &cancel;
                scope.spawn(move || {
                    let started = Instant::now();
                    let mut source = None;
                    let outcome = match advisor.adapter {
                        Adapter::Fixture => run_fixture(advisor, fixtures, deadline, cancel),
                        Adapter::Process => match advisor.executable.as_deref() {
                            Some(executable) => {
                                run_command(executable, &advisor.args, question, deadline, &|| {
                                    cancel.raised()
                                })
                            }
                            None => Err(failure(
                                FailureKind::Unavailable,
                                "the catalogue names no executable for this advisor",
                            )),
                        },
                        Adapter::Mesh => crate::mesh::ask(
                            own_runtime,
                            &advisor.id,
                            redacted_question,
                            deadline,
                            &|| cancel.raised(),
                        )
                        .map(|(answer, from)| {
                            source = Some(from);
                            answer
                        }),
                    };
                    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    (advisor.clone(), outcome, source, ms)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an adapter thread panicked"))
            .collect()
    });

    let plan_id = plan.record.id.clone();
    let mut consultations = Vec::new();
    for (advisor, outcome, source, ms) in outcomes {
        let mut c = transport::consultation(&plan_id, &advisor.id, outcome, ms);
        c.source = source;
        let mut value = serde_json::to_value(Record::Consultation(c)).expect("records serialise");
        // Plans are the writer's; consultations go through the writer's rules like any.
        if let Some(map) = value.as_object_mut() {
            map.retain(|_, v| !v.is_null());
        }
        let written = write_value(ctx, &work, &value)?;
        consultations.push(written);
    }
    let pairs: Vec<(&str, &crate::model::reasoning::Consultation)> = consultations
        .iter()
        .filter_map(|w| match &w.record.record {
            Record::Consultation(c) => Some((w.record.id.as_str(), c)),
            _ => None,
        })
        .collect();
    let disagreement =
        match transport::detect_disagreement(&request.assessment, &assessment, &pairs) {
            Some(d) => {
                let value =
                    serde_json::to_value(Record::Disagreement(d)).expect("records serialise");
                Some(write_value(ctx, &work, &value)?)
            }
            None => None,
        };
    if let Some(signal) = cancel.signal() {
        let cancelled: Vec<&str> = consultations
            .iter()
            .filter_map(|w| match &w.record.record {
                Record::Consultation(c) if c.status == ConsultationStatus::Cancelled => {
                    Some(c.advisor.as_str())
                }
                _ => None,
            })
            .collect();
        let answered = consultations.len() - cancelled.len();
        return Err(Error::Interrupted {
            operation: "reasoning consult",
            signal,
            recorded: format!(
                "plan {} and {} consultation(s) recorded in {}{}",
                plan.record.id,
                consultations.len(),
                work.folder,
                if cancelled.is_empty() {
                    format!(" ({answered} answered before the signal)")
                } else {
                    format!(" ({} cancelled: {})", cancelled.len(), cancelled.join(", "))
                }
            ) + &format!(
                "; ask again with `majordomus reasoning consult --assessment {}`",
                request.assessment
            ),
            fix: "majordomus reasoning status".to_owned(),
        });
    }
    Ok(ConsultOutcome {
        plan,
        consultations,
        disagreement,
    })
}

/// Cancellation by signal while advisors run: SIGINT, SIGTERM and SIGHUP set a flag the
/// adapters poll (the handlers are removed again when the consult ends, so the process's
/// own handling of those signals is untouched outside it).
struct Cancel {
    raised: Arc<AtomicUsize>,
    #[cfg(unix)]
    handlers: Vec<signal_hook::SigId>,
}

impl Cancel {
    #[cfg(unix)]
    const SIGNALS: [(i32, &'static str); 3] = [
        (signal_hook::consts::SIGINT, "SIGINT"),
        (signal_hook::consts::SIGTERM, "SIGTERM"),
        (signal_hook::consts::SIGHUP, "SIGHUP"),
    ];

    fn watch_signals() -> Cancel {
        let raised = Arc::new(AtomicUsize::new(0));
        #[cfg(unix)]
        {
            let handlers = Self::SIGNALS
                .iter()
                .filter_map(|&(signal, _)| {
                    let value = usize::try_from(signal).unwrap_or(usize::MAX);
                    signal_hook::flag::register_usize(signal, Arc::clone(&raised), value).ok()
                })
                .collect();
            Cancel { raised, handlers }
        }
        #[cfg(not(unix))]
        Cancel { raised }
    }

    /// The signal that cancelled the consult, if one did.
    fn signal(&self) -> Option<&'static str> {
        let raised = self.raised.load(Ordering::SeqCst);
        if raised == 0 {
            return None;
        }
        #[cfg(unix)]
        {
            Self::SIGNALS
                .iter()
                .find(|(s, _)| usize::try_from(*s).ok() == Some(raised))
                .map(|(_, name)| *name)
                .or(Some("a signal"))
        }
        #[cfg(not(unix))]
        Some("a signal")
    }

    fn raised(&self) -> bool {
        self.raised.load(Ordering::SeqCst) != 0
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        #[cfg(unix)]
        for id in self.handlers.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Sleeps in short steps until `until`, or until cancelled (true when cancelled).
fn wait_until(until: Instant, cancel: &Cancel) -> bool {
    loop {
        if cancel.raised() {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

/// Passes a record the transport built through the writer's validation and stores it.
/// Its author is `consult`: the only writer of consultations.
fn write_value(ctx: &Ctx, work: &super::Work, value: &serde_json::Value) -> Result<Written, Error> {
    let records = crate::store::reasoning::read_folder(&ctx.layout, &work.folder)?;
    let context = WriteContext {
        task: &work.folder,
        episode: work.episode.as_deref(),
        now: ctx.clock.now(),
        records: &records,
        // A consultation and a disagreement read the task's records only.
        checkout: &records,
        redact: &super::redaction,
    };
    let accepted =
        validate::validate(value, validate::Author::Consult, &context).map_err(refusal)?;
    store(ctx, accepted)
}

/// The `fixture` adapter: plays `$MAJORDOMUS_ADVISOR_FIXTURES/<id>.json` (an answer or a
/// typed failure, after `delay_ms`), for tests and the demo.
fn run_fixture(
    advisor: &Advisor,
    fixtures: Option<&std::path::Path>,
    deadline: Instant,
    cancel: &Cancel,
) -> Result<Answer, Failure> {
    let Some(dir) = fixtures else {
        return Err(failure(
            FailureKind::Unavailable,
            "MAJORDOMUS_ADVISOR_FIXTURES is not set",
        ));
    };
    let path = dir.join(format!("{}.json", advisor.id));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| failure(FailureKind::Unavailable, format!("{}: {e}", path.display())))?;
    let fixture = transport::parse_fixture(&text, &path.display().to_string())
        .map_err(|e| failure(FailureKind::Malformed, e.to_string()))?;
    if let Some(ms) = fixture.delay_ms {
        let ready = Instant::now() + Duration::from_millis(ms);
        if wait_until(ready.min(deadline), cancel) {
            return Err(cancelled_failure());
        }
        if ready > deadline {
            return Err(failure(
                FailureKind::Timeout,
                format!("no answer within the deadline (the fixture waits {ms} ms)"),
            ));
        }
    }
    if cancel.raised() {
        return Err(cancelled_failure());
    }
    fixture.outcome
}
