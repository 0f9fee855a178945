//! The pure half of consulting: the question an advisor is asked, the normalisation of its
//! answer into consultation fields or a typed failure, the diagnostic line, the fixture
//! file format, and the disagreement `consult` records when stances diverge. Spawning,
//! deadlines and cancellation belong to the process transport outside the model.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::record::{
    Assessment, Confidence, Consultation, ConsultationStatus, Disagreement, FailureKind, Holder,
    Position, Stance, Usage, normalise_subject,
};

/// The keys of an advisor's answer object.
pub const ANSWER_KEYS: [&str; 8] = [
    "conclusion",
    "stance",
    "assumptions",
    "risks",
    "actions",
    "falsifiers",
    "confidence",
    "usage",
];

/// The longest diagnostic kept, in characters.
const DIAGNOSTIC_MAX_CHARS: usize = 300;

/// The question for an advisor: the distilled evidence as facts, the executor's hypothesis
/// and any prior answer marked as opinions, and what is asked of the advisor.
pub fn question(
    assessment: &Assessment,
    asked: Option<&str>,
    prior_opinion: Option<&str>,
) -> String {
    let mut q = String::new();
    q.push_str(
        "You are asked for an independent review of an engineering decision. The executor \
         decides; your answer is evidence it weighs, not a verdict.\n\n",
    );
    q.push_str(&format!("Subject: {}\n", assessment.subject.trim()));
    q.push_str(&format!("Materiality: {}\n", assessment.materiality.name()));
    let list = |q: &mut String, title: &str, items: &[String]| {
        if items.is_empty() {
            return;
        }
        q.push_str(&format!("\n{title}\n"));
        for item in items {
            q.push_str(&format!("- {}\n", item.trim()));
        }
    };
    list(&mut q, "Facts (observed):", &assessment.facts);
    let refs: Vec<String> = assessment.evidence.iter().map(|e| e.0.clone()).collect();
    list(&mut q, "Evidence (references, as gathered):", &refs);
    list(
        &mut q,
        "Assumptions the hypothesis makes:",
        &assessment.assumptions,
    );
    list(&mut q, "Open questions:", &assessment.questions);
    let confidence = match assessment.confidence {
        Confidence::Low => "low",
        Confidence::Medium => "medium",
        Confidence::High => "high",
    };
    q.push_str(&format!(
        "\nOPINION, not fact — the executor's hypothesis (its confidence: {confidence}):\n{}\n",
        assessment.hypothesis.trim()
    ));
    if let Some(prior) = prior_opinion.map(str::trim).filter(|p| !p.is_empty()) {
        q.push_str(&format!(
            "\nOPINION, not fact — an earlier answer to the same question:\n{prior}\n"
        ));
    }
    if let Some(asked) = asked.map(str::trim).filter(|a| !a.is_empty()) {
        q.push_str(&format!("\nThe question: {asked}\n"));
    }
    q.push_str(
        "\nGive:\n\
         1. the strongest argument against the hypothesis (or for the best alternative);\n\
         2. the hidden assumptions it rests on;\n\
         3. an experiment whose result would falsify it.\n\
         \n\
         Reply with one JSON object and nothing else:\n\
         {\"conclusion\": \"<your answer in one paragraph>\", \
         \"stance\": \"supports|opposes|alternative|uncertain\", \
         \"assumptions\": [\"...\"], \"risks\": [\"...\"], \"actions\": [\"...\"], \
         \"falsifiers\": [\"...\"], \"confidence\": \"low|medium|high\"}\n\
         `stance` is relative to the executor's hypothesis.\n",
    );
    q
}

/// An advisor's answer, normalised into consultation fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "AdvisorAnswer")]
pub struct Answer {
    pub conclusion: String,
    pub stance: Option<Stance>,
    pub assumptions: Vec<String>,
    pub risks: Vec<String>,
    pub actions: Vec<String>,
    pub falsifiers: Vec<String>,
    pub confidence: Option<Confidence>,
    pub usage: Option<Usage>,
}

/// A typed failure of one exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    pub kind: FailureKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
}

