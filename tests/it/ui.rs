//! The screens, drawn from fixture state onto a test backend and compared with committed
//! snapshots at 80x24 and 120x40.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::screen::screen;
use papertrade_tui::app::{App, KeyStatus, Message, Mode, Tab};
use papertrade_tui::events::account::StreamEvent;
use papertrade_tui::events::market::{MarketEvent, Source};
use papertrade_tui::protocol::account::{ClosedPosition, Frame};
use papertrade_tui::protocol::history::{ClosedTrade, LoadedHistory};
use papertrade_tui::protocol::trading::TradingState;

const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":[["0x3f531f402502754977d21725fa31bfaacbed3562","1794285240"]],"walletRevision":48399562,"queueRevision":"881","balance":"234249163328500998503","queued":"0","locked":"20000000000000000000","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},"lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},"openPositions":[["411277",1,false,false,"251250","10000000000000000000",100,"253640",1791862800000,null],["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,null]],"operations":[],"accountRevision":2}"#;

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_791_862_900)
}

fn fixture(mode: Mode) -> App {
    let wallet = "0xa9f28db0543b215eb2705740f10258c3d000cefd"
        .parse()
        .unwrap();
    let mut app = App::new(mode, Some(wallet));
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    let t = now() - Duration::from_secs(2);
    app.handle(Message::Market(MarketEvent::Trading(Box::new(state), t)));
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 830_105,
        at: t,
    }));
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 1,
        raw: 250_001,
        at: t,
    }));
    app.handle(Message::Market(MarketEvent::DayOpen {
        instrument_id: 0,
        raw: 821_000,
        at: t,
    }));
    let Frame::Snapshot(s) = Frame::decode(SNAPSHOT).unwrap() else {
        panic!()
    };
    app.handle(Message::Stream(StreamEvent::Synced(s), now()));
    app.freshness
        .record_ok(Source::Account, now() - Duration::from_secs(1));
    // What the history file held: an ETH liquidation the feed never listed (no exit, the time
    // this client saw it), then a BTC close with everything known.
    app.handle(Message::HistoryLoaded(LoadedHistory {
        trades: vec![
            ClosedTrade {
                closed: ClosedPosition {
                    id: alloy_primitives::U256::from(411_101u64),
                    instrument_id: 1,
                    is_long: false,
                    margin: 25_000_000_000_000_000_000,
                    leverage: 50,
                    liquidated: true,
                    net_pnl: -25_000_000_000_000_000_000,
                    paper_minted: 1_250_000_000_000_000_000_000,
                },
                symbol: Some("ETH".into()),
                price_scale: Some(100),
                entry_raw: Some(246_309),
                opened_at_ms: Some(1_791_700_000_000),
                exit_raw: None,
                closed_at_ms: None,
                seen_at_ms: 1_791_760_000_000,
            },
            ClosedTrade {
                closed: ClosedPosition {
                    id: alloy_primitives::U256::from(411_270u64),
                    instrument_id: 0,
                    is_long: true,
                    margin: 10_000_000_000_000_000_000,
                    leverage: 100,
                    liquidated: false,
                    net_pnl: -108_141_232_449_579_150,
                    paper_minted: 2_766_363_925_334_821_349,
                },
                symbol: Some("BTC".into()),
                price_scale: Some(10),
                entry_raw: Some(832_245),
                opened_at_ms: Some(1_791_862_800_000),
                exit_raw: None,
                closed_at_ms: None,
                seen_at_ms: 1_791_862_484_000,
            },
        ],
        ..Default::default()
    }));
    if mode != Mode::Watch {
        app.key = Some(KeyStatus {
            address: "0x3f531f402502754977d21725fa31bfaacbed3562"
                .parse()
                .unwrap(),
            backend: "keystore",
            local_expiry: 1_794_285_240,
        });
    }
    // Forty 15-minute candles walking up to the mark.
    let candles = (0..40u64)
        .map(|i| {
            let base = 826_000 + i * 100 + (i % 3) * 40;
            let px = |raw: u64| format!("{}.{}", raw / 10, raw % 10);
            let (o, c) = if i % 4 == 0 {
                (base + 90, base)
            } else {
                (base, base + 90)
            };
            papertrade_tui::protocol::hyperliquid::Candle {
                t: 1_791_820_000_000 + i * 900_000,
                close_time: 1_791_820_000_000 + i * 900_000 + 899_999,
                s: "BTC".into(),
                i: "15m".into(),
                o: px(o),
                c: px(c),
                h: px(base + 140),
                l: px(base - 50),
                v: "12.5".into(),
                n: 40,
            }
        })
        .collect();
    app.handle(Message::Market(MarketEvent::Candles {
        instrument_id: 0,
        interval: "15m",
        candles,
        at: t,
    }));
    app.ticket.margin_text = "100".into();
    app.ticket.leverage = 500;
    let trades: papertrade_tui::protocol::reads::RecentTrades = serde_json::from_str(r#"{"ok":true,"count":2,"events":[
        {"seq":"48399240000026","ts":1791862483000,"wallet":"0xa9f28db0543b215eb2705740f10258c3d000cefd","instrument":"BTC","instrumentId":0,"instrumentTerminal":false,"side":"long","leverage":100,"notionalUsd":1000,"intentId":null,"positionId":"411270","kind":"close","entry":null,"exit":83215.5,"pnlUsd":-0.11},
        {"seq":"48399240000025","ts":1791862483000,"wallet":"0xf522d8f0ea3c5d0350d3a05db1df074ecf0b2fd7","instrument":"BTC\u001b[2J","instrumentId":0,"instrumentTerminal":false,"side":"short","leverage":148,"notionalUsd":59200,"intentId":null,"positionId":"408035","kind":"close","entry":null,"exit":83335.5,"pnlUsd":-327.15}]}"#).unwrap();
    app.handle(Message::Market(MarketEvent::RecentTrades(
        Box::new(trades),
        t,
    )));
    let health = serde_json::from_str(r#"{"ok":true,"ready":true}"#).unwrap();
    app.handle(Message::Market(MarketEvent::RelayerHealth(
        Box::new(health),
        t,
    )));
    // The app's time is the last message's; the fixture's is `now()`.
    app.clock = now();
    app.toast("intent 0x71a9f6c0… succeeded", false);
    app
}

#[test]
fn every_tab_at_both_sizes() {
    for (tab, name) in [
        (Tab::Trade, "trade"),
        (Tab::Positions, "positions"),
        (Tab::History, "history"),
        (Tab::Protocol, "protocol"),
    ] {
        let mut app = fixture(Mode::Demo);
        app.tab = tab;
        for (w, h) in [(80, 24), (120, 40)] {
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(&app, w, h));
        }
    }
}

/// A position in a market `/state/trading` no longer lists stays in the table, selectable and
/// closable, with what cannot be computed marked.
#[test]
fn a_position_in_an_unlisted_market_is_shown() {
    let mut app = fixture(Mode::Demo);
    let mut s: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
    s["openPositions"][1][1] = serde_json::json!(7);
    let Frame::Snapshot(snapshot) = Frame::decode(&s.to_string()).unwrap() else {
        panic!()
    };
    app.handle(Message::Stream(StreamEvent::Synced(snapshot), now()));
    app.tab = Tab::Positions;
    let screen = screen(&app, 120, 40);
    assert!(screen.contains("Positions (2)"), "{screen}");
    let row = screen
        .lines()
        .find(|l| l.contains("411276"))
        .unwrap_or_else(|| panic!("no row for the unlisted market's position:\n{screen}"));
    assert!(row.contains("#7 ▲L"), "{row}");
    assert!(row.contains("market ?"), "{row}");
    // The header's totals are never silently partial.
    assert!(
        screen.contains("equity —") && !screen.contains(" open "),
        "{screen}"
    );
    // It can be selected and closed like any other.
    app.position_cursor = 1;
    assert_eq!(
        app.close_selection(),
        vec![alloy_primitives::U256::from(411_276u64)]
    );
}

#[test]
fn history_shows_only_this_wallets_trades() {
    let mut app = fixture(Mode::Demo);
    app.tab = Tab::History;
    let s = screen(&app, 120, 40);
    let feed = s
        .lines()
        .skip_while(|l| !l.contains("Recent trades of this wallet"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        feed.contains("2026-10-13 03:34 close 411270   BTC ▲L  100x  $1,000.00   83,215.5  -$0.11"),
        "{feed}"
    );
    assert!(!s.contains("408035"), "{s}");
}

/// The local history: each record's figures, the feed's exit and time filled in, what is not
/// known shown as such, and the totals.
#[test]
fn history_lists_closes_with_their_totals() {
    let mut app = fixture(Mode::Demo);
    app.tab = Tab::History;
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("History of 0xa9f2…cefd · 2 closed · complete since"),
        "{s}"
    );
    assert!(
        s.contains(
            "2 closed · net -$25.11 · win rate 0.0% (0 won, 1 liquidated) · PAPER minted 1,252.77"
        ),
        "{s}"
    );
    let row = |id: &str| {
        s.lines()
            .find(|l| l.contains(id) && l.contains('x'))
            .unwrap_or_else(|| panic!("no row for {id}:\n{s}"))
            .to_string()
    };
    // The feed listed the BTC close: its exit and the exchange's time.
    let btc = row("411270");
    assert!(
        btc.contains("│2026-10-13 03:34  411270   BTC ▲L  100x  83,224.5  83,215.5  -$0.11"),
        "{btc}"
    );
    assert!(btc.contains("2.77") && btc.contains("closed"), "{btc}");
    // The feed never listed the ETH liquidation: no exit, and the time this client saw it.
    let eth = row("411101");
    assert!(
        eth.contains("│~2026-10-11 23:06 411101   ETH ▼S  50x   2,463.09  —         -$25.00"),
        "{eth}"
    );
    assert!(
        eth.contains("1,250.00") && eth.contains("LIQUIDATED"),
        "{eth}"
    );
}

/// The history file is text anyone with the account could edit: its symbol is sanitised like
/// the network's.
#[test]
fn a_hostile_symbol_in_the_history_file_cannot_reach_the_terminal() {
    let mut app = fixture(Mode::Demo);
    let mut t = app.history.newest().unwrap().clone();
    t.closed.id = alloy_primitives::U256::from(600_000u64);
    t.symbol = Some("\u{1b}]0;pwned\u{7}\u{1b}[2JX".into());
    app.handle(Message::HistoryLoaded(LoadedHistory {
        trades: vec![t],
        ..Default::default()
    }));
    app.tab = Tab::History;
    let s = screen(&app, 120, 40);
    let row = s.lines().find(|l| l.contains("600000")).unwrap();
    assert!(row.contains("600000   X ▲L"), "{row}");
    assert!(!s.contains('\u{1b}') && !s.contains("pwned"), "{s}");
}

