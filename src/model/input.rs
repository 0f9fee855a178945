//! Input limits: how much text a writer takes from one field or one stream
//! (docs/HOSTILE.md). Anything larger is refused with rule `input.size`, before it is
//! redacted or written, so a runaway pipe cannot fill the ledger or a record.

/// The most one text field may hold: a decision, question, answer, checkpoint, task
/// description, reason or exemption (64 KiB, the HTTP body limit too).
pub const TEXT_LIMIT: usize = 64 * 1024;

/// The most one input stream may hold: stdin (evidence, a summary, a reasoning record)
/// or a `--file` (1 MiB).
pub const INPUT_LIMIT: usize = 1024 * 1024;

/// A text over its limit: what it was, its size and the limit, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    pub what: String,
    pub bytes: usize,
    pub limit: usize,
}

/// Refuses `text` when it holds more than `limit` bytes.
pub fn check_size(what: &str, text: &str, limit: usize) -> Result<(), TooLarge> {
    if text.len() > limit {
        Err(TooLarge {
            what: what.to_owned(),
            bytes: text.len(),
            limit,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_itself_is_accepted_one_byte_more_is_not() {
        assert!(check_size("decision", &"x".repeat(TEXT_LIMIT), TEXT_LIMIT).is_ok());
        let refused = check_size("decision", &"x".repeat(TEXT_LIMIT + 1), TEXT_LIMIT);
        assert_eq!(
            refused,
            Err(TooLarge {
                what: "decision".into(),
                bytes: TEXT_LIMIT + 1,
                limit: TEXT_LIMIT
            })
        );
    }
}
