//! Protocol-wide reads (`overview`, `trades`, `candles`, `paper-mint`, and the assistant tools
//! that give them): what each gathers, the figures `analytics`'.

use serde_json::{Value, json};

use crate::analytics::mint::{self, MintEstimate};
use crate::analytics::overview::{self, Inputs};
use crate::analytics::trades::{self, Candles};
use crate::client::ExchangeHttp;
use crate::client::explorer as reads;
use crate::client::market_data::MarketData;
use crate::protocol::reads::{ProtocolHistory, RecentTrades, TradeEvent, TradeKind};
use crate::protocol::units::{WAD, parse_scaled};

use super::{AnswerError, input};

/// What `overview` read, for the tables a person sees beside the JSON.
pub struct Overview {
    pub value: Value,
    pub data: MarketData,
    pub summary: crate::protocol::reads::Summary,
    pub trades: Option<RecentTrades>,
    pub history: Option<ProtocolHistory>,
    pub unavailable: Vec<String>,
}

/// The protocol's figures, each market's, the latest `recent_trades` trades and the history
/// series at `interval`. The summary and the markets are needed; what else fails is listed in
/// `unavailable` rather than failing the whole.
pub async fn overview(
    http: &ExchangeHttp,
    recent_trades: usize,
    interval: &str,
) -> Result<Overview, AnswerError> {
    let (data, summary, stats, feed, history) = tokio::join!(
        MarketData::live(http, None),
        reads::summary(http),
        reads::market_stats(http),
        reads::recent_trades(http),
        reads::protocol_history(http, interval),
    );
    let data = data?;
    let summary = summary?;
    let mut unavailable = Vec::new();
    let mut note = |what: &str, e: &crate::client::FetchError| {
        tracing::debug!(error = %e, what, "overview read failed");
        unavailable.push(format!(
            "{what}: {}",
            crate::text::sanitize_line(&e.to_string(), 160)
        ));
    };
    if let Err(e) = &stats {
        note("market-stats", e);
    }
    if let Err(e) = &feed {
        note("trades", e);
    }
    if let Err(e) = &history {
        note("history", e);
    }
    let marks = data.known_marks();
    let inputs = Inputs {
        summary: &summary,
        trading: &data.state,
        marks: &marks,
        market_stats: stats.as_ref().ok(),
        trades: feed.as_ref().ok(),
        history: history.as_ref().ok(),
        recent_trades,
    };
    let mut value = overview::overview_json(&inputs);
    value["unavailable"] = json!(unavailable);
    Ok(Overview {
        value,
        data,
        summary,
        trades: feed.ok(),
        history: history.ok(),
        unavailable,
    })
}

/// The latest trades across traders, filtered.
pub struct Trades {
    pub feed: RecentTrades,
    /// The market's symbol, resolved from a symbol or an id.
    pub market: Option<String>,
    pub kind: Option<TradeKind>,
    pub limit: usize,
}

impl Trades {
    pub fn rows(&self) -> Vec<&TradeEvent> {
        trades::recent_trades(&self.feed, self.market.as_deref(), self.kind, self.limit)
    }

    pub fn json(&self) -> Value {
        trades::recent_trades_json(&self.rows())
    }
}

/// The latest trades across traders, filtered by market (symbol or id) and kind.
pub async fn recent_trades(
    http: &ExchangeHttp,
    market: Option<&str>,
    kind: Option<&str>,
    limit: usize,
) -> Result<Trades, AnswerError> {
    let market = match market {
        Some(m) => {
            let state = http.trading_state().await?;
            Some(input::market(&state, m)?.symbol.clone())
        }
        None => None,
    };
    let kind = kind
        .map(|k| {
            trades::parse_kind(k)
                .ok_or_else(|| AnswerError::input("kind", "must be open, close or liquidation"))
        })
        .transpose()?;
    Ok(Trades {
        feed: reads::recent_trades(http).await?,
        market,
        kind,
        limit,
    })
}

/// Hyperliquid candles of a market: `limit` of them at `interval`, oldest first.
pub async fn candles(
    http: &ExchangeHttp,
    market: &str,
    interval: &str,
    limit: u64,
) -> Result<Candles, AnswerError> {
    if !trades::CANDLE_INTERVALS.contains(&interval) {
        return Err(AnswerError::input(
            "interval",
            format!("must be one of {}", trades::CANDLE_INTERVALS.join(", ")),
        ));
    }
    let state = http.trading_state().await?;
    let market = input::market(&state, market)?;
    let rows = crate::client::market::candles(
        http,
        &market.symbol,
        interval,
        limit,
        crate::clock::now_unix_ms(),
    )
    .await?;
    Ok(trades::candles(
        &market.symbol,
        interval,
        rows,
        limit as usize,
        market.price_scale,
    ))
}

/// A loss basis in USD, 0..=1,000,000,000 (up to 18 decimals) → wad.
pub fn loss_basis(field: &str, text: &str) -> Result<u128, AnswerError> {
    let bad = |why: &str| {
        AnswerError::input(
            field,
            format!("{why}, got {:?}", crate::text::sanitize_line(text, 40)),
        )
    };
    if text.trim_start().starts_with('-') {
        return Err(bad("must be 0 or more"));
    }
    let wad = parse_scaled(text, 18).map_err(|_| bad("must be a USD amount like 250 or 0.5"))?;
    if wad > mint::MAX_LOSS_BASIS_USD * WAD {
        return Err(bad("must be at most 1000000000"));
    }
    Ok(wad)
}

/// PAPER minted for `basis` (wad) at the current point of the mint curve.
pub async fn paper_mint(http: &ExchangeHttp, basis: u128) -> Result<MintEstimate, AnswerError> {
    let summary = reads::summary(http).await?;
    Ok(mint::estimate(&summary, basis))
}
