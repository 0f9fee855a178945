//! Recall (SPEC §11), the pure part: the code-aware tokenizer and the ranking that
//! combines lexical, path, link, status and recency into one explainable order. No files,
//! no index, no git.

mod rank;
mod tokens;

pub use rank::{
    HitStatus, LEXICAL_MAX, LinkKind, PathHow, PathMatch, PathVia, Ranked, SPREAD_FREE, Signals,
    compare, order, score,
};
pub use tokens::{
    MAX_QUERY_TERMS, MAX_TOKEN_CHARS, NEAR_DUPLICATE, content_terms, query_terms, similarity,
    tokens,
};
