//! A record found, made a hit: its line, status, date and provenance, why it ranked (the
//! signals' own why — `model::recall::Signals::why` — then its status, what it replaces,
//! or its recency), how to read it whole, and what the hooks weigh it by.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Query, RecallKind, search};
use crate::Ctx;
use crate::error::Error;
use crate::model::inject::{Label, Shape};
use crate::model::recall::{HitStatus, PathHow, PathVia};

/// Why a hit ranked, one signal each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Reason {
    /// `terms`, `evidence`, `path`, `task`, `issue`, `intent`, `status`, `replaces` or
    /// `recency`.
    pub signal: String,
    pub detail: String,
}

/// How to read a hit whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReadHint {
    /// The command that prints it.
    pub command: String,
    /// The MCP resource that serves it.
    pub uri: String,
}

/// One hit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    pub kind: RecallKind,
    pub id: String,
    pub status: HitStatus,
    /// One line of it: a title, a decision, a question and its answer.
    pub line: String,
    /// The day of its evidence (knowledge) or when it was recorded.
    pub date: String,
    pub episode: Option<String>,
    /// The branch its episode ran on (`None`: detached, or unknown here).
    pub branch: Option<String>,
    pub task: Option<String>,
    /// The writer whose journal it came from (another clone's or worktree's, fetched
    /// through git: SPEC §12); absent for this checkout's ledger and tracked records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
    /// Relevance × status, as ranked.
    pub score: f64,
    /// Why it ranked: matched terms, matched paths, same task, issue or intent, status.
    pub why: Vec<Reason>,
    pub read: ReadHint,
    /// The record that replaced it (superseded hits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Instruction-shaped text in `line` (`role-label`, `prompt-tag` ...: docs/HOSTILE.md),
    /// neutralised wherever the line is put before a model; absent when none. `line` stays
    /// as recorded: JSON is data for programs, and one that shows it to a model fences it
    /// ([`crate::model::inject::fence`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instruction_shapes: Vec<Shape>,
    /// What the hooks at the moment of work weigh it by (not shown: `why` says it).
    #[serde(skip)]
    pub weighed: Weighed,
}

impl Hit {
    /// Who stands behind the hit: its status and kind, and for what no person verified,
    /// its episode, branch and writer.
    pub fn label(&self) -> Label<'_> {
        Label {
            status: self.status.name(),
            kind: Some(self.kind.name()),
            episode: self.episode.as_deref(),
            branch: self.branch.as_deref(),
            writer: self.writer.as_deref(),
        }
    }
}

/// What prompt-time and edit-time recall check a hit against their floors by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weighed {
    /// The query terms it holds.
    pub terms: Vec<String>,
    /// Its lexical relevance over the best match's (0 to 1).
    pub lexical_share: f64,
    /// The paths asked about that it reaches exactly (cites, or its episode changed).
    pub exact: Vec<String>,
    /// The paths it reaches (cites, or its episode changed) that say something about it:
    /// not a hub most records of its kinds reach. Set for a moment's search only.
    pub reached: Vec<String>,
}

