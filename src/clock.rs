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
}
