//! Keeping the recall index current: which sources feed it (knowledge records, session
//! records, handovers, reasoning conclusions, the ledger's decisions, answers and
//! checkpoints), how each becomes a document, and how a read brings the index up to date
//! at the cost of what changed: the ledger's new lines, the files of a folder whose
//! entries changed (told by the folder's and each file's stamp: modification time, size,
//! inode). A stamp younger than [`RACY`] is kept as racy, so a change within the file
//! system's clock tick is still seen by the next read.
//!
//! One file a source: the record files of a folder (`folder`, each file made a document
//! by `document`), the ledger and the journals (`lines`), the reasoning records
//! (`reasoning`); the stamps that tell what changed (`stamp`). Here: opening the index,
//! what a read finds out of date, and bringing it up to date in one transaction.

pub mod code;
mod document;
mod folder;
mod lines;
mod reasoning;
mod stamp;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::Ctx;
use crate::error::Error;
use crate::store::StoreError;
use crate::store::recall::{Fresh, IndexError, RecallDb, Writer};

pub use document::{one_line, ref_path};
pub use folder::refresh_files;
use folder::{Folder, folders, sync_folder};
use lines::{Lines, sync_lines};
use reasoning::sync_reasoning;
use stamp::{reasoning_stamp, stamp, stat};

/// A stamp this close to now may be followed by a change that leaves it equal.
pub const RACY: Duration = Duration::from_secs(2);

/// The index opened and brought up to date, and what a reader should be told about it.
#[derive(Debug)]
pub struct Opened {
    pub db: RecallDb,
    /// Set when this read built the index anew (and why), or fell back to memory.
    pub rebuilt: Option<String>,
}

