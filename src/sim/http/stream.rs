//! `GET /state/user/live?wallet=`: the account stream over SSE — `: connected`, `liveness`, a
//! snapshot, then patches and heartbeats, until the client leaves or a fault ends it.

use std::convert::Infallible;
use std::time::Duration;

use alloy_primitives::Address;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::Response;
use tokio::sync::mpsc;

use crate::protocol::account::{Frame, Liveness};
use crate::sim::intake::Refusal;

use super::S;
use super::gate::{Query, Read, ReadQuery, wallet_param};

/// `?wallet=`, required.
pub(super) struct LiveQuery {
    wallet: Address,
}

impl ReadQuery for LiveQuery {
    const NAMES: &'static [&'static str] = &["wallet"];

    fn decode(q: &Query) -> Result<Self, Refusal> {
        let text = q
            .get("wallet")
            .ok_or_else(|| Refusal::new(400, "invalid_wallet", "wallet: missing"))?;
        Ok(Self {
            wallet: wallet_param(text)?,
        })
    }
}

pub(super) async fn live(State(s): S, Read(q): Read<LiveQuery>) -> Response {
    let wallet = q.wallet;
    // Snapshot and subscription under the engine lock: no patch is missed or repeated.
    let (snapshot, mut patches) = {
        let mut exchange = s.lock_now();
        s.publish(&mut exchange);
        let snapshot = Frame::Snapshot(Box::new(exchange.snapshot(wallet))).to_json();
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
