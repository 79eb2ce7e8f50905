//! The trading client end to end: the real binary's key, positions, open, close, cancel and
//! withdraw commands against the in-process simulator, and the account stream's recovery.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use alloy_primitives::{Address, U256};
use alloy_signer_local::PrivateKeySigner;
use papertrade_tui::app::Mode;
use papertrade_tui::client::market::PollRates;
use papertrade_tui::client::stream::{StreamConfig, spawn_account_stream};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::feed::account::StreamEvent;
use papertrade_tui::keys::{KeyMeta, Passphrase, SessionKeys};
use papertrade_tui::protocol::eip712::{
    Intent, OpenPosition, RegisterSessionKey, Strictness, WalletSigner,
};
use papertrade_tui::protocol::math::value_close;
use papertrade_tui::protocol::trading::TradingState;
use papertrade_tui::sim::SimConfig;
use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::pty::Pty;
use crate::simkit::Sim;
use crate::tui_run::{self, Ui};

const WAD: u128 = 1_000_000_000_000_000_000;
pub(crate) const SESSION_PASS: &str = "correct horse battery staple";
pub(crate) const OWNER_PASS: &str = "owner-secret-phrase";

/// A user's machine: a data dir, an owner wallet with a keystore file, the simulator's URLs.
pub(crate) struct User {
    dir: tempfile::TempDir,
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
            .json(&[
                "open",
                "--market",
                market,
                "--side",
                "long",
                "--margin",
                margin,
                "--leverage",
                leverage,
                "--yes",
            ])
            .await;
        assert_eq!(opened["outcome"], "succeeded", "{opened}");
        opened["position"]["positionId"]
            .as_str()
            .expect("the opened position")
            .to_string()
    }

    fn session_key(&self) -> papertrade_tui::protocol::eip712::SessionSigner {
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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn signers(out: &Output) -> usize {
    text(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("signers-constructed: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the signer probe line")
}

pub(crate) async fn live_sim() -> Sim {
    Sim::start(SimConfig {
        seed: 21,
        crowd: 0,
        heartbeat_ms: 300,
        relayer_delay_ms: 300,
        ..SimConfig::default()
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_life_with_a_keystore_owner() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "1000"}),
    )
    .await;

    // No keyring on this machine or in CI: the keystore file is used, and said so.
    let created = user.json(&["key", "new"]).await;
    assert_eq!(created["created"]["backend"], "keystore");
    assert_eq!(created["registered"], false);
    let key = created["created"]["sessionKey"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = user.json(&["key", "show"]).await;
    assert_eq!(shown["registeredExpiry"], Value::Null);
    assert_eq!(shown["usable"], false);

    // Trading before registration is refused before anything is signed.
    let out = user
        .run(&[
            "open",
            "--market",
            "BTC",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "10",
            "--yes",
        ])
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not registered"));

    let registered = user
        .json(&[
            "key",
            "register",
            "--owner-keystore",
            user.owner_keystore.to_str().unwrap(),
            "--yes",
        ])
        .await;
    assert_eq!(registered["outcome"], "succeeded");
    assert!(registered["registeredExpiry"].as_u64().unwrap() > 0);
    let shown = user.json(&["key", "show"]).await;
    assert_eq!(shown["usable"], true);
    assert_eq!(shown["sessionKey"], key.as_str());

    // Open at a pinned mid; the position appears with the exact entry and bust.
    sim.pin("BTC", "82800.3").await;
    let opened = user
        .json(&[
            "open",
            "--market",
            "BTC",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "500",
            "--yes",
        ])
        .await;
    assert_eq!(opened["submission"], "accepted");
    assert_eq!(opened["outcome"], "succeeded");
    assert_eq!(opened["position"]["entryPriceRaw"], "828003");
    assert_eq!(opened["position"]["bustPriceRaw"], "826740");
    let id = opened["position"]["positionId"]
        .as_str()
        .unwrap()
        .to_string();

    let listed = user.json(&["positions"]).await;
    assert_eq!(listed["positions"][0]["positionId"], id.as_str());
    assert_eq!(listed["positions"][0]["markPrice"], 82800.3);
    assert_eq!(listed["availableUsd"], 900);

    // Close at +0.1%: the net PnL is §5.3's at the settlement mid, to the raw unit.
    sim.pin("BTC", "82883.1").await;
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    let expected = value_close(
        state.market("BTC").unwrap(),
        state.win_fee_rate(),
        828_003,
        100 * WAD,
        500,
        true,
        828_831,
    );
    // Before it: what a close pays (margin + net) and its net PnL, two figures under two names,
    // in the JSON and the table, as close-quote and the UI say them.
    let pays = (100 * WAD) as i128 + expected.net_pnl;
    let listed = user.json(&["positions"]).await;
    let row = &listed["positions"][0];
    assert_eq!(row["closeNetPnlRaw"], expected.net_pnl.to_string(), "{row}");
    assert_eq!(row["closePaysRaw"], pays.to_string(), "{row}");
    let quoted = user
        .json(&[
            "close-quote",
            "--market",
            "BTC",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "500",
            "--entry",
            "82800.3",
        ])
        .await;
    assert_eq!(
        quoted["payoutUsd"], row["closePaysUsd"],
        "close-quote pays the same: {quoted}"
    );
    let out = user.run(&["positions"]).await;
    let table = text(&out.stdout);
    let header = table.lines().find(|l| l.contains("MARKET")).unwrap();
    assert!(
        header.contains("CLOSE PAYS") && header.trim_end().ends_with("NET PNL"),
        "{table}"
    );
    let cells: Vec<&str> = table
        .lines()
        .find(|l| l.trim_start().starts_with(id.as_str()))
        .unwrap_or_else(|| panic!("no row for #{id}:\n{table}"))
        .split_whitespace()
        .collect();
    let dollars = |cell: &str| -> f64 { cell.replace(['$', ','], "").parse().unwrap() };
    let (pays_cell, net_cell) = (cells[cells.len() - 2], cells[cells.len() - 1]);
    assert!(
        (dollars(pays_cell) - row["closePaysUsd"].as_f64().unwrap()).abs() < 0.006,
        "CLOSE PAYS is margin + net: {pays_cell} in\n{table}"
    );
    assert!(
        (dollars(net_cell) - row["closeNetPnlUsd"].as_f64().unwrap()).abs() < 0.006,
        "NET PNL: {net_cell} in\n{table}"
    );

    let closed = user.json(&["close", &id, "--yes"]).await;
    assert_eq!(closed["intents"][0]["outcome"], "succeeded");
    assert_eq!(
        closed["closed"][0]["netPnlRaw"],
        expected.net_pnl.to_string()
    );
    let listed = user.json(&["positions"]).await;
    assert_eq!(
        listed["balanceRaw"],
        ((1000 * WAD) as i128 + expected.net_pnl).to_string()
    );
    assert!(listed["positions"].as_array().unwrap().is_empty());

    // Withdraw 25 USDC with the owner's keystore.
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
    assert_eq!(w["outcome"], "succeeded");
    let out = user
        .run(&[
            "withdraw",
            "--amount",
            "9.99",
            "--owner-keystore",
            user.owner_keystore.to_str().unwrap(),
            "--yes",
        ])
        .await;
    assert_eq!(out.status.code(), Some(2));

    // The audit log has every intent and its fate; no secret anywhere in the data dir.
    let audit = user.all_text();
    for event in ["\"signed\"", "\"accepted\""] {
        assert!(audit.contains(event));
    }
    let session_secret = format!("{:x}", user.session_key().secret_bytes());
    let owner_secret = format!("{:x}", user.owner_key.to_bytes());
    for secret in [
        session_secret.trim_start_matches("0x"),
        owner_secret.trim_start_matches("0x"),
        SESSION_PASS,
        OWNER_PASS,
    ] {
        assert!(!audit.contains(secret), "a secret leaked into the data dir");
    }
}

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

/// Register a key through the CLI, then hand back the session signer for direct posts.
pub(crate) async fn ready_user(sim: &Sim, usd: u64) -> User {
    let user = User::new(sim);
    make_ready(sim, &user, usd).await;
    user
}

/// Fund the owner, create and register its session key: a signed intent, an audit entry.
async fn make_ready(sim: &Sim, user: &User, usd: u64) {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_of_thirty_goes_out_as_three_intents() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 20_000).await;
    let key = user.session_key();
    let mut stream = sim.stream(user.owner()).await;
    for i in 0..30u64 {
        let open = OpenPosition {
            user: user.owner(),
            instrumentId: (i % 2) as u32,
            isLong: true,
            size: 20 * WAD,
            leverage: 100,
            useDebt: false,
            nonce: U256::from(900_000 + i),
            deadline: sim.now_s() + 3600,
        };
        let (status, answer) = sim
            .post("/intents", &key.sign(open).unwrap().post().unwrap().body)
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    stream
        .until("the 30 opens settled", |s| s.open_positions.len() == 30)
        .await;
    assert_eq!(
        user.json(&["positions"]).await["positions"]
            .as_array()
            .unwrap()
            .len(),
        30
    );
    let closed = user.json(&["close", "--all", "--yes"]).await;
    let intents = closed["intents"].as_array().unwrap();
    assert_eq!(intents.len(), 3);
    let sizes: Vec<usize> = intents
        .iter()
        .map(|i| i["positionIds"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [12, 12, 6]);
    assert!(
        intents.iter().all(|i| i["outcome"] == "succeeded"),
        "{closed}"
    );
    assert_eq!(closed["closed"].as_array().unwrap().len(), 30);
    assert!(
        user.json(&["positions"]).await["positions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_of_a_queued_open() {
    // A manual clock holds the relayer still: the open stays queued until cancelled.
    let sim = Sim::manual().await;
    let user = User::new(&sim);
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "500"}),
    )
    .await;
    let created = user.json(&["key", "new"]).await;
    let key_address: Address = created["created"]["sessionKey"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Registered as if long ago (the CLI's registration path is covered elsewhere).
    let owner = user.owner();
    // The manual clock lives in the past; the client judges expiry by the wall clock.
    let expiry = papertrade_tui::clock::now_unix_s() + 86_400;
    sim.server.shared.with_engine(|e| {
        e.commit(owner, |tx| {
            papertrade_tui::sim::Engine::add_session_key(tx, key_address, expiry)
        });
    });
    let shown = user.json(&["key", "show"]).await;
    assert_eq!(shown["usable"], true, "{shown}");
    let key = user.session_key();
    let open = OpenPosition {
        user: owner,
        instrumentId: 1,
        isLong: false,
        size: 50 * WAD,
        leverage: 20,
        useDebt: false,
        nonce: U256::from(777u64),
        deadline: sim.now_s() + 3600,
    };
    let signed = key.sign(open).unwrap();
    let id = signed.intent_id();
    assert_eq!(
        sim.post("/intents", &signed.post().unwrap().body).await.0,
        200
    );
    let listed = user.json(&["positions"]).await;
    assert_eq!(
        listed["pendingOperations"][0]["intentId"],
        format!("{id:#x}")
    );
    assert_eq!(listed["pendingOperations"][0]["queueRank"], 1);
    assert_eq!(listed["availableUsd"], 450);
    let cancelled = user.json(&["cancel", &format!("{id:#x}"), "--yes"]).await;
    assert_eq!(cancelled["outcome"], "cancelled");
    let listed = user.json(&["positions"]).await;
    assert!(listed["pendingOperations"].as_array().unwrap().is_empty());
    assert_eq!(listed["availableUsd"], 500);
    // Cancelling what is not queued is refused before signing.
    let out = user.run(&["cancel", &format!("{id:#x}"), "--yes"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not queued"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_answer_resolves_from_the_stream_with_one_intent() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.control("/sim/faults", json!({"dropIntentAnswers": 1}))
        .await;
    let opened = user
        .json(&[
            "open",
            "--market",
            "ETH",
            "--side",
            "long",
            "--margin",
            "50",
            "--leverage",
            "20",
            "--yes",
        ])
        .await;
    assert_eq!(opened["submission"], "unknown");
    assert_eq!(opened["outcome"], "succeeded");
    assert!(opened["position"]["positionId"].is_string());
    // Exactly one intent reached the exchange: one open in the feed, one position, and the audit
    // log shows the send once, never retried.
    let (_, trades) = sim.get("/query/protocol/trades/recent").await;
    let mine: Vec<&Value> = trades["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["wallet"] == format!("{:#x}", user.owner()))
        .collect();
    assert_eq!(mine.len(), 1);
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let id = opened["intentId"].as_str().unwrap();
    let events: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &Value| e["intentId"] == id)
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    // Sent once, no answer, never resent; its fate came from the stream.
    assert_eq!(kinds, ["signed", "unknown", "outcome"]);
    assert_eq!(events[2]["outcome"], "succeeded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_mode_constructs_no_signer() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    // The probe counts: an open constructs signers…
    let out = user
        .run(&[
            "open",
            "--market",
            "BTC",
            "--side",
            "short",
            "--margin",
            "20",
            "--leverage",
            "100",
            "--yes",
            "--json",
        ])
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(signers(&out) >= 1);
    // …watching constructs none, even with a key and its passphrase at hand.
    let out = user
        .run(&[
            "positions",
            "--watch",
            &format!("{:#x}", user.owner()),
            "--json",
        ])
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(signers(&out), 0);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "watch");
    assert_eq!(v["positions"].as_array().unwrap().len(), 1);
    // Watching a crowd wallet of another simulator instance works with no owner at all.
    let crowd = Sim::start(SimConfig {
        seed: 2,
        crowd: 3,
        ..SimConfig::default()
    })
    .await;
    let wallet = crowd.server.shared.with_engine(|e| e.crowd.wallets()[0]);
    let mut c = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
    let api = crowd.server.base_url();
    let info = crowd.server.info_url();
    let dir = tempfile::tempdir().unwrap();
    c.args([
        "positions",
        "--watch",
        &format!("{wallet:#x}"),
        "--api",
        &api,
        "--info-url",
        &info,
        "--json",
    ])
    .env_clear()
    .env("HOME", dir.path())
    .env("PAPERTRADE_TUI_DATA_DIR", dir.path())
    .env("PAPERTRADE_TUI_REPORT_SIGNERS", "1");
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(signers(&out), 0);
}

/// `--watch` is read-only wherever it appears: before or after the subcommand, every command
/// that would sign is refused with exit 2, no signer is built and the account is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_anywhere_refuses_every_writing_command() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let position = user.open_long("BTC", "50", "25").await;
    let audit_before = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let watched = format!("{:#x}", Address::with_last_byte(1));
    let queued = format!("{:#x}", alloy_primitives::B256::with_last_byte(7));
    let keystore = user.owner_keystore.to_str().unwrap().to_string();
    let writing: Vec<Vec<&str>> = vec![
        vec![
            "open",
            "--market",
            "BTC",
            "--side",
            "long",
            "--margin",
            "50",
            "--leverage",
            "25",
            "--yes",
        ],
        vec!["close", "--all", "--yes"],
        vec!["close", &position, "--yes"],
        vec!["cancel", &queued, "--yes"],
        vec![
            "withdraw",
            "--amount",
            "10",
            "--owner-keystore",
            &keystore,
            "--yes",
        ],
        vec!["key", "new"],
        vec!["key", "register", "--owner-keystore", &keystore, "--yes"],
        vec!["key", "clear"],
        vec!["demo"],
        vec!["sim", "--port", "0"],
    ];
    for command in &writing {
        for before in [true, false] {
            let mut args: Vec<&str> = Vec::new();
            if before {
                args.extend(["--watch", &watched]);
            }
            args.extend(command.iter().copied());
            if !before {
                args.extend(["--watch", &watched]);
            }
            let out = user.run(&args).await;
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("--watch: is read-only"), "{args:?}: {err}");
            assert_eq!(signers(&out), 0, "{args:?}");
        }
    }
    let listed = user.json(&["positions"]).await;
    assert_eq!(listed["positions"].as_array().unwrap().len(), 1);
    assert_eq!(listed["positions"][0]["positionId"], position.as_str());
    let audit_after = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    assert_eq!(audit_before, audit_after, "nothing was signed or sent");
    assert_eq!(user.json(&["key", "show"]).await["usable"], true);
    // …and where it belongs, before or after `positions`, it reads the watched wallet.
    for args in [
        vec!["--watch", &watched, "positions", "--json"],
        vec!["positions", "--watch", &watched, "--json"],
    ] {
        let out = user.run(&args).await;
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["mode"], "watch");
        assert_eq!(v["address"], watched.as_str());
        assert_eq!(signers(&out), 0);
    }
}

/// One side per market counts the opens still queued: an opposite open the relayer's intake
/// would take fails at settlement once the queued one has filled, so `open` refuses it before
/// signing, naming the side rule and the queued intent — not the margin the queued open reserved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_of_the_side_opposite_a_queued_open_is_refused_naming_the_side_rule() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    // From here the relayer holds what it accepts: the first open stays queued.
    sim.server
        .shared
        .with_engine(|e| e.cfg.relayer_delay_ms = 600_000);
    let open = |side: &'static str, margin: &'static str| {
        vec![
            "open",
            "--market",
            "BTC",
            "--side",
            side,
            "--margin",
            margin,
            "--leverage",
            "10",
            "--yes",
            "--json",
        ]
    };
    let mut args = open("long", "600");
    args.extend(["--wait", "0"]);
    let out = user.run(&args).await;
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let queued: Value = serde_json::from_slice(&out.stdout).unwrap();
    let intent = queued["intentId"].as_str().unwrap().to_string();

    // $400 left after the queued $600: a $500 short fails the balance too, but the side rule
    // is what no margin would pass.
    let out = user.run(&open("short", "500")).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        said.contains("one side per market")
            && said.contains("long BTC position is queued")
            && said.contains(&intent)
            && said.contains("nothing was signed"),
        "{said}"
    );
    assert!(
        !said.contains("available balance"),
        "not the margin: {said}"
    );
    assert_eq!(signers(&out), 0, "refused before any key was unlocked");
    // The same side is not refused by it.
    let mut args = open("long", "100");
    args.extend(["--wait", "0"]);
    assert_eq!(user.run(&args).await.status.code(), Some(5));
}

/// The exit status follows what happened to the intent: 0 settled as asked, 3 refused by the
/// relayer (with the exchange's code), 4 failed, 5 no fate seen yet. One JSON document each time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_status_follows_the_outcome() {
    let sim = Sim::start(SimConfig {
        seed: 23,
        crowd: 0,
        heartbeat_ms: 300,
        relayer_delay_ms: 2_500,
        ..SimConfig::default()
    })
    .await;
    let user = ready_user(&sim, 2000).await;
    let open_btc = [
        "open",
        "--market",
        "BTC",
        "--side",
        "long",
        "--margin",
        "50",
        "--leverage",
        "25",
        "--yes",
        "--json",
    ];
    let one_doc = |out: &Output| -> Value {
        let docs: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(docs.len(), 1, "{}", text(&out.stdout));
        docs.into_iter().next().unwrap()
    };

    // Not waiting: the intent is queued, its fate unseen → 5, and it is not resent.
    let mut args = open_btc.to_vec();
    args.extend(["--wait", "0"]);
    let out = user.run(&args).await;
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let doc = one_doc(&out);
    assert_eq!(doc["submission"], "accepted");
    assert_eq!(doc["outcome"], "pending");
    // …and it settles on its own.
    let owner = user.owner();
    let mut stream = sim.stream(owner).await;
    stream
        .until("the open settles", |s| s.open_positions.len() == 1)
        .await;

    // Refused by the relayer: a nonce already used (a data dir copied from before that open).
    let nonces = user.data().join(format!("nonces/{owner:#x}.json"));
    let before = std::fs::read_to_string(&nonces).unwrap();
    let mut args = open_btc.to_vec();
    args.extend(["--wait", "0"]);
    assert_eq!(user.run(&args).await.status.code(), Some(5));
    std::fs::write(&nonces, &before).unwrap();
    let out = user.run(&open_btc).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let doc = one_doc(&out);
    assert_eq!(doc["error"]["code"], "nonce_used", "{doc}");

    // Failed at settlement: accepted, then the market pauses before the relayer gets to it → 4.
    let mut c = user.command(&[
        "open",
        "--market",
        "ETH",
        "--side",
        "short",
        "--margin",
        "50",
        "--leverage",
        "25",
        "--yes",
        "--json",
    ]);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    stream
        .until("the ETH open is queued", |s| {
            s.operations
                .iter()
                .any(|o| o.action == "openPosition" && o.instrument_id == Some(1))
        })
        .await;
    sim.control("/sim/market", json!({"market": "ETH", "status": "paused"}))
        .await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert_eq!(one_doc(&out)["outcome"], "failed");

    // The exchange's state refuses an open (the pre-check finds it): 6 and `exchange_state`,
    // not 2 and `invalid_argument`, so a script can wait and retry it. Nothing is signed.
    let open_eth = |side: &'static str| {
        [
            "open",
            "--market",
            "ETH",
            "--side",
            side,
            "--margin",
            "50",
            "--leverage",
            "25",
            "--yes",
            "--json",
        ]
    };
    let out = user.run(&open_eth("short")).await;
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stdout));
    let e = one_doc(&out)["error"].clone();
    assert_eq!(e["code"], "exchange_state", "{e}");
    assert_eq!(e["reason"], "market_not_openable", "{e}");
    assert!(e["field"].is_null(), "no flag is at fault: {e}");
    sim.control("/sim/market", json!({"market": "ETH", "status": "active"}))
        .await;
    sim.control("/sim/intake", json!({"pausedActions": ["openPosition"]}))
        .await;
    let out = user.run(&open_eth("short")).await;
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stdout));
    assert_eq!(one_doc(&out)["error"]["reason"], "intake_action_paused");
    let human: Vec<&str> = open_eth("short")
        .into_iter()
        .filter(|a| *a != "--json")
        .collect();
    let out = user.run(&human).await;
    assert_eq!(out.status.code(), Some(6));
    let said = text(&out.stderr);
    assert!(
        said.starts_with("error: the exchange refuses opens right now:")
            && !said.contains("--market"),
        "{said}"
    );
    sim.control("/sim/intake", json!({})).await;
    // The side held is what refuses an open of the other side, not the margin.
    let out = user.run(&open_btc_side("short")).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let e = one_doc(&out)["error"].clone();
    assert_eq!(e["code"], "invalid_argument", "{e}");
    assert_eq!(e["field"], "side", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("close it before opening the other side"),
        "{e}"
    );
}

