//! Each seed server's tools under its own names, argument names, ranges and result fields
//! (`../shared/seeds/`), each pointing at the implementation it shares with the others.

pub mod explorer;
pub mod liquidations;
pub mod risk;
pub mod sdk;
pub mod terminal;

use serde_json::Value;

use super::schema::{self, integer, number, one_of, string};
use crate::answers::input::{MAX_LEVERAGE, MAX_MARGIN_USD};

/// The arguments a quote of an open takes in every seed: market, side, margin, leverage.
fn ticket(market: Value, margin_min: Option<f64>) -> Vec<(&'static str, Value)> {
    vec![
        ("market", market),
        ("side", one_of("Position direction.", &["long", "short"])),
        (
            "marginUsd",
            number(
                "Margin in USD. Protocol minimum is 10.",
                margin_min,
                Some(MAX_MARGIN_USD as f64),
            ),
        ),
        (
            "leverage",
            integer(
                "Whole-number leverage, 1 up to the market maximum (1000 at launch).",
                Some(1),
                Some(MAX_LEVERAGE.into()),
            ),
        ),
    ]
}

fn btc_eth() -> Value {
    one_of("Market symbol.", &["BTC", "ETH"])
}

/// The browser terminal's market: any live symbol, 1 to 12 characters, case-insensitive.
fn any_market() -> Value {
    let mut v =
        string("Market symbol such as BTC (case-insensitive; list_markets has the live set).");
    v["minLength"] = 1.into();
    v["maxLength"] = 12.into();
    v
}

/// The output schema of a quote of an open: the SDK's fields, which the other seeds' include.
fn quote_output(extra: &[(&str, Value)], required: &[&str]) -> serde_json::Map<String, Value> {
    use schema::of;
    let mut fields = vec![
        ("market", of("string".into())),
        ("side", of("string".into())),
        ("entryPrice", of("number".into())),
        ("bustPrice", of("number".into())),
        ("bustPriceRaw", of("string".into())),
        ("notionalUsd", of("number".into())),
        ("notionalRaw", of("string".into())),
        ("distanceToBustPct", of("number".into())),
        (
            "openValidation",
            serde_json::json!({"type": "object", "properties": {
                "accepted": {"type": "boolean"}, "problem": {"type": ["string", "null"]}
            }, "required": ["accepted", "problem"]}),
        ),
        (
            "scenarios",
            serde_json::json!({"type": "array", "items": {"type": "object", "properties": {
                "exitPrice": {"type": "number"}, "netPnlUsd": {"type": "number"},
                "netPnlRaw": {"type": "string"}, "liquidated": {"type": "boolean"},
                "impactKeptFraction": {"type": "number"}, "keptFractionOfRawGain": {"type": "number"},
                "haircutNote": {"type": "string"},
                "paperMintBasisUsd": {"type": "number"}, "paperMintBasisRaw": {"type": "string"},
                "estimatedPaper": {"type": "number"}, "estimatedPaperRaw": {"type": "string"}
            }, "required": ["exitPrice", "netPnlUsd", "netPnlRaw", "liquidated"]}}),
        ),
        // The live mark, or why there is none.
        ("markPrice", of("number".into())),
        ("markError", of("string".into())),
    ];
    fields.extend(extra.iter().cloned());
    let mut req = vec![
        "market",
        "entryPrice",
        "bustPrice",
        "bustPriceRaw",
        "notionalUsd",
        "openValidation",
        "scenarios",
    ];
    req.extend(required);
    schema::output(&fields, &req)
}

/// The output schema of a market list.
fn markets_output(extra: &[(&str, Value)]) -> serde_json::Map<String, Value> {
    use schema::of;
    let mut fields = vec![
        ("tradingPaused", of("boolean".into())),
        ("indexedThroughBlock", of("integer".into())),
        (
            "limits",
            serde_json::json!({"type": "object", "properties": {
                "minMarginUsd": {"type": "number"}, "minNotionalUsd": {"type": "number"},
                "minMarginRaw": {"type": "string"}, "minNotionalRaw": {"type": "string"}
            }, "required": ["minMarginUsd", "minNotionalUsd", "minMarginRaw", "minNotionalRaw"]}),
        ),
        (
            "markets",
            serde_json::json!({"type": "array", "items": {"type": "object", "properties": {
                "symbol": {"type": "string"}, "id": {"type": "integer"},
                "markPrice": {"type": "number"}, "markPriceRaw": {"type": "string"},
                "markError": {"type": "string"}, "maxLeverage": {"type": "integer"},
                "status": {"type": "string"}, "openable": {"type": "boolean"},
                "closeOnly": {"type": "boolean"}, "paused": {"type": "boolean"},
                "maxPositionNotionalUsd": {"type": "number"}
            }, "required": ["symbol", "id", "maxLeverage", "status", "openable",
                            "closeOnly", "paused", "maxPositionNotionalUsd"]}}),
        ),
    ];
    fields.extend(extra.iter().cloned());
    schema::output(
        &fields,
        &["tradingPaused", "indexedThroughBlock", "limits", "markets"],
    )
}

