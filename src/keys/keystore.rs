//! Web3 Secret Storage (v3) files, the format geth and Foundry (`cast wallet new`) write:
//! the session key's fallback store, and the owner's own wallet file.
//!
//! The file is checked against the format before `eth-keystore` sees it: that crate panics on
//! some malformed parameters (short IV or derived key) and would let a hostile `n` allocate
//! without bound; and its parse errors can echo file content, which we never show.

use std::path::Path;

use alloy_primitives::{B256, hex};
use alloy_signer_local::{LocalSignerError, PrivateKeySigner};
use serde::Deserialize;

use super::{KeyError, Passphrase, files};
use crate::protocol::eip712::WalletSigner;

/// scrypt memory is 128·r·n bytes; geth's "standard" setting (n = 2^18, r = 8) needs 256 MiB.
/// Refuse more than 1 GiB rather than let a file exhaust memory.
const MAX_SCRYPT_BYTES: u64 = 1 << 30;
/// PBKDF2 rounds: geth uses 262144; a bound keeps a hostile file from spinning for hours.
const MAX_PBKDF2_ROUNDS: u64 = 10_000_000;

/// Encrypt `secret` into `dir/name` (replacing it atomically, mode 0600).
pub(super) fn write(
    dir: &Path,
    name: &str,
    secret: &B256,
    passphrase: &Passphrase,
) -> Result<(), KeyError> {
    // eth-keystore creates the file itself (with the umask's mode), so it writes to a temp name
    // inside our 0700 directory and `publish` tightens the mode before the rename.
    let temp = files::temp_name(name);
    // rand 0.8's thread_rng: alloy-signer-local's bound needs rand 0.8 traits.
    let encrypted = PrivateKeySigner::encrypt_keystore(
        dir,
        &mut rand::thread_rng(),
        secret.as_slice(),
        passphrase.expose(),
        Some(&temp),
    );
    match encrypted {
        Ok(_) => Ok(files::publish(dir, &temp, name)?),
        Err(err) => {
            files::discard(dir, &temp);
            Err(describe(&err, dir))
        }
    }
}

/// Decrypt the keystore at `path` to its 32-byte secret.
pub(super) fn read(path: &Path, passphrase: &Passphrase) -> Result<B256, KeyError> {
    let bytes = std::fs::read(path).map_err(|e| files::io_error("read", path, &e))?;
    check_format(&bytes).map_err(|why| KeyError::Corrupt(format!("{}: {why}", path.display())))?;
    let signer = PrivateKeySigner::decrypt_keystore(path, passphrase.expose())
        .map_err(|e| describe(&e, path))?;
    Ok(signer.to_bytes())
}

/// The owner's own keystore file (e.g. from Foundry `cast wallet new` or geth), for signing
/// RegisterSessionKey and WithdrawToCore. An empty passphrase is allowed: such files exist.
pub fn load_owner_keystore(path: &Path, passphrase: &Passphrase) -> Result<WalletSigner, KeyError> {
    let secret = read(path, passphrase)?;
    WalletSigner::from_bytes(&secret).map_err(|_| {
        KeyError::Corrupt(format!(
            "{}: the decrypted key is not a valid secp256k1 key",
            path.display()
        ))
    })
}

/// Reword the signer crate's errors: eth-keystore's JSON errors may quote the file, so only
/// the kind of failure is kept. eth-keystore is not a direct dependency (alloy does not
/// re-export it), so its one variant we must tell apart, the MAC check, is matched by `Display`.
fn describe(err: &LocalSignerError, path: &Path) -> KeyError {
    let file = path.display();
    match err {
        LocalSignerError::EthKeystoreError(inner) => {
            let text = inner.to_string();
            if text == "Mac Mismatch" {
                KeyError::WrongPassphrase
            } else if let Some(reason) = text.strip_prefix("IO: ") {
                KeyError::Io(format!("cannot access keystore {file}: {reason}"))
            } else {
                KeyError::Corrupt(format!("{file}: unusable keystore"))
            }
        }
        LocalSignerError::IoError(e) => files::io_error("access keystore", path, e).into(),
        LocalSignerError::EcdsaError(_) => KeyError::Corrupt(format!(
            "{file}: the decrypted key is not a valid secp256k1 key"
        )),
        _ => KeyError::Corrupt(format!("{file}: unusable keystore")),
    }
}