/// A long history scrolls with ↑↓ and keeps the highlighted row on screen.
#[test]
fn a_long_history_scrolls() {
    let mut app = fixture(Mode::Demo);
    let base = app.history.newest().unwrap().clone();
    let more = (0..40u64).map(|i| {
        let mut t = base.clone();
        t.closed.id = alloy_primitives::U256::from(500_000 + i);
        t
    });
    app.handle(Message::HistoryLoaded(LoadedHistory {
        trades: more.collect(),
        ..Default::default()
    }));
    app.tab = Tab::History;
    let first = screen(&app, 80, 24);
    assert!(
        first.contains("500039") && !first.contains("411101"),
        "{first}"
    );
    assert!(first.contains("rows 1–9 of 42"), "{first}");
    for _ in 0..60 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(app.history_cursor, 41, "stops on the last row");
    let last = screen(&app, 80, 24);
    assert!(
        last.contains("411101") && !last.contains("500039"),
        "{last}"
    );
    assert!(last.contains("rows 37–42 of 42"), "{last}");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.history_cursor, 40);
    assert_eq!(app.position_cursor, 0, "the positions' cursor is not moved");
}

/// The mouse wheel moves what has the keyboard, as the arrow keys do: the positions' cursor on
/// the Positions tab, nothing under the help or the message log.
#[test]
fn the_wheel_moves_only_what_has_the_keyboard() {
    use papertrade_tui::ui::keymap::mouse_action;
    use ratatui::crossterm::event::{MouseEvent, MouseEventKind};
    let wheel = |app: &mut App, kind: MouseEventKind| {
        let event = MouseEvent {
            kind,
            column: 10,
            row: 10,
            modifiers: KeyModifiers::NONE,
        };
        if let Some(a) = mouse_action(event, 120, app.tab) {
            app.handle(Message::Action(a));
        }
    };
    let mut app = fixture(Mode::Demo);
    app.tab = Tab::Positions;
    assert!(app.account.as_ref().unwrap().open_positions.len() > 1);
    wheel(&mut app, MouseEventKind::ScrollDown);
    assert_eq!(app.position_cursor, 1, "the wheel moves the table");
    press(&mut app, KeyCode::Char('?'));
    assert!(app.help);
    wheel(&mut app, MouseEventKind::ScrollUp);
    assert_eq!(app.position_cursor, 1, "not under the help");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('e'));
    assert!(app.show_log);
    wheel(&mut app, MouseEventKind::ScrollUp);
    assert_eq!(app.position_cursor, 1, "not under the message log");
    press(&mut app, KeyCode::Esc);
    wheel(&mut app, MouseEventKind::ScrollUp);
    assert_eq!(app.position_cursor, 0, "the table again once they close");
}

#[test]
fn watch_mode_says_it_is_read_only() {
    let app = fixture(Mode::Watch);
    let s = screen(&app, 120, 40);
    assert!(s.contains("WATCH"));
    assert!(s.contains("read-only (watch)"));
}

#[test]
fn a_small_terminal_gets_a_message_not_a_broken_layout() {
    let app = fixture(Mode::Demo);
    let s = screen(&app, 60, 20);
    assert!(s.contains("needs at least 80x24"), "{s}");
}

#[test]
fn the_ticket_shows_the_exact_quote() {
    // The seed's published case (000_…): $100 at 500x long with the mark at 82,800.3 busts at
    // 82,674 — the number every client must show, not one this code computed.
    let mut app = fixture(Mode::Demo);
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 828_003,
        at: now(),
    }));
    let s = screen(&app, 120, 40);
    assert!(s.contains("notional $50,000.00"), "{s}");
    assert!(s.contains("bust 82,674.0 (0.153% away)"), "{s}");
}

use papertrade_tui::app::{Dialog, Effect};
use papertrade_tui::protocol::order::Order;
use papertrade_tui::ui::keymap::{FIXED, action};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    match action(key) {
        Some(a) => app.handle(Message::Action(a)),
        None => Vec::new(),
    }
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

#[test]
fn type_a_ticket_review_and_confirm() {
    let mut app = fixture(Mode::Demo);
    // A BTC short needs an account without the BTC long (one side per market).
    let mut state = app.account.clone().unwrap();
    state.open_positions.retain(|p| p.instrument_id != 0);
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Char('/'));
    for _ in 0..3 {
        press(&mut app, KeyCode::Backspace);
    }
    // While typing, shortcut letters are not commands: only the digits land.
    type_text(&mut app, "b25.5m");
    assert_eq!(app.ticket.margin_text, "25.5");
    assert!(!app.ticket.is_long);
    press(&mut app, KeyCode::Esc);
    assert!(!app.ticket.editing_margin);
    for _ in 0..4 {
        press(&mut app, KeyCode::Char('{'));
    }
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.ticket.leverage, 461);
    press(&mut app, KeyCode::Enter);
    let Some(Dialog::Open {
        margin,
        leverage,
        is_long,
        mark,
        bust,
        ..
    }) = app.dialog.clone()
    else {
        panic!("no dialog: {:?}", app.toasts)
    };
    assert_eq!(
        (margin, leverage, is_long, mark),
        (25_500_000_000_000_000_000, 461, false, 830_105)
    );
    let buffer = TradingState::decode(include_str!("../../assets/trading_mainnet.json"))
        .unwrap()
        .instruments[0]
        .bust_buffer;
    assert_eq!(
        bust,
        papertrade_tui::protocol::math::bust_price(830_105, 461, false, buffer)
    );
    let s = screen(&app, 120, 40);
    assert!(s.contains("OPEN ▼ SHORT BTC 461x"), "{s}");
    assert!(s.contains("margin $25.50 (exactly 25.5 USD)"), "{s}");
    // Shortcuts are ignored while the dialog is open.
    press(&mut app, KeyCode::Char('b'));
    assert!(!app.ticket.is_long);
    let effects = press(&mut app, KeyCode::Char('y'));
    // Exactly the order the dialog showed, nothing re-read from the ticket.
    assert_eq!(
        effects,
        [Effect::Submit {
            order: Order::Open {
                instrument_id: 0,
                is_long: false,
                margin: 25_500_000_000_000_000_000,
                leverage: 461,
                use_debt: false,
            },
            what: "open BTC 461x".into(),
        }]
    );
    assert!(app.dialog.is_none());
    // The relayer queues it: the stream lists the operation and the Pending pane shows it.
    let mut state = app.account.clone().unwrap();
    state
        .operations
        .push(papertrade_tui::protocol::account::Operation {
            intent_id: alloy_primitives::B256::repeat_byte(0xcd),
            action: "openPosition".into(),
            instrument_id: Some(0),
            is_long: Some(false),
            use_debt: Some(false),
            amount: Some(margin),
            leverage: Some(461),
            accepted_at_ms: 1_791_862_895_000,
            deadline: 1_791_866_400,
            close_position_ids: None,
        });
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    press(&mut app, KeyCode::Char('2'));
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("Pending (1)") && s.contains("BTC ▼S $25.50 461x"),
        "{s}"
    );
}

#[test]
fn a_refused_open_never_reaches_the_dialog() {
    let mut app = fixture(Mode::Demo);
    app.ticket.margin_text = "5".into();
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(
        app.toasts
            .back()
            .unwrap()
            .text
            .contains("margin $5.00 is below the minimum of $10.00")
    );
    // Escape and n both cancel a dialog without effects.
    app.ticket.margin_text = "100".into();
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_some());
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.dialog.is_none());
}

#[test]
fn the_other_side_of_a_held_market_is_refused_in_the_ticket() {
    let mut app = fixture(Mode::Demo);
    // The account holds a BTC long (#411276): a BTC short is refused before Review, with the
    // reason in the ticket itself, and Review does not open the confirm dialog. ($20 at 500x
    // passes every earlier check, the short open-interest cap included.)
    app.ticket.margin_text = "20".into();
    press(&mut app, KeyCode::Char('s'));
    let reason = "the account holds a long BTC";
    let in_ticket = format!("✗ {reason}");
    let s = screen(&app, 120, 40);
    assert!(s.contains(&in_ticket), "{s}");
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(app.toasts.back().unwrap().text.contains(reason));
    // The same side adds to the market and passes.
    press(&mut app, KeyCode::Char('b'));
    assert!(!screen(&app, 120, 40).contains(&in_ticket));
    press(&mut app, KeyCode::Enter);
    assert!(matches!(
        app.dialog,
        Some(Dialog::Open { is_long: true, .. })
    ));
}

#[test]
fn watch_mode_refuses_b_and_review() {
    let mut app = fixture(Mode::Watch);
    press(&mut app, KeyCode::Char('b'));
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(
        app.toasts
            .back()
            .unwrap()
            .text
            .contains("watch mode is read-only")
    );
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char('x'));
    assert!(app.dialog.is_none());
    let s = screen(&app, 120, 40);
    assert!(s.contains("watch mode is read-only"), "{s}");
}

/// Close-selected leaves out a position whose close is already queued (the relayer would refuse
/// the whole batch) and says so; with only such positions selected, no dialog opens.
#[test]
fn close_selected_skips_a_position_already_closing() {
    let mut app = fixture(Mode::Demo);
    let mut s: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
    s["operations"] = serde_json::json!([[
        format!("0x{}", "ab".repeat(32)),
        "closePositions",
        null,
        null,
        null,
        null,
        null,
        1_791_862_850_000u64,
        "1791866400",
        ["411277"]
    ]]);
    s["queueNodeCount"] = serde_json::json!(1);
    let Frame::Snapshot(snapshot) = Frame::decode(&s.to_string()).unwrap() else {
        panic!()
    };
    app.handle(Message::Stream(StreamEvent::Synced(snapshot), now()));
    press(&mut app, KeyCode::Char('2'));
    // The highlighted row (411277) alone: refused with the reason.
    press(&mut app, KeyCode::Char('x'));
    assert!(app.dialog.is_none());
    let last = &app.toasts.back().unwrap().text;
    assert!(
        last.contains("a close is already queued for #411277"),
        "{last}"
    );
    // Both marked: only the other one goes into the dialog.
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Char('x'));
    let Some(Dialog::Close { ids }) = app.dialog.clone() else {
        panic!("no close dialog")
    };
    assert_eq!(ids, vec![alloy_primitives::U256::from(411_276u64)]);
    let last = &app.toasts.back().unwrap().text;
    assert!(last.contains("skipped #411277"), "{last}");
}

