//! Duplicates folded into one review item (SPEC §5.2): candidates whose claims are near
//! duplicates of each other, or of a verified record, by the rule `decision` uses
//! ([`similarity`] of [`content_terms`], stop words left out, at least
//! [`NEAR_DUPLICATE`]). Pure: the caller reads the records.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::recall::{NEAR_DUPLICATE, content_terms, similarity};

/// A statement to compare: a record's id and its claim.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    pub id: &'a str,
    pub text: &'a str,
}

/// One review item: the candidates that fold together, the newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// The candidate shown: the newest of the item (last in the queue's order).
    pub head: String,
    /// The others, folded under it, oldest first.
    pub folded: Vec<String>,
    /// The verified record the item's claims restate, when one does (the most alike).
    pub verified: Option<String>,
}

/// The claim of a record body: its text before the first `# ` section (`# Evidence`,
/// `# Rejected`), or `title` when that is empty.
pub fn claim_of<'a>(title: &'a str, body: &'a str) -> &'a str {
    let claim = if body.starts_with("# ") {
        ""
    } else {
        body.split("\n# ").next().unwrap_or(body).trim()
    };
    if claim.is_empty() { title } else { claim }
}

/// Terms shared with at least one other statement, as candidate pairs: only statements
/// that share a content term are ever compared (cost grows with the overlap, not with
/// candidates × verified records).
fn postings(terms: &[BTreeSet<String>]) -> BTreeMap<&str, Vec<usize>> {
    let mut by_term: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, set) in terms.iter().enumerate() {
        for t in set {
            by_term.entry(t.as_str()).or_default().push(i);
        }
    }
    by_term
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The review items of `candidates` (given in the queue's order, oldest first): near
/// duplicates join one item (a chain of near duplicates is one item), whose head is the
/// newest; each item names the verified record of `verified` it restates, if any. Items
/// come in the order of their oldest candidate; a candidate alike to nothing is an item
/// of its own. Deterministic: the same inputs give the same items.
pub fn fold(candidates: &[Claim<'_>], verified: &[Claim<'_>]) -> Vec<Fold> {
    let terms: Vec<BTreeSet<String>> = candidates.iter().map(|c| content_terms(c.text)).collect();
    let mut parent: Vec<usize> = (0..candidates.len()).collect();
    let by_term = postings(&terms);
    let mut compared: BTreeSet<(usize, usize)> = BTreeSet::new();
    for ids in by_term.values() {
        for (n, &a) in ids.iter().enumerate() {
            for &b in &ids[n + 1..] {
                if !compared.insert((a, b)) {
                    continue;
                }
                if similarity(&terms[a], &terms[b]) >= NEAR_DUPLICATE {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    if ra != rb {
                        parent[ra.max(rb)] = ra.min(rb);
                    }
                }
            }
        }
    }
    // The verified record each candidate restates: the most alike, ties to the smaller id.
    let verified_terms: Vec<BTreeSet<String>> =
        verified.iter().map(|v| content_terms(v.text)).collect();
    let verified_by_term = postings(&verified_terms);
    let mut restates: Vec<Option<(f64, usize)>> = vec![None; candidates.len()];
    for (i, mine) in terms.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for t in mine {
            for &v in verified_by_term.get(t.as_str()).into_iter().flatten() {
                if !seen.insert(v) {
                    continue;
                }
                let s = similarity(mine, &verified_terms[v]);
                let better = match restates[i] {
                    None => true,
                    Some((best, at)) => s > best || (s == best && verified[v].id < verified[at].id),
                };
                if s >= NEAR_DUPLICATE && better {
                    restates[i] = Some((s, v));
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..candidates.len() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut items: Vec<(usize, Fold)> = groups
        .into_values()
        .map(|members| {
            let head = *members.last().expect("a group has a member");
            let best = members.iter().filter_map(|&m| restates[m]).fold(
                None::<(f64, usize)>,
                |acc, (s, v)| match acc {
                    Some((b, at)) if b > s || (b == s && verified[at].id <= verified[v].id) => {
                        Some((b, at))
                    }
                    _ => Some((s, v)),
                },
            );
            (
                members[0],
                Fold {
                    head: candidates[head].id.to_owned(),
                    folded: members[..members.len() - 1]
                        .iter()
                        .map(|&m| candidates[m].id.to_owned())
                        .collect(),
                    verified: best.map(|(_, v)| verified[v].id.to_owned()),
                },
            )
        })
        .collect();
    items.sort_by_key(|(first, _)| *first);
    items.into_iter().map(|(_, f)| f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(id: &'a str, text: &'a str) -> Claim<'a> {
        Claim { id, text }
    }

    #[test]
    fn near_duplicates_fold_under_the_newest() {
        let items = fold(
            &[
                c("a", "Parse the YAML policy with yaml_serde"),
                c("b", "Ledger appends take the exclusive lock"),
                c("c", "parse the yaml policy with yaml_serde."),
                c("d", "The YAML policy is parsed with yaml_serde"),
            ],
            &[],
        );
        assert_eq!(
            items,
            [
                Fold {
                    head: "d".into(),
                    folded: vec!["a".into(), "c".into()],
                    verified: None
                },
                Fold {
                    head: "b".into(),
                    folded: vec![],
                    verified: None
                },
            ]
        );
    }

    #[test]
    fn stop_words_alone_never_make_two_claims_alike() {
        // Everything these share is a stop word: they are two items.
        let items = fold(
            &[
                c("a", "The cache of the lexer is in the session"),
                c("b", "The owner of the release is in the team"),
            ],
            &[],
        );
        assert_eq!(items.len(), 2, "{items:?}");
    }

    #[test]
    fn a_candidate_restating_a_verified_record_names_it() {
        let items = fold(
            &[c("a", "Ledger appends take the exclusive lock")],
            &[
                c("v1", "Recall ranks by BM25"),
                c("v2", "ledger appends take the exclusive lock."),
            ],
        );
        assert_eq!(items[0].verified.as_deref(), Some("v2"));
    }

    #[test]
    fn the_claim_is_the_body_before_its_sections() {
        assert_eq!(claim_of("t", "Claim.\n\n# Evidence\n\nx\n"), "Claim.");
        assert_eq!(claim_of("t", "\n"), "t");
        assert_eq!(claim_of("t", "# Rejected\n\nno\n"), "t");
    }
}
