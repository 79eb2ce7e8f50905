//! Every bound the client puts on the network, in one place. Nothing the exchange or Hyperliquid
//! sends may make the client wait, read or reconnect without limit: each read has a byte cap
//! and a total time, each stream await a heartbeat-based deadline, each reconnect a backoff.
//! The values are generous next to what the live services send (§3), so a cap is only ever hit
//! by a broken or hostile server.

use std::time::Duration;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

// --- HTTP reads -------------------------------------------------------------------------------

/// TCP (and TLS) connect. A reachable host on any link answers well inside this.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// One attempt of a read or a submission: connect, headers and the whole body. reqwest applies
/// it to the body too, so a trickling answer is cut here.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// One read in total, every retry and `Retry-After` wait included: a command never sits on a
/// read longer than this however the server answers.
pub(crate) const READ_DEADLINE: Duration = Duration::from_secs(30);
/// Attempts per read, the first included.
pub(crate) const READ_ATTEMPTS: u32 = 3;
/// First retry wait; doubles per attempt.
pub(crate) const READ_RETRY_BASE: Duration = Duration::from_millis(250);
/// A longer `Retry-After` is not waited for: the read fails with the status instead.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

// --- Body caps (bytes) --------------------------------------------------------------------------

/// `/state/trading`: about 400 bytes per market (1 KiB for the two launch markets).
pub const TRADING_STATE_CAP: usize = 4 * MIB;
/// `/state/leaderboard/accounts`: pages of up to 200 accounts.
pub const LEADERBOARD_CAP: usize = 16 * MIB;
/// `/query/*/history`: a day of minutes, or the whole history by day, as float columns.
pub(crate) const HISTORY_CAP: usize = 16 * MIB;
/// Other `/query/*` reads, `/queue-rank/*` and anything not named here: a few KiB in practice.
pub(crate) const QUERY_CAP: usize = MIB;
/// `/relayer/health` and `/query/health`: a handful of fields.
pub(crate) const HEALTH_CAP: usize = 64 * KIB;
/// A relayer's answer to a submission, and any error body (only its code and message are read).
pub const ANSWER_CAP: usize = 64 * KIB;
/// Hyperliquid `l2Book`: 20 levels a side.
pub const INFO_BOOK_CAP: usize = MIB;
/// Hyperliquid `candleSnapshot`: at most 5000 candles of about 150 bytes.
pub(crate) const INFO_CANDLES_CAP: usize = 8 * MIB;

/// The body cap of an exchange read at `path` (the query string is ignored).
pub(crate) fn body_cap(path: &str) -> usize {
    let path = path.split('?').next().unwrap_or(path);
    if path == "/state/trading" {
        TRADING_STATE_CAP
    } else if path.starts_with("/state/leaderboard/") {
        LEADERBOARD_CAP
    } else if path.starts_with("/query/") && path.ends_with("/history") {
        HISTORY_CAP
    } else if path.ends_with("/health") {
        HEALTH_CAP
    } else {
        QUERY_CAP
    }
}

/// The body cap of a Hyperliquid info request of `kind` (`l2Book`, `candleSnapshot`, …).
pub(crate) fn info_cap(kind: &str) -> usize {
    match kind {
        "l2Book" => INFO_BOOK_CAP,
        "candleSnapshot" => INFO_CANDLES_CAP,
        _ => QUERY_CAP,
    }
}

// --- The account stream -------------------------------------------------------------------------

/// One SSE event (its data lines, field names and any unfinished line together). The largest
/// real event is a snapshot: about 250 bytes per open position or pending intent, so this holds
/// tens of thousands of them.
pub const SSE_EVENT_CAP: usize = 8 * MIB;
/// The heartbeat assumed until the server's `liveness` event names one (the live value, §3.2).
pub(crate) const HEARTBEAT_DEFAULT: Duration = Duration::from_secs(10);
/// The server's `heartbeatIntervalMs` is clamped to this range before it sets the quiet
/// timeout: below, a wrong claim would drop healthy streams; above, a stall would go unnoticed
/// for many minutes.
pub const HEARTBEAT_MIN: Duration = Duration::from_secs(1);
pub(crate) const HEARTBEAT_MAX: Duration = Duration::from_secs(60);
/// The stream is reopened when it stays quiet this many heartbeat intervals (§3.2 "several").
pub(crate) const QUIET_INTERVALS: u32 = 3;
/// The response headers of the stream request, at most; sooner when the heartbeat is known
/// (the quiet timeout applies from the request on).
pub(crate) const STREAM_OPEN_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection must bring its snapshot this soon after its headers (the exchange sends it
/// first): heartbeats without one keep nothing in sync, so the stream is reopened.
pub(crate) const STREAM_SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(15);
/// Reconnect backoff: doubles from the base to the cap, each wait drawn from [½, 1] of its step.
pub(crate) const STREAM_BACKOFF_BASE: Duration = Duration::from_millis(250);
pub const STREAM_BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A stream synced this long without a fault counts as healthy: only then does the backoff
/// start again from the base. A snapshot alone proves nothing (a patch may break it at once).
pub(crate) const STREAM_HEALTHY_AFTER: Duration = Duration::from_secs(30);

/// `4 MiB`, `64 KiB` or `123 bytes`: how the caps are named in errors.
pub fn bytes_text(bytes: usize) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_has_its_cap() {
        assert_eq!(body_cap("/state/trading"), TRADING_STATE_CAP);
        assert_eq!(
            body_cap("/state/leaderboard/accounts?page=0"),
            LEADERBOARD_CAP
        );
        assert_eq!(body_cap("/query/protocol/history"), HISTORY_CAP);
        assert_eq!(body_cap("/query/house/history?interval=1d"), HISTORY_CAP);
        assert_eq!(body_cap("/relayer/health"), HEALTH_CAP);
        assert_eq!(body_cap("/queue-rank/accounts/0xab"), QUERY_CAP);
        assert_eq!(body_cap("/query/protocol/trades/recent"), QUERY_CAP);
        assert_eq!(info_cap("candleSnapshot"), INFO_CANDLES_CAP);
        assert_eq!(info_cap("l2Book"), INFO_BOOK_CAP);
        assert_eq!(bytes_text(TRADING_STATE_CAP), "4 MiB");
        assert_eq!(bytes_text(ANSWER_CAP), "64 KiB");
        assert_eq!(bytes_text(1000), "1000 bytes");
    }
}