#[test]
fn close_selected_and_cancel_pending() {
    let mut app = fixture(Mode::Demo);
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Char('x'));
    let Some(Dialog::Close { ids }) = app.dialog.clone() else {
        panic!()
    };
    assert_eq!(ids.len(), 2);
    assert!(screen(&app, 80, 24).contains("CLOSE 2 position(s) in 1 intent(s)"));
    let effects = press(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        &effects[..],
        [Effect::Submit {
            order: Order::Close { .. },
            ..
        }]
    ));

    // A queued intent: move below the positions into the pending list and cancel it.
    let mut state = app.account.clone().unwrap();
    state
        .operations
        .push(papertrade_tui::protocol::account::Operation {
            intent_id: alloy_primitives::B256::repeat_byte(0xab),
            action: "openPosition".into(),
            instrument_id: Some(1),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(50_000_000_000_000_000_000),
            leverage: Some(20),
            accepted_at_ms: 1_791_862_890_000,
            deadline: 1_791_866_400,
            close_position_ids: None,
        });
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    let rank: papertrade_tui::protocol::reads::QueueRank = serde_json::from_str(&format!(
        r#"{{"ok":true,"queueRevision":"9","entries":[{{"intentId":"{:#x}","position":"3"}}]}}"#,
        alloy_primitives::B256::repeat_byte(0xab)
    ))
    .unwrap();
    app.handle(Message::Market(MarketEvent::RecentTrades(
        Box::default(),
        now(),
    )));
    app.handle(Message::Market(MarketEvent::QueueRank(
        Box::new(rank),
        now(),
    )));
    assert!(screen(&app, 80, 24).contains("rank 3"));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert!(app.pending_focus);
    insta::assert_snapshot!("positions_with_pending_80x24", screen(&app, 80, 24));
    press(&mut app, KeyCode::Char('x'));
    assert!(matches!(app.dialog, Some(Dialog::Cancel { .. })));
    assert!(matches!(
        &press(&mut app, KeyCode::Char('y'))[..],
        [Effect::Submit {
            order: Order::Cancel { .. },
            ..
        }]
    ));
}

#[test]
fn help_lists_the_live_keymap() {
    let mut app = fixture(Mode::Demo);
    press(&mut app, KeyCode::Char('?'));
    let s = screen(&app, 80, 24);
    // Written out here, not taken from the code under test: every default key and what it does.
    let expected = [
        ("B S", "side: long / short"),
        ("/", "edit the margin"),
        ("D", "margin from the queued balance"),
        ("M F", "market: the next one / type a name"),
        ("[ ] { } =", "leverage −1 / +1 / −10 / +10 / type it"),
        ("E", "the message log"),
        ("G", "session key"),
        ("W O R", "leaderboard: window"),
        ("+ -", "cascade move"),
        ("C", "chart interval"),
        ("Space", "mark a position"),
        ("X", "close marked/highlighted positions"),
        ("?", "this help"),
        ("Q", "quit"),
    ];
    for (key, what) in expected.iter().copied().chain(FIXED) {
        assert!(
            s.lines().any(|l| l.contains(what) && l.contains(key)),
            "no help line shows {key} with {what}:\n{s}"
        );
    }
    press(&mut app, KeyCode::Esc);
    assert!(!app.help);
    assert!(matches!(
        &press(&mut app, KeyCode::Char('q'))[..],
        [Effect::Quit]
    ));
}

/// A remapped command leaves its old key: nothing is bound behind the keymap's back, and the
/// help shows the new key.
#[test]
fn a_remapped_close_frees_x_and_the_help_says_z() {
    let mut app = fixture(Mode::Demo);
    let overrides = [("close".to_string(), "z".to_string())]
        .into_iter()
        .collect();
    app.keymap = papertrade_tui::config::keys::Keymap::with_overrides(&overrides).unwrap();
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char('x'));
    assert!(app.dialog.is_none(), "x no longer closes");
    press(&mut app, KeyCode::Char('z'));
    assert!(matches!(app.dialog, Some(Dialog::Close { .. })), "z closes");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('?'));
    let s = screen(&app, 120, 40);
    let line = s
        .lines()
        .find(|l| l.contains("close marked/highlighted positions"))
        .unwrap();
    assert!(line.contains('Z') && !line.contains('X'), "{line}");
    // The same holds for every remappable key that used to have a fixed twin.
    press(&mut app, KeyCode::Esc);
    let overrides = [
        ("mark".to_string(), "v".to_string()),
        ("help".to_string(), "u".to_string()),
        ("chart".to_string(), "t".to_string()),
    ]
    .into_iter()
    .collect();
    app.keymap = papertrade_tui::config::keys::Keymap::with_overrides(&overrides).unwrap();
    let interval = app.chart_interval;
    for old in [' ', '?', 'c'] {
        press(&mut app, KeyCode::Char(old));
    }
    assert!(app.marked.is_empty() && !app.help && app.chart_interval == interval);
}

/// The chart declares the one candles read it needs, for its market and interval, refreshed
/// every 20 s (the runtime keeps it running while it stays declared and replaces it when it
/// changes); an answer to a read left behind does not replace what the chart waits for.
#[test]
fn the_chart_declares_its_candles_and_drops_a_late_answer() {
    use papertrade_tui::app::reads::Read;
    use papertrade_tui::app::{Action, Message};
    let mut app = fixture(Mode::Demo);
    let candles = |app: &App| -> Vec<(u32, &'static str, Duration)> {
        app.reads()
            .into_iter()
            .filter_map(|(read, every)| match read {
                Read::Candles {
                    instrument_id,
                    interval,
                    ..
                } => Some((instrument_id, interval, every)),
                _ => None,
            })
            .collect()
    };
    let t0 = now();
    let every = Duration::from_secs(20);
    // No markets, no chart; the first markets to arrive declare the chart's candles.
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    let mut fresh = App::new(Mode::Demo, None);
    assert!(candles(&fresh).is_empty());
    fresh.handle(Message::Market(MarketEvent::Trading(Box::new(state), t0)));
    assert_eq!(candles(&fresh), [(0, "15m", every)]);
    assert_eq!(candles(&app), [(0, "15m", every)]);
    app.handle(Message::Action(Action::ChartInterval));
    assert_eq!(candles(&app), [(0, "1h", every)]);
    app.handle(Message::Action(Action::NextMarket));
    assert_eq!(candles(&app), [(1, "1h", every)]);
    // A late answer to the BTC read does not replace what the ETH chart waits for.
    app.handle(Message::Market(MarketEvent::Candles {
        instrument_id: 0,
        interval: "1h",
        candles: Vec::new(),
        at: t0,
    }));
    let shown = app
        .candles
        .as_ref()
        .map(|(id, interval, _)| (*id, *interval));
    assert_eq!(shown, Some((0, "15m")), "the stale answer was dropped");
    app.handle(Message::Market(MarketEvent::Candles {
        instrument_id: 1,
        interval: "1h",
        candles: Vec::new(),
        at: t0,
    }));
    let shown = app
        .candles
        .as_ref()
        .map(|(id, interval, _)| (*id, *interval));
    assert_eq!(shown, Some((1, "1h")));
}

/// Ctrl or Alt with a command key is not the command: Ctrl-S does not flip the side, Ctrl-X
/// does not open a close.
#[test]
fn ctrl_and_alt_do_not_run_commands() {
    let mut app = fixture(Mode::Demo);
    for m in [KeyModifiers::CONTROL, KeyModifiers::ALT] {
        assert_eq!(action(KeyEvent::new(KeyCode::Char('s'), m)), None);
    }
    press(&mut app, KeyCode::Char('2'));
    assert_eq!(
        action(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL)),
        None
    );
    // AltGr (Ctrl+Alt) is how some keyboards type `[`: it still lowers the leverage.
    let altgr = KeyModifiers::CONTROL | KeyModifiers::ALT;
    let before = app.ticket.leverage;
    let a = action(KeyEvent::new(KeyCode::Char('['), altgr)).unwrap();
    app.handle(Message::Action(a));
    assert_eq!(app.ticket.leverage, before - 1);
}

/// A fast relayer: the stream reports the intent's fate before the send task reports back. The
/// fate is not lost; tracking it resolves it at once (toast and audit record).
#[test]
fn an_outcome_that_beats_the_send_report_is_not_lost() {
    use papertrade_tui::app::{Message, SubmitOutcome};
    use papertrade_tui::protocol::account::{IntentOutcome, Outcome};
    let mut app = fixture(Mode::Demo);
    let id = alloy_primitives::B256::with_last_byte(0x42);
    let state = app.account.clone().unwrap();
    app.handle(Message::Stream(
        StreamEvent::Patched {
            state: Box::new(state),
            closed: Vec::new(),
            outcomes: vec![IntentOutcome {
                intent_id: id,
                outcome: Outcome::Succeeded,
            }],
        },
        now(),
    ));
    let effects = app.handle(Message::Submitted(SubmitOutcome {
        tracked: vec![id],
        closes: Vec::new(),
        toasts: vec![("open BTC 10x: queued".into(), false)],
        unanswered: Vec::new(),
    }));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::RecordFate(i, r) if *i == id && r.label() == "succeeded")),
        "{effects:?}"
    );
    assert!(app.watch.is_empty(), "nothing is left tracked");
    assert!(app.toasts.back().unwrap().text.contains("succeeded"));
}

/// The hint bar shows what the focused thing answers to: a dialog's two keys, a table's keys, the
/// margin field's keys.
#[test]
fn the_hint_bar_follows_the_focus() {
    let mut app = fixture(Mode::Demo);
    let bar = |app: &App| screen(app, 120, 40).lines().last().unwrap().to_string();
    assert!(
        bar(&app).starts_with("B/S side · / margin"),
        "{}",
        bar(&app)
    );
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(bar(&app), "0-9 . margin · ⏎ review · Esc leave the field");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('2'));
    assert!(
        bar(&app).starts_with("↑↓ move · Space mark · X close"),
        "{}",
        bar(&app)
    );
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(bar(&app), "Y sign and send · N/Esc cancel · ↑↓ scroll");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(bar(&app), "Esc close · ? close");
}

#[test]
fn remapped_keys_drive_the_ticket_and_the_hints() {
    let mut app = fixture(Mode::Demo);
    let overrides = [
        ("long".to_string(), "u".to_string()),
        ("short".to_string(), "p".to_string()),
    ]
    .into_iter()
    .collect();
    app.keymap = papertrade_tui::config::keys::Keymap::with_overrides(&overrides).unwrap();
    press(&mut app, KeyCode::Char('p'));
    assert!(!app.ticket.is_long);
    press(&mut app, KeyCode::Char('b'));
    assert!(!app.ticket.is_long, "b is no longer bound");
    press(&mut app, KeyCode::Char('u'));
    assert!(app.ticket.is_long);
    assert!(screen(&app, 80, 24).contains("U/P side"));
    press(&mut app, KeyCode::Char('?'));
    assert!(screen(&app, 120, 40).contains("U P  side: long / short"));
}

#[test]
fn stale_data_is_called_stale_where_it_is_shown() {
    let mut app = fixture(Mode::Demo);
    app.freshness
        .record_ok(Source::Account, now() - Duration::from_secs(45));
    app.freshness
        .record_ok(Source::Mark(0), now() - Duration::from_secs(90));
    let s = screen(&app, 120, 40);
    assert!(s.contains("Positions (2) — STALE 45s"), "{s}");
    assert!(s.contains("mark STALE: 1m old"), "{s}");
    // The header's ages turn into warnings too (text unchanged in a plain theme).
    assert!(s.contains("data 45s"), "{s}");
}

