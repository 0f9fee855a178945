//! History, a signal (SPEC §11, "files changed together"): the files a prompt's words came
//! with. Each word of a prompt is said by some records of the memory, and those records'
//! episodes changed (or they cite) some files; a word whose records keep reaching one file
//! points at it — `tab` at `src/lexer.rs` when most records that say `tab` changed the
//! lexer. The files its words point at most become paths a prompt-time search ranks by,
//! each weighing what its words give it: a record reaching one is lifted, not found (the
//! words find; the files they came with rank). Pure: the counts come from the index.
//! Why: "the prompt's words came with it" after the path's own why.

use std::collections::BTreeMap;

/// A word said by more records than this points nowhere in particular (its records reach
/// everything) and costs the most to count: it is left out.
pub const HISTORY_MOST_RECORDS: usize = 128;
/// Added to a word's record count before its share of a file is taken: a word two records
/// say, both about one file, points at it less surely than one twenty say.
pub const HISTORY_PRIOR: f64 = 2.0;
/// The files a prompt's words point at most that it ranks by, at most.
pub const HISTORY_FILES: usize = 8;
/// What the strongest pointing weighs, against a file the prompt names (1).
pub const HISTORY_WEIGHT: f64 = 0.5;

/// A path more than this share of the recall index's documents reach is a hub (a changelog,
/// a lock file, the one module every change passes through): it says nothing about one of
/// them, so no word points at it and no word naming it confirms a prompt's hit ...
pub const HUB_SHARE: f64 = 0.05;
/// ... once more than this many reach it (in a small store every path is a large share).
pub const HUB_MIN: usize = 20;

/// Whether a path `reached` documents of `documents` reach is a hub.
pub fn is_hub(reached: usize, documents: usize) -> bool {
    reached > HUB_MIN && reached as f64 > HUB_SHARE * documents as f64
}

/// How surely a word points at each file: for each file its records reach, how many of
/// them reach it, over how many records say the word ([`HISTORY_PRIOR`] added).
pub fn pointing(records: usize, reached: &BTreeMap<String, usize>) -> BTreeMap<String, f64> {
    reached
        .iter()
        .map(|(path, n)| (path.clone(), *n as f64 / (records as f64 + HISTORY_PRIOR)))
        .collect()
}

/// The files `words` point at most (each word's pointing added up), strongest first, each
/// with the weight a path of the prompt's words gets (in thousandths, what
/// `HandSource::Words` carries): at most [`HISTORY_FILES`], ties to the path's name.
pub fn strongest(words: &[BTreeMap<String, f64>]) -> Vec<(String, u16)> {
    let mut total: BTreeMap<&str, f64> = BTreeMap::new();
    for word in words {
        for (path, share) in word {
            *total.entry(path.as_str()).or_default() += share;
        }
    }
    let mut ranked: Vec<(&str, f64)> = total.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(HISTORY_FILES)
        .map(|(path, share)| {
            let weight = (HISTORY_WEIGHT * share.min(1.0) * 1000.0).round() as u16;
            (path.to_owned(), weight.max(1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_points_at_the_files_its_records_keep_reaching() {
        let reached = BTreeMap::from([("src/lexer.rs".to_owned(), 8), ("src/a.rs".to_owned(), 1)]);
        let tab = pointing(10, &reached);
        assert!((tab["src/lexer.rs"] - 8.0 / 12.0).abs() < 1e-12);
        let indent = pointing(2, &BTreeMap::from([("src/lexer.rs".to_owned(), 2)]));
        // Two words pointing at one file add up; the strongest first, weights in
        // thousandths of HISTORY_WEIGHT.
        let files = strongest(&[tab, indent]);
        assert_eq!(files[0].0, "src/lexer.rs");
        assert_eq!(files[0].1, 500);
        assert_eq!(files[1], ("src/a.rs".to_owned(), 42));
        assert!(strongest(&[]).is_empty());
    }
}
