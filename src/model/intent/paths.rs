//! Path globs: compiling the plan's `paths`, and whether a scope path reaches them.
//!
//! A scope path is a file, or a directory when it ends in `/` (the caller, who can see
//! the work tree, marks directories so); `.` or `./` is the whole repository. A glob
//! claims what it matches and everything beneath a directory it matches (`src/auth`
//! claims `src/auth/login.rs`), as `.gitignore` readers expect.

use globset::{GlobBuilder, GlobMatcher};

/// Compiles one glob of the plan; `*` stays inside one path component.
pub(super) fn compile_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
}

/// Checks that one glob of the plan is valid, without compiling its matcher: parsing
/// finds every error, and compiling a regex per glob is what a large plan cannot afford.
pub(super) fn check_glob(pattern: &str) -> Result<(), globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|_| ())
}

/// The pattern up to its first glob metacharacter: every path the glob matches starts
/// with it.
fn literal_prefix(pattern: &str) -> &str {
    let end = pattern
        .find(['*', '?', '[', ']', '{', '}', '\\'])
        .unwrap_or(pattern.len());
    &pattern[..end]
}

/// The path without a leading `./` or trailing `/`; empty for the whole repository.
pub(super) fn normalize(path: &str) -> &str {
    let mut path = path.trim();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    if path == "." {
        return "";
    }
    path.trim_end_matches('/')
}

fn is_directory(path: &str) -> bool {
    let path = path.trim();
    path.ends_with('/') || normalize(path).is_empty()
}

/// True when `path` reaches `pattern`: the glob claims it (matches it or a directory
/// above it), or, `path` being a directory, the glob could match something beneath it.
/// A glob that does not compile reaches nothing (the parser refuses those).
pub(super) fn reaches(path: &str, pattern: &str) -> bool {
    let directory = is_directory(path);
    let path = normalize(path);
    // A pattern may itself be a plain path such as a scope's `src/`.
    let pattern = normalize(pattern);
    if path.is_empty() || pattern.is_empty() {
        return true;
    }
    // What the glob matches starts with its literal prefix, and so does anything a
    // matched ancestor holds; beneath a directory, only a prefix running into it can
    // match. Most globs of a large plan fail here, before a matcher is compiled.
    let literal = literal_prefix(pattern);
    let below = path.len() < literal.len()
        && literal.starts_with(path)
        && literal.as_bytes()[path.len()] == b'/';
    if !(path.starts_with(literal) || (directory && below)) {
        return false;
    }
    let Ok(glob) = compile_glob(pattern) else {
        return false;
    };
    if glob.is_match(path) || ancestors(path).any(|a| glob.is_match(a)) {
        return true;
    }
    directory && could_match_beneath(path, pattern)
}

/// Every proper ancestor directory of a normalised path, nearest last.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// Walks the glob component by component against the directory's components: when the
/// directory runs out first, or a `**` is met, something beneath it could match.
fn could_match_beneath(directory: &str, pattern: &str) -> bool {
    let mut globs = pattern.split('/');
    for part in directory.split('/') {
        match globs.next() {
            None => return false,
            Some("**") => return true,
            Some(component) => match compile_glob(component) {
                Ok(glob) if glob.is_match(part) => {}
                // A component that does not compile alone (`{a,b/c}` split at its `/`)
                // is not judged here; the whole glob was already tried.
                _ => return false,
            },
        }
    }
    globs.next().is_some()
}

/// True when any of `patterns` is reached by `path`.
pub(super) fn reaches_any(path: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| reaches(path, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_reach_what_claims_them() {
        assert!(reaches("src/auth/login.rs", "src/auth/**"));
        assert!(reaches("./src/auth/login.rs", "src/auth/*.rs"));
        assert!(reaches("src/auth/login.rs", "src/auth"));
        assert!(reaches("src/auth/deep/x.rs", "src/*"));
        assert!(!reaches("src/auth/deep/x.rs", "src/*.rs"));
        assert!(!reaches("src/main.rs", "**/*.md"));
        assert!(reaches("docs/a/b.md", "**/*.md"));
        assert!(
            !reaches("docs", "docs/**"),
            "a file named docs holds nothing"
        );
        assert!(
            reaches("src/auth/a.rs", "src/"),
            "a scope directory claims its files"
        );
        assert!(reaches("src/auth/a.rs", "./src/auth/a.rs"));
    }

    #[test]
    fn directories_reach_what_lies_beneath() {
        assert!(reaches("docs/", "docs/**"));
        assert!(reaches("docs/", "docs/auth/*.md"));
        assert!(reaches("src/", "**/*.md"));
        assert!(reaches(".ai/repo/", ".ai/repo/intents/*.yaml"));
        assert!(!reaches("lib/", "src/**"));
        assert!(!reaches("src/auth/", "src/web/**"));
        assert!(reaches("./", "anything/at/all"));
        assert!(reaches(".", "anything/at/all"));
    }

    /// `reaches` without the literal-prefix shortcut, as it was written first.
    fn reaches_by_matching(path: &str, pattern: &str) -> bool {
        let directory = is_directory(path);
        let path = normalize(path);
        let pattern = normalize(pattern);
        if path.is_empty() || pattern.is_empty() {
            return true;
        }
        let Ok(glob) = compile_glob(pattern) else {
            return false;
        };
        if glob.is_match(path) || ancestors(path).any(|a| glob.is_match(a)) {
            return true;
        }
        directory && could_match_beneath(path, pattern)
    }

    #[test]
    fn the_literal_prefix_shortcut_answers_as_matching_does() {
        let paths = [
            "src",
            "src/",
            "src/a",
            "src/a/",
            "src/a/b.rs",
            "src/ab.rs",
            "src/auth/",
            "sr",
            "sr/",
            "srcx/",
            "docs/a.md",
            "docs/",
            "./src/a/",
            "a/b/c/d.rs",
            "src/a/b/c/",
            "x{y}/z",
            "build/ci.sh",
            ".",
            "./",
        ];
        let patterns = [
            "src/**",
            "src/a/**",
            "src/a",
            "src/a/*.rs",
            "src/a*",
            "src/a*/x",
            "src/*/b.rs",
            "**/*.md",
            "docs/*.md",
            "src/a/b/c/**",
            "src",
            "src/",
            "*",
            "a/b/c/d.rs",
            "src/{a,b}/**",
            "s?c/a/**",
            "src/[ab]/**",
            "sr",
            "build/**",
            "./src/a/",
        ];
        for path in paths {
            for pattern in patterns {
                assert_eq!(
                    reaches(path, pattern),
                    reaches_by_matching(path, pattern),
                    "{path} against {pattern}"
                );
            }
        }
    }

    #[test]
    fn checking_a_glob_finds_what_compiling_finds() {
        for pattern in ["src/**", "src/{a,b", "src/[a", "a/**b", "ok/*.rs", "x\\"] {
            assert_eq!(
                check_glob(pattern).is_ok(),
                compile_glob(pattern).is_ok(),
                "{pattern}"
            );
        }
    }

    #[test]
    fn normalising_strips_dot_slash_and_trailing_slash() {
        assert_eq!(normalize("./a/b/"), "a/b");
        assert_eq!(normalize("."), "");
        assert_eq!(normalize("a"), "a");
    }
}
