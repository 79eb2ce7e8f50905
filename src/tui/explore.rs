//! The exploring panes' reads (`Read::Pane`), each through the bounded client (time and byte caps, 429 and `Retry-After` honoured) and answers with a `Fetched`.
//! The scan goes through one cache, so turning back to the pane within its life reads nothing;
//! a wallet's ranks (four scans of the board) are kept [`RANKS_TTL`], while its account is read
//! on every refresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use alloy_primitives::Address;

use crate::analytics::leaderboard::PAGE_SIZE;
use crate::app::Message;
use crate::app::explore::{Fetch, Fetched, WalletRead};
use crate::client::ExchangeHttp;
use crate::client::explorer::{self as reads, scan_leaderboard};
use crate::client::scan::{SNAPSHOT_TIMEOUT, ScanCache, snapshot};
use crate::protocol::leaderboard::LeaderboardPage;

/// How long a wallet's window ranks are reused: finding a wallet far down the board reads up
/// to ten pages per window, too much for every refresh of its account.
const RANKS_TTL: Duration = Duration::from_secs(120);

type Ranks = (
    Vec<crate::analytics::leaderboard::WindowRank>,
    Option<String>,
);

/// Window ranks per wallet, with when they were read.
#[derive(Default)]
struct RankCache(Mutex<HashMap<Address, (Instant, Ranks)>>);

impl RankCache {
    async fn get(&self, http: &ExchangeHttp, wallet: Address) -> Ranks {
        let fresh = self
            .0
            .lock()
            .expect("rank cache lock")
            .get(&wallet)
            .filter(|(at, _)| at.elapsed() < RANKS_TTL)
            .map(|(_, ranks)| ranks.clone());
        if let Some(ranks) = fresh {
            return ranks;
        }
        let ranks = crate::analytics::leaderboard::window_ranks(
            wallet,
            &reads::window_boards(http, wallet).await,
        );
        let mut cache = self.0.lock().expect("rank cache lock");
        // Only the wallets looked at in one session: a few entries, dropped when stale.
        cache.retain(|_, (at, _)| at.elapsed() < RANKS_TTL);
        cache.insert(wallet, (Instant::now(), ranks.clone()));
        ranks
    }
}

#[derive(Clone)]
pub(super) struct Reader {
    http: ExchangeHttp,
    scans: Arc<ScanCache>,
    ranks: Arc<RankCache>,
}

impl Reader {
    pub(super) fn new(http: ExchangeHttp) -> Self {
        Self {
            http,
            scans: Arc::new(ScanCache::new()),
            ranks: Arc::new(RankCache::default()),
        }
    }

    /// Read `fetch`; its answer, stamped when it came.
    pub(super) async fn read(&self, fetch: Fetch) -> Message {
        let answer = read(&self.http, &self.scans, &self.ranks, fetch).await;
        Message::Fetched(answer, SystemTime::now())
    }
}

async fn read(
    http: &ExchangeHttp,
    scans: &ScanCache,
    rank_cache: &RankCache,
    fetch: Fetch,
) -> Fetched {
    match fetch {
        Fetch::Leaderboard(request) => {
            let pages = if request.query.is_some() {
                scan_leaderboard(
                    http,
                    request.window,
                    request.sort_key,
                    request.sort_dir,
                    |_: u64, _: &LeaderboardPage| false,
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
            let (account, (ranks, name)) = tokio::join!(account, rank_cache.get(http, wallet));
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
        Fetch::CoreBalance(wallet) => Fetched::CoreBalance(
            wallet,
            http.spot_usdc(wallet)
                .await
                .map_err(|e| format!("HyperCore balance: {e}")),
        ),
        Fetch::ProtocolHistory { interval } => Fetched::ProtocolHistory(
            interval,
            reads::protocol_history(http, interval)
                .await
                .map_err(|e| format!("protocol history: {e}")),
        ),
    }
}
