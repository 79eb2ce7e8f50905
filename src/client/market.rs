//! Live market data as a task: `/state/trading` and the Hyperliquid marks at one rate, the
//! protocol summary and relayer health at a slower one, candles on demand. Every result is a
//! typed event stamped with when it arrived, so a consumer can say exactly how stale a number is.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::protocol::hyperliquid::{Candle, interval_ms};
use crate::protocol::stats::{RelayerHealth, Summary};
use crate::protocol::wire::DecodeError;

use super::http::{ExchangeHttp, FetchError};
use crate::feed::market::{MarketEvent, Source};

#[derive(Debug, Clone, Copy)]
pub struct PollRates {
    pub markets: Duration,
    pub protocol: Duration,
}

impl Default for PollRates {
    fn default() -> Self {
        Self {
            markets: Duration::from_secs(2),
            protocol: Duration::from_secs(15),
        }
    }
}

impl PollRates {
    /// The defaults, with whichever rate is given in its place.
    pub(crate) fn or_default(markets: Option<Duration>, protocol: Option<Duration>) -> Self {
        let d = Self::default();
        Self {
            markets: markets.unwrap_or(d.markets),
            protocol: protocol.unwrap_or(d.protocol),
        }
    }
}

/// Poll until the receiver is dropped.
pub fn spawn_market_poller(
    http: ExchangeHttp,
    rates: PollRates,
    events: mpsc::Sender<MarketEvent>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut markets = tokio::time::interval(rates.markets);
        let mut protocol = tokio::time::interval(rates.protocol);
        markets.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        protocol.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let batch = tokio::select! {
                _ = markets.tick() => poll_markets(&http).await,
                _ = protocol.tick() => poll_protocol(&http).await,
            };
            for event in batch {
                if events.send(event).await.is_err() {
                    return;
                }
            }
        }
    })
}

fn failed(source: Source, error: impl std::fmt::Display) -> MarketEvent {
    MarketEvent::Failed {
        source,
        error: error.to_string(),
        at: SystemTime::now(),
    }
}

async fn poll_markets(http: &ExchangeHttp) -> Vec<MarketEvent> {
    let state = match http.trading_state().await {
        Ok(s) => s,
        Err(e) => return vec![failed(Source::Trading, e)],
    };
    let marks = futures::future::join_all(state.instruments.iter().map(|m| async move {
        let at = SystemTime::now();
        if m.terminal {
            return match m.frozen_mid() {
                Some(raw) => MarketEvent::Mark {
                    instrument_id: m.id,
                    raw,
                    at,
                },
                None => failed(Source::Mark(m.id), "terminal market without a frozen mid"),
            };
        }
        match http
            .l2_book(&m.symbol)
            .await
            .map(|b| b.mid_raw(m.price_scale))
        {
            Ok(Ok(raw)) => MarketEvent::Mark {
                instrument_id: m.id,
                raw,
                at,
            },
            Ok(Err(e)) => failed(Source::Mark(m.id), e),
            Err(e) => failed(Source::Mark(m.id), e),
        }
    }))
    .await;
    let mut out = vec![MarketEvent::Trading(Box::new(state), SystemTime::now())];
    out.extend(marks);
    out
}

async fn poll_protocol(http: &ExchangeHttp) -> Vec<MarketEvent> {
    let none = BTreeMap::new();
    let (summary, health) = tokio::join!(
        http.get_json::<Summary>("/query/protocol/summary", &none),
        http.get_json::<RelayerHealth>("/relayer/health", &none)
    );
    vec![
        match summary {
            Ok(s) => MarketEvent::Summary(Box::new(s), SystemTime::now()),
            Err(e) => failed(Source::Summary, e),
        },
        match health {
            Ok(h) => MarketEvent::RelayerHealth(Box::new(h), SystemTime::now()),
            Err(e) => failed(Source::RelayerHealth, e),
        },
    ]
}

