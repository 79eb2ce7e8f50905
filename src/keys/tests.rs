//! Key storage tests. Everything that touches keyring-core's process-global default store is in
//! one test function (`keyring_backend_end_to_end`), so tests running in parallel never see
//! each other's store; the other tests force the keystore backend and use distinct owners.

use std::fs;
use std::path::Path;

use alloy_primitives::{Address, hex};
use alloy_signer_local::PrivateKeySigner;

use super::keystore::{MAX_SCRYPT_LOG_N, SCRYPT_LOG_N_ENV, STANDARD_SCRYPT_LOG_N};
use super::*;

const PASS: &str = "correct horse battery staple";
/// The cheapest allowed scrypt cost, so the suite stays fast; the standard cost has its own
/// test (`a_new_keystore_carries_geths_standard_scrypt_parameters`).
const TEST_LOG_N: u8 = MIN_SCRYPT_LOG_N;

fn keys_at(data_dir: &Path, forced: Option<Backend>) -> SessionKeys {
    SessionKeys::new(data_dir, forced).with_scrypt(ScryptCost::new(TEST_LOG_N).expect("cost"))
}

fn kdfparams(path: &Path) -> serde_json::Value {
    let file: serde_json::Value =
        serde_json::from_slice(&fs::read(path).expect("keystore file")).expect("JSON");
    file["crypto"]["kdfparams"].clone()
}

fn pass(text: &'static str) -> impl FnOnce() -> Result<Passphrase, KeyError> {
    move || Ok(Passphrase::new(text.to_string()))
}

fn never_asked() -> Result<Passphrase, KeyError> {
    panic!("the passphrase must not be asked for")
}

fn owner(byte: u8) -> Address {
    Address::repeat_byte(byte)
}

fn keystore_file(dir: &Path, owner: Address) -> std::path::PathBuf {
    dir.join("keys").join(format!("session-{owner:#x}.json"))
}

fn meta_file(dir: &Path, owner: Address) -> std::path::PathBuf {
    dir.join("keys")
        .join(format!("session-{owner:#x}.meta.json"))
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

/// The error's Display and Debug must not contain any of `secrets`.
fn assert_no_secret(err: &KeyError, secrets: &[&str]) {
    let shown = format!("{err} {err:?}");
    for secret in secrets {
        assert!(!shown.contains(secret), "error leaks a secret: {shown}");
    }
}

#[test]
fn backend_names() {
    assert_eq!(Backend::Keyring.to_string(), "OS keyring");
    assert_eq!(Backend::Keystore.to_string(), "encrypted keystore file");
    assert_eq!(Backend::Keyring.label(), "keyring");
    assert_eq!(Backend::Keystore.label(), "keystore");
    assert_eq!(
        serde_json::to_string(&Backend::Keystore).expect("json"),
        "\"keystore\""
    );
}

#[test]
fn passphrase_is_redacted() {
    let p = Passphrase::new(PASS.to_string());
    assert_eq!(format!("{p:?}"), "Passphrase(<redacted>)");
    assert!(!format!("{:?}", Some(&p)).contains("horse"));
    assert_eq!(p.expose(), PASS);
    if let Ok(path) = std::env::var("PATH")
        && !path.is_empty()
    {
        assert_eq!(
            Passphrase::from_env("PATH").map(|p| p.expose().to_string()),
            Some(path)
        );
    }
    // An unset (or empty) variable counts as absent.
    assert!(Passphrase::from_env("PAPERTRADE_TUI_TEST_SURELY_UNSET").is_none());
}

#[test]
fn keystore_round_trip_and_wrong_passphrase() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x11);
    assert_eq!(keys.preferred_backend(), Backend::Keystore);

    let (signer, meta) = keys
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    let secret_hex = hex::encode(signer.secret_bytes());
    assert_eq!(
        meta,
        KeyMeta {
            owner: who,
            key: signer.address(),
            created_at: 1_000,
            expiry: 2_000,
            backend: Backend::Keystore
        }
    );
    assert_eq!(keys.meta(who).expect("meta"), Some(meta.clone()));

    let file = fs::read_to_string(keystore_file(data.path(), who)).expect("keystore file");
    assert!(file.contains("\"version\":3") && file.contains("\"kdf\":\"scrypt\""));
    assert!(!file.contains(&secret_hex));
    let meta_text = fs::read_to_string(meta_file(data.path(), who)).expect("meta file");
    assert!(!meta_text.contains(&secret_hex));

    let (loaded, loaded_meta) = keys.load(who, pass(PASS)).expect("load").expect("stored");
    assert_eq!(loaded.address(), signer.address());
    assert_eq!(loaded_meta, meta);

    let err = keys
        .load(who, pass("not the passphrase"))
        .expect_err("wrong passphrase");
    assert_eq!(err, KeyError::WrongPassphrase);
    assert_no_secret(&err, &[&secret_hex, PASS, "not the passphrase"]);
    assert!(!format!("{signer:?}").contains(&secret_hex));
}

