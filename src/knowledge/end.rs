//! `knowledge supersede` and `knowledge retire` (SPEC §5.2, human acts): a verified record
//! leaves what is claimed — replaced by another record (`superseded_by`), or retired with
//! a reason — as `status: superseded` with a `# Superseded` section saying who, when and
//! why, and one ledger line per record. Many ids or the selection `knowledge verified`
//! lists; every record is checked before the first is written; `commit` writes one commit
//! of exactly their paths. `knowledge promote <new> --supersedes <old>` uses the same plan
//! and writes (`plan`, `write`).

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::batch::{KNOWLEDGE_DIR, ReviewCommit, commit_or_next};
use super::verified::VerifiedRequest;
use crate::Ctx;
use crate::error::Error;
use crate::git::{CommitBlocker, PathBefore};
use crate::model::event::{KnowledgeRetired, KnowledgeSuperseded};
use crate::model::ids::IdKind;
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::knowledge::{
    EndAct, EndError, EndedHow, KnowledgeRecord, ReviewError, SUPERSEDED_HEADING, Status, Why,
    ended_alike, ended_body, ended_paragraph, reject_command, reject_fix, retire_command,
    retire_fix, supersede_command, supersede_fix,
};
use crate::model::redact::redact;
use crate::store::records::{Place, StoredFile, stored_files};
use crate::store::{KnowledgeLock, frontmatter, write_atomic};

/// `knowledge.supersede` (a human act).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeSupersedeRequest")]
pub struct SupersedeRequest {
    /// The verified records it replaces, by id. Not with `all_listed`.
    #[serde(default)]
    pub ids: Vec<String>,
    /// Every record `knowledge verified` lists with `filters`.
    #[serde(default)]
    pub all_listed: bool,
    /// The filters of `knowledge verified` that `all_listed` takes.
    #[serde(default)]
    pub filters: VerifiedRequest,
    /// The verified record that replaces them.
    pub by: String,
    /// Why (the CLI reads it from stdin).
    #[serde(default)]
    pub reason: String,
    /// Write one commit on the current branch holding only the records' paths.
    #[serde(default)]
    pub commit: bool,
}

/// `knowledge.retire` (a human act).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "KnowledgeRetireRequest")]
pub struct RetireRequest {
    /// The verified records that no longer hold, by id. Not with `all_listed`.
    #[serde(default)]
    pub ids: Vec<String>,
    /// Every record `knowledge verified` lists with `filters`.
    #[serde(default)]
    pub all_listed: bool,
    /// The filters of `knowledge verified` that `all_listed` takes.
    #[serde(default)]
    pub filters: VerifiedRequest,
    /// Why they no longer hold.
    #[serde(default)]
    pub reason: String,
    /// Write one commit on the current branch holding only the records' paths.
    #[serde(default)]
    pub commit: bool,
}

/// One record taken out of what is claimed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EndedRecord {
    pub id: String,
    pub title: String,
    /// The record, from the repository root.
    pub path: String,
    /// The record that replaces it (absent: retired).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// `knowledge.supersede`'s and `knowledge.retire`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "KnowledgeEnded")]
pub struct Ended {
    pub act: EndAct,
    /// In the order they were written.
    pub records: Vec<EndedRecord>,
    /// The record replacing them (supersede).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Who the `# Superseded` sections and the ledger lines name: git's author identity
    /// (`unknown` when git configures none).
    pub decided_by: String,
    /// When (RFC 3339).
    pub at: String,
    /// The commit message: its title, a blank line, one line per record.
    pub message: String,
    /// The commit, when `commit` was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<ReviewCommit>,
    /// Without `commit`: the one command that commits the records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Secret shapes removed from the reason before it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// What an earlier run of this same act, interrupted, had done, when this run finished
    /// it: the records it had ended already (and whose ledger lines this run appended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
}

/// How far an earlier, interrupted run of the same act got with one record.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Progress {
    /// Still verified: this run ends it.
    Live,
    /// Ended by this act (its `# Superseded` paragraph says so, naming `who`) but its
    /// ledger line was never appended: this run appends only the line.
    Unlined { who: String },
    /// Ended by this act, its line there: nothing to do.
    Done,
}

/// One record to take out of what is claimed, read and checked.
pub(crate) struct Planned {
    file: StoredFile,
    record: KnowledgeRecord,
    body: String,
    progress: Progress,
}

