//! A unified diff of two small texts (what `setup --dry-run` prints).

use std::fmt::Write as _;

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

/// The unified diff turning `before` into `after`, labelled `a/<path>` and `b/<path>`
/// (`/dev/null` for a file that does not exist on that side); empty when they are equal.
pub fn unified(path: &str, before: Option<&str>, after: Option<&str>) -> String {
    let old: Vec<&str> = before.map(|t| t.lines().collect()).unwrap_or_default();
    let new: Vec<&str> = after.map(|t| t.lines().collect()).unwrap_or_default();
    if before == after {
        return String::new();
    }
    let script = edit_script(&old, &new);
    let mut out = String::new();
    let label = |side: &str, text: Option<&str>| match text {
        Some(_) => format!("{side}/{path}"),
        None => "/dev/null".to_owned(),
    };
    let _ = writeln!(out, "--- {}", label("a", before));
    let _ = writeln!(out, "+++ {}", label("b", after));
    let changed: Vec<usize> = script
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l, Line::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        // A hunk: changes closer than twice the context share one.
        let first = changed[i];
        let mut last = first;
        while i + 1 < changed.len() && changed[i + 1] <= last + 2 * CONTEXT + 1 {
            i += 1;
            last = changed[i];
        }
        i += 1;
        let from = first.saturating_sub(CONTEXT);
        let to = (last + CONTEXT + 1).min(script.len());
        let hunk = &script[from..to];
        let old_start = hunk
            .iter()
            .find_map(|l| match l {
                Line::Same(o, _) | Line::Removed(o) => Some(*o),
                Line::Added(_) => None,
            })
            .unwrap_or(0);
        let new_start = hunk
            .iter()
            .find_map(|l| match l {
                Line::Same(_, n) | Line::Added(n) => Some(*n),
                Line::Removed(_) => None,
            })
            .unwrap_or(0);
        let old_len = hunk.iter().filter(|l| !matches!(l, Line::Added(_))).count();
        let new_len = hunk
            .iter()
            .filter(|l| !matches!(l, Line::Removed(_)))
            .count();
        let start = |s: usize, len: usize| if len == 0 { s } else { s + 1 };
        let _ = writeln!(
            out,
            "@@ -{},{old_len} +{},{new_len} @@",
            start(old_start, old_len),
            start(new_start, new_len)
        );
        for line in hunk {
            let _ = match line {
                Line::Same(o, _) => writeln!(out, " {}", old[*o]),
                Line::Removed(o) => writeln!(out, "-{}", old[*o]),
                Line::Added(n) => writeln!(out, "+{}", new[*n]),
            };
        }
    }
    out
}

/// The shortest edit script by longest common subsequence (settings files are small).
fn edit_script(old: &[&str], new: &[&str]) -> Vec<Line> {
    let (n, m) = (old.len(), new.len());
    if n.saturating_mul(m) > 4_000_000 {
        // Too big to align cheaply: everything out, everything in.
        let mut script: Vec<Line> = (0..n).map(Line::Removed).collect();
        script.extend((0..m).map(Line::Added));
        return script;
    }
    // lcs[i][j]: the LCS length of old[i..] and new[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut script = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            script.push(Line::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removals first, as diff(1) shows them.
            script.push(Line::Removed(i));
            i += 1;
        } else {
            script.push(Line::Added(j));
            j += 1;
        }
    }
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insertion_shows_with_its_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\n";
        let after = "a\nb\nc\nd\ne\nf\nnew\ng\n";
        assert_eq!(
            unified("x.json", Some(before), Some(after)),
            "--- a/x.json\n+++ b/x.json\n@@ -4,4 +4,5 @@\n d\n e\n f\n+new\n g\n"
        );
    }

    #[test]
    fn a_new_file_and_no_change() {
        assert_eq!(
            unified("x", None, Some("1\n2\n")),
            "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+1\n+2\n"
        );
        assert_eq!(unified("x", Some("1\n"), Some("1\n")), "");
        assert_eq!(
            unified("x", Some("1\n"), None),
            "--- a/x\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-1\n"
        );
    }
}
