//! Live market data, one read at a time: `/state/trading`, the Hyperliquid marks, the protocol
//! summary and relayer health, the day opens, the recent trades and queue ranks, candles. Every
//! result is a typed event stamped with when it arrived, so a consumer can say exactly how stale
//! a number is. The UI schedules these reads as its screen declares them (`tui::reads`); the
//! pollers here serve the command line.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::protocol::hyperliquid::{Candle, interval_ms};
use crate::protocol::reads::{RelayerHealth, Summary};
use crate::protocol::wire::DecodeError;

use super::http::{ExchangeHttp, FetchError};
use crate::events::market::{MarkSource, MarketEvent, Source};

use crate::events::market::PollRates;

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

/// Poll until the receiver is dropped (the command line's `--watch`; the UI schedules the same
/// reads one by one, as its screen declares them).
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
                _ = markets.tick() => read_markets(&http).await,
                _ = protocol.tick() => read_protocol(&http).await,
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

/// The trading state, then every market's mark.
pub async fn read_markets(http: &ExchangeHttp) -> Vec<MarketEvent> {
    let mut out = read_trading(http).await;
    let live = match out.first() {
        Some(MarketEvent::Trading(state, _)) => MarkSource::live(state),
        _ => return out,
    };
    out.extend(read_marks(http, &live).await);
    out
}

/// `/state/trading`, with the frozen mid of each terminal market (its mark for good).
pub async fn read_trading(http: &ExchangeHttp) -> Vec<MarketEvent> {
    let state = match http.trading_state().await {
        Ok(s) => s,
        Err(e) => return vec![failed(Source::Trading, e)],
    };
    let at = SystemTime::now();
    let frozen = state
        .instruments
        .iter()
        .filter(|m| m.terminal)
        .map(|m| match m.frozen_mid() {
            Some(raw) => MarketEvent::Mark {
                instrument_id: m.id,
                raw,
                at,
            },
            None => failed(Source::Mark(m.id), "terminal market without a frozen mid"),
        });
    let frozen: Vec<_> = frozen.collect();
    let mut out = vec![MarketEvent::Trading(Box::new(state), at)];
    out.extend(frozen);
    out
}

/// The Hyperliquid mark (l2Book mid) of each market, read together.
pub async fn read_marks(http: &ExchangeHttp, markets: &[MarkSource]) -> Vec<MarketEvent> {
    futures::future::join_all(markets.iter().map(|m| async move {
        let at = SystemTime::now();
        match http
            .l2_book(&m.symbol)
            .await
            .map(|b| b.mid_raw(m.price_scale))
        {
            Ok(Ok(raw)) => MarketEvent::Mark {
                instrument_id: m.instrument_id,
                raw,
                at,
            },
            Ok(Err(e)) => failed(Source::Mark(m.instrument_id), e),
            Err(e) => failed(Source::Mark(m.instrument_id), e),
        }
    }))
    .await
}

/// The protocol summary and the relayer's health.
pub async fn read_protocol(http: &ExchangeHttp) -> Vec<MarketEvent> {
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

/// The protocol's recent trades (the wallet's closes and liquidations reach its history there).
pub async fn read_recent_trades(http: &ExchangeHttp) -> MarketEvent {
    let now = SystemTime::now();
    http.get_json::<crate::protocol::reads::RecentTrades>(
        "/query/protocol/trades/recent",
        &BTreeMap::new(),
    )
    .await
    .map(|t| MarketEvent::RecentTrades(Box::new(t), now))
    .unwrap_or_else(|e| failed(Source::RecentTrades, format!("recent trades: {e}")))
}

/// The wallet's queued intents and their places in the relayer queue.
pub async fn read_queue_rank(
    http: &ExchangeHttp,
    wallet: alloy_primitives::Address,
) -> MarketEvent {
    let now = SystemTime::now();
    http.get_json::<crate::protocol::reads::QueueRank>(
        &format!("/queue-rank/accounts/{wallet:#x}"),
        &BTreeMap::new(),
    )
    .await
    .map(|r| MarketEvent::QueueRank(Box::new(r), now))
    .unwrap_or_else(|e| failed(Source::QueueRank, format!("queue rank: {e}")))
}

/// The wallet's side of the polls, every `every`: the protocol's recent trades, and its place in
/// the relayer queue only while `queued` says it has operations queued — at once when one is
/// queued, then every `every` (a quiet session asks nothing it would not show). The UI declares
/// the same two reads (`app::reads`); this task serves a caller without that runtime.
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
        loop {
            let batch = tokio::select! {
                _ = tick.tick() => {
                    let ranked = async {
                        if *queued.borrow() { Some(read_queue_rank(&http, wallet).await) } else { None }
                    };
                    let (ranked, trades) = tokio::join!(ranked, read_recent_trades(&http));
                    ranked.into_iter().chain([trades]).collect::<Vec<_>>()
                }
                changed = queued.changed() => match changed {
                    // Something was just queued: its place now, not at the next tick.
                    Ok(()) if *queued.borrow_and_update() => vec![read_queue_rank(&http, wallet).await],
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

/// The 24 h reference price of every market, from hourly candles.
pub async fn read_day_opens(http: &ExchangeHttp) -> Vec<MarketEvent> {
    let Ok(state) = http.trading_state().await else {
        return Vec::new();
    };
    let now_ms = crate::clock::now_unix_ms();
    let mut out = Vec::new();
    for m in &state.instruments {
        let Ok(hours) = candles(http, &m.symbol, "1h", 25, now_ms).await else {
            continue;
        };
        let day_ago = now_ms.saturating_sub(86_400_000);
        let Some(c) = hours.iter().find(|c| c.t + 3_600_000 > day_ago) else {
            continue;
        };
        let Ok(raw) = crate::protocol::math::price_raw_from_text(&c.o, m.price_scale) else {
            continue;
        };
        out.push(MarketEvent::DayOpen {
            instrument_id: m.id,
            raw,
            at: SystemTime::now(),
        });
    }
    out
}

/// Candles a chart can use at most (one a column).
pub const CHART_CANDLES: u64 = 200;

/// The chart's candles of one market at one interval.
pub async fn read_chart_candles(
    http: &ExchangeHttp,
    instrument_id: u32,
    symbol: &str,
    interval: &'static str,
) -> MarketEvent {
    let now_ms = crate::clock::now_unix_ms();
    match candles(http, symbol, interval, CHART_CANDLES, now_ms).await {
        Ok(candles) => MarketEvent::Candles {
            instrument_id,
            interval,
            candles,
            at: SystemTime::now(),
        },
        Err(e) => failed(Source::Candles, format!("candles: {e}")),
    }
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
