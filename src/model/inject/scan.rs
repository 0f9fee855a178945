//! Where a text's instruction-shaped spans are: one matcher per [`Shape`], over the text
//! once its hidden characters are gone. The word lists are the rules (docs/HOSTILE.md
//! tabulates them); words are compared case-folded, whole, and within one sentence.

use std::borrow::Cow;
use std::ops::Range;

use super::Shape;

/// One instruction-shaped span (byte offsets into the visible text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    pub range: Range<usize>,
    pub shape: Shape,
}

/// `text` without the characters made to be invisible (zero-width, bidi, tag and
/// variation-selector-supplement characters, terminal controls), every line break as
/// `\n`, and majordomus's quote and mark characters as ordinary brackets; the shapes of
/// what changed are added to `shapes`.
pub(super) fn visible<'a>(text: &'a str, shapes: &mut Vec<Shape>) -> Cow<'a, str> {
    let plain = |b: u8| (b' '..0x7f).contains(&b) || b == b'\n' || b == b'\t';
    if text.bytes().all(plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\u{85}' | '\u{2028}' | '\u{2029}' => out.push('\n'),
            '⟪' | '⟫' | '⟦' | '⟧' => {
                shapes.push(Shape::FenceLabel);
                out.push(match c {
                    '⟪' => '«',
                    '⟫' => '»',
                    '⟦' => '[',
                    _ => ']',
                });
            }
            c if hidden(c) => shapes.push(Shape::HiddenCharacters),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A character made to be invisible or to reorder what is shown: controls (but tab and
/// line feed), soft hyphen, zero-width and joiner characters, bidi marks, embeddings,
/// overrides and isolates, invisible operators, fillers, the byte-order mark, tag
/// characters (which spell hidden ASCII) and the supplementary variation selectors.
fn hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}'
        | '\u{b}'..='\u{c}'
        | '\u{e}'..='\u{1f}'
        | '\u{7f}'..='\u{84}'
        | '\u{86}'..='\u{9f}'
        | '\u{ad}'
        | '\u{34f}'
        | '\u{61c}'
        | '\u{115f}'..='\u{1160}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}')
}

/// Every instruction-shaped span of `text` (visible already), by start, longest first.
pub(super) fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let words = words(text);
    look_alikes(text, &words, &mut out);
    ignore_instructions(text, &words, &mut out);
    phrases(text, &words, &mut out);
    new_instructions(text, &words, &mut out);
    imperatives(text, &words, &mut out);
    line_starts(text, &mut out);
    angles(text, &mut out);
    brackets(text, &mut out);
    tool_calls(text, &mut out);
    payloads(text, &mut out);
    script_urls(text, &mut out);
    images(text, &mut out);
    exfiltration_urls(text, &mut out);
    out.sort_by(|a, b| {
        (a.range.start, b.range.end, a.shape).cmp(&(b.range.start, a.range.end, b.shape))
    });
    out
}

/// A word: letters and digits, with an apostrophe inside (`don't`, `you're`).
struct Word {
    range: Range<usize>,
    /// Lower-cased, `’` as `'`.
    lower: String,
}

fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let inner_apostrophe = matches!(c, '\'' | '’')
            && start.is_some()
            && chars.peek().is_some_and(|(_, n)| n.is_alphanumeric());
        if c.is_alphanumeric() || inner_apostrophe {
            start.get_or_insert(at);
        } else if let Some(s) = start.take() {
            out.push(word(text, s..at));
        }
    }
    if let Some(s) = start {
        out.push(word(text, s..text.len()));
    }
    out
}

fn word(text: &str, range: Range<usize>) -> Word {
    Word {
        lower: text[range.clone()]
            .to_lowercase()
            .chars()
            .map(|c| {
                if c == '’' {
                    '\''
                } else {
                    look_alike(c).unwrap_or(c)
                }
            })
            .collect(),
        range,
    }
}

