//! The memory at the moment of work (SPEC §8), the pure part: which words of a prompt
//! prompt-time recall ranks by and which hits clear its relevance floor; which files a
//! call of an agent's editing tool is about; what a client reads from a hook's stdout.
//! No files, no index, no git (docs/RECALL.md, "At the moment of work").

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::event::ShownWhere;
use super::recall::{HitStatus, tokens};
use super::window::ShownEntry as Shown;

/// Words too common in a request to an agent to say what it is about: the ranking's
/// stopwords, pronouns, question words, politeness, and the verbs every request to a
/// coding agent carries ("fix", "add", "make sure"). Left out of what a prompt ranks by
/// and of what its floor counts.
pub const PROMPT_FILLER: &[&str] = &[
    // The ranking's stopwords (content_terms).
    "all",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "by",
    "for",
    "from",
    "has",
    "have",
    "in",
    "is",
    "it",
    "its",
    "no",
    "not",
    "of",
    "on",
    "or",
    "that",
    "the",
    "this",
    "to",
    "was",
    "we",
    "were",
    "will",
    "with", // Pronouns, auxiliaries, question words.
    "am",
    "but",
    "can",
    "could",
    "did",
    "do",
    "does",
    "done",
    "he",
    "her",
    "him",
    "his",
    "how",
    "if",
    "into",
    "me",
    "my",
    "our",
    "she",
    "should",
    "so",
    "than",
    "them",
    "then",
    "there",
    "these",
    "they",
    "those",
    "us",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "would",
    "you",
    "your",
    "been",
    "being",
    "had",
    "may",
    "might",
    "must",
    "shall",
    "about",
    "after",
    "again",
    "also",
    "any",
    "before",
    "both",
    "each",
    "just",
    "more",
    "most",
    "now",
    "only",
    "other",
    "over",
    "same",
    "some",
    "such",
    "too",
    "up",
    "out",
    "very",
    "here",
    "one",
    // Politeness and talk.
    "please",
    "thanks",
    "thank",
    "hi",
    "hello",
    "hey",
    "ok",
    "okay",
    "yes",
    "let",
    "lets",
    "sure",
    "want",
    "need",
    "like",
    "know",
    "think",
    "go",
    "going",
    "get",
    "got",
    // What every request to a coding agent says.
    "fix",
    "add",
    "update",
    "change",
    "make",
    "implement",
    "write",
    "create",
    "remove",
    "check",
    "run",
    "try",
    "help",
    "show",
    "explain",
    "find",
    "tell",
    "give",
    "look",
    "see",
    "work",
    "works",
    "working",
    "use",
    "using",
    "code",
    "file",
    "files",
    "thing",
    "things",
    "something",
];

/// A hit holds prompt words weighing at least this much (or all the prompt's weight, when
/// it weighs less): a word counts 1, a generic one [`GENERIC_WEIGHT`].
pub const FLOOR_MIN_WORDS: f64 = 2.0;
/// What a generic word ([`GENERIC_WORDS`]) weighs against the floor: `error message` in a
/// prompt and a record is one word's worth of evidence, not two.
pub const GENERIC_WEIGHT: f64 = 0.5;
/// Records one prompt-time or edit-time recall puts before the model, at most: on the real
/// histories of the relevance bench, a third and later lines were mostly noise
/// (docs/RECALL.md, "How many lines").
pub const MAX_LINES: usize = 3;
/// Bytes one prompt-time or edit-time recall hands its client, at most (SPEC §8): under what
/// any client cuts, heading and lines included.
pub const MOMENT_MAX_BYTES: usize = 2048;
/// Content words of a prompt ranked by, at most (the first ones).
pub const MAX_PROMPT_WORDS: usize = 24;
/// Paths a prompt names that are ranked by, at most (the first ones that exist).
pub const MAX_PROMPT_PATHS: usize = 8;

/// The generic words shipped in `share/standard/generic-words.txt` (how they were chosen is
/// said there).
pub const GENERIC_WORDS: &str = include_str!("../../share/standard/generic-words.txt");

