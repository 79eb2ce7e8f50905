//! Market reads as events, each stamped with when it arrived.

use std::time::SystemTime;

use crate::protocol::hyperliquid::Candle;
use crate::protocol::stats::{RelayerHealth, Summary};
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
    QueueRank(Box<crate::protocol::stats::QueueRank>, SystemTime),
    /// The protocol's recent trades (the consumer picks the wallet's).
    RecentTrades(Box<crate::protocol::stats::RecentTrades>, SystemTime),
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