/// The positions pane's MARK, TO BUST and CLOSE PAYS are read at the marks: with the account
/// stream fresh and a held market's mark old, its title says the marks are stale.
#[test]
fn the_positions_pane_says_when_its_marks_are_stale() {
    let mut app = fixture(Mode::Demo);
    app.tab = Tab::Positions;
    app.freshness.record_ok(Source::Account, now());
    assert!(!screen(&app, 120, 40).contains("STALE"));
    app.freshness
        .record_ok(Source::Mark(0), now() - Duration::from_secs(90));
    let s = screen(&app, 120, 40);
    assert!(s.contains("Positions (2) — marks STALE 1m"), "{s}");
    // An old account stream is said first: it is what the whole table is.
    app.freshness
        .record_ok(Source::Account, now() - Duration::from_secs(45));
    assert!(screen(&app, 120, 40).contains("Positions (2) — STALE 45s"));
}

#[test]
fn a_click_on_the_tab_bar_picks_the_tab_drawn_there() {
    use papertrade_tui::ui::{TAB_ROW, tab_at};
    let mut app = fixture(Mode::Demo);
    // Wide: every label in full. At 80 columns the tabs not chosen are short, and the bar
    // read by a click is the bar drawn.
    for (width, height, labels) in [
        (
            120,
            40,
            [
                ("1 Trade", Tab::Trade),
                ("2 Positions", Tab::Positions),
                ("7 Liquidations", Tab::Liquidations),
                ("8 Fund", Tab::Fund),
            ],
        ),
        (
            80,
            24,
            [
                ("1 Trade", Tab::Trade),
                ("2 Pos", Tab::Positions),
                ("7 Liq", Tab::Liquidations),
                ("8 Fund", Tab::Fund),
            ],
        ),
    ] {
        let s = screen(&app, width, height);
        let row = s.lines().nth(TAB_ROW as usize).unwrap();
        for (label, tab) in labels {
            let column = row.find(label).unwrap_or_else(|| panic!("{label}: {row}")) as u16;
            // `find` counts bytes; the bar is ASCII.
            assert_eq!(tab_at(column, width, app.tab), Some(tab), "{label}");
            assert_eq!(
                tab_at(column + label.len() as u16 - 1, width, app.tab),
                Some(tab),
                "{label}"
            );
        }
        assert_eq!(tab_at(width - 1, width, app.tab), None, "{row}");
    }
    app.tab = Tab::Liquidations;
    let s = screen(&app, 80, 24);
    let row = s.lines().nth(TAB_ROW as usize).unwrap();
    assert!(
        row.contains("7 Liquidations") && row.contains("2 Pos "),
        "{row}"
    );
}

/// Settle the fixture's first position on the stream: closed with `net_pnl`, or liquidated.
fn settle_first(
    app: &mut App,
    liquidated: bool,
    net_pnl: i128,
) -> papertrade_tui::protocol::account::Position {
    let mut state = app.account.clone().unwrap();
    let gone = state.open_positions.remove(0);
    let closed = vec![papertrade_tui::protocol::account::ClosedPosition {
        id: gone.id,
        instrument_id: gone.instrument_id,
        is_long: gone.is_long,
        margin: gone.margin,
        leverage: gone.leverage,
        liquidated,
        net_pnl,
        paper_minted: 0,
    }];
    app.handle(Message::Stream(
        StreamEvent::Patched {
            state: Box::new(state),
            closed,
            outcomes: Vec::new(),
        },
        now(),
    ));
    gone
}

#[test]
fn a_settlement_says_what_came_back() {
    let mut app = fixture(Mode::Demo);
    let gone = settle_first(&mut app, false, 1_890_000_000_000_000_000);
    let toast = app.toasts.back().unwrap();
    assert_eq!(toast.text, "closed 1 position(s): net +$1.89");
    assert!(!toast.error);
    assert_eq!(app.history.newest().unwrap().id(), gone.id);
}

/// After the exchange dies (polls failing, stream lost, no fresh mark), the header says so and
/// nothing is signed against the old mark: Review refuses, and a dialog left open is not sent.
#[test]
fn a_dead_exchange_is_not_trusted() {
    let mut app = fixture(Mode::Demo);
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_some(), "{:?}", app.toasts);
    let later = now() + Duration::from_secs(45);
    app.handle(Message::Market(MarketEvent::Failed {
        source: Source::Trading,
        error: "/state/trading: connection refused".into(),
        at: later,
    }));
    app.handle(Message::Stream(
        StreamEvent::Disconnected {
            reason: "connection refused".into(),
            retry_in: Duration::from_secs(1),
        },
        later,
    ));
    app.clock = later;
    // The dialog waited 45 s: confirming it sends nothing.
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    assert!(app.dialog.is_none());
    let last = &app.toasts.back().unwrap().text;
    assert!(
        last.contains("nothing was signed") && last.contains("the exchange is unreachable"),
        "{last}"
    );
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("EXCHANGE UNREACHABLE: /state/trading: connection refused"),
        "{s}"
    );
    assert!(s.contains("✗ cannot sign now: the exchange is"), "{s}");
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    // The polls answer again, but the mark is still 47 s old: Review refuses and says why.
    let state = app.trading.clone().unwrap();
    app.handle(Message::Market(MarketEvent::Trading(
        Box::new(state),
        later,
    )));
    let s = screen(&app, 120, 40);
    assert!(s.contains("✗ cannot sign now: the mark is 47s old"), "{s}");
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(app.toasts.back().unwrap().text.contains("(limit 5s)"));
    // A fresh mark opens the gate; the header still says the stream is resyncing.
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 830_200,
        at: later,
    }));
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_some(), "{:?}", app.toasts);
    assert!(screen(&app, 120, 40).contains("account stream lost, resyncing"));
}

/// The header and the ticket follow the account stream's `sessionKeys`: a key the exchange
/// dropped reads "KEY NOT REGISTERED", the ticket says what to run, and nothing is signed.
#[test]
fn a_key_the_exchange_dropped_is_followed() {
    let mut app = fixture(Mode::Demo);
    assert!(screen(&app, 120, 40).contains("keystore key 28d"));
    let mut state = app.account.clone().unwrap();
    state.session_keys.clear();
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    let s = screen(&app, 120, 40);
    assert!(s.contains("keystore KEY NOT REGISTERED"), "{s}");
    assert!(s.contains("✗ the exchange does not list the"), "{s}");
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(app.toasts.back().unwrap().text.contains("G registers it"));
    // Closing is refused the same way.
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char('x'));
    assert!(app.dialog.is_none());
    assert!(
        app.toasts
            .back()
            .unwrap()
            .text
            .contains("nothing was signed")
    );
    // With a registration queued the relayer takes the key's intents: not blocked.
    let mut state = app.account.clone().unwrap();
    state
        .operations
        .push(papertrade_tui::protocol::account::Operation {
            intent_id: alloy_primitives::B256::repeat_byte(0x5e),
            action: "registerSessionKey".into(),
            instrument_id: None,
            is_long: None,
            use_debt: None,
            amount: None,
            leverage: None,
            accepted_at_ms: 1_791_862_895_000,
            deadline: 1_791_866_400,
            close_position_ids: None,
        });
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    assert!(screen(&app, 120, 40).contains("keystore key registering…"));
    press(&mut app, KeyCode::Char('1'));
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_some(), "{:?}", app.toasts);
}

#[test]
fn a_liquidation_reads_like_one() {
    let mut app = fixture(Mode::Demo);
    let margin = app.account.as_ref().unwrap().open_positions[0].margin;
    settle_first(&mut app, true, -(margin as i128));
    let toast = app.toasts.back().unwrap();
    assert_eq!(toast.text, "LIQUIDATED ETH ▼ 100x: margin $10.00 lost");
    assert!(toast.error);
}

#[test]
fn a_position_crossing_a_threshold_raises_the_banner_and_asks_for_the_bell() {
    use papertrade_tui::app::{Effect, Message};
    use papertrade_tui::config::alerts::{Delivery, Method};
    let mut app = fixture(Mode::Demo);
    app.delivery = Delivery {
        method: Method::Osc9,
        tmux: false,
    };
    // First sight: the long is 0.70% from bust, already inside 5% and 2%: no alert for those.
    assert!(
        !app.handle(Message::Tick(now()))
            .iter()
            .any(|e| matches!(e, Effect::Notify(_)))
    );
    assert!(app.banner.is_none());
    // The mark falls to 82,840.0: the long (bust 82,431.5) is 0.49% away, through 0.5%.
    let mark = |raw| {
        Message::Market(MarketEvent::Mark {
            instrument_id: 0,
            raw,
            at: now(),
        })
    };
    let effects = app.handle(mark(828_400));
    let notices: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 1, "{effects:?}");
    assert_eq!(notices[0].delivery.method, Method::Osc9);
    assert_eq!(
        notices[0].body,
        "BTC ▲ 100x #411276: 0.49% to bust (below 0.5%)"
    );
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("⚠ NEAR BUST  BTC ▲ 100x #411276: 0.49% to bust (below 0.5%) · Esc dismisses"),
        "{s}"
    );
    insta::assert_snapshot!("banner_80x24", screen(&app, 80, 24));
    // Once: the next mark inside the threshold asks for nothing.
    assert!(
        !app.handle(mark(828_300))
            .iter()
            .any(|e| matches!(e, Effect::Notify(_)))
    );
    // Esc dismisses the banner.
    app.handle(Message::Action(papertrade_tui::app::Action::Escape));
    assert!(!screen(&app, 120, 40).contains("NEAR BUST"));
}

/// The first ticket a trader sees passes the live minimums: the default margin is fitted to the
/// market's minimum trade size and minimum open notional at the default leverage, and only
/// while nobody has typed one.
#[test]
fn the_default_ticket_passes_the_live_minimums() {
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    let wallet = "0xa9f28db0543b215eb2705740f10258c3d000cefd"
        .parse()
        .unwrap();
    let mut app = App::new(Mode::Demo, Some(wallet));
    app.handle(Message::Market(MarketEvent::Trading(
        Box::new(state.clone()),
        now(),
    )));
    let preview = app.ticket.preview(&state, 830_105, None).unwrap();
    assert_eq!(preview.validation, Ok(()), "{}", app.ticket.margin_text);
    assert_eq!(
        (app.ticket.margin_text.as_str(), app.ticket.leverage),
        ("100", 10)
    );
    // Stricter live minimums move the default with them.
    let mut wire = state.to_wire();
    wire["minimumOpenNotionalRaw"] = "2500000000000000000001".into();
    let stricter = TradingState::from_value(&wire).unwrap();
    app.handle(Message::Market(MarketEvent::Trading(
        Box::new(stricter.clone()),
        now(),
    )));
    assert_eq!(app.ticket.margin_text, "251");
    assert_eq!(
        app.ticket
            .preview(&stricter, 830_105, None)
            .unwrap()
            .validation,
        Ok(())
    );
    // A margin the trader typed is theirs: never refitted.
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "0");
    app.handle(Message::Market(MarketEvent::Trading(
        Box::new(state),
        now(),
    )));
    assert_eq!(app.ticket.margin_text, "2510");
}

