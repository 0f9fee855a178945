//! The cockpit's markup: the one `escape` every user string goes through, the page frame
//! with its header nav, and the few fragments every page shares (tables, error blocks,
//! labels of typed values).

use std::fmt::Write as _;

use serde::Serialize;

use crate::error::ErrorReport;

/// Where the cockpit lives.
pub const ROOT: &str = "/cockpit";

/// The header nav: every page, in reading order, as `(path under ROOT, label)`.
pub const NAV: [(&str, &str); 9] = [
    ("", "Context"),
    ("/recall", "Recall"),
    ("/episodes", "Episodes"),
    ("/review", "Review"),
    ("/graph", "Graph"),
    ("/history", "History"),
    ("/doctor", "Doctor"),
    ("/tasks", "Tasks"),
    ("/reasoning", "Reasoning"),
];

/// `text` safe to place in an element or a quoted attribute: `& < > " '` as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What [`encode`] leaves as is: letters, digits and `-_.~` (RFC 3986 unreserved).
const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `value` percent-encoded for a path segment or a query value (then escaped for the
/// attribute it sits in by the caller).
pub fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, UNRESERVED).to_string()
}

/// The name a typed value serialises to (`tracked`, `blocking`, `derived_from`), escaped.
pub fn label<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => escape(&name),
        Ok(other) => escape(&other.to_string()),
        Err(_) => String::from("?"),
    }
}

/// An optional string, escaped, or an em dash.
pub fn or_dash(value: Option<&str>) -> String {
    value.map_or_else(|| String::from("—"), escape)
}

/// The link to one knowledge record's page.
pub fn knowledge_link(id: &str) -> String {
    format!(
        "<a href=\"{ROOT}/knowledge/{}\"><code>{}</code></a>",
        escape(&encode(id)),
        escape(id)
    )
}

/// The link to one episode's ledger lines.
pub fn episode_link(id: &str) -> String {
    format!(
        "<a href=\"{ROOT}/history?session={}\"><code>{}</code></a>",
        escape(&encode(id)),
        escape(id)
    )
}

/// A `derived_from` reference (`kind:target`) as a link to where the cockpit shows its
/// target: an episode's ledger lines, a task (and its decisions) on the tasks page, what is
/// known about a file; a commit and anything else as the reference itself.
pub fn reference_link(reference: &str) -> String {
    let (kind, target) = reference.split_once(':').unwrap_or(("", reference));
    let href = match kind {
        "session" => Some(format!("{ROOT}/history?session={}", encode(target))),
        "task" | "decision" => Some(format!("{ROOT}/tasks#task-{}", encode(target))),
        "file" | "test" => Some(format!("{ROOT}/recall?path={}", encode(target))),
        _ => None,
    };
    match href {
        Some(href) => format!(
            "<a href=\"{}\"><code>{}</code></a>",
            escape(&href),
            escape(reference)
        ),
        None => format!("<code>{}</code>", escape(reference)),
    }
}

/// A badge for a state word; `tone` is one of the stylesheet's (`good`, `warn`, `bad`,
/// `quiet`).
pub fn badge(tone: &str, text: &str) -> String {
    format!("<span class=\"badge {tone}\">{}</span>", escape(text))
}

/// A table: a header row of static names, then rows of cells already rendered.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<div class=\"scroll\"><table><thead><tr>");
    for h in headers {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// A paragraph saying a list is empty.
pub fn empty(text: &str) -> String {
    format!("<p class=\"empty\">{}</p>", escape(text))
}

/// An error of an operation, as a block: what, the rule, and the fix, in the browser's
/// words ([`super::words::for_browser`]).
pub fn error_block(report: &ErrorReport) -> String {
    let report = &super::words::for_browser(report);
    let mut out = String::from("<section class=\"error\" role=\"alert\">");
    let _ = write!(
        out,
        "<p class=\"what\">{}</p><dl><dt>rule</dt><dd><code>{}</code></dd><dt>class</dt><dd>{}</dd>",
        escape(&report.message),
        escape(&report.rule),
        label(&report.class),
    );
    if let Some(fix) = &report.fix {
        let _ = write!(out, "<dt>fix</dt><dd>{}</dd>", escape(fix));
    }
    out.push_str("</dl></section>");
    out
}

/// A whole page: the frame, the header nav with `current` marked, `title` and `body`.
pub fn page(current: &str, title: &str, body: &str) -> String {
    let mut nav = String::new();
    for (path, name) in NAV {
        let here = if path == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(nav, "<a href=\"{ROOT}{path}\"{here}>{name}</a>");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{title} · majordomus</title>\n\
         <link rel=\"stylesheet\" href=\"{ROOT}/style.css\">\n</head>\n<body>\n\
         <header><a class=\"brand\" href=\"{ROOT}\">majordomus</a><nav aria-label=\"cockpit\">{nav}</nav></header>\n\
         <main>\n<h1>{title}</h1>\n{body}\n</main>\n\
         <footer>majordomus {version} · served on 127.0.0.1 only · <a href=\"/api/v1/openapi.json\">API</a></footer>\n\
         </body>\n</html>\n",
        title = escape(title),
        version = env!("CARGO_PKG_VERSION"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_turns_markup_into_text() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
        assert_eq!(escape("plain"), "plain");
    }

    #[test]
    fn the_page_links_every_page_and_marks_the_current_one() {
        let html = page("/review", "Review <queue>", "<p>x</p>");
        for (path, _) in NAV {
            assert!(html.contains(&format!("href=\"{ROOT}{path}\"")), "{path}");
        }
        assert!(html.contains("href=\"/cockpit/review\" aria-current=\"page\""));
        assert!(html.contains("<h1>Review &lt;queue&gt;</h1>"));
    }

    #[test]
    fn a_reference_links_to_where_the_cockpit_shows_its_target() {
        assert_eq!(
            reference_link("session:20261130T100000Z-abcdef"),
            "<a href=\"/cockpit/history?session=20261130T100000Z-abcdef\"><code>session:20261130T100000Z-abcdef</code></a>"
        );
        for kind in ["task", "decision"] {
            assert_eq!(
                reference_link(&format!("{kind}:t-20261130-0a0b")),
                format!(
                    "<a href=\"/cockpit/tasks#task-t-20261130-0a0b\"><code>{kind}:t-20261130-0a0b</code></a>"
                )
            );
        }
        assert_eq!(
            reference_link("file:src/a b.rs"),
            "<a href=\"/cockpit/recall?path=src%2Fa%20b.rs\"><code>file:src/a b.rs</code></a>"
        );
        assert_eq!(
            reference_link("commit:<abc>"),
            "<code>commit:&lt;abc&gt;</code>"
        );
        assert_eq!(reference_link("no kind"), "<code>no kind</code>");
    }

    #[test]
    fn links_encode_and_escape_their_target() {
        assert_eq!(
            knowledge_link("a\"b c"),
            "<a href=\"/cockpit/knowledge/a%22b%20c\"><code>a&quot;b c</code></a>"
        );
    }
}
