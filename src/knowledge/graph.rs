//! `knowledge show` and `knowledge edges`: one record with whether each of its references
//! resolves, and the graph of records and their typed references. Resolution is
//! `knowledge check`'s ([`Resolver`]), never a second implementation.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{Resolver, work_tree_session_records};
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::ids::IdKind;
use crate::model::knowledge::{Class, KnowledgeRecord, Status};
use crate::store::records::{Place, StoredFile, stored_files};

/// `knowledge.show`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeShowRequest")]
pub struct ShowRequest {
    /// A knowledge id.
    pub id: String,
}

/// `knowledge.edges`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdgesRequest {
    /// Only edges of this type.
    #[serde(default, rename = "type")]
    pub edge_type: Option<EdgeType>,
}

/// Which front-matter field an edge comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EdgeType {
    /// `provenance.derived_from`: what the claim was derived from (`kind:target`).
    DerivedFrom,
    /// `relations`: another knowledge record (`<relation>:<id>` or a bare id).
    Relations,
    /// `superseded_by`: the record that replaced this one.
    SupersededBy,
}

impl EdgeType {
    pub fn name(self) -> &'static str {
        match self {
            EdgeType::DerivedFrom => "derived_from",
            EdgeType::Relations => "relations",
            EdgeType::SupersededBy => "superseded_by",
        }
    }
}

/// What an edge's target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EdgeState {
    /// A knowledge record of the store.
    Resolved,
    /// A knowledge id that names no record.
    Dangling,
    /// A target only the ledger or git can resolve (session:, task:, decision:, commit:,
    /// file:, test:, issue:); `knowledge show` and `knowledge check` say whether it does.
    External,
    /// Not `kind:target`, or a kind no record may name.
    Malformed,
}

/// One reference of a shown record and whether it resolves.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShownReference {
    #[serde(rename = "type")]
    pub edge_type: EdgeType,
    /// As the record writes it.
    pub reference: String,
    pub resolves: bool,
}

/// One record as `knowledge show` prints it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShownRecord {
    pub path: String,
    pub place: Place,
    /// The front matter.
    pub record: KnowledgeRecord,
    pub body: String,
    pub references: Vec<ShownReference>,
    /// A verified record whose cited files changed since it was verified: what moved and
    /// the commit that verified it (`majordomus.knowledge-stale`'s finding). Absent when
    /// it is fresh, not judged, or not verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<super::stale::StaleRecord>,
}

/// A record of the graph.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Node {
    pub id: String,
    pub title: String,
    pub class: Class,
    pub status: Status,
    pub place: Place,
    pub path: String,
}

/// A typed reference from a record.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Edge {
    pub from: String,
    /// A knowledge id (relations, superseded_by) or the reference as written
    /// (derived_from).
    pub to: String,
    #[serde(rename = "type")]
    pub edge_type: EdgeType,
    /// The relation's name, for `<relation>:<id>` relations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    pub state: EdgeState,
}

/// The knowledge graph: every readable record and its references.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KnowledgeGraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Files that could not be read as records (see `knowledge check`).
    pub unreadable: Vec<String>,
}

/// The kinds of `derived_from` target the ledger or git resolves.
const EXTERNAL_KINDS: [&str; 7] = [
    "session", "task", "decision", "commit", "file", "test", "issue",
];

/// A relation's target id and its name: `<relation>:<id>` or a bare id (ids never
/// contain `:`).
fn split_relation(relation: &str) -> (Option<&str>, &str) {
    match relation.rsplit_once(':') {
        Some((name, id)) => (Some(name), id),
        None => (None, relation),
    }
}

/// Every typed reference of `record`, in front-matter order.
fn references(record: &KnowledgeRecord) -> impl Iterator<Item = (EdgeType, &str)> {
    let derived = record
        .provenance
        .derived_from
        .iter()
        .map(|r| (EdgeType::DerivedFrom, r.as_str()));
    let relations = record
        .relations
        .iter()
        .flatten()
        .map(|r| (EdgeType::Relations, r.as_str()));
    let superseded = record
        .superseded_by
        .iter()
        .map(|r| (EdgeType::SupersededBy, r.as_str()));
    derived.chain(relations).chain(superseded)
}