/// A close of twenty lists every one (scrolling), what each pays at the mark, the exact
/// total and the intents, and its y/n line stays on a 24-row screen.
#[test]
fn the_close_dialog_lists_every_position_and_keeps_its_keys() {
    let mut app = fixture(Mode::Demo);
    let mut state = app.account.clone().unwrap();
    let template = state.open_positions[1].clone();
    state.open_positions = (0..20u64)
        .map(|i| papertrade_tui::protocol::account::Position {
            id: alloy_primitives::U256::from(500_000 + i),
            ..template.clone()
        })
        .collect();
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    press(&mut app, KeyCode::Char('2'));
    for _ in 0..20 {
        press(&mut app, KeyCode::Char(' '));
        press(&mut app, KeyCode::Down);
    }
    press(&mut app, KeyCode::Char('x'));
    let s = screen(&app, 80, 24);
    assert!(
        s.contains("CLOSE 20 position(s) in 2 intent(s) of at most 12"),
        "{s}"
    );
    assert!(s.contains("y  sign with the session key and send"), "{s}");
    assert!(s.contains("rows 1–16 of 20 (↑↓ scroll)"), "{s}");
    // Each $10 BTC long at 100x pays $7.43 at 83,010.5 (net -$2.57, rounded for the row);
    // the total sums the exact values: 20 × 7.4286… = $148.57, and pays − margins = net.
    assert!(
        s.contains("#500000 BTC ▲ 100x margin $10.00 → pays $7.43 (net -$2.57)"),
        "{s}"
    );
    assert!(s.contains("pays $148.57 · net -$51.43"), "{s}");
    assert!(!s.contains("#500019"), "{s}");
    for _ in 0..30 {
        press(&mut app, KeyCode::Down);
    }
    let s = screen(&app, 80, 24);
    assert!(s.contains("#500019 BTC") && !s.contains("#500003 "), "{s}");
    assert!(s.contains("y  sign with the session key and send"), "{s}");
    insta::assert_snapshot!("close_dialog_scrolled_80x24", s);
    // Arrows scroll; they never change what is signed.
    let effects = press(&mut app, KeyCode::Char('y'));
    let [
        Effect::Submit {
            order: Order::Close { ids },
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(ids.len(), 20);
}

/// A burst of messages is not lost to the last one: the footer says how many more there are,
/// `e` opens the log with every message and its time, messages expire (a redraw when each
/// does), a note stays until Esc, and "resyncing" is followed by "back".
#[test]
fn messages_expire_and_the_log_keeps_them_all() {
    use papertrade_tui::app::Message;
    let mut app = fixture(Mode::Demo);
    app.note("ticket prefilled: review it (Enter)");
    app.toast("close 15 position(s) (batch of 12): queued (0xaa…)", false);
    app.toast(
        "close 15 position(s) (batch of 3) refused (nonce_used): …",
        true,
    );
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("refused (nonce_used)") && s.contains("(+2 more: E log)"),
        "{s}"
    );
    press(&mut app, KeyCode::Char('e'));
    let s = screen(&app, 120, 40);
    for line in [
        "batch of 12): queued",
        "batch of 3) refused",
        "ticket prefilled",
        "intent 0x71a9f6c0… succeeded",
    ] {
        assert!(s.contains(line), "{line}: {s}");
    }
    // Times are the app's (UTC): 1791862900 is 03:41:40.
    assert!(s.contains("03:41:40 "), "{s}");
    insta::assert_snapshot!("message_log_120x40", s);
    insta::assert_snapshot!("message_log_80x24", screen(&app, 80, 24));
    let bar = screen(&app, 120, 40).lines().last().unwrap().to_string();
    assert_eq!(bar, "Esc close · E close");
    press(&mut app, KeyCode::Esc);
    assert!(!app.show_log);
    // 30 s later the outcomes have expired: the tick redraws once, and the note is what is left.
    app.dirty = false;
    app.handle(Message::Tick(now() + Duration::from_secs(30)));
    assert!(app.dirty, "an expiring message is a change to draw");
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("ticket prefilled") && !s.contains("refused (nonce_used)"),
        "{s}"
    );
    // Every message has expired, the note included (it stays until Esc, however old): the
    // footer changes no more with time (the fixture's data, now stale, still counts its age).
    assert_eq!(
        app.toasts.next_change(now() + Duration::from_secs(30)),
        None
    );
    press(&mut app, KeyCode::Esc);
    assert!(!screen(&app, 120, 40).contains("ticket prefilled"));
    // The stream's loss and its return.
    let at = now() + Duration::from_secs(32);
    app.handle(Message::Stream(
        StreamEvent::Disconnected {
            reason: "eof".into(),
            retry_in: Duration::from_secs(1),
        },
        at,
    ));
    let state = app.account.clone().unwrap();
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), at));
    assert_eq!(
        app.toasts.back().unwrap().text,
        "account stream back: synced"
    );
}

/// The account's lines stay on the chart: a bust far outside the candles' range is named at the
/// edge it lies beyond (with an arrow), a label on the mark's row moves to a free row instead of
/// being hidden, and the bottom row is a time axis.
#[test]
fn the_chart_keeps_the_accounts_lines_and_a_time_axis() {
    let mut app = fixture(Mode::Demo);
    let mut state = app.account.clone().unwrap();
    let btc = state.open_positions[1].clone();
    state.open_positions = vec![
        // A 10x long: bust about 10% under, far below the candles.
        papertrade_tui::protocol::account::Position {
            id: alloy_primitives::U256::from(9u8),
            leverage: 10,
            bust_price: 749_300,
            entry_price: 830_105,
            ..btc.clone()
        },
    ];
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    let s = screen(&app, 120, 40);
    let chart: Vec<&str> = s
        .lines()
        .skip(4)
        .take_while(|l| !l.starts_with('└'))
        .collect();
    let axis = |l: &&str| l.chars().skip(67).take(12).collect::<String>();
    // The entry is the mark here: both labels are shown, on neighbouring rows.
    assert!(chart.iter().any(|l| axis(l).contains("▶83,010.5")), "{s}");
    assert!(chart.iter().any(|l| axis(l).contains("E83,010.5")), "{s}");
    // The bust, far below, sits on the lowest price row with an arrow.
    let lowest = chart[chart.len() - 2];
    assert!(axis(&lowest).contains("B74,930.0↓"), "{s}");
    // The time axis: first, middle and last candle, in UTC.
    let times = chart[chart.len() - 1];
    assert!(
        times.contains("15:46") && times.contains("01:31") && times.contains("UTC"),
        "{s}"
    );
}

/// A send the relayer refused, or that got no answer, or that never left: each is a Pending row
/// beside the queue. No answer stays until the stream settles it; refused and unsent go after a
/// minute (the message log keeps them).
#[test]
fn unanswered_sends_are_pending_rows_until_settled_or_a_minute_old() {
    use papertrade_tui::app::{Action, SendFate, SubmitOutcome, Unanswered};
    let mut app = fixture(Mode::Live);
    app.handle(Message::Action(Action::Tab(Tab::Positions)));
    let unknown = alloy_primitives::B256::repeat_byte(0x71);
    let refused = alloy_primitives::B256::repeat_byte(0x72);
    app.handle(Message::Submitted(SubmitOutcome {
        tracked: vec![unknown],
        unanswered: vec![
            Unanswered {
                intent_id: Some(unknown),
                what: "open BTC 100x".into(),
                fate: SendFate::NoAnswer,
            },
            Unanswered {
                intent_id: Some(refused),
                what: "open ETH 5x".into(),
                fate: SendFate::Refused("market_paused".into()),
            },
            Unanswered {
                intent_id: None,
                what: "close 1 position(s)".into(),
                fate: SendFate::NotSent,
            },
        ],
        ..SubmitOutcome::default()
    }));
    let s = screen(&app, 120, 40);
    assert!(s.contains("not queued (3)"), "{s}");
    assert!(s.contains("NO ANSWER") && s.contains("not resent"), "{s}");
    assert!(
        s.contains("REFUSED") && s.contains("market_paused: nothing was queued"),
        "{s}"
    );
    assert!(s.contains("NOT SENT"), "{s}");
    // A minute later the refused and unsent rows are gone; the unanswered one is still watched.
    app.handle(Message::Tick(app.clock + Duration::from_secs(61)));
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("not queued (1)") && s.contains("NO ANSWER"),
        "{s}"
    );
    assert!(!s.contains("REFUSED"), "{s}");
    // The stream reports its outcome: the row leaves Pending.
    let mut settled = app.account.clone().unwrap();
    settled.account_revision += 1;
    app.handle(Message::Stream(
        StreamEvent::Patched {
            state: Box::new(settled),
            closed: Vec::new(),
            outcomes: vec![papertrade_tui::protocol::account::IntentOutcome {
                intent_id: unknown,
                outcome: papertrade_tui::protocol::account::Outcome::Succeeded,
            }],
        },
        app.clock,
    ));
    let s = screen(&app, 120, 40);
    assert!(!s.contains("NO ANSWER") && !s.contains("not queued"), "{s}");
}

/// A poll or a heartbeat bringing what the app already has draws nothing: the screen would be
/// the same. A change is drawn, and so is a failure (once), a recovery, and a success that ends
/// a stale label.
#[test]
fn the_same_data_again_draws_nothing() {
    let mut app = fixture(Mode::Watch);
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    let Frame::Snapshot(snapshot) = Frame::decode(SNAPSHOT).unwrap() else {
        panic!()
    };
    let at = now() + Duration::from_secs(5);
    let again = [
        (
            "trading state",
            Message::Market(MarketEvent::Trading(Box::new(state.clone()), at)),
        ),
        (
            "mark",
            Message::Market(MarketEvent::Mark {
                instrument_id: 0,
                raw: 830_105,
                at,
            }),
        ),
        (
            "day open",
            Message::Market(MarketEvent::DayOpen {
                instrument_id: 0,
                raw: 821_000,
                at,
            }),
        ),
        (
            "account snapshot",
            Message::Stream(StreamEvent::Synced(snapshot), at),
        ),
        ("heartbeat", Message::Stream(StreamEvent::Alive, at)),
    ];
    app.dirty = false;
    for (what, message) in again {
        app.handle(message);
        assert!(!app.dirty, "the same {what} again is not a change to draw");
    }
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 830_106,
        at,
    }));
    assert!(app.dirty, "a new mark is drawn");
    // A failure is drawn once, the same failure again is not, the recovery is.
    let failed = || {
        Message::Market(MarketEvent::Failed {
            source: Source::Trading,
            error: "HTTP 503".into(),
            at,
        })
    };
    app.dirty = false;
    app.handle(failed());
    assert!(app.dirty, "a failure is drawn");
    app.dirty = false;
    app.handle(failed());
    assert!(!app.dirty, "the same failure again is not");
    app.handle(Message::Market(MarketEvent::Trading(Box::new(state), at)));
    assert!(app.dirty, "the recovery is drawn");
    // An account shown as stale is drawn fresh again by a heartbeat, at the same clock.
    app.freshness
        .record_ok(Source::Account, at - Duration::from_secs(45));
    assert!(screen(&app, 120, 40).contains("STALE 45s"));
    app.dirty = false;
    app.handle(Message::Stream(StreamEvent::Alive, at));
    assert!(app.dirty, "the stale label goes");
    assert!(!screen(&app, 120, 40).contains("STALE"));
}