/// The hits of an outcome, each with why it ranked and how to read it.
pub(super) fn hits(
    ctx: &Ctx,
    db: &mut crate::store::recall::RecallDb,
    outcome: &search::Outcome,
    query: &Query,
) -> Result<Vec<Hit>, Error> {
    let _ = ctx;
    // What a moment's floor weighs a hit's files by: those it reaches that say something
    // about it (not a hub most documents reach).
    let mut reached = if query.lean_pool {
        telling_paths(db, outcome)?
    } else {
        std::collections::HashMap::new()
    };
    Ok(outcome
        .found
        .iter()
        .map(|f| {
            let mut why: Vec<Reason> = f
                .signals
                .why()
                .into_iter()
                .map(|w| Reason {
                    signal: w.signal.into(),
                    detail: w.detail,
                })
                .collect();
            if let Some(held) = evidence_why(f, &query.terms) {
                why.insert(0, held);
            }
            match f.status {
                HitStatus::Stale => {
                    let moved: Vec<String> = f
                        .moved
                        .iter()
                        .map(|(p, change)| format!("{p} {change}"))
                        .collect();
                    let since = f
                        .verified_in
                        .as_ref()
                        .map(|(c, _)| {
                            format!(" since it was verified in {}", &c[..c.len().min(12)])
                        })
                        .unwrap_or_default();
                    why.push(Reason {
                        signal: "status".into(),
                        detail: format!(
                            "stale: {}{since}; re-verify it, or retire or supersede it",
                            moved.join(", ")
                        ),
                    });
                }
                HitStatus::Superseded => why.push(Reason {
                    signal: "status".into(),
                    detail: match &f.doc.superseded_by {
                        Some(by) => format!("superseded by {by}"),
                        // A verified record that left what is claimed stays in curated/.
                        None if f.doc.place.as_deref() == Some("curated") => "retired".into(),
                        None => "rejected".into(),
                    },
                }),
                _ => {}
            }
            if let Some(replaced) = &f.replaces {
                why.push(Reason {
                    signal: "replaces".into(),
                    detail: format!("it superseded {replaced}, which ranked"),
                });
            }
            if why.is_empty() {
                why.push(Reason {
                    signal: "recency".into(),
                    detail: format!("recorded {}", f.doc.date),
                });
            }
            Hit {
                kind: f.kind,
                id: f.doc.key.clone(),
                status: f.status,
                line: f.doc.line.clone(),
                date: f.doc.date.clone(),
                branch: f.doc.branch.clone(),
                episode: f.doc.episode.clone(),
                task: f.doc.task.clone(),
                writer: f.doc.source.strip_prefix("journal:").map(str::to_owned),
                score: f.score as f64 / 1e6,
                why,
                read: read_hint(f.kind, &f.doc.key),
                superseded_by: (f.status == HitStatus::Superseded)
                    .then(|| f.doc.superseded_by.clone())
                    .flatten(),
                instruction_shapes: crate::model::inject::shapes(&f.doc.line),
                weighed: Weighed {
                    terms: f.signals.terms.clone(),
                    lexical_share: f.signals.lexical() / crate::model::recall::LEXICAL_MAX,
                    exact: f
                        .signals
                        .paths
                        .iter()
                        .filter(|m| m.how == PathHow::Exact && m.via != PathVia::Scope)
                        .map(|m| m.query.clone())
                        .collect(),
                    reached: reached.remove(&f.doc.id).unwrap_or_default(),
                },
            }
        })
        .collect())
}

/// Why a knowledge record whose claim holds none of the query's terms ranked by words: the
/// terms its evidence holds (`# Evidence`, `# Rejected`, `# Superseded`), which rank it
/// below every claim that holds one (docs/RECALL.md).
fn evidence_why(f: &search::Found, terms: &[String]) -> Option<Reason> {
    if f.kind != RecallKind::Knowledge || !f.signals.terms.is_empty() || f.signals.bm25 <= 0.0 {
        return None;
    }
    let beside = f.doc.text.split_once("\n# ").map(|(_, rest)| rest)?;
    let have: std::collections::HashSet<String> =
        crate::model::recall::tokens(beside).into_iter().collect();
    let held: Vec<&str> = terms
        .iter()
        .filter(|t| have.contains(*t))
        .map(String::as_str)
        .collect();
    (!held.is_empty()).then(|| Reason {
        signal: "evidence".into(),
        detail: format!("its evidence holds {} (its claim none)", held.join(", ")),
    })
}

/// How to read a hit whole.
pub fn read_hint(kind: RecallKind, id: &str) -> ReadHint {
    ReadHint {
        command: format!("majordomus show {}:{id}", kind.name()),
        uri: format!("majordomus://{}/{id}", kind.name()),
    }
}

/// The paths each record found reaches that say something about it: not a hub
/// ([`is_hub`](crate::model::recall::history::is_hub)): a changelog or a lock file
/// every change passes through names no subject.
fn telling_paths(
    db: &mut crate::store::recall::RecallDb,
    outcome: &search::Outcome,
) -> Result<std::collections::HashMap<i64, Vec<String>>, Error> {
    let r = db.reader();
    let ids: Vec<i64> = outcome.found.iter().map(|f| f.doc.id).collect();
    let total = r.documents().map_err(search::index_failed)?;
    let hub = |n: usize| crate::model::recall::history::is_hub(n, total);
    Ok(r.reached_by(&ids)
        .map_err(search::index_failed)?
        .into_iter()
        .map(|(doc, paths)| {
            let telling = paths
                .into_iter()
                .filter(|(_, n)| !hub(*n))
                .map(|(p, _)| p)
                .collect();
            (doc, telling)
        })
        .collect())
}
