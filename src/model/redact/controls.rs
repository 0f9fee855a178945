//! Terminal control characters.

use super::*;

/// `text` without terminal control characters, and whether it had any.
pub(super) fn strip_controls(text: &str) -> (Cow<'_, str>, Option<Vec<usize>>) {
    // Most text has none: a pass over the bytes (no UTF-8 decoding) says so. A control
    // is a C0 byte, DEL, or a C1 character, which UTF-8 writes as 0xC2 and a second byte.
    // In blocks without an early exit, so the compiler can run each block in vectors.
    let suspect = |b: u8| (b < b' ' && b != b'\n' && b != b'\t') | (b == 0x7f) | (b == 0xc2);
    let any_suspect = text
        .as_bytes()
        .chunks(64)
        .any(|block| block.iter().fold(false, |seen, &b| seen | suspect(b)));
    if !any_suspect || !text.chars().any(is_control) {
        return (Cow::Borrowed(text), None);
    }
    let mut out = String::with_capacity(text.len());
    // Where something was removed, once per place.
    let mut cuts: Vec<usize> = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_control_string(&mut chars),
            c if is_control(c) => {}
            c => {
                out.push(c);
                continue;
            }
        }
        if cuts.last() != Some(&out.len()) {
            cuts.push(out.len());
        }
    }
    (Cow::Owned(out), Some(cuts))
}

/// C0 except `\n` and `\t`, DEL, C1.
pub(super) fn is_control(c: char) -> bool {
    (c < ' ' && c != '\n' && c != '\t') || ('\x7f'..='\u{9f}').contains(&c)
}

/// Skips what follows an ESC: a CSI, a string sequence (OSC, DCS, SOS, PM, APC), or an
/// escape with intermediates and a final byte.
pub(super) fn skip_escape(chars: &mut std::str::Chars<'_>) {
    match chars.clone().next() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_control_string(chars);
        }
        Some('\x20'..='\x2f') => {
            while matches!(chars.clone().next(), Some('\x20'..='\x2f')) {
                chars.next();
            }
            if matches!(chars.clone().next(), Some('\x30'..='\x7e')) {
                chars.next();
            }
        }
        Some('\x30'..='\x7e') => {
            chars.next();
        }
        _ => {}
    }
}

/// Skips a CSI's parameters, intermediates and final byte.
pub(super) fn skip_csi(chars: &mut std::str::Chars<'_>) {
    while matches!(chars.clone().next(), Some('\x30'..='\x3f')) {
        chars.next();
    }
    while matches!(chars.clone().next(), Some('\x20'..='\x2f')) {
        chars.next();
    }
    if matches!(chars.clone().next(), Some('\x40'..='\x7e')) {
        chars.next();
    }
}

/// Skips a string sequence's payload through its terminator (BEL, `ESC \` or ST) on the
/// same line. Unterminated, only the introducer goes: its payload stays as plain text
/// rather than swallowing the rest of the record.
pub(super) fn skip_control_string(chars: &mut std::str::Chars<'_>) {
    let mut ahead = chars.clone();
    while let Some(c) = ahead.next() {
        match c {
            '\x07' | '\u{9c}' => {
                *chars = ahead;
                return;
            }
            '\x1b' if ahead.clone().next() == Some('\\') => {
                ahead.next();
                *chars = ahead;
                return;
            }
            '\n' => return,
            _ => {}
        }
    }
}
