//! The SDK's (`000_…`) and the browser terminal's (`001_…`) tools, field for field with what
//! their seeds document: the fields they name, the caps they state, the ladder and plan they
//! describe, and no `null` where a seed types a number. Against the simulator, in process.

use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use serde_json::{Value, json};

use papertrade_tui::mcp::Server;

use crate::mcp::{Client, call, reads, sim_at_seed_price, structured};
use crate::simkit::Sim;

/// An in-process client of every seed's tools over `sim`.
async fn connect(sim: &Sim) -> RunningService<RoleClient, Client> {
    crate::mcp::connect(Server::new(reads(sim), &[]), ProtocolVersion::V_2025_06_18).await
}

/// Call `name` and return its structured result, checked against its advertised outputSchema.
async fn answer(client: &RunningService<RoleClient, Client>, name: &str, a: Value) -> Value {
    let tools = client.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == name).unwrap();
    let r = call(client, name, a).await;
    structured(tool, &r)
}

async fn text(client: &RunningService<RoleClient, Client>, name: &str, a: Value) -> String {
    let r = call(client, name, a).await;
    r.content[0].as_text().unwrap().text.clone()
}

/// `get_wallet_positions` (001): `tradingEnabled` says whether an unexpired session key is
/// registered, and the positions list stops at the documented 50, saying it did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wallet_positions_say_whether_trading_is_enabled_and_stop_at_fifty() {
    let sim = sim_at_seed_price().await;
    let mut trader = sim.trader(2_000).await;
    for _ in 0..51 {
        let (body, _) = trader.open(sim.now_s(), 0, true, 10, 100);
        assert_eq!(sim.post("/intents", &body).await.0, 200);
    }
    sim.advance(1_000).await;
    let held = sim
        .server
        .shared
        .with_engine(|e| e.accounts[&trader.address()].state.open_positions.len());
    assert_eq!(held, 51);
    // One open still queued: its pending operation has no `null` figures.
    let (body, _) = trader.open(sim.now_s(), 1, false, 10, 100);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    // Funded, but no session key ever registered.
    let keyless = crate::simkit::Trader::new();
    sim.control(
        "/sim/fund",
        json!({"wallet": keyless.wallet_hex(), "amountUsd": "100"}),
    )
    .await;
    let client = connect(&sim).await;

    let w = trader.wallet_hex();
    let v = answer(&client, "get_wallet_positions", json!({"address": w})).await;
    assert_eq!(v["tradingEnabled"], true, "{v}");
    assert_eq!(v["sessionKey"]["status"], "active");
    assert_eq!(v["positions"].as_array().unwrap().len(), 50);
    assert_eq!(v["totalPositions"], 51);
    assert_eq!(v["truncated"], true);
    let op = v["pendingOperations"][0].as_object().unwrap();
    assert_eq!(op["action"], "openPosition", "{op:?}");
    assert!(op.values().all(|x| !x.is_null()), "{op:?}");
    assert_eq!(op["leverage"], 100);
    let said = text(&client, "get_wallet_positions", json!({"address": w})).await;
    assert!(
        said.contains("51 open position(s) (the first 50 listed"),
        "{said}"
    );
    // The SDK's tool documents no cap: it lists them all.
    let all = answer(
        &client,
        "papertrade_wallet_positions",
        json!({"address": w}),
    )
    .await;
    assert_eq!(all["positions"].as_array().unwrap().len(), 51);
    assert_eq!(all["tradingEnabled"], true);

    let k = keyless.wallet_hex();
    let v = answer(&client, "get_wallet_positions", json!({"address": k})).await;
    assert_eq!(v["tradingEnabled"], false, "{v}");
    assert_eq!(v["sessionKey"], json!({"status": "none", "active": 0}));
    assert_eq!(v["totalPositions"], 0);
    assert_eq!(v["truncated"], false);
    client.cancel().await.unwrap();
}

/// Dollars from a raw wad the way the seed's text writes them, to the cent (half away from
/// zero): `-$50.00`, `$20.00` (amounts under $1,000 here, so no grouping).
fn dollars(raw: &Value) -> String {
    let wad: i128 = raw.as_str().unwrap().parse().unwrap();
    let cents = (wad.abs() + 5_000_000_000_000_000) / 10_000_000_000_000_000;
    assert!(cents < 100_000, "{wad}");
    let sign = if wad < 0 && cents > 0 { "-" } else { "" };
    format!("{sign}${}.{:02}", cents / 100, cents % 100)
}

