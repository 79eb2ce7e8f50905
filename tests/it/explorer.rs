//! The explorer's commands end to end: the real binary against the in-process simulator, every
//! expected figure computed here from the simulator's own raw data (the engine's accounts, its
//! HTTP reads), never from the code under test.

use std::process::Output;

use alloy_primitives::{Address, U256};
use papertrade_tui::protocol::account::AccountState;
use papertrade_tui::protocol::history::{ClosedTrade as HistoryRecord, HistoryLine};
use papertrade_tui::protocol::trading::TradingState;
use papertrade_tui::sim::SimConfig;
use papertrade_tui::store::history::HistoryFile;
use serde_json::Value;

use crate::simkit::{Sim, b256};
use crate::support::text;

const WAD: u128 = 1_000_000_000_000_000_000;

/// A repeatable exchange with a crowd that has traded for a few simulated minutes.
async fn crowded() -> Sim {
    let sim = Sim::start(SimConfig {
        seed: 11,
        crowd: 60,
        manual_clock: true,
        heartbeat_ms: 200,
        relayer_delay_ms: 500,
        ..SimConfig::default()
    })
    .await;
    for _ in 0..12 {
        sim.advance(20_000).await;
    }
    sim
}

/// The binary against `sim` (or, with `None`, against a loopback port nothing listens on).
async fn run(sim: Option<&Sim>, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    run_in(sim, home, &data, args).await
}

/// As [`run`], with `data` as the data dir (kept by the caller), `home` dropped after the run.
async fn run_in(
    sim: Option<&Sim>,
    home: tempfile::TempDir,
    data: &std::path::Path,
    args: &[&str],
) -> Output {
    let (api, info) = match sim {
        Some(s) => (s.server.base_url(), s.server.info_url()),
        None => (
            "http://127.0.0.1:9".to_string(),
            "http://127.0.0.1:9/info".to_string(),
        ),
    };
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
    c.args(args)
        .args(["--api", &api, "--info-url", &info])
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("PAPERTRADE_TUI_DATA_DIR", data);
    tokio::task::spawn_blocking(move || {
        let out = c.output().unwrap();
        drop(home);
        out
    })
    .await
    .unwrap()
}

