//! Advisor availability: a pure function of presence, mode, the disabled set, the
//! advisor's recorded consultations and the clock (the circuit).
//!
//! The circuit, read from the consultations in order:
//! - `completed` closes it: the transient count goes back to zero and any cooldown ends.
//! - `timeout`, `error`, `unavailable` are transient; the second in a row (and every one
//!   after, until a `completed`) opens it for 10 minutes.
//! - `auth_failed` opens it for an hour; `rate_limited` for its retry-after, else 15
//!   minutes. Neither touches the transient count.
//! - `malformed`, `empty`, `cancelled` are about one exchange: they neither count against
//!   the advisor nor close the circuit, so `timeout, malformed, timeout` is still two
//!   transient failures in a row (the malformed answer proved nothing about recovery).
//! - An opening never shortens a cooldown already running.
//!
//! Once the cooldown has passed the advisor is `recovering` (admissible) until its next
//! `completed` consultation. `MAJORDOMUS_REASONING_COOLDOWN_SECONDS` replaces every
//! cooldown length, retry-after included.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::catalogue::{Adapter, Advisor, Catalogue};
use super::record::{ConsultationStatus, Record, StoredRecord};
use crate::model::policy::ReasoningMode;
use crate::model::time::rfc3339;

/// Two consecutive transient failures open the circuit this long.
pub const TRANSIENT_COOLDOWN_SECONDS: u64 = 10 * 60;
/// An authentication failure opens it this long.
pub const AUTH_COOLDOWN_SECONDS: u64 = 60 * 60;
/// A rate limit without retry-after is honoured this long.
pub const RATE_LIMIT_COOLDOWN_SECONDS: u64 = 15 * 60;

/// An advisor's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
#[schemars(rename = "AdvisorStatus")]
pub enum Status {
    /// Presence observed; whether it answers is learned by asking.
    Available,
    /// Its executable is not on `PATH`.
    Unavailable,
    /// Its credential variable is not set.
    NotConfigured,
    /// The mode or `MAJORDOMUS_ADVISORS_DISABLE` leaves it out.
    Disabled,
    /// Its circuit is open after transient or authentication failures.
    TemporarilyFailed { until: String },
    /// It answered with a rate limit.
    RateLimited { until: String },
    /// Its cooldown is over; its next completed consultation closes the circuit.
    Recovering,
}

impl Status {
    pub fn name(&self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Unavailable => "unavailable",
            Status::NotConfigured => "not_configured",
            Status::Disabled => "disabled",
            Status::TemporarilyFailed { .. } => "temporarily_failed",
            Status::RateLimited { .. } => "rate_limited",
            Status::Recovering => "recovering",
        }
    }

    /// A plan may select an advisor in this status.
    pub fn is_admissible(&self) -> bool {
        matches!(self, Status::Available | Status::Recovering)
    }

    /// The end of the cooldown, for the two statuses that have one.
    pub fn until(&self) -> Option<&str> {
        match self {
            Status::TemporarilyFailed { until } | Status::RateLimited { until } => Some(until),
            _ => None,
        }
    }
}

/// A status and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Availability {
    #[serde(flatten)]
    pub status: Status,
    pub reason: String,
}

/// One advisor's availability in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdvisorAvailability {
    pub advisor: String,
    #[serde(flatten)]
    pub availability: Availability,
}

/// Every catalogue advisor's availability at one moment, in catalogue order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "AvailabilitySnapshot")]
pub struct Snapshot {
    /// RFC 3339, UTC: the moment the snapshot describes.
    pub as_of: String,
    pub advisors: Vec<AdvisorAvailability>,
}

impl Snapshot {
    pub fn get(&self, advisor: &str) -> Option<&Availability> {
        self.advisors
            .iter()
            .find(|a| a.advisor == advisor)
            .map(|a| &a.availability)
    }
}

/// What was observed about an advisor's installation. Values are never read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Presence {
    /// Its executable is on `PATH` (ignored for adapters that need none).
    pub executable_on_path: bool,
    /// Its credential variable is set (ignored when it declares none).
    pub credential_set: bool,
}

/// The advisors `MAJORDOMUS_ADVISORS_DISABLE` leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Disabled {
    pub all: bool,
    pub ids: BTreeSet<String>,
}

