//! `get_wallet`: the balance sheet of any wallet, from its account stream snapshot (§3.2), the
//! trading state's staking accumulator (§5.5) and the leaderboard (§3.3).
//!
//! Every figure has a real source: the snapshot carries balances, PAPER, session keys and the
//! `lifetime` block (deposits, withdrawals, realised PnL, win fees, traded notional, PAPER
//! rewards claimed — SEEN in the recorded stream); ranks and windowed PnL come from the board.

use alloy_primitives::U256;
use serde_json::{Value, json};

use crate::protocol::account::AccountState;
use crate::protocol::trading::TradingState;

use super::leaderboard::WindowRank;
use super::positions::CloseValue;
use super::{raw, usd, usd_u};

/// USDC staking reward owed to the wallet now (wad), §5.5.
pub fn pending_staking_reward(account: &AccountState, acc_reward_per_share: U256) -> u128 {
    let p = &account.paper;
    crate::protocol::math::staking_reward(
        p.pending_base,
        p.staked,
        p.reward_debt,
        acc_reward_per_share,
    )
}

/// Σ net PnL of a close at the mark over the open positions (wad); `None` when any of them
/// cannot be valued (unlisted market or no mark), so a total is never silently partial.
pub fn unrealized(
    account: &AccountState,
    trading: &TradingState,
    marks: &std::collections::BTreeMap<u32, u64>,
) -> Option<i128> {
    let fee = trading.win_fee_rate();
    account.open_positions.iter().try_fold(0i128, |sum, p| {
        let market = trading.market_by_id(p.instrument_id)?;
        let mark = *marks.get(&p.instrument_id)?;
        Some(sum.saturating_add(CloseValue::at(market, p, fee, mark).net))
    })
}

/// One wallet's balance sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceSheet {
    pub account: AccountState,
    /// Sanitised leaderboard name, when the board has one.
    pub name: Option<String>,
    pub pending_reward: u128,
    pub unrealized: Option<i128>,
    /// Unix seconds the sheet was made at (for which session keys are active).
    pub now_s: u64,
    pub ranks: Vec<WindowRank>,
}

/// The sheet from a snapshot and what else was read.
pub fn balance_sheet(
    account: AccountState,
    trading: &TradingState,
    marks: &std::collections::BTreeMap<u32, u64>,
    name: Option<String>,
    ranks: Vec<WindowRank>,
    now_s: u64,
) -> BalanceSheet {
    BalanceSheet {
        pending_reward: pending_staking_reward(&account, trading.acc_reward_per_share),
        unrealized: unrealized(&account, trading, marks),
        account,
        name,
        now_s,
        ranks,
    }
}

impl BalanceSheet {
    /// `get_wallet`'s structured result: `address`, `leaderboard_name`, `balance_usd`,
    /// `queued_usd`, `locked_usd`, `available_usd`, `open_positions`, `pending_operations`,
    /// `paper`, `lifetime`, `session_keys`, `ranks`, `links` (plus each figure's `_raw`).
    pub fn json(&self, stream_url: &str) -> Value {
        let a = &self.account;
        let l = &a.lifetime;
        let ranks: serde_json::Map<String, Value> = self
            .ranks
            .iter()
            .map(|r| {
                (
                    r.window.name().to_string(),
                    json!({
                        "rank": r.rank,
                        "pnl_usd": r.pnl.map_or(Value::Null, usd),
                        "pnl_raw": r.pnl.map_or(Value::Null, raw),
                        "scanned_accounts": r.scanned,
                        "complete": r.complete,
                    }),
                )
            })
            .collect();
        json!({
            "address": format!("{:#x}", a.address),
            "leaderboard_name": self.name,
            "balance_usd": usd_u(a.balance),
            "balance_raw": raw(a.balance),
            "queued_usd": usd_u(a.queued),
            "queued_raw": raw(a.queued),
            "locked_usd": usd_u(a.locked),
            "locked_raw": raw(a.locked),
            "available_usd": usd_u(a.funds.available_balance),
            "available_raw": raw(a.funds.available_balance),
            "open_positions": a.open_positions.len(),
            "pending_operations": a.operations.len(),
            "unrealized_pnl_usd": self.unrealized.map_or(Value::Null, usd),
            "unrealized_pnl_raw": self.unrealized.map_or(Value::Null, raw),
            "paper": {
                "balance": usd_u(a.paper.balance),
                "balance_raw": raw(a.paper.balance),
                "staked": usd_u(a.paper.staked),
                "staked_raw": raw(a.paper.staked),
                "pending_rewards_usd": usd_u(self.pending_reward),
                "pending_rewards_raw": raw(self.pending_reward),
            },
            "lifetime": {
                "deposited_usd": usd_u(l.deposited),
                "deposited_raw": raw(l.deposited),
                "withdrawn_usd": usd_u(l.withdrawn),
                "withdrawn_raw": raw(l.withdrawn),
                "realized_pnl_usd": usd(l.realized_pnl),
                "realized_pnl_raw": raw(l.realized_pnl),
                "fees_paid_usd": usd_u(l.fees_paid),
                "fees_paid_raw": raw(l.fees_paid),
                "traded_notional_usd": usd_u(l.traded_notional),
                "traded_notional_raw": raw(l.traded_notional),
                "paper_rewards_claimed_usd": usd_u(l.paper_rewards_claimed),
                "paper_rewards_claimed_raw": raw(l.paper_rewards_claimed),
            },
            "session_keys": a.session_keys.iter().map(|k| json!({
                "key": format!("{:#x}", k.key),
                "expiry": k.expiry,
                "active": k.expiry > self.now_s,
            })).collect::<Vec<_>>(),
            "ranks": ranks,
            "links": {"account_stream": stream_url},
            "indexed_through_block": a.indexed_through_block,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::math::ACC_SCALE;

    #[test]
    fn the_pending_reward_follows_the_accumulator_and_saturates() {
        let mut a: AccountState = serde_json::from_value(json!({
            "address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":1,
            "indexedThroughTimestamp":1,"sessionKeys":[],"walletRevision":1,"queueRevision":"1",
            "balance":"0","queued":"0","locked":"0",
            "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"0","availableQueued":"0"},
            "queueNodeCount":0,"consumableDebt":"0",
            "paper":{"balance":"0","staked":"2000000000000000000","pendingBase":"5","rewardDebt":"3"},
            "lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},
            "openPositions":[],"operations":[],"accountRevision":1}))
        .unwrap();
        // 2 PAPER staked at 1.5e27 per share accrue 3e18; 5 + 3e18 − 3.
        let acc = U256::from(3 * ACC_SCALE / 2);
        assert_eq!(pending_staking_reward(&a, acc), 3_000_000_000_000_000_002);
        a.paper.reward_debt = u128::MAX;
        assert_eq!(pending_staking_reward(&a, acc), 0);
    }
}
