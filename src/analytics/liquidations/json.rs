//! The liquidation figures as JSON, with the field names of the result shapes (the seed
//! names none): dollar figures as numbers rounded to cents beside their exact wads (`…Raw`),
//! prices as exact numbers beside their raw integers. One shape for the commands and the
//! assistant server.

use serde_json::{Map, Value, json};

use crate::protocol::pretrade::{fraction_json, percent_json};
use crate::protocol::units::{json_number, price_json, price_text, signed, wad_json};

use super::book::{AtRisk, Danger};
use super::buckets::{Bucket, BustMap, Cascade, ClusterSummary, LiquidationMap, Totals};
use super::coverage::Coverage;
use super::wallet::WalletRisk;

fn usd(wad: u128) -> Value {
    wad_json(signed(wad), 2)
}

fn usd_signed(wad: i128) -> Value {
    wad_json(wad, 2)
}

/// A signed raw price difference as an exact number of dollars.
fn price_delta(raw: i128, scale: u64) -> Value {
    let magnitude = u64::try_from(raw.unsigned_abs()).unwrap_or(u64::MAX);
    let text = price_text(magnitude, scale);
    json_number(&if raw < 0 && magnitude > 0 {
        format!("-{text}")
    } else {
        text
    })
}

fn side(is_long: bool) -> &'static str {
    if is_long { "long" } else { "short" }
}

/// Insert `name` (USD number) and `nameRaw` (exact wad string) from `name` ending in `Usd`.
fn put_usd(out: &mut Map<String, Value>, name: &str, wad: u128) {
    out.insert(name.into(), usd(wad));
    out.insert(
        format!("{}Raw", name.trim_end_matches("Usd")),
        json!(wad.to_string()),
    );
}

fn put_price(out: &mut Map<String, Value>, name: &str, raw: u64, scale: u64) {
    out.insert(name.into(), price_json(raw, scale));
    out.insert(format!("{name}Raw"), json!(raw.to_string()));
}

/// One position: `wallet, positionId, market, side, leverage, marginUsd, notionalUsd, entryPrice,
/// bustPrice, markPrice, distanceToBustPct, distanceToBustUsd`, the raw integers and the danger.
pub fn position(p: &AtRisk) -> Value {
    let mut o = Map::new();
    o.insert("wallet".into(), json!(format!("{:#x}", p.wallet)));
    o.insert("positionId".into(), json!(p.position_id.to_string()));
    o.insert("market".into(), json!(p.symbol));
    o.insert("side".into(), json!(side(p.is_long)));
    o.insert("leverage".into(), json!(p.leverage));
    put_usd(&mut o, "marginUsd", p.margin);
    put_usd(&mut o, "notionalUsd", p.notional);
    put_price(&mut o, "entryPrice", p.entry, p.price_scale);
    put_price(&mut o, "bustPrice", p.bust, p.price_scale);
    put_price(&mut o, "markPrice", p.mark, p.price_scale);
    o.insert(
        "distanceToBustPct".into(),
        percent_json(p.room(), u128::from(p.mark), 4),
    );
    o.insert(
        "distanceToBustUsd".into(),
        price_delta(p.room(), p.price_scale),
    );
    o.insert("distanceToBustRaw".into(), json!(p.room().to_string()));
    o.insert("danger".into(), json!(p.danger().label()));
    Value::Object(o)
}

/// `{fraction, scannedNotionalUsd, totalNotionalUsd}` (+ raw wads). The fraction is 0 when the
/// markets report no open interest.
pub fn coverage(c: &Coverage) -> Value {
    let mut o = Map::new();
    o.insert(
        "fraction".into(),
        fraction_json(signed(c.scanned_usd), c.total_usd, 4),
    );
    put_usd(&mut o, "scannedNotionalUsd", c.scanned_usd);
    put_usd(&mut o, "totalNotionalUsd", c.total_usd);
    Value::Object(o)
}

