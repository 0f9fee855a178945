//! The folders of record files the index reads (knowledge candidates, curated, the
//! outbox; session records; handovers): a folder whose stamp changed has each file whose
//! own stamp changed read again, and a hit's file edited in place is read again on its own.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::document::{handover_doc, knowledge_doc, session_doc};
use super::stamp::{kept_stamp, stamp, stat, unchanged};
use crate::Ctx;
use crate::error::Error;
use crate::store::StoreError;
use crate::store::outbox::{Outbox, Shelf};
use crate::store::recall::{IndexError, RecallDb, Writer};

/// What a folder of record files holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileKind {
    Knowledge(&'static str),
    Session,
    Handover,
}

#[derive(Debug, Clone)]
pub(super) struct Folder {
    pub(super) rel: String,
    pub(super) abs: PathBuf,
    pub(super) kind: FileKind,
}

pub(super) fn folders(ctx: &Ctx) -> Vec<Folder> {
    let outbox = Outbox::new(&ctx.layout);
    [
        (
            ctx.layout.candidates_dir(),
            FileKind::Knowledge("candidates"),
        ),
        (ctx.layout.curated_dir(), FileKind::Knowledge("curated")),
        (
            outbox.shelf(Shelf::Candidates),
            FileKind::Knowledge("outbox"),
        ),
        (ctx.layout.sessions_dir(), FileKind::Session),
        (outbox.shelf(Shelf::Sessions), FileKind::Session),
        (ctx.layout.handovers_dir(), FileKind::Handover),
    ]
    .into_iter()
    .map(|(abs, kind)| Folder {
        rel: ctx.layout.display(&abs),
        abs,
        kind,
    })
    .collect()
}

/// Re-reads the record files of one folder whose stamps changed, and forgets those gone.
pub(super) fn sync_folder(
    ctx: &Ctx,
    w: &Writer<'_>,
    folder: &Folder,
) -> Result<Result<(), IndexError>, Error> {
    let now = SystemTime::now();
    let prefix = format!("{}/", folder.rel);
    let mut known = match w.stamps_under(&prefix) {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    // Only files directly in the folder belong to it (the outbox's shelves are folders
    // of their own).
    known.retain(|path, _| !path[prefix.len()..].contains('/'));
    for name in crate::store::outbox::list_markdown(&folder.abs)? {
        let abs = folder.abs.join(&name);
        let rel = format!("{prefix}{name}");
        let now_stamp = stamp(stat(&abs)?.as_ref(), now);
        let before = known.remove(&rel);
        if unchanged(before.as_deref(), &now_stamp, &abs) {
            continue;
        }
        if let Err(e) = reindex_file(ctx, w, folder.kind, &abs, &rel, &now_stamp)? {
            return Ok(Err(e));
        }
    }
    for gone in known.keys() {
        if let Err(e) = w.delete_source(&format!("file:{gone}")) {
            return Ok(Err(e));
        }
        if let Err(e) = w.delete_stamp(gone) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

fn reindex_file(
    ctx: &Ctx,
    w: &Writer<'_>,
    kind: FileKind,
    abs: &Path,
    rel: &str,
    now_stamp: &str,
) -> Result<Result<(), IndexError>, Error> {
    let source = format!("file:{rel}");
    if let Err(e) = w.delete_source(&source) {
        return Ok(Err(e));
    }
    let bytes = match std::fs::read(abs) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(w.delete_stamp(rel));
        }
        Err(e) => return Err(StoreError::io(abs, e).into()),
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let doc = match kind {
        FileKind::Knowledge(place) => knowledge_doc(&text, &source, place),
        FileKind::Session => match session_doc(&text, &source) {
            Some((doc, episode, branch, files)) => {
                if let Err(e) = w.insert_episode(&episode, &source, branch.as_deref(), &files) {
                    return Ok(Err(e));
                }
                Some(doc)
            }
            None => None,
        },
        FileKind::Handover => handover_doc(&text, &source),
    };
    if let Some(doc) = doc
        && let Err(e) = w.insert_doc(&doc)
    {
        return Ok(Err(e));
    }
    let _ = ctx;
    Ok(w.set_stamp(rel, &kept_stamp(now_stamp, &bytes)))
}

/// Re-reads one file now (a hit whose file changed in place, which leaves its folder's
/// stamp as it was). True when the index changed.
pub fn refresh_files(ctx: &Ctx, db: &mut RecallDb, rels: &[String]) -> Result<bool, Error> {
    let now = SystemTime::now();
    let folders = folders(ctx);
    let mut changed = Vec::new();
    for rel in rels {
        let Some(folder) = folders.iter().find(|f| {
            rel.strip_prefix(&f.rel)
                .is_some_and(|r| r.starts_with('/') && !r[1..].contains('/'))
        }) else {
            continue;
        };
        let abs = ctx.layout.root().join(rel);
        let now_stamp = stamp(stat(&abs)?.as_ref(), now);
        let known = db.reader().stamp(rel).ok().flatten();
        if !unchanged(known.as_deref(), &now_stamp, &abs) {
            changed.push((folder.clone(), abs, rel.clone(), now_stamp));
        }
    }
    if changed.is_empty() {
        return Ok(false);
    }
    let mut source_error = None;
    let outcome = db.write(|w| {
        for (folder, abs, rel, now_stamp) in &changed {
            let result = if now_stamp == "absent" {
                w.delete_source(&format!("file:{rel}"))
                    .and_then(|()| w.delete_stamp(rel))
            } else {
                match reindex_file(ctx, w, folder.kind, abs, rel, now_stamp) {
                    Ok(r) => r,
                    Err(e) => {
                        source_error = Some(e);
                        return Err(IndexError {
                            path: String::new(),
                            message: String::new(),
                        });
                    }
                }
            };
            result?;
        }
        Ok(())
    });
    if let Some(e) = source_error {
        return Err(e);
    }
    Ok(outcome.is_ok())
}
