//! `knowledge reverify` (SPEC §5.2, a human act): a person checked a verified record
//! against the repository as it is now and it still holds. The evidence (optional: the
//! act and the commit are evidence already) and the verifying commit are appended under
//! `# Evidence`; committing the record makes that commit the one that verified it, so the
//! record is no longer stale (docs/RULES.md, "Stale knowledge").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::event::KnowledgeReverified;
use crate::model::ids::IdKind;
use crate::model::input::{INPUT_LIMIT, check_size};
use crate::model::knowledge::Status;
use crate::model::redact::redact;
use crate::store::records::parse_record;
use crate::store::{KnowledgeLock, StoreError, frontmatter, write_atomic};

/// `knowledge.reverify` (a human act).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReverifyRequest {
    /// The verified record's id.
    pub id: String,
    /// What shows the claim still holds (the CLI reads it from stdin; may be empty: the
    /// verifying commit is recorded either way).
    #[serde(default)]
    pub evidence: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reverified {
    pub id: String,
    /// The record, from the repository root.
    pub path: String,
    /// HEAD when it was re-verified.
    pub head: String,
    /// Whether `knowledge-stale` named it (its cited files changed since it was verified).
    pub was_stale: bool,
    /// The files that had changed since it was verified (empty when it was not stale).
    pub changed: Vec<String>,
    /// What was appended under `# Evidence`.
    pub appended: String,
    /// Secret shapes the writer redacted from the evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
}

/// Appends the re-verification under the record's `# Evidence`, and `knowledge.reverified`
/// to the ledger.
pub fn reverify(ctx: &Ctx, request: ReverifyRequest) -> Result<Reverified, Error> {
    let ReverifyRequest { id, evidence } = request;
    let id = id.as_str();
    Refusal::check_id(IdKind::Knowledge, id)?;
    check_size("evidence", &evidence, INPUT_LIMIT)?;
    let cleaned = redact(evidence.trim());
    let evidence = cleaned.text.trim();
    if !evidence.is_empty() {
        super::review::check_evidence(id, evidence, "reverify")?;
    }
    let lock = KnowledgeLock::acquire(&ctx.layout)?;
    let path = ctx.layout.record_in(&ctx.layout.curated_dir(), id)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let candidate = ctx.layout.record_in(&ctx.layout.candidates_dir(), id)?;
            return Err(if candidate.exists() {
                Refusal::NotVerified { id: id.to_owned() }
            } else {
                Refusal::UnknownVerified { id: id.to_owned() }
            }
            .into());
        }
        Err(e) => return Err(StoreError::io(&path, e).into()),
    };
    let (record, body) = parse_record(&text).map_err(|message| StoreError::Malformed {
        path: path.clone(),
        message,
    })?;
    if record.status != Status::Verified {
        return Err(Refusal::NotVerified { id: id.to_owned() }.into());
    }
    let rel = ctx.layout.display(&path);
    let head = ctx
        .repo
        .head()?
        .id
        .ok_or(Refusal::ReverifyUnborn { id: id.to_owned() })?;
    let stale = super::stale(ctx)?.stale.into_iter().find(|s| s.file == rel);
    let changed: Vec<String> = stale
        .iter()
        .flat_map(|s| s.targets.iter().map(|t| t.path.clone()))
        .collect();
    let mut appended = format!("Re-verified at commit {head} ({})", ctx.now());
    if let Some(s) = &stale {
        let moved: Vec<String> = s
            .targets
            .iter()
            .map(|t| format!("{} {}", t.path, t.change.verb()))
            .collect();
        let since = &s.verified_in.id;
        appended.push_str(&format!(
            ", after {} since it was verified in {}",
            moved.join(", "),
            &since[..since.len().min(12)]
        ));
    }
    if evidence.is_empty() {
        appended.push_str(": the claim still holds.");
    } else {
        appended.push_str(": ");
        appended.push_str(evidence);
    }
    let body = body.trim_end_matches('\n');
    let body = if body.lines().any(|l| l.trim_end() == "# Evidence") {
        format!("{body}\n\n{appended}\n")
    } else {
        format!("{body}\n\n# Evidence\n\n{appended}\n")
    };
    write_atomic(&path, frontmatter::render(&record, &body).as_bytes())?;
    let session = ctx.episode()?.map(|e| e.id);
    ctx.append(
        session.as_deref(),
        None,
        &KnowledgeReverified {
            id: id.to_owned(),
            path: rel.clone(),
            head: head.clone(),
            changed: changed.clone(),
        },
    )?;
    drop(lock);
    Ok(Reverified {
        id: id.to_owned(),
        path: rel,
        head,
        was_stale: stale.is_some(),
        changed,
        appended,
        redacted: cleaned.shapes.iter().map(|s| (*s).to_owned()).collect(),
    })
}
