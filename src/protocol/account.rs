//! The account stream `/state/user/live` (§3.2): snapshot and patch frames, their tuples, and
//! the fold that applies them under the SDK's rules and consistency checks.

use alloy_primitives::{Address, B256, U256};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use super::wire::{DecodeError, Tuple, dec, hex, parse_address, value_u32, value_u128, value_u256};

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
                super::wire::parse_b256(v.as_str().ok_or("expected a hex string")?)
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
    #[serde(with = "super::wire::opt_dec", skip_serializing_if = "Option::is_none")]
    pub queue_revision: Option<u64>,
    #[serde(with = "super::wire::opt_dec", skip_serializing_if = "Option::is_none")]
    pub balance: Option<u128>,
    #[serde(with = "super::wire::opt_dec", skip_serializing_if = "Option::is_none")]
    pub queued: Option<u128>,
    #[serde(with = "super::wire::opt_dec", skip_serializing_if = "Option::is_none")]
    pub locked: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub funds: Option<Funds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_node_count: Option<u64>,
    #[serde(with = "super::wire::opt_dec", skip_serializing_if = "Option::is_none")]
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
            .map(|v| super::super::wire::parse_b256(v).map_err(serde::de::Error::custom))
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

/// Why the held state and the stream disagree: the stream must be reopened and resynced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    #[error("frame for {got:#x} on the stream of {expected:#x}")]
    ForeignAddress { expected: Address, got: Address },
    #[error("patch needs base revision {base} but revision {held} is held")]
    Gap { base: u64, held: u64 },
    #[error("patch revision {revision} does not advance past {base}")]
    NotAdvancing { revision: u64, base: u64 },
    #[error("patch before any snapshot")]
    NoSnapshot,
    #[error("{0}")]
    OutOfSync(String),
    #[error("inconsistent account: {0}")]
    Inconsistent(String),
}

impl AccountState {
    /// The consistency the SDK asserts on every frame (§3.2).
    pub fn check_consistency(&self) -> Result<(), SyncError> {
        let bad = |m: String| Err(SyncError::Inconsistent(m));
        if self.wallet_revision > self.indexed_through_block {
            return bad(format!(
                "walletRevision {} is past indexedThroughBlock {}",
                self.wallet_revision, self.indexed_through_block
            ));
        }
        let margins = self
            .open_positions
            .iter()
            .try_fold(0u128, |acc, p| acc.checked_add(p.margin));
        if margins != Some(self.locked) {
            return bad(format!(
                "locked {} differs from the sum of position margins",
                self.locked
            ));
        }
        if self.balance.checked_sub(self.funds.reserved_balance)
            != Some(self.funds.available_balance)
        {
            return bad("availableBalance differs from balance − reservedBalance".into());
        }
        if self.queued.checked_sub(self.funds.reserved_queued) != Some(self.funds.available_queued)
        {
            return bad("availableQueued differs from queued − reservedQueued".into());
        }
        Ok(())
    }

    /// How much queued balance may still back a `useDebt` margin:
    /// `consumableDebt − (queued − availableQueued)`, floored at zero.
    pub fn debt_room(&self) -> u128 {
        let reserved = self.queued.saturating_sub(self.funds.available_queued);
        self.consumable_debt.saturating_sub(reserved)
    }

    /// The registered session keys still unexpired by the exchange's own clock (the snapshot's
    /// indexed time), as the relayer dates them: any one of them lets the account trade.
    pub fn active_session_keys(&self) -> impl Iterator<Item = &SessionKeyEntry> {
        self.session_keys
            .iter()
            .filter(|k| k.expiry > self.indexed_through_timestamp)
    }

    /// Registered expiry of `key`, if the key is registered.
    pub fn session_key_expiry(&self, key: Address) -> Option<u64> {
        self.session_keys
            .iter()
            .filter(|k| k.key == key)
            .map(|k| k.expiry)
            .max()
    }

