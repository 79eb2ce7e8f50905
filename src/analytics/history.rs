//! `get_trade_history`: a wallet's closed and liquidated trades, newest first, paged.
//!
//! The exchange's paged trade history read is unknown (§10.1), so the history is what can be
//! derived: the recent-trades feed's close and liquidation rows of the wallet (§3.7, the latest
//! 50 across the protocol; the same feed's open row gives the entry) and the closed positions
//! the account stream reported while it was followed (§3.2 `closedPositions`: exact net PnL and
//! PAPER minted). Older trades are not available from this exchange; the result says how far
//! back it reaches rather than pretending to be complete.

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};
use serde_json::{Value, json};

use crate::protocol::account::ClosedPosition;
use crate::protocol::stats::{RecentTrades, Side, TradeKind};
use crate::protocol::trading::TradingState;

use super::{raw, usd, usd_u};

/// Trades per page, as the explorer serves them [S2].
pub const PAGE_SIZE: usize = 75;

/// What is not available, said once in every result.
pub const HISTORY_NOTE: &str = "older trades are not available from this exchange (no paged trade-history read is published, protocol.md §10.1): this is the recent-trades feed (latest 50 across the protocol) and the closes the account stream reported while it was followed";

/// One closed trade as far as the sources tell it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedTrade {
    pub position_id: U256,
    pub market: String,
    pub is_long: bool,
    pub leverage: Option<u32>,
    /// Exact, from the stream.
    pub margin: Option<u128>,
    pub net_pnl: Option<i128>,
    pub paper_minted: Option<u128>,
    /// Display floats from the feed.
    pub notional_usd: Option<f64>,
    pub entry: Option<f64>,
    pub exit: Option<f64>,
    pub feed_pnl_usd: Option<f64>,
    pub liquidated: bool,
    /// ms: the feed's time, else when the stream reported it.
    pub time: Option<u64>,
    pub from_stream: bool,
    pub from_feed: bool,
}

impl ClosedTrade {
    /// Which reads the row came from.
    pub fn sources(&self) -> Vec<&'static str> {
        [
            self.from_feed.then_some("feed"),
            self.from_stream.then_some("stream"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn is_loss(&self) -> bool {
        match (self.net_pnl, self.feed_pnl_usd) {
            (Some(n), _) => n < 0,
            (None, Some(p)) => p < 0.0,
            (None, None) => self.liquidated,
        }
    }
}

/// `all` or `losses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Losses,
}

impl Filter {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "all" => Some(Filter::All),
            "losses" => Some(Filter::Losses),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Losses => "losses",
        }
    }
}

/// Merge the sources by position id, newest first (then the higher id first).
pub fn closed_trades(
    wallet: Address,
    feed: &RecentTrades,
    streamed: &[(ClosedPosition, u64)],
    trading: &TradingState,
) -> Vec<ClosedTrade> {
    let mut by_id: BTreeMap<U256, ClosedTrade> = BTreeMap::new();
    let mut entries: BTreeMap<U256, f64> = BTreeMap::new();
    for e in feed.events.iter().filter(|e| e.wallet == wallet) {
        let Some(id) = e.position_id.map(U256::from) else {
            continue;
        };
        match e.kind {
            TradeKind::Open => {
                if let Some(entry) = e.entry {
                    entries.insert(id, entry);
                }
            }
            TradeKind::Close | TradeKind::Liq => {
                by_id.insert(
                    id,
                    ClosedTrade {
                        position_id: id,
                        market: crate::text::sanitize_line(&e.instrument, 16),
                        is_long: e.side == Side::Long,
                        leverage: Some(e.leverage),
                        margin: None,
                        net_pnl: None,
                        paper_minted: None,
                        notional_usd: Some(e.notional_usd),
                        entry: None,
                        exit: e.exit,
                        feed_pnl_usd: e.pnl_usd,
                        liquidated: e.kind == TradeKind::Liq,
                        time: Some(e.ts),
                        from_stream: false,
                        from_feed: true,
                    },
                );
            }
        }
    }
    for (c, seen_ms) in streamed {
        let market = trading
            .market_by_id(c.instrument_id)
            .map(|m| crate::text::sanitize_line(&m.symbol, 16))
            .unwrap_or_else(|| format!("#{}", c.instrument_id));
        let row = by_id.entry(c.id).or_insert_with(|| ClosedTrade {
            position_id: c.id,
            market,
            is_long: c.is_long,
            leverage: None,
            margin: None,
            net_pnl: None,
            paper_minted: None,
            notional_usd: None,
            entry: None,
            exit: None,
            feed_pnl_usd: None,
            liquidated: c.liquidated,
            time: Some(*seen_ms),
            from_stream: true,
            from_feed: false,
        });
        row.leverage = Some(c.leverage);
        row.margin = Some(c.margin);
        row.net_pnl = Some(c.net_pnl);
        row.paper_minted = Some(c.paper_minted);
        row.liquidated = c.liquidated;
        row.from_stream = true;
    }
    let mut out: Vec<ClosedTrade> = by_id
        .into_values()
        .map(|mut t| {
            t.entry = entries.get(&t.position_id).copied();
            t
        })
        .collect();
    out.sort_by(|a, b| b.time.cmp(&a.time).then(b.position_id.cmp(&a.position_id)));
    out
}

