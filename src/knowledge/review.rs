//! `knowledge promote` and `knowledge reject` (SPEC §5.2): the human acts. The deriver
//! never undoes either.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::Finding;
use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::LedgerLine;
use crate::model::event::{KnowledgePromoted, KnowledgeRejected, Rewrite};
use crate::model::ids::IdKind;
use crate::model::input::{INPUT_LIMIT, TEXT_LIMIT, check_size};
use crate::model::knowledge::{Class, Markers, Status, Why, evidence_section};
use crate::model::redact::redact;
use crate::store::index::LineQuery;
use crate::store::records::{Place, StoredFile, stored_files};
use crate::store::{KnowledgeLock, StoreError, frontmatter, write_atomic};

/// `knowledge.promote` (a human act).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PromoteRequest {
    /// The candidate id.
    pub id: String,
    /// Change the class the deriver wrote.
    #[serde(default)]
    pub class: Option<Class>,
    /// What shows the claim holds: a test, a file, a command and its output (the CLI
    /// reads it from stdin).
    #[serde(default)]
    pub evidence: String,
    /// Files the evidence names (the CLI's repeatable `--file`), from the repository root:
    /// added to the record as `file:` references. Each must be a file of the work tree or
    /// of HEAD's tree.
    #[serde(default)]
    pub files: Vec<String>,
    /// Verified records this one replaces: each is superseded by it in the same act
    /// (`status: superseded`, `superseded_by`, `# Superseded`, a `knowledge.superseded`
    /// line), all checked before anything is written.
    #[serde(default)]
    pub supersedes: Vec<String>,
    /// The directory the CLI's relative `files` were typed in; never part of an HTTP
    /// request, whose paths are from the root.
    #[serde(skip)]
    pub base: Option<std::path::PathBuf>,
}

/// `knowledge.reject` (a human act).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectRequest {
    /// The candidate id.
    pub id: String,
    /// Why it is rejected.
    pub reason: String,
    /// The knowledge id that replaces it.
    #[serde(default)]
    pub by: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Promoted {
    pub id: String,
    pub class: Class,
    /// The curated record, relative to the root.
    pub path: String,
    /// The candidate file removed by the move.
    pub from: String,
    /// `commit:` references of rewritten commits replaced by their successors.
    pub rewritten: Vec<Rewrite>,
    /// What `knowledge check` says about the promoted record: references that do not
    /// resolve, and the like. Promotion still happened.
    pub warnings: Vec<Finding>,
    /// Secret shapes removed from the evidence before it was written.
    pub redacted: Vec<String>,
    /// The `file:` references `files` added (those the record did not carry already),
    /// sorted; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cited: Vec<String>,
    /// What an earlier, interrupted promotion of this candidate had done, when this run
    /// only finished it (the evidence given to this run is then not used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
    /// Instruction-shaped text in the record now verified, its claim or the evidence
    /// (docs/HOSTILE.md): the person verifying it is told; it is still neutralised
    /// wherever it is injected. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instruction_shapes: Vec<crate::model::inject::Shape>,
    /// With no episode open: who the `knowledge.promoted` line says promoted it (git's
    /// author identity, `unknown` when git configures none). Absent inside an episode,
    /// whose line names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promoted_by: Option<String>,
    /// The verified records it superseded in the same act (`supersedes`). Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<super::end::EndedRecord>,
    /// The near duplicates folded with it in its review item, rejected as its duplicates
    /// (superseded by it) in the same act (SPEC §5.2: one review item, one decision).
    /// Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<String>,
}

/// The reason a record superseded by a promotion carries: the act that replaced it.
pub(crate) fn superseded_by_promotion(title: &str) -> String {
    format!("promoted in its place: {title}")
}

/// The placeholder a promotion's fix prints for evidence a person writes.
const WHAT_SHOWS: &str = "<what shows this holds: a test, a file, a command and its output>";

