//! `.ai/repo/knowledge/sources.yaml`: the source classes of the knowledge store, descriptive.
//! majordomus reads each class from its fixed folder; the file says which they are, and a
//! `path:` it declares is documentation, never a pathspec. What a file says that the store
//! does not do is said (`knowledge check`), never obeyed.

use serde::Deserialize;

/// The file, relative to the repository root.
pub const SOURCES_FILE: &str = ".ai/repo/knowledge/sources.yaml";

/// Each class of the store and the folder majordomus reads it from.
pub const CLASSES: [(&str, &str); 2] = [
    ("curated", ".ai/repo/knowledge/curated"),
    ("candidates", ".ai/repo/knowledge/candidates"),
];

#[derive(Debug, Deserialize)]
struct Sources {
    #[serde(default)]
    sources: Vec<Source>,
}

#[derive(Debug, Deserialize)]
struct Source {
    class: String,
    #[serde(default)]
    path: Option<String>,
}

/// What `sources.yaml` (its text) declares that majordomus does not do: a class it has
/// not, a `path:` other than the folder its class is read from, a file that does not
/// read. Empty when the file describes the store as it is.
pub fn undone(text: &str) -> Vec<String> {
    let parsed: Sources = match yaml_serde::from_str(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            return vec![format!(
                "does not read as YAML ({e}); it is descriptive, so nothing depends on it"
            )];
        }
    };
    let mut out = Vec::new();
    for source in parsed.sources {
        let path = source.path.as_deref().map(|p| p.trim_end_matches('/'));
        match CLASSES.iter().find(|(class, _)| *class == source.class) {
            None => out.push(format!(
                "class `{}` is not a class of the store (curated, candidates): it is descriptive, and nothing is read for it",
                source.class
            )),
            Some((class, folder)) => {
                if let Some(path) = path
                    && path != *folder
                {
                    out.push(format!(
                        "class `{class}` declares path `{path}`, but `path:` is descriptive: majordomus reads {class} records from {folder} only"
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_describes_the_store_as_it_is() {
        let shipped = include_str!("../../../share/skeleton/.ai/repo/knowledge/sources.yaml");
        assert_eq!(undone(shipped), Vec::<String>::new());
    }

    #[test]
    fn a_path_elsewhere_or_an_unknown_class_is_said() {
        let text = "sources:\n  - class: curated\n    path: docs/knowledge/\n  - class: notes\n    path: notes\n  - class: candidates\n    path: .ai/repo/knowledge/candidates/\n";
        let said = undone(text);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].contains("`docs/knowledge`"), "{said:?}");
        assert!(
            said[0].contains("from .ai/repo/knowledge/curated only"),
            "{said:?}"
        );
        assert!(said[1].contains("class `notes`"), "{said:?}");
        assert_eq!(undone("sources: [").len(), 1);
    }
}
