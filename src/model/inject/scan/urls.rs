//! URLs that run, fetch or send: script and data URLs, remote markdown images, URLs
//! with a placeholder for the model to fill.

use super::{Shape, Span, head, push};

/// `javascript:…`, `vbscript:…`, `data:<type>/<subtype>[;,]…`, to the next space.
pub(super) fn script_urls(text: &str, out: &mut Vec<Span>) {
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
pub(super) fn images(text: &str, out: &mut Vec<Span>) {
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
pub(super) fn exfiltration_urls(text: &str, out: &mut Vec<Span>) {
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