/// On a quiet exchange every poll still moves the block it was read at: the trading state's
/// `indexedThroughBlock` every 2 s, the summary's `source` every 15 s. No screen shows either, so
/// neither is a change to draw (a frame for each would be bytes written while nothing moved).
#[test]
fn a_quiet_exchange_s_moving_block_draws_nothing() {
    let mut app = fixture(Mode::Watch);
    let summary = |block: u64, at_ms: u64| -> Box<papertrade_tui::protocol::reads::Summary> {
        let mut s: serde_json::Value = serde_json::from_str(SUMMARY).unwrap();
        s["source"]["block"] = serde_json::json!(block.to_string());
        s["source"]["at"] = serde_json::json!(at_ms);
        Box::new(serde_json::from_value(s).unwrap())
    };
    // Past the fixture's message leaving the footer, before anything turns stale.
    let at = now() + Duration::from_secs(10);
    app.handle(Message::Tick(at));
    app.handle(Message::Market(MarketEvent::Summary(
        summary(48_399_240, 1_791_862_483_000),
        at,
    )));
    let mut state = app.trading.clone().unwrap();
    for poll in 1..=5u64 {
        let at = at + Duration::from_secs(2 * poll);
        state.indexed_through_block += 2;
        app.dirty = false;
        app.handle(Message::Market(MarketEvent::Trading(
            Box::new(state.clone()),
            at,
        )));
        assert!(
            !app.dirty,
            "poll {poll}: only the trading state's block moved"
        );
        app.handle(Message::Market(MarketEvent::Summary(
            summary(48_399_240 + poll, 1_791_862_483_000 + poll * 2_000),
            at,
        )));
        assert!(!app.dirty, "poll {poll}: only the summary's source moved");
        assert_eq!(
            app.trading.as_ref().unwrap().indexed_through_block,
            state.indexed_through_block,
            "the newest state is kept"
        );
    }
    // A figure that moves is drawn.
    state.instruments[0].long_oi += 1;
    app.handle(Message::Market(MarketEvent::Trading(Box::new(state), at)));
    assert!(app.dirty, "open interest is shown on the Protocol tab");
    app.dirty = false;
    let mut moved: serde_json::Value = serde_json::from_str(SUMMARY).unwrap();
    moved["activity"]["open"] = serde_json::json!(1129);
    app.handle(Message::Market(MarketEvent::Summary(
        Box::new(serde_json::from_value(moved).unwrap()),
        at,
    )));
    assert!(app.dirty, "a new count of open positions is drawn");
}

const SUMMARY: &str = r#"{"ok":true,"source":{"block":"48399240","at":1791862483000,"genesis":1791326520000},
 "balances":{"tvl":"61329613310363150000000000","margin":"2998118568248273593726785","lp":"4499154030980584574848767","reserve":"0","queue":"0"},
 "activity":{"volume":"888367896494715926270620625820","open":1128},
 "fees":{"pending":"166456064238868037488","lifetime":"31174963777059996904196661"},
 "paper":{"supply":"6523155697538734372886664082","staked":"6449325581495324759362035927","trackedLp":"4499154030980584574848767",
          "accumulator":"10508152974861028961272120","tailProgress":"114763668726032459329881425","reserve":"3343415793864991749917162",
          "unallocated":"0","pendingRewards":"166456064238868037488","cliff":"2000000000000000000000000","cap":"5000000000000000000000000",
          "excess":"0","rate":"100000000000000000000","decay":"120000000000000000000000000"}}"#;

/// Time alone redraws only where the screen changes: a message leaving the footer, an age
/// crossing its stale limit and each second it counts after, whether a tick or any other
/// message moves the clock past it. In between the app asks to be woken for nothing.
#[test]
fn time_alone_redraws_only_where_the_screen_changes() {
    let mut app = fixture(Mode::Watch);
    let at = |s: u64| now() + Duration::from_secs(s);
    app.dirty = false;
    // The footer's message leaves 8 s after it was made.
    assert_eq!(app.next_wake(), Some(at(8)));
    app.handle(Message::Tick(at(7)));
    assert!(!app.dirty, "nothing shown changes before");
    app.handle(Message::Tick(at(8)));
    assert!(app.dirty, "the message left the footer");
    app.dirty = false;
    // The chart's candles are read again on the runtime's schedule: nothing here wakes for them.
    // The markets polled 2 s before `now` are shown stale once older than 30 s.
    let stale = at(28) + Duration::from_nanos(1);
    assert_eq!(app.next_wake(), Some(stale));
    app.handle(Message::Tick(at(28)));
    assert!(!app.dirty, "30 s old is not yet stale");
    assert!(!screen(&app, 120, 40).contains("STALE"));
    // The heartbeat that moves the clock past the limit is not a change itself; the crossing is.
    app.handle(Message::Stream(StreamEvent::Alive, stale));
    assert!(app.dirty, "the crossing is drawn");
    let s = screen(&app, 120, 40);
    assert!(s.contains("mark STALE: 30s old"), "{s}");
    app.dirty = false;
    // Once shown, the age counts: each second is a change.
    assert_eq!(app.next_wake(), Some(at(29)));
    app.handle(Message::Tick(at(29)));
    assert!(app.dirty, "31 s");
    assert!(screen(&app, 120, 40).contains("mark STALE: 31s old"));
    // Fresh data again: the label goes, and the next wake is the chart's candles (2 s before
    // `now`) turning stale past 20 + 30 s, not a second.
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    app.handle(Message::Market(MarketEvent::Trading(
        Box::new(state),
        at(29),
    )));
    for (instrument_id, raw) in [(0, 830_105), (1, 250_001)] {
        app.handle(Message::Market(MarketEvent::Mark {
            instrument_id,
            raw,
            at: at(29),
        }));
    }
    assert!(!screen(&app, 120, 40).contains("STALE"));
    assert_eq!(app.next_wake(), Some(at(48) + Duration::from_nanos(1)));
}

/// What counts on the screen wakes the app when it steps: a pending intent's age each second
/// while the Positions tab lists it, and the session key's time left each minute in its last
/// day.
#[test]
fn counters_on_the_screen_wake_the_app_when_they_step() {
    let mut app = fixture(Mode::Demo);
    let at = |s: u64| now() + Duration::from_secs(s);
    // Fresh marks (a demo's ticket shows their age past 5 s); the key has 60m 1s left.
    for (instrument_id, raw) in [(0, 830_105), (1, 250_001)] {
        app.handle(Message::Market(MarketEvent::Mark {
            instrument_id,
            raw,
            at: now(),
        }));
    }
    app.key.as_mut().unwrap().local_expiry = 1_791_862_900 + 3601;
    assert!(screen(&app, 120, 40).contains("keystore key 60m"));
    let mut state = app.account.clone().unwrap();
    state
        .operations
        .push(papertrade_tui::protocol::account::Operation {
            intent_id: alloy_primitives::B256::repeat_byte(0xab),
            action: "openPosition".into(),
            instrument_id: Some(1),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(50_000_000_000_000_000_000),
            leverage: Some(20),
            accepted_at_ms: 1_791_862_895_000,
            deadline: 1_791_866_400,
            close_position_ids: None,
        });
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    // On the Trade tab the pending list is not drawn: the key's minute is the first step.
    assert_eq!(app.next_wake(), Some(at(2)));
    press(&mut app, KeyCode::Char('2'));
    assert!(screen(&app, 120, 40).contains("5s old"));
    assert_eq!(app.next_wake(), Some(at(1)), "the pending age counts");
    app.dirty = false;
    app.handle(Message::Tick(at(1)));
    assert!(app.dirty);
    assert!(screen(&app, 120, 40).contains("6s old"));
    press(&mut app, KeyCode::Char('1'));
    assert_eq!(app.next_wake(), Some(at(2)));
    app.dirty = false;
    app.handle(Message::Tick(at(2)));
    assert!(app.dirty);
    assert!(screen(&app, 120, 40).contains("keystore key 59m"));
}

/// Only the ticket's market shows its mark's age: another market's mark growing old wakes
/// nothing (in a demo the ticket's gate shows the age past 5 s).
#[test]
fn only_the_tickets_mark_age_is_woken_for() {
    let mut app = fixture(Mode::Demo);
    // The ticket's BTC mark is read now; ETH's stays 2 s old.
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 830_105,
        at: now(),
    }));
    assert_eq!(
        app.next_wake(),
        Some(now() + Duration::from_secs(5) + Duration::from_nanos(1))
    );
    // On ETH it is ETH's mark that counts, 5 s after it was read.
    app.handle(Message::Action(papertrade_tui::app::Action::NextMarket));
    assert_eq!(
        app.next_wake(),
        Some(now() + Duration::from_secs(3) + Duration::from_nanos(1))
    );
}

/// A leaderboard page as the exchange serves it: three wallets (the session's own among them,
/// one with a name carrying an escape sequence), 60 on the board.
fn board_page() -> papertrade_tui::protocol::leaderboard::LeaderboardPage {
    serde_json::from_value(serde_json::json!({
        "ok": true,
        "summary": {"uniqueAccounts": 60, "trackedBalance": "0"},
        "pageInfo": {"totalPages": 3},
        "accounts": [
            {"address": "0x00000000000000000000000000000000000000b1", "leaderboardName": "whale\u{1b}[31m 🐋",
             "totalWindowedPnl": "1234560000000000000000", "totalVolume": "987654000000000000000000",
             "currentOpenPositionCount": 3, "currentBalance": "50000000000000000000000"},
            {"address": "0xa9f28db0543b215eb2705740f10258c3d000cefd", "leaderboardName": null,
             "totalWindowedPnl": "20500000000000000000", "totalVolume": "1000000000000000000000",
             "currentOpenPositionCount": 2, "currentBalance": "234249163328500998503"},
            {"address": "0x00000000000000000000000000000000000000b3", "leaderboardName": "tortoise",
             "totalWindowedPnl": "-75250000000000000000", "totalVolume": "50000000000000000000",
             "currentOpenPositionCount": 0, "currentBalance": "100000000000000000000"}
        ]
    }))
    .unwrap()
}