/// The records an act will end, all checked, and what it writes into each.
pub(crate) struct Plan {
    by: Option<String>,
    reason: String,
    records: Vec<Planned>,
}

impl Plan {
    /// When every record was ended by this very act already, ledger line and all: the
    /// refusal a rerun gets (nothing is left to finish).
    pub(crate) fn settled(&self) -> Option<Error> {
        let first = self.records.first()?;
        self.records
            .iter()
            .all(|p| p.progress == Progress::Done)
            .then(|| {
                EndError::Ended {
                    id: first.record.id.clone(),
                    how: match &self.by {
                        Some(by) => EndedHow::SupersededBy(by.clone()),
                        None => EndedHow::Retired,
                    },
                }
                .into()
            })
    }

    /// The records' paths and their blob ids now: what a commit of the act may hold.
    pub(crate) fn before(&self, ctx: &Ctx) -> Result<Vec<(String, Option<String>)>, Error> {
        self.records
            .iter()
            .map(|p| {
                Ok((
                    p.file.rel.clone(),
                    Some(ctx.repo.blob_id(p.file.text.as_bytes())?),
                ))
            })
            .collect()
    }

    /// The commit message's lines for these records.
    pub(crate) fn message_lines(&self) -> String {
        let mut out = String::new();
        for p in &self.records {
            match &self.by {
                Some(by) => out.push_str(&format!(
                    "supersede {} {} (by {by})\n",
                    p.record.id, p.record.title
                )),
                None => out.push_str(&format!("retire {} {}\n", p.record.id, p.record.title)),
            }
        }
        out
    }
}

/// How `record` (not verified) left what is claimed.
fn how_ended(record: &KnowledgeRecord, body: &str, place: Place) -> EndedHow {
    match &record.superseded_by {
        Some(by) => EndedHow::SupersededBy(by.clone()),
        None if place == Place::Curated
            || body.lines().any(|l| l.trim_end() == SUPERSEDED_HEADING) =>
        {
            EndedHow::Retired
        }
        None => EndedHow::Rejected,
    }
}

/// The record a chain of `superseded_by` ends at, from `start` (none when it ends at a
/// retired or missing record, or loops).
fn live_end(files: &[StoredFile], start: &str) -> Option<String> {
    let mut at = start.to_owned();
    let mut seen = BTreeSet::new();
    while seen.insert(at.clone()) {
        let file = files
            .iter()
            .find(|f| f.place == Place::Curated && f.stem == at)?;
        let (record, _) = file.parse().ok()?;
        match (record.status, record.superseded_by) {
            (Status::Verified, _) => return Some(at),
            (Status::Superseded, Some(next)) => at = next,
            _ => return None,
        }
    }
    None
}

/// An id an act takes: a verified record's, so a wrong shape is answered with the listing
/// of those (`knowledge verified`), not of candidates.
fn check_shape(id: &str) -> Result<(), Error> {
    if IdKind::Knowledge.accepts(id) {
        Ok(())
    } else {
        Err(EndError::Shape {
            id: id.to_owned(),
            example: IdKind::Knowledge.example(),
        }
        .into())
    }
}

/// Whether the ledger holds the line of this act for `id` (its reason as given).
fn lined(ctx: &Ctx, id: &str, by: Option<&str>, reason: &str) -> Result<bool, Error> {
    let n = match by {
        Some(by) => super::review::recorded_lines(ctx, |p: &KnowledgeSuperseded| {
            p.id == id && p.superseded_by == by && p.reason == reason
        })?,
        None => super::review::recorded_lines(ctx, |p: &KnowledgeRetired| {
            p.id == id && p.reason == reason
        })?,
    };
    Ok(n > 0)
}

/// How far this act got with the ended record `record` in an earlier run: `None` when it
/// was ended otherwise (another act, another replacement, another reason).
fn progress_of(
    ctx: &Ctx,
    record: &KnowledgeRecord,
    body: &str,
    by: Option<&str>,
    why: Why<'_>,
) -> Result<Option<Progress>, Error> {
    let Why::Given(reason) = why else {
        return Ok(None);
    };
    if record.status != Status::Superseded || record.superseded_by.as_deref() != by {
        return Ok(None);
    }
    let Some(who) = ended_alike(body, by, reason) else {
        return Ok(None);
    };
    Ok(Some(if lined(ctx, &record.id, by, reason)? {
        Progress::Done
    } else {
        Progress::Unlined { who }
    }))
}

