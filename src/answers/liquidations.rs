//! The liquidation views (`bust-map`, `closest-to-bust`, `bust-clusters`, `wallet-risk`,
//! `liquidation-map`, and the assistant tools that give them): a scan of the wallets with the
//! most open notional, then `analytics::liquidations`. Every figure goes with its coverage.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::analytics::liquidations::{
    self as liq, AtRisk, Book, ClosestQuery, Coverage, json as out_json,
};
use crate::client::ExchangeHttp;
use crate::client::market_data::MarketData;
use crate::client::scan::{SNAPSHOT_TIMEOUT, scan, snapshot};
use crate::events::scan::Scan;
use crate::protocol::trading::Instrument;
use crate::protocol::units::{DecimalError, parse_scaled};
use crate::text::sanitize_line;

use super::{AnswerError, input};

/// Where a protocol-wide map would come from, and why it does not here.
pub const NO_PROTOCOL_MAP: &str = "not available from this exchange: no protocol-wide liquidation map \
     endpoint is known (protocol.md §3, §10); this map is derived from the scan";

/// A percentage with at most `decimals` places, 0 to `max`, as an integer at 10^decimals.
pub fn percent(field: &str, text: &str, decimals: u32, max: u32) -> Result<u128, AnswerError> {
    let bad = |why: String| AnswerError::input(field, why);
    if text.trim_start().starts_with('-') {
        return Err(bad(format!("must be 0 to {max}, got {text:?}")));
    }
    let value = parse_scaled(text, decimals).map_err(|e| match e {
        DecimalError::TooPrecise(_) => bad(format!(
            "has more than {decimals} decimal places, got {text:?}"
        )),
        _ => bad(format!(
            "must be a percentage from 0 to {max}, got {text:?}"
        )),
    })?;
    if value > u128::from(max) * 10u128.pow(decimals) {
        return Err(bad(format!("must be 0 to {max}, got {text:?}")));
    }
    Ok(value)
}

/// The bucket in raw price units: the given USD size (at most the market's price decimals), or
/// the default for the mark.
pub fn bucket(text: Option<&str>, market: &Instrument, mark: u64) -> Result<u64, AnswerError> {
    match text {
        Some(t) => Ok(input::price("bucket-usd", t, market)?),
        None => Ok(liq::default_bucket(mark)),
    }
}

/// The market data and the scan, with the market named (checked against the live list).
pub struct Gathered {
    pub data: MarketData,
    pub scan: Scan,
    pub wallets: usize,
    pub book: Book,
    pub marks: BTreeMap<u32, u64>,
}

pub async fn gather(
    http: &ExchangeHttp,
    market: Option<&str>,
    wallets: usize,
) -> Result<Gathered, AnswerError> {
    let data = MarketData::live(http, market).await?;
    if let Some(m) = market {
        input::market(&data.state, m)?;
    }
    let scan = scan(http, wallets).await?;
    let marks = data.known_marks();
    let book = liq::book(&scan.accounts(wallets), &data.state, &marks);
    Ok(Gathered {
        data,
        scan,
        wallets,
        book,
        marks,
    })
}

impl Gathered {
    pub fn market(&self, name: &str) -> Result<(&Instrument, u64), AnswerError> {
        let m = input::market(&self.data.state, name)?;
        let mark = self.data.mark(m).map_err(|e| {
            AnswerError::Network(format!(
                "no live mark for {}: {e}",
                sanitize_line(&m.symbol, 24)
            ))
        })?;
        Ok((m, mark))
    }

    pub fn positions(&self, instrument_id: u32) -> Vec<&AtRisk> {
        self.book.in_market(Some(instrument_id)).collect()
    }

    pub fn coverage(&self, instrument_id: Option<u32>) -> Coverage {
        liq::coverage(&self.book, &self.data.state, &self.marks, instrument_id)
    }

    /// What was scanned, for JSON.
    pub fn scan_json(&self) -> Value {
        let failed: Vec<Value> = self
            .scan
            .failures(self.wallets)
            .into_iter()
            .map(|(w, why)| json!({"wallet": format!("{w:#x}"), "reason": why}))
            .collect();
        json!({
            "rankedBy": "currentOpenNotional",
            "walletsRequested": self.wallets,
            "walletsListed": self.scan.wallets.len().min(self.wallets),
            "walletsScanned": self.scan.accounts(self.wallets).len(),
            "walletsFailed": failed,
            "leaderboardAccounts": self.scan.leaderboard_accounts,
            "positionsValued": self.book.positions.len(),
            "positionsUnvalued": self.book.unvalued,
            "tookMs": self.scan.took.as_millis() as u64,
        })
    }
}

pub fn with_scan(mut value: Value, g: &Gathered) -> Value {
    value["scan"] = g.scan_json();
    value["parameters"] = g.data.parameters_json();
    value
}

