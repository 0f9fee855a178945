//! Policy (SPEC §2): defaults in code, `.ai/repo/policy.yaml` overrides, unknown keys refused.

use serde::Serialize;
use yaml_serde::Value;

use super::compose::Section;

/// The effective policy of a repository.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Policy {
    /// The dotted keys the policy file set, sorted (defaults fill the rest).
    #[serde(skip)]
    pub declared: Vec<String>,
    pub session: SessionPolicy,
    pub handover: HandoverPolicy,
    pub knowledge: KnowledgePolicy,
    pub intent: IntentPolicy,
    pub reasoning: ReasoningPolicy,
    pub ledger: LedgerPolicy,
    pub journal: JournalPolicy,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionPolicy {
    pub record_sections: Vec<Section>,
    pub knowledge_on_end: bool,
    pub knowledge_on_compact: bool,
    pub freshness: Freshness,
    pub briefing_budget_lines: u64,
    /// Items per list section of a closed record (and per list of the working context).
    pub record_section_max_items: u64,
    /// Write a checkpoint when a provider compacts its conversation.
    pub checkpoint_on_compact: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandoverPolicy {
    pub sections: Vec<HandoverSection>,
}

/// A section of a derived handover (SPEC §4); each has exactly one writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HandoverSection {
    Done,
    NextAction,
    OpenQuestions,
    Reasoning,
    Knowledge,
}

