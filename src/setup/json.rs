//! Minimal edits of a JSON (or JSON-with-comments) text: a member or an array element is
//! inserted or removed where it belongs, and every other byte stays as it was. Inserting
//! then removing the same entry gives the original text back.

use serde_json::Value;

use super::{EditError, Outcome};

/// A parsed value and where it lies in the text.
#[derive(Debug, Clone)]
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug, Clone)]
struct Member {
    key: String,
    key_start: usize,
    value: Node,
}

/// What an edit needs from a settings file: a member of an object, or an element of an
/// array, at a path of object keys from the root. Values are JSON text, written in the
/// order their keys should appear (a `serde_json::Value` would sort them).
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// `path.key` is `value`.
    Member {
        path: Vec<String>,
        key: String,
        value: String,
    },
    /// The array at `path` holds `value`; an element holding the string `marker`
    /// anywhere is taken as ours already (edited by hand, say), so none is added.
    Element {
        path: Vec<String>,
        value: String,
        marker: String,
    },
    /// The array at `path` holds each of the strings `values`: each added where missing,
    /// removed where there (a list of rules, of which the user may hold some already).
    Strings {
        path: Vec<String>,
        values: Vec<String>,
        /// What the strings are, for messages: `majordomus tools`.
        label: &'static str,
    },
}

impl Entry {
    /// The entry's value, parsed (compared by content, whatever the layout).
    fn parsed(&self) -> Option<Value> {
        match self {
            Entry::Member { value, .. } | Entry::Element { value, .. } => {
                serde_json::from_str(value).ok()
            }
            Entry::Strings { .. } => None,
        }
    }

    /// Where the entry lives, for messages: `mcpServers.majordomus`, `hooks.SessionStart[]`,
    /// `permissions.allow[] (37 majordomus tools)`.
    pub fn describe(&self) -> String {
        match self {
            Entry::Member { path, key, .. } => {
                let mut p = path.clone();
                p.push(key.clone());
                p.join(".")
            }
            Entry::Element { path, .. } => format!("{}[]", path.join(".")),
            Entry::Strings {
                path,
                values,
                label,
            } => format!("{}[] ({} {label})", path.join("."), values.len()),
        }
    }

    /// Each string of a [`Entry::Strings`] as an element of its own.
    fn elements(path: &[String], values: &[String]) -> impl Iterator<Item = Entry> {
        values.iter().map(move |value| Entry::Element {
            path: path.to_vec(),
            value: serde_json::to_string(value).expect("a string serialises"),
            marker: value.clone(),
        })
    }
}

/// `text` with `entry` added (or the reason it was not).
pub fn add(text: &str, entry: &Entry) -> Result<(String, Outcome), EditError> {
    if let Entry::Strings { path, values, .. } = entry {
        // Added when any was missing; present when none was.
        let mut text = text.to_owned();
        let mut outcome = Outcome::Present;
        for element in Entry::elements(path, values) {
            let (edited, one) = add_one(&text, &element)?;
            if one == Outcome::Added {
                outcome = Outcome::Added;
            }
            text = edited;
        }
        return Ok((text, outcome));
    }
    add_one(text, entry)
}

/// Whether the value `there` holds `ours`: equal, or an object with each of our members
/// (setup adds members of its own to its server object, `trust` say, as entries).
fn holds(there: Option<&Value>, ours: Option<&Value>) -> bool {
    match (there, ours) {
        (Some(Value::Object(there)), Some(Value::Object(ours))) => {
            ours.iter().all(|(k, v)| there.get(k) == Some(v))
        }
        (there, ours) => there.is_some() && there == ours,
    }
}

