//! The exchange misbehaving: an answer dropped or a gateway's 502 (unknown, never resent), read
//! storms, a stream dropped or stalled, a market no longer listed.

use std::time::Duration;

use alloy_primitives::{Address, U256};
use papertrade_tui::client::stream::{StreamConfig, spawn_account_stream};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::events::account::StreamEvent;
use papertrade_tui::protocol::eip712::OpenPosition;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::open_args;

use super::user::{WAD, live_sim, ready_user, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_answer_resolves_from_the_stream_with_one_intent() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.control("/sim/faults", json!({"dropIntentAnswers": 1}))
        .await;
    let opened = user.json(&open_args("ETH", "long", "50", "20", &[])).await;
    assert_eq!(opened["submission"], "unknown");
    assert_eq!(opened["outcome"], "succeeded");
    assert!(opened["position"]["positionId"].is_string());
    // Exactly one intent reached the exchange: one open in the feed, one position, and the audit
    // log shows the send once, never retried.
    let (_, trades) = sim.get("/query/protocol/trades/recent").await;
    let mine: Vec<&Value> = trades["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["wallet"] == format!("{:#x}", user.owner()))
        .collect();
    assert_eq!(mine.len(), 1);
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let id = opened["intentId"].as_str().unwrap();
    let events: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &Value| e["intentId"] == id)
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    // Sent once, no answer, never resent; its fate came from the stream.
    assert_eq!(kinds, ["signed", "unknown", "outcome"]);
    assert_eq!(events[2]["outcome"], "succeeded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_error_is_unknown_not_refused() {
    use papertrade_tui::client::intents::{Submission, submit};
    use papertrade_tui::store::ledger::AuditLog;
    // A relayer behind a gateway that answers 502 with HTML: nothing says whether it queued.
    let app = axum::Router::new().route(
        "/intents",
        axum::routing::post(|| async {
            (
                axum::http::StatusCode::BAD_GATEWAY,
                "<html>bad gateway</html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let http = ExchangeHttp::new(&url, &format!("{url}/info"), HttpConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let key = papertrade_tui::protocol::eip712::SessionSigner::random();
    let open = OpenPosition {
        user: Address::repeat_byte(1),
        instrumentId: 0,
        isLong: true,
        size: 10 * WAD,
        leverage: 100,
        useDebt: false,
        nonce: U256::from(1u8),
        deadline: 1,
    };
    let signed = key.sign(open).unwrap();
    let result = submit(&http, &AuditLog::new(dir.path()), &signed, json!({}))
        .await
        .unwrap();
    assert!(matches!(result, Submission::Unknown { .. }), "{result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_storms_are_ridden_out() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 100).await;
    sim.control("/sim/faults", json!({"readStatus": 503, "readFailures": 2}))
        .await;
    user.json(&["markets"]).await;
    // Arming the next storm answers how the last one went: both 503s were met and ridden out.
    let storm = sim
        .control(
            "/sim/faults",
            json!({"readStatus": 429, "retryAfterS": 1, "readFailures": 1}),
        )
        .await;
    assert_eq!(storm["fired"]["readFailures"], 2, "{storm}");
    let v = user.json(&["positions"]).await;
    assert_eq!(v["balanceUsd"], 100);
    let storm = sim.control("/sim/faults", json!({})).await;
    assert_eq!(storm["fired"]["readFailures"], 1, "{storm}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_recovers_from_drops_and_stalls_with_nothing_lost() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let key = user.session_key();
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    let (tx, mut rx) = mpsc::channel(256);
    let config = StreamConfig {
        default_heartbeat: Duration::from_millis(300),
        backoff_base: Duration::from_millis(50),
        ..StreamConfig::default()
    };
    let task = spawn_account_stream(http, user.owner(), config, tx);
    let mut held: Option<papertrade_tui::protocol::account::AccountState>;
    let next = async |rx: &mut mpsc::Receiver<StreamEvent>| {
        tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
    };
    loop {
        if let StreamEvent::Synced(s) = next(&mut rx).await {
            held = Some(*s);
            break;
        }
    }
    let mut nonce = 5_000u64;
    for fault in ["drop", "stall"] {
        sim.control("/sim/faults", json!({"sse": fault})).await;
        // Trade while the stream is down or silent.
        nonce += 1;
        let open = OpenPosition {
            user: user.owner(),
            instrumentId: 0,
            isLong: true,
            size: 10 * WAD,
            leverage: 100,
            useDebt: false,
            nonce: U256::from(nonce),
            deadline: sim.now_s() + 3600,
        };
        assert_eq!(
            sim.post("/intents", &key.sign(open).unwrap().post().unwrap().body)
                .await
                .0,
            200
        );
        let mut saw_disconnect = false;
        loop {
            match next(&mut rx).await {
                StreamEvent::Disconnected { .. } => saw_disconnect = true,
                StreamEvent::Synced(s) if saw_disconnect => {
                    held = Some(*s);
                    break;
                }
                _ => {}
            }
        }
        // Follow the stream until it shows the open settled (nothing else moves this account),
        // then compare with a fresh snapshot.
        let settled = (nonce - 5_000) as usize;
        while held.as_ref().map(|h| h.open_positions.len()) != Some(settled) {
            if let StreamEvent::Patched { state, .. } | StreamEvent::Synced(state) =
                next(&mut rx).await
            {
                held = Some(*state);
            }
        }
        let fresh = sim.snapshot(user.owner()).await;
        let h = held.clone().unwrap();
        assert_eq!(h.open_positions, fresh.open_positions, "{fault}");
        assert_eq!(
            (h.balance, h.locked, h.account_revision),
            (fresh.balance, fresh.locked, fresh.account_revision),
            "{fault}"
        );
    }
    assert_eq!(held.unwrap().open_positions.len(), 2);
    task.abort();
}

/// A position in a market `/state/trading` stopped listing is still shown by `positions`, with
/// what needs the market's parameters marked unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_in_an_unlisted_market_is_listed() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let id = user.open_long("ETH", "50", "25").await;
    sim.control("/sim/faults", json!({"unlistedMarkets": ["ETH"]}))
        .await;
    let v = user.json(&["positions"]).await;
    let rows = v["positions"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["positionId"], id.as_str());
    assert_eq!(rows[0]["marketListed"], false);
    assert_eq!(rows[0]["market"], "#1");
    assert!(
        rows[0].get("closeNetPnlUsd").is_none(),
        "nothing is guessed: {v}"
    );
    let out = user.run(&["positions"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let row = table
        .lines()
        .find(|l| l.contains(&id))
        .unwrap_or_else(|| panic!("no row for #{id}:\n{table}"));
    assert!(row.contains("market not listed"), "{row}");
}