impl HandoverSection {
    pub const ALL: [HandoverSection; 5] = [
        HandoverSection::Done,
        HandoverSection::NextAction,
        HandoverSection::OpenQuestions,
        HandoverSection::Reasoning,
        HandoverSection::Knowledge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HandoverSection::Done => "done",
            HandoverSection::NextAction => "next_action",
            HandoverSection::OpenQuestions => "open_questions",
            HandoverSection::Reasoning => "reasoning",
            HandoverSection::Knowledge => "knowledge",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            HandoverSection::Done => "Done",
            HandoverSection::NextAction => "Next Action",
            HandoverSection::OpenQuestions => "Open Questions",
            HandoverSection::Reasoning => "Reasoning",
            HandoverSection::Knowledge => "Knowledge",
        }
    }

    pub fn from_name(name: &str) -> Option<HandoverSection> {
        HandoverSection::ALL.into_iter().find(|s| s.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Freshness {
    pub stale_minutes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnowledgePolicy {
    pub candidates_max_files: u64,
    pub candidate_max_age_minutes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntentPolicy {
    pub binding: Binding,
    pub exemptions: Vec<Exemption>,
}

/// How strongly a task start asks the intent binding (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Off,
    Advisory,
    Required,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exemption {
    pub class: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasoningPolicy {
    pub mode: ReasoningMode,
}

/// The reasoning profile (SPEC §7).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningMode {
    Ci,
    Fast,
    Standard,
    Offline,
    Strict,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerPolicy {
    pub retention_days: Option<u64>,
}

/// SPEC §12: whether this repository publishes its ledgers as journal refs (off by
/// default; `majordomus journal enable` sets it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JournalPolicy {
    pub share: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            declared: Vec::new(),
            session: SessionPolicy {
                record_sections: Section::ALL.to_vec(),
                knowledge_on_end: true,
                knowledge_on_compact: true,
                freshness: Freshness { stale_minutes: 120 },
                briefing_budget_lines: 40,
                record_section_max_items: 200,
                checkpoint_on_compact: true,
            },
            handover: HandoverPolicy {
                sections: HandoverSection::ALL.to_vec(),
            },
            knowledge: KnowledgePolicy {
                candidates_max_files: 50,
                candidate_max_age_minutes: 10080,
            },
            intent: IntentPolicy {
                binding: Binding::Off,
                exemptions: Vec::new(),
            },
            reasoning: ReasoningPolicy {
                mode: ReasoningMode::Standard,
            },
            ledger: LedgerPolicy {
                retention_days: None,
            },
            journal: JournalPolicy { share: false },
        }
    }
}

/// Every key the policy file may set, spelled with dots as SPEC §2 spells them.
pub const KEYS: &[&str] = &[
    "session.record_sections",
    "session.knowledge_on_end",
    "session.knowledge_on_compact",
    "session.freshness.stale_minutes",
    "session.briefing_budget_lines",
    "session.checkpoint_on_compact",
    "handover.sections",
    "session.record_section_max_items",
    "knowledge.candidates_max_files",
    "knowledge.candidate_max_age_minutes",
    "intent.binding",
    "intent.exemptions",
    "reasoning.mode",
    "ledger.retention_days",
    "journal.share",
];

/// Why a policy file was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("{file}: line {line}, column {column}: malformed YAML: {message}")]
    Malformed {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: unknown key `{key}`")]
    UnknownKey { file: String, key: String },
    #[error("{file}: key `{key}` must be {expected}")]
    InvalidValue {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: {key} names `{name}`, a section with no writer")]
    SectionWithoutWriter {
        file: String,
        key: String,
        name: String,
    },
}

impl Policy {
    /// Parses a policy file's text; `file` names it in errors. Keys may be nested
    /// (`session: {knowledge_on_end: false}`) or dotted (`session.knowledge_on_end: false`).
    pub fn parse(text: &str, file: &str) -> Result<Policy, PolicyError> {
        // A UTF-8 byte order mark (some editors write one) is not part of the YAML.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root: Value = yaml_serde::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            PolicyError::Malformed {
                file: file.to_owned(),
                line,
                column,
                // The position is already in the message's prefix.
                message: e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            }
        })?;
        let mut leaves = Vec::new();
        match &root {
            Value::Null => {}
            Value::Mapping(_) => flatten(&root, "", file, &mut leaves)?,
            _ => {
                return Err(PolicyError::InvalidValue {
                    file: file.to_owned(),
                    key: "(top level)".to_owned(),
                    expected: "a mapping of policy keys".to_owned(),
                });
            }
        }
        let mut policy = Policy::default();
        for (key, value) in leaves {
            policy.set(&key, value, file)?;
            policy.declared.push(key);
        }
        policy.declared.sort();
        policy.declared.dedup();
        Ok(policy)
    }

    fn set(&mut self, key: &str, value: &Value, file: &str) -> Result<(), PolicyError> {
        let invalid = |expected: &str| PolicyError::InvalidValue {
            file: file.to_owned(),
            key: key.to_owned(),
            expected: expected.to_owned(),
        };
        let count = |v: &Value| v.as_u64().ok_or_else(|| invalid("a whole number"));
        let flag = |v: &Value| v.as_bool().ok_or_else(|| invalid("true or false"));
        match key {
            "session.record_sections" => {
                let items = value
                    .as_sequence()
                    .ok_or_else(|| invalid("a list of section names"))?;
                let mut sections = Vec::with_capacity(items.len());
                for item in items {
                    let name = item
                        .as_str()
                        .ok_or_else(|| invalid("a list of section names"))?;
                    let section = Section::from_name(name).ok_or_else(|| {
                        PolicyError::SectionWithoutWriter {
                            file: file.to_owned(),
                            key: key.to_owned(),
                            name: name.to_owned(),
                        }
                    })?;
                    if !sections.contains(&section) {
                        sections.push(section);
                    }
                }
                if sections.is_empty() {
                    return Err(invalid(
                        "a non-empty list of section names (a record is never empty)",
                    ));
                }
                self.session.record_sections = sections;
            }
            "session.knowledge_on_end" => self.session.knowledge_on_end = flag(value)?,
            "session.knowledge_on_compact" => self.session.knowledge_on_compact = flag(value)?,
            "session.checkpoint_on_compact" => self.session.checkpoint_on_compact = flag(value)?,
            "handover.sections" => {
                let items = value
                    .as_sequence()
                    .ok_or_else(|| invalid("a list of section names"))?;
                let mut sections = Vec::with_capacity(items.len());
                for item in items {
                    let name = item
                        .as_str()
                        .ok_or_else(|| invalid("a list of section names"))?;
                    let section = HandoverSection::from_name(name).ok_or_else(|| {
                        PolicyError::SectionWithoutWriter {
                            file: file.to_owned(),
                            key: key.to_owned(),
                            name: name.to_owned(),
                        }
                    })?;
                    if !sections.contains(&section) {
                        sections.push(section);
                    }
                }
                if sections.is_empty() {
                    return Err(invalid("a non-empty list of section names"));
                }
                self.handover.sections = sections;
            }
            "session.freshness.stale_minutes" => {
                self.session.freshness.stale_minutes = count(value)?
            }
            "session.briefing_budget_lines" => self.session.briefing_budget_lines = count(value)?,
            "session.record_section_max_items" => {
                self.session.record_section_max_items = count(value)?
            }
            "knowledge.candidates_max_files" => self.knowledge.candidates_max_files = count(value)?,
            "knowledge.candidate_max_age_minutes" => {
                self.knowledge.candidate_max_age_minutes = count(value)?
            }
            "intent.binding" => {
                self.intent.binding = match value.as_str() {
                    Some("off") => Binding::Off,
                    Some("advisory") => Binding::Advisory,
                    Some("required") => Binding::Required,
                    _ => return Err(invalid("one of off, advisory, required")),
                }
            }
            "intent.exemptions" => {
                let expected = "a list of {class, description}";
                let items = match value {
                    Value::Null => &Vec::new(),
                    v => v.as_sequence().ok_or_else(|| invalid(expected))?,
                };
                let mut exemptions = Vec::with_capacity(items.len());
                for item in items {
                    let map = item.as_mapping().ok_or_else(|| invalid(expected))?;
                    for k in map.keys() {
                        if !matches!(k.as_str(), Some("class" | "description")) {
                            return Err(invalid(expected));
                        }
                    }
                    let field = |name: &str| {
                        map.get(name)
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                            .ok_or_else(|| invalid(expected))
                    };
                    exemptions.push(Exemption {
                        class: field("class")?,
                        description: field("description")?,
                    });
                }
                self.intent.exemptions = exemptions;
            }
            "reasoning.mode" => {
                self.reasoning.mode = match value.as_str() {
                    Some("ci") => ReasoningMode::Ci,
                    Some("fast") => ReasoningMode::Fast,
                    Some("standard") => ReasoningMode::Standard,
                    Some("offline") => ReasoningMode::Offline,
                    Some("strict") => ReasoningMode::Strict,
                    _ => return Err(invalid("one of ci, fast, standard, offline, strict")),
                }
            }
            "ledger.retention_days" => {
                self.ledger.retention_days = match value {
                    Value::Null => None,
                    Value::String(s) if s == "none" => None,
                    v => Some(count(v).map_err(|_| invalid("a whole number of days or none"))?),
                }
            }
            "journal.share" => self.journal.share = flag(value)?,
            _ => unreachable!("flatten only yields keys from KEYS"),
        }
        Ok(())
    }
}

