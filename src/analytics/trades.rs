//! `get_recent_trades` and `get_candles` of the browser terminal [S1]: the exchange's latest
//! opens, closes and liquidations (§3.7), filtered; Hyperliquid candles (§6) as data with the
//! change over the window.

use serde_json::{Value, json};

use crate::protocol::hyperliquid::Candle;
use crate::protocol::math::price_raw_from_text;
use crate::protocol::pretrade::percent_json;
use crate::protocol::reads::{RecentTrades, TradeEvent, TradeKind};

/// The feed's kind as the terminal's tool names it.
pub fn kind_name(kind: TradeKind) -> &'static str {
    match kind {
        TradeKind::Open => "open",
        TradeKind::Close => "close",
        TradeKind::Liq => "liquidation",
    }
}

pub fn parse_kind(text: &str) -> Option<TradeKind> {
    match text.trim() {
        "open" => Some(TradeKind::Open),
        "close" => Some(TradeKind::Close),
        "liquidation" | "liq" => Some(TradeKind::Liq),
        _ => None,
    }
}

/// The feed's rows that pass the filters, newest first (the feed's order), at most `limit`.
/// `market` matches the instrument symbol case-insensitively.
pub fn recent_trades<'a>(
    feed: &'a RecentTrades,
    market: Option<&str>,
    kind: Option<TradeKind>,
    limit: usize,
) -> Vec<&'a TradeEvent> {
    feed.events
        .iter()
        .filter(|e| market.is_none_or(|m| e.instrument.eq_ignore_ascii_case(m.trim())))
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .take(limit)
        .collect()
}

/// One feed row in the terminal tool's fields. Dollar figures and prices are the feed's own
/// floats (display values, §3.7); the symbol is untrusted text.
/// The feed gives no `entry` on a close or liquidation and no `exit` or `pnlUsd` on an open
/// (§3.7): those are `null`, as in the feed's own rows the terminal seed passes on; the seed
/// lists all three on every event and types none of them.
pub fn event_json(e: &TradeEvent) -> Value {
    json!({
        "time": e.ts,
        "wallet": format!("{:#x}", e.wallet),
        "market": crate::text::sanitize_line(&e.instrument, 16),
        "side": if e.side == crate::protocol::reads::Side::Long { "long" } else { "short" },
        "leverage": e.leverage,
        "notionalUsd": e.notional_usd,
        "kind": kind_name(e.kind),
        "entry": e.entry,
        "exit": e.exit,
        "pnlUsd": e.pnl_usd,
        "positionId": e.position_id.map(|p| p.to_string()),
        "intentId": e.intent_id.map(|i| format!("{i:#x}")),
        "seq": e.seq.to_string(),
    })
}

/// `get_recent_trades`' result: `count`, `events`.
pub fn recent_trades_json(rows: &[&TradeEvent]) -> Value {
    json!({
        "count": rows.len(),
        "events": rows.iter().map(|e| event_json(e)).collect::<Vec<_>>(),
    })
}

/// The candle intervals the terminal offers [S1 get_candles].
pub const CANDLE_INTERVALS: [&str; 6] = ["1m", "5m", "15m", "1h", "4h", "1d"];

/// Candles of one market, oldest first, the last `limit` of what arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Candles {
    pub market: String,
    pub interval: String,
    pub candles: Vec<Candle>,
    /// (first open, last close) raw at the market's price scale, when both parse.
    pub span: Option<(u64, u64)>,
    pub price_scale: u64,
}

pub fn candles(
    market: &str,
    interval: &str,
    mut rows: Vec<Candle>,
    limit: usize,
    price_scale: u64,
) -> Candles {
    rows.sort_by_key(|c| c.t);
    let cut = rows.len().saturating_sub(limit);
    rows.drain(..cut);
    let span = match (rows.first(), rows.last()) {
        (Some(first), Some(last)) => price_raw_from_text(&first.o, price_scale)
            .ok()
            .zip(price_raw_from_text(&last.c, price_scale).ok()),
        _ => None,
    };
    Candles {
        market: market.to_string(),
        interval: interval.to_string(),
        candles: rows,
        span,
        price_scale,
    }
}

/// A decimal string from Hyperliquid as an exact JSON number (`null` when it is not one).
fn number(text: &str) -> Value {
    let t = text.trim();
    let decimal = !t.is_empty()
        && t.trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
        && t.matches('.').count() <= 1;
    if decimal {
        t.parse::<serde_json::Number>()
            .map(Value::Number)
            .unwrap_or(Value::Null)
    } else {
        Value::Null
    }
}

impl Candles {
    /// Close over open across the window, in percent (2 places).
    pub fn change_pct(&self) -> Option<Value> {
        let (open, close) = self.span?;
        (open > 0).then(|| percent_json(i128::from(close) - i128::from(open), u128::from(open), 2))
    }

    /// `get_candles`' result: `market`, `interval`, `candles` (`time`, `open`, `high`, `low`,
    /// `close`, `volume`), `changePct`.
    pub fn json(&self) -> Value {
        let mut v = json!({
            "market": self.market,
            "interval": self.interval,
            "candles": self.candles.iter().map(|c| json!({
                "time": c.t,
                "open": number(&c.o),
                "high": number(&c.h),
                "low": number(&c.l),
                "close": number(&c.c),
                "volume": number(&c.v),
                "trades": c.n,
            })).collect::<Vec<_>>(),
            "changePct": self.change_pct(),
            "changeNote": self.change_pct().is_none().then_some(
                "no change over the window: no candles, or the first open or last close is not a price"
            ),
        });
        // A number or nothing (`changeNote` says why), never `null`.
        crate::protocol::units::omit_nulls(&mut v, &["changePct", "changeNote"]);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candle(t: u64, o: &str, c: &str) -> Candle {
        Candle {
            t,
            close_time: t + 59_999,
            s: "BTC".into(),
            i: "1m".into(),
            o: o.into(),
            c: c.into(),
            h: c.into(),
            l: o.into(),
            v: "1.5".into(),
            n: 3,
        }
    }

    #[test]
    fn the_change_runs_from_the_first_open_to_the_last_close_of_the_kept_window() {
        let rows = vec![
            candle(120_000, "110.0", "121.0"),
            candle(0, "50.0", "60.0"),
            candle(60_000, "100.0", "110.0"),
        ];
        let c = candles("BTC", "1m", rows, 2, 10);
        assert_eq!(c.candles.len(), 2);
        assert_eq!(c.candles[0].t, 60_000);
        assert_eq!(c.change_pct(), Some(json!(21)));
        assert_eq!(c.json()["candles"][0]["volume"], json!(1.5));
        assert_eq!(number("1e5"), Value::Null);
    }
}
