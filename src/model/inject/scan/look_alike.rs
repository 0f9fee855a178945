//! Look-alike letters: words in full-width or mixed-script letters, read as the ASCII
//! they pass for.

use super::{Shape, Span, Word, push};

/// The ASCII letter a lower-case character is drawn like: a full-width Latin letter, or a
/// Cyrillic, Greek or Latin-extended letter confusable with one (`і`, `о`, `ο`, `ɡ`).
pub(super) fn look_alike(c: char) -> Option<char> {
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
pub(super) fn look_alikes(text: &str, words: &[Word], out: &mut Vec<Span>) {
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