/// `text` (a policy file) with `journal.share` set to `share`, everything else kept byte
/// for byte: the key's line rewritten where it is (nested under `journal:` or dotted),
/// else added under `journal:`, else a `journal:` section appended. The caller parses the
/// result, which must read back with the value set.
pub fn with_journal_share(text: &str, share: bool) -> String {
    let value = if share { "true" } else { "false" };
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let top = |l: &str| !l.starts_with([' ', '\t', '#']) && !l.trim().is_empty();
    if let Some(i) = lines.iter().position(|l| l.starts_with("journal.share:")) {
        lines[i] = format!("journal.share: {value}");
    } else if let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("journal:") && top(l))
    {
        let rest = lines[i]["journal:".len()..].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            // Flow style (`journal: {share: false}`): the section is rewritten in block style.
            lines[i] = format!("journal:\n  share: {value}");
        } else {
            let end = lines[i + 1..]
                .iter()
                .position(|l| top(l))
                .map_or(lines.len(), |n| i + 1 + n);
            match (i + 1..end).find(|&j| lines[j].trim_start().starts_with("share:")) {
                Some(j) => {
                    let indent = lines[j].len() - lines[j].trim_start().len();
                    lines[j] = format!("{}share: {value}", &lines[j][..indent]);
                }
                None => lines.insert(i + 1, format!("  share: {value}")),
            }
        }
    } else {
        lines.push("journal:".to_owned());
        lines.push(
            "  # Publish this ledger as refs/majordomus/journal/<writer> (docs/JOURNAL.md)."
                .to_owned(),
        );
        lines.push(format!("  share: {value}"));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Walks the mapping and collects `(dotted key, value)` for every known leaf; anything
/// else is an unknown key, named with its full dotted path.
fn flatten<'v>(
    value: &'v Value,
    prefix: &str,
    file: &str,
    out: &mut Vec<(String, &'v Value)>,
) -> Result<(), PolicyError> {
    let map = value.as_mapping().expect("caller passes a mapping");
    for (k, v) in map {
        let name = match k {
            Value::String(s) => s.clone(),
            other => yaml_serde::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        let key = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        let is_section = KEYS
            .iter()
            .any(|known| known.starts_with(&format!("{key}.")));
        if KEYS.contains(&key.as_str()) {
            out.push((key, v));
        } else if is_section && v.is_mapping() {
            flatten(v, &key, file, out)?;
        } else if is_section && v.is_null() {
            // A section whose keys are all commented out: the defaults.
        } else if is_section {
            return Err(PolicyError::InvalidValue {
                file: file.to_owned(),
                key,
                expected: "a mapping of its keys".to_owned(),
            });
        } else {
            return Err(PolicyError::UnknownKey {
                file: file.to_owned(),
                key,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = ".ai/repo/policy.yaml";

    #[test]
    fn empty_file_is_the_defaults() {
        assert_eq!(Policy::parse("", FILE), Ok(Policy::default()));
        assert_eq!(Policy::parse("# nothing\n", FILE), Ok(Policy::default()));
    }

    #[test]
    fn nested_and_dotted_keys_agree() {
        let nested = "session:\n  knowledge_on_end: false\n  freshness:\n    stale_minutes: 5\n";
        let dotted = "session.knowledge_on_end: false\nsession.freshness.stale_minutes: 5\n";
        let a = Policy::parse(nested, FILE).expect("nested parses");
        let b = Policy::parse(dotted, FILE).expect("dotted parses");
        assert_eq!(a, b);
        assert!(!a.session.knowledge_on_end);
        assert_eq!(a.session.freshness.stale_minutes, 5);
    }

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = Policy::parse("session:\n  knowledge_on_start: true\n", FILE).unwrap_err();
        assert_eq!(
            err,
            PolicyError::UnknownKey {
                file: FILE.into(),
                key: "session.knowledge_on_start".into()
            }
        );
        let err = Policy::parse("colour: blue\n", FILE).unwrap_err();
        assert!(matches!(err, PolicyError::UnknownKey { key, .. } if key == "colour"));
    }

    #[test]
    fn malformed_yaml_names_the_line() {
        let err = Policy::parse("session:\n  knowledge_on_end: [\n", FILE).unwrap_err();
        match err {
            PolicyError::Malformed { line, .. } => assert!(line >= 2, "line {line}"),
            other => panic!("expected malformed, got {other:?}"),
        }
    }

    #[test]
    fn wrong_types_are_refused_by_key() {
        let err = Policy::parse("session:\n  briefing_budget_lines: many\n", FILE).unwrap_err();
        assert!(
            matches!(err, PolicyError::InvalidValue { key, .. } if key == "session.briefing_budget_lines")
        );
        let err = Policy::parse("intent:\n  binding: sometimes\n", FILE).unwrap_err();
        assert!(matches!(err, PolicyError::InvalidValue { key, .. } if key == "intent.binding"));
    }

    #[test]
    fn empty_sections_are_defaults_and_scalars_are_refused() {
        let p = Policy::parse("session:\n  # knowledge_on_end: false\n", FILE).expect("parses");
        assert_eq!(p, Policy::default());
        let err = Policy::parse("session: 5\n", FILE).unwrap_err();
        assert!(matches!(err, PolicyError::InvalidValue { key, .. } if key == "session"));
        let err = Policy::parse("session:\n  record_sections: []\n", FILE).unwrap_err();
        assert!(
            matches!(err, PolicyError::InvalidValue { key, .. } if key == "session.record_sections")
        );
    }

    #[test]
    fn record_section_without_writer_is_named() {
        let err =
            Policy::parse("session:\n  record_sections: [summary, notes]\n", FILE).unwrap_err();
        assert_eq!(
            err,
            PolicyError::SectionWithoutWriter {
                file: FILE.into(),
                key: "session.record_sections".into(),
                name: "notes".into()
            }
        );
    }

    #[test]
    fn journal_share_is_set_in_place_or_added() {
        let skeleton = "ledger:\n  # Days to keep.\n  retention_days: null\n";
        let on = with_journal_share(skeleton, true);
        assert!(on.starts_with(skeleton), "{on}");
        assert!(Policy::parse(&on, FILE).expect("parses").journal.share);
        let off = with_journal_share(&on, false);
        assert_eq!(off, on.replace("share: true", "share: false"));
        assert!(!Policy::parse(&off, FILE).expect("parses").journal.share);
        for text in [
            "journal:\n    share: false # old\nledger: {}\n",
            "journal.share: false\n",
            "journal: {share: false}\n",
            "journal:\n",
            "",
        ] {
            let set = with_journal_share(text, true);
            assert!(
                Policy::parse(&set, FILE).expect("parses").journal.share,
                "{text:?} -> {set:?}"
            );
        }
    }

    #[test]
    fn every_key_parses() {
        let text = "\
session:
  record_sections: [commits, summary]
  knowledge_on_end: false
  knowledge_on_compact: false
  freshness: {stale_minutes: 1}
  briefing_budget_lines: 2
  record_section_max_items: 7
knowledge:
  candidates_max_files: 3
  candidate_max_age_minutes: 4
intent:
  binding: required
  exemptions: [{class: docs, description: documentation only}]
reasoning:
  mode: strict
ledger:
  retention_days: 30
";
        let p = Policy::parse(text, FILE).expect("parses");
        assert_eq!(
            p.session.record_sections,
            vec![Section::Commits, Section::Summary]
        );
        assert_eq!(p.knowledge.candidate_max_age_minutes, 4);
        assert_eq!(p.session.record_section_max_items, 7);
        assert_eq!(p.intent.binding, Binding::Required);
        assert_eq!(p.intent.exemptions[0].class, "docs");
        assert_eq!(p.reasoning.mode, ReasoningMode::Strict);
        assert_eq!(p.ledger.retention_days, Some(30));
    }
}