fn totals(t: &Totals) -> Value {
    let mut o = Map::new();
    put_usd(&mut o, "longNotionalUsd", t.long_notional);
    put_usd(&mut o, "shortNotionalUsd", t.short_notional);
    o.insert("positions".into(), json!(t.positions()));
    o.insert("longPositions".into(), json!(t.long_positions));
    o.insert("shortPositions".into(), json!(t.short_positions));
    Value::Object(o)
}

fn bucket(b: &Bucket, scale: u64) -> Value {
    let mut o = Map::new();
    put_price(&mut o, "priceLow", b.low, scale);
    put_price(&mut o, "priceHigh", b.high, scale);
    put_usd(&mut o, "longNotionalUsd", b.totals.long_notional);
    put_usd(&mut o, "shortNotionalUsd", b.totals.short_notional);
    o.insert("positions".into(), json!(b.totals.positions()));
    put_usd(&mut o, "cumulativeLongNotionalUsd", b.cumulative_long);
    put_usd(&mut o, "cumulativeShortNotionalUsd", b.cumulative_short);
    Value::Object(o)
}

/// `{percent, longNotionalUsd, shortNotionalUsd, positions}` and the moved marks.
pub fn cascade(c: &Cascade, scale: u64) -> Value {
    let mut o = Map::new();
    o.insert(
        "percent".into(),
        percent_json(i128::from(c.percent_e2), 10_000, 2),
    );
    put_price(&mut o, "downPrice", c.down_price, scale);
    put_price(&mut o, "upPrice", c.up_price, scale);
    if let Value::Object(t) = totals(&c.totals) {
        o.extend(t);
    }
    Value::Object(o)
}

pub fn bust_map(market: &str, m: &BustMap, cov: &Coverage) -> Value {
    let scale = m.price_scale;
    json!({
        "market": market,
        "markPrice": price_json(m.mark, scale),
        "markPriceRaw": m.mark.to_string(),
        "bucketUsd": price_json(m.bucket, scale),
        "bucketRaw": m.bucket.to_string(),
        "buckets": m.buckets.iter().map(|b| bucket(b, scale)).collect::<Vec<_>>(),
        "outsideBuckets": totals(&m.outside),
        "pastBust": totals(&m.past_bust),
        "totals": totals(&m.all),
        "cascade": m.cascade.as_ref().map(|c| cascade(c, scale)),
        "coverage": coverage(cov),
    })
}

pub fn liquidation_map(market: &str, m: &LiquidationMap, cov: &Coverage) -> Value {
    let scale = m.price_scale;
    json!({
        "market": market,
        "markPrice": price_json(m.mark, scale),
        "markPriceRaw": m.mark.to_string(),
        "bucketUsd": price_json(m.bucket, scale),
        "bucketRaw": m.bucket.to_string(),
        "buckets": m.buckets.iter().map(|b| bucket(b, scale)).collect::<Vec<_>>(),
        "pastBust": totals(&m.past_bust),
        "totals": totals(&m.all),
        "coverage": coverage(cov),
    })
}

pub fn clusters(market: &str, c: &ClusterSummary, cov: &Coverage) -> Value {
    let scale = c.price_scale;
    let side = |list: &[super::buckets::Cluster], long: bool| -> Vec<Value> {
        list.iter()
            .enumerate()
            .map(|(i, k)| {
                let distance = if long {
                    i128::from(c.mark) - i128::from(k.weighted_bust)
                } else {
                    i128::from(k.weighted_bust) - i128::from(c.mark)
                };
                let mut o = Map::new();
                o.insert("rank".into(), json!(i + 1));
                put_price(&mut o, "priceLow", k.low, scale);
                put_price(&mut o, "priceHigh", k.high, scale);
                put_usd(&mut o, "notionalUsd", k.notional);
                o.insert("positions".into(), json!(k.positions));
                put_price(&mut o, "weightedBustPrice", k.weighted_bust, scale);
                o.insert(
                    "distanceFromMarkPct".into(),
                    percent_json(distance, u128::from(c.mark), 4),
                );
                o.insert("distanceFromMarkUsd".into(), price_delta(distance, scale));
                Value::Object(o)
            })
            .collect()
    };
    json!({
        "market": market,
        "markPrice": price_json(c.mark, scale),
        "markPriceRaw": c.mark.to_string(),
        "bucketUsd": price_json(c.bucket, scale),
        "bucketRaw": c.bucket.to_string(),
        "longClusters": side(&c.longs, true),
        "shortClusters": side(&c.shorts, false),
        "totals": totals(&c.all),
        "coverage": coverage(cov),
    })
}

