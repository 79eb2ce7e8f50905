//! The liquidation scan: the wallets with the most open notional (leaderboard sorted by
//! `currentOpenNotional`, §3.3) and each one's account stream snapshot (§3.2), read a few at a
//! time. Bounded everywhere: at most [`MAX_SCAN_WALLETS`] wallets, [`SCAN_CONCURRENCY`] streams
//! open at once, each snapshot within [`SNAPSHOT_TIMEOUT`] and [`SNAPSHOT_BYTES_CAP`], the whole
//! scan within [`SCAN_DEADLINE`]; the leaderboard read honours 429 and `Retry-After` (the shared
//! read path). A wallet whose snapshot fails is reported, not retried blindly. Results are cached
//! for [`SCAN_TTL`], so a pane refreshing and a command asking again do not rescan.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy_primitives::Address;
use futures::StreamExt;
use tokio::time::Instant;

use crate::protocol::account::{AccountFold, AccountState, Folded, Frame};
use crate::protocol::leaderboard::{SortDir, SortKey, Window};

use super::explorer::scan_leaderboard;
use super::http::{ExchangeHttp, FetchError};
use super::limits::{SSE_EVENT_CAP, bytes_text};
use super::sse::{SseItem, SseParser};

/// The seed's bound on scanned wallets (`wallets` 1–44).
pub const MAX_SCAN_WALLETS: usize = 44;
/// Streams open at once: polite to the exchange, still a few seconds for 44 wallets.
pub const SCAN_CONCURRENCY: usize = 4;
/// One wallet's snapshot: the stream's headers and its first `wallet` frame.
pub const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes read from one stream before its snapshot, at most: one event at the SSE cap, plus the
/// comment and liveness lines before it.
pub const SNAPSHOT_BYTES_CAP: usize = SSE_EVENT_CAP + 64 * 1024;
/// The whole scan, leaderboard included: wallets not read by then are reported as timed out.
pub const SCAN_DEADLINE: Duration = Duration::from_secs(60);
/// How long a scan is reused.
pub const SCAN_TTL: Duration = Duration::from_secs(15);
/// A stream refused with 429 is tried once more after this (the stream answer's `Retry-After`
/// is not read on this path).
const STREAM_RETRY_WAIT: Duration = Duration::from_secs(1);

use crate::events::scan::{Scan, Scanned};

/// The `n` wallets with the most open notional, largest first, and the leaderboard's account
/// count: the board sorted by `currentOpenNotional` over the whole history, read the one way
/// every leaderboard read is (`explorer::scan_leaderboard`: the shared decoder, page size and
/// fallback), until `n` are read or the pages end.
pub async fn top_wallets(
    http: &ExchangeHttp,
    n: usize,
) -> Result<(Vec<Address>, Option<u64>), FetchError> {
    let n = n.min(MAX_SCAN_WALLETS);
    let pages = scan_leaderboard(
        http,
        Window::All,
        SortKey::CurrentOpenNotional,
        SortDir::Desc,
        |rows, _| rows >= n as u64,
    )
    .await?;
    let mut out = Vec::new();
    for row in pages.iter().flat_map(|(_, p)| &p.accounts) {
        if out.len() < n && !out.contains(&row.address) {
            out.push(row.address);
        }
    }
    let total = pages.first().map(|(_, p)| p.summary.unique_accounts);
    Ok((out, total))
}

/// One wallet's account snapshot: open its stream, read to the first `wallet` frame, fold it
/// under the §3.2 rules, close the stream. Bounded by [`SNAPSHOT_BYTES_CAP`]; the caller bounds
/// the time.
pub async fn snapshot(http: &ExchangeHttp, wallet: Address) -> Result<AccountState, String> {
    let response = match http.open_account_stream(wallet).await {
        Err(FetchError::Status { status: 429, .. }) => {
            tokio::time::sleep(STREAM_RETRY_WAIT).await;
            http.open_account_stream(wallet).await
        }
        other => other,
    }
    .map_err(|e| e.to_string())?;
    let mut body = response.bytes_stream();
    let mut parser = SseParser::new();
    let mut fold = AccountFold::new(wallet);
    let mut read = 0usize;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| format!("the stream broke: {e}"))?;
        read += chunk.len();
        if read > SNAPSHOT_BYTES_CAP {
            return Err(format!(
                "no snapshot within {}",
                bytes_text(SNAPSHOT_BYTES_CAP)
            ));
        }
        for item in parser.feed(&chunk).map_err(|e| e.to_string())? {
            let SseItem::Event(event) = item else {
                continue;
            };
            if event.event != "wallet" {
                continue;
            }
            let frame = Frame::decode(&event.data).map_err(|e| format!("malformed frame: {e}"))?;
            match fold.fold(&frame).map_err(|e| e.to_string())? {
                Folded::Snapshot => return Ok(fold.state().expect("just synced").clone()),
                // A patch before any snapshot cannot apply; the fold said so already.
                Folded::Patched { .. } | Folded::StaleSnapshot => {}
            }
        }
    }
    Err("the stream ended before its snapshot".into())
}

/// Scan the top `n` wallets (1 to [`MAX_SCAN_WALLETS`]).
pub async fn scan(http: &ExchangeHttp, n: usize) -> Result<Scan, FetchError> {
    let started = Instant::now();
    let deadline = started + SCAN_DEADLINE;
    let (wallets, leaderboard_accounts) =
        match tokio::time::timeout_at(deadline, top_wallets(http, n)).await {
            Ok(read) => read?,
            Err(_) => {
                return Err(FetchError::Unreachable {
                    url: http.url("/state/leaderboard/accounts", &BTreeMap::new()),
                    reason: format!("no leaderboard within {}s", SCAN_DEADLINE.as_secs()),
                });
            }
        };
    // By value: a closure over `&Address` is not general enough for a spawned task.
    let reads = wallets.into_iter().map(|wallet| async move {
        let until = deadline.min(Instant::now() + SNAPSHOT_TIMEOUT);
        let snapshot = tokio::time::timeout_at(until, snapshot(http, wallet))
            .await
            .unwrap_or_else(|_| Err("no snapshot in time".into()));
        Scanned { wallet, snapshot }
    });
    // `buffered` keeps the leaderboard's order while reading a few at a time.
    let wallets: Vec<Scanned> = futures::stream::iter(reads)
        .buffered(SCAN_CONCURRENCY)
        .collect()
        .await;
    Ok(Scan {
        wallets,
        leaderboard_accounts,
        took: started.elapsed(),
    })
}

/// The last scan, reused while it is younger than [`SCAN_TTL`] and covers as many wallets.
#[derive(Debug, Default)]
pub struct ScanCache {
    last: Mutex<Option<(Instant, usize, Arc<Scan>)>>,
}

impl ScanCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// A scan of at least the top `n` wallets: the cached one if fresh, else a new one.
    pub async fn get(&self, http: &ExchangeHttp, n: usize) -> Result<Arc<Scan>, FetchError> {
        let fresh = self
            .last
            .lock()
            .expect("scan cache lock")
            .as_ref()
            .filter(|(at, wallets, _)| at.elapsed() < SCAN_TTL && *wallets >= n)
            .map(|(_, _, scan)| scan.clone());
        if let Some(scan) = fresh {
            return Ok(scan);
        }
        let scan = Arc::new(scan(http, n).await?);
        *self.last.lock().expect("scan cache lock") = Some((Instant::now(), n, scan.clone()));
        Ok(scan)
    }
}