#[cfg(unix)]
#[test]
fn files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().expect("tempdir");
    // A directory someone made too open is tightened.
    fs::create_dir(data.path().join("keys")).expect("mkdir");
    fs::set_permissions(data.path().join("keys"), fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x12);
    keys.generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    keys.set_expiry(who, 3_000).expect("set_expiry");

    assert_eq!(mode(&data.path().join("keys")), 0o700);
    assert_eq!(mode(&keystore_file(data.path(), who)), 0o600);
    assert_eq!(mode(&meta_file(data.path(), who)), 0o600);
    // Only the two files: no temp file left behind.
    let names: Vec<_> = fs::read_dir(data.path().join("keys"))
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn fresh_dir_is_created_private() {
    let data = tempfile::tempdir().expect("tempdir");
    let nested = data.path().join("a/b");
    let keys = keys_at(&nested, Some(Backend::Keystore));
    keys.generate(owner(0x13), 2_000, 1_000, pass(PASS))
        .expect("generate");
    #[cfg(unix)]
    assert_eq!(mode(&nested.join("keys")), 0o700);
    assert_eq!(keys.dir(), nested.join("keys"));
}

/// geth's StandardScryptN/P: a stolen session keystore costs as much per guess as geth's own.
#[test]
fn a_new_keystore_carries_geths_standard_scrypt_parameters() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = SessionKeys::new(data.path(), Some(Backend::Keystore));
    let who = owner(0x1a);
    let (signer, _) = keys
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    let params = kdfparams(&keystore_file(data.path(), who));
    assert_eq!(params["n"], 262_144, "{params}");
    assert_eq!(
        (params["r"].as_u64(), params["p"].as_u64()),
        (Some(8), Some(1))
    );
    assert_eq!(params["dklen"], 32);
    let (loaded, _) = keys.load(who, pass(PASS)).expect("load").expect("stored");
    assert_eq!(loaded.address(), signer.address());
}

/// The cost is read from the file: keystores written before the change (eth-keystore's
/// n = 2^13) and at any configured cost unlock alike.
#[test]
fn keystores_of_any_cost_unlock_with_the_parameters_in_their_file() {
    let data = tempfile::tempdir().expect("tempdir");
    let who = owner(0x1b);
    let keys = SessionKeys::new(data.path(), Some(Backend::Keystore))
        .with_scrypt(ScryptCost::new(12).expect("cost"));
    let (signer, _) = keys
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    assert_eq!(kdfparams(&keystore_file(data.path(), who))["n"], 4_096);
    // The same secret as the old writer stored it, over the new file.
    let path = keystore_file(data.path(), who);
    let dir = path.parent().expect("keys dir");
    let name = path.file_name().expect("name").to_str().expect("utf-8");
    PrivateKeySigner::encrypt_keystore(
        dir,
        &mut rand::thread_rng(),
        signer.secret_bytes(),
        PASS,
        Some(name),
    )
    .expect("old-style keystore");
    assert_eq!(kdfparams(&path)["n"], 8_192);
    let (loaded, _) = keys_at(data.path(), Some(Backend::Keystore))
        .load(who, pass(PASS))
        .expect("load")
        .expect("stored");
    assert_eq!(loaded.address(), signer.address());
}