/// `quote_open_position` (001): the six-step close ladder, the seed's 10x example's first step
/// (−10 %, liquidated, the whole $50 lost), and its text worded as the seed's example.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_open_quote_has_the_seeds_six_step_ladder_and_its_text() {
    let sim = sim_at_seed_price().await;
    let client = connect(&sim).await;
    let ask = json!({"market": "BTC", "side": "long", "marginUsd": 50, "leverage": 10});
    let q = answer(&client, "quote_open_position", ask.clone()).await;
    let ladder = q["ladder"].as_array().unwrap();
    let moves: Vec<f64> = ladder
        .iter()
        .map(|r| r["priceMovePct"].as_f64().unwrap())
        .collect();
    assert_eq!(moves, [-10.0, -5.0, -2.5, 2.5, 5.0, 10.0], "{q:#}");
    assert_eq!(
        ladder[0]["exitPriceRaw"], "745203",
        "828003 × 9/10, rounded"
    );
    assert_eq!(ladder[0]["liquidated"], true);
    assert_eq!(ladder[0]["netPnlUsd"], -50.0);
    assert!(
        ladder[1..].iter().all(|r| r["liquidated"] == false),
        "{q:#}"
    );
    // The finer ladder stays in `scenarios`.
    assert_eq!(q["scenarios"].as_array().unwrap().len(), 13);
    let nets: Vec<i128> = ladder
        .iter()
        .map(|r| r["netPnlRaw"].as_str().unwrap().parse().unwrap())
        .collect();
    let hi = ladder
        .iter()
        .max_by_key(|r| r["netPnlRaw"].as_str().unwrap().parse::<i128>().unwrap())
        .unwrap();
    assert!(nets.windows(2).all(|w| w[0] < w[1]), "{nets:?}");
    let said = text(&client, "quote_open_position", ask).await;
    assert_eq!(
        said,
        format!(
            "LONG BTC 10x with $50.00 margin: notional $500.00, entry 82800.3, bust {} ({}% away). The relayer would reject this order: {}. Ladder: -$50.00 to {}. Quote only, nothing was placed.",
            q["bustPrice"],
            q["bustDistancePct"],
            q["invalidReason"].as_str().unwrap(),
            dollars(&hi["netPnlRaw"]),
        )
    );
    // An order the relayer takes, short: the liquidation is the last (highest) step.
    let ask = json!({"market": "BTC", "side": "short", "marginUsd": 100, "leverage": 500});
    let q = answer(&client, "quote_open_position", ask.clone()).await;
    let ladder = q["ladder"].as_array().unwrap();
    assert_eq!(ladder[0]["priceMovePct"], -0.2);
    assert_eq!(ladder[5]["priceMovePct"], 0.2);
    assert_eq!(ladder[5]["liquidated"], true);
    assert_eq!(ladder[5]["netPnlUsd"], -100.0);
    let said = text(&client, "quote_open_position", ask).await;
    assert!(
        said.contains("The relayer would accept this order. Ladder: -$100.00 to $")
            && said.starts_with(
                "SHORT BTC 500x with $100.00 margin: notional $50,000.00, entry 82800.3, bust "
            ),
        "{said}"
    );
    client.cancel().await.unwrap();
}