fn open_btc_side(side: &'static str) -> [&'static str; 11] {
    [
        "open",
        "--market",
        "BTC",
        "--side",
        side,
        "--margin",
        "50",
        "--leverage",
        "25",
        "--yes",
        "--json",
    ]
}

/// A position in a market `/state/trading` stopped listing is still shown by `positions`, with
/// what needs the market's parameters marked unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_in_an_unlisted_market_is_listed() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let id = user.open_long("ETH", "50", "25").await;
    sim.control("/sim/faults", json!({"unlistedMarkets": ["ETH"]}))
        .await;
    let v = user.json(&["positions"]).await;
    let rows = v["positions"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["positionId"], id.as_str());
    assert_eq!(rows[0]["marketListed"], false);
    assert_eq!(rows[0]["market"], "#1");
    assert!(
        rows[0].get("closeNetPnlUsd").is_none(),
        "nothing is guessed: {v}"
    );
    let out = user.run(&["positions"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let row = table
        .lines()
        .find(|l| l.contains(&id))
        .unwrap_or_else(|| panic!("no row for #{id}:\n{table}"));
    assert!(row.contains("market not listed"), "{row}");
}

/// `close --all` leaves out a position whose close is already queued (the relayer would refuse
/// the whole batch `position_closing`) and says so; the others close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_all_skips_a_position_already_closing() {
    let sim = Sim::start(SimConfig {
        seed: 24,
        crowd: 0,
        heartbeat_ms: 300,
        relayer_delay_ms: 1_500,
        ..SimConfig::default()
    })
    .await;
    let user = ready_user(&sim, 2000).await;
    let mut ids = Vec::new();
    for market in ["BTC", "ETH"] {
        ids.push(user.open_long(market, "50", "25").await);
    }
    let out = user.run(&["close", &ids[0], "--yes", "--wait", "0"]).await;
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let out = user.run(&["close", "--all", "--yes"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("skipped #{}: its close is already queued", ids[0])),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains(&format!("closed #{}", ids[1])));
    // Asking for it by id alone: nothing to send, said plainly, exit 2.
    let mut stream = sim.stream(user.owner()).await;
    stream
        .until("both closed", |s| s.open_positions.is_empty())
        .await;
    let id = user.open_long("BTC", "50", "25").await;
    assert_eq!(
        user.run(&["close", &id, "--yes", "--wait", "0"])
            .await
            .status
            .code(),
        Some(5)
    );
    let out = user.run(&["close", &id, "--yes", "--json"]).await;
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already has a close queued"),
        "{v}"
    );
    assert_eq!(v["error"]["field"], "<POSITION_ID>");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_key_is_refused_before_signing() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let keys = SessionKeys::new(&user.data(), Some(papertrade_tui::keys::Backend::Keystore));
    keys.set_expiry(user.owner(), 1_000).unwrap();
    let audit_before = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let out = user
        .run(&[
            "open",
            "--market",
            "BTC",
            "--side",
            "long",
            "--margin",
            "100",
            "--leverage",
            "10",
            "--yes",
        ])
        .await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_recovers_from_drops_and_stalls_with_nothing_lost() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let key = user.session_key();
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    let (tx, mut rx) = mpsc::channel(256);
    let config = StreamConfig {
        default_heartbeat: Duration::from_millis(300),
        backoff_base: Duration::from_millis(50),
        ..StreamConfig::default()
    };
    let task = spawn_account_stream(http, user.owner(), config, tx);
    let mut held: Option<papertrade_tui::protocol::account::AccountState>;
    let next = async |rx: &mut mpsc::Receiver<StreamEvent>| {
        tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
    };
    loop {
        if let StreamEvent::Synced(s) = next(&mut rx).await {
            held = Some(*s);
            break;
        }
    }
    let mut nonce = 5_000u64;
    for fault in ["drop", "stall"] {
        sim.control("/sim/faults", json!({"sse": fault})).await;
        // Trade while the stream is down or silent.
        nonce += 1;
        let open = OpenPosition {
            user: user.owner(),
            instrumentId: 0,
            isLong: true,
            size: 10 * WAD,
            leverage: 100,
            useDebt: false,
            nonce: U256::from(nonce),
            deadline: sim.now_s() + 3600,
        };
        assert_eq!(
            sim.post("/intents", &key.sign(open).unwrap().post().unwrap().body)
                .await
                .0,
            200
        );
        let mut saw_disconnect = false;
        loop {
            match next(&mut rx).await {
                StreamEvent::Disconnected { .. } => saw_disconnect = true,
                StreamEvent::Synced(s) if saw_disconnect => {
                    held = Some(*s);
                    break;
                }
                _ => {}
            }
        }
        // Follow the stream until it shows the open settled (nothing else moves this account),
        // then compare with a fresh snapshot.
        let settled = (nonce - 5_000) as usize;
        while held.as_ref().map(|h| h.open_positions.len()) != Some(settled) {
            if let StreamEvent::Patched { state, .. } | StreamEvent::Synced(state) =
                next(&mut rx).await
            {
                held = Some(*state);
            }
        }
        let fresh = sim.snapshot(user.owner()).await;
        let h = held.clone().unwrap();
        assert_eq!(h.open_positions, fresh.open_positions, "{fault}");
        assert_eq!(
            (h.balance, h.locked, h.account_revision),
            (fresh.balance, fresh.locked, fresh.account_revision),
            "{fault}"
        );
    }
    assert_eq!(held.unwrap().open_positions.len(), 2);
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_storms_are_ridden_out() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 100).await;
    sim.control("/sim/faults", json!({"readStatus": 503, "readFailures": 2}))
        .await;
    user.json(&["markets"]).await;
    sim.control(
        "/sim/faults",
        json!({"readStatus": 429, "retryAfterS": 1, "readFailures": 1}),
    )
    .await;
    let v = user.json(&["positions"]).await;
    assert_eq!(v["balanceUsd"], 100);
    sim.control("/sim/faults", json!({})).await;
}

