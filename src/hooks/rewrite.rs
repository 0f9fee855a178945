//! `hook post-rewrite` (SPEC §8): the `<old> <new>` pairs git writes after `commit --amend`
//! and `rebase`, recorded as one `commit.rewritten` line, so that a reference to a
//! rewritten commit can resolve to its successor.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SteppedAside;
use crate::Ctx;
use crate::error::Error;
use crate::model::event::{CommitRewritten, Rewrite};

/// `hook.post-rewrite`: what git passed to the hook.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostRewriteRequest {
    /// What rewrote the commits, as git names it in the hook's first argument: `amend` or
    /// `rebase`.
    #[serde(default)]
    pub by: String,
    /// What git wrote on the hook's stdin: one `<old> <new> [<extra>]` line per rewritten
    /// commit.
    #[serde(default)]
    pub stdin: String,
}

/// What the post-rewrite hook did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "did", rename_all = "kebab-case")]
pub enum RewriteOutcome {
    SteppedAside(SteppedAside),
    /// One `commit.rewritten` line, stamped with the open episode when one is open.
    Recorded {
        by: String,
        pairs: Vec<Rewrite>,
        session: Option<String>,
    },
    /// git named no pair (or none that is a pair of commit ids).
    NothingRewritten,
}

/// `hook post-rewrite`: records git's pairs as one `commit.rewritten` line. Recorded with
/// no episode open too: a record can name a commit whatever episode amended it.
pub fn post_rewrite(ctx: &Ctx, request: PostRewriteRequest) -> Result<RewriteOutcome, Error> {
    // Only an uninitialised repository steps aside: git runs post-rewrite at the end of a
    // rebase, while the rebase's state is still on disk, and those pairs are the point.
    if !ctx.layout.is_initialised() {
        return Ok(RewriteOutcome::SteppedAside(SteppedAside {
            reason: "repository not initialised".into(),
        }));
    }
    let pairs = pairs_of(&request.stdin);
    if pairs.is_empty() {
        return Ok(RewriteOutcome::NothingRewritten);
    }
    let session = ctx.episode()?.map(|e| e.id);
    let by = request.by.trim().to_owned();
    ctx.append(
        session.as_deref(),
        None,
        &CommitRewritten {
            by: by.clone(),
            pairs: pairs.clone(),
        },
    )?;
    Ok(RewriteOutcome::Recorded { by, pairs, session })
}

/// The `<old> <new>` pairs of git's lines; a line whose first two words are not commit
/// ids is skipped (git may add a third word, which is ignored).
fn pairs_of(stdin: &str) -> Vec<Rewrite> {
    stdin
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let (old, new) = (words.next()?, words.next()?);
            (is_object_id(old) && is_object_id(new)).then(|| Rewrite {
                old: old.to_ascii_lowercase(),
                new: new.to_ascii_lowercase(),
            })
        })
        .collect()
}

/// A full SHA-1 or SHA-256 object id.
fn is_object_id(word: &str) -> bool {
    matches!(word.len(), 40 | 64) && word.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_read_from_gits_lines_and_anything_else_is_skipped() {
        let a = "a".repeat(40);
        let b = "B".repeat(40);
        let c = "c".repeat(64);
        let stdin = format!("{a} {b}\n{b} {c} extra\nnot a pair\n{a}\n\n{a} 1234\n");
        assert_eq!(
            pairs_of(&stdin),
            vec![
                Rewrite {
                    old: a.clone(),
                    new: "b".repeat(40)
                },
                Rewrite {
                    old: "b".repeat(40),
                    new: c
                },
            ]
        );
        assert!(pairs_of("").is_empty());
    }
}
