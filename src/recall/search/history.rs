//! The files a prompt's words came with (`model::recall::signal::history`), read from the
//! index: for each word, the term of it the fewest records say (a word said by more than
//! [`HISTORY_MOST_RECORDS`] is left out), those records' paths (references, episodes'
//! files, task scopes), hubs left out; the files the words point at most become paths the
//! search ranks by (`HandSource::Words`), lifting the records the words found.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::model::recall::HandSource;
use crate::model::recall::history::{HISTORY_MOST_RECORDS, is_hub, pointing, strongest};
use crate::store::recall::Reader;

use super::{QueryPath, index_failed};

/// The paths `words` came with, strongest first.
pub(super) fn paths(r: Reader<'_>, words: &[Vec<String>]) -> Result<Vec<QueryPath>, Error> {
    let fail = index_failed;
    let mut counted: Vec<(usize, BTreeMap<String, usize>)> = Vec::new();
    for word in words {
        let mut fewest: Option<Vec<i64>> = None;
        for term in word {
            if let Some(docs) = r.term_docs(term, HISTORY_MOST_RECORDS).map_err(fail)?
                && !docs.is_empty()
                && fewest.as_ref().is_none_or(|f| docs.len() < f.len())
            {
                fewest = Some(docs);
            }
        }
        let Some(docs) = fewest else {
            continue;
        };
        let mut reached: BTreeMap<String, usize> = BTreeMap::new();
        for paths in r.paths_of(&docs).map_err(fail)?.into_values() {
            for path in paths {
                *reached.entry(path).or_default() += 1;
            }
        }
        counted.push((docs.len(), reached));
    }
    if counted.is_empty() {
        return Ok(Vec::new());
    }
    let all: BTreeSet<&str> = counted
        .iter()
        .flat_map(|(_, reached)| reached.keys().map(String::as_str))
        .collect();
    let totals = r
        .reach_totals(&all.into_iter().collect::<Vec<_>>())
        .map_err(fail)?;
    let documents = r.documents().map_err(fail)?;
    let pointed: Vec<BTreeMap<String, f64>> = counted
        .into_iter()
        .map(|(records, mut reached)| {
            reached.retain(|path, _| !is_hub(totals.get(path).copied().unwrap_or(0), documents));
            pointing(records, &reached)
        })
        .collect();
    Ok(strongest(&pointed)
        .into_iter()
        .map(|(path, weight)| QueryPath {
            path,
            source: HandSource::Words(weight),
        })
        .collect())
}
