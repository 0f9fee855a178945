//! Markup of a prompt or a tool call: chat tokens, prompt tags, bracketed turns and
//! labels, tool-call JSON.

use std::ops::Range;

use super::{Shape, Span, colon_after, head, push};

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
    "admin",
    "command",
    "override",
    "developer",
    "assistant",
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
pub(super) fn angles(text: &str, out: &mut Vec<Span>) {
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
    "admin",
    "administrator",
    "root",
    "operator",
    "sudo",
    "override",
];
/// Status words of majordomus's labels: a text that opens a bracket with one forges a
/// label.
const LABEL_WORDS: &[&str] = &["verified", "candidate", "stale", "superseded", "unverified"];

/// `[INST]`, `[/INST]`, `[system]`, and a forged label (`[verified]`, `[candidate · …]`).
pub(super) fn brackets(text: &str, out: &mut Vec<Span>) {
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
pub(super) fn tool_calls(text: &str, out: &mut Vec<Span>) {
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
