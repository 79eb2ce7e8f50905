//! The exploring panes' reads: each `Effect::Fetch` runs as its own task through the bounded
//! client (time and byte caps, 429 and `Retry-After` honoured) and answers with a `Fetched`.
//! The scan goes through one cache, so turning back to the pane within its life reads nothing.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::analytics::leaderboard::PAGE_SIZE;
use crate::app::explore::{Fetch, Fetched, WalletRead};
use crate::client::ExchangeHttp;
use crate::client::explorer::{self as reads, scan_leaderboard};
use crate::client::scan::{SNAPSHOT_TIMEOUT, ScanCache, snapshot};
use crate::protocol::leaderboard::LeaderboardPage;

pub(super) struct Reader {
    http: ExchangeHttp,
    scans: Arc<ScanCache>,
}

impl Reader {
    pub(super) fn new(http: ExchangeHttp) -> Self {
        Self {
            http,
            scans: Arc::new(ScanCache::new()),
        }
    }

    pub(super) fn spawn(&self, fetch: Fetch, tx: mpsc::Sender<Fetched>) {
        let http = self.http.clone();
        let scans = self.scans.clone();
        tokio::spawn(async move {
            let answer = read(&http, &scans, fetch).await;
            let _ = tx.send(answer).await;
        });
    }
}

async fn read(http: &ExchangeHttp, scans: &ScanCache, fetch: Fetch) -> Fetched {
    match fetch {
        Fetch::Leaderboard(request) => {
            let pages = if request.query.is_some() {
                scan_leaderboard(
                    http,
                    request.window,
                    request.sort_key,
                    request.sort_dir,
                    |_: &LeaderboardPage| false,
                )
                .await
            } else {
                reads::leaderboard_page(
                    http,
                    request.window,
                    request.sort_key,
                    request.sort_dir,
                    request.page,
                    PAGE_SIZE,
                )
                .await
                .map(|page| vec![(request.page.saturating_mul(PAGE_SIZE as u64), page)])
            };
            Fetched::Leaderboard(request, pages.map_err(|e| format!("leaderboard: {e}")))
        }
        Fetch::Wallet(wallet) => {
            let account = async {
                tokio::time::timeout(SNAPSHOT_TIMEOUT, snapshot(http, wallet))
                    .await
                    .unwrap_or_else(|_| Err("no account snapshot in time".into()))
            };
            let (account, (ranks, name)) = tokio::join!(account, reads::window_ranks(http, wallet));
            let read = account.map(|account| {
                Box::new(WalletRead {
                    account,
                    ranks,
                    name,
                })
            });
            Fetched::Wallet(wallet, read.map_err(|e| format!("account stream: {e}")))
        }
        Fetch::Scan { wallets } => {
            let scan = scans
                .get(http, wallets)
                .await
                .map(|s| (*s).clone())
                .map_err(|e| format!("scan: {e}"));
            Fetched::Scan(wallets, scan)
        }
        Fetch::ProtocolHistory { interval } => Fetched::ProtocolHistory(
            interval,
            reads::protocol_history(http, interval)
                .await
                .map_err(|e| format!("protocol history: {e}")),
        ),
    }
}