#[test]
fn the_scrypt_cost_is_bounded_and_named_in_errors() {
    assert_eq!(ScryptCost::parse(None), Ok(ScryptCost::default()));
    assert_eq!(ScryptCost::parse(Some(" ")), Ok(ScryptCost::default()));
    assert_eq!(ScryptCost::default().log_n(), STANDARD_SCRYPT_LOG_N);
    assert_eq!(ScryptCost::parse(Some("12")).map(|c| c.log_n()), Ok(12));
    for bad in ["9", "21", "x", "-1", "300"] {
        let err = ScryptCost::parse(Some(bad)).expect_err(bad);
        assert!(err.starts_with(SCRYPT_LOG_N_ENV), "{err}");
    }
    assert!(ScryptCost::new(MAX_SCRYPT_LOG_N).is_ok() && ScryptCost::new(MIN_SCRYPT_LOG_N).is_ok());
}

#[test]
fn nothing_stored() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x14);
    assert_eq!(keys.meta(who).expect("meta"), None);
    assert!(keys.load(who, never_asked).expect("load").is_none());
    assert_eq!(
        keys.set_expiry(who, 5).expect_err("no key"),
        KeyError::NotFound
    );
    // clear() may look at the keyring; with another test's mock store set it finds nothing
    // for this owner either.
    assert_eq!(keys.clear(who).expect("clear"), Vec::<Backend>::new());
    assert!(
        !data.path().join("keys").exists(),
        "reads must not create the directory"
    );
}

#[test]
fn set_expiry_and_regenerate() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x15);
    let (first, _) = keys
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    keys.set_expiry(who, 9_000).expect("set_expiry");
    assert_eq!(keys.meta(who).expect("meta").expect("stored").expiry, 9_000);

    let (second, meta) = keys
        .generate(who, 4_000, 3_000, pass("another passphrase"))
        .expect("regenerate");
    assert_ne!(first.address(), second.address());
    assert_eq!((meta.created_at, meta.expiry), (3_000, 4_000));
    let (loaded, _) = keys
        .load(who, pass("another passphrase"))
        .expect("load")
        .expect("stored");
    assert_eq!(loaded.address(), second.address());
}

#[test]
fn clear_removes_the_keystore_and_metadata() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x16);
    keys.generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");
    // A temp file a crashed write left behind is swept too.
    let stray = data
        .path()
        .join("keys")
        .join(format!(".session-{who:#x}.json.tmp-0000000000000001"));
    fs::write(&stray, b"{}").expect("stray");

    assert_eq!(keys.clear(who).expect("clear"), vec![Backend::Keystore]);
    assert!(!keystore_file(data.path(), who).exists());
    assert!(!meta_file(data.path(), who).exists());
    assert!(!stray.exists());
    assert_eq!(keys.meta(who).expect("meta"), None);
    assert_eq!(keys.clear(who).expect("clear again"), Vec::<Backend>::new());
}

#[test]
fn passphrase_problems_write_nothing() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x17);
    let err = keys
        .generate(who, 2_000, 1_000, || Err(KeyError::PassphraseRequired))
        .expect_err("no passphrase");
    assert_eq!(err, KeyError::PassphraseRequired);
    assert!(err.to_string().contains(PASSPHRASE_ENV));
    assert_eq!(
        keys.generate(who, 2_000, 1_000, pass(""))
            .expect_err("empty"),
        KeyError::EmptyPassphrase
    );
    assert_eq!(keys.meta(who).expect("meta"), None);
    assert!(!keystore_file(data.path(), who).exists());
}