/// The wallet's side of the polls, every `every`: the protocol's recent trades (its closes and
/// liquidations reach the history from there), and its place in the relayer queue only while
/// `queued` says it has operations queued — at once when one is queued, then every `every`
/// (a quiet session asks nothing it would not show).
pub fn spawn_account_reads(
    http: ExchangeHttp,
    wallet: alloy_primitives::Address,
    every: Duration,
    mut queued: watch::Receiver<bool>,
    events: mpsc::Sender<MarketEvent>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let none = BTreeMap::new();
        let rank_path = format!("/queue-rank/accounts/{wallet:#x}");
        let rank = || async {
            let now = SystemTime::now();
            http.get_json::<crate::protocol::stats::QueueRank>(&rank_path, &none)
                .await
                .map(|r| MarketEvent::QueueRank(Box::new(r), now))
                .unwrap_or_else(|e| failed(Source::QueueRank, format!("queue rank: {e}")))
        };
        loop {
            let batch = tokio::select! {
                _ = tick.tick() => {
                    let trades = async {
                        let now = SystemTime::now();
                        http.get_json::<crate::protocol::stats::RecentTrades>(
                            "/query/protocol/trades/recent",
                            &none,
                        )
                        .await
                        .map(|t| MarketEvent::RecentTrades(Box::new(t), now))
                        .unwrap_or_else(|e| {
                            failed(Source::RecentTrades, format!("recent trades: {e}"))
                        })
                    };
                    let ranked = async {
                        if *queued.borrow() { Some(rank().await) } else { None }
                    };
                    let (ranked, trades) = tokio::join!(ranked, trades);
                    ranked.into_iter().chain([trades]).collect::<Vec<_>>()
                }
                changed = queued.changed() => match changed {
                    // Something was just queued: its place now, not at the next tick.
                    Ok(()) if *queued.borrow_and_update() => vec![rank().await],
                    Ok(()) => Vec::new(),
                    // Nobody can queue anything any more: the session is ending.
                    Err(_) => return,
                },
            };
            for event in batch {
                if events.send(event).await.is_err() {
                    return;
                }
            }
        }
    })
}

/// The 24 h reference price of every market, from hourly candles, every `every`.
pub(crate) fn spawn_day_opens(
    http: ExchangeHttp,
    every: Duration,
    events: mpsc::Sender<MarketEvent>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            let Ok(state) = http.trading_state().await else {
                continue;
            };
            let now_ms = crate::clock::now_unix_ms();
            for m in &state.instruments {
                let Ok(hours) = candles(&http, &m.symbol, "1h", 25, now_ms).await else {
                    continue;
                };
                let day_ago = now_ms.saturating_sub(86_400_000);
                let Some(c) = hours.iter().find(|c| c.t + 3_600_000 > day_ago) else {
                    continue;
                };
                let Ok(raw) = crate::protocol::math::price_raw_from_text(&c.o, m.price_scale)
                else {
                    continue;
                };
                let event = MarketEvent::DayOpen {
                    instrument_id: m.id,
                    raw,
                    at: SystemTime::now(),
                };
                if events.send(event).await.is_err() {
                    return;
                }
            }
        }
    })
}

/// Hyperliquid candles for `coin`: the latest `count` of `interval`, oldest first.
pub async fn candles(
    http: &ExchangeHttp,
    coin: &str,
    interval: &str,
    count: u64,
    now_ms: u64,
) -> Result<Vec<Candle>, FetchError> {
    let width = interval_ms(interval).ok_or_else(|| FetchError::Malformed {
        url: http.info_url().to_string(),
        error: DecodeError::new("interval", format!("unknown candle interval {interval:?}")),
    })?;
    let body = json!({"type": "candleSnapshot", "req": {
        "coin": coin, "interval": interval, "startTime": now_ms.saturating_sub(count * width), "endTime": now_ms}});
    let text = http.info_text(&body).await?;
    // `null` means no candles.
    let parsed: Option<Vec<Candle>> =
        serde_json::from_str(&text).map_err(|e| FetchError::Malformed {
            url: http.info_url().to_string(),
            error: DecodeError::new(format!("candleSnapshot {coin} {interval}"), e.to_string()),
        })?;
    Ok(parsed.unwrap_or_default())
}