impl Failure {
    fn new(kind: FailureKind, diagnostic: &str) -> Failure {
        Failure {
            kind,
            retry_after_seconds: None,
            diagnostic: Some(diagnostic.to_owned()),
        }
    }
}

/// Normalises an adapter's standard output: one JSON object, possibly inside a code fence
/// or surrounding text, possibly wrapped in an envelope whose `result` or `response`
/// string holds it. Nothing of the raw text is kept.
pub fn parse_answer(stdout: &str) -> Result<Answer, Failure> {
    let text = stdout.trim();
    if text.is_empty() {
        return Err(Failure::new(
            FailureKind::Empty,
            "the advisor wrote nothing",
        ));
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return normalise_answer(&value);
    }
    // Text around a JSON object (a fence, a preamble): the outermost braces.
    if let (Some(start), Some(end)) = (text.find('{'), text.rfind('}'))
        && start < end
        && let Ok(value) = serde_json::from_str::<Value>(&text[start..=end])
    {
        return normalise_answer(&value);
    }
    Err(Failure::new(
        FailureKind::Malformed,
        "the answer is not a JSON object",
    ))
}

/// Normalises an answer object into consultation fields, or `malformed` / `empty`.
pub fn normalise_answer(value: &Value) -> Result<Answer, Failure> {
    let malformed = |why: &str| Failure::new(FailureKind::Malformed, why);
    let object = value
        .as_object()
        .ok_or_else(|| malformed("the answer is not a JSON object"))?;
    if !object.contains_key("conclusion") {
        // An envelope around the answer text.
        if let Some(inner) = ["result", "response"]
            .iter()
            .find_map(|k| object.get(*k).and_then(Value::as_str))
        {
            let mut answer = parse_answer(inner)?;
            if answer.usage.is_none() {
                answer.usage = object.get("usage").and_then(usage);
            }
            return Ok(answer);
        }
    }
    let conclusion = match object.get("conclusion") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Some(_) => return Err(malformed("`conclusion` is not a string")),
    };
    let Some(conclusion) = conclusion else {
        return Err(Failure::new(
            FailureKind::Empty,
            "the answer has no conclusion",
        ));
    };
    let stance = match object.get("stance") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(match s.trim().to_ascii_lowercase().as_str() {
            "supports" => Stance::Supports,
            "opposes" => Stance::Opposes,
            "alternative" => Stance::Alternative,
            "uncertain" => Stance::Uncertain,
            _ => {
                return Err(malformed(
                    "`stance` is not supports, opposes, alternative or uncertain",
                ));
            }
        }),
        Some(_) => return Err(malformed("`stance` is not a string")),
    };
    let list = |key: &str| -> Result<Vec<String>, Failure> {
        let items = match object.get(key) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .ok_or_else(|| malformed(&format!("`{key}` holds a non-string")))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(malformed(&format!("`{key}` is not a list of strings"))),
        };
        Ok(items
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect())
    };
    // An unreadable confidence costs the field, not the answer.
    let confidence = object
        .get("confidence")
        .and_then(Value::as_str)
        .and_then(|s| match s.trim().to_ascii_lowercase().as_str() {
            "low" => Some(Confidence::Low),
            "medium" => Some(Confidence::Medium),
            "high" => Some(Confidence::High),
            _ => None,
        });
    Ok(Answer {
        conclusion,
        stance,
        assumptions: list("assumptions")?,
        risks: list("risks")?,
        actions: list("actions")?,
        falsifiers: list("falsifiers")?,
        confidence,
        usage: object.get("usage").and_then(usage),
    })
}

/// Token counts from a usage object (`input_tokens`/`output_tokens`, or
/// `prompt_tokens`/`completion_tokens`); `None` when it names neither.
fn usage(value: &Value) -> Option<Usage> {
    let object = value.as_object()?;
    let count = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| object.get(*k).and_then(Value::as_u64))
    };
    let input = count(["input_tokens", "prompt_tokens"]);
    let output = count(["output_tokens", "completion_tokens"]);
    (input.is_some() || output.is_some()).then(|| Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
    })
}

