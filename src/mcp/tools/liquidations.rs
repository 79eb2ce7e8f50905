//! The liquidation views (liquidations seed, and the risk service's previews of the same):
//! `report::liquidations`, over a bounded scan of the wallets with the most open notional.

use serde_json::Value;

use crate::analytics::liquidations::{
    DEFAULT_BUCKETS, DEFAULT_CLOSEST, DEFAULT_CLUSTERS, DEFAULT_WALLETS,
};
use crate::report::liquidations::{self as report, Gathered, gather, percent};
use crate::report::{ReportError, explorer};

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

fn fail(e: ReportError) -> Failure {
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

/// The named market's scan over the `wallets` largest: what the per-market tools start from.
async fn gather_market(reads: &Reads, a: &Args<'_>) -> Result<(String, Gathered), Failure> {
    let market = a.text("market").unwrap_or_default();
    let g = gather(
        &reads.http,
        Some(&market),
        number(a, "wallets", DEFAULT_WALLETS),
    )
    .await
    .map_err(fail)?;
    Ok((market, g))
}

async fn clusters(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let (market, g) = gather_market(reads, a).await?;
    let (value, m, _, _, summary) = report::clusters(
        &g,
        &market,
        a.text("bucketUsd").as_deref(),
        number(a, "clusters", DEFAULT_CLUSTERS),
    )
    .map_err(fail)?;
    let text = format!(
        "{}: {} cluster(s) of long busts below the mark, {} of short busts above; {}.",
        m.symbol,
        summary.longs.len(),
        summary.shorts.len(),
        coverage_text(&value)
    );
    Ok(Answer { text, value })
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
    let (market, g) = gather_market(reads, a).await?;
    let (value, m, _, _, map) =
        report::liquidation_map(&g, &market, a.text("bucketUsd").as_deref()).map_err(fail)?;
    let text = format!(
        "{}: the exchange serves no protocol-wide liquidation map (protocolMap.available is false); this is the scan's bust prices in {} bucket(s); {}.",
        m.symbol,
        map.buckets.len(),
        coverage_text(&value)
    );
    Ok(Answer { text, value })
}
