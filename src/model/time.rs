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
/// A time whose UTC form falls outside the years 0000 to 9999 parses to nothing.
pub fn parse(text: &str) -> Option<OffsetDateTime> {
    if let Ok(at) = OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339) {
        return at.checked_to_offset(UtcOffset::UTC);
    }
    time::Date::parse(text, DAY)
        .ok()
        .map(|d| d.midnight().assume_utc())
}

/// The schema of an optional `--since`-like request field: what [`parse`] takes, an RFC
/// 3339 `date-time` or a `date`.
pub fn since_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["string", "null"],
        "anyOf": [{"format": "date-time"}, {"format": "date"}]
    })
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
        assert_eq!(
            parse("9999-12-31T23:00:00-05:00"),
            None,
            "past year 9999 in UTC"
        );
    }
}