/// The account reads' failures are filed under their own sources, not the trading state's or the
/// summary's (which would mark the wrong pane stale).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_read_failures_are_filed_under_their_own_sources() {
    use papertrade_tui::client::market::spawn_account_reads;
    use papertrade_tui::feed::market::{MarketEvent, Source};
    let sim = Sim::manual().await;
    sim.control("/sim/faults", json!({"readStatus": 503})).await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig {
            attempts: 1,
            ..HttpConfig::default()
        },
    );
    let (tx, mut rx) = mpsc::channel(8);
    let (_queued, queued_rx) = tokio::sync::watch::channel(true);
    let task = spawn_account_reads(
        http,
        Address::with_last_byte(5),
        Duration::from_secs(60),
        queued_rx,
        tx,
    );
    let mut failed = Vec::new();
    for _ in 0..2 {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
        {
            MarketEvent::Failed { source, error, .. } => failed.push((source, error)),
            other => panic!("expected a failure, got {other:?}"),
        }
    }
    task.abort();
    let sources: Vec<Source> = failed.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        sources,
        [Source::QueueRank, Source::RecentTrades],
        "{failed:?}"
    );
}

/// The queue rank is asked for only while the wallet has something queued: a quiet session
/// polls the recent trades alone, and a new queued intent has its place read at once, not at
/// the next tick.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_rank_is_polled_only_while_something_is_queued() {
    use papertrade_tui::client::market::spawn_account_reads;
    use papertrade_tui::feed::market::MarketEvent;
    let sim = Sim::manual().await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig::default(),
    );
    let (tx, mut rx) = mpsc::channel(8);
    let (queued, queued_rx) = tokio::sync::watch::channel(false);
    let task = spawn_account_reads(
        http,
        Address::with_last_byte(5),
        Duration::from_secs(60),
        queued_rx,
        tx,
    );
    let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(first, MarketEvent::RecentTrades(..)),
        "the first tick asks only the trades: {first:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(rx.try_recv().is_err(), "no rank was asked for");
    queued.send_replace(true);
    let ranked = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the rank is read at once, well before the 60 s tick")
        .unwrap();
    assert!(matches!(ranked, MarketEvent::QueueRank(..)), "{ranked:?}");
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn market_polling_reports_values_failures_and_staleness() {
    use papertrade_tui::app::Freshness;
    use papertrade_tui::client::market::{PollRates, candles, spawn_market_poller};
    use papertrade_tui::feed::market::{MarketEvent, Source};
    let sim = Sim::manual().await;
    sim.pin("ETH", "2500.00").await;
    let http = ExchangeHttp::new(
        &sim.server.base_url(),
        &sim.server.info_url(),
        HttpConfig {
            attempts: 1,
            ..HttpConfig::default()
        },
    );
    let (tx, mut rx) = mpsc::channel(64);
    let rates = PollRates {
        markets: Duration::from_millis(100),
        protocol: Duration::from_millis(300),
    };
    let task = spawn_market_poller(http.clone(), rates, tx);
    let mut fresh = Freshness::default();
    let mut seen = std::collections::HashSet::new();
    while seen.len() < 5 {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        match &event {
            MarketEvent::Trading(..) => seen.insert("trading"),
            MarketEvent::Mark {
                instrument_id: 1,
                raw,
                ..
            } => {
                assert_eq!(*raw, 250_000);
                seen.insert("eth")
            }
            MarketEvent::Mark { .. } => seen.insert("btc"),
            MarketEvent::Summary(..) => seen.insert("summary"),
            MarketEvent::RelayerHealth(h, _) => {
                assert!(h.is_ready());
                seen.insert("health")
            }
            MarketEvent::Failed { error, .. } => panic!("{error}"),
            MarketEvent::Candles { .. }
            | MarketEvent::QueueRank(..)
            | MarketEvent::RecentTrades(..)
            | MarketEvent::DayOpen { .. } => false,
        };
    }
    let now = std::time::SystemTime::now();
    assert!(fresh.age(Source::Trading, now).unwrap() < Duration::from_secs(2));
    assert!(fresh.age(Source::Account, now).is_none());
    // A read outage: failures are reported and the last good value ages.
    sim.control("/sim/faults", json!({"readStatus": 503})).await;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        if let MarketEvent::Failed {
            source: Source::Trading,
            ..
        } = event
        {
            break;
        }
    }
    assert!(fresh.error(Source::Trading).unwrap().contains("503"));
    sim.control("/sim/faults", json!({})).await;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        fresh.apply(&event);
        if let MarketEvent::Trading(..) = event {
            break;
        }
    }
    assert!(fresh.error(Source::Trading).is_none());
    task.abort();
    // Candles on demand.
    let now_ms = sim.server.shared.with_engine(|e| e.now_ms());
    let c = candles(&http, "BTC", "15m", 48, now_ms).await.unwrap();
    assert!((47..=49).contains(&c.len()), "{}", c.len());
    assert!(candles(&http, "BTC", "7m", 48, now_ms).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_error_is_unknown_not_refused() {
    use papertrade_tui::client::intents::{Submission, submit};
    use papertrade_tui::client::ledger::AuditLog;
    // A relayer behind a gateway that answers 502 with HTML: nothing says whether it queued.
    let app = axum::Router::new().route(
        "/intents",
        axum::routing::post(|| async {
            (
                axum::http::StatusCode::BAD_GATEWAY,
                "<html>bad gateway</html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let http = ExchangeHttp::new(&url, &format!("{url}/info"), HttpConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let key = papertrade_tui::protocol::eip712::SessionSigner::random();
    let open = OpenPosition {
        user: Address::repeat_byte(1),
        instrumentId: 0,
        isLong: true,
        size: 10 * WAD,
        leverage: 100,
        useDebt: false,
        nonce: U256::from(1u8),
        deadline: 1,
    };
    let signed = key.sign(open).unwrap();
    let result = submit(&http, &AuditLog::new(dir.path()), &signed, json!({}))
        .await
        .unwrap();
    assert!(matches!(result, Submission::Unknown { .. }), "{result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_close_ids_are_sent_once_and_fates_are_audited() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let id = user.open_long("ETH", "50", "20").await;
    let closed = user.json(&["close", &id, &id, "--yes"]).await;
    assert_eq!(closed["intents"][0]["positionIds"], json!([id]));
    assert_eq!(closed["intents"][0]["outcome"], "succeeded");
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let outcomes = audit
        .lines()
        .filter(|l| l.contains("\"event\":\"outcome\""))
        .count();
    // Register, open and close each ended with a recorded outcome.
    assert_eq!(outcomes, 3, "{audit}");
}

/// Fill the ticket's margin, raise the leverage by `tens` steps and review: `/`, clear it,
/// type, leave the field, `}` ×n, Enter.
pub(crate) fn ticket(ui: &Ui, margin: &str, tens: usize) {
    ui.type_text("/");
    // Clear whatever default the ticket was fitted to (at most 16 characters).
    ui.send_keys([KeyCode::Backspace; 16]);
    ui.type_text(margin);
    ui.send_keys([KeyCode::Esc]);
    ui.type_text(&"}".repeat(tens));
    ui.send_keys([KeyCode::Enter]);
}

/// Open a position from the ticket, close it from the Positions tab, quit — live mode against the
/// in-process simulator, checking the exchange's state after each confirmation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_ui_opens_and_closes_a_position_by_keyboard() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    let owner = user.owner();
    let ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    let mut ui = Ui::start(tui_run::setup(
        &ctx,
        Mode::Live,
        owner,
        Some(user.session()),
    ));
    let positions = || {
        sim.server
            .shared
            .with_engine(|e| e.account(owner).map_or(0, |a| a.state.open_positions.len()))
    };
    let first = ui.wait_for_text("notional").await;
    assert!(first.contains("LIVE"), "{first}");
    ticket(&ui, "100", 9);
    ui.wait_for_text("OPEN").await;
    ui.type_text("y");
    ui.wait_for_text("opened #").await;
    assert_eq!(
        positions(),
        1,
        "the UI says succeeded: the exchange holds the position"
    );
    let opened = sim
        .server
        .shared
        .with_engine(|e| e.account(owner).unwrap().state.open_positions[0].clone());
    assert_eq!(
        (opened.leverage, opened.margin, opened.entry_price),
        (100, 100 * WAD, 828_003)
    );
    ui.wait_for_text(&opened.id.to_string()).await;
    ui.type_text("2x");
    ui.wait_for_text("CLOSE").await;
    ui.type_text("y");
    ui.wait_for_text("closed 1 position").await;
    assert_eq!(positions(), 0);
    ui.quit().await.expect("the loop ends cleanly on q");
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    assert!(audit.contains("\"via\":\"tui\""));
}

/// A browser terminal link opens the ticket prefilled under its review banner, with what it got
/// wrong dropped one by one; nothing is signed until the dialog is confirmed, and then exactly
/// the link's values are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_link_prefills_the_ticket_and_only_the_confirmation_signs_it() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 5000).await;
    sim.pin("ETH", "2500.25").await;
    let owner = user.owner();
    let ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    let prefill = papertrade_tui::cli::PrefillArgs {
        link: Some(
            "https://papertrade-terminal.pages.dev/app/?market=eth&side=SHORT&margin=1%2C250.5&leverage=40&embed=1&side=long"
                .into(),
        ),
        ..Default::default()
    };
    let setup =
        papertrade_tui::cli::ui_setup(&ctx, Mode::Live, owner, Some(user.session()), &prefill)
            .unwrap();
    let mut ui = Ui::start(setup);
    let positions = || {
        sim.server
            .shared
            .with_engine(|e| e.account(owner).map_or(0, |a| a.state.open_positions.len()))
    };
    let first = ui.wait_for_text("notional").await;
    assert!(first.contains("⚑ from a link"), "{first}");
    assert!(
        first.contains("ETH ▲ LONG  40x"),
        "a side given twice is dropped: {first}"
    );
    assert!(first.contains("margin $1250.5"), "{first}");
    assert!(first.contains("side dropped"), "{first}");
    ui.settle(Duration::from_millis(300)).await;
    assert_eq!(positions(), 0, "a link never signs");
    ui.send_keys([KeyCode::Enter]);
    let dialog = ui.wait_for_text("OPEN").await;
    assert!(dialog.contains("came from a link"), "{dialog}");
    ui.type_text("y");
    ui.wait_for_text("opened #").await;
    let opened = sim
        .server
        .shared
        .with_engine(|e| e.account(owner).unwrap().state.open_positions[0].clone());
    assert_eq!(
        (
            opened.instrument_id,
            opened.is_long,
            opened.leverage,
            opened.margin
        ),
        (1, true, 40, 1_250_500_000_000_000_000_000)
    );
    let after = ui.settle(Duration::from_millis(300)).await;
    assert!(
        !after.contains("⚑ from a link"),
        "confirmed: the banner goes: {after}"
    );
    ui.quit().await.expect("the loop ends cleanly on q");
}

/// The whole life of money from the terminal UI: HyperCore USDC deposited through the Fund tab
/// (planned, reviewed, signed by the owner's keystore, credited by the sweeper), a position
/// opened and closed from the ticket, and USDC withdrawn back to HyperCore — against the
/// simulator, checked against its state at each step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fund_tab_deposits_and_withdraws_around_a_trade() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 100).await;
    sim.pin("BTC", "82800.3").await;
    let owner = user.owner();
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{owner:#x}"), "amountUsd": "60"}),
    )
    .await;
    let mut ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    ctx.http = ctx
        .http
        .with_rpc_url(&format!("{}/evm", sim.server.base_url()));
    let core = ctx.http.clone();
    let mut ui = Ui::start(tui_run::setup(
        &ctx,
        Mode::Live,
        owner,
        Some(user.session()),
    ));
    let balance = || {
        sim.server
            .shared
            .with_engine(|e| e.account(owner).map_or(0, |a| a.state.balance))
    };
    ui.wait_for_text("notional").await;
    ui.type_text("8");
    let spot_line = |s: &str, usdc: &str| {
        s.lines()
            .any(|l| l.contains("free to send") && l.contains(&format!(" {usdc}│")))
    };
    ui.wait_for(|s| spot_line(s, "60")).await;
    ui.type_text("/30");
    ui.send_keys([KeyCode::Enter]);
    let review = ui.wait_for_text("HyperCore is debited").await;
    assert!(review.contains("debited 31"), "{review}");
    assert_eq!(balance(), 100 * WAD, "a review signs nothing");
    ui.type_text("y");
    ui.type_text(user.owner_keystore.to_str().unwrap());
    ui.send_keys([KeyCode::Enter]);
    ui.type_text(OWNER_PASS);
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("deposit credited: 30 USDC").await;
    assert_eq!(balance(), 130 * WAD);
    assert_eq!(
        core.spot_usdc(owner).await.unwrap().total_usdc(),
        29_000_000
    );

    ui.type_text("1");
    ticket(&ui, "100", 9);
    ui.wait_for_text("OPEN").await;
    ui.type_text("y");
    ui.wait_for_text("opened #").await;
    ui.type_text("2x");
    ui.wait_for_text("CLOSE").await;
    ui.type_text("y");
    ui.wait_for_text("closed 1 position").await;
    let after_trade = balance();

    ui.type_text("8");
    ui.send_keys([KeyCode::Down]);
    ui.type_text("/50");
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("WITHDRAW 50 USDC").await;
    ui.type_text("y");
    // The keystore's path is remembered from the deposit.
    ui.send_keys([KeyCode::Enter]);
    ui.type_text(OWNER_PASS);
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("withdrawal arrived: 50 USDC").await;
    assert_eq!(balance(), after_trade - 50 * WAD);
    assert_eq!(
        core.spot_usdc(owner).await.unwrap().total_usdc(),
        79_000_000
    );
    ui.quit().await.expect("the loop ends cleanly on q");
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    assert!(audit.contains("\"hypercoreAccepted\""), "{audit}");
    assert!(!audit.contains(OWNER_PASS), "no secret in the audit log");
}

/// A position closed in the UI is in the History tab after a restart on the same data dir, with
/// its entry, the exchange's exit and the totals — and in `--watch` of the same wallet too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_survives_a_restart() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    let owner = user.owner();
    let ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    let mut ui = Ui::start(tui_run::setup(
        &ctx,
        Mode::Live,
        owner,
        Some(user.session()),
    ));
    ui.wait_for_text("notional").await;
    ticket(&ui, "100", 9);
    ui.wait_for_text("OPEN").await;
    ui.type_text("y");
    ui.wait_for_text("opened #").await;
    let id = sim.server.shared.with_engine(|e| {
        e.account(owner).unwrap().state.open_positions[0]
            .id
            .to_string()
    });
    ui.wait_for_text(&id).await;
    // Up 0.24 %: a win. A long's exit is the mark less the deadband (entry / 50000 = 16 raw).
    sim.pin("BTC", "83000").await;
    ui.type_text("2x");
    ui.wait_for_text("CLOSE").await;
    ui.type_text("y");
    ui.wait_for_text("closed 1 position").await;
    ui.type_text("3");
    // The recent-trades feed (polled every 3 s) brings the exit; wait for it to be recorded.
    let row = |s: &str| {
        s.lines()
            .find(|l| l.contains(&id) && l.contains("closed"))
            .map(str::to_string)
    };
    let before = ui
        .wait_for(|s| row(s).is_some_and(|r| r.contains("82,998.4")))
        .await;
    let before_row = row(&before).unwrap();
    assert!(
        before_row.contains("BTC ▲L  100x  82,800.3  82,998.4  +$"),
        "{before_row}"
    );
    assert!(
        !before_row.contains('~'),
        "the exchange's time: {before_row}"
    );
    ui.quit().await.expect("the loop ends cleanly on q");
    let file = user.data().join(format!("history/{owner:#x}.jsonl"));
    // Records, not the marks of what each view saw whole (`history_coverage`).
    let records = || {
        std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("{\"mark\""))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let lines = records();
    assert_eq!(lines.len(), 2, "the close, then its exit:\n{lines:?}");

    // A new process on the same data dir: the history is there before the stream says a word.
    for watch in [false, true] {
        let mut ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
        let setup = if watch {
            ctx.watch = Some(owner);
            tui_run::prepare(&ctx).await
        } else {
            tui_run::setup(&ctx, Mode::Live, owner, Some(user.session()))
        };
        let mut ui = Ui::start(setup);
        ui.type_text("3");
        let after = ui.wait_for_text("1 closed · net +$").await;
        assert_eq!(row(&after), Some(before_row.clone()), "{after}");
        assert!(
            after.contains("win rate 100.0% (1 won, 0 liquidated)"),
            "{after}"
        );
        assert!(
            after.contains(&format!("History of {}", &format!("{owner:#x}")[..6])),
            "{after}"
        );
        ui.quit().await.expect("the loop ends cleanly on q");
    }
    // Nothing new was learnt: no record appended.
    assert_eq!(records(), lines);
}

/// `papertrade-tui demo`, a new user's first command: open, see, close — by keyboard only. The one
/// end-to-end run of the real binary in a terminal: raw keys parsed by crossterm, synchronized
/// frames, the alternate screen entered and left.
#[test]
fn the_demo_trades_a_round_trip_by_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("PATH", "/usr/bin:/bin".to_string()),
        ("HOME", dir.path().display().to_string()),
        (
            "PAPERTRADE_TUI_DATA_DIR",
            dir.path().join("data").display().to_string(),
        ),
    ]
    .map(|(k, v)| (k.to_string(), v));
    let mut pty = Pty::spawn(&["demo".into(), "--crowd".into(), "2".into()], &env);
    pty.expect("notional");
    assert!(pty.contents().contains("DEMO"));
    // Not the default margin ($100 fits the minimums at 10x), so the screen can only show it
    // once the keys were read.
    pty.keys(b"/\x7f\x7f\x7f\x7f120\x1b");
    // A terminal reads ESC followed at once by a key as Alt+key: send the next key only once
    // the screen shows the field left (its hint gone).
    assert!(
        pty.wait_for(Duration::from_secs(20), |s| {
            let c = s.contents();
            // The hint bar must show the ticket's commands (a partly received frame may
            // lack the old hint line without being the new frame yet), and no field cursor.
            c.contains("margin $120")
                && !c.contains("margin $120▏")
                && c.contains("B/S side")
                && !c.contains("leave the field")
        }),
        "the margin field was not left; the screen:\n{}",
        pty.contents()
    );
    pty.keys(&[b'}'; 9]);
    // Review refuses (with the reason) until the relayer has been heard from: press Enter once
    // the ticket says the order can be signed, as a person would.
    assert!(
        pty.wait_for(Duration::from_secs(20), |s| {
            let c = s.contents();
            c.contains("100x") && c.contains("passes the open checks") && !c.contains("cannot sign")
        }),
        "the ticket never became signable; the screen:\n{}",
        pty.contents()
    );
    pty.keys(b"\r");
    pty.expect("OPEN");
    pty.keys(b"y");
    pty.expect("opened #");
    pty.keys(b"2x");
    pty.expect("CLOSE");
    pty.keys(b"y");
    pty.expect("closed 1 position");
    pty.keys(b"q");
    let end = pty.finish(Duration::from_secs(10));
    assert!(
        end.status.is_some_and(|s| s.success()),
        "exit {:?}\n{}",
        end.status,
        end.stderr
    );
    assert!(end.restored, "left on the alternate screen");
    // Each frame is one synchronized update: the terminal never shows half of one.
    assert!(end.drawn.contains("\u{1b}[?2026h") && end.drawn.contains("\u{1b}[?2026l"));
}

