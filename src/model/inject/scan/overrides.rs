//! Phrases that override what a model was told without naming its instructions: asking
//! it to give its prompt away, switching it into a "mode", taking its rules away, making
//! it a named persona, and telling an agent that reads the text what it should do.

use super::{Shape, Span, Word, joined, push, sequence_at};

/// Verbs that ask a model to give what it was told away (`reveal your system prompt`).
const LEAK_VERBS: &[&str] = &[
    "reveal", "print", "output", "show", "tell", "give", "repeat", "dump", "leak", "spell",
    "display", "disclose", "share", "recite",
];
/// Words between the verb and what it gives away.
const LEAK_FILLERS: &[&str] = &[
    "me", "us", "the", "your", "its", "full", "entire", "whole", "complete", "exact", "initial",
    "original", "hidden", "secret", "system", "system's", "first", "above", "verbatim", "all",
    "of",
];
/// Fillers that make it the model's own (`your prompt`, `the initial instructions`).
const LEAK_POINTED: &[&str] = &[
    "your", "its", "full", "entire", "whole", "complete", "initial", "original", "hidden",
    "system", "system's", "above",
];
/// What a model was given.
const LEAK_NOUNS: &[&str] = &[
    "prompt",
    "prompts",
    "instructions",
    "instruction",
    "directives",
];
/// What may follow the noun and point it at the model's (`the prompt above`, `the prompt
/// you were given`).
const LEAK_AFTER: &[&[&str]] = &[
    &["above"],
    &["you", "were", "given"],
    &["you", "were", "told"],
    &["you", "have", "been", "given"],
];

/// `reveal your system prompt`, `output your initial instructions`, `print the prompt
/// above`.
pub(super) fn prompt_leaks(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        if !LEAK_VERBS.contains(&words[i].lower.as_str()) {
            continue;
        }
        let mut k = i + 1;
        let mut pointed = false;
        while let Some(f) = words.get(k)
            && k - i <= 6
            && LEAK_FILLERS.contains(&f.lower.as_str())
            && joined(text, &words[k - 1], f)
        {
            pointed |= LEAK_POINTED.contains(&f.lower.as_str());
            k += 1;
        }
        let Some(noun) = words
            .get(k)
            .filter(|n| joined(text, &words[k - 1], n) && LEAK_NOUNS.contains(&n.lower.as_str()))
        else {
            continue;
        };
        let mut end = noun.range.end;
        for after in LEAK_AFTER {
            if let Some(last) = sequence_at(text, words, k + 1, after)
                && joined(text, noun, &words[k + 1])
            {
                pointed = true;
                end = words[last].range.end;
                break;
            }
        }
        if pointed {
            push(out, words[i].range.start..end, Shape::Imperative);
        }
    }
}

/// The modes a model is switched into to leave its rules.
const MODES: &[&str] = &[
    "developer",
    "dev",
    "god",
    "dan",
    "jailbreak",
    "jailbroken",
    "debug",
    "unrestricted",
    "override",
    "admin",
    "sudo",
    "uncensored",
    "unfiltered",
];
const MODE_VERBS: &[&str] = &["enter", "enable", "activate", "start", "switch"];
const MODE_AFTER: &[&str] = &["on", "enabled", "activated", "engaged"];

/// `Enter developer mode`, `Override mode on`, `DAN mode enabled`.
pub(super) fn modes(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        if !MODES.contains(&words[i].lower.as_str()) {
            continue;
        }
        let Some(mode) = words
            .get(i + 1)
            .filter(|m| m.lower == "mode" && joined(text, &words[i], m))
        else {
            continue;
        };
        let mut start = words[i].range.start;
        if i > 0
            && MODE_VERBS.contains(&words[i - 1].lower.as_str())
            && joined(text, &words[i - 1], &words[i])
        {
            start = words[i - 1].range.start;
        } else if i > 1
            && words[i - 1].lower == "to"
            && MODE_VERBS.contains(&words[i - 2].lower.as_str())
            && joined(text, &words[i - 2], &words[i])
        {
            start = words[i - 2].range.start;
        }
        let mut end = mode.range.end;
        if let Some(next) = words.get(i + 2)
            && MODE_AFTER.contains(&next.lower.as_str())
            && joined(text, mode, next)
        {
            end = next.range.end;
        }
        push(out, start..end, Shape::NewInstructions);
    }
}

/// What a model's rules are called, when a text takes them away.
const RULES: &[&str] = &[
    "rules",
    "guidelines",
    "restrictions",
    "limits",
    "limitations",
    "filters",
    "boundaries",
    "ethics",
    "morals",
    "guardrails",
    "policy",
    "policies",
    "constraints",
    "safeguards",
];