#[test]
fn damaged_storage_is_reported() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), Some(Backend::Keystore));
    let who = owner(0x18);
    let (signer, meta) = keys
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("generate");

    // Metadata naming another key: the unlocked key does not match it.
    let wrong = KeyMeta {
        key: owner(0x99),
        ..meta.clone()
    };
    fs::write(
        meta_file(data.path(), who),
        serde_json::to_vec(&wrong).expect("json"),
    )
    .expect("write");
    let err = keys.load(who, pass(PASS)).expect_err("mismatch");
    assert!(matches!(err, KeyError::Corrupt(_)), "{err:?}");
    assert_no_secret(&err, &[&hex::encode(signer.secret_bytes())]);

    // Metadata of another owner.
    let foreign = KeyMeta {
        owner: owner(0x98),
        ..meta.clone()
    };
    fs::write(
        meta_file(data.path(), who),
        serde_json::to_vec(&foreign).expect("json"),
    )
    .expect("write");
    assert!(matches!(keys.meta(who), Err(KeyError::Corrupt(_))));

    fs::write(meta_file(data.path(), who), b"{not json").expect("write");
    assert!(matches!(keys.meta(who), Err(KeyError::Corrupt(_))));

    // Secret gone, metadata still there: NotFound, without asking for the passphrase.
    fs::write(
        meta_file(data.path(), who),
        serde_json::to_vec(&meta).expect("json"),
    )
    .expect("write");
    fs::remove_file(keystore_file(data.path(), who)).expect("rm");
    assert_eq!(
        keys.load(who, never_asked).expect_err("gone"),
        KeyError::NotFound
    );
}

/// A file as `cast wallet new` writes it: Web3 Secret Storage v3, scrypt.
#[test]
fn owner_keystore_from_encrypt_keystore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = [0x42u8; 32];
    let (expected, _) = PrivateKeySigner::encrypt_keystore(
        dir.path(),
        &mut rand::thread_rng(),
        secret,
        "owner pw",
        Some("owner.json"),
    )
    .expect("encrypt");
    let path = dir.path().join("owner.json");

    let wallet = load_owner_keystore(&path, &Passphrase::new("owner pw".into())).expect("load");
    assert_eq!(wallet.address(), expected.address());

    let err = load_owner_keystore(&path, &Passphrase::new("nope".into())).expect_err("wrong");
    assert_eq!(err, KeyError::WrongPassphrase);
    assert_no_secret(&err, &[&hex::encode(secret), "owner pw", "nope"]);

    let missing = load_owner_keystore(
        &dir.path().join("absent.json"),
        &Passphrase::new("x".into()),
    )
    .expect_err("missing");
    assert!(
        matches!(&missing, KeyError::Io(m) if m.contains("absent.json")),
        "{missing:?}"
    );
}

/// The Web3 Secret Storage spec's PBKDF2 test vector, with the `address` field geth adds.
#[test]
fn owner_keystore_spec_vector_pbkdf2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("geth.json");
    fs::write(
        &path,
        r#"{"address":"008aeeda4d805471df9b2a5b0f38a0c3bcba786b","crypto":{"cipher":"aes-128-ctr",
        "cipherparams":{"iv":"6087dab2f9fdbbfaddc31a909735c1e6"},
        "ciphertext":"5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46","kdf":"pbkdf2",
        "kdfparams":{"c":262144,"dklen":32,"prf":"hmac-sha256","salt":"ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"},
        "mac":"517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"},
        "id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}"#,
    )
    .expect("write");
    let wallet = load_owner_keystore(&path, &Passphrase::new("testpassword".into())).expect("load");
    assert_eq!(
        format!("{:x}", wallet.address()),
        "008aeeda4d805471df9b2a5b0f38a0c3bcba786b"
    );
}

/// Files that would make eth-keystore panic, allocate without bound, or echo their content.
#[test]
fn malformed_owner_keystores_are_refused_without_echo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret_hex = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    let valid = r#"{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"IV"},"ciphertext":"CT","kdf":"scrypt",
        "kdfparams":{"dklen":DK,"n":N,"p":1,"r":8,"salt":"00"},"mac":"MAC"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}"#;
    let fill = |iv: &str, dk: &str, n: &str| {
        valid
            .replace("IV", iv)
            .replace("CT", &"11".repeat(32))
            .replace("MAC", &"22".repeat(32))
            .replace("DK", dk)
            .replace("N", n)
    };
    let cases = [
        format!("\"{secret_hex}\""), // a raw key, quoted: serde would echo it
        format!("{{\"key\":\"{secret_hex}\"}}"), // some other JSON
        fill("00", "32", "8192"),    // IV too short: eth-keystore would panic
        fill(&"00".repeat(16), "16", "8192"), // derived key too short: would panic
        fill(&"00".repeat(16), "32", "1000"), // n not a power of two
        fill(&"00".repeat(16), "32", "4294967296"), // 2^32: memory bomb
    ];
    for (i, text) in cases.iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.json"));
        fs::write(&path, text).expect("write");
        let err = load_owner_keystore(&path, &Passphrase::new("pw".into())).expect_err("malformed");
        assert!(matches!(err, KeyError::Corrupt(_)), "case {i}: {err:?}");
        assert_no_secret(&err, &[secret_hex]);
    }
}

