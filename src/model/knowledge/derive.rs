//! Derivation (SPEC §5.1): one episode's ledger lines and commits to candidate records,
//! deterministically. The class comes from the event, never from prose.

use schemars::JsonSchema;
use serde::Serialize;

use super::{
    Class, KNOWLEDGE_SCHEMA, KnowledgeRecord, Markers, Origin, Provenance, Stance, Status,
};
use crate::model::event::{
    DecisionRecorded, Event, LedgerLine, QuestionResolved, TaskFinished, TaskStarted, TaskStatus,
};
use crate::model::ids::{canonical_json, sha256_hex};

/// One derived candidate: its record and body (the claim).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Derived {
    pub record: KnowledgeRecord,
    pub body: String,
    /// The ledger line it came from.
    pub source_seq: u64,
}

/// A source line that yielded no record, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SkippedSource {
    pub seq: u64,
    pub event: Event,
    pub reason: String,
}

/// What the episode's commits and task scopes contribute to `task.finished` provenance.
#[derive(Debug, Clone, Default)]
pub struct EpisodeEvidence {
    /// The episode's commits, each with the paths it changed.
    pub commits: Vec<(String, Vec<String>)>,
}

/// The canonical bytes of a source line: everything but its `seq`, keys sorted, so two
/// ledgers holding the same evidence derive the same id.
pub fn canonical_source(line: &LedgerLine) -> Vec<u8> {
    let value = serde_json::json!({
        "data": line.data,
        "event": line.event,
        "session": line.session,
        "task": line.task,
        "ts": line.ts,
    });
    canonical_json(&value)
}

/// `<episode>-<first 12 hex of sha256 over the canonical source>`.
pub fn candidate_id(episode: &str, line: &LedgerLine) -> String {
    format!("{episode}-{}", &sha256_hex(&canonical_source(line))[..12])
}

/// At most this many bytes of a derived record's title: the claim's first line, whole or cut
/// at a word with `…` — what an injected line quotes (docs/RECALL.md, "How many lines").
pub const TITLE_MAX: usize = 240;

/// A derived record's title: its text's first line, whole or cut at a word with `…`.
fn title_of(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default().trim();
    crate::model::inject::cut_at_word(first, TITLE_MAX)
}

/// The `file:` references of the files a line cites (SPEC §5.1), sorted; a path that is not
/// a plain repository-relative one (a forged or garbled line) never reaches a record.
fn file_refs(files: &[String]) -> Vec<String> {
    let mut refs: Vec<String> = files
        .iter()
        .filter(|f| crate::model::cited::is_normal(f))
        .map(|f| format!("file:{f}"))
        .collect();
    refs.sort();
    refs.dedup();
    refs
}

/// Whether the task scope covers `path` (paths, directories and globs; an empty scope
/// claims nothing, so a task without one cites no commit).
fn scope_covers(scope: &[String], path: &str) -> bool {
    !scope.is_empty() && crate::model::task::in_scope(scope, path)
}

