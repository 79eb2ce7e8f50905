//! How old each source's last good value is, and its last failure: the state behind every
//! "STALE" label.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use crate::feed::market::{MarketEvent, Source};

/// A source that has not answered for this long is stale (the panes label it).
pub const STALE_AFTER: Duration = Duration::from_secs(30);
/// The relayer's health is polled with the protocol summary (15 s by default): a health older
/// than this is no longer evidence that it is ready.
pub const HEALTH_STALE_AFTER: Duration = Duration::from_secs(60);
/// The default for the oldest mark an open may be reviewed against (`[ui] max_mark_age_s`).
pub const DEFAULT_MAX_MARK_AGE: Duration = Duration::from_secs(5);

/// When each source last succeeded, and its last failure.
#[derive(Debug, Default, Clone)]
pub struct Freshness {
    last_ok: HashMap<Source, SystemTime>,
    last_error: HashMap<Source, String>,
}

impl Freshness {
    pub fn record_ok(&mut self, source: Source, at: SystemTime) {
        self.last_ok.insert(source, at);
        self.last_error.remove(&source);
    }

    /// Fold a market event.
    pub fn apply(&mut self, event: &MarketEvent) {
        match event {
            MarketEvent::Trading(_, at) => self.record_ok(Source::Trading, *at),
            MarketEvent::Mark {
                instrument_id, at, ..
            } => self.record_ok(Source::Mark(*instrument_id), *at),
            MarketEvent::Summary(_, at) => self.record_ok(Source::Summary, *at),
            MarketEvent::RelayerHealth(_, at) => self.record_ok(Source::RelayerHealth, *at),
            MarketEvent::QueueRank(_, at) => self.record_ok(Source::QueueRank, *at),
            MarketEvent::RecentTrades(_, at) => self.record_ok(Source::RecentTrades, *at),
            MarketEvent::Candles { at, .. } => self.record_ok(Source::Candles, *at),
            MarketEvent::DayOpen { .. } => {}
            MarketEvent::Failed { source, error, .. } => self.record_error(*source, error.clone()),
        }
    }

    /// A failure of `source`, shown until it next succeeds.
    pub(crate) fn record_error(&mut self, source: Source, error: String) {
        self.last_error.insert(source, error);
    }

    /// How old the source's last good value is (`None`: never succeeded).
    pub fn age(&self, source: Source, now: SystemTime) -> Option<Duration> {
        self.last_ok
            .get(&source)
            .map(|t| now.duration_since(*t).unwrap_or_default())
    }

    /// The last error, while the source has not succeeded since.
    pub fn error(&self, source: Source) -> Option<&str> {
        self.last_error.get(&source).map(String::as_str)
    }
}

/// An age as the panes and the status line show it: seconds under a minute, then minutes.
pub fn age_text(age: Option<Duration>) -> String {
    match age {
        None => "—".into(),
        Some(a) if a.as_secs() < 60 => format!("{}s", a.as_secs()),
        Some(a) => format!("{}m", a.as_secs() / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// A failed read is filed under its own source: a queue-rank failure does not make the
    /// trading state look broken, nor a recent-trades failure the summary.
    #[test]
    fn failures_are_filed_under_their_own_source() {
        let mut f = Freshness::default();
        let at = UNIX_EPOCH + Duration::from_secs(100);
        f.record_ok(Source::Trading, at);
        f.record_ok(Source::Summary, at);
        for (source, error) in [
            (Source::QueueRank, "queue rank: 503"),
            (Source::RecentTrades, "recent trades: 503"),
        ] {
            f.apply(&MarketEvent::Failed {
                source,
                error: error.into(),
                at,
            });
        }
        assert_eq!(f.error(Source::Trading), None);
        assert_eq!(f.error(Source::Summary), None);
        assert_eq!(f.error(Source::QueueRank), Some("queue rank: 503"));
        assert_eq!(f.error(Source::RecentTrades), Some("recent trades: 503"));
    }
}
