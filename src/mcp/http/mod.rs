//! `papertrade-tui mcp --http ADDR`: the same server as Streamable HTTP at `/mcp`, stateless,
//! behaving as the hosted seed servers do (see `front`), on loopback unless told otherwise.
//!
//! Served by hyper directly rather than `axum::serve`, which sets no timer and so cannot bound
//! how long a client may take to send its request head (or sit idle on a kept-alive connection):
//! here that is `HEAD_TIMEOUT`, the body has its own, and the connections at once are capped.

mod front;
mod rate;
mod rest;

use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, watch};
use tower_service::Service as _;

use super::{Reads, Seed, Server};

/// Calls per minute per client address unless `--rate-per-minute` says otherwise (the seeds').
pub const DEFAULT_RATE_PER_MINUTE: u32 = 60;
/// A request head (or the next one on a kept-alive connection) must arrive within this.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 64;
/// How long stopping waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// A running HTTP server. Dropping it stops it too, without waiting for requests in flight.
pub struct HttpServer {
    /// The bound address (the real port when 0 was asked for).
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Bind `addr` (port 0 for any free one) and serve `only`'s tools (all when empty) on the
    /// current runtime. Binding is not checked here: see
    /// [`crate::local_server::check_bind`].
    pub async fn start(
        reads: Reads,
        only: &[Seed],
        addr: SocketAddr,
        rate_per_minute: u32,
    ) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let front = Arc::new(front::Front::new(
            Server::new(reads, only),
            addr,
            rate_per_minute,
        ));
        // `/mcp`, and beside it the risk seed's paid routes (`rest`), under the same rules.
        let router = front::router(front.clone()).merge(rest::router(front));
        let (stop, stopped) = watch::channel(false);
        tracing::info!(%addr, ?only, rate_per_minute, "mcp over http");
        let task = tokio::spawn(accept(listener, router, stopped));
        Ok(Self { addr, stop, task })
    }

    /// The endpoint clients are configured with.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stop accepting, let requests in flight finish (up to a few seconds), release the port.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(DRAIN * 2, &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
        tracing::info!("mcp over http stopped");
    }
}

async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    mut stopped: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("never closed"),
            _ = stopping(&mut stopped) => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors and the like: wait rather than spin.
                    tracing::warn!(error = %e, "mcp http accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stopping(&mut stopped) => break,
        };
        let router = router.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    let mut router = router.clone();
                    async move { router.call(request).await }
                });
            let mut connection = pin!(
                hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEAD_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service)
            );
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopping(&mut stopped) => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(DRAIN, connection).await;
                }
            }
        });
    }
    drop(listener);
    // Every connection holds a slot until it ends.
    let _ = tokio::time::timeout(DRAIN, slots.acquire_many(MAX_CONNECTIONS as u32)).await;
}

/// Until the server is told to stop (or dropped).
async fn stopping(stopped: &mut watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await;
}
