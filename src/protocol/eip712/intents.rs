//! The intent structs of §4.2, generated once from a single table: the `sol!` struct (hashing),
//! the JSON field order, the domain, the relayer action, the nonce lane and the signer role.

use alloy_primitives::Address;
use alloy_sol_types::{SolStruct, sol};
use serde_json::{Map, Value};

use super::domain::Domain;
use super::field::{Field, FieldValue, Strictness};

/// A close intent carries at most this many position ids (§4.2).
pub const MAX_CLOSE_IDS: usize = 12;

/// Exchange and PaperStaking keep separate nonce spaces (§4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NonceLane {
    Exchange,
    Staking,
}

/// Every intent kind, for code that picks one at run time (the `typed-data` command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntentKind {
    RegisterSessionKey,
    OpenPosition,
    Close,
    WithdrawToCore,
    Stake,
    Unstake,
    Claim,
    CancelIntent,
}

impl IntentKind {
    pub(crate) const ALL: [IntentKind; 8] = [
        IntentKind::RegisterSessionKey,
        IntentKind::OpenPosition,
        IntentKind::Close,
        IntentKind::WithdrawToCore,
        IntentKind::Stake,
        IntentKind::Unstake,
        IntentKind::Claim,
        IntentKind::CancelIntent,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IntentKind::RegisterSessionKey => "RegisterSessionKey",
            IntentKind::OpenPosition => "OpenPosition",
            IntentKind::Close => "Close",
            IntentKind::WithdrawToCore => "WithdrawToCore",
            IntentKind::Stake => "Stake",
            IntentKind::Unstake => "Unstake",
            IntentKind::Claim => "Claim",
            IntentKind::CancelIntent => "CancelIntent",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }
}

/// An EIP-712 intent the exchange understands.
pub trait Intent: SolStruct + Clone + std::fmt::Debug {
    const DOMAIN: Domain;
    /// The relayer's `action` name; `None` for intents not posted to `/intents`.
    const ACTION: Option<&'static str>;
    /// `None` for intents without a nonce (cancel).
    const LANE: Option<NonceLane>;
    /// Whether the session key (true) or the wallet (false) signs it.
    const SESSION_SIGNED: bool;

