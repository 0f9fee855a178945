//! `/cockpit/knowledge/{id}` (`knowledge.show`: one record and whether each reference
//! resolves; for a verified record whether it is stale and the forms that re-verify,
//! supersede or retire it) and `/cockpit/graph` (`knowledge.edges`: records and typed
//! edges, as tables).

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::http::Uri;

use super::html::{badge, empty, escape, knowledge_link, label, or_dash, reference_link, table};
use super::{Page, PageError, param, query};
use crate::http::AppState;
use crate::knowledge::graph::{EdgeState, EdgeType};
use crate::knowledge::{EdgesRequest, ShowRequest};
use crate::model::knowledge::Status;

pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Page, PageError> {
    // What an act on this record did, said once (docs/COCKPIT.md, "The human act").
    let flash = param(&query(uri.query()), "done")
        .and_then(|key| super::flash::take(state.token(), &key))
        .map(|f| super::review::render_flash(&f))
        .unwrap_or_default();
    let shown = state
        .call(move |ops| {
            ops.call::<_, crate::knowledge::ShownRecord>("knowledge.show", ShowRequest { id })
        })
        .await?;
    let r = &shown.record;
    let mut out = flash;
    out.push_str("<dl>");
    let _ = write!(
        out,
        "<dt>id</dt><dd><code>{}</code></dd><dt>class</dt><dd>{}</dd><dt>status</dt><dd>{}</dd><dt>stance</dt><dd>{}</dd><dt>date</dt><dd>{}</dd><dt>origin</dt><dd>{}</dd><dt>file</dt><dd><code>{}</code> ({})</dd>",
        escape(&r.id),
        label(&r.class),
        label(&r.status),
        label(&r.stance),
        escape(&r.date),
        label(&r.provenance.origin),
        escape(&shown.path),
        label(&shown.place),
    );
    if let Some(by) = &r.superseded_by {
        let _ = write!(out, "<dt>superseded by</dt><dd>{}</dd>", knowledge_link(by));
    }
    out.push_str("</dl>");
    // A curated record's life: stale or not, and the acts that decide it, or what ended it.
    if shown.place == crate::store::records::Place::Curated && r.status != Status::Candidate {
        out.push_str(&super::lifecycle::section(
            &shown,
            state.token(),
            &super::lifecycle::Typed::default(),
        ));
    }
    out.push_str("<h2>References</h2>");
    if shown.references.is_empty() {
        out.push_str(&empty("None."));
    } else {
        let rows: Vec<Vec<String>> = shown
            .references
            .iter()
            .map(|reference| {
                vec![
                    escape(reference.edge_type.name()),
                    reference_link(&reference.reference),
                    if reference.resolves {
                        badge("good", "resolves")
                    } else {
                        badge("bad", "does not resolve")
                    },
                ]
            })
            .collect();
        out.push_str(&table(&["type", "reference", "resolves"], &rows));
    }
    let _ = write!(out, "<h2>Body</h2><pre>{}</pre>", escape(shown.body.trim()));
    if r.status == Status::Candidate {
        out.push_str("<h2>Review</h2>");
        out.push_str(&super::review::acts(
            &r.id,
            state.token(),
            &super::review::Typed::default(),
            &[],
        ));
    }
    Ok(Page::new("/graph", &r.title, &out))
}

fn edge_state(state: EdgeState) -> String {
    match state {
        EdgeState::Resolved => badge("good", "resolved"),
        EdgeState::Dangling => badge("bad", "dangling"),
        EdgeState::External => badge("quiet", "external"),
        EdgeState::Malformed => badge("bad", "malformed"),
    }
}

pub async fn graph(State(state): State<AppState>, uri: Uri) -> Result<Page, PageError> {
    let chosen = param(&query(uri.query()), "type");
    let edge_type = match chosen.as_deref() {
        None => None,
        Some(name) => Some(
            serde_json::from_value::<EdgeType>(serde_json::Value::String(name.to_owned()))
                .map_err(|e| {
                    crate::error::Error::from(crate::error::UsageError::InvalidRequest {
                        operation: "knowledge.edges".to_owned(),
                        message: e.to_string(),
                    })
                    .report()
                })?,
        ),
    };
    let graph = state
        .call(move |ops| {
            ops.call::<_, crate::knowledge::KnowledgeGraph>(
                "knowledge.edges",
                EdgesRequest { edge_type },
            )
        })
        .await?;
    let mut out = String::from(
        "<form class=\"filters\" method=\"get\" action=\"/cockpit/graph\"><div><label for=\"type\">Edge type</label><select id=\"type\" name=\"type\"><option value=\"\">every type</option>",
    );
    for t in [
        EdgeType::DerivedFrom,
        EdgeType::Relations,
        EdgeType::SupersededBy,
    ] {
        let selected = if chosen.as_deref() == Some(t.name()) {
            " selected"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<option value=\"{0}\"{selected}>{0}</option>",
            t.name()
        );
    }
    out.push_str("</select></div><div><button type=\"submit\">Show</button></div></form>");
    let _ = write!(out, "<h2>Records ({})</h2>", graph.nodes.len());
    if graph.nodes.is_empty() {
        out.push_str(&empty("No knowledge records yet."));
    } else {
        let rows: Vec<Vec<String>> = graph
            .nodes
            .iter()
            .map(|n| {
                vec![
                    knowledge_link(&n.id),
                    escape(&n.title),
                    label(&n.class),
                    label(&n.status),
                    label(&n.place),
                ]
            })
            .collect();
        out.push_str(&table(&["id", "title", "class", "status", "place"], &rows));
    }
    let _ = write!(out, "<h2>Edges ({})</h2>", graph.edges.len());
    if graph.edges.is_empty() {
        out.push_str(&empty("No edges."));
    } else {
        let rows: Vec<Vec<String>> = graph
            .edges
            .iter()
            .map(|e| {
                let to = match e.state {
                    EdgeState::Resolved | EdgeState::Dangling => knowledge_link(&e.to),
                    EdgeState::External | EdgeState::Malformed => {
                        format!("<code>{}</code>", escape(&e.to))
                    }
                };
                vec![
                    knowledge_link(&e.from),
                    escape(e.edge_type.name()),
                    or_dash(e.relation.as_deref()),
                    to,
                    edge_state(e.state),
                ]
            })
            .collect();
        out.push_str(&table(&["from", "type", "relation", "to", "state"], &rows));
    }
    if !graph.unreadable.is_empty() {
        out.push_str("<h2>Unreadable files</h2><ul>");
        for f in &graph.unreadable {
            let _ = write!(out, "<li><code>{}</code></li>", escape(f));
        }
        out.push_str("</ul>");
    }
    Ok(Page::new("/graph", "Knowledge graph", &out))
}
