//! Matchers. Each returns byte offsets that fall on ASCII bytes or the text's ends, so
//! every span is on `char` boundaries.

use super::*;

pub(super) fn token_at(
    scan: &Scan<'_>,
    anchor: Range<usize>,
    body: fn(u8) -> bool,
    len: &RangeInclusive<usize>,
    generated: bool,
) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let matches = |end: usize, boundary: bool| {
        let run = &b[anchor.end..end];
        let ends_word = boundary || !b.get(end).is_some_and(u8::is_ascii_alphanumeric);
        len.contains(&run.len()) && ends_word && (!generated || looks_generated(run))
    };
    let end = bounded_run_end(b, anchor.end, *len.end(), body);
    if matches(end, false) {
        return Some(anchor.start..end);
    }
    // A removed control inside or right after the run may have joined the token to the
    // word after it: read the run up to that cut as a whole token too.
    let cut = scan.cut_within(anchor.end, end.saturating_add(1).min(b.len() + 1))?;
    matches(cut, true).then_some(anchor.start..cut)
}

/// `"private_key": "-----BEGIN ...` in a service-account JSON: the whole string value.
pub(super) fn gcp_private_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let colon = skip_whitespace(b, anchor.end);
    if b.get(colon) != Some(&b':') {
        return None;
    }
    let quote = skip_whitespace(b, colon + 1);
    if b.get(quote) != Some(&b'"') || !b[quote + 1..].starts_with(b"-----BEGIN") {
        return None;
    }
    // Unterminated on its line, the private-key block rule carries the span on.
    let end = closing_quote(b, quote + 1, b'"').unwrap_or_else(|| line_end(b, quote + 1));
    Some(quote + 1..end)
}

/// A PEM/OpenSSH/PGP private-key block through its END line, or to the end of the text
/// when the END line is missing.
pub(super) fn private_key_block_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let label_end = run_end(b, anchor.end, is_armor_label);
    let label = &b[anchor.end..label_end];
    let is_private = label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK");
    if !is_private || !b[label_end..].starts_with(b"-----") {
        return None;
    }
    let end = match find(scan.text, label_end + 5, "-----END ") {
        Some(end_line) => {
            let end_label = run_end(b, end_line + 9, is_armor_label);
            if b[end_label..].starts_with(b"-----") {
                end_label + 5
            } else {
                end_label
            }
        }
        None => b.len(),
    };
    Some(anchor.start..end)
}

/// `aws_secret_access_key = <40 base64>` (any case and separator style).
pub(super) fn aws_secret_access_key_at(
    scan: &Scan<'_>,
    anchor: Range<usize>,
) -> Option<Range<usize>> {
    let assignment = secret_assignment(scan, anchor)?;
    let key: String = scan.folded[assignment.key]
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let value = &scan.bytes[assignment.value.clone()];
    let is_aws_key = key.ends_with("secretaccesskey") || key.ends_with("awssecretkey");
    let is_aws_value = value.len() == 40 && value.iter().all(|&c| is_base64(c) && c != b'=');
    (is_aws_key && is_aws_value).then_some(assignment.value)
}

/// `AccountKey=<base64>` in an Azure connection string: the key only.
pub(super) fn azure_account_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let end = run_end(b, anchor.end, is_base64);
    (end - anchor.end >= 20).then_some(anchor.end..end)
}

/// `SG.<22>.<43>`.
pub(super) fn sendgrid_key_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let first = run_end(b, anchor.end, is_base64url);
    if first - anchor.end != 22 || b.get(first) != Some(&b'.') {
        return None;
    }
    let second = run_end(b, first + 1, is_base64url);
    (second - (first + 1) >= 43).then_some(anchor.start..second)
}

/// Three (or, for JWE, five) dot-separated base64url segments, header and payload both
/// JSON objects (`eyJ` is `{"` encoded).
pub(super) fn jwt_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if anchor.start > 0 && is_base64url(b[anchor.start - 1]) {
        return None;
    }
    let header = run_end(b, anchor.start, is_base64url);
    if header - anchor.start < 10 || b.get(header) != Some(&b'.') {
        return None;
    }
    if !b[header + 1..].starts_with(b"eyJ") {
        return None;
    }
    let payload = run_end(b, header + 1, is_base64url);
    if payload - (header + 1) < 10 || b.get(payload) != Some(&b'.') {
        return None;
    }
    let mut end = run_end(b, payload + 1, is_base64url);
    while b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(|&c| is_base64url(c)) {
        end = run_end(b, end + 1, is_base64url);
    }
    Some(anchor.start..end)
}

pub(super) fn basic_authorization_at(
    scan: &Scan<'_>,
    anchor: Range<usize>,
) -> Option<Range<usize>> {
    let (scheme, credentials) = authorization(scan, anchor)?;
    (scheme == "basic").then_some(credentials)
}

pub(super) fn bearer_authorization_at(
    scan: &Scan<'_>,
    anchor: Range<usize>,
) -> Option<Range<usize>> {
    let (scheme, credentials) = authorization(scan, anchor)?;
    matches!(scheme, "bearer" | "token").then_some(credentials)
}

