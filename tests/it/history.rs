//! The one local history of a wallet: every close any command of this machine sees goes into it,
//! and it says since when it is complete.

use alloy_primitives::U256;
use papertrade_tui::protocol::eip712::Close;
use serde_json::Value;

use crate::trading::{live_sim, ready_user};

fn ids(history: &Value) -> Vec<String> {
    history["trades"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["position_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_close_is_in_the_history_and_one_nobody_here_saw_is_a_gap() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    let owner = format!("{:#x}", user.owner());
    let first = user.open_long("BTC", "100", "10").await;
    sim.pin("BTC", "82900").await;
    let closed = user.json(&["close", &first, "--yes"]).await;
    let net = closed["closed"][0]["netPnlRaw"]
        .as_str()
        .unwrap()
        .to_string();

    // No UI ever ran: the close the CLI saw is in the history, with its exact figures and entry.
    let history = user.json(&["history", &owner]).await;
    assert_eq!(ids(&history), std::slice::from_ref(&first), "{history}");
    let row = &history["trades"][0];
    assert_eq!(row["net_pnl_raw"], net.as_str());
    assert_eq!(row["entry"], 82_800.3);
    assert!(
        row["sources"]
            .as_array()
            .unwrap()
            .contains(&Value::from("history_file")),
        "{row}"
    );
    let complete = &history["complete"];
    assert!(complete["complete_since"].as_u64().is_some(), "{complete}");
    assert_eq!(complete["gaps"], Value::Array(vec![]), "{complete}");
    let since = complete["complete_since"].as_u64().unwrap();

    // Another machine (or the browser terminal) opens and closes while nothing here runs.
    let second = user.open_long("BTC", "100", "20").await;
    let key = user.session().0;
    let close = Close {
        user: user.owner(),
        positionIds: vec![second.parse::<U256>().unwrap()],
        nonce: U256::from(777_000u64),
        deadline: sim.now_s() + 3600,
    };
    let marks_before = marks(&user);
    // The close is posted straight to the exchange: no process of this data dir follows it.
    let (status, answer) = sim
        .post("/intents", &key.sign(close).unwrap().post().unwrap().body)
        .await;
    assert_eq!(status, 200, "{answer}");
    let mut stream = sim.stream(user.owner()).await;
    stream
        .until("the unseen close settled", |s| s.open_positions.is_empty())
        .await;
    assert_eq!(marks(&user), marks_before, "nothing here followed it");

    // The history does not pretend: it is complete only since this command synced, and it names
    // what was missed.
    let history = user.json(&["history", &owner]).await;
    let complete = &history["complete"];
    let gaps = complete["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{complete}");
    assert_eq!(gaps[0]["unseen_position_ids"][0], second.as_str());
    assert!(complete["complete_since"].as_u64().unwrap() > since);
    assert!(
        complete["summary"]
            .as_str()
            .unwrap()
            .contains("were not seen"),
        "{complete}"
    );
    let out = user.run(&["history", &owner]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("complete since"), "{text}");
    assert!(text.contains(&format!("#{second}")), "{text}");
}

/// The mark lines in the history file.
fn marks(user: &crate::trading::User) -> usize {
    let file = user
        .data()
        .join(format!("history/{:#x}.jsonl", user.owner()));
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("{\"mark\""))
        .count()
}

/// A close this machine sent but stopped waiting for, settled while nothing here followed the
/// wallet: the next command learns its fate from the audit log and the stream, and the history
/// names the intent that closed the position (its figures were never seen, so none are shown).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_only_the_audit_log_accounts_for_is_named_in_the_history() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    sim.pin("BTC", "82800.3").await;
    let owner = format!("{:#x}", user.owner());
    let position = user.open_long("BTC", "100", "10").await;
    // Exits right after sending (a pending fate exits non-zero; the JSON says what is known).
    let out = user
        .run(&["close", &position, "--yes", "--wait", "0", "--json"])
        .await;
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    let intent = sent["intents"][0]["intentId"]
        .as_str()
        .unwrap_or_else(|| panic!("{sent}"))
        .to_string();
    assert_eq!(sent["intents"][0]["outcome"], "pending", "{sent}");
    let mut stream = sim.stream(user.owner()).await;
    stream
        .until("the close settled", |s| s.open_positions.is_empty())
        .await;

    let history = user.json(&["history", &owner]).await;
    let gaps = history["complete"]["gaps"].as_array().unwrap().clone();
    assert_eq!(gaps.len(), 1, "{history}");
    assert_eq!(gaps[0]["unseen_position_ids"][0], position.as_str());
    assert_eq!(gaps[0]["closed_here"][0]["position_id"], position.as_str());
    assert_eq!(gaps[0]["closed_here"][0]["intent_id"], intent.as_str());
    let line = std::fs::read_to_string(user.data().join(format!("history/{owner}.jsonl")))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"closedHere\""))
        .count();
    assert_eq!(
        line, 1,
        "the close is kept in the wallet's history file, once"
    );
    // Said the same way to a person, and again by a later command (from the file).
    for _ in 0..2 {
        let out = user.run(&["history", &owner]).await;
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!(
                "#{position} closed by this machine's intent {intent}, its figures unseen"
            )),
            "{text}"
        );
    }
}
