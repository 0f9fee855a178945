//! Knowledge records (`knowledge/v1`, SPEC §5) and their deterministic derivation from an
//! episode's ledger lines (§5.1). Pure: no files, no git, no clock.

use serde::{Deserialize, Serialize};

use super::event::{Event, LedgerLine};
use super::ids::sha256_hex;

pub const KNOWLEDGE_SCHEMA: &str = "knowledge/v1";

/// The transcript markers shipped in `share/standard/transcript-markers.txt`.
pub const STANDARD_MARKERS: &str = include_str!("../../share/standard/transcript-markers.txt");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Fact,
    Convention,
    Constraint,
    Memory,
    Lesson,
}

impl Class {
    pub const NAMES: [&'static str; 5] = ["fact", "convention", "constraint", "memory", "lesson"];

    pub fn name(self) -> &'static str {
        match self {
            Class::Fact => "fact",
            Class::Convention => "convention",
            Class::Constraint => "constraint",
            Class::Memory => "memory",
            Class::Lesson => "lesson",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        match name {
            "fact" => Some(Class::Fact),
            "convention" => Some(Class::Convention),
            "constraint" => Some(Class::Constraint),
            "memory" => Some(Class::Memory),
            "lesson" => Some(Class::Lesson),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Candidate,
    Verified,
    Superseded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stance {
    Observed,
    Inferred,
    Decided,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Extracted,
    Authored,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub origin: Origin,
    #[serde(default)]
    pub derived_from: Vec<String>,
}

/// The front matter of a knowledge record; unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeRecord {
    pub id: String,
    pub schema: String,
    pub class: Class,
    pub status: Status,
    pub stance: Stance,
    pub title: String,
    pub date: String,
    pub provenance: Provenance,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<Vec<String>>,
}

/// Parses a knowledge front matter quickly when it has the exact plain shape majordomus
/// writes; `None` for anything else (quoted or typed scalars, unknown keys, another
/// layout), which the caller then gives to the full YAML parser. It accepts only what the
/// YAML parser would read the same way, so the result never differs: it is a fast path,
/// not a second grammar (`knowledge check` reads thousands of records).
pub fn parse_front_fast(yaml: &str) -> Option<KnowledgeRecord> {
    let mut id = None;
    let mut schema = None;
    let mut class = None;
    let mut status = None;
    let mut stance = None;
    let mut title = None;
    let mut date = None;
    let mut origin = None;
    let mut derived_from: Option<Vec<String>> = None;
    let mut superseded_by = None;
    let mut relations: Option<Vec<String>> = None;
    // Which list the `- ` lines belong to: 1 derived_from (items indented), 2 relations.
    let mut list = 0u8;
    let mut in_provenance = false;
    for line in yaml.lines() {
        if line.trim_start().starts_with("- ") {
            match list {
                1 => derived_from
                    .as_mut()?
                    .push(plain(line.strip_prefix("  - ")?)?.to_owned()),
                2 => relations
                    .as_mut()?
                    .push(plain(line.strip_prefix("- ")?)?.to_owned()),
                _ => return None,
            }
            continue;
        }
        list = 0;
        if let Some(rest) = line.strip_prefix("  ") {
            if !in_provenance {
                return None;
            }
            let (key, value) = rest.split_once(':')?;
            match (key, value) {
                ("origin", v) if origin.is_none() => {
                    origin = Some(match plain(v.strip_prefix(' ')?)? {
                        "extracted" => Origin::Extracted,
                        "authored" => Origin::Authored,
                        _ => return None,
                    })
                }
                ("derived_from", "") if derived_from.is_none() => {
                    derived_from = Some(Vec::new());
                    list = 1;
                }
                ("derived_from", " []") if derived_from.is_none() => {
                    derived_from = Some(Vec::new())
                }
                _ => return None,
            }
            continue;
        }
        in_provenance = false;
        let (key, value) = line.split_once(':')?;
        if key == "provenance" && value.is_empty() && origin.is_none() && derived_from.is_none() {
            in_provenance = true;
            continue;
        }
        if key == "relations" {
            if relations.is_some() {
                return None;
            }
            relations = Some(Vec::new());
            match value {
                "" => list = 2,
                " []" => {}
                _ => return None,
            }
            continue;
        }
        let value = plain(value.strip_prefix(' ')?)?;
        // A key twice is an error for the YAML parser: let it say so.
        let seen = match key {
            "id" => id.is_some(),
            "schema" => schema.is_some(),
            "title" => title.is_some(),
            "date" => date.is_some(),
            "superseded_by" => superseded_by.is_some(),
            "class" => class.is_some(),
            "status" => status.is_some(),
            "stance" => stance.is_some(),
            _ => false,
        };
        if seen {
            return None;
        }
        match key {
            "id" => id = Some(value.to_owned()),
            "schema" => schema = Some(value.to_owned()),
            "title" => title = Some(value.to_owned()),
            "date" => date = Some(value.to_owned()),
            "superseded_by" => superseded_by = Some(value.to_owned()),
            "class" => class = Some(Class::from_name(value)?),
            "status" => {
                status = Some(match value {
                    "candidate" => Status::Candidate,
                    "verified" => Status::Verified,
                    "superseded" => Status::Superseded,
                    _ => return None,
                })
            }
            "stance" => {
                stance = Some(match value {
                    "observed" => Stance::Observed,
                    "inferred" => Stance::Inferred,
                    "decided" => Stance::Decided,
                    _ => return None,
                })
            }
            _ => return None,
        }
    }
    Some(KnowledgeRecord {
        id: id?,
        schema: schema?,
        class: class?,
        status: status?,
        stance: stance?,
        title: title?,
        date: date?,
        provenance: Provenance {
            origin: origin?,
            derived_from: derived_from.unwrap_or_default(),
        },
        superseded_by,
        relations,
    })
}

/// `text` when YAML reads it as this very string (a plain scalar that is not typed as a
/// number, bool or null and has no syntax in it); `None` when only the YAML parser can say.
fn plain(text: &str) -> Option<&str> {
    let first = text.chars().next()?;
    let safe_start = first.is_ascii_alphanumeric() || matches!(first, '/' | '.' | '_' | '(' | '$');
    let syntax = text.contains(": ")
        || text.contains(" #")
        || text.ends_with(':')
        || text.ends_with(' ')
        || text.contains('\t')
        || text.chars().any(|c| c.is_control());
    let lower = text.to_ascii_lowercase();
    let typed = matches!(
        lower.as_str(),
        "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | ".nan" | ".inf"
    ) || text.parse::<f64>().is_ok()
        || text.starts_with("0x")
        || text.starts_with("0o")
        || (text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'+' | b'.' | b':'))
            && !is_plain_date(text));
    (safe_start && !syntax && !typed).then_some(text)
}

/// `YYYY-MM-DD`, which the YAML 1.2 core schema reads as a string.
fn is_plain_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Transcript markers, parsed from the standard file.
#[derive(Debug, Clone)]
pub struct Markers {
    /// `(lower-cased for matching, as written)`.
    line_starts: Vec<(String, String)>,
    anywhere: Vec<String>,
}

impl Markers {
    pub fn parse(text: &str) -> Markers {
        let mut markers = Markers {
            line_starts: Vec::new(),
            anywhere: Vec::new(),
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.strip_prefix('^') {
                Some(p) => markers.line_starts.push((p.to_lowercase(), p.to_owned())),
                None => markers.anywhere.push(line.to_owned()),
            }
        }
        markers
    }