    /// The queued close intent of position `id`, if one is waiting in the relayer's queue: the
    /// relayer refuses a second close of it (`position_closing`), and with it the whole batch.
    pub(crate) fn queued_close_of(&self, id: U256) -> Option<B256> {
        self.operations
            .iter()
            .find(|o| {
                o.close_position_ids
                    .as_ref()
                    .is_some_and(|ids| ids.contains(&id))
            })
            .map(|o| o.intent_id)
    }

    fn sort(&mut self) {
        self.open_positions.sort_by_key(|p| std::cmp::Reverse(p.id));
        self.operations.sort_by_key(|o| o.accepted_at_ms);
    }

    /// Apply a patch atomically: on any error the state is unchanged.
    pub(crate) fn apply(&mut self, patch: &Patch) -> Result<(), SyncError> {
        if patch.address != self.address {
            return Err(SyncError::ForeignAddress {
                expected: self.address,
                got: patch.address,
            });
        }
        if patch.base_account_revision != self.account_revision {
            return Err(SyncError::Gap {
                base: patch.base_account_revision,
                held: self.account_revision,
            });
        }
        if patch.account_revision <= patch.base_account_revision {
            return Err(SyncError::NotAdvancing {
                revision: patch.account_revision,
                base: patch.base_account_revision,
            });
        }
        let mut next = self.clone();
        for id in &patch.removed_position_ids {
            let before = next.open_positions.len();
            next.open_positions.retain(|p| p.id != *id);
            if next.open_positions.len() == before {
                return Err(SyncError::OutOfSync(format!(
                    "removed position {id} is not held"
                )));
            }
        }
        for p in &patch.added_positions {
            if next.open_positions.iter().any(|q| q.id == p.id) {
                return Err(SyncError::OutOfSync(format!(
                    "added position {} is already held",
                    p.id
                )));
            }
            next.open_positions.push(p.clone());
        }
        for id in &patch.removed_operation_ids {
            let before = next.operations.len();
            next.operations.retain(|o| o.intent_id != *id);
            if next.operations.len() == before {
                return Err(SyncError::OutOfSync(format!(
                    "removed operation {id:#x} is not held"
                )));
            }
        }
        for o in &patch.added_operations {
            if next.operations.iter().any(|q| q.intent_id == o.intent_id) {
                return Err(SyncError::OutOfSync(format!(
                    "added operation {:#x} is already held",
                    o.intent_id
                )));
            }
            next.operations.push(o.clone());
        }
        let s = &patch.state;
        macro_rules! set {
            ($($f:ident),*) => {$( if let Some(v) = &s.$f { next.$f = v.clone(); } )*};
        }
        set!(
            indexed_through_block,
            indexed_through_timestamp,
            session_keys,
            wallet_revision,
            queue_revision,
            balance,
            queued,
            locked,
            funds,
            queue_node_count,
            consumable_debt,
            paper
        );
        if let Some(l) = &patch.lifetime {
            next.lifetime = l.clone();
        }
        next.account_revision = patch.account_revision;
        next.sort();
        next.check_consistency()?;
        *self = next;
        Ok(())
    }
}

/// What folding one frame did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Folded {
    /// A snapshot replaced the state.
    Snapshot,
    /// A patch applied; its closed positions and outcomes are events to report.
    Patched {
        closed: Vec<ClosedPosition>,
        outcomes: Vec<IntentOutcome>,
    },
    /// A snapshot no newer than the held state: ignored.
    StaleSnapshot,
}

/// The per-wallet account as folded from the stream. Any error means: reopen and resync.
#[derive(Debug, Clone)]
pub struct AccountFold {
    wallet: Address,
    state: Option<AccountState>,
}

impl AccountFold {
    pub fn new(wallet: Address) -> Self {
        Self {
            wallet,
            state: None,
        }
    }

    pub fn state(&self) -> Option<&AccountState> {
        self.state.as_ref()
    }

