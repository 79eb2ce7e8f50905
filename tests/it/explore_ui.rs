//! The Liquidations and Protocol tabs drawn from fixture reads folded into the app the way the
//! runtime folds them (`Message::Fetched`), snapshotted at 80x24 and 120x40, and what their keys
//! do. Every expected figure below is worked out by hand from the fixture positions, not taken
//! from the analytics code.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::screen::screen;
use papertrade_tui::app::explore::{Fetch, Fetched};
use papertrade_tui::app::{App, Effect, KeyStatus, Message, Mode, Tab};
use papertrade_tui::events::account::StreamEvent;
use papertrade_tui::events::market::MarketEvent;
use papertrade_tui::events::scan::{Scan, Scanned};
use papertrade_tui::protocol::account::{AccountState, Frame};
use papertrade_tui::protocol::reads::ProtocolHistory;
use papertrade_tui::protocol::trading::TradingState;
use papertrade_tui::ui::keymap::action;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const ME: &str = "0xa9f28db0543b215eb2705740f10258c3d000cefd";

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_791_862_900)
}

/// One open position as the account stream lists it:
/// `(id, market, long, entry raw, margin in dollars, leverage, bust raw)`.
type Open = (u64, u32, bool, u64, u64, u32, u64);

/// An account snapshot holding `positions`.
fn account(wallet: &str, positions: &[Open]) -> AccountState {
    // This session's wallet has its session key registered, as the header expects.
    let keys = if wallet == ME {
        r#"[["0x3f531f402502754977d21725fa31bfaacbed3562","1794285240"]]"#
    } else {
        "[]"
    };
    let open: Vec<String> = positions
        .iter()
        .map(|(id, market, long, entry, margin, lev, bust)| {
            format!(
                r#"["{id}",{market},{long},false,"{entry}","{margin}000000000000000000",{lev},"{bust}",1791862800000,null]"#
            )
        })
        .collect();
    let json = format!(
        r#"{{"address":"{wallet}","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":{keys},"walletRevision":48399562,"queueRevision":"881","balance":"234249163328500998503","queued":"0","locked":"20000000000000000000","funds":{{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"}},"queueNodeCount":0,"consumableDebt":"0","paper":{{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"}},"lifetime":{{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"}},"openPositions":[{}],"operations":[],"accountRevision":2}}"#,
        open.join(",")
    );
    match Frame::decode(&json).unwrap() {
        Frame::Snapshot(s) => *s,
        other => panic!("not a snapshot: {other:?}"),
    }
}

/// This session's positions: a BTC long busting at 82,431.5 and an ETH short at 2,536.40.
fn mine() -> AccountState {
    account(
        ME,
        &[
            (411_277, 1, false, 251_250, 10, 100, 253_640),
            (411_276, 0, true, 832_245, 10, 100, 824_315),
        ],
    )
}

fn wallet(n: u8) -> String {
    format!("0x{}", format!("{n:02x}").repeat(20))
}

/// The scan: seven wallets besides this session's, one whose snapshot failed. BTC (mark
/// 83,010.5) is held by: 01 long $50k bust 82,250.0 · 02 short $40k bust 86,800.0 · 03 long $30k
/// bust 75,000.0 · 04 short $20k bust 83,300.0 · 05 long $20k bust 81,500.0 · 07 long $25k bust
/// 80,000.0 · 08 short $10k bust 99,000.0 · this session long $1k bust 82,431.5.
fn scan() -> Scan {
    let ok = |n: u8, positions: &[Open]| Scanned {
        wallet: wallet(n).parse().unwrap(),
        snapshot: Ok(account(&wallet(n), positions)),
    };
    Scan {
        wallets: vec![
            ok(
                1,
                &[
                    (1, 0, true, 830_000, 500, 100, 822_500),
                    (2, 1, false, 250_000, 200, 50, 255_000),
                ],
            ),
            ok(2, &[(3, 0, false, 830_000, 2_000, 20, 868_000)]),
            ok(3, &[(4, 0, true, 830_000, 3_000, 10, 750_000)]),
            ok(4, &[(5, 0, false, 830_000, 100, 200, 833_000)]),
            ok(5, &[(6, 0, true, 830_000, 400, 50, 815_000)]),
            Scanned {
                wallet: wallet(6).parse().unwrap(),
                snapshot: Err("no account snapshot in time".into()),
            },
            ok(7, &[(7, 0, true, 830_000, 1_000, 25, 800_000)]),
            ok(8, &[(8, 0, false, 830_000, 2_000, 5, 990_000)]),
            Scanned {
                wallet: ME.parse().unwrap(),
                snapshot: Ok(mine()),
            },
        ],
        leaderboard_accounts: Some(412),
        took: Duration::from_millis(900),
    }
}

