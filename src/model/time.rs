//! Timestamps as the ledger and records spell them (RFC 3339, UTC, whole seconds).

use time::format_description::FormatItem;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

const RFC3339_UTC: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
const STAMP: &[FormatItem<'static>] =
    format_description!("[year][month][day]T[hour][minute][second]Z");
const DAY: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]");

/// `2026-11-30T17:48:47Z`.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(RFC3339_UTC)
        .expect("a UTC date in range always formats")
}

/// `20261130T174847Z`, the time part of an episode id.
pub fn stamp(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(STAMP)
        .expect("a UTC date in range always formats")
}

/// Parses an RFC 3339 timestamp (any offset), or a bare `YYYY-MM-DD` as midnight UTC.
pub fn parse(text: &str) -> Option<OffsetDateTime> {
    if let Ok(at) = OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339) {
        return Some(at.to_offset(UtcOffset::UTC));
    }
    time::Date::parse(text, DAY)
        .ok()
        .map(|d| d.midnight().assume_utc())
}

/// Seconds since the Unix epoch as a UTC time (git's commit times).
pub fn from_unix(seconds: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn formats_and_parses() {
        let at = datetime!(2026-11-30 17:48:47 UTC);
        assert_eq!(rfc3339(at), "2026-11-30T17:48:47Z");
        assert_eq!(stamp(at), "20261130T174847Z");
        assert_eq!(parse("2026-11-30T17:48:47Z"), Some(at));
        assert_eq!(parse("2026-11-30T18:48:47+01:00"), Some(at));
        assert_eq!(parse("2026-11-30"), Some(datetime!(2026-11-30 0:00 UTC)));
        assert_eq!(parse("yesterday"), None);
    }
}
