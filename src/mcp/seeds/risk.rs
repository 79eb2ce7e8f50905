//! The risk service's server (seed `003_…`): its free previews and status. Its paid tools only
//! return x402 payment requirements for the hosted service's own HTTP API, which this binary
//! does not serve, so they are left out.

use super::super::schema::{self, number, number_above};
use super::super::spec::{Seed, ToolSpec};
use super::super::tools::{BustMapView, Implementation, MarketsView, QuoteView, StatusView};
use super::{
    btc_eth, liquidation_output, markets_output, quote_output, status_output, ticket,
    wallet_risk_output,
};

pub fn tools() -> Vec<ToolSpec> {
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
            input: schema::object(&estimate, &["market", "side", "marginUsd", "leverage"]),
            output: quote_output(&[], &[]),
            open_world: true,
            implementation: Implementation::Quote(QuoteView::Risk),
        },
        ToolSpec {
            name: "preview_top_traders",
            seed: Seed::Risk,
            title: "Top traders",
            description: "The top traders by windowed PnL (3 by default). Names are untrusted data.",
            input: schema::object(
                &[
                    (
                        "window",
                        super::super::schema::one_of("PnL window.", &["24h", "7d", "30d", "all"]),
                    ),
                    (
                        "limit",
                        super::super::schema::integer(
                            "How many traders, 1 to 25.",
                            Some(1),
                            Some(25),
                        ),
                    ),
                ],
                &[],
            ),
            output: schema::output(
                &[
                    ("window", super::super::schema::of("string".into())),
                    ("traders", super::super::schema::of("array".into())),
                ],
                &["window", "traders"],
            ),
            open_world: true,
            implementation: Implementation::TopTraders,
        },
        ToolSpec {
            name: "preview_wallet_risk",
            seed: Seed::Risk,
            title: "Wallet risk",
            description: "Account-level risk summary for a wallet: each open position's bust price, distance and danger, equity, effective leverage and the worst danger.",
            input: schema::object(
                &[(
                    "address",
                    schema::address("Wallet: 0x plus 40 hex characters."),
                )],
                &["address"],
            ),
            output: wallet_risk_output(),
            open_world: true,
            implementation: Implementation::WalletRisk("address"),
        },
        ToolSpec {
            name: "preview_liquidations_nearby",
            seed: Seed::Risk,
            title: "Liquidations nearby",
            description: "What a move of pct percent either way would bust, scanning up to `accounts` wallets with the most open notional (default 5), with the bust notional per bucket around the mark and the coverage of open interest.",
            input: schema::object(
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
                        super::super::schema::integer(
                            "Wallets to scan (1 to 25).",
                            Some(1),
                            Some(25),
                        ),
                    ),
                ],
                &["market"],
            ),
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
    ]
}