    pub fn standard() -> Markers {
        Markers::parse(STANDARD_MARKERS)
    }

    /// The first marker `text` carries, if any.
    pub fn find(&self, text: &str) -> Option<String> {
        for line in text.lines() {
            let lower = line.trim_start().to_lowercase();
            if let Some(m) = self
                .line_starts
                .iter()
                .find(|(m, _)| lower.starts_with(m.as_str()))
            {
                return Some(m.1.clone());
            }
            if let Some(m) = self.anywhere.iter().find(|m| line.contains(m.as_str())) {
                return Some(m.clone());
            }
        }
        None
    }
}

/// One derived candidate: its record and body (the claim).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Derived {
    pub record: KnowledgeRecord,
    pub body: String,
    /// The ledger line it came from.
    pub source_seq: u64,
}

/// A source line that yielded no record, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    serde_json::to_vec(&value).expect("json values serialise")
}

/// `<episode>-<first 12 hex of sha256 over the canonical source>`.
pub fn candidate_id(episode: &str, line: &LedgerLine) -> String {
    format!("{episode}-{}", &sha256_hex(&canonical_source(line))[..12])
}

fn title_of(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default().trim();
    let mut title: String = first.chars().take(100).collect();
    if first.chars().count() > 100 {
        title.push_str("...");
    }
    title
}

fn scope_covers(scope: &[String], path: &str) -> bool {
    scope.iter().any(|s| {
        let s = s.trim_end_matches('/');
        s.is_empty() || s == "." || path == s || path.starts_with(&format!("{s}/"))
    })
}