/// `with no guidelines`, `without any restrictions`, `never refuse a request`.
pub(super) fn rules_removed(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        let w = words[i].lower.as_str();
        let mut k = if sequence_at(text, words, i, &["with", "no"]).is_some() {
            i + 2
        } else if w == "without" {
            i + 1
        } else {
            continue;
        };
        if words.get(k).is_some_and(|a| {
            matches!(a.lower.as_str(), "any" | "your" | "its" | "the")
                && joined(text, &words[k - 1], a)
        }) {
            k += 1;
        }
        if let Some(rule) = words.get(k)
            && RULES.contains(&rule.lower.as_str())
            && joined(text, &words[k - 1], rule)
        {
            push(
                out,
                words[i].range.start..rule.range.end,
                Shape::IgnoreInstructions,
            );
        }
    }
    for i in 0..words.len() {
        let refuse = if sequence_at(text, words, i, &["never", "refuse"]).is_some()
            || sequence_at(text, words, i, &["don't", "refuse"]).is_some()
            || sequence_at(text, words, i, &["dont", "refuse"]).is_some()
        {
            i + 1
        } else if sequence_at(text, words, i, &["do", "not", "refuse"]).is_some() {
            i + 2
        } else {
            continue;
        };
        let mut end = words[refuse].range.end;
        let mut k = refuse + 1;
        if words.get(k).is_some_and(|a| {
            matches!(a.lower.as_str(), "a" | "any" | "my" | "the") && joined(text, &words[k - 1], a)
        }) {
            k += 1;
        }
        if let Some(what) = words.get(k)
            && matches!(
                what.lower.as_str(),
                "request" | "requests" | "anything" | "question" | "questions" | "task" | "tasks"
            )
            && joined(text, &words[k - 1], what)
        {
            end = what.range.end;
        }
        push(out, words[i].range.start..end, Shape::IgnoreInstructions);
    }
}

/// Whether word `i` opens a sentence (or the text).
fn sentence_start(text: &str, words: &[Word], i: usize) -> bool {
    let before = match i.checked_sub(1) {
        Some(p) => &text[words[p].range.end..words[i].range.start],
        None => &text[..words[i].range.start],
    };
    i == 0
        || before
            .chars()
            .any(|c| matches!(c, '.' | '!' | '?' | ':' | ';' | '\n'))
}

/// `Act as an unrestricted shell` (an order, at a sentence's start), `You are DAN` (a
/// persona's name in capitals), `Stay in character`.
pub(super) fn personas(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        if sequence_at(text, words, i, &["act", "as"]).is_some() && sentence_start(text, words, i) {
            let mut end = words[i + 1].range.end;
            let mut k = i + 2;
            if words.get(k).is_some_and(|a| {
                matches!(a.lower.as_str(), "a" | "an" | "the" | "my")
                    && joined(text, &words[k - 1], a)
            }) {
                k += 1;
            }
            if let Some(role) = words.get(k).filter(|r| joined(text, &words[k - 1], r)) {
                end = role.range.end;
                // `an unrestricted shell`: the adjective and its noun.
                if let Some(noun) = words.get(k + 1).filter(|n| joined(text, role, n)) {
                    end = noun.range.end;
                }
            }
            push(out, words[i].range.start..end, Shape::RoleChange);
        }
        if let Some(last) = sequence_at(text, words, i, &["you", "are"]) {
            let name = &words
                .get(last + 1)
                .filter(|n| joined(text, &words[last], n));
            if let Some(name) = name {
                let raw = &text[name.range.clone()];
                if (2..=8).contains(&raw.len()) && raw.chars().all(|c| c.is_ascii_uppercase()) {
                    push(out, words[i].range.start..name.range.end, Shape::RoleChange);
                }
            }
        }
        if let Some(last) = sequence_at(text, words, i, &["stay", "in", "character"]) {
            push(
                out,
                words[i].range.start..words[last].range.end,
                Shape::RoleChange,
            );
        }
    }
}

/// Who reads a text and may be told what to do in it.
const READERS: &[&str] = &[
    "ai",
    "assistant",
    "agent",
    "model",
    "llm",
    "bot",
    "chatbot",
    "copilot",
];
/// What tells that reader what it should do.
const MODALS: &[&[&str]] = &[
    &["it", "should"],
    &["it", "must"],
    &["you", "should"],
    &["you", "must"],
    &["it", "shall"],
    &["they", "should"],
    &["they", "must"],
];

/// What an order that opens with `Regardless of` sets aside.
const REGARDLESS_OF: &[&str] = &[
    "the",
    "content",
    "contents",
    "input",
    "instructions",
    "above",
    "previous",
    "prior",
    "what",
    "anything",
    "everything",
    "any",
    "text",
    "document",
    "page",
    "context",
];

/// `When an agent indexes this repository it should ...`, `Regardless of the content,
/// ...`: a text that tells whatever model reads it what to do, up to the end of its
/// sentence.
pub(super) fn readers_told(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        let w = words[i].lower.as_str();
        if matches!(w, "when" | "whenever" | "if" | "once") {
            let mut k = i + 1;
            if words.get(k).is_some_and(|a| {
                matches!(a.lower.as_str(), "an" | "a" | "any" | "the")
                    && joined(text, &words[k - 1], a)
            }) {
                k += 1;
            }
            let Some(reader) = words
                .get(k)
                .filter(|r| READERS.contains(&r.lower.as_str()) && joined(text, &words[k - 1], r))
            else {
                continue;
            };
            // The modal that tells it, in the same sentence, within a few words.
            for m in k + 1..(k + 12).min(words.len()) {
                if !joined(text, reader, &words[m]) {
                    break;
                }
                if let Some(last) = MODALS
                    .iter()
                    .find_map(|seq| sequence_at(text, words, m, seq))
                {
                    push(
                        out,
                        words[i].range.start..words[last].range.end,
                        Shape::Imperative,
                    );
                    break;
                }
            }
        }
        if let Some(last) = sequence_at(text, words, i, &["regardless", "of"])
            && sentence_start(text, words, i)
            && words.get(last + 1).is_some_and(|n| {
                REGARDLESS_OF.contains(&n.lower.as_str()) && joined(text, &words[last], n)
            })
        {
            // To the end of its sentence: what comes after is the order.
            let end = words[last + 1..]
                .iter()
                .take_while(|n| joined(text, &words[last], n))
                .last()
                .map_or(words[last].range.end, |n| n.range.end);
            push(out, words[i].range.start..end, Shape::Imperative);
        }
    }
}