/// The output schema of a wallet's positions (`positions --json`).
fn wallet_positions_output() -> serde_json::Map<String, Value> {
    use schema::of;
    let fields = [
        ("address", of("string".into())),
        ("balanceUsd", of("number".into())),
        ("balanceRaw", of("string".into())),
        ("availableUsd", of("number".into())),
        ("queuedUsd", of("number".into())),
        (
            "positions",
            serde_json::json!({"type": "array", "items": {"type": "object", "properties": {
                    "positionId": {"type": "string"}, "market": {"type": "string"},
                    "side": {"type": "string"}, "leverage": {"type": "integer"},
                    "marginUsd": {"type": "number"}, "marginRaw": {"type": "string"},
                    "notionalUsd": {"type": "number"}, "bustPriceRaw": {"type": "string"},
                    "distanceToLiquidationPct": {"type": "number"}, "markPrice": {"type": "number"},
                    "markError": {"type": "string"}
                }, "required": ["positionId", "market", "side", "leverage", "marginUsd",
                                "marginRaw", "notionalUsd", "bustPriceRaw"]}}),
        ),
        ("pendingOperations", of("array".into())),
        ("tradingEnabled", of("boolean".into())),
        (
            "sessionKey",
            serde_json::json!({"type": "object", "properties": {
                    "status": {"type": "string", "enum": ["active", "expired", "none"]},
                    "key": {"type": "string"}, "expiresAt": {"type": "integer"},
                    "active": {"type": "integer"}
                }, "required": ["status", "active"]}),
        ),
    ];
    let required = [
        "address",
        "balanceUsd",
        "balanceRaw",
        "availableUsd",
        "queuedUsd",
        "tradingEnabled",
        "positions",
        "pendingOperations",
    ];
    schema::output(&fields, &required)
}

/// `{"address": …}`, the one argument of the wallet-positions tools.
fn address_only(description: &str) -> serde_json::Map<String, Value> {
    schema::object(&[("address", schema::address(description))], &["address"])
}

/// The output schema of a scan-based liquidation view: its `fields` (arrays), the coverage and
/// what was scanned.
fn liquidation_output(fields: &[&str]) -> serde_json::Map<String, Value> {
    use schema::of;
    let mut props: Vec<(&str, Value)> = vec![
        ("market", of("string".into())),
        (
            "coverage",
            serde_json::json!({"type": "object", "properties": {"fraction": {"type": ["number", "null"]}}, "required": ["fraction"]}),
        ),
        ("scan", of("object".into())),
    ];
    props.extend(fields.iter().map(|f| (*f, of("array".into()))));
    let mut required = vec!["market", "coverage", "scan"];
    required.extend(fields);
    schema::output(&props, &required)
}

/// The output schema of one wallet's distance to bust.
fn wallet_risk_output() -> serde_json::Map<String, Value> {
    use schema::of;
    schema::output(
        &[
            ("wallet", of("string".into())),
            ("positions", of("array".into())),
            ("totals", of("object".into())),
            ("risk", of("object".into())),
        ],
        &["positions", "totals", "risk"],
    )
}

/// The output schema of the protocol's status (the SDK's and the terminal's names).
fn status_output() -> serde_json::Map<String, Value> {
    use schema::of;
    schema::output(
        &[
            ("healthy", of("boolean".into())),
            (
                "relayer",
                serde_json::json!({"type": "object", "properties": {"ready": {"type": "boolean"}}, "required": ["ready"]}),
            ),
            ("relayerOk", of("boolean".into())),
            ("relayerDetail", of("string".into())),
            ("tradingPaused", of("boolean".into())),
            ("acceptedActions", of("array".into())),
            ("minimumMarginUsd", of("number".into())),
            ("minimumMarginRaw", of("string".into())),
            ("minimumNotionalUsd", of("number".into())),
            ("minimumNotionalRaw", of("string".into())),
            (
                "notices",
                serde_json::json!({"type": "array", "maxItems": 5, "items": {"type": "object", "properties": {
                    "title": {"type": "string"}, "body": {"type": "string"}, "level": {"type": "string"}
                }, "required": ["title", "body", "level"]}}),
            ),
        ],
        &[
            "healthy",
            "relayer",
            "relayerOk",
            "relayerDetail",
            "tradingPaused",
            "acceptedActions",
            "minimumMarginUsd",
            "minimumMarginRaw",
            "minimumNotionalUsd",
            "minimumNotionalRaw",
            "notices",
        ],
    )
}
