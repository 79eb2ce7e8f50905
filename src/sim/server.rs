//! The simulator's HTTP face: the exchange's routes and Hyperliquid's `/info` on one loopback
//! origin, the account stream over SSE, the `/sim/*` practice controls and fault injection.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy_primitives::Address;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::protocol::account::{Frame, Liveness};
use crate::protocol::relayer::ErrorBody;
use crate::protocol::units::parse_scaled;
use crate::protocol::wire::{parse_address, parse_b256};

use super::engine::{Engine, SimConfig};
use super::exchange::Exchange;
use super::intake::{self, Refusal};

/// Injected faults (`POST /sim/faults`); `{}` clears them.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultSpec {
    /// `"drop"` closes every open account stream now; `"stall"` silences them (no frames, no
    /// heartbeats) until the client gives up. New streams are not affected.
    pub sse: Option<String>,
    /// Answer exchange reads with this status (5xx or 429).
    pub read_status: Option<u16>,
    /// How many reads to fail; absent: until cleared.
    pub read_failures: Option<u32>,
    /// `Retry-After` seconds sent with `readStatus`.
    pub retry_after_s: Option<u64>,
    /// Delay every exchange answer by this long.
    pub delay_ms: Option<u64>,
    /// Queue the next N intents but drop their answers (the connection fails mid-answer).
    pub drop_intent_answers: Option<u32>,
    /// Leave these markets (symbols) out of `/state/trading`, as an exchange that stopped
    /// listing one would, while positions in them stay open.
    pub unlisted_markets: Option<Vec<String>>,
}

/// Bounds of `/sim/faults` (see `sim_faults`).
const MAX_RETRY_AFTER_S: u64 = 86_400;
const MAX_FAULT_DELAY_MS: u64 = 60_000;

#[derive(Debug, Default)]
struct Faults {
    read_status: Option<u16>,
    read_failures: Option<u32>,
    retry_after_s: Option<u64>,
    delay_ms: u64,
    drop_intent_answers: u32,
    unlisted_markets: Vec<String>,
}

/// State shared by every request.
pub struct Shared {
    engine: Mutex<Exchange>,
    cfg: SimConfig,
    wallets: Mutex<HashMap<Address, broadcast::Sender<Arc<String>>>>,
    faults: Mutex<Faults>,
    drop_streams: watch::Sender<u64>,
    stall_streams: watch::Sender<u64>,
}

fn wall_ms() -> u64 {
    crate::clock::now_unix_ms()
}

impl Shared {
    /// Run `f` on the exchange at the current time and broadcast the patches it produced, under
    /// one lock: a stream that subscribed under the same lock sees every patch exactly once.
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Exchange) -> R) -> R {
        let mut engine = self.lock_engine();
        if !self.cfg.manual_clock {
            engine.advance(wall_ms());
        }
        let result = f(&mut engine);
        self.publish(&mut engine);
        result
    }

    /// The engine, even after a panic in another request: serving on beats dying, and every
    /// commit re-derives the account figures it publishes.
    fn lock_engine(&self) -> std::sync::MutexGuard<'_, Exchange> {
        self.engine
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn publish(&self, engine: &mut Engine) {
        let patches = engine.drain_outbox();
        if patches.is_empty() {
            return;
        }
        let wallets = self.wallets.lock().expect("wallets lock");
        for (wallet, patch) in patches {
            if let Some(tx) = wallets.get(&wallet) {
                let text = Frame::Patch(Box::new(patch)).to_json();
                // No receiver is fine: nobody is watching this wallet right now.
                let _ = tx.send(Arc::new(text));
            }
        }
    }

    fn subscribe(&self, wallet: Address) -> broadcast::Receiver<Arc<String>> {
        let mut wallets = self.wallets.lock().expect("wallets lock");
        wallets
            .entry(wallet)
            .or_insert_with(|| broadcast::channel(4096).0)
            .subscribe()
    }

    /// A read fault to answer with instead, if one is armed.
    fn read_fault(&self) -> Option<Response> {
        let mut f = self.faults.lock().expect("faults lock");
        let status = f.read_status?;
        match f.read_failures {
            Some(0) => {
                f.read_status = None;
                return None;
            }
            Some(n) => f.read_failures = Some(n - 1),
            None => {}
        }
        let code = if status == 429 {
            "rate_limited"
        } else {
            "unavailable"
        };
        let mut response = (
            StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            axum::Json(ErrorBody::new(code, "injected by /sim/faults")),
        )
            .into_response();
        if let Some(s) = f.retry_after_s {
            response.headers_mut().insert(header::RETRY_AFTER, s.into());
        }
        Some(response)
    }

    async fn delay(&self) {
        let ms = self.faults.lock().expect("faults lock").delay_ms;
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }
}

