//! Building the index: one pass over ledger lines, folded into postings and the folds.

use super::*;

/// The fields of a line the index files postings under, read without building its data.
#[derive(Deserialize)]
pub(super) struct Head<'a> {
    #[serde(rename = "seq")]
    pub(super) _seq: u64,
    #[serde(borrow)]
    pub(super) ts: std::borrow::Cow<'a, str>,
    pub(super) event: Event,
    #[serde(borrow)]
    pub(super) session: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) task: Option<std::borrow::Cow<'a, str>>,
    // Present so that a line with two `data` keys is refused here as by `LedgerLine`.
    #[serde(rename = "data", default)]
    pub(super) _data: serde::de::IgnoredAny,
}

/// Events whose data the index reads (for the folds or for postings).
pub(super) fn reads_data(event: Event) -> bool {
    matches!(
        event,
        Event::QuestionAsked
            | Event::QuestionResolved
            | Event::SessionOpened
            | Event::SessionClosed
            | Event::KnowledgeDerived
            | Event::ProviderEventFailed
            | Event::ProviderEventCleared
    )
}

/// Turns ledger bytes into one segment and the folds.
pub(super) struct Builder {
    pub(super) folds: Folds,
    pub(super) lines: u64,
    pub(super) segment: Segment,
    pub(super) tail: Option<(u64, Vec<u8>)>,
}

impl Builder {
    pub(super) fn new(folds: Folds, lines: u64, from: u64) -> Builder {
        Builder {
            folds,
            lines,
            segment: Segment::starting_at(from),
            tail: None,
        }
    }

    /// Reads the complete lines of `from..end` (a final piece with no newline is left for
    /// a later read).
    pub(super) fn read(
        &mut self,
        file: &File,
        path: &Path,
        from: u64,
        end: u64,
    ) -> Result<(), StoreError> {
        let io = |e| StoreError::io(path, e);
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        reader.seek(SeekFrom::Start(from)).map_err(io)?;
        let mut limited = reader.take(end.saturating_sub(from));
        let mut buf = Vec::with_capacity(512);
        let mut pos = from;
        loop {
            buf.clear();
            let n = limited.read_until(b'\n', &mut buf).map_err(io)?;
            if n == 0 || buf.last() != Some(&b'\n') {
                break;
            }
            self.line(pos, &buf[..n - 1], pos + n as u64);
            pos += n as u64;
        }
        self.segment.postings.sort_unstable();
        self.segment.postings.dedup();
        Ok(())
    }

    pub(super) fn line(&mut self, offset: u64, text: &[u8], next: u64) {
        self.lines += 1;
        let mut ts = None;
        if !text.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice::<Head>(text) {
                Ok(head) => {
                    ts = ts_seconds(&head.ts);
                    self.post(offset, &head, text);
                }
                Err(head_error) => {
                    let reason = match serde_json::from_slice::<LedgerLine>(text) {
                        Err(e) => unreadable_reason(&e),
                        Ok(_) => unreadable_reason(&head_error),
                    };
                    self.folds.skip(Skipped {
                        offset,
                        line: Some(self.lines),
                        torn: false,
                        reason,
                    });
                }
            }
        }
        self.segment.push_line(offset, next, ts);
        let tail = self.tail.get_or_insert_with(|| (offset, Vec::new()));
        tail.0 = offset;
        tail.1.clear();
        tail.1.extend_from_slice(text);
    }

    /// The last line read, as the manifest checks it.
    pub(super) fn tail_ref(&self) -> Option<Tail> {
        self.tail.as_ref().map(|(start, bytes)| Tail {
            start: *start,
            sha256: sha256_hex(bytes),
        })
    }

    pub(super) fn post(&mut self, offset: u64, head: &Head<'_>, text: &[u8]) {
        let value = posting(offset, head.event);
        let postings = &mut self.segment.postings;
        postings.push((Key::Event(head.event).hash(), value));
        if let Some(session) = &head.session {
            postings.push((Key::Session(session).hash(), value));
            if matches!(
                head.event,
                Event::SessionOpened | Event::SessionClosed | Event::KnowledgeDerived
            ) {
                postings.push((Key::Lifecycle(session).hash(), value));
            }
        }
        if let Some(task) = &head.task {
            postings.push((Key::Task(task).hash(), value));
        }
        if !reads_data(head.event) {
            return;
        }
        let Ok(line) = serde_json::from_slice::<LedgerLine>(text) else {
            return;
        };
        if let Some(q) = line.payload::<QuestionAsked>() {
            postings.push((Key::Question(&q.id).hash(), value));
        }
        if let Some(r) = line.payload::<QuestionResolved>() {
            postings.push((Key::Question(&r.id).hash(), value));
        }
        if line.event == Event::SessionOpened
            && let Some(key) = line.payload::<SessionOpened>().and_then(|o| o.conversation)
        {
            postings.push((Key::Conversation(&key).hash(), value));
        }
        if let Some(d) = line.payload::<KnowledgeDerived>() {
            for path in &d.paths {
                postings.push((Key::Derived(file_name(path)).hash(), value));
            }
        }
        self.folds.visit(&line);
    }
}
