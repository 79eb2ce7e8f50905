//! The liquidation views (liquidations seed, and the risk service's previews of the same):
//! `report::liquidations`, over a bounded scan of the wallets with the most open notional.

use serde_json::{Value, json};

use crate::analytics::liquidations::{
    DEFAULT_BUCKETS, DEFAULT_CLOSEST, DEFAULT_CLUSTERS, DEFAULT_WALLETS,
};
use crate::answers::liquidations::{self as report, Gathered, gather, percent};
use crate::answers::{AnswerError, explorer};

use super::{Answer, Args, Failure, Implementation, Reads};

/// One of the liquidation tools.
pub(super) async fn call(
    implementation: Implementation,
    reads: &Reads,
    a: &Args<'_>,
) -> Result<Answer, Failure> {
    match implementation {
        Implementation::BustMap(view) => bust_map(reads, view, a).await,
        Implementation::ClosestToBust => closest(reads, a).await,
        Implementation::BustClusters => clusters(reads, a).await,
        Implementation::WalletRisk(field) => wallet_distance(reads, field, a).await,
        Implementation::LiquidationMap => liquidation_map(reads, a).await,
        _ => Err(Failure("not a liquidation tool".into())),
    }
}

fn fail(e: AnswerError) -> Failure {
    Failure::from_report(
        e,
        &[
            ("bucket-usd", "bucketUsd"),
            ("cascade-percent", "cascadePercent"),
            ("max-distance-percent", "maxDistancePercent"),
            ("<ADDR>", "wallet"),
        ],
    )
}

fn number(a: &Args, name: &str, default: usize) -> usize {
    a.get(name)
        .and_then(Value::as_u64)
        .map_or(default, |n| n as usize)
}

fn coverage_text(v: &Value) -> String {
    format!(
        "the scan covers {}% of open interest",
        v["coverage"]["fraction"]
            .as_f64()
            .map_or("an unknown share".into(), |f| format!("{:.1}", f * 100.0))
    )
}

/// Which seed's bust map: the liquidations service's, or the risk preview of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BustMapView {
    /// `get_bust_map`: market, bucketUsd, wallets, cascadePercent, maxBuckets.
    Map,
    /// `preview_liquidations_nearby`: market, pct, accounts.
    Nearby,
}

async fn bust_map(reads: &Reads, view: BustMapView, a: &Args<'_>) -> Result<Answer, Failure> {
    let market = a.text("market").unwrap_or_default();
    let (cascade, wallets) = match view {
        BustMapView::Map => ("cascadePercent", number(a, "wallets", DEFAULT_WALLETS)),
        BustMapView::Nearby => ("pct", number(a, "accounts", 5)),
    };
    let cascade = a
        .text(cascade)
        .map(|t| {
            percent(
                "cascade-percent",
                &t,
                2,
                crate::analytics::liquidations::MAX_CASCADE_PERCENT,
            )
        })
        .transpose()
        .map_err(fail)?
        .map(|p| p as u32);
    let g = gather(&reads.http, Some(&market), wallets)
        .await
        .map_err(fail)?;
    let (value, m, _, _, map) = report::bust_map(
        &g,
        &market,
        a.text("bucketUsd").as_deref(),
        cascade,
        number(a, "maxBuckets", DEFAULT_BUCKETS),
    )
    .map_err(fail)?;
    let cascade_text = map.cascade.as_ref().map_or(String::new(), |c| {
        format!(
            " A {}% move busts {} long and {} short position(s) (cascade).",
            f64::from(c.percent_e2) / 100.0,
            c.totals.long_positions,
            c.totals.short_positions
        )
    });
    let text = format!(
        "{} bust map: {} bucket(s) around the mark; {}.{}",
        m.symbol,
        map.buckets.len(),
        coverage_text(&value),
        cascade_text
    );
    Ok(Answer { text, value })
}

async fn closest(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let market = a.text("market").unwrap_or_else(|| "all".into());
    let all = report::is_all(&market);
    let g = gather(
        &reads.http,
        (!all).then_some(market.as_str()),
        number(a, "wallets", DEFAULT_WALLETS),
    )
    .await
    .map_err(fail)?;
    let (value, ranked) = report::closest(
        &g,
        &market,
        a.text("side").as_deref().unwrap_or("both"),
        a.text("maxDistancePercent").as_deref(),
        number(a, "limit", DEFAULT_CLOSEST),
    )
    .map_err(fail)?;
    let text = format!(
        "{} position(s) closest to their bust price ({} market(s)); {}.",
        ranked.len(),
        value["market"].as_str().unwrap_or(""),
        coverage_text(&value)
    );
    Ok(Answer { text, value })
}

