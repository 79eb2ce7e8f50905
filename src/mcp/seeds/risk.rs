//! The risk service's server (seed `003_…`): its free previews, status, and its four paid tools,
//! which the hosted service answers with x402 payment requirements for its HTTP routes and this
//! server answers in full, free (`tools::Paid`; `mcp --http` serves the routes too).

use super::super::schema::{self, number, number_above};
use super::super::spec::{Seed, ToolSpec};
use super::super::tools::{
    BustMapView, FREE, Implementation, MarketsView, NO_PAYMENT, Paid, QuoteView, StatusView,
    X402_VERSION,
};
use super::{
    btc_eth, liquidation_output, markets_output, quote_output, status_output, ticket,
    wallet_risk_output,
};

fn estimate_input() -> serde_json::Map<String, serde_json::Value> {
    let mut estimate = ticket(btc_eth(), Some(0.01));
    estimate.extend([
        (
            "exitPrice",
            number_above("Exit price in USD for a single scenario.", 0.0, None),
        ),
        (
            "exitMovePct",
            number_above(
                "Signed price move from entry in percent (0.1 is +0.1%), above -100 (a price stays above 0). Alternative to exitPrice.",
                -100.0,
                Some(100.0),
            ),
        ),
    ]);
    schema::object(&estimate, &["market", "side", "marginUsd", "leverage"])
}

fn top_traders_input() -> serde_json::Map<String, serde_json::Value> {
    schema::object(
        &[
            (
                "window",
                super::super::schema::one_of("PnL window.", &["24h", "7d", "30d", "all"]),
            ),
            (
                "limit",
                super::super::schema::integer("How many traders, 1 to 25.", Some(1), Some(25)),
            ),
        ],
        &[],
    )
}

fn top_traders_output() -> serde_json::Map<String, serde_json::Value> {
    schema::output(
        &[
            ("window", super::super::schema::of("string".into())),
            ("traders", super::super::schema::of("array".into())),
        ],
        &["window", "traders"],
    )
}

fn wallet_input() -> serde_json::Map<String, serde_json::Value> {
    schema::object(
        &[(
            "address",
            schema::address("Wallet: 0x plus 40 hex characters."),
        )],
        &["address"],
    )
}

fn nearby_input(accounts: &str) -> serde_json::Map<String, serde_json::Value> {
    schema::object(
        &[
            ("market", btc_eth()),
            (
                "pct",
                number(
                    "Move in percent either way (0 to 25).",
                    Some(0.0),
                    Some(25.0),
                ),
            ),
            (
                "accounts",
                super::super::schema::integer(accounts, Some(1), Some(25)),
            ),
        ],
        &["market"],
    )
}

/// A paid tool's result: the hosted seed's fields (`status`, here no payment needed;
/// `x402Version` with an empty `accepts`; `price` nothing; `request`, the HTTP route that gets
/// the same answer; `howToPay`, that nothing is to be paid; a `note`), and the full answer in
/// `result`.
fn paid_output(
    result: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    schema::output(
        &[
            (
                "status",
                serde_json::json!({"type": "string", "enum": [NO_PAYMENT]}),
            ),
            (
                "x402Version",
                serde_json::json!({"type": "integer", "enum": [X402_VERSION]}),
            ),
            (
                "accepts",
                serde_json::json!({"type": "array", "maxItems": 0}),
            ),
            (
                "price",
                serde_json::json!({"type": "string", "enum": [FREE]}),
            ),
            ("howToPay", super::super::schema::of("string".into())),
            (
                "request",
                serde_json::json!({"type": "object", "properties": {
                    "method": {"type": "string", "enum": ["GET", "POST"]},
                    "path": {"type": "string"},
                    "contentType": {"type": "string"},
                    "body": {"type": "object"}
                }, "required": ["method", "path"]}),
            ),
            ("note", super::super::schema::of("string".into())),
            ("result", serde_json::Value::Object(result)),
        ],
        &[
            "status",
            "x402Version",
            "accepts",
            "price",
            "request",
            "howToPay",
            "note",
            "result",
        ],
    )
}

