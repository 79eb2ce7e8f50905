//! EIP-712 intents (§4): the three domains, the typed structs, digests, intent ids, the relayer
//! bodies of §3.10/§3.11 and the wallet-facing `eth_signTypedData_v4` JSON of §4.5.
//!
//! Who may sign what is enforced by the type system: [`SessionSigner::sign`] accepts only
//! [`SessionIntent`]s (open, close, cancel), [`WalletSigner::sign`] only [`WalletIntent`]s.
//! A session key signs a close (this compiles and runs):
//!
//! ```
//! use papertrade_tui::protocol::eip712::{Close, SessionSigner};
//! use alloy_primitives::{Address, U256};
//! let key = SessionSigner::random();
//! let close = Close { user: Address::ZERO, positionIds: vec![U256::from(7u8)], nonce: U256::from(1u8), deadline: 1 };
//! let signed = key.sign(close).unwrap();
//! assert_eq!(signed.signer(), key.address());
//! ```
//!
//! The same key signing a withdrawal does not compile:
//!
//! ```compile_fail
//! use papertrade_tui::protocol::eip712::{SessionSigner, WithdrawToCore};
//! use alloy_primitives::{Address, U256};
//! let key = SessionSigner::random();
//! let withdraw = WithdrawToCore { user: Address::ZERO, amount: U256::from(10_000_000u64), nonce: U256::from(1u8), deadline: 1 };
//! let _ = key.sign(withdraw);
//! ```
//!
//! ```compile_fail
//! use papertrade_tui::protocol::eip712::{SessionSigner, Stake};
//! use alloy_primitives::{Address, U256};
//! let key = SessionSigner::random();
//! let _ = key.sign(Stake { user: Address::ZERO, amount: U256::from(1u8), nonce: U256::from(1u8), deadline: 1 });
//! ```

mod domain;
mod field;
mod intents;
mod signed;
mod signer;

pub use domain::Domain;
pub(crate) use field::FieldValue;
pub use field::Strictness;
pub use intents::{
    CancelIntent, Claim, Close, Distribute, Intent, OpenPosition, RegisterSessionKey,
    SessionIntent, Stake, Unstake, WalletIntent, WithdrawToCore,
};
pub(crate) use intents::{IntentKind, MAX_CLOSE_IDS, MIN_WITHDRAW_USDC, NonceLane};
pub(crate) use signed::SignedError;
pub use signed::{
    INTENT_ID_TAG, Signed, intent_id, parse_signature, sign_request_json, typed_data_json,
};
pub use signer::{SessionSigner, WalletSigner};
pub(crate) use signer::{SignError, is_read_only, lock_read_only, signers_constructed};