/// `build_trade_plan` (001): the seed's four steps in its order, and beside each the command
/// that does the same here; the enable step knows when the wallet's key is already active.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trade_plan_has_the_seeds_four_steps_and_the_commands_here() {
    let sim = sim_at_seed_price().await;
    let trader = sim.trader(1_000).await;
    let client = connect(&sim).await;
    let w = trader.wallet_hex();
    let ask = json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500});
    let plan = answer(&client, "build_trade_plan", ask.clone()).await;
    let steps: Vec<&str> = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(steps.len(), 4, "{plan:#}");
    let link = plan["link"].as_str().unwrap();
    assert!(
        steps[0].starts_with("Open the link: ") && steps[0].contains(link),
        "{steps:?}"
    );
    assert!(steps[1].starts_with("Connect your own wallet on HyperEVM (chain 999)"));
    assert!(steps[2].starts_with("Enable trading with one gas-free signature"));
    assert!(steps[2].contains("skip it if trading is already enabled"));
    assert!(steps[3].starts_with("Review and sign"));
    let local = plan["localSteps"].as_array().unwrap();
    let commands: Vec<&str> = local
        .iter()
        .map(|s| s["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            plan["command"].as_str().unwrap(),
            "export PAPERTRADE_TUI_OWNER=0xYourWallet",
            "papertrade-tui key new && papertrade-tui key register --external",
            "papertrade-tui open --market BTC --side long --margin 100 --leverage 500",
        ]
    );
    assert!(
        local[0]["does"]
            .as_str()
            .unwrap()
            .contains(plan["practiceCommand"].as_str().unwrap())
    );
    // No address: no account block at all (the seed's is optional), never `null`.
    assert!(plan.get("account").is_none(), "{plan:#}");

    let mut with = ask;
    with["address"] = json!(w);
    let plan = answer(&client, "build_trade_plan", with).await;
    let enable = plan["steps"][2].as_str().unwrap();
    assert!(
        enable.contains("already done for this wallet, its session key is active until"),
        "{enable}"
    );
    assert_eq!(
        plan["localSteps"][1]["command"],
        format!("export PAPERTRADE_TUI_OWNER={w}")
    );
    assert!(
        plan["localSteps"][2]["does"]
            .as_str()
            .unwrap()
            .starts_with("not needed"),
        "{plan:#}"
    );
    assert_eq!(plan["account"]["sessionKey"]["status"], "active");
    client.cancel().await.unwrap();
}

/// The keys the SDK's and the terminal's seeds type as numbers that a missing mark, a loss or an
/// empty window could leave without a value: never `null`, anywhere in `v`.
fn assert_no_null_numbers(name: &str, v: &Value) {
    const NUMBERS: [&str; 10] = [
        "markPrice",
        "keptFraction",
        "impactKeptFraction",
        "keptFractionOfRawGain",
        "changePct",
        "oiUsd",
        "capUsd",
        "entry",
        "exit",
        "pnlUsd",
    ];
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                assert!(
                    !(x.is_null() && NUMBERS.contains(&k.as_str())),
                    "{name}: {k} is null in {v}"
                );
                assert_no_null_numbers(name, x);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| assert_no_null_numbers(name, x)),
        _ => {}
    }
}