/// A word as the generic list holds it: lower case, a plural's `s` dropped (`errors` →
/// `error`, `dependencies` → `dependency`).
pub fn stem(term: &str) -> std::borrow::Cow<'_, str> {
    if term.len() > 4
        && let Some(root) = term.strip_suffix("ies")
    {
        return format!("{root}y").into();
    }
    if term.len() > 3 && term.ends_with('s') && !term.ends_with("ss") {
        return term[..term.len() - 1].into();
    }
    term.into()
}

/// Whether `term` is one of the [`GENERIC_WORDS`].
pub fn is_generic(term: &str) -> bool {
    static LIST: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    let list = LIST.get_or_init(|| {
        GENERIC_WORDS
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    });
    list.contains(stem(term).as_ref())
}

/// One word of a prompt: its terms (a `camelCase` or `snake_case` word's compound, then its
/// parts), and whether every one of them is generic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub terms: Vec<String>,
    pub generic: bool,
}

impl Word {
    /// What it weighs against the floor.
    pub fn weight(&self) -> f64 {
        if self.generic { GENERIC_WEIGHT } else { 1.0 }
    }

    /// Whether a record holding `terms` holds it (any of its terms).
    pub fn held_by(&self, terms: &[String]) -> bool {
        self.terms.iter().any(|t| terms.contains(t))
    }

    /// How the word is said in a hit's why: its first term.
    pub fn said(&self) -> &str {
        &self.terms[0]
    }
}

/// The name of the file a path-shaped chunk of a prompt names (`src/a/serving.py` and
/// `serving.py` name `serving`; `docs/guide/` names `guide`), or `None` for a chunk that is
/// no path: a path is a name with a short extension, or one ending in `/` (a slashed name
/// without either, `actions/checkout`, is a reference of another kind, its words its own).
fn path_name(chunk: &str) -> Option<&str> {
    let chunk = chunk.trim_matches(|c: char| "`'\"()[]{},;:!?.".contains(c));
    let last = chunk.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let slashed = chunk.len() > 1 && chunk.ends_with('/') && !last.is_empty();
    let (stem, ext) = match last.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic()) =>
        {
            (stem, true)
        }
        _ => (last, false),
    };
    (slashed || ext).then_some(stem).filter(|s| !s.is_empty())
}

/// The words of a prompt that say what it is about: each word's terms (a `camelCase` or
/// `snake_case` word's compound and parts), filler left out, each word once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptWords {
    pub words: Vec<Word>,
}

/// How a hit cleared the prompt's floor: the prompt's words it holds, and a file it reaches
/// that the prompt names (`by` is `None`) or that one of those words names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleared {
    pub words: Vec<String>,
    pub names: Option<Named>,
}

/// A file a hit reaches, named by the prompt (`by: None`) or by one of its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub path: String,
    pub by: Option<String>,
}

