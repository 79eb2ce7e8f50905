//! What a trader learns of an intent's fate: a failure names what likely refused it (inferred),
//! and `lookup` of one's own intent reads this machine's audit log.

use serde_json::json;

use crate::simkit::Sim;
use crate::support::open_args;
use crate::trading::{User, ready_user};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_open_says_what_likely_refused_it_and_lookup_finds_it_in_the_audit_log() {
    // The relayer holds each intent 3 s: time to pause the market under a queued open.
    let sim = Sim::live(21, 3_000).await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("ETH", "2500").await;
    let mut stream = sim.stream(user.owner()).await;
    let mut open = user.command(&open_args("ETH", "long", "100", "10", &["--json"]));
    let cli = tokio::task::spawn_blocking(move || open.output().unwrap());
    stream
        .until("the open queued", |s| !s.operations.is_empty())
        .await;
    sim.control("/sim/market", json!({"market": "ETH", "status": "paused"}))
        .await;
    let out = cli.await.unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["outcome"], "failed", "{v}");
    let failure = &v["failure"];
    assert_eq!(failure["inferred"], true, "{v}");
    let likely = failure["likely"].as_str().unwrap_or_default();
    assert!(likely.contains("ETH") && likely.contains("paused"), "{v}");

    // `lookup` of this machine's own intent, no wallet given: the audit log knows it.
    let id = v["intentId"].as_str().unwrap();
    let found = user.json(&["lookup", id]).await;
    assert_eq!(found["state"], "failed", "{found}");
    assert_eq!(found["audit"]["action"], "openPosition", "{found}");
    assert_eq!(found["audit"]["market"], "ETH", "{found}");
    assert_eq!(
        found["wallet_checked"], true,
        "the audit log names the wallet"
    );
    let human = user.run(&["lookup", id]).await;
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("audit log: openPosition signed at"), "{text}");
    // Another machine (another data dir) never signed it: not found, as before.
    let stranger = User::new(&sim);
    assert_eq!(stranger.json(&["lookup", id]).await["state"], "not_found");
}

/// The audit log's lines of one intent: (event, outcome).
fn audit_of(user: &User, id: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(user.data().join("audit.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["intentId"] == id)
        .map(|e| {
            (
                e["event"].as_str().unwrap_or_default().to_string(),
                e["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_stops_waiting_records_so_and_a_later_one_records_the_fate() {
    let sim = crate::trading::live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    // Exits right after sending: the fate is not known yet.
    let out = user
        .run(&open_args(
            "BTC",
            "long",
            "100",
            "10",
            &["--json", "--wait", "0"],
        ))
        .await;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"], "pending", "{v}");
    let id = v["intentId"].as_str().unwrap().to_string();
    assert_eq!(
        audit_of(&user, &id),
        [
            ("signed".to_string(), String::new()),
            ("accepted".into(), String::new()),
            ("outcome".into(), "pending".into()),
        ],
        "what was learnt is recorded"
    );
    let mut stream = sim.stream(user.owner()).await;
    stream
        .until("the open settled", |s| !s.open_positions.is_empty())
        .await;
    // Any later command that follows the wallet sees the fate and appends it, once: the
    // terminal UI (here watching the wallet) first.
    let mut ctx = crate::tui_run::context(&user.api, &user.info, &user.data(), None);
    ctx.watch = Some(user.owner());
    let ui = crate::tui_run::Ui::start(crate::tui_run::prepare(&ctx).await);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while audit_of(&user, &id).len() < 4 {
        assert!(
            std::time::Instant::now() < deadline,
            "the UI never recorded the fate: {:?}",
            audit_of(&user, &id)
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    ui.quit().await.unwrap();
    user.json(&["positions"]).await;
    user.json(&["positions"]).await;
    let lines = audit_of(&user, &id);
    assert_eq!(
        lines.last(),
        Some(&("outcome".to_string(), "succeeded".to_string())),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 4, "recorded once: {lines:?}");
}

/// A close batch the stream reports `failed` says what likely refused it: here the position was
/// liquidated while its close waited in the queue, so the close's own check names it gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_close_says_what_likely_refused_it() {
    let sim = Sim::live(22, 3_000).await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("ETH", "2500").await;
    let opened = user.json(&open_args("ETH", "long", "100", "10", &[])).await;
    assert_eq!(opened["outcome"], "succeeded", "{opened}");
    let position = opened["position"]["positionId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut stream = sim.stream(user.owner()).await;
    let mut close = user.command(&["close", "--all", "--yes", "--json"]);
    let cli = tokio::task::spawn_blocking(move || close.output().unwrap());
    stream
        .until("the close queued", |s| !s.operations.is_empty())
        .await;
    // 20% under a 10x long's entry: past its bust, the liquidation engine takes it first.
    sim.pin("ETH", "2000").await;
    let out = cli.await.unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let intent = &v["intents"][0];
    assert_eq!(intent["outcome"], "failed", "{v}");
    assert_eq!(intent["failure"]["inferred"], true, "{v}");
    let likely = intent["failure"]["likely"].as_str().unwrap_or_default();
    assert!(
        likely.contains(&position) && likely.contains("not open"),
        "{v}"
    );
}
