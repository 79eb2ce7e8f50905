//! The OS keyring path, against a real Secret Service (issue 20): the design's first choice for
//! the session key. `gnome-keyring-daemon` runs in a private D-Bus session (`dbus-run-session`),
//! unlocked with a throwaway password in a throwaway HOME; the real binary makes a key there,
//! registers it and signs an open with it, and the key never touches the disk. Without a Secret
//! Service answering, the same `key new` falls back to the keystore file.
//!
//! The tools are Debian's `dbus` and `gnome-keyring` (and `libsecret-tools` for `secret-tool`),
//! which `.ci/run` installs. Elsewhere a missing tool skips these tests with the reason printed;
//! under `CI=true` it fails them.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::open_args;
use crate::trading::{User, live_sim};

/// Unlocks (creating it the first time) the login keyring of the throwaway `$HOME`, then runs
/// the steps script given as `$1`, all inside the session `dbus-run-session` made.
const SESSION: &str = r#"set -eu
eval "$(printf '%s' 'throwaway-unlock' | gnome-keyring-daemon --unlock --components=secrets)"
exec sh "$1"
"#;

/// The tools these tests need, or why they cannot run.
fn tools(needed: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|tool| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} not installed (Debian: apt-get install dbus gnome-keyring libsecret-tools)",
            missing.join(", ")
        ))
    }
}

/// Whether to go on: yes when the tools are there; a printed skip when not, unless in CI.
fn runnable(needed: &[&str]) -> bool {
    match tools(needed) {
        Ok(()) => true,
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("the OS keyring test must run in CI: {why}")
        }
        Err(why) => {
            eprintln!("skipped: the OS keyring test needs a Secret Service: {why}");
            false
        }
    }
}

/// `sh -c` lines that run the binary with `args` as one step, its stdout, stderr and status
/// kept under `name` in `out`.
fn step(out: &Path, name: &str, args: &[&str]) -> String {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    format!(
        "'{bin}' {args} > '{dir}/{name}.out' 2> '{dir}/{name}.err' </dev/null; echo $? > '{dir}/{name}.code'\n",
        bin = env!("CARGO_BIN_EXE_papertrade-tui"),
        args = quoted.join(" "),
        dir = out.display(),
    )
}

/// What a step left: its status, its stdout as JSON, its stderr.
fn result(out: &Path, name: &str) -> (i32, Value, String) {
    let read =
        |ext: &str| std::fs::read_to_string(out.join(format!("{name}.{ext}"))).unwrap_or_default();
    let code = read("code").trim().parse().unwrap_or(-1);
    let json = serde_json::from_str(&read("out")).unwrap_or(Value::Null);
    (code, json, read("err"))
}

/// The environment of a user of `sim` with a throwaway HOME, no session bus inherited.
fn user_command(user: &User, home: &Path, program: &str) -> Command {
    let runtime = home.join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let mut c = Command::new(program);
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("share"))
        .env("PAPERTRADE_TUI_DATA_DIR", user.data())
        .env("PAPERTRADE_API_URL", &user.api)
        .env("PAPERTRADE_INFO_URL", &user.info)
        .env("PAPERTRADE_RPC_URL", &user.rpc)
        .env("PAPERTRADE_TUI_OWNER", format!("{:#x}", user.owner()))
        .env(
            "PAPERTRADE_TUI_OWNER_PASSPHRASE",
            crate::trading::OWNER_PASS,
        )
        .env("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "10")
        .stdin(Stdio::null());
    c
}

