//! A marked block appended to a TOML file and removed again: the lines between the
//! markers are setup's, every other byte is the user's and stays as it was.

use super::{EditError, Outcome};

const BEGIN: &str = "# majordomus setup: begin (`majordomus setup <client> --remove` takes it out)";
const END: &str = "# majordomus setup: end";

/// The block setup writes: the markers around `table` (a `[header]` and its keys).
fn block(table: &str) -> String {
    format!("{BEGIN}\n{}\n{END}\n", table.trim_end())
}

/// The line range `[begin, end]` (indices into `lines`) of setup's block, if any.
fn find_block(lines: &[&str]) -> Option<(usize, usize)> {
    let begin = lines.iter().position(|l| l.trim_end() == BEGIN)?;
    let end = begin + lines[begin..].iter().position(|l| l.trim_end() == END)?;
    Some((begin, end))
}

/// `text` with `table` appended in setup's block; `header` (`[mcp_servers.majordomus]`)
/// already present outside a block is the user's and is left alone.
pub fn add(text: &str, header: &str, table: &str) -> Result<(String, Outcome), EditError> {
    let lines: Vec<&str> = text.lines().collect();
    if let Some((begin, end)) = find_block(&lines) {
        let ours = block(table);
        let ours: Vec<&str> = ours.lines().collect();
        return Ok((
            text.to_owned(),
            if lines[begin..=end] == ours[..] {
                Outcome::Present
            } else {
                Outcome::Kept(
                    "setup's block was edited by hand; `--remove`, then set up again to rewrite it"
                        .to_owned(),
                )
            },
        ));
    }
    if lines.iter().any(|l| l.trim() == header) {
        return Ok((
            text.to_owned(),
            Outcome::Kept(format!("{header} is already there; left as it is")),
        ));
    }
    let separator = match text {
        "" => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    Ok((format!("{text}{separator}{}", block(table)), Outcome::Added))
}

/// `text` without setup's block and the blank line `add` put before it.
pub fn remove(text: &str) -> Result<(String, Outcome), EditError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let trimmed: Vec<&str> = lines.iter().map(|l| l.trim_end_matches('\n')).collect();
    let Some((begin, end)) = find_block(&trimmed) else {
        return Ok((text.to_owned(), Outcome::Absent));
    };
    let from = if begin > 0 && trimmed[begin - 1].trim().is_empty() {
        begin - 1
    } else {
        begin
    };
    let mut out: String = lines[..from].concat();
    out.push_str(&lines[end + 1..].concat());
    Ok((out, Outcome::Removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "[mcp_servers.majordomus]";
    const TABLE: &str = "[mcp_servers.majordomus]\ncommand = \"majordomus\"\nargs = [\"mcp\"]\n";

    #[test]
    fn appended_after_the_users_tables_and_comments_then_removed_byte_for_byte() {
        let before = "# my codex config\nmodel = \"o3\"   # the model\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let (after, outcome) = add(before, HEADER, TABLE).expect("adds");
        assert_eq!(outcome, Outcome::Added);
        assert!(after.starts_with(before));
        assert!(after.ends_with(&block(TABLE)));
        assert_eq!(
            add(&after, HEADER, TABLE).expect("adds"),
            (after.clone(), Outcome::Present)
        );
        assert_eq!(
            remove(&after).expect("removes"),
            (before.to_owned(), Outcome::Removed)
        );
        assert_eq!(remove(before).expect("removes").1, Outcome::Absent);
    }

    #[test]
    fn an_absent_file_comes_and_goes_whole() {
        let (after, _) = add("", HEADER, TABLE).expect("adds");
        assert_eq!(after, block(TABLE));
        assert_eq!(remove(&after).expect("removes").0, "");
    }

    #[test]
    fn the_users_own_table_is_left_alone() {
        let before = "[mcp_servers.majordomus]\ncommand = \"/opt/majordomus\"\n";
        let (after, outcome) = add(before, HEADER, TABLE).expect("adds");
        assert!(matches!(outcome, Outcome::Kept(_)));
        assert_eq!(after, before);
        assert_eq!(remove(before).expect("removes").1, Outcome::Absent);
    }
}