impl Disabled {
    /// Parses the variable's value: ids separated by commas or whitespace; `*` or `all`
    /// disables every advisor.
    pub fn parse(value: Option<&str>) -> Disabled {
        let mut disabled = Disabled::default();
        for item in value
            .unwrap_or_default()
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            match item {
                "*" | "all" => disabled.all = true,
                id => {
                    disabled.ids.insert(id.to_owned());
                }
            }
        }
        disabled
    }

    pub fn contains(&self, id: &str) -> bool {
        self.all || self.ids.contains(id)
    }
}

/// An environment value that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={value}: expected {expected}")]
pub struct EnvValueError {
    pub variable: &'static str,
    pub value: String,
    pub expected: &'static str,
}

impl EnvValueError {
    pub fn rule(&self) -> &'static str {
        "reasoning.environment"
    }
}

/// Parses `MAJORDOMUS_REASONING_COOLDOWN_SECONDS`: unset or empty is no override.
pub fn parse_cooldown_override(value: Option<&str>) -> Result<Option<u64>, EnvValueError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| EnvValueError {
            variable: "MAJORDOMUS_REASONING_COOLDOWN_SECONDS",
            value: v.to_owned(),
            expected: "a whole number of seconds",
        }),
    }
}

/// What availability depends on besides the advisor and its history.
#[derive(Debug, Clone)]
pub struct Conditions<'a> {
    pub mode: ReasoningMode,
    pub disabled: &'a Disabled,
    /// `MAJORDOMUS_REASONING_COOLDOWN_SECONDS`: replaces every cooldown length.
    pub cooldown_override: Option<u64>,
    pub now: OffsetDateTime,
}

/// One recorded exchange with an advisor, as the circuit reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    pub recorded_at: OffsetDateTime,
    pub status: ConsultationStatus,
    pub retry_after_seconds: Option<u64>,
}

/// The advisor's consultations among `records`, oldest first (by `recorded_at`, then id).
pub fn history(advisor: &str, records: &[StoredRecord]) -> Vec<Exchange> {
    let mut found: Vec<(OffsetDateTime, &str, Exchange)> = records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Consultation(c) if c.advisor == advisor => {
                let at = r.recorded_time()?;
                Some((
                    at,
                    r.id.as_str(),
                    Exchange {
                        recorded_at: at,
                        status: c.status,
                        retry_after_seconds: c.retry_after_seconds,
                    },
                ))
            }
            _ => None,
        })
        .collect();
    found.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    found.into_iter().map(|(_, _, e)| e).collect()
}

/// Why the circuit is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    Transient,
    Auth,
    RateLimit { retry_after: Option<u64> },
}

/// The advisor's availability now.
pub fn assess(
    advisor: &Advisor,
    presence: Presence,
    conditions: &Conditions<'_>,
    history: &[Exchange],
) -> Availability {
    let status = |status: Status, reason: String| Availability { status, reason };
    let mesh = advisor.adapter == Adapter::Mesh;
    if conditions.disabled.contains(&advisor.id)
        || (mesh && conditions.disabled.ids.contains("mesh"))
    {
        return status(
            Status::Disabled,
            "MAJORDOMUS_ADVISORS_DISABLE leaves it out".to_owned(),
        );
    }
    match conditions.mode {
        ReasoningMode::Ci => {
            return status(Status::Disabled, "mode ci admits no advisor".to_owned());
        }
        ReasoningMode::Offline if !advisor.local => {
            return status(
                Status::Disabled,
                "mode offline admits only local advisors".to_owned(),
            );
        }
        _ => {}
    }
    let mut present = Vec::new();
    if advisor.adapter == Adapter::Process {
        let exe = advisor.executable.as_deref().unwrap_or_default();
        if !presence.executable_on_path {
            return status(
                Status::Unavailable,
                format!("executable `{exe}` is not on PATH"),
            );
        }
        present.push(format!("`{exe}` on PATH"));
    } else if mesh {
        present.push(format!(
            "a linked runtime offering reviews, heartbeat live on {}",
            advisor.provider.as_deref().unwrap_or("the mesh server")
        ));
    } else {
        present.push(format!("{} adapter", advisor.adapter.name()));
    }
    if let Some(variable) = &advisor.credential {
        if !presence.credential_set {
            return status(Status::NotConfigured, format!("{variable} is not set"));
        }
        present.push(format!("{variable} set"));
    }
    // A mesh peer's presence is its live heartbeat, observed now: an `unavailable` exchange
    // (the server down, the peer unlinked mid-request) says nothing about the peer that is
    // live again, so it does not count against it. Timeouts and errors still do.
    let kept: Vec<Exchange>;
    let history = if mesh {
        kept = history
            .iter()
            .copied()
            .filter(|e| e.status != ConsultationStatus::Unavailable)
            .collect();
        &kept[..]
    } else {
        history
    };
    circuit(history, conditions).unwrap_or_else(|| status(Status::Available, present.join(", ")))
}