/// An exchange that accepts connections and never answers: the UI draws at once, says it is
/// connecting, and `q` quits at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_draws_at_once_and_quits_while_the_exchange_is_silent() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    // Accept and hold every connection, answering nothing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in silent.incoming().flatten() {
            held.push(c);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = tui_run::context(
        &format!("http://{addr}"),
        &format!("http://{addr}/info"),
        dir.path(),
        None,
    );
    ctx.watch = Some(Address::repeat_byte(0xa1));
    let started = std::time::Instant::now();
    let mut ui = Ui::start(tui_run::prepare(&ctx).await);
    let first = ui.wait_for_text("connecting to the exchange").await;
    // Real time is the point: the frame must not wait on any read of the exchange.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "first frame after {:?}",
        started.elapsed()
    );
    assert!(first.contains("WATCH"), "{first}");
    // `quit` allows q three seconds.
    ui.quit().await.expect("the loop ends cleanly on q");
}

/// `--watch` on a crowd wallet of the simulator: read-only, no key in the process, and B + Enter
/// says why instead of opening a dialog.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_a_crowd_wallet_in_the_ui_is_read_only() {
    let sim = Sim::start(SimConfig {
        seed: 2,
        crowd: 3,
        ..SimConfig::default()
    })
    .await;
    let wallet = sim.server.shared.with_engine(|e| e.crowd.wallets()[0]);
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = tui_run::context(
        &sim.server.base_url(),
        &sim.server.info_url(),
        dir.path(),
        None,
    );
    // The command line also locks signing process-wide for `--watch` before any command runs
    // (pinned through `positions --watch` by `watch_mode_constructs_no_signer`); a test binary
    // shares its process with tests that sign, so none is taken here.
    ctx.watch = Some(wallet);
    let setup = tui_run::prepare(&ctx).await;
    assert!(setup.session.is_none(), "no key material when watching");
    let mut ui = Ui::start(setup);
    ui.wait_for(|s| s.contains("WATCH") && s.contains("notional"))
        .await;
    ui.type_text("b");
    ui.send_keys([KeyCode::Enter]);
    // The ticket always says "read-only" and `b` is answered too: wait for Enter's answer.
    let after = ui.wait_for_text("no key is loaded").await;
    assert!(
        !after.contains("Confirm"),
        "no dialog in watch mode:\n{after}"
    );
    ui.quit().await.expect("the loop ends cleanly on q");
}

