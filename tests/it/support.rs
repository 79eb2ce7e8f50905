//! Test support: a loopback fixture exchange serving recorded live-format answers, and a
//! runner for the real binary with an isolated environment.

use std::net::SocketAddr;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

pub const MAINNET_TRADING: &str = include_str!("../../assets/trading_mainnet.json");

/// What the fixture answers; tests mutate it.
pub struct Fixture {
    pub trading: String,
    /// coin → (best bid, best ask) as Hyperliquid price strings.
    pub books: Vec<(String, String, String)>,
    /// Answer this many reads of /state/trading with 503 first.
    pub fail_trading: u32,
    /// Answer this many reads of /state/trading with 429 + Retry-After: 0 first.
    pub throttle_trading: u32,
    pub trading_hits: u32,
}

pub struct FixtureServer {
    pub addr: SocketAddr,
    pub fixture: Arc<Mutex<Fixture>>,
    _runtime: tokio::runtime::Runtime,
}

impl FixtureServer {
    pub fn start() -> Self {
        let fixture = Arc::new(Mutex::new(Fixture {
            trading: MAINNET_TRADING.to_string(),
            books: vec![
                ("BTC".into(), "82800.0".into(), "82800.6".into()),
                ("ETH".into(), "2500.00".into(), "2500.02".into()),
            ],
            fail_trading: 0,
            throttle_trading: 0,
            trading_hits: 0,
        }));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let app = axum::Router::new()
            .route("/state/trading", get(trading))
            .route("/info", post(info))
            .with_state(fixture.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self {
            addr,
            fixture,
            _runtime: runtime,
        }
    }

    pub fn api(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn info(&self) -> String {
        format!("http://{}/info", self.addr)
    }
}

async fn trading(State(f): State<Arc<Mutex<Fixture>>>, headers: HeaderMap) -> Response {
    // The client must never send an Origin header (§2).
    if headers.contains_key("origin") {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"ok":false,"error":"origin_not_allowed"})),
        )
            .into_response();
    }
    let mut f = f.lock().unwrap();
    f.trading_hits += 1;
    if f.fail_trading > 0 {
        f.fail_trading -= 1;
        return (StatusCode::SERVICE_UNAVAILABLE, "unavailable").into_response();
    }
    if f.throttle_trading > 0 {
        f.throttle_trading -= 1;
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "0")],
            Json(json!({"ok":false,"error":"rate_limited"})),
        )
            .into_response();
    }
    ([("content-type", "application/json")], f.trading.clone()).into_response()
}

async fn info(State(f): State<Arc<Mutex<Fixture>>>, Json(body): Json<Value>) -> Response {
    let f = f.lock().unwrap();
    if body["type"] != "l2Book" {
        return (StatusCode::UNPROCESSABLE_ENTITY, "unsupported").into_response();
    }
    let coin = body["coin"].as_str().unwrap_or_default();
    let Some((_, bid, ask)) = f.books.iter().find(|(c, _, _)| c == coin) else {
        return Json(Value::Null).into_response();
    };
    Json(json!({
        "coin": coin,
        "time": 1791862483000u64,
        "levels": [[{"px": bid, "sz": "1.5", "n": 3}], [{"px": ask, "sz": "2.0", "n": 4}]],
    }))
    .into_response()
}

/// Run the real binary with a clean, isolated environment (no user config, temp data dir).
pub fn run(args: &[&str]) -> Output {
    let (mut command, _home) = command(args);
    command.output().unwrap()
}

/// The real binary with a clean, isolated environment; the home lives as long as the guard.
pub fn command(args: &[&str]) -> (Command, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
    command
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("PAPERTRADE_TUI_DATA_DIR", home.path().join("data"));
    (command, home)
}

/// The arguments of an `open` that asks nothing (`--yes`), then `more` (`--json`, `--wait 0`…).
pub fn open_args<'a>(
    market: &'a str,
    side: &'a str,
    margin: &'a str,
    leverage: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "open",
        "--market",
        market,
        "--side",
        side,
        "--margin",
        margin,
        "--leverage",
        leverage,
        "--yes",
    ];
    args.extend_from_slice(more);
    args
}

pub fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
