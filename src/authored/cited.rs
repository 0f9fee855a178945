//! The files a record cites (SPEC §5.1): paths given with `--file`, checked inside the
//! repository and existing, and the path-shaped tokens of its text that name a file in
//! HEAD's tree, found in one lookup.

use std::path::Path;

use crate::Ctx;
use crate::error::{Error, Refusal};
use crate::model::cited::{CitedFile, Outside, Via, merged, normalised, path_tokens};
use crate::model::input::{TEXT_LIMIT, check_size};
use crate::model::shell::quote;

/// The longest one given path may be.
const PATH_LIMIT: usize = 4096;

/// What a writer cites: the paths given and the texts to read paths from.
pub(crate) struct Citing<'a> {
    /// As given: from the repository root, or from `base` when the CLI typed them there.
    pub given: &'a [String],
    /// The directory the CLI ran in (`None` over MCP and HTTP: paths are from the root).
    pub base: Option<&'a Path>,
    /// The texts whose path-shaped tokens are cited when they name a file at HEAD.
    pub texts: &'a [&'a str],
}

/// The files `citing` cites, sorted by path: each given path normalised and refused
/// outside the repository (`record.file-inside`) or naming no file of the work tree or of
/// HEAD's tree (`record.file-exists`), each refusal's fix the same command without that
/// path. Given paths and text tokens are looked up in HEAD's tree at once.
pub(crate) fn cited_files(
    ctx: &Ctx,
    citing: &Citing<'_>,
    fix: Fix<'_>,
) -> Result<Vec<CitedFile>, Error> {
    let without = |raw: &str| fix.without(raw);
    check_size("files", &citing.given.join("\n"), TEXT_LIMIT)?;
    let mut given: Vec<(&str, String)> = Vec::with_capacity(citing.given.len());
    for raw in citing.given {
        check_size("--file", raw, PATH_LIMIT)?;
        match repository_path(ctx, citing.base, raw) {
            Ok(Some(path)) => given.push((raw, path)),
            Ok(None) => {
                return Err(Refusal::CitedFileMissing {
                    path: raw.clone(),
                    why: DIRECTORY,
                    fix: without(raw),
                }
                .into());
            }
            Err(Outside) => {
                return Err(Refusal::CitedFileOutside {
                    path: raw.clone(),
                    fix: without(raw),
                }
                .into());
            }
        }
    }
    let tokens: Vec<String> = citing.texts.iter().flat_map(|t| path_tokens(t)).collect();
    let at_head = ctx.repo.blob_ids_looked_up(
        None,
        given
            .iter()
            .map(|(_, p)| p.as_str())
            .chain(tokens.iter().map(String::as_str)),
    )?;
    let root = ctx.layout.root();
    for (raw, path) in &given {
        let why = match std::fs::symlink_metadata(root.join(path)) {
            Ok(meta) if meta.is_dir() => Some(DIRECTORY),
            Ok(_) => None,
            Err(_) if at_head.contains_key(path) => None,
            Err(_) => Some("no such file in the work tree or in HEAD's tree"),
        };
        if let Some(why) = why {
            return Err(Refusal::CitedFileMissing {
                path: (*raw).to_owned(),
                why,
                fix: without(raw),
            }
            .into());
        }
    }
    Ok(merged(
        given.into_iter().map(|(_, p)| (p, Via::Given)).chain(
            tokens
                .into_iter()
                .filter(|t| at_head.contains_key(t))
                .map(|t| (t, Via::Text)),
        ),
    ))
}

const DIRECTORY: &str =
    "a directory; a record cites files (a `file:` reference names one), so name them";

/// `raw` as a path from the repository root: typed in `base` when relative and given
/// one (like git), taken apart when absolute; `Ok(None)` for the root itself, `Err` for
/// a path outside the work tree's content.
fn repository_path(ctx: &Ctx, base: Option<&Path>, raw: &str) -> Result<Option<String>, Outside> {
    let root = ctx.layout.root();
    let path = Path::new(raw);
    let relative = if path.is_absolute() {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        match canonical
            .strip_prefix(root)
            .or_else(|_| path.strip_prefix(root))
        {
            Ok(rest) => rest.to_string_lossy().into_owned(),
            Err(_) => return Err(Outside),
        }
    } else {
        match base {
            Some(dir) => crate::recall::from_directory(ctx, dir, raw),
            None => raw.to_owned(),
        }
    };
    normalised(&relative)
}

/// The command line of a write citing files, for the fix of a refused path.
pub(crate) struct Fix<'a> {
    /// `majordomus decision`, ...
    pub command: &'a [&'a str],
    /// The positional arguments (the text; a question's id and the answer).
    pub arguments: &'a [&'a str],
    /// Options other than `--file`, each with its value.
    pub options: &'a [(&'a str, &'a str)],
    /// The paths as given.
    pub files: &'a [String],
    /// What the command read on stdin (a promotion's evidence), given again by `printf`.
    pub stdin: Option<&'a str>,
}

impl Fix<'_> {
    /// The same command without the given path `raw`, run from where it was typed. An
    /// argument starting with `-` follows the options after `--`, so it stays an argument.
    pub(crate) fn without(&self, raw: &str) -> String {
        let mut options: Vec<&str> = Vec::new();
        for (name, value) in self.options {
            options.extend([*name, *value]);
        }
        for file in self.files.iter().filter(|f| *f != raw) {
            options.extend(["--file", file.as_str()]);
        }
        let mut words: Vec<&str> = self.command.to_vec();
        if self.arguments.iter().any(|a| a.starts_with('-')) {
            words.extend(options);
            words.push("--");
            words.extend(self.arguments);
        } else {
            words.extend(self.arguments);
            words.extend(options);
        }
        let command = words
            .iter()
            .map(|w| quote(w).into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        match self.stdin {
            // One argument a line: printf repeats its format for each.
            Some(input) => format!(
                "printf '%s\\n' {} | {command}",
                input
                    .lines()
                    .map(|l| quote(l).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => command,
        }
    }
}

/// The cited paths as a ledger line keeps them.
pub(crate) fn paths(cited: &[CitedFile]) -> Vec<String> {
    cited.iter().map(|c| c.path.clone()).collect()
}
