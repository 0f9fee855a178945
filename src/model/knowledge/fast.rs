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
    // `relations:` with no items under it is null for YAML (no relations), not `[]`.
    let mut relations_key = false;
    // Which list the `- ` lines belong to: 1 derived_from (items indented), 2 relations.
    let mut list = 0u8;
    let mut in_provenance = false;
    let mut provenance_key = false;
    for line in yaml.lines() {
        if line.trim_start().starts_with("- ") {
            match list {
                1 => derived_from
                    .as_mut()?
                    .push(plain(line.strip_prefix("  - ")?)?.to_owned()),
                2 => relations
                    .get_or_insert_default()
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
        if key == "provenance" {
            // A second `provenance:` is a duplicate key for the YAML parser.
            if provenance_key || !value.is_empty() {
                return None;
            }
            provenance_key = true;
            in_provenance = true;
            continue;
        }
        if key == "relations" {
            if relations_key {
                return None;
            }
            relations_key = true;
            match value {
                "" => list = 2,
                " []" => relations = Some(Vec::new()),
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
        || text.chars().any(|c| c.is_control())
        // Line and paragraph separators are line breaks to the YAML parser; a BOM is a
        // stream marker.
        || text.contains(['\u{2028}', '\u{2029}', '\u{feff}']);
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
                Some("t-20261130-0001"),
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
    fn an_empty_relations_key_is_no_relations() {
        // Found by the differential property test: YAML reads `relations:` with nothing
        // under it as null (no relations), not as an empty list.
        let yaml = "id: a\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: a\ndate: a\nprovenance:\n  origin: extracted\n  derived_from:\nrelations:\n";
        let fast = parse_front_fast(yaml).expect("the plain shape");
        assert_eq!(fast.relations, None);
        assert_eq!(full(yaml), Some(fast));
    }

    #[test]
    fn a_repeated_provenance_key_is_left_to_yaml() {
        // Found by the differential property test: the first, empty `provenance:` is null,
        // the second a duplicate key; the YAML parser refuses the record.
        let yaml = "id: a\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: a\nprovenance:\ndate: a\nprovenance:\n  origin: extracted\n";
        assert_eq!(parse_front_fast(yaml), None);
        assert_eq!(full(yaml), None);
    }

    #[test]
    fn unicode_line_separators_are_left_to_yaml() {
        // Found by the differential property test: U+2028 ends a plain scalar for the
        // YAML parser.
        for odd in ["null\u{2028}", "a\u{2029}b", "\u{feff}a"] {
            let yaml = format!(
                "id: a\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: a\ndate: a\nprovenance:\n  origin: extracted\n  derived_from:\n  - {odd}\n"
            );
            assert_eq!(parse_front_fast(&yaml), None, "{odd:?}");
        }
    }

    #[test]
    fn front_matter_refuses_unknown_keys() {
        let text = "id: x\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: t\ndate: 2026-11-30\nprovenance: {origin: extracted, derived_from: []}\ncolour: red\n";
        assert!(yaml_serde::from_str::<KnowledgeRecord>(text).is_err());
    }

    /// Differential property tests against `yaml_serde`: whatever front matter the fast
    /// path accepts, the YAML parser reads as the very same record; what it does not
    /// accept it leaves to the YAML parser (so the accepted set and the values are the
    /// YAML parser's). `PROPTEST_CASES=100000 cargo test --lib knowledge::fast` runs longer.
    mod props {
        use super::*;
        use proptest::prelude::*;

        /// Pieces of scalars that YAML reads specially somewhere: quotes, `: `, ` #`,
        /// indicators, typed words and numbers, dates, line and paragraph separators, a
        /// BOM, controls, non-ASCII.
        const TRICKY: &[&str] = &[
            "",
            " ",
            "  ",
            ":",
            ": ",
            "#",
            " #",
            "'",
            "\"",
            "-",
            "- ",
            "?",
            "? ",
            "[",
            "]",
            "{",
            "}",
            ",",
            "&",
            "*",
            "!",
            "|",
            ">",
            "%",
            "@",
            "`",
            "~",
            "\\",
            "/",
            ".",
            "_",
            "(",
            "$",
            "\t",
            "\r",
            "\u{85}",
            "\u{a0}",
            "\u{2028}",
            "\u{2029}",
            "\u{feff}",
            "\u{1b}",
            "null",
            "Null",
            "NULL",
            "true",
            "True",
            "FALSE",
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "0",
            "7",
            "0123",
            "1_000",
            "1e3",
            "-1",
            "+1",
            ".5",
            "1.",
            "0x1F",
            "0o17",
            "0b101",
            "12:30",
            "1:2:3",
            "2026-11-30",
            "2026-11-30T10:00:00Z",
            ".nan",
            ".NaN",
            ".inf",
            "-.inf",
            "nan",
            "inf",
            "infinity",
            "é",
            "日本",
            "🙂",
            "a",
            "b",
            "z",
            "fact",
            "x",
            "knowledge/v1",
            "session:",
            "commit:abc",
            "<<",
            "=",
            "...",
            "---",
        ];

        fn tricky() -> impl Strategy<Value = String> {
            prop::collection::vec(prop::sample::select(TRICKY), 0..5).prop_map(|p| p.concat())
        }

        /// A scalar as a person might type it after `key: `: mostly plain words, often
        /// tricky.
        fn scalar() -> impl Strategy<Value = String> {
            prop_oneof![
                2 => "[a-z][a-z0-9 ./_-]{0,12}",
                3 => tricky(),
                1 => any::<String>(),
            ]
        }

        fn enum_value(names: &'static [&'static str]) -> impl Strategy<Value = String> {
            prop_oneof![4 => prop::sample::select(names).prop_map(str::to_owned), 1 => scalar()]
        }

        /// One line or block of a knowledge front matter, as text.
        fn entry() -> impl Strategy<Value = String> {
            let list = |indent: &'static str| {
                prop::collection::vec(scalar(), 0..3).prop_map(move |items| {
                    items
                        .iter()
                        .map(|i| format!("{indent}- {i}\n"))
                        .collect::<String>()
                })
            };
            prop_oneof![
                scalar().prop_map(|v| format!("id: {v}\n")),
                enum_value(&["knowledge/v1"]).prop_map(|v| format!("schema: {v}\n")),
                enum_value(&Class::NAMES).prop_map(|v| format!("class: {v}\n")),
                enum_value(&["candidate", "verified", "superseded"])
                    .prop_map(|v| format!("status: {v}\n")),
                enum_value(&["observed", "inferred", "decided"])
                    .prop_map(|v| format!("stance: {v}\n")),
                scalar().prop_map(|v| format!("title: {v}\n")),
                prop_oneof![Just("2026-11-30".to_owned()), scalar()]
                    .prop_map(|v| format!("date: {v}\n")),
                scalar().prop_map(|v| format!("superseded_by: {v}\n")),
                (
                    enum_value(&["extracted", "authored"]),
                    prop_oneof![
                        Just(String::new()),
                        Just("  derived_from: []\n".to_owned()),
                        list("  ").prop_map(|l| format!("  derived_from:\n{l}")),
                        list("").prop_map(|l| format!("  derived_from:\n{l}")),
                    ],
                    any::<bool>(),
                )
                    .prop_map(|(origin, derived, first)| {
                        let origin = format!("  origin: {origin}\n");
                        if first {
                            format!("provenance:\n{origin}{derived}")
                        } else {
                            format!("provenance:\n{derived}{origin}")
                        }
                    }),
                Just("provenance:\n".to_owned()),
                prop_oneof![
                    Just("relations: []\n".to_owned()),
                    list("").prop_map(|l| format!("relations:\n{l}")),
                    list("  ").prop_map(|l| format!("relations:\n{l}")),
                ],
                scalar().prop_map(|v| format!("{v}: x\n")),
                Just("# a comment: here\n".to_owned()),
                Just("\n".to_owned()),
            ]
        }

        fn word() -> impl Strategy<Value = String> {
            "[a-z][a-z0-9./_-]{0,10}[a-z]"
        }

        /// What to do to a complete plain front matter: most cases put one tricky scalar
        /// in one place, so the fast path sees it beside an otherwise valid record.
        #[derive(Debug, Clone)]
        enum Twist {
            None,
            /// Replace the value of line `n`'s key (or list item) with this scalar.
            Value(usize, String),
            /// Insert this entry at line `n`.
            Insert(usize, String),
            /// Drop line `n`.
            Drop(usize),
            /// Repeat line `n`.
            Repeat(usize),
        }

        fn twist() -> impl Strategy<Value = Twist> {
            prop_oneof![
                1 => Just(Twist::None),
                6 => (any::<usize>(), scalar()).prop_map(|(n, v)| Twist::Value(n, v)),
                2 => (any::<usize>(), entry()).prop_map(|(n, e)| Twist::Insert(n, e)),
                1 => any::<usize>().prop_map(Twist::Drop),
                1 => any::<usize>().prop_map(Twist::Repeat),
            ]
        }

        /// Front matter: a complete plain record in any key order, with up to two twists;
        /// or a bag of entries.
        fn front_matter() -> impl Strategy<Value = String> {
            let complete = (
                (word(), word(), word()),
                prop::collection::vec(word(), 0..3),
                prop::option::of(prop::collection::vec(word(), 0..3)),
                prop::option::of(word()),
                any::<bool>(),
            )
                .prop_map(
                    |((id, title, date), derived, relations, superseded, empty_list)| {
                        let mut blocks = vec![
                            vec![format!("id: {id}")],
                            vec!["schema: knowledge/v1".to_owned()],
                            vec!["class: fact".to_owned()],
                            vec!["status: candidate".to_owned()],
                            vec!["stance: observed".to_owned()],
                            vec![format!("title: {title}")],
                            vec![format!("date: {date}")],
                        ];
                        let mut provenance =
                            vec!["provenance:".to_owned(), "  origin: extracted".to_owned()];
                        if derived.is_empty() && empty_list {
                            provenance.push("  derived_from: []".to_owned());
                        } else {
                            provenance.push("  derived_from:".to_owned());
                            provenance.extend(derived.iter().map(|d| format!("  - {d}")));
                        }
                        blocks.push(provenance);
                        if let Some(s) = superseded {
                            blocks.push(vec![format!("superseded_by: {s}")]);
                        }
                        if let Some(r) = relations {
                            let mut block = vec!["relations:".to_owned()];
                            block.extend(r.iter().map(|d| format!("- {d}")));
                            blocks.push(block);
                        }
                        blocks
                    },
                )
                .prop_shuffle()
                .prop_map(|blocks| blocks.concat());
            let second = prop_oneof![3 => Just(Twist::None), 1 => twist()];
            let twisted = (complete, twist(), second).prop_map(|(mut lines, a, b)| {
                for t in [a, b] {
                    let at = |n: usize, len: usize| n % len.max(1);
                    match t {
                        Twist::None => {}
                        Twist::Value(n, v) => {
                            // A string-valued key or a list item.
                            let strings: Vec<usize> = (0..lines.len())
                                .filter(|i| {
                                    let l = lines[*i].trim_start();
                                    ["id: ", "title: ", "date: ", "superseded_by: ", "- "]
                                        .iter()
                                        .any(|k| l.starts_with(k))
                                })
                                .collect();
                            if let Some(&i) = strings.get(at(n, strings.len())) {
                                let line = &lines[i];
                                let head = match line.find(": ").or_else(|| line.find("- ")) {
                                    Some(p) => line[..p + 2].to_owned(),
                                    None => format!("{line} "),
                                };
                                lines[i] = format!("{head}{v}");
                            }
                        }
                        Twist::Insert(n, e) => {
                            let i = at(n, lines.len() + 1);
                            lines.insert(i, e.trim_end_matches('\n').to_owned());
                        }
                        Twist::Drop(n) => {
                            if !lines.is_empty() {
                                lines.remove(at(n, lines.len()));
                            }
                        }
                        Twist::Repeat(n) => {
                            if !lines.is_empty() {
                                let i = at(n, lines.len());
                                lines.insert(i, lines[i].clone());
                            }
                        }
                    }
                }
                lines.iter().map(|l| format!("{l}\n")).collect::<String>()
            });
            prop_oneof![
                6 => twisted,
                1 => prop::collection::vec(entry(), 0..12).prop_map(|e| e.concat()),
            ]
        }

        fn text() -> impl Strategy<Value = String> {
            prop_oneof![4 => "[a-z][a-z0-9 ]{0,10}[a-z0-9]", 2 => tricky(), 1 => any::<String>()]
        }

        /// A record as majordomus builds one: any values, written by `yaml_serde`.
        fn record() -> impl Strategy<Value = KnowledgeRecord> {
            (
                (text(), text(), text(), text()),
                prop::sample::select(Class::NAMES.to_vec()),
                0usize..3,
                0usize..3,
                any::<bool>(),
                prop::collection::vec(text(), 0..4),
                prop::option::of(text()),
                prop::option::of(prop::collection::vec(text(), 0..3)),
            )
                .prop_map(
                    |(
                        (id, schema, title, date),
                        class,
                        status,
                        stance,
                        authored,
                        derived_from,
                        superseded_by,
                        relations,
                    )| {
                        KnowledgeRecord {
                            id,
                            schema,
                            class: Class::from_name(class).expect("a class name"),
                            status: [Status::Candidate, Status::Verified, Status::Superseded]
                                [status],
                            stance: [Stance::Observed, Stance::Inferred, Stance::Decided][stance],
                            title,
                            date,
                            provenance: Provenance {
                                origin: if authored {
                                    Origin::Authored
                                } else {
                                    Origin::Extracted
                                },
                                derived_from,
                            },
                            superseded_by,
                            relations,
                        }
                    },
                )
        }

        proptest! {
            #[test]
            fn fast_path_agrees_with_yaml_on_typed_front_matter(yaml in front_matter()) {
                if let Some(fast) = parse_front_fast(&yaml) {
                    let full = yaml_serde::from_str::<KnowledgeRecord>(&yaml);
                    prop_assert!(
                        matches!(&full, Ok(r) if *r == fast),
                        "the fast path read {fast:?}\nyaml_serde read {full:?}\nfrom:\n{yaml}"
                    );
                }
            }

            #[test]
            fn fast_path_agrees_with_yaml_on_arbitrary_text(yaml in any::<String>()) {
                if let Some(fast) = parse_front_fast(&yaml) {
                    let full = yaml_serde::from_str::<KnowledgeRecord>(&yaml).ok();
                    prop_assert_eq!(full, Some(fast), "{}", yaml);
                }
            }

            #[test]
            fn what_majordomus_writes_reads_back_through_either_path(record in record()) {
                let yaml = yaml_serde::to_string(&record).expect("serialises");
                prop_assert_eq!(
                    yaml_serde::from_str::<KnowledgeRecord>(&yaml).ok(),
                    Some(record.clone()),
                    "{}", yaml
                );
                if let Some(fast) = parse_front_fast(&yaml) {
                    prop_assert_eq!(fast, record, "{}", yaml);
                }
            }

            #[test]
            fn plain_words_take_the_fast_path(
                id in "2026[01][0-9][0-3][0-9]T[0-2][0-9][0-5][0-9]{3}Z-[a-f0-9]{6}-[a-f0-9]{12}",
                title in "w[a-z ]{0,20}[a-z]",
                derived in prop::collection::vec("(session|task|file):[a-z0-9/._-]{1,12}[a-z]", 0..4),
            ) {
                let record = KnowledgeRecord {
                    id,
                    schema: "knowledge/v1".into(),
                    class: Class::Convention,
                    status: Status::Candidate,
                    stance: Stance::Decided,
                    title,
                    date: "2026-11-30".into(),
                    provenance: Provenance { origin: Origin::Extracted, derived_from: derived },
                    superseded_by: None,
                    relations: None,
                };
                let yaml = yaml_serde::to_string(&record).expect("serialises");
                prop_assert_eq!(parse_front_fast(&yaml), Some(record), "{}", yaml);
            }
        }
    }
}