/// The diagnostic of a failed exchange: the last non-blank line of standard error, with
/// terminal escape sequences and control characters removed, at most 300 characters.
pub fn diagnostic(stderr: &str) -> Option<String> {
    let clean = strip_control(stderr);
    let line = clean.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    Some(line.chars().take(DIAGNOSTIC_MAX_CHARS).collect())
}

/// Removes ANSI escape sequences (CSI and OSC) and every control character but newline.
fn strip_control(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // Parameters and intermediates up to the final byte (@ to ~).
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    // Up to BEL or ESC \.
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\n' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The consultation record for one exchange under `plan`.
pub fn consultation(
    plan: &str,
    advisor: &str,
    outcome: Result<Answer, Failure>,
    duration_ms: u64,
) -> Consultation {
    let mut c = Consultation {
        plan: plan.to_owned(),
        advisor: advisor.to_owned(),
        status: ConsultationStatus::Completed,
        conclusion: None,
        stance: None,
        assumptions: Vec::new(),
        risks: Vec::new(),
        actions: Vec::new(),
        falsifiers: Vec::new(),
        confidence: None,
        duration_ms,
        usage: None,
        diagnostic: None,
        retry_after_seconds: None,
        source: None,
    };
    match outcome {
        Ok(a) => {
            c.conclusion = Some(a.conclusion);
            c.stance = a.stance;
            c.assumptions = a.assumptions;
            c.risks = a.risks;
            c.actions = a.actions;
            c.falsifiers = a.falsifiers;
            c.confidence = a.confidence;
            c.usage = a.usage;
        }
        Err(f) => {
            c.status = f.kind.into();
            c.retry_after_seconds = f
                .retry_after_seconds
                .filter(|_| f.kind == FailureKind::RateLimited);
            c.diagnostic = f.diagnostic.map(|d| strip_control(&d).replace('\n', " "));
        }
    }
    c
}

/// A fixture adapter's script: `$MAJORDOMUS_ADVISOR_FIXTURES/<id>.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixture {
    /// The answer (already normalised: a scripted blank conclusion plays `empty`), or the
    /// scripted failure.
    pub outcome: Result<Answer, Failure>,
    /// How long to wait before answering (to exercise the deadline).
    pub delay_ms: Option<u64>,
}