fn add_one(text: &str, entry: &Entry) -> Result<(String, Outcome), EditError> {
    let root = parse(text)?;
    let ours = entry.parsed();
    let (path, new_value) = match entry {
        Entry::Member { path, key, value } => (path, (Some(key.as_str()), value.as_str())),
        Entry::Element { path, value, .. } => (path, (None, value.as_str())),
        Entry::Strings { .. } => unreachable!("add splits strings into elements"),
    };
    // Walk down the path; the first missing key gets the rest of the path as one value.
    let mut node = &root;
    for (depth, segment) in path.iter().enumerate() {
        let Kind::Object(members) = &node.kind else {
            return Err(not_an_object(&path[..depth]));
        };
        match members.iter().find(|m| m.key == *segment) {
            Some(m) => node = &m.value,
            None => {
                let value = nest(&path[depth + 1..], new_value);
                let edited = insert_member(text, node, segment, &value);
                return Ok((edited, Outcome::Added));
            }
        }
    }
    match (entry, &node.kind) {
        (Entry::Member { key, value, .. }, Kind::Object(members)) => {
            match members.iter().find(|m| m.key == *key) {
                None => Ok((insert_member(text, node, key, value), Outcome::Added)),
                Some(m) if holds(slice_value(text, &m.value).as_ref(), ours.as_ref()) => {
                    Ok((text.to_owned(), Outcome::Present))
                }
                Some(_) => Ok((
                    text.to_owned(),
                    Outcome::Kept(format!(
                        "{} is already set to something else; left as it is",
                        entry.describe()
                    )),
                )),
            }
        }
        (Entry::Element { value, marker, .. }, Kind::Array(elements)) => {
            if elements.iter().any(|e| slice_value(text, e) == ours) {
                return Ok((text.to_owned(), Outcome::Present));
            }
            if elements.iter().any(|e| runs(text, e, marker)) {
                return Ok((
                    text.to_owned(),
                    Outcome::Kept(format!(
                        "{} already runs `{marker}` in another form; left as it is",
                        entry.describe()
                    )),
                ));
            }
            Ok((insert_element(text, node, value), Outcome::Added))
        }
        (Entry::Member { .. }, _) => Err(not_an_object(path)),
        (_, _) => Err(EditError::new(format!(
            "`{}` is not an array",
            path.join(".")
        ))),
    }
}

/// `text` without `entry` (exactly as `add` wrote it), pruning the objects and arrays of
/// its path that it leaves empty.
pub fn remove(text: &str, entry: &Entry) -> Result<(String, Outcome), EditError> {
    if let Entry::Strings { path, values, .. } = entry {
        // Last in, first out: each string taken out as `add` appended it.
        let elements: Vec<Entry> = Entry::elements(path, values).collect();
        let mut text = text.to_owned();
        let mut outcome = Outcome::Absent;
        for element in elements.iter().rev() {
            let (edited, one) = remove_one(&text, element)?;
            if one == Outcome::Removed {
                outcome = Outcome::Removed;
            }
            text = edited;
        }
        return Ok((text, outcome));
    }
    remove_one(text, entry)
}

fn remove_one(text: &str, entry: &Entry) -> Result<(String, Outcome), EditError> {
    let root = parse(text)?;
    let ours = entry.parsed();
    let path = match entry {
        Entry::Member { path, .. } | Entry::Element { path, .. } | Entry::Strings { path, .. } => {
            path
        }
    };
    let Some(node) = find(&root, path) else {
        return Ok((text.to_owned(), Outcome::Absent));
    };
    let edited = match (entry, &node.kind) {
        (Entry::Member { key, .. }, Kind::Object(members)) => {
            let Some(index) = members.iter().position(|m| m.key == *key) else {
                return Ok((text.to_owned(), Outcome::Absent));
            };
            if slice_value(text, &members[index].value) != ours {
                return Ok((
                    text.to_owned(),
                    Outcome::Kept(format!(
                        "{} differs from what setup writes; left as it is",
                        entry.describe()
                    )),
                ));
            }
            remove_member(text, node, index)
        }
        (Entry::Element { marker, .. }, Kind::Array(elements)) => {
            let Some(index) = elements.iter().position(|e| slice_value(text, e) == ours) else {
                let edited = elements.iter().any(|e| runs(text, e, marker));
                return Ok((
                    text.to_owned(),
                    if edited {
                        Outcome::Kept(format!(
                            "{} runs `{marker}` in a form setup did not write; left as it is",
                            entry.describe()
                        ))
                    } else {
                        Outcome::Absent
                    },
                ));
            };
            remove_element(text, node, index)
        }
        _ => return Ok((text.to_owned(), Outcome::Absent)),
    };
    Ok((prune(&edited, path)?, Outcome::Removed))
}