/// `papertrade_markets.markPrice` is a number in the SDK seed's schema: a market whose book cannot
/// be read has no `markPrice` (nor the USD figures priced at it) and `markError` says why; a loss
/// has no kept fraction and `haircutNote` says why. Never `null`.
#[test]
fn a_missing_mark_or_haircut_is_left_out_and_said_never_null() {
    use crate::support::FixtureServer;
    use papertrade_tui::client::{ExchangeHttp, HttpConfig};
    use papertrade_tui::mcp::Reads;
    use papertrade_tui::protocol::order::Deadlines;

    let server = FixtureServer::start();
    server
        .fixture
        .lock()
        .unwrap()
        .books
        .retain(|(c, _, _)| c != "ETH");
    let reads = Reads {
        http: ExchangeHttp::new(&server.api(), &server.info(), HttpConfig::default()),
        data_dir: std::env::temp_dir().join("papertrade-tui-mcp-test-no-history"),
        deadlines: Deadlines::default(),
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client =
            crate::mcp::connect(Server::new(reads, &[]), ProtocolVersion::V_2025_06_18).await;
        for name in ["papertrade_markets", "list_markets"] {
            let m = answer(&client, name, json!({})).await;
            assert_no_null_numbers(name, &m);
            let eth = &m["markets"][1];
            assert_eq!(eth["symbol"], "ETH");
            assert!(eth.get("markPrice").is_none(), "{name}: {eth}");
            assert!(eth.get("markPriceRaw").is_none(), "{name}: {eth}");
            assert!(
                eth["markError"].as_str().unwrap().contains("l2Book ETH"),
                "{name}: {eth}"
            );
            assert!(eth["long"].get("oiUsd").is_none(), "{eth}");
            // The raw quantities need no mark.
            assert!(eth["long"]["oiRaw"].is_string(), "{eth}");
            assert!(eth["long"]["capRaw"].is_string(), "{eth}");
            let btc = &m["markets"][0];
            assert_eq!(btc["markPrice"], 82800.3, "{name}");
            assert!(btc.get("markError").is_none(), "{name}: {btc}");
        }
        // Quoted at a given entry, without a live mark: the mark is left out and said.
        let e = answer(
            &client,
            "papertrade_estimate_position",
            json!({"market": "ETH", "side": "long", "marginUsd": 100, "leverage": 20, "entryPrice": 2500}),
        )
        .await;
        assert_no_null_numbers("papertrade_estimate_position", &e);
        assert!(e.get("markPrice").is_none(), "{e}");
        assert!(e["markError"].as_str().unwrap().contains("l2Book ETH"), "{e}");
        let loss = e["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["netPnlUsd"].as_f64().unwrap() < 0.0 && s["liquidated"] == false)
            .unwrap();
        assert!(loss.get("impactKeptFraction").is_none(), "{loss}");
        assert!(loss.get("keptFractionOfRawGain").is_none(), "{loss}");
        assert_eq!(loss["haircutNote"], "a loss is paid 1:1, never haircut");
        let win = e["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["netPnlUsd"].as_f64().unwrap() > 0.0)
            .unwrap();
        assert!(win["impactKeptFraction"].is_number(), "{win}");
        assert!(win.get("haircutNote").is_none(), "{win}");
        // No protocol summary here: a loss's mint basis depends on the payout queue, so it is
        // left out and said; a win's is 0 whatever the queue; no PAPER figures without a rate.
        assert!(
            e["paperMintError"].as_str().unwrap().contains("summary"),
            "{e}"
        );
        assert!(loss.get("paperMintBasisRaw").is_none(), "{loss}");
        assert_eq!(win["paperMintBasisRaw"], "0", "{win}");
        assert!(win.get("estimatedPaper").is_none(), "{win}");
        // A close at a loss: no kept fraction, and why.
        let c = answer(
            &client,
            "quote_close_position",
            json!({"market": "BTC", "side": "long", "entryPrice": 83000, "exitPrice": 82900, "marginUsd": 100, "leverage": 100}),
        )
        .await;
        assert_no_null_numbers("quote_close_position", &c);
        assert!(c.get("keptFraction").is_none(), "{c}");
        assert_eq!(c["haircutNote"], "a loss is paid 1:1, never haircut");
        client.cancel().await.unwrap();
    });
    drop(runtime);
}

/// `floor(basis·rate/1e18)` in u128 without overflow (basis and rate are wads).
fn minted(basis: u128, rate: u128) -> u128 {
    const WAD: u128 = 1_000_000_000_000_000_000;
    (basis / WAD) * rate + (basis % WAD) * rate / WAD
}

fn raw(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

/// `papertrade_estimate_position` (000): each scenario's PAPER mint basis, as the seed's
/// description promises ("net PnL and PAPER mint basis"): the whole margin on a liquidation, a
/// loss less the 2% LP-side fee while the payout queue is empty, nothing on a win; and the PAPER it
/// mints at `papertrade_paper_mint`'s rate, in integers at 18 decimals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_estimate_gives_each_scenarios_paper_mint_basis() {
    let sim = sim_at_seed_price().await;
    let client = connect(&sim).await;
    let margin = 10u128 * 1_000_000_000_000_000_000;
    let e = answer(
        &client,
        "papertrade_estimate_position",
        json!({"market": "BTC", "side": "long", "marginUsd": 10, "leverage": 100}),
    )
    .await;
    let rate = raw(&answer(&client, "papertrade_paper_mint", json!({})).await["paperPerUsdRaw"]);
    assert_eq!(e["paperMint"]["paperPerUsdRaw"], rate.to_string(), "{e:#}");
    assert_eq!(e["paperMint"]["payoutQueueActive"], false);
    let rows = e["scenarios"].as_array().unwrap();
    let (mut liquidations, mut losses, mut wins) = (0, 0, 0);
    for s in rows {
        let net: i128 = s["netPnlRaw"].as_str().unwrap().parse().unwrap();
        let basis = raw(&s["paperMintBasisRaw"]);
        let expect = if s["liquidated"] == true {
            liquidations += 1;
            margin
        } else if net < 0 {
            losses += 1;
            let loss = net.unsigned_abs();
            loss - loss * 2 / 100
        } else {
            wins += 1;
            0
        };
        assert_eq!(basis, expect, "{s}");
        assert_eq!(raw(&s["estimatedPaperRaw"]), minted(basis, rate), "{s}");
        assert!(s["paperMintBasisUsd"].is_number(), "{s}");
    }
    assert!(liquidations >= 1 && losses >= 2 && wins >= 6, "{e:#}");
    client.cancel().await.unwrap();
}
