//! `knowledge.review` (SPEC §5.2): many candidates promoted or rejected in one human act —
//! by ids or by the selection `knowledge candidates` lists — each record still its own act
//! in the ledger and its own `# Evidence` or `# Rejected`; every id is checked before any
//! file is written, and `commit` writes one commit of exactly the reviewed paths.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::Finding;
use super::queue::{CandidateListing, CandidatesRequest};
use super::review::{append_rejected, check_evidence_or, malformed, successors_known};
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::event::KnowledgePromoted;
use crate::model::ids::IdKind;
use crate::model::input::{INPUT_LIMIT, TEXT_LIMIT, check_size};
use crate::model::knowledge::{Act, Class, KnowledgeRecord, ReviewError, Status};
use crate::model::redact::redact;
use crate::store::records::{Place, StoredFile, stored_files};
use crate::store::{KnowledgeLock, StoreError, frontmatter, write_atomic};

/// Where the records a review commit may hold live.
pub(super) const KNOWLEDGE_DIR: &str = ".ai/repo/knowledge/";

/// Past this many paths, the `next:` line stages the knowledge directory instead.
const NEXT_PATHS: usize = 12;

/// `knowledge.review` (a human act): `knowledge promote` and `knowledge reject` given many
/// ids, a selection, `--duplicate-of` or `--commit`; the cockpit's batch form.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeReviewRequest")]
pub struct ReviewRequest {
    /// Promote or reject.
    pub act: Act,
    /// The candidates, by id; each decides its whole review item (the near duplicates
    /// folded with it). Not with `all_listed` or `filters`.
    #[serde(default)]
    pub ids: Vec<String>,
    /// Every candidate `knowledge candidates` lists with `filters` (all of them when no
    /// filter is given).
    #[serde(default)]
    pub all_listed: bool,
    /// The filters of `knowledge candidates` that `all_listed` takes.
    #[serde(default)]
    pub filters: CandidatesRequest,
    /// Promote: what shows the claims hold, one text for every record (the CLI reads it
    /// from stdin).
    #[serde(default)]
    pub evidence: String,
    /// Promote: the class the promoted records take (default: the class each has).
    #[serde(default)]
    pub class: Option<Class>,
    /// Reject: why, one reason for every record.
    #[serde(default)]
    pub reason: Option<String>,
    /// Reject: the knowledge id that replaces them (`superseded_by`).
    #[serde(default)]
    pub by: Option<String>,
    /// Reject: they restate this record; it supersedes them and the reason says so.
    #[serde(default)]
    pub duplicate_of: Option<String>,
    /// Write one commit on the current branch holding only the reviewed records' paths.
    #[serde(default)]
    pub commit: bool,
    /// Promote, one id: the verified records it replaces, superseded by it in the same act.
    #[serde(default)]
    pub supersedes: Vec<String>,
}

/// One record a review decided.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReviewedRecord {
    pub id: String,
    pub title: String,
    /// Where the record is now, relative to the root.
    pub path: String,
    /// The candidate file a promotion removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The record that supersedes a rejected one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Rejected as a near duplicate of this record (folded under it, or
    /// `duplicate_of`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// Instruction-shaped text in a record now verified (docs/HOSTILE.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instruction_shapes: Vec<crate::model::inject::Shape>,
}

/// The commit a review wrote.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReviewCommit {
    pub id: String,
    pub branch: String,
    /// The paths it holds, sorted.
    pub paths: Vec<String>,
}

/// `knowledge.review`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "KnowledgeReviewed")]
pub struct Reviewed {
    pub act: Act,
    /// In the order they were written.
    pub promoted: Vec<ReviewedRecord>,
    pub rejected: Vec<ReviewedRecord>,
    /// The commit message: its title, a blank line, one line per act.
    pub message: String,
    /// The commit, when `commit` was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<ReviewCommit>,
    /// Without `commit`: the one command that commits the whole review.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Secret shapes removed from the evidence or the reason before it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// What `knowledge check` says about the promoted records (they are promoted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Finding>,
    /// With no episode open and something promoted: who each `knowledge.promoted` line
    /// says promoted it (git's author identity, `unknown` when git configures none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promoted_by: Option<String>,
    /// The verified records the promoted one superseded (`supersedes`). Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<super::end::EndedRecord>,
}

/// One record to decide, read and checked before anything is written.
struct Planned {
    file: StoredFile,
    record: KnowledgeRecord,
    body: String,
    /// Reject: the record superseding it, and whether it is a duplicate.
    superseded_by: Option<String>,
    duplicate_of: Option<String>,
}

