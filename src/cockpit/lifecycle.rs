//! The end of a verified record's life on its page (`/cockpit/knowledge/{id}`): whether it
//! is stale (the `majordomus.knowledge-stale` finding, what moved since it was verified) and
//! the three ways a person decides it — re-verify (`knowledge.reverify`), supersede by
//! another verified record (`knowledge.supersede`), retire (`knowledge.retire`) — each a
//! form posting with the run's token, answered by a redirect back to the page, which says
//! once what happened and what to commit. Human acts: never offered to agents.

use std::fmt::Write as _;

use axum::extract::{Path, Request, State};
use axum::response::Redirect;

use super::flash::{self, Flash};
use super::html::{encode, escape, knowledge_link};
use super::{Form, PageError};
use crate::error::ErrorReport;
use crate::http::AppState;
use crate::knowledge::reverify::Reverified;
use crate::knowledge::stale::StaleRecord;
use crate::knowledge::{Ended, RetireRequest, ReverifyRequest, ShownRecord, SupersedeRequest};
use crate::model::knowledge::Status;

/// What the forms hold: empty, or what was typed when an act was refused.
#[derive(Debug, Clone, Default)]
pub struct Typed {
    evidence: String,
    by: String,
    reason: String,
}

impl Typed {
    fn from_form(form: &Form) -> Typed {
        let raw = |name: &str| {
            form.fields
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        Typed {
            evidence: raw("evidence"),
            by: raw("by"),
            reason: raw("reason"),
        }
    }
}

/// The page of record `id`.
fn page_of(id: &str) -> String {
    format!("/cockpit/knowledge/{}", encode(id))
}

/// What a stale record's finding says: what moved since the commit that verified it.
fn stale_said(stale: &StaleRecord) -> String {
    let moved: Vec<String> = stale
        .targets
        .iter()
        .map(|t| {
            let by: Vec<String> = t.commits.iter().map(|c| escape(&c.short())).collect();
            if by.is_empty() {
                format!("<code>{}</code> {}", escape(&t.path), t.change.verb())
            } else {
                format!(
                    "<code>{}</code> {} by {}",
                    escape(&t.path),
                    t.change.verb(),
                    by.join(", ")
                )
            }
        })
        .collect();
    format!(
        "<section class=\"note stale\" id=\"stale\"><p><strong>Stale</strong> (<code>majordomus.knowledge-stale</code>): verified in {}; since then {}. If its claim still holds for them as they are now, re-verify it; if not, retire it, or supersede it by the record that replaces it.</p></section>",
        escape(&stale.verified_in.short()),
        moved.join("; ")
    )
}

/// The section a verified or ended curated record's page shows: its staleness and the
/// three forms, or what ended it.
pub fn section(shown: &ShownRecord, token: &str, typed: &Typed) -> String {
    let r = &shown.record;
    let mut out = String::new();
    if r.status == Status::Superseded {
        let (what, listed) = match &r.superseded_by {
            Some(by) => (
                format!("superseded by {}", knowledge_link(by)),
                " (below what replaced it)",
            ),
            None => (String::from("retired"), ""),
        };
        let _ = write!(
            out,
            "<section class=\"note\" id=\"ended\"><p>No longer claimed: {what}. It is never put before a model again; <code>recall --all</code> still lists it{listed}. Its <code># Superseded</code> section says who decided it, when and why.</p></section>"
        );
        return out;
    }
    if let Some(stale) = &shown.stale {
        out.push_str(&stale_said(stale));
    }
    out.push_str(&forms(&r.id, token, typed));
    out
}

/// Re-verify, supersede and retire: the forms of verified record `id`.
pub fn forms(id: &str, token: &str, typed: &Typed) -> String {
    let target = escape(&encode(id));
    let token = escape(token);
    format!(
        "<h2 id=\"decide\">Decide it</h2><div class=\"acts three\">\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/reverify\" id=\"reverify\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <p class=\"muted\">It still holds at HEAD (you checked its claim against its files as they are now).</p>\
         <label for=\"reverify-evidence\">Evidence (optional)</label>\
         <textarea id=\"reverify-evidence\" name=\"evidence\" placeholder=\"What shows it still holds\">{evidence}</textarea>\
         <button type=\"submit\" class=\"promote\">Re-verify</button>\
         </form>\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/supersede\" id=\"supersede\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <p class=\"muted\">Another verified record replaces it.</p>\
         <label for=\"supersede-by\">Replaced by</label>\
         <input type=\"text\" id=\"supersede-by\" name=\"by\" required placeholder=\"the id of a verified record\" value=\"{by}\">\
         <label for=\"supersede-reason\">Reason</label>\
         <textarea id=\"supersede-reason\" name=\"reason\" required placeholder=\"Why it no longer holds\">{reason}</textarea>\
         <button type=\"submit\" class=\"reject\">Supersede</button>\
         </form>\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/retire\" id=\"retire\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <p class=\"muted\">It no longer holds, and nothing replaces it.</p>\
         <label for=\"retire-reason\">Reason</label>\
         <textarea id=\"retire-reason\" name=\"reason\" required placeholder=\"Why it no longer holds\">{reason}</textarea>\
         <button type=\"submit\" class=\"reject\">Retire</button>\
         </form></div>",
        evidence = escape(&typed.evidence),
        by = escape(&typed.by),
        reason = escape(&typed.reason),
    )
}

/// The error page of a refused act: the rule and the fix, and the forms again with what
/// was typed.
fn refused(report: ErrorReport, id: &str, token: &str, typed: &Typed) -> PageError {
    PageError::from(report)
        .back(page_of(id), "Back to the record")
        .with(format!("<h2>Try again</h2>{}", forms(id, token, typed)))
}

/// A guard's or a form's refusal, before any act: back to the record, no form.
fn guarded(error: impl Into<PageError>, id: &str) -> PageError {
    error.into().back(page_of(id), "Back to the record")
}

/// `POST /cockpit/knowledge/{id}/reverify`: `knowledge.reverify` with the form's evidence.
pub async fn reverify(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(|e| guarded(e, &id))?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(|e| guarded(e, &id))?;
    let typed = Typed::from_form(&form);
    let request = ReverifyRequest {
        id: id.clone(),
        evidence: form.field("evidence").unwrap_or_default().to_owned(),
    };
    let done = state
        .call(move |ops| ops.call::<_, Reverified>("knowledge.reverify", request))
        .await
        .map_err(|report| refused(report, &id, state.token(), &typed))?;
    let key = flash::put(
        state.token(),
        Flash::Reverified {
            id: done.id,
            path: done.path,
            head: done.head,
            was_stale: done.was_stale,
        },
    );
    Ok(Redirect::to(&format!("{}?done={key}", page_of(&id))))
}

/// `POST /cockpit/knowledge/{id}/supersede`: `knowledge.supersede` of this record by the
/// form's record, with its reason.
pub async fn supersede(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(|e| guarded(e, &id))?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(|e| guarded(e, &id))?;
    let typed = Typed::from_form(&form);
    let request = SupersedeRequest {
        ids: vec![id.clone()],
        all_listed: false,
        filters: crate::knowledge::VerifiedRequest::default(),
        by: form.field("by").unwrap_or_default().trim().to_owned(),
        reason: form.field("reason").unwrap_or_default().to_owned(),
        commit: false,
    };
    let ended = state
        .call(move |ops| ops.call::<_, Ended>("knowledge.supersede", request))
        .await
        .map_err(|report| refused(report, &id, state.token(), &typed))?;
    let key = flash::put(state.token(), ended_flash(&ended));
    Ok(Redirect::to(&format!("{}?done={key}", page_of(&id))))
}

/// `POST /cockpit/knowledge/{id}/retire`: `knowledge.retire` of this record, with the
/// form's reason.
pub async fn retire(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(|e| guarded(e, &id))?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(|e| guarded(e, &id))?;
    let typed = Typed::from_form(&form);
    let request = RetireRequest {
        ids: vec![id.clone()],
        all_listed: false,
        filters: crate::knowledge::VerifiedRequest::default(),
        reason: form.field("reason").unwrap_or_default().to_owned(),
        commit: false,
    };
    let ended = state
        .call(move |ops| ops.call::<_, Ended>("knowledge.retire", request))
        .await
        .map_err(|report| refused(report, &id, state.token(), &typed))?;
    let key = flash::put(state.token(), ended_flash(&ended));
    Ok(Redirect::to(&format!("{}?done={key}", page_of(&id))))
}

fn ended_flash(ended: &Ended) -> Flash {
    Flash::Ended {
        records: ended
            .records
            .iter()
            .map(|r| (r.id.clone(), r.title.clone()))
            .collect(),
        by: ended.by.clone(),
        decided_by: ended.decided_by.clone(),
        next: ended.next.clone(),
    }
}

/// The flash of an act on a verified record.
pub fn render_flash(flash: &Flash) -> Option<String> {
    match flash {
        Flash::Ended {
            records,
            by,
            decided_by,
            next,
        } => {
            let what = match by {
                Some(by) => format!("Superseded by {}", knowledge_link(by)),
                None => String::from("Retired"),
            };
            let mut out = String::from("<section class=\"flash\" role=\"status\">");
            for (id, title) in records {
                let _ = write!(
                    out,
                    "<p>{what}: {} ({}), decided by {}. It is no longer claimed and never put before a model again.</p>",
                    knowledge_link(id),
                    escape(title),
                    escape(decided_by)
                );
            }
            if let Some(next) = next {
                let _ = write!(
                    out,
                    "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre>",
                    escape(next)
                );
            }
            out.push_str("</section>");
            Some(out)
        }
        Flash::Reverified {
            id,
            path,
            head,
            was_stale,
        } => {
            let was = if *was_stale {
                "It was stale; committing it makes that commit the one that verified it."
            } else {
                "It was not stale."
            };
            Some(format!(
                "<section class=\"flash\" role=\"status\"><p>Re-verified {} at <code class=\"commit\">{}</code>. {was}</p><p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre></section>",
                knowledge_link(id),
                escape(&head[..head.len().min(12)]),
                escape(&format!(
                    "git add {} && git commit -m {}",
                    crate::model::shell::quote(path),
                    crate::model::shell::quote(&format!("Re-verify knowledge {id}"))
                ))
            ))
        }
        _ => None,
    }
}