/// One page of a wallet's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    pub address: Address,
    pub filter: Filter,
    pub page: usize,
    pub limit: usize,
    pub total: usize,
    pub trades: Vec<ClosedTrade>,
}

pub fn page(
    address: Address,
    trades: Vec<ClosedTrade>,
    filter: Filter,
    page: usize,
    limit: usize,
) -> HistoryPage {
    let kept: Vec<ClosedTrade> = trades
        .into_iter()
        .filter(|t| filter == Filter::All || t.is_loss())
        .collect();
    let total = kept.len();
    HistoryPage {
        address,
        filter,
        page,
        limit,
        total,
        trades: kept
            .into_iter()
            .skip(page.saturating_mul(limit))
            .take(limit)
            .collect(),
    }
}

impl HistoryPage {
    /// Whether another page follows.
    pub fn has_more(&self) -> bool {
        self.page.saturating_add(1).saturating_mul(self.limit) < self.total
    }

    /// `get_trade_history`'s structured result: `address`, `trades`, `next_cursor` (here the
    /// next page number, as a string, or `null`).
    pub fn json(&self) -> Value {
        json!({
            "address": format!("{:#x}", self.address),
            "filter": self.filter.name(),
            "page": self.page,
            "limit": self.limit,
            "total": self.total,
            "next_cursor": self.has_more().then(|| (self.page + 1).to_string()),
            "trades": self.trades.iter().map(|t| json!({
                "position_id": t.position_id.to_string(),
                "market": t.market,
                "side": if t.is_long { "long" } else { "short" },
                "leverage": t.leverage,
                "margin_usd": t.margin.map(usd_u),
                "margin_raw": t.margin.map(raw),
                "notional_usd": t.notional_usd,
                "entry": t.entry,
                "exit": t.exit,
                "net_pnl_usd": t.net_pnl.map(usd).or_else(|| t.feed_pnl_usd.map(|p| json!(p))),
                "net_pnl_raw": t.net_pnl.map(raw),
                "paper_minted": t.paper_minted.map(usd_u),
                "paper_minted_raw": t.paper_minted.map(raw),
                "liquidated": t.liquidated,
                "time": t.time,
                "settlement_tx": Value::Null,
                "sources": t.sources(),
            })).collect::<Vec<_>>(),
            "note": HISTORY_NOTE,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::stats::TradeEvent;

    fn trading() -> TradingState {
        TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap()
    }

    fn event(kind: TradeKind, id: u128, ts: u64, wallet: Address) -> TradeEvent {
        TradeEvent {
            seq: ts,
            ts,
            wallet,
            instrument: "BTC".into(),
            instrument_id: 0,
            instrument_terminal: false,
            side: Side::Long,
            leverage: 100,
            notional_usd: 1000.0,
            intent_id: None,
            position_id: Some(id),
            kind,
            entry: (kind == TradeKind::Open).then_some(82_000.5),
            exit: (kind != TradeKind::Open).then_some(82_100.0),
            pnl_usd: (kind != TradeKind::Open).then_some(-0.11),
        }
    }

    fn closed(id: u64, net: i128, liquidated: bool) -> ClosedPosition {
        ClosedPosition {
            id: U256::from(id),
            instrument_id: 0,
            is_long: true,
            margin: 10 * crate::protocol::units::WAD,
            leverage: 100,
            liquidated,
            net_pnl: net,
            paper_minted: 7,
        }
    }

    #[test]
    fn the_feed_and_the_stream_merge_by_position_newest_first() {
        let me = Address::with_last_byte(1);
        let other = Address::with_last_byte(2);
        let feed = RecentTrades {
            ok: true,
            count: 4,
            events: vec![
                event(TradeKind::Close, 11, 300, me),
                event(TradeKind::Close, 12, 200, other),
                event(TradeKind::Open, 11, 100, me),
                event(TradeKind::Liq, 10, 50, me),
            ],
        };
        // The stream saw position 11 close (exact figures) and 13, which the feed lacks.
        let streamed = vec![(closed(11, -108, false), 310), (closed(13, 5, false), 400)];
        let trades = closed_trades(me, &feed, &streamed, &trading());
        let ids: Vec<u64> = trades.iter().map(|t| t.position_id.to::<u64>()).collect();
        assert_eq!(ids, vec![13, 11, 10]);
        let merged = &trades[1];
        assert_eq!(merged.net_pnl, Some(-108));
        assert_eq!(merged.entry, Some(82_000.5));
        assert_eq!(merged.time, Some(300));
        assert_eq!(merged.sources(), vec!["feed", "stream"]);
        assert!(trades[2].liquidated);
        assert_eq!(trades[0].market, "BTC");
        let losses = page(me, trades, Filter::Losses, 0, 75);
        let kept: Vec<u64> = losses
            .trades
            .iter()
            .map(|t| t.position_id.to::<u64>())
            .collect();
        assert_eq!(kept, vec![11, 10]);
        assert!(!losses.has_more());
    }
}
