//! The liquidations service's server (seed `004_…`).

use serde_json::{Value, json};

use super::super::schema::{self, address, integer, number, of, one_of};
use super::super::spec::{Seed, ToolSpec};
use super::super::tools::{BustMapView, Implementation};
use super::{liquidation_output, wallet_risk_output};

fn spec(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: serde_json::Map<String, Value>,
    output: serde_json::Map<String, Value>,
    implementation: Implementation,
) -> ToolSpec {
    ToolSpec {
        name,
        seed: Seed::Liquidations,
        title,
        description,
        input,
        output,
        open_world: true,
        implementation,
    }
}

fn market() -> Value {
    one_of("Market symbol.", &["BTC", "ETH"])
}

/// `market` where the seed makes it optional: absent, every market.
fn optional_market() -> Value {
    one_of("Market symbol; every market when absent.", &["BTC", "ETH"])
}

/// A per-market view's output schema with what an every-market answer adds: `market` is then
/// `all`, `markets` each market's own answer and `unavailable` the markets that could not be read.
fn every_market(mut o: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    o["properties"]["markets"] = json!({"type": "array", "items": {"type": "object"}});
    o["properties"]["unavailable"] = json!({"type": "array", "items": {"type": "object", "properties": {
        "market": {"type": "string"}, "reason": {"type": "string"}
    }, "required": ["market", "reason"]}});
    o
}

fn wallets() -> Value {
    integer(
        "Wallets to scan, most open notional first (1 to 44, default 20).",
        Some(1),
        Some(44),
    )
}

fn bucket() -> Value {
    schema::number_above(
        "Bucket size in USD, more than 0 (default about 0.25% of the mark).",
        0.0,
        None,
    )
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        spec(
            "get_bust_map",
            "Bust map",
            "BTC or ETH liquidation map: bust notional per price bucket around the mark, the share of the protocol's open interest the scan covers, and optionally the cascade of a percent move. Exact per position for the wallets scanned.",
            schema::object(
                &[
                    ("market", market()),
                    ("bucketUsd", bucket()),
                    ("wallets", wallets()),
                    (
                        "cascadePercent",
                        number(
                            "Also what a move of this many percent either way would bust (0 to 25).",
                            Some(0.0),
                            Some(25.0),
                        ),
                    ),
                    (
                        "maxBuckets",
                        integer(
                            "Buckets in the window around the mark (1 to 200).",
                            Some(1),
                            Some(200),
                        ),
                    ),
                ],
                &["market"],
            ),
            liquidation_output(&["buckets"]),
            Implementation::BustMap(BustMapView::Map),
        ),
        spec(
            "get_closest_to_bust",
            "Closest to bust",
            "Open positions of the scanned wallets ranked by distance to their bust price, filterable by market, side and maximum distance.",
            schema::object(
                &[
                    (
                        "market",
                        one_of("Market symbol or all.", &["BTC", "ETH", "all"]),
                    ),
                    ("limit", integer("How many (1 to 50).", Some(1), Some(50))),
                    ("side", one_of("Position side.", &["long", "short", "both"])),
                    (
                        "maxDistancePercent",
                        number(
                            "Only positions at most this many percent from their bust.",
                            Some(0.0),
                            Some(1000.0),
                        ),
                    ),
                    ("wallets", wallets()),
                ],
                &[],
            ),
            liquidation_output(&["positions"]),
            Implementation::ClosestToBust,
        ),
        spec(
            "get_bust_cluster_summary",
            "Bust clusters",
            "The largest clusters of bust prices on each side of the mark, with notional and distance from the mark. Without market, every market over one scan: each cluster says its market, and markets has each market's summary.",
            schema::object(
                &[
                    ("market", optional_market()),
                    ("wallets", wallets()),
                    (
                        "clusters",
                        integer("Clusters per side (1 to 10).", Some(1), Some(10)),
                    ),
                ],
                &[],
            ),
            every_market(liquidation_output(&["longClusters", "shortClusters"])),
            Implementation::BustClusters,
        ),
        spec(
            "get_wallet_distance_to_bust",
            "Wallet distance to bust",
            "Every open position of one wallet with its bust price, distance in percent and dollars, and danger label, plus the account-level risk.",
            schema::object(
                &[("wallet", address("Wallet: 0x plus 40 hex characters."))],
                &["wallet"],
            ),
            wallet_risk_output(),
            Implementation::WalletRisk("wallet"),
        ),
        spec(
            "get_protocol_liquidation_map",
            "Protocol liquidation map",
            "A market's liquidation map over the whole price range, regrouped onto a bucket size; without market, every market's (each bucket says its market, and markets has each market's map). The exchange serves no protocol-wide map: the result says so (protocolMap.available false) and gives the scan's map instead.",
            schema::object(
                &[("market", optional_market()), ("bucketUsd", bucket())],
                &[],
            ),
            {
                let mut o = every_market(liquidation_output(&["buckets"]));
                o["properties"]["protocolMap"] = of("object".into());
                o["required"]
                    .as_array_mut()
                    .expect("required")
                    .push(json!("protocolMap"));
                o
            },
            Implementation::LiquidationMap,
        ),
    ]
}
