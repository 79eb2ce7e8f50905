//! Web3 Secret Storage (v3) files, the format geth and Foundry (`cast wallet new`) write:
//! the session key's fallback store, the owner's own wallet file, and the practice owner
//! wallet `key owner-new` makes.
//!
//! The file is checked against the format before `eth-keystore` sees it: that crate panics on
//! some malformed parameters (short IV or derived key) and would let a hostile `n` allocate
//! without bound; and its parse errors can echo file content, which we never show.

use std::path::Path;

use alloy_primitives::{Address, B256, hex};
use alloy_signer_local::{LocalSignerError, PrivateKeySigner};
use serde::Deserialize;

use super::{KeyError, Passphrase, files};
use crate::protocol::eip712::WalletSigner;

/// scrypt memory is 128·r·n bytes; geth's "standard" setting (n = 2^18, r = 8) needs 256 MiB.
/// Refuse more than 1 GiB rather than let a file exhaust memory.
const MAX_SCRYPT_BYTES: u64 = 1 << 30;
/// A v3 keystore is about 500 bytes (geth and Foundry add an address or a name); anything past
/// this is not one.
pub const MAX_KEYSTORE_BYTES: u64 = 8 * 1024;
/// PBKDF2 rounds: geth uses 262144; a bound keeps a hostile file from spinning for hours.
const MAX_PBKDF2_ROUNDS: u64 = 10_000_000;

/// geth's `StandardScryptN` (2^18) with `StandardScryptP` (1) and r = 8: what geth and Foundry
/// write, so a stolen session keystore costs an attacker as much per guess as their files do.
pub const STANDARD_SCRYPT_LOG_N: u8 = 18;
/// Below 2^10 a guess costs next to nothing; this floor exists for tests, not for real keys.
pub const MIN_SCRYPT_LOG_N: u8 = 10;
/// 2^20 at r = 8 is 1 GiB, the most [`read`] accepts back.
pub const MAX_SCRYPT_LOG_N: u8 = 20;
/// Overrides the scrypt cost of newly written keystores, session and `key owner-new` (log2 of
/// n). Existing files keep the parameters written in them.
pub const SCRYPT_LOG_N_ENV: &str = "PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N";
const SCRYPT_R: u32 = 8;
const SCRYPT_P: u32 = 1;

/// The scrypt cost a new keystore is written with: log2(n), r = 8, p = 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScryptCost {
    log_n: u8,
}

impl Default for ScryptCost {
    fn default() -> Self {
        Self {
            log_n: STANDARD_SCRYPT_LOG_N,
        }
    }
}

impl ScryptCost {
    pub fn new(log_n: u8) -> Result<Self, String> {
        if (MIN_SCRYPT_LOG_N..=MAX_SCRYPT_LOG_N).contains(&log_n) {
            Ok(Self { log_n })
        } else {
            Err(format!(
                "the keystore scrypt cost log2(n) must be {MIN_SCRYPT_LOG_N} to \
                 {MAX_SCRYPT_LOG_N} (standard {STANDARD_SCRYPT_LOG_N}), got {log_n}"
            ))
        }
    }

    /// The cost `$PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N` asks for, else the standard one.
    pub(crate) fn from_env() -> Result<Self, String> {
        Self::parse(std::env::var(SCRYPT_LOG_N_ENV).ok().as_deref())
    }

    /// `text` is the variable's value; unset or empty means the standard cost.
    pub fn parse(text: Option<&str>) -> Result<Self, String> {
        match text.map(str::trim) {
            None | Some("") => Ok(Self::default()),
            Some(t) => t
                .parse::<u8>()
                .map_err(|_| format!("{SCRYPT_LOG_N_ENV}: {t:?} is not a whole number"))
                .and_then(|n| Self::new(n).map_err(|e| format!("{SCRYPT_LOG_N_ENV}: {e}"))),
        }
    }

    #[cfg(test)]
    pub(crate) fn log_n(&self) -> u8 {
        self.log_n
    }
}

/// Encrypt `secret` into `dir/name` (replacing it atomically, mode 0600) at `cost`.
pub(super) fn write(
    dir: &Path,
    name: &str,
    secret: &B256,
    passphrase: &Passphrase,
    cost: ScryptCost,
) -> Result<(), KeyError> {
    let json = encrypt(secret, passphrase, cost)?;
    Ok(files::write_atomic(dir, name, json.as_bytes())?)
}