/// A running simulator.
pub struct SimServer {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl SimServer {
    /// Bind `addr` (port 0 for any free port) and serve on the current tokio runtime.
    pub async fn start(cfg: SimConfig, addr: SocketAddr) -> std::io::Result<Self> {
        cfg.check()
            .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidInput, m))?;
        let start_ms = if cfg.manual_clock {
            super::engine::MANUAL_START_MS
        } else {
            wall_ms()
        };
        let engine = Exchange::new(cfg.clone(), start_ms);
        let shared = Arc::new(Shared {
            engine: Mutex::new(engine),
            cfg: cfg.clone(),
            wallets: Mutex::new(HashMap::new()),
            faults: Mutex::new(Faults::default()),
            drop_streams: watch::channel(0).0,
            stall_streams: watch::channel(0).0,
        });
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let app = router(shared.clone(), cfg.controls);
        let (tx, rx) = oneshot::channel::<()>();
        let ticker_shared = shared.clone();
        let tick = Duration::from_millis(cfg.tick_ms.max(10));
        let manual = cfg.manual_clock;
        let task = tokio::spawn(async move {
            let ticker = async move {
                if manual {
                    return std::future::pending::<()>().await;
                }
                let mut interval = tokio::time::interval(tick);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                loop {
                    interval.tick().await;
                    ticker_shared.with_engine(|_| ());
                }
            };
            let server = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = rx.await;
            });
            tokio::select! {
                _ = server => {}
                _ = ticker => {}
            }
        });
        Ok(Self {
            addr,
            shared,
            shutdown: Some(tx),
            task,
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn info_url(&self) -> String {
        format!("http://{}/info", self.addr)
    }

    /// Stop serving: open streams are closed, the listener released.
    pub async fn stop(mut self) {
        self.shared.drop_streams.send_modify(|g| *g += 1);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.task).await;
        self.task.abort();
    }
}

type S = State<Arc<Shared>>;

fn router(shared: Arc<Shared>, controls: bool) -> Router {
    let mut app = Router::new()
        .route("/state/trading", get(trading))
        .route("/state/user/live", get(live))
        .route("/state/leaderboard/accounts", get(leaderboard))
        .route("/query/protocol/summary", get(summary))
        .route("/query/protocol/history", get(history))
        .route("/query/protocol/market-stats", get(market_stats))
        .route("/query/protocol/queue-summary", get(queue_summary))
        .route("/query/protocol/trades/recent", get(trades))
        .route("/queue-rank/accounts/{wallet}", get(queue_rank))
        .route("/relayer/health", get(relayer_health))
        .route("/query/health", get(query_health))
        .route("/info", post(info))
        .route("/intents", post(submit))
        .route("/intents/{id}/cancel", post(cancel));
    if controls {
        app = app
            .route("/sim/fund", post(sim_fund))
            .route("/sim/price", post(sim_price))
            .route("/sim/market", post(sim_market))
            .route("/sim/trading", post(sim_trading))
            .route("/sim/intake", post(sim_intake))
            .route("/sim/notice", post(sim_notice))
            .route("/sim/faults", post(sim_faults))
            .route("/sim/clock", post(sim_clock));
    }
    app.fallback(|| async { refusal(Refusal::new(404, "not_found", "no such route")) })
        .with_state(shared)
}

fn refusal(r: Refusal) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, axum::Json(r.body())).into_response()
}

