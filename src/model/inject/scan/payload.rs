//! Encoded payloads: base64-looking runs.

use super::{Shape, Span, push};

/// The shortest run read as an encoded payload.
const PAYLOAD_MIN: usize = 40;

/// A base64-looking run of at least [`PAYLOAD_MIN`] characters: upper and lower case
/// letters, its character class changing at least every two and a half characters (words,
/// identifiers and paths change less often), at most one in eight a `+`, `/`, `-` or `_`.
/// Hex (commit ids, content hashes) has one case and is never one.
pub(super) fn payloads(text: &str, out: &mut Vec<Span>) {
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