/// The circuit's verdict, or `None` when it is closed.
fn circuit(history: &[Exchange], conditions: &Conditions<'_>) -> Option<Availability> {
    let length = |default: u64| {
        Duration::seconds(
            i64::try_from(conditions.cooldown_override.unwrap_or(default)).unwrap_or(i64::MAX),
        )
    };
    let mut transient_in_a_row = 0u32;
    let mut open: Option<(OffsetDateTime, Opening)> = None;
    for exchange in history {
        let opening = match exchange.status {
            ConsultationStatus::Completed => {
                transient_in_a_row = 0;
                open = None;
                continue;
            }
            ConsultationStatus::Timeout
            | ConsultationStatus::Error
            | ConsultationStatus::Unavailable => {
                transient_in_a_row += 1;
                if transient_in_a_row < 2 {
                    continue;
                }
                Opening::Transient
            }
            ConsultationStatus::AuthFailed => Opening::Auth,
            ConsultationStatus::RateLimited => Opening::RateLimit {
                retry_after: exchange.retry_after_seconds,
            },
            ConsultationStatus::Malformed
            | ConsultationStatus::Empty
            | ConsultationStatus::Cancelled => continue,
        };
        let cooldown = match opening {
            Opening::Transient => length(TRANSIENT_COOLDOWN_SECONDS),
            Opening::Auth => length(AUTH_COOLDOWN_SECONDS),
            Opening::RateLimit { retry_after } => {
                length(retry_after.unwrap_or(RATE_LIMIT_COOLDOWN_SECONDS))
            }
        };
        let until = exchange.recorded_at.saturating_add(cooldown);
        if open.is_none_or(|(current, _)| until >= current) {
            open = Some((until, opening));
        }
    }
    let (until, opening) = open?;
    let cause = match opening {
        Opening::Transient => {
            "two consecutive transient failures (timeout, error, unavailable)".to_owned()
        }
        Opening::Auth => "authentication failed".to_owned(),
        Opening::RateLimit {
            retry_after: Some(s),
        } => format!("rate limited with retry-after {s} s"),
        Opening::RateLimit { retry_after: None } => {
            "rate limited without retry-after (15 min)".to_owned()
        }
    };
    let stamp = rfc3339(until);
    Some(if conditions.now < until {
        let reason = format!("{cause}; cooling down until {stamp}");
        let status = match opening {
            Opening::RateLimit { .. } => Status::RateLimited { until: stamp },
            _ => Status::TemporarilyFailed { until: stamp },
        };
        Availability { status, reason }
    } else {
        Availability {
            status: Status::Recovering,
            reason: format!(
                "{cause}; cooldown ended {stamp}; the next completed consultation closes the circuit"
            ),
        }
    })
}

