//! The owner's keystore: the practice owner `key owner-new` writes, its passphrase, its cost from
//! the environment, and what `--owner-keystore` refuses to read.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use alloy_signer_local::PrivateKeySigner;
use serde_json::Value;

use crate::pty::Pty;
use crate::simkit::Sim;

use super::data_dir::mode_of;
use super::user::{OWNER_PASS, User, live_sim, make_ready, text};

/// `key owner-new` run as a reader would before any owner is configured: only a home, a data
/// dir, the cheapest keystore cost and `extra` in the environment, no `--owner`.
fn owner_new_command(home: &Path, args: &[&str], extra: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
    c.args(["key", "owner-new"])
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PAPERTRADE_TUI_DATA_DIR", home.join("data"))
        .env("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "10")
        .envs(extra.iter().copied())
        .stdin(Stdio::null());
    c
}

/// The practice owner `key owner-new` writes is a keystore the existing `--owner-keystore`
/// paths take as they are: it registers a session key and withdraws against the simulator.
/// Its file is 0600 in new 0700 folders, an existing path is never replaced, and the secret
/// is in none of its output.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_practice_owner_from_key_owner_new_registers_and_withdraws() {
    let sim = live_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wallets/practice/owner.json");
    let pass = [("PAPERTRADE_TUI_OWNER_PASSPHRASE", OWNER_PASS)];
    let mut c = owner_new_command(
        dir.path(),
        &["--keystore", path.to_str().unwrap(), "--json"],
        &pass,
    );
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Decrypted by the signer crate everyone else uses, not by our own reader.
    let owner_key = PrivateKeySigner::decrypt_keystore(&path, OWNER_PASS).unwrap();
    let owner = format!("{:#x}", owner_key.address());
    assert_eq!(made["address"], owner.as_str());
    assert_eq!(made["keystore"], path.to_str().unwrap());
    assert_eq!(
        made["export"],
        format!("export PAPERTRADE_TUI_OWNER={owner}")
    );
    assert_eq!(made["practice"], true);
    assert!(made["note"].as_str().unwrap().contains("your own wallet"));
    assert_eq!(mode_of(&path), 0o600);
    for folder in ["wallets", "wallets/practice"] {
        assert_eq!(mode_of(&dir.path().join(folder)), 0o700, "{folder}/");
    }
    let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        file["crypto"]["kdfparams"]["n"], 1024,
        "the cost from the environment"
    );
    let secret = format!("{:x}", owner_key.to_bytes());
    let secret = secret.trim_start_matches("0x");
    for shown in [text(&out.stdout), text(&out.stderr)] {
        assert!(!shown.contains(secret) && !shown.contains(OWNER_PASS));
    }

    // An existing path is refused before anything is asked or written.
    let before = std::fs::read(&path).unwrap();
    let mut c = owner_new_command(dir.path(), &["--keystore", path.to_str().unwrap()], &pass);
    let again = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("already exists"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the keystore is untouched"
    );

    // The human output names the address, the file, the line to paste, and what it is for.
    let other = dir.path().join("second.json");
    let mut c = owner_new_command(dir.path(), &["--keystore", other.to_str().unwrap()], &pass);
    let human = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(human.status.success(), "{}", text(&human.stderr));
    let second = PrivateKeySigner::decrypt_keystore(&other, OWNER_PASS).unwrap();
    let shown = text(&human.stdout);
    let export = format!("export PAPERTRADE_TUI_OWNER={:#x}", second.address());
    assert!(shown.lines().any(|l| l == export), "{shown}");
    assert!(shown.contains(other.to_str().unwrap()), "{shown}");
    assert!(
        shown.contains("For practice") && shown.contains("Web3 Secret Storage"),
        "{shown}"
    );
    assert_ne!(
        second.address(),
        owner_key.address(),
        "each run is a fresh key"
    );

    // The round trip with it: fund, `key new`, `key register` and `withdraw` with the file.
    let user = User {
        dir,
        owner_key,
        owner_keystore: path,
        api: sim.server.base_url(),
        info: sim.server.info_url(),
        rpc: sim.server.rpc_url(),
    };
    make_ready(&sim, &user, 100).await;
    assert_eq!(user.json(&["key", "show"]).await["usable"], true);
    let w = user
        .json(&[
            "withdraw",
            "--amount",
            "25",
            "--owner-keystore",
            user.owner_keystore.to_str().unwrap(),
            "--yes",
        ])
        .await;
    assert_eq!(w["outcome"], "succeeded", "{w}");
    assert!(
        !user.all_text().contains(secret),
        "the secret is in the data dir"
    );
}

