//! What the relayer refuses because of the account's state, one function per intent. The
//! simulator refuses with them, the commands check with them before anything is signed, and the
//! ticket shows their reason before Review, so the three cannot drift apart. The open checks
//! (market, leverage, sizes, funds, open-interest caps, one side per market) are
//! [`check_open`](super::math::check_open); an intent's own shape (12 ids at most, distinct ids,
//! the 10 USDC minimum withdrawal) is checked when it is built (`Intent::validate`).
//!
//! The codes are the simulator's (INVENTED where protocol.md names none); the live relayer's
//! codes come back in its answer and are shown as sent.

use alloy_primitives::{B256, U256};

use super::account::{AccountState, Operation};
use super::units::{USDC_TO_WAD, format_scaled};

/// Why a close of these position ids would be refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloseRejection {
    #[error("position {id} is not open on this account")]
    NotOpen { id: U256 },
    #[error("position {id} already has a close queued ({by:#x})")]
    AlreadyClosing { id: U256, by: B256 },
}

impl CloseRejection {
    pub fn code(&self) -> &'static str {
        match self {
            CloseRejection::NotOpen { .. } => "unknown_position",
            CloseRejection::AlreadyClosing { .. } => "position_closing",
        }
    }
}

/// Every id must be an open position of the account with no close already queued; the first
/// that is not refuses the whole batch.
pub fn check_close(account: &AccountState, ids: &[U256]) -> Result<(), CloseRejection> {
    ids.iter()
        .try_for_each(|&id| close_rejection(account, id).map_or(Ok(()), Err))
}

/// Why a close of position `id` alone would be refused, if it would.
pub fn close_rejection(account: &AccountState, id: U256) -> Option<CloseRejection> {
    if !account.open_positions.iter().any(|p| p.id == id) {
        return Some(CloseRejection::NotOpen { id });
    }
    account
        .queued_close_of(id)
        .map(|by| CloseRejection::AlreadyClosing { id, by })
}

/// Why a cancel would be refused: only an intent still queued for this account can be cancelled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CancelRejection {
    #[error(
        "intent {target:#x} is not queued on this account (settled, expired, cancelled or never accepted)"
    )]
    NotQueued { target: B256 },
}

impl CancelRejection {
    pub fn code(&self) -> &'static str {
        "not_cancellable"
    }
}

/// The queued operation a cancel of `target` would remove.
pub fn check_cancel(account: &AccountState, target: B256) -> Result<&Operation, CancelRejection> {
    account
        .operations
        .iter()
        .find(|o| o.intent_id == target)
        .ok_or(CancelRejection::NotQueued { target })
}

/// Why a withdrawal would be refused by the account's state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithdrawRejection {
    /// Both in USDC units (6 decimals), the available balance rounded down: to the micro-USDC,
    /// since a rounded figure could read as equal to the amount asked for.
    #[error("{} USDC is more than the available balance of {} USDC (queued profit and reserved margin cannot be withdrawn)", format_scaled(*usdc, 6), format_scaled(*available_usdc, 6))]
    AboveAvailable { usdc: u128, available_usdc: u128 },
}

impl WithdrawRejection {
    pub fn code(&self) -> &'static str {
        "insufficient_funds"
    }
}

/// A withdrawal of `usdc` (6 decimals) draws on the available balance only (§7).
pub fn check_withdraw(account: &AccountState, usdc: u128) -> Result<(), WithdrawRejection> {
    let available = account.funds.available_balance;
    if usdc.saturating_mul(USDC_TO_WAD) > available {
        return Err(WithdrawRejection::AboveAvailable {
            usdc,
            available_usdc: available / USDC_TO_WAD,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::account::Frame;

    /// The recorded account of protocol.md §3 (one BTC long, #411276, its close queued) and a
    /// second position, #411280, with nothing queued.
    const ACCOUNT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,
 "indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881",
 "balance":"234249163328500998503","queued":"5000000000000000000","locked":"20000000000000000000",
 "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},
 "queueNodeCount":0,"consumableDebt":"0",
 "paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},
 "lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},
 "openPositions":[["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,null],
                  ["411280",1,true,false,"3000000000","10000000000000000000",100,"2970000000",1791862800000,null]],
 "operations":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","closePositions",null,null,null,null,null,1791862851323,"1791862941",["411276"]]],
 "accountRevision":2}"#;

    fn account() -> AccountState {
        match Frame::decode(ACCOUNT).unwrap() {
            Frame::Snapshot(s) => *s,
            Frame::Patch(_) => unreachable!("a snapshot"),
        }
    }

    #[test]
    fn a_close_needs_open_positions_with_nothing_queued() {
        let a = account();
        let (queued, free, gone) = (U256::from(411276), U256::from(411280), U256::from(9));
        assert_eq!(check_close(&a, &[free]), Ok(()));
        let closing = check_close(&a, &[free, queued]).unwrap_err();
        assert_eq!(closing.code(), "position_closing");
        assert!(closing.to_string().contains("0x71a9f6c0"), "{closing}");
        assert_eq!(
            check_close(&a, &[gone, queued]),
            Err(CloseRejection::NotOpen { id: gone }),
            "the first refused id is the reason"
        );
    }

    #[test]
    fn only_a_queued_intent_of_the_account_can_be_cancelled() {
        let a = account();
        let queued: B256 = "0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2"
            .parse()
            .unwrap();
        assert_eq!(check_cancel(&a, queued).unwrap().action, "closePositions");
        let other = B256::with_last_byte(1);
        assert_eq!(
            check_cancel(&a, other).unwrap_err(),
            CancelRejection::NotQueued { target: other }
        );
    }

    #[test]
    fn a_withdrawal_draws_on_the_available_balance_only() {
        let a = account();
        // 234.249163 USDC available: 234.249163 passes, one micro-USDC more does not; the queued
        // $5 of profit never counts.
        assert_eq!(check_withdraw(&a, 234_249_163), Ok(()));
        let over = check_withdraw(&a, 234_249_164).unwrap_err();
        assert_eq!(over.code(), "insufficient_funds");
        assert!(
            over.to_string().starts_with(
                "234.249164 USDC is more than the available balance of 234.249163 USDC"
            ),
            "{over}"
        );
    }
}
