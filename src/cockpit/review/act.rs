//! The human acts on the queue: one candidate's promote and reject forms (posted to
//! `/cockpit/knowledge/{id}/promote|reject`, `knowledge.promote` / `knowledge.reject`),
//! and the batch form of the queue (posted to `/cockpit/review`, `knowledge.review`: the
//! checked rows or the whole filtered queue, one evidence or reason, optionally one
//! commit). Each is answered by a redirect back to the queue, which then says once what
//! happened and what to commit.

use std::fmt::Write as _;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Redirect;

use super::{Filters, QUEUE};
use crate::cockpit::flash::{self, Flash};
use crate::cockpit::html::{encode, escape, knowledge_link, label};
use crate::cockpit::{Form, PageError};
use crate::error::{Class as ErrorClass, Error, ErrorReport};
use crate::http::{ApiError, AppState};
use crate::knowledge::review::{Promoted, Rejected};
use crate::knowledge::{
    Act, CandidateListing, CandidateState, CandidatesRequest, PromoteRequest, RejectRequest,
    ReviewRequest, Reviewed,
};
use crate::model::knowledge::Class;
use crate::model::shell::quote;
use crate::ops::Caller;

/// What a candidate's forms hold: empty, or what was typed when the act was refused.
#[derive(Debug, Clone, Default)]
pub struct Typed {
    evidence: String,
    class: String,
    reason: String,
    by: String,
    duplicate_of: String,
    /// The batch form's "the whole filtered queue".
    all: bool,
    /// The batch form's "one commit".
    commit: bool,
    /// The verified records the promotion is to supersede (its checked boxes).
    supersedes: Vec<String>,
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
            class: raw("class"),
            reason: raw("reason"),
            by: raw("by"),
            duplicate_of: raw("duplicate_of"),
            all: form.field("select") == Some("all"),
            commit: form.field("commit").is_some(),
            supersedes: form
                .fields
                .iter()
                .filter(|(k, v)| k == "supersedes" && !v.trim().is_empty())
                .map(|(_, v)| v.trim().to_owned())
                .collect(),
        }
    }
}

impl Typed {
    /// Nothing typed, the boxes of `supersedes` ticked (the queue's "promote superseding
    /// it").
    pub fn superseding(supersedes: Vec<String>) -> Typed {
        Typed {
            supersedes,
            ..Typed::default()
        }
    }
}

/// The verified records a promotion may supersede in the same act, as the promote form's
/// checkboxes (`offered`: id and title of each; `checked` the ones ticked).
fn supersedes_fields(offered: &[(String, String)], checked: &[String]) -> String {
    if offered.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<fieldset class=\"supersedes\"><legend>It replaces (supersede in the same act)</legend>",
    );
    for (id, title) in offered {
        let on = if checked.contains(id) { " checked" } else { "" };
        let _ = write!(
            out,
            "<label class=\"check\"><input type=\"checkbox\" name=\"supersedes\" value=\"{}\"{on}> {} <code>{}</code></label>",
            escape(id),
            escape(title),
            escape(id)
        );
    }
    out.push_str("</fieldset>");
    out
}