/// Without the environment variable the passphrase is asked twice on the terminal, without
/// echo; an empty one or a mistyped repeat writes nothing.
#[test]
fn key_owner_new_asks_for_the_passphrase_twice() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(String, String)> = [
        ("PATH", "/usr/bin:/bin".to_string()),
        ("HOME", dir.path().display().to_string()),
        (
            "XDG_CONFIG_HOME",
            dir.path().join("config").display().to_string(),
        ),
        (
            "PAPERTRADE_TUI_DATA_DIR",
            dir.path().join("data").display().to_string(),
        ),
        ("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "10".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let path = dir.path().join("new/owner.json");
    let args: Vec<String> = ["key", "owner-new", "--keystore", path.to_str().unwrap()]
        .map(String::from)
        .to_vec();
    for (typed, refusal) in [
        (&["first phrase", "frist phrase"][..], "differ"),
        (&[""][..], "empty"),
    ] {
        let mut term = Pty::spawn(&args, &env);
        term.expect("New passphrase for the owner keystore: ");
        for (i, t) in typed.iter().enumerate() {
            if i > 0 {
                term.expect("Type it again: ");
            }
            term.keys(format!("{t}\r").as_bytes());
        }
        let done = term.finish(Duration::from_secs(20));
        assert_eq!(
            done.status.and_then(|s| s.code()),
            Some(2),
            "{}",
            done.screen
        );
        assert!(done.screen.contains(refusal), "{}", done.screen);
        assert!(
            !done.screen.contains("first phrase"),
            "echoed:\n{}",
            done.screen
        );
        assert!(!dir.path().join("new").exists(), "nothing was written");
    }
    let mut term = Pty::spawn(&args, &env);
    term.expect("New passphrase for the owner keystore: ");
    term.keys(b"same phrase\r");
    term.expect("Type it again: ");
    term.keys(b"same phrase\r");
    let done = term.finish(Duration::from_secs(20));
    assert_eq!(
        done.status.and_then(|s| s.code()),
        Some(0),
        "{}",
        done.screen
    );
    assert!(
        !done.screen.contains("same phrase"),
        "echoed:\n{}",
        done.screen
    );
    let owner = PrivateKeySigner::decrypt_keystore(&path, "same phrase").unwrap();
    assert!(
        done.screen.contains(&format!(
            "export PAPERTRADE_TUI_OWNER={:#x}",
            owner.address()
        )),
        "{}",
        done.screen
    );
}

/// The keystore cost comes from PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N, bounded, named in errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keystore_cost_comes_from_the_environment() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    let mut c = user.command(&["key", "new"]);
    c.env("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "5");
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N"),
        "{}",
        text(&out.stderr)
    );
    let mut c = user.command(&["key", "new"]);
    c.env("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "11");
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = user
        .data()
        .join("keys")
        .join(format!("session-{:#x}.json", user.owner()));
    let keystore: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert_eq!(keystore["crypto"]["kdfparams"]["n"], 2048);
}

/// `--owner-keystore /dev/zero` grew to gigabytes and a FIFO blocked forever (issue 20): a
/// keystore is a small regular file, anything else is refused at once, before its passphrase
/// is asked for or anything is signed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_keystore_must_be_a_small_regular_file() {
    let sim = Sim::manual().await;
    let user = User::new(&sim);
    user.json(&["key", "new"]).await;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let large = dir.path().join("large.json");
    let mut padded = std::fs::read(&user.owner_keystore).unwrap();
    padded.extend(std::iter::repeat_n(b' ', 9 * 1024));
    std::fs::write(&large, padded).unwrap();
    for (path, why) in [
        (Path::new("/dev/zero"), "not a regular file"),
        (fifo.as_path(), "not a regular file"),
        (large.as_path(), "larger than 8192 bytes"),
    ] {
        let mut child = user
            .command(&[
                "key",
                "register",
                "--owner-keystore",
                path.to_str().unwrap(),
                "--yes",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(30) {
                child.kill().unwrap();
                panic!("{}: still reading after 30 s", path.display());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(2), "{}: {err}", path.display());
        assert!(err.contains(why), "{}: {err}", path.display());
    }
    assert!(
        sim.server.shared.with_engine(|e| e
            .account(user.owner())
            .map_or(0, |a| a.state.session_keys.len()))
            == 0,
        "nothing was registered"
    );
}
