//! The OS keyring through keyring-core's default store.
//!
//! Entries are made with `keyring_core::Entry`, not the `keyring` facade's `Entry`: the facade
//! refuses every entry once its own native-store setup failed, even after another store (the
//! mock, in tests) was made the default. The facade is used only to set the native store up,
//! once per process. These calls block (zbus runs its own executor): call them before the UI
//! starts or from `spawn_blocking`.

use alloy_primitives::{Address, B256, hex};

use super::{KeyError, SecretText};

const SERVICE: &str = "papertrade-tui";

/// Whether a credential store is usable. The first call connects to the platform store (fast
/// when there is none: no session bus fails at once) and installs it as keyring-core's default;
/// whatever default is set afterwards is what entries use.
pub(super) fn available() -> bool {
    let _ = keyring::Entry::store_status();
    keyring_core::get_default_store().is_some()
}

/// The entry's user name: one entry per owner, so a new key replaces the old.
pub(super) fn user(owner: Address) -> String {
    format!("session-{owner:#x}")
}

fn entry(owner: Address) -> Result<keyring_core::Entry, KeyError> {
    keyring_core::Entry::new(SERVICE, &user(owner)).map_err(describe)
}

/// Store the secret as lowercase hex (no prefix), replacing any previous one.
pub(super) fn store(owner: Address, secret: &B256) -> Result<(), KeyError> {
    let text = SecretText(hex::encode(secret));
    entry(owner)?.set_password(text.as_str()).map_err(describe)
}

/// The stored secret; `NotFound` if the entry is gone.
pub(super) fn fetch(owner: Address) -> Result<B256, KeyError> {
    let text = SecretText(entry(owner)?.get_password().map_err(describe)?);
    parse_secret(text.as_str())
}

/// Delete the entry; `false` if there was none.
pub(super) fn delete(owner: Address) -> Result<bool, KeyError> {
    match entry(owner)?.delete_credential() {
        Ok(()) => Ok(true),
        Err(keyring_core::Error::NoEntry) => Ok(false),
        Err(err) => Err(describe(err)),
    }
}

/// 64 hex digits (an optional 0x tolerated). The hex decoder's own error names the offending
/// character, so it is replaced by a fixed message.
pub(super) fn parse_secret(text: &str) -> Result<B256, KeyError> {
    let digits = text.trim().trim_start_matches("0x");
    let mut secret = B256::ZERO;
    if digits.len() != 64 || hex::decode_to_slice(digits, secret.as_mut_slice()).is_err() {
        return Err(KeyError::Corrupt(
            "the keyring entry is not a 32-byte hex key".into(),
        ));
    }
    Ok(secret)
}

/// Reword keyring errors. Some variants carry the stored bytes (`BadEncoding`,
/// `BadDataFormat`) or other entries (`Ambiguous`), so each is described by what it means;
/// only platform reasons (D-Bus errors, which hold no secret) are passed on.
fn describe(err: keyring_core::Error) -> KeyError {
    use keyring_core::Error as E;
    match err {
        E::NoEntry => KeyError::NotFound,
        E::NoDefaultStore => KeyError::NoKeyring,
        E::PlatformFailure(reason) => KeyError::Keyring(reason.to_string()),
        E::NoStorageAccess(reason) => KeyError::Keyring(format!(
            "no access to the credential store (locked?): {reason}"
        )),
        E::BadEncoding(_) | E::BadDataFormat(..) => {
            KeyError::Corrupt("the keyring entry is not valid text".into())
        }
        E::Ambiguous(_) => KeyError::Keyring("several keyring entries match this key".into()),
        E::TooLong(name, limit) => KeyError::Keyring(format!(
            "{name} is longer than the store's limit of {limit}"
        )),
        E::Invalid(name, reason) => KeyError::Keyring(format!("invalid {name}: {reason}")),
        E::BadStoreFormat(reason) | E::NotSupportedByStore(reason) => KeyError::Keyring(reason),
        _ => KeyError::Keyring("unexpected credential store error".into()),
    }
}
