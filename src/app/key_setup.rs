//! What the session-key panel is made of: the key as the header shows it, the panel's steps, the
//! jobs it hands the runtime and what they come to. The steps themselves are in `key_flow`. A
//! typed passphrase lives in a [`Passphrase`] (redacted, wiped on drop, never drawn) until it
//! moves into the one [`KeyJob`] that uses it.

use std::path::PathBuf;

use alloy_primitives::Address;

use crate::keys::{KeyMeta, Passphrase};

use super::submission::SubmitOutcome;

/// The session key as the header shows it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyStatus {
    pub address: Address,
    pub backend: &'static str,
    pub local_expiry: u64,
}

impl From<&KeyMeta> for KeyStatus {
    fn from(meta: &KeyMeta) -> Self {
        Self {
            address: meta.key,
            backend: meta.backend.label(),
            local_expiry: meta.expiry,
        }
    }
}

/// What the runtime is asked to do with the session key.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyJob {
    /// Generate and store a new key; the passphrase only when it goes to a keystore file and
    /// the environment holds none.
    Generate { passphrase: Option<Passphrase> },
    /// Register (or renew) the stored key, signed with the owner's keystore file at `path`
    /// (as typed: `~/` is the home directory).
    RegisterWithKeystore {
        path: String,
        passphrase: Passphrase,
    },
    /// Write the registration's typed data for an external wallet to sign.
    PrepareExternal,
    /// Send the prepared registration with the pasted signature (refused unless it recovers to
    /// the owner).
    RegisterWithSignature { signature: String },
    /// Remove the stored key from every backend.
    Clear,
}

/// What a [`KeyJob`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOutcome {
    /// A new key is stored, and the runtime signs with it from now on.
    Generated(KeyStatus),
    /// The `eth_signTypedData_v4` request is in this file.
    TypedData {
        path: PathBuf,
    },
    /// A registration went out (or was refused): what the stream should follow, and the key's
    /// local expiry now.
    Registration {
        report: SubmitOutcome,
        local_expiry: u64,
    },
    Cleared,
    Failed(String),
}

/// Which job a panel waits for (where a failure returns to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    Generate,
    Keystore,
    TypedData,
    Signature,
    Clear,
}

/// The owner's keystore unlocked in two steps, the same for the key panel's registration and
/// the Fund tab's deposit and withdrawal: its path (the last one typed, to confirm or edit),
/// then its passphrase. Typed through `field` (`OwnerUnlock::update`).
#[derive(Debug)]
pub enum OwnerUnlock {
    Path(String),
    Passphrase { path: String, typing: Passphrase },
}

/// Where the panel is.
#[derive(Debug)]
pub enum KeyStep {
    Menu,
    /// A new keystore's passphrase, typed twice.
    NewPassphrase {
        first: Option<Passphrase>,
        typing: Passphrase,
    },
    /// The owner's keystore: its path, then its passphrase.
    Owner(OwnerUnlock),
    /// The typed data is written; the pasted signature so far.
    Signature {
        text: String,
    },
    ConfirmClear,
    Working(Waiting),
}

/// The session-key panel while it is open.
#[derive(Debug)]
pub struct KeyPanel {
    pub step: KeyStep,
    /// The last result or refusal, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The file holding the typed data an external wallet signs, once written.
    pub typed_data: Option<PathBuf>,
}

/// What this session can do about its key, decided at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeySetup {
    /// A key store is at hand (not in watch mode, where no key material may exist).
    pub available: bool,
    /// A new key would go to a keystore file and no passphrase is in the environment: the panel
    /// asks for one.
    pub new_key_needs_passphrase: bool,
}
