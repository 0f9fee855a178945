//! The identifiers of the source files committed at HEAD, kept in the index
//! (`model::recall::signal::code`): read when HEAD's tree is not the one they were read
//! at, and then only the files whose blob changed (a commit re-reads what it touched). A
//! briefing and `recall` bring them up to date; a hook at the moment of work reads them as
//! they are (a few commits behind says the same of where a word lives).

use std::collections::HashSet;

use crate::Ctx;
use crate::error::Error;
use crate::model::recall::code::{identifiers, is_source};
use crate::recall::search::index_failed as failed;
use crate::store::recall::{CODE_TREE, RecallDb};

/// Brings the index's identifiers to HEAD's tree. Returns how many files it read.
pub fn refresh(ctx: &Ctx, db: &mut RecallDb) -> Result<usize, Error> {
    // HEAD's tree id first: at the same HEAD, nothing is traversed.
    let Some(head) = ctx.repo.head_tree_hex()? else {
        return Ok(0);
    };
    if db.reader().meta(CODE_TREE).map_err(failed)?.as_deref() == Some(head.as_str()) {
        return Ok(0);
    }
    let mut phase = crate::timing::Phase::start("recall.code");
    let Some((tree, files)) = ctx.repo.head_files()? else {
        return Ok(0);
    };
    let stored = db.reader().code_files().map_err(failed)?;
    let sources: Vec<_> = files.into_iter().filter(|f| is_source(&f.path)).collect();
    let here: HashSet<&str> = sources.iter().map(|f| f.path.as_str()).collect();
    let gone: Vec<&String> = stored
        .keys()
        .filter(|p| !here.contains(p.as_str()))
        .collect();
    let mut read = Vec::new();
    for file in &sources {
        if stored.get(&file.path) == Some(&file.blob) {
            continue;
        }
        let terms = identifiers(&ctx.repo.read_blob(&file.blob)?).unwrap_or_default();
        read.push((file, terms));
    }
    phase.count("files", sources.len());
    phase.count("read", read.len());
    db.write(|w| {
        for path in &gone {
            w.delete_code_file(path)?;
        }
        for (file, terms) in &read {
            w.set_code_file(&file.path, &file.blob, terms)?;
        }
        w.set_meta(CODE_TREE, &tree)
    })
    .map_err(failed)?;
    Ok(read.len())
}