/// The records in `curated/` this act ended in an earlier run without their ledger line:
/// what a rerun of an `--all-listed` act (which lists only what is still verified) also
/// finishes.
fn unlined(ctx: &Ctx, by: Option<&str>, why: Why<'_>) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for file in stored_files(&ctx.layout)?
        .iter()
        .filter(|f| f.place == Place::Curated)
    {
        let Ok((record, body)) = file.parse() else {
            continue;
        };
        if let Some(Progress::Unlined { .. }) = progress_of(ctx, &record, body, by, why)? {
            out.push(record.id);
        }
    }
    Ok(out)
}

/// Checks every id of an act before anything is written — and before its reason, so the
/// first refusal printed is the one that stands: each a verified record in `curated/` (a
/// candidate is rejected instead, an ended record is refused), `by` a verified record that
/// is none of them — or, for `promote --supersedes`, the candidate `pending` being promoted
/// in the same act. `why` is the reason as the fixes print it. A record this same act
/// ended in an earlier, interrupted run is planned as far as that run got (its line alone,
/// or nothing): see [`Plan::settled`].
pub(crate) fn plan(
    ctx: &Ctx,
    ids: &[String],
    by: Option<&str>,
    why: Why<'_>,
    pending: Option<&str>,
) -> Result<Plan, Error> {
    for id in ids.iter().map(String::as_str).chain(by) {
        check_shape(id)?;
    }
    if let Some(by) = by
        && ids.iter().any(|id| id == by)
    {
        let others: Vec<String> = ids.iter().filter(|id| *id != by).cloned().collect();
        // The others can still be superseded by it; alone, it can only be retired — or,
        // when that act would be refused too, that refusal's fix.
        let fix = if others.is_empty() {
            let alone = [by.to_owned()];
            match plan(ctx, &alone, None, why, pending) {
                Ok(_) => retire_fix(&alone, why),
                Err(e) => e
                    .fix()
                    .unwrap_or_else(|| "majordomus knowledge verified".into()),
            }
        } else {
            match plan(ctx, &others, Some(by), why, pending) {
                Ok(_) => supersede_fix(&others, by, why),
                Err(e) => e
                    .fix()
                    .unwrap_or_else(|| "majordomus knowledge verified".into()),
            }
        };
        return Err(EndError::Itself {
            id: by.to_owned(),
            fix,
        }
        .into());
    }
    let files = stored_files(&ctx.layout)?;
    let mut records = Vec::new();
    for id in ids {
        let Some(file) = files
            .iter()
            .find(|f| f.place == Place::Curated && &f.stem == id)
        else {
            if files.iter().any(|f| &f.stem == id) {
                let fix = match by {
                    // `promote <new> --supersedes <candidate>`: nothing is promoted yet;
                    // the candidate is rejected as replaced by the one to promote.
                    Some(by) if Some(by) == pending => {
                        reject_command(id, Some(by), &format!("replaced by {by}"))
                    }
                    _ => reject_fix(id, by, why),
                };
                return Err(EndError::Candidate {
                    id: id.clone(),
                    fix,
                }
                .into());
            }
            return Err(EndError::Unknown { id: id.clone() }.into());
        };
        let (record, body) = file
            .parse()
            .map_err(|m| super::review::malformed(file, m))?;
        let progress = match record.status {
            Status::Verified => Progress::Live,
            Status::Superseded => match progress_of(ctx, &record, body, by, why)? {
                Some(progress) => progress,
                None => {
                    return Err(EndError::Ended {
                        id: id.clone(),
                        how: how_ended(&record, body, file.place),
                    }
                    .into());
                }
            },
            // A curated file claiming `candidate` was never promoted: `knowledge check`
            // names it; it claims nothing.
            Status::Candidate => {
                return Err(EndError::Candidate {
                    id: id.clone(),
                    fix: "majordomus knowledge check".into(),
                }
                .into());
            }
        };
        let body = body.to_owned();
        records.push(Planned {
            file: file.clone(),
            record,
            body,
            progress,
        });
    }
    if let Some(by) = by
        && Some(by) != pending
    {
        match files
            .iter()
            .find(|f| f.place == Place::Curated && f.stem == by)
        {
            Some(file) => {
                let (record, body) = file
                    .parse()
                    .map_err(|m| super::review::malformed(file, m))?;
                if record.status != Status::Verified {
                    let fix = match live_end(&files, by) {
                        Some(end) if !ids.contains(&end) => supersede_fix(ids, &end, why),
                        _ => "majordomus knowledge verified".into(),
                    };
                    return Err(EndError::ReplacementEnded {
                        by: by.to_owned(),
                        how: how_ended(&record, body, file.place),
                        fix,
                    }
                    .into());
                }
            }
            None if files.iter().any(|f| f.stem == by) => {
                return Err(EndError::ReplacementCandidate {
                    by: by.to_owned(),
                    old: ids.to_vec(),
                }
                .into());
            }
            None => {
                return Err(EndError::ReplacementUnknown { by: by.to_owned() }.into());
            }
        }
    }
    Ok(Plan {
        by: by.map(str::to_owned),
        reason: match why {
            Why::Given(reason) => reason.to_owned(),
            Why::Missing => String::new(),
        },
        records,
    })
}

