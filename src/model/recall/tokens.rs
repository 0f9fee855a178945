//! The code-aware tokenizer: case-folded Unicode words, with `snake_case`, `camelCase`
//! and path segments split, so `LedgerIndex`, `ledger_index` and `src/ledger/index.rs`
//! all reach the terms `ledger` and `index` (and the first two the compound
//! `ledgerindex` as well).

use std::collections::BTreeSet;

/// Longest token kept, in characters; a longer run is cut to this.
pub const MAX_TOKEN_CHARS: usize = 64;
/// Distinct terms one query searches for; the rest are dropped, and the result says how
/// many (never silently).
pub const MAX_QUERY_TERMS: usize = 32;

/// Every token of `text`, in order, repeats kept (BM25 counts them). A word of several
/// parts yields its compound first, then each part.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty() {
            continue;
        }
        let parts = parts_of(word);
        if parts.len() > 1 {
            push(&mut out, parts.concat());
        }
        for part in parts {
            push(&mut out, part);
        }
    }
    out
}

/// The distinct terms of a query, in the order they first appear, at most
/// [`MAX_QUERY_TERMS`]; and how many more distinct terms there were.
pub fn query_terms(query: &str) -> (Vec<String>, usize) {
    let mut seen = BTreeSet::new();
    let mut terms = Vec::new();
    let mut dropped = 0;
    for token in tokens(query) {
        if seen.insert(token.clone()) {
            if terms.len() < MAX_QUERY_TERMS {
                terms.push(token);
            } else {
                dropped += 1;
            }
        }
    }
    (terms, dropped)
}

/// One token: at least two characters (a lone letter is noise), at most
/// [`MAX_TOKEN_CHARS`].
fn push(out: &mut Vec<String>, token: String) {
    let count = token.chars().count();
    if count < 2 {
        return;
    }
    if count > MAX_TOKEN_CHARS {
        out.push(token.chars().take(MAX_TOKEN_CHARS).collect());
    } else {
        out.push(token);
    }
}

/// A word's parts, case-folded: split at `_` and at camelCase boundaries (`fooBar`,
/// `HTTPServer`, `v2Parser`); letters and digits of one part stay together (`sha256`).
fn parts_of(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_numeric() && cur.is_uppercase())
                || (prev.is_uppercase() && cur.is_uppercase() && next_lower);
            if boundary {
                parts.push(fold(&chars[start..i]));
                start = i;
            }
        }
        parts.push(fold(&chars[start..]));
    }
    parts
}

fn fold(chars: &[char]) -> String {
    chars.iter().flat_map(|c| c.to_lowercase()).collect()
}

/// Words too common to tell two statements apart (a small English list: articles,
/// conjunctions, prepositions, the commonest auxiliaries and pronouns); left out of
/// [`similarity`] (near duplicates: `decision`, `question`, the review queue's folding)
/// and of [`subject_query`]. Lexical ranking weighs common words down by itself, but in a
/// small store "the" and "of" can still decide a ranking by words alone.
pub const STOPWORDS: &[&str] = &[
    "all", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "no", "not", "of", "on", "or", "that", "the", "this", "to", "was", "we", "were",
    "will", "with",
];

/// The distinct tokens of `text` that say something (stopwords left out).
pub fn content_terms(text: &str) -> BTreeSet<String> {
    tokens(text)
        .into_iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .collect()
}

