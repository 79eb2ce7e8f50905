//! What the account stream `/state/user/live` sends (§3.2): the snapshot and patch frames and
//! the positional tuples inside them (positions, operations, closed positions, outcomes, session
//! keys), decoded and encoded exactly. How a frame applies to the held state is `fold`.

use alloy_primitives::{Address, B256, U256};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use crate::protocol::wire::{
    DecodeError, Tuple, dec, hex, parse_address, value_u32, value_u128, value_u256,
};

/// Implement serde for a positional tuple type through its `from_wire`/`to_wire`.
macro_rules! tuple_serde {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.to_wire().serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(d)?;
                Self::from_wire(&value).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// An open position: `[positionId, instrumentId, isLong, useDebt, entryPrice, margin, leverage,
/// bustPrice, openedAt, intentId|null]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub id: U256,
    pub instrument_id: u32,
    pub is_long: bool,
    /// Margin came from the queued balance.
    pub use_debt: bool,
    /// Raw at the market's price scale.
    pub entry_price: u64,
    /// wad
    pub margin: u128,
    pub leverage: u32,
    /// Raw; stored by the contract at open.
    pub bust_price: u64,
    pub opened_at_ms: u64,
    /// The opening intent; `None` for positions older than intent ids.
    pub intent_id: Option<B256>,
}

impl Position {
    pub fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        let mut t = Tuple::new("position", value, 10)?;
        Ok(Position {
            id: t.u256("positionId")?,
            instrument_id: t.u32("instrumentId")?,
            is_long: t.bool("isLong")?,
            use_debt: t.bool("useDebt")?,
            entry_price: t.u64("entryPrice")?,
            margin: t.u128("margin")?,
            leverage: t.u32("leverage")?,
            bust_price: t.u64("bustPrice")?,
            opened_at_ms: t.u64("openedAt")?,
            intent_id: t.opt("intentId", |v| {
                crate::protocol::wire::parse_b256(v.as_str().ok_or("expected a hex string")?)
            })?,
        })
    }

    pub(crate) fn to_wire(&self) -> Value {
        json!([
            self.id.to_string(),
            self.instrument_id,
            self.is_long,
            self.use_debt,
            self.entry_price.to_string(),
            self.margin.to_string(),
            self.leverage,
            self.bust_price.to_string(),
            self.opened_at_ms,
            self.intent_id.map(|id| format!("{id:#x}")),
        ])
    }

    /// margin × leverage, wad.
    pub(crate) fn notional(&self) -> u128 {
        self.margin.saturating_mul(u128::from(self.leverage))
    }
}
tuple_serde!(Position);

/// A pending accepted intent: `[intentId, action, instrumentId|null, isLong|null, useDebt|null,
/// amount|null, leverage|null, acceptedAtMs, deadlineUnixSeconds, closePositionIds|null]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub intent_id: B256,
    pub action: String,
    pub instrument_id: Option<u32>,
    pub is_long: Option<bool>,
    pub use_debt: Option<bool>,
    /// Margin wad for opens, USDC 6 dp for withdrawals, PAPER 18 dp for stake/unstake.
    pub amount: Option<u128>,
    pub leverage: Option<u32>,
    pub accepted_at_ms: u64,
    pub deadline: u64,
    pub close_position_ids: Option<Vec<U256>>,
}

impl Operation {
    pub fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        let mut t = Tuple::new("operation", value, 10)?;
        let op = Operation {
            intent_id: t.b256("intentId")?,
            action: t.string("action")?,
            instrument_id: t.opt("instrumentId", value_u32)?,
            is_long: t.opt("isLong", |v| {
                v.as_bool().ok_or_else(|| "expected a boolean".to_string())
            })?,
            use_debt: t.opt("useDebt", |v| {
                v.as_bool().ok_or_else(|| "expected a boolean".to_string())
            })?,
            amount: t.opt("amount", value_u128)?,
            leverage: t.opt("leverage", value_u32)?,
            accepted_at_ms: t.u64("acceptedAtMs")?,
            deadline: t.u64("deadline")?,
            close_position_ids: t.opt("closePositionIds", |v| {
                v.as_array()
                    .ok_or_else(|| "expected an array".to_string())?
                    .iter()
                    .map(value_u256)
                    .collect()
            })?,
        };
        if op.action.is_empty()
            || op.action.len() > 32
            || !op.action.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(DecodeError::new(
                "operation[1] (action)",
                "expected an action name",
            ));
        }
        Ok(op)
    }

    pub(crate) fn to_wire(&self) -> Value {
        json!([
            format!("{:#x}", self.intent_id),
            self.action,
            self.instrument_id,
            self.is_long,
            self.use_debt,
            self.amount.map(|a| a.to_string()),
            self.leverage,
            self.accepted_at_ms,
            self.deadline.to_string(),
            self.close_position_ids
                .as_ref()
                .map(|ids| ids.iter().map(|id| id.to_string()).collect::<Vec<_>>()),
        ])
    }
}
tuple_serde!(Operation);