/// The ASCII letter a lower-case character is drawn like: a full-width Latin letter, or a
/// Cyrillic, Greek or Latin-extended letter confusable with one (`і`, `о`, `ο`, `ɡ`).
fn look_alike(c: char) -> Option<char> {
    if let 'ａ'..='ｚ' = c {
        return char::from_u32(u32::from(c) - 0xfee0);
    }
    Some(match c {
        'а' | 'α' => 'a',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ε' => 'e',
        'ɡ' => 'g',
        'һ' => 'h',
        'і' | 'ι' | 'ı' => 'i',
        'ј' => 'j',
        'κ' => 'k',
        'ӏ' => 'l',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'ѕ' => 's',
        'υ' => 'u',
        'ν' => 'v',
        'х' => 'x',
        'у' => 'y',
        _ => return None,
    })
}

/// A word spelled with look-alike letters to pass for ASCII: full-width Latin letters, or
/// ASCII letters mixed with confusable Cyrillic or Greek ones (`іgnore`). A word wholly
/// in another script (`система`) is that script's word, not a disguise.
fn look_alikes(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for w in words {
        let raw = &text[w.range.clone()];
        if raw.is_ascii() {
            continue;
        }
        let lower = raw.to_lowercase();
        let full_width = lower.chars().any(|c| matches!(c, 'ａ'..='ｚ'));
        let mixed = lower.chars().any(|c| c.is_ascii_alphabetic())
            && lower.chars().any(|c| look_alike(c).is_some());
        if full_width || mixed {
            push(out, w.range.clone(), Shape::LookAlike);
        }
    }
}

/// The two words are in one sentence: no `.`, `!`, `?`, `;` or line break between them.
fn joined(text: &str, a: &Word, b: &Word) -> bool {
    !text[a.range.end..b.range.start]
        .chars()
        .any(|c| matches!(c, '.' | '!' | '?' | ';' | '\n'))
}

/// The index of the last word when `seq` is read from word `i` on, in one sentence.
fn sequence_at(text: &str, words: &[Word], i: usize, seq: &[&str]) -> Option<usize> {
    for (k, expected) in seq.iter().enumerate() {
        let w = words.get(i + k)?;
        if w.lower != *expected || (k > 0 && !joined(text, &words[i + k - 1], w)) {
            return None;
        }
    }
    Some(i + seq.len() - 1)
}

/// At most the first `n` bytes of `s`, cut at a character boundary: every matcher looks
/// this far from where it starts, so a text of many `<` or `[` costs what its length does.
fn head(s: &str, n: usize) -> &str {
    let mut n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

fn push(out: &mut Vec<Span>, range: Range<usize>, shape: Shape) {
    out.push(Span { range, shape });
}

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
    "guidance",
];
/// `forget everything above`.
const EVERYTHING_AFTER: &[&str] = &["above", "before", "prior", "previously", "earlier"];