/// A per-market view (`clusters`, `liquidation_map`) of the named market, or of every listed
/// market when none is named, as the seeds take `market` as optional. One scan serves all.
/// `view` answers one market: its JSON (scan included) and a sentence.
async fn per_market(
    reads: &Reads,
    a: &Args<'_>,
    rows: &[&str],
    view: impl Fn(&Gathered, &str) -> Result<(Value, String), AnswerError>,
) -> Result<Answer, Failure> {
    let market = a.text("market");
    let g = gather(
        &reads.http,
        market.as_deref(),
        number(a, "wallets", DEFAULT_WALLETS),
    )
    .await
    .map_err(fail)?;
    if let Some(market) = market {
        let (value, text) = view(&g, &market).map_err(fail)?;
        return Ok(Answer {
            text: format!("{text}; {}.", coverage_text(&value)),
            value,
        });
    }
    let symbols: Vec<String> = g
        .data
        .state
        .instruments
        .iter()
        .map(|m| m.symbol.clone())
        .collect();
    let mut value = json!({"market": "all"});
    let mut markets = Vec::new();
    let mut unavailable = Vec::new();
    let mut texts = Vec::new();
    for symbol in &symbols {
        match view(&g, symbol) {
            Ok((mut one, text)) => {
                // Each market's rows, in market order, each saying its market.
                for field in rows {
                    for row in one[*field].as_array().into_iter().flatten() {
                        let mut row = row.clone();
                        row["market"] = json!(symbol);
                        push(&mut value, field, row);
                    }
                }
                if let Some(o) = one.as_object_mut() {
                    o.remove("scan");
                    o.remove("parameters");
                }
                markets.push(one);
                texts.push(text);
            }
            Err(e) => {
                unavailable.push(json!({"market": symbol, "reason": fail(e).0}));
            }
        }
    }
    if markets.is_empty() {
        return Err(Failure(format!(
            "No market could be read: {}. Try again in a minute, or name a market.",
            unavailable
                .iter()
                .filter_map(|u| u["reason"].as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    for field in rows {
        if value.get(*field).is_none() {
            value[*field] = json!([]);
        }
    }
    if let Some(protocol) = markets[0].get("protocolMap") {
        value["protocolMap"] = protocol.clone();
    }
    value["coverage"] = crate::analytics::liquidations::json::coverage(&g.coverage(None));
    value["markets"] = Value::Array(markets);
    value["unavailable"] = Value::Array(unavailable);
    let value = report::with_scan(value, &g);
    Ok(Answer {
        text: format!(
            "Every market (no market named): {}; {}.",
            texts.join("; "),
            coverage_text(&value)
        ),
        value,
    })
}

fn push(value: &mut Value, field: &str, row: Value) {
    match value[field].as_array_mut() {
        Some(list) => list.push(row),
        None => value[field] = json!([row]),
    }
}

async fn clusters(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let count = number(a, "clusters", DEFAULT_CLUSTERS);
    per_market(reads, a, &["longClusters", "shortClusters"], |g, market| {
        let (value, m, _, _, summary) =
            report::clusters(g, market, a.text("bucketUsd").as_deref(), count)?;
        let text = format!(
            "{}: {} cluster(s) of long busts below the mark, {} of short busts above",
            m.symbol,
            summary.longs.len(),
            summary.shorts.len(),
        );
        Ok((value, text))
    })
    .await
}

async fn wallet_distance(reads: &Reads, field: &str, a: &Args<'_>) -> Result<Answer, Failure> {
    let wallet = explorer::wallet(field, &a.text(field).unwrap_or_default())
        .map_err(|e| Failure::from_report(e, &[]))?;
    let (value, risk) = report::wallet_risk(&reads.http, wallet)
        .await
        .map_err(fail)?;
    let text = format!(
        "Wallet {:#x}: {} open position(s), worst danger {}. Read-only.",
        wallet,
        risk.positions.len(),
        risk.worst().map_or("none", |d| d.label())
    );
    Ok(Answer { text, value })
}

async fn liquidation_map(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    per_market(reads, a, &["buckets"], |g, market| {
        let (value, m, _, _, map) =
            report::liquidation_map(g, market, a.text("bucketUsd").as_deref())?;
        let text = format!(
            "{}: the exchange serves no protocol-wide liquidation map (protocolMap.available is false); this is the scan's bust prices in {} bucket(s)",
            m.symbol,
            map.buckets.len(),
        );
        Ok((value, text))
    })
    .await
}