/// A quiet market costs no frames: watching a wallet with open positions on a simulator whose
/// clock stands still, the UI polls every read ten times a second and hears a heartbeat as
/// often, and draws nothing while the same data comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_market_draws_no_frames() {
    let sim = Sim::start(SimConfig {
        seed: 5,
        crowd: 3,
        manual_clock: true,
        heartbeat_ms: 100,
        ..SimConfig::default()
    })
    .await;
    // Five minutes of the crowd trading, then the clock stands still.
    for _ in 0..10 {
        sim.advance(30_000).await;
    }
    let wallet = sim.server.shared.with_engine(|e| {
        let held = |w: &Address| {
            e.account(*w).map_or((false, 0), |a| {
                (a.state.operations.is_empty(), a.state.open_positions.len())
            })
        };
        e.crowd.wallets().into_iter().max_by_key(held).unwrap()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = tui_run::context(
        &sim.server.base_url(),
        &sim.server.info_url(),
        dir.path(),
        None,
    );
    ctx.watch = Some(wallet);
    ctx.rates = PollRates {
        markets: Duration::from_millis(100),
        protocol: Duration::from_millis(100),
    };
    let mut ui = Ui::start(tui_run::prepare(&ctx).await);
    ui.wait_for(|s| s.contains("WATCH") && s.contains("notional") && s.contains(" ▲ "))
        .await;
    // The first answer of each read is a change; then only the same data comes back.
    ui.settle(Duration::from_secs(1)).await;
    let before = ui.frames_drawn();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        ui.frames_drawn() - before,
        0,
        "frames drawn while nothing changed; the screen:\n{}",
        ui.screen()
    );
    ui.quit().await.expect("the loop ends cleanly on q");
}