/// The words of `text` to recall its subject by: its tokens in order, each once, stop
/// words left out ("Also known on the same subject" in the cockpit).
pub fn subject_query(text: &str) -> String {
    let mut seen = BTreeSet::new();
    tokens(text)
        .into_iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()) && seen.insert(t.clone()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How alike two statements are, 0 to 1: the Jaccard index of their content terms
/// (shared over all); or, when the shorter holds at least [`CONTAINED_MIN_TERMS`] terms,
/// [`CONTAINED_WEIGHT`] × the share of the shorter's terms the longer holds, if that is
/// more (a shorter restatement of a longer record is still the same statement).
pub fn similarity(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(b).count();
    let all = a.len() + b.len() - shared;
    let jaccard = shared as f64 / all as f64;
    let shorter = a.len().min(b.len());
    if shorter >= CONTAINED_MIN_TERMS {
        jaccard.max(CONTAINED_WEIGHT * shared as f64 / shorter as f64)
    } else {
        jaccard
    }
}

/// Two statements at least this alike are near duplicates (advisory: `decision` and
/// `question` name the existing one). docs/RECALL.md gives examples either side.
pub const NEAR_DUPLICATE: f64 = 0.7;
/// Content terms the shorter statement needs before containment counts ("use gix" is
/// contained in too much to mean anything).
pub const CONTAINED_MIN_TERMS: usize = 4;
/// What containment weighs against the Jaccard index.
pub const CONTAINED_WEIGHT: f64 = 0.9;

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        tokens(text)
    }

    #[test]
    fn words_are_case_folded_and_code_identifiers_split() {
        assert_eq!(t("Parse YAML"), ["parse", "yaml"]);
        assert_eq!(t("snake_case"), ["snakecase", "snake", "case"]);
        assert_eq!(t("camelCase"), ["camelcase", "camel", "case"]);
        assert_eq!(t("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(t("v2Parser"), ["v2parser", "v2", "parser"]);
        assert_eq!(t("sha256"), ["sha256"]);
        assert_eq!(
            t("src/store/ledger_index.rs"),
            ["src", "store", "ledgerindex", "ledger", "index", "rs"]
        );
    }

    #[test]
    fn camel_and_snake_spellings_meet_in_the_compound() {
        let a = t("LedgerIndex");
        let b = t("ledger_index");
        assert_eq!(a, b);
    }

    #[test]
    fn unicode_words_stay_whole_and_fold() {
        assert_eq!(t("Příliš Žluťoučký"), ["příliš", "žluťoučký"]);
        assert_eq!(t("ÉCOLE"), ["école"]);
    }

    #[test]
    fn syntax_is_not_a_token() {
        assert_eq!(
            t("\"quoted\" AND field:value ^2 ~3 * (x OR y)\tTab"),
            ["quoted", "and", "field", "value", "or", "tab"]
        );
        assert!(t("*** ^^^ ~~~ \"\" :: ()").is_empty());
    }

    #[test]
    fn long_runs_are_cut_and_single_letters_dropped() {
        let long = "a".repeat(500);
        assert_eq!(t(&long), ["a".repeat(MAX_TOKEN_CHARS)]);
        assert!(t("a b c").is_empty());
    }

    #[test]
    fn a_query_keeps_its_first_distinct_terms_and_counts_the_rest() {
        let (terms, dropped) = query_terms("parser Parser PARSER error");
        assert_eq!(terms, ["parser", "error"]);
        assert_eq!(dropped, 0);
        let many: String = (0..100).map(|i| format!("word{i} ")).collect();
        let (terms, dropped) = query_terms(&many);
        assert_eq!(terms.len(), MAX_QUERY_TERMS);
        assert_eq!(terms[0], "word0");
        assert_eq!(dropped, 100 - MAX_QUERY_TERMS);
    }

    #[test]
    fn stop_words_never_make_two_statements_alike() {
        let sim = |a: &str, b: &str| similarity(&content_terms(a), &content_terms(b));
        // All they share is stop words.
        assert_eq!(
            sim(
                "The owner of the cache is in the team",
                "The end of the line is at the top"
            ),
            0.0
        );
        // Stop words added to one of two restatements change nothing.
        assert_eq!(
            sim("ledger appends take the lock", "ledger appends take lock"),
            1.0
        );
        assert_eq!(
            subject_query("The cache of the lexer is in the Lexer"),
            "cache lexer"
        );
        assert_eq!(subject_query("the of and"), "");
    }

    #[test]
    fn near_duplicates_are_told_from_neighbours() {
        let sim = |a: &str, b: &str| similarity(&content_terms(a), &content_terms(b));
        // The same decision, reworded a little: a near duplicate.
        assert!(
            sim(
                "All git access goes through gix",
                "All git access goes through gix; no git subprocess"
            ) >= NEAR_DUPLICATE
        );
        assert!(sim("Parse YAML with yaml_serde", "parse yaml with yaml_serde.") >= NEAR_DUPLICATE);
        // Same words around, a different subject: not one.
        assert!(
            sim(
                "Use the ledger for decisions",
                "Use the ledger for checkpoints"
            ) < NEAR_DUPLICATE
        );
        assert!(sim("", "anything") == 0.0);
        // A shorter restatement of a longer record is the same statement ...
        assert!(
            sim(
                "Ledger appends take the file lock",
                "Ledger appends take the file lock, one write per line"
            ) >= NEAR_DUPLICATE
        );
        // ... but a short phrase is contained in too much to count.
        assert!(sim("Use gix", "Use gix for every git read and write") < NEAR_DUPLICATE);
    }
}