/// A Web3 Secret Storage v3 document, as eth-keystore's `encrypt_key` builds it but with the
/// scrypt cost chosen here: that function hard-codes n = 2^13. Decryption stays eth-keystore's
/// (through `read`), so every file written here is checked by the reader everyone else uses.
fn encrypt(secret: &B256, passphrase: &Passphrase, cost: ScryptCost) -> Result<String, KeyError> {
    use ctr::cipher::{KeyIvInit, StreamCipher};
    use rand::Rng;
    // rand 0.8's thread_rng: a CSPRNG seeded from the OS, as eth-keystore uses.
    let mut rng = rand::thread_rng();
    let salt: [u8; 32] = rng.r#gen();
    let iv: [u8; 16] = rng.r#gen();
    let mut id: [u8; 16] = rng.r#gen();
    let params = scrypt::Params::new(cost.log_n, SCRYPT_R, SCRYPT_P)
        .map_err(|_| KeyError::Corrupt("invalid scrypt parameters".into()))?;
    let mut derived = [0u8; 32];
    scrypt::scrypt(passphrase.expose().as_bytes(), &salt, &params, &mut derived)
        .map_err(|_| KeyError::Corrupt("scrypt output length".into()))?;
    let mut ciphertext = secret.0;
    ctr::Ctr128BE::<aes::Aes128>::new(derived[..16].into(), (&iv).into())
        .apply_keystream(&mut ciphertext);
    let mac = alloy_primitives::keccak256([&derived[16..], &ciphertext[..]].concat());
    derived.fill(0);
    std::hint::black_box(&derived);
    // A random (version 4) UUID, as the format asks for; it identifies nothing.
    id[6] = (id[6] & 0x0f) | 0x40;
    id[8] = (id[8] & 0x3f) | 0x80;
    let h = hex::encode(id);
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    );
    let doc = serde_json::json!({
        "crypto": {
            "cipher": "aes-128-ctr",
            "cipherparams": {"iv": hex::encode(iv)},
            "ciphertext": hex::encode(ciphertext),
            "kdf": "scrypt",
            "kdfparams": {
                "dklen": 32,
                "n": 1u64 << cost.log_n,
                "p": SCRYPT_P,
                "r": SCRYPT_R,
                "salt": hex::encode(salt),
            },
            "mac": hex::encode(mac),
        },
        "id": uuid,
        "version": 3,
    });
    Ok(serde_json::to_string(&doc).expect("JSON"))
}

/// Decrypt the keystore at `path` to its 32-byte secret. Only a regular file of at most
/// [`MAX_KEYSTORE_BYTES`] is read (never a device or a FIFO), and it is checked before
/// eth-keystore, which takes a path, reads it again: only someone who can already replace the
/// user's keystore could swap it in between.
pub(super) fn read(path: &Path, passphrase: &Passphrase) -> Result<B256, KeyError> {
    let bytes = files::read_small(path, MAX_KEYSTORE_BYTES)?;
    check_format(&bytes).map_err(|why| KeyError::Corrupt(format!("{}: {why}", path.display())))?;
    let signer = PrivateKeySigner::decrypt_keystore(path, passphrase.expose())
        .map_err(|e| describe(&e, path))?;
    Ok(signer.to_bytes())
}

/// Whether `path` holds something [`read`] could decrypt (a small regular file in the v3
/// format), checked before anyone is asked for its passphrase.
pub fn check_keystore_file(path: &Path) -> Result<(), KeyError> {
    let bytes = files::read_small(path, MAX_KEYSTORE_BYTES)?;
    check_format(&bytes).map_err(|why| KeyError::Corrupt(format!("{}: {why}", path.display())))
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

/// A fresh owner wallet, written as a Web3 Secret Storage file at exactly `path` at `cost` (the
/// practice owner of `key owner-new`; any wallet's keystore serves the same). Nothing existing
/// at `path` is ever replaced ([`files::write_new`]); missing folders are created 0700, the
/// file 0600. The secret leaves only encrypted; the wallet's address is returned.
pub fn create_owner_keystore(
    path: &Path,
    passphrase: &Passphrase,
    cost: ScryptCost,
) -> Result<Address, KeyError> {
    if passphrase.is_empty() {
        return Err(KeyError::EmptyPassphrase);
    }
    let wallet = WalletSigner::random();
    let mut secret = wallet.secret_bytes();
    let json = encrypt(&secret, passphrase, cost);
    secret.0.fill(0);
    std::hint::black_box(&secret);
    files::write_new(path, json?.as_bytes())?;
    Ok(wallet.address())
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
