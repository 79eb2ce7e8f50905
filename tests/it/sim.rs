//! The exchange simulator, driven over real HTTP and SSE as a client would.

use alloy_primitives::{B256, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::SolStruct;
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::protocol::eip712::{Domain, Intent, WithdrawToCore};
use papertrade_tui::protocol::hyperliquid::{CANDLE_INTERVALS, Candle, L2Book};
use papertrade_tui::protocol::trading::TradingState;
use papertrade_tui::sim::SimConfig;
use serde_json::{Value, json};

use crate::simkit::{SEED_CLOSE_NET_PNL, SEED_CLOSE_WIN_FEE, Sim, Trader, b256};

const WAD: u128 = 1_000_000_000_000_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_life_register_open_close() {
    let sim = Sim::manual().await;
    let mut t = Trader::new();
    let mut stream = sim.stream(t.address()).await;
    assert_eq!(stream.liveness, Some(json!({"heartbeatIntervalMs": 200})));
    assert!(stream.comments.iter().any(|c| c == "connected"));

    sim.control(
        "/sim/fund",
        json!({"wallet": t.wallet_hex(), "amountUsd": "1000"}),
    )
    .await;
    stream.until("funded", |s| s.balance == 1000 * WAD).await;

    // Register: the answer's id is the one computed locally.
    let (status, answer) = sim.post("/intents", &t.register(sim.now_s())).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["state"], "queued");
    assert_eq!(answer["action"], "registerSessionKey");
    let register_id = b256(&answer["intentId"]);
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(register_id).await.0, "succeeded");
    assert!(
        stream
            .fold
            .state()
            .unwrap()
            .session_key_expiry(t.session.address())
            .is_some()
    );

    // Open at a pinned mid: the entry is the settlement mid and the bust is §5.2's.
    sim.pin("BTC", "82800.3").await;
    let (body, id) = t.open(sim.now_s(), 0, true, 100, 500);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(b256(&answer["intentId"]), id);
    stream
        .until("reserved", |s| {
            s.funds.reserved_balance == 100 * WAD && s.operations.len() == 1
        })
        .await;
    let op = &stream.fold.state().unwrap().operations[0];
    assert_eq!(
        (op.action.as_str(), op.amount, op.leverage),
        ("openPosition", Some(100 * WAD), Some(500))
    );
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let s = stream.fold.state().unwrap().clone();
    let p = &s.open_positions[0];
    assert_eq!(
        (p.entry_price, p.bust_price, p.intent_id),
        (828_003, 826_740, Some(id))
    );
    assert_eq!(
        (s.balance, s.locked, s.funds.reserved_balance),
        (900 * WAD, 100 * WAD, 0)
    );

    // The trading state now shows the open interest.
    let (_, trading) = sim.get("/state/trading").await;
    let state = TradingState::from_value(&trading).unwrap();
    assert!(state.market("BTC").unwrap().long_oi > 0);

    // Close at +0.1%: closedPositions carries exactly the §5.3 net PnL at the settlement mid.
    sim.pin("BTC", "82883.1").await;
    let (body, close_id) = t.close(sim.now_s(), vec![p.id]);
    let (status, _) = sim.post("/intents", &body).await;
    assert_eq!(status, 200);
    sim.advance(1_000).await;
    let (outcome, closed) = stream.outcome(close_id).await;
    assert_eq!(outcome, "succeeded");
    assert_eq!(closed[0].net_pnl, SEED_CLOSE_NET_PNL);
    assert!(!closed[0].liquidated);
    let s = stream.fold.state().unwrap();
    assert!(s.open_positions.is_empty());
    assert_eq!(s.balance as i128, (1000 * WAD) as i128 + SEED_CLOSE_NET_PNL);
    assert_eq!(s.lifetime.realized_pnl, SEED_CLOSE_NET_PNL);
    assert_eq!(s.lifetime.fees_paid, SEED_CLOSE_WIN_FEE);

    // The fold equals a fresh snapshot.
    assert_eq!(sim.snapshot(t.address()).await, *s);

    // The trade feed saw the open and the close.
    let (_, trades) = sim.get("/query/protocol/trades/recent").await;
    let kinds: Vec<&str> = trades["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["close", "open"]);
    let (_, summary) = sim.get("/query/protocol/summary").await;
    assert_eq!(
        summary["activity"]["volume"],
        (2 * 50_000 * WAD).to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_queued_only() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(500).await;
    let mut stream = sim.stream(t.address()).await;
    let (body, id) = t.open(sim.now_s(), 1, false, 50, 20);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    stream.until("queued", |s| s.operations.len() == 1).await;

    let (_, rank) = sim
        .get(&format!("/queue-rank/accounts/{}", t.wallet_hex()))
        .await;
    assert_eq!(rank["entries"][0]["position"], "1");
    assert_eq!(b256(&rank["entries"][0]["intentId"]), id);

    let (path, cancel) = t.cancel(sim.now_s(), id);
    let (status, answer) = sim.post(&path, &cancel).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        (answer["state"].as_str(), b256(&answer["intentId"])),
        (Some("cancelled"), id)
    );
    assert_eq!(stream.outcome(id).await.0, "cancelled");
    let s = stream.fold.state().unwrap();
    assert_eq!(
        (
            s.operations.len(),
            s.funds.reserved_balance,
            s.funds.available_balance
        ),
        (0, 0, 500 * WAD)
    );

    // Nothing to cancel any more; after settlement neither.
    let (status, answer) = sim.post(&path, &cancel).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (409, Some("not_cancellable"))
    );
    let (body, id) = t.open(sim.now_s(), 1, false, 50, 20);
    sim.post("/intents", &body).await;
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let (path, cancel) = t.cancel(sim.now_s(), id);
    assert_eq!(sim.post(&path, &cancel).await.0, 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn liquidation_on_a_forced_move() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(100).await;
    let mut stream = sim.stream(t.address()).await;
    sim.pin("ETH", "2500.00").await;
    let (body, id) = t.open(sim.now_s(), 1, true, 20, 1000);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let p = stream.fold.state().unwrap().open_positions[0].clone();
    // §5.2 by hand, ETH's bust buffer 481304050180130: step floor(250000/1000) = 250, zero
    // 249750, bust = 249750 + floor(249750·481304050180130/1e18) = 249750 + 120 = 249870.
    assert_eq!(p.bust_price, 249_870);
    // One raw unit above bust: alive. At bust: liquidated, whole margin lost.
    let above = p.bust_price + 1;
    sim.pin("ETH", &format!("{}.{:02}", above / 100, above % 100))
        .await;
    sim.advance(250).await;
    assert_eq!(stream.fold.state().unwrap().open_positions.len(), 1);
    sim.pin(
        "ETH",
        &format!("{}.{:02}", p.bust_price / 100, p.bust_price % 100),
    )
    .await;
    stream
        .until("liquidated", |s| s.open_positions.is_empty())
        .await;
    let s = stream.fold.state().unwrap();
    assert_eq!(s.balance, 80 * WAD);
    assert_eq!(s.lifetime.realized_pnl, -(20 * WAD as i128));
    assert!(
        s.paper.balance > 0,
        "PAPER is minted on the liquidated margin"
    );
    let (_, trades) = sim.get("/query/protocol/trades/recent").await;
    assert_eq!(trades["events"][0]["kind"], "liq");
    assert_eq!(trades["events"][0]["pnlUsd"], -20.0);
}