/// The promote and reject forms of candidate `id`, with the run's `token` hidden in each
/// and `typed` in their fields; `offered` the verified records it concerns, each a box of
/// the promote form that supersedes it in the same act.
pub fn acts(id: &str, token: &str, typed: &Typed, offered: &[(String, String)]) -> String {
    let target = escape(&encode(id));
    let token = escape(token);
    let mut classes = String::from("<option value=\"\">keep the derived class</option>");
    for name in Class::NAMES {
        let selected = if typed.class == name { " selected" } else { "" };
        let _ = write!(
            classes,
            "<option value=\"{name}\"{selected}>{name}</option>"
        );
    }
    format!(
        "<div class=\"acts\">\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/promote\" id=\"promote\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"evidence-{target}\">Evidence</label>\
         <textarea id=\"evidence-{target}\" name=\"evidence\" required placeholder=\"What shows the claim holds: a test, a file, a command and its output\">{evidence}</textarea>\
         <label for=\"class-{target}\">Class</label>\
         <select id=\"class-{target}\" name=\"class\">{classes}</select>\
         {supersedes}\
         <button type=\"submit\" class=\"promote\">Promote</button>\
         </form>\
         <form method=\"post\" action=\"/cockpit/knowledge/{target}/reject\">\
         <input type=\"hidden\" name=\"token\" value=\"{token}\">\
         <label for=\"reason-{target}\">Reason</label>\
         <input type=\"text\" id=\"reason-{target}\" name=\"reason\" required placeholder=\"Why it is rejected\" value=\"{reason}\">\
         <label for=\"by-{target}\">Replaced by (optional)</label>\
         <input type=\"text\" id=\"by-{target}\" name=\"by\" placeholder=\"a knowledge id\" value=\"{by}\">\
         <button type=\"submit\" class=\"reject\">Reject</button>\
         </form></div>",
        evidence = escape(&typed.evidence),
        reason = escape(&typed.reason),
        by = escape(&typed.by),
        supersedes = supersedes_fields(offered, &typed.supersedes),
    )
}

/// The flash: what the act did and what to commit.
pub fn render_flash(flash: &Flash) -> String {
    let command = |files: &[String], message: String| {
        let files: Vec<String> = files.iter().map(|f| quote(f).into_owned()).collect();
        format!(
            "git add {} &amp;&amp; git commit -m {}",
            escape(&files.join(" ")),
            escape(&quote(&message))
        )
    };
    match flash {
        Flash::Promoted {
            id,
            path,
            commit,
            warnings,
            redacted,
            resumed,
            superseded,
        } => {
            let mut out = format!(
                "<section class=\"flash\" role=\"status\"><p>Promoted {}: it is curated knowledge now, in <code>{}</code>.</p>",
                knowledge_link(id),
                escape(path)
            );
            if let Some(note) = resumed {
                let _ = write!(out, "<p>{}</p>", escape(note));
            }
            for (old, title) in superseded {
                let _ = write!(
                    out,
                    "<p>It supersedes {} ({}): no longer claimed, never put before a model again.</p>",
                    knowledge_link(old),
                    escape(title)
                );
            }
            if !redacted.is_empty() {
                let _ = write!(
                    out,
                    "<p>Taken out of the evidence before it was written: {}.</p>",
                    escape(&redacted.join(", "))
                );
            }
            if !warnings.is_empty() {
                out.push_str("<p>The check says of the promoted record:</p><ul>");
                for w in warnings {
                    let _ = write!(out, "<li>{}</li>", escape(w));
                }
                out.push_str("</ul>");
            }
            let _ = write!(
                out,
                "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre></section>",
                command(commit, format!("Verify knowledge {id}"))
            );
            out
        }
        Flash::Reviewed {
            promoted,
            rejected,
            commit,
            next,
            warnings,
            redacted,
        } => {
            let duplicates = rejected.iter().filter(|r| r.2.is_some()).count();
            let mut said = Vec::new();
            if !promoted.is_empty() {
                said.push(format!("promoted {}", promoted.len()));
            }
            if !rejected.is_empty() {
                said.push(if duplicates > 0 {
                    format!(
                        "rejected {} ({duplicates} as near duplicates)",
                        rejected.len()
                    )
                } else {
                    format!("rejected {}", rejected.len())
                });
            }
            let said = said.join(", ");
            let mut out = format!(
                "<section class=\"flash\" role=\"status\"><p>Reviewed {} record(s): {said}.</p>",
                promoted.len() + rejected.len()
            );
            match (commit, next) {
                (Some((id, branch, paths)), _) => {
                    let _ = write!(
                        out,
                        "<p>One commit, <code class=\"commit\">{}</code> on branch <code>{}</code>, holds the {paths} reviewed path(s) and nothing else.</p>",
                        escape(id),
                        escape(branch)
                    );
                }
                (None, Some(next)) => {
                    let _ = write!(
                        out,
                        "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre>",
                        escape(next)
                    );
                }
                (None, None) => {}
            }
            if !redacted.is_empty() {
                let _ = write!(
                    out,
                    "<p>Taken out of the text before it was written: {}.</p>",
                    escape(&redacted.join(", "))
                );
            }
            if !warnings.is_empty() {
                out.push_str("<p>The check says of the promoted records:</p><ul>");
                for w in warnings {
                    let _ = write!(out, "<li>{}</li>", escape(w));
                }
                out.push_str("</ul>");
            }
            let _ = write!(
                out,
                "<details><summary>What was decided ({})</summary><ul class=\"refs\">",
                promoted.len() + rejected.len()
            );
            for (id, title) in promoted {
                let _ = write!(
                    out,
                    "<li>promoted {} {}</li>",
                    escape(title),
                    knowledge_link(id)
                );
            }
            for (id, title, of) in rejected {
                let of = of
                    .as_deref()
                    .map(|o| format!(" (a duplicate of {})", knowledge_link(o)))
                    .unwrap_or_default();
                let _ = write!(
                    out,
                    "<li>rejected {} {}{of}</li>",
                    escape(title),
                    knowledge_link(id)
                );
            }
            out.push_str("</ul></details></section>");
            out
        }
        other @ (Flash::Ended { .. } | Flash::Reverified { .. }) => {
            crate::cockpit::lifecycle::render_flash(other).unwrap_or_default()
        }
        Flash::Rejected {
            id,
            path,
            by,
            commit,
        } => {
            let by = by
                .as_deref()
                .map(|b| format!(", replaced by {}", knowledge_link(b)))
                .unwrap_or_default();
            let mut out = format!(
                "<section class=\"flash\" role=\"status\"><p>Rejected {}{by}: it stays, marked superseded, in <code>{}</code>.</p>",
                knowledge_link(id),
                escape(path)
            );
            if commit.is_empty() {
                out.push_str(
                    "<p>It waits in the outbox, which git does not see: nothing to commit.</p>",
                );
            } else {
                let _ = write!(
                    out,
                    "<p>Commit it, in a terminal in this repository:</p><pre class=\"command\"><code>{}</code></pre>",
                    command(commit, format!("Reject knowledge {id}"))
                );
            }
            out.push_str("</section>");
            out
        }
    }
}

