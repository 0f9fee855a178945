//! Recall (SPEC §11), the pure part: the code-aware tokenizer and the ranking that
//! combines lexical, path, link, status and recency into one explainable order. No files,
//! no index, no git.

mod rank;
mod tokens;

pub use rank::{
    DIR_FREE, HAND_LINK_FACTOR, HandSource, HitStatus, LEXICAL_MAX, LinkKind, OWN_COMMIT_DECAY,
    OWN_COMMIT_FLOOR, OWN_COMMIT_NEWEST, PATH_DECAY, PathHow, PathMatch, PathVia, Ranked,
    SPREAD_FREE, Signals, compare, decayed_sum, dir_damping, order, score, spread_damping,
};
pub use tokens::{
    MAX_QUERY_TERMS, MAX_TOKEN_CHARS, NEAR_DUPLICATE, STOPWORDS, content_terms, query_terms,
    similarity, subject_query, tokens,
};
