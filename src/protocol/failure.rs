//! Why a failed intent likely failed. The exchange's stream reports only `[intentId, "failed"]`
//! (§3.2 `intentOutcomes`), so the reason is INFERRED: the relayer's own checks (the same
//! functions every pre-check calls: `check_open`, `close_rejection`) are re-run on the state just
//! after the failure, with the queued operation's own figures, and whatever would refuse it is
//! named. When every check passes, that is said plainly: nothing here explains it.

use alloy_primitives::U256;
use serde_json::{Value, json};

use super::account::{AccountState, Operation};
use super::math::{OpenCheck, OpenFunds, check_open};
use super::rules::close_rejection;
use super::trading::TradingState;

/// What the re-run checks say of one failed intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureGuess {
    /// What would refuse it now, in words (`None`: every check passes).
    pub likely: Option<String>,
}

/// Said with every guess: it is an inference, not the exchange's word.
pub const INFERRED_NOTE: &str = "inferred: the exchange reports no reason for a failure; the relayer's checks were re-run on the state just after it";

impl FailureGuess {
    /// Re-run the relayer's checks for `op` on `account` (just after the failure), the markets
    /// `trading` and `mark` (raw, of the op's market) at `now_s`.
    pub fn of(
        op: &Operation,
        trading: &TradingState,
        mark: Option<u64>,
        account: &AccountState,
        now_s: u64,
    ) -> Self {
        let likely = if op.deadline < now_s {
            Some(format!(
                "its deadline ({}) passed before it settled",
                op.deadline
            ))
        } else {
            match op.action.as_str() {
                "openPosition" => open_refusal(op, trading, mark, account),
                "closePositions" => op
                    .close_position_ids
                    .iter()
                    .flatten()
                    .find_map(|id| close_refusal(account, *id)),
                _ => None,
            }
        };
        Self { likely }
    }

    /// `failed — likely: ETH is not open for new positions (paused) (inferred)`, or that nothing
    /// explains it.
    pub fn text(&self) -> String {
        match &self.likely {
            Some(why) => format!("failed — likely: {why} (inferred)"),
            None => "failed — no check explains it (the exchange gives no reason)".into(),
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "likely": self.likely,
            "explained": self.likely.is_some(),
            "inferred": true,
            "note": INFERRED_NOTE,
        })
    }
}

fn open_refusal(
    op: &Operation,
    trading: &TradingState,
    mark: Option<u64>,
    account: &AccountState,
) -> Option<String> {
    let id = op.instrument_id?;
    let Some(market) = trading.market_by_id(id) else {
        return Some(format!("market #{id} is no longer listed"));
    };
    let check = OpenCheck {
        state: trading,
        market,
        is_long: op.is_long?,
        margin: op.amount?,
        leverage: op.leverage?,
        use_debt: op.use_debt.unwrap_or(false),
        mark,
        funds: Some(OpenFunds::of(account)),
        positions: Some(&account.open_positions),
        // The failed intent has left the queue; an opposite open still queued would refuse it.
        queued: Some(&account.operations),
    };
    check_open(&check).err().map(|r| r.to_string())
}

fn close_refusal(account: &AccountState, id: U256) -> Option<String> {
    close_rejection(account, id).map(|r| r.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::B256;

    fn trading() -> TradingState {
        TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap()
    }

    fn account() -> AccountState {
        let text = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":1,"indexedThroughTimestamp":1,"sessionKeys":[],"walletRevision":1,"queueRevision":"1","balance":"1000000000000000000000","queued":"0","locked":"0","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"1000000000000000000000","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},"lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},"openPositions":[],"operations":[],"accountRevision":1}"#;
        let super::super::account::Frame::Snapshot(s) =
            super::super::account::Frame::decode(text).unwrap()
        else {
            panic!()
        };
        *s
    }

    fn open(symbol_id: u32, margin: u128) -> Operation {
        Operation {
            intent_id: B256::repeat_byte(1),
            action: "openPosition".into(),
            instrument_id: Some(symbol_id),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(margin),
            leverage: Some(10),
            accepted_at_ms: 1,
            deadline: 2_000,
            close_position_ids: None,
        }
    }

    #[test]
    fn a_paused_market_is_named_and_nothing_is_said_plainly() {
        let mut t = trading();
        let eth = t
            .instruments
            .iter()
            .position(|m| m.symbol == "ETH")
            .unwrap();
        let id = t.instruments[eth].id;
        let op = open(id, 100 * crate::protocol::units::WAD);
        let mark = Some(t.instruments[eth].price_scale * 2_500);
        // Every check passes: said plainly.
        let clear = FailureGuess::of(&op, &t, mark, &account(), 1_000);
        assert_eq!(clear.likely, None, "{clear:?}");
        assert!(clear.text().contains("no check explains it"));
        // The market paused since: that is what would refuse it.
        t.instruments[eth].paused = true;
        let paused = FailureGuess::of(&op, &t, mark, &account(), 1_000);
        let text = paused.text();
        assert!(text.starts_with("failed — likely: ETH"), "{text}");
        assert!(
            text.contains("paused") && text.ends_with("(inferred)"),
            "{text}"
        );
        assert_eq!(paused.json()["inferred"], true);
        // More margin than the account holds.
        let big = open(id, 5_000 * crate::protocol::units::WAD);
        let t = trading();
        let funds = FailureGuess::of(&big, &t, mark, &account(), 1_000);
        assert!(funds.likely.unwrap().contains("available balance"));
        // A deadline that passed comes first.
        let late = FailureGuess::of(&op, &t, mark, &account(), 3_000);
        assert!(late.likely.unwrap().contains("deadline"));
    }

    #[test]
    fn a_close_of_a_position_gone_is_named() {
        let op = Operation {
            action: "closePositions".into(),
            instrument_id: None,
            is_long: None,
            amount: None,
            leverage: None,
            use_debt: None,
            close_position_ids: Some(vec![U256::from(7u8)]),
            ..open(0, 0)
        };
        let g = FailureGuess::of(&op, &trading(), None, &account(), 1_000);
        assert!(g.likely.unwrap().contains("position 7 is not open"));
    }
}