/// The error page of an act, linking back to the queue.
fn refused(error: impl Into<PageError>) -> PageError {
    error
        .into()
        .back(QUEUE.to_owned(), "Back to the review queue")
}

/// The error page of an act the operation refused: the forms again, with what was typed
/// (the records it was to supersede offered again, ticked).
fn refused_with_forms(report: ErrorReport, id: &str, token: &str, typed: &Typed) -> PageError {
    let offered: Vec<(String, String)> = typed
        .supersedes
        .iter()
        .map(|s| (s.clone(), String::new()))
        .collect();
    refused(report).with(format!(
        "<h2>Try again</h2>{}",
        acts(id, token, typed, &offered)
    ))
}

/// Where candidate `id` waits (tracked, untracked, outbox), before an act moves it.
fn waited(ops: Caller<'_>, id: &str) -> Result<Option<CandidateState>, Error> {
    let listing: CandidateListing =
        ops.call("knowledge.candidates", CandidatesRequest::default())?;
    Ok(listing
        .candidates
        .into_iter()
        .find(|c| c.id == id)
        .map(|c| c.state))
}

/// `POST /cockpit/knowledge/{id}/promote`: `knowledge.promote` through the registry, with
/// the form's evidence.
pub async fn promote(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let typed = Typed::from_form(&form);
    let class = match form.field("class") {
        None => None,
        Some(name) => Some(Class::from_name(name).ok_or_else(|| {
            refused_with_forms(
                ApiError::surface(
                    StatusCode::BAD_REQUEST,
                    ErrorClass::Usage,
                    "request.valid",
                    format!("class {name:?} is not a knowledge class"),
                    "choose fact, convention, constraint, memory or lesson, or keep the derived class",
                )
                .report,
                &id,
                state.token(),
                &typed,
            )
        })?),
    };
    let request = PromoteRequest {
        id: id.clone(),
        class,
        evidence: form.field("evidence").unwrap_or_default().to_owned(),
        files: Vec::new(),
        supersedes: typed.supersedes.clone(),
        base: None,
    };
    let (was, promoted) = state
        .call(move |ops| {
            // Where it waited decides what to commit: a tracked candidate's removal is
            // part of the change.
            let was = waited(ops, &request.id)?;
            Ok((was, ops.call::<_, Promoted>("knowledge.promote", request)?))
        })
        .await
        .map_err(|report| refused_with_forms(report, &id, state.token(), &typed))?;
    let mut commit = vec![promoted.path.clone()];
    if was == Some(CandidateState::Tracked) && promoted.from != promoted.path {
        commit.push(promoted.from.clone());
    }
    // The records it superseded were rewritten in place: part of the commit.
    commit.extend(promoted.superseded.iter().map(|r| r.path.clone()));
    let key = flash::put(
        state.token(),
        Flash::Promoted {
            id: promoted.id,
            path: promoted.path,
            commit,
            warnings: promoted
                .warnings
                .iter()
                .map(|w| format!("{} [{}]: {}", label(&w.severity), w.rule, w.message))
                .collect(),
            redacted: promoted.redacted,
            resumed: promoted.resumed,
            superseded: promoted
                .superseded
                .iter()
                .map(|r| (r.id.clone(), r.title.clone()))
                .collect(),
        },
    );
    Ok(Redirect::to(&format!("{QUEUE}?done={key}")))
}