/// A position that left the account: `[positionId, instrumentId, isLong, margin, leverage,
/// liquidated, netPnl, paperMinted]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedPosition {
    pub id: U256,
    pub instrument_id: u32,
    pub is_long: bool,
    pub margin: u128,
    pub leverage: u32,
    pub liquidated: bool,
    /// After impact and fees, signed wad.
    pub net_pnl: i128,
    /// PAPER 18 dp.
    pub paper_minted: u128,
}

impl ClosedPosition {
    pub fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        let mut t = Tuple::new("closedPosition", value, 8)?;
        Ok(ClosedPosition {
            id: t.u256("positionId")?,
            instrument_id: t.u32("instrumentId")?,
            is_long: t.bool("isLong")?,
            margin: t.u128("margin")?,
            leverage: t.u32("leverage")?,
            liquidated: t.bool("liquidated")?,
            net_pnl: t.i128("netPnl")?,
            paper_minted: t.u128("paperMinted")?,
        })
    }

    pub(crate) fn to_wire(&self) -> Value {
        json!([
            self.id.to_string(),
            self.instrument_id,
            self.is_long,
            self.margin.to_string(),
            self.leverage,
            self.liquidated,
            self.net_pnl.to_string(),
            self.paper_minted.to_string(),
        ])
    }
}
tuple_serde!(ClosedPosition);

/// What became of an accepted intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Succeeded,
    Failed,
    Expired,
    Cancelled,
    Unknown,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Expired => "expired",
            Outcome::Cancelled => "cancelled",
            Outcome::Unknown => "unknown",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        [
            Outcome::Succeeded,
            Outcome::Failed,
            Outcome::Expired,
            Outcome::Cancelled,
            Outcome::Unknown,
        ]
        .into_iter()
        .find(|o| o.label() == text)
    }
}

/// `[intentId, outcome]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntentOutcome {
    pub intent_id: B256,
    pub outcome: Outcome,
}

impl IntentOutcome {
    pub fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        let mut t = Tuple::new("intentOutcome", value, 2)?;
        let intent_id = t.b256("intentId")?;
        let outcome = t.with_str("outcome", |s| {
            Outcome::parse(s).ok_or_else(|| format!("unknown outcome {s:?}"))
        })?;
        Ok(IntentOutcome { intent_id, outcome })
    }

    pub(crate) fn to_wire(&self) -> Value {
        json!([format!("{:#x}", self.intent_id), self.outcome.label()])
    }
}
tuple_serde!(IntentOutcome);

/// A registered session key: `[keyAddress, expiryUnixSecondsString]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionKeyEntry {
    pub key: Address,
    pub expiry: u64,
}

