//! `majordomus env`: what this binary and this repository look like to majordomus.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::Error;
use crate::git::{HeadState, Trunk};
use crate::model::EpisodeState;

/// `env` takes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvRequest {}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Versions {
    pub majordomus: &'static str,
    pub gix: &'static str,
    pub ledger_format: &'static str,
    pub session_schema: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LedgerInfo {
    pub path: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvReport {
    pub versions: Versions,
    pub root: String,
    pub initialised: bool,
    pub head: HeadState,
    pub trunk: Option<Trunk>,
    /// True when HEAD's branch is the trunk.
    pub on_trunk: bool,
    pub episode: Option<EpisodeState>,
    pub ledger: LedgerInfo,
    /// The clock is pinned by `MAJORDOMUS_NOW`.
    pub clock_pinned: bool,
    /// The reasoning mode and each advisor's availability, on one line.
    pub advisors: Option<String>,
    /// The same, structured: the mode and where it came from, each advisor's status, and
    /// the capacity of each capability (absent when not initialised or unreadable; the
    /// line then says why).
    pub reasoning: Option<EnvReasoning>,
    /// How git reaches majordomus from each of its hooks here.
    pub hooks: crate::hooks::HooksState,
}

/// The reasoning state `env` reports: what `reasoning advisors` says, without the
/// catalogue's entries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvReasoning {
    pub mode: crate::model::reasoning::plan::ResolvedMode,
    /// Where the catalogue came from.
    pub catalogue: String,
    /// Each advisor's status now, in catalogue order.
    pub advisors: Vec<crate::model::reasoning::availability::AdvisorAvailability>,
    pub capacity: Vec<crate::reasoning::Capacity>,
    /// The mesh server, when `MAJORDOMUS_SERVER_URL` names one (docs/MESH.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<crate::reasoning::MeshSummary>,
}

impl From<crate::reasoning::Advisors> for EnvReasoning {
    fn from(a: crate::reasoning::Advisors) -> EnvReasoning {
        EnvReasoning {
            mode: a.mode,
            catalogue: a.catalogue,
            advisors: a
                .advisors
                .into_iter()
                .map(
                    |e| crate::model::reasoning::availability::AdvisorAvailability {
                        advisor: e.advisor.id,
                        availability: e.availability,
                    },
                )
                .collect(),
            capacity: a.capacity,
            mesh: a.mesh,
        }
    }
}

pub fn env(ctx: &Ctx, _request: EnvRequest) -> Result<EnvReport, Error> {
    let head = ctx.repo.head()?;
    let trunk = ctx.repo.trunk()?;
    let on_trunk = match (&trunk, &head.branch) {
        (Some(t), Some(b)) => t.branch == *b,
        _ => false,
    };
    let initialised = ctx.layout.is_initialised();
    let episode = if initialised { ctx.episode()? } else { None };
    let ledger = ctx.ledger();
    let (advisors, reasoning) = if initialised {
        match crate::reasoning::advisors(ctx, crate::reasoning::AdvisorsRequest {}) {
            Ok(a) => (Some(a.line()), Some(EnvReasoning::from(a))),
            Err(e) => (Some(format!("unreadable: {e}")), None),
        }
    } else {
        (None, None)
    };
    Ok(EnvReport {
        advisors,
        reasoning,
        hooks: crate::hooks::reach(ctx),
        versions: Versions {
            majordomus: env!("CARGO_PKG_VERSION"),
            gix: "0.90",
            ledger_format: "jsonl/v1",
            session_schema: crate::model::compose::SESSION_SCHEMA,
        },
        root: ctx.layout.root().display().to_string(),
        initialised,
        head,
        trunk,
        on_trunk,
        episode,
        ledger: LedgerInfo {
            path: ctx.layout.display(ledger.path()),
            bytes: ledger.len()?,
        },
        clock_pinned: matches!(ctx.clock, crate::Clock::Fixed(_)),
    })
}
