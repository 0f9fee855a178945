//! The init skeleton, embedded from `share/skeleton/` (and the standard rule package from
//! `share/standard/rules/`) so the binary carries it.

/// `(path relative to the repository root, contents)` of every skeleton file.
pub const FILES: &[(&str, &str)] = &[
    (
        ".ai/repo/policy.yaml",
        include_str!("../../share/skeleton/.ai/repo/policy.yaml"),
    ),
    (
        ".ai/repo/knowledge/sources.yaml",
        include_str!("../../share/skeleton/.ai/repo/knowledge/sources.yaml"),
    ),
    (
        ".ai/repo/knowledge/candidates/README.md",
        include_str!("../../share/skeleton/.ai/repo/knowledge/candidates/README.md"),
    ),
    (
        ".ai/repo/sessions/README.md",
        include_str!("../../share/skeleton/.ai/repo/sessions/README.md"),
    ),
    // Vendored so every clone checks against the same rules (`rules vendor update`
    // refreshes it from the binary).
    (
        ".ai/repo/rules/vendor/majordomus.yaml",
        crate::model::rules::STANDARD_RULES,
    ),
];

/// Paths a record is written to, as `(path, is a directory)`: `init` and doctor ask git's
/// ignore rules about each (a new file of each kind, by the shape its name has), so that no
/// record is written where git would never see it.
pub const RECORD_PATHS: &[(&str, bool)] = &[
    (".ai", true),
    (".ai/repo", true),
    (".ai/repo/sessions", true),
    (".ai/repo/sessions/20261130T100000Z-0a1b2c.md", false),
    (".ai/repo/knowledge", true),
    (".ai/repo/knowledge/candidates", true),
    (
        ".ai/repo/knowledge/candidates/20261130T100000Z-0a1b2c-0123456789ab.md",
        false,
    ),
    (".ai/repo/knowledge/curated", true),
    (
        ".ai/repo/knowledge/curated/20261130T100000Z-0a1b2c-0123456789ab.md",
        false,
    ),
    (".ai/repo/intents", true),
    (".ai/repo/intents/intent.yaml", false),
    (".ai/repo/rules/project", true),
    (".ai/repo/rules/project/rules.yaml", false),
];

/// The lines that put `.ai/repo/` back for git, appended to the root `.gitignore` (last
/// lines win; `.ai/local/` stays ignored by its own line).
pub const REINCLUDE_LINES: [&str; 3] = ["!/.ai/", "!/.ai/repo/", "!/.ai/repo/**"];

/// The line `init` adds to `.gitignore`.
pub const GITIGNORE_LINE: &str = ".ai/local/";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Policy;

    #[test]
    fn skeleton_policy_is_the_default_policy() {
        let (_, text) = FILES[0];
        let mut skeleton = Policy::parse(text, "skeleton").expect("skeleton policy parses");
        assert_eq!(
            skeleton.declared.len(),
            crate::model::policy::KEYS.len(),
            "the skeleton spells out every key"
        );
        skeleton.declared.clear();
        assert_eq!(skeleton, Policy::default());
    }
}