/// With nothing arriving that changes anything, time alone still redraws where the screen
/// counts it: the mark is polled once a minute and the ticket's gate says each second how old
/// it is past `[ui] max_mark_age_s`. Only the account reads arrive meanwhile, every 3 s, so
/// each second is drawn by the loop's own wake-up, not by a message that happened to come.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_age_past_its_limit_is_drawn_as_it_counts() {
    let sim = Sim::start(SimConfig {
        seed: 21,
        crowd: 0,
        heartbeat_ms: 60_000,
        relayer_delay_ms: 300,
        ..SimConfig::default()
    })
    .await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    let owner = user.owner();
    let mut ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    ctx.ui.max_mark_age_s = Some(1);
    ctx.rates = PollRates {
        markets: Duration::from_secs(60),
        protocol: Duration::from_secs(60),
    };
    let mut ui = Ui::start(tui_run::setup(
        &ctx,
        Mode::Live,
        owner,
        Some(user.session()),
    ));
    for age in ["1s", "2s", "3s"] {
        ui.wait_for_text(&format!("the mark is {age} old")).await;
    }
    ui.quit().await.expect("the loop ends cleanly on q");
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

#[cfg(unix)]
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A data dir the user hands in keeps its mode through a signed intent (the audit log used to
/// chmod it 0700: `--data-dir /tmp` would have locked everyone else out of /tmp). Only our
/// own subdirectories and the audit file are made private. Also with a sticky 1777 dir.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handed_in_data_dir_keeps_its_mode_after_a_signed_intent() {
    let sim = live_sim().await;
    for handed_in in [0o755, 0o1777] {
        let user = User::new(&sim);
        std::fs::create_dir(user.data()).unwrap();
        chmod(&user.data(), handed_in);
        make_ready(&sim, &user, 100).await;
        let data = user.data();
        let audit = std::fs::read_to_string(data.join("audit.jsonl")).unwrap();
        assert!(audit.contains("\"signed\""), "a signed intent was audited");
        assert_eq!(mode_of(&data), handed_in, "the data dir's mode changed");
        for ours in ["keys", "nonces", "logs"] {
            assert_eq!(mode_of(&data.join(ours)), 0o700, "{ours}/");
        }
        assert_eq!(mode_of(&data.join("audit.jsonl")), 0o600);
    }
}

