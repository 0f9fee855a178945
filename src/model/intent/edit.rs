//! The `plan start` edit: one issue's `status:` value rewritten in the intent file's
//! text, every other byte (comments, quoting, indentation, order, styles) kept.
//!
//! The edit is textual, so it is checked semantically: the result must parse to the same
//! intent with only that issue's status changed, or nothing is written. Issues written
//! in flow style (`- {id: x, status: open}`) or with a status that is not a one-line
//! scalar are refused rather than reformatted.

use super::IssueStatus;
use super::parse::{PlanError, parse_intent_content};

/// Why the status could not be edited in place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("{0}")]
    Unreadable(PlanError),
    #[error("{file}: no issue `{issue}` in this intent")]
    UnknownIssue { file: String, issue: String },
    #[error(
        "{file}: issue `{issue}`: its status cannot be edited in place: {why}; edit it by hand"
    )]
    NotEditable {
        file: String,
        issue: String,
        why: String,
    },
}

/// Returns `text` with issue `issue`'s `status:` set to `status`; `file` names the file
/// in errors. Unchanged text when the issue already has that status.
pub fn set_issue_status(
    text: &str,
    file: &str,
    issue: &str,
    status: IssueStatus,
) -> Result<String, EditError> {
    let before = parse_intent_content(text, file).map_err(EditError::Unreadable)?;
    let Some(index) = before.issues.iter().position(|i| i.id == issue) else {
        return Err(EditError::UnknownIssue {
            file: file.to_owned(),
            issue: issue.to_owned(),
        });
    };
    if before.issues[index].status == status {
        return Ok(text.to_owned());
    }
    let not_editable = |why: &str| EditError::NotEditable {
        file: file.to_owned(),
        issue: issue.to_owned(),
        why: why.to_owned(),
    };
    let value = locate_status(text, issue).map_err(|why| not_editable(&why))?;
    let old = &text[value.clone()];
    let new = match old.as_bytes().first() {
        Some(b'"') => format!("\"{}\"", status.as_str()),
        Some(b'\'') => format!("'{}'", status.as_str()),
        _ => status.as_str().to_owned(),
    };
    let edited = format!("{}{new}{}", &text[..value.start], &text[value.end..]);

    let mut expected = before;
    expected.issues[index].status = status;
    match parse_intent_content(&edited, file) {
        Ok(after) if after == expected => Ok(edited),
        _ => Err(not_editable("the edit would change more than that value")),
    }
}

/// One line of the text: where it starts, its indentation, its content without the line
/// ending.
struct Line<'t> {
    start: usize,
    indent: usize,
    content: &'t str,
}

impl Line<'_> {
    fn is_blank_or_comment(&self) -> bool {
        self.content.is_empty() || self.content.starts_with('#')
    }

    fn is_item(&self) -> bool {
        self.content == "-" || self.content.starts_with("- ")
    }
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for raw in text.split_inclusive('\n') {
        let body = raw.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start_matches(' ').len();
        out.push(Line {
            start,
            indent,
            content: body[indent..].trim_end(),
        });
        start += raw.len();
    }
    out
}

/// The byte range of the status value token of issue `issue`, or why there is none.
fn locate_status(text: &str, issue: &str) -> Result<std::ops::Range<usize>, String> {
    let lines = lines(text);
    let top = lines
        .iter()
        .position(|l| l.indent == 0 && key_value(l.content).is_some_and(|(k, _)| k == "issues"))
        .ok_or("no block `issues:` key at the top level")?;
    let (_, rest) = key_value(lines[top].content).expect("matched above");
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err("`issues` is not a block sequence".to_owned());
    }

    // The items of the block sequence, each as the lines it spans.
    let mut items: Vec<Vec<&Line>> = Vec::new();
    let mut sequence_indent = None;
    for line in &lines[top + 1..] {
        if line.is_blank_or_comment() {
            continue;
        }
        let indent = *sequence_indent.get_or_insert(line.indent);
        if line.indent < indent || (line.indent == indent && !line.is_item()) {
            break;
        }
        if line.indent == indent {
            items.push(Vec::new());
        }
        if let Some(item) = items.last_mut() {
            item.push(line);
        }
    }

    for item in items {
        let entries = entries(text, &item);
        let names_issue = entries.iter().any(|(key, value)| {
            *key == "id"
                && value
                    .as_ref()
                    .is_ok_and(|v| scalar(&text[v.clone()]) == Some(issue))
        });
        if !names_issue {
            continue;
        }
        return match entries.into_iter().find(|(key, _)| *key == "status") {
            Some((_, value)) => value,
            None => Err("its `status:` is not a key of the issue's block mapping".to_owned()),
        };
    }
    Err("the issue is not a block mapping in `issues` (flow style?)".to_owned())
}