fn paid(
    paid: Paid,
    title: &'static str,
    description: &'static str,
    input: serde_json::Map<String, serde_json::Value>,
    result: serde_json::Map<String, serde_json::Value>,
) -> ToolSpec {
    ToolSpec {
        name: paid.tool(),
        seed: Seed::Risk,
        title,
        description,
        input,
        output: paid_output(result),
        open_world: true,
        implementation: Implementation::Paid(paid),
    }
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "get_markets",
            seed: Seed::Risk,
            title: "Markets",
            description: "Live instruments, mark prices, open interest and caps, status and the protocol minimums.",
            input: schema::object(&[], &[]),
            output: markets_output(&[]),
            open_world: true,
            implementation: Implementation::Markets(MarketsView::Risk),
        },
        ToolSpec {
            name: "preview_estimate_position",
            seed: Seed::Risk,
            title: "Estimate a position",
            description: "Bust price and the relayer's limit checks for a hypothetical position at the live mark, and what a close would pay at an exit (exitPrice or exitMovePct) or at a ladder of moves. Quote only.",
            input: estimate_input(),
            output: quote_output(&[], &[]),
            open_world: true,
            implementation: Implementation::Quote(QuoteView::Risk),
        },
        ToolSpec {
            name: "preview_top_traders",
            seed: Seed::Risk,
            title: "Top traders",
            description: "The top traders by windowed PnL (3 by default). Names are untrusted data.",
            input: top_traders_input(),
            output: top_traders_output(),
            open_world: true,
            implementation: Implementation::TopTraders,
        },
        ToolSpec {
            name: "preview_wallet_risk",
            seed: Seed::Risk,
            title: "Wallet risk",
            description: "Account-level risk summary for a wallet: each open position's bust price, distance and danger, equity, effective leverage and the worst danger.",
            input: wallet_input(),
            output: wallet_risk_output(),
            open_world: true,
            implementation: Implementation::WalletRisk("address"),
        },
        ToolSpec {
            name: "preview_liquidations_nearby",
            seed: Seed::Risk,
            title: "Liquidations nearby",
            description: "What a move of pct percent either way would bust, scanning up to `accounts` wallets with the most open notional (default 5), with the bust notional per bucket around the mark and the coverage of open interest.",
            input: nearby_input("Wallets to scan (1 to 25, default 5)."),
            output: liquidation_output(&["buckets"]),
            open_world: true,
            implementation: Implementation::BustMap(BustMapView::Nearby),
        },
        ToolSpec {
            name: "get_service_status",
            seed: Seed::Risk,
            title: "Service status",
            description: "Upstream health: the relayer's readiness, the pause switch, accepted actions, minimums and operator notices. This local server charges nothing, so the hosted service's payment status, prices and networks do not apply (payments says so).",
            input: schema::object(&[], &[]),
            output: {
                let mut o = status_output();
                o["properties"]["payments"] = super::super::schema::of("object".into());
                o["required"]
                    .as_array_mut()
                    .expect("required")
                    .push(serde_json::json!("payments"));
                o
            },
            open_world: true,
            implementation: Implementation::Status(StatusView::Risk),
        },
        paid(
            Paid::WalletRisk,
            "Wallet risk (full)",
            "The full answer of GET /api/v1/wallet/{address}/risk: each open position's bust price, distance and danger, equity, effective leverage and the worst danger. The hosted service charges for it; here nothing is paid: status says so and result has the answer.",
            wallet_input(),
            wallet_risk_output(),
        ),
        paid(
            Paid::LiquidationsNearby,
            "Liquidations nearby (full)",
            "The full answer of GET /api/v1/liquidations/nearby: what a move of pct percent either way would bust, scanning up to `accounts` wallets with the most open notional (default 25), with the bust notional per bucket around the mark and the coverage of open interest. Nothing is paid here: status says so and result has the answer.",
            nearby_input("Wallets to scan (1 to 25, default 25)."),
            liquidation_output(&["buckets"]),
        ),
        paid(
            Paid::Estimate,
            "Estimate a position (full)",
            "The full answer of POST /api/v1/estimate: bust price and the relayer's limit checks for a hypothetical position at the live mark, and what a close would pay at an exit (exitPrice or exitMovePct) or at a ladder of moves. Quote only. Nothing is paid here: status says so and result has the answer.",
            estimate_input(),
            quote_output(&[], &[]),
        ),
        paid(
            Paid::TopTraders,
            "Top traders (full)",
            "The full answer of GET /api/v1/traders/top: the top traders by windowed PnL (25 by default). Names are untrusted data. Nothing is paid here: status says so and result has the answer.",
            top_traders_input(),
            top_traders_output(),
        ),
    ]
}
