//! Session-key storage and the owner's keystore.
//!
//! A session key's secret lives in the OS keyring when one works, else in an encrypted
//! Web3 Secret Storage (v3) file under `<data_dir>/keys/`. Next to it, a metadata file
//! (addresses, times, backend; never a secret) lets `key show` and the expiry checks run
//! without unlocking anything.
//!
//! No secret leaves this module in readable form: errors from the keyring and keystore crates
//! are reworded here before they are returned (some of theirs carry raw bytes or echo input),
//! and [`Passphrase`] has a redacted `Debug` and no `Display`.

mod keystore;
mod os_keyring;
mod prompt;
mod session;
#[cfg(test)]
mod tests;

use std::fmt;

use crate::store::private_files as files;

use alloy_primitives::Address;
use serde::{Deserialize, Serialize};

pub(crate) use keystore::{MIN_SCRYPT_LOG_N, ScryptCost};
pub use keystore::{check_keystore_file, create_owner_keystore, load_owner_keystore};
pub(crate) use prompt::{prompt_new_passphrase, prompt_passphrase};
pub use session::SessionKeys;

/// The environment variable that holds the session keystore's passphrase for automation.
pub(crate) const PASSPHRASE_ENV: &str = "PAPERTRADE_TUI_PASSPHRASE";
/// The environment variable that holds the owner keystore's passphrase for automation.
pub(crate) const OWNER_PASSPHRASE_ENV: &str = "PAPERTRADE_TUI_OWNER_PASSPHRASE";

/// Session keys last 30 days (§4.7).
pub const SESSION_TTL_SECS: u64 = 30 * 86_400;
/// Renew when less than this remains: one intent TTL plus a minute (§4.7).
pub const RENEW_WITHIN_SECS: u64 = 61 * 60;

/// Where a session key's secret is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The OS credential store (Secret Service on Linux).
    Keyring,
    /// An encrypted Web3 Secret Storage file in the data directory.
    Keystore,
}

impl Backend {
    /// The short name used by `--key-backend` and in JSON output.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Backend::Keyring => "keyring",
            Backend::Keystore => "keystore",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Keyring => "OS keyring",
            Backend::Keystore => "encrypted keystore file",
        })
    }
}

/// A keystore passphrase. Its `Debug` is redacted, it has no `Display` and no `Clone` (so no
/// stray copies), and its memory is overwritten when it is dropped.
pub struct Passphrase(String);

impl Passphrase {
    pub fn new(text: String) -> Self {
        Self(text)
    }

    /// The passphrase in `var`, if that is set and not empty. An empty value counts as unset so
    /// that `VAR=` in a script falls back to the prompt instead of encrypting with "".
    pub(crate) fn from_env(var: &str) -> Option<Self> {
        let text = std::env::var(var).ok()?;
        if text.is_empty() {
            None
        } else {
            Some(Self(text))
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An empty passphrase to be typed into one character at a time (the UI's masked field).
    /// Its buffer is allocated once, so typing never leaves reallocated copies behind.
    pub fn typing() -> Self {
        Self(String::with_capacity(Self::TYPED_MAX))
    }

    /// The longest passphrase the UI's field takes, in bytes.
    pub const TYPED_MAX: usize = 256;

    /// Add a typed character; `false` (and nothing added) when the field is full.
    pub fn push(&mut self, c: char) -> bool {
        if self.0.len() + c.len_utf8() > Self::TYPED_MAX {
            return false;
        }
        self.0.push(c);
        true
    }

    /// Remove the last typed character.
    pub fn pop(&mut self) {
        self.0.pop();
    }

    /// How many characters were typed (what a masked field may show).
    pub fn chars(&self) -> usize {
        self.0.chars().count()
    }

    /// The text, for the keystore crypto only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Passphrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Passphrase(<redacted>)")
    }
}

/// Whether two typed passphrases agree (the "type it again" check).
impl PartialEq for Passphrase {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Passphrase {}

impl Drop for Passphrase {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

/// A secret held as text (the hex key on its way to or from the keyring), wiped on drop.
pub(crate) struct SecretText(String);

impl SecretText {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl Drop for SecretText {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

/// Overwrite a string's whole buffer (capacity, not just length) with zeros. Best effort
/// without a zeroize dependency: `black_box` keeps the compiler from dropping the stores as
/// dead, but copies made earlier by reallocation are out of reach.
fn wipe(text: &mut String) {
    let mut bytes = std::mem::take(text).into_bytes();
    let capacity = bytes.capacity();
    bytes.clear();
    bytes.resize(capacity, 0);
    std::hint::black_box(&bytes);
}

/// What is known about a stored session key without unlocking it. Holds no secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyMeta {
    /// The wallet the session key trades for.
    pub owner: Address,
    /// The session key's own address.
    pub key: Address,
    /// When the key was generated (unix seconds).
    pub created_at: u64,
    /// The local expiry (unix seconds); the registered one on the exchange may differ.
    pub expiry: u64,
    /// Where the secret is.
    pub backend: Backend,
}

/// Why a key operation failed. No message ever contains a key, a passphrase or raw secret
/// bytes; the keyring and keystore crates' errors are reworded before they get here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "no OS keyring is reachable here (no Secret Service on the session bus, as on headless \
         Linux, SSH or CI); use `--key-backend keystore` to keep the key in an encrypted file"
    )]
    NoKeyring,
    #[error("the OS keyring failed: {0}")]
    Keyring(String),
    #[error("wrong passphrase for the keystore file")]
    WrongPassphrase,
    #[error(
        "the session key's secret is missing from its backend (keyring entry or keystore file \
         gone); clear the key and create a new one"
    )]
    NotFound,
    #[error("{0}")]
    Io(String),
    #[error("corrupt key data: {0}")]
    Corrupt(String),
    #[error(
        "a passphrase is required and there is no terminal to ask on; set it in the environment \
         ({PASSPHRASE_ENV} for the session keystore, {OWNER_PASSPHRASE_ENV} for the owner's)"
    )]
    PassphraseRequired,
    #[error("the passphrase is empty; an encrypted keystore needs a non-empty one")]
    EmptyPassphrase,
    #[error("the two passphrases typed differ; nothing was written")]
    PassphraseMismatch,
}

/// File errors already say what was done to which path (see `private_files::io_error`).
impl From<std::io::Error> for KeyError {
    fn from(e: std::io::Error) -> Self {
        KeyError::Io(e.to_string())
    }
}
