//! The exploring tabs in the real UI loop against a crowded simulator, watching a wallet (no key
//! in the process): the board sorted by balance puts the engine's richest wallet first, Enter
//! opens it read-only with the engine's own figures, `/` opens any address, and a hostile
//! leaderboard name reaches the screen stripped of its escape sequence.

use alloy_primitives::Address;
use papertrade_tui::sim::SimConfig;
use ratatui::crossterm::event::KeyCode;

use crate::simkit::Sim;
use crate::trading::User;
use crate::tui_run::{self, Ui};

/// A wad as a person reads dollars, to the cent (half up), grouped: written here, not taken
/// from the code under test.
fn dollars(wad: u128) -> String {
    let cents = (wad + 5_000_000_000_000_000) / 10_000_000_000_000_000;
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("${grouped}.{:02}", cents % 100)
}

/// (wallet, balance wad, open positions) of every engine account, richest first (the
/// simulator breaks a tie by the larger address, as its sort reverses the whole order).
fn by_balance(sim: &Sim) -> Vec<(Address, u128, usize)> {
    let mut rows: Vec<(Address, u128, usize)> = sim.server.shared.with_engine(|e| {
        e.accounts
            .iter()
            .map(|(w, a)| (*w, a.state.balance, a.state.open_positions.len()))
            .collect()
    });
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaders_open_a_wallet_in_the_explorer_read_only() {
    let sim = Sim::start(SimConfig {
        seed: 5,
        crowd: 30,
        manual_clock: true,
        heartbeat_ms: 200,
        ..SimConfig::default()
    })
    .await;
    let rows = by_balance(&sim);
    let (richest, balance, open) = rows[0];
    let (other, other_balance, _) = rows[5];
    sim.server.shared.with_engine(|e| {
        e.accounts.get_mut(&richest).unwrap().name = Some("rich\u{1b}[2Jest".into())
    });
    let user = User::new(&sim);
    let mut ctx = tui_run::context(&user.api, &user.info, &user.data(), None);
    ctx.watch = Some(user.owner());
    let mut ui = Ui::start(tui_run::prepare(&ctx).await);
    ui.wait_for_text("WATCH").await;

    ui.type_text("5");
    ui.wait_for_text("Leaderboard · 24h · totalWindowedPnl ↓")
        .await;
    // windowed PnL → realised → unrealised → balance.
    ui.type_text("ooo");
    let s = ui
        // Read in this order, not the rows of the previous key still on screen while it loads.
        .wait_for(|s| {
            s.contains("currentBalance ↓") && s.contains("as of") && !s.contains("reading…")
        })
        .await;
    let first = s
        .lines()
        .find(|l| l.trim_start_matches('│').starts_with("1 "))
        .unwrap_or_else(|| panic!("no first row:\n{s}"));
    let full = format!("{richest:#x}");
    assert!(
        first.contains(&full[..6]) && first.contains(&full[full.len() - 4..]),
        "{s}"
    );
    assert!(
        first.contains("richest") && !first.contains(char::is_control),
        "the name is sanitised: {first:?}"
    );
    assert!(first.contains(&dollars(balance)), "{s}");

    ui.send_keys([KeyCode::Enter]);
    let s = ui
        .wait_for(|s| s.contains(&full) && s.contains("balance $"))
        .await;
    assert!(s.contains("read-only"), "{s}");
    assert!(
        s.contains(&format!("balance {}", dollars(balance))),
        "the engine's balance:\n{s}"
    );
    assert!(s.contains(&format!("{open} open")), "{s}");
    // The 24h board ranks it somewhere (it was read, not invented).
    assert!(s.contains("rank (windowed PnL): 24h #"), "{s}");

    // Any address, typed.
    ui.type_text("/");
    ui.wait_for_text("wallet, intent, position or name:").await;
    ui.type_text(&format!("{other:#x}"));
    ui.send_keys([KeyCode::Enter]);
    let s = ui
        .wait_for(|s| s.contains(&format!("{other:#x} · as of")))
        .await;
    assert!(
        s.contains(&format!("balance {}", dollars(other_balance))),
        "{s}"
    );
    // Nothing here can sign: the order keys say so and nothing is queued.
    ui.send_keys([KeyCode::Enter]);
    assert!(!ui.screen().contains("Confirm"), "{}", ui.screen());
    ui.quit().await.expect("the loop ends cleanly on q");
}
