//! The user's machine every trading test starts from: a data dir, an owner wallet with a
//! keystore file, the simulator's URLs, and the real binary run against them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use alloy_primitives::Address;
use alloy_signer_local::PrivateKeySigner;
use papertrade_tui::keys::{KeyMeta, Passphrase, SessionKeys};
use serde_json::{Value, json};

use crate::simkit::Sim;
use crate::support::open_args;

pub(crate) const WAD: u128 = 1_000_000_000_000_000_000;
pub(crate) const SESSION_PASS: &str = "correct horse battery staple";
pub(crate) const OWNER_PASS: &str = "owner-secret-phrase";

/// A user's machine: a data dir, an owner wallet with a keystore file, the simulator's URLs.
pub(crate) struct User {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) owner_key: PrivateKeySigner,
    pub(crate) owner_keystore: PathBuf,
    pub(crate) api: String,
    pub(crate) info: String,
    pub(crate) rpc: String,
}

impl User {
    pub(crate) fn new(sim: &Sim) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let owner_key = PrivateKeySigner::random();
        let ks_dir = dir.path().join("owner");
        std::fs::create_dir_all(&ks_dir).unwrap();
        PrivateKeySigner::encrypt_keystore(
            &ks_dir,
            &mut rand::thread_rng(),
            owner_key.to_bytes(),
            OWNER_PASS,
            Some("owner.json"),
        )
        .unwrap();
        Self {
            owner_keystore: ks_dir.join("owner.json"),
            owner_key,
            dir,
            api: sim.server.base_url(),
            info: sim.server.info_url(),
            rpc: sim.server.rpc_url(),
        }
    }

    pub(crate) fn owner(&self) -> Address {
        self.owner_key.address()
    }

    pub(crate) fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
        c.args(args)
            .args([
                "--api",
                &self.api,
                "--info-url",
                &self.info,
                "--rpc-url",
                &self.rpc,
                "--owner",
                &format!("{:#x}", self.owner()),
                "--key-backend",
                "keystore",
            ])
            .env_clear()
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("PAPERTRADE_TUI_DATA_DIR", self.data())
            .env("PAPERTRADE_TUI_PASSPHRASE", SESSION_PASS)
            .env("PAPERTRADE_TUI_OWNER_PASSPHRASE", OWNER_PASS)
            .env("PAPERTRADE_TUI_REPORT_SIGNERS", "1")
            // The cheapest keystore cost keeps the suite fast; the standard one is pinned by
            // `a_new_keystore_carries_geths_standard_scrypt_parameters`.
            .env("PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N", "10")
            .stdin(Stdio::null());
        c
    }

    /// Run a command to completion off the async runtime.
    pub(crate) async fn run(&self, args: &[&str]) -> Output {
        let mut c = self.command(args);
        tokio::task::spawn_blocking(move || c.output().unwrap())
            .await
            .unwrap()
    }

    pub(crate) async fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(&all).await;
        assert!(
            out.status.success(),
            "{args:?}\nstdout: {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stdout)))
    }

    /// Open a long through the CLI, require it settled, and return the new position's id.
    pub(crate) async fn open_long(&self, market: &str, margin: &str, leverage: &str) -> String {
        let opened = self
            .json(&open_args(market, "long", margin, leverage, &[]))
            .await;
        assert_eq!(opened["outcome"], "succeeded", "{opened}");
        opened["position"]["positionId"]
            .as_str()
            .expect("the opened position")
            .to_string()
    }

    pub(crate) fn session_key(&self) -> papertrade_tui::protocol::eip712::SessionSigner {
        self.session().0
    }

    /// The session key unlocked from the data dir, with what the UI shows of it.
    pub(crate) fn session(&self) -> (papertrade_tui::protocol::eip712::SessionSigner, KeyMeta) {
        let keys = SessionKeys::new(&self.data(), Some(papertrade_tui::keys::Backend::Keystore));
        keys.load(self.owner(), || Ok(Passphrase::new(SESSION_PASS.into())))
            .unwrap()
            .unwrap()
    }

    /// Every file under the data dir, concatenated (logs, audit, nonces, key metadata).
    pub(crate) fn all_text(&self) -> String {
        let mut out = String::new();
        fn walk(p: &Path, out: &mut String) {
            for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if let Ok(t) = std::fs::read_to_string(&path) {
                    out.push_str(&t);
                }
            }
        }
        walk(&self.data(), &mut out);
        out
    }
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) fn signers(out: &Output) -> usize {
    text(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("signers-constructed: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the signer probe line")
}

pub(crate) async fn live_sim() -> Sim {
    Sim::live(21, 300).await
}

/// Register a key through the CLI, then hand back the session signer for direct posts.
pub(crate) async fn ready_user(sim: &Sim, usd: u64) -> User {
    let user = User::new(sim);
    make_ready(sim, &user, usd).await;
    user
}

/// Fund the owner, create and register its session key: a signed intent, an audit entry.
pub(crate) async fn make_ready(sim: &Sim, user: &User, usd: u64) {
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": usd.to_string()}),
    )
    .await;
    user.json(&["key", "new"]).await;
    user.json(&[
        "key",
        "register",
        "--owner-keystore",
        user.owner_keystore.to_str().unwrap(),
        "--yes",
    ])
    .await;
}
