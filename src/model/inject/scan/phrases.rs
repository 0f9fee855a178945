//! The phrases that speak to a model: dropping its instructions, changing its role,
//! announcing new rules, addressing it.

use super::{Shape, Span, Word, colon_after, joined, push, sequence_at};

/// Verbs that drop earlier instructions.
const DROP_VERBS: &[&str] = &[
    "ignore",
    "disregard",
    "forget",
    "override",
    "overrule",
    "bypass",
    "discard",
    "skip",
    "neglect",
];
/// Words that negate `follow`/`obey` before it (`do not follow`, `stop obeying`).
const NEGATIONS: &[&str] = &["not", "don't", "dont", "never", "stop", "longer"];
const FOLLOW: &[&str] = &["follow", "following", "obey", "obeying", "heed"];
/// Words that may stand between the verb and what it drops.
const FILLERS: &[&str] = &[
    "all",
    "any",
    "every",
    "each",
    "the",
    "your",
    "my",
    "our",
    "their",
    "these",
    "those",
    "this",
    "that",
    "of",
    "and",
    "or",
    "such",
    "previous",
    "previously",
    "prior",
    "preceding",
    "above",
    "earlier",
    "former",
    "original",
    "initial",
    "existing",
    "old",
    "other",
    "given",
    "current",
    "system",
    "system's",
    "developer",
    "developer's",
    "safety",
    "content",
    "following",
    "about",
];
/// Fillers that make a weak noun an instruction (`previous rules`, `your context`).
const POINTED: &[&str] = &[
    "previous",
    "previously",
    "prior",
    "preceding",
    "above",
    "earlier",
    "former",
    "original",
    "initial",
    "your",
    "system",
    "system's",
    "developer",
    "developer's",
    "safety",
    "content",
];
/// What a model is told: dropping these is always instruction-shaped.
const STRONG_NOUNS: &[&str] = &[
    "instructions",
    "instruction",
    "prompt",
    "prompts",
    "directive",
    "directives",
    "guidelines",
    "guardrails",
    "programming",
    "training",
];
/// Words an engineer drops too (`ignore the rules for vendor/`): only after a pointed
/// filler.
const WEAK_NOUNS: &[&str] = &[
    "rules",
    "rule",
    "context",
    "messages",
    "commands",
    "directions",
    "constraints",
    "restrictions",
    "orders",
    "policies",
    "policy",
    "guidance",
    "message",
    "task",
    "tasks",
];
/// What may follow a weak noun and point it at what the model was told (`the rules above`,
/// `the rules you were given`).
const POINTED_AFTER: &[&[&str]] = &[
    &["above"],
    &["before"],
    &["so", "far"],
    &["you", "were", "given"],
    &["you", "were", "told"],
    &["you", "have", "been", "given"],
    &["you", "have", "been", "told"],
];
/// Fillers that point at what came before by themselves (`ignore the above`).
const BEFORE_WORDS: &[&str] = &["above", "preceding", "foregoing"];
/// `forget everything above`.
const EVERYTHING_AFTER: &[&str] = &["above", "before", "prior", "previously", "earlier"];

/// `ignore all previous instructions`, `disregard the system prompt`, `do not follow your
/// rules`, `forget everything above`.
pub(super) fn ignore_instructions(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        let w = words[i].lower.as_str();
        let after = if DROP_VERBS.contains(&w) {
            i + 1
        } else if NEGATIONS.contains(&w)
            && words
                .get(i + 1)
                .is_some_and(|n| FOLLOW.contains(&n.lower.as_str()) && joined(text, &words[i], n))
        {
            i + 2
        } else {
            continue;
        };
        let mut k = after;
        let mut pointed = false;
        // The last filler that points back by itself (`the above`), if any.
        let mut back = None;
        while let Some(f) = words.get(k)
            && k - after < 6
            && FILLERS.contains(&f.lower.as_str())
            && joined(text, &words[k - 1], f)
        {
            pointed |= POINTED.contains(&f.lower.as_str());
            if BEFORE_WORDS.contains(&f.lower.as_str()) {
                back = Some(f.range.end);
            }
            k += 1;
        }
        let noun = words.get(k).filter(|n| joined(text, &words[k - 1], n));
        let noun_word = noun.map_or("", |n| n.lower.as_str());
        // What follows the noun may point it at the model's (`the rules above`).
        let pointed_after = noun.and_then(|n| {
            POINTED_AFTER.iter().find_map(|seq| {
                let last = sequence_at(text, words, k + 1, seq)?;
                joined(text, n, &words[k + 1]).then(|| words[last].range.end)
            })
        });
        let end = if let Some(noun) = noun
            && (STRONG_NOUNS.contains(&noun_word)
                || ((pointed || pointed_after.is_some()) && WEAK_NOUNS.contains(&noun_word)))
        {
            pointed_after.unwrap_or(noun.range.end)
        } else if let Some(noun) = noun
            && noun_word == "everything"
        {
            // `forget everything above`, `forget everything you were told (before)`.
            let told = [
                &["you", "were", "told"][..],
                &["you", "have", "been", "told"][..],
            ]
            .iter()
            .find_map(|seq| sequence_at(text, words, k + 1, seq))
            .filter(|_| joined(text, noun, &words[k + 1]));
            let at = told.unwrap_or(k);
            let mut end = told.map(|last| words[last].range.end);
            if let Some(next) = words.get(at + 1)
                && EVERYTHING_AFTER.contains(&next.lower.as_str())
                && joined(text, &words[at], next)
            {
                end = Some(next.range.end);
            }
            match end {
                Some(end) => end,
                None => continue,
            }
        } else if let Some(end) = back {
            // `ignore the above` (and whatever it goes on with).
            end
        } else {
            continue;
        };
        push(out, words[i].range.start..end, Shape::IgnoreInstructions);
    }
}

