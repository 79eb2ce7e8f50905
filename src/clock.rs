//! Time as the protocol counts it: Unix seconds (deadlines, expiries) and milliseconds (candles,
//! acceptance times). The one place a `SystemTime` becomes a number, and the one place the wall
//! clock is read by name (`now_…`); the app itself never reads it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch (0 for a time before it).
pub(crate) fn unix_s(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Milliseconds since the Unix epoch (0 for a time before it).
pub(crate) fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub fn now_unix_s() -> u64 {
    unix_s(SystemTime::now())
}

pub(crate) fn now_unix_ms() -> u64 {
    unix_ms(SystemTime::now())
}

/// `YYYY-MM-DD HH:MM` of a unix time in ms, in UTC (the terminal's zone is not known to the
/// process).
pub(crate) fn utc_minute_text(ms: u64) -> String {
    let s = ms / 1000;
    let (y, m, d) = civil_from_days(s / 86_400);
    let t = s % 86_400;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", t / 3600, t % 3600 / 60)
}

/// `HH:MM:SS` of a unix time in seconds, in UTC.
pub(crate) fn utc_time_text(unix_s: u64) -> String {
    let t = unix_s % 86_400;
    format!("{:02}:{:02}:{:02}", t / 3600, t % 3600 / 60, t % 60)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_the_epoch_is_zero() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_791_862_900_123);
        assert_eq!(unix_s(t), 1_791_862_900);
        assert_eq!(unix_ms(t), 1_791_862_900_123);
        assert_eq!(unix_s(UNIX_EPOCH - std::time::Duration::from_secs(1)), 0);
    }

    #[test]
    fn utc_text_is_the_calendar_date() {
        assert_eq!(utc_minute_text(0), "1970-01-01 00:00");
        assert_eq!(utc_minute_text(1_791_862_860_000), "2026-10-13 03:41");
        // A leap day, the day after it, and the turn of a century that is not a leap year.
        assert_eq!(utc_minute_text(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc_minute_text(951_868_799_000), "2000-02-29 23:59");
        assert_eq!(utc_minute_text(4_107_542_400_000), "2100-03-01 00:00");
        assert_eq!(utc_time_text(1_791_862_899), "03:41:39");
    }
}