/// `POST /cockpit/knowledge/{id}/reject`: `knowledge.reject` through the registry, with
/// the form's reason.
pub async fn reject(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let typed = Typed::from_form(&form);
    let request = RejectRequest {
        id: id.clone(),
        reason: form.field("reason").unwrap_or_default().to_owned(),
        by: form.field("by").map(str::to_owned),
    };
    let (was, rejected) = state
        .call(move |ops| {
            let was = waited(ops, &request.id)?;
            Ok((was, ops.call::<_, Rejected>("knowledge.reject", request)?))
        })
        .await
        .map_err(|report| refused_with_forms(report, &id, state.token(), &typed))?;
    let commit = if was == Some(CandidateState::Outbox) {
        Vec::new()
    } else {
        vec![rejected.path.clone()]
    };
    let key = flash::put(
        state.token(),
        Flash::Rejected {
            id: rejected.id,
            path: rejected.path,
            by: rejected.superseded_by,
            commit,
        },
    );
    Ok(Redirect::to(&format!("{QUEUE}?done={key}")))
}

/// The batch form's fields (inside a `<form class="batch">` that holds the token): with
/// `listed` (`(items, candidates)` the filters list), the choice between the checked
/// rows and the whole filtered queue; one evidence, one reason, duplicate-of, the commit
/// option, and the two acts.
pub fn controls_fields(listed: Option<(usize, usize)>, typed: &Typed) -> String {
    let mut out = String::from("<fieldset class=\"decide\"><legend>Decide</legend>");
    if let Some((items, candidates)) = listed {
        let (page, all) = if typed.all {
            ("", " checked")
        } else {
            (" checked", "")
        };
        let candidates = if candidates == items {
            String::new()
        } else {
            format!(", {candidates} candidates")
        };
        let _ = write!(
            out,
            "<div class=\"select\" role=\"radiogroup\" aria-label=\"select\"><span class=\"what\">Select</span>\
             <label><input type=\"radio\" name=\"select\" value=\"checked\"{page}> the checked rows on this page</label>\
             <label><input type=\"radio\" name=\"select\" value=\"all\"{all}> the whole filtered queue ({items} item(s){candidates})</label></div>"
        );
    }
    let commit = if typed.commit { " checked" } else { "" };
    let _ = write!(
        out,
        "<div class=\"acts\"><div>\
         <label for=\"batch-evidence\">Evidence (to promote)</label>\
         <textarea id=\"batch-evidence\" name=\"evidence\" placeholder=\"What shows the claims hold: a test, a file, a command and its output. One text for every record.\">{evidence}</textarea>\
         <button type=\"submit\" name=\"act\" value=\"promote\" class=\"promote\">Promote</button></div><div>\
         <label for=\"batch-reason\">Reason (to reject)</label>\
         <input type=\"text\" id=\"batch-reason\" name=\"reason\" placeholder=\"Why they do not hold\" value=\"{reason}\">\
         <label for=\"batch-duplicate\">Duplicate of (optional)</label>\
         <input type=\"text\" id=\"batch-duplicate\" name=\"duplicate_of\" placeholder=\"a knowledge id that supersedes them\" value=\"{duplicate}\">\
         <button type=\"submit\" name=\"act\" value=\"reject\" class=\"reject\">Reject</button></div></div>\
         <label class=\"check\"><input type=\"checkbox\" name=\"commit\" value=\"1\"{commit}> commit: one commit of the reviewed records (only their paths)</label>\
         </fieldset>",
        evidence = escape(&typed.evidence),
        reason = escape(&typed.reason),
        duplicate = escape(&typed.duplicate_of),
    );
    out
}