/// Run to completion off the runtime, killed (and failed) past a minute: a keyring that hangs
/// is a failure too.
async fn finish(mut command: Command, what: &str) -> std::process::Output {
    let what = what.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("{what}: still running after 60 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_key_lives_in_a_real_secret_service_and_signs_from_there() {
    if !runnable(&["dbus-run-session", "gnome-keyring-daemon", "secret-tool"]) {
        return;
    }
    let sim = live_sim().await;
    let user = User::new(&sim);
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "1000"}),
    )
    .await;
    let home = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let owner = format!("{:#x}", user.owner());
    let owner_keystore = user.owner_keystore.to_str().unwrap();
    // No PAPERTRADE_TUI_PASSPHRASE: were the session key to fall back to the file, `key new`
    // would have to prompt, and with no terminal it fails.
    let steps = [
        step(out.path(), "new", &["key", "new", "--json"]),
        step(out.path(), "register", &["key", "register", "--owner-keystore", owner_keystore, "--yes", "--json"]),
        step(out.path(), "open", &open_args("BTC", "long", "50", "100", &["--json"])),
        format!(
            "secret-tool lookup service papertrade-tui username 'session-{owner}' > '{dir}/secret.out' 2>&1; echo $? > '{dir}/secret.code'\n",
            dir = out.path().display()
        ),
        step(out.path(), "clear", &["key", "clear", "--json"]),
        format!(
            "secret-tool lookup service papertrade-tui username 'session-{owner}' > '{dir}/cleared.out' 2>&1; echo $? > '{dir}/cleared.code'\n",
            dir = out.path().display()
        ),
    ]
    .concat();
    std::fs::write(out.path().join("steps.sh"), steps).unwrap();
    std::fs::write(out.path().join("session.sh"), SESSION).unwrap();
    let mut session = user_command(&user, home.path(), "dbus-run-session");
    session
        .args(["--", "sh"])
        .arg(out.path().join("session.sh"))
        .arg(out.path().join("steps.sh"));
    let ran = finish(session, "dbus-run-session").await;
    assert!(
        ran.status.success(),
        "the session: {}",
        String::from_utf8_lossy(&ran.stderr)
    );

    let (code, created, err) = result(out.path(), "new");
    assert_eq!(code, 0, "key new: {err}");
    assert_eq!(created["created"]["backend"], "keyring", "{created}");
    let key = created["created"]["sessionKey"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, registered, err) = result(out.path(), "register");
    assert_eq!(
        (code, &registered["outcome"]),
        (0, &json!("succeeded")),
        "key register: {err}"
    );
    let (code, opened, err) = result(out.path(), "open");
    assert_eq!(code, 0, "open: {opened} {err}");
    assert_eq!(opened["outcome"], "succeeded", "{opened}");
    // The secret is the Secret Service's: there, as 64 hex digits, and in no file.
    let secret = std::fs::read_to_string(out.path().join("secret.out")).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.path().join("secret.code"))
            .unwrap()
            .trim(),
        "0",
        "{secret}"
    );
    let holder: alloy_signer_local::PrivateKeySigner = secret.trim().parse().expect("a hex key");
    assert_eq!(
        format!("{:#x}", holder.address()),
        key,
        "the keyring holds the key that was made"
    );
    let on_disk = walk(&user.data());
    assert!(
        !on_disk.iter().any(|f| f.contains(secret.trim())),
        "the secret is in no file"
    );
    assert!(
        !on_disk.iter().any(|f| f.contains("\"crypto\"")),
        "no session keystore was written"
    );
    // `key clear` removed it from the keyring.
    let (code, _, err) = result(out.path(), "clear");
    assert_eq!(code, 0, "key clear: {err}");
    assert_ne!(
        std::fs::read_to_string(out.path().join("cleared.code"))
            .unwrap()
            .trim(),
        "0"
    );
}

/// Every file under `dir`, as text.
fn walk(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned(),
            );
        }
    }
    files
}

/// No Secret Service answers: a session bus with no provider (or one that cannot store), and
/// no session bus at all. `key new` falls back to the keystore file each time, promptly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_secret_service_the_key_falls_back_to_the_keystore_file() {
    if !runnable(&["dbus-run-session"]) {
        return;
    }
    let sim = live_sim().await;
    for bus in ["a session without secrets", "no session bus"] {
        let user = User::new(&sim);
        let home = tempfile::tempdir().unwrap();
        let mut command = user_command(&user, home.path(), "dbus-run-session");
        if bus == "no session bus" {
            command = user_command(&user, home.path(), env!("CARGO_BIN_EXE_papertrade-tui"));
            command.env(
                "DBUS_SESSION_BUS_ADDRESS",
                format!("unix:path={}", home.path().join("no-bus").display()),
            );
        } else {
            command.args(["--", env!("CARGO_BIN_EXE_papertrade-tui")]);
        }
        command
            .args(["key", "new", "--json"])
            .env("PAPERTRADE_TUI_PASSPHRASE", crate::trading::SESSION_PASS);
        let ran = finish(command, bus).await;
        let err = String::from_utf8_lossy(&ran.stderr);
        assert!(ran.status.success(), "{bus}: {err}");
        let created: Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert_eq!(
            created["created"]["backend"], "keystore",
            "{bus}: {created}"
        );
        assert!(
            walk(&user.data()).iter().any(|f| f.contains("\"crypto\"")),
            "{bus}: the keystore file is there"
        );
    }
}