/// `bust-map`: bust notional per bucket around the mark, and the cascade of a move.
pub fn bust_map(
    g: &Gathered,
    market: &str,
    bucket_usd: Option<&str>,
    cascade_e2: Option<u32>,
    max_buckets: usize,
) -> Result<(Value, Instrument, u64, u64, liq::BustMap), AnswerError> {
    let (m, mark) = g.market(market)?;
    let bucket = bucket(bucket_usd, m, mark)?;
    let map = liq::bust_map(
        &g.positions(m.id),
        mark,
        m.price_scale,
        bucket,
        max_buckets,
        cascade_e2,
    );
    let cov = g.coverage(Some(m.id));
    let value = with_scan(out_json::bust_map(&m.symbol, &map, &cov), g);
    Ok((value, m.clone(), mark, bucket, map))
}

/// `closest-to-bust`: the scanned positions ranked by distance to their bust.
pub fn closest<'a>(
    g: &'a Gathered,
    market: &str,
    side: &str,
    max_distance_percent: Option<&str>,
    limit: usize,
) -> Result<(Value, Vec<&'a AtRisk>), AnswerError> {
    let is_long = match side.trim().to_ascii_lowercase().as_str() {
        "both" => None,
        _ => Some(input::side(side).map_err(|_| {
            AnswerError::input(
                "side",
                format!(
                    "must be long, short or both, got {:?}",
                    sanitize_line(side, 24)
                ),
            )
        })?),
    };
    let max_distance_e5 = max_distance_percent
        .map(|t| percent("max-distance-percent", t, 5, 1_000))
        .transpose()?;
    let instrument_id = if is_all(market) {
        None
    } else {
        Some(input::market(&g.data.state, market)?.id)
    };
    let q = ClosestQuery {
        instrument_id,
        is_long,
        max_distance_e5,
        limit,
    };
    let ranked = liq::closest(&g.book, &q);
    let cov = g.coverage(instrument_id);
    let value = json!({
        "market": instrument_id.map_or("all".to_string(), |id| g.data.state.market_by_id(id).map(|m| m.symbol.clone()).unwrap_or_default()),
        "side": is_long.map_or("both", input::side_label),
        "positions": out_json::closest(&ranked),
        "coverage": out_json::coverage(&cov),
    });
    Ok((with_scan(value, g), ranked))
}

/// `all` (any case) names every market.
pub fn is_all(market: &str) -> bool {
    market.trim().eq_ignore_ascii_case("all")
}

/// `bust-clusters`: the largest clusters of bust prices each side of the mark.
pub fn clusters(
    g: &Gathered,
    market: &str,
    bucket_usd: Option<&str>,
    count: usize,
) -> Result<(Value, Instrument, u64, u64, liq::ClusterSummary), AnswerError> {
    let (m, mark) = g.market(market)?;
    let bucket = bucket(bucket_usd, m, mark)?;
    let summary = liq::clusters(&g.positions(m.id), mark, m.price_scale, bucket, count);
    let cov = g.coverage(Some(m.id));
    let value = with_scan(out_json::clusters(&m.symbol, &summary, &cov), g);
    Ok((value, m.clone(), mark, bucket, summary))
}

/// `liquidation-map`: the scan's bust prices over the whole range on one bucket size; the
/// protocol-wide map is not served by this exchange, and the result says so.
pub fn liquidation_map(
    g: &Gathered,
    market: &str,
    bucket_usd: Option<&str>,
) -> Result<(Value, Instrument, u64, u64, liq::LiquidationMap), AnswerError> {
    let (m, mark) = g.market(market)?;
    let bucket = bucket(bucket_usd, m, mark)?;
    let map = liq::liquidation_map(&g.positions(m.id), mark, m.price_scale, bucket);
    let cov = g.coverage(Some(m.id));
    let mut value = out_json::liquidation_map(&m.symbol, &map, &cov);
    value["protocolMap"] = json!({"available": false, "reason": NO_PROTOCOL_MAP});
    Ok((with_scan(value, g), m.clone(), mark, bucket, map))
}

/// `wallet-risk`: one wallet's positions with bust, distance and danger, and its account risk.
pub async fn wallet_risk(
    http: &ExchangeHttp,
    wallet: alloy_primitives::Address,
) -> Result<(Value, liq::WalletRisk), AnswerError> {
    let data = MarketData::live(http, None).await?;
    let account = tokio::time::timeout(SNAPSHOT_TIMEOUT, snapshot(http, wallet))
        .await
        .unwrap_or_else(|_| Err("no snapshot in time".into()))
        .map_err(|e| AnswerError::Network(format!("account stream of {wallet:#x}: {e}")))?;
    let risk = liq::wallet_risk(&account, &data.state, &data.known_marks());
    let mut value = out_json::wallet_risk(&risk);
    value["parameters"] = data.parameters_json();
    Ok((value, risk))
}