#[test]
fn keyring_secret_parsing() {
    let secret = [0xabu8; 32];
    let text = hex::encode(secret);
    assert_eq!(os_keyring::parse_secret(&text).expect("hex").0, secret);
    assert_eq!(
        os_keyring::parse_secret(&format!("0x{text}"))
            .expect("0x hex")
            .0,
        secret
    );
    let bad = format!("{}zz", &text[..62]);
    let err = os_keyring::parse_secret(&bad).expect_err("not hex");
    assert_no_secret(&err, &[&text[..62]]);
    assert!(os_keyring::parse_secret("abcd").is_err());
}

#[test]
fn no_terminal_means_passphrase_required() {
    // Under `cargo test` in CI there is no controlling terminal; on a developer's terminal
    // this would prompt, so it only runs when /dev/tty cannot be opened.
    if fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
    {
        return;
    }
    assert_eq!(
        prompt_passphrase("passphrase: ").expect_err("no tty"),
        KeyError::PassphraseRequired
    );
}

/// Every keyring scenario in sequence, because keyring-core's default store is process-global.
#[test]
fn keyring_backend_end_to_end() {
    // Let the facade try (and here fail) its native store first, so it can never replace the
    // mock installed below.
    let _ = keyring::Entry::store_status();
    let saved = keyring_core::unset_default_store();
    no_store_means_keystore();
    keyring_core::set_default_store(keyring_core::mock::Store::new().expect("mock store"));
    mock_round_trip();
    switching_backends_removes_the_stale_copy();
    failing_keyring_write_falls_back();
    garbage_in_the_keyring_is_corrupt();
    clear_removes_every_copy();
    keyring_core::unset_default_store();
    if let Some(store) = saved {
        keyring_core::set_default_store(store);
    }
}

fn no_store_means_keystore() {
    let data = tempfile::tempdir().expect("tempdir");
    let who = owner(0x21);
    assert_eq!(
        keys_at(data.path(), None).preferred_backend(),
        Backend::Keystore
    );

    let forced = keys_at(data.path(), Some(Backend::Keyring));
    assert_eq!(forced.preferred_backend(), Backend::Keyring);
    let err = forced
        .generate(who, 2_000, 1_000, never_asked)
        .expect_err("no keyring");
    assert_eq!(err, KeyError::NoKeyring);
    assert!(err.to_string().contains("--key-backend keystore"));

    let (_, meta) = keys_at(data.path(), None)
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("fallback");
    assert_eq!(meta.backend, Backend::Keystore);
    assert_eq!(
        keys_at(data.path(), None).clear(who).expect("clear"),
        vec![Backend::Keystore]
    );
}

fn keyring_entry(who: Address) -> keyring_core::Entry {
    keyring_core::Entry::new("papertrade-tui", &format!("session-{who:#x}")).expect("entry")
}

fn mock_round_trip() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), None);
    let who = owner(0x22);
    assert_eq!(keys.preferred_backend(), Backend::Keyring);

    let (signer, meta) = keys
        .generate(who, 2_000, 1_000, never_asked)
        .expect("generate");
    assert_eq!(meta.backend, Backend::Keyring);
    assert!(!keystore_file(data.path(), who).exists());
    let stored = keyring_entry(who).get_password().expect("stored");
    assert_eq!(
        stored,
        hex::encode(signer.secret_bytes()),
        "lowercase hex, no prefix"
    );

    let (loaded, loaded_meta) = keys.load(who, never_asked).expect("load").expect("stored");
    assert_eq!(loaded.address(), signer.address());
    assert_eq!(loaded_meta, meta);
    // A forced keystore does not change where an existing key is read from.
    let via_keystore = keys_at(data.path(), Some(Backend::Keystore));
    assert!(via_keystore.load(who, never_asked).expect("load").is_some());
    #[cfg(unix)]
    assert_eq!(mode(&meta_file(data.path(), who)), 0o600);
}

