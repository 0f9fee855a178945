//! Files a record cites (SPEC §5.1): the paths given with `--file` and the path-shaped
//! tokens of its text, as the ledger keeps them (repository-relative, `/`-separated).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// How a record came to cite a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// Given by whoever recorded it (`--file`; `files` over MCP and HTTP).
    Given,
    /// A path-shaped token of the text naming a file in HEAD's tree.
    Text,
    /// Cited by the question an answer resolves.
    Question,
}

impl Via {
    /// How the CLI says it, after the path (empty for a path given outright).
    pub fn said(self) -> &'static str {
        match self {
            Via::Given => "",
            Via::Text => " (named in the text)",
            Via::Question => " (cited by the question)",
        }
    }
}

/// One cited file and how it came to be cited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CitedFile {
    /// Relative to the repository root, `/`-separated.
    pub path: String,
    pub via: Via,
}

/// The cited files, one entry per path sorted by path; a path cited several ways keeps
/// the first of given, text, question.
pub fn merged(cited: impl IntoIterator<Item = (String, Via)>) -> Vec<CitedFile> {
    let mut by_path: BTreeMap<String, Via> = BTreeMap::new();
    for (path, via) in cited {
        by_path
            .entry(path)
            .and_modify(|v| *v = (*v).min(via))
            .or_insert(via);
    }
    by_path
        .into_iter()
        .map(|(path, via)| CitedFile { path, via })
        .collect()
}

/// A path that leaves the repository, or names git's own directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outside;

/// `relative` (a path from the repository root, `/` or `\` separated) as the ledger keeps
/// it: no `.`, `..` or empty parts. `Ok(None)` for the root itself; [`Outside`] for a path
/// that leaves the repository or names git's own directory (`.git/...` is not content).
pub fn normalised(relative: &str) -> Result<Option<String>, Outside> {
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Outside);
                }
            }
            p => parts.push(p),
        }
    }
    if parts.first() == Some(&".git") {
        return Err(Outside);
    }
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

/// Whether `path` is one the ledger keeps as it is: relative, `/`-separated, no empty,
/// `.` or `..` part, not under `.git/` (a ledger line is checked again where it is read).
pub fn is_normal(path: &str) -> bool {
    !path.contains('\\') && normalised(path).ok().flatten().as_deref() == Some(path)
}

/// The characters a token of the text ends at: whitespace and these.
const SEPARATORS: &[char] = &[
    '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';',
];

/// The path-shaped tokens of `text`, sorted and de-duplicated: the words that may name a
/// file, for one lookup in HEAD's tree (only those that do are cited).
///
/// A token is what lies between whitespace, quotes, backticks, brackets, parentheses,
/// commas and semicolons; trailing `.,:;!?` and a `:<line>` (or `:<line>:<column>`)
/// suffix are dropped, then a leading `./`. It is path-shaped when it holds a `/` or its
/// last part has an extension (`Cargo.toml`), and is a plain relative path: not a URL
/// (`://`), not absolute, no `.`, `..` or empty part.
pub fn path_tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| c.is_whitespace() || SEPARATORS.contains(&c))
        .filter_map(path_token)
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// One token as a path, if it is path-shaped (see [`path_tokens`]).
fn path_token(token: &str) -> Option<&str> {
    if token.contains("://") {
        return None;
    }
    let token = token.trim_end_matches(['.', ',', ':', ';', '!', '?']);
    let token = strip_line_suffix(token).trim_end_matches(['.', ',', ':', ';', '!', '?']);
    let mut token = token;
    while let Some(rest) = token.strip_prefix("./") {
        token = rest;
    }
    let name = token.rsplit('/').next().unwrap_or(token);
    let extension = name
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty());
    ((token.contains('/') || extension) && !token.starts_with('/') && is_normal(token))
        .then_some(token)
}

/// `path:<line>` or `path:<line>:<column>` without the numbers; and an anchor to lines
/// as code hosts write it (`path#L40`, `path#L40-L52`).
fn strip_line_suffix(token: &str) -> &str {
    let mut token = token;
    if let Some((path, anchor)) = token.rsplit_once("#L")
        && !anchor.is_empty()
        && anchor
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'L' || b == b'C')
    {
        token = path;
    }
    for _ in 0..2 {
        match token.rsplit_once(':') {
            Some((path, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                token = path;
            }
            _ => break,
        }
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_to_lines_is_not_part_of_the_path() {
        assert_eq!(
            path_tokens("see src/a.rs#L40 and src/b.rs#L3-L9, not src/c.rs#readme"),
            ["src/a.rs", "src/b.rs", "src/c.rs#readme"]
        );
    }

    #[test]
    fn path_shaped_tokens_are_found_and_the_rest_is_not() {
        let text = "Keep `src/click/types.py` (see ./docs/A.md, tests/x_test.rs:42.) and Cargo.toml; \
                    also [the parser](src/parse.rs) \"README.md\" 'lib/a b.rs'";
        assert_eq!(
            path_tokens(text),
            [
                "Cargo.toml",
                "README.md",
                "b.rs",
                "docs/A.md",
                "lib/a",
                "src/click/types.py",
                "src/parse.rs",
                "tests/x_test.rs",
            ]
        );
    }

    #[test]
    fn words_urls_absolute_and_escaping_paths_are_not_path_shaped() {
        for text in [
            "Use gix everywhere",
            "see https://example.com/a/b.html",
            "/etc/passwd is not ours",
            "../outside.rs",
            "src/../../x.rs",
            "a//b.rs",
            ".gitignore",
            "trailing. dots... only",
        ] {
            assert_eq!(path_tokens(text), Vec::<String>::new(), "{text:?}");
        }
        // Path-shaped, yet naming nothing: HEAD's tree decides that.
        assert_eq!(path_tokens("a ratio of 3/4, e.g."), ["3/4", "e.g"]);
    }

    #[test]
    fn line_suffixes_and_trailing_punctuation_are_dropped() {
        assert_eq!(path_tokens("src/a.rs:10:4,"), ["src/a.rs"]);
        assert_eq!(path_tokens("in src/a.rs!"), ["src/a.rs"]);
        assert_eq!(path_tokens("./././src/a.rs?"), ["src/a.rs"]);
    }

    #[test]
    fn normalised_paths_stay_inside_the_repository() {
        assert_eq!(normalised("src/./a.rs"), Ok(Some("src/a.rs".into())));
        assert_eq!(normalised("src/x/../a.rs"), Ok(Some("src/a.rs".into())));
        assert_eq!(normalised("src\\a.rs"), Ok(Some("src/a.rs".into())));
        assert_eq!(normalised("."), Ok(None));
        assert_eq!(normalised("../a.rs"), Err(Outside));
        assert_eq!(normalised(".git/config"), Err(Outside));
        assert!(is_normal("src/a.rs"));
        assert!(!is_normal("src/../a.rs"));
        assert!(!is_normal("/src/a.rs"));
        assert!(!is_normal(""));
    }

    #[test]
    fn a_path_cited_twice_keeps_the_first_way_and_the_list_is_sorted() {
        let cited = merged([
            ("src/b.rs".to_owned(), Via::Text),
            ("src/a.rs".to_owned(), Via::Question),
            ("src/b.rs".to_owned(), Via::Given),
        ]);
        assert_eq!(
            cited,
            [
                CitedFile {
                    path: "src/a.rs".into(),
                    via: Via::Question
                },
                CitedFile {
                    path: "src/b.rs".into(),
                    via: Via::Given
                },
            ]
        );
    }
}