/// What a rejection of the verified record `id` offers instead: the supersede (by `by`) or
/// the retire that does what was asked — or, when that act would be refused too, the fix of
/// that refusal (a candidate `by` is promoted superseding it, say). Works as printed.
pub(crate) fn instead_of_reject(ctx: &Ctx, id: &str, by: Option<&str>, reason: &str) -> String {
    let ids = [id.to_owned()];
    let refused = match plan(ctx, &ids, by, Why::Given(reason), None) {
        Ok(plan) => plan.settled(),
        Err(e) => Some(e),
    };
    match (refused, by) {
        (Some(e), _) => e
            .fix()
            .unwrap_or_else(|| "majordomus knowledge verified".into()),
        (None, Some(by)) => supersede_command(&ids, by, reason),
        (None, None) => retire_command(&ids, reason),
    }
}

/// Who an act names: git's author identity, else `unknown`.
fn decided_by(ctx: &Ctx) -> String {
    ctx.repo
        .user_identity()
        .unwrap_or_else(|| "unknown".to_owned())
}

/// What an act wrote: the records, who it names and when.
pub(crate) struct Written {
    pub records: Vec<EndedRecord>,
    pub decided_by: String,
    pub at: String,
    /// What an earlier, interrupted run of the act had done (see [`Ended::resumed`]).
    pub resumed: Option<String>,
}

/// Writes every planned record (`status: superseded`, `superseded_by`, `# Superseded`) and
/// its ledger line, in order; of a record an earlier run of the act ended, only the line
/// it did not append. The caller holds the knowledge lock.
pub(crate) fn write(ctx: &Ctx, plan: Plan) -> Result<Written, Error> {
    let who = decided_by(ctx);
    let at = ctx.now();
    let session = ctx.episode()?.map(|e| e.id);
    let paragraph = ended_paragraph(
        plan.by.as_deref(),
        &at,
        &who,
        session.as_deref(),
        &plan.reason,
    );
    let mut out = Vec::new();
    let (mut unlined, mut done, mut live) = (Vec::new(), Vec::new(), Vec::new());
    for p in plan.records {
        let Planned {
            file,
            mut record,
            body,
            progress,
        } = p;
        // Who the line names: this run's person, or whom the record already names.
        let decided = match progress {
            Progress::Done => {
                done.push(record.id.clone());
                None
            }
            Progress::Unlined { who } => {
                unlined.push(record.id.clone());
                Some(who)
            }
            Progress::Live => {
                live.push(record.id.clone());
                record.status = Status::Superseded;
                record.superseded_by.clone_from(&plan.by);
                let body = ended_body(&body, &paragraph);
                // The record, then its line: killed between the two, a rerun of the act
                // finds the record ended by it and appends the line (`Progress::Unlined`).
                write_atomic(&file.path, frontmatter::render(&record, &body).as_bytes())?;
                Some(who.clone())
            }
        };
        if let Some(decided_by) = decided {
            match &plan.by {
                Some(by) => ctx.append(
                    session.as_deref(),
                    None,
                    &KnowledgeSuperseded {
                        id: record.id.clone(),
                        superseded_by: by.clone(),
                        reason: plan.reason.clone(),
                        path: file.rel.clone(),
                        decided_by,
                    },
                )?,
                None => ctx.append(
                    session.as_deref(),
                    None,
                    &KnowledgeRetired {
                        id: record.id.clone(),
                        reason: plan.reason.clone(),
                        path: file.rel.clone(),
                        decided_by,
                    },
                )?,
            };
        }
        out.push(EndedRecord {
            id: record.id,
            title: record.title,
            path: file.rel,
            superseded_by: plan.by.clone(),
        });
    }
    let (act, done_word) = match plan.by {
        Some(_) => ("supersede", "superseded"),
        None => ("retire", "retired"),
    };
    let resumed = (!unlined.is_empty() || !done.is_empty()).then(|| {
        let mut parts = Vec::new();
        if !unlined.is_empty() {
            parts.push(format!(
                "{} had been {done_word} without its knowledge.{done_word} line, which this run appended",
                unlined.join(", ")
            ));
        }
        if !done.is_empty() {
            parts.push(format!(
                "{} had been {done_word}, its line written",
                done.join(", ")
            ));
        }
        if !live.is_empty() {
            parts.push(format!("this run {done_word} {}", live.join(", ")));
        }
        format!(
            "an earlier {act} of these records was interrupted: {}",
            parts.join("; ")
        )
    });
    Ok(Written {
        records: out,
        decided_by: who,
        at,
        resumed,
    })
}

