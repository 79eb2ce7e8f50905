//! The session key: made (its passphrase asked twice), registered by the owner's keystore or a
//! pasted signature, renewed, replaced only when asked, refused once expired.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use alloy_signer_local::PrivateKeySigner;
use papertrade_tui::keys::{Passphrase, SessionKeys};
use papertrade_tui::protocol::eip712::{Intent, RegisterSessionKey, Strictness, WalletSigner};
use serde_json::Value;

use crate::pty::Pty;
use crate::support::open_args;

use super::user::{User, live_sim, ready_user, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_with_a_pasted_external_signature() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    user.json(&["key", "new"]).await;
    let owner = WalletSigner::from_bytes(&user.owner_key.to_bytes()).unwrap();
    let wrong = WalletSigner::random();
    for (signer, ok) in [(&wrong, false), (&owner, true)] {
        let mut c = user.command(&["key", "register", "--external", "--json"]);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        // With --json, stdout holds one document (the result); the request comes on stderr.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let (request, mut child, stderr) = tokio::task::spawn_blocking(move || {
            let request = (&mut stderr)
                .lines()
                .map_while(Result::ok)
                .find_map(|l| serde_json::from_str::<Value>(&l).ok())
                .expect("the request on stderr");
            (request, child, stderr)
        })
        .await
        .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        assert_eq!(request["method"], "eth_signTypedData_v4");
        let typed = &request["typedData"];
        assert_eq!(typed["primaryType"], "RegisterSessionKey");
        // The wallet signs what it was shown.
        let intent = RegisterSessionKey::from_message(
            typed["message"].as_object().unwrap(),
            Strictness::Lenient,
        )
        .unwrap();
        let sig = signer.sign(intent).unwrap().signature().as_bytes();
        let hex = format!(
            "0x{}",
            sig.iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
        let out = tokio::task::spawn_blocking(move || {
            writeln!(child.stdin.take().unwrap(), "{hex}").unwrap();
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
            let mut stderr = stderr;
            let mut err = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut err).unwrap();
            let mut output = child.wait_with_output().unwrap();
            output.stderr = err.into_bytes();
            (output, rest)
        })
        .await
        .unwrap();
        let (output, rest) = out;
        // Exactly one JSON document on stdout, whatever happened.
        let docs: Vec<Value> = serde_json::Deserializer::from_str(&rest)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(docs.len(), 1, "{rest}");
        if ok {
            assert!(output.status.success(), "{}", text(&output.stderr));
            let result: Value = serde_json::from_str(rest.trim()).unwrap();
            assert_eq!(result["outcome"], "succeeded");
        } else {
            assert_eq!(output.status.code(), Some(2));
            // With --json the refusal is a JSON error on stdout, naming the field.
            let error: Value = serde_json::from_str(rest.trim()).unwrap();
            assert_eq!(error["error"]["field"], "signature", "{rest}");
            assert!(
                error["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("recovers to")
            );
        }
    }
    assert_eq!(user.json(&["key", "show"]).await["usable"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_key_is_refused_before_signing() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let keys = SessionKeys::new(&user.data(), Some(papertrade_tui::keys::Backend::Keystore));
    keys.set_expiry(user.owner(), 1_000).unwrap();
    let audit_before = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let out = user.run(&open_args("BTC", "long", "100", "10", &[])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expired"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap(),
        audit_before
    );
    assert_eq!(user.json(&["key", "show"]).await["usable"], false);
    // Forcing the OS keyring where none works says so clearly.
    let mut c = user.command(&["key", "new"]);
    c.args(["--key-backend", "keyring"]);
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(!out.status.success());
}

/// `key new` into the keystore file asks its new passphrase twice, as `key owner-new` and the
/// UI's key panel do: a mistyped repeat stores no key, a matching one stores a key that opens
/// with it, and PAPERTRADE_TUI_PASSPHRASE still answers without any prompt.
#[test]
fn key_new_asks_the_session_passphrase_twice() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let owner = PrivateKeySigner::random().address();
    let mut env: Vec<(String, String)> = [
        ("PATH", "/usr/bin:/bin".to_string()),
        ("HOME", dir.path().display().to_string()),
        (
            "XDG_CONFIG_HOME",
            dir.path().join("config").display().to_string(),
        ),
        ("PAPERTRADE_TUI_DATA_DIR", data.display().to_string()),
        ("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "10".to_string()),
        ("PAPERTRADE_TUI_OWNER", format!("{owner:#x}")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let args: Vec<String> = ["--key-backend", "keystore", "key", "new"]
        .map(String::from)
        .to_vec();
    let keys = SessionKeys::new(&data, Some(papertrade_tui::keys::Backend::Keystore));
    let prompt = "New passphrase for the session keystore: ";

    let mut term = Pty::spawn(&args, &env);
    term.expect(prompt);
    term.keys(b"session phrase\r");
    term.expect("Type it again: ");
    term.keys(b"sesion phrase\r");
    let done = term.finish(Duration::from_secs(20));
    assert_eq!(
        done.status.and_then(|s| s.code()),
        Some(2),
        "{}",
        done.screen
    );
    assert!(done.screen.contains("differ"), "{}", done.screen);
    assert!(!done.screen.contains("sesion"), "echoed:\n{}", done.screen);
    assert!(
        keys.load(owner, || Ok(Passphrase::new("session phrase".into())))
            .unwrap()
            .is_none(),
        "a key was stored"
    );

    let mut term = Pty::spawn(&args, &env);
    term.expect(prompt);
    term.keys(b"session phrase\r");
    term.expect("Type it again: ");
    term.keys(b"session phrase\r");
    let done = term.finish(Duration::from_secs(20));
    assert_eq!(
        done.status.and_then(|s| s.code()),
        Some(0),
        "{}",
        done.screen
    );
    assert!(
        !done.screen.contains("session phrase"),
        "echoed:\n{}",
        done.screen
    );
    let (signer, _) = keys
        .load(owner, || Ok(Passphrase::new("session phrase".into())))
        .unwrap()
        .expect("the key was stored");

    // From the environment: not a single prompt, even with a terminal to ask on.
    env.push((
        "PAPERTRADE_TUI_PASSPHRASE".into(),
        "from the environment".into(),
    ));
    let args: Vec<String> = ["--key-backend", "keystore", "key", "new", "--replace"]
        .map(String::from)
        .to_vec();
    let term = Pty::spawn(&args, &env);
    let done = term.finish(Duration::from_secs(20));
    assert_eq!(
        done.status.and_then(|s| s.code()),
        Some(0),
        "{}",
        done.screen
    );
    assert!(!done.screen.contains("passphrase"), "{}", done.screen);
    let (replaced, _) = keys
        .load(owner, || Ok(Passphrase::new("from the environment".into())))
        .unwrap()
        .unwrap();
    assert_ne!(replaced.address(), signer.address());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_new_does_not_silently_replace_a_registered_key() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1_000).await;
    let before = user.json(&["key", "show"]).await;
    assert_eq!(before["usable"], true, "{before}");

    let out = user.run(&["key", "new", "--json"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = err["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("--replace") && message.contains("key register"),
        "{err}"
    );
    assert_eq!(user.json(&["key", "show"]).await, before, "nothing changed");

    let replaced = user.json(&["key", "new", "--replace"]).await;
    assert_eq!(replaced["replaced"], before["sessionKey"], "{replaced}");
    assert_ne!(replaced["created"]["sessionKey"], before["sessionKey"]);
    // The new key cannot trade until the owner registers it: what --replace warned about.
    assert_eq!(user.json(&["key", "show"]).await["usable"], false);
    // An unregistered key is replaced without asking.
    let again = user.json(&["key", "new"]).await;
    assert_eq!(again["replaced"], replaced["created"]["sessionKey"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registering_again_extends_the_key() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1_000).await;
    // As if the key were 29 days old: less than an hour and a minute of it is left locally.
    let keys = SessionKeys::new(&user.data(), Some(papertrade_tui::keys::Backend::Keystore));
    let now = papertrade_tui::clock::now_unix_s();
    keys.set_expiry(user.owner(), now + 3_000).unwrap();
    let shown = user.json(&["key", "show"]).await;
    assert!(
        shown["effectiveExpiry"].as_u64().unwrap() <= now + 3_000,
        "{shown}"
    );

    let renewed = user
        .json(&[
            "key",
            "register",
            "--owner-keystore",
            user.owner_keystore.to_str().unwrap(),
            "--yes",
        ])
        .await;
    assert_eq!(renewed["outcome"], "succeeded", "{renewed}");
    let month = 30 * 86_400;
    let registered = renewed["registeredExpiry"].as_u64().unwrap();
    assert!(registered >= now + month, "{renewed}");
    let shown = user.json(&["key", "show"]).await;
    assert!(
        shown["effectiveExpiry"].as_u64().unwrap() >= now + month,
        "{shown}"
    );
    assert_eq!(
        shown["sessionKey"], renewed["key"]["sessionKey"],
        "the same key"
    );
}