impl Cleared {
    /// Why the hit was put before the model, in a few words (its line's `why:`).
    pub fn why(&self) -> String {
        let words = (!self.words.is_empty()).then(|| format!("words {}", self.words.join(", ")));
        let named = self.names.as_ref().map(|n| match &n.by {
            None => format!("the prompt names {}", n.path),
            Some(word) => format!("{word} names {}", n.path),
        });
        words
            .into_iter()
            .chain(named)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl PromptWords {
    pub fn of(prompt: &str) -> PromptWords {
        let mut words: Vec<Word> = Vec::new();
        // A path the prompt names (`src/werkzeug/serving.py`, `strings.py`) is one word,
        // its file's name: its directories and extension would otherwise be words of their
        // own (`src`, `werkzeug`, `py`) that every record about a file beside it holds.
        let spans = prompt
            .split_whitespace()
            .flat_map(|chunk| match path_name(chunk) {
                Some(name) => vec![name],
                None => chunk
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .collect(),
            });
        for word in spans {
            let terms: Vec<String> = tokens(word)
                .into_iter()
                .filter(|t| !PROMPT_FILLER.contains(&t.as_str()))
                .filter(|t| !t.chars().all(|c| c.is_ascii_digit()))
                .collect();
            if terms.is_empty() || words.iter().any(|w| w.terms == terms) {
                continue;
            }
            let generic = terms.iter().all(|t| is_generic(t));
            words.push(Word { terms, generic });
            if words.len() == MAX_PROMPT_WORDS {
                break;
            }
        }
        PromptWords { words }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The query recall searches for: every term of every word, once.
    pub fn query(&self) -> String {
        let mut seen = std::collections::BTreeSet::new();
        self.words
            .iter()
            .flat_map(|w| &w.terms)
            .filter(|t| seen.insert(t.as_str()))
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// What the prompt's words weigh together.
    pub fn weight(&self) -> f64 {
        self.words.iter().map(Word::weight).sum()
    }

    /// What a hit's words must weigh to clear the floor: [`FLOOR_MIN_WORDS`], or all the
    /// prompt's weight when it weighs less.
    pub fn needed(&self) -> f64 {
        FLOOR_MIN_WORDS.min(self.weight())
    }

    /// The prompt's words a record holding `terms` holds.
    pub fn held<'a>(&'a self, terms: &[String]) -> Vec<&'a Word> {
        self.words.iter().filter(|w| w.held_by(terms)).collect()
    }

    /// The floor (docs/RECALL.md, "The floor"): a hit clears it when it cites or changed a
    /// file the prompt names (`names_path`); or when the prompt's words it holds weigh
    /// [`needed`](Self::needed) (generic ones half); or when it holds a word that is not
    /// generic and that word names a file the hit reaches (`parser` and `src/parser.rs`:
    /// two signs, from the record's words and from its files, of one subject). `reached`:
    /// the paths the hit reaches that say something about it (not a hub file most records
    /// reach). `None`: it does not clear it.
    pub fn clears(
        &self,
        terms: &[String],
        reached: &[String],
        names_path: Option<&str>,
    ) -> Option<Cleared> {
        let held = self.held(terms);
        let words: Vec<String> = held.iter().map(|w| w.said().to_owned()).collect();
        if let Some(path) = names_path {
            return Some(Cleared {
                words,
                names: Some(Named {
                    path: path.to_owned(),
                    by: None,
                }),
            });
        }
        let weight: f64 = held.iter().map(|w| w.weight()).sum();
        if !held.is_empty() && weight + 1e-9 >= self.needed() {
            return Some(Cleared { words, names: None });
        }
        let (word, path) = held
            .iter()
            .filter(|w| !w.generic)
            .find_map(|w| reached.iter().find(|p| names(w, p)).map(|p| (w, p)))?;
        Some(Cleared {
            words,
            names: Some(Named {
                path: path.clone(),
                by: Some(word.said().to_owned()),
            }),
        })
    }
}

/// Whether `word` names `path`: one of its terms is a term of a directory of the path or of
/// its file name without the extension (`parser` names `src/parser.rs` and
/// `src/parser/mod.rs`; `HttpClient` names `lib/http_client.js`).
pub fn names(word: &Word, path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    if let Some(last) = parts.last_mut()
        && let Some((stem, _)) = last.rsplit_once('.')
        && !stem.is_empty()
    {
        *last = stem;
    }
    parts
        .iter()
        .any(|part| tokens(part).iter().any(|t| word.terms.contains(t)))
}

/// The words of a prompt written as code (`` `--evaluate` ``, `toJSONSchema`,
/// `FZF_DEFAULT_OPTS`, `regexes.ts`, `append()`): each as written, without its backticks
/// and trailing punctuation. A prompt naming code this repository's memory has never heard
/// of is about another project (docs/RECALL.md, "Another project's words").
pub fn code_words(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in prompt.split(|c: char| c.is_whitespace() || ",;:\"'[]{}<>!?".contains(c)) {
        let word = raw.trim_matches(|c: char| "`().".contains(c));
        if word.chars().count() < 3 || word.starts_with(|c: char| c.is_ascii_digit() || c == '#') {
            continue;
        }
        let chars: Vec<char> = word.chars().collect();
        let shaped = raw.contains('`')
            || word.starts_with('-')
            || word.contains(['_', '.', '/'])
            || raw.contains("()")
            || chars
                .windows(2)
                .any(|w| w[0].is_lowercase() && w[1].is_uppercase())
            || chars
                .windows(3)
                .any(|w| w[0].is_uppercase() && w[1].is_uppercase() && w[2].is_lowercase());
        if shaped && !out.iter().any(|o| o == word) {
            out.push(word.to_owned());
        }
    }
    out
}

/// Whether a code word is unknown to a vocabulary (`known` says whether a term is in it):
/// neither its compound nor every one of its parts is (filler left out).
pub fn unknown_code(word: &str, known: impl Fn(&str) -> bool) -> bool {
    let terms: Vec<String> = tokens(word)
        .into_iter()
        .filter(|t| !PROMPT_FILLER.contains(&t.as_str()))
        .collect();
    let Some(first) = terms.first() else {
        return false;
    };
    let parts = if terms.len() > 1 {
        &terms[1..]
    } else {
        &terms[..]
    };
    !known(first) && !parts.iter().all(|t| known(t))
}

/// The path-like words of a prompt (`src/parser/mod.rs`, `Cargo.toml`, `./docs/`), as
/// written, in order, each once: a word with a `/`, or a name with an extension. Whether
/// each names a file of the repository is for the caller to check.
pub fn path_words(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in prompt.split(|c: char| c.is_whitespace() || "`'\"()[]{}<>,;".contains(c)) {
        let word = word.trim_end_matches(['.', ':', '!', '?']);
        let word = word.strip_prefix("./").unwrap_or(word);
        let word = word.split('#').next().unwrap_or(word);
        let word = word.split(':').next().unwrap_or(word);
        if word.len() < 3 || word.len() > 512 || word.contains("://") || word.starts_with('-') {
            continue;
        }
        let named = word.contains('/')
            || word.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=8).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
                    && (stem.len() >= 2 || ext.len() >= 2)
            });
        let plain = word
            .chars()
            .all(|c| c.is_alphanumeric() || "/._-+@".contains(c));
        if named && plain && !out.iter().any(|o| o == word) {
            out.push(word.to_owned());
        }
    }
    out
}