fn ok_json(value: impl serde::Serialize) -> Response {
    axum::Json(value).into_response()
}

/// Everything an exchange read goes through: no foreign `Origin`, a canonical query with only
/// the endpoint's parameters, injected faults and delays.
async fn read_gate(
    shared: &Shared,
    headers: &HeaderMap,
    query: Option<&str>,
    allowed: &[&str],
) -> Result<Vec<(String, String)>, Response> {
    shared.delay().await;
    check_origin(headers).map_err(refusal)?;
    if let Some(r) = shared.read_fault() {
        return Err(r);
    }
    canonical_query(query, allowed).map_err(refusal)
}

fn check_origin(headers: &HeaderMap) -> Result<(), Refusal> {
    if headers.contains_key(header::ORIGIN) {
        return Err(Refusal::new(
            400,
            "origin_not_allowed",
            "requests from another origin are refused",
        ));
    }
    Ok(())
}

/// Parameters sorted by name, each once, each known; otherwise 400 (§2).
fn canonical_query(
    query: Option<&str>,
    allowed: &[&str],
) -> Result<Vec<(String, String)>, Refusal> {
    let Some(q) = query.filter(|q| !q.is_empty()) else {
        return Ok(Vec::new());
    };
    let mut pairs = Vec::new();
    for part in q.split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        if !allowed.contains(&k) {
            // INVENTED code.
            return Err(Refusal::new(
                400,
                "unknown_parameter",
                format!("unknown parameter {k:?}"),
            ));
        }
        pairs.push((k.to_string(), percent_decode(v)));
    }
    if !pairs.windows(2).all(|w| w[0].0 < w[1].0) {
        // INVENTED code.
        return Err(Refusal::new(
            400,
            "non_canonical_query",
            "query parameters must be sorted by name, each at most once",
        ));
    }
    Ok(pairs)
}

fn percent_decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&v[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A wallet in a path or query: lowercase `0x` + 40 hex, as the SDK sends.
fn wallet_param(text: &str) -> Result<Address, Refusal> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        // INVENTED code.
        return Err(Refusal::new(
            400,
            "invalid_wallet",
            "send the wallet as lowercase hex",
        ));
    }
    parse_address(text).map_err(|e| Refusal::new(400, "invalid_wallet", e))
}

async fn trading(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    let unlisted = s
        .faults
        .lock()
        .expect("faults lock")
        .unlisted_markets
        .clone();
    let mut wire = s.with_engine(|e| e.trading.to_wire());
    if !unlisted.is_empty()
        && let Some(list) = wire.get_mut("instruments").and_then(|v| v.as_array_mut())
    {
        // Instruments are tuples; the symbol is the second field (§3.1).
        list.retain(|i| {
            i.get(1)
                .and_then(|v| v.as_str())
                .is_none_or(|sym| !unlisted.iter().any(|u| u.eq_ignore_ascii_case(sym)))
        });
    }
    ok_json(wire)
}

async fn summary(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(|e| e.summary()))
}

async fn market_stats(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(|e| e.market_stats()))
}

async fn queue_summary(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(|e| e.queue_summary()))
}

async fn trades(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(|e| e.recent_trades()))
}

async fn relayer_health(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(|e| e.relayer_health()))
}

async fn query_health(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    ok_json(s.with_engine(
        |e| json!({"status": "ok", "chainId": 999, "block": e.block(), "simulated": true}),
    ))
}

async fn history(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    let pairs = match read_gate(&s, &headers, q.as_deref(), &["interval"]).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let interval = param(&pairs, "interval").unwrap_or("");
    match s.with_engine(|e| e.history(interval)) {
        Ok(v) => ok_json(v),
        Err(r) => refusal(r),
    }
}