/// A whole batch form deciding `ids` (a card's review item, or a refused batch again),
/// or the whole queue `filters` list when `typed.all`.
pub fn controls(token: &str, filters: &Filters, typed: &Typed, ids: &[String]) -> String {
    let mut out = format!(
        "<form class=\"batch\" method=\"post\" action=\"{QUEUE}\"><input type=\"hidden\" name=\"token\" value=\"{}\">",
        escape(token)
    );
    if typed.all {
        out.push_str(&filters.hidden());
        out.push_str("<input type=\"hidden\" name=\"select\" value=\"all\">");
    }
    for id in ids {
        let _ = write!(
            out,
            "<input type=\"hidden\" name=\"ids\" value=\"{}\">",
            escape(id)
        );
    }
    out.push_str(&controls_fields(None, typed));
    out.push_str("</form>");
    out
}

/// `POST /cockpit/review`: the batch form, one `knowledge.review` through the registry —
/// the checked rows (`ids`) or the whole queue its hidden filters list (`select=all`).
pub async fn batch(State(state): State<AppState>, request: Request) -> Result<Redirect, PageError> {
    let form = Form::read(request).await.map_err(refused)?;
    state
        .authorize(&form.headers, form.field("token"))
        .map_err(refused)?;
    let typed = Typed::from_form(&form);
    let ids: Vec<String> = form
        .fields
        .iter()
        .filter(|(k, v)| k == "ids" && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_owned())
        .collect();
    let filters = Filters::parse(&form.fields, "f_").map_err(refused)?;
    let again = |report: ErrorReport| {
        let page = refused(report).back(filters.href(1), "Back to the review queue");
        if typed.all || !ids.is_empty() {
            page.with(format!(
                "<h2>Try again</h2>{}",
                controls(state.token(), &filters, &typed, &ids)
            ))
        } else {
            // Nothing was selected: a form again could decide nothing; what was typed is
            // kept to copy into the queue's form.
            let typed_text: Vec<String> = [&typed.evidence, &typed.reason]
                .into_iter()
                .filter(|t| !t.trim().is_empty())
                .map(|t| format!("<pre>{}</pre>", escape(t)))
                .collect();
            if typed_text.is_empty() {
                page
            } else {
                page.with(format!("<h2>What you typed</h2>{}", typed_text.join("")))
            }
        }
    };
    let act = match form.field("act") {
        Some("promote") => Act::Promote,
        Some("reject") => Act::Reject,
        other => {
            return Err(again(
                ApiError::surface(
                    StatusCode::BAD_REQUEST,
                    ErrorClass::Usage,
                    "request.valid",
                    format!(
                        "act {:?} is not promote or reject",
                        other.unwrap_or_default()
                    ),
                    "press Promote or Reject",
                )
                .report,
            ));
        }
    };
    let request = ReviewRequest {
        act,
        ids: if typed.all { Vec::new() } else { ids.clone() },
        all_listed: typed.all,
        filters: if typed.all {
            filters.request()
        } else {
            CandidatesRequest::default()
        },
        // Each act takes its own fields only (the operation refuses the other's).
        evidence: match act {
            Act::Promote => typed.evidence.clone(),
            Act::Reject => String::new(),
        },
        class: None,
        reason: match act {
            Act::Reject => form.field("reason").map(str::to_owned),
            Act::Promote => None,
        },
        by: None,
        duplicate_of: match act {
            Act::Reject => form.field("duplicate_of").map(|d| d.trim().to_owned()),
            Act::Promote => None,
        },
        commit: typed.commit,
        supersedes: Vec::new(),
    };
    let reviewed = state
        .call(move |ops| ops.call::<_, Reviewed>("knowledge.review", request))
        .await
        .map_err(&again)?;
    let key = flash::put(
        state.token(),
        Flash::Reviewed {
            promoted: reviewed
                .promoted
                .iter()
                .map(|r| (r.id.clone(), r.title.clone()))
                .collect(),
            rejected: reviewed
                .rejected
                .iter()
                .map(|r| (r.id.clone(), r.title.clone(), r.duplicate_of.clone()))
                .collect(),
            commit: reviewed
                .commit
                .as_ref()
                .map(|c| (c.id.clone(), c.branch.clone(), c.paths.len())),
            next: reviewed.next.clone(),
            warnings: reviewed
                .warnings
                .iter()
                .map(|w| format!("{} [{}]: {}", label(&w.severity), w.rule, w.message))
                .collect(),
            redacted: reviewed.redacted,
        },
    );
    let mut back = filters;
    back.page = 1;
    Ok(Redirect::to(&back.href_with(1, Some(&key))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flash_names_the_exact_commit() {
        let html = render_flash(&Flash::Promoted {
            id: "I".into(),
            path: ".ai/repo/knowledge/curated/I.md".into(),
            commit: vec![
                ".ai/repo/knowledge/curated/I.md".into(),
                ".ai/repo/knowledge/candidates/I.md".into(),
            ],
            warnings: Vec::new(),
            redacted: Vec::new(),
            resumed: None,
            superseded: Vec::new(),
        });
        assert!(
            html.contains("<code>git add .ai/repo/knowledge/curated/I.md .ai/repo/knowledge/candidates/I.md &amp;&amp; git commit -m &#39;Verify knowledge I&#39;</code>"),
            "{html}"
        );
    }

    #[test]
    fn the_flash_of_a_review_says_the_counts_and_the_commit_or_the_next_line() {
        let reviewed = |commit: Option<(String, String, usize)>, next: Option<String>| {
            render_flash(&Flash::Reviewed {
                promoted: vec![("A".into(), "Alpha".into())],
                rejected: vec![
                    ("B".into(), "Beta".into(), Some("A".into())),
                    ("C".into(), "<Gamma>".into(), None),
                ],
                commit,
                next,
                warnings: Vec::new(),
                redacted: Vec::new(),
            })
        };
        let html = reviewed(Some(("abc123".into(), "main".into(), 4)), None);
        assert!(
            html.contains("Reviewed 3 record(s): promoted 1, rejected 2 (1 as near duplicates)."),
            "{html}"
        );
        assert!(
            html.contains("<code class=\"commit\">abc123</code> on branch <code>main</code>, holds the 4 reviewed path(s)"),
            "{html}"
        );
        assert!(html.contains("rejected &lt;Gamma&gt;"), "{html}");
        let html = reviewed(None, Some("git add -A -- x && git commit -m 'y'".into()));
        assert!(
            html.contains("<code>git add -A -- x &amp;&amp; git commit -m &#39;y&#39;</code>"),
            "{html}"
        );
    }
}
