//! A marked block appended to a TOML file and removed again: the lines between the
//! markers are setup's, every other byte is the user's and stays as it was.
//!
//! The file is read with `toml_edit`, a TOML parser that keeps every span, so setup knows
//! where `mcp_servers.majordomus` already is whatever form the user wrote it in (a
//! `[mcp_servers.majordomus]` header, an inline `mcp_servers = { ... }`, dotted keys,
//! quoted keys) and whether its block may follow; and every text it would write is parsed
//! again before it is written: setup never leaves a file Codex cannot read.

use toml_edit::{Document, Item};

use super::{EditError, Outcome};

const BEGIN: &str = "# majordomus setup: begin (`majordomus setup <client> --remove` takes it out)";
const END: &str = "# majordomus setup: end";

/// The server setup writes, as `<table>.<key>` with `command` and `args`.
pub struct Server {
    /// `mcp_servers`.
    pub table: &'static str,
    /// `majordomus`.
    pub key: &'static str,
    pub command: &'static str,
    pub args: &'static [&'static str],
}

impl Server {
    /// `mcp_servers.majordomus`.
    pub fn describe(&self) -> String {
        format!("{}.{}", self.table, self.key)
    }

    /// The `[table.key]` section setup appends.
    fn section(&self) -> String {
        format!(
            "[{}.{}]\ncommand = {}\nargs = [{}]\n",
            self.table,
            self.key,
            quoted(self.command),
            self.args
                .iter()
                .map(|a| quoted(a))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The same server as an inline-table entry: what to add to an inline `table = { ... }`.
    fn inline(&self) -> String {
        format!(
            "{} = {{ command = {}, args = [{}] }}",
            self.key,
            quoted(self.command),
            self.args
                .iter()
                .map(|a| quoted(a))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// Whether `item` is this server exactly: `command` and `args` as setup writes them,
    /// nothing else.
    fn is(&self, item: &Item) -> bool {
        let Some(table) = item.as_table_like() else {
            return false;
        };
        let command = table.get("command").and_then(Item::as_str);
        let args: Option<Vec<&str>> = table
            .get("args")
            .and_then(Item::as_array)
            .and_then(|a| a.iter().map(|v| v.as_str()).collect());
        table.len() == 2 && command == Some(self.command) && args.as_deref() == Some(self.args)
    }
}

fn quoted(text: &str) -> String {
    // A TOML basic string is a JSON string for everything setup writes.
    serde_json::to_string(text).expect("a string serialises")
}

/// The block setup writes: the markers around the server's section.
fn block(server: &Server) -> String {
    format!("{BEGIN}\n{}\n{END}\n", server.section().trim_end())
}

/// The line range `[begin, end]` (indices into `lines`) of setup's block, if any.
fn find_block(lines: &[&str]) -> Option<(usize, usize)> {
    let begin = lines.iter().position(|l| l.trim_end() == BEGIN)?;
    let end = begin + lines[begin..].iter().position(|l| l.trim_end() == END)?;
    Some((begin, end))
}

/// Parses `text` as TOML, or says where it is not.
fn parse(text: &str) -> Result<Document<&str>, EditError> {
    Document::parse(text).map_err(|e| {
        EditError::new(format!(
            "not TOML at line {}: {}",
            line_of(text, e.span()),
            e.message().trim_end()
        ))
    })
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: Option<std::ops::Range<usize>>) -> usize {
    at.map_or(1, |s| {
        text[..s.start.min(text.len())].matches('\n').count() + 1
    })
}

/// `text` with the server appended in setup's block, or why it is not: the server already
/// there (setup's block, or the user's own entry in any form), or a file where a
/// `[mcp_servers.majordomus]` table cannot go.
pub fn add(text: &str, server: &Server, path: &str) -> Result<(String, Outcome), EditError> {
    let doc = parse(text)?;
    let lines: Vec<&str> = text.lines().collect();
    if let Some((begin, end)) = find_block(&lines) {
        let ours = block(server);
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
    let name = server.describe();
    match doc.as_table().get(server.table) {
        None => {}
        Some(item) => {
            let Some(table) = item.as_table_like() else {
                return Err(EditError::new(format!(
                    "`{}` (line {}) is not a table",
                    server.table,
                    line_of(text, item.span())
                )));
            };
            if let Some(entry) = table.get(server.key) {
                return Ok((
                    text.to_owned(),
                    if server.is(entry) {
                        Outcome::Present
                    } else {
                        Outcome::Kept(format!(
                            "{name} is already there in another form; left as it is"
                        ))
                    },
                ));
            }
            if item.is_inline_table() || item.as_value().is_some() {
                let line = line_of(text, item.span());
                return Err(EditError {
                    message: format!(
                        "`{} = {{ ... }}` (line {line}) is an inline table, and TOML allows no `[{name}]` table after it",
                        server.table
                    ),
                    fix: Some(format!(
                        "add `{}` inside `{} = {{ ... }}` on line {line} of {path} (setup then finds it present), or write each server of it as a `[{}.<name>]` table and rerun majordomus setup codex",
                        server.inline(),
                        server.table,
                        server.table
                    )),
                });
            }
        }
    }
    let separator = match text {
        "" => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    let after = format!("{text}{separator}{}", block(server));
    // Whatever the user's file holds, what is written must read back with our server in
    // it (a `[mcp_servers.majordomus]` after dotted keys that define it, say, would not).
    let written = parse(&after).map_err(|e| {
        EditError::new(format!(
            "adding `[{name}]` would leave a file that is not TOML ({})",
            e.message
        ))
    })?;
    let reads_back = written
        .as_table()
        .get(server.table)
        .and_then(|t| t.get(server.key))
        .is_some_and(|e| server.is(e));
    if !reads_back {
        return Err(EditError::new(format!(
            "`[{name}]` appended at the end would not be read as {name}"
        )));
    }
    Ok((after, Outcome::Added))
}

/// `text` without setup's block and the blank line `add` put before it. The server
/// written by hand (outside the block) is the user's, and stays.
pub fn remove(text: &str, server: &Server) -> Result<(String, Outcome), EditError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let trimmed: Vec<&str> = lines.iter().map(|l| l.trim_end_matches('\n')).collect();
    let Some((begin, end)) = find_block(&trimmed) else {
        let doc = parse(text)?;
        let theirs = doc
            .as_table()
            .get(server.table)
            .and_then(|t| t.get(server.key))
            .is_some();
        return Ok((
            text.to_owned(),
            if theirs {
                Outcome::Kept(format!(
                    "{} is not in setup's block (written by hand); left as it is",
                    server.describe()
                ))
            } else {
                Outcome::Absent
            },
        ));
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

    const SERVER: Server = Server {
        table: "mcp_servers",
        key: "majordomus",
        command: "majordomus",
        args: &["mcp"],
    };

    fn add(text: &str) -> Result<(String, Outcome), EditError> {
        super::add(text, &SERVER, ".codex/config.toml")
    }

    fn remove(text: &str) -> Result<(String, Outcome), EditError> {
        super::remove(text, &SERVER)
    }

    #[test]
    fn appended_after_the_users_tables_and_comments_then_removed_byte_for_byte() {
        let before = "# my codex config\nmodel = \"o3\"   # the model\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let (after, outcome) = add(before).expect("adds");
        assert_eq!(outcome, Outcome::Added);
        assert!(after.starts_with(before));
        assert!(after.ends_with(&block(&SERVER)));
        assert_eq!(
            add(&after).expect("adds"),
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
        let (after, _) = add("").expect("adds");
        assert_eq!(after, block(&SERVER));
        assert_eq!(
            after,
            format!(
                "{BEGIN}\n[mcp_servers.majordomus]\ncommand = \"majordomus\"\nargs = [\"mcp\"]\n{END}\n"
            )
        );
        assert_eq!(remove(&after).expect("removes").0, "");
    }

    #[test]
    fn the_users_own_entry_in_any_form_is_left_alone_or_present() {
        for (before, present) in [
            (
                "[mcp_servers.majordomus]\ncommand = \"/opt/majordomus\"\n",
                false,
            ),
            (
                "[mcp_servers.majordomus]\ncommand = \"majordomus\"\nargs = [\"mcp\"]\n",
                true,
            ),
            (
                "[mcp_servers.\"majordomus\"]\ncommand = \"majordomus\"\nargs = [ \"mcp\" ]\n",
                true,
            ),
            (
                "mcp_servers = { majordomus = { command = \"majordomus\", args = [\"mcp\"] } }\n",
                true,
            ),
            (
                "mcp_servers = { majordomus = { command = \"x\" }, docs = { command = \"d\" } }\n",
                false,
            ),
            (
                "[mcp_servers]\nmajordomus = { command = \"majordomus\", args = [\"mcp\"] }\n",
                true,
            ),
            (
                "mcp_servers.majordomus.command = \"majordomus\"\nmcp_servers.majordomus.args = [\"mcp\"]\n",
                true,
            ),
            ("[mcp_servers]\nmajordomus.command = \"elsewhere\"\n", false),
        ] {
            let (after, outcome) = add(before).expect(before);
            assert_eq!(after, before);
            if present {
                assert_eq!(outcome, Outcome::Present, "{before}");
            } else {
                assert!(matches!(outcome, Outcome::Kept(_)), "{before}: {outcome:?}");
            }
            assert!(
                matches!(remove(before).expect(before).1, Outcome::Kept(_)),
                "{before}"
            );
        }
    }

    #[test]
    fn an_inline_server_table_is_refused_with_a_fix_that_works() {
        let before = "model = \"o3\"\nmcp_servers = { docs = { command = \"docs-mcp\" } }\n";
        let err = add(before).expect_err("refused");
        assert!(err.message.contains("line 2"), "{}", err.message);
        let fix = err.fix.expect("a fix");
        assert!(
            fix.contains("majordomus = { command = \"majordomus\", args = [\"mcp\"] }"),
            "{fix}"
        );
        // Doing what the fix says gives a file setup finds present.
        let fixed = "model = \"o3\"\nmcp_servers = { docs = { command = \"docs-mcp\" }, majordomus = { command = \"majordomus\", args = [\"mcp\"] } }\n";
        assert_eq!(add(fixed).expect("adds").1, Outcome::Present);
    }

    #[test]
    fn what_is_not_toml_or_not_a_table_is_refused() {
        for (text, needle) in [
            ("model = \n", "line 1"),
            ("a = 1\n[b\n", "line 2"),
            ("mcp_servers = \"none\"\n", "not a table"),
            ("mcp_servers = [1]\n", "not a table"),
        ] {
            let err = add(text).expect_err(text);
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }

    #[test]
    fn what_is_appended_always_reads_back() {
        // Dotted keys under the root define `mcp_servers` implicitly; a sub-table may follow.
        let before = "mcp_servers.docs.command = \"docs-mcp\"\n";
        let (after, outcome) = add(before).expect("adds");
        assert_eq!(outcome, Outcome::Added);
        assert!(parse(&after).is_ok(), "{after}");
        // A file ending inside an unterminated construct never gets the block.
        assert!(add("x = \"\"\"open\n").is_err());
    }
}
