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
use serde_json::Value;
use tokio::time::Instant;

use crate::protocol::account::{AccountFold, AccountState, Folded, Frame};
use crate::protocol::wire::{DecodeError, parse_address};

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
/// The page size the leaderboard is read in: the live exchange's fallback size (§3.3).
const PAGE_SIZE: usize = 25;
/// A stream refused with 429 is tried once more after this (the stream answer's `Retry-After`
/// is not read on this path).
const STREAM_RETRY_WAIT: Duration = Duration::from_secs(1);

pub use crate::analytics::liquidations::scanned::{Scan, Scanned};

/// The `n` wallets with the most open notional, largest first, and the leaderboard's account
/// count: pages of [`PAGE_SIZE`] until `n` are read or the pages end.
pub async fn top_wallets(
    http: &ExchangeHttp,
    n: usize,
) -> Result<(Vec<Address>, Option<u64>), FetchError> {
    let n = n.min(MAX_SCAN_WALLETS);
    let path = "/state/leaderboard/accounts";
    let mut out = Vec::new();
    let mut total = None;
    let mut page = 0usize;
    while out.len() < n {
        let mut query = BTreeMap::new();
        query.insert("page", page.to_string());
        query.insert("pageSize", PAGE_SIZE.to_string());
        query.insert("sortDir", "desc".to_string());
        query.insert("sortKey", "currentOpenNotional".to_string());
        query.insert("window", "all".to_string());
        let body: Value = http.get_json(path, &query).await?;
        let malformed = |problem: &str| FetchError::Malformed {
            url: http.url(path, &query),
            error: DecodeError::new(path, problem),
        };
        if body.get("ok").and_then(Value::as_bool) == Some(false) {
            return Err(malformed("the answer says ok: false"));
        }
        total = body["summary"]["uniqueAccounts"].as_u64().or(total);
        let rows = body["accounts"]
            .as_array()
            .ok_or_else(|| malformed("accounts is not a list"))?;
        for row in rows {
            let text = row["address"]
                .as_str()
                .ok_or_else(|| malformed("an account has no address"))?;
            let wallet = parse_address(text).map_err(|e| malformed(&e))?;
            if !out.contains(&wallet) && out.len() < n {
                out.push(wallet);
            }
        }
        let pages = body["pageInfo"]["totalPages"].as_u64();
        page += 1;
        if rows.len() < PAGE_SIZE || pages.is_some_and(|p| page as u64 >= p) {
            break;
        }
    }
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
