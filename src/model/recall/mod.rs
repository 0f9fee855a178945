//! Recall (SPEC §11), the pure part: the code-aware tokenizer (`tokens`), the signals that
//! rank a record and the one scorer that combines them (`signal`: words, paths, links, the
//! work at hand, the files a prompt's words came with), status (`status`) and the order of ranked records (`order`). No files,
//! no index, no git.

mod order;
mod signal;
mod status;
mod tokens;

pub use order::{Ranked, compare, order};
pub use signal::{
    DIR_FREE, HAND_LINK_FACTOR, HandSource, LEXICAL_MAX, LinkKind, OWN_COMMIT_DECAY,
    OWN_COMMIT_FLOOR, OWN_COMMIT_NEWEST, PATH_DECAY, PathHow, PathMatch, PathVia, SPREAD_FREE,
    Signals, Why, ancestors, decayed_sum, dir_damping, parent_dir, score, spread_damping,
};
pub use signal::{code, history};
pub use status::HitStatus;
pub use tokens::{
    MAX_QUERY_TERMS, MAX_TOKEN_CHARS, NEAR_DUPLICATE, STOPWORDS, content_terms, query_terms,
    similarity, subject_query, tokens,
};