async fn leaderboard(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    let pairs = match read_gate(
        &s,
        &headers,
        q.as_deref(),
        &["page", "pageSize", "sortDir", "sortKey", "window"],
    )
    .await
    {
        Ok(p) => p,
        Err(r) => return r,
    };
    let number = |name: &str, default: usize| -> Result<usize, Refusal> {
        param(&pairs, name).map_or(Ok(default), |v| {
            v.parse().map_err(|_| {
                Refusal::new(
                    400,
                    "invalid_parameter",
                    format!("{name} must be a whole number"),
                )
            })
        })
    };
    let descending = match param(&pairs, "sortDir").unwrap_or("desc") {
        "desc" => true,
        "asc" => false,
        _ => {
            return refusal(Refusal::new(
                400,
                "invalid_parameter",
                "sortDir must be asc or desc",
            ));
        }
    };
    let (page, size) = match (number("page", 0), number("pageSize", 25)) {
        (Ok(p), Ok(z)) => (p, z),
        (Err(r), _) | (_, Err(r)) => return refusal(r),
    };
    let key = param(&pairs, "sortKey")
        .unwrap_or("totalWindowedPnl")
        .to_string();
    let window = param(&pairs, "window").unwrap_or("all").to_string();
    match s.with_engine(|e| e.leaderboard(page, size, descending, &key, &window)) {
        Ok(v) => ok_json(v),
        Err(r) => refusal(r),
    }
}

async fn queue_rank(
    State(s): S,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
    Path(wallet): Path<String>,
) -> Response {
    if let Err(r) = read_gate(&s, &headers, q.as_deref(), &[]).await {
        return r;
    }
    match wallet_param(&wallet) {
        Ok(w) => ok_json(s.with_engine(|e| e.queue_rank(w))),
        Err(r) => refusal(r),
    }
}

