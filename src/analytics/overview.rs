//! `get_protocol_overview`: value locked, LP, volume, open positions, PAPER, fees (§3.4), each
//! market's mark, open interest in USD against its caps, max leverage, openable and paused
//! (§3.1, §6), 24 h volume (§3.6), the latest trades (§3.7) and the history series (§3.5).

use std::collections::BTreeMap;

use alloy_primitives::U256;
use serde_json::{Value, json};

use crate::protocol::reads::{MarketStats, ProtocolHistory, RecentTrades, Summary};
use crate::protocol::trading::{Cap, Instrument, TradingState};
use crate::protocol::units::{mul_div, price_json, u256_to_u128};

use super::trades::event_json;
use super::{raw, usd, usd_u};

/// Base-asset quantity (18 dp, how OI and caps are counted) → USD wad at a raw mark.
pub fn base_to_usd(quantity: u128, mark: u64, market: &Instrument) -> u128 {
    u256_to_u128(mul_div(
        U256::from(quantity),
        U256::from(mark),
        U256::from(market.price_scale),
    ))
}

/// One side's open interest and cap, in base units and (with a mark) USD.
fn side_json(oi: u128, cap: Cap, mark: Option<u64>, m: &Instrument) -> Value {
    let usd_of = |q: u128| mark.map(|mk| usd_u(base_to_usd(q, mk, m)));
    let (cap_raw, cap_usd) = match cap {
        Cap::Unlimited => (Value::Null, Value::Null),
        Cap::Limit(c) => (raw(c), json!(usd_of(c))),
    };
    json!({"oi_usd": usd_of(oi), "oi_raw": raw(oi), "cap_usd": cap_usd, "cap_raw": cap_raw})
}

/// The history columns shown by default (§3.5 names them all; any is kept).
pub const HISTORY_COLUMNS: [&str; 4] = ["tvl", "volume", "traderPnl", "trades"];

/// Whether a history column counts up from genesis (§3.5: every column but the levels `tvl`,
/// `users`, `paperSupply`, `paperStaked` and the signed `traderPnl`).
pub fn is_cumulative(column: &str) -> bool {
    !matches!(
        column,
        "tvl" | "users" | "paperSupply" | "paperStaked" | "traderPnl"
    )
}

/// A history column as a chart shows it, each value labelled with its interval's start (ms): a
/// level as served, a cumulative counter as what it added in each interval (from the second
/// point on: the first has no close before it; the last is the open interval so far). Display
/// floats, as the exchange serves them.
pub fn chart_series(history: &ProtocolHistory, column: &str) -> Vec<(u64, f64)> {
    let points = history.series(column);
    if !is_cumulative(column) {
        return points;
    }
    points
        .windows(2)
        .map(|w| (w[1].0, w[1].1 - w[0].1))
        .collect()
}

/// Everything the overview needs, as read.
pub struct Inputs<'a> {
    pub summary: &'a Summary,
    pub trading: &'a TradingState,
    pub marks: &'a BTreeMap<u32, u64>,
    pub market_stats: Option<&'a MarketStats>,
    pub trades: Option<&'a RecentTrades>,
    pub history: Option<&'a ProtocolHistory>,
    /// How many latest trades to include.
    pub recent_trades: usize,
}

/// `get_protocol_overview`'s structured result: `tvl_usd`, `markets`, `recent_trades`,
/// `trading_paused`, and the summary's other figures and the history series beside them.
pub fn overview_json(i: &Inputs<'_>) -> Value {
    let s = i.summary;
    let t = i.trading;
    let markets: Vec<Value> = t
        .instruments
        .iter()
        .map(|m| {
            let mark = i.marks.get(&m.id).copied();
            let volume = i
                .market_stats
                .and_then(|ms| ms.markets.get(&m.id.to_string()))
                .map(|v| v.volume_24h);
            json!({
                "id": m.id,
                "symbol": crate::text::sanitize_line(&m.symbol, 16),
                "mark_price": mark.map(|r| price_json(r, m.price_scale)),
                "mark_price_raw": mark.map(raw),
                "max_leverage": t.leverage_ceiling(m),
                "openable": m.openable() && !t.trading_paused,
                "paused": m.paused || t.trading_paused,
                "status": m.status(t.trading_paused).label(),
                "long": side_json(m.long_oi, m.long_cap, mark, m),
                "short": side_json(m.short_oi, m.short_cap, mark, m),
                "volume_24h_usd": volume.map(usd_u),
                "volume_24h_raw": volume.map(raw),
            })
        })
        .collect();
    let trades: Vec<Value> = i
        .trades
        .map(|f| {
            f.events
                .iter()
                .take(i.recent_trades)
                .map(event_json)
                .collect()
        })
        .unwrap_or_default();
    let history = i.history.map(|h| {
        let series: serde_json::Map<String, Value> = h
            .columns
            .iter()
            .map(|(name, values)| (name.clone(), json!(values)))
            .collect();
        json!({"start_ms": h.start_ms, "interval_ms": h.interval_ms, "points": h.columns.values().map(Vec::len).max().unwrap_or(0), "columns": series})
    });
    json!({
        "tvl_usd": usd_u(s.balances.tvl),
        "tvl_raw": raw(s.balances.tvl),
        "lp_usd": usd(s.balances.lp),
        "lp_raw": raw(s.balances.lp),
        "margin_usd": usd_u(s.balances.margin),
        "margin_raw": raw(s.balances.margin),
        "payout_queue_usd": usd_u(s.balances.queue),
        "payout_queue_raw": raw(s.balances.queue),
        "volume_usd": usd_u(s.activity.volume),
        "volume_raw": raw(s.activity.volume),
        "open_positions": s.activity.open,
        "fees": {
            "pending_usd": usd_u(s.fees.pending),
            "pending_raw": raw(s.fees.pending),
            "lifetime_usd": usd_u(s.fees.lifetime),
            "lifetime_raw": raw(s.fees.lifetime),
        },
        "paper": {
            "supply": usd_u(s.paper.supply),
            "supply_raw": raw(s.paper.supply),
            "staked": usd_u(s.paper.staked),
            "staked_raw": raw(s.paper.staked),
        },
        "trading_paused": t.trading_paused,
        "markets": markets,
        "recent_trades": trades,
        "history": history,
        "source": {"block": s.source.block, "at": s.source.at, "indexed_through_block": t.indexed_through_block},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_columns_chart_per_interval_and_levels_as_served() {
        let history = ProtocolHistory {
            start_ms: 1_000,
            interval_ms: 10,
            columns: [
                ("tvl".to_string(), vec![5.0, 7.0, 6.0]),
                ("volume".to_string(), vec![100.0, 150.0, 175.0]),
            ]
            .into_iter()
            .collect(),
            totals: BTreeMap::new(),
        };
        assert_eq!(
            chart_series(&history, "tvl"),
            vec![(1_000, 5.0), (1_010, 7.0), (1_020, 6.0)]
        );
        assert_eq!(
            chart_series(&history, "volume"),
            vec![(1_010, 50.0), (1_020, 25.0)]
        );
        assert!(chart_series(&history, "trades").is_empty());
    }
}
