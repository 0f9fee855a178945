//! Code (SPEC §11, "identifiers the prompt names"): the words the repository's own source
//! holds as identifiers. Each source file committed at HEAD is read once (at a briefing or
//! a `recall`; after a commit, only the files whose blob changed) into its identifiers,
//! each kept as the term a prompt's word of the same name gives first. A prompt that
//! names code (`` `parse_args` ``, `--min-depth`, `ToChars`) the memory never mentions is
//! about another project only when the code does not hold it either (`hook prompt`,
//! docs/RECALL.md "Another project's words"). Measured as a ranking signal too (the files
//! whose code names the prompt's words, lifting the records reaching them, or confirming
//! a hit that holds such a word): no better than the words and their files already rank
//! (docs/RECALL.md, "What it reaches, measured"), so it ranks nothing.

use std::collections::BTreeSet;

/// A file larger than this is not read for its identifiers (generated or vendored).
pub const CODE_MAX_BYTES: usize = 256 * 1024;
/// An identifier shorter than this (in characters) says too little to point anywhere.
pub const CODE_MIN_CHARS: usize = 3;
/// The extensions of the files read for their identifiers: source code, not prose or data
/// (a word of a README or a lock file is not an identifier).
const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "go", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "java", "kt", "kts", "scala", "swift", "m", "mm", "cs", "fs", "rb",
    "php", "pl", "pm", "lua", "sh", "bash", "zsh", "fish", "ps1", "ex", "exs", "erl", "hs", "ml",
    "mli", "clj", "dart", "zig", "nim", "jl", "r", "vue", "svelte", "sql", "proto", "graphql",
];

/// Whether `path` is a source file whose identifiers are read (by its extension; the
/// memory's own `.ai/` never).
pub fn is_source(path: &str) -> bool {
    if path.starts_with(".ai/") {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => false,
    }
}

/// The identifiers of a source file's bytes, each as the term a prompt's word of the same
/// name gives first (its compound, case-folded: `parse_args`, `parseArgs` and `ParseArgs`
/// are `parseargs`); `None` for a file too large or not text (a NUL in its first 8 KiB).
pub fn identifiers(bytes: &[u8]) -> Option<BTreeSet<String>> {
    if bytes.len() > CODE_MAX_BYTES || bytes.iter().take(8192).any(|b| *b == 0) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    let mut out = BTreeSet::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if word.len() < CODE_MIN_CHARS || word.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if let Some(term) = whole_term(word) {
            out.insert(term);
        }
    }
    Some(out)
}

/// The one term a word is looked up by: its letters and digits, case-folded, whatever
/// separates its parts (`parse_args`, `parseArgs`, `--parse-args` and `ParseArgs` are all
/// `parseargs`: what `tokens` gives first for an identifier of parts), at least
/// [`CODE_MIN_CHARS`] long and not a number.
pub fn whole_term(word: &str) -> Option<String> {
    let term: String = word
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    (term.chars().count() >= CODE_MIN_CHARS && !term.chars().all(|c| c.is_ascii_digit()))
        .then_some(term)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_file_is_read_for_its_identifiers_by_their_compound() {
        let ids = identifiers(b"fn parse_args(x: u8) -> ParseArgs { let ok = 12; }").unwrap();
        assert!(ids.contains("parseargs"));
        assert!(ids.contains("let"));
        // Too short, or a number: no identifier.
        assert!(!ids.contains("ok") && !ids.contains("12") && !ids.contains("u8"));
        for said in ["parseArgs", "--parse-args", "ParseArgs", "`parse_args()`"] {
            assert_eq!(whole_term(said).as_deref(), Some("parseargs"), "{said}");
        }
        // What `tokens` gives first for an identifier of parts is the same term.
        assert_eq!(
            crate::model::recall::tokens("ParseArgs")[0],
            whole_term("ParseArgs").unwrap()
        );
        assert_eq!(whole_term("ab"), None);
        // Binary or too large: not read.
        assert_eq!(identifiers(b"abc\0def"), None);
        assert_eq!(identifiers(&vec![b'a'; CODE_MAX_BYTES + 1]), None);
        assert!(is_source("src/exec/input.rs") && is_source("lib/Http.TS"));
        assert!(!is_source("README.md") && !is_source(".ai/x.rs") && !is_source("Makefile"));
        assert!(!is_source(".rs"));
    }
}