async fn json(sim: &Sim, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(Some(sim), &all).await;
    assert!(
        out.status.success(),
        "{args:?}: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The engine's leaderboard population (funded wallets) with a figure each, sorted the way the
/// exchange documents: by the figure, ties by address, in `descending` or ascending order.
fn engine_order(
    sim: &Sim,
    figure: impl Fn(&AccountState) -> i128,
    descending: bool,
) -> Vec<(Address, i128, Option<String>)> {
    let mut rows: Vec<(Address, i128, Option<String>)> = sim.server.shared.with_engine(|e| {
        e.accounts
            .iter()
            .filter(|(_, a)| a.state.lifetime.deposited > 0)
            .map(|(addr, a)| (*addr, figure(&a.state), a.name.clone()))
            .collect()
    });
    rows.sort_by(|a, b| {
        let ord = a.1.cmp(&b.1).then(a.0.cmp(&b.0));
        if descending { ord.reverse() } else { ord }
    });
    rows
}

fn address(v: &Value) -> Address {
    v.as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaderboard_ranks_follow_the_sort_in_both_directions_and_pages() {
    let sim = crowded().await;
    for (dir, descending) in [("desc", true), ("asc", false)] {
        let expected = engine_order(&sim, |a| a.balance as i128, descending);
        assert!(expected.len() > 50, "the crowd fills three pages");
        for page in [0usize, 1, 2] {
            let p = page.to_string();
            let v = json(
                &sim,
                &[
                    "leaderboard",
                    "--window",
                    "all",
                    "--sort-key",
                    "currentBalance",
                    "--sort-dir",
                    dir,
                    "--page",
                    &p,
                ],
            )
            .await;
            assert_eq!(v["total_accounts"], expected.len());
            assert_eq!(v["page"], page);
            let rows = v["accounts"].as_array().unwrap();
            let want: Vec<_> = expected.iter().skip(page * 25).take(25).collect();
            assert_eq!(rows.len(), want.len(), "page {page} {dir}");
            for (i, (row, (addr, balance, _))) in rows.iter().zip(want).enumerate() {
                assert_eq!(row["rank"], page * 25 + i + 1);
                assert_eq!(address(&row["address"]), *addr);
                assert_eq!(row["current_balance_raw"], balance.to_string());
            }
        }
    }
    // Windows differ in what they count, so each is asked with its own name.
    let open = engine_order(&sim, |a| a.open_positions.len() as i128, true);
    let v = json(
        &sim,
        &[
            "leaderboard",
            "--window",
            "7d",
            "--sort-key",
            "currentOpenPositionCount",
        ],
    )
    .await;
    assert_eq!(v["window"], "7d");
    assert_eq!(address(&v["accounts"][0]["address"]), open[0].0);
    assert_eq!(
        v["accounts"][0]["current_open_position_count"],
        open[0].1 as i64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_search_keeps_each_wallets_true_rank_and_names_are_sanitised() {
    let sim = crowded().await;
    let expected = engine_order(&sim, |a| a.balance as i128, true);
    let whales: Vec<(usize, Address)> = expected
        .iter()
        .enumerate()
        .filter(|(_, (_, _, n))| n.as_deref().is_some_and(|n| n.contains("whale")))
        .map(|(i, (a, _, _))| (i + 1, *a))
        .collect();
    assert!(!whales.is_empty());
    let v = json(
        &sim,
        &[
            "leaderboard",
            "--window",
            "all",
            "--sort-key",
            "currentBalance",
            "--query",
            "WHALE",
        ],
    )
    .await;
    assert_eq!(v["matched"], whales.len());
    assert_eq!(v["complete"], true);
    let got: Vec<(usize, Address)> = v["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rank"].as_u64().unwrap() as usize, address(&r["address"])))
        .collect();
    assert_eq!(got, whales);

    // Every name the crowd has, hostile ones included, arrives clean: no escape, bell, line
    // break or bidi override in JSON or in the table.
    let all = json(&sim, &["leaderboard", "--window", "all"]).await;
    let names: Vec<String> = all["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["leaderboard_name"].as_str().map(str::to_string))
        .collect();
    assert!(names.iter().any(|n| n == "RED ALERT"), "{names:?}");
    let bad = |s: &str| s.chars().any(|c| c.is_control() || c == '\u{202e}');
    assert!(!names.iter().any(|n| bad(n)), "{names:?}");
    let table = run(Some(&sim), &["leaderboard", "--window", "all"]).await;
    assert!(table.status.success());
    let table = text(&table.stdout);
    assert!(table.contains("RED ALERT"));
    assert!(
        !table
            .replace('\n', "")
            .chars()
            .any(|c| c.is_control() || c == '\u{202e}')
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wallet_sheet_is_the_engines_account_and_its_board_rank() {
    let sim = crowded().await;
    let wallet = sim.server.shared.with_engine(|e| {
        e.crowd
            .wallets()
            .into_iter()
            .find(|w| !e.account(*w).unwrap().state.open_positions.is_empty())
            .unwrap()
    });
    let w = format!("{wallet:#x}");
    let v = json(&sim, &["wallet", &w]).await;
    let (state, name) = sim.server.shared.with_engine(|e| {
        let a = e.account(wallet).unwrap();
        (a.state.clone(), a.name.clone())
    });
    assert_eq!(address(&v["address"]), wallet);
    assert_eq!(v["balance_raw"], state.balance.to_string());
    assert_eq!(v["locked_raw"], state.locked.to_string());
    assert_eq!(v["queued_raw"], state.queued.to_string());
    assert_eq!(
        v["available_raw"],
        state.funds.available_balance.to_string()
    );
    assert_eq!(v["open_positions"], state.open_positions.len());
    assert_eq!(v["pending_operations"], state.operations.len());
    assert_eq!(
        v["lifetime"]["deposited_raw"],
        state.lifetime.deposited.to_string()
    );
    assert_eq!(
        v["lifetime"]["realized_pnl_raw"],
        state.lifetime.realized_pnl.to_string()
    );
    assert_eq!(
        v["lifetime"]["traded_notional_raw"],
        state.lifetime.traded_notional.to_string()
    );
    assert_eq!(
        v["session_keys"].as_array().unwrap().len(),
        state.session_keys.len()
    );
    if name
        .as_deref()
        .is_some_and(|n| n.chars().all(|c| !c.is_control() && c != '\u{202e}'))
    {
        assert_eq!(v["leaderboard_name"].as_str(), name.as_deref());
    }
    // Each window's rank is the wallet's place in the simulator's own board for it.
    for window in ["24h", "7d", "30d", "all"] {
        let (status, board) = sim
            .get(&format!(
                "/state/leaderboard/accounts?page=0&pageSize=200&sortDir=desc&sortKey=totalWindowedPnl&window={window}"
            ))
            .await;
        assert_eq!(status, 200);
        let place = board["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .position(|r| address(&r["address"]) == wallet)
            .unwrap();
        assert_eq!(v["ranks"][window]["rank"], place + 1, "{window}");
        assert_eq!(
            v["ranks"][window]["pnl_raw"],
            board["accounts"][place]["totalWindowedPnl"]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_classifies_and_echoes_and_lookup_finds_a_feed_intent() {
    let sim = crowded().await;
    let (_, feed) = sim.get("/query/protocol/trades/recent").await;
    let row = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["intentId"].is_string())
        .expect("a feed row with an intent id")
        .clone();
    let wallet = row["wallet"]
        .as_str()
        .unwrap()
        .to_uppercase()
        .replace("0X", "0x");
    let intent = row["intentId"].as_str().unwrap();
    let position = row["positionId"].as_str().unwrap();
    let cases = [
        (wallet.as_str(), "wallet", "get_wallet"),
        (intent, "intent", "lookup_intent"),
        (position, "position", "get_positions"),
        ("tortoise", "name", "get_leaderboard"),
    ];
    for (query, kind, tool) in cases {
        let v = json(&sim, &["search", query]).await;
        assert_eq!(v["kind"], kind, "{query}");
        assert_eq!(v["value"], query);
        assert_eq!(v["next_tool"], tool);
    }
    let v = json(&sim, &["search", intent]).await;
    assert_eq!(v["result"]["state"], "settled");
    assert_eq!(v["result"]["feed"][0]["intentId"], intent);
    let v = json(&sim, &["search", position]).await;
    assert_eq!(v["result"]["found"], true);
    let v = json(&sim, &["search", "tortoise"]).await;
    assert!(v["result"]["matched"].as_u64().unwrap() > 0);
    let unknown = format!("{:#x}", alloy_primitives::B256::with_last_byte(9));
    let v = json(&sim, &["lookup", &unknown]).await;
    assert_eq!(v["state"], "not_found");
    assert!(v["settlement"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intents_show_the_queue_rank_and_lookup_follows_an_open_to_its_position() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1_000).await;
    let (body, id) = t.open(sim.now_s(), 0, true, 50, 20);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    let w = t.wallet_hex();
    let v = json(&sim, &["intents", &w]).await;
    assert_eq!(v["count"], 1);
    assert_eq!(b256(&v["pending"][0]["intent_id"]), id);
    assert_eq!(v["pending"][0]["action"], "openPosition");
    assert_eq!(v["pending"][0]["amount_raw"], (50 * WAD).to_string());
    let (_, rank) = sim.get(&format!("/queue-rank/accounts/{w}")).await;
    assert_eq!(
        v["pending"][0]["queue_rank"],
        rank["entries"][0]["position"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    );
    let id_hex = format!("{id:#x}");
    let queued = json(&sim, &["lookup", &id_hex, "--wallet", &w]).await;
    assert_eq!(queued["state"], "queued");
    assert!(queued["pending"]["queue_rank"].is_u64());
    sim.advance(2_000).await;
    let settled = json(&sim, &["lookup", &id_hex, "--wallet", &w]).await;
    assert_eq!(settled["state"], "settled");
    let opened = sim
        .server
        .shared
        .with_engine(|e| e.account(t.address()).unwrap().state.open_positions[0].id);
    assert_eq!(settled["position_id"], opened.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_is_the_wallets_feed_closes_newest_first_in_pages() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(5_000).await;
    let mut closed_ids = Vec::new();
    for lev in [10u32, 20, 30] {
        let (body, _) = t.open(sim.now_s(), 0, true, 100, lev);
        assert_eq!(sim.post("/intents", &body).await.0, 200);
        sim.advance(1_500).await;
        let id: U256 = sim
            .server
            .shared
            .with_engine(|e| e.account(t.address()).unwrap().state.open_positions[0].id);
        let (body, _) = t.close(sim.now_s(), vec![id]);
        assert_eq!(sim.post("/intents", &body).await.0, 200);
        sim.advance(1_500).await;
        closed_ids.push(id.to_string());
    }
    let w = t.wallet_hex();
    // The feed's close rows of this wallet, newest first, are the expected history.
    let (_, feed) = sim.get("/query/protocol/trades/recent").await;
    let mut want: Vec<(u64, String, Value)> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["wallet"] == w.as_str() && e["kind"] == "close")
        .map(|e| {
            (
                e["ts"].as_u64().unwrap(),
                e["positionId"].as_str().unwrap().to_string(),
                e["pnlUsd"].clone(),
            )
        })
        .collect();
    want.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    assert_eq!(want.len(), 3);
    let first = json(&sim, &["history", &w, "--limit", "2"]).await;
    assert_eq!(first["total"], 3);
    assert_eq!(first["next_cursor"], "1");
    let second = json(&sim, &["history", &w, "--limit", "2", "--page", "1"]).await;
    assert!(second["next_cursor"].is_null());
    let got: Vec<(String, Value)> = first["trades"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["trades"].as_array().unwrap())
        .map(|t| {
            (
                t["position_id"].as_str().unwrap().to_string(),
                t["net_pnl_usd"].clone(),
            )
        })
        .collect();
    let want: Vec<(String, Value)> = want.into_iter().map(|(_, id, pnl)| (id, pnl)).collect();
    assert_eq!(got, want);
    // The opens in the same feed supply the entries.
    assert!(first["trades"][0]["entry"].is_number());
}

/// Open and close one position of `t`, followed on `stream`: the close as the stream reported
/// it, recorded the way the UI records it (with the held position's entry and the market).
async fn open_and_close(
    sim: &Sim,
    t: &mut crate::simkit::Trader,
    stream: &mut crate::simkit::Stream,
    trading: &TradingState,
    leverage: u32,
) -> HistoryRecord {
    let (body, id) = t.open(sim.now_s(), 0, true, 100, leverage);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_500).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let held = stream.fold.state().unwrap().open_positions[0].clone();
    let (body, id) = t.close(sim.now_s(), vec![held.id]);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_500).await;
    let (outcome, closed) = stream.outcome(id).await;
    assert_eq!((outcome.as_str(), closed.len()), ("succeeded", 1));
    let market = trading.market_by_id(held.instrument_id);
    HistoryRecord::new(closed[0].clone(), Some(&held), market, sim.now_s() * 1000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_adds_the_wallets_history_file_once_per_position_beside_the_feed() {
    let sim = Sim::start(SimConfig {
        seed: 11,
        crowd: 60,
        manual_clock: true,
        heartbeat_ms: 200,
        relayer_delay_ms: 500,
        ..SimConfig::default()
    })
    .await;
    let (_, trading) = sim.get("/state/trading").await;
    let trading = TradingState::decode(&trading.to_string()).unwrap();
    let mut t = sim.trader(5_000).await;
    let mut stream = sim.stream(t.address()).await;
    let old = open_and_close(&sim, &mut t, &mut stream, &trading, 10).await;
    // The crowd trades until the feed (the latest 50) no longer lists the old close.
    let in_feed = |feed: &Value, id: U256| {
        feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["positionId"] == id.to_string())
    };
    for _ in 0..60 {
        if !in_feed(&sim.get("/query/protocol/trades/recent").await.1, old.id()) {
            break;
        }
        sim.advance(20_000).await;
    }
    let recent = open_and_close(&sim, &mut t, &mut stream, &trading, 20).await;
    let (_, feed) = sim.get("/query/protocol/trades/recent").await;
    assert!(!in_feed(&feed, old.id()), "the old close left the feed");
    assert!(in_feed(&feed, recent.id()));
    drop(stream);

    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let mut file = HistoryFile::new(&data, t.address());
    // The recent close twice (a later line filling the exit, as the UI writes it): one row.
    let mut filled = recent.clone();
    filled.exit_raw = Some(filled.entry_raw.unwrap() + 1);
    for r in [&old, &recent, &filled] {
        file.append(&HistoryLine::Trade(r.clone())).unwrap();
    }
    let w = t.wallet_hex();
    // The explorer seed's get_positions on the old, closed position: this machine's record of
    // it (the feed has forgotten it).
    let mut reads = crate::mcp::reads(&sim);
    reads.data_dir = data.clone();
    let client = crate::mcp::connect(
        papertrade_tui::mcp::Server::new(reads, &[papertrade_tui::mcp::Seed::Explorer]),
        rmcp::model::ProtocolVersion::V_2025_06_18,
    )
    .await;
    let closed = crate::mcp::call(
        &client,
        "get_positions",
        serde_json::json!({"address": w, "position_id": old.id().to_string()}),
    )
    .await
    .structured_content
    .unwrap()["closed"]
        .clone();
    assert_eq!(closed["found"], true, "{closed}");
    assert_eq!(closed["sources"], serde_json::json!(["history_file"]));
    assert_eq!(closed["net_pnl_raw"], old.closed.net_pnl.to_string());
    client.cancel().await.unwrap();
    let out = run_in(Some(&sim), home, &data, &["history", &w, "--json"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"], 2, "{v}");
    assert_eq!(v["history_file"]["records"], 2);
    let rows = v["trades"].as_array().unwrap();
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["position_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [recent.id().to_string(), old.id().to_string()]);
    assert_eq!(
        rows[0]["sources"],
        serde_json::json!(["history_file", "feed"])
    );
    assert_eq!(rows[1]["sources"], serde_json::json!(["history_file"]));
    // The old close's figures are the stream's, exactly, as the file kept them.
    assert_eq!(rows[1]["net_pnl_raw"], old.closed.net_pnl.to_string());
    assert_eq!(
        rows[1]["paper_minted_raw"],
        old.closed.paper_minted.to_string()
    );
    assert_eq!(rows[1]["leverage"], 10);
    assert_eq!(rows[1]["time"], old.seen_at_ms);
    assert!(rows[1]["entry"].is_number());

    // Without the file, the old close is not available from this exchange.
    let bare = json(&sim, &["history", &w]).await;
    assert_eq!(bare["total"], 1);
    assert_eq!(bare["trades"][0]["sources"], serde_json::json!(["feed"]));
    assert_eq!(bare["history_file"]["records"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paper_mint_is_the_curve_at_the_summary_and_overview_the_raw_reads() {
    let sim = crowded().await;
    let (_, s) = sim.get("/query/protocol/summary").await;
    let p = &s["paper"];
    // The crowd of seed 11 leaves the LP's high-water mark at $4,500,750.07…: past the $2M
    // cliff by this tail (the inputs the recorded figures below were computed from).
    assert_eq!(p["tailProgress"], "2500750072919350071998688", "{p}");
    assert_eq!(
        (&p["rate"], &p["cliff"], &p["decay"]),
        (
            &serde_json::json!("100000000000000000000"),
            &serde_json::json!("2000000000000000000000000"),
            &serde_json::json!("120000000000000000000000000")
        )
    );
    // §5.5 by hand: floor(floor(100e18·120e24/(120e24 + tail))·120e24/(120e24 + tail)) =
    // 95958841535663651426 PAPER per $ (≈ 95.96).
    const RATE: &str = "95958841535663651426";
    let basis = 250 * WAD + WAD / 2;
    let v = json(&sim, &["paper-mint", "--loss-basis-usd", "250.5"]).await;
    assert_eq!(v["lossBasisRaw"], basis.to_string());
    assert_eq!(v["paperPerUsdRaw"], RATE);
    // floor(250.5e18·rate/1e18).
    assert_eq!(v["estimatedPaperRaw"], "24037689804683744682213");
    assert_eq!(v["paperSupplyRaw"], p["supply"]);
    assert_eq!(v["paperStakedRaw"], p["staked"]);
    // A $1 basis by default: the rate itself.
    let default = json(&sim, &["paper-mint"]).await;
    assert_eq!(default["estimatedPaperRaw"], RATE);

    let o = json(
        &sim,
        &["overview", "--recent-trades", "3", "--interval", "1m"],
    )
    .await;
    assert_eq!(o["tvl_raw"], s["balances"]["tvl"]);
    assert_eq!(o["open_positions"], s["activity"]["open"]);
    assert_eq!(o["recent_trades"].as_array().unwrap().len(), 3);
    let (_, trading) = sim.get("/state/trading").await;
    for (i, m) in o["markets"].as_array().unwrap().iter().enumerate() {
        let tuple = &trading["instruments"][i];
        assert_eq!(m["symbol"], tuple[1]);
        assert_eq!(m["long"]["oi_raw"], tuple[19]);
        assert_eq!(m["short"]["oi_raw"], tuple[20]);
    }
    let (_, history) = sim.get("/query/protocol/history?interval=1m").await;
    assert_eq!(o["history"]["columns"]["tvl"], history["columns"]["tvl"]);

    let trades = json(
        &sim,
        &[
            "trades", "--kind", "open", "--market", "ETH", "--limit", "4",
        ],
    )
    .await;
    let feed = feed_rows(&sim).await;
    let want: Vec<&Value> = feed
        .iter()
        .filter(|e| e["kind"] == "open" && e["instrument"] == "ETH")
        .take(4)
        .collect();
    assert_eq!(trades["count"], want.len());
    for (got, want) in trades["events"].as_array().unwrap().iter().zip(want) {
        assert_eq!(got["seq"], want["seq"]);
    }
}

async fn feed_rows(sim: &Sim) -> Vec<Value> {
    let (_, feed) = sim.get("/query/protocol/trades/recent").await;
    feed["events"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_arguments_exit_2_and_name_the_flag() {
    let addr = format!("{:#x}", Address::with_last_byte(1));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["leaderboard", "--window", "1y"], "--window"),
        (vec!["leaderboard", "--sort-key", "pnl"], "--sort-key"),
        (vec!["leaderboard", "--sort-dir", "up"], "--sort-dir"),
        (vec!["leaderboard", "--page", "-1"], "--page"),
        (vec!["top-traders", "--limit", "26"], "--limit"),
        (vec!["top-traders", "--limit", "0"], "--limit"),
        (vec!["trades", "--limit", "51"], "--limit"),
        (vec!["trades", "--kind", "teleport"], "--kind"),
        (
            vec!["candles", "--market", "BTC", "--limit", "201"],
            "--limit",
        ),
        (
            vec!["candles", "--market", "BTC", "--interval", "2h"],
            "--interval",
        ),
        (vec!["overview", "--recent-trades", "51"], "--recent-trades"),
        (vec!["history", &addr, "--limit", "76"], "--limit"),
        (vec!["history", &addr, "--filter", "wins"], "--filter"),
        (vec!["history", &addr, "--wait", "601"], "--wait"),
        (
            vec!["paper-mint", "--loss-basis-usd", "1000000000.5"],
            "--loss-basis-usd",
        ),
        (
            vec!["paper-mint", "--loss-basis-usd", "-5"],
            "--loss-basis-usd",
        ),
        (
            vec!["paper-mint", "--loss-basis-usd", "lots"],
            "--loss-basis-usd",
        ),
        (vec!["wallet", "0x12"], "ADDR"),
        (vec!["lookup", "0x12"], "INTENT_ID"),
        (vec!["search", "  "], "QUERY"),
    ];
    for (args, flag) in cases {
        let out = run(None, &args).await;
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(flag),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explorer_commands_stand_beside_watch_and_sign_nothing() {
    let sim = crowded().await;
    let watched = sim.server.shared.with_engine(|e| e.crowd.wallets()[0]);
    let w = format!("{watched:#x}");
    for args in [
        vec!["--watch", &w, "leaderboard", "--json"],
        vec!["--watch", &w, "wallet", &w, "--json"],
        vec!["--watch", &w, "top-traders", "--json"],
        vec!["--watch", &w, "paper-mint", "--json"],
    ] {
        let out = run(Some(&sim), &args).await;
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    let top = json(&sim, &["top-traders", "--window", "all"]).await;
    assert_eq!(top["traders"].as_array().unwrap().len(), 3);
    let (_, board) = sim
        .get("/state/leaderboard/accounts?page=0&pageSize=3&sortDir=desc&sortKey=totalWindowedPnl&window=all")
        .await;
    for i in 0..3 {
        assert_eq!(
            top["traders"][i]["address"],
            board["accounts"][i]["address"]
        );
        assert_eq!(
            top["traders"][i]["windowedPnlRaw"],
            board["accounts"][i]["totalWindowedPnl"]
        );
        assert_eq!(top["traders"][i]["rank"], i + 1);
    }
}

/// The tables of a human output: each header, its rule and rows, up to a blank line or a note.
fn tables(out: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = out.lines().collect();
    let mut found = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 && l.starts_with('─') {
            let mut t = vec![lines[i - 1].to_string(), l.to_string()];
            t.extend(
                lines[i + 1..]
                    .iter()
                    .take_while(|r| !r.is_empty() && !r.starts_with('('))
                    .map(|r| r.to_string()),
            );
            found.push(t);
        }
    }
    found
}

/// Every human table formats money, prices and times one way — `$1,234.57`, the market's
/// precision grouped, `YYYY-MM-DD HH:MM` UTC — and fits an 80-column terminal by leaving out
/// its least important columns whole, saying which.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_tables_share_one_format_and_fit_80_columns() {
    // A past to draw candles from, on the wall clock the candles are asked by.
    let sim = Sim::start(SimConfig {
        seed: 12,
        crowd: 30,
        heartbeat_ms: 200,
        relayer_delay_ms: 500,
        warmup_ms: 3 * 3_600_000,
        ..SimConfig::default()
    })
    .await;
    let narrow = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
        let home = tempfile::tempdir().unwrap();
        c.args(args)
            .args([
                "--api",
                &sim.server.base_url(),
                "--info-url",
                &sim.server.info_url(),
            ])
            .env_clear()
            .env("HOME", home.path())
            .env("COLUMNS", "80")
            .env("PAPERTRADE_TUI_DATA_DIR", home.path().join("data"));
        async move {
            let out = tokio::task::spawn_blocking(move || c.output().unwrap())
                .await
                .unwrap();
            drop(home);
            assert!(out.status.success(), "{}", text(&out.stderr));
            text(&out.stdout)
        }
    };
    let is_time = |cell: &str| {
        let b = cell.as_bytes();
        cell.len() == 16
            && b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b' '
            && b[13] == b':'
            && cell.chars().filter(char::is_ascii_digit).count() == 12
    };
    let rows = feed_rows(&sim).await;
    let wallet = rows
        .iter()
        .find(|r| r["kind"] == "close")
        .and_then(|r| r["wallet"].as_str())
        .expect("a close in the feed")
        .to_string();
    let mut seen = Vec::new();
    for args in [
        vec!["trades", "--limit", "5"],
        vec![
            "candles",
            "--market",
            "BTC",
            "--interval",
            "1m",
            "--limit",
            "5",
        ],
        vec!["overview", "--recent-trades", "5"],
        vec!["history", wallet.as_str()],
        vec!["markets"],
        vec!["top-traders", "--limit", "5"],
    ] {
        let out = narrow(&args).await;
        let found = tables(&out);
        assert!(!found.is_empty(), "{args:?}: no table in\n{out}");
        for t in &found {
            for line in t {
                assert!(
                    line.chars().count() <= 80,
                    "{args:?}: wider than 80:\n{line}"
                );
            }
        }
        seen.push((args[0], found, out));
    }
    let table_of = |name: &str| {
        seen.iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, t, out)| (t.clone(), out.clone()))
            .unwrap()
    };
    // Times in UTC, in every table that has them.
    for name in ["trades", "candles", "history"] {
        let (t, out) = table_of(name);
        let table = t.last().unwrap();
        assert!(table[0].starts_with("TIME (UTC)"), "{name}: {out}");
        assert!(is_time(&table[2][..16]), "{name}: {out}");
    }
    // Prices at the market's precision, grouped; money with cents.
    let (t, out) = table_of("candles");
    let btc_price =
        |cell: &str| cell.len() == 8 && cell.as_bytes()[2] == b',' && cell.as_bytes()[6] == b'.';
    let cells: Vec<&str> = t[0][2].split_whitespace().collect();
    assert!(btc_price(cells[2]), "BTC at 1 decimal, grouped: {out}");
    let (t, out) = table_of("overview");
    let btc = t[0].iter().find(|l| l.starts_with("BTC")).unwrap();
    let cells: Vec<&str> = btc.split_whitespace().collect();
    assert!(btc_price(cells[1]), "the mark: {out}");
    let volume = cells.last().unwrap();
    assert!(
        volume.starts_with('$')
            && volume.contains(',')
            && volume.as_bytes()[volume.len() - 3] == b'.',
        "the 24h volume with cents: {out}"
    );
    let (_, out) = table_of("trades");
    let note = out
        .lines()
        .find(|l| l.starts_with("(left out at 80 columns: "))
        .unwrap_or_else(|| panic!("the columns left out are named: {out}"));
    assert!(note.contains("WALLET"), "the wallet goes first: {out}");
}

/// `decode-tx`: the simulator's settlement batch of an open, as `decode_transaction` answers it
/// (`--json`) and as a person reads it; a hash HyperEVM does not know; a malformed hash refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decode_tx_reads_the_batch_that_settled_an_open() {
    let sim = Sim::manual().await;
    let mut trader = sim.trader(1_000).await;
    let (body, intent) = trader.open(sim.now_s(), 0, true, 50, 20);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    let batch = sim.server.shared.with_engine(|e| {
        e.settlement_transactions()
            .find(|t| t.intents.contains(&intent))
            .cloned()
            .unwrap()
    });
    let rpc = sim.server.rpc_url();
    let hash = format!("{:#x}", batch.hash);
    let v = json(&sim, &["decode-tx", &hash, "--rpc-url", &rpc]).await;
    assert_eq!(v["found"], true);
    assert_eq!(v["status"], "success");
    assert_eq!(v["block_number"], batch.block);
    assert_eq!(v["is_batch"], true);
    assert!(v.get("intents").is_none());

    let out = run(Some(&sim), &["decode-tx", &hash, "--rpc-url", &rpc]).await;
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    assert!(
        said.contains(&format!("success in block {}", batch.block)),
        "{said}"
    );
    assert!(said.contains("unpublished"), "{said}");

    let unknown = format!("{intent:#x}");
    let v = json(&sim, &["decode-tx", &unknown, "--rpc-url", &rpc]).await;
    assert_eq!(v["found"], false);
    assert!(v.get("status").is_none());

    let out = run(Some(&sim), &["decode-tx", "0x1234", "--rpc-url", &rpc]).await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("TX_HASH") || err.contains("64 hex"), "{err}");
    assert!(err.contains("64 hex"), "{err}");
}