#[derive(Deserialize)]
struct Shape {
    version: u64,
    crypto: CryptoShape,
}

#[derive(Deserialize)]
struct CryptoShape {
    cipher: String,
    cipherparams: IvShape,
    ciphertext: String,
    kdf: String,
    kdfparams: KdfShape,
    mac: String,
}

#[derive(Deserialize)]
struct IvShape {
    iv: String,
}

#[derive(Deserialize)]
struct KdfShape {
    dklen: u64,
    salt: String,
    n: Option<u64>,
    r: Option<u64>,
    p: Option<u64>,
    c: Option<u64>,
    prf: Option<String>,
}

/// Check the file is a v3 keystore eth-keystore can decrypt safely. The reason names fields
/// and limits only, never values.
fn check_format(bytes: &[u8]) -> Result<(), String> {
    let shape: Shape = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "not a Web3 Secret Storage v3 keystore (JSON {:?} error at line {} column {})",
            e.classify(),
            e.line(),
            e.column()
        )
    })?;
    if shape.version != 3 {
        return Err(format!(
            "keystore version {} is not supported (only 3)",
            shape.version
        ));
    }
    check_crypto(&shape.crypto)
}

fn check_crypto(crypto: &CryptoShape) -> Result<(), String> {
    if crypto.cipher != "aes-128-ctr" {
        return Err("cipher must be aes-128-ctr".into());
    }
    check_hex_len("cipherparams.iv", &crypto.cipherparams.iv, Some(16))?;
    check_hex_len("ciphertext", &crypto.ciphertext, Some(32))?;
    check_hex_len("mac", &crypto.mac, Some(32))?;
    check_hex_len("kdfparams.salt", &crypto.kdfparams.salt, None)?;
    // eth-keystore slices the derived key at [16..32].
    if !(32..=64).contains(&crypto.kdfparams.dklen) {
        return Err("kdfparams.dklen must be between 32 and 64".into());
    }
    match crypto.kdf.as_str() {
        "scrypt" => check_scrypt(&crypto.kdfparams),
        "pbkdf2" => check_pbkdf2(&crypto.kdfparams),
        _ => Err("kdf must be scrypt or pbkdf2".into()),
    }
}

fn check_scrypt(params: &KdfShape) -> Result<(), String> {
    let (Some(n), Some(r), Some(p)) = (params.n, params.r, params.p) else {
        return Err("scrypt needs kdfparams n, r and p".into());
    };
    // eth-keystore recovers log2(n) through f32, exact only for powers of two.
    if n < 2 || !n.is_power_of_two() {
        return Err("scrypt n must be a power of two".into());
    }
    if r == 0 || p == 0 || u32::try_from(r).is_err() || u32::try_from(p).is_err() {
        return Err("scrypt r and p must be positive 32-bit numbers".into());
    }
    let memory = 128u64.saturating_mul(r).saturating_mul(n);
    if memory > MAX_SCRYPT_BYTES || p > 16 {
        return Err("scrypt parameters exceed the 1 GiB / p ≤ 16 limit".into());
    }
    Ok(())
}

fn check_pbkdf2(params: &KdfShape) -> Result<(), String> {
    if params.prf.as_deref() != Some("hmac-sha256") {
        return Err("pbkdf2 prf must be hmac-sha256".into());
    }
    match params.c {
        Some(c) if (1..=MAX_PBKDF2_ROUNDS).contains(&c) => Ok(()),
        _ => Err(format!(
            "pbkdf2 c must be between 1 and {MAX_PBKDF2_ROUNDS}"
        )),
    }
}

fn check_hex_len(field: &str, text: &str, len: Option<usize>) -> Result<(), String> {
    // eth-keystore's hex decoder takes no 0x prefix, so neither do we.
    let bytes = if text.starts_with("0x") {
        None
    } else {
        hex::decode(text).ok()
    };
    match (bytes, len) {
        (Some(b), Some(want)) if b.len() == want => Ok(()),
        (Some(b), None) if !b.is_empty() => Ok(()),
        (_, Some(want)) => Err(format!("{field} must be {want} bytes of hex")),
        (_, None) => Err(format!("{field} must be non-empty hex")),
    }
}
