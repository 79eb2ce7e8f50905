//! The explorer's reads, each one of the exchange's known endpoints (§3) through the bounded,
//! retrying reader (`http.rs`: time and byte caps, 429 and `Retry-After` honoured). A scan of
//! the leaderboard reads pages one after another (never in parallel: it is the endpoint seen
//! rate-limiting, §2) and stops at a fixed count.

use std::collections::BTreeMap;

use alloy_primitives::Address;

use crate::protocol::leaderboard::{Board, LeaderboardPage, SortDir, SortKey, Window};
use crate::protocol::reads::{MarketStats, ProtocolHistory, QueueRank, RecentTrades, Summary};
use crate::protocol::wire::DecodeError;

use super::http::{ExchangeHttp, FetchError};

/// Rows per page of a scan: what a working client asks first (§3.3).
pub const SCAN_PAGE_SIZE: usize = 200;
/// The page size it falls back to when 200 is refused (§3.3).
pub const FALLBACK_PAGE_SIZE: usize = 25;
/// Pages a scan reads at most: 2,000 wallets.
pub const MAX_SCAN_PAGES: u64 = 10;

/// One page of the board.
pub async fn leaderboard_page(
    http: &ExchangeHttp,
    window: Window,
    key: SortKey,
    dir: SortDir,
    page: u64,
    page_size: usize,
) -> Result<LeaderboardPage, FetchError> {
    let mut q = BTreeMap::new();
    q.insert("page", page.to_string());
    q.insert("pageSize", page_size.to_string());
    q.insert("sortDir", dir.name().to_string());
    q.insert("sortKey", key.name().to_string());
    q.insert("window", window.name().to_string());
    let path = "/state/leaderboard/accounts";
    let page: LeaderboardPage = http.get_json(path, &q).await?;
    if !page.ok {
        return Err(FetchError::Malformed {
            url: http.url(path, &q),
            error: DecodeError::new(path, "the answer says ok: false"),
        });
    }
    Ok(page)
}

/// The board from the top, page after page, until `enough(rows read so far, the last page)`
/// says so, the board ends or [`MAX_SCAN_PAGES`] were read: `(offset of the page's first row,
/// page)` in order.
pub async fn scan_leaderboard(
    http: &ExchangeHttp,
    window: Window,
    key: SortKey,
    dir: SortDir,
    enough: impl Fn(u64, &LeaderboardPage) -> bool,
) -> Result<Vec<(u64, LeaderboardPage)>, FetchError> {
    let mut size = SCAN_PAGE_SIZE;
    let mut pages = Vec::new();
    let mut offset = 0u64;
    for page in 0..MAX_SCAN_PAGES {
        let read = match leaderboard_page(http, window, key, dir, page, size).await {
            // A server that refuses 200 a page gets the fallback size, from the top again. A
            // 429 is not that refusal: the reader already waited what it could for it.
            Err(FetchError::Status { status, .. })
                if page == 0
                    && size == SCAN_PAGE_SIZE
                    && (400..500).contains(&status)
                    && status != 429 =>
            {
                size = FALLBACK_PAGE_SIZE;
                leaderboard_page(http, window, key, dir, 0, size).await?
            }
            other => other?,
        };
        let rows = read.accounts.len() as u64;
        let done = enough(offset + rows, &read)
            || rows < size as u64
            || page + 1 >= read.page_info.total_pages;
        pages.push((offset, read));
        offset += rows;
        if done {
            break;
        }
    }
    Ok(pages)
}

/// Each window's board sorted by windowed PnL, each scan stopping once `wallet` is found; None
/// for a window whose board could not be read (logged). `analytics::leaderboard::window_ranks`
/// ranks the wallet in them.
pub async fn window_boards(http: &ExchangeHttp, wallet: Address) -> Vec<(Window, Option<Board>)> {
    let scans = futures::future::join_all(Window::ALL.map(|w| async move {
        let pages = scan_leaderboard(
            http,
            w,
            SortKey::TotalWindowedPnl,
            SortDir::Desc,
            |_: u64, p: &LeaderboardPage| p.accounts.iter().any(|r| r.address == wallet),
        )
        .await;
        (w, pages)
    }))
    .await;
    scans
        .into_iter()
        .map(|(w, pages)| match pages {
            Ok(pages) => (w, Some(pages)),
            Err(e) => {
                tracing::debug!(error = %e, window = w.name(), "leaderboard unavailable");
                (w, None)
            }
        })
        .collect()
}

pub async fn summary(http: &ExchangeHttp) -> Result<Summary, FetchError> {
    http.get_json("/query/protocol/summary", &BTreeMap::new())
        .await
}

pub async fn market_stats(http: &ExchangeHttp) -> Result<MarketStats, FetchError> {
    http.get_json("/query/protocol/market-stats", &BTreeMap::new())
        .await
}

pub async fn recent_trades(http: &ExchangeHttp) -> Result<RecentTrades, FetchError> {
    http.get_json("/query/protocol/trades/recent", &BTreeMap::new())
        .await
}

/// `/query/protocol/history?interval=` (one of `ProtocolHistory::INTERVALS`).
pub async fn protocol_history(
    http: &ExchangeHttp,
    interval: &str,
) -> Result<ProtocolHistory, FetchError> {
    let mut q = BTreeMap::new();
    q.insert("interval", interval.to_string());
    http.get_json("/query/protocol/history", &q).await
}

pub async fn queue_rank(http: &ExchangeHttp, wallet: Address) -> Result<QueueRank, FetchError> {
    http.get_json(
        &format!("/queue-rank/accounts/{wallet:#x}"),
        &BTreeMap::new(),
    )
    .await
}
