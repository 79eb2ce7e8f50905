//! The simulator's HTTP face, one module per concern: the exchange's reads behind one
//! [gate](gate), the account stream over SSE, Hyperliquid's `/info`, intent writes, and the
//! `/sim/*` practice controls with fault injection. Handlers decode, call the engine, encode.

mod body;
mod controls;
mod faults;
mod funding;
mod gate;
mod info;
mod intents;
mod local;
mod reads;
mod shared;
mod stream;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::oneshot;

use crate::sim::engine::SimConfig;
use crate::sim::intake::Refusal;

pub use shared::Shared;

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
        let shared = Arc::new(Shared::new(cfg.clone()));
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let app = router(shared.clone(), cfg.controls, addr);
        let (tx, rx) = oneshot::channel::<()>();
        let ticker_shared = shared.clone();
        let tick = Duration::from_millis(cfg.tick_ms.max(10));
        let manual = cfg.manual_clock;
        let task = tokio::spawn(async move {
            // On the real clock time moves with every request and, between them, every tick.
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

    /// The HyperEVM JSON-RPC subset a deposit verifies with and settlement transactions are read from.
    pub fn rpc_url(&self) -> String {
        format!("http://{}/evm", self.addr)
    }

    /// Stop serving: open streams are closed, the listener released.
    pub(crate) async fn stop(mut self) {
        self.shared.drop_streams.send_modify(|g| *g += 1);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.task).await;
        self.task.abort();
    }
}

type S = State<Arc<Shared>>;

fn router(shared: Arc<Shared>, controls: bool, bound: SocketAddr) -> Router {
    let mut app = Router::new()
        .route("/state/trading", get(reads::trading))
        .route("/state/user/live", get(stream::live))
        .route("/state/leaderboard/accounts", get(reads::leaderboard))
        .route("/query/protocol/summary", get(reads::summary))
        .route("/query/protocol/history", get(reads::history))
        .route("/query/protocol/market-stats", get(reads::market_stats))
        .route("/query/protocol/queue-summary", get(reads::queue_summary))
        .route("/query/protocol/trades/recent", get(reads::trades))
        .route("/queue-rank/accounts/{wallet}", get(reads::queue_rank))
        .route("/relayer/health", get(reads::relayer_health))
        .route("/query/health", get(reads::query_health))
        .route("/info", post(info::info))
        .route("/exchange", post(funding::exchange))
        .route("/evm", post(funding::evm))
        .route("/funding/deposits/check", post(funding::deposits_check))
        .route("/intents", post(intents::submit))
        .route("/intents/{id}/cancel", post(intents::cancel));
    if controls {
        let controls = Router::new()
            .route("/sim/fund", post(controls::fund))
            .route("/sim/fund-core", post(funding::fund_core))
            .route("/sim/price", post(controls::price))
            .route("/sim/market", post(controls::market))
            .route("/sim/trading", post(controls::trading))
            .route("/sim/intake", post(controls::intake))
            .route("/sim/notice", post(controls::notice))
            .route("/sim/faults", post(controls::faults))
            .route("/sim/clock", post(controls::clock))
            .route_layer(axum::middleware::from_fn(local::control));
        app = app.merge(controls);
    }
    app.fallback(|| async { refusal(Refusal::new(404, "not_found", "no such route")) })
        .layer(axum::middleware::from_fn_with_state(bound, local::host))
        .with_state(shared)
}

/// A refusal as the exchange answers it: its status and error body.
fn refusal(r: Refusal) -> Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, axum::Json(r.body())).into_response()
}

fn ok_json(value: impl serde::Serialize) -> Response {
    axum::Json(value).into_response()
}

/// A typed answer or its refusal.
fn answer(result: Result<impl serde::Serialize, Refusal>) -> Response {
    match result {
        Ok(v) => ok_json(v),
        Err(r) => refusal(r),
    }
}
