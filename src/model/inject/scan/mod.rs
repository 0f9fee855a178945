//! Where a text's instruction-shaped spans are: one matcher per [`Shape`], over the text
//! once its hidden characters are gone. The word lists are the rules (docs/HOSTILE.md
//! tabulates them); words are compared case-folded, whole, and within one sentence. The
//! matchers live by what they read: phrases, line starts, markup, payloads, URLs and
//! look-alike letters.

use std::borrow::Cow;
use std::ops::Range;

use super::Shape;

mod lines;
mod look_alike;
mod markup;
mod overrides;
mod payload;
mod phrases;
mod urls;

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
    look_alike::look_alikes(text, &words, &mut out);
    phrases::ignore_instructions(text, &words, &mut out);
    phrases::phrases(text, &words, &mut out);
    phrases::new_instructions(text, &words, &mut out);
    phrases::imperatives(text, &words, &mut out);
    overrides::prompt_leaks(text, &words, &mut out);
    overrides::modes(text, &words, &mut out);
    overrides::rules_removed(text, &words, &mut out);
    overrides::personas(text, &words, &mut out);
    overrides::readers_told(text, &words, &mut out);
    lines::line_starts(text, &mut out);
    lines::forged_speakers(text, &mut out);
    markup::angles(text, &mut out);
    markup::brackets(text, &mut out);
    markup::tool_calls(text, &mut out);
    payload::payloads(text, &mut out);
    urls::script_urls(text, &mut out);
    urls::images(text, &mut out);
    urls::exfiltration_urls(text, &mut out);
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
                    look_alike::look_alike(c).unwrap_or(c)
                }
            })
            .collect(),
        range,
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

/// The offset of a `:` after `at`, spaces allowed before it (not `::`).
fn colon_after(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let colon = at + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
    (text[colon..].starts_with(':') && !text[colon..].starts_with("::")).then_some(colon)
}