impl SessionKeyEntry {
    pub(crate) fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        let mut t = Tuple::new("sessionKey", value, 2)?;
        let key = t.with_str("keyAddress", parse_address)?;
        Ok(SessionKeyEntry {
            key,
            expiry: t.u64("expiry")?,
        })
    }

    pub fn to_wire(&self) -> Value {
        json!([format!("{:#x}", self.key), self.expiry.to_string()])
    }
}
tuple_serde!(SessionKeyEntry);

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Funds {
    #[serde(with = "dec")]
    pub reserved_balance: u128,
    #[serde(with = "dec")]
    pub reserved_queued: u128,
    #[serde(with = "dec")]
    pub available_balance: u128,
    #[serde(with = "dec")]
    pub available_queued: u128,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Paper {
    /// PAPER 18 dp.
    #[serde(with = "dec")]
    pub balance: u128,
    #[serde(with = "dec")]
    pub staked: u128,
    /// USD wad.
    #[serde(with = "dec")]
    pub pending_base: u128,
    #[serde(with = "dec")]
    pub reward_debt: u128,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lifetime {
    #[serde(with = "dec", rename = "depositedRaw")]
    pub deposited: u128,
    #[serde(with = "dec", rename = "withdrawnRaw")]
    pub withdrawn: u128,
    /// Signed: accumulates the net PnL of closes.
    #[serde(with = "dec", rename = "realizedPnlRaw")]
    pub realized_pnl: i128,
    #[serde(with = "dec", rename = "feesPaidRaw")]
    pub fees_paid: u128,
    #[serde(with = "dec", rename = "tradedNotionalRaw")]
    pub traded_notional: u128,
    #[serde(with = "dec", rename = "paperRewardsClaimedRaw")]
    pub paper_rewards_claimed: u128,
}

/// The whole account as a snapshot frame carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountState {
    #[serde(with = "hex")]
    pub address: Address,
    pub indexed_through_block: u64,
    /// unix seconds
    pub indexed_through_timestamp: u64,
    pub session_keys: Vec<SessionKeyEntry>,
    pub wallet_revision: u64,
    #[serde(with = "dec")]
    pub queue_revision: u64,
    /// Paid-out collateral balance, wad.
    #[serde(with = "dec")]
    pub balance: u128,
    /// Owed by the payout queue, wad.
    #[serde(with = "dec")]
    pub queued: u128,
    /// Margin in open positions, wad.
    #[serde(with = "dec")]
    pub locked: u128,
    pub funds: Funds,
    pub queue_node_count: u64,
    #[serde(with = "dec")]
    pub consumable_debt: u128,
    pub paper: Paper,
    pub lifetime: Lifetime,
    pub open_positions: Vec<Position>,
    pub operations: Vec<Operation>,
    pub account_revision: u64,
}

/// The state fields a patch may carry; absent = unchanged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatePatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_through_block: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_through_timestamp: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_keys: Option<Vec<SessionKeyEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wallet_revision: Option<u64>,
    #[serde(
        with = "crate::protocol::wire::opt_dec",
        skip_serializing_if = "Option::is_none"
    )]
    pub queue_revision: Option<u64>,
    #[serde(
        with = "crate::protocol::wire::opt_dec",
        skip_serializing_if = "Option::is_none"
    )]
    pub balance: Option<u128>,
    #[serde(
        with = "crate::protocol::wire::opt_dec",
        skip_serializing_if = "Option::is_none"
    )]
    pub queued: Option<u128>,
    #[serde(
        with = "crate::protocol::wire::opt_dec",
        skip_serializing_if = "Option::is_none"
    )]
    pub locked: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub funds: Option<Funds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_node_count: Option<u64>,
    #[serde(
        with = "crate::protocol::wire::opt_dec",
        skip_serializing_if = "Option::is_none"
    )]
    pub consumable_debt: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<Paper>,
}

/// A patch frame: applies on top of `baseAccountRevision`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Patch {
    #[serde(with = "hex")]
    pub address: Address,
    pub account_revision: u64,
    pub base_account_revision: u64,
    #[serde(default)]
    pub state: StatePatch,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<Lifetime>,
    pub added_positions: Vec<Position>,
    #[serde(with = "id_list")]
    pub removed_position_ids: Vec<U256>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed_positions: Vec<ClosedPosition>,
    pub added_operations: Vec<Operation>,
    #[serde(with = "hash_list")]
    pub removed_operation_ids: Vec<B256>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intent_outcomes: Vec<IntentOutcome>,
}

pub(crate) mod id_list {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[U256], s: S) -> Result<S::Ok, S::Error> {
        v.iter()
            .map(|id| id.to_string())
            .collect::<Vec<_>>()
            .serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<U256>, D::Error> {
        Vec::<Value>::deserialize(d)?
            .iter()
            .map(|v| value_u256(v).map_err(serde::de::Error::custom))
            .collect()
    }
}

mod hash_list {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[B256], s: S) -> Result<S::Ok, S::Error> {
        v.iter()
            .map(|id| format!("{id:#x}"))
            .collect::<Vec<_>>()
            .serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<B256>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|v| crate::protocol::wire::parse_b256(v).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// One `wallet` event's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Snapshot(Box<AccountState>),
    Patch(Box<Patch>),
}

impl Frame {
    /// A frame with `baseAccountRevision` is a patch; without, a snapshot.
    pub fn decode(data: &str) -> Result<Self, DecodeError> {
        let value: Value =
            serde_json::from_str(data).map_err(|e| DecodeError::new("wallet", e.to_string()))?;
        let is_patch = value
            .as_object()
            .is_some_and(|o| o.contains_key("baseAccountRevision"));
        if is_patch {
            serde_json::from_value(value)
                .map(|p| Frame::Patch(Box::new(p)))
                .map_err(|e| DecodeError::new("wallet patch", e.to_string()))
        } else {
            serde_json::from_value(value)
                .map(|s| Frame::Snapshot(Box::new(s)))
                .map_err(|e| DecodeError::new("wallet snapshot", e.to_string()))
        }
    }

    pub fn to_json(&self) -> String {
        match self {
            Frame::Snapshot(s) => serde_json::to_string(s),
            Frame::Patch(p) => serde_json::to_string(p),
        }
        .expect("frames always serialize")
    }
}

/// The `liveness` event: `{"heartbeatIntervalMs":10000}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Liveness {
    pub heartbeat_interval_ms: u64,
}