/// The keys of one sequence item's block mapping, each with the byte range of its value
/// token in `text`, or why that value is not a one-line scalar.
fn entries<'t>(
    text: &'t str,
    item: &[&Line<'t>],
) -> Vec<(&'t str, Result<std::ops::Range<usize>, String>)> {
    let Some(first) = item.first() else {
        return Vec::new();
    };
    // `- key: value`: the mapping's keys sit at the column after the dash and its spaces.
    let after_dash = first.content[1..].trim_start_matches(' ');
    let (key_column, mut pending): (Option<usize>, Vec<(usize, &str)>) = if after_dash.is_empty() {
        (None, Vec::new())
    } else {
        let column = first.indent + first.content.len() - after_dash.len();
        (Some(column), vec![(first.start + column, after_dash)])
    };
    let mut key_column = key_column;
    for line in &item[1..] {
        let column = *key_column.get_or_insert(line.indent);
        if line.indent == column {
            pending.push((line.start + line.indent, line.content));
        }
    }
    pending
        .into_iter()
        .filter_map(|(at, content)| {
            let (key, rest) = key_value(content)?;
            let offset = at + content.len() - rest.len();
            Some((key, value_token(text, offset, rest)))
        })
        .collect()
}

/// `key: rest` for a plain key; `rest` starts at the value (or a comment), trimmed.
fn key_value(content: &str) -> Option<(&str, &str)> {
    let colon = content.find(':')?;
    let key = &content[..colon];
    let after = &content[colon + 1..];
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !plain || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    Some((key, after.trim_start_matches([' ', '\t'])))
}

/// The range of a one-line scalar starting at byte `offset` (`rest` is the line from
/// there), which may be followed only by a comment.
fn value_token(text: &str, offset: usize, rest: &str) -> Result<std::ops::Range<usize>, String> {
    let len = match rest.as_bytes().first() {
        None | Some(b'#') => return Err("the value is not on the key's line".to_owned()),
        Some(b'"') => closing(rest, b'"').ok_or("an unclosed double-quoted value")?,
        Some(b'\'') => closing(rest, b'\'').ok_or("an unclosed single-quoted value")?,
        Some(b'|' | b'>' | b'&' | b'*' | b'!' | b'[' | b'{') => {
            return Err("the value is not a plain or quoted scalar".to_owned());
        }
        Some(_) => rest.find(" #").unwrap_or(rest.len()),
    };
    let token = rest[..len].trim_end();
    let tail = rest[len..].trim_start();
    if !tail.is_empty() && !tail.starts_with('#') {
        return Err("something follows the value on its line".to_owned());
    }
    debug_assert!(text[offset..].starts_with(token));
    Ok(offset..offset + token.len())
}

/// Length through the closing quote of a quoted scalar.
fn closing(rest: &str, quote: u8) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b if b == quote && quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The text of a simple scalar token: plain, or quoted without escapes.
fn scalar(token: &str) -> Option<&str> {
    if let Some(inner) = token.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return (!inner.contains('\\')).then_some(inner);
    }
    if let Some(inner) = token.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return (!inner.contains('\'')).then_some(inner);
    }
    Some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HAND_WRITTEN: &str = "\
# The authentication intent.
id: auth
status: active   # reviewed 2026-10
statement: >
  Users sign in once
  and stay signed in.

