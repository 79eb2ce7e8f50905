//! The simulator's warm-up: an exchange founded in the past, the crowd trading through it, so
//! leaderboard windows, the trades feed and protocol history have shape from the start.

use std::process::Stdio;

use alloy_primitives::Address;
use papertrade_tui::sim::SimConfig;
use serde_json::Value;

use crate::simkit::Sim;
use crate::support::command;

const DAY_MS: u64 = 86_400_000;
const WAD: u128 = 1_000_000_000_000_000_000;

/// A month and two days of past: beyond the 30-day window, so all four windows can differ.
fn warmed() -> SimConfig {
    SimConfig {
        seed: 5,
        crowd: 40,
        manual_clock: true,
        warmup_ms: 32 * DAY_MS,
        ..SimConfig::default()
    }
}

async fn board(sim: &Sim, window: &str) -> Value {
    let (status, board) = sim
        .get(&format!(
            "/state/leaderboard/accounts?page=0&pageSize=200&sortDir=desc&sortKey=totalWindowedPnl&window={window}"
        ))
        .await;
    assert_eq!(status, 200, "{board}");
    board
}

/// Each wallet's realized PnL in `window`, as the board shows it.
fn realized(board: &Value) -> Vec<(String, i128)> {
    let mut rows: Vec<(String, i128)> = board["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let pnl = r["realizedPnl"].as_str().unwrap().parse().unwrap();
            (r["address"].as_str().unwrap().to_string(), pnl)
        })
        .collect();
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_up_gives_windows_liquidations_and_history() {
    let sim = Sim::start(warmed()).await;
    // The engine's own record: every close's (time, net PnL), per wallet, and what is open.
    let (now, entries, open, last_hour_points) = sim.server.shared.with_engine(|e| {
        let now = e.now_ms();
        let entries: Vec<(Address, Vec<(u64, i128)>)> = e
            .crowd
            .wallets()
            .into_iter()
            .map(|w| (w, e.account(w).unwrap().realized.clone()))
            .collect();
        let open: usize = e
            .crowd
            .wallets()
            .iter()
            .map(|w| e.account(*w).unwrap().state.open_positions.len())
            .sum();
        let last_hour = e.history.iter().filter(|p| p.t + 3_600_000 > now).count();
        (now, entries, open, last_hour)
    });
    let within = |span: u64| -> Vec<(String, i128)> {
        let mut rows: Vec<(String, i128)> = entries
            .iter()
            .map(|(w, r)| {
                let sum = r
                    .iter()
                    .filter(|(t, _)| *t >= now.saturating_sub(span))
                    .map(|(_, p)| p)
                    .sum();
                (format!("{w:#x}"), sum)
            })
            .collect();
        rows.sort();
        rows
    };
    let windows = [
        ("24h", DAY_MS),
        ("7d", 7 * DAY_MS),
        ("30d", 30 * DAY_MS),
        ("all", u64::MAX),
    ];
    let mut shown = Vec::new();
    for (window, span) in windows {
        let rows = realized(&board(&sim, window).await);
        // The crowd's rows are the engine's sums over its own entries.
        let crowd: Vec<(String, i128)> = rows
            .iter()
            .filter(|(a, _)| within(span).iter().any(|(w, _)| w == a))
            .cloned()
            .collect();
        assert_eq!(crowd, within(span), "{window}");
        shown.push(rows);
    }
    // Each window differs from the next: some wallet closed in between.
    for i in 0..3 {
        assert_ne!(
            shown[i],
            shown[i + 1],
            "{} = {}",
            windows[i].0,
            windows[i + 1].0
        );
    }
    assert!(open > 0, "the crowd holds nothing at the end");

    // Liquidations happened in the past, and the history has a point per interval.
    let (status, day) = sim.get("/query/protocol/history?interval=1d").await;
    assert_eq!(status, 200, "{day}");
    let liquidated: u128 = day["totals"]["liquidationRaw"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        liquidated > 0,
        "no liquidation in the past: {}",
        day["totals"]
    );
    let points = |v: &Value| v["columns"]["tvl"].as_array().unwrap().len();
    assert!(points(&day) >= 32, "1d: {}", points(&day));
    let (_, hour) = sim.get("/query/protocol/history?interval=1h").await;
    assert!(points(&hour) >= 7 * 24, "1h: {}", points(&hour));
    let (_, minute) = sim.get("/query/protocol/history?interval=1m").await;
    assert!(points(&minute) >= 60, "1m: {}", points(&minute));
    assert!(last_hour_points >= 60, "last hour: {last_hour_points}");
    let (_, feed) = sim.get("/query/protocol/trades/recent").await;
    assert!(feed["count"].as_u64().unwrap() > 0, "{feed}");
}

/// The same seed and warm-up give the same past: the same boards and the same history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_warms_up_to_the_same_past() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let sim = Sim::start(warmed()).await;
        let (_, history) = sim.get("/query/protocol/history?interval=1h").await;
        let (_, feed) = sim.get("/query/protocol/trades/recent").await;
        runs.push((
            board(&sim, "all").await,
            board(&sim, "24h").await,
            history,
            feed,
        ));
    }
    // Something to compare: a past with trades in it.
    assert!(runs[0].3["count"].as_u64().unwrap() > 0);
    assert_eq!(runs[0], runs[1]);
}

/// Without a warm-up there is no past: one history point, and every window the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_warm_up_no_past() {
    let sim = Sim::start(SimConfig {
        warmup_ms: 0,
        ..warmed()
    })
    .await;
    let (_, hour) = sim.get("/query/protocol/history?interval=1h").await;
    assert_eq!(hour["columns"]["tvl"].as_array().unwrap().len(), 1);
    assert_eq!(
        realized(&board(&sim, "24h").await),
        realized(&board(&sim, "all").await)
    );
}

/// The demo's practice wallet is funded after the warm-up: it holds the practice balance, and
/// nothing in the past is its.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_wallet_is_untouched_by_the_warm_up() {
    let (mut command, _home) = command(&[
        "demo",
        "--json",
        "--crowd",
        "20",
        "--warmup-hours",
        "48",
        "--balance",
        "777",
    ]);
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first JSON value on stdout, pretty-printed; the demo serves on after it.
    let demo: Value = serde_json::Deserializer::from_reader(child.stdout.take().unwrap())
        .into_iter()
        .next()
        .expect("the demo printed nothing")
        .unwrap();
    let url = format!(
        "{}/state/leaderboard/accounts?page=0&pageSize=200&sortDir=desc&sortKey=currentBalance&window=all",
        demo["api"].as_str().unwrap()
    );
    let board: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let rows = board["accounts"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|r| r["address"] == demo["wallet"])
        .unwrap_or_else(|| panic!("{board}"));
    assert_eq!(row["currentBalance"], (777 * WAD).to_string());
    assert_eq!(row["totalVolume"], "0");
    assert_eq!(row["realizedPnl"], "0");
    // The past is there: the crowd traded in it.
    assert!(rows.iter().any(|r| r["totalVolume"] != "0"), "{board}");
}
