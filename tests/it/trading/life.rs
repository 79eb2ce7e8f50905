//! A trader's whole life on the command line: a session key made and registered, an open at a
//! pinned mid, the close quoted and paid to the raw unit, a withdrawal, and no secret left behind.

use serde_json::{Value, json};

use crate::simkit::SEED_CLOSE_NET_PNL;
use crate::support::open_args;

use super::user::{OWNER_PASS, SESSION_PASS, User, WAD, live_sim, text};

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
    let out = user.run(&open_args("BTC", "long", "100", "10", &[])).await;
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
        .json(&open_args("BTC", "long", "100", "500", &[]))
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
    let pays = (100 * WAD) as i128 + SEED_CLOSE_NET_PNL;
    let listed = user.json(&["positions"]).await;
    let row = &listed["positions"][0];
    assert_eq!(
        row["closeNetPnlRaw"],
        SEED_CLOSE_NET_PNL.to_string(),
        "{row}"
    );
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
        SEED_CLOSE_NET_PNL.to_string()
    );
    let listed = user.json(&["positions"]).await;
    assert_eq!(
        listed["balanceRaw"],
        ((1000 * WAD) as i128 + SEED_CLOSE_NET_PNL).to_string()
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