/// The ranked list, each row with its 1-based rank.
pub fn closest(ranked: &[&AtRisk]) -> Vec<Value> {
    ranked
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut row = position(p);
            if let Value::Object(o) = &mut row {
                let mut ranked = Map::new();
                ranked.insert("rank".into(), json!(i + 1));
                ranked.extend(std::mem::take(o));
                *o = ranked;
            }
            row
        })
        .collect()
}

/// `get_wallet_distance_to_bust`'s positions and totals, and `preview_wallet_risk`'s summary.
pub fn wallet_risk(w: &WalletRisk) -> Value {
    let positions: Vec<Value> = w
        .positions
        .iter()
        .map(|p| {
            let mut row = position(&p.at);
            row["closePaysUsd"] = usd_signed(p.close_pays);
            row["closePaysRaw"] = json!(p.close_pays.to_string());
            row["closeNetPnlUsd"] = usd_signed(p.close_net_pnl);
            row["closeNetPnlRaw"] = json!(p.close_net_pnl.to_string());
            row
        })
        .collect();
    let nearest = w.positions.first().map(|p| {
        json!({
            "positionId": p.at.position_id.to_string(),
            "market": p.at.symbol,
            "side": side(p.at.is_long),
            "distanceToBustPct": percent_json(p.at.room(), u128::from(p.at.mark), 4),
            "danger": p.at.danger().label(),
        })
    });
    let mut by_danger = Map::new();
    for (d, n) in Danger::ALL.iter().zip(w.by_danger) {
        by_danger.insert(d.label().into(), json!(n));
    }
    let mut totals = Map::new();
    totals.insert("positions".into(), json!(w.positions.len()));
    put_usd(&mut totals, "marginUsd", w.locked);
    put_usd(&mut totals, "notionalUsd", w.notional);
    totals.insert("closePaysUsd".into(), usd_signed(w.close_pays));
    totals.insert("closePaysRaw".into(), json!(w.close_pays.to_string()));
    totals.insert("closeNetPnlUsd".into(), usd_signed(w.close_net_pnl));
    totals.insert("closeNetPnlRaw".into(), json!(w.close_net_pnl.to_string()));
    let mut risk = Map::new();
    put_usd(&mut risk, "balanceUsd", w.balance);
    put_usd(&mut risk, "availableUsd", w.available);
    put_usd(&mut risk, "queuedUsd", w.queued);
    put_usd(&mut risk, "lockedUsd", w.locked);
    risk.insert("equityUsd".into(), usd_signed(w.equity));
    risk.insert("equityRaw".into(), json!(w.equity.to_string()));
    risk.insert(
        "effectiveLeverage".into(),
        if w.equity > 0 {
            fraction_json(signed(w.notional), w.equity.unsigned_abs(), 2)
        } else {
            Value::Null
        },
    );
    risk.insert(
        "danger".into(),
        json!(w.worst().map(Danger::label).unwrap_or("none")),
    );
    risk.insert("byDanger".into(), Value::Object(by_danger));
    risk.insert("nearest".into(), nearest.unwrap_or(Value::Null));
    risk.insert("unvaluedPositions".into(), json!(w.unvalued));
    json!({
        "wallet": format!("{:#x}", w.address),
        "positions": positions,
        "totals": Value::Object(totals),
        "risk": Value::Object(risk),
    })
}
