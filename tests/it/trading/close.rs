//! Closing and cancelling: batches split to the relayer's limit, a position already closing left
//! out, repeated ids sent once, a queued open cancelled.

use alloy_primitives::{Address, U256};
use papertrade_tui::protocol::eip712::OpenPosition;
use serde_json::{Value, json};

use crate::simkit::Sim;

use super::user::{User, WAD, live_sim, ready_user, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_of_thirty_goes_out_as_three_intents() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 20_000).await;
    let key = user.session_key();
    let mut stream = sim.stream(user.owner()).await;
    for i in 0..30u64 {
        let open = OpenPosition {
            user: user.owner(),
            instrumentId: (i % 2) as u32,
            isLong: true,
            size: 20 * WAD,
            leverage: 100,
            useDebt: false,
            nonce: U256::from(900_000 + i),
            deadline: sim.now_s() + 3600,
        };
        let (status, answer) = sim
            .post("/intents", &key.sign(open).unwrap().post().unwrap().body)
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    stream
        .until("the 30 opens settled", |s| s.open_positions.len() == 30)
        .await;
    assert_eq!(
        user.json(&["positions"]).await["positions"]
            .as_array()
            .unwrap()
            .len(),
        30
    );
    let closed = user.json(&["close", "--all", "--yes"]).await;
    let intents = closed["intents"].as_array().unwrap();
    assert_eq!(intents.len(), 3);
    let sizes: Vec<usize> = intents
        .iter()
        .map(|i| i["positionIds"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [12, 12, 6]);
    assert!(
        intents.iter().all(|i| i["outcome"] == "succeeded"),
        "{closed}"
    );
    assert_eq!(closed["closed"].as_array().unwrap().len(), 30);
    assert!(
        user.json(&["positions"]).await["positions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// `close --all` leaves out a position whose close is already queued (the relayer would refuse
/// the whole batch `position_closing`) and says so; the others close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_all_skips_a_position_already_closing() {
    let sim = Sim::live(24, 1_500).await;
    let user = ready_user(&sim, 2000).await;
    let mut ids = Vec::new();
    for market in ["BTC", "ETH"] {
        ids.push(user.open_long(market, "50", "25").await);
    }
    let out = user.run(&["close", &ids[0], "--yes", "--wait", "0"]).await;
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let out = user.run(&["close", "--all", "--yes"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("skipped #{}: its close is already queued", ids[0])),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains(&format!("closed #{}", ids[1])));
    // Asking for it by id alone: nothing to send, said plainly, exit 2.
    let mut stream = sim.stream(user.owner()).await;
    stream
        .until("both closed", |s| s.open_positions.is_empty())
        .await;
    let id = user.open_long("BTC", "50", "25").await;
    assert_eq!(
        user.run(&["close", &id, "--yes", "--wait", "0"])
            .await
            .status
            .code(),
        Some(5)
    );
    let out = user.run(&["close", &id, "--yes", "--json"]).await;
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already has a close queued"),
        "{v}"
    );
    assert_eq!(v["error"]["field"], "<POSITION_ID>");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_close_ids_are_sent_once_and_fates_are_audited() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let id = user.open_long("ETH", "50", "20").await;
    let closed = user.json(&["close", &id, &id, "--yes"]).await;
    assert_eq!(closed["intents"][0]["positionIds"], json!([id]));
    assert_eq!(closed["intents"][0]["outcome"], "succeeded");
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let outcomes = audit
        .lines()
        .filter(|l| l.contains("\"event\":\"outcome\""))
        .count();
    // Register, open and close each ended with a recorded outcome.
    assert_eq!(outcomes, 3, "{audit}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_of_a_queued_open() {
    // A manual clock holds the relayer still: the open stays queued until cancelled.
    let sim = Sim::manual().await;
    let user = User::new(&sim);
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "500"}),
    )
    .await;
    let created = user.json(&["key", "new"]).await;
    let key_address: Address = created["created"]["sessionKey"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Registered as if long ago (the CLI's registration path is covered elsewhere).
    let owner = user.owner();
    // The manual clock lives in the past; the client judges expiry by the wall clock.
    let expiry = papertrade_tui::clock::now_unix_s() + 86_400;
    sim.server.shared.with_engine(|e| {
        e.commit(owner, |tx| {
            papertrade_tui::sim::Engine::add_session_key(tx, key_address, expiry)
        });
    });
    let shown = user.json(&["key", "show"]).await;
    assert_eq!(shown["usable"], true, "{shown}");
    let key = user.session_key();
    let open = OpenPosition {
        user: owner,
        instrumentId: 1,
        isLong: false,
        size: 50 * WAD,
        leverage: 20,
        useDebt: false,
        nonce: U256::from(777u64),
        deadline: sim.now_s() + 3600,
    };
    let signed = key.sign(open).unwrap();
    let id = signed.intent_id();
    assert_eq!(
        sim.post("/intents", &signed.post().unwrap().body).await.0,
        200
    );
    let listed = user.json(&["positions"]).await;
    assert_eq!(
        listed["pendingOperations"][0]["intentId"],
        format!("{id:#x}")
    );
    assert_eq!(listed["pendingOperations"][0]["queueRank"], 1);
    assert_eq!(listed["availableUsd"], 450);
    let cancelled = user.json(&["cancel", &format!("{id:#x}"), "--yes"]).await;
    assert_eq!(cancelled["outcome"], "cancelled");
    let listed = user.json(&["positions"]).await;
    assert!(listed["pendingOperations"].as_array().unwrap().is_empty());
    assert_eq!(listed["availableUsd"], 500);
    // Cancelling what is not queued is refused before signing.
    let out = user.run(&["cancel", &format!("{id:#x}"), "--yes"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not queued"));
}