/// A model told it is someone else now.
const ROLE_CHANGES: &[&[&str]] = &[
    &["you", "are", "now"],
    &["you're", "now"],
    &["youre", "now"],
    &["you", "are", "no", "longer"],
    &["you're", "no", "longer"],
    &["from", "now", "on", "you"],
    &["pretend", "to", "be"],
    &["pretend", "you", "are"],
    &["pretend", "that", "you", "are"],
    &["roleplay", "as"],
    &["role", "play", "as"],
    &["your", "new", "role"],
    &["you", "will", "now"],
    &["you", "must", "now"],
    &["you", "should", "now"],
    &["act", "as", "if", "you"],
];
/// Announcements that the rules changed.
const NEW_RULES: &[&[&str]] = &[
    &["system", "override"],
    &["admin", "override"],
    &["administrator", "override"],
    &["god", "mode"],
    &["jailbreak"],
    &["jailbroken"],
    &["do", "anything", "now"],
    &["developer", "mode", "enabled"],
];

/// The fixed phrases: role changes and announcements.
pub(super) fn phrases(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for i in 0..words.len() {
        for (list, shape) in [
            (ROLE_CHANGES, Shape::RoleChange),
            (NEW_RULES, Shape::NewInstructions),
        ] {
            for seq in list {
                if let Some(last) = sequence_at(text, words, i, seq) {
                    push(out, words[i].range.start..words[last].range.end, shape);
                }
            }
        }
    }
}

const NEW_ADJECTIVES: &[&str] = &[
    "new",
    "updated",
    "revised",
    "real",
    "actual",
    "hidden",
    "secret",
    "additional",
    "true",
    "override",
    "system",
    "admin",
    "developer",
    "priority",
];
const NEW_NOUNS: &[&str] = &[
    "instructions",
    "instruction",
    "prompt",
    "directive",
    "directives",
    "orders",
    "task",
];

/// `New instructions:`, `Updated prompt:`, `RESEARCHER INSTRUCTIONS:` (a heading over
/// instructions, one in capitals whatever its first word), `your new instructions are`.
pub(super) fn new_instructions(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for (i, pair) in words.windows(2).enumerate() {
        let [adjective, noun] = pair else { continue };
        if !NEW_NOUNS.contains(&noun.lower.as_str()) || !joined(text, adjective, noun) {
            continue;
        }
        let shouted = |w: &Word| {
            let raw = &text[w.range.clone()];
            raw.len() > 1 && raw.chars().all(|c| c.is_ascii_uppercase())
        };
        let heading = NEW_ADJECTIVES.contains(&adjective.lower.as_str())
            || (shouted(adjective) && shouted(noun));
        if heading && let Some(colon) = colon_after(text, noun.range.end) {
            push(
                out,
                adjective.range.start..colon + 1,
                Shape::NewInstructions,
            );
        } else if adjective.lower == "new"
            && let Some(verb) = words.get(i + 2)
            && matches!(verb.lower.as_str(), "are" | "is")
            && joined(text, noun, verb)
        {
            let start = match i.checked_sub(1).map(|p| &words[p]) {
                Some(owner)
                    if matches!(owner.lower.as_str(), "your" | "the" | "these" | "my")
                        && joined(text, owner, adjective) =>
                {
                    owner.range.start
                }
                _ => adjective.range.start,
            };
            push(out, start..verb.range.end, Shape::NewInstructions);
        }
    }
}

/// Shouted words that demand attention, when followed by `:` or `!` (as written, upper
/// case).
const SHOUTS: &[&str] = &["IMPORTANT", "URGENT", "CRITICAL", "ATTENTION", "MANDATORY"];
const ADDRESS_STARTS: &[&str] = &[
    "note",
    "attention",
    "hey",
    "dear",
    "reminder",
    "instruction",
    "instructions",
    "message",
];
/// What a text addresses when it speaks to the model.
const ASSISTANTS: &[&str] = &[
    "ai",
    "assistant",
    "assistants",
    "agent",
    "agents",
    "model",
    "llm",
    "llms",
    "claude",
    "chatgpt",
    "gpt",
    "copilot",
    "gemini",
    "bot",
    "bots",
];

/// `IMPORTANT:`, `note to the AI`, `hey assistant`, `if you are an AI`.
pub(super) fn imperatives(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for (i, w) in words.iter().enumerate() {
        let raw = &text[w.range.clone()];
        if SHOUTS.contains(&raw) {
            let rest = &text[w.range.end..];
            let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if rest[gap..].starts_with([':', '!']) {
                push(out, w.range.start..w.range.end + gap + 1, Shape::Imperative);
            }
        }
        let mut k = i;
        if ADDRESS_STARTS.contains(&w.lower.as_str()) {
            k += 1;
        } else if let Some(last) = sequence_at(text, words, i, &["if", "you", "are"]) {
            k = last + 1;
        } else {
            continue;
        }
        for optional in [
            &["to", "for"][..],
            &["the", "all", "any", "every", "a", "an"][..],
        ] {
            if words.get(k).is_some_and(|n| {
                optional.contains(&n.lower.as_str()) && joined(text, &words[k - 1], n)
            }) {
                k += 1;
            }
        }
        let Some(target) = words.get(k).filter(|n| joined(text, &words[k - 1], n)) else {
            continue;
        };
        let end = if ASSISTANTS.contains(&target.lower.as_str()) {
            target.range.end
        } else if let Some(last) = sequence_at(text, words, k, &["language", "model"]) {
            words[last].range.end
        } else {
            continue;
        };
        push(out, w.range.start..end, Shape::Imperative);
    }
}