/// Derives exactly SPEC §5.1's list from one episode's ledger lines (in ledger order):
/// decisions → convention/decided; resolved questions → fact/decided; finished tasks →
/// completed: fact/observed, blocked: lesson/observed with the reason as the claim.
/// The files a decision or an answer cites follow its other references as `file:`s.
/// The class is never chosen from prose. Lines carrying a transcript marker are skipped.
pub fn derive_candidates(
    episode: &str,
    lines: &[LedgerLine],
    evidence: &EpisodeEvidence,
    markers: &Markers,
) -> (Vec<Derived>, Vec<SkippedSource>) {
    let mut derived = Vec::new();
    let mut skipped = Vec::new();
    let ep_ref = format!("session:{episode}");
    for line in lines
        .iter()
        .filter(|l| l.session.as_deref() == Some(episode))
    {
        // Only an id of a task's shape becomes a reference: a forged or garbled `task` of a
        // ledger line must not reach a tracked candidate (SPEC §0).
        let task_ref = line.task_id().map(|t| format!("task:{t}"));
        let (class, stance, title, body, mut refs) = match line.event {
            Event::DecisionRecorded => {
                let decision = line.payload::<DecisionRecorded>().unwrap_or_default();
                let text = decision.text.trim().to_owned();
                let mut refs = vec![ep_ref.clone()];
                if let Some(t) = line.task_id() {
                    refs.push(format!("decision:{t}"));
                }
                refs.extend(file_refs(&decision.files));
                (
                    Class::Convention,
                    Stance::Decided,
                    title_of(&text),
                    text,
                    refs,
                )
            }
            Event::QuestionResolved => {
                let resolved = line.payload::<QuestionResolved>().unwrap_or_default();
                let question = resolved.question.trim();
                let answer = resolved.answer.trim();
                let mut refs = vec![ep_ref.clone()];
                refs.extend(task_ref.clone());
                refs.extend(file_refs(&resolved.files));
                (
                    Class::Fact,
                    Stance::Decided,
                    title_of(question),
                    answer.to_owned(),
                    refs,
                )
            }
            Event::TaskFinished => {
                let Some(task) = line.task_id() else {
                    skipped.push(SkippedSource {
                        seq: line.seq,
                        event: line.event,
                        reason: match &line.task {
                            None => "task.finished without a task id".into(),
                            Some(t) => format!(
                                "task.finished with task {}, which does not have the shape of a task id",
                                crate::model::ids::shown(t)
                            ),
                        },
                    });
                    continue;
                };
                let started = lines
                    .iter()
                    .filter(|l| l.task_id() == Some(task))
                    .find_map(LedgerLine::payload::<TaskStarted>)
                    .unwrap_or_default();
                let description = match started.description.trim() {
                    "" => task.to_owned(),
                    d => d.to_owned(),
                };
                let scope = started.scope;
                let mut refs = vec![ep_ref.clone(), format!("task:{task}")];
                let mut files = Vec::new();
                for (sha, paths) in &evidence.commits {
                    let covered: Vec<&String> =
                        paths.iter().filter(|p| scope_covers(&scope, p)).collect();
                    if !covered.is_empty() {
                        refs.push(format!("commit:{sha}"));
                        files.extend(covered.into_iter().map(|p| format!("file:{p}")));
                    }
                }
                files.sort();
                files.dedup();
                refs.extend(files);
                let Some(finished) = line.payload::<TaskFinished>() else {
                    skipped.push(SkippedSource {
                        seq: line.seq,
                        event: line.event,
                        reason: "task.finished without a readable status".into(),
                    });
                    continue;
                };
                match finished.status {
                    TaskStatus::Blocked => {
                        let reason = finished.reason.unwrap_or_default();
                        let reason = reason.trim();
                        (
                            Class::Lesson,
                            Stance::Observed,
                            title_of(&format!("Blocked: {description}")),
                            reason.to_owned(),
                            refs,
                        )
                    }
                    TaskStatus::Completed => (
                        Class::Fact,
                        Stance::Observed,
                        title_of(&format!("Completed: {description}")),
                        description.clone(),
                        refs,
                    ),
                }
            }
            _ => continue,
        };
        if body.is_empty() {
            skipped.push(SkippedSource {
                seq: line.seq,
                event: line.event,
                reason: "the source line has no text to claim".into(),
            });
            continue;
        }
        if let Some(marker) = markers.find(&body).or_else(|| markers.find(&title)) {
            skipped.push(SkippedSource {
                seq: line.seq,
                event: line.event,
                reason: format!("transcript marker `{marker}`"),
            });
            continue;
        }
        // Keep the first occurrence of each ref; the order is the evidence's order.
        let mut seen = std::collections::HashSet::new();
        refs.retain(|r| seen.insert(r.clone()));
        // The claim is one statement: continuation lines are indented so no line of
        // it can pass for a heading (`# Evidence`, `# Rejected`) of the record. A ledger
        // line written before redaction existed still never carries a secret onward.
        let body = crate::model::redact::redact(&body)
            .text
            .replace('\n', "\n  ");
        let title = crate::model::redact::redact(&title).text;
        derived.push(Derived {
            record: KnowledgeRecord {
                id: candidate_id(episode, line),
                schema: KNOWLEDGE_SCHEMA.to_owned(),
                class,
                status: Status::Candidate,
                stance,
                title,
                date: line.ts.get(..10).unwrap_or_default().to_owned(),
                provenance: Provenance {
                    origin: Origin::Extracted,
                    derived_from: refs,
                },
                superseded_by: None,
                relations: None,
            },
            body,
            source_seq: line.seq,
        });
    }
    (derived, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(seq: u64, event: Event, task: Option<&str>, data: serde_json::Value) -> LedgerLine {
        LedgerLine {
            seq,
            ts: "2026-11-29T23:59:00Z".into(),
            event,
            session: Some("EP".into()),
            task: task.map(str::to_owned),
            data,
        }
    }

    #[test]
    fn derives_the_spec_list_and_nothing_else() {
        let lines = vec![
            line(1, Event::SessionOpened, None, json!({})),
            line(
                2,
                Event::DecisionRecorded,
                Some("t-20261130-0001"),
                json!({"text": "Use gix"}),
            ),
            line(
                3,
                Event::QuestionAsked,
                None,
                json!({"id": "q-1", "text": "Why?"}),
            ),
            line(
                4,
                Event::QuestionResolved,
                None,
                json!({"id": "q-1", "question": "Why?", "answer": "Speed"}),
            ),
            line(5, Event::CheckpointRecorded, None, json!({"text": "half"})),
            line(
                6,
                Event::TaskStarted,
                Some("t-20261130-0001"),
                json!({"description": "Port", "scope": ["src"]}),
            ),
            line(
                7,
                Event::TaskFinished,
                Some("t-20261130-0001"),
                json!({"status": "blocked", "reason": "No disk"}),
            ),
        ];
        let evidence = EpisodeEvidence {
            commits: vec![
                ("aaa".into(), vec!["src/a.rs".into(), "README.md".into()]),
                ("bbb".into(), vec!["docs/x.md".into()]),
            ],
        };
        let (derived, skipped) = derive_candidates("EP", &lines, &evidence, &Markers::standard());
        assert!(skipped.is_empty());
        assert_eq!(derived.len(), 3);
        let d = &derived[0].record;
        assert_eq!((d.class, d.stance), (Class::Convention, Stance::Decided));
        assert_eq!(
            d.provenance.derived_from,
            vec!["session:EP", "decision:t-20261130-0001"]
        );
        assert_eq!(d.date, "2026-11-29", "the evidence day, not the clock");
        let q = &derived[1];
        assert_eq!(
            (q.record.class, q.record.stance),
            (Class::Fact, Stance::Decided)
        );
        assert_eq!(q.body, "Speed");
        let t = &derived[2];
        assert_eq!(
            (t.record.class, t.record.stance),
            (Class::Lesson, Stance::Observed)
        );
        assert_eq!(t.body, "No disk");
        assert_eq!(
            t.record.provenance.derived_from,
            vec![
                "session:EP",
                "task:t-20261130-0001",
                "commit:aaa",
                "file:src/a.rs"
            ]
        );
    }

    #[test]
    fn cited_files_become_file_references_after_the_others() {
        let lines = vec![
            line(
                2,
                Event::DecisionRecorded,
                Some("t-20261130-0001"),
                json!({"text": "Keep it", "files": ["src/z.rs", "src/a.rs", "../x", "/etc/passwd"]}),
            ),
            line(
                3,
                Event::QuestionResolved,
                None,
                json!({"id": "q-1", "question": "Why?", "answer": "Speed", "files": ["docs/A.md"]}),
            ),
        ];
        let (derived, _) = derive_candidates(
            "EP",
            &lines,
            &EpisodeEvidence::default(),
            &Markers::standard(),
        );
        assert_eq!(
            derived[0].record.provenance.derived_from,
            [
                "session:EP",
                "decision:t-20261130-0001",
                "file:src/a.rs",
                "file:src/z.rs"
            ],
            "sorted, and a path that is not a plain relative one is left out"
        );
        assert_eq!(
            derived[1].record.provenance.derived_from,
            ["session:EP", "file:docs/A.md"]
        );
    }

    #[test]
    fn a_line_citing_nothing_keeps_the_id_it_had_before_files_existed() {
        // Written as the typed payload with no files, the line's data is what it was
        // before `files` existed, so the candidate id of every older line stands.
        let draft = crate::model::event::LineDraft::new(
            "2026-11-29T23:59:00Z".into(),
            Some("EP".into()),
            None,
            &DecisionRecorded {
                text: "Use gix".into(),
                files: Vec::new(),
            },
        );
        let written: LedgerLine =
            serde_json::from_str(&serde_json::to_string(&draft.with_seq(2)).expect("serialises"))
                .expect("parses");
        let old = line(2, Event::DecisionRecorded, None, json!({"text": "Use gix"}));
        assert_eq!(written.data, old.data);
        assert_eq!(candidate_id("EP", &written), candidate_id("EP", &old));
        // Pinned: the id such a line has had since ids were content digests.
        assert_eq!(candidate_id("EP", &old), "EP-40cff114c254");
        let mut citing = old.clone();
        citing.data = json!({"text": "Use gix", "files": ["src/a.rs"]});
        assert_ne!(candidate_id("EP", &citing), candidate_id("EP", &old));
    }

    #[test]
    fn ids_ignore_seq_and_follow_content() {
        let a = line(2, Event::DecisionRecorded, None, json!({"text": "Use gix"}));
        let mut b = a.clone();
        b.seq = 99;
        assert_eq!(candidate_id("EP", &a), candidate_id("EP", &b));
        b.data = json!({"text": "Use git2"});
        assert_ne!(candidate_id("EP", &a), candidate_id("EP", &b));
        assert_eq!(candidate_id("EP", &a).len(), "EP-".len() + 12);
    }

    #[test]
    fn transcript_markers_skip_the_line() {
        let markers = Markers::standard();
        assert!(markers.find("Human: do this").is_some());
        assert!(markers.find("  assistant: sure").is_some());
        assert!(markers.find("text <|im_start|> more").is_some());
        assert!(markers.find("Humans are fine").is_none());
        assert!(markers.find("We store user: ids").is_none());
        let lines = vec![line(
            2,
            Event::DecisionRecorded,
            None,
            json!({"text": "User: please use gix"}),
        )];
        let (derived, skipped) =
            derive_candidates("EP", &lines, &EpisodeEvidence::default(), &markers);
        assert!(derived.is_empty());
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].reason.contains("User:"));
    }
}
