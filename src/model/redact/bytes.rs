//! Byte classes and scanning.

pub(super) fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

pub(super) fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

pub(super) fn is_upper_alnum(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

pub(super) fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

pub(super) fn is_alnum_dash(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

pub(super) fn is_base64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

pub(super) fn is_base64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')
}

pub(super) fn is_url_path(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-')
}

pub(super) fn is_bearer_token(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
}

pub(super) fn is_armor_label(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
}

pub(super) fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Bytes that end an unquoted value.
pub(super) fn is_value_end(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b','
                | b';'
                | b'&'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
        )
}

pub(super) fn starts_inside_word(b: &[u8], start: usize) -> bool {
    start > 0 && is_word(b[start - 1])
}

pub(super) fn run_end(b: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    from + b[from..].iter().take_while(|&&c| class(c)).count()
}

/// Like [`run_end`], but looks at no more than `max + 1` bytes, so a caller that refuses
/// runs longer than `max` does not pay for them.
pub(super) fn bounded_run_end(
    b: &[u8],
    from: usize,
    max: usize,
    class: impl Fn(u8) -> bool,
) -> usize {
    let limit = max.saturating_add(1);
    from + b[from..]
        .iter()
        .take(limit)
        .take_while(|&&c| class(c))
        .count()
}

pub(super) fn run_start(b: &[u8], to: usize, class: impl Fn(u8) -> bool) -> usize {
    bounded_run_start(b, to, usize::MAX, class)
}

pub(super) fn bounded_run_start(
    b: &[u8],
    to: usize,
    max: usize,
    class: impl Fn(u8) -> bool,
) -> usize {
    let limit = max.saturating_add(1);
    to - b[..to]
        .iter()
        .rev()
        .take(limit)
        .take_while(|&&c| class(c))
        .count()
}

pub(super) fn skip_blanks(b: &[u8], from: usize) -> usize {
    run_end(b, from, |c| c == b' ' || c == b'\t')
}

pub(super) fn skip_whitespace(b: &[u8], from: usize) -> usize {
    run_end(b, from, |c| c.is_ascii_whitespace())
}

pub(super) fn line_end(b: &[u8], at: usize) -> usize {
    b[at..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |i| at + i)
}

pub(super) fn find(text: &str, from: usize, needle: &str) -> Option<usize> {
    text[from..].find(needle).map(|i| from + i)
}

/// The offset of the quote `q` closing a string that starts at `from`, skipping
/// backslash escapes, on the same line.
pub(super) fn closing_quote(b: &[u8], from: usize, q: u8) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == q => return Some(i),
            _ => i += 1,
        }
    }
    None
}
