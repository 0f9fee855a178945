//! Markdown with YAML front matter between `---` lines.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Splits `---\n<yaml>---\n<body>`; `None` when the text has no front matter. A UTF-8
/// byte order mark before the first `---` (some editors write one) is read past.
pub fn split(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n")?;
    if let Some(body) = rest.strip_prefix("---\n") {
        return Some(("", body));
    }
    let end = rest.find("\n---\n").map(|i| (i + 1, i + 5)).or_else(|| {
        rest.strip_suffix("\n---")
            .map(|yaml| (yaml.len() + 1, rest.len()))
    })?;
    Some((&rest[..end.0], &rest[end.1..]))
}

/// Parses the front matter into `T`.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<(T, &str), String> {
    let (yaml, body) = split(text).ok_or("no front matter (expected a first line `---`)")?;
    let value = yaml_serde::from_str(yaml).map_err(|e| e.to_string())?;
    Ok((value, body))
}

/// Renders front matter and body; deterministic for a given value.
pub fn render<T: Serialize>(front: &T, body: &str) -> String {
    let yaml = yaml_serde::to_string(front).expect("front matter types always serialise");
    let mut out = String::with_capacity(yaml.len() + body.len() + 8);
    out.push_str("---\n");
    out.push_str(&yaml);
    if !yaml.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Front {
        id: String,
        tags: Vec<String>,
    }

    #[test]
    fn a_byte_order_mark_is_read_past() {
        let (back, body): (Front, &str) =
            parse("\u{feff}---\nid: x\ntags: []\n---\nbody\n").expect("parses");
        assert_eq!(back.id, "x");
        assert_eq!(body, "body\n");
    }

    #[test]
    fn round_trips() {
        let front = Front {
            id: "x".into(),
            tags: vec!["a".into()],
        };
        let text = render(&front, "# Body\n");
        assert_eq!(text, "---\nid: x\ntags:\n- a\n---\n# Body\n");
        let (back, body): (Front, &str) = parse(&text).expect("parses");
        assert_eq!(back, front);
        assert_eq!(body, "# Body\n");
    }

    #[test]
    fn split_handles_edges() {
        assert_eq!(split("no front"), None);
        assert_eq!(split("---\n---\nbody"), Some(("", "body")));
        assert_eq!(split("---\na: 1\n---"), Some(("a: 1\n", "")));
    }
}