/// `ignore all previous instructions`, `disregard the system prompt`, `do not follow your
/// rules`, `forget everything above`.
fn ignore_instructions(text: &str, words: &[Word], out: &mut Vec<Span>) {
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
        while let Some(f) = words.get(k)
            && k - after < 6
            && FILLERS.contains(&f.lower.as_str())
            && joined(text, &words[k - 1], f)
        {
            pointed |= POINTED.contains(&f.lower.as_str());
            k += 1;
        }
        let Some(noun) = words.get(k).filter(|n| joined(text, &words[k - 1], n)) else {
            continue;
        };
        let noun_word = noun.lower.as_str();
        let end =
            if STRONG_NOUNS.contains(&noun_word) || (pointed && WEAK_NOUNS.contains(&noun_word)) {
                noun.range.end
            } else if noun_word == "everything"
                && let Some(next) = words.get(k + 1)
                && EVERYTHING_AFTER.contains(&next.lower.as_str())
                && joined(text, noun, next)
            {
                next.range.end
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
fn phrases(text: &str, words: &[Word], out: &mut Vec<Span>) {
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
];

/// `New instructions:`, `Updated prompt:`: a heading over instructions.
fn new_instructions(text: &str, words: &[Word], out: &mut Vec<Span>) {
    for pair in words.windows(2) {
        let [adjective, noun] = pair else { continue };
        if NEW_ADJECTIVES.contains(&adjective.lower.as_str())
            && NEW_NOUNS.contains(&noun.lower.as_str())
            && joined(text, adjective, noun)
            && let Some(colon) = colon_after(text, noun.range.end)
        {
            push(
                out,
                adjective.range.start..colon + 1,
                Shape::NewInstructions,
            );
        }
    }
}

/// The offset of a `:` after `at`, spaces allowed before it (not `::`).
fn colon_after(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let colon = at + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
    (text[colon..].starts_with(':') && !text[colon..].starts_with("::")).then_some(colon)
}

/// Shouted words that demand attention, when followed by `:` or `!` (as written, upper
/// case).
const SHOUTS: &[&str] = &["IMPORTANT", "URGENT", "CRITICAL", "ATTENTION", "MANDATORY"];
const ADDRESS_STARTS: &[&str] = &["note", "attention", "hey", "dear", "reminder"];
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
fn imperatives(text: &str, words: &[Word], out: &mut Vec<Span>) {
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

/// What a markdown heading may not open with: majordomus's own sections and a prompt's.
const HEADINGS: &[&str] = &[
    "open questions",
    "what the repository knows",
    "verified knowledge",
    "decisions",
    "candidates awaiting",
    "last handover",
    "other worktrees",
    "other writers",
    "working context",
    "instructions",
    "new instructions",
    "system prompt",
    "system message",
    "rules",
];

/// Chat roles a line may open with (`System:`).
const ROLES: &[&str] = &[
    "system",
    "assistant",
    "user",
    "human",
    "developer",
    "ai",
    "claude",
    "chatgpt",
    "gpt",
    "gemini",
    "copilot",
];

/// A line opening with a role label (`System:`, `**Assistant:**`, `### Human:`), a forged
/// heading, or three backticks or tildes (it would close the fence a record is shown in).
/// What follows [`JOIN`] starts a line too: the text after it was one on its own.
fn line_starts(text: &str, out: &mut Vec<Span>) {
    let mut start = 0;
    for line in text.split('\n') {
        line_start(line, start, out);
        for (at, _) in line.match_indices(JOIN) {
            let after = at + JOIN.len();
            let rest = &line[after..];
            let gap = rest.len() - rest.trim_start_matches(' ').len();
            line_start(&rest[gap..], start + after + gap, out);
        }
        start += line.len() + 1;
    }
}

/// How a one-line hit joins a question and its answer (`question → answer`).
const JOIN: &str = "→";

/// [`line_starts`] of one line, `start` bytes into the text.
fn line_start(line: &str, start: usize, out: &mut Vec<Span>) {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    let fence = rest.len() - rest.trim_start_matches('`').len();
    let tildes = rest.len() - rest.trim_start_matches('~').len();
    if spaces <= 3 && fence.max(tildes) >= 3 {
        push(
            out,
            start + spaces..start + spaces + fence.max(tildes),
            Shape::FenceBreakout,
        );
    }
    let decorated = line.len()
        - line
            .trim_start_matches([' ', '\t', '#', '>', '*', '_', '-'])
            .len();
    let after = &line[decorated..];
    if line[..decorated].contains('#') {
        let title = head(after, 40).to_lowercase();
        if let Some(forged) = HEADINGS.iter().find(|h| title.starts_with(**h)) {
            push(
                out,
                start..start + decorated + forged.len(),
                Shape::ForgedHeading,
            );
        }
    }
    let name = after.len()
        - after
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .len();
    if name > 0 && ROLES.contains(&after[..name].to_ascii_lowercase().as_str()) {
        let closing = after[name..].len() - after[name..].trim_start_matches(['*', '_']).len();
        let colon = name + closing;
        if after[colon..].starts_with(':') && !after[colon..].starts_with("::") {
            push(
                out,
                start + decorated..start + decorated + colon + 1,
                Shape::RoleLabel,
            );
        }
    }
}

/// Tags that delimit a prompt's parts or a tool call (`-` read as `_`).
const PROMPT_TAGS: &[&str] = &[
    "system",
    "system_reminder",
    "system_prompt",
    "system_message",
    "instructions",
    "instruction",
    "prompt",
    "user",
    "user_query",
    "user_message",
    "assistant",
    "human",
    "developer",
    "admin",
    "tool",
    "tools",
    "tool_call",
    "tool_calls",
    "tool_use",
    "tool_result",
    "tool_results",
    "tool_response",
    "function",
    "functions",
    "function_call",
    "function_calls",
    "function_result",
    "function_results",
    "invoke",
    "parameter",
    "parameters",
    "thinking",
    "context",
    "document",
    "documents",
    "document_content",
    "important",
    "override",
];
/// Words that make any tag a prompt's (`</hook_context>`, `<user-prompt-submit-hook>`):
/// a client wraps what a hook prints in such a tag, and closing it early is a breakout.
const PROMPT_TAG_PARTS: &[&str] = &[
    "system",
    "prompt",
    "instructions",
    "instruction",
    "hook",
    "reminder",
    "majordomus",
];
/// Special tokens written as tags.
const TOKEN_TAGS: &[&str] = &[
    "s",
    "im_start",
    "im_end",
    "start_of_turn",
    "end_of_turn",
    "endoftext",
    "bos",
    "eos",
];

/// `<|im_start|>`, `<<SYS>>`, `</s>`, and tags: those of a prompt or a tool call, and any
/// with a namespace (`</ns:name>`).
fn angles(text: &str, out: &mut Vec<Span>) {
    for (at, _) in text.match_indices('<') {
        let rest = &text[at..];
        if let Some(len) = pipe_token(rest) {
            push(out, at..at + len, Shape::ChatToken);
            continue;
        }
        let upper = head(rest, 8).to_ascii_uppercase();
        if upper.starts_with("<<SYS>>") || upper.starts_with("<</SYS>>") {
            let len = if upper.starts_with("<<SYS>>") { 7 } else { 8 };
            push(out, at..at + len, Shape::ChatToken);
            continue;
        }
        let Some((len, name)) = tag(rest) else {
            continue;
        };
        let name = name.to_ascii_lowercase().replace('-', "_");
        let namespaced = name
            .split_once(':')
            .is_some_and(|(ns, local)| !ns.is_empty() && !local.is_empty() && !local.contains(':'));
        let part_of_a_prompt = name
            .split(['_', '.'])
            .any(|part| PROMPT_TAG_PARTS.contains(&part));
        if TOKEN_TAGS.contains(&name.as_str()) {
            push(out, at..at + len, Shape::ChatToken);
        } else if namespaced || part_of_a_prompt || PROMPT_TAGS.contains(&name.as_str()) {
            push(out, at..at + len, Shape::PromptTag);
        }
    }
}

/// The length of a `<|name|>` (or full-width `<｜name｜>`) token at the start of `rest`.
fn pipe_token(rest: &str) -> Option<usize> {
    let (open, close) = if rest.starts_with("<|") {
        ("<|", "|>")
    } else if rest.starts_with("<｜") {
        ("<｜", "｜>")
    } else {
        return None;
    };
    let inner = &rest[open.len()..];
    let end = head(inner, 64 + close.len()).find(close)?;
    let name = &inner[..end];
    (!name.is_empty() && !name.contains(['<', '>', '\n'])).then_some(open.len() + end + close.len())
}

/// A tag at the start of `rest`: its length and name (`<a>`, `</a>`, `<a/>`, `<a b="c">`;
/// attributes on one line, at most 300 bytes).
fn tag(rest: &str) -> Option<(usize, &str)> {
    let body = &rest[1..];
    let slash = usize::from(body.starts_with('/'));
    let named = &body[slash..];
    if !named.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let name_len = named.len()
        - named
            .trim_start_matches(|c: char| {
                c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-')
            })
            .len();
    let name = &named[..name_len];
    let after = &named[name_len..];
    let end = if after.starts_with('>') {
        1
    } else if after.starts_with("/>") {
        2
    } else if after.starts_with([' ', '\t']) {
        let close = head(after, 301).find('>')?;
        if close > 300 || after[..close].contains(['<', '\n']) {
            return None;
        }
        close + 1
    } else {
        return None;
    };
    Some((1 + slash + name_len + end, name))
}

/// Chat roles and turn markers written in square brackets.
const BRACKET_TOKENS: &[&str] = &[
    "inst",
    "sys",
    "system",
    "assistant",
    "user",
    "human",
    "developer",
];
/// Status words of majordomus's labels: a text that opens a bracket with one forges a
/// label.
const LABEL_WORDS: &[&str] = &["verified", "candidate", "stale", "superseded", "unverified"];

/// `[INST]`, `[/INST]`, `[system]`, and a forged label (`[verified]`, `[candidate · …]`).
fn brackets(text: &str, out: &mut Vec<Span>) {
    for (at, _) in text.match_indices('[') {
        let rest = head(&text[at + 1..], 201);
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let close = line.find(']');
        if let Some(close) = close.filter(|c| *c <= 40) {
            let inner = line[..close].to_ascii_lowercase();
            if BRACKET_TOKENS.contains(&inner.trim_start_matches('/')) {
                push(out, at..at + close + 2, Shape::ChatToken);
                continue;
            }
        }
        let lower = head(line, 12).to_ascii_lowercase();
        let Some(word) = LABEL_WORDS.iter().find(|w| lower.starts_with(**w)) else {
            continue;
        };
        let next = &line[word.len()..];
        if next.is_empty() || next.starts_with([']', ' ', '·']) {
            let end = match close.filter(|c| *c <= 200) {
                Some(c) => c + 1,
                None => word.len(),
            };
            push(out, at..at + 1 + end, Shape::FenceLabel);
        }
    }
}

/// JSON strings that name a tool call.
const TOOL_WORDS: &[&str] = &[
    "tool_use",
    "tool_calls",
    "tool_call",
    "tool_result",
    "tool_choice",
    "function_call",
    "function_calls",
];
/// Keys of a call's arguments, beside a `"name"` key.
const ARGUMENT_KEYS: &[&str] = &["arguments", "parameters", "input", "args"];

/// `"tool_use"`, and `"name"` with `"arguments"` (or `"parameters"`, `"input"`) keys.
fn tool_calls(text: &str, out: &mut Vec<Span>) {
    // (range of the string, or of the key with its colon; the word; a key)
    let mut strings: Vec<(Range<usize>, &str, bool)> = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('"').map(|o| from + o) {
        let inner = &text[open + 1..];
        let len = inner.len()
            - inner
                .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
                .len();
        if len > 0 && inner[len..].starts_with('"') {
            let end = open + 1 + len + 1;
            match colon_after(text, end) {
                Some(colon) => strings.push((open..colon + 1, &inner[..len], true)),
                None => strings.push((open..end, &inner[..len], false)),
            }
            from = end;
        } else {
            from = open + 1;
        }
    }
    let named = strings.iter().any(|(_, w, key)| *key && *w == "name");
    let argued = strings
        .iter()
        .any(|(_, w, key)| *key && ARGUMENT_KEYS.contains(w));
    for (range, word, key) in strings {
        if TOOL_WORDS.contains(&word)
            || (named && argued && key && (word == "name" || ARGUMENT_KEYS.contains(&word)))
        {
            push(out, range, Shape::ToolCall);
        }
    }
}

/// The shortest run read as an encoded payload.
const PAYLOAD_MIN: usize = 40;

/// A base64-looking run of at least [`PAYLOAD_MIN`] characters: upper and lower case
/// letters, its character class changing at least every two and a half characters (words,
/// identifiers and paths change less often), at most one in eight a `+`, `/`, `-` or `_`.
/// Hex (commit ids, content hashes) has one case and is never one.
fn payloads(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_');
    let class = |b: u8| match b {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let mut i = 0;
    while i < bytes.len() {
        if !base64(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && base64(bytes[i]) {
            i += 1;
        }
        let run = &bytes[start..i];
        let mut end = i;
        while end < bytes.len() && end - i < 2 && bytes[end] == b'=' {
            end += 1;
        }
        let len = run.len();
        let separators = run.iter().filter(|b| class(**b) == 3).count();
        let changes = run
            .windows(2)
            .filter(|p| class(p[0]) != class(p[1]))
            .count();
        if len >= PAYLOAD_MIN
            && run.iter().any(u8::is_ascii_uppercase)
            && run.iter().any(u8::is_ascii_lowercase)
            && separators * 8 <= len
            && changes * 5 >= len * 2
        {
            push(out, start..end, Shape::EncodedPayload);
        }
        i = end.max(i);
    }
}

/// `javascript:…`, `vbscript:…`, `data:<type>/<subtype>[;,]…`, to the next space.
fn script_urls(text: &str, out: &mut Vec<Span>) {
    // ASCII case folding keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    for scheme in ["javascript:", "vbscript:", "livescript:", "data:"] {
        // A match inside the last URL is part of it (and is not read again).
        let mut covered = 0;
        for (at, _) in lower.match_indices(scheme) {
            if at < covered
                || lower[..at]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
            {
                continue;
            }
            let rest = &lower[at + scheme.len()..];
            let url = if scheme == "data:" {
                data_type(rest)
            } else {
                rest.starts_with(|c: char| !c.is_whitespace())
            };
            if url {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                covered = at + scheme.len() + end;
                push(out, at..covered, Shape::ScriptUrl);
            }
        }
    }
}

/// `rest` of a `data:` URL opens with a media type (`text/html;`, `image/png,`) or `,`.
fn data_type(rest: &str) -> bool {
    if rest.starts_with(',') {
        return true;
    }
    let kind = rest.len()
        - rest
            .trim_start_matches(|c: char| c.is_ascii_lowercase())
            .len();
    let Some(sub) = rest[kind..].strip_prefix('/') else {
        return false;
    };
    let len = sub.len()
        - sub
            .trim_start_matches(|c: char| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '+' | '-')
            })
            .len();
    kind > 0 && len > 0 && sub[len..].starts_with([';', ','])
}

/// `![alt](https://…)`: a markdown image a renderer would fetch.
fn images(text: &str, out: &mut Vec<Span>) {
    for (at, _) in text.match_indices("![") {
        let rest = head(&text[at + 2..], 1000);
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let Some(alt) = line.find(']').filter(|a| *a <= 300) else {
            continue;
        };
        let Some(target) = line[alt + 1..].strip_prefix('(') else {
            continue;
        };
        let url = target.trim_start().to_ascii_lowercase();
        if !["http://", "https://", "//"]
            .iter()
            .any(|s| url.starts_with(s))
        {
            continue;
        }
        if let Some(close) = target.find(')') {
            push(out, at..at + 2 + alt + 2 + close + 1, Shape::MarkdownImage);
        }
    }
}

/// An `http(s)` URL carrying a placeholder for the model to fill (`${TOKEN}`, `$HOME`,
/// `{{conversation}}`): fetched, it would send what the model put there. A single-brace
/// path parameter (`/repos/{owner}`) is documentation, not one.
fn exfiltration_urls(text: &str, out: &mut Vec<Span>) {
    let lower = text.to_ascii_lowercase();
    for scheme in ["https://", "http://"] {
        for (at, _) in lower.match_indices(scheme) {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '>'))
                .unwrap_or(rest.len());
            let url = &rest[..end];
            let placeholder = url.contains("{{")
                || url.contains("${")
                || url.match_indices('$').any(|(d, _)| {
                    url[d + 1..].starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
                });
            if placeholder {
                push(out, at..at + end, Shape::ExfiltrationUrl);
            }
        }
    }
}
