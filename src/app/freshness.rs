//! How old each source's last good value is, and its last failure: the state behind every
//! "STALE" label.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use crate::events::market::{MarketEvent, Source};

/// A source that has not answered for this long is stale (the panes label it).
pub const STALE_AFTER: Duration = Duration::from_secs(30);
/// The relayer's health is polled with the protocol summary (15 s by default): a health older
/// than this is no longer evidence that it is ready.
pub const HEALTH_STALE_AFTER: Duration = Duration::from_secs(60);

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
        if let MarketEvent::Failed { source, error, .. } = event {
            self.record_error(*source, error.clone());
        } else if let Some((source, at)) = success_of(event) {
            self.record_ok(source, at);
        }
    }

    /// Whether folding `event` changes what the screen shows of its source's freshness: a
    /// first value, a new failure, a recovery, or a success ending an age that was shown
    /// (`shown_after` says past which age a source's age is shown; `None`: never).
    pub(crate) fn event_shows(
        &self,
        event: &MarketEvent,
        shown_after: impl Fn(Source) -> Option<Duration>,
    ) -> bool {
        match event {
            MarketEvent::Failed { source, error, .. } => {
                self.error(*source) != Some(error.as_str())
            }
            _ => success_of(event)
                .is_some_and(|(source, at)| self.success_shows(source, at, shown_after(source))),
        }
    }

    /// Whether a success of `source` at `at` changes what is shown of it (see `event_shows`).
    pub(crate) fn success_shows(
        &self,
        source: Source,
        at: SystemTime,
        shown_after: Option<Duration>,
    ) -> bool {
        let Some(since) = self.last_ok.get(&source) else {
            return true;
        };
        self.last_error.contains_key(&source)
            || shown_after.is_some_and(|t| at.duration_since(*since).is_ok_and(|age| age > t))
    }

    /// The first instant after `after` at which what is shown of any source's age changes with
    /// time alone: its crossing of `shown_after`, then each step of [`age_text`].
    pub(crate) fn next_change(
        &self,
        shown_after: impl Fn(Source) -> Option<Duration>,
        after: SystemTime,
    ) -> Option<SystemTime> {
        self.last_ok
            .iter()
            .filter_map(|(source, since)| {
                let shown_after = shown_after(*source)?;
                Some(next_age_change(*since, shown_after, after))
            })
            .min()
    }

    /// A failure of `source`, shown until it next succeeds.
    pub(crate) fn record_error(&mut self, source: Source, error: String) {
        self.last_error.insert(source, error);
    }

    /// When the source last succeeded.
    pub fn last_ok(&self, source: Source) -> Option<SystemTime> {
        self.last_ok.get(&source).copied()
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

/// The source a market event is a success of, and when (`None`: a failure, or no source).
fn success_of(event: &MarketEvent) -> Option<(Source, SystemTime)> {
    Some(match event {
        MarketEvent::Trading(_, at) => (Source::Trading, *at),
        MarketEvent::Mark {
            instrument_id, at, ..
        } => (Source::Mark(*instrument_id), *at),
        MarketEvent::Summary(_, at) => (Source::Summary, *at),
        MarketEvent::RelayerHealth(_, at) => (Source::RelayerHealth, *at),
        MarketEvent::QueueRank(_, at) => (Source::QueueRank, *at),
        MarketEvent::RecentTrades(_, at) => (Source::RecentTrades, *at),
        MarketEvent::Candles { at, .. } => (Source::Candles, *at),
        MarketEvent::DayOpen { .. } | MarketEvent::Failed { .. } => return None,
    })
}

/// An age as the panes and the status line show it: seconds under a minute, then minutes.
pub fn age_text(age: Option<Duration>) -> String {
    match age {
        None => "—".into(),
        Some(a) if a.as_secs() < 60 => format!("{}s", a.as_secs()),
        Some(a) => format!("{}m", a.as_secs() / 60),
    }
}

/// The first instant after `after` at which the age of a value from `since` is shown
/// differently, when it is shown only once older than `shown_after`: just past the crossing,
/// then at each step of [`age_text`] (every second under a minute, every minute after).
fn next_age_change(since: SystemTime, shown_after: Duration, after: SystemTime) -> SystemTime {
    let crossing = since + shown_after;
    if after <= crossing {
        // Shown once strictly older than the limit.
        return crossing + Duration::from_nanos(1);
    }
    let age = after.duration_since(since).unwrap_or_default().as_secs();
    let step = if age < 60 { 1 } else { 60 };
    since + Duration::from_secs((age / step + 1) * step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// An age shown once past its limit changes just past the crossing, then with each step
    /// of its text: every second under a minute, every minute after.
    #[test]
    fn an_age_changes_at_the_crossing_then_at_each_step_of_its_text() {
        let since = UNIX_EPOCH + Duration::from_secs(100);
        let limit = Duration::from_secs(30);
        let after = |s: u64| since + Duration::from_secs(s);
        let crossing = after(30) + Duration::from_nanos(1);
        assert_eq!(next_age_change(since, limit, after(0)), crossing);
        assert_eq!(next_age_change(since, limit, after(30)), crossing);
        assert_eq!(next_age_change(since, limit, crossing), after(31));
        assert_eq!(next_age_change(since, limit, after(59)), after(60));
        assert_eq!(age_text(Some(Duration::from_secs(60))), "1m");
        assert_eq!(next_age_change(since, limit, after(60)), after(120));
        assert_eq!(next_age_change(since, limit, after(150)), after(180));
    }

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