/// The Leaders tab with a page folded in, and the Explorer on a wallet of it, at both sizes.
#[test]
fn leaders_and_explorer_at_both_sizes() {
    use papertrade_tui::app::explore::{Fetch, Fetched, WalletRead};
    let mut app = fixture(Mode::Demo);
    press(&mut app, KeyCode::Char('5'));
    let request = app.explore.leaders.request();
    app.handle(Message::Fetched(
        Fetched::Leaderboard(request, Ok(vec![(0, board_page())])),
        now(),
    ));
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(format!("leaders_{w}x{h}"), screen(&app, w, h));
    }
    let s = screen(&app, 120, 40);
    assert!(s.contains("whale 🐋") && !s.contains('\u{1b}'), "{s}");
    // Enter opens the highlighted wallet, read-only.
    let effects = press(&mut app, KeyCode::Enter);
    let wallet: alloy_primitives::Address = "0x00000000000000000000000000000000000000b1"
        .parse()
        .unwrap();
    assert!(effects.is_empty());
    assert_eq!(app.declared_fetch(), Some(Fetch::Wallet(wallet)));
    let mut account: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
    account["address"] = serde_json::json!(format!("{wallet:#x}"));
    account["operations"] = serde_json::json!([[
        "0xbacd5a3f1cd8bd1b7bfd0a16bd56a5a51d8f3dd6a5c6e6e6c1f8d2b8e2b14937",
        "openPosition",
        0,
        false,
        false,
        "10000000000000000000",
        100,
        1791862862888u64,
        "1791862952",
        null
    ]]);
    let Frame::Snapshot(account) = Frame::decode(&account.to_string()).unwrap() else {
        panic!()
    };
    let ranks = papertrade_tui::protocol::leaderboard::Window::ALL
        .into_iter()
        .map(
            |window| papertrade_tui::analytics::leaderboard::WindowRank {
                window,
                rank: Some(1),
                pnl: Some(1_234_560_000_000_000_000_000),
                scanned: 60,
                complete: true,
            },
        )
        .collect();
    app.handle(Message::Fetched(
        Fetched::Wallet(
            wallet,
            Ok(Box::new(WalletRead {
                account: *account,
                ranks,
                name: Some("whale 🐋".into()),
            })),
        ),
        now(),
    ));
    // The feed lists a trade of this wallet: the explorer shows it under its positions.
    let feed: papertrade_tui::protocol::reads::RecentTrades =
        serde_json::from_str(FEED_TWO).unwrap();
    app.handle(Message::Market(MarketEvent::RecentTrades(
        Box::new(feed),
        now(),
    )));
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(format!("explorer_{w}x{h}"), screen(&app, w, h));
    }
    // An intent id typed into the explorer is looked up in the feed; Enter opens its wallet.
    press(&mut app, KeyCode::Char('/'));
    type_text(
        &mut app,
        "0x2222222222222222222222222222222222222222222222222222222222222222",
    );
    assert!(
        press(&mut app, KeyCode::Enter).is_empty(),
        "nothing more is read"
    );
    insta::assert_snapshot!("explorer_lookup_80x24", screen(&app, 80, 24));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.explore.explorer.found, None);
    assert_eq!(app.explore.explorer.wallet, Some(wallet));
}

/// Two trades of the exchange's recent feed: a liquidation of 0x…b1 and an open of 0x…b3.
const FEED_TWO: &str = r#"{"ok":true,"count":2,"events":[
          {"seq":"2","ts":1791862860000,"wallet":"0x00000000000000000000000000000000000000b1","instrument":"BTC","instrumentId":0,"instrumentTerminal":false,"side":"short","leverage":50,"notionalUsd":2500,"intentId":"0x2222222222222222222222222222222222222222222222222222222222222222","positionId":"411300","kind":"liq","entry":null,"exit":84100.5,"pnlUsd":-50},
          {"seq":"1","ts":1791862800000,"wallet":"0x00000000000000000000000000000000000000b3","instrument":"ETH","instrumentId":1,"instrumentTerminal":false,"side":"long","leverage":10,"notionalUsd":100,"intentId":null,"positionId":"411299","kind":"open","entry":2500.25,"exit":null,"pnlUsd":null}
        ]}"#;

/// Before any wallet, the explorer lists the exchange's latest trades; Enter opens the
/// highlighted trader's wallet.
#[test]
fn the_explorer_starts_from_the_exchanges_latest_trades() {
    use papertrade_tui::app::explore::Fetch;
    let mut app = fixture(Mode::Watch);
    let feed: papertrade_tui::protocol::reads::RecentTrades =
        serde_json::from_str(FEED_TWO).unwrap();
    app.handle(Message::Market(MarketEvent::RecentTrades(
        Box::new(feed),
        now(),
    )));
    press(&mut app, KeyCode::Char('6'));
    insta::assert_snapshot!("explorer_home_80x24", screen(&app, 80, 24));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let effects = press(&mut app, KeyCode::Enter);
    let b3: alloy_primitives::Address = "0x00000000000000000000000000000000000000b3"
        .parse()
        .unwrap();
    assert_eq!(
        app.explore.explorer.wallet,
        Some(b3),
        "the second row's trader"
    );
    assert!(effects.is_empty());
    assert_eq!(app.declared_fetch(), Some(Fetch::Wallet(b3)));
}

/// The Fund tab: both balances, the two forms with their route, fee and minimum; a
/// withdrawal's review restates what the owner's wallet signs, and nothing is asked of the
/// runtime until the owner's passphrase is in. In watch mode: balances only.
#[test]
fn the_fund_tab_shows_both_balances_and_reviews_before_the_owner_signs() {
    use papertrade_tui::app::explore::{Fetch, Fetched};
    use papertrade_tui::app::{Action, Effect};
    use papertrade_tui::protocol::funding::SpotUsdc;
    let mut app = fixture(Mode::Demo);
    let wallet = app.wallet.unwrap();
    app.handle(Message::Action(Action::Tab(Tab::Fund)));
    assert_eq!(app.declared_fetch(), Some(Fetch::CoreBalance(wallet)));
    app.handle(Message::Fetched(
        Fetched::CoreBalance(
            wallet,
            Ok(SpotUsdc {
                total_wei: 12_345_678_900,
                hold_wei: 0,
            }),
        ),
        now(),
    ));
    for (w, h) in [(80, 24), (120, 40)] {
        insta::assert_snapshot!(format!("fund_{w}x{h}"), screen(&app, w, h));
    }
    let s = screen(&app, 120, 40);
    assert!(s.contains("123.456789"), "HyperCore USDC to the unit: {s}");
    let press = |app: &mut App, a: Action| app.handle(Message::Action(a));
    press(&mut app, Action::Down);
    press(&mut app, Action::FocusMargin);
    for c in "25".chars() {
        press(&mut app, Action::Type(c));
    }
    assert!(
        press(&mut app, Action::Review).is_empty(),
        "a review reads nothing"
    );
    let review = screen(&app, 80, 24);
    insta::assert_snapshot!("fund_review_80x24", review);
    assert!(review.contains("WITHDRAW 25 USDC"), "{review}");
    assert!(review.contains("OWNER's keystore, never the"), "{review}");
    press(&mut app, Action::Type('y'));
    press(&mut app, Action::Type('x'));
    press(&mut app, Action::Confirm);
    for c in "secret".chars() {
        press(&mut app, Action::Type(c));
    }
    let s = screen(&app, 120, 40);
    assert!(s.contains("••••••") && !s.contains("secret"), "{s}");
    let sent = press(&mut app, Action::Confirm);
    assert!(
        matches!(sent.as_slice(), [Effect::Fund(_)]),
        "only the passphrase's Enter asks to sign: {sent:?}"
    );

    let mut watch = fixture(Mode::Watch);
    watch.handle(Message::Action(Action::Tab(Tab::Fund)));
    watch.handle(Message::Action(Action::FocusMargin));
    let s = screen(&watch, 120, 40);
    assert!(s.contains("read-only (watch): balances only"), "{s}");
    assert!(s.contains("watch mode is read-only"), "{s}");
}

/// However narrow the screen, the header drops whole fields, the least important first: no
/// number is cut short (`PAPER 1` for 184,129.92, `keystore k`) and the key's state
/// (`KEY EXPIRED`) is always there.
#[test]
fn a_narrow_header_drops_fields_whole() {
    let mut app = fixture(Mode::Demo);
    let mut s: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
    s["paper"]["balance"] = serde_json::json!("184129920000000000000000");
    let Frame::Snapshot(snapshot) = Frame::decode(&s.to_string()).unwrap() else {
        panic!()
    };
    app.handle(Message::Stream(StreamEvent::Synced(snapshot), now()));
    let head = |app: &App, width: u16| -> String {
        let s = screen(app, width, 24);
        s.lines().take(2).collect::<Vec<_>>().join("\n")
    };
    let check = |app: &App, key: &str| {
        let full = head(app, 250);
        assert!(full.contains("PAPER 184,129.92"), "{full}");
        let whole: Vec<&str> = full.split_whitespace().collect();
        for width in 80..=140 {
            let h = head(app, width);
            for token in h.split_whitespace() {
                assert!(
                    whole.contains(&token),
                    "{width} columns: {token:?} is cut short:\n{h}"
                );
            }
            assert!(h.contains(key), "{width} columns: no {key:?}:\n{h}");
        }
    };
    check(&app, "key 28d");
    // The key past its expiry, the data old: the key's state stays, whatever goes.
    app.clock = UNIX_EPOCH + Duration::from_secs(1_794_285_300);
    check(&app, "KEY EXPIRED");
    let h = head(&app, 80);
    assert!(h.contains("$234.25"), "the balance is kept long:\n{h}");
}

/// The chart's axis labels, top to bottom, as prices (the label's own marks stripped).
fn chart_labels(screen: &str) -> Vec<(usize, String, f64)> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains("┌ BTC 15m"))
        .unwrap_or_else(|| panic!("no chart:\n{screen}"));
    let right = lines[top].iter().position(|c| *c == '┐').unwrap();
    let mut out = Vec::new();
    for (row, line) in lines.iter().enumerate().skip(top + 1) {
        if line.first() == Some(&'└') {
            break;
        }
        // The axis: the chart's last 11 columns.
        let axis: String = line[(right - 11).min(line.len())..right.min(line.len())]
            .iter()
            .collect();
        let Some(last) = axis.split_whitespace().last() else {
            continue;
        };
        let price = last
            .trim_start_matches(['▶', 'E', 'B'])
            .trim_end_matches(['↑', '↓'])
            .replace(',', "");
        if let Ok(p) = price.parse::<f64>()
            && price.contains('.')
        {
            out.push((row, last.to_string(), p));
        }
    }
    out
}

/// The axis labels read in price order, top to bottom, whatever collides: an entry just below
/// the mark is never drawn above it (a label that cannot keep its place moves or goes).
#[test]
fn chart_labels_keep_price_order() {
    for entry in (829_905..=830_305).step_by(10) {
        let mut app = fixture(Mode::Demo);
        let mut s: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
        s["openPositions"][1][4] = serde_json::json!(entry.to_string());
        s["openPositions"][1][7] = serde_json::json!("825000");
        let Frame::Snapshot(snapshot) = Frame::decode(&s.to_string()).unwrap() else {
            panic!()
        };
        app.handle(Message::Stream(StreamEvent::Synced(snapshot), now()));
        app.clock = now();
        for (w, h) in [(80, 24), (120, 40)] {
            let screen = screen(&app, w, h);
            let labels = chart_labels(&screen);
            assert!(
                labels.iter().any(|(_, t, _)| t.starts_with('▶')),
                "entry {entry}, {w}x{h}: the mark is labelled:\n{screen}"
            );
            for pair in labels.windows(2) {
                assert!(
                    pair[0].2 >= pair[1].2,
                    "entry {entry}, {w}x{h}: {} above {}:\n{screen}",
                    pair[0].1,
                    pair[1].1
                );
            }
        }
    }
}

