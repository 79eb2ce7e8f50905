//! A liquidation scan's result as data: the wallets with the most open notional, each with its
//! account snapshot or why there is none. The client produces it (`client::scan`); the commands
//! and the Liquidations pane compute from it (`analytics::liquidations`).

use std::time::Duration;

use alloy_primitives::Address;

use crate::protocol::account::AccountState;

/// One scanned wallet, in leaderboard order.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub wallet: Address,
    /// Its snapshot, or why there is none.
    pub snapshot: Result<AccountState, String>,
}

#[derive(Debug, Clone)]
pub struct Scan {
    /// The top wallets by open notional, largest first, each with its snapshot.
    pub wallets: Vec<Scanned>,
    /// `summary.uniqueAccounts` of the leaderboard, when it said.
    pub leaderboard_accounts: Option<u64>,
    pub took: Duration,
}

impl Scan {
    /// The snapshots of the first `n` wallets that were read.
    pub fn accounts(&self, n: usize) -> Vec<AccountState> {
        self.wallets
            .iter()
            .take(n)
            .filter_map(|w| w.snapshot.as_ref().ok().cloned())
            .collect()
    }

    /// The first `n` wallets whose snapshot could not be read, with the reason.
    pub fn failures(&self, n: usize) -> Vec<(Address, &str)> {
        self.wallets
            .iter()
            .take(n)
            .filter_map(|w| w.snapshot.as_ref().err().map(|e| (w.wallet, e.as_str())))
            .collect()
    }
}
