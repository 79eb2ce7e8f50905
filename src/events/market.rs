//! Market reads as events, each stamped with when it arrived.

use std::time::{Duration, SystemTime};

use crate::protocol::hyperliquid::Candle;
use crate::protocol::reads::{RelayerHealth, Summary};
use crate::protocol::trading::TradingState;

/// Where a number came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Trading,
    /// The Hyperliquid mark of one market.
    Mark(u32),
    Summary,
    RelayerHealth,
    /// The chart's candles.
    Candles,
    /// The wallet's places in the relayer queue.
    QueueRank,
    /// The protocol's recent-trades feed.
    RecentTrades,
    /// The account stream (fed by the consumer from stream events).
    Account,
}

/// How often the market reads are repeated (the config file's `[poll]`): the trading state and
/// the marks at one rate, the protocol summary and the relayer's health at a slower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A market whose mark is read from Hyperliquid (every market not yet terminal: a terminal
/// market's frozen mid comes with the trading state). A read of marks, polled or pushed, names
/// the markets it covers this way.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MarkSource {
    pub instrument_id: u32,
    pub symbol: String,
    pub price_scale: u64,
}

impl MarkSource {
    /// The markets of `state` with a live mark.
    pub fn live(state: &TradingState) -> Vec<Self> {
        state
            .instruments
            .iter()
            .filter(|m| !m.terminal)
            .map(|m| Self {
                instrument_id: m.id,
                symbol: m.symbol.clone(),
                price_scale: m.price_scale,
            })
            .collect()
    }
}

#[derive(Debug, Clone)]
pub enum MarketEvent {
    Trading(Box<TradingState>, SystemTime),
    /// Raw mark (l2Book mid at the market's scale, or the frozen mid of a terminal market).
    Mark {
        instrument_id: u32,
        raw: u64,
        at: SystemTime,
    },
    Summary(Box<Summary>, SystemTime),
    RelayerHealth(Box<RelayerHealth>, SystemTime),
    /// The wallet's queued intents and their places in the relayer queue.
    QueueRank(Box<crate::protocol::reads::QueueRank>, SystemTime),
    /// The protocol's recent trades (the consumer picks the wallet's).
    RecentTrades(Box<crate::protocol::reads::RecentTrades>, SystemTime),
    /// The price 24 hours ago (open of the hourly candle then), for the header's change.
    DayOpen {
        instrument_id: u32,
        raw: u64,
        at: SystemTime,
    },
    /// Candles fetched on demand for the chart.
    Candles {
        instrument_id: u32,
        interval: &'static str,
        candles: Vec<Candle>,
        at: SystemTime,
    },
    /// A read failed after its retries; the last good value stands, and ages.
    Failed {
        source: Source,
        error: String,
        at: SystemTime,
    },
}