/// Removes, from the deepest up, the containers of `path` left empty.
fn prune(text: &str, path: &[String]) -> Result<String, EditError> {
    let mut text = text.to_owned();
    for depth in (1..=path.len()).rev() {
        let root = parse(&text)?;
        let Some(node) = find(&root, &path[..depth]) else {
            break;
        };
        let empty = match &node.kind {
            Kind::Object(m) => m.is_empty(),
            Kind::Array(e) => e.is_empty(),
            Kind::Scalar => false,
        };
        if !empty {
            break;
        }
        let parent = find(&root, &path[..depth - 1]).expect("the parent of a found node");
        let Kind::Object(members) = &parent.kind else {
            break;
        };
        let index = members
            .iter()
            .position(|m| m.key == path[depth - 1])
            .expect("the member just found");
        text = remove_member(&text, parent, index);
    }
    Ok(text)
}

fn not_an_object(path: &[String]) -> EditError {
    if path.is_empty() {
        EditError::new("the top level is not an object")
    } else {
        EditError::new(format!("`{}` is not an object", path.join(".")))
    }
}

fn find<'a>(root: &'a Node, path: &[String]) -> Option<&'a Node> {
    let mut node = root;
    for segment in path {
        let Kind::Object(members) = &node.kind else {
            return None;
        };
        node = &members.iter().find(|m| m.key == *segment)?.value;
    }
    Some(node)
}

/// `{"a": {"b": value}}` for the path `a.b` of an entry's remaining keys, as JSON text.
fn nest(path: &[String], (key, value): (Option<&str>, &str)) -> String {
    let quote = |k: &str| serde_json::to_string(k).expect("a string serialises");
    let mut inner = match key {
        Some(key) => format!("{{{}: {value}}}", quote(key)),
        None => format!("[{value}]"),
    };
    for segment in path.iter().rev() {
        inner = format!("{{{}: {inner}}}", quote(segment));
    }
    inner
}

/// Whether `element` runs `marker`: holds it as a string value (or, when it does not
/// parse for comments, as a quoted string in its text).
fn runs(text: &str, element: &Node, marker: &str) -> bool {
    match slice_value(text, element) {
        Some(value) => holds_string(&value, marker),
        None => text[element.start..element.end]
            .contains(&serde_json::to_string(marker).expect("a string serialises")),
    }
}

fn holds_string(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s == needle,
        Value::Array(items) => items.iter().any(|v| holds_string(v, needle)),
        Value::Object(map) => map.values().any(|v| holds_string(v, needle)),
        _ => false,
    }
}

/// The value of `node` as JSON, when its text is plain JSON (no comments inside).
fn slice_value(text: &str, node: &Node) -> Option<Value> {
    serde_json::from_str(&text[node.start..node.end]).ok()
}

// --- Layout: how the file indents, and the text of inserted values ------------------------

/// The indentation unit of the file: the smallest leading whitespace of an indented line
/// (two spaces when nothing is indented).
fn indent_unit(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .filter(|w| !w.is_empty())
        .min_by_key(|w| w.len())
        .map(|w| if w.starts_with('\t') { "\t" } else { w })
        .unwrap_or("  ")
        .to_owned()
}

/// The leading whitespace of the line `at` is on.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start().len()]
}

/// JSON text `source` laid out in its own key order: one item a line, indented by
/// `unit` under `base`; on one line (`, ` and `: `) when `unit` is empty.
fn layout(source: &str, unit: &str, base: &str) -> String {
    let node = parse_value(source).expect("setup writes valid JSON");
    let mut out = String::new();
    emit(source, &node, unit, base, &mut out);
    out
}