/// Promotes or rejects every candidate of the request's selection, each with its own
/// ledger line, after checking all of them; optionally in one commit.
pub fn review(ctx: &Ctx, request: ReviewRequest) -> Result<Reviewed, Error> {
    let selection_given = request.all_listed || request.filters.narrows();
    if !request.ids.is_empty() && selection_given {
        return Err(ReviewError::Mixed.into());
    }
    if request.ids.is_empty() && !request.all_listed {
        return Err(ReviewError::NoSelection {
            filters: request.filters.options(),
            act: request.act,
        }
        .into());
    }
    for id in &request.ids {
        Refusal::check_id(IdKind::Knowledge, id)?;
    }
    let act = request.act;
    if !request.supersedes.is_empty() {
        if act != Act::Promote {
            return Err(ReviewError::Field {
                field: "supersedes",
                act: Act::Promote,
            }
            .into());
        }
        if request.ids.len() != 1 || request.all_listed {
            return Err(crate::model::knowledge::EndError::SupersedesOne.into());
        }
        let id = &request.ids[0];
        super::review::supersedes_itself(id, &request.supersedes, |others| {
            super::review::promote_command(
                id,
                request.class,
                &[],
                others,
                request.commit,
                &request.evidence,
            )
        })?;
    }
    let mut redacted = Vec::new();
    let (evidence, reason) = match act {
        Act::Promote => {
            for (field, given) in [
                ("reason", request.reason.is_some()),
                ("by", request.by.is_some()),
                ("duplicate_of", request.duplicate_of.is_some()),
            ] {
                if given {
                    return Err(ReviewError::Field {
                        field,
                        act: Act::Reject,
                    }
                    .into());
                }
            }
            check_size("evidence", &request.evidence, INPUT_LIMIT)?;
            let cleaned = redact(request.evidence.trim());
            redacted.extend(cleaned.shapes.iter().map(|s| (*s).to_owned()));
            let evidence = cleaned.text.trim().to_owned();
            let first = request.ids.first().map_or("<id>", String::as_str);
            // One id: the fix is this promotion with the evidence to write in, its
            // `--class`, `--supersedes` and `--commit` kept (a fix that dropped `--commit`
            // would promote and leave the records uncommitted).
            let again = (request.ids.len() == 1 && !request.all_listed).then(|| {
                super::review::promote_command(
                    first,
                    request.class,
                    &[],
                    &request.supersedes,
                    request.commit,
                    "",
                )
            });
            if evidence.is_empty() {
                return Err(Refusal::EvidenceRequired {
                    id: first.to_owned(),
                    fix: again,
                }
                .into());
            }
            check_evidence_or(first, &evidence, "promote", again)?;
            (evidence, String::new())
        }
        Act::Reject => {
            if request.class.is_some() {
                return Err(ReviewError::Field {
                    field: "class",
                    act: Act::Promote,
                }
                .into());
            }
            if !request.evidence.trim().is_empty() {
                return Err(ReviewError::Field {
                    field: "evidence",
                    act: Act::Promote,
                }
                .into());
            }
            if request.by.is_some() && request.duplicate_of.is_some() {
                return Err(ReviewError::ByAndDuplicate.into());
            }
            for target in [&request.by, &request.duplicate_of].into_iter().flatten() {
                Refusal::check_id(IdKind::Knowledge, target)?;
            }
            let given = request.reason.as_deref().unwrap_or("");
            check_size("reason", given, TEXT_LIMIT)?;
            let cleaned = redact(given.trim());
            redacted.extend(cleaned.shapes.iter().map(|s| (*s).to_owned()));
            let reason = cleaned.text.trim().to_owned();
            if reason.is_empty() && request.duplicate_of.is_none() {
                return Err(Refusal::EmptyText { what: "reason" }.into());
            }
            (String::new(), reason)
        }
    };

    let lock = KnowledgeLock::acquire(&ctx.layout)?;
    // The queue as `knowledge candidates` lists it: the selection, and its review items.
    let listing = super::queue::candidates(
        ctx,
        if request.all_listed {
            request.filters.clone()
        } else {
            CandidatesRequest::default()
        },
    )?;
    let files = stored_files(&ctx.layout)?;
    let mut pending: HashMap<&str, &StoredFile> = HashMap::new();
    let mut curated: BTreeSet<&str> = BTreeSet::new();
    let mut known: BTreeSet<&str> = BTreeSet::new();
    for f in &files {
        known.insert(f.stem.as_str());
        match f.place {
            Place::Curated => {
                curated.insert(f.stem.as_str());
            }
            _ => {
                pending.entry(f.stem.as_str()).or_insert(f);
            }
        }
    }
    let named: Vec<String> = if request.all_listed {
        listing.candidates.iter().map(|c| c.id.clone()).collect()
    } else {
        let mut seen = BTreeSet::new();
        request
            .ids
            .iter()
            .filter(|id| seen.insert(id.as_str()))
            .cloned()
            .collect()
    };
    if named.is_empty() {
        return Err(ReviewError::Empty {
            filters: request.filters.options(),
        }
        .into());
    }
    let target = request.duplicate_of.as_deref().or(request.by.as_deref());
    for id in &named {
        if curated.contains(id.as_str()) {
            // A verified record is superseded or retired, never rejected: say which.
            let instead = match act {
                // `promote <id> --supersedes ... --commit` killed after the promotion: the
                // single act finishes what it supersedes (then `next:` commits it).
                Act::Promote
                    if super::review::promoted_supersedes_left(ctx, id, &request.supersedes)?
                        .is_some() =>
                {
                    Some(format!(
                        "majordomus knowledge promote {id}{} </dev/null",
                        request
                            .supersedes
                            .iter()
                            .map(|s| format!(" --supersedes {s}"))
                            .collect::<String>()
                    ))
                }
                Act::Promote => None,
                Act::Reject => Some(super::end::instead_of_reject(
                    ctx,
                    id,
                    target,
                    if reason.is_empty() {
                        "a near duplicate of the record that supersedes it"
                    } else {
                        &reason
                    },
                )),
            };
            return Err(Refusal::AlreadyPromoted {
                id: id.clone(),
                fix: instead,
            }
            .into());
        }
        if !pending.contains_key(id.as_str()) {
            return Err(Refusal::UnknownKnowledge { id: id.clone() }.into());
        }
    }
    if let Some(t) = target
        && (!known.contains(t) || (named.len() == 1 && named[0] == t))
    {
        return Err(Refusal::UnknownReplacement { id: t.to_owned() }.into());
    }

    // Each named candidate decides its review item: promote the newest named member, the
    // others rejected as its duplicates; reject every member.
    let (promote_ids, reject_ids) = decide(act, &listing, &named, target);
    let mut planned_promotes = Vec::new();
    let mut planned_rejects = Vec::new();
    for (id, duplicate_of) in promote_ids
        .iter()
        .map(|id| (id, None))
        .chain(reject_ids.iter().map(|(id, d)| (id, d.clone())))
    {
        let file = (*pending
            .get(id.as_str())
            .ok_or_else(|| Refusal::UnknownKnowledge { id: id.clone() })?)
        .clone();
        let (record, body) = file.parse().map_err(|m| malformed(&file, m))?;
        if record.status == Status::Superseded {
            return Err(Refusal::SupersededCandidate { id: id.clone() }.into());
        }
        let body = body.to_owned();
        let is_promote = duplicate_of.is_none() && promote_ids.contains(id);
        let planned = Planned {
            superseded_by: if is_promote {
                None
            } else {
                duplicate_of.clone().or_else(|| target.map(str::to_owned))
            },
            duplicate_of: if is_promote {
                None
            } else {
                duplicate_of.or_else(|| request.duplicate_of.clone())
            },
            file,
            record,
            body,
        };
        if is_promote {
            planned_promotes.push(planned);
        } else {
            planned_rejects.push(planned);
        }
    }

    // What the promoted record supersedes, checked with the rest.
    let ending = match planned_promotes.first() {
        Some(p) if !request.supersedes.is_empty() => Some(super::end::plan(
            ctx,
            &super::review::each_once(&request.supersedes),
            Some(&p.record.id),
            crate::model::knowledge::Why::Given(&super::review::superseded_by_promotion(
                &p.record.title,
            )),
            Some(&p.record.id),
        )?),
        _ => None,
    };

    // The paths the review changes, and what each was before: what a commit may hold.
    let curated_dir = ctx.layout.curated_dir();
    let mut before: BTreeMap<String, Option<String>> = BTreeMap::new();
    if let Some(plan) = &ending {
        before.extend(plan.before(ctx)?);
    }
    for p in &planned_promotes {
        let to = ctx.layout.record_in(&curated_dir, &p.record.id)?;
        before.insert(ctx.layout.display(&to), None);
        before.insert(
            p.file.rel.clone(),
            Some(ctx.repo.blob_id(p.file.text.as_bytes())?),
        );
    }
    for p in &planned_rejects {
        before.insert(
            p.file.rel.clone(),
            Some(ctx.repo.blob_id(p.file.text.as_bytes())?),
        );
    }
    before.retain(|path, _| path.starts_with(KNOWLEDGE_DIR));
    if request.commit {
        super::end::commit_blocked(ctx, &before)?;
    }

    // Everything is checked: write.
    let session = ctx.episode()?.map(|e| e.id);
    let promoted_by = if planned_promotes.is_empty() {
        None
    } else {
        super::review::promoter(ctx, session.as_deref())
    };
    let mut known_refs = None;
    let mut promoted = Vec::new();
    for p in planned_promotes {
        let Planned {
            file,
            mut record,
            body,
            ..
        } = p;
        record.status = Status::Verified;
        if let Some(class) = request.class {
            record.class = class;
        }
        if let Some(open) = &session {
            let r = format!("session:{open}");
            if !record.provenance.derived_from.contains(&r) {
                record.provenance.derived_from.push(r);
            }
        }
        successors_known(ctx, &mut known_refs, &mut record.provenance.derived_from)?;
        let instruction_shapes =
            crate::model::inject::shapes(&format!("{}\n{body}\n{evidence}", record.title));
        let body = format!(
            "{}\n# Evidence\n\n{evidence}\n",
            body.trim_end_matches('\n').to_owned() + "\n"
        );
        let path = ctx.layout.record_in(&curated_dir, &record.id)?;
        write_atomic(&path, frontmatter::render(&record, &body).as_bytes())?;
        let rel = ctx.layout.display(&path);
        ctx.append(
            session.as_deref(),
            None,
            &KnowledgePromoted {
                id: record.id.clone(),
                class: record.class,
                path: rel.clone(),
                from: file.rel.clone(),
                promoted_by: promoted_by.clone(),
            },
        )?;
        std::fs::remove_file(&file.path).map_err(|e| StoreError::io(&file.path, e))?;
        promoted.push(ReviewedRecord {
            id: record.id,
            title: record.title,
            path: rel,
            from: Some(file.rel),
            superseded_by: None,
            duplicate_of: None,
            instruction_shapes,
        });
    }
    let mut rejected = Vec::new();
    for p in planned_rejects {
        let Planned {
            file,
            mut record,
            body,
            superseded_by,
            duplicate_of,
        } = p;
        let reason = match (&duplicate_of, reason.is_empty()) {
            (Some(of), true) => format!("A near duplicate of {of}, which supersedes it."),
            _ => reason.clone(),
        };
        record.status = Status::Superseded;
        record.superseded_by = superseded_by.clone();
        let body = format!(
            "{}\n# Rejected\n\n{reason}\n",
            body.trim_end_matches('\n').to_owned() + "\n"
        );
        write_atomic(&file.path, frontmatter::render(&record, &body).as_bytes())?;
        append_rejected(
            ctx,
            &record.id,
            &reason,
            superseded_by.as_deref(),
            &file.rel,
        )?;
        rejected.push(ReviewedRecord {
            id: record.id,
            title: record.title,
            path: file.rel,
            from: None,
            superseded_by,
            duplicate_of,
            instruction_shapes: Vec::new(),
        });
    }
    let ending_lines = ending.as_ref().map(super::end::Plan::message_lines);
    let superseded = match ending {
        Some(plan) => super::end::write(ctx, plan)?.records,
        None => Vec::new(),
    };
    drop(lock);

    let mut message = message_of(&promoted, &rejected);
    if let Some(lines) = ending_lines {
        message = message.replacen("\n\n", &format!(", supersede {}\n\n", superseded.len()), 1);
        message.push_str(&lines);
    }
    let paths: Vec<String> = before.keys().cloned().collect();
    let (commit, next) = commit_or_next(ctx, request.commit, paths, &message)?;
    let warnings = if promoted.is_empty() {
        Vec::new()
    } else {
        let mine: BTreeSet<&str> = promoted.iter().map(|p| p.path.as_str()).collect();
        super::check(ctx, super::CheckRequest {})?
            .findings
            .into_iter()
            .filter(|f| mine.contains(f.file.as_str()))
            .collect()
    };
    redacted.sort();
    redacted.dedup();
    Ok(Reviewed {
        act,
        promoted,
        rejected,
        message,
        commit,
        next,
        redacted,
        warnings,
        promoted_by,
        superseded,
    })
}