invariants: [\"no clear passwords\", 'tokens rotate']
criteria:
  - id: c1
    text: \"Login: works\"
    evidence: [file:src/auth.rs]

issues:
  # The form first.
  - id: login
    title: 'Login form'
    status: open
    paths: [src/auth/**, \"web/login/*.html\"]
    serves: [c1]

  -   id: \"logout\"
      title: Logout
      status: 'open'    # waits for login
      paths:
        - src/auth/logout.rs
      serves:
        - c1
  - id: tokens
    status: \"done\"
    title: Tokens
    paths: []
    serves: []
    milestone: m1
critiques:
  - commit: abc123
    findings:
      - {id: f1, blocking: false, text: ok}
";

    fn edit(issue: &str, status: IssueStatus) -> Result<String, EditError> {
        set_issue_status(HAND_WRITTEN, "auth.yaml", issue, status)
    }

    fn changed_lines(before: &str, after: &str) -> Vec<(String, String)> {
        assert_eq!(before.lines().count(), after.lines().count());
        before
            .lines()
            .zip(after.lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect()
    }

    #[test]
    fn a_plain_status_changes_alone() {
        let after = edit("login", IssueStatus::Active).expect("editable");
        assert_eq!(
            changed_lines(HAND_WRITTEN, &after),
            [(
                "    status: open".to_owned(),
                "    status: active".to_owned()
            )]
        );
    }

    #[test]
    fn quoting_and_trailing_comments_are_kept() {
        let after = edit("logout", IssueStatus::Active).expect("editable");
        assert_eq!(
            changed_lines(HAND_WRITTEN, &after),
            [(
                "      status: 'open'    # waits for login".to_owned(),
                "      status: 'active'    # waits for login".to_owned()
            )]
        );
        let after = edit("tokens", IssueStatus::Open).expect("editable");
        assert_eq!(
            changed_lines(HAND_WRITTEN, &after),
            [(
                "    status: \"done\"".to_owned(),
                "    status: \"open\"".to_owned()
            )]
        );
    }

    #[test]
    fn the_intent_status_and_every_other_byte_stay() {
        let after = edit("login", IssueStatus::Done).expect("editable");
        assert_eq!(after.len(), HAND_WRITTEN.len());
        assert_eq!(
            after.replacen("    status: done\n", "    status: open\n", 1),
            HAND_WRITTEN
        );
        assert!(after.contains("status: active   # reviewed 2026-10"));
    }

    #[test]
    fn the_same_status_is_no_edit() {
        assert_eq!(
            edit("login", IssueStatus::Open).expect("no-op"),
            HAND_WRITTEN
        );
    }

    #[test]
    fn crlf_files_keep_their_line_endings() {
        let crlf = HAND_WRITTEN.replace('\n', "\r\n");
        let after =
            set_issue_status(&crlf, "auth.yaml", "login", IssueStatus::Active).expect("editable");
        assert_eq!(
            after,
            crlf.replacen("    status: open\r\n", "    status: active\r\n", 1)
        );
    }

    #[test]
    fn an_absent_issue_is_refused() {
        assert!(matches!(
            edit("nope", IssueStatus::Active),
            Err(EditError::UnknownIssue { .. })
        ));
    }

    #[test]
    fn a_status_that_cannot_be_edited_in_place_is_refused() {
        let flow = HAND_WRITTEN.replace(
            "  - id: tokens\n    status: \"done\"\n    title: Tokens\n    paths: []\n    serves: []\n    milestone: m1\n",
            "  - {id: tokens, status: done, title: Tokens, paths: [], serves: []}\n",
        );
        let err = set_issue_status(&flow, "auth.yaml", "tokens", IssueStatus::Open)
            .expect_err("flow style");
        assert!(matches!(err, EditError::NotEditable { .. }), "{err}");

        let next_line = HAND_WRITTEN.replace("    status: open\n", "    status:\n      open\n");
        let err = set_issue_status(&next_line, "auth.yaml", "login", IssueStatus::Active)
            .expect_err("value on its own line");
        assert!(err.to_string().contains("not on the key's line"), "{err}");
    }

    #[test]
    fn a_file_that_does_not_parse_is_not_edited() {
        let broken = HAND_WRITTEN.replace("id: login", "id: login\n    owner: me");
        let err = set_issue_status(&broken, "auth.yaml", "login", IssueStatus::Active)
            .expect_err("unknown key");
        assert_eq!(err.to_string(), "auth.yaml: issues[0].owner: unknown key");
    }
}