/// One record: its front matter, body and whether each reference resolves.
pub fn show(ctx: &Ctx, request: ShowRequest) -> Result<ShownRecord, Error> {
    Refusal::check_id(IdKind::Knowledge, &request.id)?;
    let files = stored_files(&ctx.layout)?;
    // A promoted record wins over a stale copy elsewhere (check reports the duplicate).
    let file = files
        .iter()
        .filter(|f| f.stem == request.id)
        .min_by_key(|f| f.place != Place::Curated)
        .ok_or_else(|| Refusal::UnknownKnowledge {
            id: request.id.clone(),
        })?;
    let (record, body) = file.parse().map_err(|message| -> Error {
        // A merge's both acts in one file: said as the conflict it is, not a schema error.
        match super::check::conflict_in(ctx, &file.text) {
            Some(conflict) => Refusal::ConflictedRecord {
                id: request.id.clone(),
                path: file.rel.clone(),
                sides: format!(
                    "{} and {}",
                    conflict.ours.describe(),
                    conflict.theirs.describe()
                ),
            }
            .into(),
            None => crate::store::StoreError::Malformed {
                path: file.path.clone(),
                message,
            }
            .into(),
        }
    })?;
    let (resolver, _) = Resolver::gather(
        ctx,
        &files,
        std::iter::once(&record),
        None,
        &work_tree_session_records(ctx)?,
    )?;
    let shown = references(&record)
        .map(|(edge_type, reference)| ShownReference {
            edge_type,
            reference: reference.to_owned(),
            resolves: match edge_type {
                EdgeType::DerivedFrom => resolver.resolves(reference),
                EdgeType::Relations => resolver.knows_record(split_relation(reference).1),
                EdgeType::SupersededBy => resolver.knows_record(reference),
            },
        })
        .collect();
    // Judged for a verified record only: its page offers re-verify, supersede and retire.
    let stale = if file.place == Place::Curated && record.status == Status::Verified {
        super::stale(ctx)?
            .stale
            .into_iter()
            .find(|s| s.id == record.id)
    } else {
        None
    };
    Ok(ShownRecord {
        path: file.rel.clone(),
        place: file.place,
        body: body.to_owned(),
        record,
        references: shown,
        stale,
    })
}

/// The graph of every record (candidates, curated, outbox) and its references; edges of
/// `request.edge_type` only when given.
pub fn edges(ctx: &Ctx, request: EdgesRequest) -> Result<KnowledgeGraph, Error> {
    let files: Vec<StoredFile> = stored_files(&ctx.layout)?;
    let ids: HashSet<&str> = files.iter().map(|f| f.stem.as_str()).collect();
    let mut graph = KnowledgeGraph {
        nodes: Vec::new(),
        edges: Vec::new(),
        unreadable: Vec::new(),
    };
    let mut seen = HashSet::new();
    for file in &files {
        let Ok((record, _)) = file.parse() else {
            graph.unreadable.push(file.rel.clone());
            continue;
        };
        if !seen.insert(record.id.clone()) {
            continue;
        }
        for (edge_type, reference) in references(&record) {
            if request.edge_type.is_some_and(|t| t != edge_type) {
                continue;
            }
            let knowledge = |id: &str| {
                if ids.contains(id) {
                    EdgeState::Resolved
                } else {
                    EdgeState::Dangling
                }
            };
            let (to, relation, state) = match edge_type {
                EdgeType::DerivedFrom => {
                    let state = match reference.split_once(':') {
                        Some((kind, target))
                            if EXTERNAL_KINDS.contains(&kind) && !target.is_empty() =>
                        {
                            EdgeState::External
                        }
                        _ => EdgeState::Malformed,
                    };
                    (reference.to_owned(), None, state)
                }
                EdgeType::Relations => {
                    let (name, id) = split_relation(reference);
                    (id.to_owned(), name.map(str::to_owned), knowledge(id))
                }
                EdgeType::SupersededBy => (reference.to_owned(), None, knowledge(reference)),
            };
            graph.edges.push(Edge {
                from: record.id.clone(),
                to,
                edge_type,
                relation,
                state,
            });
        }
        graph.nodes.push(Node {
            id: record.id,
            title: record.title,
            class: record.class,
            status: record.status,
            place: file.place,
            path: file.rel.clone(),
        });
    }
    Ok(graph)
}