const SUMMARY: &str = r#"{"ok":true,"source":{"block":"48399240","at":1791862483000,"genesis":1791326520000},
 "balances":{"tvl":"61329613310363150000000000","margin":"2998118568248273593726785","lp":"4499154030980584574848767","reserve":"0","queue":"0"},
 "activity":{"volume":"888367896494715926270620625820","open":1128},
 "fees":{"pending":"166456064238868037488","lifetime":"31174963777059996904196661"},
 "paper":{"supply":"6523155697538734372886664082","staked":"6449325581495324759362035927","trackedLp":"4499154030980584574848767",
          "accumulator":"10508152974861028961272120","tailProgress":"114763668726032459329881425","reserve":"3343415793864991749917162",
          "unallocated":"0","pendingRewards":"166456064238868037488","cliff":"2000000000000000000000000","cap":"5000000000000000000000000",
          "excess":"0","rate":"100000000000000000000","decay":"120000000000000000000000000"}}"#;

/// A session with the markets, both marks, its own account, the summary and the relayer's
/// health (with a notice that tries to clear the screen), at `now()`.
fn fixture() -> App {
    let mut app = App::new(Mode::Demo, Some(ME.parse().unwrap()));
    let t = now() - Duration::from_secs(2);
    let state = TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
    app.handle(Message::Market(MarketEvent::Trading(Box::new(state), t)));
    for (instrument_id, raw) in [(0, 830_105), (1, 250_001)] {
        app.handle(Message::Market(MarketEvent::Mark {
            instrument_id,
            raw,
            at: t,
        }));
    }
    app.handle(Message::Stream(
        StreamEvent::Synced(Box::new(mine())),
        now(),
    ));
    app.handle(Message::Market(MarketEvent::Summary(
        Box::new(serde_json::from_str(SUMMARY).unwrap()),
        t,
    )));
    let health = serde_json::from_str(
        r#"{"ok":true,"ready":true,"notices":[{"level":"info","title":"Maintenance\u001b[2J","body":"relayer restarts at 20:00 UTC"}]}"#,
    )
    .unwrap();
    app.handle(Message::Market(MarketEvent::RelayerHealth(
        Box::new(health),
        t,
    )));
    app.key = Some(KeyStatus {
        address: "0x3f531f402502754977d21725fa31bfaacbed3562"
            .parse()
            .unwrap(),
        backend: "keystore",
        local_expiry: 1_794_285_240,
    });
    app.clock = now();
    app
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    match action(KeyEvent::new(code, KeyModifiers::NONE)) {
        Some(a) => app.handle(Message::Action(a)),
        None => Vec::new(),
    }
}

/// Answer at `at` the read the tab on screen declares.
fn answer(
    app: &mut App,
    _effects: Vec<Effect>,
    at: SystemTime,
    reply: impl FnOnce(&Fetch) -> Fetched,
) {
    let fetch = app
        .declared_fetch()
        .expect("the tab on screen declares its read");
    app.handle(Message::Fetched(reply(&fetch), at));
}

/// The Liquidations tab with the scan read.
fn liquidations() -> App {
    let mut app = fixture();
    let effects = press(&mut app, KeyCode::Char('7'));
    assert_eq!(app.tab, Tab::Liquidations);
    answer(&mut app, effects, now(), |f| {
        assert_eq!(f, &Fetch::Scan { wallets: 20 });
        Fetched::Scan(20, Ok(scan()))
    });
    app
}

