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

/// A span like `7d`, `12h`, `30m` or `2w` (a whole number and one unit: minutes, hours,
/// days, weeks); `None` for anything else.
pub fn parse_span(text: &str) -> Option<time::Duration> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let count: i64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    if count < 0 {
        return None;
    }
    let minutes = match unit {
        'm' => 1,
        'h' => 60,
        'd' => 60 * 24,
        'w' => 60 * 24 * 7,
        _ => return None,
    };
    count.checked_mul(minutes).map(time::Duration::minutes)
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
    fn spans_are_a_number_and_a_unit() {
        assert_eq!(parse_span("7d"), Some(time::Duration::days(7)));
        assert_eq!(parse_span("12h"), Some(time::Duration::hours(12)));
        assert_eq!(parse_span("30m"), Some(time::Duration::minutes(30)));
        assert_eq!(parse_span("2w"), Some(time::Duration::weeks(2)));
        for bad in ["", "d", "7", "7 days", "-1d", "1.5d", "7y"] {
            assert_eq!(parse_span(bad), None, "{bad}");
        }
    }

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