fn emit(source: &str, node: &Node, unit: &str, indent: &str, out: &mut String) {
    let inner = format!("{indent}{unit}");
    let separate = |out: &mut String, first: bool| {
        if !first {
            out.push(',');
        }
        if unit.is_empty() {
            if !first {
                out.push(' ');
            }
        } else {
            out.push('\n');
            out.push_str(&inner);
        }
    };
    let close = |out: &mut String, bracket: char| {
        if !unit.is_empty() {
            out.push('\n');
            out.push_str(indent);
        }
        out.push(bracket);
    };
    match &node.kind {
        Kind::Scalar => out.push_str(&source[node.start..node.end]),
        Kind::Object(members) if members.is_empty() => out.push_str("{}"),
        Kind::Array(elements) if elements.is_empty() => out.push_str("[]"),
        Kind::Object(members) => {
            out.push('{');
            for (i, m) in members.iter().enumerate() {
                separate(out, i == 0);
                out.push_str(&serde_json::to_string(&m.key).expect("a string serialises"));
                out.push_str(": ");
                emit(source, &m.value, unit, &inner, out);
            }
            close(out, '}');
        }
        Kind::Array(elements) => {
            out.push('[');
            for (i, e) in elements.iter().enumerate() {
                separate(out, i == 0);
                emit(source, e, unit, &inner, out);
            }
            close(out, ']');
        }
    }
}

/// The separator before a new item of a container whose items are `starts`: a newline
/// and the indentation of the last item when the container spans lines, else a space.
fn item_layout(text: &str, container: &Node, first_item: usize, last_item: usize) -> Layout {
    let opening = &text[container.start + 1..first_item];
    if opening.contains('\n') {
        Layout::Lines {
            indent: line_indent(text, last_item).to_owned(),
        }
    } else {
        Layout::Inline
    }
}

enum Layout {
    Lines { indent: String },
    Inline,
}

fn insert_item(
    text: &str,
    container: &Node,
    items: &[(usize, usize)],
    item: &dyn Fn(&str, &str) -> String,
) -> String {
    let unit = indent_unit(text);
    let close = container.end - 1;
    match items.last() {
        Some(&(_, last_end)) => {
            let first_start = items[0].0;
            let (separator, base) =
                match item_layout(text, container, first_start, items[items.len() - 1].0) {
                    Layout::Lines { indent } => (format!(",\n{indent}"), indent),
                    Layout::Inline => (", ".to_owned(), String::new()),
                };
            let inline = separator == ", ";
            let body = if inline {
                item("", "")
            } else {
                item(&unit, &base)
            };
            format!(
                "{}{separator}{body}{}",
                &text[..last_end],
                &text[last_end..]
            )
        }
        None => {
            let outer = line_indent(text, container.start).to_owned();
            let inner = format!("{outer}{unit}");
            let body = item(&unit, &inner);
            format!(
                "{}\n{inner}{body}\n{outer}{}",
                &text[..=container.start],
                &text[close..]
            )
        }
    }
}

fn insert_member(text: &str, object: &Node, key: &str, value: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        unreachable!("insert_member is called on objects");
    };
    let items: Vec<(usize, usize)> = members.iter().map(|m| (m.key_start, m.value.end)).collect();
    let key = serde_json::to_string(key).expect("a string serialises");
    insert_item(text, object, &items, &|unit, base| {
        format!("{key}: {}", layout(value, unit, base))
    })
}

fn insert_element(text: &str, array: &Node, value: &str) -> String {
    let Kind::Array(elements) = &array.kind else {
        unreachable!("insert_element is called on arrays");
    };
    let items: Vec<(usize, usize)> = elements.iter().map(|e| (e.start, e.end)).collect();
    insert_item(text, array, &items, &|unit, base| layout(value, unit, base))
}

/// Removes item `index` of `items` from `container`: with the separator before it, or
/// for the first, with the one after it; the only item leaves `{}` / `[]`.
fn remove_item(text: &str, container: &Node, items: &[(usize, usize)], index: usize) -> String {
    let (start, end) = if items.len() == 1 {
        (container.start + 1, container.end - 1)
    } else if index > 0 {
        (items[index - 1].1, items[index].1)
    } else {
        (items[0].0, items[1].0)
    };
    format!("{}{}", &text[..start], &text[end..])
}

fn remove_member(text: &str, object: &Node, index: usize) -> String {
    let Kind::Object(members) = &object.kind else {
        unreachable!("remove_member is called on objects");
    };
    let items: Vec<(usize, usize)> = members.iter().map(|m| (m.key_start, m.value.end)).collect();
    remove_item(text, object, &items, index)
}

fn remove_element(text: &str, array: &Node, index: usize) -> String {
    let Kind::Array(elements) = &array.kind else {
        unreachable!("remove_element is called on arrays");
    };
    let items: Vec<(usize, usize)> = elements.iter().map(|e| (e.start, e.end)).collect();
    remove_item(text, array, &items, index)
}