/// The promotion of `id` as the command line says it, with `evidence` on stdin (given
/// again by `printf`, one argument a line), or — when it is empty or only a placeholder —
/// by hand with the placeholder to replace.
pub(crate) fn promote_command(
    id: &str,
    class: Option<Class>,
    files: &[String],
    supersedes: &[String],
    commit: bool,
    evidence: &str,
) -> String {
    let mut words: Vec<&str> = vec!["majordomus", "knowledge", "promote", id];
    if let Some(class) = class {
        words.extend(["--class", class.name()]);
    }
    for f in files {
        words.extend(["--file", f.as_str()]);
    }
    for s in supersedes {
        words.extend(["--supersedes", s.as_str()]);
    }
    if commit {
        words.push("--commit");
    }
    let command = words
        .iter()
        .map(|w| crate::model::shell::quote(w).into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let cleaned = redact(evidence.trim());
    let evidence = cleaned.text.trim();
    if evidence.is_empty() || crate::model::knowledge::placeholder(evidence).is_some() {
        format!(
            "{}echo \"{WHAT_SHOWS}\" | {command}",
            crate::model::knowledge::BY_HAND
        )
    } else {
        format!(
            "printf '%s\\n' {} | {command}",
            evidence
                .lines()
                .map(|l| crate::model::shell::quote(l).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        )
    }
}

/// Refuses `promote <id> --supersedes <id>` before anything else is looked at: a record
/// cannot supersede itself. The fix is the same promotion without it (the evidence again
/// on stdin); `again` prints it given the `--supersedes` left.
pub(crate) fn supersedes_itself(
    id: &str,
    supersedes: &[String],
    again: impl FnOnce(&[String]) -> String,
) -> Result<(), Error> {
    if !supersedes.iter().any(|s| s == id) {
        return Ok(());
    }
    let others: Vec<String> = each_once(supersedes)
        .into_iter()
        .filter(|s| s != id)
        .collect();
    Err(crate::model::knowledge::EndError::Itself {
        id: id.to_owned(),
        fix: again(&others),
    }
    .into())
}

/// The ids of `supersedes`, each once, in order.
pub(crate) fn each_once(ids: &[String]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    ids.iter()
        .filter(|i| seen.insert(i.as_str()))
        .cloned()
        .collect()
}

/// Who a promotion made with no open episode records as its promoter: git's author
/// identity, else `unknown`. `None` while an episode is open (the line names it).
pub(crate) fn promoter(ctx: &Ctx, session: Option<&str>) -> Option<String> {
    session.is_none().then(|| {
        ctx.repo
            .user_identity()
            .unwrap_or_else(|| "unknown".to_owned())
    })
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Rejected {
    pub id: String,
    pub path: String,
    pub superseded_by: Option<String>,
    /// What an earlier, interrupted rejection of this candidate had done, when this run
    /// only finished it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<String>,
    /// Secret shapes removed from the reason before it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// The near duplicates folded with it in its review item, rejected with it in the same
    /// act, for the same reason. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<String>,
}

/// The other members of `id`'s review item (its near duplicates folded with it, SPEC
/// §5.2), in queue order, as the queue lists them now: read under the knowledge lock, with
/// the act that decides them.
fn item_members(ctx: &Ctx, id: &str) -> Result<Vec<String>, Error> {
    let listing = super::queue::candidates(ctx, super::CandidatesRequest::default())?;
    let Some(named) = listing.candidates.iter().find(|c| c.id == id) else {
        return Ok(Vec::new());
    };
    let head = named.folded_under.as_deref().unwrap_or(&named.id);
    Ok(listing
        .candidates
        .iter()
        .filter(|c| c.id != id && (c.id == head || c.folded_under.as_deref() == Some(head)))
        .map(|c| c.id.clone())
        .collect())
}

/// Rejects the pending candidate `id` with `reason` (superseded by `by`), as one act of
/// the review item another act decides: its file rewritten, its ledger line. A member that
/// is no longer pending (decided since the listing) is passed over.
fn reject_member(ctx: &Ctx, id: &str, reason: &str, by: Option<&str>) -> Result<bool, Error> {
    let Ok(file) = find_candidate(ctx, id, None) else {
        return Ok(false);
    };
    let (mut record, body) = file.parse().map_err(|m| malformed(&file, m))?;
    if record.status == Status::Superseded {
        return Ok(false);
    }
    record.status = Status::Superseded;
    record.superseded_by = by.map(str::to_owned);
    let body = format!(
        "{}\n# Rejected\n\n{reason}\n",
        body.trim_end_matches('\n').to_owned() + "\n"
    );
    write_atomic(&file.path, frontmatter::render(&record, &body).as_bytes())?;
    append_rejected(ctx, id, reason, by, &file.rel)?;
    Ok(true)
}

/// The pending candidate `id`; `instead` is what a promoted one's refusal offers in its
/// place (a rejection's supersede or retire), or none (it shows the record).
fn find_candidate(ctx: &Ctx, id: &str, instead: Option<String>) -> Result<StoredFile, Error> {
    Refusal::check_id(IdKind::Knowledge, id)?;
    let files = stored_files(&ctx.layout)?;
    if files
        .iter()
        .any(|f| f.place == Place::Curated && f.stem == id)
    {
        return Err(Refusal::AlreadyPromoted {
            id: id.to_owned(),
            fix: instead,
        }
        .into());
    }
    files
        .into_iter()
        .find(|f| f.place != Place::Curated && f.stem == id)
        .ok_or_else(|| Refusal::UnknownKnowledge { id: id.to_owned() }.into())
}

/// Refuses evidence that is only a template placeholder, or that quotes a conversation
/// (promote and reverify).
pub(super) fn check_evidence(id: &str, evidence: &str, act: &'static str) -> Result<(), Error> {
    check_evidence_or(id, evidence, act, None)
}

/// [`check_evidence`], a refusal's fix being `fix` when given (the act's own command, its
/// options kept).
pub(super) fn check_evidence_or(
    id: &str,
    evidence: &str,
    act: &'static str,
    fix: Option<String>,
) -> Result<(), Error> {
    if let Some(placeholder) = crate::model::knowledge::placeholder(evidence) {
        return Err(Refusal::EvidencePlaceholder {
            id: id.to_owned(),
            placeholder: placeholder.to_owned(),
            act,
            fix,
        }
        .into());
    }
    if let Some(marker) = Markers::standard().find(evidence) {
        return Err(Refusal::TranscriptMarker {
            what: "evidence".into(),
            marker,
        }
        .into());
    }
    Ok(())
}

pub(super) fn malformed(file: &StoredFile, message: String) -> Error {
    StoreError::Malformed {
        path: file.path.clone(),
        message,
    }
    .into()
}

/// Moves a candidate to `curated/` as `verified`, with the evidence under `# Evidence`.
/// Refuses empty evidence and evidence carrying a transcript marker.
pub fn promote(ctx: &Ctx, request: PromoteRequest) -> Result<Promoted, Error> {
    let PromoteRequest {
        id,
        class,
        evidence,
        files,
        supersedes,
        base,
    } = request;
    let id = id.as_str();
    Refusal::check_id(IdKind::Knowledge, id)?;
    check_size("evidence", &evidence, INPUT_LIMIT)?;
    supersedes_itself(id, &supersedes, |others| {
        promote_command(id, class, &files, others, false, &evidence)
    })?;
    let lock = KnowledgeLock::acquire(&ctx.layout)?;
    if let Some(mut finished) = finish_interrupted_promotion(ctx, id)? {
        // What it was to supersede is superseded now: what the first run had not
        // superseded, and the line of what it had without its line.
        if !supersedes.is_empty() {
            let plan = super::end::plan(
                ctx,
                &each_once(&supersedes),
                Some(id),
                Why::Given(&superseded_by_promotion(&curated_title(ctx, id)?)),
                Some(id),
            )?;
            if plan.settled().is_none() {
                finished.superseded = super::end::write(ctx, plan)?.records;
            }
        }
        drop(lock);
        finished.warnings = warnings_for(ctx, &finished.path)?;
        return Ok(finished);
    }
    if let Some(mut finished) = finish_promoted_supersedes(ctx, id, &supersedes)? {
        drop(lock);
        finished.warnings = warnings_for(ctx, &finished.path)?;
        return Ok(finished);
    }
    let file = find_candidate(ctx, id, None)?;
    // Its review item, looked up under the lock that the act holds.
    let members = item_members(ctx, id)?;
    let parsed = file.parse();
    let cleaned = redact(evidence.trim());
    // A candidate that already claims `verified` under its own `# Evidence` (knowledge
    // check's `knowledge.candidate-verified`, whose fix is this command with nothing on
    // stdin): that section is the evidence, and it stays where it is.
    let own = match &parsed {
        Ok((record, body))
            if cleaned.text.trim().is_empty() && record.status == Status::Verified =>
        {
            evidence_section(body).map(str::to_owned)
        }
        _ => None,
    };
    let evidence = own.as_deref().unwrap_or(cleaned.text.trim());
    // Refused for its evidence, the fix is this promotion with the evidence to write in:
    // `--supersedes`, `--class` and `--file` kept (a fix that dropped `--supersedes` would
    // promote the new record and leave the old one claimed).
    let again = (class.is_some() || !files.is_empty() || !supersedes.is_empty())
        .then(|| promote_command(id, class, &files, &supersedes, false, ""));
    if evidence.is_empty() {
        return Err(Refusal::EvidenceRequired {
            id: id.to_owned(),
            fix: again,
        }
        .into());
    }
    check_evidence_or(id, evidence, "promote", again)?;
    let (mut record, body) = parsed.map_err(|m| malformed(&file, m))?;
    if record.status == Status::Superseded {
        return Err(Refusal::SupersededCandidate { id: id.to_owned() }.into());
    }
    let class_name = class.map(Class::name);
    let options: Vec<(&str, &str)> = class_name.map(|c| ("--class", c)).into_iter().collect();
    let given = crate::authored::cited::cited_files(
        ctx,
        &crate::authored::cited::Citing {
            given: &files,
            base: base.as_deref(),
            texts: &[],
        },
        crate::authored::cited::Fix {
            command: &["majordomus", "knowledge", "promote"],
            arguments: &[id],
            options: &options,
            files: &files,
            stdin: Some(evidence),
        },
    )?;
    // What it supersedes is checked with the rest, before anything is written.
    let ending = if supersedes.is_empty() {
        None
    } else {
        Some(super::end::plan(
            ctx,
            &each_once(&supersedes),
            Some(id),
            Why::Given(&superseded_by_promotion(&record.title)),
            Some(id),
        )?)
    };
    record.status = Status::Verified;
    if let Some(class) = class {
        record.class = class;
    }
    let session = ctx.episode()?.map(|e| e.id);
    if let Some(open) = &session {
        let r = format!("session:{open}");
        if !record.provenance.derived_from.contains(&r) {
            record.provenance.derived_from.push(r);
        }
    }
    // Added after what the record carries, in path order; one it carries is not repeated.
    let mut cited = Vec::new();
    for f in given {
        let r = format!("file:{}", f.path);
        if !record.provenance.derived_from.contains(&r) {
            record.provenance.derived_from.push(r.clone());
            cited.push(r);
        }
    }
    let rewritten = successors(ctx, &mut record.provenance.derived_from)?;
    let instruction_shapes =
        crate::model::inject::shapes(&format!("{}\n{body}\n{evidence}", record.title));
    let body = if own.is_some() {
        body.trim_end_matches('\n').to_owned() + "\n"
    } else {
        format!(
            "{}\n# Evidence\n\n{evidence}\n",
            body.trim_end_matches('\n').to_owned() + "\n"
        )
    };
    let path = ctx.layout.record_in(&ctx.layout.curated_dir(), id)?;
    // The curated record, then its ledger line, then the candidate goes: a crash between
    // any two leaves both files, which `knowledge promote <id>` finishes (never a line
    // naming a record that is not there, never a promotion the ledger does not know).
    write_atomic(&path, frontmatter::render(&record, &body).as_bytes())?;
    let rel = ctx.layout.display(&path);
    let promoted_by = promoter(ctx, session.as_deref());
    ctx.append(
        session.as_deref(),
        None,
        &KnowledgePromoted {
            id: id.to_owned(),
            class: record.class,
            path: rel.clone(),
            from: file.rel.clone(),
            promoted_by: promoted_by.clone(),
        },
    )?;
    std::fs::remove_file(&file.path).map_err(|e| StoreError::io(&file.path, e))?;
    // The near duplicates folded with it are decided by the same act: rejected as its
    // duplicates, superseded by it.
    let reason = format!("A near duplicate of {id}, which supersedes it.");
    let mut duplicates = Vec::new();
    for member in members {
        if reject_member(ctx, &member, &reason, Some(id))? {
            duplicates.push(member);
        }
    }
    let superseded = match ending {
        Some(plan) => super::end::write(ctx, plan)?.records,
        None => Vec::new(),
    };
    drop(lock);
    let warnings = warnings_for(ctx, &rel)?;
    Ok(Promoted {
        duplicates,
        id: id.to_owned(),
        class: record.class,
        path: rel,
        from: file.rel,
        rewritten,
        warnings,
        redacted: cleaned.shapes.iter().map(|s| (*s).to_owned()).collect(),
        cited,
        resumed: None,
        instruction_shapes,
        promoted_by,
        superseded,
    })
}

/// The title of the curated record `id` ("" when it cannot be read).
fn curated_title(ctx: &Ctx, id: &str) -> Result<String, Error> {
    Ok(stored_files(&ctx.layout)?
        .into_iter()
        .find(|f| f.place == Place::Curated && f.stem == id)
        .and_then(|f| f.parse().ok().map(|(r, _)| r.title))
        .unwrap_or_default())
}

/// `promote <id> --supersedes <old>...` once `id` is promoted (its candidate gone): a run
/// killed after the promotion and before, or in the middle of, what it supersedes. This
/// run supersedes what is left (of a record the first run superseded without its ledger
/// line, only the line). `None` when there is nothing to finish: `id` is no verified
/// record, or what it supersedes is all done, or would be refused (the promotion's own
/// refusal, `knowledge.already-promoted`, then stands).
fn finish_promoted_supersedes(
    ctx: &Ctx,
    id: &str,
    supersedes: &[String],
) -> Result<Option<Promoted>, Error> {
    let Some((plan, record, rel)) = promoted_supersedes_left(ctx, id, supersedes)? else {
        return Ok(None);
    };
    let written = super::end::write(ctx, plan)?;
    let from = ctx
        .layout
        .display(&ctx.layout.record_in(&ctx.layout.candidates_dir(), id)?);
    Ok(Some(Promoted {
        id: id.to_owned(),
        class: record.class,
        path: rel,
        from,
        rewritten: Vec::new(),
        warnings: Vec::new(),
        redacted: Vec::new(),
        cited: Vec::new(),
        instruction_shapes: Vec::new(),
        promoted_by: None,
        duplicates: Vec::new(),
        resumed: Some(format!(
            "{id} was promoted already (an earlier run was interrupted after promoting it); this run finished what it supersedes{}",
            written
                .resumed
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        )),
        superseded: written.records,
    }))
}

/// What `promote <id> --supersedes ...` has left to do once `id` is promoted: the plan of
/// it, the promoted record and its path. `None` when nothing is left (see
/// [`finish_promoted_supersedes`]).
pub(crate) fn promoted_supersedes_left(
    ctx: &Ctx,
    id: &str,
    supersedes: &[String],
) -> Result<
    Option<(
        super::end::Plan,
        crate::model::knowledge::KnowledgeRecord,
        String,
    )>,
    Error,
> {
    if supersedes.is_empty() {
        return Ok(None);
    }
    let files = stored_files(&ctx.layout)?;
    if files
        .iter()
        .any(|f| f.place != Place::Curated && f.stem == id)
    {
        return Ok(None);
    }
    let Some(curated) = files
        .iter()
        .find(|f| f.place == Place::Curated && f.stem == id)
    else {
        return Ok(None);
    };
    let Ok((record, _)) = curated.parse() else {
        return Ok(None);
    };
    if record.status != Status::Verified {
        return Ok(None);
    }
    let reason = superseded_by_promotion(&record.title);
    let Ok(plan) = super::end::plan(
        ctx,
        &each_once(supersedes),
        Some(id),
        Why::Given(&reason),
        None,
    ) else {
        return Ok(None);
    };
    if plan.settled().is_some() {
        return Ok(None);
    }
    Ok(Some((plan, record, curated.rel.clone())))
}

/// What `knowledge check` says about the record at `rel`.
fn warnings_for(ctx: &Ctx, rel: &str) -> Result<Vec<Finding>, Error> {
    Ok(super::check(ctx, super::CheckRequest {})?
        .findings
        .into_iter()
        .filter(|f| f.file == rel)
        .collect())
}

/// How many ledger lines of the act `P` name the knowledge id `id`.
fn recorded_acts<P: crate::model::Payload>(
    ctx: &Ctx,
    id: &str,
    id_of: impl Fn(&P) -> &str,
) -> Result<usize, Error> {
    recorded_lines(ctx, |p: &P| id_of(p) == id)
}

/// How many ledger lines of the act `P` `matches` says are the one sought.
pub(super) fn recorded_lines<P: crate::model::Payload>(
    ctx: &Ctx,
    matches: impl Fn(&P) -> bool,
) -> Result<usize, Error> {
    let lines = ctx.index()?.lines(&LineQuery {
        event: Some(P::EVENT),
        ..LineQuery::default()
    })?;
    Ok(lines
        .iter()
        .filter_map(LedgerLine::payload::<P>)
        .filter(|p| matches(p))
        .count())
}

/// A promotion killed after writing the curated record and before removing the
/// candidate leaves both: finishes it (the ledger line if it is missing, then the
/// candidate's removal) and says so. `None` when there is nothing to finish.
fn finish_interrupted_promotion(ctx: &Ctx, id: &str) -> Result<Option<Promoted>, Error> {
    let curated_path = ctx.layout.record_in(&ctx.layout.curated_dir(), id)?;
    if !curated_path.exists() {
        return Ok(None);
    }
    let files = stored_files(&ctx.layout)?;
    let Some(copy) = files
        .iter()
        .find(|f| f.place != Place::Curated && f.stem == id)
    else {
        return Ok(None);
    };
    // A rejected copy is a person's other act, not half of this one.
    if copy
        .parse()
        .is_ok_and(|(r, _)| r.status == Status::Superseded)
    {
        return Ok(None);
    }
    let Some(curated) = files
        .iter()
        .find(|f| f.place == Place::Curated && f.stem == id)
    else {
        return Ok(None);
    };
    let (record, _) = curated.parse().map_err(|m| malformed(curated, m))?;
    let recorded = recorded_acts(ctx, id, |p: &KnowledgePromoted| p.id.as_str())? > 0;
    let mut promoted_by = None;
    if !recorded {
        let session = ctx.episode()?.map(|e| e.id);
        promoted_by = promoter(ctx, session.as_deref());
        ctx.append(
            session.as_deref(),
            None,
            &KnowledgePromoted {
                id: id.to_owned(),
                class: record.class,
                path: curated.rel.clone(),
                from: copy.rel.clone(),
                promoted_by: promoted_by.clone(),
            },
        )?;
    }
    std::fs::remove_file(&copy.path).map_err(|e| StoreError::io(&copy.path, e))?;
    Ok(Some(Promoted {
        id: id.to_owned(),
        class: record.class,
        path: curated.rel.clone(),
        from: copy.rel.clone(),
        rewritten: Vec::new(),
        warnings: Vec::new(),
        redacted: Vec::new(),
        cited: Vec::new(),
        instruction_shapes: Vec::new(),
        promoted_by,
        superseded: Vec::new(),
        duplicates: Vec::new(),
        resumed: Some(format!(
            "an earlier promotion of {id} was interrupted after writing {}; this run {}removed {} (the evidence given now was not used: the curated record keeps the first run's)",
            curated.rel,
            if recorded {
                String::new()
            } else {
                "appended its knowledge.promoted line and ".to_owned()
            },
            copy.rel
        )),
    }))
}

/// Replaces each `commit:` reference to a commit git rewrote (`commit.rewritten`: an amend
/// or a rebase) with its successor when this clone has it, whether or not the old object
/// is still there (right after an amend it is, until git collects it); returns what it
/// replaced.
fn successors(ctx: &Ctx, refs: &mut [String]) -> Result<Vec<Rewrite>, Error> {
    successors_known(ctx, &mut None, refs)
}

/// [`successors`], with the rewrites read once for many records (`known` is filled on
/// the first record that names a commit).
pub(super) fn successors_known(
    ctx: &Ctx,
    known: &mut Option<super::check::Known>,
    refs: &mut [String],
) -> Result<Vec<Rewrite>, Error> {
    if !refs.iter().any(|r| r.starts_with("commit:")) {
        return Ok(Vec::new());
    }
    if known.is_none() {
        *known =
            Some(super::check::known_references(ctx, &super::check::LedgerRefs::default(), &[])?.0);
    }
    let known = known.as_ref().expect("filled above");
    let wanted: Vec<(usize, String, String)> = refs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let old = r.strip_prefix("commit:")?;
            let (new, _) = known.successor(old)?;
            (new != old).then(|| (i, old.to_owned(), new.to_owned()))
        })
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let present = ctx
        .repo
        .existing_commits(wanted.iter().map(|(_, _, new)| new.as_str()))?;
    let mut replaced = Vec::new();
    for (i, old, new) in wanted {
        if present.contains(&new) {
            refs[i] = format!("commit:{new}");
            replaced.push(Rewrite { old, new });
        }
    }
    Ok(replaced)
}

/// Rewrites a candidate in place as `superseded`: `superseded_by` when `by` names its
/// replacement, and the reason under `# Rejected`.
pub fn reject(ctx: &Ctx, request: RejectRequest) -> Result<Rejected, Error> {
    let id = request.id.as_str();
    let by = request.by.as_deref();
    // Both ids are checked at the edge, before either is looked up (SPEC §0).
    Refusal::check_id(IdKind::Knowledge, id)?;
    if let Some(by) = by {
        Refusal::check_id(IdKind::Knowledge, by)?;
    }
    check_size("reason", &request.reason, TEXT_LIMIT)?;
    let cleaned = redact(request.reason.trim());
    let reason = cleaned.text.trim();
    let redacted: Vec<String> = cleaned.shapes.iter().map(|s| (*s).to_owned()).collect();
    if reason.is_empty() {
        return Err(Refusal::EmptyText { what: "reason" }.into());
    }
    let _lock = KnowledgeLock::acquire(&ctx.layout)?;
    // A verified record is superseded or retired, never rejected: the refusal says which.
    let instead = super::end::instead_of_reject(ctx, id, by, reason);
    let file = find_candidate(ctx, id, Some(instead))?;
    // Its review item, looked up under the lock that the act holds.
    let members = item_members(ctx, id)?;
    if let Some(by) = by {
        let known = stored_files(&ctx.layout)?.iter().any(|f| f.stem == by);
        if !known || by == id {
            return Err(Refusal::UnknownReplacement { id: by.to_owned() }.into());
        }
    }
    let (mut record, body) = file.parse().map_err(|m| malformed(&file, m))?;
    // Superseded with no reason and nothing replacing it (`knowledge check`'s
    // `knowledge.superseded-reason`, whose fix is this command): the rejection writes them.
    let bare = record.superseded_by.is_none()
        && !body
            .lines()
            .any(|l| l == "# Rejected" || l == crate::model::knowledge::SUPERSEDED_HEADING);
    if record.status == Status::Superseded && !bare {
        if record.superseded_by.as_deref() == by
            && body.ends_with(&format!("\n# Rejected\n\n{reason}\n"))
            && recorded_acts(ctx, id, |p: &KnowledgeRejected| p.id.as_str())? == 0
        {
            // This very rejection, killed after rewriting the file and before its ledger
            // line: the line is what is left.
            append_rejected(ctx, id, reason, by, &file.rel)?;
            return Ok(Rejected {
                id: id.to_owned(),
                path: file.rel.clone(),
                superseded_by: by.map(str::to_owned),
                resumed: Some(format!(
                    "an earlier rejection of {id} was interrupted after rewriting {}; this run appended its knowledge.rejected line",
                    file.rel
                )),
                redacted,
                folded: Vec::new(),
            });
        }
        return Err(Refusal::SupersededCandidate { id: id.to_owned() }.into());
    }
    record.status = Status::Superseded;
    record.superseded_by = by.map(str::to_owned);
    let body = format!(
        "{}\n# Rejected\n\n{reason}\n",
        body.trim_end_matches('\n').to_owned() + "\n"
    );
    write_atomic(&file.path, frontmatter::render(&record, &body).as_bytes())?;
    append_rejected(ctx, id, reason, by, &file.rel)?;
    // The near duplicates folded with it go with it: the same reason, the same
    // replacement (never the replacement itself).
    let mut folded = Vec::new();
    for member in members.iter().filter(|m| Some(m.as_str()) != by) {
        if reject_member(ctx, member, reason, by)? {
            folded.push(member.clone());
        }
    }
    Ok(Rejected {
        id: id.to_owned(),
        path: file.rel,
        superseded_by: by.map(str::to_owned),
        resumed: None,
        redacted,
        folded,
    })
}

pub(super) fn append_rejected(
    ctx: &Ctx,
    id: &str,
    reason: &str,
    by: Option<&str>,
    rel: &str,
) -> Result<(), Error> {
    let session = ctx.episode()?.map(|e| e.id);
    ctx.append(
        session.as_deref(),
        None,
        &KnowledgeRejected {
            id: id.to_owned(),
            reason: reason.to_owned(),
            superseded_by: by.map(str::to_owned),
            path: rel.to_owned(),
        },
    )?;
    Ok(())
}