/// The reason as it will be written (secret shapes redacted), refused when it is empty or
/// only a template placeholder; `again` is the command to run with a reason written in.
pub(crate) fn reason_of(
    act: EndAct,
    given: &str,
    again: impl FnOnce() -> String,
    redacted: &mut Vec<String>,
) -> Result<String, Error> {
    check_size("reason", given, TEXT_LIMIT)?;
    let cleaned = redact(given.trim());
    redacted.extend(cleaned.shapes.iter().map(|s| (*s).to_owned()));
    let reason = cleaned.text.trim().to_owned();
    let why = if reason.is_empty() {
        Some("it is empty")
    } else if crate::model::knowledge::placeholder(&reason).is_some() {
        Some("it is only a template placeholder")
    } else {
        None
    };
    match why {
        Some(why) => Err(EndError::Reason {
            act,
            why,
            fix: format!(
                "by hand: replace the text in angle brackets, then run: {}",
                again()
            ),
        }
        .into()),
        None => Ok(reason),
    }
}

/// What an act selects: ids, or what `knowledge verified` lists with the filters.
struct Selection<'a> {
    ids: &'a [String],
    all_listed: bool,
    filters: &'a VerifiedRequest,
}

impl Selection<'_> {
    /// The ids or the selection as the command line says it.
    fn said(&self) -> String {
        if self.all_listed {
            format!("--all-listed{}", self.filters.options())
        } else {
            self.ids.join(" ")
        }
    }

    /// Refuses ids with a selection, and neither.
    fn check(&self) -> Result<(), Error> {
        if !self.ids.is_empty() && (self.all_listed || self.filters.narrows()) {
            return Err(EndError::Mixed.into());
        }
        if self.ids.is_empty() && !self.all_listed {
            return Err(EndError::NoSelection {
                filters: self.filters.options(),
            }
            .into());
        }
        for id in self.ids {
            check_shape(id)?;
        }
        Ok(())
    }

    /// The ids it names, each once. A rerun of an `--all-listed` act also names the
    /// records an interrupted run of it ended without their line (`knowledge verified` no
    /// longer lists them), first, as that run wrote them first.
    fn ids(&self, ctx: &Ctx, by: Option<&str>, why: Why<'_>) -> Result<Vec<String>, Error> {
        let named: Vec<String> = if self.all_listed {
            let mut named = unlined(ctx, by, why)?;
            named.extend(
                super::verified::verified(ctx, self.filters.clone())?
                    .records
                    .into_iter()
                    .map(|v| v.id),
            );
            named
        } else {
            let mut seen = BTreeSet::new();
            self.ids
                .iter()
                .filter(|id| seen.insert(id.as_str()))
                .cloned()
                .collect()
        };
        if named.is_empty() {
            return Err(EndError::Empty {
                filters: self.filters.options(),
            }
            .into());
        }
        Ok(named)
    }
}

/// The reason as the fixes of refusals before it print it.
fn why_of(reason: &Result<String, Error>) -> Why<'_> {
    match reason {
        Ok(reason) => Why::Given(reason),
        Err(_) => Why::Missing,
    }
}

