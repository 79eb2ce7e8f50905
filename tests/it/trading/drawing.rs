//! When the UI draws: at once while the exchange is silent, nothing while nothing changes, each
//! second where it counts an age.

use std::time::Duration;

use alloy_primitives::Address;
use papertrade_tui::app::Mode;
use papertrade_tui::events::market::PollRates;
use papertrade_tui::sim::SimConfig;

use crate::simkit::{Sim, live_config};
use crate::tui_run::{self, Ui};

use super::user::ready_user;

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
    // The window is counted in what the exchange sent, not slept: thirty heartbeats on the
    // wallet's stream (the UI hears the same ones), each a tenth of a second of polls answered.
    let mut beats = sim.stream(wallet).await;
    for _ in 0..30 {
        assert!(beats.heartbeat().await, "the stream ended");
    }
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
        heartbeat_ms: 60_000,
        ..live_config(21, 300)
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
