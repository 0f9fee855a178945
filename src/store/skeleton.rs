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
