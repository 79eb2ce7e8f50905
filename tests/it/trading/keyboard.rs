//! Trading by keyboard in the terminal UI against the simulator: open and close from the ticket, a
//! deep link, the Fund tab, the History tab after a restart, and `demo` in a real terminal.

use std::time::Duration;

use papertrade_tui::app::Mode;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;

use crate::pty::Pty;
use crate::tui_run::{self, Ui};

use super::user::{OWNER_PASS, WAD, live_sim, ready_user};

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
    // Every first answer in and drawn, the ticket still only prefilled: nothing was signed
    // (the audit log holds the key's registration alone) and nothing is open.
    ui.settle(Duration::from_millis(300)).await;
    assert_eq!(positions(), 0, "a link never signs");
    let audit = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    assert!(
        !audit.contains("openPosition"),
        "a link never signs: {audit}"
    );
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
    // Confirmed: the banner goes.
    ui.wait_for(|s| !s.contains("⚑ from a link")).await;
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
