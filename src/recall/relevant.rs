//! What `task start` and `session context` show: the knowledge relevant to some work, at
//! most a few hits, with the command that lists it all.

use schemars::JsonSchema;
use serde::Serialize;

use super::request::{MAX_LIMIT, RecallRequest, command};
use super::{Hit, RecallKind, recall};
use crate::Ctx;
use crate::error::Error;
use crate::model::inject::fence;

/// What `task start` and `session context` show: the knowledge relevant to some work,
/// with the command that lists it all.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Relevant {
    pub hits: Vec<Hit>,
    pub total: usize,
    /// The command that lists them all.
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_rebuilt: Option<String>,
}

impl Relevant {
    /// The lines `task start` and `session context` show: a heading with the count, a
    /// line a hit, and the command that lists the rest.
    pub fn lines(&self, heading: &str) -> String {
        use std::fmt::Write as _;
        let mut out = format!("{heading} ({})\n", self.total);
        if self.hits.is_empty() {
            out.push_str("- nothing recorded about these files yet\n");
        }
        for hit in &self.hits {
            let _ = writeln!(
                out,
                "- {} — read: `{}`",
                fence(&hit.label(), &hit.line).text,
                hit.read.command
            );
        }
        if self.total > self.hits.len() {
            let _ = writeln!(
                out,
                "- ... {} more: `{}`",
                self.total - self.hits.len(),
                self.command
            );
        }
        out
    }
}

/// The knowledge `request` finds (its kind set to knowledge), at most `limit`.
pub fn relevant_knowledge(
    ctx: &Ctx,
    mut request: RecallRequest,
    limit: usize,
) -> Result<Relevant, Error> {
    request.kind = vec![RecallKind::Knowledge];
    request.limit = Some(limit);
    let found = recall(ctx, request.clone())?;
    request.limit = (found.total > limit).then(|| found.total.min(MAX_LIMIT));
    Ok(Relevant {
        hits: found.hits,
        total: found.total,
        command: command(&request),
        index_rebuilt: found.index_rebuilt,
    })
}
