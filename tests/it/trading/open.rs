//! An open from the command line: what is checked before anything is signed (the side rule, the
//! market's minimums, the deadlines the config sets) and the exit status its fate gives.

use std::process::{Output, Stdio};

use serde_json::{Value, json};

use crate::simkit::Sim;
use crate::support::open_args;

use super::user::{User, live_sim, ready_user, signers, text};

/// The exit status follows what happened to the intent: 0 settled as asked, 3 refused by the
/// relayer (with the exchange's code), 4 failed, 5 no fate seen yet. One JSON document each time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_status_follows_the_outcome() {
    let sim = Sim::live(23, 2_500).await;
    let user = ready_user(&sim, 2000).await;
    let open_btc = open_args("BTC", "long", "50", "25", &["--json"]);
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
    let mut c = user.command(&open_args("ETH", "short", "50", "25", &["--json"]));
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
    let open_eth = |side: &'static str| open_args("ETH", side, "50", "25", &["--json"]);
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
    let out = user
        .run(&open_args("BTC", "short", "50", "25", &["--json"]))
        .await;
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
        open_args("BTC", side, margin, "10", &["--json"])
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_other_side_of_a_held_market_is_refused_before_signing() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 5_000).await;
    let id = user.open_long("ETH", "100", "10").await;
    let out = user.run(&open_args("ETH", "short", "100", "10", &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("holds a long ETH position (#{id})")),
        "{err}"
    );
    assert_eq!(signers(&out), 0, "nothing was signed");
    // The other market is its own: a BTC short opens.
    let out = user
        .run(&open_args("BTC", "short", "100", "10", &["--json"]))
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_is_checked_before_the_passphrase_is_asked_for() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1_000).await;
    // $10 at 10x is $100 of notional, under the market's minimum. With a wrong passphrase in the
    // environment, unlocking first would fail on the passphrase; checking first names the rule.
    let mut command = user.command(&open_args("BTC", "long", "10", "10", &[]));
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
    let open = open_args("BTC", "long", "10", "100", &[]);
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
    let out = user.run(&open_args("BTC", "long", "100", "10", &[])).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("deadlines.open_s"));
    assert_eq!(signed_deadlines(&user, "openPosition").len(), 2);
}