/// In a world-writable dir without the sticky bit anyone could swap our files: refused.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_world_writable_data_dir_without_the_sticky_bit_is_refused() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    std::fs::create_dir(user.data()).unwrap();
    chmod(&user.data(), 0o777);
    let out = user.run(&["key", "new"]).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("writable by every user") && err.contains("sticky bit"),
        "{err}"
    );
    assert!(
        !user.data().join("keys").exists(),
        "nothing was written there"
    );
    assert_eq!(mode_of(&user.data()), 0o777);
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

/// A data dir restored from a backup (or copied from another machine) hands out a nonce the
/// exchange has seen: the refusal says why and what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_nonce_explains_the_stale_nonce_store() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let nonces = user
        .data()
        .join("nonces")
        .join(format!("{:#x}.json", user.owner()));
    let backup = std::fs::read(&nonces).unwrap();
    let open = [
        "open",
        "--market",
        "BTC",
        "--side",
        "long",
        "--margin",
        "10",
        "--leverage",
        "100",
        "--yes",
    ];
    let first = user.run(&open).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    std::fs::write(&nonces, backup).unwrap();
    let again = user.run(&open).await;
    let err = text(&again.stderr);
    assert_eq!(again.status.code(), Some(3), "{err}");
    assert!(err.contains("nonce_used"), "{err}");
    assert!(
        err.contains("<data dir>/nonces/") && err.contains("copied"),
        "the refusal must explain the stale nonce store: {err}"
    );
}