/// `GET /state/user/live?wallet=`: `: connected`, `liveness`, a snapshot, then patches and
/// heartbeats.
async fn live(State(s): S, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    let pairs = match read_gate(&s, &headers, q.as_deref(), &["wallet"]).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let wallet = match param(&pairs, "wallet").map(wallet_param) {
        Some(Ok(w)) => w,
        Some(Err(r)) => return refusal(r),
        None => return refusal(Refusal::new(400, "invalid_wallet", "wallet: missing")),
    };
    // Snapshot and subscription under the engine lock: no patch is missed or repeated.
    let (snapshot, mut patches) = {
        let mut engine = s.lock_engine();
        if !s.cfg.manual_clock {
            engine.advance(wall_ms());
        }
        s.publish(&mut engine);
        let snapshot = Frame::Snapshot(Box::new(engine.snapshot(wallet))).to_json();
        (snapshot, s.subscribe(wallet))
    };
    let heartbeat = Duration::from_millis(s.cfg.heartbeat_ms.max(10));
    let mut dropped = s.drop_streams.subscribe();
    let mut stalled = s.stall_streams.subscribe();
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    tokio::spawn(async move {
        let liveness = serde_json::to_string(&Liveness {
            heartbeat_interval_ms: heartbeat.as_millis() as u64,
        })
        .expect("serializes");
        let opening = format!(
            ": connected\n\nevent: liveness\ndata: {liveness}\n\nevent: wallet\ndata: {snapshot}\n\n"
        );
        if tx.send(Bytes::from(opening)).await.is_err() {
            return;
        }
        let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + heartbeat, heartbeat);
        let mut silent = false;
        loop {
            let frame = tokio::select! {
                _ = dropped.changed() => return,
                _ = stalled.changed() => { silent = true; continue; }
                _ = tx.closed() => return,
                _ = beat.tick() => "event: heartbeat\ndata: null\n\n".to_string(),
                patch = patches.recv() => match patch {
                    Ok(p) => format!("event: wallet\ndata: {p}\n\n"),
                    // Too slow to keep up: end the stream so the client resyncs.
                    Err(_) => return,
                },
            };
            if silent {
                continue;
            }
            if tx.send(Bytes::from(frame)).await.is_err() {
                return;
            }
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .expect("static response")
}

/// Hyperliquid's `POST /info`: `l2Book`, `allMids`, `candleSnapshot`.
async fn info(State(s): S, body: Bytes) -> Response {
    let unprocessable = |m: &str| (StatusCode::UNPROCESSABLE_ENTITY, m.to_string()).into_response();
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return unprocessable("Failed to deserialize the JSON body");
    };
    match req["type"].as_str() {
        Some("l2Book") => {
            let coin = req["coin"].as_str().unwrap_or_default().to_string();
            s.with_engine(|e| {
                let now = e.now_ms();
                match e.markets.iter().find(|m| m.symbol == coin) {
                    Some(m) => ok_json(m.l2_book(now)),
                    None => ok_json(Value::Null),
                }
            })
        }
        Some("allMids") => s.with_engine(|e| {
            let mids: serde_json::Map<String, Value> = e
                .markets
                .iter()
                .map(|m| {
                    (
                        m.symbol.clone(),
                        Value::String(crate::protocol::units::price_text(m.mid(), m.price_scale)),
                    )
                })
                .collect();
            ok_json(Value::Object(mids))
        }),
        Some("candleSnapshot") => {
            let r = &req["req"];
            let (Some(coin), Some(interval), Some(start)) = (
                r["coin"].as_str(),
                r["interval"].as_str(),
                r["startTime"].as_u64(),
            ) else {
                return unprocessable("Failed to deserialize the JSON body");
            };
            s.with_engine(|e| {
                let end = r["endTime"].as_u64().unwrap_or(e.now_ms());
                match e.markets.iter().find(|m| m.symbol == coin) {
                    Some(m) => match m.candles(interval, start, end) {
                        Some(c) => ok_json(c),
                        None => unprocessable("Failed to deserialize the JSON body"),
                    },
                    None => ok_json(Value::Array(Vec::new())),
                }
            })
        }
        _ => unprocessable("Failed to deserialize the JSON body"),
    }
}

/// The answer to a write, unless a fault says to drop it after the intent was queued.
fn write_answer(
    s: &Shared,
    result: Result<crate::protocol::relayer::Accepted, Refusal>,
) -> Response {
    match result {
        Ok(accepted) => {
            let drop = {
                let mut f = s.faults.lock().expect("faults lock");
                let drop = f.drop_intent_answers > 0;
                f.drop_intent_answers = f.drop_intent_answers.saturating_sub(1);
                drop
            };
            if drop {
                // The intent is queued; the client gets a broken answer and must not resend.
                let failing = futures::stream::once(async {
                    Err::<Bytes, std::io::Error>(std::io::Error::other(
                        "answer dropped by /sim/faults",
                    ))
                });
                return Response::builder()
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(Body::from_stream(failing))
                    .expect("static response");
            }
            ok_json(accepted)
        }
        Err(r) => refusal(r),
    }
}

fn parse_body(body: &Bytes) -> Result<Value, Refusal> {
    serde_json::from_slice(body)
        .map_err(|e| Refusal::new(400, "invalid_body", format!("not JSON: {e}")))
}

async fn submit(State(s): S, headers: HeaderMap, body: Bytes) -> Response {
    s.delay().await;
    if let Err(r) = check_origin(&headers) {
        return refusal(r);
    }
    let result = parse_body(&body).and_then(|v| s.with_engine(|e| intake::submit(e, &v)));
    write_answer(&s, result)
}

async fn cancel(State(s): S, headers: HeaderMap, Path(id): Path<String>, body: Bytes) -> Response {
    s.delay().await;
    if let Err(r) = check_origin(&headers) {
        return refusal(r);
    }
    let target = match parse_b256(&id) {
        Ok(t) if !id.bytes().any(|b| b.is_ascii_uppercase()) => t,
        _ => {
            return refusal(Refusal::new(
                400,
                "invalid_body",
                "the path needs a lowercase 0x intent id",
            ));
        }
    };
    let result = parse_body(&body).and_then(|v| s.with_engine(|e| intake::cancel(e, target, &v)));
    write_answer(&s, result)
}

// ---- practice controls (never part of the real API) ----

/// INVENTED code for the practice controls.
fn control_error(message: impl Into<String>) -> Response {
    refusal(bad_control(message))
}

fn bad_control(message: impl Into<String>) -> Refusal {
    Refusal::new(400, "invalid_control", message)
}

fn body_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, Refusal> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(bad_control("the body must be a JSON object")),
    }
}