/// What one client tool call is about, when it is one of the tools that edit files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The tool as the client names it.
    pub tool: String,
    /// The files, as the payload names them (absolute, or relative to its `cwd`).
    pub paths: Vec<String>,
}

/// The editing tools of the clients majordomus wires (docs/HOOKS.md): Claude Code's
/// `Edit`, `Write`, `MultiEdit`, `NotebookEdit`; Codex's `apply_patch`; Gemini CLI's
/// `write_file` and `replace`. Any other tool (a read, a search, a shell) is not an edit.
pub const EDIT_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "write_file",
    "replace",
];

/// The keys an editing tool's input names its file under.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "notebook_path",
    "absolute_path",
    "filePath",
    "path",
];

/// The lines of a Codex patch that name a file.
const PATCH_HEADERS: &[&str] = &[
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// The files a client's tool call edits, from its hook payload: `tool_name` and
/// `tool_input` (Claude Code, Codex, Gemini CLI), or Cursor's `afterFileEdit` (its
/// `file_path`). `None` when the call edits nothing majordomus knows of.
pub fn edit_of(payload: &Value) -> Option<Edit> {
    let event = payload
        .get("hook_event_name")
        .or_else(|| payload.get("hookEventName"))
        .and_then(Value::as_str);
    if event == Some("afterFileEdit") {
        let path = payload.get("file_path").and_then(Value::as_str)?;
        return Some(Edit {
            tool: "afterFileEdit".into(),
            paths: vec![path.to_owned()],
        });
    }
    let mut tool = payload.get("tool_name").and_then(Value::as_str)?;
    let input = payload.get("tool_input").unwrap_or(&Value::Null);
    if tool == "Bash" && shell_patch(input) {
        // Codex (0.171) runs `apply_patch` the model asks its shell for as a patch, and
        // names the call `Bash` in its hooks.
        tool = "apply_patch";
    }
    if !EDIT_TOOLS.contains(&tool) {
        return None;
    }
    let mut paths: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        let p = p.trim();
        if !p.is_empty() && !paths.iter().any(|q| q == p) {
            paths.push(p.to_owned());
        }
    };
    for key in PATH_KEYS {
        if let Some(p) = input.get(key).and_then(Value::as_str) {
            add(p);
        }
    }
    // A patch (Codex's `apply_patch`, its input a string or a command's arguments).
    let mut texts = Vec::new();
    strings(input, &mut texts);
    for text in texts {
        for line in text.lines() {
            if let Some(p) = PATCH_HEADERS.iter().find_map(|h| line.strip_prefix(h)) {
                add(p);
            }
        }
    }
    (!paths.is_empty()).then(|| Edit {
        tool: tool.to_owned(),
        paths,
    })
}

