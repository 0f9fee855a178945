//! How a record becomes a document of the index: its one line, its tokens (head and body),
//! the paths it cites; knowledge records, session records (with their episode's branch and
//! changed files) and handovers.

use std::collections::BTreeSet;

use crate::model::ids::is_episode_id;
use crate::model::knowledge::Status;
use crate::model::recall::tokens;
use crate::store::recall::NewDoc;

pub(super) fn joined_tokens(text: &str) -> String {
    tokens(text).join(" ")
}

/// The first line of `text`, trimmed: whole, or cut at a word with `…` at [`LINE_MAX_BYTES`].
pub fn one_line(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    // Cut at a word, never inside one (the record's command reads it whole).
    crate::model::inject::cut_at_word(first, LINE_MAX_BYTES)
}

/// Bytes of a record's one line at most (its first line, whole or cut at a word with `…`).
pub const LINE_MAX_BYTES: usize = 240;

/// The path of a `file:`/`test:` reference, without a `:<line>` suffix.
pub fn ref_path(reference: &str) -> Option<String> {
    let target = reference
        .strip_prefix("file:")
        .or_else(|| reference.strip_prefix("test:"))?;
    let path = match target.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => path,
        _ => target,
    };
    let path = path.trim_start_matches("./").trim_end_matches('/');
    (!path.is_empty()).then(|| path.to_owned())
}

pub(super) fn knowledge_doc(text: &str, source: &str, place: &'static str) -> Option<NewDoc> {
    let (record, body) = crate::store::records::parse_record(text).ok()?;
    let refs: Vec<String> = record
        .provenance
        .derived_from
        .iter()
        .filter_map(|r| ref_path(r))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let task = record.provenance.derived_from.iter().find_map(|r| {
        r.strip_prefix("task:")
            .or_else(|| r.strip_prefix("decision:"))
            .filter(|t| !t.is_empty() && *t != "none")
            .map(str::to_owned)
    });
    let issue = record
        .provenance
        .derived_from
        .iter()
        .find_map(|r| r.strip_prefix("issue:").map(str::to_owned));
    let episode = record
        .id
        .get(..23)
        .filter(|e| is_episode_id(e))
        .map(str::to_owned);
    let status = match record.status {
        Status::Verified => "verified",
        Status::Candidate => "candidate",
        Status::Superseded => "superseded",
    };
    let body = body.trim();
    // The claim is the body before its first section; the sections (`# Evidence`, `# Rejected`,
    // `# Superseded`) say what shows it or why it went, and are searched apart from it: a
    // batch's one evidence text must not make ten records rank for what it names.
    let (claim, beside) = claim_and_beside(body);
    let mut searchable = claim.to_owned();
    for r in &refs {
        searchable.push('\n');
        searchable.push_str(r);
    }
    Some(NewDoc {
        kind: "knowledge",
        key: record.id.clone(),
        source: source.to_owned(),
        status,
        line: one_line(&record.title),
        text: format!("{}\n\n{body}", record.title),
        date: record.date.clone(),
        episode,
        task,
        issue,
        intent: None,
        superseded_by: record.superseded_by.clone(),
        derives: None,
        place: Some(place),
        offset: None,
        head_tokens: joined_tokens(&record.title),
        body_tokens: joined_tokens(&searchable),
        evidence_tokens: joined_tokens(beside),
        refs,
    })
}

/// A record body's claim (its text before the first `# ` section) and what follows it.
fn claim_and_beside(body: &str) -> (&str, &str) {
    if body.starts_with("# ") {
        return ("", body);
    }
    match body.find("\n# ") {
        Some(at) => (&body[..at], &body[at..]),
        None => (body, ""),
    }
}

/// The lines of a Markdown section `## <title>` (up to the next `## `).
fn section<'a>(body: &'a str, title: &str) -> Vec<&'a str> {
    let heading = format!("## {title}");
    body.lines()
        .skip_while(|l| l.trim_end() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

pub(super) type SessionParts = (NewDoc, String, Option<String>, Vec<String>);

pub(super) fn session_doc(text: &str, source: &str) -> Option<SessionParts> {
    let (record, body) =
        crate::store::frontmatter::parse::<crate::model::compose::SessionRecord>(text).ok()?;
    if !is_episode_id(&record.id) {
        return None;
    }
    let summary: Vec<&str> = section(body, "Summary")
        .into_iter()
        .filter(|l| !l.starts_with("No summary was given"))
        .collect();
    // `- <12 hex> <subject> (<time>)`
    let subjects: Vec<String> = section(body, "Commits")
        .into_iter()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(' ').map(|(_, rest)| rest))
        .map(|rest| match rest.rfind(" (") {
            Some(i) if rest.ends_with(')') => rest[..i].to_owned(),
            _ => rest.to_owned(),
        })
        .collect();
    let summary = summary.join("\n");
    let line = if !summary.is_empty() {
        one_line(&summary)
    } else if let Some(first) = subjects.first() {
        one_line(&format!(
            "{} commit(s) on {}: {first}",
            record.commits.len(),
            record.branch.as_deref().unwrap_or("a detached HEAD")
        ))
    } else {
        format!(
            "episode on {} ({})",
            record.branch.as_deref().unwrap_or("a detached HEAD"),
            serde_json::to_value(record.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        )
    };
    let mut searchable = summary.clone();
    for s in &subjects {
        searchable.push('\n');
        searchable.push_str(s);
    }
    let doc = NewDoc {
        kind: "session",
        key: record.id.clone(),
        source: source.to_owned(),
        status: "candidate",
        line: line.clone(),
        text: body.trim().to_owned(),
        date: record.closed.clone(),
        episode: Some(record.id.clone()),
        task: record.tasks.first().cloned(),
        head_tokens: joined_tokens(&line),
        body_tokens: joined_tokens(&searchable),
        ..NewDoc::default()
    };
    Some((doc, record.id, record.branch, record.changed_files))
}

/// What recall reads of a handover's front matter.
#[derive(serde::Deserialize)]
struct HandoverHead {
    episode: String,
    as_of: String,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    issue: Option<String>,
    #[serde(default)]
    intent: Option<String>,
}

pub(super) fn handover_doc(text: &str, source: &str) -> Option<NewDoc> {
    let (front, body) = crate::store::frontmatter::parse::<HandoverHead>(text).ok()?;
    if !is_episode_id(&front.episode) {
        return None;
    }
    let next: Vec<&str> = section(body, "Next Action")
        .into_iter()
        .filter_map(|l| l.strip_prefix("- "))
        .collect();
    let line = one_line(&format!(
        "handover: {}",
        next.first().copied().unwrap_or("nothing left in flight")
    ));
    Some(NewDoc {
        kind: "handover",
        key: front.episode.clone(),
        source: source.to_owned(),
        status: "candidate",
        line: line.clone(),
        text: body.trim().to_owned(),
        date: front.as_of.clone(),
        episode: Some(front.episode.clone()),
        task: front.task.clone(),
        issue: front.issue.clone(),
        intent: front.intent.clone(),
        head_tokens: joined_tokens(&line),
        body_tokens: joined_tokens(body),
        ..NewDoc::default()
    })
}