fn field_str<'a>(m: &'a serde_json::Map<String, Value>, name: &str) -> Result<&'a str, Refusal> {
    m.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| bad_control(format!("{name}: expected a string")))
}

async fn sim_fund(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let wallet = match field_str(&m, "wallet").and_then(|w| parse_address(w).map_err(bad_control)) {
        Ok(w) => w,
        Err(r) => return refusal(r),
    };
    let amount = match field_str(&m, "amountUsd")
        .and_then(|a| parse_scaled(a, 18).map_err(|e| bad_control(format!("amountUsd {e}"))))
    {
        Ok(0) => return control_error("amountUsd must be more than 0"),
        // A trillion dollars per call keeps every sum far inside u128.
        Ok(a) if a > 1_000_000_000_000 * crate::protocol::units::WAD => {
            return control_error("amountUsd must be at most 1000000000000");
        }
        Ok(a) => a,
        Err(r) => return refusal(r),
    };
    s.with_engine(|e| {
        e.fund(wallet, amount);
        let balance = e.account(wallet).map_or(0, |a| a.state.balance);
        ok_json(
            json!({"ok": true, "wallet": format!("{wallet:#x}"), "balance": balance.to_string()}),
        )
    })
}

async fn sim_price(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let market = match field_str(&m, "market") {
        Ok(x) => x.to_string(),
        Err(r) => return refusal(r),
    };
    let price = m.get("price").cloned().unwrap_or(Value::Null);
    s.with_engine(|e| {
        let Some(i) = e.trading.market(&market).map(|x| x.id).and_then(|id| e.market_index(id)) else {
            return control_error(format!("unknown market {market:?}"));
        };
        let decimals = e.trading.instruments[i].price_decimals();
        let raw = match &price {
            Value::Null => None,
            // Inside the contract's uint64 with room for the spread and every intermediate.
            Value::String(p) => match parse_scaled(p, decimals).ok().and_then(|r| u64::try_from(r).ok()) {
                Some(r) if r > 0 && r <= u64::MAX / 4 => Some(r),
                _ => return control_error(format!("price must be a positive decimal with at most {decimals} decimals")),
            },
            _ => return control_error("price must be a decimal string or null"),
        };
        let now = e.now_ms();
        e.markets[i].pin(raw, now);
        // Liquidations react to the new mark at once, as they would at the next block.
        e.liquidate_crossed();
        let mid = e.markets[i].mid();
        ok_json(json!({"ok": true, "market": e.markets[i].symbol, "mid": mid.to_string(), "pinned": raw.is_some()}))
    })
}

async fn sim_market(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let (market, status) = match (field_str(&m, "market"), field_str(&m, "status")) {
        (Ok(a), Ok(b)) => (a.to_string(), b.to_string()),
        (Err(r), _) | (_, Err(r)) => return refusal(r),
    };
    s.with_engine(|e| {
        let e: &mut Engine = e;
        let Some(i) = e
            .trading
            .market(&market)
            .map(|x| x.id)
            .and_then(|id| e.market_index(id))
        else {
            return control_error(format!("unknown market {market:?}"));
        };
        let (bid, ask) = e.markets[i].bid_ask();
        let now = e.now_ms();
        let inst = &mut e.trading.instruments[i];
        let (paused, close_only, terminal) = match status.as_str() {
            "active" => (false, false, false),
            "paused" => (true, false, false),
            "closeOnly" => (false, true, false),
            "terminal" => (true, true, true),
            _ => return control_error("status must be active, paused, closeOnly or terminal"),
        };
        inst.paused = paused;
        inst.close_only = close_only;
        inst.terminal = terminal;
        inst.frozen_bid = terminal.then_some(bid);
        inst.frozen_ask = terminal.then_some(ask);
        inst.paused_at_ms = (paused || terminal).then_some(now);
        let label = inst.status(e.trading.trading_paused).label();
        let symbol = inst.symbol.clone();
        // A terminal market marks at its frozen mid from now on.
        e.liquidate_crossed();
        ok_json(json!({"ok": true, "market": symbol, "status": label}))
    })
}

