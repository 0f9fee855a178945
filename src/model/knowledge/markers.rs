//! Transcript markers: the signs that a text quotes a conversation instead of stating a
//! claim (data in `share/standard/transcript-markers.txt`).

/// The transcript markers shipped in `share/standard/transcript-markers.txt`.
pub const STANDARD_MARKERS: &str = include_str!("../../../share/standard/transcript-markers.txt");

/// Transcript markers, parsed from the standard file.
#[derive(Debug, Clone)]
pub struct Markers {
    /// `(lower-cased for matching, as written)`.
    line_starts: Vec<(String, String)>,
    anywhere: Vec<String>,
}

impl Markers {
    pub fn parse(text: &str) -> Markers {
        let mut markers = Markers {
            line_starts: Vec::new(),
            anywhere: Vec::new(),
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.strip_prefix('^') {
                Some(p) => markers.line_starts.push((p.to_lowercase(), p.to_owned())),
                None => markers.anywhere.push(line.to_owned()),
            }
        }
        markers
    }

    pub fn standard() -> Markers {
        Markers::parse(STANDARD_MARKERS)
    }

    /// The first marker `text` carries, if any.
    pub fn find(&self, text: &str) -> Option<String> {
        for line in text.lines() {
            let lower = line.trim_start().to_lowercase();
            if let Some(m) = self
                .line_starts
                .iter()
                .find(|(m, _)| lower.starts_with(m.as_str()))
            {
                return Some(m.1.clone());
            }
            if let Some(m) = self.anywhere.iter().find(|m| line.contains(m.as_str())) {
                return Some(m.clone());
            }
        }
        None
    }
}