fn switching_backends_removes_the_stale_copy() {
    let data = tempfile::tempdir().expect("tempdir");
    let who = owner(0x23);
    keys_at(data.path(), Some(Backend::Keyring))
        .generate(who, 2_000, 1_000, never_asked)
        .expect("keyring");

    let (_, meta) = keys_at(data.path(), Some(Backend::Keystore))
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("keystore");
    assert_eq!(meta.backend, Backend::Keystore);
    assert!(matches!(
        keyring_entry(who).get_password(),
        Err(keyring_core::Error::NoEntry)
    ));

    let (_, meta) = keys_at(data.path(), None)
        .generate(who, 2_000, 1_000, never_asked)
        .expect("keyring again");
    assert_eq!(meta.backend, Backend::Keyring);
    assert!(!keystore_file(data.path(), who).exists());
}

fn failing_keyring_write_falls_back() {
    let data = tempfile::tempdir().expect("tempdir");
    let who = owner(0x24);
    let fail_next = || {
        let entry = keyring_entry(who);
        let cred: &keyring_core::mock::Cred =
            entry.as_any().downcast_ref().expect("mock credential");
        cred.set_error(keyring_core::Error::NoStorageAccess(
            "collection is locked".into(),
        ));
    };

    fail_next();
    let err = keys_at(data.path(), Some(Backend::Keyring))
        .generate(who, 2_000, 1_000, never_asked)
        .expect_err("forced");
    assert!(
        matches!(&err, KeyError::Keyring(m) if m.contains("locked")),
        "{err:?}"
    );

    fail_next();
    let (signer, meta) = keys_at(data.path(), None)
        .generate(who, 2_000, 1_000, pass(PASS))
        .expect("fallback");
    assert_eq!(meta.backend, Backend::Keystore);
    let (loaded, _) = keys_at(data.path(), None)
        .load(who, pass(PASS))
        .expect("load")
        .expect("stored");
    assert_eq!(loaded.address(), signer.address());
}

fn garbage_in_the_keyring_is_corrupt() {
    let data = tempfile::tempdir().expect("tempdir");
    let keys = keys_at(data.path(), None);
    let who = owner(0x25);
    keys.generate(who, 2_000, 1_000, never_asked)
        .expect("generate");
    let garbage = "0123456789abcdef-not-a-key";
    keyring_entry(who).set_password(garbage).expect("overwrite");
    let err = keys.load(who, never_asked).expect_err("garbage");
    assert!(matches!(err, KeyError::Corrupt(_)), "{err:?}");
    assert_no_secret(&err, &[garbage]);

    keyring_entry(who).delete_credential().expect("delete");
    assert_eq!(
        keys.load(who, never_asked).expect_err("gone"),
        KeyError::NotFound
    );
}

fn clear_removes_every_copy() {
    let data = tempfile::tempdir().expect("tempdir");
    let who = owner(0x26);
    let keys = keys_at(data.path(), None);
    keys.generate(who, 2_000, 1_000, never_asked)
        .expect("generate");
    // A keystore copy too, as if an earlier switch had failed to remove it.
    let other = keys_at(data.path(), Some(Backend::Keystore));
    let dir = data.path().join("keys");
    keystore::write(
        &dir,
        &format!("session-{who:#x}.json"),
        &owner(0x01).into_word(),
        &Passphrase::new(PASS.into()),
        ScryptCost::new(TEST_LOG_N).expect("cost"),
    )
    .expect("stale keystore");

    assert_eq!(
        other.clear(who).expect("clear"),
        vec![Backend::Keyring, Backend::Keystore]
    );
    assert!(matches!(
        keyring_entry(who).get_password(),
        Err(keyring_core::Error::NoEntry)
    ));
    assert!(!keystore_file(data.path(), who).exists());
    assert_eq!(keys.meta(who).expect("meta"), None);
    assert_eq!(keys.clear(who).expect("clear again"), Vec::<Backend>::new());
}