// --- The parser: values with their byte ranges; comments are whitespace ------------------

/// Parses `text`, whose top level must be an object.
fn parse(text: &str) -> Result<Node, EditError> {
    let root = parse_value(text)?;
    if !matches!(root.kind, Kind::Object(_)) {
        return Err(EditError::new("the top level is not an object"));
    }
    Ok(root)
}

/// Parses one JSON value (with comments as whitespace) filling `text`.
fn parse_value(text: &str) -> Result<Node, EditError> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    p.skip_space()?;
    let root = p.value(0)?;
    p.skip_space()?;
    if p.at != p.bytes.len() {
        return Err(p.error("text after the top-level value"));
    }
    Ok(root)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// Deeper than this is not a settings file.
const MAX_DEPTH: usize = 128;

impl Parser<'_> {
    fn error(&self, what: &str) -> EditError {
        let line = self.bytes[..self.at.min(self.bytes.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        EditError::new(format!("not JSON at line {line}: {what}"))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) -> Result<(), EditError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if self.bytes.get(self.at + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                Some(b'/') if self.bytes.get(self.at + 1) == Some(&b'*') => {
                    let rest = &self.bytes[self.at + 2..];
                    let end = rest
                        .windows(2)
                        .position(|w| w == b"*/")
                        .ok_or_else(|| self.error("unterminated comment"))?;
                    self.at += 2 + end + 2;
                }
                _ => return Ok(()),
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), EditError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, EditError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => Kind::Object(self.object(depth)?),
            Some(b'[') => Kind::Array(self.array(depth)?),
            Some(b'"') => {
                self.string()?;
                Kind::Scalar
            }
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                while self
                    .peek()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                {
                    self.at += 1;
                }
                Kind::Scalar
            }
            _ => return Err(self.error("expected a value")),
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn object(&mut self, depth: usize) -> Result<Vec<Member>, EditError> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_space()?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(members);
        }
        loop {
            self.skip_space()?;
            let key_start = self.at;
            let key = self.string()?;
            self.skip_space()?;
            self.expect(b':')?;
            self.skip_space()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.skip_space()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(members);
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Vec<Node>, EditError> {
        self.expect(b'[')?;
        let mut elements = Vec::new();
        self.skip_space()?;
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(elements);
        }
        loop {
            self.skip_space()?;
            elements.push(self.value(depth + 1)?);
            self.skip_space()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(elements);
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    /// A string literal, decoded (for keys).
    fn string(&mut self) -> Result<String, EditError> {
        let start = self.at;
        self.expect(b'"')?;
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'\\') => self.at += 2,
                Some(b'"') => {
                    self.at += 1;
                    break;
                }
                Some(_) => self.at += 1,
            }
        }
        let literal = std::str::from_utf8(&self.bytes[start..self.at.min(self.bytes.len())])
            .map_err(|_| self.error("a string that is not UTF-8"))?;
        serde_json::from_str(literal).map_err(|_| self.error("a malformed string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(path: &[&str], key: &str, value: &str) -> Entry {
        Entry::Member {
            path: path.iter().map(|s| s.to_string()).collect(),
            key: key.into(),
            value: value.into(),
        }
    }

    fn element(path: &[&str], value: &str, marker: &str) -> Entry {
        Entry::Element {
            path: path.iter().map(|s| s.to_string()).collect(),
            value: value.into(),
            marker: marker.into(),
        }
    }

    fn server() -> Entry {
        member(
            &["mcpServers"],
            "majordomus",
            r#"{"command": "majordomus", "args": ["mcp"]}"#,
        )
    }

    #[track_caller]
    fn round_trip(before: &str, entries: &[Entry]) -> String {
        let mut text = before.to_owned();
        for e in entries {
            let (t, outcome) = add(&text, e).expect("adds");
            assert_eq!(outcome, Outcome::Added, "{text}");
            text = t;
        }
        let parsed: Value = serde_json::from_str(&text)
            .or_else(|_| serde_json::from_str(&strip_comments(&text)))
            .unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(parsed.is_object());
        for e in entries {
            let (again, outcome) = add(&text, e).expect("adds");
            assert_eq!(outcome, Outcome::Present);
            assert_eq!(again, text, "a second add changes nothing");
        }
        let mut back = text.clone();
        for e in entries {
            let (t, outcome) = remove(&back, e).expect("removes");
            assert_eq!(outcome, Outcome::Removed, "{back}");
            back = t;
        }
        assert_eq!(back, before, "remove gives the original back");
        text
    }

    fn strip_comments(text: &str) -> String {
        text.lines()
            .map(|l| l.split("//").next().unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_server_joins_other_servers_in_the_files_own_style() {
        let before =
            "{\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    }\n}\n";
        let after = round_trip(before, &[server()]);
        assert_eq!(
            after,
            "{\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n        \"majordomus\": {\n            \"command\": \"majordomus\",\n            \"args\": [\n                \"mcp\"\n            ]\n        }\n    }\n}\n"
        );
    }

    #[test]
    fn an_empty_file_and_an_empty_object_get_the_whole_path() {
        assert_eq!(
            round_trip("{}", &[server()]),
            "{\n  \"mcpServers\": {\n    \"majordomus\": {\n      \"command\": \"majordomus\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}"
        );
        round_trip("{}\n", &[server()]);
    }

    #[test]
    fn hooks_append_to_the_users_groups_and_come_out_again() {
        let before = r#"{
  // the user's own settings
  "permissions": { "allow": ["Bash(ls)"] },
  "hooks": {
    "SessionStart": [
      { "hooks": [ { "type": "command", "command": "echo hi" } ] }
    ],
    "Stop": [ { "hooks": [] } ]
  }
}
"#;
        let ours = |cmd: &str| {
            format!(r#"{{"hooks": [{{"type": "command", "command": "{cmd}", "timeout": 30}}]}}"#)
        };
        let entries = [
            element(&["hooks", "SessionStart"], &ours("m start"), "m start"),
            element(&["hooks", "SessionEnd"], &ours("m end"), "m end"),
            element(&["hooks", "PreCompact"], &ours("m compact"), "m compact"),
        ];
        let after = round_trip(before, &entries);
        assert!(after.contains("\"echo hi\""), "{after}");
        assert!(
            after.starts_with("{\n  // the user's own settings\n"),
            "{after}"
        );
    }

    #[test]
    fn a_single_line_object_stays_on_one_line() {
        let after = round_trip(r#"{"mcpServers": {"a": {"command": "a"}}}"#, &[server()]);
        assert_eq!(
            after,
            r#"{"mcpServers": {"a": {"command": "a"}, "majordomus": {"command": "majordomus", "args": ["mcp"]}}}"#
        );
    }

    #[test]
    fn what_the_user_wrote_under_our_key_is_kept_both_ways() {
        let before = "{\"mcpServers\": {\"majordomus\": {\"command\": \"/opt/m\"}}}";
        let (text, outcome) = add(before, &server()).expect("adds");
        assert!(matches!(outcome, Outcome::Kept(_)));
        assert_eq!(text, before);
        let (text, outcome) = remove(before, &server()).expect("removes");
        assert!(matches!(outcome, Outcome::Kept(_)));
        assert_eq!(text, before);
        let hook = element(
            &["hooks", "SessionEnd"],
            r#"{"hooks": [{"command": "m end"}]}"#,
            "m end",
        );
        let edited =
            r#"{"hooks": {"SessionEnd": [{"hooks": [{"command": "m end", "timeout": 5}]}]}}"#;
        assert!(matches!(
            add(edited, &hook).expect("adds").1,
            Outcome::Kept(_)
        ));
        assert!(matches!(
            remove(edited, &hook).expect("removes").1,
            Outcome::Kept(_)
        ));
        assert_eq!(remove("{}", &hook).expect("removes").1, Outcome::Absent);
    }

    #[test]
    fn what_cannot_be_edited_is_said() {
        for (text, needle) in [
            ("[]", "top level"),
            ("{\"mcpServers\": []}", "`mcpServers` is not an object"),
            ("{\"a\": 1,}", "line 1"),
            ("{\"a\": \"x}", "unterminated"),
            ("{} {}", "after the top-level"),
        ] {
            let err = add(text, &server()).expect_err(text);
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }
}