async fn refused(sim: &Sim, path: &str, body: &Value, status: u16, code: &str) {
    let (got, answer) = sim.post(path, body).await;
    assert_eq!(
        (got, answer["error"].as_str()),
        (status, Some(code)),
        "{answer}"
    );
    assert_eq!(answer["ok"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_changes_nothing() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1000).await;
    let before = sim.snapshot(t.address()).await;
    let now = sim.now_s();

    // Bad signatures: high-S (malleable) and an unrecoverable r.
    let (mut body, _) = t.open(now, 0, true, 100, 10);
    let s = U256::from_str_radix(
        body["signed"]["s"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap();
    let n = U256::from_str_radix(
        "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        16,
    )
    .unwrap();
    body["signed"]["s"] = json!(format!("{:#066x}", n - s));
    refused(&sim, "/intents", &body, 400, "invalid_signature").await;
    let (mut body, _) = t.open(now, 0, true, 100, 10);
    body["signed"]["r"] = json!(format!("0x{}", "0".repeat(64)));
    refused(&sim, "/intents", &body, 400, "invalid_signature").await;

    // The wrong signer: a key that was never registered.
    let mut stranger = Trader::new();
    stranger.wallet = t.wallet.clone();
    let (body, _) = stranger.open(now, 0, true, 100, 10);
    refused(&sim, "/intents", &body, 403, "unauthorized_signer").await;

    // A withdrawal signed by the session key (impossible through our types, so forged here).
    let w = WithdrawToCore {
        user: t.address(),
        amount: U256::from(10_000_000u64),
        nonce: U256::from(9u8),
        deadline: now + 3600,
    };
    let digest = w.eip712_signing_hash(&<WithdrawToCore as Intent>::DOMAIN.eip712());
    let raw = PrivateKeySigner::from_bytes(&t.session.secret_bytes()).unwrap();
    let sig = raw.sign_hash_sync(&digest).unwrap();
    let forged = json!({"action": "withdrawToCore", "signed": {
        "user": t.wallet_hex(), "amount": "10000000", "nonce": "9", "deadline": (now + 3600).to_string(),
        "v": (27 + u8::from(sig.v())).to_string(),
        "r": format!("{:#x}", B256::from(sig.r())), "s": format!("{:#x}", B256::from(sig.s()))},
        "withdrawal": {"route": "hypercore"}});
    refused(&sim, "/intents", &forged, 403, "unauthorized_signer").await;
    assert_eq!(Domain::Exchange, <WithdrawToCore as Intent>::DOMAIN);

    // Reused nonce: accept once, refuse the replay (even re-signed with a new deadline).
    let (body, id) = t.open(now, 0, true, 100, 10);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    refused(&sim, "/intents", &body, 409, "nonce_used").await;
    t.nonce -= 1;
    let (again, again_id) = t.open(now + 1, 0, true, 100, 10);
    assert_ne!(again_id, id);
    refused(&sim, "/intents", &again, 409, "nonce_used").await;
    sim.advance(1_000).await;
    let after_open = sim.snapshot(t.address()).await;

    // Expired deadline.
    let (body, _) = t.open(now.saturating_sub(3_700), 0, true, 100, 10);
    refused(&sim, "/intents", &body, 422, "deadline_expired").await;
    // §5.4 checks, each with its reason.
    let now = sim.now_s();
    let (body, _) = t.open(now, 0, true, 9, 1000);
    refused(&sim, "/intents", &body, 422, "margin_below_minimum").await;
    let (body, _) = t.open(now, 0, true, 100, 1001);
    refused(&sim, "/intents", &body, 422, "leverage_above_maximum").await;
    let (body, _) = t.open(now, 0, true, 10, 50);
    refused(&sim, "/intents", &body, 422, "notional_below_minimum").await;
    let (body, _) = t.open(now, 0, true, 5000, 10);
    refused(&sim, "/intents", &body, 422, "insufficient_balance").await;
    let (body, _) = t.open(now, 0, false, 100, 10);
    refused(&sim, "/intents", &body, 422, "opposite_side_open").await;
    sim.control("/sim/market", json!({"market": "ETH", "status": "paused"}))
        .await;
    let (body, _) = t.open(now, 1, true, 100, 10);
    refused(&sim, "/intents", &body, 422, "market_not_openable").await;
    sim.control("/sim/market", json!({"market": "ETH", "status": "active"}))
        .await;
    sim.control("/sim/trading", json!({"paused": true})).await;
    let (body, _) = t.open(now, 1, true, 100, 10);
    refused(&sim, "/intents", &body, 422, "trading_paused").await;
    sim.control("/sim/trading", json!({"paused": false})).await;
    sim.control("/sim/intake", json!({"pausedActions": ["openPosition"]}))
        .await;
    let (body, _) = t.open(now, 1, true, 100, 10);
    refused(&sim, "/intents", &body, 200, "intake_action_paused").await;
    sim.control("/sim/intake", json!({"all": true})).await;
    refused(&sim, "/intents", &body, 200, "intake_paused").await;
    sim.control("/sim/intake", json!({})).await;

    // Malformed bodies: uints as numbers, extra fields, a withdrawal below 10 USDC or without route.
    let (mut body, _) = t.open(now, 1, true, 100, 10);
    body["signed"]["leverage"] = json!(10);
    refused(&sim, "/intents", &body, 400, "invalid_body").await;
    let (mut body, _) = t.open(now, 1, true, 100, 10);
    body["signed"]["signer"] = json!(t.wallet_hex());
    refused(&sim, "/intents", &body, 400, "invalid_body").await;
    let (body, _) = t.withdraw(now, 9_999_999);
    refused(&sim, "/intents", &body, 422, "invalid_intent").await;
    let (mut body, _) = t.withdraw(now, 10_000_000);
    body.as_object_mut().unwrap().remove("withdrawal");
    refused(&sim, "/intents", &body, 400, "invalid_body").await;
    refused(&sim, "/intents", &json!("nope"), 400, "invalid_body").await;

    // A foreign Origin header is refused outright.
    let r = sim
        .http
        .get(sim.url("/state/trading"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // None of it touched the account.
    let mut after = sim.snapshot(t.address()).await;
    after.indexed_through_block = after_open.indexed_through_block;
    after.indexed_through_timestamp = after_open.indexed_through_timestamp;
    assert_eq!(after, after_open);
    assert_eq!(before.balance, 1000 * WAD);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn withdraw_and_staking_settle() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(100).await;
    let mut stream = sim.stream(t.address()).await;
    let (body, id) = t.withdraw(sim.now_s(), 25_000_000);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    stream
        .until("reserved", |s| s.funds.available_balance == 75 * WAD)
        .await;
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let s = stream.fold.state().unwrap();
    assert_eq!((s.balance, s.lifetime.withdrawn), (75 * WAD, 25 * WAD));
    let (body, _) = t.withdraw(sim.now_s(), 80_000_000);
    refused(&sim, "/intents", &body, 422, "insufficient_funds").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_intents_report_expired() {
    let sim = Sim::start(SimConfig {
        seed: 3,
        crowd: 0,
        manual_clock: true,
        heartbeat_ms: 200,
        relayer_delay_ms: 120_000,
        ..SimConfig::default()
    })
    .await;
    let mut t = Trader::new();
    sim.control(
        "/sim/fund",
        json!({"wallet": t.wallet_hex(), "amountUsd": "500"}),
    )
    .await;
    sim.post("/intents", &t.register(sim.now_s())).await;
    sim.advance(120_000).await;
    let mut stream = sim.stream(t.address()).await;
    let mut intent = t.open_intent(sim.now_s(), 0, true, 100, 10);
    intent.deadline = sim.now_s() + 60;
    let signed = t.session.sign(intent).unwrap();
    assert_eq!(
        sim.post("/intents", &signed.post().unwrap().body).await.0,
        200
    );
    sim.advance(120_000).await;
    assert_eq!(stream.outcome(signed.intent_id()).await.0, "expired");
    assert_eq!(stream.fold.state().unwrap().funds.reserved_balance, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_fold_cleanly_from_any_point() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(5000).await;
    let mut early = sim.stream(t.address()).await;
    let mut ids = Vec::new();
    for i in 0..6u32 {
        if i == 3 {
            // A second stream joins midway.
            ids.push(B256::ZERO);
        }
        let (body, id) = t.open(sim.now_s(), i % 2, true, 100, 10 + i);
        assert_eq!(sim.post("/intents", &body).await.0, 200);
        ids.push(id);
        sim.advance(500).await;
    }
    let mut late = sim.stream(t.address()).await;
    sim.advance(2_000).await;
    let positions: Vec<U256> = sim
        .snapshot(t.address())
        .await
        .open_positions
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(positions.len(), 6);
    let (body, close_id) = t.close(sim.now_s(), positions);
    sim.post("/intents", &body).await;
    sim.advance(1_000).await;
    early.outcome(close_id).await;
    late.outcome(close_id).await;
    let fresh = sim.snapshot(t.address()).await;
    assert_eq!(early.fold.state().unwrap(), &fresh);
    assert_eq!(late.fold.state().unwrap(), &fresh);
    assert!(fresh.open_positions.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_drop_stall_and_refuse() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1000).await;
    // Heartbeats flow on their own (real time, even with the manual clock).
    let mut stream = sim.stream(t.address()).await;
    assert!(stream.heartbeat().await);
    sim.control("/sim/faults", json!({"sse": "stall"})).await;
    assert!(!stream.heartbeat().await, "a stalled stream sends nothing");
    let mut fresh = sim.stream(t.address()).await;
    assert!(fresh.heartbeat().await, "new streams are not stalled");
    sim.control("/sim/faults", json!({"sse": "drop"})).await;
    assert!(fresh.next_wallet().await.is_none(), "a dropped stream ends");

    // The fault fires exactly as asked: two 503s, then answers again.
    sim.control("/sim/faults", json!({"readStatus": 503, "readFailures": 2}))
        .await;
    for expected in [503, 503, 200] {
        assert_eq!(sim.get("/state/trading").await.0, expected);
    }
    // Reads fail with 503 twice then recover: the client's bounded retries ride it out.
    sim.control("/sim/faults", json!({"readStatus": 503, "readFailures": 2}))
        .await;
    let client = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    client.trading_state().await.unwrap();
    // Each arming answers how often the faults it replaces fired.
    let fired = sim
        .control(
            "/sim/faults",
            json!({"readStatus": 429, "retryAfterS": 0, "readFailures": 1}),
        )
        .await;
    assert_eq!(fired["fired"]["readFailures"], 2, "{fired}");
    client.trading_state().await.unwrap();
    let fired = sim.control("/sim/faults", json!({"readStatus": 502})).await;
    assert_eq!(fired["fired"]["readFailures"], 1, "{fired}");
    assert!(client.trading_state().await.is_err());
    let fired = sim.control("/sim/faults", json!({})).await;
    assert!(
        fired["fired"]["readFailures"].as_u64() >= Some(1),
        "{fired}"
    );
    client.trading_state().await.unwrap();

    // A dropped answer: the intent is queued all the same, exactly once.
    let mut stream = sim.stream(t.address()).await;
    sim.control("/sim/faults", json!({"dropIntentAnswers": 1}))
        .await;
    let (body, id) = t.open(sim.now_s(), 0, true, 100, 10);
    let answer = sim.http.post(sim.url("/intents")).json(&body).send().await;
    let failed = match answer {
        Err(_) => true,
        Ok(r) => r.bytes().await.is_err(),
    };
    assert!(failed, "the answer must not arrive");
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    assert_eq!(stream.fold.state().unwrap().open_positions.len(), 1);
    // The same body again is a reused nonce: the exchange holds one intent.
    refused(&sim, "/intents", &body, 409, "nonce_used").await;

    // Delays apply to answers. Real time is the point here: the fault delays the answer on the
    // wall clock, whatever the exchange's clock says.
    let fired = sim.control("/sim/faults", json!({"delayMs": 300})).await;
    assert_eq!(
        fired["fired"],
        json!({"readFailures": 0, "droppedAnswers": 1}),
        "the one answer was dropped"
    );
    let start = std::time::Instant::now();
    sim.get("/query/health").await;
    assert!(start.elapsed().as_millis() >= 300);
    sim.control("/sim/faults", json!({})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_follow_the_real_shapes_and_query_rule() {
    let sim = Sim::start(SimConfig {
        seed: 5,
        crowd: 6,
        manual_clock: true,
        relayer_delay_ms: 500,
        ..SimConfig::default()
    })
    .await;
    sim.advance(120_000).await;
    for path in [
        "/query/protocol/summary",
        "/query/protocol/market-stats",
        "/query/protocol/queue-summary",
        "/query/protocol/trades/recent",
        "/relayer/health",
        "/query/health",
        "/query/protocol/history?interval=1m",
        "/state/leaderboard/accounts?page=0&pageSize=5&sortDir=desc&sortKey=totalVolume&window=24h",
    ] {
        let (status, body) = sim.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, summary) = sim.get("/query/protocol/summary").await;
    serde_json::from_value::<papertrade_tui::protocol::reads::Summary>(summary).unwrap();
    let (_, trades) = sim.get("/query/protocol/trades/recent").await;
    let trades: papertrade_tui::protocol::reads::RecentTrades =
        serde_json::from_value(trades).unwrap();
    assert!(!trades.events.is_empty(), "the crowd trades");
    let (_, board) = sim.get("/state/leaderboard/accounts?page=0&pageSize=5&sortDir=desc&sortKey=totalVolume&window=24h").await;
    assert_eq!(board["accounts"].as_array().unwrap().len(), 5);
    assert_eq!(board["pageInfo"]["totalPages"], 2);
    let volumes: Vec<u128> = board["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["totalVolume"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(volumes.windows(2).all(|w| w[0] >= w[1]));

    // Canonical queries only: sorted, each once, known names.
    assert_eq!(
        sim.get("/state/leaderboard/accounts?pageSize=5&page=0")
            .await
            .0,
        400
    );
    assert_eq!(
        sim.get("/state/leaderboard/accounts?page=0&page=1").await.0,
        400
    );
    assert_eq!(
        sim.get("/query/protocol/history?interval=1m&x=1").await.0,
        400
    );
    assert_eq!(sim.get("/query/protocol/history?interval=5m").await.0, 400);
    assert_eq!(sim.get("/state/user/live?wallet=0xABC").await.0, 400);
    assert_eq!(sim.get("/nope").await.0, 404);

    // Hyperliquid info: the book's mid is the exchange's mark; candles for every interval.
    let (_, book) = sim
        .post("/info", &json!({"type": "l2Book", "coin": "BTC"}))
        .await;
    let book: L2Book = serde_json::from_value(book).unwrap();
    let mark = sim.server.shared.with_engine(|e| e.mark(0)).unwrap();
    assert_eq!(book.mid_raw(10).unwrap(), mark);
    let (_, mids) = sim.post("/info", &json!({"type": "allMids"})).await;
    assert!(mids["ETH"].is_string());
    let now_ms = sim.server.shared.with_engine(|e| e.now_ms());
    for (interval, width) in CANDLE_INTERVALS {
        let req = json!({"type": "candleSnapshot", "req": {"coin": "ETH", "interval": interval, "startTime": now_ms - 48 * width, "endTime": now_ms}});
        let (status, candles) = sim.post("/info", &req).await;
        assert_eq!(status, 200, "{interval}");
        let candles: Vec<Candle> = serde_json::from_value(candles).unwrap();
        assert!(!candles.is_empty(), "{interval}");
        assert!(candles.len() <= 49, "{interval}: {}", candles.len());
    }
    let (status, _) = sim.post("/info", &json!({"type": "candleSnapshot", "req": {"coin": "ETH", "interval": "7m", "startTime": 0}})).await;
    assert_eq!(status, 422);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_replays_the_same_market() {
    let mut mids = Vec::new();
    for _ in 0..2 {
        let sim = Sim::start(SimConfig {
            seed: 99,
            crowd: 4,
            manual_clock: true,
            ..SimConfig::default()
        })
        .await;
        sim.advance(60_000).await;
        let (status, trades) = sim.get("/query/protocol/trades/recent").await;
        assert_eq!(status, 200, "{trades}");
        let (status, book) = sim.post("/info", &json!({"type": "allMids"})).await;
        assert_eq!(status, 200, "{book}");
        // Something to compare: both markets' mids and a crowd that traded.
        assert!(book["BTC"].is_string() && book["ETH"].is_string(), "{book}");
        assert!(trades["count"].as_u64().is_some_and(|n| n > 0), "{trades}");
        mids.push((book, trades["events"].clone()));
    }
    assert_eq!(mids[0], mids[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_keeps_up_without_dropping_a_patch() {
    // 50 connected wallets, 300 intents posted ten at a time with 100 ms of exchange time
    // between batches: earlier batches settle while later ones are taken in, and every patch
    // must reach its stream once, in order. The manual clock makes the interleaving the same on
    // every run (wall-clock throughput is not what this checks).
    let sim = Sim::start(SimConfig {
        seed: 11,
        crowd: 0,
        heartbeat_ms: 1_000,
        relayer_delay_ms: 200,
        manual_clock: true,
        ..SimConfig::default()
    })
    .await;
    let mut traders = Vec::new();
    for _ in 0..50 {
        let t = Trader::new();
        sim.control(
            "/sim/fund",
            json!({"wallet": t.wallet_hex(), "amountUsd": "5000"}),
        )
        .await;
        sim.post("/intents", &t.register(sim.now_s())).await;
        traders.push(t);
    }
    let mut streams = Vec::new();
    for t in &traders {
        streams.push(sim.stream(t.address()).await);
    }
    // The registrations settle (relayer delay, then the next tick) before the first open.
    sim.advance(250).await;
    let mut expected: Vec<Vec<B256>> = vec![Vec::new(); 50];
    let mut bodies = Vec::new();
    for round in 0..6 {
        for (i, t) in traders.iter_mut().enumerate() {
            let (body, id) = t.open(sim.now_s(), (round % 2) as u32, true, 20, 100);
            expected[i].push(id);
            bodies.push(body);
        }
    }
    for chunk in bodies.chunks(10) {
        let posts = chunk.iter().map(|b| sim.post("/intents", b));
        for (status, answer) in futures::future::join_all(posts).await {
            assert_eq!(status, 200, "{answer}");
        }
        sim.advance(100).await;
    }
    // The last batch's relayer delay, and the tick (250 ms) the relayer settles on.
    sim.advance(500).await;
    for (i, stream) in streams.iter_mut().enumerate() {
        for id in &expected[i] {
            assert_eq!(stream.outcome(*id).await.0, "succeeded");
        }
        let state = stream.fold.state().unwrap();
        assert_eq!(state.open_positions.len(), 6);
    }
    // Every fold equals a fresh snapshot: no patch was lost or repeated.
    for (i, t) in traders.iter().enumerate() {
        let fresh = sim.snapshot(t.address()).await;
        let held = streams[i].fold.state().unwrap();
        assert_eq!(held.open_positions, fresh.open_positions);
        assert_eq!(held.balance, fresh.balance);
        assert_eq!(held.account_revision, fresh.account_revision);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losses_mint_paper_and_short_lp_pays_through_the_queue() {
    // An LP of $1: a win it cannot pay waits in the FIFO payout queue.
    let sim = Sim::start(SimConfig {
        seed: 8,
        crowd: 0,
        manual_clock: true,
        heartbeat_ms: 200,
        relayer_delay_ms: 1_000,
        initial_lp: WAD,
        ..SimConfig::default()
    })
    .await;
    let mut winner = sim.trader(1000).await;
    let mut loser = sim.trader(1000).await;
    let mut w = sim.stream(winner.address()).await;
    let mut l = sim.stream(loser.address()).await;
    sim.pin("BTC", "80000.0").await;
    let (body, id) = winner.open(sim.now_s(), 0, true, 100, 100);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    let (body, lid) = loser.open(sim.now_s(), 0, false, 100, 50);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    w.outcome(id).await;
    l.outcome(lid).await;

    // +1%: the winner's net exceeds the LP; margin comes back now, the rest is queued.
    sim.pin("BTC", "80800.0").await;
    let wp = w.fold.state().unwrap().open_positions[0].id;
    let (body, cid) = winner.close(sim.now_s(), vec![wp]);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    let (_, closed) = w.outcome(cid).await;
    let net = closed[0].net_pnl as u128;
    let s = w.fold.state().unwrap().clone();
    assert!(
        s.queued > 0 && s.queued <= net,
        "queued {} of {net}",
        s.queued
    );
    assert_eq!(s.balance + s.queued, 1000 * WAD + net);
    assert_eq!(s.queue_node_count, 1);
    let (_, queue) = sim.get("/query/protocol/queue-summary").await;
    assert_eq!(queue["count"], 1);
    assert_eq!(queue["total"], s.queued.to_string());

    // The short loses: its loss (less the 2% fee) refills the LP, which pays the queue first.
    let summary: papertrade_tui::protocol::reads::Summary =
        serde_json::from_value(sim.get("/query/protocol/summary").await.1).unwrap();
    // The LP started at $1, under the $2M cliff: the flat rate, 100 PAPER per $ (§5.5).
    assert_eq!(summary.mint_rate(), 100 * WAD);
    let lp_ = l.fold.state().unwrap().open_positions[0].id;
    let (body, lcid) = loser.close(sim.now_s(), vec![lp_]);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    let (_, lclosed) = l.outcome(lcid).await;
    let loss = lclosed[0].net_pnl.unsigned_abs();
    // Basis = full loss while the payout queue is active (§5.5), at the flat rate:
    // floor(loss·100e18/1e18).
    assert_eq!(lclosed[0].paper_minted, loss * 100);
    let queued_before = s.queued;
    w.until("queue paid down", |st| st.queued < queued_before)
        .await;
    let after = w.fold.state().unwrap();
    // The LP's inflow (the loss less its 2% fee, after covering its own shortfall) went to
    // the queue; nothing was created or lost on the way.
    assert_eq!(after.balance + after.queued, 1000 * WAD + net);
    let (_, queue) = sim.get("/query/protocol/queue-summary").await;
    assert_eq!(queue["total"], after.queued.to_string());
    let (_, summary) = sim.get("/query/protocol/summary").await;
    assert_eq!(summary["balances"]["lp"], "0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staking_earns_fee_rewards_and_claims_them() {
    let sim = Sim::manual().await;
    let mut staker = sim.trader(1000).await;
    let mut other = sim.trader(1000).await;
    let mut s = sim.stream(staker.address()).await;
    // Lose $100 at 1000x to earn PAPER (≈ 100 × 0.98 × ~96 PAPER).
    sim.pin("ETH", "2500.00").await;
    let (body, id) = staker.open(sim.now_s(), 1, true, 100, 1000);
    sim.post("/intents", &body).await;
    sim.advance(1_000).await;
    s.outcome(id).await;
    sim.pin("ETH", "2400.00").await;
    s.until("liquidated", |st| st.open_positions.is_empty())
        .await;
    let paper = s.fold.state().unwrap().paper.balance;
    assert!(paper > 1000 * WAD, "{paper}");

    let stake = |t: &mut Trader, amount: u128, unstake: bool| {
        t.nonce += 1;
        let nonce = U256::from(t.nonce);
        let deadline = sim.now_s() + 3600;
        if unstake {
            let u = papertrade_tui::protocol::eip712::Unstake {
                user: t.address(),
                amount: U256::from(amount),
                nonce,
                deadline,
            };
            t.wallet.sign(u).unwrap().post().unwrap().body
        } else {
            let u = papertrade_tui::protocol::eip712::Stake {
                user: t.address(),
                amount: U256::from(amount),
                nonce,
                deadline,
            };
            t.wallet.sign(u).unwrap().post().unwrap().body
        }
    };
    refused(
        &sim,
        "/intents",
        &stake(&mut staker, 999 * WAD, false),
        422,
        "stake_below_minimum",
    )
    .await;
    let body = stake(&mut staker, 1000 * WAD, false);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    s.until("staked", |st| st.paper.staked == 1000 * WAD).await;

    // Someone else's liquidation pays a 2% fee; half goes to stakers.
    let (body, oid) = other.open(sim.now_s(), 0, true, 100, 1000);
    sim.post("/intents", &body).await;
    sim.advance(1_000).await;
    let _ = oid;
    sim.pin("BTC", "1000.0").await;
    sim.advance(250).await;
    staker.nonce += 1;
    let claim = papertrade_tui::protocol::eip712::Claim {
        user: staker.address(),
        nonce: U256::from(staker.nonce),
        deadline: sim.now_s() + 3600,
    };
    let body = staker.wallet.sign(claim).unwrap().post().unwrap().body;
    let before = s.fold.state().unwrap().balance;
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    s.until("claimed", |st| st.lifetime.paper_rewards_claimed > 0)
        .await;
    let st = s.fold.state().unwrap();
    // The whole staker half of the $2 fee (the only staker), to the wei the accumulator allows.
    assert!(
        st.balance - before <= WAD && st.balance - before > WAD - 1_000_000_000,
        "{}",
        st.balance - before
    );
    let body = stake(&mut staker, 1000 * WAD, true);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    s.until("unstaked", |st| st.paper.staked == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_amounts_and_hostile_inputs_never_take_it_down() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(30_000).await;
    let mut stream = sim.stream(t.address()).await;
    sim.pin("BTC", "80000.0").await;
    // $20k of margin: the 2% fee on it overflows a plain u128 product.
    let (body, id) = t.open(sim.now_s(), 0, true, 20_000, 2);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    sim.pin("BTC", "40000.0").await;
    stream
        .until("liquidated", |s| s.open_positions.is_empty())
        .await;
    assert_eq!(stream.fold.state().unwrap().balance, 10_000 * WAD);
    // Hostile reads and controls are refused, and the exchange keeps answering.
    assert_eq!(
        sim.get("/state/leaderboard/accounts?page=18446744073709551615&pageSize=200")
            .await
            .0,
        400
    );
    let (status, _) = sim
        .post(
            "/sim/price",
            &json!({"market": "BTC", "price": "1844674407370955161.5"}),
        )
        .await;
    assert_eq!(status, 400);
    let (status, _) = sim
        .post(
            "/sim/fund",
            &json!({"wallet": t.wallet_hex(), "amountUsd": "1".repeat(30)}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(sim.get("/state/trading").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settlement_rechecks_what_intake_checked() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1_000).await;
    let mut stream = sim.stream(t.address()).await;
    // A long and a short on the same market, both accepted while neither is open yet: only the
    // first can settle.
    let (long, long_id) = t.open(sim.now_s(), 1, true, 50, 20);
    let (short, short_id) = t.open(sim.now_s(), 1, false, 50, 20);
    assert_eq!(sim.post("/intents", &long).await.0, 200);
    assert_eq!(sim.post("/intents", &short).await.0, 200);
    sim.advance(1_000).await;
    let mut outcomes = std::collections::HashMap::new();
    for id in [long_id, short_id] {
        outcomes.insert(id, stream.outcome(id).await.0);
    }
    assert_eq!(outcomes[&long_id], "succeeded");
    assert_eq!(outcomes[&short_id], "failed");
    let s = stream.fold.state().unwrap();
    assert_eq!(s.open_positions.len(), 1);
    assert_eq!((s.funds.reserved_balance, s.balance), (0, 950 * WAD));
}

/// Configs built in code meet the flags' bounds, and the fault controls are bounded too: a
/// u64::MAX delay or Retry-After used to be taken as given (issue 15).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_configs_and_fault_controls_are_refused() {
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let refused = papertrade_tui::sim::SimServer::start(
        SimConfig {
            crowd: 0,
            relayer_delay_ms: u64::MAX,
            ..SimConfig::default()
        },
        loopback,
    )
    .await
    .err()
    .expect("an hour-plus relayer delay must be refused");
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        refused.to_string().contains("--relayer-delay-ms"),
        "{refused}"
    );

    let sim = Sim::manual().await;
    for (body, field) in [
        (json!({"retryAfterS": u64::MAX}), "retryAfterS"),
        (json!({"delayMs": 1_000_000_000_000u64}), "delayMs"),
    ] {
        let (status, answer) = sim.post("/sim/faults", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["message"].as_str().unwrap_or("").contains(field),
            "{answer}"
        );
    }
    // At the bounds they are taken.
    sim.control("/sim/faults", json!({"retryAfterS": 86_400, "delayMs": 0}))
        .await;
    let (status, _) = sim
        .post("/sim/clock", &json!({"advanceMs": u64::MAX.to_string()}))
        .await;
    assert_eq!(status, 400);
}

/// A page in the trader's browser cannot drive a running `sim`/`demo` (issue 20): a control
/// sent as `text/plain` (what a page may send without asking), from any browser `Origin`, or to
/// a rebound host name is refused and changes nothing; a program's JSON to the loopback address
/// is served. A simulator beyond loopback needs `--allow-remote`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controls_answer_local_programs_only() {
    let sim = Sim::manual().await;
    let t = Trader::new();
    let fund = json!({"wallet": t.wallet_hex(), "amountUsd": "1000"}).to_string();
    let port = sim.server.addr.port();
    let http = reqwest::Client::new();
    let send = |content_type: &str, origin: Option<&str>, host: Option<String>| {
        let mut r = http
            .post(sim.url("/sim/fund"))
            .header("content-type", content_type)
            .body(fund.clone());
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(h) = host {
            r = r.header("host", h);
        }
        r.send()
    };
    let balance = || {
        sim.server
            .shared
            .with_engine(|e| e.account(t.address()).map_or(0, |a| a.state.balance))
    };
    for (content_type, origin, host, status) in [
        ("text/plain", None, None, 415),
        ("application/x-www-form-urlencoded", None, None, 415),
        ("application/json", Some("https://evil.example"), None, 400),
        ("application/json", Some("http://localhost:3000"), None, 400),
        ("application/json", Some("null"), None, 400),
        (
            "application/json",
            None,
            Some(format!("rebind.example:{port}")),
            403,
        ),
    ] {
        let answer = send(content_type, origin, host.clone()).await.unwrap();
        assert_eq!(
            answer.status().as_u16(),
            status,
            "{content_type} {origin:?} {host:?}"
        );
        assert_eq!(balance(), 0, "a refused control changed nothing");
    }
    // A rebound host name cannot read either.
    let read = http
        .get(sim.url("/state/trading"))
        .header("host", format!("rebind.example:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(read.status().as_u16(), 403);
    // A program on this machine, by address or by name.
    let ok = send("application/json", None, None).await.unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    let ok = send(
        "application/json; charset=utf-8",
        None,
        Some(format!("localhost:{port}")),
    )
    .await
    .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    assert_eq!(balance(), 2000 * WAD);

    // Beyond loopback only when asked, saying what it exposes; nothing is bound.
    let out = crate::support::run(&["sim", "--host", "0.0.0.0", "--port", "0"]);
    let err = crate::support::text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--allow-remote") && err.contains("/sim controls") && err.contains("fund"),
        "{err}"
    );
}

/// `sim` stops on SIGTERM, as `demo` and `mcp --http` do (a service manager's stop, `kill`),
/// not only on Ctrl-C: it exits 0 once its first line says it serves.
#[cfg(unix)]
#[test]
fn the_simulator_stops_on_sigterm() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let mut sim = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"))
        .args(["sim", "--port", "0"])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(sim.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("serving at http://127.0.0.1:"), "{first}");
    let term = Command::new("kill")
        .args(["-TERM", &sim.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // Bounded: a simulator that ignored the signal would be killed here and fail the assert.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = sim.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            sim.kill().unwrap();
            panic!("the simulator ignored SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0), "{status:?}");
}