/// Hourly history: TVL levels, cumulative volume and trades, a signed trader PnL.
fn history() -> ProtocolHistory {
    serde_json::from_str(
        r#"{"startMs":1791800000000,"intervalMs":3600000,
            "columns":{"tvl":[60000000,60500000,61000000,60800000,61329613.31],
                       "volume":[880000000,882000000,885500000,886000000,888367896.49],
                       "traderPnl":[-12000.5,-9000,-15000.25,-11000,-10250.75],
                       "trades":[100000,100420,100910,101200,101377],
                       "users":[400,402,405,409,412]},
            "totals":{}}"#,
    )
    .unwrap()
}

fn protocol() -> App {
    let mut app = fixture();
    let effects = press(&mut app, KeyCode::Char('4'));
    assert_eq!(app.tab, Tab::Protocol);
    answer(&mut app, effects, now(), |f| {
        assert_eq!(f, &Fetch::ProtocolHistory { interval: "1h" });
        Fetched::ProtocolHistory("1h", Ok(history()))
    });
    app
}

#[test]
fn the_two_panes_at_both_sizes() {
    for (name, app) in [("liquidations", liquidations()), ("protocol", protocol())] {
        for (w, h) in [(80, 24), (120, 40)] {
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(&app, w, h));
        }
    }
}

/// The ladder row holding `price` (its bucket's low, as drawn).
fn ladder_row<'a>(screen: &'a str, price: &str) -> Option<&'a str> {
    screen
        .lines()
        .find(|l| l.trim_start_matches(['│', ' ', '▶']).starts_with(price))
}

#[test]
fn the_sessions_own_bust_is_marked_in_its_bucket() {
    let app = liquidations();
    // 80x24: 13 rows of $1,000 (the ±5% cascade, 4,150.5, over 6 rows each side is $691.8: the
    // next round size up). The BTC long busts at 82,431.5: the 82,000.0 row.
    let s = screen(&app, 80, 24);
    assert!(s.contains("$1,000.0 buckets"), "{s}");
    let row = ladder_row(&s, "82,000.0").unwrap_or_else(|| panic!("no 82,000.0 row:\n{s}"));
    assert!(row.contains("◆ you"), "{row}");
    assert_eq!(s.matches("◆ you").count(), 1, "{s}");
    // The mark's row is flagged.
    assert!(s.contains("▶83,000.0"), "{s}");
    // 120x40: 29 rows of $500; the bust is in the 82,000.0 bucket again (82,000–82,500).
    let s = screen(&app, 120, 40);
    assert!(s.contains("$500.0 buckets"), "{s}");
    assert!(ladder_row(&s, "82,000.0").unwrap().contains("◆ you"), "{s}");
    assert!(
        !ladder_row(&s, "82,500.0").unwrap().contains("◆ you"),
        "{s}"
    );
}

#[test]
fn cascade_keys_change_the_cascade_and_the_ladder_with_it() {
    let mut app = liquidations();
    // ±5%: a fall to 78,860.0 busts the longs at or above it (01 $50k, 05 $20k, 07 $25k, this
    // session's $1k = $96k); a rise to 87,161.0 the shorts at or below it (02 $40k, 04 $20k).
    let s = screen(&app, 80, 24);
    assert!(
        s.contains("±5% busts $96.0k of longs by 78,860.0 · $60.0k of shorts by 87,161.0 · 6 pos"),
        "{s}"
    );
    for _ in 0..4 {
        press(&mut app, KeyCode::Char('-'));
    }
    assert_eq!(app.explore.liquidations.cascade_percent, 1);
    // ±1%: 83,010.5 ∓ 830.1: longs at or above 82,180.4 (01, this session: $51k), shorts at or
    // below 83,840.6 (04: $20k); the ladder zooms to $200 rows.
    let s = screen(&app, 80, 24);
    assert!(
        s.contains("±1% busts $51.0k of longs by 82,180.4 · $20.0k of shorts by 83,840.6 · 3 pos"),
        "{s}"
    );
    assert!(s.contains("$200.0 buckets"), "{s}");
    // 0% (and no lower): the ladder still spans 0.25% either way, 2,075 raw over 6 rows: $50.
    press(&mut app, KeyCode::Char('-'));
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.explore.liquidations.cascade_percent, 0);
    let s = screen(&app, 80, 24);
    assert!(s.contains("$50.0 buckets"), "{s}");
    assert!(s.contains("±0% busts $0 of longs"), "{s}");
}