/// Which of the listed candidates are promoted and which rejected (each with the record
/// it is a duplicate of, when folding decided it), for `named` acted on by `act`.
fn decide(
    act: Act,
    listing: &CandidateListing,
    named: &[String],
    target: Option<&str>,
) -> (Vec<String>, Vec<(String, Option<String>)>) {
    // The members of each review item, in queue order (the head last).
    let mut item_of: HashMap<&str, &str> = HashMap::new();
    let mut members: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in &listing.candidates {
        let head = c.folded_under.as_deref().unwrap_or(&c.id);
        item_of.insert(&c.id, head);
        members.entry(head).or_default().push(&c.id);
    }
    let mut promote = Vec::new();
    let mut reject = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut item_order: Vec<&str> = Vec::new();
    let mut named_in: HashMap<&str, Vec<&str>> = HashMap::new();
    for id in named {
        // A candidate the listing does not know (only in another tree) is its own item.
        let head = item_of.get(id.as_str()).copied().unwrap_or(id.as_str());
        if !named_in.contains_key(head) {
            item_order.push(head);
        }
        named_in.entry(head).or_default().push(id.as_str());
    }
    for head in item_order {
        let all: Vec<&str> = members.get(head).cloned().unwrap_or_else(|| vec![head]);
        match act {
            Act::Promote => {
                // The newest named member: the item's order is the queue's, newest last.
                let chosen = all
                    .iter()
                    .rev()
                    .find(|m| named_in[head].contains(m))
                    .copied()
                    .unwrap_or(head);
                promote.push(chosen.to_owned());
                done.insert(chosen);
                for m in all {
                    if done.insert(m) {
                        reject.push((m.to_owned(), Some(chosen.to_owned())));
                    }
                }
            }
            Act::Reject => {
                for m in all {
                    if Some(m) != target && done.insert(m) {
                        reject.push((m.to_owned(), None));
                    }
                }
            }
        }
    }
    (promote, reject)
}