/// The arguments of an `open` with `--yes`.
fn open_args<'a>(
    market: &'a str,
    side: &'a str,
    margin: &'a str,
    leverage: &'a str,
) -> [&'a str; 10] {
    [
        "open",
        "--market",
        market,
        "--side",
        side,
        "--margin",
        margin,
        "--leverage",
        leverage,
        "--yes",
    ]
}

/// The `signed` audit entries of one action: (unix ms written, deadline in unix seconds).
fn signed_deadlines(user: &User, action: &str) -> Vec<(u64, u64)> {
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap_or_default();
    audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "signed" && e["action"] == action)
        .map(|e| {
            let deadline = e["deadline"].as_str().unwrap().parse().unwrap();
            (e["ts"].as_u64().unwrap(), deadline)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_is_checked_before_the_passphrase_is_asked_for() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1_000).await;
    // $10 at 10x is $100 of notional, under the market's minimum. With a wrong passphrase in the
    // environment, unlocking first would fail on the passphrase; checking first names the rule.
    let mut command = user.command(&open_args("BTC", "long", "10", "10"));
    command.env("PAPERTRADE_TUI_PASSPHRASE", "not the passphrase");
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("would refuse this open") && err.contains("notional"),
        "{err}"
    );
    assert!(!err.to_lowercase().contains("passphrase"), "{err}");
    assert_eq!(signers(&out), 0);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opens_and_closes_carry_short_deadlines_that_the_config_sets() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 5_000).await;
    let id = user.open_long("BTC", "100", "10").await;
    let [(ts, deadline)] = signed_deadlines(&user, "openPosition")[..] else {
        panic!("one signed open");
    };
    // Two minutes from signing, not the SDK's hour.
    assert!((ts / 1000).abs_diff(deadline - 120) <= 1, "{ts} {deadline}");

    let config = user.dir.path().join("config/papertrade-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[deadlines]\nopen_s = 45\nclose_s = 90\n",
    )
    .unwrap();
    user.open_long("BTC", "100", "10").await;
    let (ts, deadline) = signed_deadlines(&user, "openPosition")[1];
    assert!((ts / 1000).abs_diff(deadline - 45) <= 1, "{ts} {deadline}");
    user.json(&["close", &id, "--yes"]).await;
    let [(ts, deadline)] = signed_deadlines(&user, "closePositions")[..] else {
        panic!("one signed close");
    };
    assert!((ts / 1000).abs_diff(deadline - 90) <= 1, "{ts} {deadline}");

    // Out of range is refused with the key named, and nothing is signed.
    std::fs::write(config.join("config.toml"), "[deadlines]\nopen_s = 5\n").unwrap();
    let out = user.run(&open_args("BTC", "long", "100", "10")).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("deadlines.open_s"));
    assert_eq!(signed_deadlines(&user, "openPosition").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_other_side_of_a_held_market_is_refused_before_signing() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 5_000).await;
    let id = user.open_long("ETH", "100", "10").await;
    let out = user.run(&open_args("ETH", "short", "100", "10")).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("holds a long ETH position (#{id})")),
        "{err}"
    );
    assert_eq!(signers(&out), 0, "nothing was signed");
    // The other market is its own: a BTC short opens.
    let out = user
        .run(&[&open_args("BTC", "short", "100", "10")[..], &["--json"]].concat())
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
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