/// The exchange dies: three minutes on, with nothing heard, every pane of its data says how
/// old it is. The Protocol tab no longer says a bare "relayer ready": its title is stale and
/// the relayer line says when it was last heard; the chart's title says stale too.
#[test]
fn after_the_exchange_dies_every_pane_says_how_old_its_data_is() {
    let mut app = fixture(Mode::Demo);
    app.handle(Message::Market(MarketEvent::Summary(
        Box::new(serde_json::from_str(SUMMARY).unwrap()),
        now(),
    )));
    app.tab = Tab::Protocol;
    let fresh = screen(&app, 120, 40);
    assert!(fresh.contains("relayer ready"), "{fresh}");
    assert!(!fresh.contains("STALE"), "{fresh}");
    app.clock = now() + Duration::from_secs(180);
    for (w, h) in [(80, 24), (120, 40)] {
        app.tab = Tab::Protocol;
        let s = screen(&app, w, h);
        assert!(s.contains("Protocol · STALE 3m"), "{w}x{h}:\n{s}");
        assert!(!s.contains("relayer ready"), "{w}x{h}:\n{s}");
        assert!(
            s.contains("relayer STALE: last heard 03:41:38 UTC, 3m ago (ready then)"),
            "{w}x{h}:\n{s}"
        );
        app.tab = Tab::Trade;
        let s = screen(&app, w, h);
        assert!(
            s.contains("BTC 15m · STALE 3m (C: interval)"),
            "{w}x{h}:\n{s}"
        );
    }
    // A failed read is said with the age.
    app.handle(Message::Market(MarketEvent::Failed {
        source: Source::RelayerHealth,
        error: "relayer health: connection refused".into(),
        at: app.clock,
    }));
    app.tab = Tab::Protocol;
    let s = screen(&app, 120, 40);
    assert!(
        s.contains("3m ago (ready then) · last read failed: relayer health: connection refused"),
        "{s}"
    );
}

/// An operator notice shows on every tab (a header badge) until the Protocol tab, which lists
/// it, is opened; it goes into the message log once. A new one raises the badge again.
#[test]
fn an_unread_notice_shows_on_every_tab_and_in_the_log() {
    let mut app = fixture(Mode::Demo);
    let health = |notices: &str| {
        let h = serde_json::from_str(&format!(
            r#"{{"ok":true,"ready":true,"notices":{notices}}}"#
        ))
        .unwrap();
        Message::Market(MarketEvent::RelayerHealth(Box::new(h), now()))
    };
    let intake = r#"[{"level":"warn","title":"Intake paused","body":"ETH opens paused for maintenance\u001b[2J"}]"#;
    app.handle(health(intake));
    for tab in [Tab::Trade, Tab::Positions, Tab::History, Tab::Fund] {
        app.tab = tab;
        let s = screen(&app, 80, 24);
        let header = s.lines().next().unwrap();
        assert!(header.contains("⚑ 1 NOTICE (4)"), "{tab:?}:\n{s}");
    }
    app.show_log = true;
    let log = screen(&app, 120, 40);
    assert!(
        log.contains("operator notice [warn] Intake paused: ETH opens paused for maintenance"),
        "{log}"
    );
    assert!(!log.contains('\u{1b}'));
    app.show_log = false;
    // Read on the Protocol tab: the badge goes, the notice stays listed there.
    app.handle(Message::Action(papertrade_tui::app::Action::Tab(
        Tab::Protocol,
    )));
    let s = screen(&app, 120, 40);
    assert!(!s.contains("NOTICE ("), "{s}");
    assert!(s.contains("notice [warn] Intake paused"), "{s}");
    app.handle(Message::Action(papertrade_tui::app::Action::Tab(
        Tab::Trade,
    )));
    // The same notice again is neither unread nor logged again; a second one is.
    app.handle(health(intake));
    assert!(!screen(&app, 80, 24).contains("NOTICE ("));
    let two = r#"[{"level":"warn","title":"Intake paused","body":"ETH opens paused for maintenance\u001b[2J"},{"level":"info","title":"Upgrade","body":"at 04:00 UTC"}]"#;
    app.handle(health(two));
    assert!(screen(&app, 80, 24).contains("⚑ 1 NOTICE (4)"));
    app.show_log = true;
    let log = screen(&app, 120, 40);
    assert_eq!(log.matches("Intake paused").count(), 1, "{log}");
    assert!(
        log.contains("operator notice [info] Upgrade: at 04:00 UTC"),
        "{log}"
    );
}

/// Leverage is typed, not only stepped (10x → 500x was 49 presses of `}`), and a market is
/// picked by name: `= 500 ⏎`, `F eth ⏎`. A value the market refuses is said and changes
/// nothing; Esc leaves with nothing changed. The hint bar and `?` show both keys, from the
/// live keymap (`[ui.keys] leverage`, `pick_market`).
#[test]
fn leverage_is_typed_and_a_market_picked_by_name() {
    let mut app = fixture(Mode::Demo);
    app.ticket.leverage = 10;
    let hints = |app: &App| screen(app, 80, 24).lines().last().unwrap().to_string();
    assert!(
        hints(&app).contains("M F mkt · [ ] = lev"),
        "{}",
        hints(&app)
    );
    type_text(&mut app, "=500");
    assert!(screen(&app, 80, 24).contains("type leverage: 500▏x"));
    assert!(
        hints(&app).starts_with("0-9 leverage · ⏎ set it · Esc leave"),
        "{}",
        hints(&app)
    );
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.ticket.leverage, 500);
    assert!(app.ticket.typing.is_none());
    assert!(
        app.dialog.is_none(),
        "Enter set the leverage; it did not review"
    );
    assert!(screen(&app, 120, 40).contains("BTC ▲ LONG  500x"));
    // Above the market's ceiling: said, nothing changed, still typing.
    type_text(&mut app, "=2000");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.ticket.leverage, 500);
    assert!(
        screen(&app, 120, 40)
            .contains("leverage: a whole number from 1 to 1000 on BTC, got \"2000\""),
        "{}",
        screen(&app, 120, 40)
    );
    press(&mut app, KeyCode::Esc);
    assert!(app.ticket.typing.is_none());
    assert_eq!(app.ticket.leverage, 500);
    // A market by name, any case; none or several matching is said.
    type_text(&mut app, "fdoge");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.ticket.market, 0);
    assert!(screen(&app, 120, 40).contains("none is called \"doge\""));
    for _ in 0..4 {
        press(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "eth");
    assert!(screen(&app, 80, 24).contains("type market: eth▏ → ETH"));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.ticket.market, 1);
    assert!(screen(&app, 120, 40).contains("ETH ▲ LONG  500x"));
    // The help lists both, and a remap moves them.
    app.help = true;
    let help = screen(&app, 80, 24);
    assert!(
        help.contains("M F  market: the next one / type a name, ⏎ picks it"),
        "{help}"
    );
    assert!(
        help.contains("[ ] { } =  leverage −1 / +1 / −10 / +10 / type it, ⏎ sets it"),
        "{help}"
    );
    app.help = false;
    let overrides = [
        ("leverage".to_string(), "z".to_string()),
        ("pick_market".to_string(), "u".to_string()),
    ]
    .into();
    app.keymap = papertrade_tui::config::keys::Keymap::with_overrides(&overrides).unwrap();
    assert!(
        hints(&app).contains("M U mkt · [ ] Z lev"),
        "{}",
        hints(&app)
    );
    type_text(&mut app, "z7");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.ticket.leverage, 7);
}

/// `d` takes the ticket's margin from the queued balance (the CLI's `--use-debt`): the ticket
/// says so, the review checks the queued balance and its debt room, and the dialog restates it
/// and signs exactly that. A remap moves it like any command.
#[test]
fn the_debt_key_takes_the_margin_from_the_queued_balance() {
    let mut app = fixture(Mode::Demo);
    app.ticket.margin_text = "20".into();
    press(&mut app, KeyCode::Char('d'));
    assert!(app.ticket.use_debt);
    let s = screen(&app, 120, 40);
    assert!(s.contains("margin $20 from queued (debt)"), "{s}");
    assert!(s.contains("D debt"), "the hint bar names it: {s}");
    // What limits a debt-funded open is the queued balance, and the ticket says so.
    assert!(s.contains("max margin $0.00 (available queued"), "{s}");
    // Nothing queued yet: the review refuses it with the relayer's reason.
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert!(
        app.toasts.back().unwrap().text.contains("queued"),
        "{:?}",
        app.toasts.back()
    );
    // 100 queued, all of it debt room.
    let mut state = app.account.clone().unwrap();
    state.queued = 100_000_000_000_000_000_000;
    state.funds.available_queued = state.queued;
    state.consumable_debt = state.queued;
    app.handle(Message::Stream(StreamEvent::Synced(Box::new(state)), now()));
    press(&mut app, KeyCode::Enter);
    assert!(
        matches!(app.dialog, Some(Dialog::Open { use_debt: true, .. })),
        "{:?}",
        app.toasts
    );
    let s = screen(&app, 120, 40);
    assert!(s.contains("from the queued balance"), "{s}");
    let effects = press(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(
            &effects[..],
            [Effect::Submit {
                order: Order::Open { use_debt: true, .. },
                ..
            }]
        ),
        "{effects:?}"
    );
    // Pressed again, the margin comes from the available balance.
    press(&mut app, KeyCode::Char('d'));
    assert!(!app.ticket.use_debt);
    let overrides = [("use_debt".to_string(), "u".to_string())]
        .into_iter()
        .collect();
    app.keymap = papertrade_tui::config::keys::Keymap::with_overrides(&overrides).unwrap();
    press(&mut app, KeyCode::Char('d'));
    assert!(!app.ticket.use_debt, "d is no longer bound");
    press(&mut app, KeyCode::Char('u'));
    assert!(app.ticket.use_debt);
}

/// Every pane draws at the frame's one `now`, not at the time of the last message: 29 min before
/// the key expires the ticket warns and the hint bar offers the key panel in the same frame, and
/// the key panel counts from the same time, though no message has come since the fixture's.
#[test]
fn every_pane_draws_at_the_frames_time() {
    use papertrade_tui::ui::{draw, theme::Theme};
    let mut app = fixture(Mode::Demo);
    let expiry = UNIX_EPOCH + Duration::from_secs(1_794_285_240);
    let later = expiry - Duration::from_secs(29 * 60);
    let at = |app: &App, now: SystemTime| {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
        terminal
            .draw(|f| draw(f, app, &Theme::plain(), now))
            .unwrap();
        crate::screen::text(terminal.backend().buffer())
    };
    let s = at(&app, later);
    assert!(s.contains("session key expires in 29 min"), "{s}");
    let hints = s.lines().last().unwrap();
    assert!(hints.starts_with("G session key"), "{hints}");
    app.key_setup.available = true;
    press(&mut app, KeyCode::Char('g'));
    let s = at(&app, later);
    assert!(s.contains("usable for 0h 29m"), "{s}");
}