    pub fn fold(&mut self, frame: &Frame) -> Result<Folded, SyncError> {
        match frame {
            Frame::Snapshot(snapshot) => {
                if snapshot.address != self.wallet {
                    return Err(SyncError::ForeignAddress {
                        expected: self.wallet,
                        got: snapshot.address,
                    });
                }
                if let Some(held) = &self.state
                    && snapshot.account_revision <= held.account_revision
                {
                    return Ok(Folded::StaleSnapshot);
                }
                let sorted = snapshot
                    .open_positions
                    .windows(2)
                    .all(|w| w[0].id > w[1].id);
                if !sorted {
                    return Err(SyncError::Inconsistent(
                        "snapshot positions are not sorted by id descending".into(),
                    ));
                }
                snapshot.check_consistency()?;
                let mut ops: Vec<B256> = snapshot.operations.iter().map(|o| o.intent_id).collect();
                ops.sort_unstable();
                if ops.windows(2).any(|w| w[0] == w[1]) {
                    return Err(SyncError::Inconsistent(
                        "snapshot lists an operation twice".into(),
                    ));
                }
                self.state = Some((**snapshot).clone());
                Ok(Folded::Snapshot)
            }
            Frame::Patch(patch) => {
                if patch.address != self.wallet {
                    return Err(SyncError::ForeignAddress {
                        expected: self.wallet,
                        got: patch.address,
                    });
                }
                let state = self.state.as_mut().ok_or(SyncError::NoSnapshot)?;
                state.apply(patch)?;
                Ok(Folded::Patched {
                    closed: patch.closed_positions.clone(),
                    outcomes: patch.intent_outcomes.clone(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,
 "indexedThroughTimestamp":1791862827,
 "sessionKeys":[["0x3f531f402502754977d21725fa31bfaacbed3562","1794285240"]],
 "walletRevision":48399562,"queueRevision":"881",
 "balance":"234249163328500998503","queued":"0","locked":"20000000000000000000",
 "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},
 "queueNodeCount":0,"consumableDebt":"0",
 "paper":{"balance":"307408189127066828","staked":"2148971300842266809833","pendingBase":"539307779344086270","rewardDebt":"22582801164825882659"},
 "lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44809098328500998503",
             "feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},
 "openPositions":[["411277",0,false,false,"832045","10000000000000000000",100,"839965",1791862800000,null],
                  ["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,
                   "0xa2e19a7fd16ba48958d0663302f2cf9071c8ba4b75a7686931f905f04f51b2d5"]],
 "operations":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","closePositions",null,null,null,null,null,1791862851323,"1791862941",["411276"]]],"accountRevision":2}"#;

    const PATCH: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","accountRevision":3,"baseAccountRevision":2,
 "state":{"indexedThroughBlock":48399623,"indexedThroughTimestamp":1791862860,"walletRevision":48399623,"queueRevision":"883",
          "balance":"244141022096051419353","locked":"10000000000000000000",
          "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"244141022096051419353","availableQueued":"0"},
          "paper":{"balance":"3073772114461888177","staked":"2148971300842266809833","pendingBase":"539307779344086270","rewardDebt":"22582801164825882659"}},
 "lifetime":{"depositedRaw":"209440065000000000000","withdrawnRaw":"0","realizedPnlRaw":"44700957096051419353","feesPaidRaw":"2496246575165132132","tradedNotionalRaw":"275000000000000000000000","paperRewardsClaimedRaw":"0"},
 "addedPositions":[],"removedPositionIds":["411276"],
 "closedPositions":[["411276",0,true,"10000000000000000000",100,false,"-108141232449579150","2766363925334821349"]],
 "addedOperations":[],"removedOperationIds":["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2"],
 "intentOutcomes":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","succeeded"]]}"#;

    fn wallet() -> Address {
        parse_address("0xa9f28db0543b215eb2705740f10258c3d000cefd").unwrap()
    }

    #[test]
    fn folds_the_recorded_close() {
        let mut fold = AccountFold::new(wallet());
        assert_eq!(
            fold.fold(&Frame::decode(SNAPSHOT).unwrap()),
            Ok(Folded::Snapshot)
        );
        let folded = fold.fold(&Frame::decode(PATCH).unwrap()).unwrap();
        let Folded::Patched { closed, outcomes } = folded else {
            panic!("patched")
        };
        assert_eq!(closed[0].net_pnl, -108_141_232_449_579_150);
        assert_eq!(outcomes[0].outcome, Outcome::Succeeded);
        let state = fold.state().unwrap();
        assert_eq!(state.open_positions.len(), 1);
        assert!(state.operations.is_empty());
        assert_eq!(state.account_revision, 3);
        // The balance rose by exactly margin + net PnL (§5.3 cross-check).
        assert_eq!(
            state.balance as i128 - 234_249_163_328_500_998_503,
            10_000_000_000_000_000_000 + closed[0].net_pnl
        );
    }

    /// A key is active until its expiry by the exchange's clock (the indexed time), not this
    /// machine's: the same snapshot read a day later is still the exchange's word.
    #[test]
    fn a_session_key_is_active_by_the_exchanges_clock() {
        let mut fold = AccountFold::new(wallet());
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let mut state = fold.state().unwrap().clone();
        assert_eq!(state.active_session_keys().count(), 1);
        state.indexed_through_timestamp = 1_794_285_240;
        assert_eq!(
            state.active_session_keys().count(),
            0,
            "expired at its expiry"
        );
        state.indexed_through_timestamp = 1_794_285_239;
        assert_eq!(state.active_session_keys().count(), 1);
    }

    #[test]
    fn frames_round_trip_through_the_wire_form() {
        for text in [SNAPSHOT, PATCH] {
            let frame = Frame::decode(text).unwrap();
            assert_eq!(Frame::decode(&frame.to_json()).unwrap(), frame);
        }
    }

    #[test]
    fn replayed_or_gapped_patches_are_refused_and_change_nothing() {
        let mut fold = AccountFold::new(wallet());
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let patch = Frame::decode(PATCH).unwrap();
        fold.fold(&patch).unwrap();
        let held = fold.state().unwrap().clone();
        assert!(matches!(
            fold.fold(&patch),
            Err(SyncError::Gap { base: 2, held: 3 })
        ));
        assert_eq!(fold.state().unwrap(), &held);
        // An older snapshot is stale, not an error.
        assert_eq!(
            fold.fold(&Frame::decode(SNAPSHOT).unwrap()),
            Ok(Folded::StaleSnapshot)
        );
    }

    #[test]
    fn inconsistent_frames_are_refused() {
        let mut fold = AccountFold::new(wallet());
        let bad_locked =
            SNAPSHOT.replace("\"locked\":\"20000000000000000000\"", "\"locked\":\"1\"");
        assert!(matches!(
            fold.fold(&Frame::decode(&bad_locked).unwrap()),
            Err(SyncError::Inconsistent(_))
        ));
        let unsorted = SNAPSHOT.replace("\"411277\"", "\"411270\"");
        assert!(matches!(
            fold.fold(&Frame::decode(&unsorted).unwrap()),
            Err(SyncError::Inconsistent(_))
        ));
        let foreign = SNAPSHOT.replace(
            "0xa9f28db0543b215eb2705740f10258c3d000cefd",
            "0x14791697260e4c9a71f18484c9f997b308e59325",
        );
        assert!(matches!(
            fold.fold(&Frame::decode(&foreign).unwrap()),
            Err(SyncError::ForeignAddress { .. })
        ));
        assert!(matches!(
            fold.fold(&Frame::decode(PATCH).unwrap()),
            Err(SyncError::NoSnapshot)
        ));
        fold.fold(&Frame::decode(SNAPSHOT).unwrap()).unwrap();
        let unknown_removal = PATCH.replace(
            "\"removedPositionIds\":[\"411276\"]",
            "\"removedPositionIds\":[\"1\"]",
        );
        assert!(matches!(
            fold.fold(&Frame::decode(&unknown_removal).unwrap()),
            Err(SyncError::OutOfSync(_))
        ));
    }

    #[test]
    fn malformed_frames_are_errors_not_panics() {
        for bad in [
            "",
            "{}",
            "[]",
            "null",
            "{\"baseAccountRevision\":1}",
            &SNAPSHOT.replace("\"881\"", "\"x\""),
        ] {
            assert!(Frame::decode(bad).is_err(), "{bad}");
        }
    }
}
