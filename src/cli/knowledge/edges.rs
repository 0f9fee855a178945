//! `majordomus knowledge edges`.

use clap::{Args, ValueEnum};

use crate::cli::Output;
use crate::knowledge::EdgesRequest;
use crate::knowledge::graph::EdgeType;
use crate::{Ctx, Error};

/// The knowledge graph: records and their typed edges.
///
/// A relation or superseded_by naming no record is dangling; what only the ledger or git
/// can resolve (session:, task:, decision:, commit:, file:, test:, issue:) is external,
/// never dangling (`majordomus knowledge check` resolves those).
///
/// Examples:
///   majordomus knowledge edges
///   majordomus knowledge edges --type relations --format json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct EdgesArgs {
    /// Only edges of this type.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub edge_type: Option<EdgeTypeArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum EdgeTypeArg {
    DerivedFrom,
    Relations,
    SupersededBy,
}

pub fn run(ctx: &Ctx, args: &EdgesArgs) -> Result<Output, Error> {
    crate::cli::call(
        ctx,
        "knowledge.edges",
        EdgesRequest {
            edge_type: args.edge_type.map(|t| match t {
                EdgeTypeArg::DerivedFrom => EdgeType::DerivedFrom,
                EdgeTypeArg::Relations => EdgeType::Relations,
                EdgeTypeArg::SupersededBy => EdgeType::SupersededBy,
            }),
        },
    )
}