/// `Authorization: <scheme> <credentials>` (header, JSON or `=` form): the folded scheme
/// and the credentials' span.
pub(super) fn authorization<'s>(
    scan: &'s Scan<'_>,
    anchor: Range<usize>,
) -> Option<(&'s str, Range<usize>)> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let mut i = anchor.end;
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    i = skip_blanks(b, i);
    if !matches!(b.get(i), Some(b':' | b'=')) {
        return None;
    }
    i = skip_blanks(b, i + 1);
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let scheme_end = run_end(b, i, |c| c.is_ascii_alphabetic());
    let scheme = &scan.folded[i..scheme_end];
    let start = skip_blanks(b, scheme_end);
    if start == scheme_end || marker_len(&b[start..]).is_some() {
        return None;
    }
    let end = run_end(b, start, |c| !is_value_end(c));
    let credentials = &scan.text[start..end];
    (credentials.len() >= 8 && !is_placeholder(credentials)).then_some((scheme, start..end))
}

/// `Bearer <token>` outside a header: the token must be long and look machine-made.
pub(super) fn bare_bearer_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    if scan.starts_inside_word(anchor.start) {
        return None;
    }
    let start = skip_blanks(b, anchor.end);
    if start == anchor.end {
        return None;
    }
    let end = run_end(b, start, is_bearer_token);
    let run = &b[start..end];
    (run.len() >= 16 && looks_generated(run)).then_some(start..end)
}