    /// Field names and values, in EIP-712 order (= hashing order = JSON order).
    fn fields(&self) -> Vec<(&'static str, FieldValue)>;
    /// Build from a JSON message object; errors name the field.
    fn from_message(message: &Map<String, Value>, strictness: Strictness) -> Result<Self, String>;
    /// The wallet the intent acts for (the owner, also for session-signed intents).
    fn user(&self) -> Address;
    /// The protocol's rules for the message's values (§4.2), beyond their types.
    fn rules(&self) -> Result<(), String>;
}

/// Intents a session key may sign: open, close, cancel. Nothing that moves funds out.
pub trait SessionIntent: Intent {}
/// Intents only the owner's wallet may sign.
pub trait WalletIntent: Intent {}

fn take<T: Field>(
    message: &Map<String, Value>,
    name: &str,
    strictness: Strictness,
) -> Result<T, String> {
    let value = message
        .get(name)
        .ok_or_else(|| format!("{name}: missing"))?;
    T::from_json(value, strictness).map_err(|e| format!("{name}: {e}"))
}

macro_rules! intents {
    ($(
        $(#[$meta:meta])*
        $name:ident { domain: $domain:ident, action: $action:expr, lane: $lane:expr, signer: $role:ident }
        { $($ty:ident $([$($dim:tt)*])? $field:ident;)* }
    )*) => {
        sol! {
            $(
                $(#[$meta])*
                #[derive(Debug, PartialEq, Eq)]
                struct $name { $($ty $([$($dim)*])? $field;)* }
            )*
        }
        $(
            impl Intent for $name {
                const DOMAIN: Domain = Domain::$domain;
                const ACTION: Option<&'static str> = $action;
                const LANE: Option<NonceLane> = $lane;
                const SESSION_SIGNED: bool = intents!(@session $role);

                fn fields(&self) -> Vec<(&'static str, FieldValue)> {
                    vec![$((stringify!($field), Field::to_field(&self.$field)),)*]
                }

                fn from_message(message: &Map<String, Value>, strictness: Strictness) -> Result<Self, String> {
                    let known = [$(stringify!($field),)*];
                    if let Some(extra) = message.keys().find(|k| !known.contains(&k.as_str())) {
                        return Err(format!("{extra}: not a field of {}", stringify!($name)));
                    }
                    Ok(Self { $($field: take(message, stringify!($field), strictness)?,)* })
                }

                fn user(&self) -> Address {
                    self.user
                }

                fn rules(&self) -> Result<(), String> {
                    self.check_rules()
                }
            }
            impl $role for $name {}
        )*
    };
    (@session SessionIntent) => { true };
    (@session WalletIntent) => { false };
}

intents! {
    /// Authorise a session key for 30 days (wallet-signed; `feeAddress` is always zero).
    RegisterSessionKey { domain: Exchange, action: Some("registerSessionKey"), lane: Some(NonceLane::Exchange), signer: WalletIntent }
    { address user; address key; uint64 expiry; address feeAddress; uint256 nonce; uint64 deadline; }

    /// Open a position; `size` is the margin in wad, not the notional.
    OpenPosition { domain: Exchange, action: Some("openPosition"), lane: Some(NonceLane::Exchange), signer: SessionIntent }
    { address user; uint32 instrumentId; bool isLong; uint128 size; uint32 leverage; bool useDebt; uint256 nonce; uint64 deadline; }

    /// Close 1..=12 whole positions.
    Close { domain: Exchange, action: Some("closePositions"), lane: Some(NonceLane::Exchange), signer: SessionIntent }
    { address user; uint256[] positionIds; uint256 nonce; uint64 deadline; }

    /// Withdraw USDC (6 dp) to the wallet's own HyperCore spot account.
    WithdrawToCore { domain: Exchange, action: Some("withdrawToCore"), lane: Some(NonceLane::Exchange), signer: WalletIntent }
    { address user; uint256 amount; uint256 nonce; uint64 deadline; }

    /// Stake PAPER (18 dp).
    Stake { domain: PaperStaking, action: Some("paperStake"), lane: Some(NonceLane::Staking), signer: WalletIntent }
    { address user; uint256 amount; uint256 nonce; uint64 deadline; }

    /// Unstake PAPER (18 dp).
    Unstake { domain: PaperStaking, action: Some("paperUnstake"), lane: Some(NonceLane::Staking), signer: WalletIntent }
    { address user; uint256 amount; uint256 nonce; uint64 deadline; }

    /// Move distributed USDC staking rewards into the exchange balance.
    Claim { domain: PaperStaking, action: Some("paperClaim"), lane: Some(NonceLane::Staking), signer: WalletIntent }
    { address user; uint256 nonce; uint64 deadline; }

    /// Cancel a queued intent. Note the uint256 deadline and the absent nonce.
    CancelIntent { domain: Cancellation, action: None, lane: None, signer: SessionIntent }
    { address user; bytes32 intentId; uint256 deadline; }

    /// Keeper-only reward distribution; kept for the signing vectors, never posted by this client.
    Distribute { domain: PaperStaking, action: None, lane: Some(NonceLane::Staking), signer: WalletIntent }
    { address user; uint256 nonce; uint64 deadline; }
}

/// Minimum withdrawal: 10 USDC (6 dp).
pub const MIN_WITHDRAW_USDC: u64 = 10_000_000;

fn nonzero_user(user: Address) -> Result<(), String> {
    if user == Address::ZERO {
        Err("user: must not be the zero address".into())
    } else {
        Ok(())
    }
}

impl RegisterSessionKey {
    fn check_rules(&self) -> Result<(), String> {
        nonzero_user(self.user)?;
        if self.key == Address::ZERO || self.key == self.user {
            return Err("key: must be a fresh session key, neither zero nor the wallet".into());
        }
        if self.feeAddress != Address::ZERO {
            return Err("feeAddress: must be the zero address".into());
        }
        if self.expiry <= self.deadline {
            return Err("expiry: must be after the deadline".into());
        }
        Ok(())
    }
}

impl OpenPosition {
    /// Margin and leverage bounds are the market's (§5.4 checks them in order, with reasons).
    fn check_rules(&self) -> Result<(), String> {
        nonzero_user(self.user)
    }
}

impl Close {
    fn check_rules(&self) -> Result<(), String> {
        nonzero_user(self.user)?;
        if self.positionIds.is_empty() || self.positionIds.len() > MAX_CLOSE_IDS {
            return Err(format!("positionIds: must hold 1 to {MAX_CLOSE_IDS} ids"));
        }
        let mut sorted = self.positionIds.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != self.positionIds.len() {
            return Err("positionIds: ids must be distinct".into());
        }
        Ok(())
    }
}

impl WithdrawToCore {
    fn check_rules(&self) -> Result<(), String> {
        nonzero_user(self.user)?;
        if self.amount < alloy_primitives::U256::from(MIN_WITHDRAW_USDC) {
            return Err(
                "amount: the minimum withdrawal is 10 USDC (10000000 at 6 decimals)".into(),
            );
        }
        Ok(())
    }
}

macro_rules! positive_amount {
    ($($t:ident),*) => {$(
        impl $t {
            fn check_rules(&self) -> Result<(), String> {
                nonzero_user(self.user)?;
                if self.amount.is_zero() {
                    return Err("amount: must be more than zero".into());
                }
                Ok(())
            }
        }
    )*};
}
positive_amount!(Stake, Unstake);

macro_rules! user_only {
    ($($t:ident),*) => {$(
        impl $t {
            fn check_rules(&self) -> Result<(), String> {
                nonzero_user(self.user)
            }
        }
    )*};
}
user_only!(Claim, CancelIntent, Distribute);
