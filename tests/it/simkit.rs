//! Driving the in-process simulator over real HTTP and SSE with the protocol layer: a test
//! exchange, traders that sign like clients, and account streams folded by the protocol rules.

use std::net::SocketAddr;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use futures::StreamExt;
use papertrade_tui::client::sse::{SseItem, SseParser};
use papertrade_tui::protocol::account::{AccountFold, AccountState, Folded, Frame};
use papertrade_tui::protocol::eip712::{
    CancelIntent, Close, OpenPosition, RegisterSessionKey, SessionSigner, WalletSigner,
    WithdrawToCore,
};
use papertrade_tui::sim::{SimConfig, SimServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The seed's close example, recorded: BTC long, $100 margin at 500x, entry 82800.3, closed
/// at a mid of 82883.1 (BTC's mainnet parameters, assets/trading_mainnet.json). §5.3 by hand:
/// band floor(828003/50000) = 16, exit 828831 − 16 = 828815;
/// raw = floor(100e18·500·812/828003) = 49033638767009298275;
/// move = floor(812e18/828003) = 980672775340185; rateTerm = floor(move·15000) =
/// 14710091630102775000; sizeTerm = floor(1e6·move·814.598) = 798854081446564020630000;
/// t1 = floor(1e36/rateTerm) = 67980541871921249; t2 = floor(1e23·1e18/sizeTerm) =
/// 125179306612441810; keep = floor(0.9e18·1e18/(1e18 + t1 + t2)) = 754299602977123595;
/// adjusted = floor(raw·keep/1e18) = 36986054254478809807; the 2% win fee
/// 739721085089576196; net 36246333169389233611 — the seed's 36.99 / 0.74 / 36.25
/// (../shared/protocol.md §5.3, "Other anchors").
pub const SEED_CLOSE_NET_PNL: i128 = 36_246_333_169_389_233_611;
pub const SEED_CLOSE_WIN_FEE: u128 = 739_721_085_089_576_196;

pub struct Sim {
    pub server: SimServer,
    pub http: reqwest::Client,
}

impl Sim {
    /// A quiet, repeatable exchange: manual clock, no crowd, short heartbeats.
    pub async fn manual() -> Self {
        Self::start(SimConfig {
            seed: 42,
            crowd: 0,
            manual_clock: true,
            heartbeat_ms: 200,
            relayer_delay_ms: 1_000,
            ..SimConfig::default()
        })
        .await
    }

    /// A real-clock exchange as a user's commands meet it (`live_config`).
    pub async fn live(seed: u64, relayer_delay_ms: u64) -> Self {
        Self::start(live_config(seed, relayer_delay_ms)).await
    }

    pub async fn start(cfg: SimConfig) -> Self {
        let server = SimServer::start(cfg, SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        Self {
            server,
            http: reqwest::Client::new(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url())
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(self.url(path)).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .http
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// Control call that must succeed.
    pub async fn control(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.post(path, &body).await;
        assert_eq!(status, 200, "{path} {body}: {v}");
        v
    }

    pub async fn advance(&self, ms: u64) {
        self.control("/sim/clock", json!({"advanceMs": ms.to_string()}))
            .await;
    }

    pub fn now_s(&self) -> u64 {
        self.server.shared.with_engine(|e| e.now_s())
    }

    pub async fn pin(&self, market: &str, price: &str) {
        self.control("/sim/price", json!({"market": market, "price": price}))
            .await;
    }

    /// A fresh wallet with `usd` deposited and a registered session key.
    pub async fn trader(&self, usd: u64) -> Trader {
        let t = Trader::new();
        self.control(
            "/sim/fund",
            json!({"wallet": t.wallet_hex(), "amountUsd": usd.to_string()}),
        )
        .await;
        let (status, answer) = self.post("/intents", &t.register(self.now_s())).await;
        assert_eq!(status, 200, "{answer}");
        self.advance(1_000).await;
        t
    }

    pub async fn snapshot(&self, wallet: Address) -> AccountState {
        let s = self.stream(wallet).await;
        s.fold.state().cloned().unwrap()
    }

    /// Open the account stream and wait for its snapshot.
    pub async fn stream(&self, wallet: Address) -> Stream {
        let url = self.url(&format!("/state/user/live?wallet={wallet:#x}"));
        let response = self
            .http
            .get(url)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            let mut body = response.bytes_stream();
            let mut parser = SseParser::new();
            while let Some(Ok(chunk)) = body.next().await {
                for item in parser.feed(&chunk).unwrap() {
                    if tx.send(item).is_err() {
                        return;
                    }
                }
            }
            let _ = tx.send(SseItem::Comment("__closed__".into()));
        });
        let mut stream = Stream {
            rx,
            fold: AccountFold::new(wallet),
            task,
            heartbeats: 0,
            comments: Vec::new(),
            liveness: None,
        };
        let first = stream.next_wallet().await.expect("snapshot");
        assert_eq!(first, Folded::Snapshot);
        stream
    }
}

/// A real-clock exchange with no crowd and 300 ms heartbeats whose relayer settles what it
/// accepts after `relayer_delay_ms`: what the trading tests run the real binary against.
pub fn live_config(seed: u64, relayer_delay_ms: u64) -> SimConfig {
    SimConfig {
        seed,
        crowd: 0,
        heartbeat_ms: 300,
        relayer_delay_ms,
        ..SimConfig::default()
    }
}

pub struct Stream {
    rx: mpsc::UnboundedReceiver<SseItem>,
    pub fold: AccountFold,
    task: tokio::task::JoinHandle<()>,
    pub heartbeats: usize,
    pub comments: Vec<String>,
    pub liveness: Option<Value>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Stream {
    /// The next `wallet` frame, folded; `None` when the stream closed. Panics on a fold error.
    pub async fn next_wallet(&mut self) -> Option<Folded> {
        loop {
            let item = tokio::time::timeout(Duration::from_secs(10), self.rx.recv())
                .await
                .expect("stream frame within 10 s")?;
            match item {
                SseItem::Comment(c) if c == "__closed__" => return None,
                SseItem::Comment(c) => self.comments.push(c),
                SseItem::Event(e) if e.event == "heartbeat" => self.heartbeats += 1,
                SseItem::Event(e) if e.event == "liveness" => {
                    self.liveness = serde_json::from_str(&e.data).ok()
                }
                SseItem::Event(e) if e.event == "wallet" => {
                    let frame = Frame::decode(&e.data).expect("wallet frame decodes");
                    return Some(self.fold.fold(&frame).expect("frame folds cleanly"));
                }
                SseItem::Event(e) => panic!("unexpected event {}", e.event),
            }
        }
    }

    /// Fold frames until `f` holds on the state (at most 15 s).
    pub async fn until(&mut self, what: &str, f: impl Fn(&AccountState) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while !self.fold.state().is_some_and(&f) {
            let next = tokio::time::timeout_at(deadline, self.next_wallet()).await;
            match next {
                Err(_) => panic!("timed out waiting for {what}: {:?}", self.fold.state()),
                Ok(None) => panic!("stream closed waiting for {what}"),
                Ok(Some(_)) => {}
            }
        }
    }

    /// Fold frames until the outcome of `id` arrives; returns it and the closed rows seen.
    pub async fn outcome(
        &mut self,
        id: B256,
    ) -> (
        String,
        Vec<papertrade_tui::protocol::account::ClosedPosition>,
    ) {
        let mut closed_seen = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let next = tokio::time::timeout_at(deadline, self.next_wallet())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for the outcome of {id:#x}"));
            match next {
                Some(Folded::Patched { closed, outcomes }) => {
                    closed_seen.extend(closed);
                    if let Some(o) = outcomes.iter().find(|o| o.intent_id == id) {
                        return (o.outcome.label().to_string(), closed_seen);
                    }
                }
                Some(_) => {}
                None => panic!("stream closed before the outcome of {id:#x}"),
            }
        }
    }

    /// Wait for a heartbeat (or the stream's end).
    pub async fn heartbeat(&mut self) -> bool {
        let start = self.heartbeats;
        while self.heartbeats == start {
            match tokio::time::timeout(Duration::from_secs(5), self.rx.recv()).await {
                Ok(Some(SseItem::Event(e))) if e.event == "heartbeat" => self.heartbeats += 1,
                Ok(Some(SseItem::Comment(c))) if c == "__closed__" => return false,
                Ok(Some(SseItem::Event(e))) if e.event == "wallet" => {
                    let frame = Frame::decode(&e.data).unwrap();
                    self.fold.fold(&frame).unwrap();
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return false,
            }
        }
        true
    }
}

/// A client-side trader: a wallet key, a session key and a nonce counter.
pub struct Trader {
    pub wallet: WalletSigner,
    pub session: SessionSigner,
    pub nonce: u64,
}

impl Trader {
    pub fn new() -> Self {
        Self {
            wallet: WalletSigner::random(),
            session: SessionSigner::random(),
            nonce: 1_000 * 256,
        }
    }

    pub fn address(&self) -> Address {
        self.wallet.address()
    }

    pub fn wallet_hex(&self) -> String {
        format!("{:#x}", self.address())
    }

    fn next_nonce(&mut self) -> U256 {
        self.nonce += 1;
        U256::from(self.nonce)
    }

    pub fn register(&self, now_s: u64) -> Value {
        let r = RegisterSessionKey {
            user: self.address(),
            key: self.session.address(),
            expiry: now_s + 30 * 86_400,
            feeAddress: Address::ZERO,
            nonce: U256::from(256u64),
            deadline: now_s + 3600,
        };
        self.wallet.sign(r).unwrap().post().unwrap().body
    }

    pub fn open_intent(
        &mut self,
        now_s: u64,
        instrument: u32,
        is_long: bool,
        margin_usd: u128,
        leverage: u32,
    ) -> OpenPosition {
        OpenPosition {
            user: self.address(),
            instrumentId: instrument,
            isLong: is_long,
            size: margin_usd * 1_000_000_000_000_000_000,
            leverage,
            useDebt: false,
            nonce: self.next_nonce(),
            deadline: now_s + 3600,
        }
    }

    /// Sign an open; returns (body, locally computed intent id).
    pub fn open(
        &mut self,
        now_s: u64,
        instrument: u32,
        is_long: bool,
        margin_usd: u128,
        leverage: u32,
    ) -> (Value, B256) {
        let intent = self.open_intent(now_s, instrument, is_long, margin_usd, leverage);
        let signed = self.session.sign(intent).unwrap();
        (signed.post().unwrap().body, signed.intent_id())
    }

    pub fn close(&mut self, now_s: u64, ids: Vec<U256>) -> (Value, B256) {
        let close = Close {
            user: self.address(),
            positionIds: ids,
            nonce: self.next_nonce(),
            deadline: now_s + 3600,
        };
        let signed = self.session.sign(close).unwrap();
        (signed.post().unwrap().body, signed.intent_id())
    }

    pub fn cancel(&self, now_s: u64, target: B256) -> (String, Value) {
        let c = CancelIntent {
            user: self.address(),
            intentId: target,
            deadline: U256::from(now_s + 3600),
        };
        let post = self.session.sign(c).unwrap().post().unwrap();
        (post.path, post.body)
    }

    pub fn withdraw(&mut self, now_s: u64, usdc: u64) -> (Value, B256) {
        let w = WithdrawToCore {
            user: self.address(),
            amount: U256::from(usdc),
            nonce: self.next_nonce(),
            deadline: now_s + 3600,
        };
        let signed = self.wallet.sign(w).unwrap();
        (signed.post().unwrap().body, signed.intent_id())
    }
}

pub fn b256(v: &Value) -> B256 {
    v.as_str().unwrap().parse().unwrap()
}
