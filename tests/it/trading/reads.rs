//! The client's scheduled reads of the exchange, in-process: what each poller asks for and when,
//! and which source a failure is filed under.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use alloy_primitives::Address;
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use serde_json::json;
use tokio::sync::mpsc;

use crate::simkit::Sim;

/// The account reads' failures are filed under their own sources, not the trading state's or the
/// summary's (which would mark the wrong pane stale).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_read_failures_are_filed_under_their_own_sources() {
    use papertrade_tui::client::market::spawn_account_reads;
    use papertrade_tui::events::market::{MarketEvent, Source};
    let sim = Sim::manual().await;
    sim.control("/sim/faults", json!({"readStatus": 503})).await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig {
            attempts: 1,
            ..HttpConfig::default()
        },
    );
    let (tx, mut rx) = mpsc::channel(8);
    let (_queued, queued_rx) = tokio::sync::watch::channel(true);
    let task = spawn_account_reads(
        http,
        Address::with_last_byte(5),
        Duration::from_secs(60),
        queued_rx,
        tx,
    );
    let mut failed = Vec::new();
    for _ in 0..2 {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
        {
            MarketEvent::Failed { source, error, .. } => failed.push((source, error)),
            other => panic!("expected a failure, got {other:?}"),
        }
    }
    task.abort();
    let sources: Vec<Source> = failed.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        sources,
        [Source::QueueRank, Source::RecentTrades],
        "{failed:?}"
    );
}

/// An exchange answering the two account reads with nothing, counting how often each is asked.
async fn counting_exchange() -> (String, Arc<[AtomicUsize; 2]>) {
    const TRADES: usize = 0;
    const RANK: usize = 1;
    let hits: Arc<[AtomicUsize; 2]> = Arc::default();
    let count = |i: usize, answer: serde_json::Value| {
        let hits = hits.clone();
        axum::routing::get(move || async move {
            hits[i].fetch_add(1, Ordering::SeqCst);
            axum::Json(answer)
        })
    };
    let app = axum::Router::new()
        .route(
            "/query/protocol/trades/recent",
            count(TRADES, json!({"ok": true, "count": 0, "events": []})),
        )
        .route(
            "/queue-rank/accounts/{wallet}",
            count(
                RANK,
                json!({"ok": true, "queueRevision": "1", "entries": []}),
            ),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, hits)
}

/// The queue rank is asked for only while the wallet has something queued: a quiet session
/// polls the recent trades alone, and a new queued intent has its place read at once, not at
/// the next tick. Counted at the exchange, not waited out: one tick's reads are joined before
/// its answers are sent, so when the trades arrive every read of that tick has been asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_rank_is_polled_only_while_something_is_queued() {
    use papertrade_tui::client::market::spawn_account_reads;
    use papertrade_tui::events::market::MarketEvent;
    let (url, hits) = counting_exchange().await;
    let asked = || hits.each_ref().map(|h| h.load(Ordering::SeqCst));
    let http = ExchangeHttp::new(&url, &format!("{url}/info"), HttpConfig::default());
    let (tx, mut rx) = mpsc::channel(8);
    let (queued, queued_rx) = tokio::sync::watch::channel(false);
    let task = spawn_account_reads(
        http,
        Address::with_last_byte(5),
        Duration::from_secs(60),
        queued_rx,
        tx,
    );
    let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(first, MarketEvent::RecentTrades(..)),
        "the first tick asks only the trades: {first:?}"
    );
    assert_eq!(asked(), [1, 0], "(trades, rank) asked: no rank");
    queued.send_replace(true);
    let ranked = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the rank is read at once, well before the 60 s tick")
        .unwrap();
    assert!(matches!(ranked, MarketEvent::QueueRank(..)), "{ranked:?}");
    assert_eq!(asked(), [1, 1], "the rank alone, not a tick");
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn market_polling_reports_values_failures_and_staleness() {
    use papertrade_tui::app::Freshness;
    use papertrade_tui::client::market::{candles, spawn_market_poller};
    use papertrade_tui::events::market::PollRates;
    use papertrade_tui::events::market::{MarketEvent, Source};
    let sim = Sim::manual().await;
    sim.pin("ETH", "2500.00").await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig {
            attempts: 1,
            ..HttpConfig::default()
        },
    );
    let (tx, mut rx) = mpsc::channel(64);
    let rates = PollRates {
        markets: Duration::from_millis(100),
        protocol: Duration::from_millis(300),
    };
    let task = spawn_market_poller(http.clone(), rates, tx);
    let mut fresh = Freshness::default();
    let mut seen = std::collections::HashSet::new();
    while seen.len() < 5 {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        match &event {
            MarketEvent::Trading(..) => seen.insert("trading"),
            MarketEvent::Mark {
                instrument_id: 1,
                raw,
                ..
            } => {
                assert_eq!(*raw, 250_000);
                seen.insert("eth")
            }
            MarketEvent::Mark { .. } => seen.insert("btc"),
            MarketEvent::Summary(..) => seen.insert("summary"),
            MarketEvent::RelayerHealth(h, _) => {
                assert!(h.is_ready());
                seen.insert("health")
            }
            MarketEvent::Failed { error, .. } => panic!("{error}"),
            MarketEvent::Candles { .. }
            | MarketEvent::QueueRank(..)
            | MarketEvent::RecentTrades(..)
            | MarketEvent::DayOpen { .. } => false,
        };
    }
    let now = std::time::SystemTime::now();
    assert!(fresh.age(Source::Trading, now).unwrap() < Duration::from_secs(2));
    assert!(fresh.age(Source::Account, now).is_none());
    // A read outage: failures are reported and the last good value ages.
    sim.control("/sim/faults", json!({"readStatus": 503})).await;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        if let MarketEvent::Failed {
            source: Source::Trading,
            ..
        } = event
        {
            break;
        }
    }
    assert!(fresh.error(Source::Trading).unwrap().contains("503"));
    sim.control("/sim/faults", json!({})).await;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        if let MarketEvent::Trading(..) = event {
            break;
        }
    }
    assert!(fresh.error(Source::Trading).is_none());
    task.abort();
    // Candles on demand.
    let now_ms = sim.server.shared.with_engine(|e| e.now_ms());
    let c = candles(&http, "BTC", "15m", 48, now_ms).await.unwrap();
    assert!((47..=49).contains(&c.len()), "{}", c.len());
    assert!(candles(&http, "BTC", "7m", 48, now_ms).await.is_err());
}
