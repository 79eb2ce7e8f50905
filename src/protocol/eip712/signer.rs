//! Local signers with their scope in the type: a session key signs only [`SessionIntent`]s, a
//! wallet only [`WalletIntent`]s. Neither ever prints its key.

use alloy_primitives::{Address, B256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;

use super::intents::{Intent, SessionIntent, WalletIntent};
use super::signed::Signed;
use crate::protocol::hypercore_send::{SignedSpotSend, SpotSend};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("not a valid secp256k1 private key")]
    InvalidKey,
    #[error("signing failed")]
    Failed,
    #[error("this process is read-only (--watch): nothing can be signed")]
    ReadOnly,
}

/// Set once by a read-only run (`--watch`); from then on no key can be loaded and nothing signed.
/// The command line refuses writing commands first; this is the lock behind that door.
static READ_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Make this process read-only for the rest of its life. There is no way back.
pub fn lock_read_only() {
    READ_ONLY.store(true, std::sync::atomic::Ordering::SeqCst);
}

pub fn is_read_only() -> bool {
    READ_ONLY.load(std::sync::atomic::Ordering::SeqCst)
}

fn sign_with<I: Intent>(key: &PrivateKeySigner, intent: I) -> Result<Signed<I>, SignError> {
    if is_read_only() {
        return Err(SignError::ReadOnly);
    }
    let digest = intent.eip712_signing_hash(&I::DOMAIN.eip712());
    // RFC 6979 deterministic, low-S: byte-for-byte what viem produces (§4.4).
    let signature = key.sign_hash_sync(&digest).map_err(|_| SignError::Failed)?;
    Ok(Signed::new_verified(intent, signature, key.address()))
}

/// How many signers this process has constructed: lets a test prove watch mode builds none.
static CONSTRUCTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub fn signers_constructed() -> usize {
    CONSTRUCTED.load(std::sync::atomic::Ordering::Relaxed)
}

fn counted(key: PrivateKeySigner) -> PrivateKeySigner {
    CONSTRUCTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    key
}

fn key_from_bytes(secret: &B256) -> Result<PrivateKeySigner, SignError> {
    if is_read_only() {
        return Err(SignError::ReadOnly);
    }
    PrivateKeySigner::from_bytes(secret)
        .map(counted)
        .map_err(|_| SignError::InvalidKey)
}

macro_rules! scoped_signer {
    ($(#[$doc:meta])* $name:ident, $scope:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: PrivateKeySigner,
        }

        impl $name {
            /// Use an existing 32-byte secret.
            pub fn from_bytes(secret: &B256) -> Result<Self, SignError> {
                Ok(Self { key: key_from_bytes(secret)? })
            }

            /// A fresh key from the OS random source. A read-only process never gets here (the
            /// commands that make keys are refused first); if one did, that is a bug to stop at.
            pub fn random() -> Self {
                assert!(!is_read_only(), "a read-only process must not create keys");
                Self { key: counted(PrivateKeySigner::random()) }
            }

            pub fn address(&self) -> Address {
                self.key.address()
            }

            /// The secret, for storing it (keyring or keystore). Never log or display it.
            pub fn secret_bytes(&self) -> B256 {
                self.key.to_bytes()
            }

            pub fn sign<I: $scope>(&self, intent: I) -> Result<Signed<I>, SignError> {
                sign_with(&self.key, intent)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!(stringify!($name), "({:#x})"), self.address())
            }
        }
    };
}

scoped_signer!(
    /// The session key: signs open, close and cancel; can never withdraw, stake or claim.
    SessionSigner,
    SessionIntent
);
scoped_signer!(
    /// The owner's wallet key (from an unlocked keystore): registers session keys, withdraws.
    WalletSigner,
    WalletIntent
);

impl WalletSigner {
    /// Sign a HyperCore `spotSend` (a deposit to the proxy): only the owner's wallet moves its
    /// HyperCore funds, never the session key.
    pub fn sign_spot_send(&self, send: SpotSend) -> Result<SignedSpotSend, SignError> {
        if is_read_only() {
            return Err(SignError::ReadOnly);
        }
        let signature = self
            .key
            .sign_hash_sync(&send.digest())
            .map_err(|_| SignError::Failed)?;
        Ok(SignedSpotSend::new_verified(
            send,
            signature,
            self.key.address(),
        ))
    }
}