/// Whether a shell call's command is `apply_patch` with a patch (Codex's shell form).
fn shell_patch(input: &Value) -> bool {
    input
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.trim_start().starts_with("apply_patch") && c.contains("*** Begin Patch"))
}

fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// A moment of work a hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    Prompt,
    Edit,
}

/// The hook event a client names each moment by, when its payload does not say.
fn default_event(provider: &str, moment: Moment) -> &'static str {
    match (provider, moment) {
        ("gemini-cli", Moment::Prompt) => "BeforeAgent",
        ("gemini-cli", Moment::Edit) => "AfterTool",
        (_, Moment::Prompt) => "UserPromptSubmit",
        (_, Moment::Edit) => "PreToolUse",
    }
}

/// Whether `provider`'s resumed conversation holds its earlier turns, and so what it was
/// shown then (SPEC §8): Claude Code's `--continue`/`--resume` and Codex's `resume` restore
/// the transcript under the same session id (the real-client tests read it in the resumed
/// request). Gemini CLI 0.61's `--resume latest -p` keeps the session id but sends the model
/// none of the earlier turns, so its resumed session is briefed again in full; so is any
/// client not known to restore them.
pub fn resume_keeps_turns(provider: &str) -> bool {
    matches!(provider, "claude-code" | "codex")
}

/// What the hook prints for `provider` to add `context` to the model's context: the
/// `hookSpecificOutput.additionalContext` Claude Code, Codex and Gemini CLI read (under
/// the event the payload named); nothing for Cursor, whose prompt and edit hooks cannot
/// add context; the text itself for any other client. Nothing when there is no context.
pub fn client_output(provider: &str, event: Option<&str>, moment: Moment, context: &str) -> String {
    if context.is_empty() {
        return String::new();
    }
    match provider {
        "claude-code" | "codex" | "gemini-cli" => {
            let event = event.unwrap_or_else(|| default_event(provider, moment));
            let mut out = json!({
                "hookSpecificOutput": {"hookEventName": event, "additionalContext": context}
            })
            .to_string();
            out.push('\n');
            out
        }
        "cursor" => String::new(),
        _ => context.to_owned(),
    }
}

/// How many records reached the model in an episode, each counted once (by its status
/// when first shown), and how many times each place put records before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ShownSummary {
    pub records: usize,
    pub verified: usize,
    pub candidate: usize,
    pub stale: usize,
    pub superseded: usize,
    /// Showings by where: `briefing`, `prompt`, `edit`, `tool`.
    pub by_where: BTreeMap<String, usize>,
}

impl ShownSummary {
    pub fn of(entries: &[Shown]) -> ShownSummary {
        let mut out = ShownSummary::default();
        let mut seen = std::collections::BTreeSet::new();
        for entry in entries {
            *out.by_where
                .entry(entry.place.name().to_owned())
                .or_default() += 1;
            for record in &entry.records {
                if !seen.insert(record.id.as_str()) {
                    continue;
                }
                out.records += 1;
                match record.status {
                    HitStatus::Verified => out.verified += 1,
                    HitStatus::Candidate => out.candidate += 1,
                    HitStatus::Stale => out.stale += 1,
                    HitStatus::Superseded => out.superseded += 1,
                }
            }
        }
        out
    }