/// Every catalogue advisor's availability now, in catalogue order. `presence` reports what
/// was observed for an advisor; `records` are the reasoning records the circuit reads.
pub fn snapshot(
    catalogue: &Catalogue,
    presence: impl Fn(&Advisor) -> Presence,
    conditions: &Conditions<'_>,
    records: &[StoredRecord],
) -> Snapshot {
    Snapshot {
        as_of: rfc3339(conditions.now),
        advisors: catalogue
            .advisors
            .iter()
            .map(|advisor| AdvisorAvailability {
                advisor: advisor.id.clone(),
                availability: assess(
                    advisor,
                    presence(advisor),
                    conditions,
                    &history(&advisor.id, records),
                ),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn advisor(adapter: Adapter, local: bool, credential: Option<&str>) -> Advisor {
        Advisor {
            id: "adv".into(),
            title: "Adv".into(),
            adapter,
            provider: None,
            model: None,
            executable: (adapter == Adapter::Process).then(|| "adv-cli".to_owned()),
            args: vec![],
            credential: credential.map(str::to_owned),
            local,
            capabilities: vec!["independent_reasoning".into()],
        }
    }

    const PRESENT: Presence = Presence {
        executable_on_path: true,
        credential_set: true,
    };
    const T0: OffsetDateTime = datetime!(2026-10-21 12:00:00 UTC);

    fn at(minutes: i64) -> OffsetDateTime {
        T0 + Duration::minutes(minutes)
    }

    fn exchange(minutes: i64, status: ConsultationStatus) -> Exchange {
        Exchange {
            recorded_at: at(minutes),
            status,
            retry_after_seconds: None,
        }
    }

    fn status_at(history: &[Exchange], now: OffsetDateTime, cooldown: Option<u64>) -> Status {
        let disabled = Disabled::default();
        let conditions = Conditions {
            mode: ReasoningMode::Standard,
            disabled: &disabled,
            cooldown_override: cooldown,
            now,
        };
        assess(
            &advisor(Adapter::Process, false, None),
            PRESENT,
            &conditions,
            history,
        )
        .status
    }

    fn failed_until(minutes: i64) -> Status {
        Status::TemporarilyFailed {
            until: rfc3339(at(minutes)),
        }
    }

    use ConsultationStatus::*;

    #[test]
    fn presence_mode_and_disable_come_first() {
        let none = Disabled::default();
        let conditions = |mode, disabled| Conditions {
            mode,
            disabled,
            cooldown_override: None,
            now: T0,
        };
        let std = conditions(ReasoningMode::Standard, &none);
        let p = advisor(Adapter::Process, false, Some("ADV_KEY"));
        let missing_exe = Presence {
            executable_on_path: false,
            credential_set: true,
        };
        let a = assess(&p, missing_exe, &std, &[]);
        assert_eq!(a.status, Status::Unavailable);
        assert_eq!(a.reason, "executable `adv-cli` is not on PATH");
        let unset = Presence {
            executable_on_path: true,
            credential_set: false,
        };
        let a = assess(&p, unset, &std, &[]);
        assert_eq!(a.status, Status::NotConfigured);
        assert_eq!(a.reason, "ADV_KEY is not set");
        let a = assess(&p, PRESENT, &std, &[]);
        assert_eq!(a.status, Status::Available);
        assert_eq!(a.reason, "`adv-cli` on PATH, ADV_KEY set");

        // The fixture adapter needs no executable.
        let f = advisor(Adapter::Fixture, false, None);
        assert_eq!(
            assess(&f, Presence::default(), &std, &[]).status,
            Status::Available
        );

        let disabled = Disabled::parse(Some("other, adv"));
        let a = assess(
            &p,
            PRESENT,
            &conditions(ReasoningMode::Standard, &disabled),
            &[],
        );
        assert_eq!(a.status, Status::Disabled);
        assert!(Disabled::parse(Some("*")).contains("anything"));
        assert!(!Disabled::parse(Some("")).contains("adv"));

        let ci = assess(&p, PRESENT, &conditions(ReasoningMode::Ci, &none), &[]);
        assert_eq!(
            (ci.status, ci.reason.as_str()),
            (Status::Disabled, "mode ci admits no advisor")
        );
        let offline = assess(&p, PRESENT, &conditions(ReasoningMode::Offline, &none), &[]);
        assert_eq!(offline.status, Status::Disabled);
        assert_eq!(offline.reason, "mode offline admits only local advisors");
        let local = advisor(Adapter::Process, true, None);
        let a = assess(
            &local,
            PRESENT,
            &conditions(ReasoningMode::Offline, &none),
            &[],
        );
        assert_eq!(a.status, Status::Available);
    }

    #[test]
    fn a_mesh_peer_is_not_held_to_unavailable_exchanges_but_to_timeouts() {
        let disabled = Disabled::default();
        let conditions = Conditions {
            mode: ReasoningMode::Standard,
            disabled: &disabled,
            cooldown_override: None,
            now: at(2),
        };
        let peer = advisor(Adapter::Mesh, false, None);
        let down = [exchange(0, Unavailable), exchange(1, Unavailable)];
        assert_eq!(
            assess(&peer, Presence::default(), &conditions, &down).status,
            Status::Available
        );
        let slow = [exchange(0, Timeout), exchange(1, Timeout)];
        assert_eq!(
            assess(&peer, Presence::default(), &conditions, &slow).status,
            failed_until(11)
        );
        // `mesh` in the disable list leaves every peer out.
        let off = Disabled::parse(Some("mesh"));
        let conditions = Conditions {
            disabled: &off,
            ..conditions
        };
        assert_eq!(
            assess(&peer, Presence::default(), &conditions, &[]).status,
            Status::Disabled
        );
    }

    #[test]
    fn two_transient_failures_open_the_circuit_for_ten_minutes() {
        let one = [exchange(0, Timeout)];
        assert_eq!(status_at(&one, at(1), None), Status::Available);

        let two = [exchange(0, Timeout), exchange(1, Error)];
        assert_eq!(status_at(&two, at(2), None), failed_until(11));
        assert_eq!(status_at(&two, at(10), None), failed_until(11));
        assert_eq!(status_at(&two, at(11), None), Status::Recovering);
        assert_eq!(status_at(&two, at(500), None), Status::Recovering);

        // A failure while recovering opens it again at once.
        let again = [
            exchange(0, Timeout),
            exchange(1, Error),
            exchange(20, Unavailable),
        ];
        assert_eq!(status_at(&again, at(21), None), failed_until(30));

        // The next completed consultation closes it.
        let closed = [
            exchange(0, Timeout),
            exchange(1, Error),
            exchange(20, Completed),
        ];
        assert_eq!(status_at(&closed, at(21), None), Status::Available);
        let after = [
            exchange(0, Timeout),
            exchange(1, Error),
            exchange(20, Completed),
            exchange(21, Timeout),
        ];
        assert_eq!(status_at(&after, at(22), None), Status::Available);
    }

    #[test]
    fn malformed_empty_and_cancelled_neither_count_nor_reset() {
        let h = [
            exchange(0, Malformed),
            exchange(1, Empty),
            exchange(2, Cancelled),
        ];
        assert_eq!(status_at(&h, at(3), None), Status::Available);
        let h = [
            exchange(0, Timeout),
            exchange(1, Malformed),
            exchange(2, Timeout),
        ];
        assert_eq!(status_at(&h, at(3), None), failed_until(12));
        let h = [
            exchange(0, Timeout),
            exchange(1, Error),
            exchange(11, Empty),
        ];
        assert_eq!(status_at(&h, at(12), None), Status::Recovering);
    }

    #[test]
    fn auth_failure_opens_for_an_hour() {
        let h = [exchange(0, AuthFailed)];
        assert_eq!(status_at(&h, at(59), None), failed_until(60));
        assert_eq!(status_at(&h, at(60), None), Status::Recovering);
        // A shorter opening does not cut the hour short.
        let h = [
            exchange(0, AuthFailed),
            exchange(1, Timeout),
            exchange(2, Timeout),
        ];
        assert_eq!(status_at(&h, at(30), None), failed_until(60));
    }

    #[test]
    fn rate_limits_honour_retry_after_else_fifteen_minutes() {
        let with = [Exchange {
            retry_after_seconds: Some(120),
            ..exchange(0, RateLimited)
        }];
        let until2 = Status::RateLimited {
            until: rfc3339(at(2)),
        };
        assert_eq!(status_at(&with, at(1), None), until2);
        assert_eq!(status_at(&with, at(2), None), Status::Recovering);

        let without = [exchange(0, RateLimited)];
        let until15 = Status::RateLimited {
            until: rfc3339(at(15)),
        };
        assert_eq!(status_at(&without, at(14), None), until15);
        assert_eq!(status_at(&without, at(15), None), Status::Recovering);
    }

    #[test]
    fn the_override_replaces_every_cooldown() {
        let h = [exchange(0, AuthFailed)];
        assert_eq!(status_at(&h, at(0), Some(0)), Status::Recovering);
        assert_eq!(status_at(&h, at(1), Some(300)), failed_until(5));
        let h = [Exchange {
            retry_after_seconds: Some(3600),
            ..exchange(0, RateLimited)
        }];
        assert_eq!(status_at(&h, at(1), Some(0)), Status::Recovering);
        assert_eq!(parse_cooldown_override(Some("0")), Ok(Some(0)));
        assert_eq!(parse_cooldown_override(Some(" ")), Ok(None));
        assert!(parse_cooldown_override(Some("soon")).is_err());
    }

    #[test]
    fn status_serialises_with_until_and_reason() {
        let a = Availability {
            status: failed_until(10),
            reason: "r".into(),
        };
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::json!({"status": "temporarily_failed", "until": "2026-10-21T12:10:00Z", "reason": "r"})
        );
        let back: Availability = serde_json::from_value(serde_json::to_value(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }
}