/// Why a fixture file was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {problem}")]
pub struct FixtureError {
    pub file: String,
    pub problem: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    #[serde(default)]
    answer: Option<Map<String, Value>>,
    #[serde(default)]
    failure: Option<FixtureFailure>,
    #[serde(default)]
    delay_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFailure {
    kind: FailureKind,
    #[serde(default)]
    retry_after_seconds: Option<u64>,
    #[serde(default)]
    diagnostic: Option<String>,
}

/// Parses a fixture strictly: exactly one of `answer` and `failure`, no unknown keys (in
/// the answer either), `retry_after_seconds` only with `rate_limited`.
pub fn parse_fixture(text: &str, file: &str) -> Result<Fixture, FixtureError> {
    let error = |problem: String| FixtureError {
        file: file.to_owned(),
        problem,
    };
    let parsed: FixtureFile = serde_json::from_str(text).map_err(|e| error(e.to_string()))?;
    let outcome = match (parsed.answer, parsed.failure) {
        (Some(answer), None) => {
            if let Some(key) = answer.keys().find(|k| !ANSWER_KEYS.contains(&k.as_str())) {
                return Err(error(format!(
                    "unknown answer key `{key}` (keys: {})",
                    ANSWER_KEYS.join(", ")
                )));
            }
            normalise_answer(&Value::Object(answer))
        }
        (None, Some(f)) => {
            if f.retry_after_seconds.is_some() && f.kind != FailureKind::RateLimited {
                return Err(error(format!(
                    "`retry_after_seconds` goes with kind rate_limited, not {}",
                    f.kind.name()
                )));
            }
            Err(Failure {
                kind: f.kind,
                retry_after_seconds: f.retry_after_seconds,
                diagnostic: f.diagnostic,
            })
        }
        _ => {
            return Err(error(
                "a fixture has exactly one of `answer` and `failure`".to_owned(),
            ));
        }
    };
    Ok(Fixture {
        outcome,
        delay_ms: parsed.delay_ms,
    })
}

/// The disagreement to record when the completed consultations' stances diverge: any
/// `opposes` or `alternative` (beside a `supports`, or against the executor, who holds its
/// own hypothesis). `consultations` are `(id, consultation)` in plan order; failed ones are
/// ignored. `None` when nothing diverges.
pub fn detect_disagreement(
    assessment_id: &str,
    assessment: &Assessment,
    consultations: &[(&str, &Consultation)],
) -> Option<Disagreement> {
    let completed: Vec<(&str, &Consultation)> = consultations
        .iter()
        .filter(|(_, c)| c.status == ConsultationStatus::Completed)
        .copied()
        .collect();
    let stance = |c: &Consultation| c.stance.unwrap_or(Stance::Uncertain);
    let (_, first) = *completed.iter().find(|(_, c)| stance(c).diverges())?;

    let mut positions = vec![Position {
        holder: Holder::Executor,
        consultation: None,
        stance: Stance::Supports,
        claim: assessment.hypothesis.clone(),
    }];
    positions.extend(completed.iter().map(|(id, c)| Position {
        holder: Holder::Advisor(c.advisor.clone()),
        consultation: Some((*id).to_owned()),
        stance: stance(c),
        claim: c.conclusion.clone().unwrap_or_default(),
    }));

    // An assumption diverges when some holder states it and another does not.
    let sets: Vec<&[String]> = std::iter::once(assessment.assumptions.as_slice())
        .chain(completed.iter().map(|(_, c)| c.assumptions.as_slice()))
        .collect();
    let held: Vec<BTreeSet<String>> = sets
        .iter()
        .map(|s| s.iter().map(|a| normalise_subject(a)).collect())
        .collect();
    let mut seen = BTreeSet::new();
    let mut divergent = Vec::new();
    for assumption in sets.iter().flat_map(|s| s.iter()) {
        let key = normalise_subject(assumption);
        if !key.is_empty() && seen.insert(key.clone()) && !held.iter().all(|h| h.contains(&key)) {
            divergent.push(assumption.clone());
        }
    }

    let claim = first.conclusion.as_deref().unwrap_or_default();
    let question = match first.falsifiers.first() {
        Some(falsifier) => format!(
            "Which holds: the executor's \"{}\" or {}'s \"{claim}\"? Decide by: {falsifier}",
            assessment.hypothesis.trim(),
            first.advisor
        ),
        None => format!(
            "Which holds: the executor's \"{}\" or {}'s \"{claim}\"? Decide by the smallest experiment whose result differs between them.",
            assessment.hypothesis.trim(),
            first.advisor
        ),
    };
    Some(Disagreement {
        assessment: assessment_id.to_owned(),
        positions,
        divergent_assumptions: divergent,
        question,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reasoning::record::{EvidenceRef, Materiality};
    use serde_json::json;

    fn assessment() -> Assessment {
        Assessment {
            subject: "Date landings by the forge's merge record".into(),
            materiality: Materiality::High,
            confidence: Confidence::Medium,
            hypothesis: "The reflog is enough".into(),
            facts: vec!["four landings seen within 94 s".into()],
            assumptions: vec!["the reflog sees every landing".into()],
            questions: vec!["is six hours the right threshold?".into()],
            evidence: vec![EvidenceRef("command:git reflog => 4 landings".into())],
            capabilities: vec!["independent_reasoning".into()],
            new_evidence: None,
        }
    }

    #[test]
    fn the_question_marks_opinions_and_asks_for_the_counter_argument() {
        let q = question(
            &assessment(),
            Some("Keep the reflog?"),
            Some("Use the forge."),
        );
        assert!(q.contains("Subject: Date landings by the forge's merge record"));
        assert!(q.contains("- four landings seen within 94 s"));
        assert!(q.contains("- command:git reflog => 4 landings"));
        assert!(q.contains("OPINION, not fact — the executor's hypothesis (its confidence: medium):\nThe reflog is enough"));
        assert!(q.contains(
            "OPINION, not fact — an earlier answer to the same question:\nUse the forge."
        ));
        assert!(q.contains("The question: Keep the reflog?"));
        assert!(q.contains("strongest argument against"));
        assert!(q.contains("hidden assumptions"));
        assert!(q.contains("falsify"));
        let without = question(&assessment(), None, None);
        assert!(!without.contains("earlier answer"));
    }

    #[test]
    fn answers_normalise() {
        let a = parse_answer(
            r#"{"conclusion":" Use the forge ","stance":"Opposes","assumptions":"clones lag",
                "risks":[" a ",""],"confidence":"HIGH","usage":{"prompt_tokens":10,"completion_tokens":5},"extra":1}"#,
        )
        .unwrap();
        assert_eq!(a.conclusion, "Use the forge");
        assert_eq!(a.stance, Some(Stance::Opposes));
        assert_eq!(a.assumptions, vec!["clones lag"]);
        assert_eq!(a.risks, vec!["a"]);
        assert_eq!(a.confidence, Some(Confidence::High));
        assert_eq!(
            a.usage,
            Some(Usage {
                input_tokens: 10,
                output_tokens: 5
            })
        );

        // In a fence, or inside an envelope.
        let fenced =
            parse_answer("Here:\n```json\n{\"conclusion\":\"x\",\"stance\":\"supports\"}\n```")
                .unwrap();
        assert_eq!(fenced.stance, Some(Stance::Supports));
        let envelope = json!({"result": "{\"conclusion\":\"y\"}", "usage": {"input_tokens": 3, "output_tokens": 4}});
        let a = normalise_answer(&envelope).unwrap();
        assert_eq!((a.conclusion.as_str(), a.usage.unwrap().total()), ("y", 7));

        let kind = |r: Result<Answer, Failure>| r.unwrap_err().kind;
        assert_eq!(kind(parse_answer("  \n")), FailureKind::Empty);
        assert_eq!(kind(parse_answer("{}")), FailureKind::Empty);
        assert_eq!(
            kind(parse_answer(r#"{"conclusion":"  "}"#)),
            FailureKind::Empty
        );
        assert_eq!(kind(parse_answer("I think so.")), FailureKind::Malformed);
        assert_eq!(kind(parse_answer("[1]")), FailureKind::Malformed);
        assert_eq!(
            kind(parse_answer(r#"{"conclusion":"x","stance":"maybe"}"#)),
            FailureKind::Malformed
        );
        assert_eq!(
            kind(parse_answer(r#"{"conclusion":"x","risks":[1]}"#)),
            FailureKind::Malformed
        );
        assert_eq!(
            kind(parse_answer(r#"{"conclusion":7}"#)),
            FailureKind::Malformed
        );
    }

    #[test]
    fn the_diagnostic_is_the_last_stderr_line_without_control_characters() {
        let stderr = "starting\n\u{1b}[31merror:\u{1b}[0m token \u{7}expired\r\n\n  \n";
        assert_eq!(diagnostic(stderr).as_deref(), Some("error: token expired"));
        assert_eq!(diagnostic("\u{1b}]0;title\u{7}done"), Some("done".into()));
        assert_eq!(diagnostic(" \n "), None);
        assert_eq!(diagnostic(&"x".repeat(1000)).unwrap().len(), 300);
    }

    #[test]
    fn consultations_are_built_from_outcomes() {
        let ok = consultation(
            "plan-0123456789ab",
            "a",
            parse_answer(r#"{"conclusion":"c","stance":"supports"}"#),
            12,
        );
        assert_eq!(ok.status, ConsultationStatus::Completed);
        assert_eq!(ok.conclusion.as_deref(), Some("c"));
        let failed = consultation(
            "plan-0123456789ab",
            "a",
            Err(Failure {
                kind: FailureKind::RateLimited,
                retry_after_seconds: Some(30),
                diagnostic: Some("429\u{1b}[0m".into()),
            }),
            5,
        );
        assert_eq!(failed.status, ConsultationStatus::RateLimited);
        assert_eq!(failed.retry_after_seconds, Some(30));
        assert_eq!(failed.diagnostic.as_deref(), Some("429"));
        assert_eq!(failed.conclusion, None);
    }

    #[test]
    fn fixtures_parse_strictly() {
        let f = parse_fixture(
            r#"{"answer":{"conclusion":"c","stance":"opposes","assumptions":[],"risks":[],"actions":[],"falsifiers":["f"],"confidence":"low","usage":{"input_tokens":1,"output_tokens":2}},"delay_ms":50}"#,
            "a.json",
        )
        .unwrap();
        assert_eq!(f.delay_ms, Some(50));
        assert_eq!(f.outcome.unwrap().stance, Some(Stance::Opposes));

        let f = parse_fixture(r#"{"failure":{"kind":"rate_limited","retry_after_seconds":60,"diagnostic":"slow down"}}"#, "a.json").unwrap();
        let failure = f.outcome.unwrap_err();
        assert_eq!(
            (failure.kind, failure.retry_after_seconds),
            (FailureKind::RateLimited, Some(60))
        );

        for bad in [
            r#"{}"#,
            r#"{"answer":{"conclusion":"c"},"failure":{"kind":"timeout"}}"#,
            r#"{"answer":{"conclusion":"c","verdict":"x"}}"#,
            r#"{"failure":{"kind":"exploded"}}"#,
            r#"{"failure":{"kind":"timeout","retry_after_seconds":5}}"#,
            r#"{"failure":{"kind":"timeout","why":"x"}}"#,
            r#"{"answer":{"conclusion":"c"},"delay":5}"#,
            "not json",
        ] {
            let err = parse_fixture(bad, "fixtures/a.json").unwrap_err();
            assert_eq!(err.file, "fixtures/a.json", "{bad}");
        }
    }

    fn completed(advisor: &str, stance: Stance, assumptions: &[&str]) -> Consultation {
        let mut c = consultation(
            "plan-0123456789ab",
            advisor,
            Ok(Answer {
                conclusion: format!("{advisor} says {}", stance.name()),
                stance: Some(stance),
                assumptions: assumptions.iter().map(|a| (*a).to_owned()).collect(),
                risks: vec![],
                actions: vec![],
                falsifiers: vec![],
                confidence: None,
                usage: None,
            }),
            1,
        );
        if stance == Stance::Opposes {
            c.falsifiers = vec!["a landing the reflog misses".into()];
        }
        c
    }

    #[test]
    fn divergent_stances_make_a_disagreement() {
        let a = assessment();
        let one = completed("one", Stance::Supports, &["the reflog sees every landing"]);
        let two = completed("two", Stance::Supports, &["The reflog sees every landing."]);
        let three = completed("three", Stance::Opposes, &["clones can lag"]);
        let d = detect_disagreement(
            "assessment-0123456789ab",
            &a,
            &[
                ("consultation-000000000001", &one),
                ("consultation-000000000002", &two),
                ("consultation-000000000003", &three),
            ],
        )
        .expect("one opposes");
        assert_eq!(d.positions.len(), 4);
        assert_eq!(d.positions[0].holder, Holder::Executor);
        assert_eq!(d.positions[3].stance, Stance::Opposes);
        assert_eq!(
            d.positions[3].consultation.as_deref(),
            Some("consultation-000000000003")
        );
        assert_eq!(
            d.divergent_assumptions,
            vec!["the reflog sees every landing", "clones can lag"]
        );
        assert!(d.question.contains("three's"), "{}", d.question);
        assert!(
            d.question
                .ends_with("Decide by: a landing the reflog misses")
        );

        // Against the executor alone.
        let alt = completed("solo", Stance::Alternative, &[]);
        assert!(
            detect_disagreement(
                "assessment-0123456789ab",
                &a,
                &[("consultation-000000000004", &alt)]
            )
            .is_some()
        );

        // Agreement, uncertainty and failures make none.
        let unsure = completed("unsure", Stance::Uncertain, &[]);
        let failed = consultation(
            "plan-0123456789ab",
            "x",
            Err(Failure::new(FailureKind::Timeout, "t")),
            1,
        );
        assert_eq!(
            detect_disagreement(
                "assessment-0123456789ab",
                &a,
                &[("c1", &one), ("c2", &unsure), ("c3", &failed)]
            ),
            None
        );
    }
}