    /// One line: `3 record(s) (2 verified, 1 candidate) in 3 showing(s): briefing 1, prompt 1, edit 1`.
    pub fn line(&self) -> String {
        if self.records == 0 {
            return "nothing from the memory reached the agent through a hook or a tool".into();
        }
        let statuses: Vec<String> = [
            (self.verified, "verified"),
            (self.candidate, "candidate"),
            (self.stale, "stale"),
            (self.superseded, "superseded"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{n} {name}"))
        .collect();
        let places: Vec<String> = ShownWhere::ALL
            .iter()
            .filter_map(|w| {
                self.by_where
                    .get(w.name())
                    .map(|n| format!("{} {n}", w.name()))
            })
            .collect();
        let showings: usize = self.by_where.values().sum();
        format!(
            "{} record(s) ({}) in {showings} showing(s): {}",
            self.records,
            statuses.join(", "),
            places.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(prompt: &str) -> Vec<Vec<String>> {
        PromptWords::of(prompt)
            .words
            .into_iter()
            .map(|w| w.terms)
            .collect()
    }

    fn t(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_prompt_ranks_by_its_content_words_not_its_filler() {
        assert_eq!(
            words("Please fix the retry logic in the HttpClient, thanks!"),
            [
                vec!["retry"],
                vec!["logic"],
                vec!["httpclient", "http", "client"]
            ]
        );
        // A path is one word, its file's name: not its directories and extension.
        let said = |p: &str| -> Vec<String> {
            PromptWords::of(p)
                .words
                .iter()
                .map(|w| w.said().to_owned())
                .collect()
        };
        assert_eq!(
            said("Raise the timeout in src/werkzeug/serving.py, please."),
            ["raise", "timeout", "serving"]
        );
        assert_eq!(said("Fix returns in `strings.py`"), ["returns", "strings"]);
        assert_eq!(said("Rewrite docs/guide/ for 1.2.0"), ["rewrite", "guide"]);
        assert_eq!(
            said("bump actions/checkout from 4 to 5"),
            ["bump", "actions", "checkout"]
        );
        assert!(PromptWords::of("Can you please do it now?").is_empty());
        assert!(PromptWords::of("").is_empty());
        assert!(PromptWords::of("42 1999").is_empty());
        // Each word once.
        assert_eq!(words("parser Parser PARSER"), [vec!["parser"]]);
        let long: String = (0..100).map(|i| format!("word{i} ")).collect();
        assert_eq!(PromptWords::of(&long).words.len(), MAX_PROMPT_WORDS);
    }

    #[test]
    fn generic_words_weigh_half_and_the_list_matches_plurals() {
        assert!(is_generic("error") && is_generic("errors") && is_generic("dependencies"));
        assert!(!is_generic("parser") && !is_generic("lexer"));
        let p = PromptWords::of("Improve error messages in the lexer");
        let generic: Vec<bool> = p.words.iter().map(|w| w.generic).collect();
        assert_eq!(generic, [true, true, true, false], "{p:?}");
        assert_eq!(p.weight(), 2.5);
        assert_eq!(p.needed(), 2.0);
        // A prompt of one word needs that word; of two generic ones, both.
        assert_eq!(PromptWords::of("parser").needed(), 1.0);
        assert_eq!(PromptWords::of("docs and readme").needed(), 0.5 + 0.5);
    }

    #[test]
    fn a_hit_clears_the_floor_with_words_enough_or_a_word_naming_its_file() {
        let p = PromptWords::of("Why does the parser reject a trailing comma in arrays?");
        // parser, reject, trailing, comma, arrays: two words are enough.
        assert!(p.clears(&t(&["parser", "comma"]), &[], None).is_some());
        // One word is not enough ...
        assert!(p.clears(&t(&["parser"]), &[], None).is_none());
        // ... unless it names a file the record reaches: two signs of one subject.
        let cleared = p
            .clears(&t(&["parser"]), &t(&["src/parser/mod.rs"]), None)
            .expect("parser names src/parser/mod.rs");
        assert_eq!(
            cleared.why(),
            "words parser; parser names src/parser/mod.rs"
        );
        assert!(
            p.clears(&t(&["parser"]), &t(&["src/lexer.rs"]), None)
                .is_none()
        );
        // Filler never counts: "the" is not one of the prompt's words.
        assert!(p.clears(&t(&["the", "parser"]), &[], None).is_none());
        // Citing a file the prompt names clears it by itself.
        assert!(p.clears(&[], &[], Some("src/parser.rs")).is_some());
        // Generic words weigh half: "error message" is one word's worth.
        let q = PromptWords::of("Improve error messages in the lexer");
        assert!(q.clears(&t(&["error", "messages"]), &[], None).is_none());
        assert!(
            q.clears(&t(&["error", "lexer", "improve"]), &[], None)
                .is_some()
        );
        // A generic word never names a file: "error" and src/error.rs are not a subject.
        assert!(
            q.clears(&t(&["error"]), &t(&["src/error.rs"]), None)
                .is_none()
        );
        // A compound's parts are one word: `httpclient` and `http` count once.
        let r = PromptWords::of("HttpClient timeout");
        assert_eq!(r.held(&t(&["httpclient", "http", "client"])).len(), 1);
        assert!(r.clears(&t(&["httpclient", "http"]), &[], None).is_none());
        assert!(r.clears(&t(&["http", "timeout"]), &[], None).is_some());
        assert!(
            r.clears(&t(&["http"]), &t(&["lib/http_client.js"]), None)
                .is_some()
        );
    }

    #[test]
    fn code_words_are_found_and_an_unknown_one_is_told() {
        assert_eq!(
            code_words(
                "fix(v4): toJSONSchema - add missing oneOf; don't unescape FZF_DEFAULT_OPTS in `--evaluate` and regexes.ts, map append() over lists (#3375)"
            ),
            [
                "toJSONSchema",
                "oneOf",
                "FZF_DEFAULT_OPTS",
                "--evaluate",
                "regexes.ts",
                "append"
            ]
        );
        assert!(code_words("Update the installation instructions").is_empty());
        let known = |t: &str| ["json", "schema", "evaluate"].contains(&t);
        // Known when its compound is, or all of its parts are.
        assert!(!unknown_code("toJSONSchema", |t| known(t) || t == "to"));
        assert!(unknown_code("FZF_DEFAULT_OPTS", known));
        assert!(!unknown_code("--evaluate", known));
    }

    #[test]
    fn paths_named_in_a_prompt_are_found() {
        assert_eq!(
            path_words(
                "Look at `src/parser/mod.rs` and ./docs/RECALL.md, then Cargo.toml: line 3. See https://x.y/z, e.g. v1.2 or README.md#usage or src/lib.rs:40."
            ),
            [
                "src/parser/mod.rs",
                "docs/RECALL.md",
                "Cargo.toml",
                "README.md",
                "src/lib.rs"
            ]
        );
        assert!(path_words("no paths here, just words. And 3.14").is_empty());
    }

    #[test]
    fn the_edit_tools_of_each_client_name_their_files() {
        let claude = json!({"hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": "/r/src/a.rs", "old_string": "x", "new_string": "y"}});
        assert_eq!(
            edit_of(&claude),
            Some(Edit {
                tool: "Edit".into(),
                paths: vec!["/r/src/a.rs".into()]
            })
        );
        let notebook =
            json!({"tool_name": "NotebookEdit", "tool_input": {"notebook_path": "n.ipynb"}});
        assert_eq!(edit_of(&notebook).unwrap().paths, ["n.ipynb"]);
        let gemini = json!({"hook_event_name": "AfterTool", "tool_name": "replace",
            "tool_input": {"file_path": "src/b.rs"}});
        assert_eq!(edit_of(&gemini).unwrap().paths, ["src/b.rs"]);
        let codex = json!({"tool_name": "apply_patch", "tool_input": {"command":
            "*** Begin Patch\n*** Update File: src/c.rs\n@@\n-a\n+b\n*** Add File: src/d.rs\n+x\n*** Update File: src/e.rs\n*** Move to: src/f.rs\n*** End Patch\n"}});
        assert_eq!(
            edit_of(&codex).unwrap().paths,
            ["src/c.rs", "src/d.rs", "src/e.rs", "src/f.rs"]
        );
        // Codex 0.171 names the `apply_patch` its shell runs `Bash`; any other shell call
        // is not an edit.
        let shell = json!({"tool_name": "Bash", "tool_input": {"command":
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/c.rs\n@@\n-a\n+b\n*** End Patch\nEOF\n"}});
        assert_eq!(
            edit_of(&shell),
            Some(Edit {
                tool: "apply_patch".into(),
                paths: vec!["src/c.rs".into()]
            })
        );
        let build = json!({"tool_name": "Bash", "tool_input": {"command": "cargo build"}});
        assert_eq!(edit_of(&build), None);
        let cursor =
            json!({"hook_event_name": "afterFileEdit", "file_path": "/r/g.rs", "edits": []});
        assert_eq!(edit_of(&cursor).unwrap().paths, ["/r/g.rs"]);
        // A read names a file, and is not an edit.
        let read = json!({"tool_name": "Read", "tool_input": {"file_path": "/r/src/a.rs"}});
        assert_eq!(edit_of(&read), None);
        assert_eq!(
            edit_of(&json!({"tool_name": "Edit", "tool_input": {}})),
            None
        );
        assert_eq!(edit_of(&json!({})), None);
    }

    #[test]
    fn what_reached_the_model_is_counted_once_a_record() {
        use crate::model::event::ShownItem;
        let shown = |seq: u64, place: ShownWhere, ids: &[(&str, HitStatus)]| Shown {
            seq,
            ts: "2026-12-06T10:00:00Z".into(),
            place,
            records: ids
                .iter()
                .map(|(id, status)| ShownItem {
                    id: (*id).into(),
                    status: *status,
                })
                .collect(),
            files: Vec::new(),
            tool: None,
        };
        let entries = [
            shown(
                1,
                ShownWhere::Briefing,
                &[
                    ("knowledge:a", HitStatus::Verified),
                    ("decision:b", HitStatus::Candidate),
                ],
            ),
            shown(2, ShownWhere::Prompt, &[("knowledge:c", HitStatus::Stale)]),
            // A tool answer repeats the briefing's record: counted once.
            shown(3, ShownWhere::Tool, &[("knowledge:a", HitStatus::Verified)]),
        ];
        let s = ShownSummary::of(&entries);
        assert_eq!((s.records, s.verified, s.candidate, s.stale), (3, 1, 1, 1));
        assert_eq!(
            s.line(),
            "3 record(s) (1 verified, 1 candidate, 1 stale) in 3 showing(s): briefing 1, prompt 1, tool 1"
        );
        assert_eq!(
            ShownSummary::of(&[]).line(),
            "nothing from the memory reached the agent through a hook or a tool"
        );
    }

    #[test]
    fn each_client_reads_the_context_where_it_looks() {
        let out = client_output("claude-code", None, Moment::Prompt, "ctx");
        assert_eq!(
            out,
            "{\"hookSpecificOutput\":{\"additionalContext\":\"ctx\",\"hookEventName\":\"UserPromptSubmit\"}}\n"
        );
        let out = client_output("gemini-cli", None, Moment::Edit, "ctx");
        assert!(out.contains("\"AfterTool\""), "{out}");
        let out = client_output("codex", Some("PreToolUse"), Moment::Edit, "ctx");
        assert!(out.contains("\"PreToolUse\""), "{out}");
        assert_eq!(client_output("cursor", None, Moment::Edit, "ctx"), "");
        assert_eq!(client_output("agent", None, Moment::Prompt, "ctx"), "ctx");
        assert_eq!(client_output("claude-code", None, Moment::Prompt, ""), "");
    }
}
