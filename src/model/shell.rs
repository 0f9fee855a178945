//! Words of a printed command, quoted for a POSIX shell: a `fix:` or `next:` line names
//! paths and texts that must survive being pasted into one as they are.

use std::borrow::Cow;

/// `word` as one shell word: unchanged when it holds only characters no shell treats
/// specially, else in single quotes (a `'` inside written `'\''`).
pub fn quote(word: &str) -> Cow<'_, str> {
    let plain = !word.is_empty()
        && word.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b':' | b'@' | b'%' | b'+' | b'=' | b','
                )
        });
    if plain {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', "'\\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn plain_words_stay_and_the_rest_is_single_quoted() {
        assert_eq!(quote("src/a.rs"), "src/a.rs");
        assert_eq!(quote("t-20261130-1a2b"), "t-20261130-1a2b");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$HOME"), "'$HOME'");
        assert_eq!(quote(""), "''");
    }
}