/// `majordomus: review — promote 3, reject 2`, then one line per act.
fn message_of(promoted: &[ReviewedRecord], rejected: &[ReviewedRecord]) -> String {
    let mut counts = Vec::new();
    if !promoted.is_empty() {
        counts.push(format!("promote {}", promoted.len()));
    }
    if !rejected.is_empty() {
        counts.push(format!("reject {}", rejected.len()));
    }
    let mut out = format!("majordomus: review — {}\n\n", counts.join(", "));
    for p in promoted {
        out.push_str(&format!("promote {} {}\n", p.id, p.title));
    }
    for r in rejected {
        match &r.duplicate_of {
            Some(of) => out.push_str(&format!(
                "reject {} {} (duplicate of {of})\n",
                r.id, r.title
            )),
            None => out.push_str(&format!("reject {} {}\n", r.id, r.title)),
        }
    }
    out
}

/// With `commit`, one commit of exactly `paths` with `message`; without it (or with no path),
/// the one command that commits them (`next_of`).
pub(super) fn commit_or_next(
    ctx: &Ctx,
    commit: bool,
    paths: Vec<String>,
    message: &str,
) -> Result<(Option<ReviewCommit>, Option<String>), Error> {
    if commit && !paths.is_empty() {
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let written = ctx.repo.commit_paths(&refs, message)?;
        Ok((
            Some(ReviewCommit {
                id: written.id,
                branch: written.branch,
                paths,
            }),
            None,
        ))
    } else {
        Ok((None, next_of(ctx, &paths, message)?))
    }
}

/// The one command that commits the review's paths: each path git can stage (in the
/// work tree, or removed from the index), or past [`NEXT_PATHS`] the knowledge directory.
pub(super) fn next_of(ctx: &Ctx, paths: &[String], message: &str) -> Result<Option<String>, Error> {
    let tracked: BTreeSet<String> = ctx
        .repo
        .tracked_files_under(KNOWLEDGE_DIR)?
        .into_iter()
        .collect();
    let stageable: Vec<&String> = paths
        .iter()
        .filter(|p| tracked.contains(*p) || ctx.layout.root().join(p).exists())
        .collect();
    if stageable.is_empty() {
        return Ok(None);
    }
    let title = message.lines().next().unwrap_or_default();
    let add = if stageable.len() > NEXT_PATHS {
        "git add -A .ai/repo/knowledge".to_owned()
    } else {
        format!(
            "git add -A -- {}",
            stageable
                .iter()
                .map(|p| crate::model::shell::quote(p).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    Ok(Some(format!(
        "{add} && git commit -m {}",
        crate::model::shell::quote(title)
    )))
}
