//! Enabling trading from inside the UI: it opens with no session key (trading not enabled), and
//! its key panel generates a key, has the owner register it (keystore file or a pasted external
//! signature), and clears it — against the in-process simulator, checking the exchange's state.

use alloy_primitives::Address;
use papertrade_tui::app::Mode;
use papertrade_tui::keys::{Backend, Passphrase, SessionKeys};
use papertrade_tui::protocol::eip712::{Intent, RegisterSessionKey, Strictness, WalletSigner};
use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};

use crate::simkit::Sim;
use crate::trading::{OWNER_PASS, SESSION_PASS, User, live_sim, ticket};
use crate::tui_run::{self, Ui};

/// The session key the exchange lists for `owner`, if any.
fn registered(sim: &Sim, owner: Address) -> Vec<Address> {
    sim.server.shared.with_engine(|e| {
        e.account(owner)
            .map(|a| a.state.session_keys.iter().map(|k| k.key).collect())
            .unwrap_or_default()
    })
}

async fn fund(sim: &Sim, user: &User) {
    sim.control(
        "/sim/fund",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "1000"}),
    )
    .await;
}

/// A new user's first start: no key anywhere. The UI opens anyway, says trading is not
/// enabled, and the panel takes them to a position: generate (passphrase typed twice, masked),
/// register with the owner's keystore (its passphrase typed, masked), open from the ticket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_key_the_ui_opens_and_its_panel_enables_trading() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    fund(&sim, &user).await;
    sim.pin("BTC", "82800.3").await;
    let owner = user.owner();
    let ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    // The command line's own setup: before this change it refused to open without a key.
    let mut ui = Ui::start(tui_run::prepare(&ctx).await);
    let first = ui.wait_for_text("trading is not enabled").await;
    assert!(first.contains("NO SESSION KEY (G)"), "{first}");
    // Review is refused with the same reason: nothing to sign with.
    ui.send_keys([KeyCode::Enter]);
    assert!(!ui.screen().contains("Confirm"), "{}", ui.screen());

    ui.type_text("g");
    ui.wait_for_text("generate a new session key").await;
    ui.type_text("n");
    ui.wait_for_text("passphrase (new)").await;
    ui.type_text(SESSION_PASS);
    let typed = ui.wait_for_text("••••").await;
    assert!(!typed.contains(SESSION_PASS), "{typed}");
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("passphrase (again)").await;
    ui.type_text(SESSION_PASS);
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("KEY NOT REGISTERED").await;
    let keys = SessionKeys::new(&user.data(), Some(Backend::Keystore));
    let (stored, _) = keys
        .load(owner, || Ok(Passphrase::new(SESSION_PASS.into())))
        .unwrap()
        .expect("the new key is stored, under the typed passphrase");

    ui.type_text("r");
    ui.wait_for_text("file:").await;
    ui.type_text(user.owner_keystore.to_str().unwrap());
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("owner keystore passphrase").await;
    ui.type_text(OWNER_PASS);
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("usable for 29d").await;
    assert_eq!(registered(&sim, owner), vec![stored.address()]);
    ui.send_keys([KeyCode::Esc]);

    ticket(&ui, "100", 9);
    ui.wait_for_text("OPEN").await;
    ui.type_text("y");
    ui.wait_for_text("Positions (1)").await;
    let held = sim
        .server
        .shared
        .with_engine(|e| e.account(owner).map_or(0, |a| a.state.open_positions.len()));
    assert_eq!(held, 1, "the new key signed an open the exchange settled");
    ui.quit().await.expect("the loop ends cleanly on q");
    // Neither passphrase is anywhere in the data dir (logs, audit, key metadata).
    let files = user.all_text();
    assert!(!files.contains(SESSION_PASS) && !files.contains(OWNER_PASS));
}

/// An unregistered key, registered by an external wallet: the typed data goes to a file, a
/// signature by another wallet is refused with nothing sent, the owner's is sent and listed;
/// then the panel clears the key from the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_registers_with_a_pasted_signature_and_clears_the_key() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    fund(&sim, &user).await;
    user.json(&["key", "new"]).await;
    let owner = user.owner();
    let ctx = tui_run::context(&user.api, &user.info, &user.data(), Some(owner));
    let mut ui = Ui::start(tui_run::setup(
        &ctx,
        Mode::Live,
        owner,
        Some(user.session()),
    ));
    ui.wait_for_text("KEY NOT REGISTERED").await;
    ui.type_text("g");
    ui.wait_for_text("generate a new session key").await;
    ui.type_text("e");
    ui.wait_for_text("paste the 0x").await;
    let file = user.data().join("register-session-key.json");
    let request: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(request["method"], "eth_signTypedData_v4");
    assert_eq!(request["params"][0], format!("{owner:#x}"));
    let intent = RegisterSessionKey::from_message(
        request["typedData"]["message"].as_object().unwrap(),
        Strictness::Lenient,
    )
    .unwrap();
    assert_eq!(intent.key, user.session().1.key);
    let hex = |signer: &WalletSigner| {
        let sig = signer.sign(intent.clone()).unwrap().signature().as_bytes();
        format!(
            "0x{}",
            sig.iter().map(|b| format!("{b:02x}")).collect::<String>()
        )
    };

    ui.type_text(&hex(&WalletSigner::random()));
    ui.send_keys([KeyCode::Enter]);
    let refused = ui.wait_for_text("nothing was sent").await;
    assert!(refused.contains("signature"), "{refused}");
    assert!(registered(&sim, owner).is_empty());
    let operations = sim
        .server
        .shared
        .with_engine(|e| e.account(owner).map_or(0, |a| a.state.operations.len()));
    assert_eq!(operations, 0, "a refused signature sends nothing");

    let owner_signer = WalletSigner::from_bytes(&user.owner_key.to_bytes()).unwrap();
    ui.type_text(&hex(&owner_signer));
    ui.send_keys([KeyCode::Enter]);
    ui.wait_for_text("usable for 29d").await;
    assert_eq!(registered(&sim, owner), vec![intent.key]);

    ui.type_text("c");
    ui.wait_for_text("y removes it").await;
    ui.type_text("y");
    ui.wait_for_text("session key removed").await;
    let keys = SessionKeys::new(&user.data(), Some(Backend::Keystore));
    assert!(
        keys.load(owner, || Ok(Passphrase::new(SESSION_PASS.into())))
            .unwrap()
            .is_none(),
        "cleared from the store"
    );
    ui.send_keys([KeyCode::Esc]);
    ui.wait_for_text("NO SESSION KEY").await;
    ui.quit().await.expect("the loop ends cleanly on q");
}

/// Watch mode has no key store: the panel does not open and nothing can be generated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_mode_offers_no_key_panel() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    let owner = user.owner();
    let mut ctx = tui_run::context(&user.api, &user.info, &user.data(), None);
    ctx.watch = Some(owner);
    let mut ui = Ui::start(tui_run::prepare(&ctx).await);
    ui.wait_for_text("WATCH").await;
    ui.type_text("g");
    ui.wait_for_text("read-only").await;
    assert!(!ui.screen().contains("Session key"), "{}", ui.screen());
    ui.quit().await.expect("the loop ends cleanly on q");
    assert!(!user.data().join("keys").exists());
}