/// Opens the index and brings it up to date. The index never fails a read: a file that
/// cannot be read is rebuilt, and one that cannot be written is replaced by an index in
/// memory for this read. Only the sources themselves failing to read is an error.
pub fn open(ctx: &Ctx) -> Result<Opened, Error> {
    let path = ctx.layout.recall_index();
    match open_on_disk(ctx, &path) {
        Ok(Ok(opened)) => Ok(opened),
        Ok(Err(first)) => {
            // Corrupt in a way opening did not show: rebuild from nothing, once.
            let _ = std::fs::remove_file(&path);
            match open_on_disk(ctx, &path) {
                Ok(Ok(mut opened)) => {
                    opened.rebuilt = Some(format!(
                        "the recall index could not be read ({}): rebuilt",
                        first.message
                    ));
                    Ok(opened)
                }
                Ok(Err(second)) => in_memory(ctx, &second),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Runs `read` over the index opened by [`open`]. The index never fails a read: when it
/// fails during `read` (corrupt in a way opening did not show, such as a damaged
/// full-text segment only a search reads), the file is replaced by one rebuilt from the
/// memory and `read` runs once more. Returns what `read` gave and what the reader should
/// be told about the index.
pub fn with_index<T>(
    ctx: &Ctx,
    mut read: impl FnMut(&mut Opened) -> Result<T, Error>,
) -> Result<(T, Option<String>), Error> {
    let mut opened = open(ctx)?;
    let path = ctx.layout.recall_index();
    match read(&mut opened) {
        Ok(value) => Ok((value, opened.rebuilt)),
        Err(Error::Store(StoreError::Malformed {
            path: failed,
            message,
        })) if opened.db.path().is_some() && failed == path => {
            drop(opened);
            let _ = std::fs::remove_file(&path);
            let mut again = open(ctx)?;
            let value = read(&mut again)?;
            let said = format!("the recall index could not be read ({message}): rebuilt");
            Ok((
                value,
                Some(match again.rebuilt {
                    // Built in memory: that is what the reader must know.
                    Some(memory) if again.db.path().is_none() => format!("{said}; {memory}"),
                    _ => said,
                }),
            ))
        }
        Err(e) => Err(e),
    }
}

/// `Ok(Err)`: the index failed; `Err`: a source failed.
fn open_on_disk(ctx: &Ctx, path: &Path) -> Result<Result<Opened, IndexError>, Error> {
    let (mut db, fresh) = match RecallDb::open(path) {
        Ok(x) => x,
        Err(e) => return Ok(Err(e)),
    };
    let _phase = crate::timing::Phase::start("recall.update");
    if let Err(e) = update(ctx, &mut db)? {
        return Ok(Err(e));
    }
    // Counted only for the message of a build (a count reads the whole table).
    let counted = match fresh.is_some().then(|| db.reader().count_all()) {
        Some(Ok(n)) => n,
        Some(Err(e)) => return Ok(Err(e)),
        None => 0,
    };
    let rebuilt = fresh.map(|(why, detail)| {
        let what = match why {
            Fresh::Missing => "built the recall index".to_owned(),
            Fresh::Format => format!("the recall index was {detail}: rebuilt"),
            Fresh::Unreadable => format!("the recall index could not be read ({detail}): rebuilt"),
        };
        format!("{what} ({counted} records)")
    });
    Ok(Ok(Opened { db, rebuilt }))
}

fn in_memory(ctx: &Ctx, why: &IndexError) -> Result<Opened, Error> {
    let fail = |e: IndexError| -> Error {
        StoreError::Malformed {
            path: PathBuf::from(e.path),
            message: e.message,
        }
        .into()
    };
    let mut db = RecallDb::in_memory().map_err(fail)?;
    update(ctx, &mut db)?.map_err(fail)?;
    let counted = db.reader().count_all().map_err(fail)?;
    Ok(Opened {
        db,
        rebuilt: Some(format!(
            "the recall index {} could not be written ({}): this read built one in memory ({counted} records)",
            why.path, why.message
        )),
    })
}

/// Meta keys.
const REASONING: &str = "reasoning.stamp";
/// The writers whose journals the index holds (space-separated).
const JOURNALS: &str = "journals";

/// What a read found out of date.
#[derive(Debug, Default)]
struct Work {
    /// Line files with lines the index has not read.
    lines: Vec<Lines>,
    /// Writers whose journals the index holds and this clone no longer has.
    gone: Vec<String>,
    /// The writers whose journals the index holds once this work is done.
    journals: Option<String>,
    folders: Vec<(Folder, String)>,
    reasoning: Option<String>,
}

impl Work {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
            && self.gone.is_empty()
            && self.folders.is_empty()
            && self.reasoning.is_none()
    }
}

fn out_of_date(
    ctx: &Ctx,
    r: crate::store::recall::Reader<'_>,
    now: SystemTime,
) -> Result<Result<Work, IndexError>, Error> {
    let mut work = Work::default();
    let ledger = Lines::ledger(ctx);
    match ledger.changed(r)? {
        Ok(true) => work.lines.push(ledger),
        Ok(false) => {}
        Err(e) => return Ok(Err(e)),
    }
    // The other writers' journals this clone has fetched (or its sibling worktrees
    // publish), each brought up to its ref first. A journal that cannot be read this time
    // keeps what the index holds of it (its findings are `journal status`'s to tell).
    if let Ok(journals) = crate::journal::journals(ctx) {
        let known = match r.meta(JOURNALS) {
            Ok(v) => v.unwrap_or_default(),
            Err(e) => return Ok(Err(e)),
        };
        let writers: BTreeSet<&str> = journals
            .journals
            .iter()
            .map(|j| j.writer.as_str())
            .collect();
        work.gone = known
            .split(' ')
            .filter(|w| !w.is_empty() && !writers.contains(w))
            .map(str::to_owned)
            .collect();
        let now_known = writers.iter().copied().collect::<Vec<_>>().join(" ");
        if now_known != known {
            work.journals = Some(now_known);
        }
        for writer in writers {
            let lines = Lines::journal(ctx, writer);
            match lines.changed(r)? {
                Ok(true) => work.lines.push(lines),
                Ok(false) => {}
                Err(e) => return Ok(Err(e)),
            }
        }
    }
    for folder in folders(ctx) {
        let now_stamp = stamp(stat(&folder.abs)?.as_ref(), now);
        let known = match r.stamp(&format!("dir:{}", folder.rel)) {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        if known.as_deref() != Some(now_stamp.as_str()) || now_stamp.starts_with("racy:") {
            work.folders.push((folder, now_stamp));
        }
    }
    let reasoning = reasoning_stamp(ctx, now)?;
    let known = match r.meta(REASONING) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    if known.as_deref() != Some(reasoning.as_str()) || reasoning.contains("racy:") {
        work.reasoning = Some(reasoning);
    }
    Ok(Ok(work))
}

/// Brings the index up to date.
fn update(ctx: &Ctx, db: &mut RecallDb) -> Result<Result<(), IndexError>, Error> {
    let now = SystemTime::now();
    let work = match out_of_date(ctx, db.reader(), now)? {
        Ok(w) => w,
        Err(e) => return Ok(Err(e)),
    };
    if !work.is_empty() {
        // Source errors are carried out of the transaction (which then rolls back).
        let mut source_error: Option<Error> = None;
        let outcome = db.write(|w| {
            // Another reader may have done this while this one waited for the lock.
            let work = match out_of_date(ctx, w.reader(), now) {
                Ok(Ok(work)) => work,
                Ok(Err(e)) => return Err(e),
                Err(e) => {
                    source_error = Some(e);
                    return Err(IndexError {
                        path: String::new(),
                        message: String::new(),
                    });
                }
            };
            match apply(ctx, w, &work) {
                Ok(result) => result,
                Err(e) => {
                    source_error = Some(e);
                    Err(IndexError {
                        path: String::new(),
                        message: String::new(),
                    })
                }
            }
        });
        if let Some(e) = source_error {
            return Err(e);
        }
        if let Err(e) = outcome {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

fn apply(ctx: &Ctx, w: &Writer<'_>, work: &Work) -> Result<Result<(), IndexError>, Error> {
    macro_rules! index {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(e) => return Ok(Err(e)),
            }
        };
    }
    for writer in &work.gone {
        let lines = Lines::journal(ctx, writer);
        index!(w.delete_source(&lines.source));
        for what in ["covered", "tail", "ino"] {
            index!(w.delete_meta(&lines.key(what)));
        }
    }
    for lines in &work.lines {
        index!(sync_lines(w, lines)?);
    }
    if let Some(journals) = &work.journals {
        index!(w.set_meta(JOURNALS, journals));
    }
    for (folder, now_stamp) in &work.folders {
        index!(sync_folder(ctx, w, folder)?);
        index!(w.set_stamp(&format!("dir:{}", folder.rel), now_stamp));
    }
    if let Some(stamp) = &work.reasoning {
        index!(sync_reasoning(ctx, w)?);
        index!(w.set_meta(REASONING, stamp));
    }
    Ok(Ok(()))
}
