//! The front-matter fast path: the plain shape majordomus writes, parsed without the YAML
//! parser (which stays the fallback for anything else).

use super::{Class, KnowledgeRecord, Origin, Provenance, Stance, Status};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::{Event, LedgerLine};
    use crate::model::knowledge::{EpisodeEvidence, Markers, derive_candidates};
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