/// `scheme://user:password@host`: the password only (the last `@` of the authority ends
/// it, as URL parsers read it).
pub(super) fn url_password_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    let b = scan.bytes;
    let mut scheme = run_start(b, anchor.start, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')
    });
    // A removed control inside the run may have joined the scheme to the word before it.
    if !b[scheme].is_ascii_alphabetic()
        && let Some(&cut) = scan
            .cuts
            .iter()
            .rev()
            .find(|&&c| c > scheme && c < anchor.start)
    {
        scheme = cut;
    }
    if scheme == anchor.start || !b[scheme].is_ascii_alphabetic() {
        return None;
    }
    let authority_end = run_end(b, anchor.end, |c| {
        !c.is_ascii_whitespace()
            && !matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`')
    });
    let authority = &b[anchor.end..authority_end];
    let at = anchor.end + authority.iter().rposition(|&c| c == b'@')?;
    let colon = anchor.end + b[anchor.end..at].iter().position(|&c| c == b':')?;
    let password = colon + 1..at;
    let has_host = at + 1 < authority_end;
    (has_host && !password.is_empty() && !is_placeholder(&scan.text[password.clone()]))
        .then_some(password)
}

pub(super) fn secret_assignment_at(scan: &Scan<'_>, anchor: Range<usize>) -> Option<Range<usize>> {
    secret_assignment(scan, anchor).map(|assignment| assignment.value)
}

/// Longer runs of key characters are not keys (and are not scanned further).
pub(super) const MAX_KEY_LEN: usize = 128;

/// A key naming a secret, and the value assigned to it.
pub(super) struct Assignment {
    key: Range<usize>,
    value: Range<usize>,
}

/// How an assignment's value is delimited.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueForm {
    /// `KEY=value`, `"key": value`: up to whitespace or punctuation.
    Word { spaced_equals: bool },
    /// `key: value` at the start of a line (YAML, headers): the rest of the line.
    RestOfLine,
    /// `key: value` mid-line, which prose also writes: only a value that looks made up.
    Prose,
}

/// Reads `KEY=value`, `KEY = value` or `key: value` around `word`, one of
/// [`SECRET_WORDS`] found in the folded text (see the module docs for the rules).
pub(super) fn secret_assignment(scan: &Scan<'_>, word: Range<usize>) -> Option<Assignment> {
    let b = scan.bytes;
    // The word must end the key or one of its parts: not `max_tokens`, `tokenizer`.
    if let Some(&next) = b.get(word.end) {
        let camel = b[word.end - 1].is_ascii_lowercase() && next.is_ascii_uppercase();
        if next.is_ascii_alphabetic() && !camel {
            return None;
        }
    }
    let key = bounded_run_start(b, word.start, MAX_KEY_LEN, is_key_byte)
        ..bounded_run_end(b, word.end, MAX_KEY_LEN, is_key_byte);
    if key.len() > MAX_KEY_LEN {
        return None;
    }
    if key.end > word.end
        && METADATA_WORDS.contains(&last_key_word(&scan.text[key.clone()]).as_str())
    {
        return None;
    }

    let mut i = key.end;
    let key_quote = match (key.start.checked_sub(1).map(|q| b[q]), b.get(i)) {
        (Some(open @ (b'"' | b'\'')), Some(&close)) if open == close => {
            i += 1;
            true
        }
        _ => false,
    };
    let sep = skip_blanks(b, i);
    let after = b.get(sep + 1).copied();
    let form = match b.get(sep) {
        Some(b'=') if !matches!(after, Some(b'=' | b'>' | b'~')) => ValueForm::Word {
            spaced_equals: sep > i,
        },
        Some(b':') if matches!(after, Some(b' ' | b'\t')) || (key_quote && after != Some(b':')) => {
            let opener = key.start - usize::from(key_quote);
            let indent = bounded_run_start(b, opener, MAX_KEY_LEN, |c| {
                matches!(c, b' ' | b'\t' | b'-' | b'*' | b'>' | b'#')
            });
            let leads_line = indent == 0 || b[indent - 1] == b'\n';
            if key_quote {
                ValueForm::Word {
                    spaced_equals: false,
                }
            } else if leads_line {
                ValueForm::RestOfLine
            } else {
                ValueForm::Prose
            }
        }
        _ => return None,
    };

    let start = skip_blanks(b, sep + 1);
    let first = *b.get(start)?;
    if first == b'\n' || starts_with_placeholder(&b[start..]) {
        return None;
    }
    let value = match (first, form) {
        (q @ (b'"' | b'\''), _) => {
            start + 1..closing_quote(b, start + 1, q).unwrap_or_else(|| line_end(b, start))
        }
        (_, ValueForm::RestOfLine) => {
            let line = &scan.text[start..line_end(b, start)];
            let value = line.find(" #").map_or(line, |comment| &line[..comment]);
            start..start + value.trim_end().len()
        }
        (_, ValueForm::Word { spaced_equals }) => {
            let end = run_end(b, start, |c| !is_value_end(c));
            let next = b.get(end).copied();
            let is_code =
                matches!(next, Some(b'(' | b'[' | b'{')) || (spaced_equals && next == Some(b';'));
            if is_code {
                // A removed control inside or after the run separates the value from the
                // call it seems to continue into: the value up to it is the secret.
                let cut = scan.cut_within(start, end.saturating_add(1).min(b.len() + 1))?;
                start..cut
            } else {
                start..end
            }
        }
        (_, ValueForm::Prose) => {
            let end = run_end(b, start, |c| !is_value_end(c));
            let run = &b[start..end];
            let made_up = run.len() >= 6
                && run.iter().any(u8::is_ascii_alphabetic)
                && run.iter().any(u8::is_ascii_digit);
            if !made_up {
                return None;
            }
            start..end
        }
    };
    (!is_placeholder(&scan.text[value.clone()])).then_some(Assignment { key, value })
}

/// The last word of `key`, lower-cased: keys split at `_`, `-`, `.` and where lower case
/// turns upper (`tokenTtl` ends in `ttl`).
pub(super) fn last_key_word(key: &str) -> String {
    let part = key.rsplit(['_', '-', '.']).next().unwrap_or(key);
    let b = part.as_bytes();
    let start = (1..b.len())
        .rev()
        .find(|&i| b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase())
        .unwrap_or(0);
    part[start..].to_ascii_lowercase()
}

/// `[redacted: <shape>]` at the start of `b`: its length.
pub(super) fn marker_len(b: &[u8]) -> Option<usize> {
    let rest = b.strip_prefix(b"[redacted: ")?;
    let name = run_end(rest, 0, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'
    });
    (name > 0 && rest.get(name) == Some(&b']')).then_some(b"[redacted: ".len() + name + 1)
}

/// A value that opens with a placeholder (`<...>`, `${...}`, `{{...}}`, a marker) closed
/// on the same line.
pub(super) fn starts_with_placeholder(rest: &[u8]) -> bool {
    let closes = |open: &[u8], close: &[u8]| {
        rest.starts_with(open)
            && rest[open.len()..line_end(rest, 0)]
                .windows(close.len())
                .any(|window| window == close)
    };
    marker_len(rest).is_some() || closes(b"<", b">") || closes(b"${", b"}") || closes(b"{{", b"}}")
}

/// True for a whole value that stands where a secret would go (module docs).
pub(super) fn is_placeholder(value: &str) -> bool {
    let is_identifier = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let lower = value.to_ascii_lowercase();
    value.is_empty()
        || marker_len(value.as_bytes()) == Some(value.len())
        || (value.starts_with('<') && value.ends_with('>'))
        || (value.starts_with("${") && value.ends_with('}'))
        || (value.starts_with("{{") && value.ends_with("}}"))
        || value.strip_prefix('$').is_some_and(is_identifier)
        || value
            .strip_prefix('%')
            .and_then(|v| v.strip_suffix('%'))
            .is_some_and(is_identifier)
        || value
            .chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
        || lower == "your"
        || lower.starts_with("your_")
        || lower.starts_with("your-")
        || lower.starts_with("your ")
        || PLACEHOLDER_WORDS.contains(&lower.as_str())
}

/// True when `run` mixes at least two of: digits, lower-case letters, and upper-case
/// letters that follow a letter or digit (a capitalised word is not mixed case).
pub(super) fn looks_generated(run: &[u8]) -> bool {
    let mut digit = false;
    let mut lower = false;
    let mut upper = false;
    for (i, &c) in run.iter().enumerate() {
        digit |= c.is_ascii_digit();
        lower |= c.is_ascii_lowercase();
        upper |= c.is_ascii_uppercase() && i > 0 && run[i - 1].is_ascii_alphanumeric();
    }
    u8::from(digit) + u8::from(lower) + u8::from(upper) >= 2
}