#[test]
fn the_closest_list_is_ranked_and_its_cursor_stops_at_the_last_row() {
    let mut app = liquidations();
    let s = screen(&app, 120, 40);
    // Nearest first: 04 (0.35%), this session (0.70%), 01 (0.92%), 05, 07, 02, 03, 08.
    let order: Vec<usize> = [
        "0x0404…0404",
        "you ",
        "0x0101…0101",
        "0x0505…0505",
        "0x0707…0707",
        "0x0202…0202",
        "0x0303…0303",
        "0x0808…0808",
    ]
    .iter()
    .map(|w| s.find(w).unwrap_or_else(|| panic!("{w} not listed:\n{s}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{s}");
    assert!(s.contains("0.35%") && s.contains("critical"), "{s}");
    for _ in 0..20 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(app.explore.liquidations.cursor, 7, "eight BTC positions");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.explore.liquidations.cursor, 6);
    // ETH has two positions (01's short and this session's): `m` moves the list there, and
    // the cursor with it.
    press(&mut app, KeyCode::Char('m'));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.explore.liquidations.cursor, 1);
}

#[test]
fn a_failed_refresh_keeps_the_last_figures_and_says_it_failed() {
    let mut app = liquidations();
    // The next read is due 30 s on: time passing asks for it.
    let later = now() + Duration::from_secs(31);
    let effects = app.handle(Message::Tick(later));
    answer(&mut app, effects, later, |f| {
        Fetched::Scan(
            match f {
                Fetch::Scan { wallets } => *wallets,
                other => panic!("{other:?}"),
            },
            Err("scan: leaderboard: HTTP 503".into()),
        )
    });
    let s = screen(&app, 80, 24);
    assert!(s.contains("$96.0k of longs"), "{s}");
    assert!(
        s.contains("as of 03:41:40 UTC · last read failed: scan: leaderb"),
        "{s}"
    );
    // The scan line: 8 wallets read of the 9 listed, the one failure counted.
    assert!(
        s.contains("scanned 8 of top 9 wallets, 1 failed · 8 positions"),
        "{s}"
    );
}

#[test]
fn before_the_scan_the_pane_says_it_is_reading() {
    let mut app = fixture();
    press(&mut app, KeyCode::Char('7'));
    let s = screen(&app, 80, 24);
    assert!(s.contains("reading…"), "{s}");
    assert!(
        s.contains("scanning the wallets with the most open notional"),
        "{s}"
    );
}

#[test]
fn the_protocol_charts_show_the_interval_and_latest_values() {
    let mut app = protocol();
    let s = screen(&app, 120, 40);
    // TVL is a level: its last point. Volume and trades count up: the last interval's change
    // (888,367,896.49 − 886,000,000 and 101,377 − 101,200).
    assert!(s.contains("TVL $61.3M · 5 pts"), "{s}");
    assert!(s.contains("volume per 1h $2.37M · 4 pts"), "{s}");
    assert!(s.contains("trades per 1h 177 · 4 pts"), "{s}");
    assert!(s.contains("trader PnL -$10.3k · 5 pts"), "{s}");
    assert!(s.contains("history · 1h intervals"), "{s}");
    // The notice is drawn without its escape sequence.
    assert!(s.contains("notice [info] Maintenance"), "{s}");
    assert!(!s.contains('\u{1b}'));
    // `c` asks for the daily series at once and says so.
    press(&mut app, KeyCode::Char('c'));
    assert_eq!(
        app.declared_fetch(),
        Some(Fetch::ProtocolHistory { interval: "1d" })
    );
    let s = screen(&app, 80, 24);
    assert!(s.contains("history · 1d intervals"), "{s}");
}