/// Derives exactly SPEC §5.1's list from one episode's ledger lines (in ledger order):
/// decisions → convention/decided; resolved questions → fact/decided; finished tasks →
/// completed: fact/observed, blocked: lesson/observed with the reason as the claim.
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
        let task_ref = line.task.as_ref().map(|t| format!("task:{t}"));
        let (class, stance, title, body, mut refs) = match line.event {
            Event::DecisionRecorded => {
                let text = line.data_str("text").unwrap_or_default().trim().to_owned();
                let mut refs = vec![ep_ref.clone()];
                if let Some(t) = &line.task {
                    refs.push(format!("decision:{t}"));
                }
                (
                    Class::Convention,
                    Stance::Decided,
                    title_of(&text),
                    text,
                    refs,
                )
            }
            Event::QuestionResolved => {
                let question = line.data_str("question").unwrap_or_default().trim();
                let answer = line.data_str("answer").unwrap_or_default().trim();
                let mut refs = vec![ep_ref.clone()];
                refs.extend(task_ref.clone());
                (
                    Class::Fact,
                    Stance::Decided,
                    title_of(question),
                    answer.to_owned(),
                    refs,
                )
            }
            Event::TaskFinished => {
                let Some(task) = line.task.as_deref() else {
                    skipped.push(SkippedSource {
                        seq: line.seq,
                        event: line.event,
                        reason: "task.finished without a task id".into(),
                    });
                    continue;
                };
                let started = lines
                    .iter()
                    .find(|l| l.event == Event::TaskStarted && l.task.as_deref() == Some(task));
                let description = started
                    .and_then(|l| l.data_str("description"))
                    .unwrap_or(task)
                    .trim()
                    .to_owned();
                let scope: Vec<String> = started
                    .and_then(|l| l.data.get("scope"))
                    .and_then(|s| s.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
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
                match line.data_str("status") {
                    Some("blocked") => {
                        let reason = line.data_str("reason").unwrap_or_default().trim();
                        (
                            Class::Lesson,
                            Stance::Observed,
                            title_of(&format!("Blocked: {description}")),
                            reason.to_owned(),
                            refs,
                        )
                    }
                    _ => (
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
        // it can pass for a heading (`# Evidence`, `# Rejected`) of the record.
        let body = body.replace('\n', "\n  ");
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
                Some("t-1"),
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
                Some("t-1"),
                json!({"description": "Port", "scope": ["src"]}),
            ),
            line(
                7,
                Event::TaskFinished,
                Some("t-1"),
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
            vec!["session:EP", "decision:t-1"]
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
            vec!["session:EP", "task:t-1", "commit:aaa", "file:src/a.rs"]
        );
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

    fn full(yaml: &str) -> Option<KnowledgeRecord> {
        yaml_serde::from_str(yaml).ok()
    }

    #[test]
    fn fast_path_agrees_with_yaml_or_steps_aside() {
        let lines = vec![
            line(
                2,
                Event::DecisionRecorded,
                Some("t-1"),
                json!({"text": "Use gix"}),
            ),
            line(
                3,
                Event::QuestionResolved,
                None,
                json!({"id": "q", "question": "Why: really?", "answer": "yes"}),
            ),
            line(4, Event::DecisionRecorded, None, json!({"text": "true"})),
            line(
                5,
                Event::DecisionRecorded,
                None,
                json!({"text": "'quoted' # not a comment"}),
            ),
            line(6, Event::DecisionRecorded, None, json!({"text": "2026"})),
        ];
        let (derived, _) = derive_candidates(
            "EP",
            &lines,
            &EpisodeEvidence::default(),
            &Markers::standard(),
        );
        let mut fast_hits = 0;
        for d in &derived {
            let mut record = d.record.clone();
            record.relations = Some(vec!["supports:EP-aaa".into()]);
            record.superseded_by = Some("EP-bbb".into());
            for r in [d.record.clone(), record] {
                let yaml = yaml_serde::to_string(&r).expect("serialises");
                if let Some(fast) = parse_front_fast(&yaml) {
                    fast_hits += 1;
                    assert_eq!(Some(fast), full(&yaml), "{yaml}");
                }
                assert_eq!(full(&yaml), Some(r));
            }
        }
        assert!(
            fast_hits >= 2,
            "the plain shape majordomus writes takes the fast path"
        );
        for odd in [
            "id: x\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: t\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n  derived_from: []\ncolour: red\n",
            "id: x\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: 'q'\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n",
            "id: x\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: no\ndate: 2026-11-30\nprovenance:\n  origin: extracted\n",
        ] {
            assert_eq!(parse_front_fast(odd), None, "{odd}");
        }
    }

    #[test]
    fn front_matter_refuses_unknown_keys() {
        let text = "id: x\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: t\ndate: 2026-11-30\nprovenance: {origin: extracted, derived_from: []}\ncolour: red\n";
        assert!(yaml_serde::from_str::<KnowledgeRecord>(text).is_err());
    }
}