/// Replaces verified records by another verified record (a human act).
pub fn supersede(ctx: &Ctx, request: SupersedeRequest) -> Result<Ended, Error> {
    let selection = Selection {
        ids: &request.ids,
        all_listed: request.all_listed,
        filters: &request.filters,
    };
    selection.check()?;
    check_shape(&request.by)?;
    let mut redacted = Vec::new();
    // Checked after the ids: a fix for the reason must not lead to a refusal of the ids.
    let reason = reason_of(
        EndAct::Supersede,
        &request.reason,
        || {
            format!(
                "echo \"{}\" | majordomus knowledge supersede {} --by {}",
                crate::model::knowledge::WHY_ENDED,
                selection.said(),
                request.by
            )
        },
        &mut redacted,
    );
    end(
        ctx,
        EndAct::Supersede,
        &selection,
        Some(&request.by),
        reason,
        request.commit,
        redacted,
    )
}

/// Takes verified records that no longer hold out of what is claimed (a human act).
pub fn retire(ctx: &Ctx, request: RetireRequest) -> Result<Ended, Error> {
    let selection = Selection {
        ids: &request.ids,
        all_listed: request.all_listed,
        filters: &request.filters,
    };
    selection.check()?;
    let mut redacted = Vec::new();
    // Checked after the ids: a fix for the reason must not lead to a refusal of the ids.
    let reason = reason_of(
        EndAct::Retire,
        &request.reason,
        || {
            format!(
                "majordomus knowledge retire {} --reason \"{}\"",
                selection.said(),
                crate::model::knowledge::WHY_ENDED
            )
        },
        &mut redacted,
    );
    end(
        ctx,
        EndAct::Retire,
        &selection,
        None,
        reason,
        request.commit,
        redacted,
    )
}

/// Checks the commit a review or an act would write: on a branch, an identity, no staged
/// change of its own to `before`'s paths.
pub(crate) fn commit_blocked(
    ctx: &Ctx,
    before: &BTreeMap<String, Option<String>>,
) -> Result<(), Error> {
    let paths: Vec<PathBefore> = before
        .iter()
        .map(|(path, blob)| PathBefore {
            path: path.clone(),
            blob: blob.clone(),
        })
        .collect();
    match ctx.repo.commit_blocker(&paths)? {
        None => Ok(()),
        Some(CommitBlocker::Detached) => Err(ReviewError::Detached.into()),
        Some(CommitBlocker::NoIdentity) => Err(ReviewError::NoIdentity.into()),
        Some(CommitBlocker::Staged(paths)) => Err(ReviewError::Staged { paths }.into()),
    }
}

fn end(
    ctx: &Ctx,
    act: EndAct,
    selection: &Selection<'_>,
    by: Option<&str>,
    reason: Result<String, Error>,
    commit: bool,
    mut redacted: Vec<String>,
) -> Result<Ended, Error> {
    let lock = KnowledgeLock::acquire(&ctx.layout)?;
    let why = why_of(&reason);
    let ids = selection.ids(ctx, by, why)?;
    let plan = plan(ctx, &ids, by, why, None)?;
    // The ids stand: now the reason.
    reason?;
    if let Some(refused) = plan.settled() {
        return Err(refused);
    }
    let mut before: BTreeMap<String, Option<String>> = plan.before(ctx)?.into_iter().collect();
    before.retain(|path, _| path.starts_with(KNOWLEDGE_DIR));
    if commit {
        commit_blocked(ctx, &before)?;
    }
    let title = match by {
        Some(by) => format!("majordomus: supersede {} by {by}", plan.records.len()),
        None => format!("majordomus: retire {}", plan.records.len()),
    };
    let message = format!("{title}\n\n{}", plan.message_lines());
    let written = write(ctx, plan)?;
    drop(lock);
    let paths: Vec<String> = before.keys().cloned().collect();
    let (commit, next) = commit_or_next(ctx, commit, paths, &message)?;
    redacted.sort();
    redacted.dedup();
    Ok(Ended {
        act,
        records: written.records,
        by: by.map(str::to_owned),
        decided_by: written.decided_by,
        at: written.at,
        message,
        commit,
        next,
        redacted,
        resumed: written.resumed,
    })
}