async fn sim_trading(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let Some(paused) = m.get("paused").and_then(Value::as_bool) else {
        return control_error("paused: expected true or false");
    };
    s.with_engine(|e| {
        e.trading.trading_paused = paused;
        ok_json(json!({"ok": true, "tradingPaused": paused}))
    })
}

async fn sim_intake(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let all = m.get("all").and_then(Value::as_bool).unwrap_or(false);
    let actions: Vec<String> = match m.get("pausedActions") {
        None => Vec::new(),
        Some(Value::Array(a)) => match a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
        {
            Some(v) => v,
            None => return control_error("pausedActions: expected action names"),
        },
        Some(_) => return control_error("pausedActions: expected an array"),
    };
    s.with_engine(|e| {
        e.intake_all_paused = all;
        e.trading.intake.paused_actions = actions.clone();
        e.trading.intake.revision += 1;
        ok_json(json!({"ok": true, "all": all, "pausedActions": actions}))
    })
}

async fn sim_notice(State(s): S, body: Bytes) -> Response {
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    s.with_engine(|e| {
        if m.get("clear").and_then(Value::as_bool) == Some(true) {
            e.notices.clear();
        } else {
            let text = |k: &str| {
                m.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            e.notices.push(super::engine::Notice {
                title: text("title"),
                body: text("body"),
                level: text("level"),
            });
        }
        ok_json(json!({"ok": true, "notices": e.notices.len()}))
    })
}

async fn sim_faults(State(s): S, body: Bytes) -> Response {
    let spec: FaultSpec = match serde_json::from_slice(&body) {
        Ok(f) => f,
        Err(e) => return control_error(format!("faults: {e}")),
    };
    if let Some(status) = spec.read_status
        && !(status == 429 || (500..600).contains(&status))
    {
        return control_error("readStatus must be 429 or 5xx");
    }
    // A day of Retry-After is far past any client's patience (it gives up instead), and a
    // minute of delay past any client's timeout: enough to test both, no hour-long hangs.
    if spec.retry_after_s.is_some_and(|s| s > MAX_RETRY_AFTER_S) {
        return control_error(format!(
            "retryAfterS must be at most {MAX_RETRY_AFTER_S} seconds"
        ));
    }
    if spec.delay_ms.is_some_and(|ms| ms > MAX_FAULT_DELAY_MS) {
        return control_error(format!(
            "delayMs must be at most {MAX_FAULT_DELAY_MS} milliseconds"
        ));
    }
    match spec.sse.as_deref() {
        None => {}
        Some("drop") => s.drop_streams.send_modify(|g| *g += 1),
        Some("stall") => s.stall_streams.send_modify(|g| *g += 1),
        Some(_) => return control_error("sse must be drop or stall"),
    }
    let mut f = s.faults.lock().expect("faults lock");
    *f = Faults {
        read_status: spec.read_status,
        read_failures: spec.read_failures,
        retry_after_s: spec.retry_after_s,
        delay_ms: spec.delay_ms.unwrap_or(0),
        drop_intent_answers: spec.drop_intent_answers.unwrap_or(0),
        unlisted_markets: spec.unlisted_markets.unwrap_or_default(),
    };
    ok_json(json!({"ok": true}))
}

async fn sim_clock(State(s): S, body: Bytes) -> Response {
    if !s.cfg.manual_clock {
        return refusal(Refusal::new(
            409,
            "clock_not_manual",
            "start the simulator with --manual-clock",
        ));
    }
    let m = match body_object(&body) {
        Ok(m) => m,
        Err(r) => return refusal(r),
    };
    let step = match field_str(&m, "advanceMs").map(|v| v.parse::<u64>()) {
        Ok(Ok(ms)) if ms <= 30 * 86_400_000 => ms,
        Ok(_) => {
            return control_error("advanceMs must be a whole number of milliseconds up to 30 days");
        }
        Err(r) => return refusal(r),
    };
    s.with_engine(|e| {
        let to = e.now_ms().saturating_add(step);
        e.advance(to);
        ok_json(json!({"ok": true, "nowMs": e.now_ms()}))
    })
}
